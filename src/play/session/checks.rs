//! The checks a game runs each frame: the contract's health (learn again, or stop the bots), the mode
//! (both fields of a 2-player mode get pairs), the options asked for (the deal confirms them).

use crate::emu::Machine;

use super::super::health::{Fact, Failure};
use super::super::options;
use super::phase::Phase;
use super::{MODE_CHECK_PIECES, MODE_RETRY_MOVES, Session};

/// What the session does about the contract's health check.
#[derive(Debug, Default)]
pub(super) struct HealthGuard {
    /// Facts the health check sent back to calibration, in order.
    pub relearned: Vec<Fact>,
    /// The health check failed and nothing could be learned again: the bots stopped playing.
    pub stop: Option<Failure>,
    /// The last failure sent back to calibration: if calibration then fails, this is the cause to name.
    pub cause: Option<Failure>,
    /// Log the failure that stops the bots (the window's only way to show it in full); a headless run
    /// reports it itself, so it is said once.
    pub log_stop: bool,
}

/// Whether the game played is the mode asked for.
#[derive(Debug, Default)]
pub(super) struct ModeCheck {
    /// Each seat's spawned pieces when the game under way began.
    pub start_pieces: Vec<u32>,
    /// Both fields of the game under way have had pieces: the mode asked for is the one played.
    pub confirmed: bool,
    /// Menu attempts made after a game came out in the wrong mode (see [`MODE_RETRY_MOVES`]).
    pub attempts: u32,
}

/// The game options asked for, and whether the deal has confirmed them.
#[derive(Debug, Default)]
pub(super) struct OptionsCheck {
    /// The items option asked for (`--items`), set by the scripts and confirmed by the deal.
    pub items: Option<options::ItemsChoice>,
    /// The deal has confirmed the items asked for.
    pub items_confirmed: bool,
    /// The number of colours asked for (`--colors`), set by the scripts and confirmed by the deal.
    pub colors: Option<u8>,
    /// The deal has confirmed the number of colours.
    pub colors_confirmed: bool,
}

impl<M: Machine> Session<M> {
    /// Holds the items asked for against what the bots were dealt: a seat dealt the wrong kind, or none of
    /// the kind asked for in [`options::ITEMS_CONFIRM_PIECES`] pieces, stops the bots naming the option; the
    /// same for the number of colours.
    pub(super) fn check_options(&mut self) {
        if self.health.stop.is_some() {
            return;
        }
        let o = &self.options;
        let (mut items_ok, mut colors_ok) = (true, true);
        for s in &self.seats {
            let d = &s.dealt;
            let verdicts = [
                o.items.filter(|_| !o.items_confirmed).map(|c| options::judge(c, d.items, d.bot_spawns)),
                o.colors
                    .filter(|_| !o.colors_confirmed)
                    .map(|n| options::judge_colors(n, d.colors.count_ones() as u8, d.bot_spawns)),
            ];
            for (k, v) in verdicts.into_iter().enumerate() {
                match v {
                    Some(Err(seen)) => {
                        let failure = Failure { player: s.label.clone(), fact: Fact::Options, seen };
                        self.stop_bots(failure);
                        return;
                    }
                    Some(Ok(ok)) if k == 0 => items_ok &= ok,
                    Some(Ok(ok)) => colors_ok &= ok,
                    None => {}
                }
            }
        }
        let o = &mut self.options;
        o.items_confirmed |= o.items.is_some() && items_ok;
        o.colors_confirmed |= o.colors.is_some() && colors_ok;
    }

