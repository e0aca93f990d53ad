//! The search: every reachable placement of the current piece, then of the next piece on each resulting
//! field (chains resolved in between), leaves scored by an evaluation; optionally a third ply averaged over
//! a few sampled unseen pairs. Deterministic for a given seed; single-threaded unless asked otherwise.

use std::time::Instant;

use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::eval::Evaluation;
use crate::game::movegen::{self, InputPath, MoveRules, PiecePosition};
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
    /// With `samples`, average the sampled ply only behind the best line of the `refine_top` best first
    /// placements (0 = behind every leaf: exact but ~22×samples times slower).
    pub refine_top: usize,
    /// Worker threads for the first ply (1 = the calling thread only).
    pub threads: usize,
    /// With `samples`, width of a beam run over each sampled future instead of the `refine_top`
    /// third ply (0 = no beam).
    pub beam_width: usize,
    /// Sampled pairs each beam searches beyond the known current and next pair.
    pub beam_depth: u32,
    /// With the beam: stop sampling futures once one placement leads every other the beam kept by more
    /// than this many standard errors of their difference over the futures so far (0 = sample them all).
    /// Most decisions are clear after a few futures; the rest get all of them.
    pub stop_z: f64,
    /// Futures sampled before `stop_z` may stop the sampling (at least 2: a difference needs a spread).
    pub stop_after: u32,
    /// Replaces the chain evaluation's `detect_extend_keys` in the plain look (0 = keep it). One
    /// extension key makes the plain look's moves, which set the median move, about a quarter cheaper,
    /// but on 1000 games it cost the share of first chains of 12+ links 3 points, so it is not the default.
    pub detect_extend_keys: u32,
    /// A diagnostic, not a way to play: how many of the pairs after the next one the search is told
    /// (`View::revealed`, which only the simulator's endless runs fill, with 4). Each of the beam's sampled
    /// futures then starts with those true pairs (the search without a beam ignores them). 0 (the
    /// default) is the game's own information: current and next only.
    pub reveal: u32,
    /// Movement rules for the move generator.
    pub moves: MoveRules,
    /// A wider, deeper look for the moves that shape a build's end (`[ai.search.late]`: from `puyos` puyos).
    pub late: LateLook,
    /// An anytime cut, not a setting: past this instant the beam starts no further sampled future and
    /// answers with the futures it has searched (none: the plain two-ply answer, which it always has).
    /// `None` (the default, and always in headless runs and the simulator) searches every future the
    /// options ask for, so a seed replays exactly. The window's worker thread sets it per decision
    /// ([`crate::game::Player::set_deadline`]); a profile file never holds it.
    #[serde(skip)]
    pub deadline: Option<Instant>,
}

/// Time management: the sampled search's `samples`, `beam_width` and `beam_depth` once the field holds
/// `puyos` puyos. A build is shaped in its last thirty or so puyos, where a misplaced pair costs a link of
/// the chain; its first puyos go on an open field where most placements do. Spending the extra look only
/// there keeps the median move near the plain search's cost (fewer than half the moves of a game are
/// played on such fields).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct LateLook {
    /// From this many puyos on the field (0 = never).
    pub puyos: u32,
    /// Sampled futures.
    pub samples: u32,
    /// Beam width.
    pub beam_width: usize,
    /// Sampled pairs each beam searches beyond the next one.
    pub beam_depth: u32,
    /// Replaces [`SearchOptions::stop_z`]: 0 samples every future of a late decision, the ones that
    /// shape the build's end.
    pub stop_z: f64,
    /// Replaces [`SearchOptions::detect_extend_keys`] (0 = the chain evaluation's own value).
    pub detect_extend_keys: u32,
}

impl Default for LateLook {
    fn default() -> Self {
        LateLook { puyos: 44, samples: 12, beam_width: 40, beam_depth: 3, stop_z: 0.0, detect_extend_keys: 0 }
    }
}

impl SearchOptions {
    /// Whether [`SearchOptions::deadline`] has passed (never without one).
    pub fn past_deadline(&self) -> bool {
        self.deadline.is_some_and(|d| Instant::now() >= d)
    }

    /// The options for an endless decision on a field of `puyos` puyos: the late look's values from its
    /// threshold on. Only where the plain options sample futures at all: the two-ply search
    /// (`samples = 0`, the `two-ply` profile) stays two-ply.
    pub fn for_puyos(&self, puyos: u32) -> SearchOptions {
        let late = self.late;
        if self.samples == 0 || late.puyos == 0 || puyos < late.puyos {
            return self.clone();
        }
        SearchOptions {
            samples: late.samples,
            beam_width: late.beam_width,
            beam_depth: late.beam_depth,
            stop_z: late.stop_z,
            detect_extend_keys: late.detect_extend_keys,
            ..self.clone()
        }
    }

