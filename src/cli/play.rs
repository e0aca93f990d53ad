//! `puyobot play`: load config and ROM, pick the address file, build the session, run it headless or in a
//! window.

use std::path::PathBuf;

use anyhow::{Context, bail};
use clap::Args;

use crate::calib::{CalibrateMode, LearnedRom, write_address_folder};
use crate::config::{Config, Mode};
use crate::emu::EmuSpeed;
use crate::emu::faults::FaultSpec;
use crate::emu::{Emu, RomImage, rom};
use crate::memmap::catalog::{ModeFiles, source_from_setting};
use crate::memmap::{AddressFile, AddressSource};
use crate::play::games::{self, Plan, TraceFile};
use crate::play::{Limits, Session, seats_for};

use super::{bug_report, output};
use crate::trace::format::MAX_META_LEN;
use crate::trace::{RunInfo, RunPlace, TraceHeader, TraceRecorder, TraceWriter};

/// Who presses the pads of a recorded run (the trace header's `players`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Players {
    /// The bots, as `puyobot play` sets them up (and the menu script).
    Bots,
    /// A person at the keyboard on pad 1 (that seat's bot off, any pad-2 bot as the mode sets it), no menu
    /// script.
    Person,
}

/// Arguments of `puyobot play`.
#[derive(Debug, Clone, Default, Args)]
pub struct PlayArgs {
    /// ROM file (iNES), as emulator front ends take it: `puyobot play ROM`. Same as `--rom`.
    #[arg(value_name = "ROM", conflicts_with = "rom")]
    pub rom_file: Option<PathBuf>,
    /// ROM file (iNES). Without it (and without `ROM`), the open test cartridge is played.
    #[arg(long)]
    pub rom: Option<PathBuf>,
    /// Game mode.
    #[arg(long, value_enum)]
    pub mode: Option<Mode>,
    /// Items: the menu script sets the game's option (where the address file knows it) and the deal
    /// confirms it; the run stops naming the option when the game deals otherwise.
    #[arg(long, value_enum)]
    pub items: Option<crate::play::options::ItemsChoice>,
    /// Number of colours (where the game offers it), set and confirmed as --items is.
    #[arg(long, value_parser = clap::value_parser!(u8).range(3..=6))]
    pub colors: Option<u8>,
    /// The 2P rules (`--nuisance-cap`, `--nuisance-drop`, `--nuisance-points`, `--nuisance-overflow`).
    #[command(flatten)]
    pub rules: super::play_rules::PlayRuleFlags,
    /// Bot speed, 0 (slow, human-paced) to 10 (as fast as the game accepts).
    #[arg(long, value_parser = clap::value_parser!(u8).range(0..=10))]
    pub speed: Option<u8>,
    /// Emulator speed in the window.
    #[arg(long, value_enum)]
    pub emu_speed: Option<EmuSpeed>,
    /// No window: run as fast as possible and print a summary (needs --frames or --pieces).
    #[arg(long)]
    pub headless: bool,
    /// Stop after N frames (headless, or close the window after N emulated frames).
    #[arg(long)]
    pub frames: Option<u64>,
    /// Headless (or --emulator): stop once a player has locked N pieces.
    #[arg(long)]
    pub pieces: Option<u32>,
    /// Headless: play N games, each from its own power-on (game k with seed S+k-1), report each and the
    /// totals, then stop. With --emulator: N games in a row, each started by the restart script.
    #[arg(long)]
    pub games: Option<u32>,
    /// Headless, with --games: play this many games at once, one emulator per thread (default 1). The
    /// results are the same for any number.
    #[arg(long, requires = "games")]
    pub jobs: Option<usize>,
    /// Headless: print the report as JSON.
    #[arg(long)]
    pub json: bool,
    /// Seed for the bots, the pad faults and the deal (the menu scripts' `seed_wait` steps); recorded in
    /// the output.
    #[arg(long)]
    pub seed: Option<u64>,
    /// Configuration file (default: ./config.toml when it exists, else the user's config.toml).
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// Do not walk the menus: leave them to the person.
    #[arg(long)]
    pub no_menu: bool,
    /// Run a ROM whose hash is not in addresses/roms.toml.
    #[arg(long)]
    pub allow_unknown_rom: bool,
    /// Print the merged configuration and exit.
    #[arg(long)]
    pub print_config: bool,
    /// Bot for player 1: classic or chain (overrides [bots] p1).
    #[arg(long, value_parser = crate::ai::check_name)]
    pub p1_ai: Option<String>,
    /// Bot for player 2: classic or chain (overrides [bots] p2).
    #[arg(long, value_parser = crate::ai::check_name)]
    pub p2_ai: Option<String>,
    /// Bot strength 0..=10 (10: full strength), of both bots (7) or of player 1 and player 2 (3,10);
    /// overrides [bots] strength. Separate from --speed.
    #[arg(long, value_parser = crate::ai::Levels::parse)]
    pub strength: Option<crate::ai::Levels>,
    /// The bots play the `two-ply` AI profile (current and next pair only) instead of the full search:
    /// quick statistics, about 15 times less search per move (sets [bots] profile = "two-ply").
    #[arg(long)]
    pub fast: bool,
    /// Folder of address files to use instead of the built-in copies.
    #[arg(long)]
    pub addresses: Option<PathBuf>,
    /// Self-calibration: learn the unverified entries (auto), trust the address file (off), or learn,
    /// print the result and stop (only; runs headless).
    #[arg(long, value_enum)]
    pub calibrate: Option<CalibrateMode>,
    /// After the run, write what calibration learned as a complete address folder.
    #[arg(long, value_name = "DIR")]
    pub write_addresses: Option<PathBuf>,
    /// Headless: pad faults between the bots and the console, e.g. "drop=0.05,delay=2,extra=0.01"
    /// (overrides lab.faults; seeded by --seed).
    #[arg(long)]
    pub faults: Option<String>,
    /// Lab: the game's timing given rather than measured, e.g. "fall=4,lock=none,lag=3" (overrides
    /// lab.timing): the bots and the driver play on it. For builds whose timing is known.
    #[arg(long, value_name = "TIMING", hide = true)]
    pub lab_timing: Option<String>,
    /// The same as --record (the name of the flag when replays had their own file format).
    #[arg(long, value_name = "FILE")]
    pub save_inputs: Option<PathBuf>,
    /// Record the run to a trace file: every frame's pads and RAM changes, with what is needed to run it
    /// again. `puyobot replay FILE` watches or checks it, `puyobot calibrate FILE` learns from it.
    #[arg(long, value_name = "FILE")]
    pub record: Option<PathBuf>,
    /// Do not write a bug report when the run stops short (sets play.bug_report = false; see
    /// docs/calibration.md, "When it stops: the bug report").
    #[arg(long)]
    pub no_bug_report: bool,
    /// The folder bug reports go to (default: bug-reports/ in the data folder; sets play.bug_report_dir).
    #[arg(long, value_name = "DIR")]
    pub bug_report_dir: Option<PathBuf>,
    /// Play in another emulator instead of the built-in one: start it with its script (plugins/) and
    /// serve it as `puyobot serve` does (docs/plugins.md).
    #[arg(long, value_enum)]
    pub emulator: Option<Emulator>,
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

/// Reads the configuration file ([`super::config_file::locate`]) and applies the flags on top.
pub fn merged_config(args: &PlayArgs) -> anyhow::Result<Config> {
    Ok(merged_config_from(args)?.0)
}

/// [`merged_config`] and the file it read (`None`: the built-in defaults).
fn merged_config_from(args: &PlayArgs) -> anyhow::Result<(Config, Option<PathBuf>)> {
    let loaded = super::config_file::load(args.config.as_deref())?;
    let mut cfg = loaded.config;
    let p = &mut cfg.play;
    if let Some(r) = args.rom.as_ref().or(args.rom_file.as_ref()) {
        p.rom = r.display().to_string();
    }
    if let Some(m) = args.mode {
        p.mode = m;
    }
    if let Some(s) = args.speed {
        p.speed = s;
    }
    if let Some(e) = args.emu_speed {
        p.emu_speed = e;
    }
    if args.mute {
        cfg.audio.mute = true;
    }
    if let Some(s) = args.seed {
        p.seed = s;
    }
    if args.no_menu {
        p.menu = false;
    }
    if let Some(i) = args.items {
        p.items = Some(i);
    }
    if let Some(n) = args.colors {
        p.colors = Some(n);
    }
    if args.allow_unknown_rom {
        p.allow_unknown_rom = true;
    }
    if let Some(c) = args.calibrate {
        p.calibrate = c;
    }
    if let Some(a) = &args.addresses {
        p.addresses_dir = a.display().to_string();
    }
    if let Some(f) = &args.faults {
        cfg.lab.faults = f.clone();
    }
    if args.no_bug_report {
        cfg.play.bug_report = false;
    }
    if let Some(d) = &args.bug_report_dir {
        cfg.play.bug_report_dir = d.display().to_string();
    }
    if let Some(t) = &args.lab_timing {
        cfg.lab.timing = t.clone();
    }
    if let Some(b) = &args.p1_ai {
        cfg.bots.p1 = b.clone();
    }
    if let Some(b) = &args.p2_ai {
        cfg.bots.p2 = b.clone();
    }
    if let Some(l) = args.strength {
        cfg.bots.strength = l;
    }
    if args.fast {
        cfg.bots.profile = crate::ai::FAST_PROFILE.into();
    }
    cfg.validate("command line")?;
    Ok((cfg, loaded.file))
}

/// The file the run is recorded to and the flag that named it (`--record`, or its older name
/// `--save-inputs`); two different files are refused, naming both flags.
pub fn recording(args: &PlayArgs) -> anyhow::Result<Option<(&'static str, &std::path::Path)>> {
    match (&args.record, &args.save_inputs) {
        (Some(r), Some(s)) if r != s => bail!(
            "--record {} and --save-inputs {} name two files, but a run writes one recording (--save-inputs \
             is another name for --record); give one of them",
            r.display(),
            s.display()
        ),
        (Some(r), _) => Ok(Some(("--record", r))),
        (None, Some(s)) => Ok(Some(("--save-inputs", s))),
        (None, None) => Ok(None),
    }
}

/// Refuses flags that contradict each other or the mode, or that would do nothing, naming both sides.
fn check_flags(args: &PlayArgs, cfg: &Config, players: Players) -> anyhow::Result<()> {
    let only = cfg.play.calibrate == CalibrateMode::Only;
    let headless = args.headless || only;
    let mode = cfg.play.mode;
    let mode_from = match args.mode {
        Some(m) => format!("--mode {}", m.name()),
        None => format!("play.mode = \"{}\" (configuration)", mode.name()),
    };
    if players == Players::Person {
        if args.headless {
            bail!("--headless needs --bot: without a window nobody can press the keys");
        }
        if args.p1_ai.is_some() {
            bail!("--p1-ai: without --bot the person at the keyboard plays player 1");
        }
    } else if mode == Mode::VsHuman && headless {
        bail!(
            "{mode_from} puts a person on pad 1, and {} has no keyboard; use --mode ai-vs-ai or --mode endless",
            if args.headless { "--headless" } else { "--calibrate only" }
        );
    }
    if mode == Mode::VsHuman && args.p1_ai.is_some() {
        bail!("--p1-ai: with {mode_from} player 1 is the person at the keyboard");
    }
    if mode == Mode::Endless && args.p2_ai.is_some() {
        bail!("--p2-ai: {mode_from} has no player 2");
    }
    for (flag, zero) in
        [("--frames", args.frames == Some(0)), ("--pieces", args.pieces == Some(0)), ("--jobs", args.jobs == Some(0))]
    {
        if zero {
            bail!("{flag} 0: give at least 1");
        }
    }
    if args.games == Some(0) {
        bail!("--games 0: a match needs at least one game");
    }
    for (flag, on) in [("--pieces", args.pieces.is_some()), ("--games", args.games.is_some())] {
        if on && !headless {
            bail!("{flag} needs --headless (or --emulator): a window run ends when the window closes");
        }
    }
    let limits: Vec<&str> =
        [("--frames", args.frames.is_some()), ("--pieces", args.pieces.is_some()), ("--games", args.games.is_some())]
            .into_iter()
            .filter_map(|(f, on)| on.then_some(f))
            .collect();
    if limits.len() > 1 {
        bail!("{} both end the run; give one of them", limits.join(" and "));
    }
    if args.headless && !only && limits.is_empty() {
        bail!("--headless needs --frames N, --pieces N or --games N");
    }
    if only && (args.pieces.is_some() || args.games.is_some()) {
        bail!("--calibrate only runs until calibration settles; {} does not apply", limits.join(", "));
    }
    if args.jobs.is_some() && args.games.is_none() {
        bail!("--jobs plays the games of --games N side by side; without --games there is one game");
    }
    if args.json && !headless {
        bail!("--json prints the report of a headless run; add --headless (a window run has no report)");
    }
    if args.faults.is_some() && !headless {
        bail!("--faults needs --headless: the window plays without the faulty link");
    }
    if args.emu_speed.is_some() && headless {
        bail!("--emu-speed sets the window's pace; --headless runs as fast as the machine goes");
    }
    if args.no_menu && headless {
        bail!("--no-menu leaves the menus to a person, and --headless has no keyboard");
    }
    if let Some((flag, _)) = recording(args)?
        && args.games.is_some_and(|n| n > 1)
    {
        bail!(
            "{flag} writes one power-on, and each game of --games N has its own; record one game with \
             --games 1 (game k of seed S is the single game of seed S+k-1)"
        );
    }
    if args.write_addresses.is_some() && cfg.play.calibrate == CalibrateMode::Off {
        bail!("--write-addresses needs calibration, and --calibrate off (or play.calibrate = \"off\") turns it off");
    }
    Ok(())
}

/// Checks every output path before the run starts.
pub(super) fn check_outputs(args: &PlayArgs) -> anyhow::Result<()> {
    if let Some((flag, p)) = recording(args)? {
        output::check_file(flag, p)?;
    }
    if let Some(p) = &args.write_addresses {
        output::check_dir("--write-addresses", p)?;
    }
    Ok(())
}

/// The ROM, its display name and its address file, after identification.
pub fn load_game(cfg: &Config) -> anyhow::Result<(RomImage, String, AddressFile)> {
    let image = match cfg.rom_path() {
        Some(path) => RomImage::from_path(&path)?,
        None => rom::labcart().context("the built-in open test cartridge is missing; pass --rom PATH")?,
    };
    let (name, map) = identify(cfg, &image)?;
    Ok((image, name, map))
}

/// The display name and address file of `image`, identified in the catalogue (an unknown dump is
/// refused unless `play.allow_unknown_rom`, and then borrows an address file).
pub fn identify(cfg: &Config, image: &RomImage) -> anyhow::Result<(String, AddressFile)> {
    let source: AddressSource = source_from_setting(&cfg.play.addresses_dir, std::path::Path::new("."));
    let catalog = source.catalog()?;
    let mode = cfg.play.mode;
    let (name, file) = match catalog.identify(image) {
        Ok(known) => (known.name.clone(), known.modes.for_mode(mode).to_string()),
        Err(refusal) => {
            if !cfg.play.allow_unknown_rom {
                return Err(refusal.into());
            }
            log::warn!("{refusal}");
            let file = if cfg.play.unknown_rom_addresses.is_empty() {
                match catalog.rom.first() {
                    Some(r) => r.modes.for_mode(mode).to_string(),
                    None => bail!("addresses/roms.toml lists no cartridge to borrow an address file from"),
                }
            } else {
                cfg.play.unknown_rom_addresses.clone()
            };
            (format!("{} (unknown dump, CRC32 {})", image.name, image.hash.crc32), file)
        }
    };
    let map = source.address_file(&file)?;
    Ok((name, map))
}

/// The emulators `play --emulator` can start (`puyobot serve` plays through them: `cli::serve`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Emulator {
    /// FCEUX 2.6 with LuaSocket (`plugins/fceux.lua`).
    Fceux,
}

