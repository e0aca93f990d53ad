//! Endless: a fire at the required length waits one move when the known next pair fires a longer chain.

use super::{Facts, Rule, Verdict, decision};
use crate::ai::ignition::IgnitionPolicy;
use crate::ai::search::{DEATH, SearchResult};
use crate::game::movegen::{self, MoveRules, PiecePosition};
use crate::game::{FireReason, View};

/// When the policy fires a chain because it reached the required length, look at the placements that
/// fire nothing: if after one of them the known next pair fires a longer chain, still worth firing on
/// the field it fires from, and nothing tops out, play that placement and fire next move. The next pair
/// is known, so the wait costs no risk in endless play; in a battle nuisance could land in between, so it
/// never waits there. Knob: `[ai.ignition] wait_for_longer`.
pub struct WaitForLonger;

impl Rule for WaitForLonger {
    fn name(&self) -> &'static str {
        "wait for longer"
    }

    fn apply(&self, facts: &Facts<'_>, verdict: Verdict) -> Verdict {
        let Verdict::Fire { pick, reason: FireReason::Threshold } = verdict else { return verdict };
        if !facts.policy.wait_for_longer || !facts.obs.endless() {
            return verdict;
        }
        let now = facts.candidate(pick).chain.chains;
        match longer_fire_next(facts.obs.view, facts.result, now, facts.policy, &facts.search.moves) {
            Some((i, links)) => {
                log::debug!("wait: the next pair fires {links} links after {}", facts.candidate(i).placement);
                Verdict::Play(decision(facts.result, i, None))
            }
            None => verdict,
        }
    }
}

/// Among the placements that fire nothing now, the one after which the known next pair fires the
/// longest chain, with that chain's length, when it is longer than `now` and worth firing on the field it
/// fires from. Ties go to the better-valued placement.
pub fn longer_fire_next(
    view: &View<'_>,
    result: &SearchResult,
    now: u32,
    policy: &IgnitionPolicy,
    moves: &MoveRules,
) -> Option<(usize, u32)> {
    let spawn = PiecePosition::spawn(view.rules);
    let mut best: Option<(usize, u32)> = None;
    for (i, c) in result.candidates.iter().enumerate() {
        if c.chain.chains > 0 || c.value <= DEATH * 0.75 {
            continue;
        }
        let need = policy.required_chain(&c.field).max(now + 1);
        for &p in movegen::placements(&c.field, view.next, spawn, moves).as_slice() {
            let mut field = c.field;
            let Ok(chain) = field.play(view.next, p, view.rules) else { continue };
            let better = best.is_none_or(|(j, links)| (chain.chains, c.value) > (links, result.candidates[j].value));
            if chain.chains >= need && !field.is_game_over(view.rules) && better {
                best = Some((i, chain.chains));
            }
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use super::*;
    use crate::game::OpponentView;

    // Column 1 holds three reds under a green, the floor row greens: a red pair beside the reds fires
    // two links. Two blues on the floor: a blue pair fires one link, and nothing longer.
    const ROWS: [&str; 4] = ["G.....", "R.....", "R.....", "RGGGBB"];

    fn policy() -> IgnitionPolicy {
        IgnitionPolicy { min_chain: 1, playouts: 0, ..IgnitionPolicy::default() }
    }

    #[test]
    fn a_threshold_fire_waits_when_the_next_pair_fires_longer() {
        let (f, rules) = field(&ROWS);
        let view = View::solo(&f, pair(2, 2), pair(0, 0), &rules);
        with_facts(&view, &policy(), &two_ply(), |facts| {
            let verdict = super::super::Fire.apply(facts, Verdict::Build);
            let Verdict::Fire { pick, reason: FireReason::Threshold } = verdict else { panic!("{verdict:?}") };
            assert_eq!(facts.candidate(pick).chain.chains, 1);
            let Verdict::Play(d) = WaitForLonger.apply(facts, verdict.clone()) else { panic!("no wait") };
            assert_eq!(d.fired, None);
            assert_eq!(d.chain.chains, 0, "the waiting placement pops nothing");
            // Off, or in a battle: the fire stands.
            let off = IgnitionPolicy { wait_for_longer: false, ..policy() };
            let facts_off = super::super::Facts { policy: &off, ..facts.clone() };
            assert_eq!(WaitForLonger.apply(&facts_off, verdict.clone()), verdict);
        });
        let opponent = OpponentView { field: &f, nuisance_on_them: 0, incoming_from_chain: 0 };
        let battle = View { opponent: Some(opponent), ..view };
        with_facts(&battle, &policy(), &two_ply(), |facts| {
            let verdict = Verdict::Fire { pick: facts.result.best, reason: FireReason::Threshold };
            assert_eq!(WaitForLonger.apply(facts, verdict.clone()), verdict);
        });
    }

    #[test]
    fn other_fires_never_wait() {
        let (f, rules) = field(&ROWS);
        let view = View::solo(&f, pair(2, 2), pair(0, 0), &rules);
        with_facts(&view, &policy(), &two_ply(), |facts| {
            let danger = Verdict::Fire { pick: facts.result.best, reason: FireReason::Danger };
            assert_eq!(WaitForLonger.apply(facts, danger.clone()), danger);
            assert_eq!(WaitForLonger.apply(facts, Verdict::Build), Verdict::Build);
        });
    }
}
