//! The judgements of a game that ended: a top-out too early or on a thin field, an Endless game without
//! a big chain, and mismatches left at the end of a run.

use crate::game::Rules;

use super::facts::{Fact, Failure};
use super::records::SeatHealth;
use super::verdict::Kind;
use super::{BIG_CHAIN, THIN_TOP_OUT_PUYOS};

impl SeatHealth {
    /// True when the clock played on leaves some placement of an empty field out of reach, or cut
    /// columns off the field on [`CUT_PIECES_SHARE`] of the window's pieces: a game lost then is the
    /// clock's doing (it leaves the bot too few placements), not a normal game over.
    pub fn clock_cuts_reach(&self) -> bool {
        self.open_reach.is_some_and(|(reached, of)| reached < of) || self.cut_pieces().is_some()
    }

    /// True when the game topped out on a field with fewer than [`THIN_TOP_OUT_PUYOS`] puyos: not a
    /// full stack, so the pairs were kept from the other columns, and a game lost that way is not a
    /// normal game over.
    pub fn thin_top_out(&self) -> bool {
        self.top_out_puyos.is_some_and(|n| n < THIN_TOP_OUT_PUYOS)
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
}
