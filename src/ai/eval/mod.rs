//! Evaluations: how good a field is for the player who owns it. Chosen by name.

pub mod chain;
pub mod classic;
pub mod potential;
pub mod template;

use crate::game::{Field, Rules};

pub use chain::{ChainEval, ChainWeights};
pub use classic::ClassicWeights;

/// An evaluation ready to score fields.
#[derive(Clone, Debug)]
pub enum Evaluation {
    /// The seed Famicom bot's seven metrics.
    Classic(ClassicWeights),
    /// The chain builder.
    Chain(Box<ChainEval>),
    /// Every field is worth the same: the search then picks by its tie-break (for tests and baselines).
    Flat,
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

    /// The value of `field`, reached after popping `waste` puyos along the searched path.
    #[inline]
    pub fn evaluate(&self, field: &Field, waste: u32, rules: &Rules) -> f64 {
        match self {
            Evaluation::Classic(w) => classic::evaluate(field, w),
            Evaluation::Chain(e) => e.evaluate(field, waste, rules),
            Evaluation::Flat => 0.0,
        }
    }
}
