//! Soak runs: AI-vs-AI games back to back for a wall-clock time, sampling memory, speed, mismatches and
//! panics at a fixed interval, so a long run can show that nothing grows or drifts.
//!
//! The runner knows nothing of ROMs or configuration: it asks a closure for a fresh session per game, so
//! the command line (and the tests) decide what is played. Each game runs under `catch_unwind`: a panic is
//! counted and reported, and the soak goes on with the next game.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::emu::Machine;

use super::session::Session;

/// Seconds of play after which memory must stay flat, in a run long enough for it (the search's fixed
/// caches fill during the first games).
const WARMUP_SECS: f64 = 30.0;
/// How a soak runs.
#[derive(Clone, Debug)]
pub struct SoakOptions {
    /// Total wall-clock time.
    pub duration: Duration,
    /// Time between samples.
    pub sample_every: Duration,
    /// Frames per second to pace the emulator to (`None`: as fast as the machine goes).
    pub pace_fps: Option<f64>,
    /// Frames a single game may run before it is abandoned (a stuck game is reported, not waited on).
    pub max_game_frames: u64,
}

/// One sample of a soak run.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SoakSample {
    /// Seconds since the soak started.
    pub seconds: f64,
    /// Resident memory of the process, KiB (0 where `/proc` is unavailable).
    pub rss_kib: u64,
    /// Frames per second since the previous sample.
    pub fps: f64,
    /// Frames emulated so far.
    pub frames: u64,
    /// Games finished so far.
    pub games: u64,
    /// Model-versus-RAM mismatches so far.
    pub mismatches: u64,
    /// Panics caught so far.
    pub panics: u64,
}

/// The end of a soak run.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SoakReport {
    /// Every sample, in order.
    pub samples: Vec<SoakSample>,
    /// Games finished (a winner, a top-out, or abandoned at the frame cap).
    pub games: u64,
    /// Games that hit `max_game_frames` without an outcome.
    pub abandoned: u64,
    /// Wins per seat label, e.g. `{"P1": 40, "P2": 38}` as pairs.
    pub wins: Vec<(String, u64)>,
    /// Largest chain seen per seat label.
    pub largest_chain: Vec<(String, u32)>,
    /// Frames emulated.
    pub frames: u64,
    /// Model-versus-RAM mismatches.
    pub mismatches: u64,
    /// Panics caught (each ends its game).
    pub panics: u64,
    /// The first panic's message, if any.
    pub first_panic: Option<String>,
    /// Errors that ended a game early (the emulator failed, or a session could not be made).
    pub errors: Vec<String>,
    /// Last sample's memory over the first post-warm-up sample's, when both exist.
    pub memory_ratio: Option<f64>,
    /// An interrupt (Ctrl-C, SIGTERM) ended the soak before its time.
    pub interrupted: bool,
}

impl SoakReport {
    /// The memory ratio after warm-up: the last sample over the first sample taken after `warmup`.
    fn memory_ratio(samples: &[SoakSample], warmup: f64) -> Option<f64> {
        let first = samples.iter().find(|s| s.seconds >= warmup && s.rss_kib > 0)?;
        let last = samples.last()?;
        (last.seconds > first.seconds).then(|| last.rss_kib as f64 / first.rss_kib as f64)
    }
}

/// Resident memory of this process in KiB, from `/proc/self/status` (0 where unavailable).
pub fn resident_kib() -> u64 {
    let Ok(text) = std::fs::read_to_string("/proc/self/status") else { return 0 };
    text.lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or(0)
}

/// Running totals while the soak goes on.
#[derive(Default)]
struct Totals {
    frames: u64,
    games: u64,
    abandoned: u64,
    mismatches: u64,
    panics: u64,
    first_panic: Option<String>,
    errors: Vec<String>,
    wins: Vec<(String, u64)>,
    largest: Vec<(String, u32)>,
}

impl Totals {
    fn add_win(&mut self, label: &str) {
        match self.wins.iter_mut().find(|(l, _)| l == label) {
            Some((_, n)) => *n += 1,
            None => self.wins.push((label.to_string(), 1)),
        }
    }

    fn add_chain(&mut self, label: &str, chain: u32) {
        match self.largest.iter_mut().find(|(l, _)| l == label) {
            Some((_, c)) => *c = (*c).max(chain),
            None => self.largest.push((label.to_string(), chain)),
        }
    }
}

/// Samples at a fixed interval and paces frames.
struct Clock {
    start: Instant,
    next_sample: Duration,
    last_frames: u64,
    last_at: Duration,
    pace_start: Instant,
    paced_frames: u64,
}

impl Clock {
    /// A clock starting now.
    fn new() -> Clock {
        let now = Instant::now();
        Clock {
            start: now,
            next_sample: Duration::ZERO,
            last_frames: 0,
            last_at: Duration::ZERO,
            pace_start: now,
            paced_frames: 0,
        }
    }
}

