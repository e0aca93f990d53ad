//! The ignition policy: when to fire the best chain available now instead of building on.
//!
//! Endless: fire a chain of at least `min_chain` links — a requirement that drops as the field fills
//! up — or anything when the field is about to top out. Battle: fire when the chain sends a full load of nuisance (the per-chain cap
//! makes longer chains pointless), when nuisance is coming, or when the opponent is nearly full.

use serde::{Deserialize, Serialize};

use super::eval::FireThreshold;
use crate::game::View;
use crate::game::{ChainSummary, Field, Rules};

/// Puyos sooner that a cautious bot ([`IgnitionPolicy::cautious`]) starts lowering the chain it fires.
pub const CAUTION_PUYOS: u32 = 8;

/// Thresholds of the ignition policy.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct IgnitionPolicy {
    /// Fire a chain of at least this many links.
    pub min_chain: u32,
    /// Above this many puyos on the field the required length drops (0 = never)...
    pub patience_puyos: u32,
    /// ...by one link per this many further puyos.
    pub patience_step: u32,
    /// The field is in danger with this many puyos on it: fire the best chain there is.
    pub danger_puyos: u32,
    /// A build is stuck when the field holds this many puyos (0 = never)...
    pub stuck_puyos: u32,
    /// ...and neither the search's best placement nor the field as it stands keeps a potential chain this
    /// long: the bot then plays for survival. (The best placement alone may cover the trigger for one move
    /// because the known next pair uncovers it.)
    pub stuck_chain: u32,
    /// ...nor do the search's best lines through that placement, in at least this percentage of its looks
    /// ahead, fire a planned chain or end on a field with such a potential (0 = never mind them): a
    /// trigger the next pieces uncover or complete is a build the search sees and the field alone hides.
    pub stuck_ahead_percent: u32,
    /// Or when the spawn column is this high.
    pub danger_height: usize,
    /// Endless: in danger, a chain shorter than this is not fired by the policy; the survival search
    /// decides instead (it may still pop it, or make room without breaking the build). 0 or 1 = fire any
    /// chain in danger.
    pub danger_min_chain: u32,
    /// Endless: a field in danger only by height (fewer than `danger_puyos` puyos, counting incoming
    /// nuisance) whose best move keeps a potential chain of at least this many links is not given up: no
    /// danger fire, no survival move; the chain search, which never picks a top-out, plays on (0 = off).
    pub danger_keep_chain: u32,
    /// Sampled futures the survival search looks through when the bot plays for survival (at least the
    /// search's own `samples`; the survival evaluation is cheap, so a deeper look costs little and finds
    /// pops that take two or three pieces to set up).
    pub survival_samples: u32,
    /// Endless: the search values a line that fires a chain this policy would fire now as a planned fire
    /// (its links plus `[ai.chain] planned_fire`) rather than as waste, so the bot sets up the trigger for
    /// the next pieces instead of burying it.
    pub plan_fire: bool,
    /// Endless: when the policy would fire a chain now, but a placement that fires nothing leaves a field
    /// from which the known next pair fires a longer chain still worth firing there, play that placement
    /// and fire next move.
    pub wait_for_longer: bool,
    /// Endless: before the policy fires a chain because it reached the required length, play this many
    /// futures on with the cheap two-ply search, and keep building when they end, on average, on a chain
    /// longer (0 = off; see [`super::playout`]).
    pub playouts: u32,
    /// Pieces each such play-out places at most (the known next pair, then sampled ones).
    pub playout_pairs: u32,
    /// Battle: fire when the chain sends at least this much nuisance (capped by the rules' per-chain cap).
    pub battle_nuisance: u32,
    /// Battle: fire a chain of 2+ links when at least this much nuisance is on its way to us (0 = off).
    pub answer_incoming: u32,
    /// Battle: fire anything sending a row or more when the opponent holds at least this many puyos (0 = off).
    pub finish_opponent_puyos: u32,
}

