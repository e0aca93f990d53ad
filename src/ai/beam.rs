//! Beam search over sampled futures, after the strong open-source bots: the current and next pair are
//! searched in full, then each of a few sampled futures (unseen pairs drawn from the colours in play) is
//! searched by a narrow beam that keeps the best fields whatever first placement they come from. A first
//! placement is worth the mean, over the futures, of the best field it still has in the beam at the end;
//! one the beam dropped is worth that future's worst survivor. A line that fires a planned chain ends there:
//! its value counts for its first placement, and its slot goes to a field still building. Deterministic for
//! a given seed. Anytime: with a deadline ([`SearchOptions::deadline`]) the futures are cut after the last
//! one completed in time, and the decision rests on those (on none, the plain two-ply values).

use std::collections::HashSet;

use super::eval::Evaluation;
use super::search_types::{Candidate, DEATH, Line, LineEnd, SearchInput, SearchOptions, SearchResult, sample_pairs};
use crate::game::movegen::{self, Move, PiecePosition};
use crate::game::{Field, Piece, Rules};

/// A field in the beam, with the first placement (index into the candidates) it descends from.
#[derive(Clone, Copy, Debug)]
struct Node {
    root: usize,
    field: Field,
    /// Waste and planned fires along the line.
    line: Line,
    value: f64,
    /// The piece that made this node fired a planned fire (see [`Evaluation::line_step`]).
    fired: bool,
}

/// A root's best value in one future, and where that line ends (`None` while it has none).
type BestLine = (f64, Option<LineEnd>);

impl Node {
    /// Where this node's line ends.
    fn end(&self) -> LineEnd {
        LineEnd { field: self.field, fired: self.line.fires }
    }
}

/// Every child of the frontier's fields with `piece`, evaluated; lines that top out are dropped.
fn expand(frontier: &[Node], piece: Piece, eval: &Evaluation, rules: &Rules, opts: &SearchOptions) -> Vec<Node> {
    let spawn = PiecePosition::spawn(rules);
    let mut out = Vec::with_capacity(frontier.len() * 22);
    for n in frontier {
        let moves = movegen::placements(&n.field, piece, spawn, &opts.moves);
        for &p in moves.as_slice() {
            let mut field = n.field;
            let Ok(s) = field.play(piece, p, rules) else { continue };
            if field.is_game_over(rules) {
                continue;
            }
            let line = n.line.then(&n.field, &s, eval);
            let fired = line.bonus > n.line.bonus;
            out.push(Node { root: n.root, field, line, value: line.value(&field, eval, rules, &opts.moves), fired });
        }
    }
    out
}

/// Keeps the `width` best nodes, one per (first placement, field): symmetric placements and
/// transposed orders would otherwise fill the beam with copies.
fn prune(mut nodes: Vec<Node>, width: usize) -> Vec<Node> {
    nodes.sort_by(|a, b| b.value.total_cmp(&a.value));
    let mut seen = HashSet::with_capacity(width * 2);
    let mut kept = Vec::with_capacity(width);
    for n in nodes {
        if kept.len() == width {
            break;
        }
        if seen.insert((n.root, n.field)) {
            kept.push(n);
        }
    }
    kept
}

/// A root's value in one future: its best line's, or that future's worst survivor's when the beam dropped
/// all its lines there.
fn future_value((best, worst): &FutureRun, root: usize) -> f64 {
    if best[root].0.is_finite() { best[root].0 } else { *worst }
}

