//! Nuisance: how much a chain sends and how pending nuisance falls.

use rand::Rng;
use rand::seq::index::sample;

use super::field::{Field, WIDTH};
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
