//! `puyobot train`: tunes an evaluation's `[ai.<name>]` weights by self-play (see [`crate::train`]).
//!
//! Without `--shard`/`--advance` it runs generations locally until `--generations` are done, saving the
//! run directory after each, so running the same command again resumes. For a batch scheduler, each task
//! runs `--shard I/N` (one slice of the next generation, written to a shard file; a slice already written
//! is skipped, so a failed array job is simply submitted again) and one `--advance` afterwards merges the
//! slices and moves the run on by one generation (naming every slice still missing); the result is the
//! same as a local run's.

use std::path::{Path, PathBuf};

use anyhow::{Context, anyhow};
use indicatif::ProgressBar;

use super::args::{MaxPiecesArg, SelfPlayArgs, in_order, worded};
use crate::sim::Shard;
use crate::train::run::{self, before_after, name_of};
use crate::train::{Fitness, Method, ParamSpace, Settings, State};

/// Arguments of `puyobot train`.
#[derive(Debug, clap::Args)]
#[command(mut_args(in_order(TRAIN_ORDER)), mut_args(worded(TRAIN_TEXTS)))]
pub struct TrainArgs {
    /// Method: the original Famicom bot's tournament, or SPSA.
    #[arg(long, value_enum, default_value = "spsa")]
    pub method: Method,
    /// Evaluation whose [ai.<name>] weights are trained (classic, chain).
    #[arg(long, default_value = "classic")]
    pub ai: String,
    /// Fitness: endless first-big-chain length, endless score per pair (0 for a top-out), or battle win rate.
    #[arg(long, value_enum, default_value = "score")]
    pub fitness: Fitness,
    /// Total generations of the run (a resumed run continues up to this).
    #[arg(long, default_value_t = 20)]
    pub generations: usize,
    /// Games per candidate (endless) or per pairing (battle) in a generation.
    #[arg(long, default_value_t = 20)]
    pub games: usize,
    /// Pieces per endless game.
    #[arg(long, default_value_t = 100)]
    pub pieces: usize,
    /// `--max-pieces`.
    #[command(flatten)]
    pub max_pieces: MaxPiecesArg,
    /// Tournament: population size.
    #[arg(long, default_value_t = 8)]
    pub population: usize,
    /// Tournament: initial spread of the population around the configured weights (fraction).
    #[arg(long, default_value_t = 0.2)]
    pub spread: f64,
    /// SPSA: step gain a.
    #[arg(long, default_value_t = 0.2)]
    pub spsa_a: f64,
    /// SPSA: perturbation size c (fraction of each weight).
    #[arg(long, default_value_t = 0.1)]
    pub spsa_c: f64,
    /// SPSA: stability constant A of the step schedule.
    #[arg(long, default_value_t = 5.0)]
    pub spsa_stability: f64,
    /// Train only these float parameters of [ai.<name>] (comma-separated; default all).
    #[arg(long, value_delimiter = ',')]
    pub params: Vec<String>,
    /// The seed, colours, parallelism and AI profile.
    #[command(flatten)]
    pub run: SelfPlayArgs,
    /// Run directory: checkpoint.json, history.csv, weights.toml, progress.svg.
    #[arg(long)]
    pub out: PathBuf,
    /// Only play slice I of N of the next generation and write it to a shard file.
    #[arg(long, value_name = "I/N", conflicts_with = "advance")]
    pub shard: Option<Shard>,
    /// Only merge the next generation's shard files and advance the run by one generation.
    #[arg(long)]
    pub advance: bool,
    /// After the run, compare the starting and trained weights on this many fresh games (0 = skip).
    #[arg(long, default_value_t = 0)]
    pub eval_games: usize,
}

/// The order `train --help` lists the flags in.
const TRAIN_ORDER: &[&str] = &[
    "method",
    "ai",
    "fitness",
    "generations",
    "games",
    "pieces",
    "colors",
    "max_pieces",
    "population",
    "spread",
    "spsa_a",
    "spsa_c",
    "spsa_stability",
    "params",
    "seed",
    "jobs",
    "out",
    "profile",
    "shard",
    "advance",
    "eval_games",
];

/// `train`'s own words for shared flags.
const TRAIN_TEXTS: &[(&str, &str)] = &[
    ("max_pieces", "Pieces per side before a battle is a draw"),
    (
        "profile",
        "AI profile that gives the starting weights and everything else: a name (full, two-ply) or a profile \
         file of [ai.*] tables",
    ),
];

fn settings(a: &TrainArgs, space: &ParamSpace, crc: u32) -> Settings {
    Settings {
        method: a.method,
        eval: a.ai.clone(),
        fitness: a.fitness,
        seed: a.run.seed(),
        games: a.games,
        pieces: a.pieces,
        colors: a.run.colors.clamp(3, 6),
        max_pieces: a.max_pieces.max_pieces,
        population: a.population,
        spread: a.spread,
        spsa_a: a.spsa_a,
        spsa_c: a.spsa_c,
        spsa_stability: a.spsa_stability,
        params: space.names().to_vec(),
        config_crc: crc,
    }
}

