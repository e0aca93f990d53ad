//! The two training methods as pure state transitions: [`plan`] says which games a generation plays,
//! [`advance`] turns their results into the next state. Both are deterministic functions of the state
//! (whose generation number seeds everything random), so a run resumes, shards and merges exactly.
//!
//! - **tournament** (the original Famicom bot's trainer): the population is paired at random; in each pair
//!   the winner's and loser's weights mix 80/20, every weight is then scaled by a uniform factor in
//!   1 ± 5 %, and the offspring replaces the loser. With an endless fitness, "winning" means the better
//!   fitness on the same pieces.
//! - **spsa** (simultaneous perturbation stochastic approximation): every weight is nudged by ±c·scale at
//!   once, both signs play the same games, and the difference of their fitness moves all weights along
//!   the perturbation. Weights are scaled by their starting size, so one step size fits all.

use rand::{Rng, RngCore};
use rand_xoshiro::Xoshiro256PlusPlus;
use serde::{Deserialize, Serialize};

use super::jobs::{EndlessSums, Fitness, Job, JobResult, win_rate};
use crate::sim::game_rng;

/// Training method.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum Method {
    /// Pairwise battles; the 80/20 offspring of winner and loser, mutated ±5 %, replaces the loser.
    Tournament,
    /// Simultaneous perturbation stochastic approximation.
    Spsa,
}

/// Everything that defines a training run; a checkpoint only resumes under the same settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Settings {
    /// Method.
    pub method: Method,
    /// Evaluation whose `[ai.<eval>]` weights are trained.
    pub eval: String,
    /// Fitness.
    pub fitness: Fitness,
    /// Run seed.
    pub seed: u64,
    /// Games per candidate (endless) or per pairing (battle) in a generation.
    pub games: usize,
    /// Pieces per endless game.
    pub pieces: usize,
    /// Colours.
    pub colors: u8,
    /// Pieces per side before a battle is a draw.
    pub max_pieces: usize,
    /// Tournament: population size.
    pub population: usize,
    /// Tournament: the initial population scales each weight by a uniform factor in 1 ± this.
    pub spread: f64,
    /// SPSA: step gain `a` (in units of the weights' scale, per unit of relative fitness difference).
    pub spsa_a: f64,
    /// SPSA: perturbation size `c` (fraction of each weight's scale).
    pub spsa_c: f64,
    /// SPSA: stability constant `A` of the step schedule a / (k + 1 + A)^0.602.
    pub spsa_stability: f64,
    /// Names of the trained parameters, in vector order.
    pub params: Vec<String>,
    /// CRC32 of the starting configuration.
    pub config_crc: u32,
}

/// The method's own state.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "method")]
pub enum MethodState {
    /// Tournament.
    Tournament {
        /// The weight vectors.
        population: Vec<Vec<f64>>,
        /// Matches won by each member since it was born.
        wins: Vec<u32>,
        /// Matches played by each member since it was born.
        played: Vec<u32>,
    },
    /// SPSA.
    Spsa {
        /// The current weights.
        theta: Vec<f64>,
        /// Each weight's scale (its starting size, or the mean size for weights starting at 0).
        scale: Vec<f64>,
        /// The fitness scale that makes differences relative (set by the first generation).
        fitness_scale: Option<f64>,
    },
}

/// One generation's record.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Row {
    /// Generation (0-based).
    pub generation: usize,
    /// Tournament: the best match winner's result (its win rate, or its endless fitness); SPSA: the mean
    /// fitness of the two perturbed weight vectors.
    pub fitness: f64,
    /// Tournament: that winner's weights; SPSA: the weights the generation started from.
    pub weights: Vec<f64>,
}

/// A training run's whole state: what the checkpoint file holds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct State {
    /// The run's settings.
    pub settings: Settings,
    /// Generations done.
    pub generation: usize,
    /// The method's state.
    pub method: MethodState,
    /// One row per generation done.
    pub history: Vec<Row>,
}

/// The games of one generation.
#[derive(Clone, Debug)]
pub struct Plan {
    /// The weight vectors that play.
    pub candidates: Vec<Vec<f64>>,
    /// The games, in a fixed order (shards take job indices).
    pub jobs: Vec<Job>,
    /// Seed of the generation's games.
    pub seed: u64,
    /// Tournament: the pairings; SPSA: the perturbation signs (as ±1).
    pairs: Vec<(usize, usize)>,
    delta: Vec<f64>,
    /// The generation's RNG after planning, for the random choices of [`advance`].
    rng: Xoshiro256PlusPlus,
}

/// A stream of its own for generation `g` (and `u64::MAX` for the start), apart from the game streams.
fn generation_rng(seed: u64, g: u64) -> Xoshiro256PlusPlus {
    game_rng(seed ^ 0x7472_6169_6e00_0000, g)
}

