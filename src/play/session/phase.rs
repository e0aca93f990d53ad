//! The session's phases: what each frame does, by phase. Each variant carries its own state and has its
//! frame function; [`Session::step_frame`] runs the one of the phase the session is in.
//!
//! ```text
//! Boot ──script done──▶ Menus ──first falling pair──▶ Opening ⇄ Play ⇄ GameOver
//!   ▲                     ▲                              │       │        │
//!   │                     └─────── NextGame ◀──restart───┴───────┴────────┘
//!   │                                 ▲
//!   └ (power-on)                      └── Abandoning (a game in the wrong mode, ended to try the menus again)
//! ```
//! Each frame function returns what comes next ([`Next`]), and [`Session::step_frame`] applies it once
//! calibration has seen the frame ([`Session::enter`], the one place the phase changes). Among the three
//! phases of a game, the frame's end decides: the opening while calibration is unsettled, game over once
//! the game has an outcome, play otherwise.

use crate::emu::Machine;
use crate::memmap::Snapshot;

use super::super::menu::{MenuRunner, MenuStatus};
use super::Session;

/// Frames with Down held and no piece that can move, while a game in the wrong mode is being ended, after
/// which it counts as over (longer than a lock's resolution; the game-over screen waits for Start).
const ABANDON_IDLE_FRAMES: u32 = 300;

/// A menu or restart script under way, and how long to wait for a first pair after it.
#[derive(Clone, Debug)]
pub(super) struct Script {
    /// The script.
    pub runner: MenuRunner,
    /// Frames to wait for a falling pair once it is done, before saying the menus did not reach a game.
    pub ready_timeout: u32,
}

/// Where the session stands.
#[derive(Clone, Debug)]
pub(super) enum Phase {
    /// From power-on: the `[menu]` script walks the title and the mode select.
    Boot(Script),
    /// A script ended (done, failed, or left to the person): the menus are the game's or the person's
    /// until a first pair falls, which starts a game.
    Menus {
        /// Frames waited so far.
        waited: u32,
        /// Frames after which the wait is reported.
        ready_timeout: u32,
    },
    /// A game, while calibration is on and unsettled: it drives the opening pieces of each bot's seat and
    /// the bots play only the seats it hands back; the health and options checks wait for the settled
    /// contract.
    Opening,
    /// A game on a settled contract (or with calibration off): the bots play and the contract is checked.
    Play,
    /// The game under way is in the wrong mode: pairs are dropped where they spawn until it ends, then the
    /// restart script runs again with the cursor move of `attempt` (1-based, see
    /// [`super::MODE_RETRY_MOVES`]).
    Abandoning {
        /// The attempt this ending leads to.
        attempt: u32,
        /// Frames in a row in which no piece could move by either the decoder or calibration's reading:
        /// the wrong game is over even when the decoder cannot yet read the field.
        idle: u32,
    },
    /// The game ended and no restart script runs: the session watches until a person starts another.
    GameOver,
    /// After a game over, or to leave a game in the wrong mode: the `[restart]` script walks to the next game.
    NextGame(Script),
}

/// What a phase's frame asks for next.
#[derive(Clone, Debug)]
pub(super) enum Next {
    /// The same phase (a script under way).
    Stay,
    /// This phase.
    To(Phase),
    /// The phase of a game under way, decided once calibration has seen the frame
    /// ([`Session::game_phase`]).
    Game,
}

impl Phase {
    /// The phase of a game in the wrong mode being ended, before the restart script's attempt `attempt`.
    pub fn abandoning(attempt: u32) -> Phase {
        Phase::Abandoning { attempt, idle: 0 }
    }

    /// A game is under way (or over and on screen): the pads are the bots' and the person's, not a script's.
    pub fn in_game(&self) -> bool {
        matches!(self, Phase::Opening | Phase::Play | Phase::Abandoning { .. } | Phase::GameOver)
    }

