//! The X and Y bytes' bases: which X value is the field's first column and which Y value its top row.
//!
//! Learned from locks: the two cells a pair adds to the field are where the pair was, so the X byte on the
//! last movable frame minus either cell's column is the X offset (one of the two values), and likewise for
//! Y with a vertical pair, or a horizontal pair whose halves landed in one row (neither dropped). The
//! offsets every lock allows are intersected.
//!
//! Offsets are kept relative to the shift the learner applies to X / Y before anything else reads them
//! (the start file's bases): an offset of 0 means the start file is right, and it is assumed while the
//! locks still allow it, so a cartridge with the guessed bases settles as fast as before.

use std::collections::BTreeSet;

use super::observe::LockSeen;

/// One axis' offsets still possible (`None` before any lock said something).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Axis(Option<BTreeSet<i16>>);

impl Axis {
    /// Keeps the offsets `allowed` also allows; returns false (and starts again from `allowed`) when none
    /// would be left.
    fn narrow(&mut self, allowed: BTreeSet<i16>) -> bool {
        match &mut self.0 {
            None => {
                self.0 = Some(allowed);
                true
            }
            Some(set) => {
                let kept: BTreeSet<i16> = set.intersection(&allowed).copied().collect();
                if kept.is_empty() {
                    self.0 = Some(allowed);
                    false
                } else {
                    *set = kept;
                    true
                }
            }
        }
    }

    /// The offset to use: 0 while allowed, else the only one left.
    fn offset(&self) -> Option<i16> {
        match &self.0 {
            None => Some(0),
            Some(set) if set.contains(&0) => Some(0),
            Some(set) if set.len() == 1 => set.first().copied(),
            Some(_) => None,
        }
    }

    fn shift(&mut self, by: i16) {
        if let Some(set) = &mut self.0 {
            *set = set.iter().map(|v| v - by).collect();
        }
    }
}

/// What a lock told about the bases.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BaseVerdict {
    /// The shift in use fits: read the lock with it.
    Fits,
    /// The lock cannot be read yet (the offsets left are more than one and exclude the shift in use).
    Unknown,
    /// The shift in use is wrong by (dx, dy): move it, and forget what was read with the old one.
    Shift(i16, i16),
}

/// The X / Y offsets the locks allow.
#[derive(Clone, Debug, Default)]
pub struct BaseLearner {
    x: Axis,
    y: Axis,
    /// Contradictions (no offset fits every lock), for the report.
    pub conflicts: u32,
}

impl BaseLearner {
    /// A lock of two cells at (column, row) `a` and `b` with the X / Y bytes (already shifted) at `xy`.
    pub fn lock(&mut self, xy: (u8, u8), a: (usize, usize), b: (usize, usize)) -> BaseVerdict {
        let (x, y) = (xy.0 as i16, xy.1 as i16);
        let (a, b) = ((a.0 as i16, a.1 as i16), (b.0 as i16, b.1 as i16));
        let mut ok = self.x.narrow([x - a.0, x - b.0].into());
        if a.0 == b.0 || a.1 == b.1 {
            // A vertical pair landed together; a horizontal pair in one row did not split.
            ok &= self.y.narrow([y - a.1, y - b.1].into());
        }
        if !ok {
            self.conflicts += 1;
        }
        match (self.x.offset(), self.y.offset()) {
            (Some(0), Some(0)) => BaseVerdict::Fits,
            (Some(dx), Some(dy)) => {
                self.x.shift(dx);
                self.y.shift(dy);
                BaseVerdict::Shift(dx, dy)
            }
            _ => BaseVerdict::Unknown,
        }
    }

    /// True when each axis has one offset left (and it is the shift in use).
    pub fn settled(&self) -> bool {
        let one = |a: &Axis| a.0.as_ref().is_some_and(|s| s.len() == 1 && s.contains(&0));
        one(&self.x) && one(&self.y)
    }

    /// Forgets everything.
    pub fn reset(&mut self) {
        *self = BaseLearner::default();
    }
}

/// Locks kept while the bases are ambiguous (the oldest beyond this are not kept).
const KEPT_LOCKS: usize = 64;

/// What to do with a lock, as the bases see it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LockRead {
    /// Read it now: the shift in use fits.
    Read,
    /// Not now: it is kept until the bases are known.
    Wait,
    /// The shift in use was wrong and has moved: forget what was read with the old one and read these
    /// (the kept locks and this one, X / Y moved to the new shift) again.
    Shifted(Vec<LockSeen>),
}

/// The X / Y bases as learned: the shift applied to the X and Y bytes before anything else reads them
/// (the field's column 1 and row 0 read as X 1 and Y 0), from the start file's bases moved by what the
/// locks show, and the locks that wait for it.
#[derive(Clone, Debug)]
pub struct Bases {
    offsets: BaseLearner,
    shift: (i16, i16),
    waiting: Vec<LockSeen>,
    /// The start file's bases are trusted (its movement is verified): nothing is learned.
    trusted: bool,
}