fn spsa_c(s: &Settings, k: usize) -> f64 {
    s.spsa_c / (k as f64 + 1.0).powf(0.101)
}

fn spsa_a(s: &Settings, k: usize) -> f64 {
    s.spsa_a / (k as f64 + 1.0 + s.spsa_stability).powf(0.602)
}

impl State {
    /// The state before the first generation, from the configured weights `start`.
    pub fn new(settings: Settings, start: &[f64]) -> Result<State, String> {
        if settings.games == 0 {
            return Err("games per evaluation must be at least 1".into());
        }
        let mut rng = generation_rng(settings.seed, u64::MAX);
        let method = match settings.method {
            Method::Tournament => {
                if settings.population < 2 {
                    return Err("a tournament needs a population of at least 2".into());
                }
                // Member 0 is the configured weights; the others spread around them.
                let population: Vec<Vec<f64>> =
                    (0..settings.population)
                        .map(|i| {
                            start
                                .iter()
                                .map(|&w| {
                                    if i == 0 { w } else { w * (1.0 + rng.random_range(-1.0..=1.0) * settings.spread) }
                                })
                                .collect()
                        })
                        .collect();
                let n = population.len();
                MethodState::Tournament { population, wins: vec![0; n], played: vec![0; n] }
            }
            Method::Spsa => {
                let nonzero: Vec<f64> = start.iter().map(|w| w.abs()).filter(|w| *w > 1e-12).collect();
                let typical = if nonzero.is_empty() { 1.0 } else { nonzero.iter().sum::<f64>() / nonzero.len() as f64 };
                let scale = start.iter().map(|w| if w.abs() > 1e-12 { w.abs() } else { typical }).collect();
                MethodState::Spsa { theta: start.to_vec(), scale, fitness_scale: None }
            }
        };
        Ok(State { settings, generation: 0, method, history: Vec::new() })
    }

    /// The weights to use now: SPSA's current point, or the tournament member with the best record
    /// (Laplace-smoothed win rate; the earliest member on ties).
    pub fn best(&self) -> &[f64] {
        match &self.method {
            MethodState::Spsa { theta, .. } => theta,
            MethodState::Tournament { population, wins, played } => {
                let rate = |i: usize| (wins[i] as f64 + 1.0) / (played[i] as f64 + 2.0);
                let mut best = 0;
                for i in 1..population.len() {
                    if rate(i) > rate(best) {
                        best = i;
                    }
                }
                &population[best]
            }
        }
    }

    /// The games of the next generation.
    pub fn plan(&self) -> Plan {
        let s = &self.settings;
        let mut rng = generation_rng(s.seed, self.generation as u64);
        let seed = rng.next_u64();
        let games = s.games as u64;
        let mut jobs = Vec::new();
        let mut pairs = Vec::new();
        let mut delta = Vec::new();
        let candidates = match &self.method {
            MethodState::Tournament { population, .. } => {
                let mut order: Vec<usize> = (0..population.len()).collect();
                for i in (1..order.len()).rev() {
                    order.swap(i, rng.random_range(0..=i));
                }
                for p in order.chunks_exact(2) {
                    pairs.push((p[0], p[1]));
                    for game in 0..games {
                        if s.fitness.is_battle() {
                            jobs.push(Job::Battle { a: p[0], b: p[1], game });
                        } else {
                            jobs.push(Job::Endless { cand: p[0], game });
                            jobs.push(Job::Endless { cand: p[1], game });
                        }
                    }
                }
                population.clone()
            }
            MethodState::Spsa { theta, scale, .. } => {
                let c = spsa_c(s, self.generation);
                delta = theta.iter().map(|_| if rng.random::<bool>() { 1.0 } else { -1.0 }).collect();
                let shifted = |sign: f64| -> Vec<f64> {
                    theta.iter().zip(scale).zip(&delta).map(|((t, sc), d)| t + sign * c * sc * d).collect()
                };
                let mut cands = vec![shifted(1.0), shifted(-1.0)];
                for game in 0..games {
                    if s.fitness.is_battle() {
                        // Each side against the starting point of the generation, on the same pieces.
                        jobs.push(Job::Battle { a: 0, b: 2, game });
                        jobs.push(Job::Battle { a: 1, b: 2, game });
                    } else {
                        jobs.push(Job::Endless { cand: 0, game });
                        jobs.push(Job::Endless { cand: 1, game });
                    }
                }
                if s.fitness.is_battle() {
                    cands.push(theta.clone());
                }
                cands
            }
        };
        Plan { candidates, jobs, seed, pairs, delta, rng }
    }

