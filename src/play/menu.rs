//! Walking the menus from power-on by the script in the address file.

use crate::emu::pad;
use crate::memmap::decode::byte;
use crate::memmap::schema::MenuStep;

/// Default frames a `press` step holds its buttons (and then releases them).
pub const DEFAULT_PRESS_FRAMES: u32 = 2;
/// Default most frames a `wait_until` step waits.
pub const DEFAULT_WAIT_UNTIL: u32 = 600;

/// Where the script is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MenuStatus {
    /// Still running; hold these pads this frame.
    Running([u8; 2]),
    /// All steps done.
    Done,
    /// A `wait_until` step timed out.
    TimedOut {
        /// 1-based step number.
        step: usize,
    },
}

/// Runs a menu script one frame at a time.
#[derive(Clone, Debug)]
pub struct MenuRunner {
    steps: Vec<MenuStep>,
    index: usize,
    frame_in_step: u32,
}

impl MenuRunner {
    /// A runner at the first step.
    pub fn new(steps: Vec<MenuStep>) -> MenuRunner {
        MenuRunner { steps, index: 0, frame_in_step: 0 }
    }

    /// The pads for the next frame, given RAM now.
    pub fn step(&mut self, ram: &[u8; 2048]) -> MenuStatus {
        loop {
            let Some(s) = self.steps.get(self.index) else { return MenuStatus::Done };
            let n = self.frame_in_step;
            let finished = if let Some(w) = s.wait {
                if n < w {
                    self.frame_in_step += 1;
                    return MenuStatus::Running([0; 2]);
                }
                true
            } else if let Some(buttons) = &s.press {
                let frames = s.frames.unwrap_or(DEFAULT_PRESS_FRAMES).max(1);
                if n < 2 * frames {
                    self.frame_in_step += 1;
                    let bits = buttons.iter().filter_map(|b| pad::from_name(b)).fold(0, |a, b| a | b);
                    let mut pads = [0; 2];
                    if n < frames {
                        pads[(s.pad.unwrap_or(1).clamp(1, 2) - 1) as usize] = bits;
                    }
                    return MenuStatus::Running(pads);
                }
                true
            } else if let Some(c) = &s.wait_until {
                if byte(ram, c.addr as usize) == c.equals {
                    true
                } else if n >= s.timeout.unwrap_or(DEFAULT_WAIT_UNTIL) {
                    return MenuStatus::TimedOut { step: self.index + 1 };
                } else {
                    self.frame_in_step += 1;
                    return MenuStatus::Running([0; 2]);
                }
            } else {
                true
            };
            if finished {
                self.index += 1;
                self.frame_in_step = 0;
            }
        }
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
        let seq: Vec<_> = (0..4).map(|_| m.step(&ram)).collect();
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
        assert_eq!(m.step(&ram), MenuStatus::Done);
        let mut m = MenuRunner::new(steps);
        let ram = [0u8; 2048];
        let end = (0..20).map(|_| m.step(&ram)).find(|s| !matches!(s, MenuStatus::Running(_)));
        assert_eq!(end, Some(MenuStatus::TimedOut { step: 3 }));
    }
}
