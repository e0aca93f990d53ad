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
use crate::play::serve::Served;
use crate::play::{Limits, seats_for};
use crate::trace::TraceRecorder;

use super::play::{Emulator, PlayArgs, Players};

/// The FCEUX script, built in so that `play --emulator fceux` works from any folder.
pub const FCEUX_SCRIPT: &str = include_str!("../../plugins/fceux.lua");

/// Arguments of `puyobot serve`.
#[derive(Debug, Clone, Args)]
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
    /// Game mode.
    #[arg(long, value_enum)]
    pub mode: Option<Mode>,
    /// Bot speed, 0 (slow, human-paced) to 10 (as fast as the game accepts).
    #[arg(long, value_parser = clap::value_parser!(u8).range(0..=10))]
    pub speed: Option<u8>,
    /// Bot strength 0..=10, of both bots (7) or of player 1 and player 2 (3,10).
    #[arg(long, value_parser = crate::ai::Levels::parse)]
    pub strength: Option<crate::ai::Levels>,
    /// Seed for the bots and the menu script's deal; recorded in the output.
    #[arg(long)]
    pub seed: Option<u64>,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
    /// Record the run to a trace file (every frame's pads and RAM changes).
    #[arg(long, value_name = "FILE")]
    pub record: Option<PathBuf>,
    /// Self-calibration: auto, off or only (as `play`).
    #[arg(long, value_enum)]
    pub calibrate: Option<CalibrateMode>,
    /// Folder of address files to use instead of the built-in copies.
    #[arg(long)]
    pub addresses: Option<PathBuf>,
    /// Configuration file (default: ./config.toml when it exists, else the user's config.toml).
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// Bot for player 1 (overrides [bots] p1).
    #[arg(long, value_parser = super::bot_spec::check_bot)]
    pub p1_ai: Option<String>,
    /// Bot for player 2 (overrides [bots] p2).
    #[arg(long, value_parser = super::bot_spec::check_bot)]
    pub p2_ai: Option<String>,
    /// The `two-ply` AI profile (as `play --fast`).
    #[arg(long)]
    pub fast: bool,
    /// Stop after N frames.
    #[arg(long)]
    pub frames: Option<u64>,
    /// Stop once a player has locked N pieces.
    #[arg(long)]
    pub pieces: Option<u32>,
    /// Play N games (the address file's [restart] script starts each next one), then stop.
    #[arg(long)]
    pub games: Option<u32>,
    /// Do not walk the menus: leave them to the person at the emulator.
    #[arg(long)]
    pub no_menu: bool,
    /// Play a ROM whose hash is not in addresses/roms.toml.
    #[arg(long)]
    pub allow_unknown_rom: bool,
    /// After the run, write what calibration learned as a complete address folder.
    #[arg(long, value_name = "DIR")]
    pub write_addresses: Option<PathBuf>,
}

impl ServeArgs {
    /// The same choices as `play` flags, so the configuration merges the same way.
    fn play_args(&self) -> PlayArgs {
        PlayArgs {
            mode: self.mode,
            speed: self.speed,
            strength: self.strength,
            seed: self.seed,
            json: self.json,
            record: self.record.clone(),
            calibrate: self.calibrate,
            addresses: self.addresses.clone(),
            config: self.config.clone(),
            p1_ai: self.p1_ai.clone(),
            p2_ai: self.p2_ai.clone(),
            fast: self.fast,
            frames: self.frames,
            pieces: self.pieces,
            games: self.games,
            no_menu: self.no_menu,
            allow_unknown_rom: self.allow_unknown_rom,
            write_addresses: self.write_addresses.clone(),
            ..PlayArgs::default()
        }
    }
}

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
    let play = args.play_args();
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
    if args.games == Some(0) || args.pieces == Some(0) || args.frames == Some(0) {
        bail!("--games, --pieces and --frames need at least 1");
    }
    if [args.frames.is_some(), args.pieces.is_some(), args.games.is_some()].iter().filter(|b| **b).count() > 1 {
        bail!("--frames, --pieces and --games each end the run; give one of them");
    }
    super::play::check_outputs(args)?;
    Ok(cfg)
}

