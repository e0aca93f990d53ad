//! Headless runs on the emulator (`puyobot play --headless`, `puyobot replay`): one game, or a match of
//! `--games N` games, each from its own power-on, played on `--jobs J` threads (one emulator each) and
//! merged into one report. Each game runs through [`run_game`].
//!
//! Game `k` (0-based) of a run with seed `S` is exactly the one-game run with seed `S + k`: the bots, the
//! pad faults and the menu script's `seed_wait` all draw from that seed. A game's result therefore does
//! not depend on the number of threads or on the order in which games finish, and any game of a match
//! can be played again on its own (`--seed S+k --games 1`).

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use crate::calib::Learner;
use crate::emu::faults::{FaultCounts, FaultSpec, FaultyPads};
use crate::emu::{Emu, Machine, RomImage};
use crate::memmap::AddressFile;
use crate::trace::{TraceRecorder, TraceStats, TraceWriter};

use super::flight::FlightRecorder;
use super::headless::{Limits, RunError, run_observed};
use super::matches::Tally;
use super::options::{ColorsReport, ItemsReport};
use super::report::{CpuFigures, HealthReport, Summary};
use super::session::Session;
use super::setup::GameOptions;

/// The machine of a headless run: pad faults on top, then the recorder next to the console (so the
/// trace, and the pad log a replay check compares, hold exactly what the console was given).
pub type HeadlessMachine = FaultyPads<TraceRecorder<Emu>>;

/// The trace file a run is recorded to.
pub type TraceFile = TraceWriter<std::io::BufWriter<std::fs::File>>;

/// What a front end shows of a run's progress (a progress bar); every method does nothing by default.
pub trait Progress: Sync {
    /// A one-game run reached `position`: its frame, or with a piece limit the most pieces a player locked.
    fn position(&self, _position: u64) {}
    /// A game of a match ended; `tally` gives the wins so far (`p1 3  p2 1`).
    fn game_done(&self, _tally: &str) {}
}

/// No progress shown.
impl Progress for () {}

/// What a headless run plays.
pub struct Plan<'a> {
    /// The game's settings (its seed is the run's seed `S`).
    pub options: &'a GameOptions,
    /// The cartridge.
    pub image: &'a RomImage,
    /// The cartridge's name for the report.
    pub name: &'a str,
    /// The address file of the mode.
    pub map: &'a AddressFile,
    /// The limits of one game of a match, or of the whole run when `games` is `None`.
    pub limits: Limits,
    /// `--games N`: a match of N games, each to its end.
    pub games: Option<u32>,
    /// Threads that play games at once (a single-game run uses one).
    pub jobs: usize,
    /// Pad faults between the bots and the console (seeded by each game's seed).
    pub faults: FaultSpec,
    /// Where progress goes: games of a match, else frames or pieces.
    pub progress: &'a dyn Progress,
    /// Keep the pads of every frame the console receives ([`Outcome::pads`]), for a replay check.
    pub pad_log: bool,
    /// The flight recorder, fed the frames of the first game and told how it ended.
    pub flight: Option<&'a FlightRecorder>,
}

/// What one game leaves once its session is gone.
#[derive(Clone, Debug)]
pub struct GameRun {
    /// The game's own report.
    pub summary: Summary,
    /// The pads of every frame the console received (empty unless the plan asked for them).
    pub pads: Vec<[u8; 2]>,
    /// The final RAM.
    pub ram: Box<[u8; 2048]>,
    /// Faults injected.
    pub faults: FaultCounts,
    /// CPU time of each seat's searches.
    pub bot_cpu: Vec<(String, Duration)>,
    /// What calibration learned (when it was on).
    pub learner: Option<Learner>,
    /// The trace written, when the game was recorded.
    pub trace: Option<TraceStats>,
}

/// A whole headless run, merged.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// The report of the whole run.
    pub summary: Summary,
    /// Hash of the final RAM (for a match: of every game's final RAM, in order), 16 hex digits.
    pub ram_hash: String,
    /// Faults injected over the run.
    pub faults: FaultCounts,
    /// The report as JSON, with `ram_hash`, `faults_injected` and `faults` added.
    pub json: String,
    /// The pads the console received, game after game, when the plan asked for them (else empty).
    pub pads: Vec<[u8; 2]>,
    /// What the first game's calibration learned.
    pub learner: Option<Learner>,
    /// The trace written, when the run was recorded.
    pub trace: Option<TraceStats>,
}

