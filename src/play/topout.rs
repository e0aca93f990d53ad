//! Telling a top-out from a long chain.
//!
//! A player has topped out when its spawn cells stay filled and no piece comes. But a chain fired by a
//! puyo placed in a spawn cell keeps that cell filled until the link that clears it, with no piece under
//! control for as long as the chain runs: a 13-chain lasts longer than any fixed wait that is still short
//! enough to end a lost game promptly. So the wait runs from the last change of the field: a resolving
//! field changes every link (pops, falls), a lost one stands still.

use crate::game::{Field, Rules};

/// Frames the field must stand still, with a spawn cell filled and no controllable piece, before the
/// player counts as topped out.
pub const TOPOUT_FRAMES: u32 = 180;

/// Frames without a controllable piece after which a player whose spawn cell is filled counts as topped
/// out even if the field keeps changing (a game-over animation): longer than any chain.
pub const TOPOUT_IDLE_FRAMES: u32 = 1800;

/// Follows one player's frames without a controllable piece.
#[derive(Clone, Debug, Default)]
pub struct TopOutWatch {
    /// Frames since a piece was last under control.
    idle: u32,
    /// Frames since the field last changed.
    still: u32,
    /// The field on the last frame.
    last: Option<Field>,
}

impl TopOutWatch {
    /// A piece is under control (or the watch starts over).
    pub fn reset(&mut self) {
        *self = TopOutWatch::default();
    }

    /// One frame with no controllable piece; returns whether the player has topped out.
    pub fn idle_frame(&mut self, field: &Field, rules: &Rules) -> bool {
        self.idle = self.idle.saturating_add(1);
        if self.last.as_ref() == Some(field) {
            self.still = self.still.saturating_add(1);
        } else {
            self.still = 0;
            self.last = Some(*field);
        }
        field.is_game_over(rules) && (self.still > TOPOUT_FRAMES || self.idle > TOPOUT_IDLE_FRAMES)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::{Cell, Color, HEIGHT};

    fn dead_field() -> Field {
        let mut f = Field::new();
        for y in 1..HEIGHT {
            f.set(3, y, Cell::Color(Color::ALL[y % 4]));
        }
        f
    }

    #[test]
    fn a_filled_spawn_cell_on_a_still_field_is_a_top_out() {
        let (rules, f) = (Rules::puyo1(), dead_field());
        let mut w = TopOutWatch::default();
        let frames = (0..=TOPOUT_FRAMES + 1).map(|_| w.idle_frame(&f, &rules)).filter(|&out| out).count();
        assert_eq!(frames, 1, "topped out on the last frame only");
    }

    #[test]
    fn a_long_chain_through_the_spawn_cell_is_not_a_top_out_until_it_stops() {
        let rules = Rules::puyo1();
        let mut w = TopOutWatch::default();
        // A field that changes every 40 frames (a link) with the spawn cell filled, for 15 links.
        let mut f = dead_field();
        for link in 0..15 {
            f.set(6, HEIGHT - 1, if link % 2 == 0 { Cell::Nuisance } else { Cell::Empty });
            for _ in 0..40 {
                assert!(!w.idle_frame(&f, &rules), "link {link}");
            }
        }
        // The chain leaves the spawn cell empty: no top-out however long the wait.
        let clear = Field::new();
        for _ in 0..TOPOUT_IDLE_FRAMES {
            assert!(!w.idle_frame(&clear, &rules));
        }
        // A new piece, then a lost game whose field keeps animating: out after the long wait.
        w.reset();
        let mut out = false;
        for i in 0..=TOPOUT_IDLE_FRAMES + 1 {
            f.set(6, HEIGHT - 1, if i % 2 == 0 { Cell::Nuisance } else { Cell::Empty });
            out |= w.idle_frame(&f, &rules);
        }
        assert!(out);
    }
}
