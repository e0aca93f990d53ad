//! The "chain" evaluation: a chain builder. Its main term is the best potential chain the field holds
//! (see [`super::potential`]), valued by length, trigger height, keys needed and room to extend; around
//! it sit field-shape terms (U shape, wells, bumps), 2- and 3-links, nuisance, puyos wasted by pops
//! while building, danger near the top, and a chain-form template term (GTR) whose constraints keep the
//! template from popping early.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::cache::FieldCache;
use super::potential::{self, DetectOptions};
use super::template::Template;
use crate::game::field::{FIELD_MASK, HEIGHT, VISIBLE_MASK, WIDTH};
use crate::game::nuisance::{attack_worth_building, links_to_send};
use crate::game::{ChainSummary, Color, Field, Rules};

/// Weights of the chain evaluation (values are in arbitrary points; higher totals are better).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ChainWeights {
    /// Per link of the best potential chain.
    pub chain: f64,
    /// Per row of the trigger column's height (a high trigger leaves the lower field to the chain).
    pub trigger_height: f64,
    /// Per key puyo the potential chain needs (negative).
    pub keys: f64,
    /// Per unit of room beside the trigger column.
    pub room: f64,
    /// Per 2-link (a pair of same-colour puyos not part of a larger group).
    pub link2: f64,
    /// Per 3-link (a puyo with two same-colour neighbours).
    pub link3: f64,
    /// Per unit of distance from the ideal shape (negative).
    pub shape: f64,
    /// Per unit of "U" violation: middle columns above the outer ones (negative).
    pub u_shape: f64,
    /// Per row of well depth (negative).
    pub well: f64,
    /// Per row of bump height (negative).
    pub bump: f64,
    /// Per nuisance puyo on the field (negative).
    pub nuisance: f64,
    /// Per puyo popped along the searched path while building (negative).
    pub waste: f64,
    /// Per row a column stands in the danger zone near the top (negative).
    pub danger: f64,
    /// A searched line that fires a chain the ignition policy would fire is worth `chain` per link of it
    /// plus this (its puyos are then no waste): the search sets up the trigger instead of burying it.
    pub planned_fire: f64,
    /// Per template cell filled consistently.
    pub template: f64,
    /// Per template constraint broken (negative).
    pub template_violation: f64,
    /// Template name (`gtr`) or empty for none.
    pub template_name: String,
    /// Most keys stacked on a trigger column by the detector.
    pub detect_keys: u32,
    /// Extension rounds of the detector.
    pub detect_extend: u32,
    /// The detector extends only triggers within this many links of the longest one (a large value
    /// extends every trigger).
    pub detect_slack: u32,
    /// Most keys of one colour an extension round of the detector adds to one column (1..=3).
    pub detect_extend_keys: u32,
    /// Ideal height offsets from the mean, column 1 first.
    pub shape_offsets: [f64; WIDTH],
    /// Battle: replaces `chain` (per potential link up to the links worth building plus
    /// `battle_spare_links`).
    pub battle_chain: f64,
    /// Battle: links of potential chain beyond those of the shortest chain that sends the per-chain cap
    /// (with no cap: an empty field's lethal dose; [`crate::game::nuisance::links_worth_building`]) plus
    /// this many are worth only `battle_extra_chain` each: a longer chain sends no more.
    pub battle_spare_links: u32,
    /// Battle: value of each potential link beyond those.
    pub battle_extra_chain: f64,
    /// Battle: per puyo on the field (a low field absorbs the opponent's nuisance).
    pub battle_puyos: f64,
    /// Battle: per nuisance puyo the potential chain sends, up to the attack worth building (the cap, or
    /// with no cap an empty field's lethal dose). Values a chain by what it sends rather than by its
    /// links, so a two-step chain whose second step pops two or three colours at once counts for its
    /// colour bonus. 0 (the `chain` bot) leaves the links alone in charge.
    pub battle_sent: f64,
}