/// Plays one game of `plan` with `options` (the run's, or one game's of a match) on `machine` from
/// power-on: makes its seats and session and runs it to the plan's limits ([`run_observed`], calling
/// `observe` after every frame). Returns the session (with its machine, for what the caller reads
/// afterwards) and the report.
pub fn run_game<M: Machine>(
    machine: M,
    plan: &Plan<'_>,
    options: &GameOptions,
    observe: &mut dyn FnMut(&Session<M>),
) -> Result<(Session<M>, Summary), RunError> {
    let (session, result) = run_game_kept(machine, plan, options, observe)?;
    Ok((session, result?))
}

/// [`run_game`], keeping the session also when the run fails once it has begun (the flight recorder
/// reads what calibration learned from it). The outer error is a session that could not be made.
pub fn run_game_kept<M: Machine>(
    machine: M,
    plan: &Plan<'_>,
    options: &GameOptions,
    observe: &mut dyn FnMut(&Session<M>),
) -> Result<(Session<M>, Result<Summary, RunError>), RunError> {
    let seats = super::seats_for(options.mode, plan.map, &options.seats).map_err(RunError::Seats)?;
    let mut session = options.session(machine, plan.map.clone(), seats, &plan.image.hash.sha1).build()?;
    session.choose_rules(&options.rules)?;
    let result = run_observed(&mut session, plan.limits, plan.name, options.seed(), options.seats.speed, observe);
    Ok((session, result))
}

/// Plays game `k` of the run (seed `S + k`) from power-on; `trace` records it.
pub fn play_game(
    plan: &Plan<'_>,
    k: u32,
    trace: Option<TraceFile>,
    observe: &mut dyn FnMut(&Session<HeadlessMachine>),
) -> anyhow::Result<GameRun> {
    let options = plan.options.with_seed(plan.options.seed().wrapping_add(u64::from(k)));
    let console = TraceRecorder::new(Emu::new(plan.image, true)?, trace);
    let console = if plan.pad_log { console.with_pad_log() } else { console };
    let flight = plan.flight.filter(|_| k == 0);
    let console = match flight {
        Some(f) => console.with_ring(f.ring()),
        None => console,
    };
    let machine = FaultyPads::new(console, plan.faults, options.seed());
    let (mut session, result) = run_game_kept(machine, plan, &options, observe)?;
    if let Some(f) = flight {
        f.note(&session);
    }
    let summary = result?;
    let trace = session.machine_mut().inner_mut().finish()?;
    let machine = session.machine();
    Ok(GameRun {
        pads: machine.inner().pad_log().map(<[_]>::to_vec).unwrap_or_default(),
        ram: Box::new(*machine.ram()),
        faults: machine.counts(),
        bot_cpu: session.seats.iter().map(|s| (s.label.clone(), s.stats.think_cpu)).collect(),
        learner: session.calibration().map(|c| c.learner().clone()),
        trace,
        summary,
    })
}

/// Plays the run: one game on this thread, or a match on `plan.jobs` threads; `trace` records the first
/// game. After an interrupt no new game starts, the games under way stop at their next frame, and the
/// report covers what was played (`interrupted`).
pub fn run(plan: &Plan<'_>, trace: Option<TraceFile>) -> anyhow::Result<Outcome> {
    let start = Instant::now();
    let cpu_start = crate::sim::process_cpu_ns();
    let games = plan.games.unwrap_or(1).max(1);
    let runs = if plan.games.is_none() {
        let mut observe = |s: &Session<HeadlessMachine>| {
            if s.frames().is_multiple_of(30) {
                let pos = match plan.limits.pieces {
                    Some(_) => s.seats.iter().map(|p| u64::from(p.stats.pieces)).max().unwrap_or(0),
                    None => s.frames(),
                };
                plan.progress.position(pos);
            }
        };
        vec![play_game(plan, 0, trace, &mut observe)?]
    } else {
        play_match(plan, games, trace)?
    };
    let cpu = match (cpu_start, crate::sim::process_cpu_ns()) {
        (Some(a), Some(b)) => Some(Duration::from_nanos(b.saturating_sub(a))),
        _ => None,
    };
    Ok(merge(plan, runs, start.elapsed(), cpu))
}

