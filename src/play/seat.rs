//! One player of a running game, frame by frame: on spawn (judge the last lock, ask the bot), collect
//! the bot's answer (hand the decision to the driver), on lock (the one [`Lock`] event goes to the
//! judge), watch for a top-out; then the driver's buttons.

use std::time::{Duration, Instant};

use crate::calib::ClockReport;
use crate::driver::{Driver, DriverStats, Lock, LockWatch};
use crate::game::movegen::{self, MoveRules};
use crate::game::timing::Timing;
use crate::game::{Cell, HEIGHT, Placement, Rules, WIDTH};
use crate::game::{Item, Piece};
use crate::memmap::PlayerState;

use super::explain::LockEvidence;
use super::health::SeatHealth;
use super::judge::{Contract, LockJudge, Unjudged, Verdict};
use super::thinker::Thinker;
use super::topout::TopOutWatch;
use super::view::PlayerView;

mod ask;
mod movement;
use ask::{Asking, BotLink, MAX_QUESTIONS_PER_PIECE};
use movement::Movement;

/// Whether a cell under the pair (below either puyo) is occupied: it locks as soon as the lock delay ends.
fn resting(st: &PlayerState) -> bool {
    let Some(o) = st.orientation else { return false };
    let (x, y) = (st.x as i32, st.y as i32);
    let cells = [(x, y), (x + o.dx() as i32, y + o.dy() as i32)];
    cells.iter().any(|&(cx, cy)| {
        (1..=WIDTH as i32).contains(&cx)
            && (0..HEIGHT as i32).contains(&(cy + 1))
            && st.field.get(cx as usize, (cy + 1) as usize) != Cell::Empty
            || cy + 1 >= HEIGHT as i32
    })
}

/// Every this many pieces on a measured clock, a pair falls [`GRAVITY_SAMPLE_ROWS`] rows by gravity before
/// the driver soft-drops it (two intervals between falls: what the clock learner needs to confirm a
/// piece's gravity).
pub const GRAVITY_SAMPLE_EVERY: u32 = 8;
/// See [`GRAVITY_SAMPLE_EVERY`].
pub const GRAVITY_SAMPLE_ROWS: u32 = 3;

/// Moves of the pair RAM showed without a press, in a session, from which the seat's bot plays with
/// caution ([`crate::game::View::caution`]): one may be a misread frame, more are a link that invents
/// presses.
pub const CAUTION_AFTER_UNASKED_MOVES: u64 = 2;

/// Counters of one player, for the report.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SeatStats {
    /// Pieces locked.
    pub pieces: u32,
    /// Locks that started a chain.
    pub chains: u32,
    /// Longest chain.
    pub largest_chain: u32,
    /// Points the model credited.
    pub model_score: u64,
    /// Comparisons of RAM with the model.
    pub checks: u64,
    /// Comparisons that failed.
    pub mismatches: u64,
    /// Pieces that locked somewhere other than the bot's decision (the driver re-planned around a fault).
    pub off_plan: u64,
    /// The player topped out.
    pub topped_out: bool,
    /// Time spent in the bot's search (on whichever thread ran it).
    pub think_time: Duration,
    /// CPU time of the bot's searches (on whichever thread ran them), abandoned ones included.
    pub think_cpu: Duration,
    /// Bot time on the frame loop's path: inline searches, and waits for a worker's answer.
    pub frame_path_time: Duration,
    /// Decisions made.
    pub decisions: u32,
    /// RAM / model differences not held against the contract (not counted as mismatches): while it was not
    /// settled, for a piece read with a guessed code, or only in cells holding a code no table lists.
    pub calibration_surprises: u64,
}

impl SeatStats {
    /// Puts the game's counters back to `start` (a game that did not count), keeping the time and CPU
    /// the bot spent, which were spent all the same.
    pub fn restore_counts(&mut self, start: &SeatStats) {
        *self = SeatStats {
            think_time: self.think_time,
            think_cpu: self.think_cpu,
            frame_path_time: self.frame_path_time,
            ..start.clone()
        };
    }
}

