//! Battle: the `chain` bot's 2P decisions, before the ignition policy's own fires. Under the old game's
//! rules nothing offsets, a chain sends at most the cap, and a longer chain than the one reaching it is
//! puyos and time wasted; what wins is the cheapest attack that reaches the cap or the opponent's lethal
//! dose, fired early, small jabs that bury the opponent's trigger, absorbing what the field can take while
//! the counter stays ready, and the kill once the opponent's field is high.

use super::{Facts, Rule, Survival, Verdict, decision};
use crate::ai::battle::{Stakes, best_quiet, cheapest_reaching, fire_intent, sends, strongest};
use crate::ai::eval::Evaluation;
use crate::ai::search::SearchResult;
use crate::game::{Decision, FireReason, View};

/// Whether the bot jabs at all. Off: against `rush` the jab lost games (72.5 % won with it at a threat of
/// 4 links, 80 % without, 40 battles each; 47.5 % and 55 % before the battle's planned fire), since a jab's
/// puyos are taken from the build that reaches the cap (docs/lab/battle.md).
pub const JAB: bool = false;
/// An opponent's potential chain of at least this many links is a threat worth a jab.
pub const JAB_THREAT_LINKS: u32 = 3;
/// A jab sends at least this much (about a row: it covers most columns' tops; a plain 2-link chain
/// sends 5)...
pub const JAB_MIN_NUISANCE: u32 = 4;
/// ...with at most this many links...
pub const JAB_MAX_LINKS: u32 = 2;
/// ...popping at most this many puyos.
pub const JAB_MAX_POPPED: u32 = 10;
/// Nuisance coming our way is absorbed (no answer fired) while it leaves this many rows of room above
/// the spawn column.
pub const ABSORB_ROOM_ROWS: u32 = 3;
/// A build that keeps a potential chain this long holds its counter ready.
pub const COUNTER_LINKS: u32 = 4;

/// The `chain` bot's battle rule, in order:
///
/// 1. **kill**: the cheapest chain that sends the opponent's lethal dose (`KILL: 42 >= 36`);
/// 2. in danger (counting the nuisance coming): left to the ignition policy's danger fire and the
///    survival search;
/// 3. **stall**: what we sent already kills once it falls: fire nothing (`STALL: 36 QUEUED KILLS`);
/// 4. **fire the cap**: the cheapest chain that sends the cap, or the lethal dose when less
///    (`FIRE 4: 30 = CAP`);
/// 5. **jab** (when [`JAB`] is on): the opponent holds a potential chain of [`JAB_THREAT_LINKS`]+ links and a short, cheap
///    chain sends about a row on it (`JAB: BURY TRIGGER`);
/// 6. **absorb**: nuisance coming that leaves [`ABSORB_ROOM_ROWS`] rows of room is taken, the build kept
///    (`ABSORB 12`); more is answered with the strongest chain on offer (`ANSWER 3: 14`);
/// 7. **hold**: build on (`HOLD: COUNTER READY` with a potential of [`COUNTER_LINKS`]+ links, else `BUILD`).
///
/// 1P play is left to the other rules untouched.
pub struct Battle;

impl Rule for Battle {
    fn name(&self) -> &'static str {
        "battle"
    }

    fn apply(&self, facts: &Facts<'_>, verdict: Verdict) -> Verdict {
        if verdict != Verdict::Build {
            return verdict;
        }
        let view = facts.obs.view;
        let Some(s) = Stakes::of(view) else { return verdict };
        match battle_move(facts, view, &s) {
            Some(d) => Verdict::Play(d),
            None => verdict,
        }
    }
}

