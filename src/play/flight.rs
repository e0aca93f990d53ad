//! The flight recorder: when a run stops short (a health or calibration failure, a stall, an interrupt, a
//! top-out before the pieces asked for, an emulator error), a bug-report bundle is written to the data
//! folder so the owner of the cartridge can send what happened (`docs/calibration.md`, "When it stops").
//!
//! A [`FlightRecorder`] is made before the run: its [`TraceRing`] is fed every frame by the console's
//! [`crate::trace::TraceRecorder`] (the same tap `--record` uses, and as cheap: one RAM comparison a frame),
//! and the run leaves its [`StopNotes`] (what calibration learned, the health counts) in it whether it
//! ends well or with an error. The front end decides whether the run stopped short ([`StopReason`]) and
//! calls [`write_bundle`]. A bundle that cannot be written is a warning, never the run's error.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use anyhow::Context;
use serde::Serialize;

use crate::calib::{CalibrationReport, LearnedRom, Learner, write_address_folder};
use crate::emu::Machine;
use crate::memmap::AddressSource;
use crate::memmap::catalog::ModeFiles;
use crate::trace::{RingHandle, TraceHeader, TraceRing, WrittenTrace};

use super::report::HealthReport;
use super::session::Session;

/// Frames kept from the start of a run and from its end, each, unless `[lab] bug_report_frames` says
/// otherwise: five minutes of game time (a bundle of at most about 700 KB of traces).
pub const DEFAULT_FRAMES: u64 = 18_000;

/// Why a run stopped short; its [`StopReason::slug`] names the bundle's folder.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StopReason {
    /// A health check failed on this fact (its name, e.g. `field cells`).
    Health(String),
    /// Calibration failed or did not settle.
    Calibration,
    /// No piece locked for the stall bound.
    Stall,
    /// A signal (Ctrl-C, SIGTERM) stopped the run.
    Interrupt,
    /// The game topped out before the pieces the run asked for.
    TopOut,
    /// The menus never reached the game.
    Menu,
    /// The emulator (or the connected console) stopped.
    Emulator,
    /// Any other error during play.
    Error,
}

impl StopReason {
    /// The reason as a folder-name part: `health-field-cells`, `calibration`, `stall`, `interrupt`, …
    pub fn slug(&self) -> String {
        match self {
            StopReason::Health(fact) => format!("health-{}", slug(fact)),
            StopReason::Calibration => "calibration".into(),
            StopReason::Stall => "stall".into(),
            StopReason::Interrupt => "interrupt".into(),
            StopReason::TopOut => "top-out".into(),
            StopReason::Menu => "menu".into(),
            StopReason::Emulator => "emulator".into(),
            StopReason::Error => "error".into(),
        }
    }
}

/// Lower-case ASCII letters and digits, other runs of characters as one `-`.
fn slug(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.ends_with('-') && !out.is_empty() {
            out.push('-');
        }
    }
    out.trim_end_matches('-').chars().take(40).collect()
}

/// What a run leaves for its bug report when it ends, well or not.
#[derive(Clone, Debug)]
pub struct StopNotes {
    /// What calibration learned (when it was on).
    pub learner: Option<Learner>,
    /// Calibration's report.
    pub calibration: Option<CalibrationReport>,
    /// The health counts and the failure.
    pub health: HealthReport,
    /// The fact whose health check stopped the bots, if one did.
    pub failed_fact: Option<String>,
    /// RAM after the last frame (the traces' end record).
    pub final_ram: Box<[u8; 2048]>,
    /// Frames the session ran.
    pub frames: u64,
}

impl StopNotes {
    /// The notes of `session` as it is now.
    pub fn of<M: Machine>(session: &Session<M>) -> StopNotes {
        StopNotes {
            learner: session.calibration().map(|c| c.learner().clone()),
            calibration: session.calibration().map(|c| c.report()),
            health: HealthReport::of(session),
            failed_fact: session.health_failure().map(|f| f.fact.to_string()),
            final_ram: Box::new(*session.machine().ram()),
            frames: session.frames(),
        }
    }
}

/// The flight recorder of one run: the ring of frames, the trace header that makes them replayable, and
/// the notes the run leaves.
#[derive(Debug)]
pub struct FlightRecorder {
    ring: RingHandle,
    header: TraceHeader,
    notes: Mutex<Option<StopNotes>>,
}

impl FlightRecorder {
    /// A recorder keeping the first and the last `frames` frames; `header` is the run's trace header (as
    /// `--record` writes it: cartridge, seed, configuration).
    pub fn new(frames: u64, header: TraceHeader) -> FlightRecorder {
        FlightRecorder { ring: Arc::new(Mutex::new(TraceRing::new(frames, frames))), header, notes: Mutex::new(None) }
    }

    /// The handle the console's recorder feeds ([`crate::trace::TraceRecorder::with_ring`]).
    pub fn ring(&self) -> RingHandle {
        Arc::clone(&self.ring)
    }