    /// The extension keys this look asks the chain evaluation for, replacing its own `detect_extend_keys`;
    /// `None` keeps them. Only a search that samples futures asks: the two-ply search (`samples = 0`) is
    /// cheap, and keeps the evaluation's own.
    pub fn extend_keys(&self) -> Option<u32> {
        (self.samples > 0 && self.detect_extend_keys > 0).then_some(self.detect_extend_keys)
    }
}

impl Default for SearchOptions {
    fn default() -> Self {
        SearchOptions {
            depth: 2,
            samples: 8,
            colors: crate::game::deal::DEFAULT_COLORS,
            refine_top: 6,
            threads: 1,
            beam_width: 20,
            beam_depth: 2,
            stop_z: 1.5,
            stop_after: 4,
            detect_extend_keys: 0,
            reveal: 0,
            moves: MoveRules::default(),
            late: LateLook::default(),
            deadline: None,
        }
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
    /// Where the best line through this placement ends in each of the search's looks ahead (each sampled
    /// future, or the one look at the known next piece; empty when the placement tops out or the beam
    /// dropped it). The bot reads builds from them that the field after this placement alone does not
    /// show: a trigger the next pieces uncover or complete.
    pub ahead: Vec<LineEnd>,
}

/// The end of a searched line.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LineEnd {
    /// The field at the end of the line.
    pub field: Field,
    /// Whether a piece along the line fired a planned chain (see [`Evaluation::line_step`]).
    pub fired: bool,
}

/// The outcome of a search.
#[derive(Clone, Debug)]
pub struct SearchResult {
    /// Every reachable placement of the current piece, in move-generation order.
    pub candidates: Vec<Candidate>,
    /// Index of the highest-valued candidate (the first one on ties).
    pub best: usize,
    /// Sampled futures searched: the options' `samples`, or fewer when the beam's decision settled early
    /// (see [`SearchOptions::stop_z`]).
    pub futures: u32,
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
    /// True pieces after `next` the search may use (see [`SearchOptions::reveal`]); usually empty.
    pub revealed: &'a [Piece],
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

/// What a searched line has gathered so far: puyos popped as waste and the value of planned fires (see
/// [`Evaluation::line_step`]).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Line {
    /// Puyos popped along the line that were no planned fire.
    pub waste: u32,
    /// Value of the planned fires along the line.
    pub bonus: f64,
    /// Whether a piece along the line fired a planned chain.
    pub fires: bool,
}

impl Line {
    /// The line after a piece, played on `field`, whose chain is `chain`.
    #[inline]
    pub fn then(self, field: &Field, chain: &ChainSummary, eval: &Evaluation) -> Line {
        // Only a pop needs the field's size (counting is skipped on the hot path otherwise).
        let puyos = if chain.chains > 0 { field.count() } else { 0 };
        let (waste, bonus) = eval.line_step(chain, puyos);
        // A pop that wastes nothing was a planned fire.
        let fires = self.fires || (chain.chains > 0 && waste == 0);
        Line { waste: self.waste + waste, bonus: self.bonus + bonus, fires }
    }

    /// The value of ending the line on `field`, for a player whose pairs move by `moves`: under a clock,
    /// columns gravity has cut off from the spawn cost what [`Evaluation::unreachable_column`] says.
    #[inline]
    pub fn value(self, field: &Field, eval: &Evaluation, rules: &Rules, moves: &MoveRules) -> f64 {
        let value = eval.evaluate(field, self.waste, rules) + self.bonus;
        if moves.timing.is_none() {
            return value;
        }
        let cut_off = movegen::cut_off(field, PiecePosition::spawn(rules), moves).count_ones();
        value + eval.unreachable_column() * cut_off as f64
    }
}

/// Best value over all placements of `piece` on `field` (spawn start), the deeper plies behind it
/// included, with the leaf of the best line and what the line gathered up to it.
fn best_reply(
    field: &Field,
    pieces: &[Piece],
    samples: &[Piece],
    line: Line,
    eval: &Evaluation,
    rules: &Rules,
    opts: &SearchOptions,
) -> (f64, Field, Line) {
    let Some((&piece, rest)) = pieces.split_first() else {
        return (leaf(field, samples, line, eval, rules, opts), *field, line);
    };
    let spawn = PiecePosition::spawn(rules);
    let moves = movegen::placements(field, piece, spawn, &opts.moves);
    let mut best = (DEATH, *field, line);
    for &p in moves.as_slice() {
        let Some((f, s)) = play(field, piece, p, rules) else { continue };
        let v = if f.is_game_over(rules) {
            (DEATH * 0.5, f, line.then(field, &s, eval))
        } else {
            best_reply(&f, rest, samples, line.then(field, &s, eval), eval, rules, opts)
        };
        if v.0 > best.0 {
            best = v;
        }
    }
    best
}

