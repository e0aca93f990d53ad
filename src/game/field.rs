//! The playfield as per-colour bitboards, and the operations on it that need no rules table.
//!
//! Coordinates follow the cartridge: column `x` in `1..=6`, row `y` in `0..=13`, row 0 the hidden row and
//! row 13 the bottom. Internally each of the seven layers (six colours and nuisance) is a `u128` with column
//! `x` in bits `16*(x-1) .. 16*(x-1)+14` and height `h = 13 - y` counted from the floor, so gravity is a
//! shift and neighbours are shifts by 1 and 16. The two spare bits per column stay zero and keep vertical
//! shifts from leaking into the next column.

use super::piece::{Cell, Color, MAX_COLORS};

/// Number of columns.
pub const WIDTH: usize = 6;
/// Number of rows, the hidden row included.
pub const HEIGHT: usize = 14;
/// Index of the nuisance layer.
pub const NUISANCE: usize = MAX_COLORS;
/// Number of layers: six colours and nuisance.
pub const LAYERS: usize = MAX_COLORS + 1;
/// Number of colour layers, for loops over colours only.
pub const MAX_COLORS_U: usize = MAX_COLORS;

/// Bits of one column (heights 0..=13).
pub const COLUMN_BITS: u128 = (1 << HEIGHT) - 1;
/// Every cell of the field.
pub const FIELD_MASK: u128 = spread(COLUMN_BITS);
/// Cells at heights 0..=12: rows 1..=13, the part that takes part in groups.
pub const VISIBLE_MASK: u128 = spread((1 << (HEIGHT - 1)) - 1);
/// The hidden row (row 0, height 13) of every column.
pub const HIDDEN_ROW_MASK: u128 = FIELD_MASK & !VISIBLE_MASK;

/// Repeats a 16-bit column pattern over the six columns.
const fn spread(column: u128) -> u128 {
    let mut out = 0;
    let mut i = 0;
    while i < WIDTH {
        out |= column << (16 * i);
        i += 1;
    }
    out
}

/// Bit index of cell (x, y); `x` in 1..=6, `y` in 0..=13.
#[inline]
pub const fn bit(x: usize, y: usize) -> u32 {
    (16 * (x - 1) + (HEIGHT - 1 - y)) as u32
}

/// The mask of one column, `x` in 1..=6.
#[inline]
pub const fn column_mask(x: usize) -> u128 {
    COLUMN_BITS << (16 * (x - 1))
}

/// Orthogonal neighbours of a set of cells, limited to the field.
#[inline]
pub const fn neighbours(b: u128) -> u128 {
    ((b << 1) | (b >> 1) | (b << 16) | (b >> 16)) & FIELD_MASK
}

/// The cells of `layer` connected to `seed`: a flood fill from the seed's cells that lie in `layer`.
/// `layer` must lie within the field, so the shifts need no mask of their own: whatever they push into a
/// spare bit or past the last column is outside `layer` too.
#[inline]
pub const fn flood(layer: u128, seed: u128) -> u128 {
    let mut group = seed & layer;
    loop {
        let grown = (group | (group << 1) | (group >> 1) | (group << 16) | (group >> 16)) & layer;
        if grown == group {
            return group;
        }
        group = grown;
    }
}

/// True when `b` holds at least `n` cells: a hardware popcount on the x86-64-v2 target the project
/// builds for (`.cargo/config.toml`), which is cheaper than clearing bits one by one.
#[inline]
pub const fn at_least(b: u128, n: u32) -> bool {
    b.count_ones() >= n
}

/// Holes with at most one run per column (the usual pop), closed in every column at once: a column's
/// cells above its run move down by the run's length, one power of two at a time.
struct SingleRuns {
    /// Cells below each column's run (all of a column without holes): they stay.
    below: u128,
    /// Cells above each column's run: they fall.
    above: u128,
    /// Columns whose run's length has bit `b` set.
    lengths: [u128; 4],
    /// Cells at or above each column's run: what is there afterwards has moved.
    above_lowest: u128,
}

