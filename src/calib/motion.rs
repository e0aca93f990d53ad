//! The movement facts as one space of hypotheses: what each orientation value (0..=3) means, which puyo
//! X / Y follow, and which way A turns. 24 × 2 × 2 = 96 candidates; every observation removes those it
//! contradicts, and a fact is settled when every surviving candidate agrees on it.
//!
//! Keeping the facts joint matters: a rotation seen with X / Y following the child says something about
//! two orientation values at once, and a lock says something about one value only once it is known
//! which puyo X / Y follow.

use crate::game::Orientation;
use crate::memmap::{Turn, XyTracks};

/// Number of candidates.
pub const CANDIDATES: usize = 96;

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

/// Every candidate, in a fixed order.
fn all_candidates() -> Vec<Candidate> {
    let mut out = Vec::with_capacity(CANDIDATES);
    let all = Orientation::ALL;
    for a in 0..4 {
        for b in 0..4 {
            for c in 0..4 {
                for d in 0..4 {
                    let idx = [a, b, c, d];
                    let mut seen = [false; 4];
                    if idx.iter().any(|&i| std::mem::replace(&mut seen[i], true)) {
                        continue;
                    }
                    for tracks in [XyTracks::Pivot, XyTracks::Child] {
                        for a_turns in [Turn::Clockwise, Turn::Counterclockwise] {
                            out.push(Candidate { dirs: idx.map(|i| all[i]), tracks, a_turns });
                        }
                    }
                }
            }
        }
    }
    out
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

/// One observation of the orientation byte changing while the pair could move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RotationSeen {
    /// Value before.
    pub from: u8,
    /// Value after.
    pub to: u8,
    /// The button that did it, if one can be named.
    pub button: Option<TurnButton>,
    /// How X / Y moved, when the pair was in open space (no kick possible) and no sideways move was
    /// pressed: only then does the change say which puyo X / Y follow.
    pub open_move: Option<(i8, i8)>,
}

/// The surviving candidates.
#[derive(Clone, Debug)]
pub struct Motion {
    all: Vec<Candidate>,
    alive: Vec<bool>,
}

impl Default for Motion {
    fn default() -> Motion {
        Motion::new()
    }
}

impl Motion {
    /// Every candidate alive.
    pub fn new() -> Motion {
        let all = all_candidates();
        let alive = vec![true; all.len()];
        Motion { all, alive }
    }

    /// Keeps only candidates that `keep` accepts. Returns false, changing nothing, when none would survive
    /// (the caller logs the contradiction and decides what to forget).
    pub fn restrict(&mut self, keep: impl Fn(&Candidate) -> bool) -> bool {
        let next: Vec<bool> = self.all.iter().zip(&self.alive).map(|(c, &a)| a && keep(c)).collect();
        if !next.iter().any(|&a| a) {
            return false;
        }
        self.alive = next;
        true
    }

    /// The candidates still alive.
    pub fn alive(&self) -> impl Iterator<Item = &Candidate> {
        self.all.iter().zip(&self.alive).filter(|(_, a)| **a).map(|(c, _)| c)
    }

    /// How many candidates are alive.
    pub fn count(&self) -> usize {
        self.alive.iter().filter(|&&a| a).count()
    }

    /// The value every alive candidate agrees on, if they all do.
    fn agreed<T: PartialEq>(&self, f: impl Fn(&Candidate) -> T) -> Option<T> {
        let mut it = self.alive();
        let first = f(it.next()?);
        if it.all(|c| f(c) == first) { Some(first) } else { None }
    }

    /// Which puyo X / Y follow, when settled.
    pub fn tracks(&self) -> Option<XyTracks> {
        self.agreed(|c| c.tracks)
    }

    /// Which way A turns, when settled.
    pub fn a_turns(&self) -> Option<Turn> {
        self.agreed(|c| c.a_turns)
    }

    /// The value of a direction, when settled.
    pub fn value_of(&self, dir: Orientation) -> Option<u8> {
        self.agreed(|c| c.value(dir))
    }

    /// The one candidate left, when everything is settled.
    pub fn settled(&self) -> Option<Candidate> {
        if self.count() == 1 { self.alive().next().copied() } else { None }
    }

    /// The value A turns `from` into, when every alive candidate agrees.
    pub fn after_a(&self, from: u8) -> Option<u8> {
        self.agreed(|c| c.dir(from).map(|d| c.value(turned(d, c.a_turns))))?
    }

    /// A lock: with orientation `value`, the other puyo sat `rel` from the one X / Y follow.
    pub fn lock_accepts(c: &Candidate, value: u8, rel: Relative) -> bool {
        let Some(d) = c.tracked_to_other(value) else { return false };
        match rel {
            Relative::Vertical(dy) => d.dx() == 0 && d.dy() == dy,
            Relative::Horizontal(dx) => d.dx() == dx,
        }
    }

    /// A rotation.
    pub fn rotation_accepts(c: &Candidate, r: &RotationSeen) -> bool {
        let (Some(d0), Some(d1)) = (c.dir(r.from), c.dir(r.to)) else { return false };
        let quarter = match r.button {
            Some(TurnButton::A) => d1 == turned(d0, c.a_turns),
            Some(TurnButton::B) => d1 == turned(d0, c.a_turns.reverse()),
            None => d1 == d0.clockwise() || d1 == d0.counter_clockwise(),
        };
        if !quarter {
            return false;
        }
        let Some((mx, my)) = r.open_move else { return true };
        // In open space the pivot stays put (gravity may add a row on the same frame); the child moves
        // from pivot + d0 to pivot + d1.
        let (ex, ey) = match c.tracks {
            XyTracks::Pivot => (0, 0),
            XyTracks::Child => (d1.dx() - d0.dx(), d1.dy() - d0.dy()),
        };
        mx == ex && (my == ey || my == ey + 1)
    }

    /// Forgets everything learned.
    pub fn reset(&mut self) {
        self.alive.iter_mut().for_each(|a| *a = true);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Orientation::*;

    #[test]
    fn there_are_96_distinct_candidates() {
        let m = Motion::new();
        assert_eq!(m.count(), CANDIDATES);
        let v: Vec<_> = m.alive().collect();
        for (i, a) in v.iter().enumerate() {
            assert!(v[i + 1..].iter().all(|b| b != a));
        }
    }

    #[test]
    fn a_full_a_cycle_with_child_tracking_settles_everything_but_nothing_with_pivot() {
        // Truth: 0 down, 1 left, 2 up, 3 right; A clockwise; X/Y follow the child.
        let truth = Candidate { dirs: [Down, Left, Up, Right], tracks: XyTracks::Child, a_turns: Turn::Clockwise };
        let mut m = Motion::new();
        let mut v = 2u8;
        for _ in 0..4 {
            let d0 = truth.dir(v).unwrap();
            let d1 = d0.clockwise();
            let to = truth.value(d1);
            let r = RotationSeen {
                from: v,
                to,
                button: Some(TurnButton::A),
                open_move: Some((d1.dx() - d0.dx(), d1.dy() - d0.dy())),
            };
            assert!(m.restrict(|c| Motion::rotation_accepts(c, &r)));
            v = to;
        }
        assert_eq!(m.settled(), Some(truth));
    }
}