impl Default for ChainWeights {
    fn default() -> Self {
        ChainWeights {
            chain: 1000.0,
            trigger_height: 100.0,
            keys: -300.0,
            room: 100.0,
            link2: 100.0,
            link3: 150.0,
            shape: -40.0,
            u_shape: -100.0,
            well: -60.0,
            bump: -60.0,
            nuisance: -200.0,
            waste: -200.0,
            danger: -800.0,
            planned_fire: 3000.0,
            template: 60.0,
            template_violation: -150.0,
            template_name: "gtr".into(),
            detect_keys: 3,
            detect_extend: 2,
            detect_slack: 2,
            detect_extend_keys: 2,
            shape_offsets: [2.0, 1.0, -1.0, -1.0, 0.0, 1.0],
            battle_chain: 1000.0,
            battle_spare_links: 1,
            battle_extra_chain: 100.0,
            battle_puyos: -40.0,
            battle_sent: 0.0,
        }
    }
}

/// The chain length worth firing on a field: `min_chain`, one link less per `patience_step` puyos beyond
/// `patience_puyos` (0 = never less). The ignition policy's rule, carried into the search so that a line
/// is valued by what the policy would do on the field it reaches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FireThreshold {
    /// Links worth firing on a field of at most `patience_puyos` puyos.
    pub min_chain: u32,
    /// Above this many puyos the requirement drops (0 = never).
    pub patience_puyos: u32,
    /// One link per this many further puyos.
    pub patience_step: u32,
}

impl FireThreshold {
    /// The links worth firing on a field holding `puyos` puyos (at least 1).
    pub fn at(&self, puyos: u32) -> u32 {
        if self.patience_puyos == 0 || puyos <= self.patience_puyos {
            return self.min_chain.max(1);
        }
        let drop = (puyos - self.patience_puyos) / self.patience_step.max(1);
        self.min_chain.saturating_sub(drop).max(1)
    }
}

/// What a chain evaluation is told about the move it values, besides the field: the bot builds it per
/// move from what it observes and asks for an evaluation in that context ([`ChainEval::in_context`]), so
/// the evaluation itself is never changed from one move to the next.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EvalContext {
    /// Battle mode: long potential chains are capped (see [`ChainWeights::battle_spare_links`]).
    pub battle: bool,
    /// The chain length the ignition policy fires (endless): a searched line that fires at least that
    /// much on the field it fires from is valued as a planned fire ([`ChainEval::fired_value`]). `None`:
    /// every pop along a line is waste.
    pub fire_at: Option<FireThreshold>,
    /// Replaces [`ChainWeights::detect_extend_keys`] (the search's look asks for it); `None` keeps the
    /// weight.
    pub extend_keys: Option<u32>,
}

/// A ready-to-use chain evaluation: weights plus compiled templates, in one move's context.
#[derive(Clone, Debug)]
pub struct ChainEval {
    /// The weights (fixed at construction: the cache's values depend on them).
    weights: ChainWeights,
    /// What this evaluation knows of the move (see [`EvalContext`]).
    context: EvalContext,
    templates: Vec<Template>,
    /// Field values already computed, by field (rules, battle mode and extension keys checked on each
    /// lookup); `None` when caching is off (see [`ChainEval::set_caching`]). Shared by the evaluations
    /// of every move ([`ChainEval::in_context`]): a field met in one decision is met again in the next.
    cache: Option<Arc<FieldCache>>,
}

/// The parts of a chain evaluation, for logs and tests.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ChainBreakdown {
    /// Value of the best potential chain (with its trigger terms), 0 when none.
    pub potential: f64,
    /// Length of the best potential chain.
    pub potential_chains: u32,
    /// Score of the best potential chain.
    pub potential_score: u32,
    /// Shape, links, nuisance, danger and waste terms.
    pub static_terms: f64,
    /// Template term.
    pub template: f64,
    /// Total.
    pub total: f64,
}

