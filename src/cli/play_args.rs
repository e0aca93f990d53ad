//! The flags of `puyobot play` (and of `puyobot record`, which takes them all): the groups it shares with
//! `serve` ([`SessionArgs`]) and its own, and how they lay themselves over the configuration.

use std::path::PathBuf;

use anyhow::bail;
use clap::Args;

use crate::config::{Config, LabSettings, PlaySettings};
use crate::emu::EmuSpeed;

use super::args::{SessionArgs, in_order, worded};

/// Arguments of `puyobot play`.
#[derive(Debug, Clone, Default, Args)]
#[command(mut_args(in_order(PLAY_ORDER)), mut_args(worded(PLAY_TEXTS)))]
pub struct PlayArgs {
    /// ROM file (iNES), as emulator front ends take it: `puyobot play ROM`. Same as `--rom`.
    #[arg(value_name = "ROM", conflicts_with = "rom")]
    pub rom_file: Option<PathBuf>,
    /// ROM file (iNES). Without it (and without `ROM`), the open test cartridge is played.
    #[arg(long)]
    pub rom: Option<PathBuf>,
    /// `--items`.
    #[command(flatten)]
    pub items: super::args::ItemsArg,
    /// Number of colours (where the game offers it), set and confirmed as --items is.
    #[arg(long, value_parser = clap::value_parser!(u8).range(3..=6))]
    pub colors: Option<u8>,
    /// The 2P rules (`--nuisance-cap`, `--nuisance-drop`, `--nuisance-points`, `--nuisance-overflow`).
    #[command(flatten)]
    pub rules: super::rules_args::RulesArgs,
    /// No window: run as fast as possible and print a summary (needs --frames or --pieces).
    #[arg(long)]
    pub headless: bool,
    /// Headless, with --games: play this many games at once, one emulator per thread (default 1). The
    /// results are the same for any number.
    #[arg(long, requires = "games")]
    pub jobs: Option<usize>,
    /// Print the merged configuration and exit.
    #[arg(long)]
    pub print_config: bool,
    /// The same as --record (the name of the flag when replays had their own file format).
    #[arg(long, value_name = "FILE")]
    pub save_inputs: Option<PathBuf>,
    /// Play in another emulator instead of the built-in one: start it with its script (plugins/) and
    /// serve it as `puyobot serve` does (docs/plugins.md).
    #[arg(long, value_enum)]
    pub emulator: Option<Emulator>,
    /// What `play` shares with `serve`.
    #[command(flatten)]
    pub session: SessionArgs,
    /// The window's flags.
    #[command(flatten)]
    pub window: WindowArgs,
    /// Bug reports.
    #[command(flatten)]
    pub bug_report: BugReportArgs,
    /// Lab settings.
    #[command(flatten)]
    pub lab: LabArgs,
}

/// The emulators `play --emulator` can start (`puyobot serve` plays through them: `cli::serve`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Emulator {
    /// FCEUX 2.6 with LuaSocket (`plugins/fceux.lua`).
    Fceux,
}

/// The order `play --help` lists the flags in.
const PLAY_ORDER: &[&str] = &[
    "rom",
    "mode",
    "items",
    "colors",
    "nuisance_cap",
    "nuisance_drop",
    "nuisance_points",
    "nuisance_overflow",
    "speed",
    "emu_speed",
    "headless",
    "frames",
    "pieces",
    "games",
    "long_game_pieces",
    "jobs",
    "json",
    "seed",
    "config",
    "no_menu",
    "allow_unknown_rom",
    "print_config",
    "p1_ai",
    "p2_ai",
    "strength",
    "fast",
    "addresses",
    "calibrate",
    "write_addresses",
    "faults",
    "lab_timing",
    "save_inputs",
    "record",
    "no_bug_report",
    "bug_report_dir",
    "emulator",
    "mute",
    "key_script",
    "screenshot_on_exit",
];

/// `play`'s own words for shared flags.
const PLAY_TEXTS: &[(&str, &str)] = &[
    ("json", "Headless: print the report as JSON"),
    (
        "items",
        "Items: the menu script sets the game's option (where the address file knows it) and the deal \
         confirms it; the run stops naming the option when the game deals otherwise",
    ),
];

