//! The safe opening: raw pad presses for the bot's pieces while the contract is not settled, chosen so
//! the learner sees what it needs before the bot commits to plans. The opening decides what to press;
//! the driver's press executor ([`crate::driver::Presser`]) presses it closed loop on RAM (each press
//! waits for RAM to show its effect, or gives up). It never writes RAM.
//!
//! Each piece: let it fall into open space (soft-dropping out of the top rows), turn it with A a full
//! circle and once back and forth with B / A (which puyo X / Y follow, and the order of the orientation
//! values), then turn it to the spawn value (odd pieces) or one A-turn further (even pieces) so locks
//! show two neighbouring orientations, move it to a column of a fixed spread (so stacks stay low) and
//! drop it.

use crate::driver::{Effect, Pose, PressTiming, Presser, Progress};
use crate::emu::pad;
use crate::game::Orientation;
use crate::memmap::raw::View;
use crate::memmap::{Turn, XyTracks};

use super::learner::Learner;

/// How the opening presses: held 2 frames (let go at once when RAM shows the effect), refused 22 frames
/// after the press when RAM has shown none. The effect is the one the button makes (Left / Right the X
/// byte, a turn the orientation byte): what the bytes mean is still being learned, so a turn that also
/// moves the X byte ends only when the orientation byte shows it.
const TIMING: PressTiming = PressTiming { hold: 2, patience: 20, hold_while_waiting: false, effect: Effect::ByButton };
/// Frames the pair may take to reach open space.
const DESCEND_FRAMES: u32 = 150;
/// The opening's first pieces that land by gravity rather than a held Down (the lock delay shows).
const GRAVITY_LANDINGS: u32 = 2;
/// Columns (of the X byte) the opening drops its pieces in, in turn.
const COLUMNS: [u8; 5] = [1, 6, 2, 5, 4];
/// The probe: a full circle with A, then B and A once each.
const PROBE: [u8; 6] = [pad::A, pad::A, pad::A, pad::A, pad::B, pad::A];
/// The column pairs spawn in (the game's third), where the opening places a new pair while the X base
/// (the X byte's value for column 1) is not yet pinned.
const SPAWN_COLUMN: i32 = 3;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stage {
    Descend {
        frames: u32,
    },
    Probe {
        done: usize,
    },
    Turn {
        presses: u32,
    },
    Move,
    Drop,
    /// Kick test: turn upright, go to the left wall, turn towards it (a sideways kick or a refusal),
    /// then lie the pair down on its side and turn it towards the floor once it rests (an upward kick).
    KickUpright {
        presses: u32,
    },
    KickWall,
    KickSideways,
    KickLieDown {
        presses: u32,
    },
    KickFloor,
}

/// What a stage does on a frame: hand over to the stage it has just set, or hold these buttons.
enum Act {
    Next,
    Hold(u8),
}

/// The opening of one player.
#[derive(Clone, Debug)]
pub struct OpeningPolicy {
    player: usize,
    pieces: u32,
    stage: Stage,
    was_active: bool,
    spawn_o: u8,
    /// The X byte at the spawn.
    spawn_x: u8,
    /// The press executor.
    presser: Presser<()>,
}

impl OpeningPolicy {
    /// The opening for player `player` (0-based, in address-file order).
    pub fn new(player: usize) -> OpeningPolicy {
        OpeningPolicy {
            player,
            pieces: 0,
            stage: Stage::Drop,
            was_active: false,
            spawn_o: 0,
            spawn_x: 0,
            presser: Presser::new(TIMING),
        }
    }

    /// Pieces this opening has started.
    pub fn pieces(&self) -> u32 {
        self.pieces
    }

    /// The buttons to hold during the frame whose RAM is `ram`, given what the learner knows so far.
    pub fn buttons(&mut self, ram: &[u8; 2048], learner: &Learner) -> u8 {
        let buttons = self.choose(ram, learner);
        self.presser.end_frame(buttons);
        buttons
    }

    fn choose(&mut self, ram: &[u8; 2048], learner: &Learner) -> u8 {
        let Some(v) = learner.view_now(ram, self.player) else { return 0 };
        if !v.active {
            self.was_active = false;
            self.presser.cancel();
            return 0;
        }
        if !self.was_active {
            self.start_piece(&v, learner);
        }
        if let Some(b) = self.pressing(&v) {
            return b;
        }
        loop {
            let act = match self.stage {
                Stage::Descend { frames } => self.descend(frames, &v, learner),
                Stage::Probe { done } => self.probe(done, &v),
                Stage::Turn { presses } => self.turn(presses, &v, learner),
                Stage::Move => self.move_to_column(&v, learner),
                // The first pieces land by gravity (no Down: Down locks at once), so the clock learner sees
                // how long a landed pair waits before it locks.
                Stage::Drop if self.pieces <= GRAVITY_LANDINGS => Act::Hold(0),
                Stage::Drop => Act::Hold(pad::DOWN),
                Stage::KickUpright { presses } => self.kick_upright(presses, &v, learner),
                Stage::KickWall => self.kick_wall(&v, learner),
                Stage::KickSideways => self.kick_sideways(&v, learner),
                Stage::KickLieDown { presses } => self.kick_lie_down(presses, &v, learner),
                Stage::KickFloor => self.kick_floor(&v, learner),
            };
            if let Act::Hold(buttons) = act {
                return buttons;
            }
        }
    }