    /// A script waits for the person's Start.
    pub fn holding(&self) -> bool {
        matches!(self, Phase::Boot(s) | Phase::NextGame(s) if s.runner.holding())
    }
}

impl<M: Machine> Session<M> {
    /// The pads of one frame, from the function of the current phase, and what comes next.
    pub(super) fn phase_frame(&mut self) -> ([u8; 2], Next) {
        match self.phase {
            Phase::Boot(_) | Phase::NextGame(_) => self.script_frame(),
            Phase::Menus { waited, ready_timeout } => self.menus_frame(waited, ready_timeout),
            Phase::Opening => self.opening_frame(),
            Phase::Play => self.play_frame(),
            Phase::Abandoning { attempt, idle } => self.abandoning_frame(attempt, idle),
            Phase::GameOver => self.game_over_frame(),
        }
    }

    /// Moves to `next`: the one place the phase changes (after each frame, and once when the session is
    /// made).
    pub(super) fn enter(&mut self, next: Next) {
        match next {
            Next::Stay => {}
            Next::To(phase) => self.phase = phase,
            Next::Game => self.phase = self.game_phase(),
        }
    }

    /// The phase of a game under way: the opening while calibration is unsettled, else play until an
    /// outcome, then game over.
    pub(super) fn game_phase(&self) -> Phase {
        if self.calib.online.as_ref().is_some_and(|c| !c.settled()) {
            Phase::Opening
        } else if self.outcome.is_some() {
            Phase::GameOver
        } else {
            Phase::Play
        }
    }

    /// RAM decoded for a frame before play, and whether a pair falls (closed-loop menu steps need to know
    /// whether the game has started).
    fn decode_before_play(&mut self) -> (Snapshot, bool) {
        let snap = self.reading.decoder.decode(self.machine.ram());
        let falling = self.pair_falling(&snap);
        (snap, falling)
    }

    /// [`Phase::Boot`] and [`Phase::NextGame`]: one frame of the menu or restart script.
    fn script_frame(&mut self) -> ([u8; 2], Next) {
        let (_, falling) = self.decode_before_play();
        let (Phase::Boot(script) | Phase::NextGame(script)) = &mut self.phase else { return ([0; 2], Next::Stay) };
        let (runner, ready_timeout) = (&mut script.runner, script.ready_timeout);
        runner.person_pad(self.keyboard[0]);
        let status = runner.step(self.machine.ram(), falling);
        let name = if self.matches.begun == 0 { "menu" } else { "restart" };
        if !matches!(status, MenuStatus::Running(_)) {
            self.matches.seed_wait += runner.seed_waits().iter().sum::<u32>();
        }
        let menus = Next::To(Phase::Menus { waited: 0, ready_timeout });
        let failed = match status {
            MenuStatus::Running(p) => return (p, Next::Stay),
            MenuStatus::Done => return ([0; 2], menus),
            MenuStatus::TimedOut { step } => format!("{name} script: step {step} did not reach its goal in time"),
            MenuStatus::SeekFailed { step, addr, goal } => format!(
                "{name} script: step {step}: no button set ${addr:04X} to {goal}; drive the menus with the keys \
                 (the bots take over when a pair falls)"
            ),
        };
        log::warn!("{failed}");
        self.menu_error = Some(failed);
        ([0; 2], menus)
    }

