//! Running generations and keeping their files: the checkpoint (written after every generation, so a
//! stopped run resumes where it was), the per-generation CSV, the trained `[ai.<name>]` snippet, and the
//! shard files through which a batch scheduler evaluates a generation on many machines.
//!
//! A run directory holds:
//! - `checkpoint.json`: the whole [`State`];
//! - `history.csv`: `generation,fitness,<parameter>…`, one row per generation;
//! - `weights.toml`: the current best weights as an `[ai.<name>]` table;
//! - `gen-GGGGG-shard-I-of-N.json`: one slice of a generation's results (distributed runs only).

use std::path::{Path, PathBuf};

use anyhow::{Context, anyhow, bail};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::jobs::{EndlessSums, Job, JobContext, JobResult, run_job, win_rate};
use super::method::{Settings, State};
use super::params::ParamSpace;
use crate::ai::AiConfig;
use crate::sim::Shard;

/// The checkpoint file of a run directory.
pub fn checkpoint_path(dir: &Path) -> PathBuf {
    dir.join("checkpoint.json")
}

/// The state saved in `dir`, or a fresh one; a saved state must have been made with `settings`.
pub fn load_or_init(dir: &Path, settings: Settings, space: &ParamSpace) -> anyhow::Result<State> {
    let path = checkpoint_path(dir);
    if !path.exists() {
        return State::new(settings, space.start()).map_err(|e| anyhow!(e));
    }
    let text = std::fs::read_to_string(&path).with_context(|| format!("cannot read {}", path.display()))?;
    let state: State =
        serde_json::from_str(&text).with_context(|| format!("{} is not a training checkpoint", path.display()))?;
    if state.settings != settings {
        let a = serde_json::to_value(&state.settings)?;
        let b = serde_json::to_value(&settings)?;
        let differ: Vec<String> = a
            .as_object()
            .into_iter()
            .flatten()
            .filter(|(k, v)| b.get(k.as_str()) != Some(v))
            .map(|(k, v)| {
                format!("{k} (checkpoint {v}, now {})", b.get(k.as_str()).unwrap_or(&serde_json::Value::Null))
            })
            .collect();
        bail!(
            "{} was made with other settings: {}; use another --out or the same options",
            path.display(),
            differ.join(", ")
        );
    }
    Ok(state)
}

/// Writes `text` to `path` through a temporary file, so a run killed mid-write leaves the old file whole
/// (or none). The temporary name carries the process id: on a shared directory a re-queued batch task
/// may write the same shard while the first attempt is still finishing.
fn write_atomic(path: &Path, text: &str) -> anyhow::Result<()> {
    let tmp = path.with_extension(format!("{}.tmp", std::process::id()));
    std::fs::write(&tmp, text).with_context(|| format!("cannot write {}", tmp.display()))?;
    std::fs::rename(&tmp, path).with_context(|| format!("cannot replace {}", path.display()))
}

/// The per-generation CSV.
pub fn history_csv(state: &State, space: &ParamSpace) -> String {
    let mut out = format!("generation,fitness,{}\n", space.names().join(","));
    for r in &state.history {
        let w: Vec<String> = r.weights.iter().map(|x| x.to_string()).collect();
        out += &format!("{},{},{}\n", r.generation, r.fitness, w.join(","));
    }
    out
}

/// Writes the checkpoint, the CSV and the weights snippet of `state` into `dir`.
pub fn save(dir: &Path, state: &State, space: &ParamSpace) -> anyhow::Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    write_atomic(&checkpoint_path(dir), &serde_json::to_string_pretty(state)?)?;
    write_atomic(&dir.join("history.csv"), &history_csv(state, space))?;
    let snippet = space.snippet(state.best()).map_err(|e| anyhow!(e))?;
    let head = format!(
        "# Trained by `puyobot train`: method {}, fitness {}, seed {}, {} generations.\n",
        name_of(state.settings.method),
        name_of(state.settings.fitness),
        state.settings.seed,
        state.generation
    );
    write_atomic(&dir.join("weights.toml"), &(head + &snippet))
}

/// The name a setting has on the command line (`spsa`, `first-chain`), for files people read.
pub fn name_of(v: impl clap::ValueEnum) -> String {
    v.to_possible_value().map_or_else(String::new, |p| p.get_name().to_string())
}

fn context<'a>(s: &'a Settings, seed: u64) -> JobContext<'a> {
    JobContext { eval: &s.eval, pieces: s.pieces, colors: s.colors, max_pieces: s.max_pieces, seed }
}

fn configs(space: &ParamSpace, candidates: &[Vec<f64>]) -> anyhow::Result<Vec<AiConfig>> {
    candidates.iter().map(|w| space.config(w).map_err(|e| anyhow!(e))).collect()
}

/// Plays shard `shard` of the next generation's jobs on the current rayon pool, calling `tick` after
/// each job.
pub fn eval_shard(
    state: &State,
    space: &ParamSpace,
    shard: Shard,
    tick: &(dyn Fn() + Sync),
) -> anyhow::Result<Vec<JobResult>> {
    let plan = state.plan();
    let configs = configs(space, &plan.candidates)?;
    let ctx = context(&state.settings, plan.seed);
    let mine: Vec<(usize, Job)> = plan.jobs.iter().copied().enumerate().filter(|(i, _)| shard.selects(*i)).collect();
    mine.par_iter()
        .map(|&(i, job)| {
            if crate::interrupt::requested() {
                // The generation cannot be completed: the caller keeps the last saved one.
                return Err(anyhow!("interrupted"));
            }
            let r = run_job(&ctx, &configs, i, job);
            tick();
            r
        })
        .collect()
}

