//! Health: whether the contract a session plays with predicts what the game does.
//!
//! Calibration settles when it has seen enough to name every fact of the contract, but a fact can be
//! learned wrong, or be right for the first pieces and wrong later (a code first seen in 2P, a byte that
//! is valid only some frames after a spawn). So every seat keeps checking, piece after piece, the
//! predictions the bot relies on:
//!
//! - **locks**: the field RAM shows after a lock is the one the rules model predicted;
//! - **questions**: every piece that spawned could be read (current and next pair) and the bot was asked;
//! - **next pairs**: the next pair read during a piece is the pair that spawns after it;
//! - **presses**: the driver's presses moved the pair as the movement model said;
//! - **plans**: the pieces lock where the bot decided. A plan that keeps failing (pieces locked off plan,
//!   re-plan after re-plan) while every encoding holds points at the game's timing.
//!
//! A seat's [`SeatHealth`] keeps the totals since the contract settled and a window of the last pieces;
//! [`SeatHealth::verdict`] names the first fact whose checks fail too often in that window. The session
//! then learns that fact again or stops with a message; it never plays on blind.
//!
//! A 2P game of a match that runs past the long-game limit without a winner ([`super::long_game`]) is not
//! a failed check: nothing in the contract mispredicted, and stopping the bots would say the cartridge was
//! read wrong. It is a finding all the same, never a normal result: the report's state is "long-game"
//! where it would have been "healthy", the report lists each long game with its reason, and the run
//! exits with an error ([`super::report::HealthReport`]).
//!
//! The parts: [`facts`] (the facts a check points at, and what to do about each), [`records`] (what each
//! piece showed, and the totals), [`verdict`] (the rules that name a failing fact from the window),
//! [`wording`] (what the clock and the plans did, in words) and [`end`] (the judgements of a game that
//! ended: a top-out too early, a game without a big chain, mismatches left at the end).

mod end;
mod facts;
mod records;
mod verdict;
mod wording;

pub use facts::{Fact, Failure};
pub use records::{HealthCounts, SeatHealth};

/// Pieces in the window a verdict looks at.
pub const WINDOW: usize = 12;

/// Failed checks of one kind within the window that make a verdict (a fault or two is noise: a dropped
/// frame, a pad glitch; three in twelve pieces is a wrong fact).
pub const FAILURES: usize = 3;

/// Locks among the window's that RAM showed one input away from where it last showed the pair (the
/// verifier took them as a late move) that fail the check: a pad fault now and then moves a pair on the
/// frame it locks, but a pair that keeps landing elsewhere than read says a fact is read wrong (the two
/// current-pair bytes the other way round land every pair of two colours "turned over").
pub const NEARBY_FAILURES: usize = 6;

/// Pieces of the window that may lock off plan before health fails naming the timing: a faulty pad link
/// sends one piece in twenty or thirty elsewhere, a wrong timing most of them.
pub const OFF_PLAN_FAILURES: usize = 6;

/// Re-plans per piece, over a full window, that fail the timing check even when the pieces still end
/// where planned (the driver keeps catching a pair that does not move as planned).
pub const REPLANS_PER_PIECE: usize = 4;

/// Pieces an Endless game must last before a top-out counts as a lost game: one that tops out sooner,
/// when more pieces were asked for, was not played on facts that predict the game.
pub const EARLY_TOP_OUT_PIECES: u32 = 30;

/// Pieces locked off plan in an Endless game that make any top-out before the pieces asked for a failure
/// naming the timing, however late it came: the bot lost because its pairs did not go where it planned.
pub const OFF_PLAN_TOP_OUT: u64 = 3;

/// Puyos on the field below which an Endless top-out is not a full stack topping out (two thirds of the
/// 72 cells below the spawn): pairs were kept out of the other columns (the game's clock, or the pad).
/// On the hardest clocks `sim` measured, the bot's top-outs came with 62 to 68 puyos on the field.
pub const THIN_TOP_OUT_PUYOS: u32 = 48;

/// The chain a healthy Endless game fires within [`BIG_CHAIN_BY_PIECES`] pieces.
pub const BIG_CHAIN: u32 = 8;

/// Pieces within which an Endless game fires a chain of [`BIG_CHAIN`] or more: `sim` on clocks that do
/// not narrow the bot's choice fires the first one at pair 35 on average (docs/performance.md).
pub const BIG_CHAIN_BY_PIECES: u32 = 100;

/// Rows a pair falls before a press takes effect from which the log says the clock limits play
/// ([`SeatHealth::clock_limits_play`]).
pub const LAG_ROWS_TOLD: u32 = 3;

/// The share of an empty field's placements the measured clock must leave in reach
/// ([`SeatHealth::set_open_reach`]): with fewer, most pairs go where they fall, not where the bot decides.
pub const MIN_OPEN_REACH_SHARE: f64 = 0.5;

/// The share of the window's pieces the clock must cut columns off for before a lost game is the clock's.
pub const CUT_PIECES_SHARE: f64 = 0.5;

/// `part` is `share` of `whole` or more.
fn share_reached(part: u64, whole: u64, share: f64) -> bool {
    part as f64 >= share * whole as f64
}

/// Locks in which the same unknown code may show before health fails naming it: calibration learns a
/// code from the first lock that shows it (a link bit, a colour or item nobody listed), so a code that
/// keeps coming back is one it cannot learn.
pub const UNREAD_REPEATS: u32 = 3;

#[cfg(test)]
mod tests;
