//! The cell layout: the empty cell's bytes and which byte of a cell holds the colour.
//!
//! The most common cell on the first field a movable piece shows is empty. A lock of two different codes
//! must fill exactly two empty cells in the colour byte with two different values; each such lock rules
//! out the cell bytes that did not, until one is left. Locks seen before that are kept, to be read once
//! it is known.

use crate::memmap::raw::{CELLS, MAX_CELL_BYTES, RawField, idx};

use super::codes::majority_pattern;
use super::observe::LockSeen;

/// The empty cell and the colour byte.
#[derive(Clone, Debug)]
pub struct CellLayout {
    /// The empty cell's bytes (the most common pattern on the first field seen).
    empty_pattern: Option<[u8; MAX_CELL_BYTES]>,
    /// Bytes per cell, as the address file lays the field out.
    cell_bytes: usize,
    /// Which cell byte may still be the colour byte.
    offsets: [bool; MAX_CELL_BYTES],
    /// The colour byte is the start file's (verified).
    trusted_offset: bool,
    /// The start file's empty code, when its codes are trusted.
    trusted_empty: Option<u8>,
    /// Locks seen before the colour byte was known, to read again once it is.
    waiting: Vec<LockSeen>,
}

/// Cells whose byte `k` differs between two fields.
pub fn changed(before: &RawField, after: &RawField, k: usize) -> Vec<usize> {
    (0..CELLS).filter(|&i| before[i][k] != after[i][k]).collect()
}

impl CellLayout {
    /// Learns both; `trusted`: the start file's colour byte `start_offset` is verified; `trusted_empty`: the
    /// start file's empty code, when its codes are verified.
    pub fn new(trusted: bool, start_offset: Option<usize>, trusted_empty: Option<u8>) -> CellLayout {
        let offsets = match start_offset.filter(|_| trusted) {
            Some(k) => std::array::from_fn(|i| i == k),
            None => [true; MAX_CELL_BYTES],
        };
        CellLayout {
            empty_pattern: None,
            cell_bytes: 0,
            offsets,
            trusted_offset: trusted,
            trusted_empty,
            waiting: Vec::new(),
        }
    }

    /// The colour byte is the start file's.
    pub fn is_trusted(&self) -> bool {
        self.trusted_offset
    }

    /// Bytes per cell of the field being read.
    pub fn set_cell_bytes(&mut self, bytes: usize) {
        self.cell_bytes = bytes;
    }

    /// The field when a player's first movable piece appeared: its most common cell is empty.
    pub fn first_field(&mut self, field: &RawField) {
        if self.empty_pattern.is_some() {
            return;
        }
        let (mut p, _) = majority_pattern(field);
        if let (true, Some(empty)) = (self.trusted_offset, self.trusted_empty) {
            p[self.offset().unwrap_or(0)] = empty;
        }
        self.empty_pattern = Some(p);
    }

    /// True once a fresh field was seen (or the empty code is trusted).
    pub fn saw_empty(&self) -> bool {
        self.empty_pattern.is_some() || self.trusted_empty.is_some()
    }

    /// The colour byte's offset within a cell, when settled.
    pub fn offset(&self) -> Option<usize> {
        let n = self.cell_bytes.max(1);
        let mut alive = (0..n).filter(|&k| self.offsets[k]);
        let k = alive.next()?;
        if alive.next().is_none() { Some(k) } else { None }
    }

    /// The empty code, when known.
    pub fn empty_code(&self) -> Option<u8> {
        if let Some(e) = self.trusted_empty {
            return Some(e);
        }
        Some(self.empty_pattern?[self.offset()?])
    }

    /// Both are known (the colour byte may be trusted although the field is laid out narrower).
    pub fn settled(&self) -> bool {
        self.empty_code().is_some() && (self.trusted_offset || self.offset().is_some())
    }

    /// A lock while the colour byte is not known: its evidence is counted and it is kept. Returns the locks
    /// to read now: all those kept, once this one settled the colour byte; none before.
    pub fn lock_before_offset(&mut self, l: LockSeen) -> Vec<LockSeen> {
        self.offset_evidence(&l);
        self.waiting.push(l);
        if self.offset().is_some() { std::mem::take(&mut self.waiting) } else { Vec::new() }
    }

