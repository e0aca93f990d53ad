//! `puyobot replay FILE`: shows a recorded run in the window (when a display is available), or checks it
//! (`--headless`, `--json`, or no display). A headless run of the bots is run again and must come out bit
//! for bit the same: the pads of every frame, the final RAM hash and the JSON report (timings aside).
//! Any other trace (a window, a person's keys) has its pads fed to a fresh console, whose RAM must equal
//! the trace's on every frame. `--gif OUT` writes a clip of the game picture instead. The file is a trace
//! (`play --record`) or a replay file of older versions ([`super::replay_file`]).

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use clap::Args;

use crate::config::Config;
use crate::emu::faults::FaultSpec;
use crate::emu::{Emu, EmuSpeed, Machine, RomImage, ram_hash, rom};
use crate::play::Limits;
use crate::play::games;
use crate::ui::Viewable;
use crate::ui::clip::{GifClip, gif_frames};
use crate::ui::replay_view::ReplayView;

use super::args::{JsonArg, worded};
use super::output;
use super::play::load_game;
use super::replay_file::{self, Check, Recorded};

/// Arguments of `puyobot replay`.
#[derive(Debug, Clone, Args)]
#[command(mut_args(worded(&[("json", "Print the report as JSON (checks the replay without a window)")])))]
pub struct ReplayArgs {
    /// The recording: a trace written by `puyobot play --record FILE` (or `puyobot record`), or a replay
    /// file of older versions.
    pub file: PathBuf,
    /// The ROM, when the one named in the file's configuration is elsewhere (its hash must match).
    #[arg(long)]
    pub rom: Option<PathBuf>,
    /// `--json`.
    #[command(flatten)]
    pub output: JsonArg,
    /// No window: check the recording (a headless bot run is run again: pads, final RAM hash and report
    /// must match; any other trace is played back: RAM must match on every frame). Also what happens when
    /// no display is available.
    #[arg(long)]
    pub headless: bool,
    /// Print the bots' decisions the recording holds, one a line (`frame 1234  P1  FIRE 4: 30 = CAP ->
    /// x3:Up`), and nothing else: no window, no check.
    #[arg(long, conflicts_with_all = ["headless", "json", "gif"])]
    pub decisions: bool,
    /// In the window: close it after N emulated frames.
    #[arg(long, value_name = "N", conflicts_with_all = ["headless", "json", "gif"])]
    pub frames: Option<u64>,
    /// Emulator speed in the window (default: play.emu_speed of the configuration).
    #[arg(long, value_enum, conflicts_with_all = ["headless", "json", "gif"])]
    pub emu_speed: Option<EmuSpeed>,
    /// Configuration file for the window's keys, sound and controllers (default: ./config.toml when it
    /// exists, else the user's config.toml; the game itself follows the file's recorded configuration).
    #[arg(long, conflicts_with_all = ["headless", "json", "gif"])]
    pub config: Option<PathBuf>,
    /// Write the game picture (256x240, no HUD) of frames --from..=--to as an animated GIF, at the game's
    /// speed (every second frame, 30 a second); no window, no check.
    #[arg(long, value_name = "OUT.gif", conflicts_with_all = ["headless", "json"])]
    pub gif: Option<PathBuf>,
    /// First frame of the GIF, counted from 1 (the first frame after power-on); default 1.
    #[arg(long, value_name = "F", requires = "gif")]
    pub from: Option<u64>,
    /// Last frame of the GIF (included); default the replay's last.
    #[arg(long, value_name = "F", requires = "gif")]
    pub to: Option<u64>,
    /// In the window: deliver the key presses of FILE (`FRAME KEY down|up` per line) on their frames, as
    /// `puyobot play --key-script` does (docs/window.md).
    #[arg(long, value_name = "FILE", conflicts_with_all = ["headless", "json", "gif"])]
    pub key_script: Option<PathBuf>,
    /// In the window: when it closes, for any reason, write a PNG of the whole window at 1x scale to FILE.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["headless", "json", "gif"])]
    pub screenshot_on_exit: Option<PathBuf>,
}