/// Counts 2-links and 3-links of a field's colours, within the visible rows.
pub fn links_23(field: &Field) -> (u32, u32) {
    let (mut l2, mut l3) = (0, 0);
    for c in Color::ALL {
        let m = field.color_bits(c) & VISIBLE_MASK;
        if m == 0 {
            continue;
        }
        let up = m & (m >> 1);
        let down = m & (m << 1) & FIELD_MASK;
        let right = m & (m >> 16);
        let left = m & (m << 16) & FIELD_MASK;
        // A cell with at least two same-colour neighbours is the middle of a 3-link.
        let ud_and = (m & (m >> 1)) & (m & (m << 1));
        let lr_and = (m & (m >> 16)) & (m & (m << 16));
        let three = ((up | down) & (left | right)) | ud_and | lr_and;
        let expanded = three | (crate::game::field::neighbours(three) & m);
        // A 2-link: a same-colour neighbour pair (counted once, from its lower/left cell) outside any 3-link.
        let pairs_v = m & (m >> 1) & !expanded & !(expanded >> 1);
        let pairs_h = m & (m >> 16) & !expanded & !(expanded >> 16);
        l2 += pairs_v.count_ones() + pairs_h.count_ones();
        l3 += three.count_ones();
    }
    (l2, l3)
}

impl ChainEval {
    /// Builds the evaluation; an unknown template name is an error.
    pub fn new(weights: ChainWeights) -> Result<ChainEval, String> {
        let templates = if weights.template_name.is_empty() {
            Vec::new()
        } else {
            match super::template::builtin(&weights.template_name) {
                Some(t) => t.to_vec(),
                None => return Err(format!("unknown template {:?} (known: gtr)", weights.template_name)),
            }
        };
        Ok(ChainEval { weights, context: EvalContext::default(), templates, cache: Some(Arc::new(FieldCache::new())) })
    }

    /// This evaluation in the context of one move: the same weights, templates and field cache (values
    /// are cached by context, so sharing the table is safe).
    pub fn in_context(&self, context: EvalContext) -> ChainEval {
        ChainEval { context, ..self.clone() }
    }

    /// The context this evaluation values fields in.
    pub fn context(&self) -> &EvalContext {
        &self.context
    }

    /// Turns the field cache on or off (on after [`ChainEval::new`]). It pays for itself in a search
    /// with sampled futures, which meets the same fields many times; a plain two-ply search meets each
    /// field about once, and its 4 MiB would be memory for nothing.
    pub fn set_caching(&mut self, on: bool) {
        self.cache = on.then(|| Arc::new(FieldCache::new()));
    }

    /// The weights.
    pub fn weights(&self) -> &ChainWeights {
        &self.weights
    }

    /// The value a searched line gains by firing `chain` from a field of `puyos` puyos, when that is a
    /// planned fire (at least [`EvalContext::fire_at`] links there); `None` otherwise. Links are weighed
    /// as in a potential chain, so that firing it is worth what holding it was, plus `planned_fire`.
    #[inline]
    pub fn fired_value(&self, chain: &ChainSummary, puyos: u32) -> Option<f64> {
        let at = self.context.fire_at?.at(puyos);
        let w = &self.weights;
        (chain.chains >= at).then_some(w.chain * chain.chains as f64 + w.planned_fire)
    }

    /// The value of a field reached after popping `waste` puyos along the way: the field's own value
    /// (computed once per field, see [`FieldCache`]) plus the waste term.
    pub fn evaluate(&self, field: &Field, waste: u32, rules: &Rules) -> f64 {
        let own = match &self.cache {
            Some(cache) => {
                cache.get_or_insert(field, rules, self.cache_tag(), || self.breakdown(field, 0, rules).total)
            }
            None => self.breakdown(field, 0, rules).total,
        };
        own + self.waste_value(waste)
    }

    /// What besides the field and the rules a cached value depends on: battle mode and the detector's
    /// extension keys.
    fn cache_tag(&self) -> u64 {
        self.context.battle as u64 | (self.context.extend_keys.map_or(0, |k| k as u64 + 1) << 1)
    }

    /// The value of popping `waste` puyos while building.
    fn waste_value(&self, waste: u32) -> f64 {
        // Popping to dig out of nuisance is no waste in a battle.
        if self.context.battle { 0.0 } else { self.weights.waste * waste as f64 }
    }

