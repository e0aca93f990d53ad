//! A running game: each frame, RAM → decode → (bots, driver, verifier) → pads → one emulated frame.
//!
//! The session knows nothing of windows or the command line: the headless runner and the window both call
//! [`Session::step_frame`]. Each player is a [`Seat`]: its bot (when on), its driver, its verifier, its
//! counters. A [`SessionBuilder`] gathers the set-up options and checks them together; each frame then runs
//! the small function of the session's phase (see `Phase`): boot, menus, opening, play, game over, next game.

use std::time::{Duration, Instant};

use crate::calib::{CalibrateMode, CalibrationReport, Frame, KnownCodes, Learner, OnlineCalibration, SeatControl};
use crate::driver::Lock;
use crate::emu::{EmuError, Machine};
use crate::game::{ItemRules, MoveRules, Orientation, Rules};
use crate::memmap::Mode;
use crate::memmap::{AddressFile, Decoder, Snapshot, Turn};

use super::health::{Fact, Failure};
use super::judge::Contract;
use super::matches::{GameEnd, GameResult, MatchState};
use super::menu::MenuRunner;
use super::options::{self, ColorsReport, ItemsReport};
use super::seat::{FrameContext, Seat};

mod builder;
mod checks;
mod phase;
mod rules;
pub use builder::{SessionBuilder, SessionError};
use checks::{HealthGuard, ModeCheck, OptionsCheck};
use phase::{Next, Phase, Script};

/// Pieces that appear for one player in a game, while none appears for the other, before a 2-player mode
/// counts as not reached (the menus started a 1P game). A person's piece counts as soon as it appears, so a
/// slow human beside a fast bot does not look like an empty field.
const MODE_CHECK_PIECES: u32 = 8;

/// Cursor moves tried, one per attempt, in place of a `seek` step whose byte does not follow the menu,
/// when a 2-player mode came out as a 1-player game: the game is ended (pairs dropped in place until it
/// tops out) and the restart script runs again with the next of these.
const MODE_RETRY_MOVES: [(&str, u32); 4] = [("DOWN", 1), ("RIGHT", 1), ("DOWN", 2), ("UP", 1)];

/// The rules model for the cartridge `map` describes: its pairs spawn with the child towards its
/// `[movement] spawn` (up when unknown), and Carbuncle's tie-break follows its colour codes' order.
fn rules_for(map: &AddressFile) -> Rules {
    let mut rules = Rules { spawn_orientation: map.movement.spawn.unwrap_or(Orientation::Up), ..Rules::puyo1() };
    rules.items.carbuncle_rank = ItemRules::ranks_by_code(&map.codes.colors);
    rules
}

/// The movement model's rules for a cartridge's `[movement]` entry.
fn moves_of(m: &crate::memmap::Movement) -> MoveRules {
    MoveRules { kick_sideways: m.kick_sideways, kick_up: m.kick_up, ..MoveRules::default() }
}

/// How the game ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    /// Label of the winner (2P), `None` in endless.
    pub winner: Option<String>,
    /// Frame it was decided.
    pub frame: u64,
}

/// How the session reads the game: the decoder of the contract in use, the rules model of its cartridge,
/// and the last frame decoded.
struct Reading {
    decoder: Decoder,
    rules: Rules,
    last: Option<Snapshot>,
}

/// Frames run by the session, and since when.
struct Clock {
    frames: u64,
    started: Instant,
}

/// Self-calibration as the session runs it.
struct Calibration {
    /// The learner, unless calibration is off.
    online: Option<OnlineCalibration>,
    /// SHA-1 of the ROM (for the sources of learned entries).
    rom_sha1: String,
    /// The session reads RAM with a learned file.
    calibrated: bool,
    /// Calibration's failure has been logged.
    failed_logged: bool,
}

/// How an unattended or windowed run behaves.
#[derive(Clone, Copy, Debug, Default)]
struct RunSettings {
    /// Wait for the bots' answers, so a game replays identically however long they think.
    wait_for_bots: bool,
    /// The scripts wait before their last Start for the person's ([`SessionBuilder::hold_for_start`]).
    hold_for_start: bool,
}

