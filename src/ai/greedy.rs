//! `greedy`: a small two-ply bot (the current and the next piece, scored by chains, connections and
//! height). Cheap, so the player's tests use it.

use crate::game::movegen::{self, MoveRules, PiecePosition};
use crate::game::{Color, Field, Piece, Rules};
use crate::game::{Decision, View};

/// A field's greedy value: low stacks (the spawn column most), same-colour neighbours, little nuisance.
fn evaluate(field: &Field, rules: &Rules) -> i64 {
    if field.is_game_over(rules) {
        return i64::MIN / 4;
    }
    let mut v: i64 = 0;
    for (i, &h) in field.heights().iter().enumerate() {
        let h = h as i64;
        v -= h * h * if i == 2 { 6 } else { 2 };
    }
    // Same-colour neighbours (vertical and horizontal pairs).
    for c in Color::ALL {
        let b = field.color_bits(c);
        v += 12 * ((b & (b >> 1)).count_ones() + (b & (b >> 16)).count_ones()) as i64;
    }
    v - 4 * field.nuisance_count() as i64
}

/// The value of locking `piece` at a placement whose result is `after` (scoring `score`), with the best
/// reply of `next` behind it.
fn line_value(after: &Field, score: u32, chains: u32, next: Option<Piece>, rules: &Rules, moves: &MoveRules) -> i64 {
    let mut value = score as i64 / 2 + evaluate(after, rules);
    if chains > 0 {
        value += 200; // clearing keeps the field low, which a one-ply look undervalues
    }
    if let Some(n) = next
        && !after.is_game_over(rules)
        && let Some(v2) = best_reply(after, n, rules, moves)
    {
        value = value.max(i64::MIN / 8) / 2 + v2 / 2 + score as i64 / 2;
    }
    value
}

/// The best one-ply value of `piece` on `field` from the spawn position.
fn best_reply(field: &Field, piece: Piece, rules: &Rules, moves: &MoveRules) -> Option<i64> {
    movegen::placements(field, piece, PiecePosition::spawn(rules), moves)
        .as_slice()
        .iter()
        .filter_map(|&pl| {
            let mut f = *field;
            let s = f.play(piece, pl, rules).ok()?;
            Some(line_value(&f, s.score, s.chains, None, rules, moves))
        })
        .max()
}

/// The greedy decision from `start`: every reachable placement ranked, the best first. `None` when
/// nothing is reachable.
pub fn decide(view: &View<'_>, start: PiecePosition, moves: &MoveRules) -> Option<Decision> {
    let mut scored = Vec::new();
    for m in movegen::generate(view.field, view.current, start, moves) {
        let mut f = *view.field;
        let Ok(s) = f.play(view.current, m.placement, view.rules) else { continue };
        let value = line_value(&f, s.score, s.chains, Some(view.next), view.rules, moves);
        scored.push((m, s, value));
    }
    // The first of equal values wins (move-generation order), as before.
    let best = (0..scored.len()).fold(None, |b: Option<usize>, i| match b {
        Some(j) if scored[j].2 >= scored[i].2 => Some(j),
        _ => Some(i),
    })?;
    let mut ranking: Vec<_> = scored.iter().map(|(m, _, v)| (m.placement, *v as f64)).collect();
    ranking.sort_by(|a, b| b.1.total_cmp(&a.1));
    let (m, chain, value) = scored.swap_remove(best);
    Some(Decision {
        placement: m.placement,
        path: m.path,
        chain,
        value: value as f64,
        fired: None,
        ranking,
        intent: None,
    })
}