impl SingleRuns {
    /// The runs of `mask`, or `None` when some column has more than one.
    #[inline]
    fn new(mask: u128) -> Option<SingleRuns> {
        let mut runs = SingleRuns { below: 0, above: 0, lengths: [0; 4], above_lowest: 0 };
        for i in 0..WIDTH {
            let shift = 16 * i;
            let holes = (mask >> shift) as u16 & COLUMN_BITS as u16;
            if holes == 0 {
                runs.below |= COLUMN_BITS << shift;
                continue;
            }
            let start = holes.trailing_zeros();
            let run = (holes >> start) as u32;
            if run & (run + 1) != 0 {
                return None;
            }
            let length = 32 - run.leading_zeros();
            let low = (1u128 << start) - 1;
            runs.below |= low << shift;
            runs.above |= (COLUMN_BITS & !((1u128 << (start + length)) - 1)) << shift;
            runs.above_lowest |= (COLUMN_BITS & !low) << shift;
            for (b, columns) in runs.lengths.iter_mut().enumerate() {
                if length & (1 << b) != 0 {
                    *columns |= COLUMN_BITS << shift;
                }
            }
        }
        Some(runs)
    }

    /// `layer` with the holes closed.
    #[inline]
    fn fall(&self, layer: u128) -> u128 {
        let mut falling = layer & self.above;
        if falling != 0 {
            for (b, &columns) in self.lengths.iter().enumerate() {
                let by = falling & columns;
                falling = (falling ^ by) | (by >> (1u32 << b));
            }
        }
        (layer & self.below) | falling
    }
}

/// A 6×14 Puyo Puyo field.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Field {
    pub(crate) layers: [u128; LAYERS],
}

impl std::fmt::Debug for Field {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(f)?;
        for row in self.rows() {
            writeln!(f, "{row}")?;
        }
        Ok(())
    }
}

impl Field {
    /// An empty field.
    pub const fn new() -> Field {
        Field { layers: [0; LAYERS] }
    }

    /// The cell at column `x` (1..=6), row `y` (0..=13). Out-of-range coordinates read as `Empty`.
    pub fn get(&self, x: usize, y: usize) -> Cell {
        if !(1..=WIDTH).contains(&x) || y >= HEIGHT {
            return Cell::Empty;
        }
        let m = 1u128 << bit(x, y);
        for (i, layer) in self.layers.iter().enumerate() {
            if layer & m != 0 {
                return match Color::new(i as u8) {
                    Some(c) => Cell::Color(c),
                    None => Cell::Nuisance,
                };
            }
        }
        Cell::Empty
    }

    /// Sets the cell at column `x` (1..=6), row `y` (0..=13); out-of-range coordinates are ignored.
    /// No gravity is applied.
    pub fn set(&mut self, x: usize, y: usize, cell: Cell) {
        if !(1..=WIDTH).contains(&x) || y >= HEIGHT {
            return;
        }
        let m = 1u128 << bit(x, y);
        for layer in &mut self.layers {
            *layer &= !m;
        }
        match cell {
            Cell::Empty => {}
            Cell::Nuisance => self.layers[NUISANCE] |= m,
            Cell::Color(c) => self.layers[c.index()] |= m,
        }
    }

    /// All occupied cells.
    #[inline]
    pub fn occupied(&self) -> u128 {
        self.layers.iter().fold(0, |a, l| a | l)
    }

    /// Bitboard of one colour.
    #[inline]
    pub fn color_bits(&self, c: Color) -> u128 {
        self.layers[c.index()]
    }

    /// Bitboard of nuisance puyos.
    #[inline]
    pub fn nuisance_bits(&self) -> u128 {
        self.layers[NUISANCE]
    }

    /// Number of puyos on the field (nuisance included).
    pub fn count(&self) -> u32 {
        self.occupied().count_ones()
    }

    /// Number of coloured puyos.
    pub fn color_count(&self) -> u32 {
        self.layers[..MAX_COLORS].iter().map(|l| l.count_ones()).sum()
    }

    /// Number of nuisance puyos.
    pub fn nuisance_count(&self) -> u32 {
        self.layers[NUISANCE].count_ones()
    }

    /// Number of puyos of one colour.
    pub fn count_of(&self, c: Color) -> u32 {
        self.layers[c.index()].count_ones()
    }

