//! Walking the menus from power-on by the script in the address file.

use crate::emu::pad;
use crate::memmap::raw::byte;
use crate::memmap::schema::MenuStep;

/// Default frames a `press` step holds its buttons (and then releases them).
pub const DEFAULT_PRESS_FRAMES: u32 = 2;
/// Default most frames a `wait_until` step waits.
pub const DEFAULT_WAIT_UNTIL: u32 = 600;
/// Default buttons a `seek` step tries, in order.
pub const DEFAULT_SEEK_BUTTONS: [&str; 4] = ["DOWN", "RIGHT", "UP", "LEFT"];
/// Default most presses of one button in a `seek` step, or in all of a `start_play` step.
pub const DEFAULT_PRESSES: u32 = 4;
/// Default frames after each `seek` press before RAM is read.
pub const DEFAULT_SEEK_GAP: u32 = 12;
/// Default frames a `start_play` step waits for a pair before (and after each) press.
pub const DEFAULT_START_GAP: u32 = 90;
/// Frames a closed-loop step holds a button (then releases it for as many).
const CLOSED_LOOP_HOLD: u32 = 2;

/// Where the script is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MenuStatus {
    /// Still running; hold these pads this frame.
    Running([u8; 2]),
    /// All steps done.
    Done,
    /// A `wait_until` or `start_play` step timed out.
    TimedOut {
        /// 1-based step number.
        step: usize,
    },
    /// A `seek` step found no button that brings its byte to the goal, and the runner was told to stop
    /// there ([`MenuRunner::stop_on_failed_seek`]).
    SeekFailed {
        /// 1-based step number.
        step: usize,
        /// The byte watched.
        addr: u16,
        /// The value sought.
        goal: u8,
    },
}

/// Runs a menu script one frame at a time.
#[derive(Clone, Debug)]
pub struct MenuRunner {
    steps: Vec<MenuStep>,
    index: usize,
    frame_in_step: u32,
    /// Progress of a `seek` or `start_play` step.
    closed: ClosedLoop,
    /// Where `seed_wait` steps draw their frames from: the run's seed and the game's number.
    seed: Option<(u64, u32)>,
    /// The frames each `seed_wait` step waited, in order.
    seed_waits: Vec<u32>,
    /// A `seek` step no button could satisfy (1-based step, address, goal).
    failed_seek: Option<(usize, u16, u8)>,
    /// Stop the script at a failed `seek` instead of going on.
    stop_on_failed_seek: bool,
    /// The step (0-based) the script waits at until the person presses Start ([`MenuRunner::hold_before_final_start`]).
    hold: Option<usize>,
    /// Start was held on pad 1 by the person last frame (a press is a new hold of it).
    person_start: bool,
}