    /// A new piece is under control: count it, note its spawn pose, and start the kick test (once the
    /// movement is known and the kicks are not) or the descent.
    fn start_piece(&mut self, v: &View, learner: &Learner) {
        self.was_active = true;
        self.pieces += 1;
        self.spawn_o = v.o;
        self.spawn_x = v.x;
        self.presser.cancel();
        self.stage = if learner.movement().is_some() && learner.kicks_unknown() {
            Stage::KickUpright { presses: 0 }
        } else {
            Stage::Descend { frames: 0 }
        };
    }

    /// Falls into open space, centred and soft-dropped out of the top rows; then the probe (or the turn).
    fn descend(&mut self, frames: u32, v: &View, learner: &Learner) -> Act {
        let x = self.column(v, learner);
        let open = learner.is_open(&v.cells, x.clamp(1, 6) as u8, v.y);
        if open || frames >= DESCEND_FRAMES || v.y >= 5 {
            // Out of time or too low for open space: probe anyway (turns next to something
            // still show the order of the orientation values).
            self.stage =
                if learner.movement().is_none() { Stage::Probe { done: 0 } } else { Stage::Turn { presses: 0 } };
            return Act::Next;
        }
        self.stage = Stage::Descend { frames: frames + 1 };
        // Open space needs two free columns each side: centre the pair first.
        if x < 3 {
            return Act::Hold(self.start_press(pad::RIGHT, v));
        }
        if x > 4 {
            return Act::Hold(self.start_press(pad::LEFT, v));
        }
        // Soft drop only out of the top rows: lower, a held Down could lock a resting pair. Not at
        // all when the pair falls fast or the game sees the pad late: the Down would still act
        // when the pair is far lower.
        let clock = learner.clock(self.player);
        let slow = clock.frames_per_row.is_none_or(|f| f > 8) && clock.input_lag.is_none_or(|l| l < 2);
        Act::Hold(if v.y < 2 && slow { pad::DOWN } else { 0 })
    }

    /// The probe's presses, one at a time.
    fn probe(&mut self, done: usize, v: &View) -> Act {
        if done >= PROBE.len() {
            self.stage = Stage::Turn { presses: 0 };
            return Act::Next;
        }
        self.stage = Stage::Probe { done: done + 1 };
        Act::Hold(self.start_press(PROBE[done], v))
    }

    /// Turns the pair to the orientation this piece locks in.
    fn turn(&mut self, presses: u32, v: &View, learner: &Learner) -> Act {
        let done = match self.target_orientation(learner) {
            Some(t) => t == v.o || presses >= 3,
            // Not known where one A-turn leads yet: make one.
            None => self.pieces % 2 == 1 || presses >= 1,
        };
        if done {
            self.stage = Stage::Move;
            return Act::Next;
        }
        self.stage = Stage::Turn { presses: presses + 1 };
        Act::Hold(self.start_press(pad::A, v))
    }

    /// Moves the pair to this piece's column.
    fn move_to_column(&mut self, v: &View, learner: &Learner) -> Act {
        let target = i32::from(COLUMNS[(self.pieces as usize - 1) % COLUMNS.len()]);
        let x = self.column(v, learner);
        if x == target {
            self.stage = Stage::Drop;
            return Act::Next;
        }
        Act::Hold(self.start_press(if x > target { pad::LEFT } else { pad::RIGHT }, v))
    }

    /// Kick test: turns the pair upright.
    fn kick_upright(&mut self, presses: u32, v: &View, learner: &Learner) -> Act {
        let Some(c) = learner.movement() else { return Act::Hold(pad::DOWN) };
        if v.o == c.value(Orientation::Up) || presses >= 3 {
            self.stage = Stage::KickWall;
            return Act::Next;
        }
        self.stage = Stage::KickUpright { presses: presses + 1 };
        Act::Hold(self.start_press(pad::A, v))
    }

    /// Kick test: moves the upright pair to the left wall.
    fn kick_wall(&mut self, v: &View, learner: &Learner) -> Act {
        if self.column(v, learner) == 1 {
            self.stage = Stage::KickSideways;
            return Act::Next;
        }
        Act::Hold(self.start_press(pad::LEFT, v))
    }

