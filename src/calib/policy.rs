//! The safe opening: raw pad presses for the bot's pieces while the contract is not settled, chosen so
//! the learner sees what it needs before the bot commits to plans. The opening decides what to press;
//! the driver's press executor ([`crate::driver::Presser`]) presses it closed loop on RAM (each press
//! waits for RAM to show its effect, or gives up). It never writes RAM.
//!
//! Each piece: let it fall into open space (soft-dropping out of the top rows), turn it with A a full
//! circle and once back and forth with B / A (which puyo X / Y follow, and the order of the orientation
//! values), then turn it to the spawn value (odd pieces) or one A-turn further (even pieces) so locks
//! show two neighbouring orientations, move it to a column of a fixed spread (so stacks stay low) and
//! drop it. The first pieces land by gravity (the lock delay shows). Once the movement contract is known
//! and while it is not seen whether the pad still moves a landed pair, a piece lands by gravity and two
//! presses sideways on the landed pair show it (before the kick test's pieces).

use crate::driver::{Effect, Pose, PressTiming, Presser, Progress};
use crate::emu::pad;
use crate::game::Orientation;
use crate::memmap::raw::View;
use crate::memmap::{Turn, XyTracks};

use super::clock::ClockReport;
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
/// Presses sideways on a landed pair (see [`OpeningPolicy::lock_probe`]).
const LOCK_PROBE_PRESSES: u32 = 2;
/// Pieces the opening spends landing by gravity for the lock probe once the movement is known (a probe
/// can end without evidence, e.g. with no room beside the pair).
pub const LOCK_PROBE_PIECES: u32 = 1;
/// Frames a resting pair sits before the lock probe presses (a move on the frames right after a fall
/// proves nothing to the clock learner: the game may not have noticed the landing yet).
const LOCK_PROBE_AFTER: u32 = 3;
/// The probe: a full circle with A, then B and A once each.
const PROBE: [u8; 6] = [pad::A, pad::A, pad::A, pad::A, pad::B, pad::A];

/// True while the opening should show whether moves and turns work on a landed pair: not seen either
/// way, and the lock delay measured long enough for the probe's two presses to show before the lock.
pub fn wants_lock_probe(clock: &ClockReport) -> bool {
    let lag = u32::from(clock.input_lag.unwrap_or(0)) + u32::from(clock.input_lag_jitter.unwrap_or(0));
    clock.lock_moves.is_none()
        && clock.lock_delay.is_some_and(|l| u32::from(l) >= LOCK_PROBE_AFTER + 2 * LOCK_PROBE_PRESSES + lag)
}

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

