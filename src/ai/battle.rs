//! What a battle is about at one move, for the bots' 2P decisions: the opponent's lethal dose, the
//! per-chain cap, and so the attack worth firing; the nuisance coming our way. Shared by the `chain`
//! bot's battle rule ([`super::choice::Battle`]) and the `rush` attacker ([`super::rush`]).

use super::ignition::nuisance_of;
use super::search::{Candidate, DEATH};
use crate::game::nuisance::lethal_dose;
pub use crate::game::nuisance::links_to_send;
use crate::game::{ChainSummary, Rules, View};

/// The stakes of one battle move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stakes {
    /// Most nuisance one chain sends (`u32::MAX`: no cap).
    pub cap: u32,
    /// Whether the rules cap a chain's nuisance at all.
    pub capped: bool,
    /// Nuisance the opponent's field still lacks to top out, after what we have sent that has not
    /// fallen yet (0: what is on its way kills, unless the opponent pops it away).
    pub lethal: u32,
    /// Nuisance already on its way to the opponent.
    pub queued: u32,
    /// Nuisance on its way to us: waiting on our field and in the opponent's running chain.
    pub incoming: u32,
    /// Our own lethal dose (what tops our field out).
    pub own_lethal: u32,
}

impl Stakes {
    /// The stakes of `view`; `None` in 1P play.
    pub fn of(view: &View<'_>) -> Option<Stakes> {
        let o = view.opponent?;
        let rules = view.rules;
        Some(Stakes {
            cap: rules.nuisance_cap(),
            capped: rules.nuisance_cap_per_chain.is_some(),
            lethal: lethal_dose(o.field, rules).saturating_sub(o.nuisance_on_them),
            queued: o.nuisance_on_them,
            incoming: view.nuisance_on_me + o.incoming_from_chain,
            own_lethal: lethal_dose(view.field, rules),
        })
    }

    /// The attack worth firing: the cap, or less when less kills.
    pub fn target(&self) -> u32 {
        self.cap.min(self.lethal.max(1))
    }

    /// Whether what we have sent already kills the opponent if it falls as it is.
    pub fn queued_kills(&self) -> bool {
        self.lethal == 0
    }

    /// Whether the nuisance coming our way leaves at least `margin` rows of room in the spawn column.
    pub fn absorbable(&self, margin: u32) -> bool {
        self.incoming + margin * crate::game::WIDTH as u32 <= self.own_lethal
    }
}

/// Nuisance `chain` sends under `rules` (no carry), capped per chain.
pub fn sends(chain: &ChainSummary, rules: &Rules) -> u32 {
    nuisance_of(chain.score, rules)
}

/// Whether a candidate fires a chain and does not top out.
fn fires(c: &Candidate) -> bool {
    c.chain.chains > 0 && c.value > DEATH * 0.75
}

/// The cheapest candidate that sends at least `need` nuisance now: fewest puyos popped (the rest stay to
/// build the next attack), then the better value. `None` when none does.
pub fn cheapest_reaching(candidates: &[Candidate], need: u32, rules: &Rules) -> Option<usize> {
    candidates
        .iter()
        .enumerate()
        .filter(|(_, c)| fires(c) && sends(&c.chain, rules) >= need)
        .min_by(|(_, a), (_, b)| a.chain.cleared.cmp(&b.chain.cleared).then(b.value.total_cmp(&a.value)))
        .map(|(i, _)| i)
}

/// The candidate that sends the most nuisance now (then the better value), if any fires.
pub fn strongest(candidates: &[Candidate], rules: &Rules) -> Option<usize> {
    candidates
        .iter()
        .enumerate()
        .filter(|(_, c)| fires(c))
        .max_by(|(_, a), (_, b)| {
            (sends(&a.chain, rules), a.chain.chains)
                .cmp(&(sends(&b.chain, rules), b.chain.chains))
                .then(a.value.total_cmp(&b.value))
        })
        .map(|(i, _)| i)
}

/// The best-valued candidate that fires nothing and does not top out, if any.
pub fn best_quiet(candidates: &[Candidate]) -> Option<usize> {
    candidates
        .iter()
        .enumerate()
        .filter(|(_, c)| c.chain.chains == 0 && c.value > DEATH * 0.75)
        .max_by(|(_, a), (_, b)| a.value.total_cmp(&b.value))
        .map(|(i, _)| i)
}

/// The intent of a fire that sends `sent` with `links` links, as the HUD shows it: `KILL: 42 >= 36`,
/// `FIRE 4: 30 = CAP`, or `FIRE 5: 69` (no cap reached).
pub fn fire_intent(stakes: &Stakes, links: u32, sent: u32) -> String {
    if sent >= stakes.lethal && stakes.lethal > 0 {
        format!("KILL: {sent} >= {}", stakes.lethal)
    } else if stakes.capped && sent >= stakes.cap {
        format!("FIRE {links}: {sent} = CAP")
    } else {
        format!("FIRE {links}: {sent}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::{Cell, Color, Field, OpponentView};

    fn stakes_with(opponent: &Field, on_them: u32, rules: &Rules) -> Stakes {
        let me = Field::new();
        let p = crate::game::Piece::Pair(crate::game::Pair::new(Color::ALL[0], Color::ALL[1]));
        let o = OpponentView { field: opponent, nuisance_on_them: on_them, incoming_from_chain: 12 };
        let view = View { opponent: Some(o), nuisance_on_me: 6, ..View::solo(&me, p, p, rules) };
        Stakes::of(&view).expect("a battle")
    }

    #[test]
    fn the_target_is_the_cap_or_the_lethal_dose_whichever_is_less() {
        let mut rules = Rules::puyo1();
        let empty = Field::new();
        let s = stakes_with(&empty, 0, &rules);
        assert_eq!((s.target(), s.incoming, s.lethal), (30, 18, 78));
        let mut high = Field::new();
        for _ in 0..11 {
            high.drop_puyo(3, Cell::Color(Color::ALL[1]));
        }
        let s = stakes_with(&high, 6, &rules);
        assert_eq!((s.lethal, s.target()), (6, 6), "12 lack two rows, 6 are on their way");
        assert!(!s.queued_kills());
        assert!(stakes_with(&high, 12, &rules).queued_kills());
        rules.nuisance_cap_per_chain = None;
        let s = stakes_with(&empty, 0, &rules);
        assert_eq!((s.capped, s.target()), (false, 78));
    }

    #[test]
    fn a_plain_four_link_chain_reaches_the_cap_and_six_links_kill_an_empty_field_uncapped() {
        let mut rules = Rules::puyo1();
        assert_eq!(links_to_send(30, &rules), 4);
        assert_eq!(links_to_send(5, &rules), 2);
        rules.nuisance_cap_per_chain = None;
        assert_eq!(links_to_send(78, &rules), 6);
        assert_eq!(links_to_send(60, &rules), 5);
    }

    #[test]
    fn intents_name_the_kill_the_cap_or_the_size() {
        let rules = Rules::puyo1();
        let s = stakes_with(&Field::new(), 0, &rules);
        assert_eq!(fire_intent(&s, 4, 30), "FIRE 4: 30 = CAP");
        assert_eq!(fire_intent(&s, 2, 9), "FIRE 2: 9");
        let near = Stakes { lethal: 24, ..s };
        assert_eq!(fire_intent(&near, 4, 30), "KILL: 30 >= 24");
    }
}
