//! Running a session without a window, as fast as the machine goes, until a limit or the end of the game.

use std::time::Instant;

use crate::emu::{EmuError, Machine};

use super::report::Summary;
use super::session::Session;

/// When a headless run stops.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Limits {
    /// Stop after this many frames.
    pub frames: Option<u64>,
    /// Stop once a player has locked this many pieces.
    pub pieces: Option<u32>,
    /// Stop when the game is over (a top-out).
    pub stop_at_game_over: bool,
}

/// Why a headless run failed.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The emulator stopped.
    #[error(transparent)]
    Emu(#[from] EmuError),
    /// The menus never reached the game.
    #[error("{0}")]
    Menu(String),
    /// Neither a frame nor a piece limit was given.
    #[error("a headless run needs --frames N or --pieces N")]
    NoLimit,
}

/// Runs until a limit; returns the report. `label` names the ROM in it.
pub fn run<M: Machine>(
    session: &mut Session<M>,
    limits: Limits,
    label: &str,
    seed: u64,
    speed: u8,
) -> Result<Summary, RunError> {
    if limits.frames.is_none() && limits.pieces.is_none() {
        return Err(RunError::NoLimit);
    }
    let start = Instant::now();
    let first = session.frames();
    loop {
        session.step_frame()?;
        let frames = session.frames() - first;
        if session.in_menus()
            && let Some(e) = &session.menu_error
        {
            return Err(RunError::Menu(e.clone()));
        }
        if limits.frames.is_some_and(|n| frames >= n) {
            break;
        }
        if let Some(n) = limits.pieces
            && session.seats.iter().any(|s| s.stats.pieces >= n)
        {
            break;
        }
        if limits.stop_at_game_over && session.outcome.is_some() {
            break;
        }
    }
    Ok(Summary::of(session, label, seed, speed, session.frames() - first, start.elapsed()))
}