/// A game in progress on a machine. Each frame runs the function of its [`Phase`]; what every phase
/// shares is here.
pub struct Session<M: Machine> {
    machine: M,
    /// The mode being played.
    pub mode: Mode,
    /// The players, in address-file order.
    pub seats: Vec<Seat>,
    keyboard: [u8; 2],
    phase: Phase,
    reading: Reading,
    clock: Clock,
    /// How the game ended, once it has.
    pub outcome: Option<Outcome>,
    /// Set when the menu script failed to reach the game (the session keeps running).
    pub menu_error: Option<String>,
    calib: Calibration,
    /// Games one after another.
    matches: MatchState,
    health: HealthGuard,
    mode_check: ModeCheck,
    options: OptionsCheck,
    settings: RunSettings,
}

impl<M: Machine> std::fmt::Debug for Session<M> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("mode", &self.mode)
            .field("frames", &self.clock.frames)
            .field("seats", &self.seats)
            .finish()
    }
}

impl<M: Machine> Session<M> {
    /// The set-up of a session on `machine`, reading RAM with `map`: options, then
    /// [`SessionBuilder::build`]. `seats` must follow the order of the `[[player]]` tables.
    pub fn builder(machine: M, map: AddressFile, mode: Mode, seats: Vec<Seat>) -> SessionBuilder<M> {
        SessionBuilder::new(machine, map, mode, seats)
    }

    /// The failed health check that stopped the bots, if any: the fact, what was seen, and (through
    /// [`Fact::advice`]) what to do.
    pub fn health_failure(&self) -> Option<&Failure> {
        self.health.stop.as_ref()
    }

    /// Stops the bots for good with `failure` (an unattended runner's own check failed: a piece that never
    /// locks, a game over far too soon); the report names it as the health failure.
    pub fn stop_with(&mut self, failure: Failure) {
        if self.health.stop.is_none() {
            self.stop_bots(failure);
        }
    }

    /// Facts the health check sent back to calibration to learn again, in order.
    pub fn relearned(&self) -> &[Fact] {
        &self.health.relearned
    }

    /// The rules model the seats' predictions are made with.
    pub fn rules(&self) -> &Rules {
        &self.reading.rules
    }

    /// The 2P rules line of the window's status bar, once a 2P game was seen.
    pub fn rules_hud_line(&self) -> Option<String> {
        self.matches.rules.hud_line()
    }

    /// Whether the contract in use is settled and its predictions hold: calibration (when on) has
    /// settled and the health check has not failed.
    pub fn contract_healthy(&self) -> bool {
        self.health.stop.is_none() && self.calib.online.as_ref().is_none_or(|c| c.settled())
    }

    /// The JSON `colors` object, when `--colors` was given.
    pub fn colors_report(&self) -> Option<ColorsReport> {
        let asked = self.options.colors?;
        let dealt = self.seats.iter().map(|s| s.dealt.colors.count_ones() as u8).max().unwrap_or(0);
        Some(ColorsReport { asked, dealt, confirmed: self.options.colors_confirmed })
    }

    /// The JSON `items` object, when `--items` was given.
    pub fn items_report(&self) -> Option<ItemsReport> {
        let choice = self.options.items?;
        let (big, carbuncle) = self.seats.iter().fold((0, 0), |a, s| (a.0 + s.dealt.items.0, a.1 + s.dealt.items.1));
        let confirmed = self.options.items_confirmed;
        Some(ItemsReport { asked: choice.name().into(), big_puyo: big, carbuncle, confirmed })
    }

    /// Whether the address file has a `[restart]` script.
    pub fn can_restart(&self) -> bool {
        self.reading.decoder.map().restart.is_some()
    }

    /// Whether a script is waiting for the person to press Start on pad 1.
    pub fn awaiting_start(&self) -> bool {
        self.phase.holding()
    }

    /// The pieces each seat locked in the game under way (0 each between games).
    pub fn game_pieces(&self) -> Vec<u32> {
        self.matches.game_pieces(&self.seats)
    }

    /// Ends the 2P game under way as long (it ran past `limit` pieces a side without a winner): it is
    /// recorded with each side's figures and the reason neither could finish, which is returned. The
    /// console plays on; the caller stops the run. `None` when no game is under way.
    pub fn end_long_game(&mut self, limit: u32) -> Option<String> {
        self.matches.end_long(&self.seats, self.clock.frames, limit)
    }

    /// The games that ended, in order.
    pub fn finished_games(&self) -> &[GameResult] {
        &self.matches.results
    }

