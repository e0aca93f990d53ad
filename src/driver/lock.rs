//! One lock, told once: [`LockWatch`] follows a player's decoded piece frame by frame and, on the first
//! frame it is no longer controllable, resolves it on the rules model into a [`Lock`]. Everything that
//! cares about a lock reads this one event: the after-lock check ([`super::Verifier`]), the nuisance a
//! chain sends, health and calibration's surprises.

use crate::game::movegen::{self, PiecePosition};
use crate::game::{ChainSummary, Field, Piece, Placement, Rules};
use crate::memmap::PlayerState;

/// A piece locked: what RAM showed on its last controllable frame, and what the rules model says the
/// lock resolved into.
#[derive(Clone, Debug, PartialEq)]
pub struct Lock {
    /// The frame on which the piece was first seen no longer under control.
    pub frame: u64,
    /// The piece that locked.
    pub piece: Piece,
    /// Where RAM last showed it: pivot column and row, orientation.
    pub pose: PiecePosition,
    /// The settled field it fell on.
    pub before: Field,
    /// The field the model says it resolves into.
    pub after: Field,
    /// What the model says the lock scored (chain length, points, puyos cleared).
    pub summary: ChainSummary,
    /// Where the player's bot had decided to put the piece, when a bot was driving it.
    pub decided: Option<Placement>,
}

impl Lock {
    /// Where the piece locked, as a placement (column and orientation).
    pub fn placement(&self) -> Placement {
        Placement::new(self.pose.x, self.pose.orientation)
    }

    /// Whether the piece locked where the bot decided (a one-colour pair mirrored counts as the same
    /// place); `None` when no bot decided.
    pub fn on_plan(&self) -> Option<bool> {
        self.decided.map(|d| movegen::same_outcome(self.piece, self.placement(), d))
    }
}

/// Follows one player's decoded piece and tells its lock once.
#[derive(Clone, Debug, Default)]
pub struct LockWatch {
    /// The piece as RAM showed it on the last frame, when it was under control then.
    falling: Option<(Field, Piece, PiecePosition)>,
}

impl LockWatch {
    /// Takes in one decoded frame (numbered `frame`) of the player; returns the lock when the piece
    /// under control on the previous frame no longer is. A pose the model cannot play is logged and told
    /// as no lock.
    pub fn frame(&mut self, st: &PlayerState, frame: u64, rules: &Rules) -> Option<Lock> {
        if st.controllable {
            self.falling = match (st.current, st.orientation) {
                (Some(piece), Some(orientation)) => {
                    Some((st.field, piece, PiecePosition { x: st.x, y: st.y, orientation }))
                }
                _ => None,
            };
            return None;
        }
        let (before, piece, pose) = self.falling.take()?;
        let mut after = before;
        match after.play(piece, Placement::new(pose.x, pose.orientation), rules) {
            Ok(summary) => Some(Lock { frame, piece, pose, before, after, summary, decided: None }),
            Err(e) => {
                log::warn!("lock: the piece locked in a pose the model cannot play ({e}); not followed");
                None
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::{Color, Orientation, Pair};

    fn state(field: Field, controllable: bool) -> PlayerState {
        PlayerState {
            field,
            current: Some(Piece::Pair(Pair::new(Color::ALL[0], Color::ALL[0]))),
            current_assigned: false,
            current_codes: (1, 1),
            unknown_cells: Vec::new(),
            next: None,
            x: 2,
            y: 11,
            orientation: Some(Orientation::Up),
            raw_orientation: 2,
            spawn_flag: false,
            spawn_delay: 0,
            drop_timer: 0,
            controllable,
            score: None,
            pending_nuisance: None,
        }
    }

    #[test]
    fn a_lock_is_told_once_with_what_it_resolved_into() {
        let rules = Rules::puyo1();
        // Two reds under column 2: the red pair on top pops four.
        let field = Field::from_rows(&[".R....", ".R...."]);
        let mut w = LockWatch::default();
        assert_eq!(w.frame(&state(field, false), 1, &rules), None, "no piece followed yet");
        assert_eq!(w.frame(&state(field, true), 2, &rules), None);
        let lock = w.frame(&state(field, false), 3, &rules).expect("the lock");
        assert_eq!((lock.frame, lock.pose.y, lock.placement()), (3, 11, Placement::new(2, Orientation::Up)));
        assert_eq!((lock.summary.chains, lock.summary.cleared), (1, 4));
        assert_eq!(lock.after, Field::new());
        assert_eq!(lock.on_plan(), None, "no bot decided");
        let decided = Lock { decided: Some(Placement::new(2, Orientation::Down)), ..lock.clone() };
        assert_eq!(decided.on_plan(), Some(true), "a one-colour pair upside down is the same place");
        let elsewhere = Lock { decided: Some(Placement::new(5, Orientation::Up)), ..lock };
        assert_eq!(elsewhere.on_plan(), Some(false));
        assert_eq!(w.frame(&state(field, false), 4, &rules), None, "told once");
    }
}