impl Default for IgnitionPolicy {
    fn default() -> Self {
        IgnitionPolicy {
            min_chain: 14,
            patience_puyos: 58,
            patience_step: 3,
            danger_puyos: 72,
            stuck_puyos: 60,
            stuck_chain: 6,
            stuck_ahead_percent: 50,
            danger_height: 11,
            danger_min_chain: 4,
            danger_keep_chain: 10,
            survival_samples: 4,
            plan_fire: true,
            wait_for_longer: true,
            playouts: 8,
            playout_pairs: 8,
            battle_nuisance: 24,
            answer_incoming: 6,
            finish_opponent_puyos: 36,
        }
    }
}

/// Why the policy fires (the decision carries it, so it lives with [`crate::game::Decision`]).
pub use crate::game::FireReason as Reason;

impl IgnitionPolicy {
    /// Whether a build keeping a potential of `potential` links rides out a danger that is only the
    /// height of the field (see [`IgnitionPolicy::danger_keep_chain`]): endless, under `danger_puyos`.
    pub fn keeps_build_in_danger(&self, view: &View<'_>, potential: Option<u32>) -> bool {
        let incoming = view.nuisance_on_me;
        view.opponent.is_none()
            && self.danger_keep_chain > 0
            && potential.is_some_and(|p| p >= self.danger_keep_chain)
            && view.field.count() + incoming < self.danger_puyos
    }

    /// The thresholds for a link that drops or invents presses ([`View::caution`]), or a game's clock
    /// that already cuts columns off from the spawn ([`crate::game::movegen::cut_off`]): a pair may lock
    /// off its placement or fail to get past the stacks, and a tall stack does not survive many of those,
    /// so the required chain starts dropping [`CAUTION_PUYOS`] puyos sooner, danger comes a row sooner,
    /// and a build is not ridden out in danger.
    pub fn cautious(&self) -> IgnitionPolicy {
        let patience_puyos =
            if self.patience_puyos == 0 { 0 } else { self.patience_puyos.saturating_sub(CAUTION_PUYOS).max(1) };
        IgnitionPolicy {
            patience_puyos,
            danger_height: self.danger_height.saturating_sub(1),
            danger_keep_chain: 0,
            ..self.clone()
        }
    }

    /// The chain length worth firing on this field: `min_chain`, lowered as the field fills up.
    pub fn required_chain(&self, field: &Field) -> u32 {
        self.threshold().at(field.count())
    }

    /// The rule behind [`IgnitionPolicy::required_chain`], for the search.
    pub fn threshold(&self) -> FireThreshold {
        FireThreshold {
            min_chain: self.min_chain,
            patience_puyos: self.patience_puyos,
            patience_step: self.patience_step,
        }
    }

    /// Whether to fire `chain` (the best chain a placement fires now) given what the player sees.
    pub fn should_fire(&self, view: &View<'_>, chain: &ChainSummary) -> Option<Reason> {
        if chain.chains == 0 {
            return None;
        }
        if chain.chains >= self.required_chain(view.field) {
            return Some(Reason::Threshold);
        }
        let incoming = view.nuisance_on_me + view.opponent.map_or(0, |o| o.incoming_from_chain);
        // Endless only: in a battle a short pop in danger also answers nuisance.
        let long_enough = view.opponent.is_some() || chain.chains >= self.danger_min_chain;
        if long_enough && in_danger(view.field, incoming, view.rules, self) {
            return Some(Reason::Danger);
        }
        let opponent = view.opponent?;
        let sends = nuisance_of(chain.score, view.rules);
        if sends >= self.battle_nuisance.min(view.rules.nuisance_cap()) {
            return Some(Reason::FullLoad);
        }
        if self.answer_incoming > 0 && incoming >= self.answer_incoming && chain.chains >= 2 {
            return Some(Reason::Answer);
        }
        if self.finish_opponent_puyos > 0 && opponent.field.count() >= self.finish_opponent_puyos && sends >= 6 {
            return Some(Reason::Finish);
        }
        None
    }
}

