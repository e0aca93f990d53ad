//! `puyobot play`: load config and ROM, pick the address file, build the session, run it headless or in a
//! window.

use std::path::PathBuf;

use anyhow::{Context, bail};
use clap::Args;

use crate::calib::{CalibrateMode, LearnedRom, OnlineCalibration, write_address_folder};
use crate::config::{Config, DEFAULT_FILE, Mode};
use crate::emu::EmuSpeed;
use crate::emu::faults::{FaultSpec, FaultyPads};
use crate::emu::replay::{Replay, VERSION as REPLAY_VERSION, encode_pads};
use crate::emu::{Emu, Machine, Recorder, RomImage, ram_hash, rom};
use crate::memmap::catalog::{ModeFiles, source_from_setting};
use crate::memmap::{AddressFile, AddressSource};
use crate::play::{Limits, Session, Summary, headless, seats_for};
use crate::trace::{TraceHeader, TraceRecorder, TraceWriter};

/// The machine of a headless run: pad faults on top, then the replay log, then the trace recorder next
/// to the console (so the trace holds exactly what the console was given).
pub type HeadlessMachine = FaultyPads<Recorder<TraceRecorder<Emu>>>;

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
    /// Headless: stop once a player has locked N pieces.
    #[arg(long, requires = "headless")]
    pub pieces: Option<u32>,
    /// Headless: play N games one after another (the address file's `[restart]` script starts each
    /// next one), report each and the totals, then stop.
    #[arg(long, requires = "headless")]
    pub games: Option<u32>,
    /// Headless: print the summary as JSON.
    #[arg(long)]
    pub json: bool,
    /// Seed for the bots, the pad faults and the deal (the menu scripts' `seed_wait` steps); recorded in
    /// the output.
    #[arg(long)]
    pub seed: Option<u64>,
    /// Configuration file (default: ./config.toml when it exists).
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
    /// Bot for player 1 (overrides [bots] p1).
    #[arg(long)]
    pub p1_ai: Option<String>,
    /// Bot for player 2 (overrides [bots] p2).
    #[arg(long)]
    pub p2_ai: Option<String>,
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
    /// (overrides play.faults; seeded by --seed).
    #[arg(long)]
    pub faults: Option<String>,
    /// Headless: save the pads of every frame as a replay file (`puyobot replay FILE` runs it again).
    #[arg(long, value_name = "FILE", requires = "headless")]
    pub save_inputs: Option<PathBuf>,
    /// Record every frame's pads and RAM changes to a trace file (`puyobot calibrate FILE` learns from it).
    #[arg(long, value_name = "FILE")]
    pub record: Option<PathBuf>,
    /// Start the window with the sound muted (overrides audio.mute; the mute key turns it back on).
    #[arg(long)]
    pub mute: bool,
}

/// Reads the config file and applies the flags on top.
pub fn merged_config(args: &PlayArgs) -> anyhow::Result<Config> {
    let mut cfg = match &args.config {
        Some(p) => Config::load(p, true)?,
        None => Config::load(std::path::Path::new(DEFAULT_FILE), false)?,
    };
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
        p.faults = f.clone();
    }
    if let Some(b) = &args.p1_ai {
        cfg.bots.p1 = b.clone();
    }
    if let Some(b) = &args.p2_ai {
        cfg.bots.p2 = b.clone();
    }
    cfg.validate("command line")?;
    Ok(cfg)
}

/// The ROM, its display name and its address file, after identification.
pub fn load_game(cfg: &Config) -> anyhow::Result<(RomImage, String, AddressFile)> {
    let image = match cfg.rom_path() {
        Some(path) => RomImage::from_path(&path)?,
        None => rom::labcart().context("the built-in open test cartridge is missing; pass --rom PATH")?,
    };
    let source: AddressSource = source_from_setting(&cfg.play.addresses_dir, std::path::Path::new("."));
    let catalog = source.catalog()?;
    let mode = cfg.play.mode;
    let (name, file) = match catalog.identify(&image) {
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
    Ok((image, name, map))
}

/// Runs `puyobot play`.
pub fn run(args: &PlayArgs) -> anyhow::Result<()> {
    run_with(args, Players::Bots)
}

/// The trace writer of `--record FILE`, with the header filled in.
fn trace_writer(
    args: &PlayArgs,
    cfg: &Config,
    image: &RomImage,
    players: Players,
) -> anyhow::Result<Option<TraceWriter<std::io::BufWriter<std::fs::File>>>> {
    let Some(path) = &args.record else { return Ok(None) };
    let mut header = TraceHeader::for_rom(image);
    header.set("mode", cfg.play.mode.name());
    header.set(
        "players",
        match players {
            Players::Person => "keyboard",
            Players::Bots => "bot",
        },
    );
    header.set("menu", if cfg.play.menu { "script" } else { "person" });
    header.set("seed", &cfg.play.seed.to_string());
    header.set("speed", &cfg.play.speed.to_string());
    if let Ok(t) = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH) {
        header.set("recorded_unix_time", &t.as_secs().to_string());
    }
    Ok(Some(TraceWriter::create(path, &header)?))
}

