//! Self-play at any gravity: a [`Clock`] (the gravity curve by piece and the rest of the game's timing)
//! and [`UnderGravity`], a player wrapper that hands its player the timed movement rules of each piece
//! before it chooses, so the search only picks placements its presses reach before the pair locks
//! ([`crate::game::movegen`]). Without a clock the loops play as before: no time limit.

use crate::game::player::{Decision, Player, View};
use crate::game::{GravityCurve, MoveRules, Timing};

/// The game's clock for a whole game: gravity by piece (a curve, or constant) and the timing of the
/// presses and the lock, which stay the same.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Clock {
    /// Frames per row of gravity by piece.
    pub curve: GravityCurve,
    /// Lock delay, press cost, input lag and margin (its gravity fields are set per piece from `curve`).
    pub timing: Timing,
}

impl Clock {
    /// The timing of the piece with 0-based index `piece`: it has just spawned, at its level's gravity.
    pub fn timing_for(&self, piece: u32) -> Timing {
        let fpr = self.curve.frames_per_row(piece);
        Timing { frames_per_row: fpr, first_fall: fpr, soft_drop: self.timing.soft_drop.min(fpr), ..self.timing }
    }

    /// One line for reports: the curve (`START:STEP:MIN:PIECES`), the lock, the press cost and the margin.
    pub fn describe(&self) -> String {
        let lock = match self.timing.lock {
            crate::game::LockDelay::None => "none".to_string(),
            crate::game::LockDelay::Frames { frames, moves } => {
                format!("{frames} frames{}", if moves { "" } else { " without moves" })
            }
        };
        format!(
            "gravity {} (frames per row, step per level, floor, pieces per level); lock {lock}; press {} frames, lag {}, margin {}",
            self.curve, self.timing.press_frames, self.timing.input_lag, self.timing.margin
        )
    }
}

/// A player that plays on a [`Clock`]: before each choice its movement rules get that piece's timing.
pub struct UnderGravity<P> {
    /// The wrapped player.
    pub inner: P,
    base: MoveRules,
    clock: Clock,
}

impl<P: Player> UnderGravity<P> {
    /// Wraps `inner`, whose own movement rules are `base` (kicks, top row), on `clock`.
    pub fn new(inner: P, base: MoveRules, clock: Clock) -> UnderGravity<P> {
        UnderGravity { inner, base, clock }
    }
}

impl<P: Player> Player for UnderGravity<P> {
    fn name(&self) -> &str {
        self.inner.name()
    }

    fn choose(&mut self, view: &View<'_>) -> Decision {
        let timing = self.clock.timing_for(view.pieces_played);
        self.inner.set_movement(MoveRules { timing: Some(timing), ..self.base });
        self.inner.choose(view)
    }

    fn try_choose(&mut self, view: &View<'_>) -> Result<Decision, crate::game::PlayerError> {
        let timing = self.clock.timing_for(view.pieces_played);
        self.inner.set_movement(MoveRules { timing: Some(timing), ..self.base });
        self.inner.try_choose(view)
    }

    fn placed(&mut self, placement: crate::game::Placement) {
        self.inner.placed(placement)
    }

    /// New kicks or top row replace the base; the clock stays.
    fn set_movement(&mut self, moves: MoveRules) {
        self.base = MoveRules { timing: None, ..moves };
    }

    fn set_deadline(&mut self, deadline: Option<std::time::Instant>) {
        self.inner.set_deadline(deadline)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::{Color, Field, LockDelay, Orientation, Pair, Piece, Placement, Rules};

    /// Records the movement rules it is given and chooses the spawn column.
    struct Probe(Vec<Option<Timing>>, MoveRules);

    impl Player for Probe {
        fn name(&self) -> &str {
            "probe"
        }
        fn choose(&mut self, _view: &View<'_>) -> Decision {
            self.0.push(self.1.timing);
            Decision::at(Placement::new(3, Orientation::Up))
        }
        fn set_movement(&mut self, moves: MoveRules) {
            self.1 = moves;
        }
    }

    #[test]
    fn each_piece_gets_its_levels_gravity_and_the_base_kicks() {
        let clock = Clock {
            curve: "20:5:4:2".parse().unwrap(),
            timing: Timing { lock: LockDelay::None, ..Timing::spawned(30) },
        };
        let base = MoveRules { kick_up: false, ..MoveRules::default() };
        let mut p = UnderGravity::new(Probe(Vec::new(), MoveRules::default()), base, clock);
        let rules = Rules::puyo1();
        let field = Field::new();
        let piece = Piece::Pair(Pair::new(Color::ALL[0], Color::ALL[1]));
        for i in 0..8 {
            let view = View {
                field: &field,
                current: piece,
                next: piece,
                revealed: &[],
                nuisance_on_me: 0,
                opponent: None,
                rules: &rules,
                pieces_played: i,
                pieces_left: None,
                caution: false,
            };
            p.choose(&view);
        }
        let fpr: Vec<u16> = p.inner.0.iter().map(|t| t.expect("timed").frames_per_row).collect();
        assert_eq!(fpr, vec![20, 20, 15, 15, 10, 10, 5, 5]);
        assert!(
            p.inner
                .0
                .iter()
                .all(|t| t.unwrap().lock == LockDelay::None && t.unwrap().first_fall == t.unwrap().frames_per_row)
        );
        assert!(!p.inner.1.kick_up, "the base kicks stay");
        assert!(clock.describe().starts_with("gravity 20:5:4:2"));
    }
}
