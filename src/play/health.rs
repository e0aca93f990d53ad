//! Health: whether the contract a session plays with predicts what the game does.
//!
//! Calibration settles when it has seen enough to name every fact of the contract, but a fact can be
//! learned wrong, or be right for the first pieces and wrong later (a code first seen in 2P, a byte that
//! is valid only some frames after a spawn). So every seat keeps checking, piece after piece, the
//! predictions the bot relies on:
//!
//! - **locks**: the field RAM shows after a lock is the one the rules model predicted;
//! - **questions**: every piece that spawned could be read (current and next pair) and the bot was asked;
//! - **next pairs**: the next pair read during a piece is the pair that spawns after it;
//! - **presses**: the driver's presses moved the pair as the movement model said;
//! - **plans**: the pieces lock where the bot decided. A plan that keeps failing (pieces locked off plan,
//!   re-plan after re-plan) while every encoding holds points at the game's timing.
//!
//! A seat's [`SeatHealth`] keeps the totals since the contract settled and a window of the last pieces;
//! [`SeatHealth::verdict`] names the first fact whose checks fail too often in that window. The session
//! then learns that fact again or stops with a message; it never plays on blind.

use std::collections::VecDeque;

use serde::Serialize;

use crate::game::Rules;

use super::explain::{Hypothesis, LockEvidence, explain};

/// Pieces in the window a verdict looks at.
pub const WINDOW: usize = 12;

/// Failed checks of one kind within the window that make a verdict (a fault or two is noise: a dropped
/// frame, a pad glitch; three in twelve pieces is a wrong fact).
pub const FAILURES: usize = 3;

/// Locks among the window's that RAM showed one input away from where it last showed the pair (the
/// verifier took them as a late move) that fail the check: a pad fault now and then moves a pair on the
/// frame it locks, but a pair that keeps landing elsewhere than read says a fact is read wrong (the two
/// current-pair bytes the other way round land every pair of two colours "turned over").
pub const NEARBY_FAILURES: usize = 6;

/// Locks that went other than predicted kept as evidence for [`crate::play::explain`], per kind.
const EVIDENCE: usize = WINDOW;

/// Pieces of the window that may lock off plan before health fails naming the timing: a faulty pad link
/// sends one piece in twenty or thirty elsewhere, a wrong timing most of them.
pub const OFF_PLAN_FAILURES: usize = 6;

/// Re-plans per piece, over a full window, that fail the timing check even when the pieces still end
/// where planned (the driver keeps catching a pair that does not move as planned).
pub const REPLANS_PER_PIECE: usize = 4;

/// Pieces an Endless game must last before a top-out counts as a lost game: one that tops out sooner,
/// when more pieces were asked for, was not played on facts that predict the game.
pub const EARLY_TOP_OUT_PIECES: u32 = 30;

/// Pieces locked off plan in an Endless game that make any top-out before the pieces asked for a failure
/// naming the timing, however late it came: the bot lost because its pairs did not go where it planned.
pub const OFF_PLAN_TOP_OUT: u64 = 3;

/// Puyos on the field below which an Endless top-out is not a full stack topping out (two thirds of the
/// 72 cells below the spawn): pairs were kept out of the other columns (the game's clock, or the pad).
/// On the hardest clocks `sim` measured, the bot's top-outs came with 62 to 68 puyos on the field.
pub const THIN_TOP_OUT_PUYOS: u32 = 48;

/// The chain a healthy Endless game fires within [`BIG_CHAIN_BY_PIECES`] pieces.
pub const BIG_CHAIN: u32 = 8;

/// Pieces within which an Endless game fires a chain of [`BIG_CHAIN`] or more: `sim` on clocks that do
/// not narrow the bot's choice fires the first one at pair 35 on average (docs/performance.md).
pub const BIG_CHAIN_BY_PIECES: u32 = 100;

/// Rows a pair falls before a press takes effect from which the log says the clock limits play
/// ([`SeatHealth::clock_limits_play`]).
pub const LAG_ROWS_TOLD: u32 = 3;

/// The share of an empty field's placements the measured clock must leave in reach
/// ([`SeatHealth::set_open_reach`]): with fewer, most pairs go where they fall, not where the bot decides.
pub const MIN_OPEN_REACH_SHARE: f64 = 0.5;

/// The share of the window's pieces the clock must cut columns off for before a lost game is the clock's.
pub const CUT_PIECES_SHARE: f64 = 0.5;

/// `part` is `share` of `whole` or more.
fn share_reached(part: u64, whole: u64, share: f64) -> bool {
    part as f64 >= share * whole as f64
}

/// Locks in which the same unknown code may show before health fails naming it: calibration learns a
/// code from the first lock that shows it (a link bit, a colour or item nobody listed), so a code that
/// keeps coming back is one it cannot learn.
pub const UNREAD_REPEATS: u32 = 3;

/// A fact of the cartridge's contract that a failing check points at.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Fact {
    /// What the field cells hold: the colour byte, the codes of colours, nuisance and items, and when a
    /// lock has been written.
    FieldCells,
    /// The current pair's bytes: their codes, or when they are valid after a spawn.
    CurrentPair,
    /// The next pair's bytes: their code table, or when they are valid after a spawn.
    NextPair,
    /// How the pair moves: orientation values, X / Y, turns and kicks, or when the pose bytes are valid.
    Movement,
    /// The menus: the game plays the mode that was asked for (both fields get pairs in a 2-player mode).
    Mode,
    /// The game options asked for (`--items`, `--colors`): the game deals what was asked.
    Options,
    /// The game's timing as measured: gravity (frames per row), the lock delay, the input lag. Plans that
    /// keep failing while every encoding holds point here.
    Timing,
    /// The 2P rules: the per-chain nuisance cap, points per nuisance, the most nuisance per drop and what
    /// happens to nuisance that does not fit.
    BattleRules,
    /// None of the facts above: the checks held, yet the game went where they did not predict.
    Unexplained,
}