/// Plays games `0..games` on up to `plan.jobs` threads; returns the games begun, in order. The first
/// error (in game order) wins; it stops the other threads at their next game.
fn play_match(plan: &Plan<'_>, games: u32, trace: Option<TraceFile>) -> anyhow::Result<Vec<GameRun>> {
    let next = AtomicUsize::new(0);
    let failed = AtomicBool::new(false);
    let results: Mutex<Vec<(u32, anyhow::Result<GameRun>)>> = Mutex::new(Vec::new());
    let trace = Mutex::new(trace);
    let tally = Mutex::new(std::collections::BTreeMap::<String, u32>::new());
    let workers = plan.jobs.clamp(1, games as usize);
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| {
                loop {
                    if crate::interrupt::requested() || failed.load(Ordering::Relaxed) {
                        break;
                    }
                    let k = next.fetch_add(1, Ordering::SeqCst);
                    if k >= games as usize {
                        break;
                    }
                    let k = k as u32;
                    let writer = if k == 0 { trace.lock().ok().and_then(|mut t| t.take()) } else { None };
                    let r = play_game(plan, k, writer, &mut |_| {});
                    match &r {
                        Ok(run) => {
                            if let Ok(mut t) = tally.lock() {
                                for g in &run.summary.games {
                                    *t.entry(g.winner.clone().unwrap_or_else(|| g.result.word().into()))
                                        .or_insert(0) += 1;
                                }
                                let line: Vec<String> = t.iter().map(|(w, n)| format!("{w} {n}")).collect();
                                plan.progress.game_done(&line.join("  "));
                            }
                        }
                        Err(_) => failed.store(true, Ordering::Relaxed),
                    }
                    if let Ok(mut all) = results.lock() {
                        all.push((k, r));
                    }
                }
            });
        }
    });
    let mut all = results.into_inner().unwrap_or_else(|e| e.into_inner());
    all.sort_by_key(|(k, _)| *k);
    all.into_iter().map(|(_, r)| r).collect()
}

