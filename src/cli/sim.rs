//! `puyobot sim endless|battle`: self-play statistics for the bots.
//!
//! Games run in parallel on a local rayon pool (`--jobs`); game `g` draws everything (pieces, bot seeds,
//! nuisance columns) from `sim::game_rng(seed, g)`, so figures do not depend on scheduling. Figures go to
//! stdout; progress goes to stderr only when stderr is a terminal.
//!
//! Think time: the mean, median and p95 per move are **wall time** around each decision, measured on the
//! thread that plays the game (run with `--jobs 1` on an idle machine for clean figures). The thread's CPU
//! time from Linux `/proc/thread-self/schedstat` is also summed over the run; on kernels that account it
//! per scheduler tick (4 ms here) it is only good as a mean over many moves, given as
//! `cpu_ms_per_move_mean`.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

use anyhow::{Context, bail};
use rand::RngCore;
use rayon::prelude::*;
use serde::Serialize;

use crate::ai::{AiConfig, Bot};
use crate::game::{Piece, Rules, text};
use crate::sim::{
    BattleTiming, Decision, PieceSource, Player, QueuePieces, RandomPieces, View, game_rng, play_battle, play_endless,
};

/// Arguments of `puyobot sim`.
#[derive(Debug, clap::Args)]
pub struct SimArgs {
    /// Which game to simulate.
    #[command(subcommand)]
    pub mode: SimMode,
}

/// The two self-play modes.
#[derive(Debug, clap::Subcommand)]
pub enum SimMode {
    /// 1P endless: one bot, N pairs per game.
    Endless(EndlessArgs),
    /// 2P battle: two bots on a shared piece sequence.
    Battle(BattleArgs),
}

/// Arguments of `puyobot sim endless`.
#[derive(Debug, clap::Args)]
pub struct EndlessArgs {
    /// Bot: classic, chain or random.
    #[arg(long, default_value = "chain")]
    pub ai: String,
    /// Pieces per game.
    #[arg(long, default_value_t = 100)]
    pub pieces: usize,
    /// Run seed; game g uses the stream game_rng(seed, g).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Colours of the random pairs (3..=6).
    #[arg(long, default_value_t = 4)]
    pub colors: u8,
    /// Play this queue file (one pair per line, e.g. RG; BIG / CAR for items) instead of random pairs.
    #[arg(long)]
    pub queue: Option<PathBuf>,
    /// Number of games.
    #[arg(long, default_value_t = 1)]
    pub games: usize,
    /// Games played in parallel.
    #[arg(long, default_value_t = 1)]
    pub jobs: usize,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
    /// Config file whose [ai] table sets weights, search and ignition.
    #[arg(long)]
    pub config: Option<PathBuf>,
}

/// Arguments of `puyobot sim battle`.
#[derive(Debug, clap::Args)]
pub struct BattleArgs {
    /// Player 1's bot.
    #[arg(long, default_value = "chain")]
    pub p1: String,
    /// Player 2's bot.
    #[arg(long, default_value = "classic")]
    pub p2: String,
    /// Number of games.
    #[arg(long, default_value_t = 10)]
    pub games: usize,
    /// Run seed.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Colours of the random pairs (3..=6).
    #[arg(long, default_value_t = 4)]
    pub colors: u8,
    /// Pieces per side before the game is called a draw.
    #[arg(long, default_value_t = 500)]
    pub max_pieces: usize,
    /// Games played in parallel.
    #[arg(long, default_value_t = 1)]
    pub jobs: usize,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
    /// Config file whose [ai] table sets weights, search and ignition.
    #[arg(long)]
    pub config: Option<PathBuf>,
}

/// Runs `puyobot sim`.
pub fn run(args: &SimArgs) -> anyhow::Result<()> {
    match &args.mode {
        SimMode::Endless(a) => run_endless(a),
        SimMode::Battle(a) => run_battle(a),
    }
}

