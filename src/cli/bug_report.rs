//! The front end of the flight recorder ([`crate::play::flight`]) for `puyobot play`: makes the recorder
//! when the configuration wants bug reports, decides whether a run stopped short, writes the bundle and
//! says where it is. A bundle that cannot be written is one warning on stderr; the run's own message and
//! exit code stay what they were.

use std::path::PathBuf;

use crate::calib::{CalibrateMode, LearnedRom};
use crate::config::Config;
use crate::memmap::AddressSource;
use crate::memmap::catalog::{ModeFiles, source_from_setting};
use crate::play::RunError;
use crate::play::Summary;
use crate::play::flight::{BugReport, FlightRecorder, StopReason, write_bundle};

use crate::trace::TraceHeader;

/// The recorder of a headless run, or `None` when bug reports are off (`--no-bug-report`,
/// `play.bug_report = false`) or the run is a match of several games (each from its own power-on; one
/// game is replayed with `--games 1 --seed S+k`). `header` makes the run's trace header (as `--record`
/// writes it), only when there is a recorder.
pub fn recorder(cfg: &Config, games: Option<u32>, header: impl FnOnce() -> TraceHeader) -> Option<FlightRecorder> {
    if !cfg.play.bug_report || games.is_some_and(|n| n > 1) {
        return None;
    }
    Some(FlightRecorder::new(cfg.lab.bug_report_frames.max(1), header()))
}

/// The folder bug reports go to: `play.bug_report_dir`, or `bug-reports` in the data folder.
pub fn folder(cfg: &Config) -> PathBuf {
    if cfg.play.bug_report_dir.is_empty() {
        crate::paths::data_subdir("bug-reports")
    } else {
        PathBuf::from(&cfg.play.bug_report_dir)
    }
}

/// Why a run that ended with a report stopped short, and the stop's message; `None` for a run that did
/// what it was asked (reached its limit, or a 2-player game found its winner).
pub fn stop_of_outcome(
    s: &Summary,
    flight: &FlightRecorder,
    cfg: &Config,
    pieces: Option<u32>,
) -> Option<(StopReason, String)> {
    if s.interrupted {
        return Some((StopReason::Interrupt, "interrupted (Ctrl-C or SIGTERM)".into()));
    }
    if s.stalled {
        return Some((StopReason::Stall, RunError::Stalled(crate::play::headless::STALL_FRAMES).to_string()));
    }
    if let Some(f) = &s.health.failure {
        let fact = flight.notes().and_then(|n| n.failed_fact).unwrap_or_else(|| "check".into());
        return Some((StopReason::Health(fact), RunError::Health(f.clone()).to_string()));
    }
    if cfg.play.calibrate == CalibrateMode::Only && s.calibration.state != crate::calib::ReportState::Settled {
        return Some((
            StopReason::Calibration,
            format!("calibration did not settle: {}", s.calibration.to_text().trim()),
        ));
    }
    let most = s.players.iter().map(|p| p.pieces).max().unwrap_or(0);
    if let Some(asked) = pieces
        && s.game_over
        && s.winner.is_none()
        && most < asked
    {
        return Some((StopReason::TopOut, format!("topped out after {most} of the {asked} pieces asked for")));
    }
    None
}

/// The reason of a run that ended with an error.
pub fn stop_of_error(e: &anyhow::Error) -> StopReason {
    e.downcast_ref::<RunError>().map_or(StopReason::Error, stop_of_run_error)
}

/// The reason of a run that ended with a [`RunError`].
pub fn stop_of_run_error(e: &RunError) -> StopReason {
    match e {
        RunError::Calibration(_) => StopReason::Calibration,
        RunError::Stalled(_) => StopReason::Stall,
        RunError::Health(_) => StopReason::Health("check".into()),
        RunError::Menu(_) => StopReason::Menu,
        RunError::Emu(_) => StopReason::Emulator,
        _ => StopReason::Error,
    }
}

/// What the run leaves for the bundle besides the recorder.
pub struct Context<'a> {
    /// The merged configuration.
    pub cfg: &'a Config,
    /// The cartridge's name and hashes.
    pub rom: &'a LearnedRom,
    /// The address files the ROM borrows (for the learned address folder).
    pub borrowed: &'a ModeFiles,
}

/// Writes the bundle of a run that stopped for `reason` and says where it went on stderr; a bundle that
/// cannot be written is a warning naming the folder. Nothing is written for a run that never ran a frame
/// (a set-up refusal is not a stop in play).
pub fn write(
    flight: &FlightRecorder,
    ctx: &Context<'_>,
    reason: StopReason,
    message: &str,
    report: Option<serde_json::Value>,
) -> Option<PathBuf> {
    if flight.frames() == 0 {
        return None;
    }
    let source: AddressSource = source_from_setting(&ctx.cfg.play.addresses_dir, std::path::Path::new("."));
    let argv: Vec<String> = std::env::args_os().map(|a| a.to_string_lossy().into_owned()).collect();
    let bug = BugReport {
        reason,
        message: message.to_string(),
        argv,
        rom: ctx.rom,
        seed: ctx.cfg.play.seed,
        config: ctx.cfg.to_toml(),
        report,
        addresses: Some((&source, ctx.borrowed)),
    };
    let dir = folder(ctx.cfg);
    match write_bundle(&dir, &bug, flight) {
        Ok(path) => {
            eprintln!("bug report: {} (what to send: its README.txt)", path.display());
            Some(path)
        }
        Err(e) => {
            eprintln!(
                "warning: no bug report: it could not be written to {}: {}",
                dir.display(),
                super::error_text(&e)
            );
            None
        }
    }
}

/// The run's JSON report with `bug_report` (the bundle's path) added, or unchanged without a bundle.
pub fn json_with(json: &str, bundle: Option<&PathBuf>) -> String {
    let Some(path) = bundle else { return json.to_string() };
    let Ok(mut value) = serde_json::from_str::<serde_json::Value>(json) else { return json.to_string() };
    if let Some(obj) = value.as_object_mut() {
        obj.insert("bug_report".into(), path.display().to_string().into());
    }
    serde_json::to_string_pretty(&value).unwrap_or_else(|_| json.to_string())
}