    /// The number of the game under way or last played (1-based; 0 before the first).
    pub fn game_number(&self) -> u32 {
        self.matches.begun
    }

    /// Every game of the run: those that ended and, when one is under way with a piece locked, that one
    /// as stopped.
    pub fn game_results(&self) -> Vec<GameResult> {
        self.matches.all_results(&self.seats, self.clock.frames)
    }

    /// The games the menus started in another mode than the one asked for, played out to try again.
    pub fn wrong_mode_games(&self) -> &[GameResult] {
        &self.matches.wrong_mode
    }

    /// The longest chain of seat `i` over every game of the run.
    pub fn largest_chain(&self, i: usize) -> u32 {
        self.matches.largest_chain(&self.seats, i)
    }

    /// The session's calibration, when on.
    pub fn calibration(&self) -> Option<&OnlineCalibration> {
        self.calib.online.as_ref()
    }

    /// What calibration knows (`state` "off" when it is off).
    pub fn calibration_report(&self) -> CalibrationReport {
        let mut report = match &self.calib.online {
            Some(c) => c.report(),
            None => Learner::new(self.reading.decoder.map(), CalibrateMode::Off).report(),
        };
        report.rules = self.matches.rules.report();
        report
    }

    /// The machine.
    pub fn machine(&self) -> &M {
        &self.machine
    }

    /// The machine, mutably (e.g. for the window's picture and save states).
    pub fn machine_mut(&mut self) -> &mut M {
        &mut self.machine
    }

    /// Frames run by this session.
    pub fn frames(&self) -> u64 {
        self.clock.frames
    }

    /// Wall-clock time since the session started.
    pub fn elapsed(&self) -> Duration {
        self.clock.started.elapsed()
    }

    /// The last decoded RAM.
    pub fn snapshot(&self) -> Option<&Snapshot> {
        self.reading.last.as_ref()
    }

    /// The address file in use.
    pub fn address_file(&self) -> &AddressFile {
        self.reading.decoder.map()
    }

    /// True while the menu script or the wait for the first piece runs.
    pub fn in_menus(&self) -> bool {
        !self.phase.in_game()
    }

    /// Hands the session to an unattended runner of this crate (headless, soak): the frame loop waits for
    /// the bots' answers, so a game replays identically however long they think; `reports_health` leaves
    /// the report of a health stop to the runner (it is not logged); `restart` starts each next game with
    /// the `[restart]` script whatever the set-up said.
    pub(crate) fn run_unattended(&mut self, reports_health: bool, restart: bool) {
        self.settings.wait_for_bots = true;
        self.health.log_stop &= !reports_health;
        self.matches.restart |= restart;
    }

    /// Holds `buttons` (raw NES bits) on 0-based `pad` for a person; they mix with a bot's by OR.
    pub fn set_keyboard_pad(&mut self, pad: usize, buttons: u8) {
        if let Some(k) = self.keyboard.get_mut(pad) {
            *k = buttons;
        }
    }

    /// Turns a seat's bot on or off; returns the new state.
    pub fn toggle_bot(&mut self, seat: usize) -> bool {
        let Some(s) = self.seats.get_mut(seat) else { return false };
        if !s.has_bot() {
            return false;
        }
        s.bot_on = !s.bot_on;
        s.forget_piece();
        // A bot switched on mid-piece starts with the next piece; switched off, it lets go at once.
        s.bot_on
    }

    /// Changes every bot's speed by `delta`; returns the new speed (0..=10).
    pub fn change_bot_speed(&mut self, delta: i32) -> u8 {
        let cur = self.seats.iter().find(|s| s.has_bot()).map_or(0, |s| s.speed()) as i32;
        let new = (cur + delta).clamp(0, 10) as u8;
        for s in &mut self.seats {
            s.set_speed(new);
        }
        new
    }

    /// Forgets per-piece state (after a save state is loaded).
    pub fn reset_tracking(&mut self) {
        for s in &mut self.seats {
            s.reset_tracking();
        }
    }