/// Runs `puyobot play` (`main` sends `play --emulator` to `cli::serve` instead).
pub fn run(args: &PlayArgs) -> anyhow::Result<()> {
    run_with(args, Players::Bots)
}

/// The trace writer of `--record FILE`, with the header filled in: the cartridge, and the run as
/// [`RunInfo`] (what `puyobot replay` needs to run it again).
pub(super) fn trace_writer(
    args: &PlayArgs,
    cfg: &Config,
    image: &RomImage,
    players: Players,
    headless: bool,
) -> anyhow::Result<Option<TraceWriter<std::io::BufWriter<std::fs::File>>>> {
    let Some((flag, path)) = recording(args)? else { return Ok(None) };
    let header = trace_header(args, cfg, image, players, headless);
    if header.metadata_len() > MAX_META_LEN {
        bail!(
            "{flag} {}: the configuration is {} bytes of TOML, and a trace header holds at most {MAX_META_LEN}",
            path.display(),
            cfg.to_toml().len()
        );
    }
    Ok(Some(TraceWriter::create(path, &header)?))
}

/// The trace header of the run: the cartridge, and the run as [`RunInfo`] (what `puyobot replay` needs
/// to run it again). `--record` and the bug report's traces share it.
pub(super) fn trace_header(
    args: &PlayArgs,
    cfg: &Config,
    image: &RomImage,
    players: Players,
    headless: bool,
) -> TraceHeader {
    let mut header = TraceHeader::for_rom(image);
    header.set("mode", cfg.play.mode.name());
    header.set("menu", if cfg.play.menu { "script" } else { "person" });
    header.set("speed", &cfg.play.speed.to_string());
    if let Ok(t) = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH) {
        header.set("recorded_unix_time", &t.as_secs().to_string());
    }
    let only = cfg.play.calibrate == CalibrateMode::Only;
    let run = RunInfo {
        seed: cfg.play.seed,
        frames: args.frames.or((headless && only).then_some(ONLY_FRAMES)),
        pieces: args.pieces,
        games: args.games,
        config: cfg.to_toml(),
        place: if headless { RunPlace::Headless } else { RunPlace::Window },
        players: match players {
            Players::Person => "keyboard",
            Players::Bots => "bot",
        }
        .into(),
    };
    run.write_to(&mut header);
    header
}

