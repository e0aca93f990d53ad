//! One player of a running game, frame by frame: on spawn (check the last lock, ask the bot), collect
//! the bot's answer (hand the decision to the driver), on lock (predict the field), watch for a top-out;
//! then the driver's buttons.

use std::time::{Duration, Instant};

use crate::calib::KnownCodes;
use crate::driver::{Check, Driver, DriverStats, Observation, Surroundings, Verifier};
use crate::game::movegen::{self, MoveRules, PiecePosition};
use crate::game::{Cell, HEIGHT, Orientation, Placement, Rules, WIDTH};
use crate::game::{Item, Piece};
use crate::memmap::{PlayerState, UnknownCell};

use super::health::SeatHealth;
use super::thinker::{Request, Thinker};
use super::topout::TopOutWatch;

/// Most questions about one piece: the first, and new ones when the next pair changes or becomes readable
/// after the spawn (a slide animation); a byte that keeps changing does not keep the bot busy.
const MAX_QUESTIONS_PER_PIECE: u32 = 4;

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

/// What every seat shares on one frame.
#[derive(Clone, Copy, Debug)]
pub struct FrameContext<'a> {
    /// The rules model.
    pub rules: &'a Rules,
    /// The match as this seat sees it, in 2P: the opponent's field and the nuisance on its way.
    pub opponent: Option<super::thinker::MatchView>,
    /// Wait for the bot's answer when the driver would act on it (headless runs).
    pub wait_for_bot: bool,
    /// When the frame started (for the time the loop waits on a worker).
    pub frame_start: Instant,
}