/// Runs `puyobot train`.
pub fn run(a: &TrainArgs) -> anyhow::Result<()> {
    super::output::check_dir("--out", &a.out)?;
    crate::interrupt::install();
    let config = a.run.load_profile()?;
    crate::ai::Bot::new(&a.ai, &config, 0)?;
    let space = ParamSpace::new(&config, &a.ai, &a.params).map_err(|e| anyhow!(e))?;
    let crc = crc32fast::hash(serde_json::to_string(&config).context("cannot serialise the configuration")?.as_bytes());
    let mut state = run::load_or_init(&a.out, settings(a, &space, crc), &space)?;
    let pool = crate::sim::runner::pool(a.run.jobs)?;
    if let Some(shard) = a.shard {
        if run::shard_written(&a.out, &state, shard) {
            // A batch task run again (its array job failed or was cancelled) redoes only unfinished slices.
            let path = run::shard_path(&a.out, state.generation, shard);
            eprintln!("generation {}: shard {shard} already written to {}; skipped", state.generation, path.display());
            return Ok(());
        }
        let results = match pool.install(|| run::eval_shard(&state, &space, shard, &|| {})) {
            Err(_) if crate::interrupt::requested() => {
                eprintln!("interrupted: shard {shard} of generation {} not written", state.generation);
                return Ok(());
            }
            r => r?,
        };
        let path = run::write_shard(&a.out, &state, shard, results)?;
        eprintln!("generation {}: shard {shard} written to {}", state.generation, path.display());
        return Ok(());
    }
    if a.advance {
        let results = run::read_shards(&a.out, &state)?;
        state = run::advance(&state, &results)?;
        finish_generation(&a.out, &state, &space)?;
        return Ok(());
    }
    let per_gen = run::jobs_per_generation(&state) as u64;
    let left = a.generations.saturating_sub(state.generation) as u64;
    let bar = progress_bar(per_gen * left);
    while state.generation < a.generations && !crate::interrupt::requested() {
        bar.set_message(format!("generation {}/{}{}", state.generation + 1, a.generations, best_note(&state)));
        let results = match pool.install(|| run::eval_shard(&state, &space, Shard::WHOLE, &|| bar.inc(1))) {
            Err(_) if crate::interrupt::requested() => break,
            r => r?,
        };
        state = run::advance(&state, &results)?;
        finish_generation(&a.out, &state, &space)?;
    }
    bar.finish_and_clear();
    if crate::interrupt::requested() {
        // Every finished generation is saved when it ends; the one under way is played again on resume.
        eprintln!(
            "interrupted: {} holds generation {} of {}; the same command resumes",
            a.out.display(),
            state.generation,
            a.generations
        );
        return Ok(());
    }
    if let Some(r) = state.history.last() {
        println!("generation {}: fitness {:.4}", r.generation, r.fitness);
    }
    println!("{}", space.snippet(state.best()).map_err(|e| anyhow!(e))?);
    if a.eval_games > 0 {
        // A seed the training never drew its games from.
        let seed = a.run.seed().wrapping_add(0x0E0A_1000_0000);
        let (b, t) =
            pool.install(|| before_after(&state.settings, &space, space.start(), state.best(), seed, a.eval_games))?;
        let what = if a.fitness.is_battle() { "win rate against each other" } else { "fitness" };
        println!("# {what} on {} fresh games: before {b:.4}, after {t:.4}", a.eval_games);
    }
    Ok(())
}

fn best_note(state: &State) -> String {
    state.history.iter().map(|r| r.fitness).reduce(f64::max).map_or(String::new(), |f| format!(", best fitness {f:.3}"))
}

fn progress_bar(len: u64) -> ProgressBar {
    super::output::progress_bar(len, "{bar:30} {pos}/{len} games  eta {eta}  {msg}")
}

/// Saves the run directory and redraws the plot (a plot that fails is only a warning).
fn finish_generation(dir: &Path, state: &State, space: &ParamSpace) -> anyhow::Result<()> {
    run::save(dir, state, space)?;
    let fitness: Vec<(f64, f64)> = state.history.iter().map(|r| (r.generation as f64, r.fitness)).collect();
    let weights: Vec<Vec<(f64, f64)>> = (0..space.names().len())
        .map(|i| {
            state.history.iter().map(|r| (r.generation as f64, r.weights.get(i).copied().unwrap_or(0.0))).collect()
        })
        .collect();
    let title = format!(
        "{} {} on {}, seed {}: fitness per generation",
        state.settings.eval,
        name_of(state.settings.method),
        name_of(state.settings.fitness),
        state.settings.seed
    );
    if let Err(e) = super::plot::training(&dir.join("progress.svg"), &title, &fitness, space.names(), &weights) {
        log::warn!("{e:#}");
    }
    Ok(())
}
