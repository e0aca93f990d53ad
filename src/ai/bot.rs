//! `Bot`: an evaluation, search options, an ignition policy and a seed, playing as a [`Player`]; and the
//! one list of bot names ([`NAMES`]) that the command line, the configuration and the sessions accept.

use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

use super::choice::{self, Facts, Observation};
use super::config::AiConfig;
use super::eval::{ChainEval, Evaluation};
use super::ignition::IgnitionPolicy;
use super::search::{self, SearchOptions};
use crate::game::movegen::{self, MoveRules, PiecePosition};
use crate::game::{Decision, Player, View};
use crate::game::{Orientation, Placement};

/// Every bot name [`Bot::new`] accepts: the evaluations searched by [`search`] (`classic`, `chain`), the
/// 2P reference attacker (`rush`, [`super::rush`]) and a uniformly random mover (`random`). A slice, so
/// that its type is the same in every build.
#[cfg(not(any(test, feature = "test-support")))]
pub const NAMES: &[&str] = &["classic", "chain", "rush", "random"];

/// Every bot name [`Bot::new`] accepts: the evaluations searched by [`search`] (`classic`, `chain`), the
/// 2P reference attacker (`rush`), a uniformly random mover (`random`) and, in builds for tests
/// (`test-support`), the small two-ply `greedy` bot, cheap enough for the emulator tests.
#[cfg(any(test, feature = "test-support"))]
pub const NAMES: &[&str] = &["classic", "chain", "rush", "random", "greedy"];

/// Player 1's bot by default (`[bots] p1`, and the one bot of `sim endless` and `sim ladder`).
pub const DEFAULT_P1: &str = CHAIN_BUILDER;

/// The bot that builds long chains (a seat's bot name is this at full strength; a lower level adds it,
/// as in `chain lv3`).
pub const CHAIN_BUILDER: &str = "chain";

/// Player 2's bot by default (`[bots] p2`, `sim battle --p2`): the same as player 1's, a fair fight.
pub const DEFAULT_P2: &str = CHAIN_BUILDER;

/// The bots offered to people: in help texts, error messages and the documentation. The others of
/// [`NAMES`] (`random`, a baseline) are still accepted everywhere, by every command and the configuration,
/// but never listed.
pub const OFFERED: [&str; 3] = ["classic", "chain", "rush"];

/// Checks a bot name (for the command line): the name, or a message listing the offered bots.
pub fn check_name(name: &str) -> Result<String, String> {
    if NAMES.contains(&name) {
        Ok(name.to_string())
    } else {
        Err(format!("unknown bot \"{name}\"; the bots are {}", OFFERED.join(" and ")))
    }
}

/// Why a bot cannot be built.
#[derive(Debug, thiserror::Error)]
pub enum BotError {
    /// The evaluation name is not known.
    #[error("unknown bot \"{0}\"; the bots are {known}", known = OFFERED.join(" and "))]
    UnknownAi(String),
    /// The weights are unusable.
    #[error("bad weights for {0}: {1}")]
    BadWeights(String, String),
    /// The thread pool could not be built.
    #[error("cannot build a thread pool: {0}")]
    Threads(String),
}

/// How a bot picks among the reachable placements.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// The search with the bot's evaluation (and ignition policy).
    Search,
    /// Any reachable placement, uniformly.
    Random,
    /// The two-ply search with the chain evaluation in battle mode, then [`super::rush`]'s choice.
    Rush,
    /// The two-ply `greedy` bot (test builds only).
    #[cfg(any(test, feature = "test-support"))]
    Greedy,
}

