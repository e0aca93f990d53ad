//! `rush`: a rules-aware reference attacker for 2P. It searches the current and next pair with the
//! chain evaluation in battle mode (short chains valued, long ones not; a potential chain also valued by
//! the nuisance it sends, [`RushWeights`], so two-step chains that pop several colours at once are built
//! where they send more than plain ones), and after the search it
//!
//! 1. kills: fires the cheapest chain that sends the opponent's lethal dose;
//! 2. stalls: when what it has sent already kills the opponent once it falls, it fires nothing and
//!    builds on (unless its own field is in danger);
//! 3. fires the cheapest chain that reaches the cap (or the lethal dose, when that is less): fewest
//!    puyos popped, so what stays on the field starts the next attack;
//! 4. in danger (counting the nuisance coming), fires the strongest chain it has, or plays the survival
//!    search;
//! 5. otherwise builds: the search's best placement.
//!
//! Every decision carries its intent for the HUD. In 1P play it fires attacks of the cap against an
//! empty field, as in a battle.

use serde::{Deserialize, Serialize};

use super::battle::{Stakes, best_quiet, cheapest_reaching, fire_intent, sends, strongest};
use super::choice::decision;
use super::eval::ChainWeights;
use super::ignition::{IgnitionPolicy, in_danger};
use super::search::SearchResult;
use crate::game::nuisance::lethal_dose;
use crate::game::{Decision, Field, FireReason, View};

/// What `rush` changes in the chain evaluation it searches with (`[ai.rush]` of a profile).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RushWeights {
    /// Replaces [`ChainWeights::battle_sent`]: rush values a potential chain by the nuisance it sends as
    /// well as by its links, so it builds two-step chains whose second step pops several colours at
    /// once (a colour bonus for few links) where they send more than a plain chain of the same length.
    pub battle_sent: f64,
}

impl Default for RushWeights {
    fn default() -> Self {
        RushWeights { battle_sent: 100.0 }
    }
}

impl RushWeights {
    /// The chain weights rush searches with: `chain` with these changes.
    pub fn apply(&self, chain: &ChainWeights) -> ChainWeights {
        ChainWeights { battle_sent: self.battle_sent, ..chain.clone() }
    }
}

/// What rush does at one move, before the survival search: the candidate to play, why it fires (if it
/// does), and its intent.
#[derive(Clone, Debug, PartialEq)]
pub enum RushMove {
    /// Play candidate `pick`, firing for `reason` when it is `Some`.
    Play {
        /// The candidate.
        pick: usize,
        /// Why it fires.
        reason: Option<FireReason>,
        /// The intent line.
        intent: String,
    },
    /// Nothing fires and the field is in danger: play the survival search.
    Survive,
}

/// The stakes rush plays for: the view's, or in 1P those of a battle against an empty field.
fn stakes(view: &View<'_>) -> Stakes {
    Stakes::of(view).unwrap_or_else(|| {
        let empty = Field::new();
        let lethal = lethal_dose(&empty, view.rules);
        Stakes {
            cap: view.rules.nuisance_cap(),
            capped: view.rules.nuisance_cap_per_chain.is_some(),
            lethal,
            queued: 0,
            incoming: view.nuisance_on_me,
            own_lethal: lethal_dose(view.field, view.rules),
        }
    })
}

/// Rush's move after the search `result` (see the module's list).
pub fn choose(view: &View<'_>, result: &SearchResult) -> RushMove {
    let rules = view.rules;
    let s = stakes(view);
    let c = &result.candidates;
    let fire = |pick: usize, reason| {
        let chain = &c[pick].chain;
        RushMove::Play { pick, reason: Some(reason), intent: fire_intent(&s, chain.chains, sends(chain, rules)) }
    };
    if !s.queued_kills()
        && let Some(pick) = cheapest_reaching(c, s.lethal, rules)
    {
        return fire(pick, FireReason::Finish);
    }
    let danger = in_danger(view.field, s.incoming, rules, &IgnitionPolicy::default());
    if s.queued_kills() && !danger {
        let pick = best_quiet(c).unwrap_or(result.best);
        return RushMove::Play { pick, reason: None, intent: format!("STALL: {} QUEUED KILLS", s.queued) };
    }
    if let Some(pick) = cheapest_reaching(c, s.target(), rules) {
        return fire(pick, FireReason::FullLoad);
    }
    if danger {
        return match strongest(c, rules) {
            Some(pick) => fire(pick, FireReason::Danger),
            None => RushMove::Survive,
        };
    }
    RushMove::Play { pick: result.best, reason: None, intent: "BUILD".into() }
}

