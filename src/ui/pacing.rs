//! Emulator pacing: the emulator runs at wall-clock time × speed,
//! independent of how often the window redraws. The arithmetic is pure so it
//! can be tested without a window.

use std::time::Duration;

pub use crate::emu::speed::{EmuSpeed, NES_FPS};

/// At 1x, at most this many frames are caught up in one redraw after a stall;
/// the cap scales with the speed. Any larger backlog is dropped.
pub const MAX_CATCHUP_AT_1X: f64 = 4.0;

/// At maximum speed, frames are emulated for this long per redraw.
pub const MAX_SPEED_BUDGET: Duration = Duration::from_millis(16);

/// What to emulate during one redraw.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Pace {
    /// Emulate exactly this many frames.
    Frames(u32),
    /// Emulate frames until this much wall-clock time has been spent.
    FillBudget(Duration),
}

/// How many frames to emulate for a redraw that comes `elapsed` after the
/// previous one, at `speed`.
///
/// `carry` holds the fractional frame left over from earlier redraws; it is
/// updated in place (start it at 0). After a stall the catch-up is capped at
/// [`MAX_CATCHUP_AT_1X`] × speed frames and the rest of the backlog is
/// dropped, so the emulator never tries to "make up" a long pause.
pub fn pace(speed: EmuSpeed, elapsed: Duration, carry: &mut f64) -> Pace {
    let Some(factor) = speed.factor() else {
        *carry = 0.0;
        return Pace::FillBudget(MAX_SPEED_BUDGET);
    };
    let due = *carry + elapsed.as_secs_f64() * NES_FPS * factor;
    let cap = (MAX_CATCHUP_AT_1X * factor).ceil().max(1.0);
    if due > cap {
        *carry = 0.0;
        return Pace::Frames(cap as u32);
    }
    let whole = due.floor();
    *carry = due - whole;
    Pace::Frames(whole as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame_time() -> Duration {
        Duration::from_secs_f64(1.0 / NES_FPS)
    }

    #[test]
    fn one_frame_time_at_each_speed() {
        for (speed, want) in [(EmuSpeed::X1, 1), (EmuSpeed::X2, 2), (EmuSpeed::X4, 4)] {
            let mut carry = 0.0;
            // Slightly more than a frame time, so rounding never loses a frame.
            let t = frame_time() + Duration::from_micros(10);
            assert_eq!(pace(speed, t, &mut carry), Pace::Frames(want), "{speed}");
            assert!(carry < 0.01);
        }
    }

    #[test]
    fn half_speed_alternates_via_carry() {
        let mut carry = 0.0;
        let t = frame_time() + Duration::from_micros(10);
        assert_eq!(pace(EmuSpeed::Half, t, &mut carry), Pace::Frames(0));
        assert!((carry - 0.5).abs() < 0.01);
        assert_eq!(pace(EmuSpeed::Half, t, &mut carry), Pace::Frames(1));
    }

    #[test]
    fn display_rate_does_not_change_emulation_rate() {
        // 1 second of 144 Hz redraws at 1x emulates ~60 frames; at 2x ~120.
        for (speed, want) in [(EmuSpeed::X1, 60), (EmuSpeed::X2, 120), (EmuSpeed::X4, 240)] {
            let mut carry = 0.0;
            let mut total = 0;
            for _ in 0..144 {
                if let Pace::Frames(n) = pace(speed, Duration::from_secs_f64(1.0 / 144.0), &mut carry) {
                    total += n;
                }
            }
            assert!((want..=want + 1).contains(&total), "{speed}: {total}");
        }
    }

    #[test]
    fn stall_is_capped_and_backlog_dropped() {
        let mut carry = 0.7;
        assert_eq!(pace(EmuSpeed::X1, Duration::from_secs(2), &mut carry), Pace::Frames(4));
        assert_eq!(carry, 0.0);
        assert_eq!(pace(EmuSpeed::X4, Duration::from_secs(2), &mut carry), Pace::Frames(16));
        assert_eq!(pace(EmuSpeed::Half, Duration::from_secs(2), &mut carry), Pace::Frames(2));
        assert_eq!(pace(EmuSpeed::X1, Duration::ZERO, &mut carry), Pace::Frames(0));
    }

    #[test]
    fn max_speed_fills_a_time_budget() {
        let mut carry = 0.3;
        assert_eq!(pace(EmuSpeed::Max, Duration::from_millis(5), &mut carry), Pace::FillBudget(MAX_SPEED_BUDGET));
        assert_eq!(carry, 0.0);
    }

    #[test]
    fn speed_steps_and_parse() {
        assert_eq!(EmuSpeed::X1.faster(), EmuSpeed::X2);
        assert_eq!(EmuSpeed::X4.faster(), EmuSpeed::Max);
        assert_eq!(EmuSpeed::Max.faster(), EmuSpeed::Max);
        assert_eq!(EmuSpeed::X1.slower(), EmuSpeed::Half);
        assert_eq!(EmuSpeed::Half.slower(), EmuSpeed::Half);
        assert_eq!(EmuSpeed::parse("4x"), Some(EmuSpeed::X4));
        assert_eq!(EmuSpeed::parse("MAX"), Some(EmuSpeed::Max));
        assert_eq!(EmuSpeed::parse("0.5"), Some(EmuSpeed::Half));
        assert_eq!(EmuSpeed::parse("3"), None);
        assert_eq!(EmuSpeed::X2.to_string(), "2X");
    }
}