    /// A lock of two different codes must fill exactly two empty cells in the colour byte, with two
    /// different codes: rules out cell bytes that do not.
    fn offset_evidence(&mut self, l: &LockSeen) {
        let Some(empty) = self.empty_pattern else { return };
        if l.pivot == l.child {
            return;
        }
        let n = self.cell_bytes.max(1);
        let ok: Vec<bool> = (0..n)
            .map(|k| {
                let ch = changed(&l.before, &l.after, k);
                ch.len() == 2
                    && ch.iter().all(|&i| l.before[i][k] == empty[k] && l.after[i][k] != empty[k])
                    && l.after[ch[0]][k] != l.after[ch[1]][k]
            })
            .collect();
        let alive: Vec<usize> = (0..n).filter(|&k| self.offsets[k]).collect();
        if alive.iter().any(|&k| ok[k]) {
            for k in alive {
                self.offsets[k] = ok[k];
            }
        }
    }

    /// True when every cell within two of (x, y) is inside the field and empty: a turn there cannot kick.
    pub fn is_open(&self, field: &RawField, x: u8, y: u8) -> bool {
        let Some(empty) = self.empty_pattern else { return false };
        let (x, y) = (x as i32, y as i32);
        let n = self.cell_bytes.max(1);
        for yy in y - 2..=y + 2 {
            for xx in x - 2..=x + 2 {
                if !(1..=6).contains(&xx) || !(0..=13).contains(&yy) {
                    return false;
                }
                if field[idx(xx as usize, yy as usize)][..n] != empty[..n] {
                    return false;
                }
            }
        }
        true
    }

    /// True when cell (x, y) of `cells` is inside the field and empty (false while that is not known).
    pub fn cell_free(&self, cells: &RawField, x: i32, y: i32) -> bool {
        let (Some(k), Some(empty)) = (self.offset(), self.empty_code()) else { return false };
        (1..=6).contains(&x) && (0..=13).contains(&y) && cells[idx(x as usize, y as usize)][k] == empty
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A lock of codes `a` / `b` into the empty column 3 (rows 12 and 13) of a field of 2-byte cells whose
    /// byte 0 is a constant 0x40 and byte 1 the colour (empty 0).
    fn lock(a: u8, b: u8) -> LockSeen {
        let mut before = [[0x40, 0, 0, 0]; CELLS];
        before[idx(1, 13)][1] = 7;
        let mut after = before;
        after[idx(3, 12)][1] = a;
        after[idx(3, 13)][1] = b;
        LockSeen { pivot: a, child: b, x: 3, y: 13, o: 0, late: None, before: Box::new(before), after: Box::new(after) }
    }

    #[test]
    fn the_colour_byte_is_the_one_a_two_colour_lock_fills_and_waiting_locks_come_back() {
        let mut l = CellLayout::new(false, None, None);
        l.set_cell_bytes(2);
        assert_eq!((l.offset(), l.empty_code()), (None, None));
        l.first_field(&lock(1, 2).before);
        assert!(l.saw_empty() && !l.settled());
        // One code twice says nothing about the byte: kept.
        assert!(l.lock_before_offset(lock(3, 3)).is_empty());
        let back = l.lock_before_offset(lock(1, 2));
        assert_eq!(back.len(), 2);
        assert_eq!((l.offset(), l.empty_code()), (Some(1), Some(0)));
        assert!(l.settled());
    }

    #[test]
    fn open_space_and_free_cells() {
        let mut l = CellLayout::new(false, None, None);
        l.set_cell_bytes(2);
        let field = lock(1, 2).before;
        assert!(!l.is_open(&field, 3, 5), "nothing is open before the empty cell is known");
        l.first_field(&field);
        assert!(l.is_open(&field, 3, 5));
        assert!(!l.is_open(&field, 1, 5), "next to the wall");
        assert!(!l.is_open(&field, 2, 12), "next to a puyo");
        assert!(!l.cell_free(&field, 3, 5), "the colour byte is not known yet");
        let l = CellLayout::new(true, Some(1), Some(0));
        assert!(l.is_trusted() && l.empty_code() == Some(0));
        let mut l = l;
        l.set_cell_bytes(2);
        assert!(l.cell_free(&field, 3, 5) && !l.cell_free(&field, 1, 13) && !l.cell_free(&field, 0, 5));
    }
}
