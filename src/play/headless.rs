//! Running a session without a window, as fast as the machine goes, until a limit or the end of the game.
//!
//! [`super::games::run_game`] is the entry point of a front end: it takes what a run plays and a machine
//! (an emulator, a recorder around one, a console elsewhere), makes the seats and the session, and runs it
//! with [`run_observed`]. [`run`] runs a session the caller built itself (the tests do).

use std::time::{Duration, Instant};

use crate::emu::{EmuError, Machine};
use crate::memmap::Mode;

use super::health::{BIG_CHAIN, BIG_CHAIN_BY_PIECES, EARLY_TOP_OUT_PIECES, Fact, Failure, OFF_PLAN_TOP_OUT};
use super::report::Summary;
use super::session::{Session, SessionError};

/// Frames without a lock (and without a game over) after which a headless run gives up: 2 minutes of
/// game time (the longest chain and a restart's menus take a fraction of it).
pub const STALL_FRAMES: u64 = 7_200;

/// Frames a bot's piece may stay under control before a headless run stops naming it: a minute of game
/// time, several times what a pair takes to fall the whole field at the slowest gravity a game uses.
pub const STUCK_PIECE_FRAMES: u32 = 3_600;

/// When a headless run stops.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Limits {
    /// Stop after this many frames.
    pub frames: Option<u64>,
    /// Stop once a player has locked this many pieces.
    pub pieces: Option<u32>,
    /// Stop when the game is over (a top-out).
    pub stop_at_game_over: bool,
    /// Play this many games, starting each next one with the address file's `[restart]` script, then
    /// stop (overrides `stop_at_game_over`).
    pub games: Option<u32>,
    /// Stop once calibration has settled (and had a piece to see kicks) or failed (`--calibrate only`).
    pub until_calibrated: bool,
    /// With `games`: a 2P game in which a side locks this many pieces is ended as long
    /// ([`super::GameEnd::Long`]) and the run stops there (`--long-game-pieces`; `None`: no limit).
    pub long_game_pieces: Option<u32>,
}

