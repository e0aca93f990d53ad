//! Running many self-play games: one endless game or battle from its number, and a pool of threads that
//! plays a list of game numbers.
//!
//! Game `g` of the run `seed` draws everything (pieces, bot seeds, nuisance columns) from
//! [`game_rng`]`(seed, g)`, in a fixed order, so its result does not depend on which thread plays it or
//! when. The bots come from the caller (`make_bot(side, seed)`), since this layer sits below the bots.

use rand::RngCore;
use rayon::prelude::*;

use crate::game::deal::{PieceSource, QueuePieces, RandomPieces, game_rng};
use crate::game::player::Player;
use crate::game::{Item, Piece, Rules};

use super::battle::{BattleTiming, play_battle};
use super::summary::{BattleGame, EndlessGameResult, play_endless_tallied};

/// Why a run of games could not be played.
#[derive(Debug, thiserror::Error)]
pub enum GamesError {
    /// The thread pool could not be built.
    #[error("cannot build the thread pool: {0}")]
    Pool(#[from] rayon::ThreadPoolBuildError),
    /// An interrupt came before any game ended, so there is nothing to report.
    #[error("interrupted before any game ended")]
    NoGame,
    /// A queue of pieces to deal from was empty.
    #[error("empty queue")]
    EmptyQueue,
    /// A player could not choose (a bot process that misbehaved).
    #[error("game {game}: {error}")]
    Player {
        /// The game it happened in.
        game: usize,
        /// What the player did.
        error: crate::game::PlayerError,
    },
}

/// A rayon pool of `jobs` threads (at least one).
pub fn pool(jobs: usize) -> Result<rayon::ThreadPool, GamesError> {
    Ok(rayon::ThreadPoolBuilder::new().num_threads(jobs.max(1)).build()?)
}

/// Plays `play(g)` for each game number of `games` on a pool of `jobs` threads, calling `done` after each
/// game. After an interrupt ([`crate::interrupt`]) games not yet begun are left out; the result keeps
/// the order of `games`. The first error (in game order) wins.
pub fn play_games<T: Send, E: Send + From<GamesError>>(
    games: &[usize],
    jobs: usize,
    done: &(dyn Fn() + Sync),
    play: impl Fn(usize) -> Result<T, E> + Sync,
) -> Result<Vec<T>, E> {
    let results: Vec<Option<T>> = pool(jobs)?.install(|| {
        games
            .par_iter()
            .map(|&g| {
                if crate::interrupt::requested() {
                    return Ok(None);
                }
                let r = play(g);
                done();
                r.map(Some)
            })
            .collect::<Result<Vec<_>, E>>()
    })?;
    let played: Vec<T> = results.into_iter().flatten().collect();
    if played.is_empty() {
        return Err(GamesError::NoGame.into());
    }
    Ok(played)
}

/// One endless game: what to deal and how long to play.
#[derive(Clone, Copy, Debug)]
pub struct EndlessSpec<'a> {
    /// The run's seed.
    pub seed: u64,
    /// Colours of the random pairs (clamped to 3..=6); unused with a queue.
    pub colors: u8,
    /// Pairs to place.
    pub pieces: usize,
    /// The rules (the spawn orientation may differ from Puyo Puyo's).
    pub rules: &'a Rules,
    /// A fixed queue dealt over and over instead of random pairs.
    pub queue: Option<&'a [Piece]>,
    /// The item dealt every `rules.items.interval` pieces of the random deal (`None`: no items).
    pub item: Option<Item>,
}

/// The random deal of a game: pairs of `colors` colours from `seed`, with `item` in place of every
/// `rules.items.interval`-th piece (1-based: the 16th, the 32nd, … at the cartridge's interval). Both
/// players of a battle read the one sequence, so each gets the item at the same pieces, as each side
/// of the cartridge counts its own pieces.
pub fn deal(seed: u64, colors: u8, item: Option<Item>, rules: &Rules) -> RandomPieces {
    let pieces = RandomPieces::new(seed, colors);
    match item {
        Some(item) => pieces.with_item(item, rules.items.interval),
        None => pieces,
    }
}

/// Plays endless game `g`: the pieces' seed (unless a queue deals), then the bot's seed, come from
/// `game_rng(seed, g)`; `make_bot(seed)` makes the bot.
pub fn endless_game<P: Player, E: From<GamesError>>(
    g: usize,
    spec: &EndlessSpec<'_>,
    make_bot: impl FnOnce(u64) -> Result<P, E>,
) -> Result<EndlessGameResult, E> {
    let mut rng = game_rng(spec.seed, g as u64);
    let mut source: Box<dyn PieceSource> = match spec.queue {
        Some(q) => Box::new(QueuePieces::new(q.to_vec()).ok_or(GamesError::EmptyQueue)?),
        None => Box::new(deal(rng.next_u64(), spec.colors, spec.item, spec.rules)),
    };
    let bot = make_bot(rng.next_u64())?;
    play_endless_tallied(bot, source.as_mut(), spec.rules, spec.pieces, g)
        .map_err(|error| GamesError::Player { game: g, error }.into())
}

/// Plays battle `g` of the run `seed` under `rules`, dealing `item` as [`deal`] does: the pieces' seed,
/// then player 1's and player 2's bot seeds come from `game_rng(seed, g)`, which then places the
/// nuisance; `make_bot(side, seed)` makes the bot of side 0 (player 1) and 1.
pub fn battle_game<P: Player, E: From<GamesError>>(
    g: usize,
    seed: u64,
    colors: u8,
    item: Option<Item>,
    max_pieces: usize,
    rules: &Rules,
    mut make_bot: impl FnMut(usize, u64) -> Result<P, E>,
) -> Result<BattleGame, E> {
    let mut rng = game_rng(seed, g as u64);
    let mut source = deal(rng.next_u64(), colors, item, rules);
    let mut p1 = make_bot(0, rng.next_u64())?;
    let mut p2 = make_bot(1, rng.next_u64())?;
    let rec = play_battle([&mut p1, &mut p2], &mut source, rules, &BattleTiming::default(), max_pieces, &mut rng);
    if let Some(error) = rec.error {
        return Err(GamesError::Player { game: g, error }.into());
    }
    Ok(BattleGame {
        game: g,
        winner: rec.winner.map_or(0, |w| w as u8 + 1),
        frames: rec.frames,
        pieces: [rec.sides[0].pieces, rec.sides[1].pieces],
        largest_chain: [rec.sides[0].largest_chain(), rec.sides[1].largest_chain()],
        nuisance_sent: [rec.sides[0].nuisance_sent, rec.sides[1].nuisance_sent],
        attacks: [rec.sides[0].attacks, rec.sides[1].attacks],
        full_attacks: [rec.sides[0].full_attacks, rec.sides[1].full_attacks],
        first_full_attack: [rec.sides[0].first_full_attack, rec.sides[1].first_full_attack],
        draw: super::summary::BattleDraw::of(&rec, rules),
    })
}