/// The opening of one player.
#[derive(Clone, Debug)]
pub struct OpeningPolicy {
    player: usize,
    pieces: u32,
    stage: Stage,
    was_active: bool,
    spawn_o: u8,
    /// The pose (X, Y, orientation) the piece showed last frame, and for how many frames since it came.
    pose: Option<(u8, u8, u8)>,
    still: u32,
    /// Pieces routed to the lock probe so far, and whether the piece under way is one.
    lock_probe_pieces: u32,
    probing_lock: bool,
    /// The lock probe's presses so far, and the pose it started from (it stops once the pair moves).
    lock_probe_presses: u32,
    lock_probe_from: Option<(u8, u8, u8)>,
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
            pose: None,
            still: 0,
            lock_probe_pieces: 0,
            probing_lock: false,
            lock_probe_presses: 0,
            lock_probe_from: None,
            presser: Presser::new(TIMING),
        }
    }

    /// Pieces this opening has started.
    pub fn pieces(&self) -> u32 {
        self.pieces
    }

    /// True while this opening would spend a piece on the lock probe: the fact is wanted
    /// ([`wants_lock_probe`]) and its [`LOCK_PROBE_PIECES`] are not spent.
    pub fn lock_probe_pending(&self, clock: &ClockReport) -> bool {
        wants_lock_probe(clock) && self.lock_probe_pieces < LOCK_PROBE_PIECES
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
            self.was_active = true;
            self.pieces += 1;
            self.spawn_o = v.o;
            self.presser.cancel();
            self.pose = None;
            self.lock_probe_presses = 0;
            self.lock_probe_from = None;
            // The lock probe first (play needs it most), then the kick test, each while its fact is unknown.
            self.probing_lock = learner.movement().is_some() && self.lock_probe_pending(&learner.clock(self.player));
            self.stage = if self.probing_lock {
                self.lock_probe_pieces += 1;
                Stage::Descend { frames: 0 }
            } else if learner.movement().is_some() && learner.kicks_unknown() {
                Stage::KickUpright { presses: 0 }
            } else {
                Stage::Descend { frames: 0 }
            };
        }
        let pose = (v.x, v.y, v.o);
        if self.pose.replace(pose) == Some(pose) {
            self.still += 1;
        } else {
            self.still = 0;
        }
        if let Some(b) = self.pressing(&v) {
            return b;
        }
        loop {
            match self.stage {
                Stage::Descend { frames } => {
                    let open = learner.is_open(&v.cells, v.x, v.y);
                    if open || frames >= DESCEND_FRAMES || v.y >= 5 {
                        // Out of time or too low for open space: probe anyway (turns next to something
                        // still show the order of the orientation values).
                        self.stage = if learner.movement().is_none() {
                            Stage::Probe { done: 0 }
                        } else {
                            Stage::Turn { presses: 0 }
                        };
                        continue;
                    }
                    self.stage = Stage::Descend { frames: frames + 1 };
                    // Open space needs two free columns each side: centre the pair first.
                    if v.x < 3 {
                        return self.start_press(pad::RIGHT, &v);
                    }
                    if v.x > 4 {
                        return self.start_press(pad::LEFT, &v);
                    }
                    // Soft drop only out of the top rows: lower, a held Down could lock a resting pair. Not at
                    // all when the pair falls fast or the game sees the pad late: the Down would still act
                    // when the pair is far lower.
                    let clock = learner.clock(self.player);
                    let slow = clock.frames_per_row.is_none_or(|f| f > 8) && clock.input_lag.is_none_or(|l| l < 2);
                    return if v.y < 2 && slow { pad::DOWN } else { 0 };
                }
                Stage::Probe { done } => {
                    if done >= PROBE.len() {
                        self.stage = Stage::Turn { presses: 0 };
                        continue;
                    }
                    self.stage = Stage::Probe { done: done + 1 };
                    return self.start_press(PROBE[done], &v);
                }
                Stage::Turn { presses } => {
                    let done = match self.target_orientation(learner) {
                        Some(t) => t == v.o || presses >= 3,
                        // Not known where one A-turn leads yet: make one.
                        None => self.pieces % 2 == 1 || presses >= 1,
                    };
                    if done {
                        self.stage = Stage::Move;
                        continue;
                    }
                    self.stage = Stage::Turn { presses: presses + 1 };
                    return self.start_press(pad::A, &v);
                }
                Stage::Move => {
                    let target = COLUMNS[(self.pieces as usize - 1) % COLUMNS.len()];
                    if v.x == target {
                        self.stage = Stage::Drop;
                        continue;
                    }
                    return self.start_press(if v.x > target { pad::LEFT } else { pad::RIGHT }, &v);
                }
                // The first pieces land by gravity (no Down: Down locks at once), so the clock learner sees
                // how long a landed pair waits before it locks.
                Stage::Drop if self.pieces <= GRAVITY_LANDINGS || self.probing_lock => {
                    return self.lock_probe(&v, learner);
                }
                Stage::Drop => return pad::DOWN,
                Stage::KickUpright { presses } => {
                    let Some(c) = learner.movement() else { return pad::DOWN };
                    if v.o == c.value(Orientation::Up) || presses >= 3 {
                        self.stage = Stage::KickWall;
                        continue;
                    }
                    self.stage = Stage::KickUpright { presses: presses + 1 };
                    return self.start_press(pad::A, &v);
                }
                Stage::KickWall => {
                    if v.x == 1 {
                        self.stage = Stage::KickSideways;
                        continue;
                    }
                    return self.start_press(pad::LEFT, &v);
                }
                Stage::KickSideways => {
                    let Some(c) = learner.movement() else { return pad::DOWN };
                    self.stage = Stage::KickLieDown { presses: 0 };
                    // Upright at the left wall, a turn to the left is blocked by the wall.
                    let b = if c.a_turns == Turn::Counterclockwise { pad::A } else { pad::B };
                    return self.start_press(b, &v);
                }
                Stage::KickLieDown { presses } => {
                    let Some(c) = learner.movement() else { return pad::DOWN };
                    let o = c.dir(v.o);
                    if o.is_some_and(|o| o.dx() != 0) || presses >= 3 {
                        self.stage = Stage::KickFloor;
                        continue;
                    }
                    self.stage = Stage::KickLieDown { presses: presses + 1 };
                    // Lie down towards the middle of the field, where there is room.
                    let toward = if v.x <= 3 { Orientation::Right } else { Orientation::Left };
                    let cw = o.is_some_and(|o| o.clockwise() == toward);
                    let b = if cw == (c.a_turns == Turn::Clockwise) { pad::A } else { pad::B };
                    return self.start_press(b, &v);
                }
                Stage::KickFloor => {
                    let Some(c) = learner.movement() else { return pad::DOWN };
                    let Some(d) = c.dir(v.o) else { return pad::DOWN };
                    let (px, py) = match c.tracks {
                        XyTracks::Pivot => (v.x as i32, v.y as i32),
                        XyTracks::Child => (v.x as i32 - d.dx() as i32, v.y as i32 - d.dy() as i32),
                    };
                    let (cx, cy) = (px + d.dx() as i32, py + d.dy() as i32);
                    let below_free = |x: i32, y: i32| learner.cell_free(&v, x, y + 1);
                    if below_free(px, py) && below_free(cx, cy) {
                        // Falling: soft drop while well above the stack, then let it settle by itself.
                        let room = (py + 1..14).take_while(|&y| learner.cell_free(&v, px, y)).count();
                        return if room > 3 && d.dx() != 0 { pad::DOWN } else { 0 };
                    }
                    // Resting on its side: turn towards the floor.
                    self.stage = Stage::Drop;
                    if d.dx() == 0 {
                        return pad::DOWN;
                    }
                    let to_down = if d == Orientation::Right { Turn::Clockwise } else { Turn::Counterclockwise };
                    let b = if to_down == c.a_turns { pad::A } else { pad::B };
                    return self.start_press(b, &v);
                }
            }
        }
    }

    /// The lock probe, on a piece landing by gravity while the fact is wanted ([`wants_lock_probe`]): the
    /// first pieces, and a piece routed to it once the movement contract is learned. Once the pair rests on the stack or the floor (by the
    /// field learned) and has sat there a few frames, press sideways towards room twice (a frame let go
    /// between). The clock learner sees whether moves work while a landed pair waits to lock: the pair
    /// moves and still locks the lock delay after it landed, or both presses go unanswered and it locks
    /// where it sat. Play needs that fact before the bot builds a stack on it (a plan that counts on
    /// moves the game ignores ends a column short). No press when there is no room either side, or when
    /// the pair locks sooner (a short lock delay, where the moves matter little).
    fn lock_probe(&mut self, v: &View, learner: &Learner) -> u8 {
        if !wants_lock_probe(&learner.clock(self.player)) || self.lock_probe_presses >= LOCK_PROBE_PRESSES {
            return 0;
        }
        let pose = (v.x, v.y, v.o);
        if self.lock_probe_from.is_some_and(|from| from != pose) {
            // It moved: the fact is seen; leave the pair alone.
            self.lock_probe_presses = LOCK_PROBE_PRESSES;
            return 0;
        }
        if self.still < LOCK_PROBE_AFTER || self.presser.held() != 0 {
            return 0;
        }
        let Some(button) = self.room_beside_resting(v, learner) else { return 0 };
        self.lock_probe_from = Some(pose);
        self.lock_probe_presses += 1;
        button
    }

    /// Left or Right when the pair rests where it is and both its puyos have a free cell on that side with
    /// no free cell below it (the pair moved there rests too, so it stays in its row); by the movement
    /// contract and the field layout learned (`None` before they are).
    fn room_beside_resting(&self, v: &View, learner: &Learner) -> Option<u8> {
        let c = learner.movement()?;
        let d = c.dir(v.o)?;
        let (px, py) = match c.tracks {
            XyTracks::Pivot => (v.x as i32, v.y as i32),
            XyTracks::Child => (v.x as i32 - d.dx() as i32, v.y as i32 - d.dy() as i32),
        };
        let puyos = [(px, py), (px + d.dx() as i32, py + d.dy() as i32)];
        // A cell under the pair that is not one of its own puyos holds it up.
        let held_up =
            |dx: i32| puyos.iter().any(|&(x, y)| !puyos.contains(&(x, y + 1)) && !learner.cell_free(v, x + dx, y + 1));
        if !held_up(0) {
            return None;
        }
        [(pad::LEFT, -1), (pad::RIGHT, 1)]
            .into_iter()
            .find(|&(_, dx)| puyos.iter().all(|&(x, y)| learner.cell_free(v, x + dx, y)) && held_up(dx))
            .map(|(b, _)| b)
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
