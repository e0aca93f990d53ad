//! Emulator pacing: the emulator runs at wall-clock time × speed,
//! independent of how often the window redraws. The arithmetic is pure so it
//! can be tested without a window.

use std::fmt;
use std::time::Duration;

/// NTSC NES frame rate (frames per second).
pub const NES_FPS: f64 = 60.098_8;

/// At 1x, at most this many frames are caught up in one redraw after a stall;
/// the cap scales with the speed. Any larger backlog is dropped.
pub const MAX_CATCHUP_AT_1X: f64 = 4.0;

/// At maximum speed, frames are emulated for this long per redraw.
pub const MAX_SPEED_BUDGET: Duration = Duration::from_millis(16);

/// Emulator speed steps, slowest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default)]
pub enum EmuSpeed {
    /// Half speed (slow motion).
    Half,
    /// Real time.
    #[default]
    X1,
    /// Twice real time.
    X2,
    /// Four times real time.
    X4,
    /// As fast as the machine can go (about 16 ms of emulation per redraw).
    Max,
}

impl EmuSpeed {
    /// All steps, slowest first.
    pub const ALL: [EmuSpeed; 5] = [EmuSpeed::Half, EmuSpeed::X1, EmuSpeed::X2, EmuSpeed::X4, EmuSpeed::Max];

    /// Multiple of real time, or `None` for [`EmuSpeed::Max`].
    pub fn factor(self) -> Option<f64> {
        match self {
            EmuSpeed::Half => Some(0.5),
            EmuSpeed::X1 => Some(1.0),
            EmuSpeed::X2 => Some(2.0),
            EmuSpeed::X4 => Some(4.0),
            EmuSpeed::Max => None,
        }
    }

    /// The next faster step (stays at [`EmuSpeed::Max`]).
    pub fn faster(self) -> EmuSpeed {
        let i = Self::ALL.iter().position(|s| *s == self).unwrap_or(1);
        Self::ALL[(i + 1).min(Self::ALL.len() - 1)]
    }

    /// The next slower step (stays at [`EmuSpeed::Half`]).
    pub fn slower(self) -> EmuSpeed {
        let i = Self::ALL.iter().position(|s| *s == self).unwrap_or(1);
        Self::ALL[i.saturating_sub(1)]
    }

    /// Parses "0.5", "1", "2", "4", "max" (an optional trailing "x" is allowed).
    pub fn parse(s: &str) -> Option<EmuSpeed> {
        let t = s.trim().to_ascii_lowercase();
        if t == "max" {
            return Some(EmuSpeed::Max);
        }
        match t.strip_suffix('x').unwrap_or(&t) {
            "0.5" | "1/2" | "half" => Some(EmuSpeed::Half),
            "1" => Some(EmuSpeed::X1),
            "2" => Some(EmuSpeed::X2),
            "4" => Some(EmuSpeed::X4),
            _ => None,
        }
    }
}

impl fmt::Display for EmuSpeed {
    /// Short label for the HUD: "1/2X", "1X", "2X", "4X", "MAX".
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            EmuSpeed::Half => "1/2X",
            EmuSpeed::X1 => "1X",
            EmuSpeed::X2 => "2X",
            EmuSpeed::X4 => "4X",
            EmuSpeed::Max => "MAX",
        })
    }
}

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