/// The decision for `rush_move` over the search `result`; `survival` runs the survival search when the
/// move asks for it.
pub fn decide(rush_move: RushMove, result: &SearchResult, survival: impl FnOnce() -> Option<SearchResult>) -> Decision {
    match rush_move {
        RushMove::Play { pick, reason, intent } => Decision { intent: Some(intent), ..decision(result, pick, reason) },
        RushMove::Survive => {
            let (r, pick) = match survival() {
                Some(s) => {
                    let best = s.best;
                    (s, best)
                }
                None => (result.clone(), result.best),
            };
            Decision { intent: Some("SURVIVE".into()), ..decision(&r, pick, None) }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ai::choice::testing::{chain_eval, pair, two_ply};
    use crate::ai::search;
    use crate::game::{OpponentView, PiecePosition, Rules};

    fn rush_on(me: &Field, them: &Field, on_them: u32, current: crate::game::Piece, rules: &Rules) -> RushMove {
        let o = OpponentView { field: them, nuisance_on_them: on_them, incoming_from_chain: 0 };
        let view = View { opponent: Some(o), ..View::solo(me, current, pair(2, 3), rules) };
        let eval = chain_eval().in_context(crate::ai::eval::EvalContext { battle: true, ..Default::default() });
        let input = search::SearchInput {
            field: me,
            current,
            next: Some(view.next),
            revealed: &[],
            start: PiecePosition::spawn(rules),
            rules,
        };
        let result = search::search(&input, &eval, &two_ply(), 1).expect("placements");
        choose(&view, &result)
    }

    /// A plain 4-chain on columns 2-5 (sends 32, capped to 30), fired by a red pair on column 1.
    pub const FOUR: [&str; 5] = [".G....", ".GBY..", ".GBY..", ".RBY..", ".RGBY."];

    #[test]
    fn rush_fires_the_cap_and_builds_when_nothing_reaches_it() {
        let rules = Rules::puyo1();
        let me = Field::from_rows(&FOUR);
        let empty = Field::new();
        let RushMove::Play { reason, intent, .. } = rush_on(&me, &empty, 0, pair(0, 0), &rules) else {
            panic!("no play")
        };
        assert_eq!(reason, Some(FireReason::FullLoad), "{intent}");
        assert!(intent.ends_with("= CAP"), "{intent}");
        let RushMove::Play { reason, intent, .. } = rush_on(&me, &empty, 0, pair(4, 4), &rules) else {
            panic!("no play")
        };
        assert_eq!((reason, intent.as_str()), (None, "BUILD"));
    }

    #[test]
    fn rush_kills_with_a_carbuncle_that_fires_the_lethal_dose() {
        // The Carbuncle on column 1 turns the purple red (the colour below it) and fires a 4-chain.
        let rules = Rules::puyo1();
        let me = Field::from_rows(&[".G....", ".G....", ".GBY..", ".RBY..", ".PBY..", "RRGBY."]);
        let rows: Vec<&str> = (0..12).map(|r| if r % 2 == 0 { "..P..." } else { "..Y..." }).collect();
        let them = Field::from_rows(&rows);
        let car = crate::game::Piece::Item(crate::game::Item::Carbuncle);
        let RushMove::Play { reason, intent, .. } = rush_on(&me, &them, 0, car, &rules) else { panic!("no play") };
        assert_eq!(reason, Some(FireReason::Finish), "{intent}");
        assert!(intent.starts_with("KILL"), "{intent}");
    }

    #[test]
    fn rush_stalls_when_its_queued_nuisance_kills() {
        let rules = Rules::puyo1();
        let me = Field::from_rows(&FOUR);
        let empty = Field::new();
        let RushMove::Play { reason, intent, .. } = rush_on(&me, &empty, 78, pair(0, 0), &rules) else {
            panic!("no play")
        };
        assert_eq!(reason, None);
        assert!(intent.starts_with("STALL"), "{intent}");
    }
}
