//! Input paths: the steps from where the pair is to where it should go, and what each step should do.
//!
//! The search (`ai::movegen`) gives a shortest path for each placement; this planner is the driver's own
//! fallback for re-planning from wherever RAM says the pair is, after a kick, a refused move or a lag.

use crate::game::{Orientation, Placement, Step};

/// Where a falling pair is: pivot column and orientation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pose {
    /// Pivot column, 1..=6.
    pub x: u8,
    /// Direction from pivot to child.
    pub orientation: Orientation,
}

impl Pose {
    /// The pose a placement describes.
    pub fn of(p: Placement) -> Pose {
        Pose { x: p.x, orientation: p.orientation }
    }

    /// Where `step` takes the pair when nothing blocks it (no kick).
    pub fn after(self, step: Step) -> Pose {
        match step {
            Step::Left => Pose { x: self.x.saturating_sub(1), ..self },
            Step::Right => Pose { x: self.x.saturating_add(1), ..self },
            Step::RotateCw => Pose { orientation: self.orientation.clockwise(), ..self },
            Step::RotateCcw => Pose { orientation: self.orientation.counter_clockwise(), ..self },
        }
    }

    /// True when both puyos are inside columns 1..=6.
    pub fn in_field(self) -> bool {
        let cx = self.x as i8 + self.orientation.dx();
        (1..=6).contains(&self.x) && (1..=6).contains(&cx)
    }
}

/// The steps from `from` to `to` in an empty neighbourhood: the rotations (the short way round) and the
/// moves, rotating first unless an intermediate orientation would put the child outside the field.
pub fn plan(from: Pose, to: Pose) -> Vec<Step> {
    let turns = (to.orientation.index() + 4 - from.orientation.index()) % 4;
    let rot: Vec<Step> = match turns {
        0 => vec![],
        1 => vec![Step::RotateCw],
        2 => {
            // Half turn: go the way whose intermediate orientation stays inside the field.
            let cw = Pose { orientation: from.orientation.clockwise(), ..from };
            if cw.in_field() { vec![Step::RotateCw; 2] } else { vec![Step::RotateCcw; 2] }
        }
        _ => vec![Step::RotateCcw],
    };
    let dx = to.x as i16 - from.x as i16;
    let mv = if dx >= 0 { vec![Step::Right; dx as usize] } else { vec![Step::Left; (-dx) as usize] };
    // Rotating first is safe when every pose on the way stays inside the field.
    let mut pose = from;
    let rotate_first_ok = rot.iter().all(|&s| {
        pose = pose.after(s);
        pose.in_field()
    });
    if rotate_first_ok { rot.into_iter().chain(mv).collect() } else { mv.into_iter().chain(rot).collect() }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Orientation::*;

    fn walk(from: Pose, steps: &[Step]) -> Pose {
        steps.iter().fold(from, |p, &s| p.after(s))
    }

    #[test]
    fn every_placement_is_reached_from_spawn_with_in_field_poses() {
        let spawn = Pose { x: 3, orientation: Up };
        for x in 1..=6 {
            for o in Orientation::ALL {
                let to = Pose { x, orientation: o };
                if !to.in_field() {
                    continue;
                }
                let steps = plan(spawn, to);
                assert_eq!(walk(spawn, &steps), to);
                let mut p = spawn;
                for s in &steps {
                    p = p.after(*s);
                    assert!(p.in_field(), "{to:?} via {steps:?} leaves the field at {p:?}");
                }
                assert!(steps.len() <= 5);
            }
        }
    }

    #[test]
    fn three_quarter_turns_go_the_short_way() {
        assert_eq!(plan(Pose { x: 3, orientation: Up }, Pose { x: 3, orientation: Left }), vec![Step::RotateCcw]);
    }
}
