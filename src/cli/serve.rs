//! `puyobot serve` and `puyobot play --emulator fceux`: the engine for an emulator script (plugins/,
//! docs/plugins.md). This module reads the flags, listens, starts FCEUX when asked, and prints; the game
//! is `play::serve`, the link `emu::remote`.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use clap::Args;

use crate::calib::{CalibrateMode, LearnedRom};
use crate::config::{Config, Mode};
use crate::emu::remote::{Listener, Pending};
use crate::play::flight::FlightRecorder;
use crate::play::serve::Served;
use crate::play::{Limits, seats_for};
use crate::trace::TraceRecorder;

use super::args::{RunLimits, SessionArgs, in_order, worded};
use super::play::{Emulator, PlayArgs, Players};
use super::play_args::WindowArgs;

/// The FCEUX script, built in so that `play --emulator fceux` works from any folder.
pub const FCEUX_SCRIPT: &str = include_str!("../../plugins/fceux.lua");

/// Arguments of `puyobot serve`.
#[derive(Debug, Clone, Args)]
#[command(mut_args(in_order(SERVE_ORDER)), mut_args(worded(SERVE_TEXTS)))]
pub struct ServeArgs {
    /// Address and port to listen on for the emulator's script.
    #[arg(long, default_value = "127.0.0.1:7460")]
    pub listen: SocketAddr,
    /// Allow --listen on an address other than loopback: anyone who can reach it can connect.
    #[arg(long)]
    pub allow_remote: bool,
    /// Seconds to wait for each message of the emulator before the run stops as silent.
    #[arg(long, default_value_t = 10.0)]
    pub timeout: f64,
    /// Seconds to wait for an emulator to connect (default: until one does, or Ctrl-C).
    #[arg(long)]
    pub wait: Option<f64>,
    /// What `serve` shares with `play`: the same flags, merged into the configuration the same way.
    #[command(flatten)]
    pub session: SessionArgs,
}

/// The order `serve --help` lists the flags in.
const SERVE_ORDER: &[&str] = &[
    "listen",
    "allow_remote",
    "timeout",
    "wait",
    "mode",
    "speed",
    "strength",
    "seed",
    "json",
    "record",
    "calibrate",
    "addresses",
    "config",
    "p1_ai",
    "p2_ai",
    "fast",
    "frames",
    "pieces",
    "games",
    "long_game_pieces",
    "no_menu",
    "allow_unknown_rom",
    "write_addresses",
];

/// `serve`'s own words for the flags it shares with `play`.
const SERVE_TEXTS: &[(&str, &str)] = &[
    ("strength", "Bot strength 0..=10, of both bots (7) or of player 1 and player 2 (3,10)"),
    ("seed", "Seed for the bots and the menu script's deal; recorded in the output"),
    ("record", "Record the run to a trace file (every frame's pads and RAM changes)"),
    ("calibrate", "Self-calibration: auto, off or only (as `play`)"),
    ("p1_ai", "Bot for player 1 (overrides [bots] p1)"),
    ("p2_ai", "Bot for player 2 (overrides [bots] p2)"),
    ("fast", "The `two-ply` AI profile (as `play --fast`)"),
    ("frames", "Stop after N frames"),
    ("pieces", "Stop once a player has locked N pieces"),
    ("games", "Play N games (the address file's [restart] script starts each next one), then stop"),
    ("no_menu", "Do not walk the menus: leave them to the person at the emulator"),
    ("allow_unknown_rom", "Play a ROM whose hash is not in addresses/roms.toml"),
];

/// Runs `puyobot serve`: waits for one emulator, plays its game, prints the report.
pub fn run(args: &ServeArgs) -> anyhow::Result<()> {
    if !args.listen.ip().is_loopback() {
        if !args.allow_remote {
            bail!(
                "--listen {}: not a loopback address; anyone who can reach it could connect. Add --allow-remote \
                 to listen there anyway, or use 127.0.0.1:PORT",
                args.listen
            );
        }
        eprintln!(
            "warning: listening on {}, which other machines may reach; puyobot plays with the first emulator that connects",
            args.listen
        );
    }
    if !(args.timeout > 0.0 && args.timeout.is_finite()) {
        bail!("--timeout {}: give a number of seconds above 0", args.timeout);
    }
    // The flags `play` has and `serve` does not are left at their defaults.
    let play = PlayArgs { session: args.session.clone(), ..PlayArgs::default() };
    let cfg = prepare(&play)?;
    let listener = Listener::bind(args.listen).with_context(|| format!("cannot listen on {}", args.listen))?;
    let addr = listener.local_addr()?;
    eprintln!(
        "puyobot serve: listening on {addr}; load plugins/fceux.lua (or the Mesen 2 / BizHawk script) in the emulator"
    );
    crate::interrupt::install();
    let deadline = args.wait.map(|s| Instant::now() + Duration::from_secs_f64(s.max(0.0)));
    let mut give_up = || {
        if crate::interrupt::requested() {
            return Some("interrupted while waiting for an emulator".to_string());
        }
        deadline.filter(|d| Instant::now() > *d).map(|_| format!("no emulator connected to {addr} in time (--wait)"))
    };
    let pending = listener.accept(Duration::from_secs_f64(args.timeout), &mut give_up)?;
    serve(pending, listener, &play, cfg)
}