    /// Runs one frame: decide the pads from RAM with the function of the current phase, let calibration
    /// see the frame (and hand over what it learned), then clock the machine.
    pub fn step_frame(&mut self) -> Result<(), EmuError> {
        let (mut pads, next) = self.phase_frame();
        for (p, k) in pads.iter_mut().zip(self.keyboard) {
            *p |= k;
        }
        self.calibration_frame(pads);
        self.enter(next);
        // Pad faults (a host's, when it injects them) belong to play, not to the scripted menus.
        self.machine.set_in_play(self.phase.in_game());
        self.machine.set_pads(pads);
        self.machine.clock_frame()?;
        self.clock.frames += 1;
        Ok(())
    }

    /// Whether a pair falls for some player: by the learner's eyes while the contract is unsettled.
    fn pair_falling(&self, snap: &Snapshot) -> bool {
        match &self.calib.online {
            Some(c) if !c.settled() => c.any_active(self.machine.ram()),
            _ => snap.players.iter().any(|p| p.controllable),
        }
    }

    /// The seats' part of a game frame: each seat's lock, then each player's view, then each seat's bot
    /// or calibration's opening presses (a seat calibration hands back plays with its bot).
    fn seats_frame(&mut self, snap: &Snapshot) -> [u8; 2] {
        let frame_start = Instant::now();
        let mut pads = [0u8; 2];
        let locks = self.watch_locks(snap);
        let r = &mut self.reading;
        let views = self.matches.nuisance.views(r.last.as_ref(), snap, &locks, &r.rules);
        let settled = self.calib.online.as_ref().is_none_or(|c| c.settled());
        let labels: Vec<String> = self.seats.iter().map(|s| s.label.clone()).collect();
        self.matches.long.frame(r.last.as_ref(), snap, &locks, &views, &r.rules);
        let rules_stop = self.matches.rules.frame(r.last.as_ref(), snap, &locks, &mut r.rules, settled, &labels);
        let ram = *self.machine.ram();
        // The driver thinks of A as clockwise; a cartridge whose A turns the other way gets A and B swapped.
        let swap_ab = r.decoder.map().movement.a_rotates == Turn::Counterclockwise;
        let ctx = FrameContext { rules: &r.rules, wait_for_bot: self.settings.wait_for_bots, frame_start };
        for (i, seat) in self.seats.iter_mut().enumerate() {
            let Some(view) = views.get(i) else { continue };
            let opening = match self.calib.online.as_mut() {
                Some(c) if seat.bot_on => match c.control(i, &ram) {
                    SeatControl::Opening { buttons, active } => Some((buttons, active)),
                    SeatControl::Bot => None,
                },
                _ => None,
            };
            let buttons = if let Some((b, active)) = opening {
                seat.opening_frame(active);
                b
            } else {
                let b = seat.frame(view, locks.get(i).and_then(Option::as_ref), &ctx);
                if let Some(note) = seat.take_decision_note() {
                    self.machine.note(i, &note);
                }
                if swap_ab { crate::calib::swap_ab(b) } else { b }
            };
            if let Some(p) = pads.get_mut(seat.pad) {
                *p |= buttons;
            }
        }
        if let Some(failure) = self.seats.iter().find_map(Seat::bot_failure) {
            log::error!("{failure}");
            self.stop_with(failure);
        }
        if let Some(seen) = rules_stop {
            self.stop_with(Failure { player: "both".into(), fact: Fact::BattleRules, seen });
        }
        pads
    }

    /// Each seat's lock on this decoded frame, in seat order (the one place locks are seen).
    fn watch_locks(&mut self, snap: &Snapshot) -> Vec<Option<Lock>> {
        let (frame, rules) = (self.clock.frames, &self.reading.rules);
        self.seats.iter_mut().zip(&snap.players).map(|(s, st)| s.watch_lock(st, frame, rules)).collect()
    }

    /// `steps` of a menu or restart script with the options asked for set before the game starts.
    fn script_steps(&self, steps: &[crate::memmap::schema::MenuStep]) -> Vec<crate::memmap::schema::MenuStep> {
        let options = &self.reading.decoder.map().options;
        let mut out = steps.to_vec();
        if let (Some(choice), Some(option)) = (self.options.items, &options.items) {
            out = options::with_items(&out, option, choice);
        }
        if let (Some(count), Some(option)) = (self.options.colors, &options.colors) {
            out = options::with_colors(&out, option, count).unwrap_or(out);
        }
        self.matches.rules.choices.script(out, options)
    }