/// Whether the futures run so far already settle the decision: one placement the beam kept leads every
/// other such placement by more than `opts.stop_z` standard errors of their per-future difference (a
/// paired comparison: the futures are shared, so most of their luck cancels out). Further futures
/// would then rarely change the choice, and never by much.
fn clear_leader(runs: &[FutureRun], in_beam: &[bool], opts: &SearchOptions) -> bool {
    let k = runs.len();
    if opts.stop_z <= 0.0 || k < opts.stop_after.max(2) as usize || k >= opts.samples as usize {
        return false;
    }
    let means: Vec<(usize, f64)> = (0..in_beam.len())
        .filter(|&r| in_beam[r])
        .map(|r| (r, runs.iter().map(|run| future_value(run, r)).sum::<f64>() / k as f64))
        .collect();
    // The first of the highest means, as the final choice takes it.
    let Some(&(leader, _)) = means.iter().reduce(|a, b| if b.1 > a.1 { b } else { a }) else {
        return false;
    };
    means.iter().filter(|&&(r, _)| r != leader).all(|&(r, _)| {
        let diff = |run| future_value(run, leader) - future_value(run, r);
        let m = runs.iter().map(diff).sum::<f64>() / k as f64;
        let var = runs.iter().map(|run| (diff(run) - m) * (diff(run) - m)).sum::<f64>() / (k - 1) as f64;
        m > opts.stop_z * (var / k as f64).sqrt()
    })
}

/// What the beam searches with besides the position: the evaluation, the rules, the options and the seed
/// the futures are sampled from.
#[derive(Clone, Copy)]
pub struct Beam<'a> {
    /// The evaluation of fields and lines.
    pub eval: &'a Evaluation,
    /// The rules.
    pub rules: &'a Rules,
    /// Beam width and depth, futures, early stop and deadline.
    pub opts: &'a SearchOptions,
    /// Fixes the sampled futures.
    pub seed: u64,
}

/// Per future: each root's best value and where that line ends, and the worst survivor's value.
type FutureRun = (Vec<BestLine>, f64);

/// Searches `moves` (the placements of `input.current`) with `next` known and `opts.samples` sampled
/// futures of `opts.beam_depth` pairs each. `None` when no placement is valid.
pub fn search(input: &SearchInput<'_>, next: Piece, moves: Vec<Move>, beam: &Beam<'_>) -> Option<SearchResult> {
    let (mut candidates, roots) = first_ply(input, moves, beam);
    if candidates.is_empty() {
        return None;
    }
    let level = two_ply(&mut candidates, &roots, next, beam);
    let opts = beam.opts;
    let start = prune(level, opts.beam_width.max(1));
    let mut futures = 0;
    if !start.is_empty() && opts.samples > 0 {
        let in_beam: Vec<bool> = (0..candidates.len()).map(|r| start.iter().any(|n| n.root == r)).collect();
        let runs = sample_futures(&start, &in_beam, input.revealed, beam);
        futures = runs.len() as u32;
        rank_by_futures(&mut candidates, &runs, &in_beam);
    }
    let mut best = 0;
    for (i, c) in candidates.iter().enumerate() {
        if c.value > candidates[best].value {
            best = i;
        }
    }
    Some(SearchResult { candidates, best, futures })
}

/// The candidates of every valid placement (valued as deaths until a line gives them a value) and the
/// beam's roots: the placements that do not top out, each with the line of its own chain.
fn first_ply(input: &SearchInput<'_>, moves: Vec<Move>, beam: &Beam<'_>) -> (Vec<Candidate>, Vec<Node>) {
    let (field, rules) = (input.field, beam.rules);
    let mut candidates = Vec::with_capacity(moves.len());
    let mut roots = Vec::with_capacity(moves.len());
    for m in moves {
        let mut f = *field;
        let Ok(chain) = f.play(input.current, m.placement, rules) else { continue };
        let alive = !f.is_game_over(rules);
        if alive {
            roots.push(Node {
                root: candidates.len(),
                field: f,
                line: Line::default().then(field, &chain, beam.eval),
                value: 0.0,
                fired: false,
            });
        }
        candidates.push(Candidate {
            placement: m.placement,
            path: m.path,
            value: DEATH,
            chain,
            field: f,
            ahead: Vec::new(),
        });
    }
    (candidates, roots)
}