/// Finishes a recording and says where it went.
fn finish_trace(recorder: &mut TraceRecorder<Emu>, args: &PlayArgs) -> anyhow::Result<()> {
    if let (Some(stats), Some(path)) = (recorder.finish()?, &args.record) {
        eprintln!("wrote {} ({} frames, {} bytes)", path.display(), stats.frames, stats.bytes);
    }
    Ok(())
}

/// Runs `puyobot play` (or `puyobot record`) with the pads pressed by `players`.
pub fn run_with(args: &PlayArgs, players: Players) -> anyhow::Result<()> {
    let mut cfg = merged_config(args)?;
    if players == Players::Person {
        if args.headless {
            bail!("--headless needs --bot: without a window nobody can press the keys");
        }
        cfg.play.menu = false;
    }
    if args.print_config {
        print!("{}", cfg.to_toml());
        return Ok(());
    }
    let only = cfg.play.calibrate == CalibrateMode::Only;
    if args.headless && !only && args.frames.is_none() && args.pieces.is_none() && args.games.is_none() {
        bail!("--headless needs --frames N, --pieces N or --games N");
    }
    if args.games == Some(0) {
        bail!("--games 0: a match needs at least one game");
    }
    let (image, name, map) = load_game(&cfg)?;
    let borrowed = mode_files(&cfg, &image)?;
    let mode = cfg.play.mode;
    let calibration = OnlineCalibration::new(&map, cfg.play.calibrate);
    log::info!("{name}: {} ({})", map.meta.name, if map.meta.verified { "verified" } else { "unverified" });
    let mut seats = seats_for(mode, &map, &cfg.seat_config()).map_err(anyhow::Error::msg)?;
    if players == Players::Person {
        seats.iter_mut().filter(|s| s.pad == 0).for_each(|s| s.bot_on = false);
    }
    let trace = trace_writer(args, &cfg, &image, players)?;
    let rom = LearnedRom { name: image.name.clone(), crc32: image.hash.crc32.clone(), sha1: image.hash.sha1.clone() };
    if args.headless || only {
        let limits = Limits {
            frames: args.frames.or(only.then_some(ONLY_FRAMES)),
            pieces: args.pieces,
            stop_at_game_over: cfg.play.stop_at_game_over,
            games: args.games,
            until_calibrated: only,
        };
        let (mut session, summary) = run_headless(&cfg, &image, &name, map, seats, limits, trace)?;
        finish_trace(session.machine_mut().inner_mut().inner_mut(), args)?;
        let run = HeadlessRun::of(&session, &summary);
        if only && !args.json {
            print!("{}", summary.calibration.to_text());
        } else if args.json {
            println!("{}", run.json);
        } else {
            print!("{}", summary.to_text());
            println!("ram hash {}  faults injected {}", run.ram_hash, run.faults_injected);
        }
        if let Some(path) = &args.save_inputs {
            let replay = Replay {
                version: REPLAY_VERSION,
                rom_sha1: image.hash.sha1.clone(),
                rom_name: image.name.clone(),
                seed: cfg.play.seed,
                frames: args.frames,
                pieces: args.pieces,
                games: args.games,
                ram_hash: run.ram_hash.clone(),
                config: cfg.to_toml(),
                pads: encode_pads(session.machine().inner().log()),
            };
            replay.save(path)?;
            eprintln!("wrote {}", path.display());
        }
        write_learned(&session, args, &cfg, &rom, &borrowed)?;
        if summary.stalled {
            return Err(crate::play::RunError::Stalled(crate::play::headless::STALL_FRAMES).into());
        }
        if let Some(f) = &summary.health.failure {
            return Err(crate::play::RunError::Health(f.clone()).into());
        }
        if only && summary.calibration.state != "settled" {
            bail!("calibration did not settle: {}", summary.calibration.to_text().trim());
        }
        return Ok(());
    }
    let machine = TraceRecorder::new(Emu::new(&image, false)?, trace);
    let mut session = Session::new(machine, map, mode, seats, cfg.play.menu);
    session.set_calibration(calibration, &image.hash.sha1);
    session.set_seed(cfg.play.seed);
    // In the window a match goes on game after game, and a menu the script cannot walk is the person's.
    session.set_restart(cfg.play.menu);
    session.set_manual_menu_fallback(true);
    let result = run_window(session, &cfg, &name, args.frames);
    let mut session = result?;
    finish_trace(session.machine_mut(), args)?;
    write_learned(&session, args, &cfg, &rom, &borrowed)
}

