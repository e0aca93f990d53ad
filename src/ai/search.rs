//! The search: every reachable placement of the current piece, then of the next piece on each resulting
//! field (chains resolved in between), leaves scored by an evaluation; optionally a third ply averaged over
//! a few sampled unseen pairs. Deterministic for a given seed; single-threaded unless asked otherwise.

use rayon::prelude::*;

use super::eval::Evaluation;
use crate::game::movegen::{self, PiecePosition};
use crate::game::{ChainSummary, Field, Piece, Placement, Rules};

// The types the beam shares live in `search_types`; callers keep naming them here.
pub(crate) use super::search_types::Line;
pub use super::search_types::{
    Candidate, DEATH, LateLook, LineEnd, SearchInput, SearchOptions, SearchResult, sample_pairs,
};

/// Plays `piece` at `placement`, returning the new field and chain, or `None` when the placement is invalid.
#[inline]
fn play(field: &Field, piece: Piece, placement: Placement, rules: &Rules) -> Option<(Field, ChainSummary)> {
    let mut f = *field;
    let s = f.play(piece, placement, rules).ok()?;
    Some((f, s))
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
