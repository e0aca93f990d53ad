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
use crate::game::{MoveRules, Orientation, Rules};
use crate::memmap::Mode;
use crate::memmap::{AddressFile, Decoder, Snapshot, Turn};

use super::health::{Fact, Failure};
use super::judge::Contract;
use super::matches::{GameEnd, GameResult, MatchState};
use super::menu::{MenuRunner, MenuStatus};
use super::options::{self, ColorsReport, ItemsChoice, ItemsReport};
use super::seat::{FrameContext, Seat};

mod builder;
pub use builder::{SessionBuilder, SessionError};

/// Pieces that appear for one player in a game, while none appears for the other, before a 2-player mode
/// counts as not reached (the menus started a 1P game). A person's piece counts as soon as it appears, so a
/// slow human beside a fast bot does not look like an empty field.
const MODE_CHECK_PIECES: u32 = 8;

/// Cursor moves tried, one per attempt, in place of a `seek` step whose byte does not follow the menu,
/// when a 2-player mode came out as a 1-player game: the game is ended (pairs dropped in place until it
/// tops out) and the restart script runs again with the next of these.
const MODE_RETRY_MOVES: [(&str, u32); 4] = [("DOWN", 1), ("RIGHT", 1), ("DOWN", 2), ("UP", 1)];

/// Frames with Down held and no piece that can move, while a game in the wrong mode is being ended, after
/// which it counts as over (longer than a lock's resolution; the game-over screen waits for Start).
const ABANDON_IDLE_FRAMES: u32 = 300;