/// Plays the game of a connected emulator: identifies its ROM (refusing an unknown one, as `play` does),
/// welcomes it, turns others away, runs the session, writes the trace and prints the report.
fn serve(pending: Pending, listener: Listener, args: &PlayArgs, cfg: Config) -> anyhow::Result<()> {
    let image = match pending.rom_image() {
        Ok(i) => i,
        Err(e) => {
            pending.refuse(&e.to_string());
            return Err(e.into());
        }
    };
    let (name, map) = match super::play::identify(&cfg, &image) {
        Ok(found) => found,
        Err(e) => {
            pending.refuse(&super::error_text(&e));
            return Err(e);
        }
    };
    let mode = cfg.play.mode;
    let seat_cfg = if mode == Mode::VsHuman { cfg.window_seat_config() } else { cfg.seat_config() };
    let seats = seats_for(mode, &map, &seat_cfg).map_err(anyhow::Error::msg)?;
    let mut drive: Vec<u8> = seats.iter().filter(|s| s.bot_on).map(|s| s.pad as u8 + 1).collect();
    if cfg.play.menu {
        drive.push(1); // the menu script presses pad 1
    }
    drive.sort_unstable();
    drive.dedup();
    // A person at the emulator's pad 1 makes a run nobody can play again from its seed.
    let players = if mode == Mode::VsHuman { Players::Person } else { Players::Bots };
    let trace = super::play::trace_writer(args, &cfg, &image, players, true)?;
    let emulator = pending.hello.emulator.clone();
    let peer = pending.peer().to_string();
    eprintln!("{emulator} connected from {peer}: {name}, {mode}");
    let remote = pending.welcome(&drive, &format!("{name}, {mode}"))?;
    listener.refuse_others(format!("{emulator} from {peer}"));
    let flight =
        super::bug_report::recorder(&cfg, args.games, || super::play::trace_header(args, &cfg, &image, players, true));
    let machine = TraceRecorder::new(remote, trace);
    let machine = match &flight {
        Some(f) => machine.with_ring(f.ring()),
        None => machine,
    };
    let options = crate::play::GameOptions { seats: seat_cfg, ..cfg.game_options() };
    let mut session = options.session(machine, map, seats, &image.hash.sha1).build()?;
    let limits = match args.games {
        Some(n) => Limits { games: Some(n), stop_at_game_over: true, ..Limits::default() },
        None => Limits {
            // Without a limit the run goes on until the game is over or the emulator stops.
            frames: Some(args.frames.unwrap_or(u64::MAX)),
            pieces: args.pieces,
            stop_at_game_over: cfg.lab.stop_at_game_over,
            games: None,
            until_calibrated: cfg.play.calibrate == CalibrateMode::Only,
        },
    };
    let served = crate::play::serve::run(&mut session, limits, &name, cfg.play.seed, cfg.play.speed);
    if let (Some(stats), Some((_, path))) = (session.machine_mut().finish()?, super::play::recording(args)?) {
        eprintln!("wrote {} ({} frames, {} bytes)", path.display(), stats.frames, stats.bytes);
    }
    let rom = LearnedRom { name: image.name.clone(), crc32: image.hash.crc32.clone(), sha1: image.hash.sha1.clone() };
    let borrowed = super::play::mode_files(&cfg, &image)?;
    let bundle = flight.as_ref().and_then(|f| {
        f.note(&session);
        let stop = match &served.error {
            Some(e) => Some((super::bug_report::stop_of_run_error(e), e.to_string())),
            None => super::bug_report::stop_of_outcome(&served.summary, f, &cfg, args.pieces),
        };
        let ctx = super::bug_report::Context { cfg: &cfg, rom: &rom, borrowed: &borrowed };
        stop.and_then(|(reason, message)| {
            let report = serde_json::to_value(&served.summary).ok();
            super::bug_report::write(f, &ctx, reason, &message, report)
        })
    });
    super::play::write_learned(session.calibration().map(|c| c.learner()), args, &cfg, &rom, &borrowed)?;
    report(&served, args.json, bundle.as_ref());
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
    Ok(())
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
    let exit_on_stop = args.frames.is_some() || args.pieces.is_some() || args.games.is_some();
    let log_path = dir.join("fceux.log");
    let mut child = start_fceux(&script, &rom, port, args, exit_on_stop, &log_path)?;
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
    args: &PlayArgs,
    exit_on_stop: bool,
    log_path: &Path,
) -> anyhow::Result<Child> {
    let speed = match args.emu_speed {
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
        if args.mute {
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