/// The known next pair, in full: gives every candidate its plain 2-ply value; returns the fields of that
/// ply, where the futures start.
fn two_ply(candidates: &mut [Candidate], roots: &[Node], next: Piece, beam: &Beam<'_>) -> Vec<Node> {
    let level = expand(roots, next, beam.eval, beam.rules, beam.opts);
    for n in &level {
        let c = &mut candidates[n.root];
        if n.value > c.value {
            c.value = n.value;
            c.ahead.clear();
            c.ahead.push(n.end());
        }
    }
    // Roots alive now but with no surviving reply top out on the next pair: a little better than now.
    for r in roots {
        if candidates[r.root].value == DEATH {
            candidates[r.root].value = DEATH * 0.5;
        }
    }
    level
}

/// Searches the sampled futures from `start` one after the other, until all are searched, the deadline
/// passed, or a clear leader settles the decision ([`clear_leader`]).
fn sample_futures(start: &[Node], in_beam: &[bool], revealed: &[Piece], beam: &Beam<'_>) -> Vec<FutureRun> {
    let opts = beam.opts;
    let mut runs: Vec<FutureRun> = Vec::with_capacity(opts.samples as usize);
    for i in 0..opts.samples as u64 {
        // Anytime: past the deadline no further future starts; the decision rests on those searched.
        if opts.past_deadline() {
            log::debug!("the deadline passed: {} of {} futures searched", runs.len(), opts.samples);
            break;
        }
        let future_seed = beam.seed ^ i.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let mut future = sample_pairs(opts.beam_depth, opts.colors, future_seed);
        // Revealed pairs (a diagnostic) replace the sampled ones they stand for.
        let known = revealed.len().min(opts.reveal as usize).min(future.len());
        future[..known].copy_from_slice(&revealed[..known]);
        runs.push(run_future(start, in_beam.len(), &future, beam));
        if clear_leader(&runs, in_beam, opts) {
            break;
        }
    }
    runs
}

/// One future: the beam from `start` through the pieces of `future`; each of the `roots` first placements'
/// best value and line end, and the worst survivor's value.
fn run_future(start: &[Node], roots: usize, future: &[Piece], beam: &Beam<'_>) -> FutureRun {
    let mut frontier = start.to_vec();
    let mut best = vec![(f64::NEG_INFINITY, None); roots];
    let mut record = |n: &Node| {
        if n.value > best[n.root].0 {
            best[n.root] = (n.value, Some(n.end()));
        }
    };
    for &piece in future {
        let mut children = expand(&frontier, piece, beam.eval, beam.rules, beam.opts);
        // A planned fire ends its line: it is recorded, and its slot goes to a build.
        children.retain(|n| {
            if n.fired {
                record(n);
            }
            !n.fired
        });
        if children.is_empty() {
            break;
        }
        frontier = prune(children, beam.opts.beam_width);
    }
    let mut worst = f64::INFINITY;
    for n in &frontier {
        record(n);
        worst = worst.min(n.value);
    }
    if !worst.is_finite() {
        // Every line fired or died: a root without a value is worth the least recorded one.
        worst = best.iter().map(|b| b.0).filter(|v| v.is_finite()).reduce(f64::min).unwrap_or(DEATH * 0.5);
    }
    (best, worst)
}