impl Fact {
    /// The name reports use (`field-cells`, `current-pair`, `next-pair`, `movement`, `mode`), as serde writes it.
    pub fn key(self) -> &'static str {
        match self {
            Fact::FieldCells => "field-cells",
            Fact::CurrentPair => "current-pair",
            Fact::NextPair => "next-pair",
            Fact::Movement => "movement",
            Fact::Mode => "mode",
            Fact::Options => "options",
            Fact::Timing => "timing",
            Fact::BattleRules => "battle-rules",
            Fact::Unexplained => "unexplained",
        }
    }

    /// The fact in words, for messages.
    pub fn describe(self) -> &'static str {
        match self {
            Fact::FieldCells => {
                "the field's cell codes (colour byte, colour / nuisance / item codes) or when a lock is written"
            }
            Fact::CurrentPair => "the current pair's bytes (their codes, or when they are valid after a spawn)",
            Fact::NextPair => "the next pair's bytes (their code table, or when they are valid after a spawn)",
            Fact::Movement => {
                "how the pair moves (orientation values, X / Y, turns, kicks) or when the pose bytes are valid"
            }
            Fact::Mode => "the menus reaching the mode asked for",
            Fact::Options => "the game options asked for (--items, --colors)",
            Fact::Timing => "the game's timing (gravity in frames per row, the lock delay, the input lag)",
            Fact::BattleRules => {
                "the 2P rules (per-chain nuisance cap, points per nuisance, nuisance per drop, overflow)"
            }
            Fact::Unexplained => "none of the facts checked (every check held, yet the game did not go as predicted)",
        }
    }

    /// What an owner of the cartridge can do about it.
    pub fn advice(self) -> &'static str {
        match self {
            Fact::FieldCells => {
                "record a trace (`puyobot record`), run `puyobot calibrate` on it, and compare the [codes] and \
                 field entries of the address file with what it reports"
            }
            Fact::CurrentPair => {
                "check the current_pivot / current_child entries and [codes] of the address file (a trace from \
                 `puyobot record` shows the bytes frame by frame)"
            }
            Fact::NextPair => {
                "check the next_pivot / next_child entries of the address file, their code table \
                 ([codes] next_codes) and [timing] next_lag (a trace from `puyobot record` shows when they change)"
            }
            Fact::Movement => {
                "check [orientation], [movement] and the x / y / orientation entries of the address file (a \
                 trace from `puyobot record` shows how the bytes follow the presses)"
            }
            Fact::Mode => {
                "start the game from the menus yourself in the window (`puyobot play --no-menu`), or fix the \
                 [menu] steps of the address file: the mode byte may not follow the menu cursor, so a `seek` on \
                 it finds nothing; fixed presses (`press`) reach the mode instead"
            }
            Fact::Options => {
                "set the option on the game's menus yourself in the window (`puyobot play --no-menu`), or check \
                 [options.items] / [options.colors] of the address file (the byte, its values and the line the \
                 option is on)"
            }
            Fact::Timing => {
                "record a trace (`puyobot record`) and run `puyobot calibrate` on it: it reports the frames per row, \
                 the lock delay and the input lag it measured; a game this fast may need a lower --speed setting to \
                 be read, or a slower game setting"
            }
            Fact::BattleRules => {
                "set the 2P rules on the game's menus and tell the bots with --nuisance-cap, --nuisance-points, \
                 --nuisance-drop and --nuisance-overflow, or record a trace (`puyobot record`) of the 2P game and \
                 send it with the report"
            }
            Fact::Unexplained => {
                "record a trace of the run (`puyobot record`) and send it with the report: the checks do not \
                 say which fact is wrong"
            }
        }
    }
}

impl std::fmt::Display for Fact {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Fact::FieldCells => "field cells",
            Fact::CurrentPair => "current pair",
            Fact::NextPair => "next pair",
            Fact::Movement => "movement",
            Fact::Mode => "mode",
            Fact::Options => "options",
            Fact::Timing => "timing",
            Fact::BattleRules => "2P rules",
            Fact::Unexplained => "unexplained",
        })
    }
}

/// The fact of the contract an explanation points at.
fn explained_fact(h: Hypothesis) -> Fact {
    match h {
        Hypothesis::PairBytesSwapped => Fact::CurrentPair,
        Hypothesis::Timing => Fact::Timing,
        Hypothesis::Movement => Fact::Movement,
        Hypothesis::Codes => Fact::FieldCells,
    }
}

/// A failing check: which fact, and what was seen.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Failure {
    /// The player whose checks failed.
    pub player: String,
    /// The fact the checks depend on.
    pub fact: Fact,
    /// What was seen, in words.
    pub seen: String,
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {} ({}) fails: {}", self.player, self.fact, self.fact.describe(), self.seen)
    }
}

/// Totals of the checks since the contract settled, as the JSON report shows them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct HealthCounts {
    /// Locks whose field was compared with the model's prediction.
    pub locks_checked: u64,
    /// Of those, the ones RAM did not match.
    pub locks_mismatched: u64,
    /// Locks not judged: RAM differed from the prediction only where a code no table lists was read (or
    /// the piece itself was read with a guessed code). Calibration learns such codes from the lock.
    pub locks_unread: u64,
    /// Pieces that spawned while the seat's bot was on.
    pub pieces_spawned: u64,
    /// Of those, the ones the bot was asked about (both pairs readable).
    pub pieces_asked: u64,
    /// Driver presses.
    pub presses: u64,
    /// Presses whose effect RAM showed as the movement model predicted (no re-plan needed).
    pub presses_as_predicted: u64,
    /// Next pairs read during a piece and compared with the pair that spawned after it.
    pub next_checked: u64,
    /// Of those, the ones that spawned as read.
    pub next_confirmed: u64,
    /// Times RAM disagreed with the driver's plan and it planned again.
    pub replans: u64,
    /// Presses RAM showed no effect of.
    pub presses_refused: u64,
    /// Locks judged whose piece locked somewhere other than the bot decided.
    pub off_plan: u64,
    /// Pieces asked about on a field the game's clock cut columns off (the pair lands before the presses
    /// get it past the stacks): the bot's choice narrowed by the clock, not by a wrong fact.
    pub pieces_clock_cut: u64,
}

impl HealthCounts {
    /// Adds another run's counts.
    pub fn add(&mut self, o: &HealthCounts) {
        self.locks_checked += o.locks_checked;
        self.locks_mismatched += o.locks_mismatched;
        self.locks_unread += o.locks_unread;
        self.pieces_spawned += o.pieces_spawned;
        self.pieces_asked += o.pieces_asked;
        self.presses += o.presses;
        self.presses_as_predicted += o.presses_as_predicted;
        self.next_checked += o.next_checked;
        self.next_confirmed += o.next_confirmed;
        self.replans += o.replans;
        self.pieces_clock_cut += o.pieces_clock_cut;
        self.presses_refused += o.presses_refused;
        self.off_plan += o.off_plan;
    }
}