    /// The state after `plan` was played with `results` (one per job, any order).
    pub fn advance(&self, plan: Plan, results: &[JobResult]) -> Result<State, String> {
        let s = &self.settings;
        let scores = Scores { jobs: &plan.jobs, results: in_job_order(&plan, results)?, fitness: s.fitness };
        let mut next = self.clone();
        let mut rng = plan.rng;
        let row = match &mut next.method {
            MethodState::Tournament { population, wins, played } => {
                let pool = Pool { population, wins, played };
                tournament_generation(&scores, &plan.pairs, &mut rng, pool, self.generation)
            }
            MethodState::Spsa { theta, scale, fitness_scale } => {
                let spsa = Spsa { theta, scale, fitness_scale };
                spsa_step(s, &scores, &plan.delta, spsa, self.generation)
            }
        };
        next.generation += 1;
        next.history.push(row);
        Ok(next)
    }
}

/// `results` in the order of `plan`'s jobs: an error names a result for no job, a job with two results
/// or one with none.
fn in_job_order<'a>(plan: &Plan, results: &'a [JobResult]) -> Result<Vec<&'a JobResult>, String> {
    let mut by_job: Vec<Option<&JobResult>> = vec![None; plan.jobs.len()];
    for r in results {
        let slot = by_job.get_mut(r.job).ok_or(format!("result for job {} of {}", r.job, plan.jobs.len()))?;
        if slot.replace(r).is_some() {
            return Err(format!("job {} has two results", r.job));
        }
    }
    if let Some(missing) = by_job.iter().position(|r| r.is_none()) {
        return Err(format!("job {missing} of {} has no result", plan.jobs.len()));
    }
    Ok(by_job.into_iter().flatten().collect())
}

/// A generation's results, read as each candidate's fitness.
struct Scores<'a> {
    jobs: &'a [Job],
    /// One per job, in job order.
    results: Vec<&'a JobResult>,
    fitness: Fitness,
}

impl Scores<'_> {
    /// The fitness of candidate `cand` over its endless games.
    fn fitness_of(&self, cand: usize) -> f64 {
        let mut sums = EndlessSums::default();
        for (j, r) in self.jobs.iter().zip(&self.results) {
            if matches!(j, Job::Endless { cand: c, .. } if *c == cand) {
                sums.add(r);
            }
        }
        sums.fitness(self.fitness)
    }

    /// How often candidate `a` beat candidate `b` in their battles.
    fn rate_of(&self, a: usize, b: usize) -> f64 {
        win_rate(
            self.jobs
                .iter()
                .zip(&self.results)
                .filter(|(j, _)| matches!(j, Job::Battle { a: x, b: y, .. } if (*x, *y) == (a, b)))
                .map(|(_, r)| *r),
        )
    }

    /// The fitness of `i` and of `j`: their win rates against each other in battle, else their own.
    fn pair(&self, i: usize, j: usize) -> (f64, f64) {
        if self.fitness.is_battle() {
            let r = self.rate_of(i, j);
            (r, 1.0 - r)
        } else {
            (self.fitness_of(i), self.fitness_of(j))
        }
    }
}

/// The tournament's population with each member's record.
struct Pool<'a> {
    population: &'a mut [Vec<f64>],
    wins: &'a mut [u32],
    played: &'a mut [u32],
}

/// One tournament generation: each pair's winner replaces the loser by a child of the two; the row holds
/// the best winner.
fn tournament_generation(
    scores: &Scores<'_>,
    pairs: &[(usize, usize)],
    rng: &mut Xoshiro256PlusPlus,
    pool: Pool<'_>,
    generation: usize,
) -> Row {
    let Pool { population, wins, played } = pool;
    let mut best: Option<(f64, usize)> = None;
    let mut best_weights = Vec::new();
    for &(i, j) in pairs {
        let (fi, fj) = scores.pair(i, j);
        let i_wins = if fi == fj { rng.random::<bool>() } else { fi > fj };
        let (w, l, fw) = if i_wins { (i, j, fi) } else { (j, i, fj) };
        if best.is_none_or(|(f, _)| fw > f) {
            best = Some((fw, w));
            best_weights = population[w].clone();
        }
        let child: Vec<f64> = population[w]
            .iter()
            .zip(&population[l])
            .map(|(a, b)| (0.8 * a + 0.2 * b) * (1.0 + rng.random_range(-0.05..=0.05)))
            .collect();
        population[l] = child;
        wins[w] += 1;
        played[w] += 1;
        wins[l] = 0;
        played[l] = 0;
    }
    Row { generation, fitness: best.map_or(0.0, |b| b.0), weights: best_weights }
}

/// SPSA's weights, their scales and the fitness scale fixed at the first generation.
struct Spsa<'a> {
    theta: &'a mut [f64],
    scale: &'a [f64],
    fitness_scale: &'a mut Option<f64>,
}