    /// The script for `steps` (the options asked for set on the way), seeded for the next game.
    fn script(&self, steps: &[crate::memmap::schema::MenuStep], ready_timeout: u32) -> Script {
        let mut runner = MenuRunner::new(self.script_steps(steps))
            .stop_on_failed_seek(self.matches.manual_fallback)
            .hold_before_final_start(self.settings.hold_for_start);
        if let Some(seed) = self.matches.seed {
            runner = runner.with_seed(seed, self.matches.begun);
        }
        Script { runner, ready_timeout }
    }

    /// A new game begins: per-game counters start again. `reset` forgets per-piece state too (a game the
    /// session started; not one a person started, whose first piece is already being handled).
    fn begin_game(&mut self, reset: bool) {
        if reset {
            self.reset_tracking();
        }
        self.matches.begin(&mut self.seats, self.clock.frames);
        self.outcome = None;
        self.mode_check.start_pieces = self.seats.iter().map(|s| s.dealt.spawns).collect();
        self.mode_check.confirmed = false;
    }

    /// Seats `out` topped out: the outcome is recorded and, for a match, the restart script starts.
    /// Returns the phase that follows.
    fn record_outcome(&mut self, out: &[usize]) -> Next {
        let winner =
            if self.seats.len() == 2 && out.len() == 1 { Some(self.seats[1 - out[0]].label.clone()) } else { None };
        self.outcome = Some(Outcome { winner: winner.clone(), frame: self.clock.frames });
        let end = match (&winner, self.seats.len()) {
            (Some(_), _) => GameEnd::Win,
            (None, 2) => GameEnd::Draw,
            _ => GameEnd::Over,
        };
        self.matches.end(&self.seats, self.clock.frames, end, winner);
        if self.matches.restart
            && let Some(r) = self.reading.decoder.map().restart.clone()
        {
            return Next::To(Phase::NextGame(self.script(&r.steps, r.ready_timeout)));
        }
        Next::Game
    }

    /// The game in the wrong mode is over: the restart script runs again with its `seek` steps replaced by
    /// the cursor move of `attempt`; the game it reaches is checked like the first. Returns the phase
    /// that follows.
    fn retry_menus(&mut self, attempt: u32) -> Next {
        self.matches.abandon(&mut self.seats, self.clock.frames);
        let Some(mut r) = self.reading.decoder.map().restart.clone() else {
            return Next::Game;
        };
        let (button, times) = MODE_RETRY_MOVES[(attempt as usize).saturating_sub(1)];
        r.steps = r
            .steps
            .into_iter()
            .flat_map(|step| {
                if step.seek.is_none() {
                    return vec![step];
                }
                let press = crate::memmap::schema::MenuStep {
                    press: Some(vec![button.to_string()]),
                    note: Some("cursor move tried after the game came out in another mode".into()),
                    ..Default::default()
                };
                let wait = crate::memmap::schema::MenuStep { wait: Some(12), ..Default::default() };
                std::iter::repeat_n([press, wait], times as usize).flatten().collect()
            })
            .collect();
        for s in &mut self.seats {
            s.stats.topped_out = false;
        }
        Next::To(Phase::NextGame(self.script(&r.steps, r.ready_timeout)))
    }

    /// Calibration sees the frame's RAM and pads. What it learned reaches the session here, through
    /// [`OnlineCalibration::take_learned`] and nowhere else: the first learned contract replaces the
    /// guesses, and a fact learned after settling reaches the decoder the same frame. The seats hear of
    /// what changed: their lock judges of the contract, each seat of the clock measured for its player.
    fn calibration_frame(&mut self, pads: [u8; 2]) {
        self.learn_from_frame(pads);
        self.update_contract();
        self.update_clocks();
    }

