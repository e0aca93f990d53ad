//! The bot's brain: search, evaluations, the ignition policy and the `Bot` player.
//!
//! - [`movegen`]: the game's movement model ([`crate::game::movegen`]), which the search walks;
//! - [`search`]: 2-ply search (current + next piece), optional sampled third ply;
//! - [`beam`]: a narrow beam over sampled futures behind the 2-ply search;
//! - [`eval`]: `classic` (the original Famicom bot) and `chain` (potential-chain builder);
//! - `greedy`: a cheap two-ply bot for tests (built with the `test-support` feature only);
//! - [`ignition`]: when to fire;
//! - [`battle`]: a battle move's stakes (lethal dose, cap, the attack worth firing);
//! - [`rush`]: the 2P reference attacker;
//! - [`choice`]: the `chain` bot's choice after the search, as a pipeline of named rules;
//! - [`playout`]: play-outs that decide whether a build waits for a longer chain;
//! - [`last_pieces`]: the end of a game of known length, played for points;
//! - [`bot`]: [`Bot`], a [`crate::game::Player`], and the one list of bot names ([`NAMES`]);
//! - [`strength`]: strength levels 0–10 ([`StrengthBot`] wraps a [`Bot`]);
//! - [`config`]: the bots' settings ([`AiConfig`]) and the named AI profiles ([`PROFILES`]).

pub mod battle;
pub mod beam;
pub mod bot;
pub mod choice;
pub mod config;
pub mod eval;
#[cfg(any(test, feature = "test-support"))]
pub mod greedy;
pub mod ignition;
pub mod last_pieces;
pub mod playout;
pub mod rush;
pub mod search;
pub mod search_types;
pub mod strength;

/// The movement model lives in the game layer; the search and the driver share it.
pub use crate::game::movegen;

pub use bot::{Bot, BotError, DEFAULT_P1, DEFAULT_P2, NAMES, OFFERED, check_name};
pub use config::{AiConfig, DEFAULT_PROFILE, FAST_PROFILE, PROFILES};
pub use movegen::{InputPath, Move, MoveRules, PiecePosition, Step};
pub use search::{SearchOptions, SearchResult};
pub use strength::{Level, Levels, StrengthBot};
