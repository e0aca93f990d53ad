//! The `chain` bot's choice as rules. After the search has valued every placement, a short pipeline of
//! named rules, folded in order, turns its answer into a decision:
//!
//! 1. [`Battle`]: 2P only, the battle decisions (kill, stall, fire the cap, jab, absorb, hold), each with
//!    its intent; in danger it leaves the move to the rules below;
//! 2. [`Fire`]: the ignition policy fires the strongest chain on offer (threshold, danger, battle);
//! 3. [`WaitForLonger`]: endless, a threshold fire waits when the known next pair fires a longer chain;
//! 4. [`HoldForPlayouts`]: endless, a threshold fire waits when play-outs of waiting end on longer chains;
//! 5. [`Survival`]: nothing fired, and the build is stuck or the field in danger: the survival search.
//!
//! Each rule sees the same [`Facts`] (the move's [`Observation`], the search's answer and what is read
//! from it) and the [`Verdict`] so far, and either passes it on or changes it; a [`Verdict::Play`] is
//! final. Each is gated by its own knob of the ignition policy. A verdict nobody settled plays the
//! search's best placement, or the chosen fire.

mod battle;
mod fire;
mod hold;
mod survival;
mod wait;

use std::cell::OnceCell;

pub use battle::Battle;
pub use fire::Fire;
pub use hold::HoldForPlayouts;
pub use survival::Survival;
pub use wait::WaitForLonger;

use super::eval::{EvalContext, Evaluation, FireThreshold};
use super::ignition::{IgnitionPolicy, in_danger};
use super::search::{Candidate, SearchInput, SearchOptions, SearchResult};
use crate::game::movegen::PiecePosition;
use crate::game::{Decision, FireReason, Placement, View};

/// One move as the bot sees it before searching: what the player sees, where the piece starts, the
/// look this move gets and its seed. Everything the evaluation is told about the move comes from here
/// ([`Observation::eval_context`]).
#[derive(Clone, Debug)]
pub struct Observation<'v> {
    /// What the player sees.
    pub view: &'v View<'v>,
    /// Where the piece starts (the spawn position, or lower when the driver re-plans mid-fall).
    pub start: PiecePosition,
    /// This move's search options: in endless, the late look's from its threshold on.
    pub look: SearchOptions,
    /// This move's seed (the sampled futures, the play-outs and the survival search draw from it).
    pub seed: u64,
}

impl<'v> Observation<'v> {
    /// The move seen in `view` from `start`, with the bot's `configured` search options.
    pub fn new(view: &'v View<'v>, start: PiecePosition, configured: &SearchOptions, seed: u64) -> Observation<'v> {
        // The late look shapes endless builds; in a battle a full field is mostly nuisance, and the extra
        // look measured no gain there (192 of 200 battles won against 196 without it).
        let look = match view.opponent {
            None => configured.for_puyos(view.field.count()),
            Some(_) => configured.clone(),
        };
        Observation { view, start, look, seed }
    }

    /// Endless play (no opponent).
    pub fn endless(&self) -> bool {
        self.view.opponent.is_none()
    }

    /// What the evaluation is told about this move: battle or not, the extension keys this look asks
    /// for, and, in endless with `plan_fire`, the chain length the policy fires (a searched line firing
    /// that much is a planned fire, not waste).
    pub fn eval_context(&self, policy: Option<&IgnitionPolicy>) -> EvalContext {
        let planned = policy.filter(|p| p.plan_fire);
        let fire_at = if self.endless() {
            planned.map(IgnitionPolicy::threshold)
        } else {
            planned.and_then(|_| self.battle_fire())
        };
        EvalContext { battle: !self.endless(), extend_keys: self.look.extend_keys(), fire_at }
    }

    /// Battle: the links of the plain chain that sends the attack worth firing (the cap, or the
    /// opponent's lethal dose when less), so a searched line firing that much is a planned fire and the
    /// search sets up the trigger instead of burying it.
    fn battle_fire(&self) -> Option<FireThreshold> {
        let stakes = super::battle::Stakes::of(self.view)?;
        let links = super::battle::links_to_send(stakes.target(), self.view.rules);
        Some(FireThreshold { min_chain: links, patience_puyos: 0, patience_step: 1 })
    }

    /// The search's input for this move.
    pub fn search_input(&self) -> SearchInput<'v> {
        let view = self.view;
        SearchInput {
            field: view.field,
            current: view.current,
            next: Some(view.next),
            revealed: view.revealed,
            start: self.start,
            rules: view.rules,
        }
    }
}

