//! When a piece can move, read from what the game does rather than from one byte's meaning.
//!
//! The spawn-delay timer reaching 0 opens a piece's life, but it is not trusted to say more:
//! - the X / Y / orientation and current-pair bytes may keep the previous piece's values for a few frames
//!   after it (the game has not written the new piece yet and ignores the pad). The piece counts as movable
//!   from the first frame those bytes differ from the frame before the timer reached 0; each such wait is
//!   a sample of the cartridge's pose lag;
//! - the timer may stay 0 while a lock resolves. The lock is then the field gaining two or more occupied
//!   cells (or losing some, as Big Puyo clears them) while the timer is still 0; each such lock is a sample
//!   of a field-marked lock.
//!
//! No range of X / Y is assumed: any base works.

use crate::memmap::raw::{MAX_CELL_BYTES, RawField, View};

use crate::memmap::schema::LockSignal;

use super::codes::majority_pattern;
use super::fact::{Contradictions, FactLearner, Known, PlayerFrame};
use super::types::TimingSample;

/// Frames after the timer reaches 0 within which the pose bytes must change; after that the piece counts
/// as movable anyway (a new piece that spawned exactly where the last one locked shows no change).
pub const MAX_POSE_LAG: u32 = 10;

/// One player's piece life, followed frame by frame.
#[derive(Clone, Debug, Default)]
pub struct ControlWatch {
    /// The pose and piece bytes on the last frame the timer was non-zero (`None` before any: until the
    /// timer has counted down once, nothing can move).
    stale: Option<[u8; 5]>,
    /// Frames since the timer reached 0 (the first such frame is 1).
    zero_frames: u32,
    active: bool,
    /// The piece under way has locked; nothing moves until the timer turns non-zero and 0 again.
    locked: bool,
    /// Occupied cells when the piece became movable.
    baseline: usize,
    /// The empty cell's bytes (the most common pattern of the first field seen).
    empty: Option<[u8; MAX_CELL_BYTES]>,
}

fn pose_bytes(v: &View) -> [u8; 5] {
    [v.x, v.y, v.o, v.pivot, v.child]
}

impl ControlWatch {
    /// Cells of `cells` that differ from the empty cell.
    fn occupied(&mut self, cells: &RawField) -> usize {
        let empty = *self.empty.get_or_insert_with(|| majority_pattern(cells).0);
        cells.iter().filter(|c| **c != empty).count()
    }

    /// Feeds one frame's view (its spawn-delay timer read from RAM); returns whether the piece can move in it,
    /// and what the frame showed of the timing.
    pub fn step(&mut self, view: &View) -> (bool, Option<TimingSample>) {
        if !view.timer_zero() {
            self.stale = Some(pose_bytes(view));
            self.zero_frames = 0;
            self.active = false;
            self.locked = false;
            return (false, None);
        }
        // Power-on RAM and some menus hold 0 too: a piece's life starts only at a countdown's end.
        let Some(stale) = self.stale else { return (false, None) };
        self.zero_frames = self.zero_frames.saturating_add(1);
        let mut sample = None;
        if !self.active && !self.locked {
            let changed = stale != pose_bytes(view);
            if changed || self.zero_frames > MAX_POSE_LAG {
                self.active = true;
                self.baseline = self.occupied(&view.cells);
                if changed {
                    sample = Some(TimingSample::PoseLag(self.zero_frames - 1));
                }
            }
        } else if self.active && {
            // A pair adds two cells; Big Puyo clears some. While a piece falls the field does not change.
            let now = self.occupied(&view.cells);
            now >= self.baseline + 2 || now < self.baseline
        } {
            self.active = false;
            self.locked = true;
            sample = Some(TimingSample::FieldLock);
        }
        (self.active, sample)
    }

    /// Whether the piece could move on the last frame fed.
    pub fn active(&self) -> bool {
        self.active
    }
}

/// The timing samples of all players: the pose lag most seen and whether locks are marked by the field.
#[derive(Clone, Debug, Default)]
pub struct TimingLearner {
    lags: [u32; MAX_POSE_LAG as usize + 1],
    field_locks: u32,
}

impl TimingLearner {
    /// Counts a sample.
    pub fn add(&mut self, s: TimingSample) {
        match s {
            TimingSample::PoseLag(n) => self.lags[(n as usize).min(MAX_POSE_LAG as usize)] += 1,
            TimingSample::FieldLock => self.field_locks += 1,
        }
    }

    /// The pose lag seen most often (the longer one on a tie; 0 before any sample).
    pub fn pose_lag(&self) -> u32 {
        let best = self.lags.iter().enumerate().max_by_key(|&(n, c)| (*c, n)).filter(|(_, c)| **c > 0);
        best.map_or(0, |(n, _)| n as u32)
    }

