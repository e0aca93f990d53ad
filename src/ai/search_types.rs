//! What a search is given and answers, shared by the full search ([`super::search`]) and the beam
//! ([`super::beam`]): the options, the input, a line's running tally and its end, the candidates, the
//! result, and the sampled pairs of the unseen futures.

use std::time::Instant;

use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
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