/// What every rule may read: the move, the evaluation in the move's context, the policy, the bot's
/// configured search options, the search's answer, and the potentials read from it (each worked out at
/// most once, and only when a rule needs it).
#[derive(Clone)]
pub struct Facts<'a> {
    /// The move.
    pub obs: &'a Observation<'a>,
    /// The evaluation in this move's context.
    pub eval: &'a Evaluation,
    /// The ignition policy.
    pub policy: &'a IgnitionPolicy,
    /// The bot's configured search options (the survival search and the play-outs start from them, not
    /// from the late look).
    pub search: &'a SearchOptions,
    /// The search's answer.
    pub result: &'a SearchResult,
    /// The potential chain the build keeps: that of the field the search's best placement leaves (the
    /// field as it stands may lack a key the current piece brings). `None` when no rule reads it.
    pub potential: Option<u32>,
    standing: OnceCell<Option<u32>>,
}

impl<'a> Facts<'a> {
    /// The facts of a searched move.
    pub fn new(
        obs: &'a Observation<'a>,
        eval: &'a Evaluation,
        policy: &'a IgnitionPolicy,
        search: &'a SearchOptions,
        result: &'a SearchResult,
    ) -> Facts<'a> {
        let potential = match eval {
            Evaluation::Chain(e) if policy.stuck_puyos > 0 || policy.danger_keep_chain > 0 => {
                Some(e.breakdown(&result.best().field, 0, obs.view.rules).potential_chains)
            }
            _ => None,
        };
        Facts { obs, eval, policy, search, result, potential, standing: OnceCell::new() }
    }

    /// The potential chain of the field as it stands (before the current piece).
    pub fn standing(&self) -> Option<u32> {
        *self.standing.get_or_init(|| match self.eval {
            Evaluation::Chain(e) => Some(e.breakdown(self.obs.view.field, 0, self.obs.view.rules).potential_chains),
            _ => None,
        })
    }

    /// A build in danger by height stands (no danger fire, no survival move) if the best placement keeps
    /// it, or if the field holds it now: the search may rate a placement that covers the trigger for a
    /// moment highest, because the next pair uncovers it (the potential of that placement's own field
    /// then reads as a 1-link chain).
    pub fn keeps_build(&self) -> bool {
        let (view, policy) = (self.obs.view, self.policy);
        matches!(self.eval, Evaluation::Chain(_))
            && (policy.keeps_build_in_danger(view, self.potential)
                || (in_danger(view.field, view.nuisance_on_me, view.rules, policy)
                    && policy.keeps_build_in_danger(view, self.standing())))
    }

    /// The candidate at `i`.
    pub fn candidate(&self, i: usize) -> &Candidate {
        &self.result.candidates[i]
    }
}

/// What the rules have settled so far.
#[derive(Clone, Debug, PartialEq)]
pub enum Verdict {
    /// Nothing: play the search's best placement, building on.
    Build,
    /// Fire candidate `pick` for `reason` (a later rule may still hold it back).
    Fire {
        /// The candidate that fires.
        pick: usize,
        /// Why.
        reason: FireReason,
    },
    /// Play this decision; no later rule changes it.
    Play(Decision),
}

/// One rule of the bot's choice.
pub trait Rule {
    /// The rule's name, for logs.
    fn name(&self) -> &'static str;
    /// The verdict after this rule, given the verdict before it (never a [`Verdict::Play`]).
    fn apply(&self, facts: &Facts<'_>, verdict: Verdict) -> Verdict;
}

/// The rules in the order they are folded.
pub const RULES: [&dyn Rule; 5] = [&Battle, &Fire, &WaitForLonger, &HoldForPlayouts, &Survival];

/// The decision for a searched move: the rules folded in order over [`Verdict::Build`].
pub fn decide(facts: &Facts<'_>) -> Decision {
    let verdict = RULES.iter().fold(Verdict::Build, |verdict, rule| match verdict {
        Verdict::Play(_) => verdict,
        _ => {
            let after = rule.apply(facts, verdict.clone());
            if after != verdict {
                log::trace!("{}: {:?}", rule.name(), after);
            }
            after
        }
    });
    match verdict {
        Verdict::Build => decision(facts.result, facts.result.best, None),
        Verdict::Fire { pick, reason } => decision(facts.result, pick, Some(reason)),
        Verdict::Play(d) => d,
    }
}

/// The decision for candidate `pick` of a search, with every candidate ranked behind it.
pub fn decision(result: &SearchResult, pick: usize, fired: Option<FireReason>) -> Decision {
    let mut ranking: Vec<(Placement, f64)> = result.candidates.iter().map(|c| (c.placement, c.value)).collect();
    ranking.sort_by(|a, b| b.1.total_cmp(&a.1));
    let c: &Candidate = &result.candidates[pick];
    Decision {
        placement: c.placement,
        path: c.path.clone(),
        chain: c.chain,
        value: c.value,
        fired,
        ranking,
        intent: None,
    }
}

#[cfg(test)]
pub(crate) mod testing {
    //! What the rules' tests share: a chain evaluation, pairs, a view and a searched move.

    use super::*;
    use crate::ai::eval::ChainEval;
    use crate::ai::search;
    use crate::game::{Color, Field, Pair, Piece, Rules};

