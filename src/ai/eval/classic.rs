//! The "classic" evaluation of the original Famicom bot: seven field metrics, each normalised to 0..1, summed
//! with trained weights (penalties negative). It knows nothing of chains beyond what links reward, so it
//! pops whatever it can; it is the baseline every other evaluation must beat.

use serde::{Deserialize, Serialize};

use crate::game::Field;
use crate::game::field::{COLUMN_BITS, FIELD_MASK, HEIGHT, WIDTH, column_mask};

/// Weights of the seven metrics, in percent (the original bot's trained values by default). Penalties are applied
/// with a negative sign, so every weight here is a positive magnitude.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ClassicWeights {
    /// Penalty on the number of coloured puyos.
    pub colored: f64,
    /// Penalty on the number of nuisance puyos.
    pub nuisance: f64,
    /// Penalty on puyos along the walls and floor (corners count twice).
    pub edge: f64,
    /// Penalty on puyos close to the spawn cell.
    pub spawn_distance: f64,
    /// Reward for same-colour runs along rows and columns, gaps ignored.
    pub consecutive: f64,
    /// Penalty on the positional variance of each colour.
    pub variance: f64,
    /// Reward for same-colour orthogonal links.
    pub links: f64,
}

impl Default for ClassicWeights {
    fn default() -> Self {
        ClassicWeights {
            colored: 16.0,
            nuisance: 25.0,
            edge: 8.0,
            spawn_distance: 8.0,
            consecutive: 16.0,
            variance: 2.0,
            links: 25.0,
        }
    }
}

/// Number of cells (hidden row included), the normaliser of the per-puyo metrics.
const CELLS: f64 = (WIDTH * HEIGHT) as f64;

/// The seven metrics of a field, each in 0..1.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ClassicMetrics {
    /// Coloured puyos / cells.
    pub colored: f64,
    /// Nuisance puyos / cells.
    pub nuisance: f64,
    /// Wall and floor contacts / the most possible.
    pub edge: f64,
    /// Closeness to the spawn cell, summed over puyos / cells.
    pub spawn_distance: f64,
    /// Same-colour neighbours along rows and columns with gaps ignored / the most possible.
    pub consecutive: f64,
    /// Mean normalised positional variance of the colours present.
    pub variance: f64,
    /// Same-colour orthogonal links / the number of adjacent cell pairs.
    pub links: f64,
}

/// Closeness weight of each bit to the spawn cell (3, 1): `(15 - manhattan distance) / 15`.
fn closeness_table() -> &'static [f64; 128] {
    static TABLE: std::sync::OnceLock<[f64; 128]> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| {
        let mut t = [0.0; 128];
        for x in 1..=WIDTH {
            for y in 0..HEIGHT {
                let d = (x as f64 - 3.0).abs() + (y as f64 - 1.0).abs();
                t[crate::game::field::bit(x, y) as usize] = (15.0 - d).max(0.0) / 15.0;
            }
        }
        t
    })
}

/// Computes the seven metrics.
pub fn metrics(field: &Field) -> ClassicMetrics {
    let occ = field.occupied();
    let colored = field.colored();
    let bottom = FIELD_MASK & spread_bit0();
    let edge_hits =
        (occ & column_mask(1)).count_ones() + (occ & column_mask(WIDTH)).count_ones() + (occ & bottom).count_ones();
    let table = closeness_table();
    let mut closeness = 0.0;
    let mut rest = occ;
    while rest != 0 {
        let i = rest.trailing_zeros();
        rest &= rest - 1;
        closeness += table[i as usize];
    }
    // Links and vertical runs (a settled column has no gaps, so vertical runs are vertical links).
    let mut links = 0u32;
    let mut vertical = 0u32;
    let mut variance = 0.0;
    let mut present = 0u32;
    for c in crate::game::Color::ALL {
        let l = field.color_bits(c);
        if l == 0 {
            continue;
        }
        let h = (l & (l >> 16)).count_ones();
        let v = (l & (l >> 1) & FIELD_MASK).count_ones();
        links += h + v;
        vertical += v;
        variance += positional_variance(l);
        present += 1;
    }
    let horizontal = horizontal_runs(field);
    ClassicMetrics {
        colored: colored.count_ones() as f64 / CELLS,
        nuisance: field.nuisance_bits().count_ones() as f64 / CELLS,
        edge: edge_hits as f64 / (2.0 * HEIGHT as f64 + WIDTH as f64),
        spawn_distance: closeness / CELLS,
        consecutive: (horizontal + vertical) as f64 / (2.0 * CELLS),
        variance: if present == 0 { 0.0 } else { variance / present as f64 },
        links: links as f64 / ((WIDTH - 1) * HEIGHT + WIDTH * (HEIGHT - 1)) as f64,
    }
}