/// Finishes a recording and says where it went.
fn finish_trace(recorder: &mut TraceRecorder<Emu>, args: &PlayArgs) -> anyhow::Result<()> {
    if let (Some(stats), Some((_, path))) = (recorder.finish()?, recording(args)?) {
        eprintln!("wrote {} ({} frames, {} bytes)", path.display(), stats.frames, stats.bytes);
    }
    Ok(())
}

/// Runs `puyobot play` (or `puyobot record`) with the pads pressed by `players`.
pub fn run_with(args: &PlayArgs, players: Players) -> anyhow::Result<()> {
    let (mut cfg, file) = merged_config_from(args)?;
    if players == Players::Person {
        cfg.play.menu = false;
    }
    if args.print_config {
        print!("{}{}", super::config_file::provenance(file.as_deref()), cfg.to_toml());
        return Ok(());
    }
    check_flags(args, &cfg, players)?;
    check_outputs(args)?;
    let only = cfg.play.calibrate == CalibrateMode::Only;
    let (image, name, map) = load_game(&cfg)?;
    let borrowed = mode_files(&cfg, &image)?;
    let mode = cfg.play.mode;
    log::info!("{name}: {} ({})", map.meta.name, if map.meta.verified { "verified" } else { "unverified" });
    let trace = trace_writer(args, &cfg, &image, players, args.headless || only)?;
    let rom = LearnedRom { name: image.name.clone(), crc32: image.hash.crc32.clone(), sha1: image.hash.sha1.clone() };
    if args.headless || only {
        crate::interrupt::install();
        return run_headless_command(args, &cfg, &image, &name, &map, trace, &rom, &borrowed);
    }
    let mut seats = seats_for(mode, &map, &cfg.window_seat_config()).map_err(anyhow::Error::msg)?;
    if players == Players::Person {
        seats.iter_mut().filter(|s| s.pad == 0).for_each(|s| s.bot_on = false);
    }
    let machine = TraceRecorder::new(Emu::new(&image, false)?, trace);
    let mut options = cfg.game_options();
    options.rules = args.rules.choices()?;
    let mut session = options
        .session(machine, map, seats, &image.hash.sha1)
        // In the window a match goes on game after game, and a menu the script cannot walk is the person's.
        .restart(cfg.play.menu)
        .manual_menu_fallback(true)
        // A person on pad 1 starts each game with Start, when ready, rather than 4 seconds after launch.
        .hold_for_start(mode == Mode::VsHuman && cfg.play.menu)
        .build()?;
    session.choose_rules(&options.rules)?;
    let result = run_window(session, &cfg, &name, args);
    let mut session = result?;
    finish_trace(session.machine_mut(), args)?;
    write_learned(session.calibration().map(|c| c.learner()), args, &cfg, &rom, &borrowed)
}

