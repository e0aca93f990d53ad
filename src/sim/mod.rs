//! Self-play: the 1P endless and 2P battle loops (players are [`crate::game::Player`]s), running many games
//! on a thread pool and the strength ladder ([`runner`], [`ladder`]), and the statistics of runs (tallies,
//! summaries, shards and their merge). The piece sources live in [`crate::game::deal`]
//! (the mock emulator deals from them too) and are re-exported here.
//!
//! Pure layer: uses `game` and nothing of the bots, the emulator or the command line.

pub mod battle;
pub mod endless;
pub mod gravity;
pub mod ladder;
pub mod runner;
pub mod shard;
pub mod stats;
pub mod summary;

pub use crate::game::deal::{DEFAULT_COLORS, PieceSource, QueuePieces, RandomPieces, game_rng};
/// The player interface lives in the model layer ([`crate::game::player`]); re-exported for the loops' users.
pub use crate::game::player::{Decision, FireReason, OpponentView, Player, View};
pub use battle::{BattleRecord, BattleTiming, SideRecord, play_battle};
pub use endless::{EndlessOutcome, EndlessRecord, MoveRecord, play_endless, play_endless_streaming};
pub use gravity::{Clock, UnderGravity};
pub use shard::Shard;
pub use stats::{CpuTimed, Gaussian, Histogram, TimeHistogram, Timing, process_cpu_ns, thread_cpu_ns, wilson};
pub use summary::{
    AttackFigures, BIG_CHAIN, BattleGame, BattleRules, BattleRun, BattleSummary, BigChainTotals, EndlessGame,
    EndlessGameResult, EndlessRun, EndlessSummary, EndlessTally, EndlessTotals, Summary, TimingReport, merge,
    play_endless_tallied,
};