/// What one piece showed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct PieceRecord {
    /// The bot was on for this piece (so it should have been asked).
    bot_on: bool,
    asked: bool,
    current_read: bool,
    next_read: bool,
    /// The next pair read during the previous piece spawned as this one (`None`: not compared).
    next_confirmed: Option<bool>,
    /// The previous lock's prediction held (`None`: not compared).
    lock_matched: Option<bool>,
    /// The driver gave up on this piece: the game kept refusing what the movement model allows.
    gave_up: bool,
    /// The previous lock could not be judged: it showed codes no table lists.
    lock_unread: bool,
    /// The previous lock matched only one input away from where RAM last showed the pair.
    lock_nearby: bool,
    /// The piece locked somewhere other than the bot decided.
    off_plan: bool,
    /// Re-plans the driver made for the piece.
    replans: u64,
    /// The clock cut columns off on the field the piece was asked about ([`crate::game::movegen::cut_off`]).
    cut: bool,
}

/// Which check a verdict comes from, so that the right locks are explained.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// Locks RAM did not show as predicted.
    Mismatched,
    /// Locks RAM showed one input away from the last pose read.
    Nearby,
    /// Anything else (no lock evidence).
    Other,
}

/// The checks of one seat.
#[derive(Clone, Debug, Default)]
pub struct SeatHealth {
    counts: HealthCounts,
    recent: VecDeque<PieceRecord>,
    /// The piece under way (pushed to `recent` when the next one spawns).
    current: Option<PieceRecord>,
    /// The lock checked just before the coming spawn could not be judged (see [`SeatHealth::unread_codes`]).
    unread_pending: bool,
    /// Unknown codes seen in locks that could not be judged, and how often, since the contract settled.
    unread: std::collections::BTreeMap<u8, u32>,
    /// The lock checked just before the coming spawn matched only one input away.
    nearby_pending: bool,
    /// The last locks RAM did not show as predicted.
    mismatched: VecDeque<LockEvidence>,
    /// The last locks RAM showed one input away from the last pose read.
    nearby: VecDeque<LockEvidence>,
    /// Locks checked and mismatched since the window was last cleared (mismatches too sparse for the
    /// window still count here).
    since_clear: (u64, u64),
    /// The game's timing the seat plays on (named by a timing verdict); kept across resets.
    timing: Option<crate::game::timing::Timing>,
    /// Placements a pair reaches from the spawn on an empty field on that clock, and without it
    /// ([`crate::game::movegen::open_reach`]); kept across resets.
    open_reach: Option<(usize, usize)>,
    /// [`SeatHealth::clock_limits_play`] has said so.
    clock_limit_told: bool,
    /// Puyos on the field when the game topped out ([`SeatHealth::topped_out`]).
    top_out_puyos: Option<u32>,
}

impl SeatHealth {
    /// The totals since the contract settled.
    pub fn counts(&self) -> HealthCounts {
        self.counts
    }

    /// Forgets the window and the totals (the contract was replaced: earlier checks judged the old one).
    pub fn reset(&mut self) {
        *self = SeatHealth { timing: self.timing, open_reach: self.open_reach, ..SeatHealth::default() };
    }

    /// The game's timing the seat plays on from now on (`None`: the untimed walk), for the verdicts' text.
    pub fn set_timing(&mut self, timing: Option<crate::game::timing::Timing>) {
        self.timing = timing;
    }

    /// Placements a pair reaches from the spawn on an empty field on the clock played on, and without it
    /// (`None` without a clock): a clock that cuts them short explains a lost game, and one that leaves
    /// fewer than [`MIN_OPEN_REACH_SHARE`] of them fails outright ([`SeatHealth::clock_too_fast`]).
    pub fn set_open_reach(&mut self, reach: Option<(usize, usize)>) {
        self.open_reach = reach.filter(|&(_, of)| of > 0);
    }

    /// True when the clock played on leaves some placement of an empty field out of reach, or cut
    /// columns off the field on [`CUT_PIECES_SHARE`] of the window's pieces: a game lost then is the
    /// clock's doing (it leaves the bot too few placements), not a normal game over.
    pub fn clock_cuts_reach(&self) -> bool {
        self.open_reach.is_some_and(|(reached, of)| reached < of) || self.cut_pieces().is_some()
    }

    /// The clock cut columns off the field the piece under way was asked about.
    pub fn clock_cut(&mut self) {
        if let Some(p) = self.current.as_mut()
            && !std::mem::replace(&mut p.cut, true)
        {
            self.counts.pieces_clock_cut += 1;
        }
    }

    /// What the game's clock does to the bot's choice, in words, the first time in a game it is worth
    /// saying: it leaves some placement of an empty field out of reach, or it narrowed the choice on
    /// [`CUT_PIECES_SHARE`] of the pieces asked about or more (a window's worth at least). Said so that
    /// short chains on a fast game are not taken for a weak bot or a wrong fact.
    pub fn clock_limits_play(&mut self) -> Option<String> {
        if self.clock_limit_told {
            return None;
        }
        let c = &self.counts;
        let text = match self.reach_text().or_else(|| self.lag_rows_text()) {
            Some(reach) => reach,
            None if c.pieces_asked >= WINDOW as u64
                && share_reached(c.pieces_clock_cut, c.pieces_asked, CUT_PIECES_SHARE) =>
            {
                format!(
                    "the game's clock cut columns off the field for {} of {} pieces",
                    c.pieces_clock_cut, c.pieces_asked
                )
            }
            None => return None,
        };
        self.clock_limit_told = true;
        Some(text)
    }

    /// The pieces the clock cut columns off for, in words, when they are [`CUT_PIECES_SHARE`] of a full
    /// window or more.
    fn cut_text(&self) -> Option<String> {
        let (cut, n) = self.cut_pieces()?;
        Some(format!(
            "the clock cut columns off the field for {cut} of the last {n} pieces (they land before presses get \
             them past the stacks)"
        ))
    }

    /// The window's pieces the clock cut columns off for, and the window's length, when they are
    /// [`CUT_PIECES_SHARE`] of a full window or more.
    fn cut_pieces(&self) -> Option<(usize, usize)> {
        let n = self.recent.len();
        let cut = self.recent.iter().filter(|p| p.cut).count();
        (n >= WINDOW && share_reached(cut as u64, n as u64, CUT_PIECES_SHARE)).then_some((cut, n))
    }

    /// The failure of a clock that leaves fewer than [`MIN_OPEN_REACH_SHARE`] of an empty field's placements
    /// in reach, once [`FAILURES`] pieces were played on it: the bot cannot place its pairs, whatever it
    /// decides (presses that take effect too late on a fast gravity). Not a prediction that failed, so
    /// nothing to learn again: measuring the clock again measures the same clock.
    pub fn clock_too_fast(&self, player: &str) -> Option<Failure> {
        let (reached, of) = self.open_reach?;
        if self.recent.len() < FAILURES || share_reached(reached as u64, of as u64, MIN_OPEN_REACH_SHARE) {
            return None;
        }
        let seen = format!("{}; {}", self.timing_text(), self.reach_text()?);
        Some(Failure { player: player.to_string(), fact: Fact::Timing, seen })
    }