/// Rows a pair may fall while the bot waits for the next pair's bytes to become valid; on a clock that
/// drops it further in that wait, the bot is asked at the spawn with the current pair standing in for the
/// next one, and keeps that plan.
const NEXT_WAIT_ROWS: u32 = 2;

/// What every seat shares on one frame.
#[derive(Clone, Copy, Debug)]
pub struct FrameContext<'a> {
    /// The rules model.
    pub rules: &'a Rules,
    /// Wait for the bot's answer when the driver would act on it (headless runs).
    pub wait_for_bot: bool,
    /// When the frame started (for the time the loop waits on a worker).
    pub frame_start: Instant,
}

/// Where the piece under way stands, frame by frame.
#[derive(Clone, Debug, Default)]
struct PieceLife {
    /// The piece was under control on the last frame (by the decoder, or by calibration's reading while
    /// the opening drives).
    was_controllable: bool,
    /// Controllable frames of the current piece (its first is 1).
    frames: u32,
    /// A piece has been seen since the seat began (a top-out needs one).
    seen: bool,
    /// Frames without a controllable piece, to tell a top-out from a long chain.
    topout: TopOutWatch,
    /// Driver counters when the piece under way spawned.
    driver_at_spawn: DriverStats,
}

/// How the seat reads the next pair: when its bytes are valid, whether their table is known, what they
/// last read, and whether the bot's plan was made without them.
#[derive(Clone, Debug, Default)]
struct NextReading {
    /// Frames after a spawn before the next pair's bytes are valid (`[timing] next_lag`).
    lag: u32,
    /// Calibration is still learning the next pair's code table ([`Seat::set_next_table_unknown`]).
    table_unknown: bool,
    /// The last next pair read while the piece under way was controllable: the pair that should spawn next.
    last: Option<Piece>,
    /// The bot was asked at the spawn, with the current pair standing in for a next pair whose bytes
    /// come too late on this clock: its plan is kept when they do come (a plan changed mid-fall, from
    /// a pair already on its way, goes astray more often than the next pair helps).
    planned_without: bool,
}

/// What the seat was dealt: pieces, items and colours (the options check reads them).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Dealt {
    /// Pieces that became controllable (a person's slow piece counts as soon as it appears).
    pub spawns: u32,
    /// Pieces dealt to the bot (spawns the bot, not the calibration opening, handled).
    pub bot_spawns: u32,
    /// Items dealt to the bot, (Big Puyo, Carbuncle).
    pub items: (u32, u32),
    /// The colours dealt to the bot, one bit per colour class.
    pub colors: u8,
}

/// One player of the game.
pub struct Seat {
    /// "P1" / "P2".
    pub label: String,
    /// 0-based pad index.
    pub pad: usize,
    /// The bot's name (for reports).
    pub bot_name: String,
    /// Whether the bot plays now.
    pub bot_on: bool,
    /// The bot and the question in flight.
    bot: BotLink,
    driver: Driver,
    /// Tells the piece's lock once.
    locks: LockWatch,
    /// Judges each lock against the contract.
    judge: LockJudge,
    piece: PieceLife,
    /// Counters.
    pub stats: SeatStats,
    /// Whether the contract's predictions hold, piece after piece.
    pub health: SeatHealth,
    /// What the seat was dealt.
    pub dealt: Dealt,
    /// Score read from RAM, when the address file knows where it is.
    pub ram_score: Option<u32>,
    /// The cartridge's movement rules (kicks) and the game's clock, for the bot's search and the
    /// driver's re-plans.
    movement: Movement,
    /// How the next pair is read.
    next: NextReading,
}

impl std::fmt::Debug for Seat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Seat")
            .field("label", &self.label)
            .field("bot_on", &self.bot_on)
            .field("stats", &self.stats)
            .finish()
    }
}

impl Seat {
    /// A seat on 0-based `pad`, with an optional bot.
    pub fn new(label: impl Into<String>, pad: usize, bot: Option<(String, Thinker)>, bot_on: bool, speed: u8) -> Seat {
        let (bot_name, thinker) = match bot {
            Some((n, t)) => (n, Some(t)),
            None => ("human".to_string(), None),
        };
        Seat {
            label: label.into(),
            pad,
            bot_on: bot_on && thinker.is_some(),
            bot_name,
            bot: BotLink::new(thinker),
            driver: Driver::new(speed),
            locks: LockWatch::default(),
            judge: LockJudge::default(),
            piece: PieceLife::default(),
            stats: SeatStats::default(),
            health: SeatHealth::default(),
            dealt: Dealt::default(),
            ram_score: None,
            movement: Movement::default(),
            next: NextReading::default(),
        }
    }

