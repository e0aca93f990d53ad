//! Ignition by play-outs: before the ignition policy fires a chain because it reached the required length
//! (with the patience rule, a length that drops as the field fills), ask the bot's own cheap search what
//! waiting brings. From the field the best non-firing placement leaves, the two-ply search (current and
//! next, no sampled futures) plays on over a few sampled futures, firing as soon as a longer chain is on
//! offer, and the best it has when the field is in danger. The bot waits when those play-outs end, on
//! average, on a longer chain than the one it could fire now. The cheap search builds worse than the bot
//! and its play-outs are pessimistic, so most fires stand; the ones it holds back gain links.

use super::eval::{EvalContext, Evaluation, FireThreshold};
use super::ignition::{IgnitionPolicy, in_danger};
use super::search::{self, DEATH, SearchInput, SearchOptions, sample_pairs};
use crate::game::movegen::PiecePosition;
use crate::game::{Field, Piece, Rules};

/// What every play-out of one decision shares.
struct Context<'a> {
    /// The bot's evaluation, its planned fire set to the longer chain.
    eval: &'a Evaluation,
    /// The cheap search: two plies, no sampled futures.
    opts: &'a SearchOptions,
    policy: &'a IgnitionPolicy,
    rules: &'a Rules,
}

/// What one play-out ended on: the links it fired (0 when it topped out or had nothing to fire).
fn play_out(ctx: &Context<'_>, from: &Field, pieces: &[Piece], target: u32, seed: u64) -> u32 {
    let rules = ctx.rules;
    let mut field = *from;
    let mut last_offer = 0;
    for (k, &current) in pieces.iter().enumerate() {
        let input = SearchInput {
            field: &field,
            current,
            next: pieces.get(k + 1).copied(),
            revealed: &[],
            start: PiecePosition::spawn(rules),
            rules,
        };
        let Some(result) = search::search(&input, ctx.eval, ctx.opts, seed ^ k as u64) else { return 0 };
        let alive = |i: &usize| result.candidates[*i].value > DEATH * 0.75;
        let strongest = (0..result.candidates.len())
            .filter(alive)
            .max_by_key(|&i| (result.candidates[i].chain.chains, result.candidates[i].chain.score));
        let offer = strongest.map_or(0, |i| result.candidates[i].chain.chains);
        if offer >= target || (offer > 0 && in_danger(&field, 0, rules, ctx.policy)) {
            return offer;
        }
        last_offer = offer;
        let best = result.best();
        if best.value <= DEATH * 0.75 || best.field.is_game_over(rules) {
            return 0;
        }
        field = best.field;
    }
    last_offer
}

/// The mean links that waiting ends on: `policy.playouts` play-outs of `policy.playout_pairs` pieces from
/// `from` (the field a non-firing placement leaves), the known `next` piece first and sampled pairs after
/// it, each firing as soon as a chain of more than `now` links is on offer. The play-outs search with a
/// copy of `eval` whose planned fire is that longer chain.
#[allow(clippy::too_many_arguments)]
pub fn waiting_links(
    from: &Field,
    next: Piece,
    now: u32,
    eval: &Evaluation,
    search: &SearchOptions,
    policy: &IgnitionPolicy,
    rules: &Rules,
    seed: u64,
) -> f64 {
    let target = now + 1;
    let opts = SearchOptions { samples: 0, depth: 2, threads: 1, ..search.clone() };
    let fire_at = Some(FireThreshold { min_chain: target, patience_puyos: 0, patience_step: 1 });
    let eval = eval.in_context(EvalContext { fire_at, ..EvalContext::default() });
    let ctx = Context { eval: &eval, opts: &opts, policy, rules };
    let futures = policy.playouts.max(1);
    let total: u32 = (0..futures as u64)
        .map(|m| {
            let future_seed = seed.rotate_left(17) ^ m.wrapping_mul(0x9E37_79B9_7F4A_7C15);
            let mut pieces = vec![next];
            pieces.extend(sample_pairs(policy.playout_pairs.saturating_sub(1), search.colors, future_seed));
            play_out(&ctx, from, &pieces, target, future_seed)
        })
        .sum();
    total as f64 / futures as f64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ai::eval::{ChainEval, ChainWeights};
    use crate::game::{Color, Pair};

    fn pair(a: usize, b: usize) -> Piece {
        Piece::Pair(Pair::new(Color::ALL[a], Color::ALL[b]))
    }

    fn chain_eval() -> Evaluation {
        Evaluation::Chain(Box::new(ChainEval::new(ChainWeights::default()).expect("default weights")))
    }

    #[test]
    fn a_play_out_fires_the_longer_chain_the_next_pair_completes() {
        // Three reds under a green on column 1: a red pair beside them pops them, and the green falls into
        // the greens of the floor row for a second link.
        let field = Field::from_rows(&["G.....", "R.....", "R.....", "RGGG.."]);
        let rules = Rules::puyo1();
        let policy = IgnitionPolicy::default();
        let eval = chain_eval();
        let opts = SearchOptions::default();
        // Waiting on a 1-link: the red pair fires 2 links at once in every future.
        let waited = waiting_links(&field, pair(0, 0), 1, &eval, &opts, &policy, &rules, 5);
        assert_eq!(waited, 2.0, "every play-out fires the 2-link the red pair completes");
        // Nothing longer than 2 links is on offer within one piece: the play-out ends on what it has.
        let short = IgnitionPolicy { playout_pairs: 1, playouts: 3, ..policy.clone() };
        let waited = waiting_links(&field, pair(0, 0), 2, &eval, &opts, &short, &rules, 5);
        assert_eq!(waited, 2.0, "the last offer counts when the pieces run out");
    }

    #[test]
    fn waiting_is_deterministic_for_a_seed_and_a_full_field_waits_for_little() {
        let rules = Rules::puyo1();
        let policy = IgnitionPolicy { playouts: 4, playout_pairs: 6, ..IgnitionPolicy::default() };
        let eval = chain_eval();
        let opts = SearchOptions::default();
        // Eleven rows of stripes: no room to build, danger at once.
        let rows: Vec<String> = (0..11).map(|r| if r % 2 == 0 { "RGBYRG".into() } else { "BYRGBY".into() }).collect();
        let refs: Vec<&str> = rows.iter().map(String::as_str).collect();
        let full = Field::from_rows(&refs);
        let a = waiting_links(&full, pair(0, 1), 12, &eval, &opts, &policy, &rules, 9);
        let b = waiting_links(&full, pair(0, 1), 12, &eval, &opts, &policy, &rules, 9);
        assert_eq!(a.to_bits(), b.to_bits(), "same seed, same play-outs");
        assert!(a < 12.0, "a field in danger offers nothing longer: {a}");
    }
}
