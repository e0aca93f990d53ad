//! What one player sees on one frame: its own decoded state and, in 2P, the match. Built once per frame
//! by [`super::nuisance_watch::NuisanceWatch::views`] from the decoded RAM and the frame's locks; the seat reads
//! it, the bot's question carries it, and the bot's [`crate::game::View`] borrows from it.

use crate::game::Field;
use crate::memmap::PlayerState;

/// One player's view of one frame.
#[derive(Clone, Debug, PartialEq)]
pub struct PlayerView {
    /// The player's own state as RAM shows it.
    pub own: PlayerState,
    /// Nuisance waiting to fall on this player: RAM's count when the address file has one, else the
    /// model's (0 outside 2P).
    pub nuisance_on_me: u32,
    /// The opponent, in 2P.
    pub opponent: Option<Opponent>,
}

/// What a player sees of its opponent in 2P.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Opponent {
    /// The opponent's field.
    pub field: Field,
    /// Nuisance waiting to fall on the opponent.
    pub nuisance_on_them: u32,
    /// Nuisance the opponent's running chain will still send this player (the rules model's prediction
    /// from the piece that started it).
    pub chain_to_me: u32,
}

impl PlayerView {
    /// A view of `own` alone (1P, or no match known).
    pub fn alone(own: PlayerState) -> PlayerView {
        PlayerView { own, nuisance_on_me: 0, opponent: None }
    }
}