    /// Controllable frames of the piece under way (0 when none is under control).
    pub fn piece_frames(&self) -> u32 {
        if self.piece.was_controllable { self.piece.frames } else { 0 }
    }

    /// The bot's failure to choose (a bot process that misbehaved), as the health failure that stops the bots.
    pub fn bot_failure(&self) -> Option<super::health::Failure> {
        let e = self.bot.failure.as_ref()?;
        Some(super::health::Failure { player: self.label.clone(), fact: super::health::Fact::Bot, seen: e.to_string() })
    }

    /// Whether the seat has a bot at all.
    pub fn has_bot(&self) -> bool {
        self.bot.thinker.is_some()
    }

    /// The bot's speed setting.
    pub fn speed(&self) -> u8 {
        self.driver.speed()
    }

    /// Changes the bot's speed setting (the measured clock is counted at the new pace).
    pub fn set_speed(&mut self, speed: u8) {
        self.driver.set_speed(speed);
        self.play_on_measured_clock();
    }

    /// Where the bot is taking the current piece.
    pub fn target(&self) -> Option<Placement> {
        self.driver.target()
    }

    /// Chain length the bot expects from its current decision.
    pub fn expected_chain(&self) -> u32 {
        self.bot.expected_chain
    }

    /// The bot's last decision time in milliseconds.
    pub fn think_ms(&self) -> f32 {
        self.bot.think_ms
    }

    /// The bot's intent with its last decision (e.g. `FIRE 4: 30 = CAP`), when it said one.
    pub fn intent(&self) -> Option<&str> {
        self.bot.intent.as_deref()
    }

    /// The decision made since the last call, in a few words for the recording
    /// (`FIRE 4: 30 = CAP -> x3:Up`), once.
    pub fn take_decision_note(&mut self) -> Option<String> {
        self.bot.decided.take()
    }

    /// Driver counters.
    pub fn driver_stats(&self) -> DriverStats {
        self.driver.stats()
    }

    /// Uses the cartridge's movement rules from now on (the game's timing, set apart, is kept).
    pub fn set_moves(&mut self, moves: MoveRules) {
        self.movement.moves = MoveRules { timing: self.movement.moves.timing, ..moves };
    }

    /// Plays on `timing`, given at set-up (`[lab] timing`), from now on, whatever calibration measures:
    /// the bot's reachable placements and the driver's plans count only presses that arrive before the
    /// pair locks ([`MoveRules::timing`]). `None`: the clock calibration measures, as it is handed over
    /// ([`Seat::set_measured_clock`]; the untimed walk until then, the pair taken to wait at its row).
    pub fn set_timing(&mut self, timing: Option<Timing>) {
        self.movement.give(timing);
        self.play_on(timing);
    }

    /// Calibration's hand-over of the game's clock as measured for this player (the latest piece's
    /// gravity), when it changed: the seat plays on it at its own pace, unless it was given a clock.
    pub fn set_measured_clock(&mut self, clock: ClockReport) {
        self.movement.hand_over(clock);
        self.play_on_measured_clock();
    }

    /// The clock calibration last handed over for this player.
    pub fn measured_clock(&self) -> Option<&ClockReport> {
        self.movement.measured()
    }

    /// Plays on the measured clock at the driver's pace (its presses' cost): the bot's question and the
    /// driver's plan at the next spawn take it. Nothing when the seat was given a clock.
    fn play_on_measured_clock(&mut self) {
        let Some(measured) = self.movement.measured_timing(self.driver.press_cost()) else { return };
        self.play_on(measured.timing);
        self.movement.sample_lock = measured.sample_lock;
    }