fn load_config(path: &Option<PathBuf>) -> anyhow::Result<AiConfig> {
    match path {
        None => Ok(AiConfig::default()),
        Some(p) => {
            let text = std::fs::read_to_string(p).with_context(|| format!("cannot read config {}", p.display()))?;
            AiConfig::from_toml(&text).with_context(|| format!("in the [ai] table of {}", p.display()))
        }
    }
}

fn pool(jobs: usize) -> anyhow::Result<rayon::ThreadPool> {
    rayon::ThreadPoolBuilder::new().num_threads(jobs.max(1)).build().context("cannot build the thread pool")
}

/// CPU time of the calling thread in nanoseconds, from `/proc/thread-self/schedstat` (Linux).
pub fn thread_cpu_ns() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    s.split_whitespace().next()?.parse().ok()
}

/// A player wrapper that records the wall time of every decision and sums the thread CPU time.
struct Timed {
    bot: Bot,
    think_us: Vec<u64>,
    cpu_ns: Option<u64>,
}

impl Player for Timed {
    fn name(&self) -> &str {
        self.bot.name()
    }

    fn choose(&mut self, view: &View<'_>) -> Decision {
        let cpu0 = thread_cpu_ns();
        let wall0 = std::time::Instant::now();
        let d = self.bot.choose(view);
        self.think_us.push(wall0.elapsed().as_micros() as u64);
        self.cpu_ns = match (self.cpu_ns, cpu0, thread_cpu_ns()) {
            (Some(total), Some(a), Some(b)) => Some(total + b.saturating_sub(a)),
            _ => None,
        };
        d
    }
}

/// Progress on stderr, only when stderr is a terminal.
struct Progress {
    done: AtomicUsize,
    total: usize,
    show: bool,
}

impl Progress {
    fn new(total: usize) -> Progress {
        Progress { done: AtomicUsize::new(0), total, show: std::io::stderr().is_terminal() }
    }

    fn tick(&self) {
        let d = self.done.fetch_add(1, Ordering::Relaxed) + 1;
        if self.show {
            eprint!("\r{d}/{} games", self.total);
            if d == self.total {
                eprintln!();
            }
        }
    }
}

/// The per-game figures of an endless run.
#[derive(Clone, Debug, Serialize)]
pub struct EndlessGame {
    /// Game index.
    pub game: usize,
    /// Pieces placed.
    pub pairs: usize,
    /// Total score.
    pub score: u64,
    /// Score per placed piece.
    pub score_per_pair: f64,
    /// The first chain of 8+ links: (length, 1-based pair index).
    pub first_big_chain: Option<(u32, usize)>,
    /// The longest chain.
    pub largest_chain: u32,
    /// Chains fired by length (index = length).
    pub chain_histogram: Vec<u32>,
    /// Mean puyos on the field after each move.
    pub puyos_mean: f64,
    /// Most puyos on the field after a move.
    pub puyos_max: u32,
    /// Times the field was emptied.
    pub field_clears: u32,
    /// True when the game ended by topping out.
    pub topped_out: bool,
    /// Think time per move, microseconds (wall).
    #[serde(skip)]
    pub think_us: Vec<u64>,
    /// Thread CPU time over the game, nanoseconds, when the platform reports it.
    #[serde(skip)]
    pub cpu_ns: Option<u64>,
}

/// Length from which a chain counts as "big" for the first-big-chain figures.
pub const BIG_CHAIN: u32 = 8;

