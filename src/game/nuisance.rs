//! Nuisance: how much a chain sends and how pending nuisance falls.

use rand::Rng;
use rand::seq::index::sample;

use super::field::{Field, HEIGHT, WIDTH};
use super::piece::Cell;
use super::rules::{NuisanceOverflow, Rules};

/// Converts a chain's score into nuisance to send, using and updating the sender's leftover points
/// (`carry`) and applying the per-chain cap. Points beyond the cap are not carried.
pub fn nuisance_from_score(rules: &Rules, score: u32, carry: &mut u32) -> u32 {
    let total = score + *carry;
    let count = total / rules.nuisance_rate;
    *carry = total % rules.nuisance_rate;
    count.min(rules.nuisance_cap())
}

/// The links of the shortest plain chain (four puyos a link, one colour) that sends at least `need`
/// nuisance under `rules`, no carry, capped per chain (at most 19: past that the chain power table has
/// long saturated).
pub fn links_to_send(need: u32, rules: &Rules) -> u32 {
    let mut score = 0u32;
    for links in 1..=19 {
        score = score.saturating_add(rules.step_score(links, 4, 1, 0));
        if (score / rules.nuisance_rate.max(1)).min(rules.nuisance_cap()) >= need {
            return links;
        }
    }
    19
}

/// The links of the shortest plain chain that sends the most any one chain is worth on an empty field:
/// the per-chain cap, or with no cap the empty field's lethal dose. A longer chain sends no more (capped)
/// or nothing more is needed (the kill).
pub fn links_worth_building(rules: &Rules) -> u32 {
    links_to_send(attack_worth_building(rules), rules)
}

/// The nuisance one attack is worth building up to: the per-chain cap, or with no cap (or a cap above
/// it) an empty field's lethal dose. More sends no more, or kills no surer.
pub fn attack_worth_building(rules: &Rules) -> u32 {
    rules.nuisance_cap().min(lethal_dose(&Field::new(), rules))
}

/// The nuisance that tops out `field` when it falls on it as it stands: enough whole rows to fill the
/// lowest death cell ([`Rules::death_cells`]), at most `rules.nuisance_max_drop` falling per piece
/// (the rest falls with the next ones, so it is lethal only if nothing is popped in between). A death
/// cell already filled needs none.
pub fn lethal_dose(field: &Field, rules: &Rules) -> u32 {
    let rows = rules
        .death_cells()
        .iter()
        .flatten()
        .map(|&(x, y)| (HEIGHT - y).saturating_sub(field.height(x)))
        .min()
        .unwrap_or(0);
    rows as u32 * WIDTH as u32
}

impl Field {
    /// Drops up to `rules.nuisance_max_drop` of `pending` nuisance: whole rows of six first, the remainder
    /// one each in distinct columns chosen by `rng`. Puyos that find their column full vanish or stay
    /// queued (`rules.nuisance_overflow`). Returns how many were taken from `pending` (vanished ones
    /// included when they vanish).
    pub fn drop_nuisance(&mut self, pending: u32, rules: &Rules, rng: &mut impl Rng) -> u32 {
        let n = pending.min(rules.nuisance_max_drop);
        let rows = n / WIDTH as u32;
        let rest = (n % WIDTH as u32) as usize;
        let mut landed = 0;
        for _ in 0..rows {
            for x in 1..=WIDTH {
                landed += self.drop_puyo(x, Cell::Nuisance).is_some() as u32;
            }
        }
        if rest > 0 {
            let mut cols: Vec<usize> = sample(rng, WIDTH, rest).into_iter().collect();
            cols.sort_unstable(); // the order of drops within a row does not matter; keep output stable
            for x in cols {
                landed += self.drop_puyo(x + 1, Cell::Nuisance).is_some() as u32;
            }
        }
        match rules.nuisance_overflow {
            NuisanceOverflow::Vanish => n,
            NuisanceOverflow::Requeue => landed,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Color;

    #[test]
    fn the_links_worth_building_reach_the_cap_or_with_no_cap_an_empty_fields_lethal_dose() {
        let mut rules = Rules::puyo1();
        assert_eq!(links_worth_building(&rules), 4, "a plain 4-link chain sends 32, past the cap of 30");
        rules.nuisance_cap_per_chain = Some(60);
        assert_eq!(links_worth_building(&rules), 5);
        rules.nuisance_cap_per_chain = None;
        assert_eq!(links_worth_building(&rules), 6, "78 kill an empty field: 142 with six links");
    }

    #[test]
    fn the_lethal_dose_is_the_rows_to_the_spawn_cell() {
        let rules = Rules::puyo1();
        let mut f = Field::new();
        // Empty: 12 visible rows below the spawn cell, plus the spawn cell's own row.
        assert_eq!(lethal_dose(&f, &rules), 13 * 6);
        for _ in 0..10 {
            f.drop_puyo(3, Cell::Color(Color::ALL[0]));
        }
        assert_eq!(lethal_dose(&f, &rules), 3 * 6);
        // Three whole rows fill the spawn cell.
        let mut g = f;
        for x in 1..=WIDTH {
            for _ in 0..3 {
                g.drop_puyo(x, Cell::Nuisance);
            }
        }
        assert!(g.is_game_over(&rules));
        let mut h = f;
        for x in 1..=WIDTH {
            for _ in 0..2 {
                h.drop_puyo(x, Cell::Nuisance);
            }
        }
        assert!(!h.is_game_over(&rules), "one row short is not lethal");
    }

    #[test]
    fn no_cap_sends_everything_a_cap_clips() {
        let mut carry = 0;
        let mut rules = Rules::puyo1();
        assert_eq!(nuisance_from_score(&rules, 70 * 50, &mut carry), 30);
        rules.nuisance_cap_per_chain = None;
        assert_eq!(nuisance_from_score(&rules, 70 * 50, &mut carry), 50);
    }
}
