//! Strength levels 0–10: a weaker bot for people to play against, separate from its speed.
//!
//! Level 10 is the configured bot itself, untouched: [`StrengthBot`] hands every decision straight to it
//! and draws nothing from its own RNG, so its decisions are the plain [`Bot`]'s, bit for bit. Each level
//! below takes something away ([`Level::settings`] is the whole table):
//!
//! - a shallower search: no sampled futures from 9 down (the two-ply search of `play --fast`),
//!   and from 4 down only the current piece, without the next one;
//! - a lower chain target from 5 down: the ignition policy fires shorter chains, as beginners do;
//! - deliberate imprecision: with a probability that grows as the level falls, the placement is drawn at
//!   random, from the few next-best placements of the search at 9–7 and from every reachable placement
//!   below. The draw comes from the wrapper's own RNG, seeded from the bot's seed, so a run stays
//!   repeatable for its seed.
//!
//! The levels are measured against each other in `docs/lab/strength-levels.md` (each beats the one below
//! in more than half of its battles).

use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use serde::{Deserialize, Serialize};

use super::bot::{Bot, BotError};
use super::config::AiConfig;
use super::search::DEATH;
use crate::game::movegen::{self, MoveRules, PiecePosition};
use crate::sim::{Decision, Player, View};

/// The strongest level: the configured bot, unchanged.
pub const MAX: u8 = 10;

/// Mixed into the bot's seed for the wrapper's own RNG, so the inner bot's stream stays its own.
const SEED_SALT: u64 = 0x5354_5245_4e47_5448;

/// Where a deliberate mistake is drawn from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pool {
    /// One of the `n` best placements after the search's choice (a near miss).
    NextBest(usize),
    /// Any reachable placement (a beginner's mistake).
    Any,
}

/// What one level changes in the configured bot.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Settings {
    /// Cap on the search's sampled futures (`[ai.search] samples`; `None` keeps the configured value).
    pub samples: Option<u32>,
    /// Known pieces searched (`[ai.search] depth`; `None` keeps it): 1 is the current piece only.
    pub depth: Option<u32>,
    /// Cap on the chain length the ignition policy waits for (`[ai.ignition] min_chain`).
    pub min_chain: Option<u32>,
    /// Probability that a move is a deliberate mistake.
    pub mistake: f64,
    /// Where a mistake is drawn from.
    pub pool: Pool,
}

/// A strength level, 0..=10.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Level(u8);

impl Level {
    /// Full strength: the configured bot.
    pub const FULL: Level = Level(MAX);

    /// The level `n`, or a message giving the range.
    pub fn new(n: u8) -> Result<Level, String> {
        if n <= MAX { Ok(Level(n)) } else { Err(format!("expected a strength 0..={MAX}, got {n}")) }
    }

    /// The level's number.
    pub fn get(self) -> u8 {
        self.0
    }

    /// What this level changes; all `None` and no mistakes at level 10.
    pub fn settings(self) -> Settings {
        // (samples cap, depth, min_chain cap, mistake probability, pool). Chosen so that each level beats
        // the one below it clearly (docs/lab/strength-levels.md has the measurements).
        let (samples, depth, min_chain, mistake, pool) = match self.0 {
            10 => (None, None, None, 0.0, Pool::Any),
            9 => (Some(0), None, None, 0.03, Pool::NextBest(3)),
            8 => (Some(0), None, None, 0.10, Pool::NextBest(4)),
            7 => (Some(0), None, None, 0.20, Pool::NextBest(6)),
            6 => (Some(0), None, None, 0.28, Pool::Any),
            5 => (Some(0), None, Some(8), 0.38, Pool::Any),
            4 => (Some(0), Some(1), Some(6), 0.45, Pool::Any),
            3 => (Some(0), Some(1), Some(5), 0.55, Pool::Any),
            2 => (Some(0), Some(1), Some(4), 0.65, Pool::Any),
            1 => (Some(0), Some(1), Some(3), 0.75, Pool::Any),
            _ => (Some(0), Some(1), Some(2), 0.90, Pool::Any),
        };
        Settings { samples, depth, min_chain, mistake, pool }
    }

    /// `config` as this level's bot plays it (level 10: `config` itself).
    pub fn config(self, config: &AiConfig) -> AiConfig {
        let s = self.settings();
        let mut c = config.clone();
        if let Some(n) = s.samples {
            c.search.samples = c.search.samples.min(n);
        }
        if let Some(d) = s.depth {
            c.search.depth = c.search.depth.min(d);
        }
        if let Some(m) = s.min_chain {
            c.ignition.min_chain = c.ignition.min_chain.min(m);
        }
        c
    }
}

impl Default for Level {
    fn default() -> Self {
        Level::FULL
    }
}