    /// True when no puyo is on the field.
    pub fn is_empty(&self) -> bool {
        self.occupied() == 0
    }

    /// Height of column `x` (1..=6): the number of cells from the floor up to and including the highest
    /// puyo (0 when empty). On a settled field it is the number of puyos in the column.
    #[inline]
    pub fn height(&self, x: usize) -> usize {
        let col = (self.occupied() >> (16 * (x - 1))) as u16 & COLUMN_BITS as u16;
        16 - col.leading_zeros() as usize
    }

    /// Heights of all six columns (index 0 = column 1).
    pub fn heights(&self) -> [usize; WIDTH] {
        let occ = self.occupied();
        std::array::from_fn(|i| {
            let col = (occ >> (16 * i)) as u16 & COLUMN_BITS as u16;
            16 - col.leading_zeros() as usize
        })
    }

    /// The row (0..=13) a puyo dropped into column `x` comes to rest in, or `None` when the column is full.
    #[inline]
    pub fn landing_row(&self, x: usize) -> Option<usize> {
        let h = self.height(x);
        (h < HEIGHT).then(|| HEIGHT - 1 - h)
    }

    /// Drops one puyo into column `x`; it vanishes when the column is full, as above row 0 in the game.
    /// Returns the row it landed in.
    #[inline]
    pub fn drop_puyo(&mut self, x: usize, cell: Cell) -> Option<usize> {
        let y = self.landing_row(x)?;
        self.set(x, y, cell);
        Some(y)
    }

    /// True when nothing floats: every column is a contiguous stack from the floor.
    pub fn is_settled(&self) -> bool {
        let occ = self.occupied();
        (0..WIDTH).all(|i| {
            let col = (occ >> (16 * i)) as u16 & COLUMN_BITS as u16;
            col & col.wrapping_add(1) == 0
        })
    }

    /// Lets every puyo fall to the floor or onto the puyo below it. Returns the cells that moved
    /// (at their new positions).
    pub fn apply_gravity(&mut self) -> u128 {
        let mut moved = 0u128;
        let occ = self.occupied();
        for i in 0..WIDTH {
            let shift = 16 * i;
            let col = (occ >> shift) as u16 & COLUMN_BITS as u16;
            if col & col.wrapping_add(1) == 0 {
                continue; // already a contiguous stack
            }
            let n = col.count_ones();
            let mut new_layers = [0u16; LAYERS];
            // Walk the column bottom-up and assign each puyo to the next free height.
            let mut rest = col;
            let mut h = 0;
            let mut first_moved = None;
            while rest != 0 {
                let src = rest.trailing_zeros();
                rest &= rest - 1;
                if src != h && first_moved.is_none() {
                    first_moved = Some(h);
                }
                for (l, layer) in self.layers.iter().enumerate() {
                    if (layer >> (shift + src as usize)) & 1 != 0 {
                        new_layers[l] |= 1 << h;
                        break;
                    }
                }
                h += 1;
            }
            let cm = COLUMN_BITS << shift;
            for (layer, new) in self.layers.iter_mut().zip(new_layers) {
                *layer = (*layer & !cm) | ((new as u128) << shift);
            }
            if let Some(from) = first_moved {
                let moved_col = ((1u128 << n) - 1) & !((1u128 << from) - 1);
                moved |= moved_col << shift;
            }
        }
        moved
    }

    /// Removes the cells of `mask` and lets the puyos above them fall. Assumes the field was settled.
    /// Returns the cells that moved (at their new positions).
    pub fn remove_and_fall(&mut self, mask: u128) -> u128 {
        match SingleRuns::new(mask) {
            Some(runs) => {
                for layer in &mut self.layers {
                    *layer = runs.fall(*layer);
                }
                self.occupied() & runs.above_lowest
            }
            None => self.remove_and_fall_runs(mask),
        }
    }

