//! The code facts: the empty cell, which byte of a cell holds the colour, and how piece colour codes
//! map to field codes. Pure bookkeeping over the evidence the learner hands in.

use std::collections::BTreeMap;

use crate::memmap::raw::{MAX_CELL_BYTES, RawField};

/// The most common byte pattern of the cells: the empty cell, on a fresh field.
pub fn majority_pattern(cells: &RawField) -> ([u8; MAX_CELL_BYTES], usize) {
    let mut counts: BTreeMap<[u8; MAX_CELL_BYTES], usize> = BTreeMap::new();
    for c in cells.iter() {
        *counts.entry(*c).or_default() += 1;
    }
    counts.into_iter().max_by_key(|&(_, n)| n).unwrap_or(([0; MAX_CELL_BYTES], 0))
}

/// A mapping from piece codes to field codes, built pair by pair; `None` from [`Mapping::add`] when a
/// pair contradicts it (a piece code shown as two field codes, or two piece codes as one field code).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Mapping {
    /// Piece code → field code, in order of piece code.
    pub pairs: BTreeMap<u8, u8>,
}

impl Mapping {
    /// Adds piece code `piece` shown as field code `field`; false on a contradiction.
    pub fn add(&mut self, piece: u8, field: u8) -> bool {
        if let Some(&f) = self.pairs.get(&piece) {
            return f == field;
        }
        if self.pairs.values().any(|&f| f == field) {
            return false;
        }
        self.pairs.insert(piece, field);
        true
    }

    /// The field code of a piece code.
    pub fn field(&self, piece: u8) -> Option<u8> {
        self.pairs.get(&piece).copied()
    }

    /// True when every piece code maps to itself.
    pub fn is_identity(&self) -> bool {
        self.pairs.iter().all(|(p, f)| p == f)
    }

    /// The field codes, in order of piece code.
    pub fn field_codes(&self) -> Vec<u8> {
        self.pairs.values().copied().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mapping_refuses_a_second_meaning_either_way() {
        let mut m = Mapping::default();
        assert!(m.add(1, 0x11));
        assert!(m.add(1, 0x11));
        assert!(!m.add(1, 0x12));
        assert!(!m.add(2, 0x11));
        assert!(m.add(2, 0x12));
        assert_eq!(m.field_codes(), vec![0x11, 0x12]);
        assert!(!m.is_identity());
    }

    #[test]
    fn the_majority_pattern_is_the_most_common_cell() {
        let mut cells = [[0u8; MAX_CELL_BYTES]; crate::memmap::raw::CELLS];
        cells[3] = [0, 5, 0, 0];
        cells[4] = [0, 6, 0, 0];
        assert_eq!(majority_pattern(&cells).0, [0; MAX_CELL_BYTES]);
        for c in cells.iter_mut().skip(10) {
            *c = [0, 0x21, 0, 0];
        }
        assert_eq!(majority_pattern(&cells).0, [0, 0x21, 0, 0]);
    }
}
