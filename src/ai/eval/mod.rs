//! Evaluations: how good a field is for the player who owns it. Chosen by name.

pub mod cache;
pub mod chain;
pub mod classic;
pub mod potential;
pub mod template;

use crate::game::{ChainSummary, Field, Rules};

pub use chain::{ChainEval, ChainWeights, EvalContext, FireThreshold};
pub use classic::ClassicWeights;

/// An evaluation ready to score fields.
#[derive(Clone, Debug)]
pub enum Evaluation {
    /// The original Famicom bot's seven metrics.
    Classic(ClassicWeights),
    /// The chain builder.
    Chain(Box<ChainEval>),
    /// Every field is worth the same: the search then picks by its tie-break (for tests and baselines).
    Flat,
    /// Survival only: fewer puyos, lower middle columns and groups close to popping are better (the bot's
    /// fallback when the build is stuck or the field is in danger).
    Survival,
}

/// Names accepted by [`Evaluation::by_name`].
pub const NAMES: [&str; 3] = ["classic", "chain", "random"];

impl Evaluation {
    /// The evaluation called `name` with default weights (`random` is [`Evaluation::Flat`]).
    pub fn by_name(name: &str) -> Option<Evaluation> {
        match name {
            "classic" => Some(Evaluation::Classic(ClassicWeights::default())),
            "chain" => ChainEval::new(ChainWeights::default()).ok().map(|e| Evaluation::Chain(Box::new(e))),
            "random" => Some(Evaluation::Flat),
            _ => None,
        }
    }

    /// This evaluation in the context of one move (only the chain evaluation reads it; the others are
    /// returned as they are).
    pub fn in_context(&self, context: EvalContext) -> Evaluation {
        match self {
            Evaluation::Chain(e) => Evaluation::Chain(Box::new(e.in_context(context))),
            other => other.clone(),
        }
    }

    /// The value of `field`, reached after popping `waste` puyos along the searched path.
    #[inline]
    pub fn evaluate(&self, field: &Field, waste: u32, rules: &Rules) -> f64 {
        match self {
            Evaluation::Classic(w) => classic::evaluate(field, w),
            Evaluation::Chain(e) => e.evaluate(field, waste, rules),
            Evaluation::Flat => 0.0,
            Evaluation::Survival => survival(field, rules),
        }
    }

    /// What each column a future pair can no longer be moved into costs a field (see
    /// [`crate::game::movegen::cut_off`]; only under a clock, so play without one is untouched): about four
    /// links of a chain for the chain builder, as much as a danger-zone column for the others. A column cut
    /// off by gravity is a column the next pieces cannot use, and the spawn columns fill up from there.
    pub fn unreachable_column(&self) -> f64 {
        match self {
            Evaluation::Classic(w) => -8.0 * w.links,
            Evaluation::Chain(e) => -4.0 * e.weights().chain,
            Evaluation::Flat => 0.0,
            Evaluation::Survival => -30.0,
        }
    }

    /// What a searched line gains by a piece whose chain is `chain`, played on a field of `puyos` puyos:
    /// `(puyos wasted, bonus)`. A chain the ignition policy would fire there ([`EvalContext::fire_at`]) is a
    /// planned fire, worth its links, not waste; any other pop wastes its puyos.
    #[inline]
    pub fn line_step(&self, chain: &ChainSummary, puyos: u32) -> (u32, f64) {
        match self {
            Evaluation::Chain(e) => match e.fired_value(chain, puyos) {
                Some(v) => (0, v),
                None => (chain.cleared, 0.0),
            },
            _ => (chain.cleared, 0.0),
        }
    }
}

/// The survival value of a field: minus the puyos on it, minus the squared height of the spawn column
/// and its neighbours above mid-field; plus a little for each 3-link and 2-link (a group one or two puyos
/// short of popping: what lets the next pieces clear the field rather than only stack on it), and half a
/// point per puyo that the best chain one or two keys away would take off the field (net of its keys), so
/// a survival move does not bury a chain that would empty the field.
pub fn survival(field: &Field, rules: &Rules) -> f64 {
    let x = rules.spawn_x as usize;
    let high: f64 = (x.saturating_sub(1).max(1)..=(x + 1).min(crate::game::WIDTH))
        .map(|c| (field.height(c) as f64 - 8.0).max(0.0).powi(2))
        .sum();
    let (l2, l3) = chain::links_23(field);
    let count = field.count();
    let mut relief = 0;
    let opts = potential::DetectOptions {
        max_keys: 2,
        extend_depth: 0,
        extend_slack: 0,
        ..potential::DetectOptions::default()
    };
    potential::detect(field, rules, opts, |p| relief = relief.max(count.saturating_sub(p.remaining + p.keys)));
    -(count as f64) - 4.0 * high + 0.4 * l3 as f64 + 0.15 * l2 as f64 + 0.5 * relief as f64
}