fn endless_game(
    g: usize,
    args: &EndlessArgs,
    config: &AiConfig,
    queue: &Option<Vec<Piece>>,
) -> anyhow::Result<EndlessGame> {
    let rules = Rules::puyo1();
    let mut rng = game_rng(args.seed, g as u64);
    let mut source: Box<dyn PieceSource> = match queue {
        Some(q) => Box::new(QueuePieces::new(q.clone()).context("empty queue")?),
        None => Box::new(RandomPieces::new(rng.next_u64(), args.colors)),
    };
    let mut player = Timed { bot: Bot::new(&args.ai, config, rng.next_u64())?, think_us: Vec::new(), cpu_ns: Some(0) };
    let rec = play_endless(&mut player, source.as_mut(), &rules, args.pieces);
    let pairs = rec.moves.len();
    let mut hist = vec![0u32; 1];
    let mut first_big = None;
    for (i, m) in rec.moves.iter().enumerate() {
        if m.chain > 0 {
            if hist.len() <= m.chain as usize {
                hist.resize(m.chain as usize + 1, 0);
            }
            hist[m.chain as usize] += 1;
        }
        if first_big.is_none() && m.chain >= BIG_CHAIN {
            first_big = Some((m.chain, i + 1));
        }
    }
    let puyos: Vec<u32> = rec.moves.iter().map(|m| m.puyos).collect();
    Ok(EndlessGame {
        game: g,
        pairs,
        score: rec.score,
        score_per_pair: if pairs == 0 { 0.0 } else { rec.score as f64 / pairs as f64 },
        first_big_chain: first_big,
        largest_chain: rec.moves.iter().map(|m| m.chain).max().unwrap_or(0),
        chain_histogram: hist,
        puyos_mean: if puyos.is_empty() { 0.0 } else { puyos.iter().sum::<u32>() as f64 / puyos.len() as f64 },
        puyos_max: puyos.iter().copied().max().unwrap_or(0),
        field_clears: rec.field_clears,
        topped_out: rec.topped_out,
        think_us: player.think_us,
        cpu_ns: player.cpu_ns,
    })
}

/// Mean, median and 95th percentile of think times, in milliseconds.
fn time_stats(us: &mut [u64]) -> (f64, f64, f64) {
    if us.is_empty() {
        return (0.0, 0.0, 0.0);
    }
    us.sort_unstable();
    let mean = us.iter().sum::<u64>() as f64 / us.len() as f64 / 1000.0;
    let median = us[us.len() / 2] as f64 / 1000.0;
    let p95 = us[((us.len() as f64 * 0.95) as usize).min(us.len() - 1)] as f64 / 1000.0;
    (mean, median, p95)
}

/// The overall figures of an endless run.
#[derive(Debug, Serialize)]
pub struct EndlessSummary {
    /// Bot name.
    pub ai: String,
    /// Run seed.
    pub seed: u64,
    /// Colours.
    pub colors: u8,
    /// Pieces per game asked for.
    pub pieces: usize,
    /// Games played.
    pub games: usize,
    /// Games that topped out.
    pub topouts: usize,
    /// Mean score per game.
    pub score_mean: f64,
    /// Mean score per pair.
    pub score_per_pair: f64,
    /// Fraction of games with a chain of 8+ links.
    pub first_big_chain_rate: f64,
    /// Mean length of the first 8+ chain, over games that have one.
    pub first_big_chain_mean: f64,
    /// Fraction of all games whose first 8+ chain has 12+ links.
    pub first_big_chain_ge12: f64,
    /// Mean pair index of the first 8+ chain, over games that have one.
    pub first_big_chain_pair_mean: f64,
    /// The longest chain of the run.
    pub largest_chain: u32,
    /// Mean of each game's longest chain.
    pub largest_chain_mean: f64,
    /// Chains fired by length over the run (index = length).
    pub chain_histogram: Vec<u32>,
    /// Mean puyos on the field.
    pub puyos_mean: f64,
    /// Most puyos on the field.
    pub puyos_max: u32,
    /// Field clears over the run.
    pub field_clears: u32,
    /// Think time per move, mean (ms).
    pub ms_per_move_mean: f64,
    /// Think time per move, median (ms).
    pub ms_per_move_median: f64,
    /// Think time per move, 95th percentile (ms).
    pub ms_per_move_p95: f64,
    /// How the per-move figures were measured (`wall`).
    pub think_clock: &'static str,
    /// Thread CPU time per move averaged over the run (ms), when the platform reports it.
    pub cpu_ms_per_move_mean: Option<f64>,
    /// Per-game figures.
    pub runs: Vec<EndlessGame>,
}