    /// The rows a pair falls before a press takes effect, in words, when they are [`LAG_ROWS_TOLD`] or
    /// more: the pair is well down the field before the bot can steer it, even when the presses still
    /// reach every placement of an empty field.
    fn lag_rows_text(&self) -> Option<String> {
        let t = self.timing?;
        let rows = u32::from(t.input_lag) / u32::from(t.frames_per_row.max(1));
        (rows >= LAG_ROWS_TOLD).then(|| {
            format!(
                "on this clock a pair falls {rows} rows before a press takes effect (input lag {} frames at {} frames \
                 a row)",
                t.input_lag, t.frames_per_row
            )
        })
    }

    /// The open field's reach in words, when the clock cuts it.
    fn reach_text(&self) -> Option<String> {
        let (reached, of) = self.open_reach.filter(|&(reached, of)| reached < of)?;
        Some(format!(
            "on this clock a pair reaches {reached} of the {of} placements even on an empty field: its presses take \
             effect too late to steer it before it locks"
        ))
    }

    /// Forgets the window, keeping the totals (a fact is being learned again).
    pub fn clear_window(&mut self) {
        self.recent.clear();
        self.current = None;
        self.unread_pending = false;
        self.unread.clear();
        self.nearby_pending = false;
        self.mismatched.clear();
        self.nearby.clear();
        self.since_clear = (0, 0);
    }

    /// A piece spawned. `current_read` / `next_read`: its pair and the next one could be decoded;
    /// `next_confirmed`: whether the next pair read during the previous piece is this one (`None` when
    /// there was nothing to compare); `lock_matched`: whether the previous lock's prediction held.
    pub fn spawned(
        &mut self,
        bot_on: bool,
        current_read: bool,
        next_read: bool,
        next_confirmed: Option<bool>,
        lock_matched: Option<bool>,
    ) {
        self.finish_piece();
        let c = &mut self.counts;
        if bot_on {
            c.pieces_spawned += 1;
        }
        if let Some(ok) = next_confirmed {
            c.next_checked += 1;
            c.next_confirmed += u64::from(ok);
        }
        if let Some(ok) = lock_matched {
            c.locks_checked += 1;
            c.locks_mismatched += u64::from(!ok);
            self.since_clear.0 += 1;
            self.since_clear.1 += u64::from(!ok);
        }
        let lock_unread = std::mem::take(&mut self.unread_pending);
        let lock_nearby = std::mem::take(&mut self.nearby_pending);
        self.current = Some(PieceRecord {
            bot_on,
            current_read,
            next_read,
            next_confirmed,
            lock_matched,
            lock_unread,
            lock_nearby,
            ..Default::default()
        });
    }

    /// The lock about to be reported by [`SeatHealth::spawned`] went other than predicted: RAM did not show
    /// the predicted field (`nearby` false), or showed it only for the pair one input away from where RAM
    /// last showed it (`nearby` true). Kept as evidence for the explanation of a failing check.
    pub fn lock_astray(&mut self, evidence: LockEvidence, nearby: bool) {
        let kept = if nearby { &mut self.nearby } else { &mut self.mismatched };
        kept.push_back(evidence);
        while kept.len() > EVIDENCE {
            kept.pop_front();
        }
        self.nearby_pending |= nearby;
    }

    /// The lock about to be reported by [`SeatHealth::spawned`] could not be judged: RAM differed from the
    /// prediction only in cells holding `codes`, which no table lists (or the piece was read with the
    /// guessed code `codes`). Counted per code: calibration learns a code from the first such lock, so one
    /// that comes back [`UNREAD_REPEATS`] times fails the field-cells check, naming it.
    pub fn unread_codes(&mut self, codes: &[u8]) {
        self.counts.locks_unread += 1;
        self.unread_pending = true;
        for &c in codes {
            *self.unread.entry(c).or_default() += 1;
        }
    }

    /// The bot was asked about the piece under way.
    pub fn asked(&mut self) {
        if let Some(p) = self.current.as_mut()
            && !p.asked
        {
            p.asked = true;
            self.counts.pieces_asked += u64::from(p.bot_on);
        }
    }

    /// The piece's pairs became readable after its spawn (a byte written some frames late).
    pub fn read_late(&mut self, current_read: bool, next_read: bool) {
        if let Some(p) = self.current.as_mut() {
            p.current_read |= current_read;
            p.next_read |= next_read;
        }
    }

    /// Driver presses during the piece: `presses` made, `replans` where RAM disagreed, `gave_up` when the
    /// driver dropped the pair where it was because the game kept refusing.
    pub fn presses(&mut self, presses: u64, replans: u64, gave_up: bool) {
        self.counts.presses += presses;
        self.counts.presses_as_predicted += presses.saturating_sub(replans);
        self.counts.replans += replans;
        if let Some(p) = self.current.as_mut() {
            p.gave_up |= gave_up;
            p.replans += replans;
        }
    }

    /// Presses of the piece under way that RAM showed no effect of.
    pub fn refused(&mut self, presses: u64) {
        self.counts.presses_refused += presses;
    }

    /// The piece under way (its lock just judged, before the next spawn is told) locked somewhere other
    /// than the bot decided.
    pub fn off_plan(&mut self) {
        self.counts.off_plan += 1;
        if let Some(p) = self.current.as_mut() {
            p.off_plan = true;
        }
    }

    /// The failure of a game that topped out after `pieces` pieces when more were asked for (sooner than
    /// [`EARLY_TOP_OUT_PIECES`], or with [`OFF_PLAN_TOP_OUT`] pieces off plan on the way): the timing when
    /// the plans failed on the way (pieces off plan, re-plans), else said plainly that no check explains it.
    pub fn early_top_out(&self, player: &str, pieces: u32) -> Failure {
        let c = &self.counts;
        let plans = self.plans_text();
        let thin = match self.top_out_puyos.filter(|&n| n < THIN_TOP_OUT_PUYOS) {
            Some(n) => format!(
                ", with {n} puyos on the field (a full stack tops out with {THIN_TOP_OUT_PUYOS} or more: the pairs \
                 did not get out of the spawn column)"
            ),
            None => String::new(),
        };
        let start = format!("topped out after {pieces} pieces with more asked for{thin}");
        let (fact, seen) =
            if let Some(reach) = self.reach_text().or_else(|| self.cut_text()).or_else(|| self.narrowed_text()) {
                (Fact::Timing, format!("{start}: {}; {reach} ({plans})", self.timing_text()))
            } else if c.off_plan > 0
                || c.replans as usize >= pieces as usize
                || (self.thin_top_out() && self.timing.is_some())
            {
                (Fact::Timing, format!("{start}: {plans}; {}", self.timing_text()))
            } else {
                (
                    Fact::Unexplained,
                    format!("{start}, while every check held ({plans}): no fact checked explains it, so none is named"),
                )
            };
        Failure { player: player.to_string(), fact, seen }
    }