/// One SPSA step from the fitness of the two perturbed weights (candidates 0 and 1; in battle, each
/// one's win rate against the unperturbed weights, candidate 2); the row holds the weights before it.
fn spsa_step(s: &Settings, scores: &Scores<'_>, delta: &[f64], spsa: Spsa<'_>, k: usize) -> Row {
    let Spsa { theta, scale, fitness_scale } = spsa;
    let (fp, fm) = if s.fitness.is_battle() {
        (scores.rate_of(0, 2), scores.rate_of(1, 2))
    } else {
        (scores.fitness_of(0), scores.fitness_of(1))
    };
    let mean = (fp + fm) / 2.0;
    let floor = match s.fitness {
        Fitness::FirstChain => 1.0,
        Fitness::Score => 10.0,
        Fitness::Battle => 0.5,
    };
    let fs = *fitness_scale.get_or_insert(mean.abs().max(floor));
    let g = (fp - fm) / fs / (2.0 * spsa_c(s, k));
    let row = Row { generation: k, fitness: mean, weights: theta.to_vec() };
    for ((t, sc), d) in theta.iter_mut().zip(scale.iter()).zip(delta) {
        // At most half a scale per step: one lucky generation must not throw a weight far off.
        let step = (spsa_a(s, k) * g * d).clamp(-0.5, 0.5);
        *t += step * sc;
    }
    row
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(method: Method) -> Settings {
        Settings {
            method,
            eval: "classic".into(),
            fitness: Fitness::Score,
            seed: 4,
            games: 2,
            pieces: 10,
            colors: 4,
            max_pieces: 10,
            population: 4,
            spread: 0.2,
            spsa_a: 0.2,
            spsa_c: 0.1,
            spsa_stability: 5.0,
            params: vec!["a".into(), "b".into(), "c".into()],
            config_crc: 0,
        }
    }

    /// Endless results where candidate `i` scores `points(i)` per pair.
    fn results(plan: &Plan, points: impl Fn(usize) -> u64) -> Vec<JobResult> {
        plan.jobs
            .iter()
            .enumerate()
            .map(|(job, j)| {
                let Job::Endless { cand, .. } = j else { panic!("endless fitness plays endless jobs") };
                JobResult {
                    job,
                    first_big: 0,
                    score: points(*cand) * 10,
                    pairs: 10,
                    outcome: 0,
                    topped_out: false,
                    asked: 10,
                }
            })
            .collect()
    }

    #[test]
    fn tournament_offspring_is_80_20_within_5_percent_and_replaces_the_loser() {
        let s = State::new(settings(Method::Tournament), &[10.0, -4.0, 2.0]).expect("valid");
        let plan = s.plan();
        let pairs = plan.pairs.clone();
        assert_eq!(pairs.len(), 2);
        // The higher index always has the better fitness, so it wins.
        let next = s.advance(plan.clone(), &results(&plan, |c| c as u64 + 1)).expect("advance");
        let (MethodState::Tournament { population: old, .. }, MethodState::Tournament { population: new, wins, .. }) =
            (&s.method, &next.method)
        else {
            panic!("tournament state")
        };
        for (i, j) in pairs {
            let (w, l) = (i.max(j), i.min(j));
            assert_eq!(new[w], old[w], "the winner survives unchanged");
            assert_eq!(wins[w], 1);
            for k in 0..3 {
                let mix = 0.8 * old[w][k] + 0.2 * old[l][k];
                let ratio = new[l][k] / mix;
                assert!((0.95..=1.05).contains(&ratio), "weight {k}: {} vs {mix}", new[l][k]);
            }
            assert_ne!(new[l], old[l]);
        }
        assert_eq!(next.history.len(), 1);
    }

    #[test]
    fn spsa_moves_towards_the_better_perturbation() {
        let s = State::new(settings(Method::Spsa), &[10.0, -4.0, 2.0]).expect("valid");
        let plan = s.plan();
        let plus = plan.candidates[0].clone();
        // The + side scores better.
        let next = s.advance(plan.clone(), &results(&plan, |c| if c == 0 { 60 } else { 50 })).expect("advance");
        let (MethodState::Spsa { theta: old, .. }, MethodState::Spsa { theta: new, .. }) = (&s.method, &next.method)
        else {
            panic!("spsa state")
        };
        for k in 0..3 {
            let towards = (plus[k] - old[k]).signum();
            assert_eq!((new[k] - old[k]).signum(), towards, "weight {k} moves towards the + side");
        }
        // And away from it when the - side is better.
        let back = s.advance(plan.clone(), &results(&plan, |c| if c == 0 { 50 } else { 60 })).expect("advance");
        let MethodState::Spsa { theta: back, .. } = &back.method else { panic!("spsa state") };
        assert!((0..3).all(|k| (back[k] - old[k]).signum() == -(plus[k] - old[k]).signum()));
    }
}