/// The value of a leaf: its evaluation, or with samples the mean over sampled pairs of the best reply.
fn leaf(field: &Field, samples: &[Piece], line: Line, eval: &Evaluation, rules: &Rules, opts: &SearchOptions) -> f64 {
    if samples.is_empty() {
        return line.value(field, eval, rules, &opts.moves);
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
            let v = line.then(field, &s, eval).value(&f, eval, rules, &opts.moves);
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
    if let Some(next) = input.next
        && opts.depth >= 2
        && opts.samples > 0
        && opts.beam_width > 0
    {
        return super::beam::search(input, next, moves, &super::beam::Beam { eval, rules, opts, seed });
    }
    let samples = if opts.samples > 0 { sample_pairs(opts.samples, opts.colors, seed) } else { Vec::new() };
    let deeper: Vec<Piece> = match input.next {
        Some(n) if opts.depth >= 2 => vec![n],
        _ => Vec::new(),
    };
    // With refine_top, the sampled ply is left out of the full search and added behind the best lines.
    let everywhere: &[Piece] = if opts.refine_top > 0 { &[] } else { &samples };
    let score = |m: movegen::Move| -> Option<(Candidate, Field, Line)> {
        let (field, chain) = play(input.field, input.current, m.placement, rules)?;
        let line = Line::default().then(input.field, &chain, eval);
        let (value, leaf_field, line) = if field.is_game_over(rules) {
            (DEATH, field, line)
        } else {
            best_reply(&field, &deeper, everywhere, line, eval, rules, opts)
        };
        let ahead =
            if value > DEATH * 0.25 { vec![LineEnd { field: leaf_field, fired: line.fires }] } else { Vec::new() };
        Some((Candidate { placement: m.placement, path: m.path, value, chain, field, ahead }, leaf_field, line))
    };
    let scored: Vec<(Candidate, Field, Line)> = if opts.threads > 1 {
        moves.into_par_iter().filter_map(score).collect()
    } else {
        moves.into_iter().filter_map(score).collect()
    };
    if scored.is_empty() {
        return None;
    }
    let mut candidates = Vec::with_capacity(scored.len());
    let mut leaves = Vec::with_capacity(scored.len());
    for (c, f, w) in scored {
        candidates.push(c);
        leaves.push((f, w));
    }
    if opts.refine_top > 0 && !samples.is_empty() {
        // Rank by the plain value, then replace the top ones' values by the sampled expectation behind
        // their best line; the rest fall below every refined candidate that is alive.
        let mut order: Vec<usize> = (0..candidates.len()).collect();
        order.sort_by(|&a, &b| candidates[b].value.total_cmp(&candidates[a].value));
        let mut floor = f64::INFINITY;
        for &i in order.iter().take(opts.refine_top) {
            if candidates[i].value > DEATH * 0.25 {
                let (f, line) = leaves[i];
                let v = leaf(&f, &samples, line, eval, rules, opts);
                candidates[i].value = v;
                floor = floor.min(v);
            }
        }
        if floor.is_finite() {
            for &i in order.iter().skip(opts.refine_top) {
                if candidates[i].value > DEATH * 0.25 {
                    candidates[i].value = floor.min(candidates[i].value) - 1.0;
                }
            }
        }
    }
    let mut best = 0;
    for (i, c) in candidates.iter().enumerate() {
        if c.value > candidates[best].value {
            best = i;
        }
    }
    Some(SearchResult { candidates, best, futures: samples.len() as u32 })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_late_look_brings_its_own_futures_beam_and_stopping_rule() {
        let opts = SearchOptions::default();
        let late = opts.late;
        let below = opts.for_puyos(late.puyos - 1);
        assert_eq!(below, opts);
        let from = opts.for_puyos(late.puyos);
        assert_eq!(
            (from.samples, from.beam_width, from.beam_depth, from.stop_z, from.detect_extend_keys),
            (late.samples, late.beam_width, late.beam_depth, late.stop_z, late.detect_extend_keys)
        );
        // Everything else is the plain search's.
        let back = SearchOptions {
            samples: opts.samples,
            beam_width: opts.beam_width,
            beam_depth: opts.beam_depth,
            stop_z: opts.stop_z,
            detect_extend_keys: opts.detect_extend_keys,
            ..from
        };
        assert_eq!(back, opts);
        assert_ne!(late.stop_z, opts.stop_z, "the defaults stop early only below the late look");
        assert_eq!(
            (below.extend_keys(), from.extend_keys()),
            (None, None),
            "by default both looks keep the evaluation's extension keys"
        );
        let one_key = SearchOptions { detect_extend_keys: 1, ..opts.clone() };
        assert_eq!((one_key.extend_keys(), one_key.for_puyos(late.puyos).extend_keys()), (Some(1), None));
        let two_ply = SearchOptions { samples: 0, ..one_key };
        assert_eq!(two_ply.extend_keys(), None, "a search without futures keeps the evaluation's keys");
    }
}