/// The headless part of `puyobot play`: runs the games, writes the files (before printing, so a closed
/// stdout loses nothing), prints the report.
#[allow(clippy::too_many_arguments)]
fn run_headless_command(
    args: &PlayArgs,
    cfg: &Config,
    image: &RomImage,
    name: &str,
    map: &AddressFile,
    trace: Option<TraceFile>,
    rom: &LearnedRom,
    borrowed: &ModeFiles,
) -> anyhow::Result<()> {
    let only = cfg.play.calibrate == CalibrateMode::Only;
    let limits = match args.games {
        // Each game of a match runs to its end, from its own power-on.
        Some(_) => {
            Limits { frames: None, pieces: None, stop_at_game_over: true, games: Some(1), until_calibrated: false }
        }
        None => Limits {
            frames: args.frames.or(only.then_some(ONLY_FRAMES)),
            pieces: args.pieces,
            stop_at_game_over: cfg.lab.stop_at_game_over,
            games: None,
            until_calibrated: only,
        },
    };
    let faults = FaultSpec::parse(&cfg.lab.faults).map_err(|m| anyhow::anyhow!("--faults / lab.faults: {m}"))?;
    let progress = match (args.games, limits.pieces, limits.frames) {
        (Some(n), _, _) => {
            output::progress_bar(u64::from(n), "{bar:30} {pos}/{len} games  {elapsed_precise}  eta {eta}  {msg}")
        }
        (None, Some(n), _) => output::progress_bar(u64::from(n), "{bar:30} {pos}/{len} pieces  {elapsed_precise}"),
        (None, None, Some(n)) => output::progress_bar(n, "{bar:30} {pos}/{len} frames  {elapsed_precise}"),
        (None, None, None) => output::progress_bar(0, "{spinner} {pos} frames  {elapsed_precise}"),
    };
    let mut options = cfg.game_options();
    options.rules = args.rules.choices()?;
    let progress = output::Bar(progress);
    let flight = bug_report::recorder(cfg, args.games, || trace_header(args, cfg, image, Players::Bots, true));
    let plan = Plan {
        options: &options,
        image,
        name,
        map,
        limits,
        games: args.games,
        jobs: args.jobs.unwrap_or(1),
        faults,
        progress: &progress,
        pad_log: false,
        flight: flight.as_ref(),
    };
    let out = games::run(&plan, trace);
    progress.0.finish_and_clear();
    let ctx = bug_report::Context { cfg, rom, borrowed };
    let out = match out {
        Ok(out) => out,
        Err(e) => {
            if let Some(f) = &flight {
                bug_report::write(f, &ctx, bug_report::stop_of_error(&e), &super::error_text(&e), None);
            }
            return Err(e);
        }
    };
    let stop =
        flight.as_ref().and_then(|f| bug_report::stop_of_outcome(&out.summary, f, cfg, args.pieces).map(|s| (f, s)));
    let bundle = stop.and_then(|(f, (reason, message))| {
        let report = serde_json::from_str(&out.json).ok();
        bug_report::write(f, &ctx, reason, &message, report)
    });
    if let (Some(stats), Some((_, path))) = (out.trace, recording(args)?) {
        eprintln!("wrote {} ({} frames, {} bytes)", path.display(), stats.frames, stats.bytes);
    }
    write_learned(out.learner.as_ref(), args, cfg, rom, borrowed)?;
    let summary = &out.summary;
    if only && !args.json {
        print!("{}", summary.calibration.to_text());
    } else if args.json {
        println!("{}", bug_report::json_with(&out.json, bundle.as_ref()));
    } else {
        print!("{}", summary.to_text());
        println!("ram hash {}  faults injected {}", out.ram_hash, out.faults.total());
    }
    if summary.stalled {
        return Err(crate::play::RunError::Stalled(crate::play::headless::STALL_FRAMES).into());
    }
    if let Some(f) = &summary.health.failure {
        return Err(crate::play::RunError::Health(f.clone()).into());
    }
    if only && !summary.interrupted && summary.calibration.state != crate::calib::ReportState::Settled {
        bail!("calibration did not settle: {}", summary.calibration.to_text().trim());
    }
    Ok(())
}