    /// Pose-lag samples seen.
    pub fn pose_samples(&self) -> u32 {
        self.lags.iter().sum()
    }

    /// Locks the field showed before the timer did.
    pub fn field_locks(&self) -> u32 {
        self.field_locks
    }

    /// What marks a lock, as seen: the field when it gained cells before the timer turned at least twice.
    pub fn lock_signal(&self) -> LockSignal {
        if self.field_locks >= 2 { LockSignal::Field } else { LockSignal::Timer }
    }
}

impl FactLearner for TimingLearner {
    /// Counts the frame's timing sample, if any.
    fn observe(&mut self, seen: &PlayerFrame<'_>, _known: &Known, _found: &mut Contradictions) {
        if let Some(s) = seen.timing {
            self.add(s);
        }
    }

    fn reset(&mut self) {
        *self = TimingLearner::default();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memmap::raw::{CELLS, idx};

    fn view(timer_zero: bool, x: u8, y: u8, cells: RawField) -> View {
        let spawn_delay = if timer_zero { 0 } else { 1 };
        View { x, y, o: 0, pivot: 1, child: 2, next: (3, 4), spawn_delay, cells, ..View::default() }
    }

    #[test]
    fn the_piece_moves_once_its_bytes_are_written() {
        let field = [[0u8; MAX_CELL_BYTES]; CELLS];
        let mut w = ControlWatch::default();
        assert_eq!(w.step(&view(false, 4, 11, field)), (false, None));
        // Two frames of the previous piece's bytes, then the new piece's.
        assert_eq!(w.step(&view(true, 4, 11, field)), (false, None));
        assert_eq!(w.step(&view(true, 4, 11, field)), (false, None));
        assert_eq!(w.step(&view(true, 3, 1, field)), (true, Some(TimingSample::PoseLag(2))));
        assert_eq!(w.step(&view(true, 3, 2, field)), (true, None));
    }

    #[test]
    fn a_lock_is_the_field_gaining_cells_while_the_timer_stays_0() {
        let empty = [[0u8; MAX_CELL_BYTES]; CELLS];
        let mut w = ControlWatch::default();
        w.step(&view(false, 3, 11, empty));
        assert!(w.step(&view(true, 3, 1, empty)).0);
        let mut locked = empty;
        locked[idx(3, 12)][0] = 5;
        locked[idx(3, 13)][0] = 6;
        assert_eq!(w.step(&view(true, 3, 12, locked)), (false, Some(TimingSample::FieldLock)));
        // Pops and gravity with the timer at 0 do not make it movable again; the next countdown does.
        assert_eq!(w.step(&view(true, 3, 12, empty)), (false, None));
        assert_eq!(w.step(&view(false, 3, 12, empty)), (false, None));
        assert!(w.step(&view(true, 3, 1, empty)).0);
    }

    #[test]
    fn a_piece_spawning_where_the_last_locked_moves_after_the_longest_lag() {
        let field = [[0u8; MAX_CELL_BYTES]; CELLS];
        let mut w = ControlWatch::default();
        w.step(&view(false, 3, 1, field));
        for _ in 0..MAX_POSE_LAG {
            assert!(!w.step(&view(true, 3, 1, field)).0);
        }
        assert_eq!(w.step(&view(true, 3, 1, field)), (true, None));
    }

    #[test]
    fn nothing_moves_before_a_countdown() {
        let field = [[0u8; MAX_CELL_BYTES]; CELLS];
        let mut w = ControlWatch::default();
        assert_eq!(w.step(&view(true, 3, 1, field)), (false, None));
        assert_eq!(w.step(&view(true, 3, 2, field)), (false, None));
    }

    #[test]
    fn the_lag_seen_most_wins() {
        let mut t = TimingLearner::default();
        assert_eq!(t.pose_lag(), 0);
        for n in [3, 3, 0, 3, 7] {
            t.add(TimingSample::PoseLag(n));
        }
        assert_eq!(t.pose_lag(), 3);
        assert_eq!(t.pose_samples(), 5);
        assert_eq!(t.lock_signal(), LockSignal::Timer);
        let view = View::default();
        let seen = PlayerFrame {
            player: 1,
            frame: 9,
            view: &view,
            pad: 0,
            timing: Some(TimingSample::FieldLock),
            events: &[],
        };
        for _ in 0..2 {
            t.observe(&seen, &Known::default(), &mut Contradictions::default());
        }
        assert_eq!((t.field_locks(), t.lock_signal()), (2, LockSignal::Field));
        FactLearner::reset(&mut t);
        assert_eq!(t.pose_samples(), 0);
    }
}
