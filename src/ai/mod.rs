//! The bot's brain: move generation, search, evaluations, the ignition policy and the `Bot` player.
//!
//! - [`movegen`]: reachable lock placements with the input paths the driver presses;
//! - [`search`]: 2-ply search (current + next piece), optional sampled third ply;
//! - [`beam`]: a narrow beam over sampled futures behind the 2-ply search;
//! - [`eval`]: `classic` (the seed Famicom bot) and `chain` (potential-chain builder);
//! - [`ignition`]: when to fire;
//! - [`bot`]: [`Bot`], a [`crate::sim::Player`];
//! - [`config`]: the `[ai]` table of `config.toml`.

pub mod beam;
pub mod bot;
pub mod config;
pub mod eval;
pub mod ignition;
pub mod movegen;
pub mod search;

pub use bot::{Bot, BotError, Plan};
pub use config::AiConfig;
pub use movegen::{InputPath, Move, MoveRules, PiecePosition, Step};
pub use search::{SearchOptions, SearchResult};