    /// Plays on `timing` from now on (`None`: the untimed walk).
    fn play_on(&mut self, timing: Option<Timing>) {
        if timing != self.movement.moves.timing {
            match timing {
                Some(t) => {
                    log::debug!("{}: playing on the game's clock {t} from piece {}", self.label, self.stats.pieces)
                }
                None => log::debug!("{}: playing untimed from piece {}", self.label, self.stats.pieces),
            }
        }
        self.movement.moves.timing = timing;
        self.health.set_timing(timing);
    }

    /// The game's clock the seat plays on, if any.
    pub fn timing(&self) -> Option<Timing> {
        self.movement.moves.timing
    }

    /// Reads the next pair only from `lag` frames after a spawn on (the cartridge's `[timing] next_lag`).
    pub fn set_next_lag(&mut self, lag: u32) {
        self.next.lag = lag;
    }

    /// The seat's bot is the chain bot at full strength with the full search: an Endless game that never
    /// fires a long chain, or tops out before the pieces asked for, is not a normal game for it.
    pub fn set_aims_long_chains(&mut self, aims: bool) {
        self.bot.aims_long_chains = aims;
    }

    /// The seat's bot aims at long chains ([`Seat::set_aims_long_chains`]).
    pub fn aims_long_chains(&self) -> bool {
        self.bot.aims_long_chains
    }

    /// Calibration is still learning the next pair's code table: a next pair that cannot be read is not
    /// counted against its bytes, and the bot is asked with the current pair standing in for it.
    pub fn set_next_table_unknown(&mut self, unknown: bool) {
        self.next.table_unknown = unknown;
    }

    /// The contract the locks are judged against changed.
    pub fn set_contract(&mut self, contract: Contract) {
        self.judge.set_contract(contract);
    }

    /// The contract the seat's locks are judged against.
    pub fn contract(&self) -> Contract {
        self.judge.contract()
    }

    /// Lets go of the current piece and forgets the bot's question (bot switched, contract relearned).
    pub fn forget_piece(&mut self) {
        self.driver.clear();
        self.judge.forget_decision();
        self.bot.cancel();
    }

    /// Forgets everything about the piece and the last lock (after a save state is loaded, or when the
    /// contract the predictions used has changed).
    pub fn reset_tracking(&mut self) {
        self.forget_piece();
        self.judge.reset();
        self.piece.was_controllable = false;
        self.piece.topout.reset();
        self.next.last = None;
        self.health.clear_window();
    }

    /// Forgets the last lock's prediction (its contract was replaced).
    pub fn reset_prediction(&mut self) {
        self.judge.reset();
        self.driver.clear();
        self.next.last = None;
        self.health.reset();
    }

    /// Forgets the last lock's prediction only (it was made with codes since replaced).
    pub fn forget_last_prediction(&mut self) {
        self.judge.reset();
    }

    /// Takes in the player's decoded state on frame `frame` (every frame RAM is decoded, menus
    /// included); returns the lock, on the frame the piece locked. This is the one place a lock is seen.
    pub fn watch_lock(&mut self, st: &PlayerState, frame: u64, rules: &Rules) -> Option<Lock> {
        let mut lock = self.locks.frame(st, frame, rules)?;
        lock.decided = self.driver.decision().map(|d| d.placement);
        Some(lock)
    }

    /// Bookkeeping on a frame the calibration opening drives the seat: pieces are counted, nothing is
    /// predicted (the contract is not known yet), and the bot is not asked.
    pub fn opening_frame(&mut self, active: bool) {
        if active && !self.piece.was_controllable {
            self.dealt.spawns += 1;
            self.piece.seen = true;
            self.piece.topout.reset();
            self.judge.reset();
            self.forget_piece();
        } else if !active && self.piece.was_controllable {
            self.stats.pieces += 1;
        }
        self.piece.was_controllable = active;
    }