/// The frames a `seed_wait = most` step waits for game `game` (0 = the first, from power-on) of a run
/// seeded with `seed`: a SplitMix64 hash of both, so near seeds give unrelated waits.
pub fn seed_frames(seed: u64, game: u32, most: u32) -> u32 {
    let mut z = seed ^ (u64::from(game).wrapping_add(1)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^= z >> 31;
    (z % (u64::from(most) + 1)) as u32
}

/// Where a closed-loop step (`seek`, `start_play`) is.
#[derive(Clone, Debug, Default)]
struct ClosedLoop {
    /// Index of the button a `seek` tries.
    button: usize,
    /// Presses made (of this button for `seek`, in all for `start_play`).
    presses: u32,
    /// The press under way and the RAM byte before it; `None` between presses.
    press: Option<Press>,
    /// Frames since the last press ended (or the step began).
    idle: u32,
}

/// One press of a closed-loop step.
#[derive(Clone, Copy, Debug)]
struct Press {
    bits: u8,
    /// The watched byte before the press.
    before: u8,
    /// This press undoes the previous one.
    undo: bool,
    frame: u32,
}

/// The button that undoes a cursor move, if there is one.
fn opposite(bits: u8) -> Option<u8> {
    match bits {
        pad::UP => Some(pad::DOWN),
        pad::DOWN => Some(pad::UP),
        pad::LEFT => Some(pad::RIGHT),
        pad::RIGHT => Some(pad::LEFT),
        _ => None,
    }
}

fn bits_of(names: &[String]) -> u8 {
    names.iter().filter_map(|b| pad::from_name(b)).fold(0, |a, b| a | b)
}

/// The last step that presses Start on pad 1 (`press` or `start_play`), 0-based.
fn final_start(steps: &[MenuStep]) -> Option<usize> {
    steps.iter().rposition(|s| {
        let buttons = s.press.as_ref().or(s.start_play.as_ref());
        s.pad.unwrap_or(1) == 1 && buttons.is_some_and(|b| bits_of(b) & pad::START != 0)
    })
}

impl MenuRunner {
    /// A runner at the first step.
    pub fn new(steps: Vec<MenuStep>) -> MenuRunner {
        MenuRunner {
            steps,
            index: 0,
            frame_in_step: 0,
            closed: ClosedLoop::default(),
            seed: None,
            seed_waits: Vec::new(),
            failed_seek: None,
            stop_on_failed_seek: false,
            hold: None,
            person_start: false,
        }
    }

    /// Makes the script stop before its last step that presses Start on pad 1 (a `press` or `start_play`
    /// step) until the person presses Start there ([`MenuRunner::person_pad`]): the game starts when the
    /// person is ready. The person's press does a `press` step's work; a `start_play` step then runs as
    /// usual (it presses only while no pair falls). A script with no such step does not wait.
    pub fn hold_before_final_start(mut self, on: bool) -> MenuRunner {
        self.hold = if on { final_start(&self.steps) } else { None };
        self
    }

    /// Whether the script is waiting for the person's Start now.
    pub fn holding(&self) -> bool {
        self.hold == Some(self.index)
    }

    /// The buttons the person holds on pad 1 this frame (call before [`MenuRunner::step`]). A new press
    /// of Start while the script waits for it ends the wait; Start already held when the wait began does
    /// not count (the console, too, starts on a press).
    pub fn person_pad(&mut self, pad1: u8) {
        let held = pad1 & pad::START != 0;
        let pressed = held && !self.person_start;
        self.person_start = held;
        if pressed && self.holding() {
            self.hold = None;
            if self.steps.get(self.index).is_some_and(|s| s.press.is_some()) {
                self.next_step();
            }
        }
    }

    /// Draws the frames of `seed_wait` steps from `seed` and the game's number `game` (0 = the game
    /// from power-on). Without this, `seed_wait` steps wait 0 frames.
    pub fn with_seed(mut self, seed: u64, game: u32) -> MenuRunner {
        self.seed = Some((seed, game));
        self
    }

    /// Makes a `seek` step that no button satisfies end the script with [`MenuStatus::SeekFailed`]
    /// (a window, where a person can take over) instead of going on (headless).
    pub fn stop_on_failed_seek(mut self, stop: bool) -> MenuRunner {
        self.stop_on_failed_seek = stop;
        self
    }

    /// The frames each `seed_wait` step waited so far, in order.
    pub fn seed_waits(&self) -> &[u32] {
        &self.seed_waits
    }

    /// The last `seek` step that went on without reaching its goal: (1-based step, address, goal).
    pub fn failed_seek(&self) -> Option<(usize, u16, u8)> {
        self.failed_seek
    }

    /// The pads for the next frame, given RAM now and whether a pair is falling (the game has started).
    pub fn step(&mut self, ram: &[u8; 2048], playing: bool) -> MenuStatus {
        loop {
            let Some(s) = self.steps.get(self.index) else { return MenuStatus::Done };
            if self.holding() {
                return MenuStatus::Running([0; 2]);
            }
            let pad_index = (s.pad.unwrap_or(1).clamp(1, 2) - 1) as usize;
            if let Some(goal) = &s.seek {
                match Self::seek_frame(&mut self.closed, s, goal.addr as usize, goal.equals, ram) {
                    Some(Ok(bits)) => {
                        let mut pads = [0; 2];
                        pads[pad_index] = bits;
                        return MenuStatus::Running(pads);
                    }
                    Some(Err(())) => {
                        self.failed_seek = Some((self.index + 1, goal.addr, goal.equals));
                        if self.stop_on_failed_seek {
                            return MenuStatus::SeekFailed { step: self.index + 1, addr: goal.addr, goal: goal.equals };
                        }
                        // Not fatal: the menu may already be where it should, by another byte's reckoning.
                        log::warn!(
                            "menu script: step {}: no button brought RAM ${:04X} to {}; going on",
                            self.index + 1,
                            goal.addr,
                            goal.equals
                        );
                        self.next_step();
                        continue;
                    }
                    None => {
                        self.next_step();
                        continue;
                    }
                }
            }
            if let Some(buttons) = &s.start_play {
                match Self::start_play_frame(&mut self.closed, s, bits_of(buttons), playing) {
                    Some(Ok(bits)) => {
                        let mut pads = [0; 2];
                        pads[pad_index] = bits;
                        return MenuStatus::Running(pads);
                    }
                    Some(Err(())) => return MenuStatus::TimedOut { step: self.index + 1 },
                    None => {
                        self.next_step();
                        continue;
                    }
                }
            }
            if let Some(status) = self.timed_frame(ram, pad_index) {
                return status;
            }
            self.next_step();
        }
    }

    /// One frame of a timed step (`seed_wait`, `wait`, `press`, `wait_until`, or none of them): the status
    /// to return while it runs, `None` once it is done.
    fn timed_frame(&mut self, ram: &[u8; 2048], pad_index: usize) -> Option<MenuStatus> {
        let s = &self.steps[self.index];
        let n = self.frame_in_step;
        let mut pads = [0; 2];
        if let Some(most) = s.seed_wait {
            let w = self.seed.map_or(0, |(seed, game)| seed_frames(seed, game, most));
            if n == 0 {
                self.seed_waits.push(w);
            }
            if n >= w {
                return None;
            }
        } else if let Some(w) = s.wait {
            if n >= w {
                return None;
            }
        } else if let Some(buttons) = &s.press {
            let frames = s.frames.unwrap_or(DEFAULT_PRESS_FRAMES).max(1);
            if n >= 2 * frames {
                return None;
            }
            if n < frames {
                pads[pad_index] = bits_of(buttons);
            }
        } else if let Some(c) = &s.wait_until {
            if byte(ram, c.addr as usize) == c.equals {
                return None;
            }
            if n >= s.timeout.unwrap_or(DEFAULT_WAIT_UNTIL) {
                return Some(MenuStatus::TimedOut { step: self.index + 1 });
            }
        } else {
            return None;
        }
        self.frame_in_step += 1;
        Some(MenuStatus::Running(pads))
    }

    fn next_step(&mut self) {
        self.index += 1;
        self.frame_in_step = 0;
        self.closed = ClosedLoop::default();
    }

    /// Advances a press under way: the bits to hold this frame, or `None` once it has been released.
    fn hold(press: &mut Press) -> Option<u8> {
        if press.frame >= 2 * CLOSED_LOOP_HOLD {
            return None;
        }
        press.frame += 1;
        Some(if press.frame <= CLOSED_LOOP_HOLD { press.bits } else { 0 })
    }

    /// One frame of a `seek` step: `Some(Ok(bits))` to hold, `Some(Err(()))` when every button failed,
    /// `None` when the byte holds the goal.
    fn seek_frame(c: &mut ClosedLoop, s: &MenuStep, addr: usize, goal: u8, ram: &[u8; 2048]) -> Option<Result<u8, ()>> {
        let buttons: Vec<u8> = match &s.buttons {
            Some(b) => b.iter().filter_map(|n| pad::from_name(n)).collect(),
            None => DEFAULT_SEEK_BUTTONS.iter().filter_map(|n| pad::from_name(n)).collect(),
        };
        let most = s.presses.unwrap_or(DEFAULT_PRESSES).max(1);
        let gap = s.gap.unwrap_or(DEFAULT_SEEK_GAP);
        let now = byte(ram, addr);
        if let Some(p) = c.press.as_mut() {
            if let Some(bits) = Self::hold(p) {
                return Some(Ok(bits));
            }
            if c.idle < gap {
                c.idle += 1;
                return Some(Ok(0));
            }
            let done = *p;
            c.press = None;
            c.idle = 0;
            if now == goal {
                return None;
            }
            if done.undo {
                c.button += 1;
                c.presses = 0;
            } else if now != done.before && c.presses < most {
                // The button moves the byte: keep pressing it (menus wrap, so the goal comes round).
            } else if now == done.before && c.presses == 1 {
                // It moved something else (another cursor, perhaps): put it back before trying the next.
                if let Some(back) = opposite(done.bits) {
                    return Some(Ok(c.begin(back, now, true)));
                }
                c.button += 1;
                c.presses = 0;
            } else {
                c.button += 1;
                c.presses = 0;
            }
        } else if now == goal {
            return None;
        }
        let Some(&bits) = buttons.get(c.button) else { return Some(Err(())) };
        c.presses += 1;
        Some(Ok(c.begin(bits, now, false)))
    }

    /// One frame of a `start_play` step: `Some(Ok(bits))` to hold, `Some(Err(()))` when the presses ran
    /// out with no pair, `None` once a pair falls.
    fn start_play_frame(c: &mut ClosedLoop, s: &MenuStep, bits: u8, playing: bool) -> Option<Result<u8, ()>> {
        let most = s.presses.unwrap_or(DEFAULT_PRESSES).max(1);
        let gap = s.gap.unwrap_or(DEFAULT_START_GAP);
        if let Some(p) = c.press.as_mut() {
            if let Some(held) = Self::hold(p) {
                return Some(Ok(held));
            }
            c.press = None;
            c.idle = 0;
        }
        if playing {
            return None;
        }
        if c.idle < gap {
            c.idle += 1;
            return Some(Ok(0));
        }
        if c.presses >= most {
            return Some(Err(()));
        }
        c.presses += 1;
        Some(Ok(c.begin(bits, 0, false)))
    }
}

impl ClosedLoop {
    /// Starts a press; returns the bits of its first frame.
    fn begin(&mut self, bits: u8, before: u8, undo: bool) -> u8 {
        self.press = Some(Press { bits, before, undo, frame: 1 });
        bits
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memmap::schema::Condition;

    #[test]
    fn a_script_waits_presses_releases_and_waits_for_ram() {
        let steps = vec![
            MenuStep { wait: Some(2), ..Default::default() },
            MenuStep { press: Some(vec!["START".into()]), frames: Some(1), ..Default::default() },
            MenuStep { wait_until: Some(Condition { addr: 0x10, equals: 5 }), timeout: Some(3), ..Default::default() },
        ];
        let mut m = MenuRunner::new(steps.clone());
        let mut ram = [0u8; 2048];
        let seq: Vec<_> = (0..4).map(|_| m.step(&ram, false)).collect();
        assert_eq!(
            seq,
            vec![
                MenuStatus::Running([0, 0]),
                MenuStatus::Running([0, 0]),
                MenuStatus::Running([pad::START, 0]),
                MenuStatus::Running([0, 0]),
            ]
        );
        ram[0x10] = 5;
        assert_eq!(m.step(&ram, false), MenuStatus::Done);
        let mut m = MenuRunner::new(steps);
        let ram = [0u8; 2048];
        let end = (0..20).map(|_| m.step(&ram, false)).find(|s| !matches!(s, MenuStatus::Running(_)));
        assert_eq!(end, Some(MenuStatus::TimedOut { step: 3 }));
    }

    #[test]
    fn a_held_script_waits_at_its_last_start_until_the_person_presses_start() {
        let steps = vec![
            MenuStep { press: Some(vec!["START".into()]), frames: Some(1), ..Default::default() },
            MenuStep { wait: Some(1), ..Default::default() },
            MenuStep { press: Some(vec!["START".into()]), frames: Some(1), ..Default::default() },
        ];
        let ram = [0u8; 2048];
        let mut m = MenuRunner::new(steps.clone()).hold_before_final_start(true);
        // The first Start and the wait run; then the script holds and presses nothing, however long.
        assert_eq!(m.step(&ram, false), MenuStatus::Running([pad::START, 0]));
        assert_eq!(m.step(&ram, false), MenuStatus::Running([0, 0]));
        for _ in 0..1000 {
            m.person_pad(0);
            assert_eq!(m.step(&ram, false), MenuStatus::Running([0, 0]));
        }
        assert!(m.holding());
        // Start held since before the wait began is not a press; a new press ends the wait, and its
        // press step is the person's: the script does not press Start again.
        let mut m2 = MenuRunner::new(steps.clone()).hold_before_final_start(true);
        m2.person_pad(pad::START);
        for _ in 0..10 {
            m2.person_pad(pad::START);
            m2.step(&ram, false);
        }
        assert!(m2.holding(), "Start held all along does not start the game");
        m.person_pad(pad::A);
        assert!(m.holding(), "only Start ends the wait");
        m.person_pad(pad::START);
        assert!(!m.holding());
        assert_eq!(m.step(&ram, false), MenuStatus::Done);
        // Off (the default), the same script presses its last Start itself.
        let mut m = MenuRunner::new(steps);
        let seq: Vec<_> = (0..5).map(|_| m.step(&ram, false)).collect();
        assert_eq!(seq[3], MenuStatus::Running([pad::START, 0]));
        assert!(!m.holding());
    }

    #[test]
    fn a_held_start_play_step_runs_after_the_person_s_start_and_a_script_without_start_never_holds() {
        let step = MenuStep { start_play: Some(vec!["START".into()]), gap: Some(3), ..Default::default() };
        let ram = [0u8; 2048];
        let mut m = MenuRunner::new(vec![step]).hold_before_final_start(true);
        for _ in 0..50 {
            assert_eq!(m.step(&ram, false), MenuStatus::Running([0, 0]));
        }
        m.person_pad(pad::START);
        // The closed loop goes on: a second screen still needs Start, and the step presses it.
        let pressed = (0..10).any(|_| m.step(&ram, false) == MenuStatus::Running([pad::START, 0]));
        assert!(pressed);
        let end = (0..10).map(|_| m.step(&ram, true)).find(|s| !matches!(s, MenuStatus::Running(_)));
        assert_eq!(end, Some(MenuStatus::Done), "a pair falls: the step ends");
        let m = MenuRunner::new(vec![MenuStep { wait: Some(1), ..Default::default() }]).hold_before_final_start(true);
        assert!(!m.holding());
        let pad2 = MenuStep { press: Some(vec!["START".into()]), pad: Some(2), ..Default::default() };
        let m = MenuRunner::new(vec![pad2]).hold_before_final_start(true);
        assert!(!m.holding(), "a Start on pad 2 is not the person's");
    }

    /// Runs `runner` against a toy menu that reacts to newly pressed buttons; returns the end status
    /// and the frames it took.
    fn drive(
        runner: &mut MenuRunner,
        ram: &mut [u8; 2048],
        mut react: impl FnMut(u8, &mut [u8; 2048]),
        mut playing: impl FnMut(&[u8; 2048]) -> bool,
    ) -> (MenuStatus, u32) {
        let mut held = 0u8;
        for frame in 0..5000 {
            match runner.step(ram, playing(ram)) {
                MenuStatus::Running(p) => {
                    let new = p[0] & !held;
                    held = p[0];
                    if new != 0 {
                        react(new, ram);
                    }
                }
                end => return (end, frame),
            }
        }
        panic!("the runner never finished");
    }

    fn seek(addr: u16, equals: u8) -> MenuStep {
        MenuStep { seek: Some(Condition { addr, equals }), ..Default::default() }
    }

    const CURSOR: usize = 0x20;
    const MODE: usize = 0x6F;

    /// A menu like the open cartridge's: Up/Down move a cursor over three options, Right/Left change
    /// the option under it; the mode option (cursor 0) toggles between 0 and 2.
    fn option_list(new: u8, ram: &mut [u8; 2048]) {
        if new & pad::DOWN != 0 {
            ram[CURSOR] = (ram[CURSOR] + 1) % 3;
        }
        if new & pad::UP != 0 {
            ram[CURSOR] = (ram[CURSOR] + 2) % 3;
        }
        if new & (pad::RIGHT | pad::LEFT) != 0 && ram[CURSOR] == 0 {
            ram[MODE] ^= 2;
        }
    }

    #[test]
    fn seek_puts_back_a_cursor_it_moved_and_finds_the_button_that_changes_the_byte() {
        let mut ram = [0u8; 2048];
        let mut m = MenuRunner::new(vec![seek(MODE as u16, 2)]);
        let (end, _) = drive(&mut m, &mut ram, option_list, |_| false);
        assert_eq!(end, MenuStatus::Done);
        assert_eq!((ram[MODE], ram[CURSOR]), (2, 0), "mode reached, cursor put back on the mode option");
    }

    #[test]
    fn seek_walks_a_vertical_list_and_stops_on_the_goal() {
        let mut ram = [0u8; 2048];
        let mut downs = 0;
        let mut m = MenuRunner::new(vec![seek(MODE as u16, 2)]);
        let (end, _) = drive(
            &mut m,
            &mut ram,
            |new, ram| {
                if new & pad::DOWN != 0 {
                    downs += 1;
                    ram[MODE] = (ram[MODE] + 1) % 3;
                }
            },
            |_| false,
        );
        assert_eq!((end, ram[MODE], downs), (MenuStatus::Done, 2, 2));
    }

    #[test]
    fn seek_goes_on_when_no_button_moves_the_byte_and_does_nothing_when_already_there() {
        let mut ram = [0u8; 2048];
        let mut m = MenuRunner::new(vec![seek(MODE as u16, 2)]);
        let (end, frames) = drive(&mut m, &mut ram, |_, _| {}, |_| false);
        assert_eq!(end, MenuStatus::Done, "a failed seek is logged and the script goes on");
        assert!(frames >= 4 * 2 * 2, "each of the four buttons was tried (and undone): {frames} frames");
        ram[MODE] = 2;
        let mut pressed = false;
        let mut m = MenuRunner::new(vec![seek(MODE as u16, 2)]);
        let (end, frames) = drive(&mut m, &mut ram, |_, _| pressed = true, |_| false);
        assert_eq!((end, frames, pressed), (MenuStatus::Done, 0, false));
    }

    #[test]
    fn start_play_presses_only_while_no_pair_falls() {
        let step = MenuStep { start_play: Some(vec!["START".into()]), gap: Some(30), ..Default::default() };
        // The game starts by itself after 10 frames: nothing is pressed.
        let mut ram = [0u8; 2048];
        let mut frame = 0u32;
        let mut presses = 0;
        let mut m = MenuRunner::new(vec![step.clone()]);
        let (end, _) = drive(
            &mut m,
            &mut ram,
            |_, _| presses += 1,
            |_| {
                frame += 1;
                frame > 10
            },
        );
        assert_eq!((end, presses), (MenuStatus::Done, 0));
        // Two screens need Start before the pair falls.
        let mut ram = [0u8; 2048];
        let mut m = MenuRunner::new(vec![step.clone()]);
        let (end, _) = drive(&mut m, &mut ram, |_, ram| ram[0x30] += 1, |ram| ram[0x30] >= 2);
        assert_eq!((end, ram[0x30]), (MenuStatus::Done, 2));
        // Never: the presses run out.
        let mut ram = [0u8; 2048];
        let mut m = MenuRunner::new(vec![step]);
        let (end, _) = drive(&mut m, &mut ram, |_, _| {}, |_| false);
        assert_eq!(end, MenuStatus::TimedOut { step: 1 });
    }
}
