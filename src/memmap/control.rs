//! When a piece is under the player's control, by the cartridge's timing facts (`[timing]`): the
//! spawn-delay timer reaching 0 opens a piece's life; the pose bytes are the new piece's `pose_lag` frames
//! later; the life ends when the timer turns non-zero, or (`lock_signal = "field"`) when the field changes
//! while the timer stays 0 (the field does not change while a piece falls: a pair adds its cells, an item
//! clears or recolours some).
//!
//! With the default timing (`pose_lag = 0`, `lock_signal = "timer"`) this is exactly "the timer reads 0".

use super::schema::{LockSignal, Timing};
use crate::game::Field;

/// One player's piece life, followed frame by frame.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PieceClock {
    /// Frames since the timer reached 0 (the first such frame is 1).
    zero_frames: u32,
    /// The timer was seen non-zero since this clock started (until then a lag cannot be counted, so a
    /// clock started in the middle of a piece trusts the timer).
    counted: bool,
    /// The field on the piece's first controllable frame.
    baseline: Option<Field>,
    /// The field changed while the timer stayed 0: the piece locked.
    locked: bool,
}

impl PieceClock {
    /// Feeds one frame: whether the timer reads 0 and the decoded field. Returns whether a piece can be
    /// under control in this frame (the decoder adds its own checks of the pose bytes).
    pub fn step(&mut self, timer_zero: bool, field: &Field, timing: &Timing) -> bool {
        if !timer_zero {
            *self = PieceClock { counted: true, ..PieceClock::default() };
            return false;
        }
        self.zero_frames = self.zero_frames.saturating_add(1);
        if self.counted && self.zero_frames <= timing.pose_lag {
            return false;
        }
        if timing.lock_signal == LockSignal::Field {
            let baseline = *self.baseline.get_or_insert(*field);
            self.locked |= baseline != *field;
        }
        !self.locked
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Cell;

    /// A field with `n` nuisance puyos in the bottom rows.
    fn with(n: usize) -> Field {
        let mut f = Field::new();
        for i in 0..n {
            f.set(1 + i % 6, 13 - i / 6, Cell::Nuisance);
        }
        f
    }

    fn timing(pose_lag: u32, lock_signal: LockSignal) -> Timing {
        Timing { pose_lag, lock_signal, ..Timing::default() }
    }

    #[test]
    fn the_default_timing_is_the_timer_alone() {
        let t = Timing::default();
        let mut c = PieceClock::default();
        assert!(c.step(true, &with(0), &t));
        assert!(c.step(true, &with(9), &t));
        assert!(!c.step(false, &with(9), &t));
        assert!(c.step(true, &with(9), &t));
    }

    #[test]
    fn a_pose_lag_waits_after_the_countdown() {
        let t = timing(2, LockSignal::Timer);
        let mut c = PieceClock::default();
        assert!(!c.step(false, &with(0), &t));
        assert!(!c.step(true, &with(0), &t));
        assert!(!c.step(true, &with(0), &t));
        assert!(c.step(true, &with(0), &t));
    }

    #[test]
    fn a_field_lock_ends_control_until_the_next_countdown() {
        let t = timing(0, LockSignal::Field);
        let mut c = PieceClock::default();
        c.step(false, &with(4), &t);
        assert!(c.step(true, &with(4), &t));
        assert!(c.step(true, &with(4), &t));
        assert!(!c.step(true, &with(6), &t));
        // A chain pops the cells: still resolving.
        assert!(!c.step(true, &with(2), &t));
        assert!(!c.step(false, &with(2), &t));
        assert!(c.step(true, &with(2), &t));
    }
}