    /// [`Phase::Menus`]: waits for a first falling pair, which begins a game and plays its first frame.
    fn menus_frame(&mut self, waited: u32, ready_timeout: u32) -> ([u8; 2], Next) {
        let (snap, falling) = self.decode_before_play();
        // The locks a decoded frame shows before the game begins are seen (and dropped): a lock is told
        // from one decoded frame to the next, whatever the phase.
        self.watch_locks(&snap);
        if falling {
            self.menu_error = None;
            self.begin_game(true);
            return match self.game_phase() {
                Phase::Opening => self.opening_game_frame(snap),
                Phase::GameOver => self.game_over_game_frame(snap),
                _ => self.play_game_frame(snap),
            };
        }
        let waited = waited + 1;
        if waited == ready_timeout && self.menu_error.is_none() {
            let msg = format!(
                "no falling pair {ready_timeout} frames after the menu script; play the menus yourself (or fix \
                 the [menu] steps of the address file)"
            );
            log::warn!("{msg}");
            self.menu_error = Some(msg);
        }
        self.reading.last = Some(snap);
        ([0; 2], Next::To(Phase::Menus { waited, ready_timeout }))
    }

    /// [`Phase::Opening`]: calibration drives the opening pieces; the seats it hands back play. The mode
    /// is checked and the outcome watched; health and options wait for the settled contract.
    fn opening_frame(&mut self) -> ([u8; 2], Next) {
        let snap = self.reading.decoder.decode(self.machine.ram());
        self.opening_game_frame(snap)
    }

    fn opening_game_frame(&mut self, snap: Snapshot) -> ([u8; 2], Next) {
        let pads = self.seats_frame(&snap);
        let abandon = self.check_mode();
        let next = self.update_outcome(abandon).or(abandon.map(|a| Next::To(Phase::abandoning(a))));
        self.reading.last = Some(snap);
        (pads, next.unwrap_or(Next::Game))
    }

    /// [`Phase::Play`]: the bots play; health, mode and options are checked; a top-out ends the game.
    fn play_frame(&mut self) -> ([u8; 2], Next) {
        let snap = self.reading.decoder.decode(self.machine.ram());
        self.play_game_frame(snap)
    }

    fn play_game_frame(&mut self, snap: Snapshot) -> ([u8; 2], Next) {
        let pads = self.seats_frame(&snap);
        let abandon = self.check_contract();
        let next = self.watch_for_end(abandon).or(abandon.map(|a| Next::To(Phase::abandoning(a))));
        self.reading.last = Some(snap);
        (pads, next.unwrap_or(Next::Game))
    }

    /// [`Phase::GameOver`]: the fields stay watched (and checked); a person starting another game begins it.
    fn game_over_frame(&mut self) -> ([u8; 2], Next) {
        let snap = self.reading.decoder.decode(self.machine.ram());
        self.game_over_game_frame(snap)
    }

    fn game_over_game_frame(&mut self, snap: Snapshot) -> ([u8; 2], Next) {
        let pads = self.seats_frame(&snap);
        let abandon = self.check_contract();
        self.watch_for_new_game();
        self.reading.last = Some(snap);
        (pads, abandon.map_or(Next::Game, |a| Next::To(Phase::abandoning(a))))
    }

    /// [`Phase::Abandoning`]: the seats are followed as in play, but Down is held on both pads so the pairs
    /// fill the middle column and the wrong game ends in a few pieces; then the menus are tried again.
    fn abandoning_frame(&mut self, attempt: u32, idle: u32) -> ([u8; 2], Next) {
        let snap = self.reading.decoder.decode(self.machine.ram());
        self.seats_frame(&snap);
        for s in &mut self.seats {
            // Nothing this game shows judges the contract.
            s.health.reset();
        }
        let mut moving = snap.players.iter().any(|p| p.controllable);
        if let Some(c) = self.calib.online.as_mut() {
            // The opening cannot drive these pieces: they do not count toward its bound.
            c.restart_bound();
            moving |= c.any_active(self.machine.ram());
        }
        let idle = if moving { 0 } else { idle + 1 };
        let next = if idle > ABANDON_IDLE_FRAMES {
            // Before calibration settles the decoder may not see the top-out; no piece for this long
            // with Down held is the game's end all the same.
            log::info!("mode: no piece for {idle} frames; the wrong game is over");
            self.retry_menus(attempt)
        } else {
            // Already ending a wrong game: the mode check does not abandon it again.
            self.check_mode();
            self.update_outcome(Some(attempt)).unwrap_or(Next::To(Phase::Abandoning { attempt, idle }))
        };
        self.reading.last = Some(snap);
        ([crate::emu::pad::DOWN; 2], next)
    }