    /// The seat's work for one frame, with the frame's `lock` of this player (from [`Seat::watch_lock`]);
    /// returns its buttons.
    pub fn frame(&mut self, view: &PlayerView, lock: Option<&Lock>, ctx: &FrameContext<'_>) -> u8 {
        let st = &view.own;
        self.ram_score = st.score;
        let controllable = st.controllable;
        if controllable && !self.piece.was_controllable {
            self.on_spawn(view, ctx);
        }
        if controllable {
            self.piece.frames += 1;
            self.judge.follow(st);
            if st.next.is_some() && self.piece.frames > self.next.lag {
                self.next.last = st.next;
            }
            self.ask_again_if_next_changed(view, ctx);
            self.collect_answer(st, ctx);
        } else if self.piece.was_controllable {
            self.on_lock(lock, ctx.rules);
        }
        self.watch_topout(st, ctx.rules);
        self.piece.was_controllable = controllable;
        if !self.judge.contract().settled {
            // Health judges the settled contract only.
            self.health.reset();
        }

        if !self.bot_on {
            return 0;
        }
        self.driver.tick(st)
    }

    /// A new piece: judges the last lock now that the game has resolved it, and asks the bot.
    fn on_spawn(&mut self, view: &PlayerView, ctx: &FrameContext<'_>) {
        let st = &view.own;
        if self.stats.topped_out {
            // Pieces again after a top-out: the person started a new game from the menus.
            log::info!("{}: a new game", self.label);
            self.stats.topped_out = false;
            self.judge.reset();
        }
        self.count_dealt(st);
        let lock_matched = self.judge_last_lock(st);
        // The next pair read during the last piece should be the one that spawned: a pair is the same pair
        // either way round (the bot plans both), so only which two colours it holds is compared.
        let next_confirmed = match (self.next.last.take(), st.current) {
            (Some(read), Some(spawned)) => Some(same_piece(read, spawned)),
            _ => None,
        };
        let asking = self.bot_on && self.bot.thinker.is_some();
        let next_read = st.next.is_some() || self.next.table_unknown;
        self.health.spawned(asking, st.current.is_some(), next_read, next_confirmed, lock_matched);
        self.piece.driver_at_spawn = self.driver.stats();
        self.piece.seen = true;
        self.piece.topout.reset();
        self.piece.frames = 0;
        self.next.planned_without = false;
        self.bot.new_piece();
        self.forget_piece();
        if self.movement.moves.timing.is_some() && self.stats.pieces % GRAVITY_SAMPLE_EVERY == GRAVITY_SAMPLE_EVERY - 1
        {
            // Now and then a pair falls a few rows by gravity before the soft drop, so the clock keeps
            // measuring a gravity that changes with the level (all the way down while the lock delay is
            // unmeasured).
            self.driver.let_fall(if self.movement.sample_lock { u32::MAX } else { GRAVITY_SAMPLE_ROWS });
        }
        let on_something = resting(st);
        if asking && self.next.lag == 0 {
            self.ask(view, ctx);
        } else if asking
            && (on_something || self.next.table_unknown || self.next_wait_costs_rows())
            && let Some(current) = st.current
        {
            // A pair that spawns on something locks within the game's lock delay, maybe before the next
            // pair's bytes are valid; on a fast clock the wait for them costs rows of reach; while their
            // table is learned they never read. The bot is asked at once with the next pair as it reads
            // now (or the current pair in its place); a resting pair is asked again when the next pair
            // becomes readable, a falling one keeps its plan.
            self.next.planned_without = !on_something && !self.next.table_unknown;
            self.ask_with(view, ctx, st.next.unwrap_or(current));
        }
    }

    /// Whether waiting for the next pair's bytes ([`Self::set_next_lag`]) would let the pair fall
    /// [`NEXT_WAIT_ROWS`] rows or more on the clock played on: then the bot does not wait for them.
    fn next_wait_costs_rows(&self) -> bool {
        self.movement.moves.timing.is_some_and(|t| self.next.lag >= u32::from(t.frames_per_row) * NEXT_WAIT_ROWS)
    }

    /// Counts the piece that spawned, and what the bot was dealt.
    fn count_dealt(&mut self, st: &PlayerState) {
        self.dealt.spawns += 1;
        self.dealt.bot_spawns += 1;
        match st.item() {
            Some(Item::BigPuyo) => self.dealt.items.0 += 1,
            Some(Item::Carbuncle) => self.dealt.items.1 += 1,
            None => {}
        }
        if let Some(Piece::Pair(p)) = st.current {
            self.dealt.colors |= (1 << p.pivot.index()) | (1 << p.child.index());
        }
    }