    /// Frames recorded so far.
    pub fn frames(&self) -> u64 {
        self.ring.lock().unwrap_or_else(|e| e.into_inner()).frames()
    }

    /// Keeps what `session` knows now (called when the run ends, also by an error).
    pub fn note<M: Machine>(&self, session: &Session<M>) {
        *self.notes.lock().unwrap_or_else(|e| e.into_inner()) = Some(StopNotes::of(session));
    }

    /// The notes the run left, if it left any.
    pub fn notes(&self) -> Option<StopNotes> {
        self.notes.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

/// What the front end knows of the run, for the bundle.
#[derive(Clone, Debug)]
pub struct BugReport<'a> {
    /// Why the run stopped.
    pub reason: StopReason,
    /// The stop's own message (the error, or the report's failure).
    pub message: String,
    /// The command line.
    pub argv: Vec<String>,
    /// The cartridge: file name and hashes (never its bytes).
    pub rom: &'a LearnedRom,
    /// The run's seed.
    pub seed: u64,
    /// The merged configuration, as TOML.
    pub config: String,
    /// The run's JSON report, when it got as far as one.
    pub report: Option<serde_json::Value>,
    /// Where the address files came from and which ones the ROM borrows, for the learned address folder.
    pub addresses: Option<(&'a AddressSource, &'a ModeFiles)>,
}

/// `report.json` of a bundle.
#[derive(Serialize)]
struct BundleJson<'a> {
    reason: String,
    message: &'a str,
    puyobot: &'a str,
    argv: &'a [String],
    seed: u64,
    rom: RomJson<'a>,
    frames: u64,
    traces: Vec<TraceJson>,
    frames_not_kept: u64,
    health: Option<&'a HealthReport>,
    calibration: Option<&'a CalibrationReport>,
    learned_addresses: Option<String>,
    report: Option<&'a serde_json::Value>,
}

#[derive(Serialize)]
struct RomJson<'a> {
    name: &'a str,
    crc32: &'a str,
    sha1: &'a str,
}

#[derive(Serialize)]
struct TraceJson {
    file: String,
    first_frame: u64,
    frames: u64,
    bytes: u64,
}

/// Writes the bundle of `report` under `folder` (`<folder>/<time>-<reason>/`) and returns its path. The
/// files are written into a `.partial` folder renamed at the end, so a bundle that is there is whole.
pub fn write_bundle(folder: &Path, report: &BugReport<'_>, flight: &FlightRecorder) -> anyhow::Result<PathBuf> {
    let name = format!("{}-{}", utc_stamp(std::time::SystemTime::now()), report.reason.slug());
    std::fs::create_dir_all(folder).with_context(|| format!("cannot create {}", folder.display()))?;
    let dest = free_name(folder, &name);
    let partial = folder.join(format!(
        ".{}.partial",
        dest.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or(name.clone())
    ));
    let result = fill(&partial, report, flight).and_then(|()| {
        std::fs::rename(&partial, &dest)
            .with_context(|| format!("cannot rename {} to {}", partial.display(), dest.display()))
    });
    if let Err(e) = result {
        // Leave no half bundle behind; what could not be written is in the error.
        let _ = std::fs::remove_dir_all(&partial);
        return Err(e);
    }
    Ok(dest)
}

/// `folder/name`, or `folder/name-2`, `-3`, … when it is taken.
fn free_name(folder: &Path, name: &str) -> PathBuf {
    let mut dest = folder.join(name);
    let mut n = 2;
    while dest.exists() {
        dest = folder.join(format!("{name}-{n}"));
        n += 1;
    }
    dest
}

/// Writes every file of the bundle into `dir`.
fn fill(dir: &Path, report: &BugReport<'_>, flight: &FlightRecorder) -> anyhow::Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let notes = flight.notes();
    let ring = flight.ring.lock().unwrap_or_else(|e| e.into_inner());
    let mut header = flight.header.clone();
    header.set("stop", &report.reason.slug());
    // Escaped, not flattened: `replay` compares the message of the run again with this one, line breaks and all.
    header.set_text("stop_message", &report.message);
    let traces: Vec<WrittenTrace> = if ring.frames() > 0 {
        let final_ram = notes.as_ref().map_or([0u8; 2048], |n| *n.final_ram);
        ring.write(dir, &header, &final_ram)?
    } else {
        Vec::new()
    };
    let frames_not_kept = ring.dropped();
    let frames = ring.frames();
    drop(ring);
    let learned = match (notes.as_ref().and_then(|n| n.learner.as_ref()), report.addresses) {
        (Some(learner), Some((source, borrowed))) => {
            match write_address_folder(&dir.join("addresses"), report.rom, learner, source, borrowed) {
                Ok(_) => Some("addresses/".to_string()),
                // Calibration that learned too little to write an address file: the report says what it knew.
                Err(e) => {
                    let _ = std::fs::remove_dir_all(dir.join("addresses"));
                    Some(format!("not written: {e:#}"))
                }
            }
        }
        _ => None,
    };
    let json = BundleJson {
        reason: report.reason.slug(),
        message: &report.message,
        puyobot: env!("CARGO_PKG_VERSION"),
        argv: &report.argv,
        seed: report.seed,
        rom: RomJson { name: &report.rom.name, crc32: &report.rom.crc32, sha1: &report.rom.sha1 },
        frames,
        traces: traces
            .iter()
            .map(|t| TraceJson {
                file: t.path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default(),
                first_frame: t.first_frame,
                frames: t.stats.frames,
                bytes: t.stats.bytes,
            })
            .collect(),
        frames_not_kept,
        health: notes.as_ref().map(|n| &n.health),
        calibration: notes.as_ref().and_then(|n| n.calibration.as_ref()),
        learned_addresses: learned,
        report: report.report.as_ref(),
    };
    write_file(&dir.join("report.json"), serde_json::to_string_pretty(&json)?.as_bytes())?;
    write_file(&dir.join("config.toml"), report.config.as_bytes())?;
    write_file(&dir.join("README.txt"), readme(report, &traces).as_bytes())?;
    Ok(())
}

