//! Endless: a fire at the required length is held back when play-outs of waiting end on longer chains.

use super::{Facts, Rule, Verdict, decision};
use crate::ai::playout;
use crate::ai::search::{DEATH, SearchResult};
use crate::game::FireReason;

/// When the policy is about to fire because the chain reached the required length (and the next pair
/// offers nothing longer: [`super::WaitForLonger`] comes first), ask the bot's own cheap search what
/// waiting would bring ([`playout::waiting_links`]) from the field the best placement that pops nothing
/// leaves. When the play-outs end, on average, on a longer chain than the one on offer, play that quiet
/// placement and decide again next move. Battles never wait. Knob: `[ai.ignition] playouts` (0 = off).
pub struct HoldForPlayouts;

impl Rule for HoldForPlayouts {
    fn name(&self) -> &'static str {
        "hold for play-outs"
    }

    fn apply(&self, facts: &Facts<'_>, verdict: Verdict) -> Verdict {
        let Verdict::Fire { pick, reason: FireReason::Threshold } = verdict else { return verdict };
        let policy = facts.policy;
        if policy.playouts == 0 || !facts.obs.endless() {
            return verdict;
        }
        let now = facts.candidate(pick).chain.chains;
        let view = facts.obs.view;
        let hold = best_quiet(facts.result).filter(|&i| {
            let links = playout::waiting_links(
                &facts.candidate(i).field,
                view.next,
                now,
                facts.eval,
                facts.search,
                policy,
                view.rules,
                facts.obs.seed,
            );
            log::debug!("waiting on {now} links ends on {links:.2} links");
            links > now as f64
        });
        match hold {
            Some(i) => Verdict::Play(decision(facts.result, i, None)),
            None => verdict,
        }
    }
}

/// The best-valued placement that pops nothing and does not top out.
pub fn best_quiet(result: &SearchResult) -> Option<usize> {
    (0..result.candidates.len())
        .filter(|&i| result.candidates[i].chain.chains == 0 && result.candidates[i].value > DEATH * 0.75)
        .max_by(|&a, &b| result.candidates[a].value.total_cmp(&result.candidates[b].value))
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use super::*;
    use crate::ai::ignition::IgnitionPolicy;
    use crate::game::View;

    // A blue pair fires one link on the floor's blues; the next pair, red, fires two beside column 1.
    const ROWS: [&str; 4] = ["G.....", "R.....", "R.....", "RGGGBB"];

    #[test]
    fn a_one_link_fire_is_held_when_waiting_ends_on_the_two_link_chain() {
        let (f, rules) = field(&ROWS);
        let view = View::solo(&f, pair(2, 2), pair(0, 0), &rules);
        let policy = IgnitionPolicy { min_chain: 1, wait_for_longer: false, ..IgnitionPolicy::default() };
        with_facts(&view, &policy, &two_ply(), |facts| {
            let verdict = super::super::Fire.apply(facts, Verdict::Build);
            assert!(matches!(verdict, Verdict::Fire { reason: FireReason::Threshold, .. }), "{verdict:?}");
            let Verdict::Play(d) = HoldForPlayouts.apply(facts, verdict.clone()) else { panic!("not held") };
            assert_eq!(d.chain.chains, 0);
            assert_eq!(
                Some(facts.result.candidates.iter().position(|c| c.placement == d.placement).unwrap()),
                best_quiet(facts.result)
            );
            // Off: the fire stands.
            let off = IgnitionPolicy { playouts: 0, ..policy.clone() };
            let facts_off = super::super::Facts { policy: &off, ..facts.clone() };
            assert_eq!(HoldForPlayouts.apply(&facts_off, verdict.clone()), verdict);
        });
    }

    #[test]
    fn best_quiet_skips_pops_and_top_outs() {
        let (f, rules) = field(&ROWS);
        let view = View::solo(&f, pair(2, 2), pair(0, 0), &rules);
        with_facts(&view, &IgnitionPolicy::default(), &two_ply(), |facts| {
            let i = best_quiet(facts.result).expect("a quiet placement");
            let c = facts.candidate(i);
            assert_eq!(c.chain.chains, 0);
            assert!(facts.result.candidates.iter().filter(|o| o.chain.chains == 0).all(|o| o.value <= c.value));
        });
    }
}
