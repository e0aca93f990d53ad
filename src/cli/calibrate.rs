//! `puyobot calibrate TRACE`: the self-calibrating learner run offline on a recorded trace. It prints
//! what the trace proves, what stays unknown and what would settle it, and can write the learned
//! contract as an address folder for `puyobot play --addresses DIR --calibrate off`.

use std::path::{Path, PathBuf};

use anyhow::Context;
use clap::Args;
use serde::Serialize;

use super::args::JsonArg;
use crate::calib::{Frame, LearnedRom, OfflineCalibration, OfflineReport, write_address_folder};
use crate::memmap::AddressSource;
use crate::memmap::Mode;
use crate::memmap::catalog::{ModeFiles, source_from_setting};
use crate::trace::{TraceEnd, TraceReader};

/// Arguments of `puyobot calibrate`.
#[derive(Debug, Clone, Args)]
pub struct CalibrateArgs {
    /// The trace file (written by `puyobot record` or `puyobot play --record`).
    pub trace: PathBuf,
    /// Write what was learned as a complete address folder.
    #[arg(long, value_name = "DIR")]
    pub write_addresses: Option<PathBuf>,
    /// `--json`.
    #[command(flatten)]
    pub output: JsonArg,
    /// Folder of address files to start from instead of the built-in copies.
    #[arg(long, value_name = "DIR")]
    pub addresses: Option<PathBuf>,
    /// The mode whose address file gives the addresses (default: the one in the trace's header).
    #[arg(long, value_enum)]
    pub mode: Option<Mode>,
}

/// What the trace file held.
#[derive(Clone, Debug, Serialize)]
pub struct TraceSummary {
    /// The file.
    pub file: String,
    /// Frames read.
    pub frames: u64,
    /// The end record was there.
    pub complete: bool,
    /// Why not, when it was not.
    pub warning: Option<String>,
    /// The ROM's SHA-1 (after the iNES header).
    pub rom_sha1: String,
    /// The ROM's CRC32.
    pub rom_crc32: String,
    /// iNES mapper.
    pub mapper: u16,
    /// The header's metadata.
    pub meta: std::collections::BTreeMap<String, String>,
    /// The mode whose address file was used, and the file.
    pub mode: String,
    /// The address file the learner started from.
    pub address_file: String,
}

/// The JSON printed by `--json`.
#[derive(Clone, Debug, Serialize)]
struct Output<'a> {
    trace: &'a TraceSummary,
    #[serde(flatten)]
    report: &'a OfflineReport,
}

/// Runs the learner over a trace; returns what the file held and what was learned.
pub fn calibrate_trace(
    path: &Path,
    source: &AddressSource,
    mode: Option<Mode>,
) -> anyhow::Result<(TraceSummary, OfflineCalibration, ModeFiles)> {
    let mut reader = TraceReader::open(path)?;
    let header = reader.header().clone();
    let catalog = source.catalog()?;
    let known = catalog.rom.iter().find(|r| r.sha1.eq_ignore_ascii_case(&header.rom_sha1));
    let files = match known {
        Some(k) => k.modes.clone(),
        None => {
            let first = catalog.rom.first().context("the address catalogue (roms.toml) lists no cartridge")?;
            log::warn!(
                "{}: ROM SHA-1 {} is not in the catalogue; starting from {}'s address files",
                path.display(),
                header.rom_sha1,
                first.name
            );
            first.modes.clone()
        }
    };
    let mode = match (mode, header.get("mode")) {
        (Some(m), _) => m,
        (None, Some(name)) => <Mode as clap::ValueEnum>::from_str(name, true).map_err(|_| {
            anyhow::anyhow!(
                "{}: header key `mode` is {name:?}, expected endless, vs-human or ai-vs-ai (or pass --mode)",
                path.display()
            )
        })?,
        (None, None) => Mode::Endless,
    };
    let rel = files.for_mode(mode).to_string();
    let start = source.address_file(&rel)?;
    let mut cal = OfflineCalibration::new(&start);
    while let Some((pads, ram)) = reader.next_frame()? {
        cal.observe(&Frame { ram, pads });
    }
    let file = path.display().to_string();
    let end = reader.end().cloned();
    let warning = end.as_ref().and_then(|e| e.warning(&file));
    let summary = TraceSummary {
        file,
        frames: reader.frames(),
        complete: matches!(end, Some(TraceEnd::Complete { .. })),
        warning,
        rom_sha1: header.rom_sha1.clone(),
        rom_crc32: header.rom_crc32.clone(),
        mapper: header.mapper,
        meta: header.meta.clone(),
        mode: mode.name().to_string(),
        address_file: rel,
    };
    Ok((summary, cal, files))
}

/// Runs `puyobot calibrate`.
pub fn run(args: &CalibrateArgs) -> anyhow::Result<()> {
    let source = match &args.addresses {
        Some(d) => AddressSource::Dir(d.clone()),
        None => source_from_setting("", Path::new(".")),
    };
    let (summary, cal, files) = calibrate_trace(&args.trace, &source, args.mode)?;
    if let Some(w) = &summary.warning {
        eprintln!("warning: {w}");
    }
    let report = cal.report();
    if args.output.json {
        let out = Output { trace: &summary, report: &report };
        println!("{}", serde_json::to_string_pretty(&out).context("cannot print the report as JSON")?);
    } else {
        println!(
            "{}: {} frames{}, ROM SHA-1 {}, addresses from {} ({})",
            summary.file,
            summary.frames,
            if summary.complete { "" } else { " (truncated)" },
            summary.rom_sha1,
            summary.address_file,
            summary.mode
        );
        print!("{}", report.to_text());
    }
    if let Some(dir) = &args.write_addresses {
        let rom = LearnedRom {
            name: summary.meta.get("rom_name").cloned().unwrap_or_else(|| format!("ROM {}", summary.rom_sha1)),
            crc32: summary.rom_crc32.clone(),
            sha1: summary.rom_sha1.clone(),
        };
        let written = write_address_folder(dir, &rom, cal.learner(), &source, &files).with_context(|| {
            format!("{}: nothing written to {}: {}", summary.file, dir.display(), report.calibration.to_text().trim())
        })?;
        for p in written {
            eprintln!("wrote {}", p.display());
        }
    }
    Ok(())
}
