//! The movement rules a seat's bot and driver plan with: the cartridge's (kicks), and the game's clock the
//! seat plays on. The clock is either given at set-up (`[lab] timing`), or the one calibration measured
//! for this player, handed over when it changes and turned into timing at the seat's own pace.

use crate::calib::ClockReport;
use crate::game::movegen::MoveRules;
use crate::game::timing::Timing;

/// How the seat's pairs move, and on which clock.
#[derive(Clone, Debug, Default)]
pub(super) struct Movement {
    /// The cartridge's movement rules, with the game's clock the seat plays on (`timing`; `None`: the
    /// untimed walk).
    pub moves: MoveRules,
    /// The clock was given at set-up: what calibration measures does not replace it.
    given: bool,
    /// The clock calibration measured for this player, as last handed over (`None`: none handed over).
    measured: Option<ClockReport>,
    /// The game's lock delay is not measured yet: the gravity-sample pairs land by gravity, so it shows.
    pub sample_lock: bool,
}

/// What the measured clock means for a seat at its pace.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct MeasuredTiming {
    /// The timing to play on (`None` until the gravity is measured: the untimed walk).
    pub timing: Option<Timing>,
    /// The gravity is measured but the lock delay is not ([`Movement::sample_lock`]).
    pub sample_lock: bool,
}

impl Movement {
    /// The seat plays on `timing`, given at set-up, whatever calibration measures (`None`: on the measured
    /// clock).
    pub fn give(&mut self, timing: Option<Timing>) {
        self.given = timing.is_some();
    }

    /// The clock calibration measured for this player, as last handed over.
    pub fn measured(&self) -> Option<&ClockReport> {
        self.measured.as_ref()
    }

    /// Takes the clock calibration measured for this player.
    pub fn hand_over(&mut self, clock: ClockReport) {
        self.measured = Some(clock);
    }

    /// The measured clock at a pace whose press costs `press_frames` frames; `None` when the clock was
    /// given (it stays as it is).
    pub fn measured_timing(&self, press_frames: u16) -> Option<MeasuredTiming> {
        if self.given {
            return None;
        }
        let clock = self.measured.as_ref();
        Some(MeasuredTiming {
            timing: clock.and_then(|c| c.timing(press_frames)),
            sample_lock: clock.is_some_and(|c| c.frames_per_row.is_some() && c.lock_delay.is_none()),
        })
    }
}