    /// Health, mode and options, in that order: the checks of a game on a settled contract. Returns the
    /// attempt to end the game with when it is in the wrong mode (the options are not checked then).
    fn check_contract(&mut self) -> Option<u32> {
        self.check_health();
        let abandon = self.check_mode();
        if abandon.is_none() {
            self.check_options();
        }
        abandon
    }

    /// The outcome, in a phase that may have one or not (the opening, abandoning); `abandoning`: the
    /// attempt of the wrong-mode game being ended. Returns the phase a top-out leads to.
    fn update_outcome(&mut self, abandoning: Option<u32>) -> Option<Next> {
        if self.outcome.is_some() {
            self.watch_for_new_game();
            None
        } else {
            self.watch_for_end(abandoning)
        }
    }

    /// With an outcome on screen: a person starting a new game (no seat topped out any more) begins it.
    fn watch_for_new_game(&mut self) {
        if self.seats.iter().all(|s| !s.stats.topped_out) {
            self.begin_game(false);
        }
    }

    /// Without an outcome yet: a top-out ends the game (a wrong-mode game being abandoned, `abandoning`
    /// its attempt: the menus are tried again). Returns the phase the top-out leads to.
    fn watch_for_end(&mut self, abandoning: Option<u32>) -> Option<Next> {
        let out: Vec<usize> = (0..self.seats.len()).filter(|&i| self.seats[i].stats.topped_out).collect();
        if out.is_empty() {
            return None;
        }
        Some(match abandoning {
            Some(attempt) => self.retry_menus(attempt),
            None => self.record_outcome(&out),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::MODE_RETRY_MOVES;
    use super::super::testing::session;
    use super::*;
    use crate::memmap::Mode;
    use crate::play::health::Fact;
    use crate::play::matches::GameEnd;

    /// The end of a game frame in `s` after the checks: the phase a top-out asked for, else the game's.
    fn end_frame<M: Machine>(s: &mut Session<M>, next: Option<Next>) {
        s.enter(next.unwrap_or(Next::Game));
    }

    /// A wrong-mode game's attempt, as a game frame applies it.
    fn abandon<M: Machine>(s: &mut Session<M>, attempt: Option<u32>) {
        end_frame(s, attempt.map(|a| Next::To(Phase::abandoning(a))));
    }

    #[test]
    fn a_top_out_ends_play_and_a_new_game_ends_the_game_over() {
        let mut s = session(Mode::Endless, "labcart/1p-endless.toml", false);
        assert!(matches!(s.phase, Phase::Play) && s.game_number() == 1);
        let next = s.watch_for_end(None);
        end_frame(&mut s, next);
        assert!(matches!(s.phase, Phase::Play), "nobody topped out");
        s.seats[0].stats.topped_out = true;
        let next = s.watch_for_end(None);
        end_frame(&mut s, next);
        assert!(matches!(s.phase, Phase::GameOver) && s.outcome.is_some());
        assert_eq!(s.finished_games().len(), 1);
        // The fields stay watched: a person starting another game (pieces again) begins it.
        s.watch_for_new_game();
        assert!(s.outcome.is_some(), "still topped out");
        s.seats[0].stats.topped_out = false;
        s.watch_for_new_game();
        end_frame(&mut s, None);
        assert!(matches!(s.phase, Phase::Play) && s.outcome.is_none() && s.game_number() == 2);
    }

    #[test]
    fn with_a_restart_script_a_game_over_leads_to_the_next_game() {
        let mut s = session(Mode::AiVsAi, "labcart/ai-vs-ai.toml", true);
        s.seats[1].stats.topped_out = true;
        let next = s.watch_for_end(None);
        end_frame(&mut s, next);
        assert!(matches!(s.phase, Phase::NextGame(_)) && s.in_menus());
        assert_eq!(s.outcome.as_ref().and_then(|o| o.winner.as_deref()), Some("P1"));
    }

    #[test]
    fn a_game_in_the_wrong_mode_is_abandoned_with_each_attempt_then_the_bots_stop() {
        let mut s = session(Mode::AiVsAi, "labcart/ai-vs-ai.toml", false);
        for attempt in 1..=MODE_RETRY_MOVES.len() as u32 {
            // Eight pieces for P1 and none for P2: the menus started a 1-player game.
            s.begin_game(false);
            s.seats[0].dealt.spawns += 8;
            let attempt_now = s.check_mode();
            abandon(&mut s, attempt_now);
            assert!(matches!(s.phase, Phase::Abandoning { attempt: a, idle: 0 } if a == attempt), "{:?}", s.phase);
            assert!(!s.in_menus(), "the wrong game is played out");
            assert_eq!(s.check_mode(), None, "one attempt per game");
            assert!(matches!(s.phase, Phase::Abandoning { attempt: a, .. } if a == attempt));
            // Its field, read with the layout of the mode asked for, disagreed with the model.
            s.seats[0].stats.pieces += 8;
            s.seats[0].stats.mismatches += 3;
            // It tops out: the restart script runs with this attempt's cursor move.
            s.seats[0].stats.topped_out = true;
            let next = s.watch_for_end(Some(attempt));
            end_frame(&mut s, next);
            assert!(matches!(s.phase, Phase::NextGame(_)));
            assert!(s.outcome.is_none() && s.finished_games().is_empty(), "an abandoned game is not a result");
            assert_eq!((s.seats[0].stats.pieces, s.seats[0].stats.mismatches), (0, 0), "its counts are set apart");
            let apart = s.wrong_mode_games();
            assert_eq!(apart.len(), attempt as usize);
            assert_eq!(
                (apart[0].result, apart[0].players[0].pieces, apart[0].players[0].mismatches),
                (GameEnd::Abandoned, 8, 3)
            );
            s.enter(Next::To(Phase::Play));
        }
        s.begin_game(false);
        s.seats[0].dealt.spawns += 8;
        assert_eq!(s.check_mode(), None, "no attempt left");
        assert!(matches!(s.phase, Phase::Play));
        let failure = s.health_failure().expect("the bots stop");
        assert_eq!((failure.fact, failure.player.as_str()), (Fact::Mode, "P2"));
        assert!(failure.seen.contains("4 menu attempts"), "{}", failure.seen);
    }

    #[test]
    fn a_game_that_tops_out_with_one_field_empty_is_not_a_win() {
        // A fast one-field game tops out before the piece count that would have named it.
        let mut s = session(Mode::AiVsAi, "labcart/ai-vs-ai.toml", true);
        s.begin_game(false);
        s.seats[0].dealt.spawns += 3;
        s.seats[0].stats.topped_out = true;
        let attempt = s.check_mode();
        assert!(attempt.is_some(), "one field played: the wrong mode");
        let next = s.watch_for_end(attempt);
        end_frame(&mut s, next);
        assert!(matches!(s.phase, Phase::NextGame(_)), "{:?}", s.phase);
        assert!(s.finished_games().is_empty() && s.outcome.is_none(), "P2 did not win a game it never played");
        assert_eq!(s.wrong_mode_games().len(), 1);
    }

    #[test]
    fn both_fields_getting_pairs_confirms_the_mode() {
        let mut s = session(Mode::AiVsAi, "labcart/ai-vs-ai.toml", false);
        s.seats[0].dealt.spawns += 8;
        s.seats[1].dealt.spawns += 1;
        assert_eq!(s.check_mode(), None);
        assert!(matches!(s.phase, Phase::Play) && s.mode_check.confirmed);
    }
}