/// The merged configuration, checked for what a served run cannot do.
fn prepare(args: &PlayArgs) -> anyhow::Result<Config> {
    let mut cfg = super::play::merged_config(args)?;
    if cfg.play.mode == Mode::VsHuman {
        // The person plays pad 1 at the emulator and walks its menus there.
        cfg.play.menu = false;
    }
    let run = &args.session.limits;
    if run.games == Some(0) || run.pieces == Some(0) || run.frames == Some(0) {
        bail!("--games, --pieces and --frames need at least 1");
    }
    if run.given().len() > 1 {
        bail!("--frames, --pieces and --games each end the run; give one of them");
    }
    super::play::check_outputs(args.recording()?, &args.session.addresses)?;
    Ok(cfg)
}

/// Plays the game of a connected emulator: identifies its ROM (refusing an unknown one, as `play` does),
/// welcomes it, turns others away, runs the session, writes the trace and prints the report.
fn serve(pending: Pending, listener: Listener, args: &PlayArgs, cfg: Config) -> anyhow::Result<()> {
    let (pending, (image, name, map)) = identify_or_refuse(pending, &cfg)?;
    let mode = cfg.play.mode;
    let seat_cfg = if mode == Mode::VsHuman { cfg.window_seat_config() } else { cfg.seat_config() };
    let seats = seats_for(mode, &map, &seat_cfg).map_err(anyhow::Error::msg)?;
    let drive = pads_to_drive(&seats, cfg.play.menu);
    // A person at the emulator's pad 1 makes a run nobody can play again from its seed.
    let players = if mode == Mode::VsHuman { Players::Person } else { Players::Bots };
    let run = &args.session.limits;
    let trace = super::play::trace_writer(args.recording()?, run, &cfg, &image, players, true)?;
    let emulator = pending.hello.emulator.clone();
    let peer = pending.peer().to_string();
    eprintln!("{emulator} connected from {peer}: {name}, {mode}");
    let remote = pending.welcome(&drive, &format!("{name}, {mode}"))?;
    listener.refuse_others(format!("{emulator} from {peer}"));
    let flight =
        super::bug_report::recorder(&cfg, run.games, || super::play::trace_header(run, &cfg, &image, players, true));
    let machine = TraceRecorder::new(remote, trace);
    let machine = match &flight {
        Some(f) => machine.with_ring(f.ring()),
        None => machine,
    };
    let options = crate::play::GameOptions { seats: seat_cfg, ..cfg.game_options() };
    let mut session = options.session(machine, map, seats, &image.hash.sha1).build()?;
    let served = crate::play::serve::run(&mut session, served_limits(run, &cfg), &name, cfg.play.seed, cfg.play.speed);
    super::play::finish_trace(session.machine_mut(), args.recording()?)?;
    let rom = LearnedRom { name: image.name.clone(), crc32: image.hash.crc32.clone(), sha1: image.hash.sha1.clone() };
    let borrowed = super::play::mode_files(&cfg, &image)?;
    let ctx = super::bug_report::Context { cfg: &cfg, rom: &rom, borrowed: &borrowed };
    let bundle = flight.as_ref().and_then(|f| {
        f.note(&session);
        served_bug_report(f, &ctx, &served, run.pieces)
    });
    let learner = session.calibration().map(|c| c.learner());
    let write_to = args.session.addresses.write_addresses.as_deref();
    super::play::write_learned(learner, write_to, &cfg, &rom, &borrowed)?;
    report(&served, args.session.output.json, bundle.as_ref());
    served_outcome(served)
}