/// Why a headless run failed.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The emulator stopped.
    #[error(transparent)]
    Emu(#[from] EmuError),
    /// The seats' bots could not be made (a bad name or profile).
    #[error("{0}")]
    Seats(String),
    /// The session could not be set up (an option the address file cannot honour).
    #[error(transparent)]
    Session(#[from] SessionError),
    /// The menus never reached the game.
    #[error("{0}")]
    Menu(String),
    /// No piece locked for a long time (the game is paused, stuck, or not what the address file says).
    #[error("no piece locked for {0} frames; stopping (is the game paused, or the address file wrong?)")]
    Stalled(u64),
    /// Calibration did not settle within its bound; the text says which fact and what to do.
    #[error("{0}")]
    Calibration(String),
    /// The contract stopped predicting the game and could not be learned again; the text names the
    /// fact, what was seen and what to do.
    #[error("health: {0}")]
    Health(String),
    /// Neither a frame nor a piece nor a game limit was given.
    #[error("a headless run needs --frames N, --pieces N or --games N")]
    NoLimit,
    /// `--games 0`.
    #[error("--games must be at least 1")]
    NoGames,
    /// More than one game was asked for, but the address file cannot start another.
    #[error("--games {0}: the address file has no [restart] script, so only one game can be played")]
    NoRestart(u32),
}

/// Runs until a limit; returns the report. `label` names the ROM in it. A run in which no piece locks for
/// [`STALL_FRAMES`] frames (and no game over explains it) stops there and returns its report with
/// `stalled` set, so that a caller can print what was played before it fails with [`RunError::Stalled`].
/// An interrupt ([`crate::interrupt`]) stops the run after the current frame, with `interrupted` set.
pub fn run<M: Machine>(
    session: &mut Session<M>,
    limits: Limits,
    label: &str,
    seed: u64,
    speed: u8,
) -> Result<Summary, RunError> {
    run_observed(session, limits, label, seed, speed, &mut |_| {})
}

/// [`run`], calling `observe` after every frame (a progress bar reads the session there).
pub fn run_observed<M: Machine>(
    session: &mut Session<M>,
    limits: Limits,
    label: &str,
    seed: u64,
    speed: u8,
    observe: &mut dyn FnMut(&Session<M>),
) -> Result<Summary, RunError> {
    check_limits(limits, session)?;
    // Headless games replay identically, report a health stop themselves, and a match restarts.
    session.run_unattended(true, limits.games.is_some());
    let start = Instant::now();
    let cpu_start = crate::sim::process_cpu_ns();
    let first = session.frames();
    let (mut last_total, mut last_change) = (0u32, first);
    let (mut stalled, mut interrupted) = (false, false);
    loop {
        if crate::interrupt::requested() {
            interrupted = true;
            break;
        }
        session.step_frame()?;
        observe(session);
        let frames = session.frames() - first;
        let total: u32 = session.seats.iter().map(|s| s.stats.pieces).sum();
        if total != last_total {
            (last_total, last_change) = (total, session.frames());
        } else if session.frames() - last_change > STALL_FRAMES {
            if session.outcome.is_some() && limits.games.is_none() {
                break; // the game is over and nobody starts another one
            }
            // Still learning when the pieces stopped: what calibration has not learned is the fact to
            // name, not a pause (a fast game tops out while its opening pieces are being read).
            if let Some(c) = session.calibration()
                && !c.settled()
            {
                return Err(RunError::Calibration(unsettled_stall_text(&c.report())));
            }
            // Stuck (paused, another game than the one asked for, a wrong address file): the run still
            // ends with its report, marked as stalled; the caller says so and fails.
            log::error!("{}", RunError::Stalled(STALL_FRAMES));
            stalled = true;
            break;
        }
        if session.in_menus()
            && let Some(e) = &session.menu_error
        {
            return Err(RunError::Menu(e.clone()));
        }
        check_stuck_piece(session);
        check_early_top_out(session, limits);
        if session.health_failure().is_some() {
            break; // the report says why; the caller fails after printing it
        }
        if check_long_game(session, limits) || limit_reached(limits, session, frames) {
            check_weak_game(session, limits);
            check_mismatched_end(session);
            break;
        }
        if let Some(c) = session.calibration()
            && c.failed()
        {
            return Err(RunError::Calibration(format!(
                "{}The bots do not play on an unsettled contract.",
                c.report().to_text()
            )));
        }
    }
    let cpu = match (cpu_start, crate::sim::process_cpu_ns()) {
        (Some(a), Some(b)) => Some(Duration::from_nanos(b.saturating_sub(a))),
        _ => None,
    };
    let mut summary = Summary::of(session, label, seed, speed, session.frames() - first, start.elapsed(), cpu);
    summary.stalled = stalled;
    summary.interrupted = interrupted;
    Ok(summary)
}

/// A bot's piece under control for [`STUCK_PIECE_FRAMES`] frames: the session's facts (the pose bytes,
/// the control flag, the game's timing) do not describe the game, and more frames will not help. Stops
/// the bots naming it, with what the seat saw.
fn check_stuck_piece<M: Machine>(session: &mut Session<M>) {
    let Some(s) = session.seats.iter().find(|s| s.bot_on && s.piece_frames() > STUCK_PIECE_FRAMES) else { return };
    let d = s.driver_stats();
    let seen = format!(
        "a piece stayed under control for {} frames without locking ({} re-plans, {} presses without effect \
         so far); {}",
        s.piece_frames(),
        d.replans,
        d.refused,
        match s.timing() {
            Some(t) => format!("played on {t}"),
            None => "no timing measured".to_string(),
        }
    );
    let failure = Failure { player: s.label.clone(), fact: Fact::Timing, seen };
    log::error!("{failure}");
    session.stop_with(failure);
}

/// An Endless game over before the pieces a run asked for, of a bot that aims at long chains
/// ([`super::Seat::aims_long_chains`]); or, for any bot and in a run without a piece count, within
/// [`EARLY_TOP_OUT_PIECES`] pieces, after [`OFF_PLAN_TOP_OUT`] pieces went off plan, on a clock that leaves
/// placements of an empty field out of reach, or on a field far from full
/// ([`super::health::SeatHealth::thin_top_out`]): not a normal game, or one the clock lost. Stops naming
/// what the seat's checks point at ([`super::health::SeatHealth::early_top_out`]). In a 2-player mode a
/// loss is a normal end, unless it came within [`EARLY_TOP_OUT_PIECES`] pieces on a thin field: the
/// opponent's nuisance did not fill it, the seat's own pairs stayed in the spawn column.
fn check_early_top_out<M: Machine>(session: &mut Session<M>, limits: Limits) {
    let wanted_more = limits.pieces.is_none_or(|n| n > EARLY_TOP_OUT_PIECES);
    if !wanted_more || session.health_failure().is_some() {
        return;
    }
    let endless = session.mode == Mode::Endless;
    let asked_more = |pieces: u32| limits.pieces.is_none_or(|n| n > pieces);
    let failed = |s: &&super::Seat| {
        let early = s.stats.pieces < EARLY_TOP_OUT_PIECES;
        s.bot_on
            && s.stats.topped_out
            && if endless {
                early
                    || (asked_more(s.stats.pieces)
                        && ((limits.pieces.is_some() && s.aims_long_chains())
                            || s.health.counts().off_plan >= OFF_PLAN_TOP_OUT
                            || s.health.clock_cuts_reach()
                            || s.health.thin_top_out()))
            } else {
                early && s.health.thin_top_out()
            }
    };
    let Some(s) = session.seats.iter().find(failed) else {
        return;
    };
    let failure = s.health.early_top_out(&s.label, s.stats.pieces);
    log::error!("{failure}");
    session.stop_with(failure);
}

/// A 2P game of a match in which a side has locked `limits.long_game_pieces` pieces is ended as long
/// ([`Session::end_long_game`]): two bots that cannot top each other out would play for ever. Returns
/// true when it ended one; the run stops there (a game on a console cannot be ended but by a top-out,
/// so no further game of the match could start).
fn check_long_game<M: Machine>(session: &mut Session<M>, limits: Limits) -> bool {
    let Some(limit) = limits.long_game_pieces.filter(|_| limits.games.is_some() && session.seats.len() == 2) else {
        return false;
    };
    if session.outcome.is_some() || !session.game_pieces().iter().any(|&n| n >= limit) {
        return false;
    }
    session.end_long_game(limit).is_some()
}

/// At the end of a run that asked for a number of pieces: an Endless game of a bot that aims at long
/// chains ([`super::Seat::aims_long_chains`]) that played [`BIG_CHAIN_BY_PIECES`] pieces or more without a
/// chain of [`BIG_CHAIN`] or more did not build, whatever the checks say. Fails naming the clock when it narrowed the bot's
/// choice, else saying no checked fact explains it ([`super::health::SeatHealth::weak_game`]).
fn check_weak_game<M: Machine>(session: &mut Session<M>, limits: Limits) {
    if session.mode != Mode::Endless
        || limits.pieces.is_none()
        || limits.games.is_some()
        || session.health_failure().is_some()
    {
        return;
    }
    let weak = |s: &&super::Seat| {
        s.bot_on
            && s.aims_long_chains()
            && !s.stats.topped_out
            && s.stats.pieces >= BIG_CHAIN_BY_PIECES
            && s.stats.largest_chain < BIG_CHAIN
    };
    let Some(s) = session.seats.iter().find(weak) else {
        return;
    };
    let failure = s.health.weak_game(&s.label, s.stats.pieces, s.stats.largest_chain);
    log::error!("{failure}");
    session.stop_with(failure);
}

/// At the end of a run: a bot seat whose contract mispredicted a lock or two since it settled, too few
/// to stop play, fails all the same ([`super::health::SeatHealth::mismatched_at_end`]): a run is not
/// reported healthy over a field the model got wrong.
fn check_mismatched_end<M: Machine>(session: &mut Session<M>) {
    if session.health_failure().is_some() || !session.contract_healthy() {
        return;
    }
    let rules = session.rules().clone();
    let Some(failure) =
        session.seats.iter().filter(|s| s.bot_on).find_map(|s| s.health.mismatched_at_end(&s.label, &rules))
    else {
        return;
    };
    log::error!("{failure}");
    session.stop_with(failure);
}

/// The stop of a run whose pieces stopped before calibration settled: what it had learned and what it
/// still lacked, with the likeliest reason the pieces stopped (the game topped out, or never started).
fn unsettled_stall_text(report: &crate::calib::CalibrationReport) -> String {
    format!(
        "no piece locked for {STALL_FRAMES} frames after {} pieces, before calibration settled (a fast game \
         can top out while its first pieces are read; a game that never started shows no pieces at all). \
         What it had not learned is below.\n{}The bots do not play on an unsettled contract.",
        report.pieces_seen,
        report.to_text()
    )
}

/// Refuses limits a run cannot keep: none at all, no game, or several games without a way to start one.
fn check_limits<M: Machine>(limits: Limits, session: &Session<M>) -> Result<(), RunError> {
    if limits.frames.is_none() && limits.pieces.is_none() && limits.games.is_none() {
        return Err(RunError::NoLimit);
    }
    if let Some(n) = limits.games {
        if n == 0 {
            return Err(RunError::NoGames);
        }
        if n > 1 && !session.can_restart() {
            return Err(RunError::NoRestart(n));
        }
    }
    Ok(())
}

/// Whether the run has reached one of its limits after `frames` frames: frames, pieces, games (or the
/// game over), or calibration finished.
fn limit_reached<M: Machine>(limits: Limits, session: &Session<M>, frames: u64) -> bool {
    if limits.frames.is_some_and(|n| frames >= n) {
        return true;
    }
    if let Some(n) = limits.pieces
        && session.seats.iter().any(|s| s.stats.pieces >= n)
    {
        return true;
    }
    match limits.games {
        Some(n) if session.finished_games().len() >= n as usize => return true,
        None if limits.stop_at_game_over && session.outcome.is_some() => return true,
        _ => {}
    }
    limits.until_calibrated && session.calibration().is_none_or(|c| c.finished())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::play::health::Fact;
    use crate::play::session::testing::session;

    fn until_game_over() -> Limits {
        Limits { stop_at_game_over: true, ..Limits::default() }
    }

    #[test]
    fn a_two_player_loss_within_the_first_pieces_on_a_thin_field_is_not_a_normal_game() {
        let mut s = session(Mode::AiVsAi, "labcart/ai-vs-ai.toml", false);
        s.seats[1].stats.pieces = 10;
        s.seats[1].stats.topped_out = true;
        s.seats[1].health.topped_out(20);
        check_early_top_out(&mut s, until_game_over());
        let failure = s.health_failure().expect("the loss is named");
        assert_eq!((failure.player.as_str(), failure.fact), ("P2", Fact::Unexplained), "{failure}");
        assert!(failure.seen.contains("topped out after 10 pieces"), "{}", failure.seen);
    }

    #[test]
    fn a_two_player_game_of_a_match_past_the_long_game_pieces_ends_as_long_and_is_not_healthy() {
        use crate::play::GameEnd;
        use crate::play::report::HealthReport;
        let limits = Limits { games: Some(1), long_game_pieces: Some(30), ..until_game_over() };
        let mut s = session(Mode::AiVsAi, "labcart/ai-vs-ai.toml", false);
        s.seats[0].stats.pieces = 29;
        s.seats[1].stats.pieces = 28;
        assert!(!check_long_game(&mut s, limits), "29 pieces are within the limit");
        assert_eq!(HealthReport::of(&s).state, "healthy");
        s.seats[0].stats.pieces = 30;
        for no_limit in [Limits { long_game_pieces: None, ..limits }, Limits { games: None, ..limits }] {
            assert!(!check_long_game(&mut s, no_limit), "{no_limit:?}: no long game without the limit and a match");
        }
        assert!(check_long_game(&mut s, limits), "30 pieces reach it");
        let g = s.finished_games().last().expect("the game is recorded").clone();
        assert_eq!((g.result, g.winner.as_deref(), g.describe().as_str()), (GameEnd::Long, None, "long"));
        let long = g.long_game.as_ref().expect("a long game says why");
        assert_eq!(long.pieces_limit, 30);
        let pieces: Vec<u32> = long.sides.iter().map(|p| p.pieces).collect();
        assert_eq!(pieces, [30, 28]);
        assert!(long.reason.contains("in 30 pieces"), "{}", long.reason);
        assert!(limit_reached(limits, &s, 1), "the match's one game has ended");
        assert!(!check_long_game(&mut s, limits), "ended once");
        let h = HealthReport::of(&s);
        assert_eq!(h.state, "long-game", "{h:?}");
        assert_eq!(h.long_games.len(), 1);
        assert!(h.long_games[0].starts_with("game 1: past 30 pieces a side without a winner: "), "{}", h.long_games[0]);
        assert!(h.to_text().contains("long game: game 1"), "{}", h.to_text());
        let mut endless = session(Mode::Endless, "labcart/1p-endless.toml", false);
        endless.seats[0].stats.pieces = 400;
        assert!(!check_long_game(&mut endless, limits), "an Endless game is never long");
    }

    #[test]
    fn a_lock_mispredicted_once_fails_the_run_at_its_end() {
        let mut s = session(Mode::Endless, "labcart/1p-endless.toml", false);
        for matched in [true, true, false, true] {
            s.seats[0].health.spawned(true, true, true, None, Some(matched));
        }
        check_mismatched_end(&mut s);
        let failure = s.health_failure().expect("one mispredicted lock is named at the end");
        assert_eq!((failure.player.as_str(), failure.fact), ("P1", Fact::FieldCells), "{failure}");
        assert!(failure.seen.contains("after 1 of 4 locks"), "{}", failure.seen);
        let mut clean = session(Mode::Endless, "labcart/1p-endless.toml", false);
        clean.seats[0].health.spawned(true, true, true, None, Some(true));
        check_mismatched_end(&mut clean);
        assert!(clean.health_failure().is_none());
    }

    #[test]
    fn a_two_player_loss_under_nuisance_or_after_the_first_pieces_is_a_game() {
        for (pieces, puyos) in [(10, 60), (40, 20)] {
            let mut s = session(Mode::AiVsAi, "labcart/ai-vs-ai.toml", false);
            s.seats[1].stats.pieces = pieces;
            s.seats[1].stats.topped_out = true;
            s.seats[1].health.topped_out(puyos);
            check_early_top_out(&mut s, until_game_over());
            assert!(s.health_failure().is_none(), "{pieces} pieces, {puyos} puyos: {:?}", s.health_failure());
        }
    }
}