    /// Acts on the first seat whose health check fails: the fact goes back to calibration once (when
    /// calibration is on and may learn it), else the bots stop with the failure.
    pub(super) fn check_health(&mut self) {
        if self.health.stop.is_some() {
            return;
        }
        if let Some(failure) = self.seats.iter().find_map(|s| s.health.clock_too_fast(&s.label)) {
            // The clock measured leaves the bots nothing to decide: no relearning, the same clock again.
            return self.stop_bots(failure);
        }
        let rules = &self.reading.rules;
        let Some(failure) = self.seats.iter().find_map(|s| s.health.verdict_explained(&s.label, rules)) else { return };
        // Once the clock has been measured again, a later failure is not sent back to calibration: learning
        // the whole contract again in the middle of a game that plans on a clock it cannot keep up with only
        // stalls it. The run stops naming what failed.
        let can_relearn =
            self.calib.online.as_ref().is_some_and(|c| c.learner().mode() == crate::calib::CalibrateMode::Auto)
                && !self.health.relearned.contains(&failure.fact)
                && !self.health.relearned.contains(&Fact::Timing);
        if can_relearn && let Some(cal) = self.calib.online.as_mut() {
            self.health.relearned.push(failure.fact);
            for s in &mut self.seats {
                s.reset_tracking();
            }
            if failure.fact == Fact::NextPair {
                // The rest of the contract predicts well: only the next bytes are watched again.
                log::warn!("health: {failure}; learning the next pair's bytes again");
                cal.relearn_next();
            } else if failure.fact == Fact::Timing {
                // Every encoding holds: only the clock is measured again, the bots play on meanwhile.
                log::warn!("health: {failure}; measuring the game's timing again");
                cal.relearn_clock();
            } else {
                log::warn!("health: {failure}; learning the contract again");
                cal.relearn();
                self.calib.calibrated = false;
            }
            self.health.cause = Some(failure);
            return;
        }
        self.stop_bots(failure);
    }

    /// In a 2-player mode both fields must get pairs: a game in which [`MODE_CHECK_PIECES`] pieces appear
    /// for one player and none for the other, or that ends with one field empty, is not the mode asked for,
    /// whatever a mode byte says. The
    /// game is abandoned to try the menus again while attempts remain (the attempt is returned), else the
    /// bots stop with the failure.
    pub(super) fn check_mode(&mut self) -> Option<u32> {
        if self.mode_check.confirmed || self.health.stop.is_some() || self.seats.len() < 2 {
            return None;
        }
        let start = &self.mode_check.start_pieces;
        let placed: Vec<u32> = self
            .seats
            .iter()
            .enumerate()
            .map(|(i, s)| s.dealt.spawns.saturating_sub(start.get(i).copied().unwrap_or(0)))
            .collect();
        if placed.iter().all(|&p| p > 0) {
            self.mode_check.confirmed = true;
            return None;
        }
        // A game that ended (a top-out) with one field empty was one field too, however few pieces it had:
        // a fast game can top out before MODE_CHECK_PIECES while its first pieces are read.
        let ended = self.seats.iter().any(|s| s.stats.topped_out);
        let (Some(busy), Some(idle)) = (
            placed.iter().position(|&p| p >= MODE_CHECK_PIECES || (ended && p > 0)),
            placed.iter().position(|&p| p == 0),
        ) else {
            return None;
        };
        if matches!(self.phase, Phase::Abandoning { .. }) {
            return None;
        }
        let map = self.reading.decoder.map();
        let mode_byte = match (&map.global.mode, self.reading.last.as_ref().and_then(|s| s.mode)) {
            (Some(e), Some(v)) => format!(" (the mode byte ${:04X} reads {v})", e.addr),
            _ => String::new(),
        };
        let mut seen = format!(
            "{} had {} pieces and {} none: the game plays one field, not the {} game asked for{mode_byte}",
            self.seats[busy].label, placed[busy], self.seats[idle].label, self.mode
        );
        let attempts = &mut self.mode_check.attempts;
        if map.restart.is_some() && (*attempts as usize) < MODE_RETRY_MOVES.len() {
            let (button, times) = MODE_RETRY_MOVES[*attempts as usize];
            *attempts += 1;
            log::warn!(
                "mode: {seen}; ending this game and trying the menu again with {button} × {times} in place of the \
                 mode byte's seek (attempt {} of {})",
                *attempts,
                MODE_RETRY_MOVES.len()
            );
            return Some(*attempts);
        }
        if *attempts > 0 {
            seen += &format!("; {} menu attempts with other cursor moves did not reach it", *attempts);
        }
        self.stop_bots(Failure { player: self.seats[idle].label.clone(), fact: Fact::Mode, seen });
        None
    }

    /// Stops the bots for good with `failure` (the health check failed and learning again did not help).
    pub(super) fn stop_bots(&mut self, failure: Failure) {
        // The window's status line points here; a headless run reports the failure itself.
        let level = if self.health.log_stop { log::Level::Warn } else { log::Level::Debug };
        log::log!(
            level,
            "health: {failure}. The bots stop rather than play on a contract that does not predict the game. \
             What to do: {}.",
            failure.fact.advice()
        );
        for s in &mut self.seats {
            s.bot_on = false;
            s.forget_piece();
        }
        self.health.stop = Some(failure);
    }
}