/// Summarises endless games.
pub fn summarise_endless(args: &EndlessArgs, mut runs: Vec<EndlessGame>) -> EndlessSummary {
    let n = runs.len().max(1) as f64;
    let big: Vec<(u32, usize)> = runs.iter().filter_map(|r| r.first_big_chain).collect();
    let mut hist: Vec<u32> = Vec::new();
    for r in &runs {
        if hist.len() < r.chain_histogram.len() {
            hist.resize(r.chain_histogram.len(), 0);
        }
        for (i, c) in r.chain_histogram.iter().enumerate() {
            hist[i] += c;
        }
    }
    let mut times: Vec<u64> = runs.iter_mut().flat_map(|r| std::mem::take(&mut r.think_us)).collect();
    let cpu: Option<u64> = runs.iter().map(|r| r.cpu_ns).sum();
    let (mean, median, p95) = time_stats(&mut times);
    let moves: usize = runs.iter().map(|r| r.pairs).sum();
    EndlessSummary {
        ai: args.ai.clone(),
        seed: args.seed,
        colors: args.colors,
        pieces: args.pieces,
        games: runs.len(),
        topouts: runs.iter().filter(|r| r.topped_out).count(),
        score_mean: runs.iter().map(|r| r.score as f64).sum::<f64>() / n,
        score_per_pair: runs.iter().map(|r| r.score as f64).sum::<f64>() / moves.max(1) as f64,
        first_big_chain_rate: big.len() as f64 / n,
        first_big_chain_mean: if big.is_empty() {
            0.0
        } else {
            big.iter().map(|b| b.0 as f64).sum::<f64>() / big.len() as f64
        },
        first_big_chain_ge12: big.iter().filter(|b| b.0 >= 12).count() as f64 / n,
        first_big_chain_pair_mean: if big.is_empty() {
            0.0
        } else {
            big.iter().map(|b| b.1 as f64).sum::<f64>() / big.len() as f64
        },
        largest_chain: runs.iter().map(|r| r.largest_chain).max().unwrap_or(0),
        largest_chain_mean: runs.iter().map(|r| r.largest_chain as f64).sum::<f64>() / n,
        chain_histogram: hist,
        puyos_mean: runs.iter().map(|r| r.puyos_mean * r.pairs as f64).sum::<f64>() / moves.max(1) as f64,
        puyos_max: runs.iter().map(|r| r.puyos_max).max().unwrap_or(0),
        field_clears: runs.iter().map(|r| r.field_clears).sum(),
        ms_per_move_mean: mean,
        ms_per_move_median: median,
        ms_per_move_p95: p95,
        think_clock: "wall",
        cpu_ms_per_move_mean: cpu.map(|ns| ns as f64 / 1e6 / times.len().max(1) as f64),
        runs,
    }
}