/// A headless session on a recording, fault-injecting host, run to `limits`; `trace` records every frame
/// the console runs.
pub fn run_headless(
    cfg: &Config,
    image: &RomImage,
    name: &str,
    map: AddressFile,
    seats: Vec<crate::play::Seat>,
    limits: Limits,
    trace: Option<TraceWriter<std::io::BufWriter<std::fs::File>>>,
) -> anyhow::Result<(Session<HeadlessMachine>, Summary)> {
    let calibration = OnlineCalibration::new(&map, cfg.play.calibrate);
    let spec = FaultSpec::parse(&cfg.play.faults).map_err(|m| anyhow::anyhow!("--faults / play.faults: {m}"))?;
    let console = TraceRecorder::new(Emu::new(image, true)?, trace);
    let machine = FaultyPads::new(Recorder::new(console, false), spec, cfg.play.seed);
    let mut session = Session::new(machine, map, cfg.play.mode, seats, cfg.play.menu);
    session.set_calibration(calibration, &image.hash.sha1);
    session.set_seed(cfg.play.seed);
    let summary = headless::run(&mut session, limits, name, cfg.play.seed, cfg.play.speed)?;
    Ok((session, summary))
}

/// Frames a `--calibrate only` run may take (ten minutes of game time).
const ONLY_FRAMES: u64 = 36_000;

/// The address file of each mode for this ROM: its catalogue entry's, or for an unknown ROM the ones it
/// borrows (the configured file for every mode, or the first catalogue entry's).
fn mode_files(cfg: &Config, image: &RomImage) -> anyhow::Result<ModeFiles> {
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
fn write_learned<M: Machine>(
    session: &Session<M>,
    args: &PlayArgs,
    cfg: &Config,
    rom: &LearnedRom,
    borrowed: &ModeFiles,
) -> anyhow::Result<()> {
    let Some(dir) = &args.write_addresses else { return Ok(()) };
    let Some(cal) = session.calibration() else {
        bail!("--write-addresses needs calibration (it is off: --calibrate off or play.calibrate = \"off\")");
    };
    let source: AddressSource = source_from_setting(&cfg.play.addresses_dir, std::path::Path::new("."));
    let written = write_address_folder(dir, rom, cal.learner(), &source, borrowed)?;
    for p in written {
        eprintln!("wrote {}", p.display());
    }
    Ok(())
}

fn run_window(
    session: Session<TraceRecorder<Emu>>,
    cfg: &Config,
    name: &str,
    max_frames: Option<u64>,
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
        max_frames,
        screenshot_on_exit: std::env::var_os("PUYOBOT_SCREENSHOT_ON_EXIT").map(PathBuf::from),
        key_script: match std::env::var_os("PUYOBOT_KEY_SCRIPT") {
            Some(path) => crate::ui::key_script::KeyScript::from_file(std::path::Path::new(&path))?,
            None => Default::default(),
        },
        ..WindowOptions::default()
    };
    let mut view = crate::ui::session_view::WindowSession::new(session);
    run_window(&mut view, opts)?;
    Ok(view.session)
}

/// What a headless run reports beyond the summary: the final RAM hash and the faults injected.
#[derive(Debug, Clone)]
pub struct HeadlessRun {
    /// Final RAM hash, 16 hex digits.
    pub ram_hash: String,
    /// Faults the host injected.
    pub faults_injected: u32,
    /// The summary as JSON with `ram_hash`, `faults_injected` and `faults` (by kind) added.
    pub json: String,
}

impl HeadlessRun {
    /// Reads the machine after a run.
    pub fn of(session: &Session<HeadlessMachine>, summary: &Summary) -> HeadlessRun {
        let machine = session.machine();
        let ram_hash = format!("{:016x}", ram_hash(machine.ram()));
        let counts = machine.counts();
        let mut value = serde_json::to_value(summary).unwrap_or_default();
        if let Some(obj) = value.as_object_mut() {
            obj.insert("ram_hash".into(), ram_hash.clone().into());
            obj.insert("faults_injected".into(), counts.total().into());
            obj.insert("faults".into(), serde_json::to_value(counts).unwrap_or_default());
        }
        let json = serde_json::to_string_pretty(&value).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"));
        HeadlessRun { ram_hash, faults_injected: counts.total(), json }
    }
}