/// A bot: one evaluation with its weights, search options, ignition policy and a seeded RNG.
pub struct Bot {
    name: String,
    kind: Kind,
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
    /// Builds the bot called `name` (one of [`NAMES`]) from the `[ai]` configuration.
    /// `seed` drives the sampled futures and the random bot. `classic` is the original Famicom bot: it searches the
    /// current and next piece only (no sampled ply) and has no ignition policy, popping whenever its
    /// evaluation likes the result.
    pub fn new(name: &str, config: &AiConfig, seed: u64) -> Result<Bot, BotError> {
        let (kind, eval, ignition) = match name {
            "classic" => (Kind::Search, Evaluation::Classic(config.classic.clone()), None),
            "chain" => {
                let mut e = ChainEval::new(config.chain.clone()).map_err(|e| BotError::BadWeights(name.into(), e))?;
                e.set_caching(config.search.samples > 0);
                (Kind::Search, Evaluation::Chain(Box::new(e)), Some(config.ignition.clone()))
            }
            "rush" => {
                let mut e = ChainEval::new(config.rush.apply(&config.chain))
                    .map_err(|e| BotError::BadWeights(name.into(), e))?;
                e.set_caching(false);
                (Kind::Rush, Evaluation::Chain(Box::new(e)), None)
            }
            "random" => (Kind::Random, Evaluation::Flat, None),
            #[cfg(any(test, feature = "test-support"))]
            "greedy" => (Kind::Greedy, Evaluation::Flat, None),
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
        let mut search = config.search.clone();
        if name == "classic" || name == "rush" {
            search.samples = 0;
        }
        Ok(Bot {
            name: name.to_string(),
            kind,
            eval,
            search,
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
    pub fn plan(&mut self, view: &View<'_>) -> Option<Decision> {
        self.plan_from(view, PiecePosition::spawn(view.rules))
    }

    /// Decides from `start` (e.g. a lower row when the driver re-plans mid-fall). `None` when the piece
    /// has no reachable placement.
    pub fn plan_from(&mut self, view: &View<'_>, start: PiecePosition) -> Option<Decision> {
        let seed: u64 = self.rng.random();
        match self.kind {
            Kind::Search => self.searched(view, start, seed),
            #[cfg(any(test, feature = "test-support"))]
            Kind::Greedy => super::greedy::decide(view, start, &self.search.moves),
            Kind::Random => self.random(view, start),
            Kind::Rush => self.rushed(view, start, seed),
        }
    }

    /// Rush: the two-ply search with the chain evaluation in battle mode, then [`super::rush::choose`].
    fn rushed(&self, view: &View<'_>, start: PiecePosition, seed: u64) -> Option<Decision> {
        let obs = Observation::new(view, start, &self.search, seed);
        let context = super::eval::EvalContext { battle: true, ..obs.eval_context(None) };
        let eval = self.eval.in_context(context);
        let input = obs.search_input();
        let result = search::search(&input, &eval, &obs.look, seed)?;
        let rush_move = super::rush::choose(view, &result);
        let survival = || {
            let opts = SearchOptions { samples: 2, ..self.search.clone() };
            search::search(&input, &super::eval::Evaluation::Survival, &opts, seed)
        };
        Some(super::rush::decide(rush_move, &result, survival))
    }

    /// Any reachable placement, uniformly.
    fn random(&mut self, view: &View<'_>, start: PiecePosition) -> Option<Decision> {
        let moves = movegen::generate(view.field, view.current, start, &self.search.moves);
        if moves.is_empty() {
            return None;
        }
        let m = &moves[self.rng.random_range(0..moves.len())];
        let mut f = *view.field;
        let chain = f.play(view.current, m.placement, view.rules).ok()?;
        Some(Decision { path: m.path.clone(), chain, ..Decision::at(m.placement) })
    }

    /// The search, then (for a bot with an ignition policy) the rules of [`choice`] over its answer.
    fn searched(&self, view: &View<'_>, start: PiecePosition, seed: u64) -> Option<Decision> {
        let obs = Observation::new(view, start, &self.search, seed);
        // Caution on a flaky link (the seat says so), and under a clock that already cuts columns off from
        // the spawn on this field: the reach a long build needs is going, and a pair that cannot get past
        // the stacks tops the field out.
        let clock_cuts = movegen::cut_off(view.field, start, &self.search.moves) != 0;
        let cautious = self.ignition.as_ref().filter(|_| view.caution || clock_cuts).map(IgnitionPolicy::cautious);
        let ignition = cautious.as_ref().or(self.ignition.as_ref());
        let eval = self.eval.in_context(obs.eval_context(ignition));
        // A game of known length about to end: what is not fired by then scores nothing.
        if ignition.is_some()
            && let Some(d) = super::last_pieces::cash_in(view, start, &self.search.moves, self.search.colors)
        {
            return Some(d);
        }
        let input = obs.search_input();
        let result = match &self.pool {
            Some(pool) => pool.install(|| search::search(&input, &eval, &obs.look, seed)),
            None => search::search(&input, &eval, &obs.look, seed),
        }?;
        let Some(policy) = ignition else { return Some(choice::decision(&result, result.best, None)) };
        let facts = Facts::new(&obs, &eval, policy, &self.search, &result);
        log::trace!(
            "{}: {} puyos on the field, potential chain {:?}, {} of {} futures searched",
            self.name,
            view.field.count(),
            facts.potential,
            result.futures,
            obs.look.samples
        );
        Some(choice::decide(&facts))
    }
}

impl Player for Bot {
    fn name(&self) -> &str {
        &self.name
    }

    fn choose(&mut self, view: &View<'_>) -> Decision {
        // Nothing reachable: the game is lost anyway; any in-field placement keeps the loop going.
        self.plan(view).unwrap_or_else(|| Decision::at(Placement::new(view.rules.spawn_x, Orientation::Up)))
    }

    fn set_movement(&mut self, moves: MoveRules) {
        self.search.moves = moves;
    }

    /// The search's sampled futures stop at `deadline` (see [`SearchOptions::deadline`]).
    fn set_deadline(&mut self, deadline: Option<std::time::Instant>) {
        self.search.deadline = deadline;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::deal::{PieceSource, RandomPieces};
    use crate::game::{Field, Rules};
    use std::time::{Duration, Instant};

    /// The `chain` bot's decisions along one self-played endless game of `n` pieces (seed 5), with a
    /// deadline set before every decision by `deadline`.
    fn decisions(n: usize, deadline: impl Fn() -> Option<Instant>) -> Vec<Placement> {
        let rules = Rules::puyo1();
        let mut bot = Bot::new("chain", &AiConfig::default(), 7).expect("the chain bot");
        let mut deal = RandomPieces::new(5, 4);
        let mut field = Field::new();
        let mut out = Vec::new();
        for k in 0..n {
            let (current, next) = (deal.piece(k), deal.piece(k + 1));
            let view = View {
                field: &field,
                current,
                next,
                nuisance_on_me: 0,
                opponent: None,
                rules: &rules,
                pieces_played: k as u32,
                pieces_left: None,
                caution: false,
                revealed: &[],
            };
            bot.set_deadline(deadline());
            let d = bot.choose(&view);
            assert!(field.play(current, d.placement, &rules).is_ok(), "piece {k}: {} is not valid", d.placement);
            out.push(d.placement);
            if field.is_game_over(&rules) {
                break;
            }
        }
        out
    }

    #[test]
    fn a_bot_cut_at_once_still_plays_valid_moves_and_a_generous_deadline_changes_no_move() {
        // A deadline already past: every decision is the two-ply answer, and valid.
        let cut = decisions(12, || Some(Instant::now()));
        assert_eq!(cut.len(), 12);
        let far = decisions(12, || Some(Instant::now() + Duration::from_secs(3600)));
        assert_eq!(far, decisions(12, || None), "a deadline never reached is no deadline");
    }
}