    /// The failure of an Endless game that played `pieces` pieces (at least [`BIG_CHAIN_BY_PIECES`])
    /// without a chain of [`BIG_CHAIN`] or more (`largest`: its largest): the timing when the clock
    /// narrowed the bot's choice on the way or the plans failed, else said plainly that no check explains
    /// it.
    pub fn weak_game(&self, player: &str, pieces: u32, largest: u32) -> Failure {
        let c = &self.counts;
        let start = format!("played {pieces} pieces without a chain of {BIG_CHAIN} or more (the largest: {largest})");
        let plans = self.plans_text();
        let clock = [self.reach_text(), self.lag_rows_text(), self.narrowed_text()];
        let (fact, seen) = match clock.into_iter().flatten().collect::<Vec<_>>() {
            found if !found.is_empty() || c.off_plan > 0 => (
                Fact::Timing,
                format!(
                    "{start}: {}; {} ({plans}): the bot cannot build on this clock",
                    self.timing_text(),
                    found.join("; ")
                ),
            ),
            _ => (
                Fact::Unexplained,
                format!("{start}, while every check held ({plans}): no fact checked explains it, so none is named"),
            ),
        };
        Failure { player: player.to_string(), fact, seen }
    }

    /// How the plans went since the contract settled, in words: pieces off plan, re-plans, presses refused.
    fn plans_text(&self) -> String {
        let c = &self.counts;
        format!(
            "{} pieces locked off plan, {} re-plans, {} presses without effect",
            c.off_plan, c.replans, c.presses_refused
        )
    }

    /// The pieces the clock cut columns off for since the contract settled, in words, when there were any.
    fn narrowed_text(&self) -> Option<String> {
        let c = &self.counts;
        (c.pieces_clock_cut > 0).then(|| {
            format!(
                "the clock narrowed the bot's choice on {} of the {} pieces asked about (they land before presses \
                 get them past the stacks)",
                c.pieces_clock_cut, c.pieces_asked
            )
        })
    }

    /// The game topped out with `puyos` puyos on the field.
    pub fn topped_out(&mut self, puyos: u32) {
        self.top_out_puyos = Some(puyos);
    }

    /// True when the game topped out on a field with fewer than [`THIN_TOP_OUT_PUYOS`] puyos: not a
    /// full stack, so the pairs were kept from the other columns, and a game lost that way is not a
    /// normal game over.
    pub fn thin_top_out(&self) -> bool {
        self.top_out_puyos.is_some_and(|n| n < THIN_TOP_OUT_PUYOS)
    }

    /// The timing played on, in words.
    fn timing_text(&self) -> String {
        match self.timing {
            Some(t) => format!(
                "played on {} frames per row, lock delay {}, input lag {}",
                t.frames_per_row,
                match t.lock {
                    crate::game::timing::LockDelay::None => "none".to_string(),
                    crate::game::timing::LockDelay::Frames { frames, moves: true } => format!("{frames} frames"),
                    crate::game::timing::LockDelay::Frames { frames, moves: false } => {
                        format!("{frames} frames (no moves)")
                    }
                },
                t.input_lag
            ),
            None => "played with no timing measured (the pair taken to wait at its row)".to_string(),
        }
    }

    fn finish_piece(&mut self) {
        if let Some(p) = self.current.take() {
            self.recent.push_back(p);
            while self.recent.len() > WINDOW {
                self.recent.pop_front();
            }
        }
    }

    /// The first fact whose checks fail [`FAILURES`] times or more among the last [`WINDOW`] pieces,
    /// with what was seen; `None` while the checks hold. `player` labels the failure.
    pub fn verdict(&self, player: &str) -> Option<Failure> {
        self.verdict_of(player).map(|(f, _)| f)
    }

    /// [`SeatHealth::verdict`], with the locks the failing check failed on tested against the alternative
    /// explanations ([`crate::play::explain`]): the failure names the fact that explains every one of them,
    /// or says that no single fact does. `rules` is the rules model the predictions were made with.
    pub fn verdict_explained(&self, player: &str, rules: &Rules) -> Option<Failure> {
        let (failure, kind) = self.verdict_of(player)?;
        Some(self.explained(failure, kind, rules))
    }

    /// At the end of a run: a lock or two since the contract settled that RAM did not show as predicted,
    /// too few for [`SeatHealth::verdict`] while playing, still mean the contract does not predict the
    /// game; the failure is explained as a verdict is. `None` when every lock checked held.
    pub fn mismatched_at_end(&self, player: &str, rules: &Rules) -> Option<Failure> {
        let (checked, mismatched) = self.since_clear;
        if mismatched == 0 {
            return None;
        }
        let seen = format!(
            "the run played on, but the field RAM showed after {mismatched} of {checked} locks since the contract \
             settled was not the one predicted (too few to stop play; a contract that mispredicts a lock does not \
             predict the game)"
        );
        let failure = Failure { player: player.to_string(), fact: Fact::FieldCells, seen };
        Some(self.explained(failure, Kind::Mismatched, rules))
    }

    /// `failure`, of a check of `kind`, with the locks it failed on tested against the alternative
    /// explanations: the fact that explains every one of them is named, or the words say none does.
    fn explained(&self, mut failure: Failure, kind: Kind, rules: &Rules) -> Failure {
        let locks: Vec<LockEvidence> = match kind {
            Kind::Mismatched => self.mismatched.iter().copied().collect(),
            Kind::Nearby => self.nearby.iter().copied().collect(),
            Kind::Other => return failure,
        };
        let e = explain(&locks, rules);
        if let Some(h) = e.named() {
            failure.fact = explained_fact(h);
        }
        let words = e.words(locks.len());
        if !words.is_empty() {
            failure.seen = format!("{}; {words}", failure.seen);
        }
        failure
    }

    /// The verdict and the check it comes from.
    fn verdict_of(&self, player: &str) -> Option<(Failure, Kind)> {
        let v = self.verdict_window(player);
        if v.is_some() {
            return v;
        }
        // Mismatches too sparse for any window still say the contract does not predict the game: never a
        // healthy report over them.
        let (checked, mismatched) = self.since_clear;
        if mismatched >= FAILURES as u64 {
            let seen = format!(
                "the field RAM showed after {mismatched} of {checked} locks since the contract settled was not the \
                 one predicted"
            );
            return Some((Failure { player: player.to_string(), fact: Fact::FieldCells, seen }, Kind::Mismatched));
        }
        None
    }

