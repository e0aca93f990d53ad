//! Chain-form templates as constraints, after the CSP approach of seed 002.
//!
//! A template labels some cells with the step of the chain they pop in (`1` first). From it follow two
//! kinds of constraint: cells with one label share a colour (eq), and cells that touch while carrying
//! different labels — at the start *or at any later stage* of the chain, after the earlier labels have
//! popped and the rest has fallen — must differ (ne). The later-stage constraints are what prevent a
//! premature pop ("bouhatsu"): a puyo that would join the wrong group mid-chain is a violation now.
//! A field is scored by how many template cells it fills consistently and how many constraints it breaks.

use crate::game::Field;
use crate::game::field::{HEIGHT, WIDTH};

/// A compiled template: label masks and the ne pairs, plus the mirrored copy.
#[derive(Clone, Debug)]
pub struct Template {
    /// Human name, e.g. "gtr".
    pub name: &'static str,
    /// One mask per label, label 1 first.
    pub labels: Vec<u128>,
    /// Pairs of cells (as single-bit masks) that must not share a colour.
    pub ne: Vec<(u128, u128)>,
    /// All template cells.
    pub cells: u128,
}

/// The GTR base, the best-known opening, on the left wall (rows listed top first; `.` is free).
/// Label 1 needs one key on column 1; then 2 and 3 pop in turn.
pub const GTR_ROWS: [&str; 3] = ["123...", "1123..", "2233.."];

/// Bit of the cell at column `x` (1-based) and height `h` from the floor.
#[inline]
fn cell(x: usize, h: usize) -> u128 {
    1u128 << (16 * (x - 1) + h)
}

impl Template {
    /// Compiles a template from rows (top row first, the last row on the floor; digits are labels).
    /// With `mirror`, columns are reflected (the template sits on the right wall).
    pub fn compile(name: &'static str, rows: &[&str], mirror: bool) -> Template {
        // grid[x][h] = label (0 = free)
        let mut grid = [[0u8; HEIGHT]; WIDTH];
        let n = rows.len();
        for (i, row) in rows.iter().enumerate() {
            let h = n - 1 - i;
            for (j, ch) in row.chars().enumerate().take(WIDTH) {
                let x = if mirror { WIDTH - 1 - j } else { j };
                grid[x][h] = ch.to_digit(10).unwrap_or(0) as u8;
            }
        }
        let max_label = grid.iter().flatten().copied().max().unwrap_or(0) as usize;
        let mut labels = vec![0u128; max_label];
        let mut cells = 0u128;
        for (x, col) in grid.iter().enumerate() {
            for (h, &l) in col.iter().enumerate() {
                if l > 0 {
                    labels[l as usize - 1] |= cell(x + 1, h);
                    cells |= cell(x + 1, h);
                }
            }
        }
        // Simulate the stages: each column is a stack of (label, origin cell); pop label k, compact.
        let mut stacks: Vec<Vec<(u8, u128)>> = grid
            .iter()
            .enumerate()
            .map(|(x, col)| {
                col.iter().enumerate().filter(|&(_, &l)| l > 0).map(|(h, &l)| (l, cell(x + 1, h))).collect()
            })
            .collect();
        let mut ne = Vec::new();
        for stage in 1..=max_label as u8 {
            // Positions at this stage: stacks compacted to the floor (free cells are ignored).
            for x in 0..WIDTH {
                for (h, &(l, o)) in stacks[x].iter().enumerate() {
                    let mut others = Vec::new();
                    if let Some(&up) = stacks[x].get(h + 1) {
                        others.push(up);
                    }
                    if x + 1 < WIDTH
                        && let Some(&right) = stacks[x + 1].get(h)
                    {
                        others.push(right);
                    }
                    for (l2, o2) in others {
                        if l2 != l && !ne.contains(&(o, o2)) {
                            ne.push((o, o2));
                        }
                    }
                }
            }
            for s in &mut stacks {
                s.retain(|&(l, _)| l != stage);
            }
        }
        Template { name, labels, ne, cells }
    }

    /// The template's fit to a field: (cells filled consistently, constraint violations).
    /// A label whose cells hold more than one colour (or nuisance) counts one violation per extra colour.
    pub fn fit(&self, field: &Field) -> (u32, u32) {
        let mut filled = 0;
        let mut violations = 0;
        for &mask in &self.labels {
            let mut colours = 0;
            for c in crate::game::Color::ALL {
                let here = field.color_bits(c) & mask;
                if here != 0 {
                    colours += 1;
                    filled += here.count_ones();
                }
            }
            violations += colours.max(1) - 1 + (field.nuisance_bits() & mask).count_ones();
        }
        for &(a, b) in &self.ne {
            if crate::game::Color::ALL.iter().any(|&c| {
                let l = field.color_bits(c);
                l & a != 0 && l & b != 0
            }) {
                violations += 1;
            }
        }
        (filled, violations)
    }
}

/// The built-in templates by name: `gtr` (left wall) and its mirror.
pub fn builtin(name: &str) -> Option<[Template; 2]> {
    match name {
        "gtr" => Some([Template::compile("gtr", &GTR_ROWS, false), Template::compile("gtr", &GTR_ROWS, true)]),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::{Cell, Color, Rules};

    /// Fills the template with colours 1 → R, 2 → G, 3 → B and adds the key.
    fn filled_gtr() -> Field {
        let mut f = Field::from_rows(&["RGB...", "RRGB..", "GGBB.."]);
        f.set(1, HEIGHT - 1 - 3, Cell::Color(Color::ALL[0]));
        f
    }

    #[test]
    fn gtr_fires_in_label_order() {
        let mut f = filled_gtr();
        let (summary, steps) = f.resolve_steps(&Rules::puyo1());
        assert_eq!(summary.chains, 3);
        for (i, s) in steps.iter().enumerate() {
            assert_eq!(s.groups.len(), 1);
            assert_eq!(s.groups[0].0, Color::ALL[i]);
        }
    }

    #[test]
    fn consistent_fill_has_no_violation_and_stage_constraints_catch_premature_pops() {
        let t = Template::compile("gtr", &GTR_ROWS, false);
        let f = Field::from_rows(&["RGB...", "RRGB..", "GGBB.."]);
        assert_eq!(t.fit(&f), (11, 0));
        // Label 3's top cell (3, h2) touches label 2's cell below it only after label 1 pops; if both were
        // G the 2-group would swallow it. Colouring (3, h2) like label 2 must be a violation.
        let bad = Field::from_rows(&["RGG...", "RRGB..", "GGBB.."]);
        let (_, v) = t.fit(&bad);
        assert!(v >= 2, "label 3 mixes colours and a stage-1 ne pair breaks: {v}");
        // The mirror sits on the right wall.
        let m = Template::compile("gtr", &GTR_ROWS, true);
        assert_eq!(m.cells & crate::game::field::column_mask(1), 0);
    }
}