/// The ROM image, display name and address file of the emulator's game ([`super::play::identify`]); an
/// emulator whose ROM cannot be read or is refused is told why.
fn identify_or_refuse(
    pending: Pending,
    cfg: &Config,
) -> anyhow::Result<(Pending, (crate::emu::RomImage, String, crate::memmap::AddressFile))> {
    let image = match pending.rom_image() {
        Ok(i) => i,
        Err(e) => {
            pending.refuse(&e.to_string());
            return Err(e.into());
        }
    };
    match super::play::identify(cfg, &image) {
        Ok((name, map)) => Ok((pending, (image, name, map))),
        Err(e) => {
            pending.refuse(&super::error_text(&e));
            Err(e)
        }
    }
}

/// The pads puyobot drives (1-based): those of the bots, and pad 1 when the menu script walks the menus.
fn pads_to_drive(seats: &[crate::play::Seat], menu: bool) -> Vec<u8> {
    let mut drive: Vec<u8> = seats.iter().filter(|s| s.bot_on).map(|s| s.pad as u8 + 1).collect();
    if menu {
        drive.push(1); // the menu script presses pad 1
    }
    drive.sort_unstable();
    drive.dedup();
    drive
}

/// The limits of a served run: `--games N` in a row, else until `--frames`/`--pieces`, the game's end or
/// the emulator stopping.
fn served_limits(run: &RunLimits, cfg: &Config) -> Limits {
    match run.games {
        Some(n) => Limits {
            games: Some(n),
            stop_at_game_over: true,
            long_game_pieces: cfg.play.long_game_limit(),
            ..Limits::default()
        },
        None => Limits {
            // Without a limit the run goes on until the game is over or the emulator stops.
            frames: Some(run.frames.unwrap_or(u64::MAX)),
            pieces: run.pieces,
            stop_at_game_over: cfg.lab.stop_at_game_over,
            games: None,
            until_calibrated: cfg.play.calibrate == CalibrateMode::Only,
            long_game_pieces: None,
        },
    }
}

/// The bug report of a served run that stopped short (or failed), when one is written.
fn served_bug_report(
    flight: &FlightRecorder,
    ctx: &super::bug_report::Context,
    served: &Served,
    pieces: Option<u32>,
) -> Option<PathBuf> {
    let stop = match &served.error {
        Some(e) => Some((super::bug_report::stop_of_run_error(e), e.to_string())),
        None => super::bug_report::stop_of_outcome(&served.summary, flight, ctx.cfg, pieces),
    };
    stop.and_then(|(reason, message)| {
        let report = serde_json::to_value(&served.summary).ok();
        super::bug_report::write(flight, ctx, reason, &message, report)
    })
}

/// A served run that failed, stalled, failed its health checks or had a long 2P game is an error.
fn served_outcome(served: Served) -> anyhow::Result<()> {
    if let Some(e) = served.error {
        return Err(e.into());
    }
    let summary = &served.summary;
    if summary.stalled {
        bail!(crate::play::RunError::Stalled(crate::play::headless::STALL_FRAMES));
    }
    if let Some(f) = &summary.health.failure {
        bail!(crate::play::RunError::Health(f.clone()));
    }
    super::play::long_games_outcome(summary)
}

/// Prints the report: JSON (the headless report with `remote` and, when the run failed, `error`) or text.
fn report(served: &Served, json: bool, bundle: Option<&std::path::PathBuf>) {
    if json {
        let mut value = serde_json::to_value(&served.summary).unwrap_or_default();
        if let Some(obj) = value.as_object_mut() {
            obj.insert("remote".into(), serde_json::to_value(&served.link).unwrap_or_default());
            if let Some(b) = bundle {
                obj.insert("bug_report".into(), b.display().to_string().into());
            }
            if let Some(e) = &served.error {
                obj.insert("error".into(), e.to_string().into());
            }
        }
        println!("{}", serde_json::to_string_pretty(&value).unwrap_or_default());
    } else {
        print!("{}", served.summary.to_text());
        let l = &served.link;
        let q = |q: Option<crate::play::serve::Quantiles>| {
            q.map(|q| format!("median {:.3} ms, p99 {:.3} ms", q.median, q.p99)).unwrap_or_else(|| "none".into())
        };
        println!(
            "{} ({}): {} frames, round trip {}, engine {}",
            l.emulator,
            l.peer,
            l.frames,
            q(l.round_trip_ms),
            q(l.engine_ms)
        );
        println!("{}", l.end);
    }
}

