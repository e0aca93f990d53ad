//! The vocabulary the layers of calibration share, below all of them: what a movement candidate is and
//! how directions turn, what an observed turn or lock names, and what a frame tells of the timing.

use crate::game::Orientation;
use crate::memmap::{Turn, XyTracks};

/// One candidate contract of movement.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Candidate {
    /// Direction (pivot → child) of orientation values 0, 1, 2, 3.
    pub dirs: [Orientation; 4],
    /// Which puyo X / Y follow.
    pub tracks: XyTracks,
    /// Which way A turns.
    pub a_turns: Turn,
}

impl Candidate {
    /// The direction of an orientation value (`None` beyond 3).
    pub fn dir(&self, value: u8) -> Option<Orientation> {
        self.dirs.get(value as usize).copied()
    }

    /// The value of a direction.
    pub fn value(&self, dir: Orientation) -> u8 {
        self.dirs.iter().position(|&d| d == dir).unwrap_or(0) as u8
    }

    /// The direction from the puyo X / Y follow to the other one, for orientation value `value`.
    pub fn tracked_to_other(&self, value: u8) -> Option<Orientation> {
        let d = self.dir(value)?;
        Some(match self.tracks {
            XyTracks::Pivot => d,
            XyTracks::Child => opposite(d),
        })
    }
}

/// The opposite direction.
pub fn opposite(d: Orientation) -> Orientation {
    d.clockwise().clockwise()
}

/// One quarter turn of `d` the way `turn` says.
pub fn turned(d: Orientation, turn: Turn) -> Orientation {
    match turn {
        Turn::Clockwise => d.clockwise(),
        Turn::Counterclockwise => d.counter_clockwise(),
    }
}

/// Where the other puyo showed up relative to the one X / Y follow, in a lock.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Relative {
    /// In the same column, `dy` rows below (+1) or above (−1).
    Vertical(i8),
    /// In the column `dx` to the right (+1) or left (−1); rows may differ (each half falls alone).
    Horizontal(i8),
}

/// A button that turned the pair, when one can be named.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TurnButton {
    /// A was newly pressed just before.
    A,
    /// B was newly pressed just before.
    B,
}

/// What one frame told about the cartridge's timing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimingSample {
    /// A new piece's bytes were written this many frames after the timer reached 0.
    PoseLag(u32),
    /// The field gained cells while the timer was still 0: a lock the timer does not mark.
    FieldLock,
}

/// The longest input lag looked for, in frames: a press whose effect comes later is not matched.
pub const MAX_LAG: u32 = 8;