/// The rules model for a cartridge whose pairs spawn with their child towards `spawn` (up when unknown).
fn rules_for(spawn: &Option<Orientation>) -> Rules {
    Rules { spawn_orientation: spawn.unwrap_or(Orientation::Up), ..Rules::puyo1() }
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

/// Where the session stands. [`Session::step_frame`] runs one function per phase; the phases of a game
/// (opening, play, game over) are read again from calibration and the outcome at the start of every frame.
#[derive(Clone, Debug)]
enum Phase {
    /// From power-on: the `[menu]` script walks the title and the mode select.
    Boot(MenuRunner),
    /// A script ended (done, failed, or left to the person): the menus are the game's or the person's
    /// until a first pair falls, which starts a game.
    Menus { waited: u32 },
    /// A game, while calibration is on and unsettled: it drives the opening pieces of each bot's seat and
    /// the bots play only the seats it hands back; the health check waits for the settled contract.
    Opening,
    /// A game on a settled contract (or with calibration off): the bots play and the contract is checked.
    Play,
    /// The game ended and no restart script runs: the session watches until a person starts another.
    GameOver,
    /// After a game over, or to leave a game in the wrong mode: the `[restart]` script walks to the next game.
    NextGame(MenuRunner),
}

impl Phase {
    /// A game is under way (or over and on screen): the pads are the bots' and the person's, not a script's.
    fn in_game(&self) -> bool {
        matches!(self, Phase::Opening | Phase::Play | Phase::GameOver)
    }
}

/// A game in progress on a machine.
pub struct Session<M: Machine> {
    machine: M,
    decoder: Decoder,
    /// The mode being played.
    pub mode: Mode,
    /// The players, in address-file order.
    pub seats: Vec<Seat>,
    keyboard: [u8; 2],
    phase: Phase,
    ready_timeout: u32,
    rules: Rules,
    frames: u64,
    started: Instant,
    /// How the game ended, once it has.
    pub outcome: Option<Outcome>,
    /// Set when the menu script failed to reach the game (the session keeps running).
    pub menu_error: Option<String>,
    last: Option<Snapshot>,
    wait_for_bots: bool,
    /// Self-calibration, unless off.
    calibration: Option<OnlineCalibration>,
    /// SHA-1 of the ROM (for the sources of learned entries).
    rom_sha1: String,
    /// The session reads RAM with a learned file.
    calibrated: bool,
    calibration_failed_logged: bool,
    /// Games one after another.
    matches: MatchState,
    /// Facts the health check sent back to calibration, in order.
    relearned: Vec<Fact>,
    /// The health check failed and nothing could be learned again: the bots stopped playing.
    health_stop: Option<Failure>,
    /// The last failure sent back to calibration: if calibration then fails, this is the cause to name.
    health_cause: Option<Failure>,
    /// Log the failure that stops the bots (the window's only way to show it in full); a headless run
    /// reports it itself, so it is said once.
    log_health_stop: bool,
    /// Each seat's spawned pieces when the game under way began.
    game_start_pieces: Vec<u32>,
    /// Both fields of the game under way have had pieces: the mode asked for is the one played.
    mode_confirmed: bool,
    /// Menu attempts made after a game came out in the wrong mode (see [`MODE_RETRY_MOVES`]).
    mode_attempts: u32,
    /// The game under way is in the wrong mode: it is being ended to try the menus again.
    abandoning: bool,
    /// Frames in a row, while abandoning, in which no piece could move by either the decoder or
    /// calibration's reading: the wrong game is over even when the decoder cannot yet read the field.
    abandon_idle: u32,
    /// The scripts wait before their last Start for the person's ([`SessionBuilder::hold_for_start`]).
    hold_for_start: bool,
    /// The items option asked for (`--items`), set by the scripts and confirmed by the deal.
    items: Option<ItemsChoice>,
    /// The deal has confirmed the items asked for.
    items_confirmed: bool,
    /// The number of colours asked for (`--colors`), set by the scripts and confirmed by the deal.
    colors: Option<u8>,
    /// The deal has confirmed the number of colours.
    colors_confirmed: bool,
}

impl<M: Machine> std::fmt::Debug for Session<M> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("mode", &self.mode)
            .field("frames", &self.frames)
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
        self.health_stop.as_ref()
    }

    /// Facts the health check sent back to calibration to learn again, in order.
    pub fn relearned(&self) -> &[Fact] {
        &self.relearned
    }

    /// Whether the contract in use is settled and its predictions hold: calibration (when on) has
    /// settled and the health check has not failed.
    pub fn contract_healthy(&self) -> bool {
        self.health_stop.is_none() && self.calibration.as_ref().is_none_or(|c| c.settled())
    }

    /// `steps` of a menu or restart script with the options asked for set before the game starts.
    fn script_steps(&self, steps: &[crate::memmap::schema::MenuStep]) -> Vec<crate::memmap::schema::MenuStep> {
        let options = &self.decoder.map().options;
        let mut out = steps.to_vec();
        if let (Some(choice), Some(option)) = (self.items, &options.items) {
            out = options::with_items(&out, option, choice);
        }
        if let (Some(count), Some(option)) = (self.colors, &options.colors) {
            out = options::with_colors(&out, option, count).unwrap_or(out);
        }
        out
    }

    /// The JSON `colors` object, when `--colors` was given.
    pub fn colors_report(&self) -> Option<ColorsReport> {
        let asked = self.colors?;
        let dealt = self.seats.iter().map(|s| s.dealt.colors.count_ones() as u8).max().unwrap_or(0);
        Some(ColorsReport { asked, dealt, confirmed: self.colors_confirmed })
    }

    /// The JSON `items` object, when `--items` was given.
    pub fn items_report(&self) -> Option<ItemsReport> {
        let choice = self.items?;
        let (big, carbuncle) = self.seats.iter().fold((0, 0), |a, s| (a.0 + s.dealt.items.0, a.1 + s.dealt.items.1));
        Some(ItemsReport { asked: choice.name().into(), big_puyo: big, carbuncle, confirmed: self.items_confirmed })
    }

    /// Holds the items asked for against what the bots were dealt: a seat dealt the wrong kind, or none of
    /// the kind asked for in [`options::ITEMS_CONFIRM_PIECES`] pieces, stops the bots naming the option; the same for the number of colours.
    fn check_options(&mut self) {
        if self.health_stop.is_some() {
            return;
        }
        let (mut items_ok, mut colors_ok) = (true, true);
        for s in &self.seats {
            let verdicts = [
                self.items
                    .filter(|_| !self.items_confirmed)
                    .map(|c| options::judge(c, s.dealt.items, s.dealt.bot_spawns)),
                self.colors
                    .filter(|_| !self.colors_confirmed)
                    .map(|n| options::judge_colors(n, s.dealt.colors.count_ones() as u8, s.dealt.bot_spawns)),
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
        self.items_confirmed |= self.items.is_some() && items_ok;
        self.colors_confirmed |= self.colors.is_some() && colors_ok;
    }

    /// Whether the address file has a `[restart]` script.
    pub fn can_restart(&self) -> bool {
        self.decoder.map().restart.is_some()
    }

    /// Whether a script is waiting for the person to press Start on pad 1.
    pub fn awaiting_start(&self) -> bool {
        matches!(&self.phase, Phase::Boot(r) | Phase::NextGame(r) if r.holding())
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
        self.matches.all_results(&self.seats, self.frames)
    }

    /// The longest chain of seat `i` over every game of the run.
    pub fn largest_chain(&self, i: usize) -> u32 {
        self.matches.largest_chain(&self.seats, i)
    }

    /// A runner for `steps`, seeded for the next game.
    fn script_runner(&self, steps: Vec<crate::memmap::schema::MenuStep>) -> MenuRunner {
        let mut r = MenuRunner::new(steps)
            .stop_on_failed_seek(self.matches.manual_fallback)
            .hold_before_final_start(self.hold_for_start);
        if let Some(seed) = self.matches.seed {
            r = r.with_seed(seed, self.matches.begun);
        }
        r
    }

    /// A new game begins: per-game counters start again. `reset` forgets per-piece state too (a game the
    /// session started; not one a person started, whose first piece is already being handled).
    fn begin_game(&mut self, reset: bool) {
        if reset {
            self.reset_tracking();
        }
        self.matches.begin(&mut self.seats, self.frames);
        self.outcome = None;
        self.game_start_pieces = self.seats.iter().map(|s| s.dealt.spawns).collect();
        self.mode_confirmed = false;
    }

    /// The game ended: record it and, for a match, start the restart script.
    fn end_game(&mut self, end: GameEnd, winner: Option<String>) {
        self.matches.end(&self.seats, self.frames, end, winner);
        if self.matches.restart
            && let Some(r) = self.decoder.map().restart.clone()
        {
            self.ready_timeout = r.ready_timeout;
            self.phase = Phase::NextGame(self.script_runner(self.script_steps(&r.steps)));
        }
    }

    /// The game in the wrong mode is over: the restart script runs again with its `seek` steps replaced by
    /// this attempt's cursor move; the game it reaches is checked like the first.
    fn retry_menus(&mut self) {
        self.abandoning = false;
        self.abandon_idle = 0;
        let Some(mut r) = self.decoder.map().restart.clone() else { return };
        let (button, times) = MODE_RETRY_MOVES[(self.mode_attempts as usize).saturating_sub(1)];
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
        self.ready_timeout = r.ready_timeout;
        self.phase = Phase::NextGame(self.script_runner(self.script_steps(&r.steps)));
    }

    /// The message for a script that ended without reaching the game.
    fn script_failed(&mut self, msg: String) {
        log::warn!("{msg}");
        self.menu_error = Some(msg);
        self.phase = Phase::Menus { waited: 0 };
    }

    /// The session's calibration, when on.
    pub fn calibration(&self) -> Option<&OnlineCalibration> {
        self.calibration.as_ref()
    }

    /// What calibration knows (`state` "off" when it is off).
    pub fn calibration_report(&self) -> CalibrationReport {
        match &self.calibration {
            Some(c) => c.report(),
            None => Learner::new(self.decoder.map(), CalibrateMode::Off).report(),
        }
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
        self.frames
    }

    /// Wall-clock time since the session started.
    pub fn elapsed(&self) -> Duration {
        self.started.elapsed()
    }

    /// The last decoded RAM.
    pub fn snapshot(&self) -> Option<&Snapshot> {
        self.last.as_ref()
    }

    /// The address file in use.
    pub fn address_file(&self) -> &AddressFile {
        self.decoder.map()
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
        self.wait_for_bots = true;
        self.log_health_stop &= !reports_health;
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

    /// Whether a pair falls for some player: by the learner's eyes while the contract is unsettled.
    fn pair_falling(&self, snap: &Snapshot) -> bool {
        match &self.calibration {
            Some(c) if !c.settled() => c.any_active(self.machine.ram()),
            _ => snap.players.iter().any(|p| p.controllable),
        }
    }

    /// Runs one frame: decide the pads from RAM with the function of the current phase, let calibration
    /// see the frame (and hand over what it learned), then clock the machine.
    pub fn step_frame(&mut self) -> Result<(), EmuError> {
        if self.phase.in_game() {
            self.phase = self.game_phase();
        }
        let mut pads = match self.phase {
            Phase::Boot(_) | Phase::NextGame(_) => self.script_frame(),
            Phase::Menus { .. } => self.menus_frame(),
            Phase::Opening => self.opening_frame(),
            Phase::Play => self.play_frame(),
            Phase::GameOver => self.game_over_frame(),
        };
        for (p, k) in pads.iter_mut().zip(self.keyboard) {
            *p |= k;
        }
        self.calibration_frame(pads);
        // Pad faults (a host's, when it injects them) belong to play, not to the scripted menus.
        self.machine.set_in_play(self.phase.in_game());
        self.machine.set_pads(pads);
        self.machine.clock_frame()?;
        self.frames += 1;
        Ok(())
    }

    /// The phase of a game under way: the opening while calibration is unsettled, else play until an
    /// outcome, then game over.
    fn game_phase(&self) -> Phase {
        if self.calibration.as_ref().is_some_and(|c| !c.settled()) {
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
        let snap = self.decoder.decode(self.machine.ram());
        let falling = self.pair_falling(&snap);
        (snap, falling)
    }

    /// [`Phase::Boot`] and [`Phase::NextGame`]: one frame of the menu or restart script.
    fn script_frame(&mut self) -> [u8; 2] {
        let (_, falling) = self.decode_before_play();
        let (Phase::Boot(runner) | Phase::NextGame(runner)) = &mut self.phase else { return [0; 2] };
        runner.person_pad(self.keyboard[0]);
        let status = runner.step(self.machine.ram(), falling);
        let script = if self.matches.begun == 0 { "menu" } else { "restart" };
        if !matches!(status, MenuStatus::Running(_)) {
            self.matches.seed_wait += runner.seed_waits().iter().sum::<u32>();
        }
        match status {
            MenuStatus::Running(p) => p,
            MenuStatus::Done => {
                self.phase = Phase::Menus { waited: 0 };
                [0; 2]
            }
            MenuStatus::TimedOut { step } => {
                self.script_failed(format!("{script} script: step {step} did not reach its goal in time"));
                [0; 2]
            }
            MenuStatus::SeekFailed { step, addr, goal } => {
                self.script_failed(format!(
                    "{script} script: step {step}: no button set ${addr:04X} to {goal}; drive the menus \
                     with the keys (the bots take over when a pair falls)"
                ));
                [0; 2]
            }
        }
    }

    /// [`Phase::Menus`]: waits for a first falling pair, which begins a game and plays its first frame.
    fn menus_frame(&mut self) -> [u8; 2] {
        let (snap, falling) = self.decode_before_play();
        // The locks a decoded frame shows before the game begins are seen (and dropped): a lock is told
        // from one decoded frame to the next, whatever the phase.
        self.watch_locks(&snap);
        if falling {
            self.menu_error = None;
            self.begin_game(true);
            self.phase = self.game_phase();
            return self.game_frame(snap);
        }
        let Phase::Menus { waited } = &mut self.phase else { return [0; 2] };
        *waited += 1;
        if *waited == self.ready_timeout && self.menu_error.is_none() {
            let msg = format!(
                "no falling pair {} frames after the menu script; play the menus yourself (or fix the \
                 [menu] steps of the address file)",
                self.ready_timeout
            );
            log::warn!("{msg}");
            self.menu_error = Some(msg);
        }
        self.last = Some(snap);
        [0; 2]
    }

    /// [`Phase::Opening`]: calibration drives the opening pieces; the seats it hands back play.
    fn opening_frame(&mut self) -> [u8; 2] {
        let snap = self.decoder.decode(self.machine.ram());
        self.game_frame(snap)
    }

    /// [`Phase::Play`]: the bots play and the contract is checked.
    fn play_frame(&mut self) -> [u8; 2] {
        let snap = self.decoder.decode(self.machine.ram());
        self.game_frame(snap)
    }

    /// [`Phase::GameOver`]: the fields stay watched; a person starting another game begins it.
    fn game_over_frame(&mut self) -> [u8; 2] {
        let snap = self.decoder.decode(self.machine.ram());
        self.game_frame(snap)
    }

    /// Calibration sees the frame's RAM and pads. What it learned reaches the session here, through
    /// [`OnlineCalibration::take_learned`] and nowhere else: the first learned contract replaces the
    /// guesses, and a fact learned after settling reaches the decoder the same frame.
    fn calibration_frame(&mut self, pads: [u8; 2]) {
        self.learn_from_frame(pads);
        self.update_contract();
    }

    /// Calibration's part of [`Session::calibration_frame`]: it sees the frame, and what it learned
    /// reaches the decoder and the seats.
    fn learn_from_frame(&mut self, pads: [u8; 2]) {
        let Some(cal) = self.calibration.as_mut() else { return };
        cal.observe(&Frame { ram: self.machine.ram(), pads });
        if let Some(learned) = cal.take_learned(&self.rom_sha1) {
            // The first learned file replaces the guesses; later ones only add colours (in the same
            // model order), so the pieces under way keep their plans.
            if !std::mem::replace(&mut self.calibrated, true) {
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
            self.rules = rules_for(&learned.movement.spawn);
            for s in &mut self.seats {
                s.set_moves(moves_of(&learned.movement));
                s.set_next_lag(learned.timing.next_lag);
            }
            log::debug!(
                "calibration: reading RAM with colours {:?} (empty {})",
                learned.codes.colors,
                learned.codes.empty
            );
            self.decoder = self.decoder.replaced_by(learned);
        } else if cal.failed()
            && let Some(cause) = self.health_cause.take()
        {
            // Learning again after a failed health check did not settle: the health failure is the
            // cause to report, with what calibration could not learn.
            let seen = format!("{}; learning the contract again did not settle ({})", cause.seen, cal.report().state);
            self.stop_bots(Failure { seen, ..cause });
        } else if cal.failed() && !std::mem::replace(&mut self.calibration_failed_logged, true) {
            log::error!("{}\nThe bots do not play on an unsettled contract.", cal.report().to_text().trim_end());
        } else if cal.unsettled_again() {
            self.calibrated = false;
            log::warn!("calibration: a contradiction unsettled the contract; the opening drives again");
        }
    }

    /// One frame of a game (every game phase): each seat's bot or calibration's opening presses, then the
    /// health, mode and options checks (not while calibrating or leaving a wrong-mode game) and the outcome.
    fn game_frame(&mut self, snap: Snapshot) -> [u8; 2] {
        let frame_start = Instant::now();
        let mut pads = [0u8; 2];
        let locks = self.watch_locks(&snap);
        let views = self.matches.nuisance.views(self.last.as_ref(), &snap, &locks, &self.rules);
        let ram = *self.machine.ram();
        // The driver thinks of A as clockwise; a cartridge whose A turns the other way gets A and B swapped.
        let swap_ab = self.decoder.map().movement.a_rotates == Turn::Counterclockwise;
        let calibrating = matches!(self.phase, Phase::Opening);
        let ctx = FrameContext { rules: &self.rules, wait_for_bot: self.wait_for_bots, frame_start };
        for (i, seat) in self.seats.iter_mut().enumerate() {
            let Some(view) = views.get(i) else { continue };
            let opening = match self.calibration.as_mut() {
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
                if swap_ab { crate::calib::swap_ab(b) } else { b }
            };
            if let Some(p) = pads.get_mut(seat.pad) {
                *p |= buttons;
            }
        }
        if self.abandoning {
            // Pairs dropped where they spawn fill the middle column: the wrong game ends in a few pieces.
            for s in &mut self.seats {
                s.health.reset();
            }
            pads = [crate::emu::pad::DOWN; 2];
            let mut moving = snap.players.iter().any(|p| p.controllable);
            if let Some(c) = self.calibration.as_mut() {
                // The opening cannot drive these pieces: they do not count toward its bound.
                c.restart_bound();
                moving |= c.any_active(&ram);
            }
            self.abandon_idle = if moving { 0 } else { self.abandon_idle + 1 };
            if self.abandon_idle > ABANDON_IDLE_FRAMES {
                // Before calibration settles the decoder may not see the top-out; no piece for this long
                // with Down held is the game's end all the same.
                log::info!("mode: no piece for {} frames; the wrong game is over", self.abandon_idle);
                self.retry_menus();
            }
        } else if !calibrating {
            self.check_health();
        }
        self.check_mode();
        if !calibrating && !self.abandoning {
            self.check_options();
        }
        self.update_outcome();
        self.last = Some(snap);
        pads
    }

    /// Each seat's lock on this decoded frame, in seat order (the one place locks are seen).
    fn watch_locks(&mut self, snap: &Snapshot) -> Vec<Option<Lock>> {
        let (frame, rules) = (self.frames, &self.rules);
        self.seats.iter_mut().zip(&snap.players).map(|(s, st)| s.watch_lock(st, frame, rules)).collect()
    }

    /// The contract the seats' lock judges hold the locks against: the codes calibration knows, and
    /// whether it has settled (calibration off: every code, settled).
    fn contract(&self) -> Contract {
        match &self.calibration {
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

    /// Acts on the first seat whose health check fails: the fact goes back to calibration once (when
    /// calibration is on and may learn it), else the bots stop with the failure.
    fn check_health(&mut self) {
        if self.health_stop.is_some() {
            return;
        }
        let Some(failure) = self.seats.iter().find_map(|s| s.health.verdict(&s.label)) else { return };
        let can_relearn = self.calibration.as_ref().is_some_and(|c| c.learner().mode() == CalibrateMode::Auto)
            && !self.relearned.contains(&failure.fact);
        if can_relearn && let Some(cal) = self.calibration.as_mut() {
            self.relearned.push(failure.fact);
            for s in &mut self.seats {
                s.reset_tracking();
            }
            if failure.fact == Fact::NextPair {
                // The rest of the contract predicts well: only the next bytes are watched again.
                log::warn!("health: {failure}; learning the next pair's bytes again");
                cal.relearn_next();
            } else {
                log::warn!("health: {failure}; learning the contract again");
                cal.relearn();
                self.calibrated = false;
            }
            self.health_cause = Some(failure);
            return;
        }
        self.stop_bots(failure);
    }

    /// In a 2-player mode both fields must get pairs: a game in which [`MODE_CHECK_PIECES`] pieces appear
    /// for one player and none for the other is not the mode asked for, whatever a mode byte says, and the
    /// bots stop with the failure rather than play it.
    fn check_mode(&mut self) {
        if self.mode_confirmed || self.health_stop.is_some() || self.seats.len() < 2 {
            return;
        }
        let placed: Vec<u32> = self
            .seats
            .iter()
            .enumerate()
            .map(|(i, s)| s.dealt.spawns.saturating_sub(self.game_start_pieces.get(i).copied().unwrap_or(0)))
            .collect();
        if placed.iter().all(|&p| p > 0) {
            self.mode_confirmed = true;
            return;
        }
        let (Some(busy), Some(idle)) =
            (placed.iter().position(|&p| p >= MODE_CHECK_PIECES), placed.iter().position(|&p| p == 0))
        else {
            return;
        };
        let mode_byte = match (&self.decoder.map().global.mode, self.last.as_ref().and_then(|s| s.mode)) {
            (Some(e), Some(v)) => format!(" (the mode byte ${:04X} reads {v})", e.addr),
            _ => String::new(),
        };
        let mut seen = format!(
            "{} had {} pieces and {} none: the game plays one field, not the {} game asked for{mode_byte}",
            self.seats[busy].label, placed[busy], self.seats[idle].label, self.mode
        );
        if self.abandoning {
            return;
        }
        let can_retry = self.decoder.map().restart.is_some();
        if can_retry && (self.mode_attempts as usize) < MODE_RETRY_MOVES.len() {
            let (button, times) = MODE_RETRY_MOVES[self.mode_attempts as usize];
            self.mode_attempts += 1;
            log::warn!(
                "mode: {seen}; ending this game and trying the menu again with {button} × {times} in place of the \
                 mode byte's seek (attempt {} of {})",
                self.mode_attempts,
                MODE_RETRY_MOVES.len()
            );
            self.abandoning = true;
            return;
        }
        if self.mode_attempts > 0 {
            seen += &format!("; {} menu attempts with other cursor moves did not reach it", self.mode_attempts);
        }
        self.stop_bots(Failure { player: self.seats[idle].label.clone(), fact: Fact::Mode, seen });
    }

    /// Stops the bots for good with `failure` (the health check failed and learning again did not help).
    fn stop_bots(&mut self, failure: Failure) {
        // The window's status line points here; a headless run reports the failure itself.
        let level = if self.log_health_stop { log::Level::Warn } else { log::Level::Debug };
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
        self.health_stop = Some(failure);
    }

    fn update_outcome(&mut self) {
        if self.outcome.is_some() {
            if self.seats.iter().all(|s| !s.stats.topped_out) {
                self.begin_game(false); // the person started a new game
            }
            return;
        }
        let out: Vec<usize> = (0..self.seats.len()).filter(|&i| self.seats[i].stats.topped_out).collect();
        if out.is_empty() {
            return;
        }
        if self.abandoning {
            self.retry_menus();
            return;
        }
        let winner =
            if self.seats.len() == 2 && out.len() == 1 { Some(self.seats[1 - out[0]].label.clone()) } else { None };
        self.outcome = Some(Outcome { winner: winner.clone(), frame: self.frames });
        let end = match (&winner, self.seats.len()) {
            (Some(_), _) => GameEnd::Win,
            (None, 2) => GameEnd::Draw,
            _ => GameEnd::Over,
        };
        self.end_game(end, winner);
    }
}
