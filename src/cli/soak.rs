//! `puyobot soak`: AI-vs-AI games back to back for a wall-clock time, sampling memory, speed, mismatches
//! and panics, to show that long runs stay flat.

use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Context, bail};
use clap::Args;

use crate::config::Mode;
use crate::emu::Emu;
use crate::play::soak::{self, SoakOptions, SoakReport, SoakSample};
use crate::play::{Session, seats_for};

use super::args::{JsonArg, RunSeedArg, SetupArgs, worded};
use super::play::load_game;

/// Arguments of `puyobot soak`.
#[derive(Debug, Clone, Args)]
#[command(mut_args(worded(SOAK_TEXTS)))]
pub struct SoakArgs {
    /// ROM file (iNES). Without it, the open test cartridge is played.
    pub rom: Option<PathBuf>,
    /// Wall-clock minutes to run.
    #[arg(long, default_value_t = 120.0)]
    pub minutes: f64,
    /// Seconds between samples.
    #[arg(long, default_value_t = 60.0)]
    pub sample_secs: f64,
    /// Emulator pace in frames per second (60.1 is real time); 0 runs as fast as the machine goes.
    #[arg(long, default_value_t = 60.0988)]
    pub fps: f64,
    /// `--seed`.
    #[command(flatten)]
    pub seed: RunSeedArg,
    /// The configuration file and unknown ROMs.
    #[command(flatten)]
    pub setup: SetupArgs,
    /// Also write the samples as CSV to this file.
    #[arg(long)]
    pub csv: Option<PathBuf>,
    /// `--json`.
    #[command(flatten)]
    pub output: JsonArg,
}

/// `soak`'s own words for shared flags.
const SOAK_TEXTS: &[(&str, &str)] = &[
    ("seed", "Seed for the bots (game g uses seed + g; sides swap bots every game)"),
    ("json", "Print samples and the report as JSON lines"),
];

/// The share memory may grow between the first post-warm-up sample and the last.
pub const MAX_MEMORY_GROWTH: f64 = 0.10;

/// Runs `puyobot soak`.
pub fn run(args: &SoakArgs) -> anyhow::Result<()> {
    if !(args.minutes > 0.0 && args.sample_secs > 0.0 && args.fps >= 0.0) {
        bail!("--minutes and --sample-secs must be > 0 and --fps >= 0");
    }
    let seed = args.seed.seed;
    let (cfg, _) = args.setup.configure(|cfg| {
        if let Some(r) = &args.rom {
            cfg.play.rom = r.display().to_string();
        }
        cfg.play.mode = Mode::AiVsAi;
        cfg.play.seed = seed;
        args.setup.lay_over(&mut cfg.play);
    })?;
    if let Some(p) = &args.csv {
        super::output::check_file("--csv", p)?;
    }
    let (image, name, map) = load_game(&cfg)?;
    let options = SoakOptions {
        duration: Duration::from_secs_f64(args.minutes * 60.0),
        sample_every: Duration::from_secs_f64(args.sample_secs),
        pace_fps: (args.fps > 0.0).then_some(args.fps),
        max_game_frames: 60 * 60 * 30,
    };
    let mut csv = match &args.csv {
        Some(p) => {
            let mut f = std::fs::File::create(p).with_context(|| format!("cannot create {}", p.display()))?;
            writeln!(f, "seconds,rss_kib,fps,frames,games,mismatches,panics")?;
            Some(f)
        }
        None => None,
    };
    eprintln!("soak: {name}, {} min, a sample every {} s", args.minutes, args.sample_secs);
    let new_game = |g: u64| -> anyhow::Result<Session<Emu>> {
        let mut game_cfg = cfg.clone();
        game_cfg.play.seed = seed.wrapping_add(g);
        if g % 2 == 1 {
            std::mem::swap(&mut game_cfg.bots.p1, &mut game_cfg.bots.p2);
        }
        let emu = Emu::new(&image, true)?;
        let seats = seats_for(Mode::AiVsAi, &map, &game_cfg.seat_config()).map_err(anyhow::Error::msg)?;
        Ok(Session::builder(emu, map.clone(), Mode::AiVsAi, seats).walk_menu(game_cfg.play.menu).build()?)
    };
    let on_sample = |s: &SoakSample| {
        if args.output.json {
            println!("{}", serde_json::to_string(s).unwrap_or_default());
        } else {
            println!(
                "{:>8.0} s  rss {:>7} KiB  {:>7.1} fps  {:>9} frames  {:>5} games  {} mismatches  {} panics",
                s.seconds, s.rss_kib, s.fps, s.frames, s.games, s.mismatches, s.panics
            );
        }
        if let Some(f) = csv.as_mut() {
            let _ = writeln!(
                f,
                "{},{},{},{},{},{},{}",
                s.seconds, s.rss_kib, s.fps, s.frames, s.games, s.mismatches, s.panics
            );
            let _ = f.flush();
        }
    };
    crate::interrupt::install();
    let report = soak::run(&options, new_game, on_sample);
    print_report(&report, &options, args.output.json)?;
    if let Some(e) = report.errors.first() {
        bail!("soak stopped: {e}");
    }
    if report.panics > 0 || report.mismatches > 0 {
        bail!("soak failed: {} panics, {} mismatches", report.panics, report.mismatches);
    }
    if !report.interrupted && report.memory_ratio.is_some_and(|r| r > 1.0 + MAX_MEMORY_GROWTH) {
        bail!("soak failed: resident memory grew by more than {:.0} %", MAX_MEMORY_GROWTH * 100.0);
    }
    Ok(())
}

/// Prints the soak's report: one JSON object, or a line of text.
fn print_report(report: &SoakReport, options: &SoakOptions, json: bool) -> anyhow::Result<()> {
    if json {
        println!("{}", serde_json::to_string(report)?);
    } else {
        let pairs = |v: &[(String, u64)]| v.iter().map(|(l, n)| format!("{l} {n}")).collect::<Vec<_>>().join(", ");
        let chains: Vec<(String, u64)> = report.largest_chain.iter().map(|(l, c)| (l.clone(), u64::from(*c))).collect();
        println!(
            "{} games ({} stopped at the {}-frame cap), {} frames, wins {}, largest chains {}, {} mismatches, {} \
             panics, memory x{}{}",
            report.games,
            report.abandoned,
            options.max_game_frames,
            report.frames,
            if report.wins.is_empty() { "none".to_string() } else { pairs(&report.wins) },
            pairs(&chains),
            report.mismatches,
            report.panics,
            report.memory_ratio.map_or("n/a".to_string(), |r| format!("{r:.3}")),
            if report.interrupted { " (interrupted)" } else { "" }
        );
    }
    Ok(())
}
