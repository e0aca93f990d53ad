//! The search: every reachable placement of the current piece, then of the next piece on each resulting
//! field (chains resolved in between), leaves scored by an evaluation; optionally a third ply averaged over
//! a few sampled unseen pairs. Deterministic for a given seed; single-threaded unless asked otherwise.

use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::eval::Evaluation;
use super::movegen::{self, InputPath, MoveRules, PiecePosition};
use crate::game::{ChainSummary, Color, Field, Pair, Piece, Placement, Rules};

/// Value of a line that tops out (lower when it tops out sooner).
pub const DEATH: f64 = -1.0e12;

/// How the search runs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SearchOptions {
    /// Known pieces searched: 1 (current only) or 2 (current and next).
    pub depth: u32,
    /// Sampled unseen pairs for an extra, averaged ply (0 = none).
    pub samples: u32,
    /// Colours the unseen pairs are drawn from.
    pub colors: u8,
    /// Worker threads for the first ply (1 = the calling thread only).
    pub threads: usize,
    /// Movement rules for the move generator.
    pub moves: MoveRules,
}

impl Default for SearchOptions {
    fn default() -> Self {
        SearchOptions { depth: 2, samples: 0, colors: 4, threads: 1, moves: MoveRules::default() }
    }
}

/// One placement of the current piece with what the search found behind it.
#[derive(Clone, Debug)]
pub struct Candidate {
    /// Where the current piece locks.
    pub placement: Placement,
    /// Inputs to press before dropping.
    pub path: InputPath,
    /// Value of the best line through this placement.
    pub value: f64,
    /// The chain this placement fires now.
    pub chain: ChainSummary,
    /// The field after the placement resolves.
    pub field: Field,
}

/// The outcome of a search.
#[derive(Clone, Debug)]
pub struct SearchResult {
    /// Every reachable placement of the current piece, in move-generation order.
    pub candidates: Vec<Candidate>,
    /// Index of the highest-valued candidate (the first one on ties).
    pub best: usize,
}

impl SearchResult {
    /// The highest-valued candidate.
    pub fn best(&self) -> &Candidate {
        &self.candidates[self.best]
    }
}

/// The inputs of one search.
#[derive(Clone, Copy, Debug)]
pub struct SearchInput<'a> {
    /// The field (settled).
    pub field: &'a Field,
    /// The piece to place now.
    pub current: Piece,
    /// The piece after it, if known.
    pub next: Option<Piece>,
    /// Where the current piece is (the spawn position when planning at spawn).
    pub start: PiecePosition,
    /// The rules.
    pub rules: &'a Rules,
}

/// Plays `piece` at `placement`, returning the new field and chain, or `None` when the placement is invalid.
#[inline]
fn play(field: &Field, piece: Piece, placement: Placement, rules: &Rules) -> Option<(Field, ChainSummary)> {
    let mut f = *field;
    let s = f.play(piece, placement, rules).ok()?;
    Some((f, s))
}

/// Best value over all placements of `piece` on `field` (spawn start), the deeper plies behind it included.
fn best_reply(
    field: &Field,
    pieces: &[Piece],
    samples: &[Piece],
    waste: u32,
    eval: &Evaluation,
    rules: &Rules,
    opts: &SearchOptions,
) -> f64 {
    let Some((&piece, rest)) = pieces.split_first() else {
        return leaf(field, samples, waste, eval, rules, opts);
    };
    let spawn = PiecePosition::spawn(rules);
    let moves = movegen::placements(field, piece, spawn, &opts.moves);
    let mut best = DEATH;
    for &p in moves.as_slice() {
        let Some((f, s)) = play(field, piece, p, rules) else { continue };
        let v = if f.is_game_over(rules) {
            DEATH * 0.5
        } else {
            best_reply(&f, rest, samples, waste + s.cleared, eval, rules, opts)
        };
        if v > best {
            best = v;
        }
    }
    best
}

/// The value of a leaf: its evaluation, or with samples the mean over sampled pairs of the best reply.
fn leaf(field: &Field, samples: &[Piece], waste: u32, eval: &Evaluation, rules: &Rules, opts: &SearchOptions) -> f64 {
    if samples.is_empty() {
        return eval.evaluate(field, waste, rules);
    }
    let spawn = PiecePosition::spawn(rules);
    let mut total = 0.0;
    for &piece in samples {
        let moves = movegen::placements(field, piece, spawn, &opts.moves);
        let mut best = DEATH * 0.25;
        for &p in moves.as_slice() {
            let Some((f, s)) = play(field, piece, p, rules) else { continue };
            if f.is_game_over(rules) {
                continue;
            }
            let v = eval.evaluate(&f, waste + s.cleared, rules);
            if v > best {
                best = v;
            }
        }
        total += best;
    }
    total / samples.len() as f64
}

/// Draws `n` unseen pairs from `colors` colours, deterministically from `seed`.
pub fn sample_pairs(n: u32, colors: u8, seed: u64) -> Vec<Piece> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let k = colors.clamp(1, 6) as usize;
    (0..n)
        .map(|_| {
            let a = Color::ALL[rng.random_range(0..k)];
            let b = Color::ALL[rng.random_range(0..k)];
            Piece::Pair(Pair::new(a, b))
        })
        .collect()
}

/// Searches the placements of `input.current`; `seed` fixes the sampled pairs. `None` when the piece has
/// no reachable placement at all.
pub fn search(input: &SearchInput<'_>, eval: &Evaluation, opts: &SearchOptions, seed: u64) -> Option<SearchResult> {
    let rules = input.rules;
    let moves = movegen::generate(input.field, input.current, input.start, &opts.moves);
    if moves.is_empty() {
        return None;
    }
    let samples = if opts.samples > 0 { sample_pairs(opts.samples, opts.colors, seed) } else { Vec::new() };
    let deeper: Vec<Piece> = match input.next {
        Some(n) if opts.depth >= 2 => vec![n],
        _ => Vec::new(),
    };
    let score = |m: movegen::Move| -> Option<Candidate> {
        let (field, chain) = play(input.field, input.current, m.placement, rules)?;
        let value = if field.is_game_over(rules) {
            DEATH
        } else {
            best_reply(&field, &deeper, &samples, chain.cleared, eval, rules, opts)
        };
        Some(Candidate { placement: m.placement, path: m.path, value, chain, field })
    };
    let candidates: Vec<Candidate> = if opts.threads > 1 {
        moves.into_par_iter().filter_map(score).collect()
    } else {
        moves.into_iter().filter_map(score).collect()
    };
    if candidates.is_empty() {
        return None;
    }
    let mut best = 0;
    for (i, c) in candidates.iter().enumerate() {
        if c.value > candidates[best].value {
            best = i;
        }
    }
    Some(SearchResult { candidates, best })
}
