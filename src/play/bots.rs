//! Which bot plays a side: the AI's evaluations by name, and a small built-in two-ply bot (`greedy`) that
//! the player's tests use because it is cheap.

use crate::ai::movegen::{MoveRules, PiecePosition, placements};
use crate::ai::{AiConfig, Bot};
use crate::game::{Field, Orientation, Piece, Placement, Rules, Step};
use crate::sim::{Decision, Player, View};

use super::thinker::{Planner, PlayerPlanner};

/// The bot names `[bots]` and `--p1-ai`/`--p2-ai` accept.
pub const KNOWN: [&str; 4] = ["classic", "chain", "random", "greedy"];

/// Makes the bot `name` with weights from the `[ai]` table and a seed.
pub fn make(name: &str, ai: &toml::Table, seed: u64) -> Result<Box<dyn Planner>, String> {
    match name {
        "greedy" => Ok(Box::new(PlayerPlanner(Box::new(Greedy::new(seed))))),
        "classic" | "chain" | "random" => {
            let cfg: AiConfig = toml::Value::Table(ai.clone())
                .try_into()
                .map_err(|e: toml::de::Error| format!("[ai]: {}", e.message()))?;
            let bot = Bot::new(name, &cfg, seed).map_err(|e| e.to_string())?;
            Ok(Box::new(AiPlanner(bot)))
        }
        other => Err(format!("unknown bot {other:?}; expected one of {KNOWN:?}")),
    }
}

/// One of the AI's bots as a [`Planner`]: its plan carries the input path for the driver.
struct AiPlanner(Bot);

impl Planner for AiPlanner {
    fn name(&self) -> &str {
        Player::name(&self.0)
    }

    fn decide(&mut self, view: &View<'_>) -> (Decision, Option<Vec<Step>>) {
        match self.0.plan(view) {
            Some(p) => (Decision { placement: p.placement, expected_chain: p.chain.chains }, Some(p.path)),
            None => (self.0.choose(view), None),
        }
    }
}

/// A two-ply greedy bot: the current and the next piece, scored by chains, connections and height.
#[derive(Clone, Debug)]
pub struct Greedy {
    _seed: u64,
}

impl Greedy {
    /// A greedy bot (deterministic; the seed is kept for symmetry with the AI).
    pub fn new(seed: u64) -> Greedy {
        Greedy { _seed: seed }
    }

    fn evaluate(field: &Field, rules: &Rules) -> i64 {
        if field.is_game_over(rules) {
            return i64::MIN / 4;
        }
        let heights = field.heights();
        let mut v: i64 = 0;
        for (i, &h) in heights.iter().enumerate() {
            let h = h as i64;
            v -= h * h * if i == 2 { 6 } else { 2 };
        }
        // Same-colour neighbours (vertical and horizontal pairs).
        for c in crate::game::Color::ALL {
            let b = field.color_bits(c);
            v += 12 * ((b & (b >> 1)).count_ones() + (b & (b >> 16)).count_ones()) as i64;
        }
        v -= 4 * field.nuisance_count() as i64;
        v
    }

    fn best(field: &Field, piece: Piece, rules: &Rules, next: Option<Piece>) -> Option<(Placement, i64, u32)> {
        let mut best: Option<(Placement, i64, u32)> = None;
        for &pl in placements(field, piece, PiecePosition::spawn(rules), &MoveRules::default()).as_slice() {
            let mut f = *field;
            let Ok(s) = f.play(piece, pl, rules) else { continue };
            let mut value = s.score as i64 / 2 + Self::evaluate(&f, rules);
            if s.chains > 0 {
                value += 200; // clearing keeps the field low, which a one-ply look undervalues
            }
            if let Some(n) = next
                && !f.is_game_over(rules)
                && let Some((_, v2, _)) = Self::best(&f, n, rules, None)
            {
                value = value.max(i64::MIN / 8) / 2 + v2 / 2 + s.score as i64 / 2;
            }
            if best.is_none_or(|(_, b, _)| value > b) {
                best = Some((pl, value, s.chains));
            }
        }
        best
    }
}

impl Player for Greedy {
    fn name(&self) -> &str {
        "greedy"
    }

    fn choose(&mut self, view: &View<'_>) -> Decision {
        match Self::best(view.field, view.current, view.rules, Some(view.next)) {
            Some((placement, _, chains)) => Decision { placement, expected_chain: chains },
            None => Decision { placement: Placement::new(view.rules.spawn_x, Orientation::Up), expected_chain: 0 },
        }
    }
}