/// Frames a `--calibrate only` run may take (ten minutes of game time).
const ONLY_FRAMES: u64 = 36_000;

/// The address file of each mode for this ROM: its catalogue entry's, or for an unknown ROM the ones it
/// borrows (the configured file for every mode, or the first catalogue entry's).
pub(super) fn mode_files(cfg: &Config, image: &RomImage) -> anyhow::Result<ModeFiles> {
    let source: AddressSource = source_from_setting(&cfg.play.addresses_dir, std::path::Path::new("."));
    let catalog = source.catalog()?;
    if let Some(known) = catalog.find(image) {
        return Ok(known.modes.clone());
    }
    if !cfg.play.unknown_rom_addresses.is_empty() {
        let f = cfg.play.unknown_rom_addresses.clone();
        return Ok(ModeFiles { endless: f.clone(), vs_human: f.clone(), ai_vs_ai: f });
    }
    catalog.rom.first().map(|r| r.modes.clone()).context("addresses/roms.toml lists no cartridge")
}

/// `--write-addresses DIR`: the learned contract as a complete address folder.
pub(super) fn write_learned(
    learner: Option<&crate::calib::Learner>,
    args: &PlayArgs,
    cfg: &Config,
    rom: &LearnedRom,
    borrowed: &ModeFiles,
) -> anyhow::Result<()> {
    let Some(dir) = &args.write_addresses else { return Ok(()) };
    let Some(learner) = learner else {
        bail!("--write-addresses needs calibration (it is off: --calibrate off or play.calibrate = \"off\")");
    };
    let source: AddressSource = source_from_setting(&cfg.play.addresses_dir, std::path::Path::new("."));
    let written = write_address_folder(dir, rom, learner, &source, borrowed)?;
    for p in written {
        eprintln!("wrote {}", p.display());
    }
    Ok(())
}