/// The battle decision, or `None` to leave the move to the danger fire and the survival search.
fn battle_move(facts: &Facts<'_>, view: &View<'_>, s: &Stakes) -> Option<Decision> {
    let (result, rules) = (facts.result, view.rules);
    let c = &result.candidates;
    let fire = |pick: usize, reason| {
        let chain = &c[pick].chain;
        play(result, pick, Some(reason), fire_intent(s, chain.chains, sends(chain, rules)))
    };
    if !s.queued_kills()
        && let Some(pick) = cheapest_reaching(c, s.lethal, rules)
    {
        return Some(fire(pick, FireReason::Finish));
    }
    if Survival::danger(facts) {
        return None;
    }
    if s.queued_kills() {
        let pick = best_quiet(c).unwrap_or(result.best);
        return Some(play(result, pick, None, format!("STALL: {} QUEUED KILLS", s.queued)));
    }
    if let Some(pick) = cheapest_reaching(c, s.target(), rules) {
        return Some(fire(pick, FireReason::FullLoad));
    }
    if let Some(pick) = jab(facts, view).filter(|_| JAB) {
        return Some(play(result, pick, Some(FireReason::FullLoad), "JAB: BURY TRIGGER".into()));
    }
    if s.incoming > 0 {
        if s.absorbable(ABSORB_ROOM_ROWS) {
            return Some(play(result, result.best, None, format!("ABSORB {}", s.incoming)));
        }
        if let Some(pick) = strongest(c, rules) {
            let chain = &c[pick].chain;
            let intent = format!("ANSWER {}: {}", chain.chains, sends(chain, rules));
            return Some(play(result, pick, Some(FireReason::Answer), intent));
        }
    }
    let ready = facts.potential.unwrap_or(0) >= COUNTER_LINKS;
    Some(play(result, result.best, None, if ready { "HOLD: COUNTER READY" } else { "BUILD" }.into()))
}

/// The jab to play, if the opponent's field holds a threat and a short, cheap chain sends a row on it.
pub fn jab(facts: &Facts<'_>, view: &View<'_>) -> Option<usize> {
    let (Evaluation::Chain(e), Some(o)) = (facts.eval, view.opponent) else { return None };
    let threat = e.breakdown(o.field, 0, view.rules).potential_chains;
    if threat < JAB_THREAT_LINKS {
        return None;
    }
    facts
        .result
        .candidates
        .iter()
        .enumerate()
        .filter(|(_, c)| {
            (1..=JAB_MAX_LINKS).contains(&c.chain.chains)
                && c.chain.cleared <= JAB_MAX_POPPED
                && sends(&c.chain, view.rules) >= JAB_MIN_NUISANCE
                && c.value > crate::ai::search::DEATH * 0.75
        })
        .max_by(|(_, a), (_, b)| a.value.total_cmp(&b.value))
        .map(|(i, _)| i)
}

