//! Self-play: piece sources, the `Player` trait, and the 1P endless and 2P battle loops.

pub mod generator;
pub mod player;

pub use generator::{PieceSource, QueuePieces, RandomPieces, game_rng};
pub use player::{Decision, OpponentView, Player, View};