    /// Asks again when the next pair read now is not the one the bot was asked with (its bytes became
    /// valid, or changed, some frames after the spawn), or asks for the first time when the pairs could
    /// not be read at the spawn.
    fn ask_again_if_next_changed(&mut self, view: &PlayerView, ctx: &FrameContext<'_>) {
        if !self.bot_on
            || self.bot.thinker.is_none()
            || self.bot.questions >= MAX_QUESTIONS_PER_PIECE
            || self.piece.frames <= self.next.lag
        {
            return;
        }
        let (Some(_), Some(next)) = (view.own.current, view.own.next) else { return };
        self.health.read_late(true, true);
        if self.next.planned_without || self.bot.asked_next.is_some_and(|asked| asked == next) {
            return;
        }
        log::debug!("{}: the next pair now reads {next}; asking again", self.label);
        // The same piece: its plan goes, the driver's count of its frames stays.
        self.driver.forget_plan();
        self.judge.forget_decision();
        self.bot.cancel();
        self.ask(view, ctx);
    }

    /// Asks the bot about the current piece with the next one, when both can be read; while the next
    /// pair's code table is still being learned, with the current pair standing in for the next one (a
    /// placement chosen on one pair beats a pair left to fall; it is asked again once the next reads).
    fn ask(&mut self, view: &PlayerView, ctx: &FrameContext<'_>) {
        match (view.own.next, view.own.current) {
            (Some(next), _) => self.ask_with(view, ctx, next),
            (None, Some(current)) if self.next.table_unknown => self.ask_with(view, ctx, current),
            _ => {}
        }
    }

    /// Tells health what the game's clock leaves the bot: the placements an empty field keeps in reach,
    /// and whether it cuts columns off the field of this piece (`timing`: the search's clock), saying once
    /// a game when it cuts the empty field's reach or narrowed half of the pieces.
    fn watch_clock(&mut self, view: &PlayerView, rules: &Rules, timing: Option<Timing>) {
        let spawn = crate::game::PiecePosition::spawn(rules);
        // The clock's own reach: the presses from the driver's first frame on.
        let first = self.driver.first_action_frame(true);
        let open = self.movement.moves.timing.map(|t| {
            movegen::open_reach(
                spawn,
                &MoveRules { timing: Some(self.driver.fastest(t, first)), ..self.movement.moves },
            )
        });
        self.health.set_open_reach(open);
        if timing.is_some()
            && movegen::cut_off(&view.own.field, spawn, &MoveRules { timing, ..self.movement.moves }) != 0
        {
            self.health.clock_cut();
        }
        if let Some(what) = self.health.clock_limits_play() {
            log::warn!(
                "{}: {what} ({}): the bot's choice is narrowed, which costs chains; a slower game setting plays \
                 better",
                self.label,
                self.movement.moves.timing.map_or_else(String::new, |t| t.to_string())
            );
        }
    }

    /// Asks the bot about the current pair with `next` as the pair after it.
    fn ask_with(&mut self, view: &PlayerView, ctx: &FrameContext<'_>, next: Piece) {
        // The bot walks from the spawn on the fastest pace the driver takes (it hurries when its speed
        // setting is too slow for the placement), its presses starting no sooner than now.
        let timing = self.movement.moves.timing.map(|t| self.driver.fastest_from_spawn(t, self.piece.frames));
        self.watch_clock(view, ctx.rules, timing);
        // Moves nobody pressed, seen more than once: the link is flaky, and the bot keeps more room.
        let caution = self.driver.stats().unasked_moves >= CAUTION_AFTER_UNASKED_MOVES;
        let asking = Asking {
            rules: ctx.rules,
            pieces_played: self.stats.pieces,
            moves: MoveRules { timing, ..self.movement.moves },
            caution,
        };
        if self.bot.ask(view, next, &asking, &mut self.stats) {
            self.health.asked();
        }
    }