/// Runs games from `new_game(index)` until `options.duration` has passed or an interrupt asks to stop,
/// calling `on_sample` with each sample as it is taken (for live output).
pub fn run<M: Machine>(
    options: &SoakOptions,
    mut new_game: impl FnMut(u64) -> anyhow::Result<Session<M>>,
    mut on_sample: impl FnMut(&SoakSample),
) -> SoakReport {
    let mut totals = Totals::default();
    let mut samples = Vec::new();
    let mut clock = Clock::new();
    let mut take_sample = |clock: &mut Clock, totals: &Totals, samples: &mut Vec<SoakSample>| {
        let at = clock.start.elapsed();
        let dt = (at - clock.last_at).as_secs_f64();
        let fps = if dt > 0.0 { (totals.frames - clock.last_frames) as f64 / dt } else { 0.0 };
        let s = SoakSample {
            seconds: at.as_secs_f64(),
            rss_kib: resident_kib(),
            fps,
            frames: totals.frames,
            games: totals.games,
            mismatches: totals.mismatches,
            panics: totals.panics,
        };
        on_sample(&s);
        samples.push(s);
        clock.last_frames = totals.frames;
        clock.last_at = at;
        clock.next_sample += options.sample_every;
    };
    take_sample(&mut clock, &totals, &mut samples);

    let mut game = 0u64;
    while clock.start.elapsed() < options.duration && !crate::interrupt::requested() {
        let session = match new_game(game) {
            Ok(s) => s,
            Err(e) => {
                totals.errors.push(format!("game {game}: {e:#}"));
                break; // the same closure would fail again: nothing to soak
            }
        };
        let result = catch_unwind(AssertUnwindSafe(|| {
            play_one(session, options, &mut clock, &mut totals, &mut samples, &mut take_sample)
        }));
        if let Err(panic) = result {
            totals.panics += 1;
            let msg = panic_text(&*panic);
            log::error!("soak: game {game} panicked: {msg}");
            totals.first_panic.get_or_insert(msg);
        }
        totals.games += 1;
        game += 1;
    }
    if clock.start.elapsed() - clock.last_at >= Duration::from_secs(1) {
        take_sample(&mut clock, &totals, &mut samples);
    }
    totals.report(samples, options)
}

impl Totals {
    /// The report of a run that took `samples`.
    fn report(self, samples: Vec<SoakSample>, options: &SoakOptions) -> SoakReport {
        // Warm-up: a tenth of the run, and at least WARMUP_SECS (up to half a short run): the full search's
        // evaluation cache is a fixed table whose pages become resident as it fills, over the first games.
        let total = options.duration.as_secs_f64();
        let warmup = (total * 0.1).max(WARMUP_SECS.min(total * 0.5)).max(options.sample_every.as_secs_f64());
        SoakReport {
            memory_ratio: SoakReport::memory_ratio(&samples, warmup),
            samples,
            games: self.games,
            abandoned: self.abandoned,
            wins: self.wins,
            largest_chain: self.largest,
            frames: self.frames,
            mismatches: self.mismatches,
            panics: self.panics,
            first_panic: self.first_panic,
            errors: self.errors,
            interrupted: crate::interrupt::requested(),
        }
    }
}

/// A panic's message (a `String` or `&str` payload).
fn panic_text(panic: &(dyn std::any::Any + Send)) -> String {
    panic
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| "a panic without a message".into())
}

/// Plays one game to its outcome (or the frame cap, or the end of the soak).
fn play_one<M: Machine>(
    mut session: Session<M>,
    options: &SoakOptions,
    clock: &mut Clock,
    totals: &mut Totals,
    samples: &mut Vec<SoakSample>,
    take_sample: &mut impl FnMut(&mut Clock, &Totals, &mut Vec<SoakSample>),
) {
    session.run_unattended(false, false);
    let start_frames = session.frames();
    let mut counted_mismatches = 0u64;
    loop {
        if let Err(e) = session.step_frame() {
            totals.errors.push(format!("emulator: {e}"));
            break;
        }
        totals.frames += 1;
        let mismatches: u64 = session.seats.iter().map(|s| s.stats.mismatches).sum();
        totals.mismatches += mismatches - counted_mismatches;
        counted_mismatches = mismatches;
        if let Some(fps) = options.pace_fps {
            clock.paced_frames += 1;
            let due = clock.pace_start + Duration::from_secs_f64(clock.paced_frames as f64 / fps);
            let now = Instant::now();
            if due > now {
                std::thread::sleep(due - now);
            } else if now - due > Duration::from_secs(1) {
                // Far behind (a slow moment): do not race to catch up.
                clock.pace_start = now;
                clock.paced_frames = 0;
            }
        }
        if clock.start.elapsed() >= clock.next_sample {
            take_sample(clock, totals, samples);
        }
        if let Some(out) = &session.outcome {
            if let Some(w) = &out.winner {
                totals.add_win(w);
            }
            break;
        }
        if session.frames() - start_frames >= options.max_game_frames {
            totals.abandoned += 1;
            log::warn!("soak: a game reached {} frames without an outcome; abandoned", options.max_game_frames);
            break;
        }
        if clock.start.elapsed() >= options.duration || crate::interrupt::requested() {
            break;
        }
    }
    for seat in &session.seats {
        totals.add_chain(&seat.label, seat.stats.largest_chain);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(seconds: f64, rss_kib: u64) -> SoakSample {
        SoakSample { seconds, rss_kib, fps: 0.0, frames: 0, games: 0, mismatches: 0, panics: 0 }
    }

    #[test]
    fn memory_ratio_compares_the_last_sample_with_the_first_after_warm_up() {
        let s = [sample(0.0, 100), sample(10.0, 200), sample(20.0, 220), sample(30.0, 210)];
        assert_eq!(SoakReport::memory_ratio(&s, 5.0), Some(210.0 / 200.0));
        assert_eq!(SoakReport::memory_ratio(&s, 40.0), None, "no sample after the warm-up");
        assert_eq!(SoakReport::memory_ratio(&s[..2], 5.0), None, "one sample is no trend");
    }

    #[test]
    fn resident_memory_is_read_on_linux() {
        if std::path::Path::new("/proc/self/status").exists() {
            assert!(resident_kib() > 0);
        }
    }
}
