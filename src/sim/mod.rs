//! Self-play: piece sources, the `Player` trait, and the 1P endless and 2P battle loops.

pub mod battle;
pub mod endless;
pub mod generator;
pub mod player;

pub use battle::{BattleRecord, BattleTiming, SideRecord, play_battle};
pub use endless::{EndlessRecord, MoveRecord, play_endless};
pub use generator::{PieceSource, QueuePieces, RandomPieces, game_rng};
pub use player::{Decision, OpponentView, Player, View};