impl PlayArgs {
    /// Lays the flags over the configuration (`[play]`, `[bots]`, `[lab]`, `[audio]`).
    pub fn lay_over(&self, cfg: &mut Config) {
        if let Some(r) = self.rom.as_ref().or(self.rom_file.as_ref()) {
            cfg.play.rom = r.display().to_string();
        }
        if let Some(i) = self.items.items {
            cfg.play.items = Some(i);
        }
        if let Some(n) = self.colors {
            cfg.play.colors = Some(n);
        }
        self.session.lay_over(cfg);
        self.window.lay_over(cfg);
        self.bug_report.lay_over(&mut cfg.play);
        self.lab.lay_over(&mut cfg.lab);
        self.rules.lay_over(&mut cfg.rules);
    }

    /// The file the run is recorded to and the flag that named it (`--record`, or its older name
    /// `--save-inputs`); two different files are refused, naming both flags.
    pub fn recording(&self) -> anyhow::Result<Option<(&'static str, &std::path::Path)>> {
        match (&self.session.record, &self.save_inputs) {
            (Some(r), Some(s)) if r != s => bail!(
                "--record {} and --save-inputs {} name two files, but a run writes one recording \
                 (--save-inputs is another name for --record); give one of them",
                r.display(),
                s.display()
            ),
            (None, Some(s)) => Ok(Some(("--save-inputs", s))),
            _ => Ok(self.session.recording()),
        }
    }
}

/// The window's pace, sound, scripted keys and closing picture.
#[derive(Debug, Clone, Default, Args)]
pub struct WindowArgs {
    /// Emulator speed in the window.
    #[arg(long, value_enum)]
    pub emu_speed: Option<EmuSpeed>,
    /// Start the window with the sound muted (overrides audio.mute; the mute key turns it back on).
    #[arg(long)]
    pub mute: bool,
    /// Window: deliver the key presses of FILE (`FRAME KEY down|up` per line) on their frames, through the
    /// same path as the keyboard, for reproducible demos and bug reports (docs/window.md).
    #[arg(long, value_name = "FILE", conflicts_with = "headless")]
    pub key_script: Option<PathBuf>,
    /// Window: when it closes, for any reason, write a PNG of the whole window at 1x scale (the picture
    /// with the HUD) to FILE.
    #[arg(long, value_name = "FILE", conflicts_with = "headless")]
    pub screenshot_on_exit: Option<PathBuf>,
}

impl WindowArgs {
    /// Sets `play.emu_speed` and `audio.mute`.
    pub fn lay_over(&self, cfg: &mut Config) {
        if let Some(e) = self.emu_speed {
            cfg.play.emu_speed = e;
        }
        if self.mute {
            cfg.audio.mute = true;
        }
    }
}

/// Whether and where a run that stops short writes a bug report.
#[derive(Debug, Clone, Default, Args)]
pub struct BugReportArgs {
    /// Do not write a bug report when the run stops short (sets play.bug_report = false; see
    /// docs/calibration.md, "When it stops: the bug report").
    #[arg(long)]
    pub no_bug_report: bool,
    /// The folder bug reports go to (default: bug-reports/ in the data folder; sets play.bug_report_dir).
    #[arg(long, value_name = "DIR")]
    pub bug_report_dir: Option<PathBuf>,
}

impl BugReportArgs {
    /// Sets `bug_report` and `bug_report_dir` of `[play]`.
    pub fn lay_over(&self, play: &mut PlaySettings) {
        if self.no_bug_report {
            play.bug_report = false;
        }
        if let Some(d) = &self.bug_report_dir {
            play.bug_report_dir = d.display().to_string();
        }
    }
}

/// The lab's pad faults and given timing.
#[derive(Debug, Clone, Default, Args)]
pub struct LabArgs {
    /// Headless: pad faults between the bots and the console, e.g. "drop=0.05,delay=2,extra=0.01"
    /// (overrides lab.faults; seeded by --seed).
    #[arg(long)]
    pub faults: Option<String>,
    /// Lab: the game's timing given rather than measured, e.g. "fall=4,lock=none,lag=3" (overrides
    /// lab.timing): the bots and the driver play on it. For builds whose timing is known.
    #[arg(long, value_name = "TIMING", hide = true)]
    pub lab_timing: Option<String>,
}

impl LabArgs {
    /// Sets `faults` and `timing` of `[lab]`.
    pub fn lay_over(&self, lab: &mut LabSettings) {
        if let Some(f) = &self.faults {
            lab.faults = f.clone();
        }
        if let Some(t) = &self.lab_timing {
            lab.timing = t.clone();
        }
    }
}
