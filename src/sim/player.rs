//! The interface between a game loop and whoever decides where pieces go (a bot, a script, the emulator).

use crate::game::{Field, Piece, Placement, Rules};

/// What a player sees when it must place a piece. The Famicom shows the current and one next piece.
#[derive(Clone, Copy, Debug)]
pub struct View<'a> {
    /// The player's own field (settled).
    pub field: &'a Field,
    /// The piece to place now.
    pub current: Piece,
    /// The piece after it.
    pub next: Piece,
    /// Nuisance waiting to fall on this player after this piece.
    pub pending_nuisance: u32,
    /// The opponent, in a battle.
    pub opponent: Option<OpponentView<'a>>,
    /// The rules in force.
    pub rules: &'a Rules,
    /// Pieces this player has placed so far.
    pub pieces_played: u32,
}

/// What a player sees of its opponent.
#[derive(Clone, Copy, Debug)]
pub struct OpponentView<'a> {
    /// The opponent's field.
    pub field: &'a Field,
    /// Nuisance waiting to fall on the opponent.
    pub pending_nuisance: u32,
    /// Frames until the opponent's current chain finishes (0 when none is running).
    pub chain_frames_left: u32,
    /// Nuisance the opponent's running chain will still send.
    pub incoming_from_chain: u32,
}

/// A decision: where the current piece goes, plus what the player expects (for logs and the HUD).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Decision {
    /// Where to lock the current piece.
    pub placement: Placement,
    /// Chain length the player expects this placement to fire now (0 = none).
    pub expected_chain: u32,
}

/// Anything that chooses placements.
pub trait Player: Send {
    /// A short name for reports.
    fn name(&self) -> &str;
    /// Chooses where the current piece goes. Must return a placement that is valid for the piece.
    fn choose(&mut self, view: &View<'_>) -> Decision;
}

/// A borrowed player plays as itself, so wrappers (e.g. [`super::CpuTimed`]) can take `&mut bot`.
impl<P: Player + ?Sized> Player for &mut P {
    fn name(&self) -> &str {
        (**self).name()
    }
    fn choose(&mut self, view: &View<'_>) -> Decision {
        (**self).choose(view)
    }
}