/// Runs `puyobot replay`: the GIF, the window, or the check.
pub fn run(args: &ReplayArgs) -> anyhow::Result<()> {
    if args.decisions {
        return print_decisions(&args.file);
    }
    if let Some(out) = &args.gif {
        output::check_file("--gif", out)?;
    }
    let mut rec = replay_file::load(&args.file)?;
    let clip = args.gif.as_ref().map(|out| clip_range(args, rec.pads.len() as u64).map(|r| (out, r))).transpose()?;
    let watch = clip.is_none() && !args.headless && !args.output.json;
    if (clip.is_some() || watch) && rec.games > 1 {
        bail!(
            "{}: key `games`: the file holds {} games, each from its own power-on; the window and --gif show \
             one power-on (record a run of --games 1, or --frames N); --headless checks it",
            args.file.display(),
            rec.games
        );
    }
    if (clip.is_some() || watch) && rec.first_frame > 0 {
        bail!(
            "{}: it starts at frame {} of its run (the tail of a bug report), and the window and --gif play from              power-on; watch the bundle's start.trace, or check this one with --headless",
            args.file.display(),
            rec.first_frame
        );
    }
    let (cfg, image) = recorded_game(args, &rec)?;
    let log = std::mem::take(&mut rec.pads);
    if let Some((out, (from, to))) = clip {
        return write_gif(args, out, &image, log, from, to);
    }
    if watch {
        if display_available() {
            return watch_window(args, &rec, &image, log);
        }
        eprintln!("no display (DISPLAY and WAYLAND_DISPLAY are unset): checking the replay instead of showing it");
    }
    match rec.check.clone() {
        Check::Rerun { frames, pieces, games } => {
            check(args, &rec, &log, cfg, image, Limits { frames, pieces, games, ..Limits::default() })
        }
        Check::Playback => check_playback(args, &rec, &image),
    }
}

/// Whether a window can be opened: an X11 or Wayland display is named.
fn display_available() -> bool {
    ["DISPLAY", "WAYLAND_DISPLAY"].iter().any(|v| std::env::var_os(v).is_some_and(|d| !d.is_empty()))
}

/// The frames of the clip, 1-based and inclusive, checked against the replay's `len` frames.
fn clip_range(args: &ReplayArgs, len: u64) -> anyhow::Result<(u64, u64)> {
    let from = args.from.unwrap_or(1);
    let to = args.to.unwrap_or(len);
    if from == 0 {
        bail!("--from 0: frames count from 1 (the first frame after power-on)");
    }
    if to > len {
        bail!("--to {to}: {} has {len} frames", args.file.display());
    }
    if from > to {
        bail!("--from {from} is after --to {to}; give --from F --to T with F <= T");
    }
    Ok((from, to))
}

/// The recorded run's configuration (the file's `config`, with `--rom`; the defaults for a trace that
/// holds none) and its ROM, whose hash must be the file's.
fn recorded_game(args: &ReplayArgs, rec: &Recorded) -> anyhow::Result<(Config, RomImage)> {
    let label = format!("{} (key `config`)", args.file.display());
    let mut cfg = match &rec.config {
        Some(text) => Config::parse(&label, text)?,
        None => Config::default(),
    };
    if let Some(r) = &args.rom {
        cfg.play.rom = r.display().to_string();
    }
    let image = match cfg.rom_path() {
        Some(p) => RomImage::from_path(&p)?,
        None => rom::labcart().context("the built-in open test cartridge is missing; pass --rom PATH")?,
    };
    if !image.hash.sha1.eq_ignore_ascii_case(&rec.rom_sha1) {
        bail!(
            "{}: {}: the run was recorded on {} (SHA-1 {}), but {} has SHA-1 {}; pass --rom PATH",
            args.file.display(),
            if rec.is_trace { "header field `rom_sha1`" } else { "key `rom_sha1`" },
            rec.rom_name,
            rec.rom_sha1,
            image.name,
            image.hash.sha1
        );
    }
    Ok((cfg, image))
}

/// `--gif OUT`: plays the pads up to frame `to` and writes the pictures of frames `from..=to`.
fn write_gif(
    args: &ReplayArgs,
    out: &Path,
    image: &RomImage,
    log: Vec<[u8; 2]>,
    from: u64,
    to: u64,
) -> anyhow::Result<()> {
    let file = std::fs::File::create(out).with_context(|| format!("--gif {}: cannot create it", out.display()))?;
    let mut clip = GifClip::new(std::io::BufWriter::new(file))?;
    let mut view = ReplayView::new(Emu::new(image, false)?, log);
    for frame in 1..=to {
        view.step_frame()?;
        if frame >= from {
            clip.push(view.frame_rgba())?;
        }
    }
    let written = clip.frames();
    debug_assert_eq!(written, gif_frames(to - from + 1));
    let mut w = clip.finish()?;
    std::io::Write::flush(&mut w).with_context(|| format!("--gif {}: writing it", out.display()))?;
    eprintln!(
        "wrote {} (frames {from} to {to} of {}: {written} pictures, 256x240)",
        out.display(),
        args.file.display()
    );
    Ok(())
}

