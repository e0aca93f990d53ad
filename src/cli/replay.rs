//! `puyobot replay FILE`: runs a saved headless run again and checks it comes out bit for bit the same:
//! the pads of every frame, the final RAM hash and the JSON report (timings aside).

use std::path::PathBuf;

use anyhow::{Context, bail};
use clap::Args;

use crate::config::Config;
use crate::emu::replay::Replay;
use crate::emu::{RomImage, rom};
use crate::play::Limits;

use super::headless;
use super::play::load_game;

/// Arguments of `puyobot replay`.
#[derive(Debug, Clone, Args)]
pub struct ReplayArgs {
    /// The replay file (written by `puyobot play --headless --save-inputs FILE`).
    pub file: PathBuf,
    /// The ROM, when the one named in the file's configuration is elsewhere (its hash must match).
    #[arg(long)]
    pub rom: Option<PathBuf>,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
}

/// Runs `puyobot replay`.
pub fn run(args: &ReplayArgs) -> anyhow::Result<()> {
    let (replay, log) = Replay::load(&args.file)?;
    let label = format!("{} (key `config`)", args.file.display());
    let mut cfg = Config::parse(&label, &replay.config)?;
    if let Some(r) = &args.rom {
        cfg.play.rom = r.display().to_string();
    }
    let image = match cfg.rom_path() {
        Some(p) => RomImage::from_path(&p)?,
        None => rom::labcart().context("the built-in open test cartridge is missing; pass --rom PATH")?,
    };
    if image.hash.sha1 != replay.rom_sha1 {
        bail!(
            "{}: key `rom_sha1`: the replay was recorded on {} (SHA-1 {}), but {} has SHA-1 {}; pass --rom PATH",
            args.file.display(),
            replay.rom_name,
            replay.rom_sha1,
            image.name,
            image.hash.sha1
        );
    }
    let (image, name, map) = load_game(&cfg).map(|(_, n, m)| (image, n, m))?;
    let limits = match replay.games {
        Some(_) => {
            Limits { frames: None, pieces: None, stop_at_game_over: true, games: Some(1), until_calibrated: false }
        }
        None => Limits {
            frames: replay.frames,
            pieces: replay.pieces,
            stop_at_game_over: cfg.play.stop_at_game_over,
            games: None,
            until_calibrated: false,
        },
    };
    let plan = headless::Plan {
        cfg: &cfg,
        image: &image,
        name: &name,
        map: &map,
        limits,
        games: replay.games,
        jobs: 1,
        progress: indicatif::ProgressBar::hidden(),
    };
    crate::interrupt::install();
    let run = headless::run(&plan, None)?;
    if run.summary.interrupted {
        bail!("interrupted before the end of the replay: nothing was checked");
    }
    let again = &run.replay.pads;
    if let Some(f) = (0..log.len().max(again.len())).find(|&i| log.get(i) != again.get(i)) {
        bail!(
            "the replay diverged at frame {f}: the file has pads {}, this run pressed {} ({} vs {} frames)",
            pads_text(log.get(f)),
            pads_text(again.get(f)),
            log.len(),
            again.len()
        );
    }
    if run.ram_hash != replay.ram_hash.to_ascii_lowercase() {
        bail!("same pads but the final RAM hash differs: file {}, this run {}", replay.ram_hash, run.ram_hash);
    }
    if args.json {
        println!("{}", run.json);
    } else {
        print!("{}", run.summary.to_text());
        println!(
            "ram hash {}  faults injected {}  (matches the file, {} frames)",
            run.ram_hash,
            run.faults.total(),
            log.len()
        );
    }
    Ok(())
}

/// One frame's pads as the replay file writes them (`P1P2` in hex, e.g. `4000`), or `none` past the end.
fn pads_text(pads: Option<&[u8; 2]>) -> String {
    pads.map_or("none (the run had ended)".to_string(), |p| format!("{:02X}{:02X}", p[0], p[1]))
}
