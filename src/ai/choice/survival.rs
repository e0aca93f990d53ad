//! Nothing fired, and the build is stuck or the field in danger: play for survival.

use super::{Facts, Rule, Verdict, decision};
use crate::ai::eval::Evaluation;
use crate::ai::ignition::{IgnitionPolicy, in_danger};
use crate::ai::search::{self, Candidate};
use crate::game::Rules;

/// When nothing fires, search with the survival evaluation instead (pop anything, stay low) if the field
/// is in danger (and the build does not ride it out: [`Facts::keeps_build`]) or the build is stuck: at
/// least `stuck_puyos` puyos on the field, and neither the best placement's field nor the field as it
/// stands holds a potential chain of `stuck_chain` links (that placement may cover the trigger for one
/// move because the next pair uncovers it), nor do the search's lines find one again
/// ([`builds_ahead`]). The survival search always looks through `survival_samples` sampled futures:
/// the evaluation is cheap, and the deeper look finds pops that take two or three pieces to set up.
/// Knobs: `[ai.ignition] stuck_puyos` (0 = never stuck), `stuck_chain`, `stuck_ahead_percent`,
/// `danger_puyos`, `danger_height`, `survival_samples`.
pub struct Survival;

impl Survival {
    /// Whether the build is stuck (see [`Survival`]).
    pub fn stuck(facts: &Facts<'_>) -> bool {
        let policy = facts.policy;
        let below = |p: Option<u32>| p.is_some_and(|p| p < policy.stuck_chain);
        policy.stuck_puyos > 0
            && facts.obs.view.field.count() >= policy.stuck_puyos
            && below(facts.potential)
            && below(facts.standing())
            && !builds_ahead(facts.eval, facts.result.best(), policy, facts.obs.view.rules)
    }

    /// Whether the field is in danger, counting the nuisance pending and on its way, and the build does
    /// not ride it out.
    pub fn danger(facts: &Facts<'_>) -> bool {
        let view = facts.obs.view;
        let incoming = view.nuisance_on_me + view.opponent.map_or(0, |o| o.incoming_from_chain);
        in_danger(view.field, incoming, view.rules, facts.policy) && !facts.keeps_build()
    }
}

impl Rule for Survival {
    fn name(&self) -> &'static str {
        "survival"
    }

    fn apply(&self, facts: &Facts<'_>, verdict: Verdict) -> Verdict {
        if verdict != Verdict::Build {
            return verdict;
        }
        let stuck = Survival::stuck(facts);
        if !stuck && !Survival::danger(facts) {
            return verdict;
        }
        let mut opts = facts.search.clone();
        opts.samples = opts.samples.max(facts.policy.survival_samples);
        let input = facts.obs.search_input();
        // The same placements as the main search, which found some: an empty answer cannot happen, and
        // would leave the verdict as it was.
        let Some(survival) = search::search(&input, &Evaluation::Survival, &opts, facts.obs.seed) else {
            return verdict;
        };
        log::debug!(
            "survival move {} ({} puyos on the field, potential chain {:?}{})",
            survival.best().placement,
            facts.obs.view.field.count(),
            facts.potential,
            if stuck { ", stuck" } else { "" }
        );
        Verdict::Play(decision(&survival, survival.best, None))
    }
}

/// Whether the search's best lines through `candidate` fire a planned chain, or end on a field with a
/// potential chain of `stuck_chain` links, in at least `stuck_ahead_percent` of its looks ahead.
pub fn builds_ahead(eval: &Evaluation, candidate: &Candidate, policy: &IgnitionPolicy, rules: &Rules) -> bool {
    let Evaluation::Chain(e) = eval else { return false };
    if policy.stuck_ahead_percent == 0 || candidate.ahead.is_empty() {
        return false;
    }
    let building = candidate
        .ahead
        .iter()
        .filter(|end| end.fired || e.breakdown(&end.field, 0, rules).potential_chains >= policy.stuck_chain)
        .count();
    building * 100 >= policy.stuck_ahead_percent as usize * candidate.ahead.len()
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use super::*;
    use crate::game::{FireReason, View};

    /// The spawn column stacked to the danger height in colours that never pop.
    fn tower() -> Vec<&'static str> {
        (0..11).map(|r| if r % 2 == 0 { "..R..." } else { "..G..." }).collect()
    }

    #[test]
    fn a_field_in_danger_with_nothing_fired_plays_the_survival_search() {
        let rows = tower();
        let (f, rules) = field(&rows);
        let view = View::solo(&f, pair(2, 3), pair(2, 3), &rules);
        let policy = IgnitionPolicy::default();
        with_facts(&view, &policy, &two_ply(), |facts| {
            assert!(Survival::danger(facts));
            assert!(!Survival::stuck(facts), "11 puyos are not a stuck build");
            let Verdict::Play(d) = Survival.apply(facts, Verdict::Build) else { panic!("no survival move") };
            assert_eq!(d.fired, None);
            // A fire already chosen is left alone.
            let fire = Verdict::Fire { pick: facts.result.best, reason: FireReason::Danger };
            assert_eq!(Survival.apply(facts, fire.clone()), fire);
        });
    }

    #[test]
    fn a_low_open_field_is_neither_stuck_nor_in_danger() {
        let (f, rules) = field(&["RG....", "GR...."]);
        let view = View::solo(&f, pair(2, 3), pair(2, 3), &rules);
        with_facts(&view, &IgnitionPolicy::default(), &two_ply(), |facts| {
            assert!(!Survival::danger(facts) && !Survival::stuck(facts));
            assert_eq!(Survival.apply(facts, Verdict::Build), Verdict::Build);
        });
    }

    #[test]
    fn lines_that_fire_or_keep_a_build_ahead_count_by_their_share() {
        let (f, rules) = field(&["R.....", "G....."]);
        let view = View::solo(&f, pair(2, 3), pair(2, 3), &rules);
        let opts = crate::ai::search::SearchOptions { samples: 2, beam_width: 4, ..Default::default() };
        with_facts(&view, &IgnitionPolicy::default(), &opts, |facts| {
            let mut best = facts.result.best().clone();
            assert!(!best.ahead.is_empty());
            let policy = |percent| IgnitionPolicy { stuck_ahead_percent: percent, ..IgnitionPolicy::default() };
            for end in &mut best.ahead {
                end.fired = false;
            }
            assert!(!builds_ahead(facts.eval, &best, &policy(50), &rules), "no line fires, no build of 6 links");
            best.ahead[0].fired = true;
            let share = 100 / best.ahead.len() as u32;
            assert!(builds_ahead(facts.eval, &best, &policy(share), &rules));
            assert!(!builds_ahead(facts.eval, &best, &policy(0), &rules), "0 = never mind the lines");
        });
    }
}
