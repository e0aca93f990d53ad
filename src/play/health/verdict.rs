//! The verdict rules: the first fact whose checks fail too often among the window's pieces, and the
//! locks it failed on tested against the alternative explanations.

use crate::game::Rules;

use super::super::explain::{LockEvidence, explain};
use super::facts::{Fact, Failure, explained_fact};
use super::records::{PieceRecord, SeatHealth};
use super::{
    CUT_PIECES_SHARE, FAILURES, MIN_OPEN_REACH_SHARE, NEARBY_FAILURES, OFF_PLAN_FAILURES, REPLANS_PER_PIECE,
    UNREAD_REPEATS, WINDOW, share_reached,
};

/// Which check a verdict comes from, so that the right locks are explained.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    /// Locks RAM did not show as predicted.
    Mismatched,
    /// Locks RAM showed one input away from the last pose read.
    Nearby,
    /// Anything else (no lock evidence).
    Other,
}

impl SeatHealth {
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

    /// The window's pieces the clock cut columns off for, and the window's length, when they are
    /// [`CUT_PIECES_SHARE`] of a full window or more.
    pub(super) fn cut_pieces(&self) -> Option<(usize, usize)> {
        let n = self.recent.len();
        let cut = self.recent.iter().filter(|p| p.cut).count();
        (n >= WINDOW && share_reached(cut as u64, n as u64, CUT_PIECES_SHARE)).then_some((cut, n))
    }

    /// `failure`, of a check of `kind`, with the locks it failed on tested against the alternative
    /// explanations: the fact that explains every one of them is named, or the words say none does.
    pub(super) fn explained(&self, mut failure: Failure, kind: Kind, rules: &Rules) -> Failure {
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

    /// The checks of the window, in order: the pairs could be read, the locks held, the next pairs and
    /// the presses went as predicted, then the plans held.
    fn verdict_window(&self, player: &str) -> Option<(Failure, Kind)> {
        let w = Window { pieces: self.recent.iter().collect() };
        let (kind, fact, seen) = w
            .unread_pairs()
            .or_else(|| self.lock_checks(&w))
            .or_else(|| w.next_and_presses())
            .or_else(|| self.plans_check(&w))?;
        Some((Failure { player: player.to_string(), fact, seen }, kind))
    }

    /// The locks: RAM showed the field predicted, and the codes it showed are known ones.
    fn lock_checks(&self, w: &Window<'_>) -> Option<Verdict> {
        let n = w.len();
        let mismatched = w.count(|p| p.lock_matched == Some(false));
        if mismatched >= FAILURES {
            let checked = w.count(|p| p.lock_matched.is_some());
            let seen = format!(
                "the field RAM showed after {mismatched} of the last {checked} locks was not the one predicted"
            );
            return Some((Kind::Mismatched, Fact::FieldCells, seen));
        }
        if let Some((code, n)) = self.unread.iter().find(|(_, n)| **n >= UNREAD_REPEATS) {
            let seen = format!(
                "code {code} (0x{code:02X}) was read in {n} locks where no table knows it: calibration did not learn \
                 what it is, so those locks cannot be checked"
            );
            return Some((Kind::Other, Fact::FieldCells, seen));
        }
        let unread_locks = w.count(|p| p.lock_unread);
        (unread_locks >= FAILURES).then(|| {
            let seen = format!(
                "{unread_locks} of the last {n} locks showed field codes no table knows (codes {:?} so far)",
                self.unread.keys().collect::<Vec<_>>()
            );
            (Kind::Other, Fact::FieldCells, seen)
        })
    }

    /// Every encoding held: plans that keep failing point at the clock. A piece counts once its lock has
    /// been judged (at the next spawn, so on the next record) and matched where RAM showed the pair: a lock
    /// read wrong is the encodings' evidence, not the clock's.
    fn plans_check(&self, w: &Window<'_>) -> Option<Verdict> {
        let n = w.len();
        let off_plan = w
            .pieces
            .windows(2)
            .filter(|p| p[0].off_plan && p[1].lock_matched == Some(true) && !p[1].lock_nearby)
            .count();
        let replans: u64 = w.pieces.iter().map(|p| p.replans).sum();
        (off_plan >= OFF_PLAN_FAILURES || (n >= WINDOW && replans as usize >= REPLANS_PER_PIECE * n)).then(|| {
            let seen = format!(
                "{off_plan} of the last {n} pieces locked off plan, {replans} re-plans; {}",
                self.timing_text()
            );
            (Kind::Other, Fact::Timing, seen)
        })
    }
}

/// A failing check of the window: the check's kind, the fact it points at, and what was seen.
type Verdict = (Kind, Fact, String);

/// The window's pieces, oldest first, as the verdict rules count them.
struct Window<'a> {
    pieces: Vec<&'a PieceRecord>,
}

impl Window<'_> {
    fn len(&self) -> usize {
        self.pieces.len()
    }

    /// The pieces for which `f` holds.
    fn count(&self, f: impl Fn(&PieceRecord) -> bool) -> usize {
        self.pieces.iter().filter(|p| f(p)).count()
    }

    /// Unreadable pairs come first: a lock cannot be predicted, nor a next pair confirmed, without them.
    fn unread_pairs(&self) -> Option<Verdict> {
        let n = self.len();
        let unread_current = self.count(|p| p.bot_on && !p.current_read);
        if unread_current >= FAILURES {
            let seen = format!("{unread_current} of the last {n} pieces could not be read (a code no table knows)");
            return Some((Kind::Other, Fact::CurrentPair, seen));
        }
        let unread_next = self.count(|p| p.bot_on && p.current_read && !p.next_read);
        (unread_next >= FAILURES).then(|| {
            let seen = format!(
                "the next pair could not be read for {unread_next} of the last {n} pieces, so the bot was not asked \
                 about them"
            );
            (Kind::Other, Fact::NextPair, seen)
        })
    }

    /// The next pairs read spawned next; the pairs landed where RAM last showed them; the game took the
    /// presses the movement model allows.
    fn next_and_presses(&self) -> Option<Verdict> {
        let n = self.len();
        let wrong_next = self.count(|p| p.next_confirmed == Some(false));
        if wrong_next >= FAILURES {
            let checked = self.count(|p| p.next_confirmed.is_some());
            let seen =
                format!("{wrong_next} of the last {checked} next pairs read were not the pair that spawned next");
            return Some((Kind::Other, Fact::NextPair, seen));
        }
        let nearby = self.count(|p| p.lock_nearby);
        if nearby >= NEARBY_FAILURES {
            let checked = self.count(|p| p.lock_matched.is_some());
            let seen = format!(
                "{nearby} of the last {checked} locks showed the pair one input away from where RAM last showed it"
            );
            return Some((Kind::Nearby, Fact::Movement, seen));
        }
        let gave_up = self.count(|p| p.gave_up);
        (gave_up >= FAILURES).then(|| {
            let seen =
                format!("the game refused the presses the movement model allows on {gave_up} of the last {n} pieces");
            (Kind::Other, Fact::Movement, seen)
        })
    }
}