    /// The checks of the window.
    fn verdict_window(&self, player: &str) -> Option<(Failure, Kind)> {
        let pieces: Vec<&PieceRecord> = self.recent.iter().collect();
        let n = pieces.len();
        let count = |f: &dyn Fn(&PieceRecord) -> bool| pieces.iter().filter(|p| f(p)).count();
        let fail_as =
            |kind: Kind, fact: Fact, seen: String| Some((Failure { player: player.to_string(), fact, seen }, kind));
        let fail = |fact: Fact, seen: String| fail_as(Kind::Other, fact, seen);
        // Unreadable pairs first: a lock cannot be predicted, nor a next pair confirmed, without them.
        let unread_current = count(&|p| p.bot_on && !p.current_read);
        if unread_current >= FAILURES {
            return fail(
                Fact::CurrentPair,
                format!("{unread_current} of the last {n} pieces could not be read (a code no table knows)"),
            );
        }
        let unread_next = count(&|p| p.bot_on && p.current_read && !p.next_read);
        if unread_next >= FAILURES {
            return fail(
                Fact::NextPair,
                format!(
                    "the next pair could not be read for {unread_next} of the last {n} pieces, so the bot was not \
                     asked about them"
                ),
            );
        }
        let mismatched = count(&|p| p.lock_matched == Some(false));
        if mismatched >= FAILURES {
            let checked = count(&|p| p.lock_matched.is_some());
            return fail_as(
                Kind::Mismatched,
                Fact::FieldCells,
                format!(
                    "the field RAM showed after {mismatched} of the last {checked} locks was not the one predicted"
                ),
            );
        }
        if let Some((code, n)) = self.unread.iter().find(|(_, n)| **n >= UNREAD_REPEATS) {
            return fail(
                Fact::FieldCells,
                format!(
                    "code {code} (0x{code:02X}) was read in {n} locks where no table knows it: calibration did \
                     not learn what it is, so those locks cannot be checked"
                ),
            );
        }
        let unread_locks = count(&|p| p.lock_unread);
        if unread_locks >= FAILURES {
            return fail(
                Fact::FieldCells,
                format!(
                    "{unread_locks} of the last {n} locks showed field codes no table knows (codes {:?} so far)",
                    self.unread.keys().collect::<Vec<_>>()
                ),
            );
        }
        let wrong_next = count(&|p| p.next_confirmed == Some(false));
        if wrong_next >= FAILURES {
            let checked = count(&|p| p.next_confirmed.is_some());
            return fail(
                Fact::NextPair,
                format!("{wrong_next} of the last {checked} next pairs read were not the pair that spawned next"),
            );
        }
        let nearby = count(&|p| p.lock_nearby);
        if nearby >= NEARBY_FAILURES {
            let checked = count(&|p| p.lock_matched.is_some());
            return fail_as(
                Kind::Nearby,
                Fact::Movement,
                format!(
                    "{nearby} of the last {checked} locks showed the pair one input away from where RAM last showed it"
                ),
            );
        }
        let gave_up = count(&|p| p.gave_up);
        if gave_up >= FAILURES {
            return fail(
                Fact::Movement,
                format!("the game refused the presses the movement model allows on {gave_up} of the last {n} pieces"),
            );
        }
        // Every encoding held: plans that keep failing point at the clock. A piece counts once its lock
        // has been judged (at the next spawn, so on the next record) and matched where RAM showed the pair:
        // a lock read wrong is the encodings' evidence, not the clock's.
        let off_plan =
            pieces.windows(2).filter(|w| w[0].off_plan && w[1].lock_matched == Some(true) && !w[1].lock_nearby).count();
        let replans: u64 = pieces.iter().map(|p| p.replans).sum();
        if off_plan >= OFF_PLAN_FAILURES || (n >= WINDOW && replans as usize >= REPLANS_PER_PIECE * n) {
            return fail(
                Fact::Timing,
                format!(
                    "{off_plan} of the last {n} pieces locked off plan, {replans} re-plans; {}",
                    self.timing_text()
                ),
            );
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What a test piece does to a seat's health.
    type PieceFn = dyn Fn(&mut SeatHealth);

    fn healthy_piece(h: &mut SeatHealth) {
        h.spawned(true, true, true, Some(true), Some(true));
        h.asked();
        h.presses(5, 0, false);
    }

    #[test]
    fn plans_that_keep_failing_name_the_timing_with_what_was_seen() {
        let mut h = SeatHealth::default();
        h.set_timing(Some("fall=4,lock=none".parse().unwrap()));
        for k in 0..12 {
            healthy_piece(&mut h);
            h.presses(0, 3, false);
            if k % 2 == 0 {
                h.off_plan();
            }
        }
        h.spawned(true, true, true, None, None); // the next piece: the twelfth is judged
        // A piece off plan now and then (a faulty link) is noise; half of them is the clock.
        let f = h.verdict("P1").expect("a timing failure");
        assert_eq!(f.fact, Fact::Timing);
        assert!(f.seen.contains("6 of the last 12 pieces locked off plan, 36 re-plans"), "{}", f.seen);
        assert!(f.seen.contains("4 frames per row, lock delay none"), "{}", f.seen);
        let c = h.counts();
        assert_eq!((c.off_plan, c.replans), (6, 36));
        let mut noisy = SeatHealth::default();
        for k in 0..40 {
            healthy_piece(&mut noisy);
            noisy.presses(0, 1, false);
            if k % 10 == 0 {
                noisy.off_plan();
            }
        }
        assert_eq!(noisy.verdict("P1"), None);
        // Re-plan after re-plan names it too, even when the pieces end where planned.
        let mut busy = SeatHealth::default();
        for _ in 0..12 {
            healthy_piece(&mut busy);
            busy.presses(0, 5, false);
        }
        busy.spawned(true, true, true, None, None);
        assert_eq!(busy.verdict("P1").map(|f| f.fact), Some(Fact::Timing));
    }

    #[test]
    fn an_early_top_out_names_the_timing_only_when_plans_failed() {
        let mut h = SeatHealth::default();
        for _ in 0..7 {
            healthy_piece(&mut h);
        }
        let plain = h.early_top_out("P1", 7);
        assert_eq!(plain.fact, Fact::Unexplained);
        assert!(
            plain.seen.contains("topped out after 7 pieces") && plain.seen.contains("none is named"),
            "{}",
            plain.seen
        );
        h.off_plan();
        h.presses(0, 9, false);
        let timed = h.early_top_out("P1", 7);
        assert_eq!(timed.fact, Fact::Timing);
        assert!(timed.seen.contains("1 pieces locked off plan, 9 re-plans"), "{}", timed.seen);
        assert!(timed.seen.contains("no timing measured"), "{}", timed.seen);
    }

    #[test]
    fn a_top_out_on_a_field_far_from_full_names_the_timing_it_was_played_on() {
        let mut h = SeatHealth::default();
        for _ in 0..12 {
            healthy_piece(&mut h);
        }
        h.topped_out(THIN_TOP_OUT_PUYOS);
        assert!(!h.thin_top_out(), "a full stack's top-out is a game over");
        h.topped_out(46);
        assert!(h.thin_top_out());
        let untimed = h.early_top_out("P1", 41);
        assert_eq!(untimed.fact, Fact::Unexplained, "no clock played on: nothing to name");
        assert!(untimed.seen.contains("with 46 puyos on the field"), "{}", untimed.seen);
        h.set_timing(Some("fall=3,lock=8,lag=4".parse().unwrap()));
        let timed = h.early_top_out("P1", 41);
        assert_eq!(timed.fact, Fact::Timing);
        assert!(timed.seen.contains("did not get out of the spawn column"), "{}", timed.seen);
        assert!(timed.seen.contains("played on 3 frames per row, lock delay 8 frames, input lag 4"), "{}", timed.seen);
    }

    #[test]
    fn a_clock_that_cuts_the_open_field_short_names_the_timing() {
        let mut h = SeatHealth::default();
        h.set_timing(Some("fall=2,lock=none,lag=8".parse().unwrap()));
        h.set_open_reach(Some((21, 22)));
        for _ in 0..12 {
            healthy_piece(&mut h);
        }
        assert_eq!(h.verdict("P1"), None, "one placement short: played, and a lost game is the clock's");
        let said = h.clock_limits_play().expect("a reach cut short is said");
        assert!(said.contains("reaches 21 of the 22 placements"), "{said}");
        assert_eq!(h.clock_limits_play(), None, "said once");
        let lost = h.early_top_out("P1", 40);
        assert_eq!(lost.fact, Fact::Timing);
        assert!(lost.seen.contains("reaches 21 of the 22 placements even on an empty field"), "{}", lost.seen);
        assert_eq!(h.clock_too_fast("P1"), None);
        h.set_open_reach(Some((5, 22)));
        assert_eq!(h.verdict("P1"), None, "the encodings' checks still hold");
        let f = h.clock_too_fast("P1").expect("most of the field out of reach fails at once");
        assert_eq!(f.fact, Fact::Timing);
        assert!(f.seen.contains("input lag 8") && f.seen.contains("reaches 5 of the 22"), "{}", f.seen);
        h.reset();
        assert!(h.clock_cuts_reach(), "the clock's reach is kept across a reset");
        // A full open reach, but a clock that cut columns off the field for most pieces: a lost game is the
        // clock's too.
        let mut cut = SeatHealth::default();
        cut.set_open_reach(Some((22, 22)));
        for k in 0..WINDOW {
            healthy_piece(&mut cut);
            if k % 3 != 0 {
                cut.clock_cut();
            }
        }
        healthy_piece(&mut cut);
        assert!(cut.clock_cuts_reach());
        cut.clock_cut();
        cut.clock_cut();
        assert_eq!(cut.counts().pieces_clock_cut, 9, "once per piece");
        let mut lagged = SeatHealth::default();
        lagged.set_timing(Some("fall=2,lock=none,lag=8".parse().unwrap()));
        let said = lagged.clock_limits_play().expect("4 rows before a press acts is said");
        assert!(said.contains("falls 4 rows before a press takes effect"), "{said}");
        let said = cut.clock_limits_play().expect("9 of 13 pieces narrowed by the clock");
        assert!(said.contains("cut columns off the field for 9 of 13 pieces"), "{said}");
        assert_eq!(cut.clock_limits_play(), None, "said once");
        let lost = cut.early_top_out("P1", 110);
        assert_eq!(lost.fact, Fact::Timing);
        assert!(lost.seen.contains("cut columns off the field for 8 of the last 12 pieces"), "{}", lost.seen);
        h.set_open_reach(Some((22, 22)));
        assert!(!h.clock_cuts_reach());
    }

    #[test]
    fn clean_pieces_are_healthy_and_counted() {
        let mut h = SeatHealth::default();
        for _ in 0..40 {
            healthy_piece(&mut h);
        }
        assert_eq!(h.verdict("P1"), None);
        let c = h.counts();
        assert_eq!((c.pieces_spawned, c.pieces_asked, c.locks_checked, c.locks_mismatched), (40, 40, 40, 0));
        assert_eq!((c.next_checked, c.next_confirmed, c.presses, c.presses_as_predicted), (40, 40, 200, 200));
    }

    #[test]
    fn two_faults_in_a_window_are_noise_three_are_a_wrong_fact() {
        let mut h = SeatHealth::default();
        for i in 0..WINDOW {
            h.spawned(true, true, true, Some(true), Some(i % 6 != 0));
            h.asked();
        }
        h.spawned(true, true, true, Some(true), Some(true));
        assert_eq!(h.verdict("P1"), None, "two mismatches in the window");
        h.spawned(true, true, true, Some(true), Some(false));
        h.spawned(true, true, true, Some(true), Some(false));
        h.spawned(true, true, true, Some(true), Some(false));
        h.spawned(true, true, true, Some(true), Some(true));
        let f = h.verdict("P2").expect("three mismatches");
        assert_eq!((f.player.as_str(), f.fact), ("P2", Fact::FieldCells));
        assert!(f.to_string().contains("P2: field cells"), "{f}");
    }

    #[test]
    fn each_check_names_its_own_fact() {
        let cases: [(&PieceFn, Fact); 4] = [
            (&|h| h.spawned(true, false, false, None, None), Fact::CurrentPair),
            (&|h| h.spawned(true, true, false, None, Some(true)), Fact::NextPair),
            (
                &|h| {
                    h.spawned(true, true, true, Some(false), Some(true));
                    h.asked();
                },
                Fact::NextPair,
            ),
            (
                &|h| {
                    h.spawned(true, true, true, Some(true), Some(true));
                    h.asked();
                    h.presses(9, 6, true);
                },
                Fact::Movement,
            ),
        ];
        for (i, (piece, fact)) in cases.iter().enumerate() {
            let mut h = SeatHealth::default();
            for _ in 0..FAILURES + 1 {
                piece(&mut h);
            }
            assert_eq!(h.verdict("P1").map(|f| f.fact), Some(*fact), "case {i}");
        }
    }

    #[test]
    fn a_human_seat_is_not_expected_to_ask_and_late_reads_count() {
        let mut h = SeatHealth::default();
        for _ in 0..WINDOW {
            h.spawned(false, true, true, Some(true), Some(true));
        }
        assert_eq!(h.verdict("P1"), None);
        let mut h = SeatHealth::default();
        for _ in 0..WINDOW {
            h.spawned(true, true, false, None, Some(true));
            h.read_late(true, true);
            h.asked();
        }
        h.spawned(true, true, true, None, None);
        assert_eq!(h.verdict("P1"), None, "a next pair readable a few frames after the spawn is fine");
    }

    #[test]
    fn each_fact_reports_under_its_serde_name() {
        for f in [Fact::FieldCells, Fact::CurrentPair, Fact::NextPair, Fact::Movement, Fact::Mode] {
            assert_eq!(serde_json::to_value(f).unwrap(), f.key());
        }
    }

    #[test]
    fn an_unknown_code_learned_at_once_is_fine_one_that_keeps_coming_back_fails_naming_it() {
        let mut h = SeatHealth::default();
        // A link bit shows in one lock (two codes), then another in a later lock: calibration learns them.
        healthy_piece(&mut h);
        h.unread_codes(&[0x2C, 0x8C]);
        h.spawned(true, true, true, Some(true), None);
        for _ in 0..WINDOW {
            healthy_piece(&mut h);
        }
        h.unread_codes(&[0x4D]);
        h.spawned(true, true, true, Some(true), None);
        for _ in 0..WINDOW {
            healthy_piece(&mut h);
        }
        assert_eq!(h.verdict("P1"), None);
        assert_eq!((h.counts().locks_unread, h.counts().locks_checked), (2, 2 * WINDOW as u64 + 1));
        // The same code, again and again, far apart: calibration cannot learn it.
        for _ in 0..UNREAD_REPEATS - 1 {
            h.unread_codes(&[0x2C]);
            h.spawned(true, true, true, Some(true), None);
            for _ in 0..WINDOW {
                healthy_piece(&mut h);
            }
        }
        let f = h.verdict("P1").expect("a code that keeps coming back");
        assert_eq!(f.fact, Fact::FieldCells);
        assert!(f.seen.contains("0x2C"), "{}", f.seen);
        // Learning the field's codes again starts the tally afresh.
        h.clear_window();
        assert_eq!(h.verdict("P1"), None);
    }

    #[test]
    fn many_locks_that_cannot_be_read_in_a_window_fail() {
        let mut h = SeatHealth::default();
        for code in 0..FAILURES as u8 {
            h.unread_codes(&[0x40 + code]);
            h.spawned(true, true, true, Some(true), None);
            h.asked();
        }
        h.spawned(true, true, true, Some(true), Some(true));
        let f = h.verdict("P2").expect("three unread locks in a window");
        assert_eq!(f.fact, Fact::FieldCells);
        assert!(f.seen.contains("3 of the last"), "{}", f.seen);
    }

    #[test]
    fn clearing_the_window_keeps_the_totals() {
        let mut h = SeatHealth::default();
        for _ in 0..5 {
            h.spawned(true, true, true, Some(false), Some(false));
        }
        assert!(h.verdict("P1").is_some());
        h.clear_window();
        assert_eq!(h.verdict("P1"), None);
        assert_eq!(h.counts().locks_mismatched, 5);
        h.reset();
        assert_eq!(h.counts(), HealthCounts::default());
    }

    /// Evidence of a red-green pair read upright at column 2 of an empty field but found with its colours
    /// exchanged (`swapped`), or found as read.
    fn upright_lock(swapped: bool) -> LockEvidence {
        use crate::game::{Color, Field, Orientation, Pair, Piece, Placement};
        let (r, g) = (Color::ALL[0], Color::ALL[1]);
        let at = Placement::new(2, Orientation::Up);
        let before = Field::from_rows(&["Y....."]);
        let mut found = before;
        let truth = if swapped { Pair::new(g, r) } else { Pair::new(r, g) };
        found.play(Piece::Pair(truth), at, &Rules::puyo1()).expect("plays");
        LockEvidence { before, piece: Piece::Pair(Pair::new(r, g)), seen_at: at, decided: None, found }
    }

    #[test]
    fn mismatches_too_sparse_for_the_window_still_fail_the_field_cells() {
        let mut h = SeatHealth::default();
        for i in 0..39 {
            // one mismatch every 13 pieces: never two in a window of 12
            let ok = i % 13 != 0;
            h.spawned(true, true, true, Some(true), Some(ok));
            h.asked();
        }
        assert_eq!(h.counts().locks_mismatched, 3);
        let f = h.verdict("P1").expect("three mismatches since settling");
        assert_eq!(f.fact, Fact::FieldCells);
        assert!(f.seen.contains("3 of 39 locks since the contract settled"), "{}", f.seen);
        h.clear_window();
        assert_eq!(h.verdict("P1"), None, "a fact learned again starts the count again");
    }

    #[test]
    fn pairs_that_keep_landing_one_input_away_fail_and_are_explained() {
        let mut h = SeatHealth::default();
        for i in 0..12 {
            if i % 2 == 0 {
                h.lock_astray(upright_lock(true), true);
            }
            h.spawned(true, true, true, Some(true), Some(true));
            h.asked();
            if i < 10 {
                assert_eq!(h.verdict("P1"), None, "piece {i}: a late move now and then is a pad fault");
            }
        }
        let plain = h.verdict("P1").expect("six of twelve");
        assert_eq!(plain.fact, Fact::Movement, "unexplained, the check's own fact");
        let f = h.verdict_explained("P1", &Rules::puyo1()).expect("six of twelve");
        assert_eq!(f.fact, Fact::CurrentPair, "{}", f.seen);
        assert!(f.seen.contains("current-pair byte order"), "{}", f.seen);
    }

    #[test]
    fn mismatches_no_fact_explains_say_so() {
        let mut h = SeatHealth::default();
        for _ in 0..3 {
            // RAM showed the pair where it was read, yet the lock was a mismatch: nothing explains that
            h.lock_astray(upright_lock(false), false);
            h.spawned(true, true, true, Some(true), Some(false));
        }
        let f = h.verdict_explained("P1", &Rules::puyo1()).expect("three mismatches");
        assert_eq!(f.fact, Fact::FieldCells);
        assert!(f.seen.contains("no single fact explains it"), "{}", f.seen);
    }
}
