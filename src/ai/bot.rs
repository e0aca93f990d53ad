//! `Bot`: an evaluation, search options, an ignition policy and a seed, playing as a [`Player`]; and the
//! one list of bot names ([`NAMES`]) that the command line, the configuration and the sessions accept.

use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

use super::config::AiConfig;
use super::eval::{ChainEval, Evaluation};
use super::ignition::IgnitionPolicy;
use super::ignition::Reason;
use super::search::{self, Candidate, SearchInput, SearchOptions, SearchResult};
use crate::game::movegen::{self, MoveRules, PiecePosition};
use crate::game::{Orientation, Placement, Rules};
use crate::game::{Decision, FireReason, Player, View};

/// Every bot name [`Bot::new`] accepts: the evaluations searched by [`search`] (`classic`, `chain`), a
/// uniformly random mover (`random`) and the small two-ply [`super::greedy`] bot (`greedy`).
pub const NAMES: [&str; 4] = ["classic", "chain", "random", "greedy"];

/// The bots offered to people: in help texts, error messages and the documentation. The others of
/// [`NAMES`] (`random`, a baseline, and `greedy`, cheap enough for the emulator tests) are still accepted
/// everywhere, by every command and the configuration, but never listed.
pub const OFFERED: [&str; 2] = ["classic", "chain"];

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
    /// The two-ply [`super::greedy`] bot.
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
            "random" => (Kind::Random, Evaluation::Flat, None),
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
        if name == "classic" {
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
            Kind::Search => {}
            Kind::Greedy => return super::greedy::decide(view, start, &self.search.moves),
            Kind::Random => {
                let moves = movegen::generate(view.field, view.current, start, &self.search.moves);
                if moves.is_empty() {
                    return None;
                }
                let m = &moves[self.rng.random_range(0..moves.len())];
                let mut f = *view.field;
                let chain = f.play(view.current, m.placement, view.rules).ok()?;
                return Some(Decision { path: m.path.clone(), chain, ..Decision::at(m.placement) });
            }
        }
        // The late look shapes endless builds; in a battle a full field is mostly nuisance, and the extra
        // look measured no gain there (192 of 200 battles won against 196 without it).
        let opts = match view.opponent {
            None => self.search.for_puyos(view.field.count()),
            Some(_) => self.search.clone(),
        };
        if let Evaluation::Chain(e) = &mut self.eval {
            e.battle = view.opponent.is_some();
            e.extend_keys = opts.extend_keys();
            e.fire_at = match &self.ignition {
                Some(policy) if policy.plan_fire && view.opponent.is_none() => Some(policy.threshold()),
                _ => None,
            };
        }
        // A game of known length about to end: what is not fired by then scores nothing.
        if self.ignition.is_some()
            && let Some(d) = super::last_pieces::cash_in(view, start, &self.search.moves, self.search.colors)
        {
            return Some(d);
        }
        let input = SearchInput {
            field: view.field,
            current: view.current,
            next: Some(view.next),
            revealed: view.revealed,
            start,
            rules: view.rules,
        };
        let result = match &self.pool {
            Some(pool) => pool.install(|| search::search(&input, &self.eval, &opts, seed)),
            None => search::search(&input, &self.eval, &opts, seed),
        }?;
        let mut pick = result.best;
        let mut fired = None;
        // The potential the build keeps: that of the field the search's best placement leaves (the stuck
        // and danger-keep rules need it). The field as it stands may lack a key the current piece brings.
        let potential = match (&self.eval, &self.ignition) {
            (Evaluation::Chain(e), Some(p)) if p.stuck_puyos > 0 || p.danger_keep_chain > 0 => {
                Some(e.breakdown(&result.best().field, 0, view.rules).potential_chains)
            }
            _ => None,
        };
        log::trace!(
            "{}: {} puyos on the field, potential chain {:?}, {} of {} futures searched",
            self.name,
            view.field.count(),
            potential,
            result.futures,
            opts.samples
        );
        // The potential of the field as it stands, worked out at most once, and only when a rule needs it.
        let mut standing_cache = None;
        let mut standing = || match &self.eval {
            Evaluation::Chain(e) => {
                *standing_cache.get_or_insert_with(|| Some(e.breakdown(view.field, 0, view.rules).potential_chains))
            }
            _ => None,
        };
        // A build in danger by height stands if the best placement keeps it, or if the field holds it now:
        // the search may rate a placement that covers the trigger for a moment highest, because the next
        // pair uncovers it (the potential of that placement's own field then reads as a 1-link chain).
        let keep_build = match (&self.eval, &self.ignition) {
            (Evaluation::Chain(_), Some(p)) => {
                p.keeps_build_in_danger(view, potential)
                    || (super::ignition::in_danger(view.field, view.pending_nuisance, view.rules, p)
                        && p.keeps_build_in_danger(view, standing()))
            }
            _ => false,
        };
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
            let reason = strongest
                .and_then(|(_, c)| policy.should_fire(view, &c.chain))
                .filter(|r| !(keep_build && *r == Reason::Danger));
            let wait = match (strongest, reason) {
                (Some((_, c)), Some(Reason::Threshold)) if policy.wait_for_longer && view.opponent.is_none() => {
                    longer_fire_next(view, &result, c.chain.chains, policy, &self.search.moves)
                }
                _ => None,
            };
            // Keep building when play-outs of waiting end on longer chains than this fire.
            let hold = match (strongest, reason) {
                (Some((_, c)), Some(Reason::Threshold))
                    if wait.is_none() && policy.playouts > 0 && view.opponent.is_none() =>
                {
                    best_quiet(&result).filter(|&i| {
                        let links = super::playout::waiting_links(
                            &result.candidates[i].field,
                            view.next,
                            c.chain.chains,
                            &self.eval,
                            &self.search,
                            policy,
                            view.rules,
                            seed,
                        );
                        log::debug!("{}: waiting on {} links ends on {links:.2} links", self.name, c.chain.chains);
                        links > c.chain.chains as f64
                    })
                }
                _ => None,
            };
            if let Some(i) = hold {
                return Some(decision(&result, i, None));
            }
            if let Some(w) = wait {
                log::debug!(
                    "{}: wait: the next pair fires {} links after {}",
                    self.name,
                    w.1,
                    result.candidates[w.0].placement
                );
                return Some(decision(&result, w.0, None));
            }
            if let Some((i, c)) = strongest
                && let Some(reason) = reason
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
        if fired.is_none()
            && let Some(policy) = &self.ignition
        {
            let incoming = view.pending_nuisance + view.opponent.map_or(0, |o| o.incoming_from_chain);
            // Stuck only when neither the best placement's field nor the field as it stands holds a
            // build: that placement may cover the trigger for one move because the next pair uncovers it.
            // Nor when the search's lines find the build again: a trigger the next pieces uncover or
            // complete is no build to the detector on this field, but it is at the end of those lines.
            let below = |p: Option<u32>| p.is_some_and(|p| p < policy.stuck_chain);
            let stuck = policy.stuck_puyos > 0
                && view.field.count() >= policy.stuck_puyos
                && below(potential)
                && below(standing())
                && !builds_ahead(&self.eval, result.best(), policy, view.rules);
            let danger = super::ignition::in_danger(view.field, incoming, view.rules, policy) && !keep_build;
            if stuck || danger {
                // Nothing to fire and the field is nearly full: play for survival (pop anything, stay low).
                let mut opts = self.search.clone();
                opts.samples = opts.samples.max(policy.survival_samples);
                let survival = search::search(&input, &Evaluation::Survival, &opts, seed)?;
                log::debug!(
                    "{}: survival move {} ({} puyos on the field, potential chain {:?}{})",
                    self.name,
                    survival.best().placement,
                    view.field.count(),
                    potential,
                    if stuck { ", stuck" } else { "" }
                );
                return Some(decision(&survival, survival.best, None));
            }
        }
        Some(decision(&result, pick, fired))
    }
}