    /// [`Field::remove_and_fall`] for any holes: one run of holes of one column at a time.
    fn remove_and_fall_runs(&mut self, mask: u128) -> u128 {
        // Cells at or above the lowest hole of each column: what is there afterwards has moved.
        let mut above_holes = 0u128;
        for i in 0..WIDTH {
            let shift = 16 * i;
            let mut holes = ((mask >> shift) as u16) & COLUMN_BITS as u16;
            if holes == 0 {
                continue;
            }
            let lowest = holes.trailing_zeros();
            above_holes |= (COLUMN_BITS & !((1u128 << lowest) - 1)) << shift;
            // Remove runs of holes from the top down so lower indices stay valid.
            while holes != 0 {
                let top = 15 - holes.leading_zeros(); // highest hole
                // length of the run of holes ending at `top`
                let below_top = !holes & ((1u16 << top) - 1);
                let start = if below_top == 0 { 0 } else { 16 - below_top.leading_zeros() };
                let run = top + 1 - start;
                let low = ((1u128 << start) - 1) << shift;
                let high = (COLUMN_BITS << shift) & !low;
                for layer in &mut self.layers {
                    // Most layers hold nothing above the holes (absent colours, the nuisance layer).
                    if *layer & high == 0 {
                        continue;
                    }
                    let above = (*layer & high) >> run & high;
                    *layer = (*layer & !(COLUMN_BITS << shift)) | (*layer & low) | above;
                }
                holes &= !(((1u32 << (top + 1)) - (1u32 << start)) as u16);
            }
        }
        self.occupied() & above_holes
    }

    /// The field as 14 strings of 6 characters, top row first.
    pub fn rows(&self) -> Vec<String> {
        (0..HEIGHT).map(|y| (1..=WIDTH).map(|x| self.get(x, y).to_char()).collect()).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small deterministic generator for the test's fields and masks.
    fn next(state: &mut u64) -> u64 {
        *state ^= *state << 13;
        *state ^= *state >> 7;
        *state ^= *state << 17;
        *state
    }

    #[test]
    fn a_flood_is_the_group_a_cell_by_cell_search_finds() {
        let mut state = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..5_000 {
            // A random layer over the whole field, spare bits and all, masked to the field as the callers do.
            let layer = ((next(&mut state) as u128) << 64 | next(&mut state) as u128) & FIELD_MASK;
            let (x, y) = (1 + (next(&mut state) % WIDTH as u64) as usize, (next(&mut state) % HEIGHT as u64) as usize);
            let seed = 1u128 << bit(x, y);
            let mut expected = 0u128;
            let mut todo = vec![(x, y)];
            while let Some((x, y)) = todo.pop() {
                let m = 1u128 << bit(x, y);
                if layer & m == 0 || expected & m != 0 {
                    continue;
                }
                expected |= m;
                if x > 1 {
                    todo.push((x - 1, y));
                }
                if x < WIDTH {
                    todo.push((x + 1, y));
                }
                if y > 0 {
                    todo.push((x, y - 1));
                }
                if y + 1 < HEIGHT {
                    todo.push((x, y + 1));
                }
            }
            assert_eq!(flood(layer, seed), expected, "layer {layer:x} from ({x}, {y})");
        }
    }

    #[test]
    fn removing_cells_is_clearing_them_then_gravity() {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..20_000 {
            let mut f = Field::new();
            for x in 1..=WIDTH {
                for _ in 0..next(&mut state) % 15 {
                    let v = (next(&mut state) % 7) as u8;
                    let cell = Color::new(v).map_or(Cell::Nuisance, Cell::Color);
                    f.drop_puyo(x, cell);
                }
            }
            // Holes of one run or several per column, in occupied cells or not.
            let mut mask = 0u128;
            for _ in 0..next(&mut state) % 10 {
                let x = 1 + (next(&mut state) % WIDTH as u64) as usize;
                let y = (next(&mut state) % HEIGHT as u64) as usize;
                mask |= 1u128 << bit(x, y);
                if next(&mut state) & 1 == 0 && y > 0 {
                    mask |= 1u128 << bit(x, y - 1);
                }
            }
            let mut expected = f;
            for layer in &mut expected.layers {
                *layer &= !mask;
            }
            expected.apply_gravity();
            let mut got = f;
            let moved = got.remove_and_fall(mask);
            assert_eq!(got, expected, "{f:?} mask {mask:x}");
            let mut plain = f;
            assert_eq!(plain.remove_and_fall_runs(mask), moved, "{f:?} mask {mask:x}");
            assert_eq!(plain, got);
        }
    }
}