impl Bases {
    /// Starts from the start file's X of column 1 and Y of row 0; `trusted`: keep them.
    pub fn new(x_base: u8, y_base: u8, trusted: bool) -> Bases {
        Bases {
            offsets: BaseLearner::default(),
            shift: (x_base as i16 - 1, y_base as i16),
            waiting: Vec::new(),
            trusted,
        }
    }

    /// True when the bases are trusted or every lock so far agreed on one shift.
    pub fn settled(&self) -> bool {
        self.trusted || self.offsets.settled()
    }

    /// The X byte's value in column 1 and the Y byte's in row 0.
    pub fn xy_bases(&self) -> (u8, u8) {
        ((self.shift.0 + 1) as u8, self.shift.1 as u8)
    }

    /// X / Y bytes as columns and rows.
    pub fn shifted(&self, x: u8, y: u8) -> (u8, u8) {
        ((x as i16 - self.shift.0) as u8, (y as i16 - self.shift.1) as u8)
    }

    /// A pair lock (X / Y already shifted) that filled cells `a` and `b` (column, row).
    pub fn lock(&mut self, l: &LockSeen, a: (usize, usize), b: (usize, usize)) -> LockRead {
        if self.trusted {
            return LockRead::Read;
        }
        match self.offsets.lock((l.x, l.y), a, b) {
            BaseVerdict::Fits => LockRead::Read,
            BaseVerdict::Unknown => {
                if self.waiting.len() < KEPT_LOCKS {
                    self.waiting.push(l.clone());
                }
                LockRead::Wait
            }
            BaseVerdict::Shift(dx, dy) => {
                self.waiting.push(l.clone());
                self.shift = (self.shift.0 + dx, self.shift.1 + dy);
                let (x, y) = self.xy_bases();
                log::info!(
                    "calibration: the X / Y bytes read column 1 as {x} and row 0 as {y}; learning the movement again"
                );
                let back = |v: u8, d: i16| (v as i16 - d) as u8;
                for l in &mut self.waiting {
                    l.x = back(l.x, dx);
                    l.y = back(l.y, dy);
                }
                LockRead::Shifted(std::mem::take(&mut self.waiting))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_start_files_bases_are_kept_while_locks_allow_them() {
        let mut b = BaseLearner::default();
        // Upright pair in column 3, rows 12 and 13, X / Y on the lower puyo.
        assert_eq!(b.lock((3, 13), (3, 12), (3, 13)), BaseVerdict::Fits);
        assert!(!b.settled());
        // Upside down: X / Y on the upper puyo.
        assert_eq!(b.lock((4, 10), (4, 10), (4, 11)), BaseVerdict::Fits);
        assert!(b.settled());
    }

    #[test]
    fn x_counted_from_0_is_found_from_one_upright_lock() {
        let mut b = BaseLearner::default();
        // Column 3 is X 2: the offset is -1.
        assert_eq!(b.lock((2, 13), (3, 12), (3, 13)), BaseVerdict::Shift(-1, 0));
        // After the shift the learner reads X as 3: fits.
        assert_eq!(b.lock((3, 13), (3, 12), (3, 13)), BaseVerdict::Fits);
    }

    #[test]
    fn an_ambiguous_y_waits_for_a_second_lock() {
        let mut b = BaseLearner::default();
        // Y is row + 2: an upright pair at rows 12/13 with Y on the lower puyo reads 15: 2 or 3.
        assert_eq!(b.lock((3, 15), (3, 12), (3, 13)), BaseVerdict::Unknown);
        // A flat pair in row 13 with Y 15: 2.
        assert_eq!(b.lock((4, 15), (4, 13), (5, 13)), BaseVerdict::Shift(0, 2));
        assert_eq!(b.conflicts, 0);
    }

    #[test]
    fn a_lock_that_moves_the_shift_comes_back_with_the_waiting_ones_read_anew() {
        let cells = |x: u8, y: u8| {
            let f = Box::new([[0u8; crate::memmap::raw::MAX_CELL_BYTES]; crate::memmap::raw::CELLS]);
            LockSeen { pivot: 1, child: 2, x, y, o: 0, late: None, before: f.clone(), after: f }
        };
        // The start file says X 1 / Y 0; the cartridge's Y is the row + 2.
        let mut b = Bases::new(1, 0, false);
        assert_eq!(b.lock(&cells(3, 15), (3, 12), (3, 13)), LockRead::Wait);
        let LockRead::Shifted(again) = b.lock(&cells(4, 15), (4, 13), (5, 13)) else { panic!("a shift") };
        assert_eq!(b.xy_bases(), (1, 2));
        assert_eq!(again.iter().map(|l| (l.x, l.y)).collect::<Vec<_>>(), vec![(3, 13), (4, 13)]);
        assert_eq!(b.shifted(4, 15), (4, 13));
        // Trusted bases read every lock.
        let mut t = Bases::new(1, 0, true);
        assert_eq!(t.lock(&cells(3, 15), (3, 12), (3, 13)), LockRead::Read);
    }
}