/// Jobs in the next generation.
pub fn jobs_per_generation(state: &State) -> usize {
    state.plan().jobs.len()
}

/// The next state from the next generation's results.
pub fn advance(state: &State, results: &[JobResult]) -> anyhow::Result<State> {
    state.advance(state.plan(), results).map_err(|e| anyhow!("generation {}: {e}", state.generation))
}

/// One shard's results as written to disk.
#[derive(Debug, Serialize, Deserialize)]
struct ShardFile {
    generation: usize,
    shard: Shard,
    settings: Settings,
    results: Vec<JobResult>,
}

/// The file shard `shard` of generation `generation` writes.
pub fn shard_path(dir: &Path, generation: usize, shard: Shard) -> PathBuf {
    dir.join(format!("gen-{generation:05}-shard-{}-of-{}.json", shard.index, shard.count))
}

/// Writes a shard's results for the next generation of `state`.
pub fn write_shard(dir: &Path, state: &State, shard: Shard, results: Vec<JobResult>) -> anyhow::Result<PathBuf> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let path = shard_path(dir, state.generation, shard);
    let f = ShardFile { generation: state.generation, shard, settings: state.settings.clone(), results };
    write_atomic(&path, &serde_json::to_string(&f)?)?;
    Ok(path)
}

/// Reads one shard file; `None` when it is missing, unreadable or not a shard of the next generation of
/// `state` (such a file is played again and replaced).
fn read_shard_file(path: &Path, state: &State) -> Option<ShardFile> {
    let text = std::fs::read_to_string(path).ok()?;
    let f: ShardFile = serde_json::from_str(&text).ok()?;
    (f.generation == state.generation && f.settings == state.settings).then_some(f)
}

/// True when shard `shard` of the next generation of `state` is already written in `dir`: a batch task
/// that runs again after a failure or cancellation of its array job skips it.
pub fn shard_written(dir: &Path, state: &State, shard: Shard) -> bool {
    read_shard_file(&shard_path(dir, state.generation, shard), state).is_some_and(|f| f.shard == shard)
}

/// Reads every shard file of the next generation of `state` and returns their results; all shards of
/// one split must be there, and the error names every missing one.
pub fn read_shards(dir: &Path, state: &State) -> anyhow::Result<Vec<JobResult>> {
    let prefix = format!("gen-{:05}-shard-", state.generation);
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("cannot list {}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.starts_with(&prefix) && n.ends_with(".json"))
        })
        .collect();
    files.sort();
    if files.is_empty() {
        bail!(
            "generation {} cannot advance: no shard files {prefix}*.json in {}; play every slice with --shard I/N first",
            state.generation,
            dir.display()
        );
    }
    let mut results = Vec::new();
    let mut count = None;
    let mut seen = Vec::new();
    for p in &files {
        let text = std::fs::read_to_string(p).with_context(|| format!("cannot read {}", p.display()))?;
        let f: ShardFile =
            serde_json::from_str(&text).with_context(|| format!("{} is not a shard file", p.display()))?;
        if f.generation != state.generation || f.settings != state.settings {
            bail!("{} belongs to another run or generation", p.display());
        }
        if *count.get_or_insert(f.shard.count) != f.shard.count {
            bail!("{} is from a split in {}, the others in {}", p.display(), f.shard.count, count.unwrap_or(0));
        }
        seen.push(f.shard.index);
        results.extend(f.results);
    }
    let n = count.unwrap_or(1);
    let missing: Vec<String> = (0..n).filter(|i| !seen.contains(i)).map(|i| format!("{i}/{n}")).collect();
    if !missing.is_empty() {
        bail!(
            "generation {} cannot advance: missing {} {} in {} (play each with --shard I/{n})",
            state.generation,
            if missing.len() == 1 { "shard" } else { "shards" },
            missing.join(", "),
            dir.display()
        );
    }
    Ok(results)
}

/// Fitness of the configured (`before`) and trained (`after`) weights on `games` fresh games from
/// `seed`. Endless fitness: each on the same pieces. Battle fitness: `after` against `before`, so the
/// pair is (1 − rate, rate).
pub fn before_after(
    settings: &Settings,
    space: &ParamSpace,
    before: &[f64],
    after: &[f64],
    seed: u64,
    games: usize,
) -> anyhow::Result<(f64, f64)> {
    let configs = configs(space, &[before.to_vec(), after.to_vec()])?;
    let ctx = context(settings, seed);
    let jobs: Vec<Job> = (0..games as u64)
        .flat_map(|game| {
            if settings.fitness.is_battle() {
                vec![Job::Battle { a: 1, b: 0, game }]
            } else {
                vec![Job::Endless { cand: 0, game }, Job::Endless { cand: 1, game }]
            }
        })
        .collect();
    let results: Vec<JobResult> =
        jobs.par_iter().enumerate().map(|(i, &j)| run_job(&ctx, &configs, i, j)).collect::<anyhow::Result<_>>()?;
    if settings.fitness.is_battle() {
        let r = win_rate(results.iter());
        return Ok((1.0 - r, r));
    }
    let mut sums = [EndlessSums::default(), EndlessSums::default()];
    for (j, r) in jobs.iter().zip(&results) {
        if let Job::Endless { cand, .. } = j {
            sums[*cand].add(r);
        }
    }
    Ok((sums[0].fitness(settings.fitness), sums[1].fitness(settings.fitness)))
}
