//! `puyobot play`: load config and ROM, pick the address file, build the session, run it headless or in a
//! window.

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};

use crate::calib::{CalibrateMode, LearnedRom, write_address_folder};
use crate::config::{Config, Mode};
use crate::emu::faults::FaultSpec;
use crate::emu::{Emu, RomImage, rom};
use crate::memmap::catalog::{ModeFiles, source_from_setting};
use crate::memmap::{AddressFile, AddressSource};
use crate::play::games::{self, Plan, TraceFile};
use crate::play::{Limits, Session, seats_for};

use super::args::{AddressArgs, RunLimits};
pub use super::play_args::{Emulator, PlayArgs};
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

/// Reads the configuration file ([`super::config_file::locate`]) and applies the flags on top.
pub fn merged_config(args: &PlayArgs) -> anyhow::Result<Config> {
    Ok(merged_config_from(args)?.0)
}

/// [`merged_config`] and the file it read (`None`: the built-in defaults).
fn merged_config_from(args: &PlayArgs) -> anyhow::Result<(Config, Option<PathBuf>)> {
    args.session.setup.configure(|cfg| args.lay_over(cfg))
}

/// Refuses flags that contradict each other or the mode, or that would do nothing, naming both sides.
fn check_flags(args: &PlayArgs, cfg: &Config, players: Players) -> anyhow::Result<()> {
    check_players(args, cfg, players)?;
    check_limits(args, cfg)?;
    check_run_place(args, cfg)
}

/// Whether the run is headless: `--headless`, or `--calibrate only` (which runs headless).
fn runs_headless(args: &PlayArgs, cfg: &Config) -> bool {
    args.headless || cfg.play.calibrate == CalibrateMode::Only
}

/// Refuses a bot flag for a seat a person plays or the mode does not have, and a person without a
/// keyboard.
fn check_players(args: &PlayArgs, cfg: &Config, players: Players) -> anyhow::Result<()> {
    let mode = cfg.play.mode;
    let mode_from = match args.session.game.mode {
        Some(m) => format!("--mode {}", m.name()),
        None => format!("play.mode = \"{}\" (configuration)", mode.name()),
    };
    let bots = &args.session.bots;
    if players == Players::Person {
        if args.headless {
            bail!("--headless needs --bot: without a window nobody can press the keys");
        }
        if bots.p1_ai.is_some() {
            bail!("--p1-ai: without --bot the person at the keyboard plays player 1");
        }
    } else if mode == Mode::VsHuman && runs_headless(args, cfg) {
        bail!(
            "{mode_from} puts a person on pad 1, and {} has no keyboard; use --mode ai-vs-ai or --mode endless",
            if args.headless { "--headless" } else { "--calibrate only" }
        );
    }
    if mode == Mode::VsHuman && bots.p1_ai.is_some() {
        bail!("--p1-ai: with {mode_from} player 1 is the person at the keyboard");
    }
    if mode == Mode::Endless && bots.p2_ai.is_some() {
        bail!("--p2-ai: {mode_from} has no player 2");
    }
    Ok(())
}

/// Refuses a run limit of 0, two limits, a limit the window cannot keep, a headless run without one, and
/// `--jobs` without games to share out.
fn check_limits(args: &PlayArgs, cfg: &Config) -> anyhow::Result<()> {
    let only = cfg.play.calibrate == CalibrateMode::Only;
    let headless = runs_headless(args, cfg);
    let run = &args.session.limits;
    for (flag, zero) in
        [("--frames", run.frames == Some(0)), ("--pieces", run.pieces == Some(0)), ("--jobs", args.jobs == Some(0))]
    {
        if zero {
            bail!("{flag} 0: give at least 1");
        }
    }
    if run.games == Some(0) {
        bail!("--games 0: a match needs at least one game");
    }
    for (flag, on) in [("--pieces", run.pieces.is_some()), ("--games", run.games.is_some())] {
        if on && !headless {
            bail!("{flag} needs --headless (or --emulator): a window run ends when the window closes");
        }
    }
    let limits = run.given();
    if limits.len() > 1 {
        bail!("{} both end the run; give one of them", limits.join(" and "));
    }
    if args.headless && !only && limits.is_empty() {
        bail!("--headless needs --frames N, --pieces N or --games N");
    }
    if only && (run.pieces.is_some() || run.games.is_some()) {
        bail!("--calibrate only runs until calibration settles; {} does not apply", limits.join(", "));
    }
    if args.jobs.is_some() && run.games.is_none() {
        bail!("--jobs plays the games of --games N side by side; without --games there is one game");
    }
    Ok(())
}

