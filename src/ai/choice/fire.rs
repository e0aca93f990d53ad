//! The ignition policy as a rule: fire the strongest chain on offer when the policy says so.

use super::{Facts, Rule, Verdict};
use crate::ai::search::DEATH;
use crate::game::FireReason;

/// Fires the strongest chain a placement offers now (most links, then most points, then the better
/// value) when [`crate::ai::ignition::IgnitionPolicy::should_fire`] gives a reason. A danger fire is
/// left out while the build rides the danger out ([`Facts::keeps_build`]). In danger any chain helps,
/// but the strongest one is the one picked.
pub struct Fire;

impl Fire {
    /// The strongest chain on offer now: the index of its candidate. Placements that top out do not count.
    pub fn strongest(facts: &Facts<'_>) -> Option<usize> {
        facts
            .result
            .candidates
            .iter()
            .enumerate()
            .filter(|(_, c)| c.chain.chains > 0 && c.value > DEATH * 0.75)
            .max_by(|(_, a), (_, b)| {
                (a.chain.chains, a.chain.score).cmp(&(b.chain.chains, b.chain.score)).then(a.value.total_cmp(&b.value))
            })
            .map(|(i, _)| i)
    }
}

impl Rule for Fire {
    fn name(&self) -> &'static str {
        "fire"
    }

    fn apply(&self, facts: &Facts<'_>, verdict: Verdict) -> Verdict {
        // A rule before this one (the battle rule) has chosen already.
        if verdict != Verdict::Build {
            return verdict;
        }
        let Some(pick) = Fire::strongest(facts) else { return verdict };
        let c = facts.candidate(pick);
        match facts.policy.should_fire(facts.obs.view, &c.chain) {
            Some(FireReason::Danger) if facts.keeps_build() => verdict,
            Some(reason) => {
                log::debug!(
                    "fire {reason:?}: {} links, {} points, {} puyos on the field{:?}",
                    c.chain.chains,
                    c.chain.score,
                    facts.obs.view.field.count(),
                    facts.obs.view.field
                );
                Verdict::Fire { pick, reason }
            }
            None => verdict,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use super::*;
    use crate::ai::ignition::IgnitionPolicy;
    use crate::game::View;

    #[test]
    fn a_chain_at_the_required_length_fires_and_a_shorter_one_waits() {
        // Reds on column 1 under a green: a red pair fires two links.
        let (f, rules) = field(&["G.....", "R.....", "R.....", "RGGG.."]);
        let view = View::solo(&f, pair(0, 0), pair(2, 3), &rules);
        let two = IgnitionPolicy { min_chain: 2, ..IgnitionPolicy::default() };
        with_facts(&view, &two, &two_ply(), |facts| {
            let Verdict::Fire { pick, reason } = Fire.apply(facts, Verdict::Build) else { panic!("no fire") };
            assert_eq!(reason, FireReason::Threshold);
            assert_eq!(facts.candidate(pick).chain.chains, 2);
            assert_eq!(Fire::strongest(facts), Some(pick));
        });
        let three = IgnitionPolicy { min_chain: 3, ..IgnitionPolicy::default() };
        with_facts(&view, &three, &two_ply(), |facts| {
            assert_eq!(Fire.apply(facts, Verdict::Build), Verdict::Build);
        });
    }

    #[test]
    fn nothing_to_fire_leaves_the_verdict_alone() {
        let (f, rules) = field(&["R.....", "G....."]);
        let view = View::solo(&f, pair(2, 3), pair(2, 3), &rules);
        with_facts(&view, &IgnitionPolicy::default(), &two_ply(), |facts| {
            assert_eq!(Fire::strongest(facts), None);
            assert_eq!(Fire.apply(facts, Verdict::Build), Verdict::Build);
        });
    }
}
