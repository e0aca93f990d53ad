//! `Bot`: an evaluation, search options, an ignition policy and a seed, playing as a [`Player`].

use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

use super::config::AiConfig;
use super::eval::{ChainEval, Evaluation};
use super::ignition::{IgnitionPolicy, Reason};
use super::movegen::{InputPath, PiecePosition};
use super::search::{self, SearchInput, SearchOptions};
use crate::game::{ChainSummary, Placement};
use crate::sim::{Decision, Player, View};

/// Why a bot cannot be built.
#[derive(Debug, thiserror::Error)]
pub enum BotError {
    /// The evaluation name is not known.
    #[error("unknown AI {0:?}; known: {known}", known = super::eval::NAMES.join(", "))]
    UnknownAi(String),
    /// The weights are unusable.
    #[error("bad weights for {0}: {1}")]
    BadWeights(String, String),
    /// The thread pool could not be built.
    #[error("cannot build a thread pool: {0}")]
    Threads(String),
}

/// A full decision with everything the driver and the logs need.
#[derive(Clone, Debug)]
pub struct Plan {
    /// Where the piece goes.
    pub placement: Placement,
    /// The inputs to press from the start position, before the drop.
    pub path: InputPath,
    /// The search value of the placement.
    pub value: f64,
    /// The chain the placement fires now.
    pub chain: ChainSummary,
    /// Why the bot fires, if the ignition policy chose this placement.
    pub fired: Option<Reason>,
}

/// A bot: one evaluation with its weights, search options, ignition policy and a seeded RNG.
pub struct Bot {
    name: String,
    eval: Evaluation,
    search: SearchOptions,
    ignition: Option<IgnitionPolicy>,
    rng: Xoshiro256PlusPlus,
    pool: Option<rayon::ThreadPool>,
}

impl std::fmt::Debug for Bot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Bot").field("name", &self.name).field("search", &self.search).finish_non_exhaustive()
    }
}

impl Bot {
    /// Builds the bot called `name` (`classic`, `chain` or `random`) from the `[ai]` configuration.
    /// `seed` drives the sampled futures and the random bot. `classic` uses no ignition policy: like the
    /// seed bot, it pops whenever its evaluation likes the result.
    pub fn new(name: &str, config: &AiConfig, seed: u64) -> Result<Bot, BotError> {
        let (eval, ignition) = match name {
            "classic" => (Evaluation::Classic(config.classic.clone()), None),
            "chain" => {
                let e = ChainEval::new(config.chain.clone()).map_err(|e| BotError::BadWeights(name.into(), e))?;
                (Evaluation::Chain(Box::new(e)), Some(config.ignition.clone()))
            }
            "random" => (Evaluation::Flat, None),
            _ => return Err(BotError::UnknownAi(name.into())),
        };
        let pool = if config.search.threads > 1 {
            Some(
                rayon::ThreadPoolBuilder::new()
                    .num_threads(config.search.threads)
                    .build()
                    .map_err(|e| BotError::Threads(e.to_string()))?,
            )
        } else {
            None
        };
        Ok(Bot {
            name: name.to_string(),
            eval,
            search: config.search.clone(),
            ignition,
            rng: Xoshiro256PlusPlus::seed_from_u64(seed),
            pool,
        })
    }

    /// The evaluation in use.
    pub fn evaluation(&self) -> &Evaluation {
        &self.eval
    }

    /// Decides from the spawn position.
    pub fn plan(&mut self, view: &View<'_>) -> Option<Plan> {
        self.plan_from(view, PiecePosition::spawn(view.rules))
    }

    /// Decides from `start` (e.g. a lower row when the driver re-plans mid-fall). `None` when the piece
    /// has no reachable placement.
    pub fn plan_from(&mut self, view: &View<'_>, start: PiecePosition) -> Option<Plan> {
        let seed: u64 = self.rng.random();
        if let Evaluation::Chain(e) = &mut self.eval {
            e.battle = view.opponent.is_some();
        }
        let input =
            SearchInput { field: view.field, current: view.current, next: Some(view.next), start, rules: view.rules };
        if matches!(self.eval, Evaluation::Flat) {
            let moves = super::movegen::generate(view.field, view.current, start, &self.search.moves);
            if moves.is_empty() {
                return None;
            }
            let m = &moves[self.rng.random_range(0..moves.len())];
            let mut f = *view.field;
            let chain = f.play(view.current, m.placement, view.rules).ok()?;
            return Some(Plan { placement: m.placement, path: m.path.clone(), value: 0.0, chain, fired: None });
        }
        let result = match &self.pool {
            Some(pool) => pool.install(|| search::search(&input, &self.eval, &self.search, seed)),
            None => search::search(&input, &self.eval, &self.search, seed),
        }?;
        let mut pick = result.best;
        let mut fired = None;
        if let Some(policy) = &self.ignition {
            // The strongest chain on offer now; among equals, the better-valued line.
            let strongest = result
                .candidates
                .iter()
                .enumerate()
                .filter(|(_, c)| c.chain.chains > 0 && c.value > search::DEATH * 0.75)
                .max_by(|(_, a), (_, b)| {
                    (a.chain.chains, a.chain.score)
                        .cmp(&(b.chain.chains, b.chain.score))
                        .then(a.value.total_cmp(&b.value))
                });
            if let Some((i, c)) = strongest
                && let Some(reason) = policy.should_fire(view, &c.chain)
            {
                // In danger any chain helps, but a better-valued one that also fires is fine too.
                pick = i;
                fired = Some(reason);
                log::debug!(
                    "{}: fire {:?}: {} links, {} points, {} puyos on the field{:?}",
                    self.name,
                    reason,
                    c.chain.chains,
                    c.chain.score,
                    view.field.count(),
                    view.field
                );
            }
        }
        let c = &result.candidates[pick];
        Some(Plan { placement: c.placement, path: c.path.clone(), value: c.value, chain: c.chain, fired })
    }
}

impl Player for Bot {
    fn name(&self) -> &str {
        &self.name
    }

    fn choose(&mut self, view: &View<'_>) -> Decision {
        match self.plan(view) {
            Some(p) => Decision { placement: p.placement, expected_chain: p.chain.chains },
            // Nothing reachable: the game is lost anyway; any in-field placement keeps the loop going.
            None => Decision {
                placement: Placement::new(view.rules.spawn_x, crate::game::Orientation::Up),
                expected_chain: 0,
            },
        }
    }
}