fn run_window(
    session: Session<TraceRecorder<Emu>>,
    cfg: &Config,
    name: &str,
    args: &PlayArgs,
) -> anyhow::Result<Session<TraceRecorder<Emu>>> {
    use crate::ui::{WindowOptions, run_window};
    let opts = WindowOptions {
        title: format!(
            "puyobot - {name} - {}{}",
            cfg.play.mode,
            if session.machine().recording() { " - RECORDING" } else { "" }
        ),
        emu_speed: cfg.play.emu_speed,
        keys: cfg.keys.clone(),
        audio: cfg.audio.clone(),
        gamepad: cfg.gamepad.clone(),
        max_frames: args.frames,
        screenshot_on_exit: args.screenshot_on_exit.clone(),
        key_script: match &args.key_script {
            Some(path) => crate::ui::key_script::KeyScript::from_file(path)?,
            None => Default::default(),
        },
        ..WindowOptions::default()
    };
    let mut view = Interruptible(crate::ui::session_view::WindowSession::new(session));
    crate::interrupt::install();
    match run_window(&mut view, opts) {
        // Closed by an interrupt: the caller still writes the trace and what calibration learned.
        Err(_) if crate::interrupt::requested() => {}
        r => {
            r?;
        }
    }
    Ok(view.0.session)
}

