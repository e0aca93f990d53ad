//! `puyobot serve`'s game: the session of `play`, headless, on the console of a connected emulator
//! ([`crate::emu::remote::Remote`]). A failed link (a bad message, a silent or closed emulator) ends the
//! run like any stop: the report covers what was played, and the error says what happened.

use std::time::Instant;

use serde::Serialize;

use crate::emu::remote::{Remote, Status, median_p99_ms, proto};
use crate::trace::TraceRecorder;

use super::headless::{Limits, RunError, run_observed};
use super::report::Summary;
use super::session::Session;

/// The machine of a served run: the recorder next to the emulator's console.
pub type ServedMachine = TraceRecorder<Remote>;

/// The link's figures, added to the report as `remote`.
#[derive(Clone, Debug, Serialize)]
pub struct LinkReport {
    /// The emulator, as its hello named it.
    pub emulator: String,
    /// Its address.
    pub peer: String,
    /// The protocol version spoken.
    pub protocol: u32,
    /// Frames exchanged.
    pub frames: usize,
    /// From sending a frame's pads to receiving the next frame (the emulator's frame and the two
    /// messages), in milliseconds.
    pub round_trip_ms: Option<Quantiles>,
    /// From receiving a frame to answering it (the engine's own work), in milliseconds.
    pub engine_ms: Option<Quantiles>,
    /// Why the run ended, as the emulator was told.
    pub end: String,
}

/// A median and a 99th percentile.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Quantiles {
    /// The median.
    pub median: f64,
    /// The 99th percentile.
    pub p99: f64,
}

impl Quantiles {
    fn of(us: &[u32]) -> Option<Quantiles> {
        median_p99_ms(us).map(|(median, p99)| Quantiles { median, p99 })
    }
}

/// How a served run ended.
pub struct Served {
    /// The report of what was played.
    pub summary: Summary,
    /// The link's figures.
    pub link: LinkReport,
    /// What stopped the run early (a broken link, the emulator's stop, the menus, calibration), if anything.
    pub error: Option<RunError>,
}

/// What the script's status line shows for the session's state.
pub fn status_of(s: &Session<ServedMachine>) -> Status {
    if s.outcome.is_some() {
        Status::GameOver
    } else if s.in_menus() {
        Status::Menus
    } else if s.calibration().is_some_and(|c| !c.settled()) {
        Status::Calibrating
    } else {
        Status::Playing
    }
}

/// Runs the session to `limits` (as a headless `play` does), keeps the emulator's status line current,
/// and tells the emulator why it ended. Never fails: an error is part of what it returns.
pub fn run(session: &mut Session<ServedMachine>, limits: Limits, label: &str, seed: u64, speed: u8) -> Served {
    let start = Instant::now();
    let first = session.frames();
    let mut observe = |s: &Session<ServedMachine>| s.machine().inner().set_status(status_of(s));
    let (summary, error) = match run_observed(session, limits, label, seed, speed, &mut observe) {
        Ok(summary) => (summary, None),
        Err(e) => {
            let frames = session.frames() - first;
            (Summary::of(session, label, seed, speed, frames, start.elapsed(), None), Some(e))
        }
    };
    let end = match &error {
        Some(e) => format!("stopped: {e}"),
        None if summary.stalled => format!("stopped: {}", RunError::Stalled(super::headless::STALL_FRAMES)),
        None if summary.interrupted => "stopped: the engine was interrupted".into(),
        None if summary.health.failure.is_some() => "stopped: the game no longer matches the address file".into(),
        None if summary.game_over => "done: game over".into(),
        None => "done".into(),
    };
    let remote = session.machine_mut().inner_mut();
    // Best effort: an emulator that said bye is not told again, and a dropped link cannot hear it.
    remote.stop(&end);
    let link = LinkReport {
        emulator: remote.emulator().to_string(),
        peer: remote.peer().to_string(),
        protocol: proto::VERSION,
        frames: remote.round_trips_us().len(),
        round_trip_ms: Quantiles::of(remote.round_trips_us()),
        engine_ms: Quantiles::of(remote.engine_us()),
        end,
    };
    Served { summary, link, error }
}