fn play(result: &SearchResult, pick: usize, reason: Option<FireReason>, intent: String) -> Decision {
    Decision { intent: Some(intent), ..decision(result, pick, reason) }
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use super::*;
    use crate::ai::ignition::IgnitionPolicy;
    use crate::game::{Field, OpponentView, Piece};

    /// A plain 4-chain on columns 2-5 (sends 32, capped to 30), fired by a red pair on column 1.
    const FOUR: [&str; 5] = [".G....", ".GBY..", ".GBY..", ".RBY..", ".RGBY."];
    /// A 2-chain (reds, then greens: 5 nuisance), fired by a red pair on column 1.
    const TWO: [&str; 5] = [".G....", ".G....", ".G....", ".R....", ".RG..."];

    /// The battle rule's decision on `me` against `them` with `on_them` sent and `on_me` coming.
    fn battle(me: &[&str], them: &Field, on_them: u32, on_me: u32, current: Piece) -> Verdict {
        let (f, rules) = field(me);
        let o = OpponentView { field: them, nuisance_on_them: on_them, incoming_from_chain: 0 };
        let view = View { opponent: Some(o), nuisance_on_me: on_me, ..View::solo(&f, current, pair(4, 4), &rules) };
        with_facts(&view, &IgnitionPolicy::default(), &two_ply(), |facts| Battle.apply(facts, Verdict::Build))
    }

    fn intent(v: &Verdict) -> (&str, Option<FireReason>, u32) {
        let Verdict::Play(d) = v else { panic!("no decision: {v:?}") };
        (d.intent.as_deref().unwrap_or(""), d.fired, d.chain.chains)
    }

    /// An opponent's spawn column `h` high.
    fn tower(h: usize) -> Field {
        let rows: Vec<&str> = (0..h).map(|r| if r % 2 == 0 { "..P..." } else { "..Y..." }).collect();
        Field::from_rows(&rows)
    }

    #[test]
    fn the_cheapest_chain_reaching_the_cap_fires() {
        let v = battle(&FOUR, &Field::new(), 0, 0, pair(0, 0));
        assert_eq!(intent(&v), ("FIRE 4: 30 = CAP", Some(FireReason::FullLoad), 4));
    }

    #[test]
    fn a_small_chain_that_sends_the_lethal_dose_kills() {
        // Twelve high: one row short of the spawn cell (6), one already on its way.
        let v = battle(&TWO, &tower(12), 1, 0, pair(0, 0));
        assert_eq!(intent(&v), ("KILL: 5 >= 5", Some(FireReason::Finish), 2));
        // Nothing on its way: the 2-chain's 5 do not kill, nor reach the cap, so the bot builds.
        let build = battle(&TWO, &tower(12), 0, 0, pair(0, 0));
        let (text, fired, _) = intent(&build);
        assert_eq!(fired, None, "{text}");
    }

    #[test]
    fn a_carbuncle_that_fires_the_lethal_dose_kills() {
        // FOUR with its trigger cut: a purple between column 2's reds. A Carbuncle on column 1 lands on
        // the red there, turns the purple red (the colour below it), and the 4-chain fires.
        const CUT: [&str; 6] = [".G....", ".G....", ".GBY..", ".RBY..", ".PBY..", "RRGBY."];
        let car = Piece::Item(crate::game::Item::Carbuncle);
        let v = battle(&CUT, &tower(12), 0, 0, car);
        let (text, fired, links) = intent(&v);
        assert!(text.starts_with("KILL"), "{text}");
        assert_eq!((fired, links), (Some(FireReason::Finish), 4), "{text}");
        // Against an empty field the same Carbuncle sends the cap.
        let v = battle(&CUT, &Field::new(), 0, 0, car);
        assert_eq!(intent(&v), ("FIRE 4: 30 = CAP", Some(FireReason::FullLoad), 4));
    }

    #[test]
    fn nuisance_the_field_can_take_is_absorbed_and_the_build_kept() {
        let v = battle(&TWO, &Field::new(), 0, 12, pair(0, 0));
        let (text, fired, _) = intent(&v);
        assert_eq!((text, fired), ("ABSORB 12", None));
        // In danger the rule stands aside for the danger fire and the survival search.
        assert_eq!(battle(&TWO, &Field::new(), 0, 70, pair(0, 0)), Verdict::Build);
    }

    #[test]
    fn what_is_on_its_way_already_kills_so_the_bot_stalls() {
        let v = battle(&FOUR, &tower(12), 6, 0, pair(0, 0));
        assert_eq!(intent(&v), ("STALL: 6 QUEUED KILLS", None, 0));
    }

    #[test]
    fn a_threat_on_the_opponents_field_finds_a_jab() {
        let (f, rules) = field(&TWO);
        // The opponent holds the 4-chain: a threat of 4 links.
        let them = Field::from_rows(&FOUR);
        let o = OpponentView { field: &them, nuisance_on_them: 0, incoming_from_chain: 0 };
        let view = View { opponent: Some(o), ..View::solo(&f, pair(0, 0), pair(4, 4), &rules) };
        with_facts(&view, &IgnitionPolicy::default(), &two_ply(), |facts| {
            let pick = jab(facts, &view).expect("a jab");
            assert_eq!(facts.candidate(pick).chain.chains, 2);
        });
        // No threat, no jab.
        let o = OpponentView { field: &Field::new(), nuisance_on_them: 0, incoming_from_chain: 0 };
        let calm = View { opponent: Some(o), ..view };
        with_facts(&calm, &IgnitionPolicy::default(), &two_ply(), |facts| assert_eq!(jab(facts, &calm), None));
    }

    #[test]
    fn one_player_play_is_left_to_the_other_rules() {
        let (f, rules) = field(&FOUR);
        let view = View::solo(&f, pair(0, 0), pair(4, 4), &rules);
        with_facts(&view, &IgnitionPolicy::default(), &two_ply(), |facts| {
            assert_eq!(Battle.apply(facts, Verdict::Build), Verdict::Build);
        });
    }
}