    /// The best chain the field can still fire, valued by the weights: its value (0 without one), links
    /// and score.
    fn potential(&self, field: &Field, rules: &Rules) -> (f64, u32, u32) {
        let w = &self.weights;
        let opts = DetectOptions {
            max_keys: w.detect_keys,
            extend_depth: w.detect_extend,
            extend_slack: w.detect_slack,
            extend_keys: self.context.extend_keys.unwrap_or(w.detect_extend_keys),
        };
        let mut best = f64::NEG_INFINITY;
        let (mut best_chains, mut best_score) = (0, 0);
        // In battle: the attack worth building, and the links of the plain chain that sends it.
        let (sent_worth, battle_links) = if self.context.battle {
            let worth = attack_worth_building(rules);
            (worth, links_to_send(worth, rules) + w.battle_spare_links)
        } else {
            (0, 0)
        };
        potential::detect(field, rules, opts, |p| {
            let links = if !self.context.battle {
                w.chain * p.chains as f64
            } else {
                let capped = p.chains.min(battle_links);
                let extra = p.chains - capped;
                let mut v = w.battle_chain * capped as f64 + w.battle_extra_chain * extra as f64;
                if w.battle_sent != 0.0 {
                    // Under the cap by construction: `sent_worth` is at most the cap.
                    v += w.battle_sent * (p.score / rules.nuisance_rate.max(1)).min(sent_worth) as f64;
                }
                v
            };
            let v =
                links + w.trigger_height * p.trigger_height as f64 + w.keys * p.keys as f64 + w.room * p.room as f64;
            if v > best {
                best = v;
                best_chains = p.chains;
                best_score = p.score;
            }
        });
        (if best.is_finite() { best } else { 0.0 }, best_chains, best_score)
    }

    /// The value of a field with its parts.
    pub fn breakdown(&self, field: &Field, waste: u32, rules: &Rules) -> ChainBreakdown {
        let w = &self.weights;
        let heights = field.heights();
        let (potential, best_chains, best_score) = self.potential(field, rules);

        let mean = heights.iter().sum::<usize>() as f64 / WIDTH as f64;
        let shape: f64 = (0..WIDTH).map(|i| (heights[i] as f64 - mean - w.shape_offsets[i]).abs()).sum();
        let h = |x: usize| heights[x - 1] as i64;
        let u = (h(3) - h(2)).max(0)
            + (h(3) - h(1)).max(0)
            + (h(2) - h(1)).max(0)
            + (h(4) - h(5)).max(0)
            + (h(4) - h(6)).max(0)
            + (h(5) - h(6)).max(0);
        let mut well = (h(2) - h(1)).max(0) + (h(5) - h(6)).max(0);
        let mut bump = 0;
        for x in 2..=5 {
            if h(x) < h(x - 1) && h(x) < h(x + 1) {
                well += h(x - 1).min(h(x + 1)) - h(x);
            }
            if h(x) > h(x - 1) && h(x) > h(x + 1) {
                bump += h(x) - h(x - 1).max(h(x + 1));
            }
        }
        let (l2, l3) = links_23(field);
        let danger = danger(&h, rules);
        let static_terms = w.shape * shape
            + w.u_shape * u as f64
            + w.well * well as f64
            + w.bump * bump as f64
            + w.link2 * l2 as f64
            + w.link3 * l3 as f64
            + w.nuisance * field.nuisance_count() as f64
            + if self.context.battle { w.battle_puyos * field.count() as f64 } else { 0.0 }
            + w.danger * (danger * danger) as f64;
        let template = self
            .templates
            .iter()
            .map(|t| {
                let (filled, violations) = t.fit(field);
                w.template * filled as f64 + w.template_violation * violations as f64
            })
            .fold(0.0, f64::max);
        // The waste term comes last so that the cached value plus it is this total to the bit.
        let waste = self.waste_value(waste);
        ChainBreakdown {
            potential,
            potential_chains: best_chains,
            potential_score: best_score,
            static_terms: static_terms + waste,
            template,
            total: (potential + static_terms + template) + waste,
        }
    }
}