/// FNV-1a over the final RAM of every game, in order (for one game: [`crate::emu::ram_hash`] of it).
fn ram_hash_of<'a>(rams: impl Iterator<Item = &'a [u8; 2048]>) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for ram in rams {
        for &b in ram.iter() {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    format!("{h:016x}")
}

/// One report for the games of `runs` (game `k` of the match is `runs[k]`).
fn merge(plan: &Plan<'_>, runs: Vec<GameRun>, wall: Duration, cpu: Option<Duration>) -> Outcome {
    let interrupted = crate::interrupt::requested() || runs.iter().any(|r| r.summary.interrupted);
    let mut faults = FaultCounts::default();
    for r in &runs {
        faults.dropped += r.faults.dropped;
        faults.delayed += r.faults.delayed;
        faults.extra += r.faults.extra;
    }
    let ram_hash = ram_hash_of(runs.iter().map(|r| &*r.ram));
    let mut summary = if plan.games.is_none() {
        let mut s = runs.first().map(|r| r.summary.clone()).unwrap_or_else(|| empty_summary(plan));
        s.interrupted = interrupted;
        s
    } else {
        match_summary(plan, &runs, wall, cpu, interrupted)
    };
    summary.profile = plan.options.profile.clone();
    let json = report_json(&summary, &ram_hash, faults);
    Outcome {
        summary,
        ram_hash,
        faults,
        json,
        pads: runs.iter().flat_map(|r| r.pads.iter().copied()).collect(),
        learner: runs.first().and_then(|r| r.learner.clone()),
        trace: runs.first().and_then(|r| r.trace),
    }
}

/// The report of a run that played no frame (an interrupt before the first game).
fn empty_summary(plan: &Plan<'_>) -> Summary {
    Summary {
        rom: plan.name.to_string(),
        mode: plan.options.mode.to_string(),
        seed: plan.options.seed(),
        speed: plan.options.seats.speed,
        profile: plan.options.profile.clone(),
        frames: 0,
        seconds: 0.0,
        fps: 0.0,
        realtime_factor: 0.0,
        bot_time_share: 0.0,
        bot_think_seconds: 0.0,
        cpu: None,
        winner: None,
        game_over: false,
        stalled: false,
        interrupted: true,
        players: Vec::new(),
        calibration: Learner::new(plan.map, crate::calib::CalibrateMode::Off).report(),
        health: HealthReport::empty(),
        items: None,
        colors: None,
        tally: Tally::default(),
        games: Vec::new(),
        wrong_mode_games: Vec::new(),
    }
}

/// The report of a match: totals over the games, each game numbered by its place in the run; winner
/// and game over are the last game's.
fn match_summary(
    plan: &Plan<'_>,
    runs: &[GameRun],
    wall: Duration,
    cpu: Option<Duration>,
    interrupted: bool,
) -> Summary {
    let mut s = empty_summary(plan);
    s.interrupted = interrupted;
    let Some(last) = runs.last() else { return s };
    let seconds = wall.as_secs_f64().max(1e-9);
    s.frames = runs.iter().map(|r| r.summary.frames).sum();
    s.seconds = seconds;
    s.fps = s.frames as f64 / seconds;
    s.realtime_factor = s.fps / crate::emu::NES_FPS;
    let game_secs: f64 = runs.iter().map(|r| r.summary.seconds).sum();
    s.bot_time_share =
        runs.iter().map(|r| r.summary.bot_time_share * r.summary.seconds).sum::<f64>() / game_secs.max(1e-9);
    s.bot_think_seconds = runs.iter().map(|r| r.summary.bot_think_seconds).sum();
    let mut bot_cpu: Vec<(String, Duration)> = last.bot_cpu.iter().map(|(l, _)| (l.clone(), Duration::ZERO)).collect();
    for r in runs {
        for (i, (_, t)) in r.bot_cpu.iter().enumerate() {
            if let Some(slot) = bot_cpu.get_mut(i) {
                slot.1 += *t;
            }
        }
    }
    s.cpu = cpu.and_then(|c| CpuFigures::of(s.frames, c, &bot_cpu));
    s.winner = last.summary.winner.clone();
    s.game_over = last.summary.game_over;
    s.stalled = runs.iter().any(|r| r.summary.stalled);
    s.calibration = last.summary.calibration.clone();
    s.health = HealthReport::merged(runs.iter().map(|r| &r.summary.health));
    s.items = ItemsReport::merged(runs.iter().filter_map(|r| r.summary.items.as_ref()));
    s.colors = ColorsReport::merged(runs.iter().filter_map(|r| r.summary.colors.as_ref()));
    if s.health.failure.is_some() {
        s.calibration.overruled_by_health();
    }
    s.players = last.summary.players.clone();
    for (i, p) in s.players.iter_mut().enumerate() {
        let each = || runs.iter().filter_map(move |r| r.summary.players.get(i));
        p.pieces = each().map(|q| q.pieces).sum();
        p.chains = each().map(|q| q.chains).sum();
        p.largest_chain = each().map(|q| q.largest_chain).max().unwrap_or(0);
        p.score = each().map(|q| q.score).sum();
        if let Some(c) = p.checked.as_mut() {
            c.checks = each().map(|q| q.checks()).sum();
        }
        p.mismatches = each().map(|q| q.mismatches).sum();
        if let Some(w) = p.bot_work.as_mut() {
            let works = || each().filter_map(|q| q.bot_work.as_ref());
            w.decisions = works().map(|q| q.decisions).sum();
            w.think_ms_total = works().map(|q| q.think_ms_total).sum();
            w.replans = works().map(|q| q.replans).sum();
            w.off_plan = works().map(|q| q.off_plan).sum();
            w.calibration_surprises = works().map(|q| q.calibration_surprises).sum();
        }
    }
    for (k, r) in runs.iter().enumerate() {
        for g in &r.summary.games {
            let mut g = g.clone();
            g.game = k as u32 + 1;
            s.games.push(g);
        }
        s.wrong_mode_games.extend(r.summary.wrong_mode_games.iter().cloned());
    }
    let labels: Vec<String> = s.players.iter().map(|p| p.label.clone()).collect();
    s.tally = Tally::of(&labels, &s.games);
    s.health.renumber_long_games(&s.games);
    s
}

/// The report as JSON with the machine's figures added: `ram_hash`, `faults_injected`, `faults`.
pub fn report_json(summary: &Summary, ram_hash: &str, faults: FaultCounts) -> String {
    let mut value = serde_json::to_value(summary).unwrap_or_default();
    if let Some(obj) = value.as_object_mut() {
        obj.insert("ram_hash".into(), ram_hash.into());
        obj.insert("faults_injected".into(), faults.total().into());
        obj.insert("faults".into(), serde_json::to_value(faults).unwrap_or_default());
    }
    serde_json::to_string_pretty(&value).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
}