/// Refuses flags of a headless run in a window and flags of a window headless, a recording of several
/// power-ons, and writing what calibration learned with calibration off.
fn check_run_place(args: &PlayArgs, cfg: &Config) -> anyhow::Result<()> {
    let headless = runs_headless(args, cfg);
    if args.session.output.json && !headless {
        bail!("--json prints the report of a headless run; add --headless (a window run has no report)");
    }
    if args.lab.faults.is_some() && !headless {
        bail!("--faults needs --headless: the window plays without the faulty link");
    }
    if args.window.emu_speed.is_some() && headless {
        bail!("--emu-speed sets the window's pace; --headless runs as fast as the machine goes");
    }
    if args.session.game.no_menu && headless {
        bail!("--no-menu leaves the menus to a person, and --headless has no keyboard");
    }
    if let Some((flag, _)) = args.recording()?
        && args.session.limits.games.is_some_and(|n| n > 1)
    {
        bail!(
            "{flag} writes one power-on, and each game of --games N has its own; record one game with \
             --games 1 (game k of seed S is the single game of seed S+k-1)"
        );
    }
    if args.session.addresses.write_addresses.is_some() && cfg.play.calibrate == CalibrateMode::Off {
        bail!("--write-addresses needs calibration, and --calibrate off (or play.calibrate = \"off\") turns it off");
    }
    Ok(())
}