/// Whether the search's best lines through `candidate` fire a planned chain, or end on a field with a
/// potential chain of `stuck_chain` links, in at least `stuck_ahead_percent` of its looks ahead.
fn builds_ahead(eval: &Evaluation, candidate: &Candidate, policy: &IgnitionPolicy, rules: &Rules) -> bool {
    let Evaluation::Chain(e) = eval else { return false };
    if policy.stuck_ahead_percent == 0 || candidate.ahead.is_empty() {
        return false;
    }
    let building = candidate
        .ahead
        .iter()
        .filter(|end| end.fired || e.breakdown(&end.field, 0, rules).potential_chains >= policy.stuck_chain)
        .count();
    building * 100 >= policy.stuck_ahead_percent as usize * candidate.ahead.len()
}

/// Endless: among the placements that fire nothing now, the one after which the known next pair fires the
/// longest chain, with that chain's length, when it is longer than `now` and worth firing on the field it
/// fires from. Ties go to the better-valued placement.
fn longer_fire_next(
    view: &View<'_>,
    result: &SearchResult,
    now: u32,
    policy: &IgnitionPolicy,
    moves: &MoveRules,
) -> Option<(usize, u32)> {
    let spawn = PiecePosition::spawn(view.rules);
    let mut best: Option<(usize, u32)> = None;
    for (i, c) in result.candidates.iter().enumerate() {
        if c.chain.chains > 0 || c.value <= search::DEATH * 0.75 {
            continue;
        }
        let need = policy.required_chain(&c.field).max(now + 1);
        for &p in movegen::placements(&c.field, view.next, spawn, moves).as_slice() {
            let mut field = c.field;
            let Ok(chain) = field.play(view.next, p, view.rules) else { continue };
            let better = best.is_none_or(|(j, links)| (chain.chains, c.value) > (links, result.candidates[j].value));
            if chain.chains >= need && !field.is_game_over(view.rules) && better {
                best = Some((i, chain.chains));
            }
        }
    }
    best
}

/// The best-valued placement that pops nothing and does not top out.
fn best_quiet(result: &SearchResult) -> Option<usize> {
    (0..result.candidates.len())
        .filter(|&i| result.candidates[i].chain.chains == 0 && result.candidates[i].value > search::DEATH * 0.75)
        .max_by(|&a, &b| result.candidates[a].value.total_cmp(&result.candidates[b].value))
}

/// The decision for candidate `pick` of a search, with every candidate ranked behind it.
fn decision(result: &SearchResult, pick: usize, fired: Option<FireReason>) -> Decision {
    let mut ranking: Vec<(Placement, f64)> = result.candidates.iter().map(|c| (c.placement, c.value)).collect();
    ranking.sort_by(|a, b| b.1.total_cmp(&a.1));
    let c: &Candidate = &result.candidates[pick];
    Decision { placement: c.placement, path: c.path.clone(), chain: c.chain, value: c.value, fired, ranking }
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
}
