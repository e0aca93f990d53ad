//! The strength ladder: battles of one bot against itself one strength level lower, for each adjacent
//! pair of levels, with the stronger level's win rate and its 95 % Wilson interval.
//!
//! The stronger level is player 1 in even battles and player 2 in odd ones, since player 1 acts first on
//! ties. Battle g of every pair deals from `game_rng(seed, g)`, so each pair sees the same deals and a run
//! repeats exactly for its seed.

use serde::Serialize;

use crate::game::player::Player;

use super::runner::{GamesError, battle_game, play_games};
use super::stats::wilson;
use super::summary::BattleGame;

/// What a ladder plays.
#[derive(Clone, Debug)]
pub struct LadderSpec {
    /// The bot's label for the report.
    pub ai: String,
    /// Battles per pair of adjacent levels.
    pub battles: usize,
    /// Lowest level (its pair is this level against the one above).
    pub from: u8,
    /// Highest level.
    pub to: u8,
    /// Run seed.
    pub seed: u64,
    /// Colours of the random pairs.
    pub colors: u8,
    /// Pieces per side before a battle is called a draw.
    pub max_pieces: usize,
    /// Battles played in parallel.
    pub jobs: usize,
}

/// One adjacent pair of levels.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Rung {
    /// The stronger level.
    pub upper: u8,
    /// The level below it.
    pub lower: u8,
    /// Battles played.
    pub battles: u64,
    /// Battles the upper level won.
    pub upper_wins: u64,
    /// Battles the lower level won.
    pub lower_wins: u64,
    /// Draws (neither side topped out within `max_pieces`).
    pub draws: u64,
    /// The upper level's win rate with its 95 % Wilson interval: (rate, low, high).
    pub upper_win_rate: (f64, f64, f64),
    /// Mean pieces each side placed per battle.
    pub mean_pieces: f64,
}

impl Rung {
    /// Tallies the battles of `upper` against `lower`, where the upper level was player 1 in even games.
    pub fn tally(upper: u8, lower: u8, games: &[BattleGame]) -> Rung {
        let upper_side = |g: &BattleGame| if g.game.is_multiple_of(2) { 1 } else { 2 };
        let upper_wins = games.iter().filter(|g| g.winner == upper_side(g)).count() as u64;
        let draws = games.iter().filter(|g| g.winner == 0).count() as u64;
        let n = games.len() as u64;
        let pieces: u64 = games.iter().map(|g| u64::from(g.pieces[0]) + u64::from(g.pieces[1])).sum();
        Rung {
            upper,
            lower,
            battles: n,
            upper_wins,
            lower_wins: n - upper_wins - draws,
            draws,
            upper_win_rate: wilson(upper_wins, n),
            mean_pieces: if n == 0 { 0.0 } else { pieces as f64 / (2 * n) as f64 },
        }
    }

    /// True when the interval's lower end is above one half.
    pub fn separated(&self) -> bool {
        self.upper_win_rate.1 > 0.5
    }
}

/// The whole ladder.
#[derive(Clone, Debug, Serialize)]
pub struct Ladder {
    /// Always `ladder`.
    pub mode: String,
    /// The bot.
    pub ai: String,
    /// Run seed.
    pub seed: u64,
    /// Colours.
    pub colors: u8,
    /// Pieces per side before a draw.
    pub max_pieces: usize,
    /// One entry per adjacent pair, strongest first.
    pub rungs: Vec<Rung>,
    /// True when the run was interrupted (the figures cover the battles played).
    pub interrupted: bool,
}

/// Plays the ladder of `spec`, strongest pair first; `make_bot(level, seed)` makes the bot at a level,
/// `done` is called after each battle. After an interrupt ([`crate::interrupt`]) no new pair starts.
pub fn play_ladder<P: Player, E: Send + From<GamesError>>(
    spec: &LadderSpec,
    done: &(dyn Fn() + Sync),
    make_bot: impl Fn(u8, u64) -> Result<P, E> + Sync,
) -> Result<Ladder, E> {
    let mut rungs = Vec::new();
    for upper in (spec.from + 1..=spec.to).rev() {
        if crate::interrupt::requested() {
            break;
        }
        let lower = upper - 1;
        let games: Vec<usize> = (0..spec.battles).collect();
        let played = play_games(&games, spec.jobs, done, |g| {
            let levels = if g % 2 == 0 { [upper, lower] } else { [lower, upper] };
            battle_game(g, spec.seed, spec.colors, None, spec.max_pieces, &crate::game::Rules::puyo1(), |side, seed| {
                make_bot(levels[side], seed)
            })
        })?;
        let rung = Rung::tally(upper, lower, &played);
        log::info!("{upper} vs {lower}: {} of {} won", rung.upper_wins, rung.battles);
        rungs.push(rung);
    }
    Ok(Ladder {
        mode: "ladder".into(),
        ai: spec.ai.clone(),
        seed: spec.seed,
        colors: spec.colors.clamp(3, 6),
        max_pieces: spec.max_pieces,
        rungs,
        interrupted: crate::interrupt::requested(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game(g: usize, winner: u8) -> BattleGame {
        BattleGame {
            game: g,
            winner,
            frames: 0,
            pieces: [10, 20],
            largest_chain: [0, 0],
            nuisance_sent: [0, 0],
            ..Default::default()
        }
    }

    #[test]
    fn a_rung_counts_the_upper_level_on_its_side() {
        // Upper is player 1 in even games, player 2 in odd ones.
        let games = [game(0, 1), game(1, 2), game(2, 2), game(3, 0)];
        let r = Rung::tally(5, 4, &games);
        assert_eq!((r.upper_wins, r.lower_wins, r.draws, r.battles), (2, 1, 1, 4));
        assert_eq!(r.upper_win_rate.0, 0.5);
        assert_eq!(r.mean_pieces, 15.0);
        assert!(!r.separated());
    }
}