/// The positional variance of the colour layer `l` (not empty) along x and y, each normalised by the
/// variance of a uniform spread over the field, averaged.
fn positional_variance(l: u128) -> f64 {
    let n = l.count_ones() as f64;
    let (mut sx, mut sxx, mut sy, mut syy) = (0.0, 0.0, 0.0, 0.0);
    for x in 1..=WIDTH {
        let col = ((l >> (16 * (x - 1))) as u16 & COLUMN_BITS as u16) as u32;
        if col == 0 {
            continue;
        }
        let k = col.count_ones() as f64;
        sx += k * x as f64;
        sxx += k * (x * x) as f64;
        let mut r = col;
        while r != 0 {
            let h = r.trailing_zeros() as f64;
            r &= r - 1;
            sy += h;
            syy += h * h;
        }
    }
    let vx = (sxx / n - (sx / n).powi(2)).max(0.0);
    let vy = (syy / n - (sy / n).powi(2)).max(0.0);
    (vx / 6.25 + vy / 42.25) / 2.0
}

/// Horizontal runs with gaps ignored: each puyo compared with the next puyo to its right in the row.
fn horizontal_runs(field: &Field) -> u32 {
    let (occ, colored) = (field.occupied(), field.colored());
    let mut horizontal = 0u32;
    for h in 0..HEIGHT {
        let mut last: Option<usize> = None;
        for x in 0..WIDTH {
            let b = 1u128 << (16 * x + h);
            if occ & b == 0 {
                continue;
            }
            let here = if colored & b == 0 {
                None
            } else {
                crate::game::Color::ALL.iter().position(|&c| field.color_bits(c) & b != 0)
            };
            if here.is_some() && here == last {
                horizontal += 1;
            }
            last = here;
        }
    }
    horizontal
}

/// The bottom cell of every column.
const fn spread_bit0() -> u128 {
    let mut out = 0;
    let mut i = 0;
    while i < WIDTH {
        out |= 1 << (16 * i);
        i += 1;
    }
    out
}

/// The classic value of a field: the weighted sum of the metrics (higher is better).
pub fn evaluate(field: &Field, w: &ClassicWeights) -> f64 {
    let m = metrics(field);
    -w.colored * m.colored - w.nuisance * m.nuisance - w.edge * m.edge - w.spawn_distance * m.spawn_distance
        + w.consecutive * m.consecutive
        - w.variance * m.variance
        + w.links * m.links
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metrics_are_normalised_and_count_what_they_say() {
        let f = Field::from_rows(&["R.R...", "RGGB.O"]);
        let m = metrics(&f);
        for v in [m.colored, m.nuisance, m.edge, m.spawn_distance, m.consecutive, m.variance, m.links] {
            assert!((0.0..=1.0).contains(&v), "{m:?}");
        }
        assert!((m.colored - 6.0 / CELLS).abs() < 1e-9);
        assert!((m.nuisance - 1.0 / CELLS).abs() < 1e-9);
        // Links: R-R vertical in column 1, G-G horizontal.
        assert!((m.links - 2.0 / 148.0).abs() < 1e-9);
        // Runs ignoring gaps: row "R.R..." gives R..R (1), bottom G G (1), column 1 R R (1).
        assert!((m.consecutive - 3.0 / (2.0 * CELLS)).abs() < 1e-9);
        // Edges: (1, bottom) corner 2, (1, row 12) 1, bottom row cells 2..6 → 4 more, (6,bottom) wall +1.
        assert!((m.edge - 8.0 / 34.0).abs() < 1e-9);
    }
}