    /// Calibration's part of [`Session::calibration_frame`]: it sees the frame, and what it learned
    /// reaches the decoder and the seats.
    fn learn_from_frame(&mut self, pads: [u8; 2]) {
        let Some(cal) = self.calib.online.as_mut() else { return };
        cal.observe(&Frame { ram: self.machine.ram(), pads });
        if let Some(conflict) = cal.learner().item_conflict()
            && self.health.stop.is_none()
        {
            // Either reading of the item would be a guess the bots play on: the run stops, naming it.
            let seen = conflict.to_string();
            self.stop_bots(Failure { player: "both".into(), fact: Fact::FieldCells, seen });
            return;
        }
        let next_unknown = cal.next_table_unknown();
        for s in &mut self.seats {
            s.set_next_table_unknown(next_unknown);
        }
        if let Some(learned) = cal.take_learned(&self.calib.rom_sha1) {
            // The first learned file replaces the guesses; later ones only add colours (in the same
            // model order), so the pieces under way keep their plans.
            if !std::mem::replace(&mut self.calib.calibrated, true) {
                log::info!("calibration settled; reading RAM with the learned contract from now on");
                for s in &mut self.seats {
                    s.reset_prediction();
                }
            } else {
                // A prediction made with the codes just replaced (an item read as a pair before its code
                // was known) says nothing about the new contract: it is not checked.
                for s in &mut self.seats {
                    s.forget_last_prediction();
                }
            }
            self.reading.rules = rules_for(&learned);
            self.matches.rules.apply(&mut self.reading.rules);
            for s in &mut self.seats {
                s.set_moves(moves_of(&learned.movement));
                s.set_next_lag(learned.timing.next_lag);
            }
            log::debug!(
                "calibration: reading RAM with colours {:?} (empty {})",
                learned.codes.colors,
                learned.codes.empty
            );
            self.reading.decoder = self.reading.decoder.replaced_by(learned);
        } else if cal.failed()
            && let Some(cause) = self.health.cause.take()
        {
            // Learning again after a failed health check did not settle: the health failure is the
            // cause to report, with what calibration could not learn.
            let seen = format!("{}; learning the contract again did not settle ({})", cause.seen, cal.state().name());
            self.stop_bots(Failure { seen, ..cause });
        } else if cal.failed() && !std::mem::replace(&mut self.calib.failed_logged, true) {
            log::error!("{}\nThe bots do not play on an unsettled contract.", cal.report().to_text().trim_end());
        } else if cal.unsettled_again() {
            self.calib.calibrated = false;
            log::warn!("calibration: a contradiction unsettled the contract; the opening drives again");
        }
    }

    /// The contract the seats' lock judges hold the locks against: the codes calibration knows, and
    /// whether it has settled (calibration off: every code, settled).
    fn contract(&self) -> Contract {
        match &self.calib.online {
            Some(c) => Contract { known: c.learner().known_codes(), settled: c.settled() },
            None => Contract { known: KnownCodes::ALL, settled: true },
        }
    }

    /// Hands the seats' judges the contract when it changed.
    fn update_contract(&mut self) {
        let contract = self.contract();
        if self.seats.first().is_some_and(|s| s.contract() != contract) {
            for s in &mut self.seats {
                s.set_contract(contract);
            }
        }
    }

    /// Hands each seat the game's clock calibration measured for its player when it changed (the seat
    /// plays on it at its own pace; calibration off: nothing is measured, the seats play untimed).
    fn update_clocks(&mut self) {
        let Some(cal) = &self.calib.online else { return };
        for (i, s) in self.seats.iter_mut().enumerate() {
            let clock = cal.learner().clock(i);
            if s.measured_clock() != Some(&clock) {
                s.set_measured_clock(clock);
            }
        }
    }
}

/// Sessions on the software model for the play module's unit tests.
#[cfg(test)]
pub(crate) mod testing {
    use super::Session;
    use crate::ai::{AiConfig, Level};
    use crate::emu::mock::MockGame;
    use crate::memmap::{AddressSource, Mode};
    use crate::play::SeatConfig;

    /// Greedy bots at full strength on the two-ply search, full speed, inline: cheap seats for tests.
    pub(crate) fn seat_config() -> SeatConfig {
        SeatConfig {
            bots: ["greedy".into(), "greedy".into()],
            strength: [Level::FULL; 2],
            ai: AiConfig::two_ply(),
            speed: 10,
            seed: 1,
            threaded: false,
            budget: None,
            timing: None,
        }
    }

    /// A session on the software model in `mode`, already in its game (no menus), calibration off.
    pub(crate) fn session(mode: Mode, file: &str, restart: bool) -> Session<MockGame> {
        let map = AddressSource::Builtin.address_file(file).expect("built-in address file");
        let seats = crate::play::seats_for(mode, &map, &seat_config()).expect("seats");
        let players = seats.len();
        Session::builder(MockGame::new(players, 4, 7), map, mode, seats).restart(restart).build().expect("session")
    }
}