    /// A pair of colours `a` and `b` (indices into `Color::ALL`).
    pub fn pair(a: usize, b: usize) -> Piece {
        Piece::Pair(Pair::new(Color::ALL[a], Color::ALL[b]))
    }

    /// The default chain evaluation.
    pub fn chain_eval() -> Evaluation {
        Evaluation::Chain(Box::new(ChainEval::new(Default::default()).expect("the default weights")))
    }

    /// Two-ply search options (quick, and what `play --fast` uses).
    pub fn two_ply() -> SearchOptions {
        SearchOptions { samples: 0, ..SearchOptions::default() }
    }

    /// Searches `view` with `eval` in the move's context and hands the facts to `f`.
    pub fn with_facts<T>(
        view: &View<'_>,
        policy: &IgnitionPolicy,
        opts: &SearchOptions,
        f: impl FnOnce(&Facts<'_>) -> T,
    ) -> T {
        let obs = Observation::new(view, PiecePosition::spawn(view.rules), opts, 7);
        let eval = chain_eval().in_context(obs.eval_context(Some(policy)));
        let result = search::search(&obs.search_input(), &eval, &obs.look, obs.seed).expect("placements");
        let facts = Facts::new(&obs, &eval, policy, opts, &result);
        f(&facts)
    }

    /// A field from rows, and the rules.
    pub fn field(rows: &[&str]) -> (Field, Rules) {
        (Field::from_rows(rows), Rules::puyo1())
    }
}

#[cfg(test)]
mod tests {
    use super::testing::*;
    use super::*;
    use crate::game::{Field, OpponentView, Rules};

    #[test]
    fn the_evaluation_is_told_battle_planned_fires_and_the_looks_extension_keys() {
        let rules = Rules::puyo1();
        let f = Field::from_rows(&["R....."]);
        let view = View::solo(&f, pair(0, 1), pair(2, 3), &rules);
        let policy = IgnitionPolicy::default();
        let look = SearchOptions { detect_extend_keys: 1, ..SearchOptions::default() };
        let obs = Observation::new(&view, PiecePosition::spawn(&rules), &look, 1);
        let ctx = obs.eval_context(Some(&policy));
        assert_eq!(ctx, EvalContext { battle: false, extend_keys: Some(1), fire_at: Some(policy.threshold()) });
        // No policy (the classic bot), or plan_fire off: every pop is waste.
        assert_eq!(obs.eval_context(None).fire_at, None);
        let no_plan = IgnitionPolicy { plan_fire: false, ..policy.clone() };
        assert_eq!(obs.eval_context(Some(&no_plan)).fire_at, None);
        // A battle plans the fire of the chain that reaches the cap (a plain 4-link chain sends 32), and
        // never takes the late look.
        let opponent = OpponentView { field: &f, nuisance_on_them: 0, incoming_from_chain: 0 };
        let battle = View { opponent: Some(opponent), ..view };
        let obs = Observation::new(&battle, PiecePosition::spawn(&rules), &look, 1);
        let four = FireThreshold { min_chain: 4, patience_puyos: 0, patience_step: 1 };
        assert_eq!(
            obs.eval_context(Some(&policy)),
            EvalContext { battle: true, extend_keys: Some(1), fire_at: Some(four) }
        );
        assert_eq!(obs.eval_context(Some(&no_plan)).fire_at, None);
    }

    #[test]
    fn the_late_look_starts_at_its_threshold_in_endless_only() {
        let rules = Rules::puyo1();
        let rows = ["RGBYRG", "BYRGBY", "RGBYRG", "BYRGBY", "RGBYRG", "BYRGBY", "RGBYRG", "BYRGBY"];
        let full = Field::from_rows(&rows);
        let configured = SearchOptions::default();
        assert!(full.count() >= configured.late.puyos);
        let view = View::solo(&full, pair(0, 1), pair(2, 3), &rules);
        let obs = Observation::new(&view, PiecePosition::spawn(&rules), &configured, 1);
        assert_eq!(obs.look, configured.for_puyos(full.count()));
        assert_ne!(obs.look, configured);
        let opponent = OpponentView { field: &full, nuisance_on_them: 0, incoming_from_chain: 0 };
        let battle = View { opponent: Some(opponent), ..view };
        assert_eq!(Observation::new(&battle, PiecePosition::spawn(&rules), &configured, 1).look, configured);
    }

    #[test]
    fn an_open_field_is_built_on_by_every_rule() {
        let (f, rules) = field(&["R.....", "G.....", "B....."]);
        let view = View::solo(&f, pair(0, 1), pair(2, 3), &rules);
        let policy = IgnitionPolicy::default();
        with_facts(&view, &policy, &two_ply(), |facts| {
            for rule in RULES {
                assert_eq!(rule.apply(facts, Verdict::Build), Verdict::Build, "{}", rule.name());
            }
            let d = decide(facts);
            assert_eq!(d.fired, None);
            assert_eq!(d.placement, facts.result.best().placement);
            assert_eq!(d.ranking.len(), facts.result.candidates.len());
        });
    }
}