/// The window's session, ended by an interrupt: the first frame after it fails, which closes the window
/// the way an emulator error does, so the run still writes its files.
struct Interruptible<V>(V);

impl<V: crate::ui::Viewable> crate::ui::Viewable for Interruptible<V> {
    fn step_frame(&mut self) -> anyhow::Result<()> {
        if crate::interrupt::requested() {
            bail!("interrupted");
        }
        self.0.step_frame()
    }

    fn frame_rgba(&mut self) -> &[u8] {
        self.0.frame_rgba()
    }

    fn hud(&self) -> crate::ui::HudInfo {
        self.0.hud()
    }

    fn set_keyboard_pad(&mut self, pad: u8, buttons: u8) {
        self.0.set_keyboard_pad(pad, buttons)
    }

    fn toggle_bot(&mut self, player: usize) -> bool {
        self.0.toggle_bot(player)
    }

    fn change_bot_speed(&mut self, delta: i32) -> u8 {
        self.0.change_bot_speed(delta)
    }

    fn change_player_bot_speed(&mut self, player: usize, delta: i32) -> Option<u8> {
        self.0.change_player_bot_speed(player, delta)
    }

    fn set_audio(&mut self, sample_rate: Option<f32>) {
        self.0.set_audio(sample_rate)
    }

    fn audio_samples(&self) -> &[f32] {
        self.0.audio_samples()
    }

    fn set_audio_ratio(&mut self, ratio: f32) {
        self.0.set_audio_ratio(ratio)
    }

    fn save_state(&mut self, slot: u8) -> anyhow::Result<String> {
        self.0.save_state(slot)
    }

    fn load_state(&mut self, slot: u8) -> anyhow::Result<()> {
        self.0.load_state(slot)
    }
}