impl std::fmt::Display for Level {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// The level of each side: one number for both (`7`) or one per side (`3,10`). The value of the
/// `--strength` flags and of `[bots] strength` (an integer or a list of two).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Levels(pub [Level; 2]);

impl Default for Levels {
    fn default() -> Self {
        Levels([Level::FULL; 2])
    }
}

impl Levels {
    /// Parses `N` or `N,M` (each 0..=10), for the command line; the message names the range.
    pub fn parse(text: &str) -> Result<Levels, String> {
        let one = |s: &str| -> Result<Level, String> {
            let n: u8 = s.trim().parse().map_err(|_| {
                format!("expected a strength 0..={MAX} or two separated by a comma (e.g. 3,10), got \"{text}\"")
            })?;
            Level::new(n)
        };
        match text.split(',').collect::<Vec<_>>().as_slice() {
            [a] => Ok(Levels([one(a)?; 2])),
            [a, b] => Ok(Levels([one(a)?, one(b)?])),
            _ => Err(format!("expected a strength 0..={MAX} or two separated by a comma (e.g. 3,10), got \"{text}\"")),
        }
    }

    /// The single level of a one-bot mode: refuses two different ones.
    pub fn single(self) -> Result<Level, String> {
        let [a, b] = self.0;
        if a == b { Ok(a) } else { Err(format!("one bot plays here: give one strength, not {a},{b}")) }
    }
}

impl std::fmt::Display for Levels {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let [a, b] = self.0;
        if a == b { write!(f, "{a}") } else { write!(f, "{a},{b}") }
    }
}

impl Serialize for Levels {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let [a, b] = self.0;
        if a == b { s.serialize_u8(a.0) } else { [a.0, b.0].serialize(s) }
    }
}

impl<'de> Deserialize<'de> for Levels {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Levels, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            One(i64),
            Each(Vec<i64>),
        }
        let expected = || format!("expected a strength 0..={MAX} or a list of two (e.g. [3, 10])");
        let raw = Raw::deserialize(d).map_err(|_| serde::de::Error::custom(expected()))?;
        let level = |n: i64| {
            u8::try_from(n)
                .ok()
                .and_then(|n| Level::new(n).ok())
                .ok_or_else(|| serde::de::Error::custom(format!("expected a strength 0..={MAX}, got {n}")))
        };
        match raw {
            Raw::One(n) => Ok(Levels([level(n)?; 2])),
            Raw::Each(v) if v.len() == 2 => Ok(Levels([level(v[0])?, level(v[1])?])),
            Raw::Each(v) => Err(serde::de::Error::custom(format!("{}, got a list of {}", expected(), v.len()))),
        }
    }
}

/// The bot called `name` (see [`super::NAMES`]) playing at `level`.
pub struct StrengthBot {
    inner: Bot,
    level: Level,
    settings: Settings,
    name: String,
    moves: MoveRules,
    rng: Xoshiro256PlusPlus,
}

impl std::fmt::Debug for StrengthBot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StrengthBot").field("name", &self.name).field("inner", &self.inner).finish_non_exhaustive()
    }
}

impl StrengthBot {
    /// Builds the bot `name` from `config` at `level`; `seed` seeds the inner bot exactly as
    /// [`Bot::new`] would, and the mistakes from a stream of their own.
    pub fn new(name: &str, config: &AiConfig, seed: u64, level: Level) -> Result<StrengthBot, BotError> {
        let inner = Bot::new(name, &level.config(config), seed)?;
        Ok(StrengthBot {
            inner,
            level,
            settings: level.settings(),
            name: label(name, level),
            moves: config.search.moves,
            rng: Xoshiro256PlusPlus::seed_from_u64(seed ^ SEED_SALT),
        })
    }

    /// The level it plays at.
    pub fn level(&self) -> Level {
        self.level
    }

    /// A deliberate mistake in place of `best`, or `None` when the draw keeps `best` (or nothing else
    /// can be played).
    fn mistake(&mut self, view: &View<'_>, best: &Decision) -> Option<Decision> {
        let s = self.settings;
        if s.mistake <= 0.0 || !self.rng.random_bool(s.mistake) {
            return None;
        }
        let moves = movegen::generate(view.field, view.current, PiecePosition::spawn(view.rules), &self.moves);
        let placement = match s.pool {
            Pool::Any => moves.get(self.rng.random_range(0..moves.len().max(1)))?.placement,
            Pool::NextBest(n) => {
                // The near misses the search ranked below its choice, never a line it saw topping out.
                let near: Vec<_> = best
                    .ranking
                    .iter()
                    .filter(|(p, v)| *p != best.placement && *v > DEATH * 0.75)
                    .take(n)
                    .map(|(p, _)| *p)
                    .collect();
                if near.is_empty() {
                    return None;
                }
                near[self.rng.random_range(0..near.len())]
            }
        };
        let m = moves.iter().find(|m| m.placement == placement)?;
        let mut field = *view.field;
        let chain = field.play(view.current, placement, view.rules).ok()?;
        Some(Decision { path: m.path.clone(), chain, ranking: best.ranking.clone(), ..Decision::at(placement) })
    }
}

/// The name a bot at `level` goes by in reports and on the HUD: the bot's own name at full strength,
/// with the level after it below (`chain lv3`).
pub fn label(name: &str, level: Level) -> String {
    if level == Level::FULL { name.to_string() } else { format!("{name} lv{level}") }
}