/// Nuisance a chain of `score` points sends (no carry), capped per chain.
pub fn nuisance_of(score: u32, rules: &Rules) -> u32 {
    (score / rules.nuisance_rate.max(1)).min(rules.nuisance_cap())
}

/// True when the field is close to topping out by the policy's measures, counting the `incoming`
/// nuisance (pending or on its way) as if it had fallen already.
pub fn in_danger(field: &Field, incoming: u32, rules: &Rules, policy: &IgnitionPolicy) -> bool {
    let rows = incoming.div_ceil(crate::game::WIDTH as u32) as usize;
    field.count() + incoming >= policy.danger_puyos
        || (1..=crate::game::WIDTH).any(|x| {
            // A column whose death cell sits lower than the usual spawn cell is in danger sooner.
            rules.is_death_column(x)
                && field.height(x) + rows + (crate::game::HEIGHT - 2 - rules.safe_height(x)) >= policy.danger_height
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::{Color, Pair, Piece};

    #[test]
    fn in_danger_a_short_chain_is_left_to_the_survival_search_in_endless_only() {
        // 72 puyos: in danger by count.
        let mut field = Field::new();
        for x in 1..=crate::game::WIDTH {
            for y in 2..crate::game::HEIGHT {
                field.set(x, y, crate::game::Cell::Nuisance);
            }
        }
        assert_eq!(field.count(), 72);
        let rules = Rules::puyo1();
        let pair = Piece::Pair(Pair::new(Color::ALL[0], Color::ALL[1]));
        let view = View {
            field: &field,
            current: pair,
            next: pair,
            nuisance_on_me: 0,
            opponent: None,
            rules: &rules,
            pieces_played: 40,
            pieces_left: None,
            caution: false,
            revealed: &[],
        };
        let one_link = ChainSummary { chains: 1, score: 40, cleared: 4 };
        let four_links = ChainSummary { chains: 4, score: 2000, cleared: 16 };
        let any = IgnitionPolicy { danger_min_chain: 0, ..IgnitionPolicy::default() };
        let four = IgnitionPolicy { danger_min_chain: 4, ..IgnitionPolicy::default() };
        assert_eq!(any.should_fire(&view, &one_link), Some(Reason::Danger));
        assert_eq!(four.should_fire(&view, &one_link), None);
        assert_eq!(four.should_fire(&view, &four_links), Some(Reason::Danger));
        // In a battle any chain still fires in danger.
        let opponent = crate::game::OpponentView { field: &field, nuisance_on_them: 0, incoming_from_chain: 0 };
        let battle = View { opponent: Some(opponent), ..view };
        assert_eq!(four.should_fire(&battle, &one_link), Some(Reason::Danger));
    }

    #[test]
    fn a_cautious_bot_fires_shorter_chains_sooner_and_rides_out_no_danger() {
        let p = IgnitionPolicy::default();
        let c = p.cautious();
        let field_of = |n: usize| {
            let mut f = Field::new();
            for i in 0..n {
                f.set(
                    1 + i % crate::game::WIDTH,
                    crate::game::HEIGHT - 1 - i / crate::game::WIDTH,
                    crate::game::Cell::Nuisance,
                );
            }
            f
        };
        // Below the cautious patience both want the full chain; between the two patiences only the
        // cautious one asks for less.
        let (low, mid) = (field_of(48), field_of(56));
        assert_eq!((p.required_chain(&low), c.required_chain(&low)), (p.min_chain, p.min_chain));
        assert_eq!(p.required_chain(&mid), p.min_chain);
        assert!(c.required_chain(&mid) < p.min_chain, "{}", c.required_chain(&mid));
        assert_eq!((c.danger_height, c.danger_keep_chain), (p.danger_height - 1, 0));
        assert_eq!(IgnitionPolicy { patience_puyos: 0, ..p }.cautious().patience_puyos, 0, "never stays never");
    }
}