/// Values each placement the beam kept by its mean over the futures searched, and ranks the ones it never
/// kept below all of them, in their 2-ply order. Cut before any future (`runs` empty): the plain two-ply
/// values stand.
fn rank_by_futures(candidates: &mut [Candidate], runs: &[FutureRun], in_beam: &[bool]) {
    let mut floor = f64::INFINITY;
    for (r, c) in candidates.iter_mut().enumerate() {
        if !in_beam[r] || runs.is_empty() {
            continue;
        }
        let total: f64 = runs.iter().map(|run| future_value(run, r)).sum();
        c.value = total / runs.len() as f64;
        c.ahead = runs.iter().filter_map(|(best, _)| best[r].1).collect();
        floor = floor.min(c.value);
    }
    if floor.is_finite() {
        for (r, c) in candidates.iter_mut().enumerate() {
            if !in_beam[r] && c.value > DEATH * 0.25 {
                c.value = floor.min(c.value) - 1.0;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ai::eval::ChainEval;
    use crate::ai::eval::{ChainWeights, EvalContext, FireThreshold};
    use crate::game::{Cell, Color, Pair};

    fn pair(a: usize, b: usize) -> Piece {
        Piece::Pair(Pair::new(Color::ALL[a], Color::ALL[b]))
    }

    /// The beam's position: `current` to place on `field` from the spawn, `revealed` told.
    fn input<'a>(field: &'a Field, current: Piece, revealed: &'a [Piece], rules: &'a Rules) -> SearchInput<'a> {
        SearchInput { field, current, next: None, revealed, start: PiecePosition::spawn(rules), rules }
    }

    fn run(field: &Field, opts: &SearchOptions, seed: u64) -> SearchResult {
        let rules = Rules::puyo1();
        let eval = Evaluation::Chain(Box::new(ChainEval::new(ChainWeights::default()).expect("gtr exists")));
        let moves = movegen::generate(field, pair(0, 1), PiecePosition::spawn(&rules), &opts.moves);
        let beam = Beam { eval: &eval, rules: &rules, opts, seed };
        search(&input(field, pair(0, 1), &[], &rules), pair(2, 3), moves, &beam).expect("placements")
    }

    #[test]
    fn the_beam_never_picks_a_top_out_and_values_every_live_placement() {
        // Column 3 stands to row 2: a placement on it tops out.
        let mut f = Field::from_rows(&["RG....", "GB...."]);
        for k in 0..11 {
            f.set(3, 13 - k, Cell::Nuisance);
        }
        let opts = SearchOptions { samples: 3, beam_width: 6, beam_depth: 2, ..SearchOptions::default() };
        let r = run(&f, &opts, 5);
        let best = r.best();
        assert!(!best.field.is_game_over(&Rules::puyo1()), "best {} tops out", best.placement);
        for c in &r.candidates {
            let dead = c.field.is_game_over(&Rules::puyo1());
            assert_eq!(c.value == DEATH, dead, "{} valued {}", c.placement, c.value);
        }
    }

    #[test]
    fn a_planned_fire_that_only_a_sampled_future_can_trigger_is_worth_its_bonus_and_marks_its_line() {
        // Red keys fire two links here; the known pieces are yellow-blue, and with one colour in play every
        // sampled future is red-red.
        let f = Field::from_rows(&["G.....", "R.....", "R.....", "RGGG.."]);
        let rules = Rules::puyo1();
        let weights = ChainWeights { planned_fire: 5000.0, ..ChainWeights::default() };
        let opts = SearchOptions { samples: 2, colors: 1, beam_width: 6, beam_depth: 2, ..SearchOptions::default() };
        let best = |fire_at| {
            let e = ChainEval::new(weights.clone())
                .expect("gtr exists")
                .in_context(EvalContext { fire_at, ..EvalContext::default() });
            let eval = Evaluation::Chain(Box::new(e));
            let moves = movegen::generate(&f, pair(2, 3), PiecePosition::spawn(&rules), &opts.moves);
            let beam = Beam { eval: &eval, rules: &rules, opts: &opts, seed: 9 };
            search(&input(&f, pair(2, 3), &[], &rules), pair(2, 3), moves, &beam).expect("placements").best().clone()
        };
        let planned = best(Some(FireThreshold { min_chain: 2, patience_puyos: 0, patience_step: 1 }));
        let waste = best(None);
        assert!(
            planned.value > waste.value + 2500.0,
            "planned fire {} vs every pop as waste {}",
            planned.value,
            waste.value
        );
        // One line end per future; the bot reads the planned fires from them.
        assert_eq!(planned.ahead.len(), 2);
        assert!(planned.ahead.iter().all(|end| end.fired), "{:?}", planned.ahead);
        assert!(waste.ahead.iter().all(|end| !end.fired), "no fire is planned without a threshold");
    }

    #[test]
    fn revealed_pairs_start_every_future_and_only_when_asked_for() {
        // Green keys fire two links; the known pieces are blue-yellow and every sampled future is red-red
        // (one colour in play). Only a revealed green pair after the next one makes the fire plannable.
        let f = Field::from_rows(&["R.....", "G.....", "G.....", "GRRR.."]);
        let rules = Rules::puyo1();
        let fire_at = Some(FireThreshold { min_chain: 2, patience_puyos: 0, patience_step: 1 });
        let e = ChainEval::new(ChainWeights { planned_fire: 5000.0, ..ChainWeights::default() })
            .expect("gtr")
            .in_context(EvalContext { fire_at, ..EvalContext::default() });
        let eval = Evaluation::Chain(Box::new(e));
        let best = |reveal: u32, revealed: &[Piece]| {
            let opts = SearchOptions {
                samples: 2,
                colors: 1,
                beam_width: 6,
                beam_depth: 2,
                reveal,
                ..SearchOptions::default()
            };
            let moves = movegen::generate(&f, pair(2, 3), PiecePosition::spawn(&rules), &opts.moves);
            let beam = Beam { eval: &eval, rules: &rules, opts: &opts, seed: 9 };
            search(&input(&f, pair(2, 3), revealed, &rules), pair(2, 3), moves, &beam)
                .expect("placements")
                .best()
                .clone()
        };
        let green = [pair(1, 1)];
        let told = best(1, &green);
        assert_eq!(told.ahead.len(), 2);
        assert!(told.ahead.iter().all(|end| end.fired), "the revealed green pair fires: {:?}", told.ahead);
        let not_asked = best(0, &green);
        assert!(not_asked.ahead.iter().all(|end| !end.fired), "reveal = 0 ignores what the view carries");
        let not_told = best(1, &[]);
        assert!(not_told.ahead.iter().all(|end| !end.fired), "nothing revealed, nothing to fire with");
        assert!(told.value > not_asked.value + 2500.0, "{} vs {}", told.value, not_asked.value);
    }

    /// Runs of `values[future][root]`, each root's line ending nowhere in particular.
    fn runs_of(values: &[&[f64]]) -> Vec<(Vec<BestLine>, f64)> {
        values.iter().map(|v| (v.iter().map(|&x| (x, None)).collect(), f64::MIN)).collect()
    }

    #[test]
    fn sampling_stops_only_when_one_placement_leads_every_other_beyond_the_spread() {
        let opts = SearchOptions { samples: 8, stop_z: 2.0, stop_after: 3, ..SearchOptions::default() };
        let all = [true, true, true];
        // Root 0 leads root 1 by 100 ± 10 and root 2 by about 1000 in every future: settled after 3.
        let clear = runs_of(&[&[1000.0, 900.0, 0.0], &[1110.0, 1000.0, 100.0], &[1190.0, 1100.0, 300.0]]);
        assert!(!clear_leader(&clear[..2], &all, &opts), "fewer futures than stop_after");
        assert!(clear_leader(&clear, &all, &opts));
        // The same means, but root 1 sometimes ahead: the difference is within its spread.
        let close = runs_of(&[&[1000.0, 1300.0, 0.0], &[1100.0, 700.0, 100.0], &[1200.0, 1000.0, 300.0]]);
        assert!(!clear_leader(&close, &all, &opts));
        // A root the beam dropped does not hold the decision open, and stop_z = 0 never stops.
        assert!(clear_leader(&close, &[true, false, true], &opts));
        assert!(!clear_leader(&clear, &all, &SearchOptions { stop_z: 0.0, ..opts.clone() }));
        // Ties never count as a lead.
        let tied = runs_of(&[&[5.0, 5.0, 0.0], &[5.0, 5.0, 0.0], &[5.0, 5.0, 0.0]]);
        assert!(!clear_leader(&tied, &all, &opts));
        // A root without a line in a future is worth that future's worst survivor.
        let mut dropped = runs_of(&[&[1000.0, 900.0, 0.0], &[1100.0, 1000.0, 100.0], &[1200.0, 1100.0, 300.0]]);
        for run in &mut dropped {
            run.0[0].0 = f64::NEG_INFINITY;
            run.1 = run.0[1].0;
        }
        assert!(!clear_leader(&dropped, &all, &opts), "root 0 now ties root 1 in every future");
    }

    #[test]
    fn a_settled_decision_samples_fewer_futures() {
        let f = Field::from_rows(&["R.....", "G.....", "GB..Y.", "GRRBYY"]);
        let base = SearchOptions { samples: 8, beam_width: 8, beam_depth: 2, stop_z: 0.0, ..SearchOptions::default() };
        let futures = |opts: &SearchOptions| run(&f, opts, 3).futures;
        assert_eq!(futures(&base), 8, "without the stop every future is searched");
        // A beam one field wide keeps one placement: nothing is left to decide after stop_after futures.
        let narrow = SearchOptions { beam_width: 1, stop_z: 1.5, stop_after: 3, ..base.clone() };
        assert_eq!(futures(&narrow), 3);
        assert_eq!(
            run(&f, &narrow, 3).best().placement,
            run(&f, &SearchOptions { stop_z: 0.0, ..narrow }, 3).best().placement
        );
    }

    #[test]
    fn cut_at_once_the_beam_answers_with_the_two_ply_search() {
        let f = Field::from_rows(&["R.....", "G.....", "GB..Y.", "GRRBYY"]);
        let full = SearchOptions { samples: 8, beam_width: 8, beam_depth: 2, stop_z: 0.0, ..SearchOptions::default() };
        let past = std::time::Instant::now();
        let cut = run(&f, &SearchOptions { deadline: Some(past), ..full.clone() }, 3);
        assert_eq!(cut.futures, 0, "no future starts past the deadline");
        let two_ply = run(&f, &SearchOptions { samples: 0, ..full.clone() }, 3);
        let values = |r: &SearchResult| r.candidates.iter().map(|c| c.value.to_bits()).collect::<Vec<_>>();
        assert_eq!(values(&cut), values(&two_ply), "the plain two-ply values stand");
        assert_eq!(cut.best().placement, two_ply.best().placement);
        assert!(cut.best().value.is_finite() && !cut.best().field.is_game_over(&Rules::puyo1()));
        // Uncut, the same options search all eight futures.
        assert_eq!(run(&f, &full, 3).futures, 8);
    }

    #[test]
    fn a_deadline_far_enough_away_changes_nothing() {
        let f = Field::from_rows(&["R.....", "G.....", "GB..Y.", "GRRBYY"]);
        let opts = SearchOptions { samples: 6, beam_width: 8, beam_depth: 2, ..SearchOptions::default() };
        let later = std::time::Instant::now() + std::time::Duration::from_secs(3600);
        let (uncut, timed) = (run(&f, &opts, 4), run(&f, &SearchOptions { deadline: Some(later), ..opts.clone() }, 4));
        assert_eq!(uncut.futures, timed.futures);
        assert_eq!(uncut.best, timed.best);
        let values = |r: &SearchResult| r.candidates.iter().map(|c| c.value.to_bits()).collect::<Vec<_>>();
        assert_eq!(values(&uncut), values(&timed));
    }

    #[test]
    fn the_beam_is_deterministic_for_a_seed_and_the_futures_depend_on_it() {
        let f = Field::from_rows(&["R.....", "G.....", "GB..Y.", "GRRBYY"]);
        let opts = SearchOptions { samples: 4, beam_width: 8, beam_depth: 2, ..SearchOptions::default() };
        let values = |seed| run(&f, &opts, seed).candidates.iter().map(|c| c.value.to_bits()).collect::<Vec<_>>();
        assert_eq!(values(1), values(1));
        assert_ne!(values(1), values(2), "different seeds should sample different futures");
    }
}