/// Shows the replay in the window; at its end, checks the final RAM hash against the file.
fn watch_window(args: &ReplayArgs, rec: &Recorded, image: &RomImage, log: Vec<[u8; 2]>) -> anyhow::Result<()> {
    use crate::ui::{WindowOptions, run_window};
    let user = super::config_file::load(args.config.as_deref())?.config;
    let opts = WindowOptions {
        title: format!("puyobot - replay {}", args.file.display()),
        emu_speed: args.emu_speed.unwrap_or(user.play.emu_speed),
        keys: user.keys,
        audio: user.audio,
        gamepad: user.gamepad,
        max_frames: args.frames,
        screenshot_on_exit: args.screenshot_on_exit.clone(),
        key_script: match &args.key_script {
            Some(path) => crate::ui::key_script::KeyScript::from_file(path)?,
            None => Default::default(),
        },
        ..WindowOptions::default()
    };
    let mut view = ReplayView::new(Emu::new(image, false)?, log);
    run_window(&mut view, opts)?;
    eprintln!("watched {} of {} frames of {}", view.played(), view.len(), args.file.display());
    if view.finished()
        && let Some(want) = &rec.ram_hash
    {
        if view.ram_hash() != *want {
            bail!("the replay ended on RAM hash {}, but the file says {want}", view.ram_hash());
        }
        eprintln!("final RAM hash {want} matches the file");
    }
    Ok(())
}

