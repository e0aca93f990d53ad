//! What each piece showed, and the totals since the contract settled: the seat's record the verdicts
//! read.

use std::collections::{BTreeMap, VecDeque};

use serde::Serialize;

use super::super::explain::LockEvidence;
use super::WINDOW;

/// Locks that went other than predicted kept as evidence for [`crate::play::explain`], per kind.
const EVIDENCE: usize = WINDOW;

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
pub(super) struct PieceRecord {
    /// The bot was on for this piece (so it should have been asked).
    pub(super) bot_on: bool,
    pub(super) asked: bool,
    pub(super) current_read: bool,
    pub(super) next_read: bool,
    /// The next pair read during the previous piece spawned as this one (`None`: not compared).
    pub(super) next_confirmed: Option<bool>,
    /// The previous lock's prediction held (`None`: not compared).
    pub(super) lock_matched: Option<bool>,
    /// The driver gave up on this piece: the game kept refusing what the movement model allows.
    pub(super) gave_up: bool,
    /// The previous lock could not be judged: it showed codes no table lists.
    pub(super) lock_unread: bool,
    /// The previous lock matched only one input away from where RAM last showed the pair.
    pub(super) lock_nearby: bool,
    /// The piece locked somewhere other than the bot decided.
    pub(super) off_plan: bool,
    /// Re-plans the driver made for the piece.
    pub(super) replans: u64,
    /// The clock cut columns off on the field the piece was asked about ([`crate::game::movegen::cut_off`]).
    pub(super) cut: bool,
}

/// The checks of one seat.
#[derive(Clone, Debug, Default)]
pub struct SeatHealth {
    pub(super) counts: HealthCounts,
    pub(super) recent: VecDeque<PieceRecord>,
    /// The piece under way (pushed to `recent` when the next one spawns).
    pub(super) current: Option<PieceRecord>,
    /// The lock checked just before the coming spawn could not be judged (see [`SeatHealth::unread_codes`]).
    pub(super) unread_pending: bool,
    /// Unknown codes seen in locks that could not be judged, and how often, since the contract settled.
    pub(super) unread: BTreeMap<u8, u32>,
    /// The lock checked just before the coming spawn matched only one input away.
    pub(super) nearby_pending: bool,
    /// The last locks RAM did not show as predicted.
    pub(super) mismatched: VecDeque<LockEvidence>,
    /// The last locks RAM showed one input away from the last pose read.
    pub(super) nearby: VecDeque<LockEvidence>,
    /// Locks checked and mismatched since the window was last cleared (mismatches too sparse for the
    /// window still count here).
    pub(super) since_clear: (u64, u64),
    /// The game's timing the seat plays on (named by a timing verdict); kept across resets.
    pub(super) timing: Option<crate::game::timing::Timing>,
    /// Placements a pair reaches from the spawn on an empty field on that clock, and without it
    /// ([`crate::game::movegen::open_reach`]); kept across resets.
    pub(super) open_reach: Option<(usize, usize)>,
    /// [`SeatHealth::clock_limits_play`] has said so.
    pub(super) clock_limit_told: bool,
    /// Puyos on the field when the game topped out ([`SeatHealth::topped_out`]).
    pub(super) top_out_puyos: Option<u32>,
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

    /// The clock cut columns off the field the piece under way was asked about.
    pub fn clock_cut(&mut self) {
        if let Some(p) = self.current.as_mut()
            && !std::mem::replace(&mut p.cut, true)
        {
            self.counts.pieces_clock_cut += 1;
        }
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

    /// The game topped out with `puyos` puyos on the field.
    pub fn topped_out(&mut self, puyos: u32) {
        self.top_out_puyos = Some(puyos);
    }

    fn finish_piece(&mut self) {
        if let Some(p) = self.current.take() {
            self.recent.push_back(p);
            while self.recent.len() > WINDOW {
                self.recent.pop_front();
            }
        }
    }
}