impl Player for StrengthBot {
    fn name(&self) -> &str {
        &self.name
    }

    fn choose(&mut self, view: &View<'_>) -> Decision {
        let best = self.inner.choose(view);
        if self.level == Level::FULL {
            return best;
        }
        self.mistake(view, &best).unwrap_or(best)
    }

    fn set_movement(&mut self, moves: MoveRules) {
        self.moves = moves;
        self.inner.set_movement(moves);
    }

    fn set_deadline(&mut self, deadline: Option<std::time::Instant>) {
        self.inner.set_deadline(deadline);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::deal::{PieceSource, RandomPieces};
    use crate::game::{Field, Rules};

    /// The first `n` decisions of `player` on a fixed deal, each played on its own field.
    fn decisions(player: &mut dyn Player, seed: u64, n: usize) -> Vec<Decision> {
        let rules = Rules::puyo1();
        let mut deal = RandomPieces::new(seed, 4);
        let mut field = Field::new();
        let mut out = Vec::new();
        for i in 0..n {
            let (current, next) = (deal.piece(i), deal.piece(i + 1));
            let view = View { pieces_played: i as u32, ..View::solo(&field, current, next, &rules) };
            let d = player.choose(&view);
            if field.play(current, d.placement, &rules).is_err() || field.is_game_over(&rules) {
                break;
            }
            out.push(d);
        }
        out
    }

    fn small_config() -> AiConfig {
        // Two-ply keeps the tests quick; level 10 must match the plain bot whatever the configuration.
        let mut c = AiConfig::default();
        c.search.samples = 0;
        c
    }

    #[test]
    fn level_10_decides_exactly_as_the_plain_bot() {
        for (config, n) in [(small_config(), 30), (AiConfig::default(), 6)] {
            let mut plain = Bot::new("chain", &config, 77).unwrap();
            let mut full = StrengthBot::new("chain", &config, 77, Level::FULL).unwrap();
            let a = decisions(&mut plain, 5, n);
            let b = decisions(&mut full, 5, n);
            assert_eq!(a.len(), n);
            assert_eq!(a, b);
            assert_eq!(full.name(), "chain");
        }
    }

    #[test]
    fn a_level_is_deterministic_for_a_seed_and_differs_across_seeds() {
        let config = small_config();
        let run = |seed| decisions(&mut StrengthBot::new("chain", &config, seed, Level(2)).unwrap(), 9, 25);
        assert_eq!(run(3), run(3));
        let placements = |d: Vec<Decision>| d.into_iter().map(|d| d.placement).collect::<Vec<_>>();
        assert_ne!(placements(run(3)), placements(run(4)), "the mistakes come from the seed");
    }

    #[test]
    fn low_levels_make_mistakes_and_legal_ones() {
        let config = small_config();
        let mut weak = StrengthBot::new("chain", &config, 1, Level(0)).unwrap();
        // The same search without the mistakes: the bot level 0 wraps.
        let mut sound = Bot::new("chain", &Level(0).config(&config), 1).unwrap();
        assert_eq!(weak.name(), "chain lv0");
        let rules = Rules::puyo1();
        let mut deal = RandomPieces::new(11, 4);
        let field = Field::new();
        let mut differ = 0;
        for i in 0..40 {
            let view = View::solo(&field, deal.piece(i), deal.piece(i + 1), &rules);
            let d = weak.choose(&view);
            let mut f = field;
            assert!(f.play(view.current, d.placement, &rules).is_ok());
            if d.placement != sound.choose(&view).placement {
                differ += 1;
            }
        }
        assert!((20..=40).contains(&differ), "{differ} of 40 moves were mistakes at level 0 (90 % expected)");
    }

    #[test]
    fn settings_weaken_monotonically() {
        let mut last = -1.0;
        for n in (0..=MAX).rev() {
            let s = Level(n).settings();
            assert!(s.mistake >= 0.0 && s.mistake < 1.0);
            if n == MAX {
                assert_eq!(s, Settings { samples: None, depth: None, min_chain: None, mistake: 0.0, pool: Pool::Any });
            }
            if matches!(s.pool, Pool::Any) && n < 7 {
                assert!(s.mistake >= last, "level {n}");
                last = s.mistake;
            }
        }
    }

    #[test]
    fn levels_parse_one_or_two_and_name_the_range() {
        assert_eq!(Levels::parse("7").unwrap(), Levels([Level(7); 2]));
        assert_eq!(Levels::parse("3,10").unwrap(), Levels([Level(3), Level(10)]));
        assert_eq!(Levels::parse(" 0 , 10 ").unwrap(), Levels([Level(0), Level(10)]));
        for bad in ["11", "-1", "x", "1,2,3", "", "3,"] {
            let e = Levels::parse(bad).unwrap_err();
            assert!(e.contains("0..=10"), "{bad}: {e}");
        }
        assert_eq!(Levels::parse("3,10").unwrap().to_string(), "3,10");
        assert!(Levels::parse("3,10").unwrap().single().is_err());
        assert_eq!(Levels::parse("4").unwrap().single().unwrap(), Level(4));
    }
}
