//! The unit of training work: one self-play game of one weight vector (endless) or of two (battle), and
//! what it contributes to a fitness. A generation is a list of such jobs; any slice of them can run
//! anywhere, because a job's game depends only on the generation's seed and the job itself.

use rand::RngCore;
use serde::{Deserialize, Serialize};

use crate::ai::{AiConfig, Bot};
use crate::game::Rules;
use crate::sim::{BattleTiming, RandomPieces, game_rng, play_battle, play_endless_tallied};

/// What a weight vector is judged by.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum Fitness {
    /// Endless: mean length of the first chain of 8+ links (0 for a game without one).
    FirstChain,
    /// Endless: points per pair of the game length asked for; a game that tops out scores nothing, so
    /// risky stacking does not pay.
    Score,
    /// Battle: win rate (draws count half).
    Battle,
}

impl Fitness {
    /// True when judged by battles rather than endless games.
    pub fn is_battle(self) -> bool {
        self == Fitness::Battle
    }
}

/// One game to play.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Job {
    /// Candidate `cand` plays endless game `game`.
    Endless {
        /// Candidate index in the generation.
        cand: usize,
        /// Game index: the pieces come from the generation's stream for it.
        game: u64,
    },
    /// Candidates `a` and `b` battle on game `game`; `a` is player 1 on even games, player 2 on odd ones.
    Battle {
        /// First candidate.
        a: usize,
        /// Second candidate.
        b: usize,
        /// Game index.
        game: u64,
    },
}

/// A played job's raw figures (integers, so shards merge exactly).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct JobResult {
    /// Index of the job in its generation.
    pub job: usize,
    /// Endless: length of the first 8+ chain (0 if none).
    pub first_big: u32,
    /// Endless: points.
    pub score: u64,
    /// Endless: pairs placed.
    pub pairs: u64,
    /// Battle: 1 when `a` won, -1 when `b` won, 0 for a draw.
    pub outcome: i8,
    /// Endless: the game topped out.
    #[serde(default)]
    pub topped_out: bool,
    /// Endless: pieces the game was asked to last.
    #[serde(default)]
    pub asked: u64,
}

/// What every job of a run shares.
#[derive(Clone, Copy, Debug)]
pub struct JobContext<'a> {
    /// Evaluation name.
    pub eval: &'a str,
    /// Pieces per endless game.
    pub pieces: usize,
    /// Colours.
    pub colors: u8,
    /// Pieces per side before a battle is a draw.
    pub max_pieces: usize,
    /// The generation's game seed.
    pub seed: u64,
}

/// Plays `job` (number `index` of its generation) with the candidates' configurations.
pub fn run_job(ctx: &JobContext<'_>, configs: &[AiConfig], index: usize, job: Job) -> anyhow::Result<JobResult> {
    let rules = Rules::puyo1();
    let mut out = JobResult { job: index, first_big: 0, score: 0, pairs: 0, outcome: 0, topped_out: false, asked: 0 };
    match job {
        Job::Endless { cand, game } => {
            let mut rng = game_rng(ctx.seed, game);
            let mut source = RandomPieces::new(rng.next_u64(), ctx.colors);
            let bot = Bot::new(ctx.eval, config(configs, cand)?, rng.next_u64())?;
            let r = play_endless_tallied(bot, &mut source, &rules, ctx.pieces, game as usize)?;
            out.first_big = r.game.first_big_chain.map_or(0, |(len, _)| len);
            out.score = r.game.score;
            out.pairs = r.game.pairs;
            out.topped_out = r.game.topped_out;
            out.asked = ctx.pieces as u64;
        }
        Job::Battle { a, b, game } => {
            let mut rng = game_rng(ctx.seed, game);
            let mut source = RandomPieces::new(rng.next_u64(), ctx.colors);
            let mut bot_a = Bot::new(ctx.eval, config(configs, a)?, rng.next_u64())?;
            let mut bot_b = Bot::new(ctx.eval, config(configs, b)?, rng.next_u64())?;
            // Player 1 wins ties of the frame clock, so the sides alternate.
            let a_first = game % 2 == 0;
            let players: [&mut dyn crate::game::Player; 2] =
                if a_first { [&mut bot_a, &mut bot_b] } else { [&mut bot_b, &mut bot_a] };
            let rec = play_battle(players, &mut source, &rules, &BattleTiming::default(), ctx.max_pieces, &mut rng);
            out.outcome = match rec.winner {
                None => 0,
                Some(w) if (w == 0) == a_first => 1,
                Some(_) => -1,
            };
        }
    }
    Ok(out)
}

fn config(configs: &[AiConfig], i: usize) -> anyhow::Result<&AiConfig> {
    configs.get(i).ok_or_else(|| anyhow::anyhow!("job names candidate {i} of {}", configs.len()))
}

/// Sums of endless results for one candidate.
#[derive(Clone, Copy, Debug, Default)]
pub struct EndlessSums {
    games: u64,
    first_big: u64,
    /// Points of the games that did not top out.
    kept_score: u64,
    asked: u64,
}

impl EndlessSums {
    /// Adds one game.
    pub fn add(&mut self, r: &JobResult) {
        self.games += 1;
        self.first_big += r.first_big as u64;
        if !r.topped_out {
            self.kept_score += r.score;
        }
        self.asked += r.asked.max(r.pairs);
    }

    /// The fitness these games give.
    pub fn fitness(&self, f: Fitness) -> f64 {
        let ratio = |a: u64, b: u64| if b == 0 { 0.0 } else { a as f64 / b as f64 };
        match f {
            Fitness::FirstChain => ratio(self.first_big, self.games),
            Fitness::Score | Fitness::Battle => ratio(self.kept_score, self.asked),
        }
    }
}

/// Win rate of `a` over battle results (draws count half).
pub fn win_rate<'a>(results: impl Iterator<Item = &'a JobResult>) -> f64 {
    let (mut n, mut points) = (0u64, 0u64);
    for r in results {
        n += 1;
        points += (r.outcome + 1) as u64; // 2 a win, 1 a draw, 0 a loss
    }
    if n == 0 { 0.5 } else { points as f64 / (2 * n) as f64 }
}