/// Danger: a death column within two rows of its death cell (above 10 on the arcade rule), the columns
/// next to one within two rows of the spawning pair's lowest row (above 11: they wall the piece in).
/// `h(x)` is column `x`'s height.
fn danger(h: &impl Fn(usize) -> i64, rules: &Rules) -> i64 {
    let wall_in = (HEIGHT - 2 - rules.spawn_bottom_row()) as i64;
    (1..=WIDTH)
        .map(|x| {
            if rules.is_death_column(x) {
                (h(x) - (rules.safe_height(x) as i64 - 2)).max(0)
            } else if (x > 1 && rules.is_death_column(x - 1)) || (x < WIDTH && rules.is_death_column(x + 1)) {
                (h(x) - wall_in).max(0)
            } else {
                0
            }
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_count_pairs_and_triples() {
        // RR pair, GGG line (its middle is a 3-link), B alone.
        let f = Field::from_rows(&["RR.GGG", "B....."]);
        assert_eq!(links_23(&f), (1, 1));
    }

    #[test]
    fn a_chain_worth_firing_is_a_planned_fire_and_anything_shorter_is_waste() {
        let weights = ChainWeights { chain: 1000.0, planned_fire: 500.0, ..ChainWeights::default() };
        let mut eval = ChainEval::new(weights).expect("gtr");
        let two = ChainSummary { chains: 2, score: 360, cleared: 8 };
        let one = ChainSummary { chains: 1, score: 40, cleared: 4 };
        let as_eval = |e: &ChainEval| super::super::Evaluation::Chain(Box::new(e.clone()));
        // Without a firing threshold every pop is waste.
        assert_eq!(as_eval(&eval).line_step(&two, 20), (8, 0.0));
        let fire_at = |t| EvalContext { fire_at: Some(t), ..EvalContext::default() };
        eval = eval.in_context(fire_at(FireThreshold { min_chain: 2, patience_puyos: 0, patience_step: 1 }));
        assert_eq!(eval.fired_value(&two, 20), Some(2.0 * 1000.0 + 500.0));
        assert_eq!(as_eval(&eval).line_step(&two, 20), (0, 2500.0));
        assert_eq!(as_eval(&eval).line_step(&one, 20), (4, 0.0));
        // With patience, a shorter chain is a planned fire once the field it fires from is full enough.
        eval = eval.in_context(fire_at(FireThreshold { min_chain: 3, patience_puyos: 40, patience_step: 5 }));
        assert_eq!(as_eval(&eval).line_step(&two, 44), (8, 0.0));
        assert_eq!(as_eval(&eval).line_step(&two, 45), (0, 2500.0));
    }

    #[test]
    fn a_cached_value_is_the_full_evaluation_to_the_bit_in_either_mode() {
        let mut eval = ChainEval::new(ChainWeights::default()).expect("gtr");
        let rules = Rules::puyo1();
        let f = Field::from_rows(&["R.....", "G..B..", "GB.YY.", "GRRBYR"]);
        for caching in [true, false] {
            eval.set_caching(caching);
            for battle in [false, true, false] {
                eval = eval.in_context(EvalContext { battle, ..EvalContext::default() });
                for waste in [0, 7, 0] {
                    let full = eval.breakdown(&f, waste, &rules).total;
                    let got = eval.evaluate(&f, waste, &rules);
                    assert_eq!(got.to_bits(), full.to_bits(), "caching {caching} battle {battle} waste {waste}");
                }
            }
        }
        eval.set_caching(true);
        // Battle mode values the same field differently, so the cache must not answer across modes.
        let endless = ChainEval::new(ChainWeights::default()).expect("gtr");
        let battle = eval.in_context(EvalContext { battle: true, ..EvalContext::default() });
        assert_ne!(eval.evaluate(&f, 0, &rules), battle.evaluate(&f, 0, &rules));
        assert_eq!(endless.evaluate(&f, 0, &rules), eval.evaluate(&f, 0, &rules));
    }

    #[test]
    fn the_extension_keys_a_look_asks_for_replace_the_weight_and_are_cached_apart() {
        // An R key pops column 2's Rs and its G falls beside column 1's: two G keys on column 1 or 3 make
        // the second link (and more through the right-hand columns), one key cannot.
        let f = Field::from_rows(&["...BYB", "...YBY", ".G.BYB", ".R.YBY", ".R.BYB", "GR.YBY"]);
        let rules = Rules::puyo1();
        let mut eval = ChainEval::new(ChainWeights::default()).expect("gtr");
        assert_eq!(eval.weights().detect_extend_keys, 2);
        let two = eval.evaluate(&f, 0, &rules);
        assert!(eval.breakdown(&f, 0, &rules).potential_chains >= 2);
        eval = eval.in_context(EvalContext { extend_keys: Some(1), ..EvalContext::default() });
        assert_eq!(eval.breakdown(&f, 0, &rules).potential_chains, 1);
        let one = ChainEval::new(ChainWeights { detect_extend_keys: 1, ..ChainWeights::default() }).expect("gtr");
        // The cache holds the two-key value of this field: asked for one key, it must not answer with it.
        let got = eval.evaluate(&f, 0, &rules);
        assert_eq!(got.to_bits(), one.breakdown(&f, 0, &rules).total.to_bits());
        assert!(got < two);
        eval = eval.in_context(EvalContext::default());
        assert_eq!(eval.evaluate(&f, 0, &rules).to_bits(), two.to_bits());
    }

    #[test]
    fn battle_values_links_by_its_own_weights_and_endless_by_chain_and_score() {
        let rules = Rules::puyo1();
        let f = Field::from_rows(&["R.....", "G.....", "G.....", "GRRR.."]);
        let value = |w: ChainWeights, battle: bool| {
            let e = ChainEval::new(w).expect("gtr").in_context(EvalContext { battle, ..EvalContext::default() });
            e.breakdown(&f, 0, &rules).potential
        };
        let base = ChainWeights::default();
        let endless_only = ChainWeights { chain: 1.0, ..base.clone() };
        let battle_only = ChainWeights { battle_chain: 1.0, ..base.clone() };
        // Each mode reads its own pair of weights and ignores the other's.
        assert_eq!(value(endless_only.clone(), true), value(base.clone(), true));
        assert_eq!(value(battle_only.clone(), false), value(base.clone(), false));
        assert_ne!(value(endless_only, false), value(base.clone(), false));
        assert_ne!(value(battle_only, true), value(base, true));
    }

    #[test]
    fn battle_sent_values_a_two_step_chain_by_its_colour_bonus() {
        let rules = Rules::puyo1();
        // A red key on column 4 pops five reds; green, blue and yellow then fall onto their groups and
        // pop together: two links, 12 puyos of 3 colours in the second, 25 nuisance.
        let triple = Field::from_rows(&["GBY...", "RRR...", "GBYR..", "GBY...", "GBY..."]);
        let plain_two = Field::from_rows(&["R.....", "G.....", "G.....", "GRRR.."]);
        let potential = |sent: f64, battle: bool, f: &Field| {
            let w = ChainWeights { battle_sent: sent, ..ChainWeights::default() };
            let e = ChainEval::new(w).expect("gtr").in_context(EvalContext { battle, ..EvalContext::default() });
            e.breakdown(f, 0, &rules)
        };
        let b = potential(0.0, true, &triple);
        assert_eq!((b.potential_chains, b.potential_score / rules.nuisance_rate), (2, 25));
        let plain = potential(0.0, true, &plain_two);
        assert_eq!(plain.potential_chains, 2);
        // Both are two links; only the weight on what is sent tells them apart, by at least 25 - 2 sent.
        let gain = |f: &Field| potential(10.0, true, f).potential - potential(0.0, true, f).potential;
        assert!(gain(&triple) >= 250.0, "{}", gain(&triple));
        assert!(gain(&triple) - gain(&plain_two) >= 10.0 * 20.0);
        // Endless play never reads it.
        assert_eq!(potential(10.0, false, &triple).total.to_bits(), potential(0.0, false, &triple).total.to_bits());
    }

    #[test]
    fn a_field_with_a_longer_potential_chain_scores_higher() {
        let eval = ChainEval::new(ChainWeights::default()).expect("gtr exists");
        let rules = Rules::puyo1();
        // Two-chain potential vs a field of the same puyos with no chain behind its trigger.
        let two = Field::from_rows(&["R.....", "G.....", "G.....", "GRRR.."]);
        let flat = Field::from_rows(&["B.....", "G.....", "G.....", "GRRY.."]);
        let b2 = eval.breakdown(&two, 0, &rules);
        let b1 = eval.breakdown(&flat, 0, &rules);
        assert_eq!(b2.potential_chains, 2);
        assert!(b2.potential > b1.potential);
    }
}