/// The check of a headless bot run: runs the file's configuration again headless to `recorded` (the
/// file's frames, pieces and games) and compares pads, RAM hash and report.
fn check(
    args: &ReplayArgs,
    rec: &Recorded,
    log: &[[u8; 2]],
    cfg: Config,
    image: RomImage,
    recorded: Limits,
) -> anyhow::Result<()> {
    let (image, name, map) = load_game(&cfg).map(|(_, n, m)| (image, n, m))?;
    let faults = FaultSpec::parse(&cfg.lab.faults).map_err(|m| anyhow::anyhow!("lab.faults: {m}"))?;
    let options = cfg.game_options();
    let plan = games::Plan {
        options: &options,
        image: &image,
        name: &name,
        map: &map,
        limits: rerun_limits(&recorded, &cfg),
        games: recorded.games,
        jobs: 1,
        faults,
        progress: &(),
        pad_log: true,
        flight: None,
    };
    crate::interrupt::install();
    let run = match games::run(&plan, None) {
        Ok(run) => run,
        // A bug report's run that stopped with an error: the same error again is the stop reproduced.
        Err(e) => match &rec.stop {
            Some((reason, message)) if super::error_text(&e) == *message => {
                eprintln!("reproduced: the run stops again as recorded ({reason}): {message}");
                return Ok(());
            }
            _ => return Err(e),
        },
    };
    if run.summary.interrupted {
        bail!("interrupted before the end of the replay: nothing was checked");
    }
    compare_rerun(args, rec, log, &run)?;
    if args.output.json {
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

/// The limits of the run again: the file's frames, and its pieces or games (each game of a match runs to
/// its end; a trace's frame count still stops one cut short).
fn rerun_limits(recorded: &Limits, cfg: &Config) -> Limits {
    match recorded.games {
        Some(_) => Limits {
            frames: recorded.frames,
            pieces: None,
            stop_at_game_over: true,
            games: Some(1),
            until_calibrated: false,
            long_game_pieces: cfg.play.long_game_limit(),
        },
        None => Limits {
            frames: recorded.frames,
            pieces: recorded.pieces,
            stop_at_game_over: cfg.lab.stop_at_game_over,
            games: None,
            until_calibrated: false,
            long_game_pieces: None,
        },
    }
}

/// Refuses a run again whose pads or final RAM hash differ from the file's `log` and hash.
fn compare_rerun(args: &ReplayArgs, rec: &Recorded, log: &[[u8; 2]], run: &games::Outcome) -> anyhow::Result<()> {
    // A bug report's tail holds the run's last frames: compare them with the same frames of this run.
    let first = rec.first_frame as usize;
    let again = run.pads.get(first..).unwrap_or(&[]);
    if let Some(f) = (0..log.len().max(again.len())).find(|&i| log.get(i) != again.get(i)) {
        bail!(
            "the replay diverged at frame {}: the file has pads {}, this run pressed {} ({} vs {} frames)",
            first + f,
            pads_text(log.get(f)),
            pads_text(again.get(f)),
            first + log.len(),
            run.pads.len()
        );
    }
    match &rec.ram_hash {
        Some(want) if *want != run.ram_hash => {
            bail!("same pads but the final RAM hash differs: file {want}, this run {}", run.ram_hash)
        }
        Some(_) => {}
        None => {
            eprintln!("{} has no end record: the pads matched, the final RAM hash was not checked", args.file.display())
        }
    }
    if let Some((reason, message)) = &rec.stop {
        eprintln!("reproduced: the same frames and RAM up to the recorded stop ({reason}): {message}");
    }
    Ok(())
}

/// The check of a trace nothing can play again (a window run, a person's keys): feeds its pads to a fresh
/// console and compares RAM with the trace's at the start of every frame, then the final RAM hash.
fn check_playback(args: &ReplayArgs, rec: &Recorded, image: &RomImage) -> anyhow::Result<()> {
    if rec.first_frame > 0 {
        bail!(
            "{}: it starts at frame {} of its run, and only a headless run of the bots can be run again to              reach it; `puyobot calibrate` reads it, and the bundle's start.trace plays back from power-on",
            args.file.display(),
            rec.first_frame
        );
    }
    let mut reader = crate::trace::TraceReader::open(&args.file)?;
    let mut emu = Emu::new(image, true)?;
    let mut frames = 0u64;
    while let Some((pads, ram)) = reader.next_frame()? {
        if let Some(at) = (0..ram.len()).find(|&i| ram[i] != emu.ram()[i]) {
            bail!(
                "the replay diverged at frame {frames}: at its start RAM ${at:04X} is {:02X} in the file, {:02X} \
                 on the console fed the file's pads",
                ram[at],
                emu.ram()[at]
            );
        }
        emu.set_pads(pads);
        emu.clock_frame().with_context(|| format!("replaying frame {}", frames + 1))?;
        frames += 1;
    }
    let hash = format!("{:016x}", ram_hash(emu.ram()));
    match &rec.ram_hash {
        Some(want) if *want != hash => {
            bail!("same RAM on every frame but the final RAM hash differs: file {want}, this run {hash}")
        }
        Some(_) => {}
        None => eprintln!("{} has no end record: the final RAM hash was not checked", args.file.display()),
    }
    if args.output.json {
        let value = serde_json::json!({ "file": args.file.display().to_string(), "frames": frames, "ram_hash": hash,
            "check": "playback" });
        println!("{}", serde_json::to_string_pretty(&value)?);
    } else {
        println!("ram hash {hash}  (RAM matches the file on every frame, {frames} frames)");
    }
    Ok(())
}

/// One frame's pads as the replay file writes them (`P1P2` in hex, e.g. `4000`), or `none` past the end.
fn pads_text(pads: Option<&[u8; 2]>) -> String {
    pads.map_or("none (the run had ended)".to_string(), |p| format!("{:02X}{:02X}", p[0], p[1]))
}

/// `--decisions`: every note of the trace at `file`, in frame order.
fn print_decisions(file: &std::path::Path) -> anyhow::Result<()> {
    let mut r = crate::trace::TraceReader::open(file)?;
    while r.next_frame()?.is_some() {}
    if let Some(w) = r.end().and_then(|e| e.warning(&file.display().to_string())) {
        eprintln!("warning: {w}");
    }
    let first = r.header().get(crate::trace::FIRST_FRAME_KEY).and_then(|v| v.parse::<u64>().ok()).unwrap_or(0);
    for n in r.notes() {
        println!("frame {}  P{}  {}", first + n.frame, n.player + 1, n.text);
    }
    if r.notes().is_empty() {
        eprintln!("{}: no decisions recorded (a person played, or the file predates them)", file.display());
    }
    Ok(())
}
