//! Whether blocked turns kick: a turn to the side against a wall or a stack moves the pair a column, a
//! turn downwards onto the floor or a stack lifts it a row, or the game refuses the turn.
//!
//! Turns next to something and turn presses that changed nothing are kept as they come; they are judged
//! once the movement is settled (which puyo X / Y follow, what each orientation value means) and the cell
//! layout is known, read from the learner's [`Known`] snapshot. A later observation that disagrees wins.

use crate::game::Orientation;
use crate::memmap::XyTracks;
use crate::memmap::raw::idx;

use super::fact::Known;
use super::observe::{RefusedSeen, TurnSeen};
use super::report::KicksReport;
use super::types::{TurnButton, turned};

/// Turns and refusals kept as evidence.
const KEPT: usize = 64;

/// The evidence about kicks.
#[derive(Clone, Debug, Default)]
pub struct KickLearner {
    /// Turns the pair made next to something.
    near_turns: Vec<TurnSeen>,
    /// Turn presses that changed nothing (a kick that did not happen, when one was possible).
    refused: Vec<RefusedSeen>,
}

impl KickLearner {
    /// A turn the movement accepted; `open`: it was made in open space (so it cannot have kicked).
    pub fn turn(&mut self, t: &TurnSeen, open: bool) {
        if !open && t.button.is_some() && self.near_turns.len() < KEPT {
            self.near_turns.push(t.clone());
        }
    }

    /// A turn press that changed nothing.
    pub fn refused(&mut self, r: &RefusedSeen) {
        if self.refused.len() < KEPT {
            self.refused.push(r.clone());
        }
    }

    /// Forgets everything (the X / Y bases moved: the poses were read wrong).
    pub fn reset(&mut self) {
        *self = KickLearner::default();
    }

    /// Whether blocked turns kick sideways / up: `Some(true)` when a turn moved the pivot, `Some(false)`
    /// when a turn was refused although the kick had room; `None` until seen.
    pub fn kicks(&self, known: &Known) -> (Option<bool>, Option<bool>) {
        let (mut side, mut up) = (None, None);
        for (sideways, kicked) in self.evidence(known) {
            *(if sideways { &mut side } else { &mut up }) = Some(kicked);
        }
        (side, up)
    }

    /// The kicks for the report.
    pub fn report(&self, known: &Known) -> KicksReport {
        let (sideways, up) = self.kicks(known);
        KicksReport { sideways, up }
    }

    /// Kick observations that disagree with an earlier one.
    pub fn conflicts(&self, known: &Known) -> Vec<String> {
        let mut seen: [Option<bool>; 2] = [None, None];
        let mut out = Vec::new();
        for (sideways, kicked) in self.evidence(known) {
            let slot = &mut seen[sideways as usize];
            if slot.is_some_and(|k| k != kicked) {
                out.push(format!(
                    "a {} kick was {} after it was {}",
                    if sideways { "sideways" } else { "upward" },
                    if kicked { "seen" } else { "refused" },
                    if kicked { "refused" } else { "seen" }
                ));
            }
            *slot = Some(kicked);
        }
        out
    }

    /// (sideways?, kicked?) for every turn next to something: kicks seen, then refusals.
    fn evidence(&self, known: &Known) -> Vec<(bool, bool)> {
        let Some(c) = known.movement else { return Vec::new() };
        let (Some(k), Some(empty)) = (known.offset, known.empty) else { return Vec::new() };
        let pivot = |x: u8, y: u8, d: Orientation| match c.tracks {
            XyTracks::Pivot => (x as i32, y as i32),
            XyTracks::Child => (x as i32 - d.dx() as i32, y as i32 - d.dy() as i32),
        };
        let mut out = Vec::new();
        for t in &self.near_turns {
            let (Some(d0), Some(d1)) = (c.dir(t.from), c.dir(t.to)) else { continue };
            let (p0, p1) = (pivot(t.xy.0, t.xy.1, d0), pivot(t.xy_after.0, t.xy_after.1, d1));
            if p0.0 != p1.0 && d1.dx() != 0 && p0.1.abs_diff(p1.1) <= 1 {
                out.push((true, true));
            } else if p1.1 < p0.1 && d1 == Orientation::Down && p0.0 == p1.0 {
                out.push((false, true));
            }
        }
        for r in &self.refused {
            let Some(d0) = c.dir(r.o) else { continue };
            let turn = match r.button {
                TurnButton::A => c.a_turns,
                TurnButton::B => c.a_turns.reverse(),
            };
            let d1 = turned(d0, turn);
            let (px, py) = pivot(r.x, r.y, d0);
            let free = |x: i32, y: i32| {
                (1..=6).contains(&x) && (0..=13).contains(&y) && r.field[idx(x as usize, y as usize)][k] == empty
            };
            if free(px + d1.dx() as i32, py + d1.dy() as i32) || !free(px, py) {
                continue; // not blocked (the press came too late or early), or the pose is not the pair's
            }
            match d1 {
                Orientation::Right if free(px - 1, py) => out.push((true, false)),
                Orientation::Left if free(px + 1, py) => out.push((true, false)),
                Orientation::Down if free(px, py - 1) => out.push((false, false)),
                _ => {}
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memmap::Turn;
    use crate::memmap::raw::{CELLS, MAX_CELL_BYTES};

    use super::super::types::Candidate;
    use Orientation::*;

    /// Values 0 down, 1 left, 2 up, 3 right; X / Y on the pivot; A clockwise; colour in byte 0, empty 0.
    fn known() -> Known {
        let movement = Candidate { dirs: [Down, Left, Up, Right], tracks: XyTracks::Pivot, a_turns: Turn::Clockwise };
        Known { offset: Some(0), empty: Some(0), movement: Some(movement), ..Known::default() }
    }

    #[test]
    fn a_turn_into_the_wall_that_moved_the_pivot_is_a_sideways_kick_and_a_refusal_contradicts_it() {
        let mut k = KickLearner::default();
        let field = Box::new([[0u8; MAX_CELL_BYTES]; CELLS]);
        // Upright (2) at the right wall, column 6; A turns it to the right (3): the pivot moved to column 5.
        let t = TurnSeen {
            from: 2,
            to: 3,
            xy: (6, 5),
            xy_after: (5, 5),
            button: Some(TurnButton::A),
            sideways: false,
            field,
        };
        k.turn(&t, true);
        assert_eq!(k.kicks(&known()), (None, None), "a turn in open space says nothing");
        k.turn(&t, false);
        assert_eq!(k.kicks(&Known::default()), (None, None), "nothing is judged before the movement is known");
        assert_eq!(k.kicks(&known()), (Some(true), None));
        // The same turn refused: the later observation wins and the disagreement is listed.
        k.refused(&RefusedSeen { button: TurnButton::A, x: 6, y: 5, o: 2, field: t.field.clone() });
        assert_eq!(k.kicks(&known()), (Some(false), None));
        assert_eq!(k.conflicts(&known()), vec!["a sideways kick was refused after it was seen".to_string()]);
        k.reset();
        assert_eq!(k.report(&known()), KicksReport { sideways: None, up: None });
    }
}