/// Writes and syncs one file, naming it in the error.
fn write_file(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    let mut f = std::fs::File::create(path).with_context(|| format!("cannot create {}", path.display()))?;
    f.write_all(bytes).and_then(|()| f.sync_all()).with_context(|| format!("cannot write {}", path.display()))
}

/// The bundle's README.txt: what it is, what to send, how to look at it.
fn readme(report: &BugReport<'_>, traces: &[WrittenTrace]) -> String {
    let names: Vec<String> =
        traces.iter().filter_map(|t| t.path.file_name().map(|n| n.to_string_lossy().into_owned())).collect();
    let first = names.first().cloned().unwrap_or_else(|| "run.trace".into());
    let trace_text = match names.len() {
        0 => "  (no trace: the run stopped before its first frame)\n".to_string(),
        1 => format!("  {first}      every frame of the run from power-on: pads and RAM changes\n"),
        _ => "  start.trace    the first frames of the run from power-on (menus, calibration)\n  \
              tail.trace     the last frames before the stop (header key first_frame: where they start)\n"
            .to_string(),
    };
    format!(
        "puyobot bug report\n\
         ==================\n\n\
         puyobot {version} stopped a run: {reason}\n\n{message}\n\n\
         Command line: {argv}\n\
         ROM: {rom} (CRC32 {crc}, SHA-1 {sha1}); the ROM itself is not in this folder.\n\n\
         What is here\n\
         {traces}  \
         report.json    why it stopped, the health counts, what calibration learned, the run's report\n  \
         config.toml    the configuration the run used\n  \
         addresses/     the address files as calibration learned them (when it learned enough)\n\n\
         What to send\n  \
         The whole folder (zip it). It holds RAM and pad traces, the command line, the configuration and\n  \
         the ROM's hashes; no ROM bytes. Paths of your machine may appear in the command line and\n  \
         config.toml.\n\n\
         How to look at it again\n  \
         puyobot replay {first} --headless --rom YOUR.nes     runs the recorded configuration again and\n  \
         compares it with the trace: it stops the same way\n  \
         puyobot calibrate {first}                           runs calibration on the trace offline\n",
        version = env!("CARGO_PKG_VERSION"),
        reason = report.reason.slug(),
        message = report.message.trim(),
        argv = report.argv.join(" "),
        rom = report.rom.name,
        crc = report.rom.crc32,
        sha1 = report.rom.sha1,
        traces = trace_text,
    )
}

/// `time` as `YYYY-MM-DDTHH-MM-SS` in UTC (a folder name: no colons).
pub fn utc_stamp(time: std::time::SystemTime) -> String {
    let secs = time.duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let (days, rest) = (secs / 86_400, secs % 86_400);
    let (y, m, d) = civil_from_days(days as i64);
    format!("{y:04}-{m:02}-{d:02}T{:02}-{:02}-{:02}", rest / 3600, rest % 3600 / 60, rest % 60)
}

/// The Gregorian date of a day count since 1970-01-01 (the well-known era algorithm).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stamps_are_utc_dates_without_colons() {
        let t = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_795_756_200);
        assert_eq!(utc_stamp(t), "2026-11-27T05-10-00");
        assert_eq!(utc_stamp(std::time::UNIX_EPOCH), "1970-01-01T00-00-00");
        let leap = std::time::UNIX_EPOCH + std::time::Duration::from_secs(951_782_400);
        assert_eq!(utc_stamp(leap), "2000-02-29T00-00-00");
    }

    #[test]
    fn reasons_name_folders() {
        assert_eq!(StopReason::Health("field cells".into()).slug(), "health-field-cells");
        assert_eq!(StopReason::TopOut.slug(), "top-out");
        assert_eq!(slug("  Current pair (pivot)! "), "current-pair-pivot");
    }
}