    /// Kick test: turns towards the wall (a sideways kick or a refusal).
    fn kick_sideways(&mut self, v: &View, learner: &Learner) -> Act {
        let Some(c) = learner.movement() else { return Act::Hold(pad::DOWN) };
        self.stage = Stage::KickLieDown { presses: 0 };
        // Upright at the left wall, a turn to the left is blocked by the wall.
        let b = if c.a_turns == Turn::Counterclockwise { pad::A } else { pad::B };
        Act::Hold(self.start_press(b, v))
    }

    /// Kick test: lies the pair down on its side, towards the middle.
    fn kick_lie_down(&mut self, presses: u32, v: &View, learner: &Learner) -> Act {
        let Some(c) = learner.movement() else { return Act::Hold(pad::DOWN) };
        let o = c.dir(v.o);
        if o.is_some_and(|o| o.dx() != 0) || presses >= 3 {
            self.stage = Stage::KickFloor;
            return Act::Next;
        }
        self.stage = Stage::KickLieDown { presses: presses + 1 };
        // Lie down towards the middle of the field, where there is room.
        let toward = if v.x <= 3 { Orientation::Right } else { Orientation::Left };
        let cw = o.is_some_and(|o| o.clockwise() == toward);
        let b = if cw == (c.a_turns == Turn::Clockwise) { pad::A } else { pad::B };
        Act::Hold(self.start_press(b, v))
    }

    /// Kick test: once the pair rests on its side, turns it towards the floor (an upward kick).
    fn kick_floor(&mut self, v: &View, learner: &Learner) -> Act {
        let Some(c) = learner.movement() else { return Act::Hold(pad::DOWN) };
        let Some(d) = c.dir(v.o) else { return Act::Hold(pad::DOWN) };
        let (px, py) = match c.tracks {
            XyTracks::Pivot => (v.x as i32, v.y as i32),
            XyTracks::Child => (v.x as i32 - d.dx() as i32, v.y as i32 - d.dy() as i32),
        };
        let (cx, cy) = (px + d.dx() as i32, py + d.dy() as i32);
        let below_free = |x: i32, y: i32| learner.cell_free(v, x, y + 1);
        if below_free(px, py) && below_free(cx, cy) {
            // Falling: soft drop while well above the stack, then let it settle by itself.
            let room = (py + 1..14).take_while(|&y| learner.cell_free(v, px, y)).count();
            return Act::Hold(if room > 3 && d.dx() != 0 { pad::DOWN } else { 0 });
        }
        // Resting on its side: turn towards the floor.
        self.stage = Stage::Drop;
        if d.dx() == 0 {
            return Act::Hold(pad::DOWN);
        }
        let to_down = if d == Orientation::Right { Turn::Clockwise } else { Turn::Counterclockwise };
        let b = if to_down == c.a_turns { pad::A } else { pad::B };
        Act::Hold(self.start_press(b, v))
    }

    /// The pair's column: the X byte once the locks have pinned its base; before, counted from the spawn
    /// (pairs spawn in the third column), so a base the guessed file has wrong (column 1 read as 16) does
    /// not send every pair to a wall, where turns are refused and every lock stands upright.
    fn column(&self, v: &View, learner: &Learner) -> i32 {
        if learner.xy_bases_settled() {
            i32::from(v.x)
        } else {
            i32::from(v.x) - i32::from(self.spawn_x) + SPAWN_COLUMN
        }
    }

    /// Odd pieces keep the spawn value; even ones go one A-turn further, so locks show two neighbouring
    /// orientation values.
    fn target_orientation(&self, learner: &Learner) -> Option<u8> {
        if self.pieces % 2 == 1 {
            return Some(self.spawn_o);
        }
        learner.motion().after_a(self.spawn_o)
    }

    /// Presses `button` through the executor. Every press ends with a frame let go (see [`Self::pressing`])
    /// and the stages hold nothing else but Down, so the executor never has to let go first; if it did,
    /// this frame holds nothing.
    fn start_press(&mut self, button: u8, v: &View) -> u8 {
        self.presser.press(button, Pose { x: v.x, turn: v.o }, ()).unwrap_or(0)
    }

    /// While a press is in flight: hold it, then wait for its effect. `None` when none is in flight.
    fn pressing(&mut self, v: &View) -> Option<u8> {
        match self.presser.watch(Pose { x: v.x, turn: v.o })? {
            Progress::Hold(b) => Some(b),
            // Over (or let go while waiting): a frame let go between presses, since the game reacts to new
            // presses.
            Progress::Wait | Progress::Shown(_) => Some(0),
            Progress::Refused(_) => {
                // A refused move or turn (a wall, a stack, an item that does not turn): stop trying.
                self.stage = match self.stage {
                    Stage::Descend { .. } => Stage::Probe { done: 0 },
                    Stage::KickUpright { .. } | Stage::KickWall => Stage::KickLieDown { presses: 0 },
                    Stage::KickLieDown { .. } => Stage::KickFloor,
                    Stage::Probe { .. } | Stage::Turn { .. } => Stage::Move,
                    _ => Stage::Drop,
                };
                Some(0)
            }
        }
    }
}