fn run_endless(args: &EndlessArgs) -> anyhow::Result<()> {
    if args.games == 0 {
        bail!("--games must be at least 1");
    }
    let config = load_config(&args.config)?;
    // Fail early on a bad bot name or weights.
    Bot::new(&args.ai, &config, 0)?;
    let queue = match &args.queue {
        None => None,
        Some(p) => {
            let t = std::fs::read_to_string(p).with_context(|| format!("cannot read queue {}", p.display()))?;
            Some(text::parse_queue(&t).with_context(|| format!("in queue {}", p.display()))?)
        }
    };
    let progress = Progress::new(args.games);
    let runs: Vec<EndlessGame> = pool(args.jobs)?.install(|| {
        (0..args.games)
            .into_par_iter()
            .map(|g| {
                let r = endless_game(g, args, &config, &queue);
                progress.tick();
                r
            })
            .collect::<anyhow::Result<Vec<_>>>()
    })?;
    let s = summarise_endless(args, runs);
    if args.json {
        println!("{}", serde_json::to_string(&s)?);
        return Ok(());
    }
    for r in &s.runs {
        let big = r.first_big_chain.map_or("-".to_string(), |(c, i)| format!("{c} at pair {i}"));
        println!(
            "game {:>4}: score {:>9} ({:>8.1}/pair)  first 8+: {:<16} largest {:>2}  puyos mean {:>4.1} max {:>2}  clears {}{}",
            r.game,
            r.score,
            r.score_per_pair,
            big,
            r.largest_chain,
            r.puyos_mean,
            r.puyos_max,
            r.field_clears,
            if r.topped_out { "  TOPPED OUT" } else { "" }
        );
    }
    println!("ai {}  seed {}  colours {}  pieces {}  games {}", s.ai, s.seed, s.colors, s.pieces, s.games);
    println!("top-outs: {}", s.topouts);
    println!("score: mean {:.0}, per pair {:.1}", s.score_mean, s.score_per_pair);
    println!(
        "first chain of {BIG_CHAIN}+: in {:.1}% of games, mean length {:.2}, 12+ in {:.1}% of games, mean pair {:.1}",
        100.0 * s.first_big_chain_rate,
        s.first_big_chain_mean,
        100.0 * s.first_big_chain_ge12,
        s.first_big_chain_pair_mean
    );
    println!("largest chain: {} (mean per game {:.2})", s.largest_chain, s.largest_chain_mean);
    let hist: Vec<String> = s
        .chain_histogram
        .iter()
        .enumerate()
        .skip(1)
        .filter(|(_, c)| **c > 0)
        .map(|(i, c)| format!("{i}:{c}"))
        .collect();
    println!("chains by length: {}", hist.join(" "));
    println!("puyos on field: mean {:.1}, max {}", s.puyos_mean, s.puyos_max);
    println!("field clears: {}", s.field_clears);
    println!(
        "think time per move ({}): mean {:.3} ms, median {:.3} ms, p95 {:.3} ms; thread CPU mean {}",
        s.think_clock,
        s.ms_per_move_mean,
        s.ms_per_move_median,
        s.ms_per_move_p95,
        s.cpu_ms_per_move_mean.map_or("n/a".to_string(), |m| format!("{m:.3} ms"))
    );
    Ok(())
}

/// One battle's figures.
#[derive(Clone, Debug, Serialize)]
pub struct BattleGame {
    /// Game index.
    pub game: usize,
    /// 1 or 2 for the winner, 0 for a draw.
    pub winner: u8,
    /// Frames played.
    pub frames: u64,
    /// Pieces placed by each side.
    pub pieces: [u32; 2],
    /// Longest chain of each side.
    pub largest_chain: [u32; 2],
    /// Nuisance sent by each side.
    pub nuisance_sent: [u32; 2],
}

/// The overall figures of a battle run.
#[derive(Debug, Serialize)]
pub struct BattleSummary {
    /// Player 1's bot.
    pub p1: String,
    /// Player 2's bot.
    pub p2: String,
    /// Run seed.
    pub seed: u64,
    /// Games played.
    pub games: usize,
    /// Wins of player 1.
    pub p1_wins: usize,
    /// Wins of player 2.
    pub p2_wins: usize,
    /// Draws.
    pub draws: usize,
    /// Player 1's win rate with a 95% Wilson interval (low, high).
    pub p1_win_rate: (f64, f64, f64),
    /// Player 2's win rate with a 95% Wilson interval.
    pub p2_win_rate: (f64, f64, f64),
    /// Mean pieces per side per game.
    pub mean_pieces: f64,
    /// Mean frames per game.
    pub mean_frames: f64,
    /// Longest chain of each side over the run.
    pub largest_chain: [u32; 2],
    /// Mean of each side's per-game longest chain.
    pub largest_chain_mean: [f64; 2],
    /// Per-game figures.
    pub runs: Vec<BattleGame>,
}

/// Wilson score interval at 95% for `k` successes in `n` trials: (rate, low, high).
pub fn wilson(k: usize, n: usize) -> (f64, f64, f64) {
    if n == 0 {
        return (0.0, 0.0, 1.0);
    }
    let (k, n) = (k as f64, n as f64);
    let z = 1.96f64;
    let p = k / n;
    let d = 1.0 + z * z / n;
    let c = (p + z * z / (2.0 * n)) / d;
    let h = z * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt() / d;
    (p, (c - h).max(0.0), (c + h).min(1.0))
}