/// `puyobot play --emulator fceux [ROM]`: starts FCEUX with the built-in script on a private port and
/// serves it. With a run limit (--pieces, --frames, --games) FCEUX closes when the run ends.
pub fn run_with_emulator(args: &PlayArgs, emulator: Emulator) -> anyhow::Result<()> {
    let Emulator::Fceux = emulator;
    let cfg = prepare(args)?;
    let listener = Listener::bind(SocketAddr::from(([127, 0, 0, 1], 0))).context("cannot listen on 127.0.0.1")?;
    let port = listener.local_addr()?.port();
    let dir = std::env::temp_dir().join(format!("puyobot-fceux-{}", std::process::id()));
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let script = dir.join("puyobot.lua");
    std::fs::write(&script, FCEUX_SCRIPT).with_context(|| format!("cannot write {}", script.display()))?;
    let rom = match cfg.rom_path() {
        Some(p) => p,
        None => {
            let p = dir.join("puyolab.nes");
            std::fs::write(&p, crate::emu::rom::LABCART).with_context(|| format!("cannot write {}", p.display()))?;
            p
        }
    };
    let exit_on_stop = !args.session.limits.given().is_empty();
    let log_path = dir.join("fceux.log");
    let mut child = start_fceux(&script, &rom, port, &args.window, exit_on_stop, &log_path)?;
    crate::interrupt::install();
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut give_up = || {
        if crate::interrupt::requested() {
            return Some("interrupted while waiting for FCEUX".to_string());
        }
        if Instant::now() > deadline {
            return Some(format!(
                "FCEUX's script did not connect within 60 s (is LuaSocket installed?); FCEUX's output is in {}",
                log_path.display()
            ));
        }
        match child.try_wait() {
            Ok(Some(status)) => Some(format!(
                "FCEUX exited ({status}) before its script connected; its output is in {}",
                log_path.display()
            )),
            _ => None,
        }
    };
    let result = listener
        .accept(Duration::from_secs(30), &mut give_up)
        .map_err(anyhow::Error::from)
        .and_then(|pending| serve(pending, listener, args, cfg));
    if exit_on_stop || result.is_err() {
        // The script closes FCEUX when told the run ended; one that does not within 10 s is ended.
        let deadline = Instant::now() + Duration::from_secs(10);
        while matches!(child.try_wait(), Ok(None)) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(50));
        }
        if matches!(child.try_wait(), Ok(None)) {
            let _ = child.kill();
            let _ = child.wait();
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
    result
}

/// Starts FCEUX (`$PUYOBOT_FCEUX`, else `fceux` on the PATH, else /usr/games/fceux) with the script.
fn start_fceux(
    script: &Path,
    rom: &Path,
    port: u16,
    window: &WindowArgs,
    exit_on_stop: bool,
    log_path: &Path,
) -> anyhow::Result<Child> {
    let speed = match window.emu_speed {
        None | Some(crate::emu::EmuSpeed::X1) | Some(crate::emu::EmuSpeed::Half) => "normal",
        Some(crate::emu::EmuSpeed::X2) | Some(crate::emu::EmuSpeed::X4) => "turbo",
        Some(crate::emu::EmuSpeed::Max) => "maximum",
    };
    let log = std::fs::File::create(log_path).with_context(|| format!("cannot write {}", log_path.display()))?;
    let candidates: Vec<String> = match std::env::var("PUYOBOT_FCEUX") {
        Ok(p) if !p.is_empty() => vec![p],
        _ => vec!["fceux".into(), "/usr/games/fceux".into()],
    };
    let mut last = None;
    for exe in &candidates {
        let mut cmd = Command::new(exe);
        if window.mute {
            cmd.args(["--sound", "0"]);
        }
        cmd.arg("--loadlua").arg(script).arg(rom);
        cmd.env("PUYOBOT_PORT", port.to_string()).env("PUYOBOT_SPEED", speed);
        if exit_on_stop {
            cmd.env("PUYOBOT_EXIT_ON_STOP", "1");
        }
        // FCEUX prints the ROM's details on stdout, which is the report's; its output goes to a log.
        cmd.stdin(Stdio::null()).stdout(log.try_clone()?).stderr(log.try_clone()?);
        match cmd.spawn() {
            Ok(child) => return Ok(child),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => last = Some(e),
            Err(e) => return Err(e).with_context(|| format!("cannot start {exe}")),
        }
    }
    bail!(
        "FCEUX was not found ({}): install it (Debian: apt-get install fceux lua-socket) or set PUYOBOT_FCEUX to its path",
        last.map(|e| e.to_string()).unwrap_or_default()
    )
}
