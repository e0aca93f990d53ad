//! The game model: field, pieces, rules, resolution, the movement model (which placements a falling
//! piece can reach, and how) and the player interface (what a player sees and decides). Pure: no emulator, no UI, no I/O.

pub mod deal;
pub mod field;
pub mod movegen;
pub mod nuisance;
pub mod piece;
pub mod play;
pub mod player;
pub mod resolve;
pub mod rules;
pub mod text;
pub mod timing;

pub use field::{Field, HEIGHT, WIDTH};
pub use movegen::{InputPath, Move, MoveRules, PiecePosition};
pub use nuisance::nuisance_from_score;
pub use piece::{Cell, Color, Item, MAX_COLORS, Orientation, Pair, Piece, Placement, Step};
pub use play::PlacementError;
pub use player::{Decision, FireReason, OpponentView, Player, PlayerError, View};
pub use resolve::{ChainStep, ChainSummary};
pub use rules::{ItemRules, NuisanceOverflow, Rules};
pub use timing::{GravityCurve, LockDelay, Timing};