fn battle_game(g: usize, args: &BattleArgs, config: &AiConfig) -> anyhow::Result<BattleGame> {
    let rules = Rules::puyo1();
    let mut rng = game_rng(args.seed, g as u64);
    let mut source = RandomPieces::new(rng.next_u64(), args.colors);
    let mut p1 = Bot::new(&args.p1, config, rng.next_u64())?;
    let mut p2 = Bot::new(&args.p2, config, rng.next_u64())?;
    let rec = play_battle([&mut p1, &mut p2], &mut source, &rules, &BattleTiming::default(), args.max_pieces, &mut rng);
    Ok(BattleGame {
        game: g,
        winner: rec.winner.map_or(0, |w| w as u8 + 1),
        frames: rec.frames,
        pieces: [rec.sides[0].pieces, rec.sides[1].pieces],
        largest_chain: [rec.sides[0].largest_chain(), rec.sides[1].largest_chain()],
        nuisance_sent: [rec.sides[0].nuisance_sent, rec.sides[1].nuisance_sent],
    })
}

fn run_battle(args: &BattleArgs) -> anyhow::Result<()> {
    if args.games == 0 {
        bail!("--games must be at least 1");
    }
    let config = load_config(&args.config)?;
    Bot::new(&args.p1, &config, 0)?;
    Bot::new(&args.p2, &config, 0)?;
    let progress = Progress::new(args.games);
    let runs: Vec<BattleGame> = pool(args.jobs)?.install(|| {
        (0..args.games)
            .into_par_iter()
            .map(|g| {
                let r = battle_game(g, args, &config);
                progress.tick();
                r
            })
            .collect::<anyhow::Result<Vec<_>>>()
    })?;
    let n = runs.len();
    let p1_wins = runs.iter().filter(|r| r.winner == 1).count();
    let p2_wins = runs.iter().filter(|r| r.winner == 2).count();
    let nf = n.max(1) as f64;
    let s = BattleSummary {
        p1: args.p1.clone(),
        p2: args.p2.clone(),
        seed: args.seed,
        games: n,
        p1_wins,
        p2_wins,
        draws: n - p1_wins - p2_wins,
        p1_win_rate: wilson(p1_wins, n),
        p2_win_rate: wilson(p2_wins, n),
        mean_pieces: runs.iter().map(|r| (r.pieces[0] + r.pieces[1]) as f64 / 2.0).sum::<f64>() / nf,
        mean_frames: runs.iter().map(|r| r.frames as f64).sum::<f64>() / nf,
        largest_chain: [
            runs.iter().map(|r| r.largest_chain[0]).max().unwrap_or(0),
            runs.iter().map(|r| r.largest_chain[1]).max().unwrap_or(0),
        ],
        largest_chain_mean: [
            runs.iter().map(|r| r.largest_chain[0] as f64).sum::<f64>() / nf,
            runs.iter().map(|r| r.largest_chain[1] as f64).sum::<f64>() / nf,
        ],
        runs,
    };
    if args.json {
        println!("{}", serde_json::to_string(&s)?);
        return Ok(());
    }
    println!("p1 {} vs p2 {}  seed {}  games {}", s.p1, s.p2, s.seed, s.games);
    for (name, wins, (p, lo, hi)) in [(&s.p1, s.p1_wins, s.p1_win_rate), (&s.p2, s.p2_wins, s.p2_win_rate)] {
        println!("{name}: {wins} wins ({:.1}%, 95% CI {:.1}–{:.1}%)", 100.0 * p, 100.0 * lo, 100.0 * hi);
    }
    println!("draws: {}", s.draws);
    println!("mean game length: {:.1} pieces per side, {:.0} frames", s.mean_pieces, s.mean_frames);
    println!(
        "largest chain: p1 {} (mean {:.2}), p2 {} (mean {:.2})",
        s.largest_chain[0], s.largest_chain_mean[0], s.largest_chain[1], s.largest_chain_mean[1]
    );
    Ok(())
}