/// Checks every output path before the run starts: the recording and `--write-addresses`.
pub(super) fn check_outputs(
    recording: Option<(&'static str, &std::path::Path)>,
    addresses: &AddressArgs,
) -> anyhow::Result<()> {
    if let Some((flag, p)) = recording {
        output::check_file(flag, p)?;
    }
    if let Some(p) = &addresses.write_addresses {
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

/// Runs `puyobot play` (`main` sends `play --emulator` to `cli::serve` instead).
pub fn run(args: &PlayArgs) -> anyhow::Result<()> {
    run_with(args, Players::Bots)
}

/// The trace writer of `--record FILE`, with the header filled in: the cartridge, and the run as
/// [`RunInfo`] (what `puyobot replay` needs to run it again).
pub(super) fn trace_writer(
    recording: Option<(&'static str, &Path)>,
    limits: &RunLimits,
    cfg: &Config,
    image: &RomImage,
    players: Players,
    headless: bool,
) -> anyhow::Result<Option<TraceWriter<std::io::BufWriter<std::fs::File>>>> {
    let Some((flag, path)) = recording else { return Ok(None) };
    let header = trace_header(limits, cfg, image, players, headless);
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
    limits: &RunLimits,
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
        frames: limits.frames.or((headless && only).then_some(ONLY_FRAMES)),
        pieces: limits.pieces,
        games: limits.games,
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
pub(super) fn finish_trace<M: crate::emu::Machine>(
    recorder: &mut TraceRecorder<M>,
    recording: Option<(&'static str, &Path)>,
) -> anyhow::Result<()> {
    said_written(recorder.finish()?, recording);
    Ok(())
}

/// Says where a finished recording went, when there is one.
fn said_written(stats: Option<crate::trace::TraceStats>, recording: Option<(&'static str, &Path)>) {
    if let (Some(stats), Some((_, path))) = (stats, recording) {
        eprintln!("wrote {} ({} frames, {} bytes)", path.display(), stats.frames, stats.bytes);
    }
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
    check_outputs(args.recording()?, &args.session.addresses)?;
    let only = cfg.play.calibrate == CalibrateMode::Only;
    let (image, name, map) = load_game(&cfg)?;
    let borrowed = mode_files(&cfg, &image)?;
    let mode = cfg.play.mode;
    log::info!("{name}: {} ({})", map.meta.name, if map.meta.verified { "verified" } else { "unverified" });
    let trace = trace_writer(args.recording()?, &args.session.limits, &cfg, &image, players, args.headless || only)?;
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
    let options = cfg.game_options();
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
    finish_trace(session.machine_mut(), args.recording()?)?;
    write_learned(session.calibration().map(|c| c.learner()), write_to(args), &cfg, &rom, &borrowed)
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
    let run = &args.session.limits;
    let limits = headless_limits(run, cfg);
    let faults = FaultSpec::parse(&cfg.lab.faults).map_err(|m| anyhow::anyhow!("--faults / lab.faults: {m}"))?;
    let progress = output::Bar(headless_progress(run.games, &limits));
    let options = cfg.game_options();
    let flight = bug_report::recorder(cfg, run.games, || trace_header(run, cfg, image, Players::Bots, true));
    let plan = Plan {
        options: &options,
        image,
        name,
        map,
        limits,
        games: run.games,
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
        flight.as_ref().and_then(|f| bug_report::stop_of_outcome(&out.summary, f, cfg, run.pieces).map(|s| (f, s)));
    let bundle = stop.and_then(|(f, (reason, message))| {
        let report = serde_json::from_str(&out.json).ok();
        bug_report::write(f, &ctx, reason, &message, report)
    });
    said_written(out.trace, args.recording()?);
    write_learned(out.learner.as_ref(), write_to(args), cfg, rom, borrowed)?;
    print_headless_report(&out, args.session.output.json, cfg, bundle.as_ref());
    headless_outcome(&out.summary, cfg)
}

/// The limits of each headless game: a game of `--games N` runs to its end from its own power-on;
/// otherwise the run stops at `--frames`/`--pieces` (or calibration settling, for `--calibrate only`).
fn headless_limits(run: &RunLimits, cfg: &Config) -> Limits {
    let only = cfg.play.calibrate == CalibrateMode::Only;
    match run.games {
        Some(_) => Limits {
            frames: None,
            pieces: None,
            stop_at_game_over: true,
            games: Some(1),
            until_calibrated: false,
            long_game_pieces: cfg.play.long_game_limit(),
        },
        None => Limits {
            frames: run.frames.or(only.then_some(ONLY_FRAMES)),
            pieces: run.pieces,
            stop_at_game_over: cfg.lab.stop_at_game_over,
            games: None,
            until_calibrated: only,
            long_game_pieces: None,
        },
    }
}

/// The progress bar of a headless run: games, pieces or frames, whichever ends it.
fn headless_progress(games: Option<u32>, limits: &Limits) -> indicatif::ProgressBar {
    match (games, limits.pieces, limits.frames) {
        (Some(n), _, _) => {
            output::progress_bar(u64::from(n), "{bar:30} {pos}/{len} games  {elapsed_precise}  eta {eta}  {msg}")
        }
        (None, Some(n), _) => output::progress_bar(u64::from(n), "{bar:30} {pos}/{len} pieces  {elapsed_precise}"),
        (None, None, Some(n)) => output::progress_bar(n, "{bar:30} {pos}/{len} frames  {elapsed_precise}"),
        (None, None, None) => output::progress_bar(0, "{spinner} {pos} frames  {elapsed_precise}"),
    }
}

/// Prints a headless run's report: what calibration learned (`--calibrate only`), the JSON, or the text.
fn print_headless_report(out: &games::Outcome, json: bool, cfg: &Config, bundle: Option<&PathBuf>) {
    let only = cfg.play.calibrate == CalibrateMode::Only;
    if only && !json {
        print!("{}", out.summary.calibration.to_text());
    } else if json {
        println!("{}", bug_report::json_with(&out.json, bundle));
    } else {
        print!("{}", out.summary.to_text());
        println!("ram hash {}  faults injected {}", out.ram_hash, out.faults.total());
    }
}

/// A headless run that stalled, failed its health checks, had a long 2P game (`--long-game-pieces`),
/// or (`--calibrate only`) ended unsettled is an error.
fn headless_outcome(summary: &crate::play::Summary, cfg: &Config) -> anyhow::Result<()> {
    let only = cfg.play.calibrate == CalibrateMode::Only;
    if summary.stalled {
        return Err(crate::play::RunError::Stalled(crate::play::headless::STALL_FRAMES).into());
    }
    if let Some(f) = &summary.health.failure {
        return Err(crate::play::RunError::Health(f.clone()).into());
    }
    if only && !summary.interrupted && summary.calibration.state != crate::calib::ReportState::Settled {
        bail!("calibration did not settle: {}", summary.calibration.to_text().trim());
    }
    long_games_outcome(summary)
}

/// A run with a long 2P game is an error, naming each: a game that nothing ended is not a result
/// (`--long-game-pieces` raises the limit, 0 lifts it).
pub(super) fn long_games_outcome(summary: &crate::play::Summary) -> anyhow::Result<()> {
    let long = &summary.health.long_games;
    if long.is_empty() {
        return Ok(());
    }
    bail!(
        "{} of {} games ran long and were ended without a winner (--long-game-pieces N raises the limit, 0 lifts \
         it):\n  {}",
        long.len(),
        summary.games.len(),
        long.join("\n  ")
    )
}

/// `--write-addresses DIR`, if given.
fn write_to(args: &PlayArgs) -> Option<&Path> {
    args.session.addresses.write_addresses.as_deref()
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
    write_addresses: Option<&Path>,
    cfg: &Config,
    rom: &LearnedRom,
    borrowed: &ModeFiles,
) -> anyhow::Result<()> {
    let Some(dir) = write_addresses else { return Ok(()) };
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
        max_frames: args.session.limits.frames,
        screenshot_on_exit: args.window.screenshot_on_exit.clone(),
        key_script: match &args.window.key_script {
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