/// One player of the game.
pub struct Seat {
    /// "P1" / "P2".
    pub label: String,
    /// 0-based pad index.
    pub pad: usize,
    /// The bot's name (for reports).
    pub bot_name: String,
    /// The bot, when the seat has one.
    thinker: Option<Thinker>,
    /// Whether the bot plays now.
    pub bot_on: bool,
    driver: Driver,
    verifier: Verifier,
    /// Counters.
    pub stats: SeatStats,
    was_controllable: bool,
    waiting: bool,
    /// Controllable frames of the current piece (its first is 1).
    piece_frames: u32,
    /// When the question in flight was asked.
    asked_at: Option<Instant>,
    /// Frames without a controllable piece, to tell a top-out from a long chain.
    topout: TopOutWatch,
    seen_piece: bool,
    /// Chain length the bot expects from its current decision.
    pub expected_chain: u32,
    /// Last decision time in milliseconds.
    pub think_ms: f32,
    /// Score read from RAM, when the address file knows where it is.
    pub ram_score: Option<u32>,
    /// The cartridge's movement rules (kicks), for the driver's re-plans.
    moves: MoveRules,
    /// Tags the questions to the bot.
    next_id: u64,
    /// Whether the contract's predictions hold, piece after piece.
    pub health: SeatHealth,
    /// The next pair the bot was last asked with, for the piece under way.
    asked_next: Option<Piece>,
    /// Questions asked about the piece under way.
    questions: u32,
    /// The last next pair read while the piece under way was controllable: the pair that should spawn next.
    last_next: Option<Piece>,
    /// Driver counters when the piece under way spawned.
    driver_at_spawn: DriverStats,
    /// Frames after a spawn before the next pair's bytes are valid (`[timing] next_lag`).
    next_lag: u32,
    /// Pieces that became controllable (a person's slow piece counts as soon as it appears).
    pub spawns: u32,
    /// Items dealt to the bot, (Big Puyo, Carbuncle), and pieces it was dealt in all.
    pub items_dealt: (u32, u32),
    /// Pieces dealt to the bot (spawns the bot, not the calibration opening, handled).
    pub bot_spawns: u32,
    /// The colours dealt to the bot, one bit per colour class.
    pub colors_dealt: u8,
    /// Which piece codes the decoder reads from knowledge rather than from a guess: a lock of a piece read
    /// with a guessed code is not held against the contract.
    pub known_codes: KnownCodes,
    /// The piece being tracked was read with a guessed code (see `known_codes`).
    tracked_guess: bool,
    /// The last locked piece was read with a guessed code: its check is calibration's, not health's.
    locked_guess: bool,
    /// The raw pivot code of the piece being tracked (names a guessed code in health's messages).
    tracked_code: u8,
    /// The raw pivot code of the last locked piece.
    locked_code: u8,
    /// Cells of the field the tracked prediction starts from whose code no table lists.
    tracked_unknown: Vec<UnknownCell>,
    /// The same for the last lock's prediction.
    locked_unknown: Vec<UnknownCell>,
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
            thinker,
            driver: Driver::new(speed),
            verifier: Verifier::default(),
            stats: SeatStats::default(),
            was_controllable: false,
            waiting: false,
            piece_frames: 0,
            asked_at: None,
            topout: TopOutWatch::default(),
            seen_piece: false,
            expected_chain: 0,
            think_ms: 0.0,
            ram_score: None,
            moves: MoveRules::default(),
            next_id: 0,
            health: SeatHealth::default(),
            asked_next: None,
            questions: 0,
            last_next: None,
            driver_at_spawn: DriverStats::default(),
            next_lag: 0,
            spawns: 0,
            items_dealt: (0, 0),
            bot_spawns: 0,
            known_codes: KnownCodes::ALL,
            tracked_guess: false,
            locked_guess: false,
            tracked_code: 0,
            locked_code: 0,
            tracked_unknown: Vec::new(),
            locked_unknown: Vec::new(),
            colors_dealt: 0,
        }
    }

    /// Whether the seat has a bot at all.
    pub fn has_bot(&self) -> bool {
        self.thinker.is_some()
    }

    /// The bot's speed setting.
    pub fn speed(&self) -> u8 {
        self.driver.speed()
    }

    /// Changes the bot's speed setting.
    pub fn set_speed(&mut self, speed: u8) {
        self.driver.set_speed(speed);
    }

    /// Where the bot is taking the current piece.
    pub fn target(&self) -> Option<Placement> {
        self.driver.target()
    }

    /// Driver counters.
    pub fn driver_stats(&self) -> DriverStats {
        self.driver.stats()
    }

    /// Uses the cartridge's movement rules from now on.
    pub fn set_moves(&mut self, moves: MoveRules) {
        self.moves = moves;
    }

    /// Reads the next pair only from `lag` frames after a spawn on (the cartridge's `[timing] next_lag`).
    pub fn set_next_lag(&mut self, lag: u32) {
        self.next_lag = lag;
    }

    /// Lets go of the current piece and forgets the bot's question (bot switched, contract relearned).
    pub fn forget_piece(&mut self) {
        self.driver.clear();
        self.waiting = false;
        if let Some(t) = self.thinker.as_mut() {
            t.cancel();
        }
    }

    /// Forgets everything about the piece and the last lock (after a save state is loaded, or when the
    /// contract the predictions used has changed).
    pub fn reset_tracking(&mut self) {
        self.forget_piece();
        self.verifier.reset();
        self.was_controllable = false;
        self.topout.reset();
        self.last_next = None;
        self.health.clear_window();
    }

    /// Forgets the last lock's prediction (its contract was replaced).
    pub fn reset_prediction(&mut self) {
        self.verifier.reset();
        self.driver.clear();
        self.last_next = None;
        self.health.reset();
    }

    /// Forgets the last lock's prediction only (it was made with codes since replaced).
    pub fn forget_last_prediction(&mut self) {
        self.verifier.reset();
    }

    /// Bookkeeping on a frame the calibration opening drives the seat: pieces are counted, nothing is
    /// predicted (the contract is not known yet), and the bot is not asked.
    pub fn opening_frame(&mut self, active: bool) {
        if active && !self.was_controllable {
            self.spawns += 1;
            self.seen_piece = true;
            self.topout.reset();
            self.verifier.reset();
            self.forget_piece();
        } else if !active && self.was_controllable {
            self.stats.pieces += 1;
        }
        self.was_controllable = active;
    }

    /// The seat's work for one frame; returns its buttons.
    pub fn frame(&mut self, st: &PlayerState, ctx: &FrameContext<'_>) -> u8 {
        self.ram_score = st.score;
        let controllable = st.controllable;
        if controllable && !self.was_controllable {
            self.on_spawn(st, ctx);
        }
        if controllable {
            self.piece_frames += 1;
            if let (Some(piece), Some(o)) = (st.current, st.orientation) {
                self.verifier.track(&st.field, piece, Placement::new(st.x, o));
                self.tracked_guess = self.read_with_guess(piece, st.current_assigned);
                self.tracked_code = st.current_codes.0;
                self.tracked_unknown.clone_from(&st.unknown_cells);
            }
            if st.next.is_some() && self.piece_frames > self.next_lag {
                self.last_next = st.next;
            }
            self.ask_again_if_next_changed(st, ctx);
            self.collect_answer(st, ctx);
        } else if self.was_controllable {
            self.on_lock(ctx.rules);
        }
        self.watch_topout(st, ctx.rules);
        self.was_controllable = controllable;

        if !self.bot_on {
            return 0;
        }
        let orientation = st.orientation.unwrap_or(Orientation::Up);
        self.driver.tick(Observation { controllable, pose: PiecePosition { x: st.x, y: st.y, orientation } })
    }

    /// A new piece: checks the last lock now that the game has resolved it, and asks the bot.
    fn on_spawn(&mut self, st: &PlayerState, ctx: &FrameContext<'_>) {
        if self.stats.topped_out {
            // Pieces again after a top-out: the person started a new game from the menus.
            log::info!("{}: a new game", self.label);
            self.stats.topped_out = false;
            self.verifier.reset();
        }
        self.spawns += 1;
        self.bot_spawns += 1;
        match st.item() {
            Some(Item::BigPuyo) => self.items_dealt.0 += 1,
            Some(Item::Carbuncle) => self.items_dealt.1 += 1,
            None => {}
        }
        if let Some(Piece::Pair(p)) = st.current {
            self.colors_dealt |= (1 << p.pivot.index()) | (1 << p.child.index());
        }
        let lock_matched = self.check_last_lock(st);
        // The next pair read during the last piece should be the one that spawned: a pair is the same pair
        // either way round (the bot plans both), so only which two colours it holds is compared.
        let next_confirmed = match (self.last_next.take(), st.current) {
            (Some(read), Some(spawned)) => Some(same_piece(read, spawned)),
            _ => None,
        };
        let asking = self.bot_on && self.thinker.is_some();
        self.health.spawned(asking, st.current.is_some(), st.next.is_some(), next_confirmed, lock_matched);
        self.driver_at_spawn = self.driver.stats();
        self.seen_piece = true;
        self.topout.reset();
        self.piece_frames = 0;
        self.questions = 0;
        self.asked_next = None;
        self.forget_piece();
        if asking && self.next_lag == 0 {
            self.ask(st, ctx);
        } else if asking
            && resting(st)
            && let Some(current) = st.current
        {
            // A pair that spawns on something locks within the game's lock delay, maybe before the next
            // pair's bytes are valid: the bot is asked at once with the next pair as it reads now (or the
            // current pair in its place), and again when the next pair becomes readable.
            self.ask_with(st, ctx, st.next.unwrap_or(current));
        }
    }

    /// Asks again when the next pair read now is not the one the bot was asked with (its bytes became
    /// valid, or changed, some frames after the spawn), or asks for the first time when the pairs could
    /// not be read at the spawn.
    fn ask_again_if_next_changed(&mut self, st: &PlayerState, ctx: &FrameContext<'_>) {
        if !self.bot_on
            || self.thinker.is_none()
            || self.questions >= MAX_QUESTIONS_PER_PIECE
            || self.piece_frames <= self.next_lag
        {
            return;
        }
        let (Some(_), Some(next)) = (st.current, st.next) else { return };
        self.health.read_late(true, true);
        if self.asked_next.is_some_and(|asked| asked == next) {
            return;
        }
        log::debug!("{}: the next pair now reads {next}; asking again", self.label);
        self.forget_piece();
        self.ask(st, ctx);
    }

    /// Asks the bot about the current piece with the next one, when both can be read.
    fn ask(&mut self, st: &PlayerState, ctx: &FrameContext<'_>) {
        if let Some(next) = st.next {
            self.ask_with(st, ctx, next);
        }
    }

    /// Asks the bot about the current pair with `next` as the pair after it.
    fn ask_with(&mut self, st: &PlayerState, ctx: &FrameContext<'_>, next: Piece) {
        let (Some(t), Some(current)) = (self.thinker.as_mut(), st.current) else { return };
        log::trace!(
            "{}: asking for {current} (next {next}) at {:?}\n{:?}",
            self.label,
            (st.x, st.y, st.orientation),
            st.field
        );
        self.next_id += 1;
        let asked = Instant::now();
        t.ask(Request {
            id: self.next_id,
            field: st.field,
            current,
            next,
            opponent: ctx.opponent,
            rules: ctx.rules.clone(),
            pieces_played: self.stats.pieces,
            moves: self.moves,
        });
        self.waiting = true;
        self.asked_at = Some(asked);
        if t.is_inline() {
            self.stats.frame_path_time += asked.elapsed();
        }
        self.questions += 1;
        self.asked_next = Some(next);
        self.health.asked();
    }

    /// Whether `piece` was read with a guessed code: an item code not yet learned, or a code in no table
    /// that the decoder gave a colour class on the spot (`assigned`) while calibration still learns codes.
    fn read_with_guess(&self, piece: Piece, assigned: bool) -> bool {
        let k = self.known_codes;
        match piece {
            Piece::Item(Item::BigPuyo) => !k.big_puyo,
            Piece::Item(Item::Carbuncle) => !k.carbuncle,
            Piece::Pair(_) => assigned && !k.new_colors,
        }
    }

    /// Compares the field RAM shows with the model's prediction of the last lock, and whether the piece
    /// locked where the bot decided.
    /// Returns whether the prediction held (`None` when there was none, or when the lock could not be
    /// judged: a piece read with a guessed code, or a field holding codes no table lists).
    fn check_last_lock(&mut self, st: &PlayerState) -> Option<bool> {
        let basis = std::mem::take(&mut self.locked_unknown);
        let unread: Vec<(usize, usize)> =
            basis.iter().chain(&st.unknown_cells).map(|c| (c.x as usize, c.y as usize)).collect();
        let (pred, check) = self.verifier.on_spawn(&st.field, &unread, !basis.is_empty(), &self.label)?;
        if self.locked_guess {
            // The piece was read with a guessed code (calibration learns what it is from this very lock).
            if !matches!(check, Check::Match { .. }) {
                self.stats.calibration_surprises += 1;
                self.health.unread_codes(&[self.locked_code]);
            }
            return None;
        }
        if let Check::Unread { cells } = &check {
            // Calibration learns the codes from this lock (a link bit no lock showed before, a colour
            // nobody listed); health counts them, and fails when the same code keeps coming back.
            self.stats.calibration_surprises += 1;
            let at = |x: usize, y: usize, c: &&UnknownCell| (c.x as usize, c.y as usize) == (x, y);
            let mut codes: Vec<u8> = cells
                .iter()
                .filter_map(|&(x, y, ..)| st.unknown_cells.iter().find(|c| at(x, y, c)).map(|c| c.code))
                .chain(basis.iter().map(|c| c.code))
                .collect();
            codes.sort_unstable();
            codes.dedup();
            self.health.unread_codes(&codes);
            return None;
        }
        let matched = matches!(check, Check::Match { .. });
        self.stats.checks += 1;
        if !matched {
            self.stats.mismatches += 1;
        }
        if pred.summary.chains > 0 {
            self.stats.chains += 1;
            self.stats.largest_chain = self.stats.largest_chain.max(pred.summary.chains);
        }
        self.stats.model_score += pred.summary.score as u64;
        if let Some(d) = self.driver.decision()
            && !movegen::same_outcome(pred.piece, pred.placement, d.placement)
        {
            log::debug!("{}: {} locked at {}, decided {}", self.label, pred.piece, pred.placement, d.placement);
            self.stats.off_plan += 1;
        }
        Some(matched)
    }

    /// Takes the bot's answer once it is there (waiting for it when the driver would act on it) and
    /// hands the decision to the driver.
    fn collect_answer(&mut self, st: &PlayerState, ctx: &FrameContext<'_>) {
        let must_have = ctx.wait_for_bot && self.piece_frames >= self.driver.first_action_frame();
        let answer = match self.thinker.as_mut() {
            Some(t) if self.waiting && must_have => {
                let a = t.wait();
                if !t.is_inline() {
                    // The frame loop waited from the start of this frame, or from the question if it was
                    // asked in this frame (on one core the worker may run before the loop reaches the wait).
                    let since = self.asked_at.map_or(ctx.frame_start, |q| q.max(ctx.frame_start));
                    self.stats.frame_path_time += since.elapsed();
                }
                a
            }
            Some(t) if self.waiting => t.poll(),
            _ => None,
        };
        if let Some(t) = self.thinker.as_mut() {
            // Searches for questions abandoned on the way (a piece forgotten) cost CPU time too.
            self.stats.think_cpu += t.take_discarded_cpu();
        }
        let Some(answer) = answer else { return };
        self.waiting = false;
        self.stats.think_time += answer.elapsed;
        self.stats.think_cpu += answer.cpu;
        self.stats.decisions += 1;
        self.think_ms = answer.elapsed.as_secs_f32() * 1000.0;
        self.expected_chain = answer.decision.expected_chain();
        if let Some(piece) = st.current {
            self.driver.start(answer.decision, Surroundings { field: st.field, piece, moves: self.moves });
        }
    }

    /// The piece locked: the model predicts the field the game will show.
    fn on_lock(&mut self, rules: &Rules) {
        self.stats.pieces += 1;
        self.verifier.on_lock(rules);
        self.locked_guess = std::mem::take(&mut self.tracked_guess);
        self.locked_code = self.tracked_code;
        self.locked_unknown = std::mem::take(&mut self.tracked_unknown);
        if self.piece_frames <= self.next_lag {
            // The pair locked before the next pair's bytes were due (it spawned on something): that the
            // next pair was not read says nothing about its bytes.
            self.health.read_late(false, true);
        }
        let (now, then) = (self.driver.stats(), self.driver_at_spawn);
        self.health.presses(
            now.presses.saturating_sub(then.presses),
            now.replans.saturating_sub(then.replans),
            now.gave_up > then.gave_up,
        );
    }

    /// Counts a top-out once the spawn cell stays filled with no piece under control and the field
    /// stands still (see [`TopOutWatch`]).
    fn watch_topout(&mut self, st: &PlayerState, rules: &Rules) {
        if st.controllable || !self.seen_piece {
            return;
        }
        if self.topout.idle_frame(&st.field, rules) && !self.stats.topped_out {
            log::info!("{} topped out after {} pieces", self.label, self.stats.pieces);
            self.stats.topped_out = true;
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