    /// Hands the last lock's check to the judge and counts its verdict. Returns whether the prediction
    /// held (`None` when there was none, or when the lock could not judge the contract).
    fn judge_last_lock(&mut self, st: &PlayerState) -> Option<bool> {
        let (verdict, pred) = self.judge.judge(st, &self.label)?;
        let astray = match &verdict {
            Verdict::Mismatch => Some(false),
            Verdict::Match if pred.moved_off_plan_at_lock() => Some(true),
            _ => None,
        };
        if let Some(nearby) = astray {
            let evidence = LockEvidence {
                before: pred.before,
                piece: pred.piece,
                seen_at: pred.seen_at,
                decided: pred.decided,
                found: st.field,
            };
            self.health.lock_astray(evidence, nearby);
        }
        match &verdict {
            Verdict::CannotJudge(Unjudged::GuessAgreed) => return None,
            Verdict::CannotJudge(Unjudged::Guessed { code }) => {
                self.stats.calibration_surprises += 1;
                self.health.unread_codes(&[*code]);
                return None;
            }
            Verdict::CannotJudge(Unjudged::Unread { codes }) => {
                // Health counts them, and fails when the same code keeps coming back.
                self.stats.calibration_surprises += 1;
                self.health.unread_codes(codes);
                return None;
            }
            Verdict::CannotJudge(Unjudged::Unsettled) => self.stats.calibration_surprises += 1,
            Verdict::Mismatch => self.stats.mismatches += 1,
            Verdict::Match => {}
        }
        self.stats.checks += 1;
        if pred.summary.chains > 0 {
            self.stats.chains += 1;
            self.stats.largest_chain = self.stats.largest_chain.max(pred.summary.chains);
        }
        self.stats.model_score += pred.summary.score as u64;
        if let Some(d) = pred.decided
            && !movegen::same_outcome(pred.piece, pred.placement, d)
        {
            log::debug!("{}: {} locked at {}, decided {}", self.label, pred.piece, pred.placement, d);
            self.stats.off_plan += 1;
            self.health.off_plan();
        }
        Some(verdict == Verdict::Match)
    }

    /// Takes the bot's answer once it is there (waiting for it when the driver would act on it) and
    /// hands the decision to the driver.
    fn collect_answer(&mut self, st: &PlayerState, ctx: &FrameContext<'_>) {
        let must_have = ctx.wait_for_bot
            && self.piece.frames >= self.driver.first_action_frame(self.movement.moves.timing.is_some());
        let Some(decision) = self.bot.collect(must_have, ctx, &mut self.stats) else { return };
        self.driver.start(decision, st, self.movement.moves);
    }

    /// The piece locked: its [`Lock`] (when the model could play it) goes to the judge, whose prediction
    /// the next spawn checks; health counts the piece's presses.
    fn on_lock(&mut self, lock: Option<&Lock>, rules: &Rules) {
        self.stats.pieces += 1;
        self.judge.locked(lock, rules);
        if self.piece.frames <= self.next.lag {
            // The pair locked before the next pair's bytes were due (it spawned on something): that the
            // next pair was not read says nothing about its bytes.
            self.health.read_late(false, true);
        }
        let (now, then) = (self.driver.stats(), self.piece.driver_at_spawn);
        self.health.presses(
            now.presses.saturating_sub(then.presses),
            now.replans.saturating_sub(then.replans),
            now.gave_up > then.gave_up,
        );
        self.health.refused(now.refused.saturating_sub(then.refused));
    }

    /// Counts a top-out once the spawn cell stays filled with no piece under control and the field
    /// stands still (see [`TopOutWatch`]).
    fn watch_topout(&mut self, st: &PlayerState, rules: &Rules) {
        if st.controllable || !self.piece.seen {
            return;
        }
        if self.piece.topout.idle_frame(&st.field, rules) && !self.stats.topped_out {
            log::info!("{} topped out after {} pieces", self.label, self.stats.pieces);
            self.stats.topped_out = true;
            self.health.topped_out(st.field.count());
        }
    }
}

/// The same piece, a pair either way round.
fn same_piece(a: Piece, b: Piece) -> bool {
    match (a, b) {
        (Piece::Pair(x), Piece::Pair(y)) => {
            (x.pivot, x.child) == (y.pivot, y.child) || (x.pivot, x.child) == (y.child, y.pivot)
        }
        _ => a == b,
    }
}
