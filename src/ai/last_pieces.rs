//! The end of a game of known length (the simulator's endless runs stop after N pieces): a chain still
//! unfired when the last piece locks scores nothing, so the last two pieces are placed for points alone.
//! Both are known (current and next), so an exhaustive two-ply search over their placements is exact.

use crate::game::movegen::{self, MoveRules, PiecePosition};
use crate::game::{Field, Piece, Rules};
use crate::sim::{Decision, FireReason, View};

/// Pieces at the end of a fixed-length game that are placed for points alone: the current and the next.
pub const CASH_IN_PIECES: u32 = 2;

/// Points the rest of the game can still score from `field` with `next` as the last piece (0 when it tops
/// out or pops nothing).
fn best_last_score(field: &Field, next: Piece, rules: &Rules, moves: &MoveRules) -> u32 {
    movegen::placements(field, next, PiecePosition::spawn(rules), moves)
        .as_slice()
        .iter()
        .filter_map(|&p| {
            let mut f = *field;
            let s = f.play(next, p, rules).ok()?;
            (!f.is_game_over(rules)).then_some(s.score)
        })
        .max()
        .unwrap_or(0)
}

/// The placement of `view.current` (reachable from `start`) that scores the most points over the pieces
/// the game has left, when at most [`CASH_IN_PIECES`] are left and some placement scores at all. `None`
/// otherwise (the game runs on, or nothing can pop before the end: the normal search decides). Placements
/// that top out are never picked.
pub fn cash_in(view: &View<'_>, start: PiecePosition, moves: &MoveRules) -> Option<Decision> {
    let left = view.pieces_left?;
    if left + 1 > CASH_IN_PIECES || view.opponent.is_some() {
        return None;
    }
    let mut scored = Vec::new();
    for m in movegen::generate(view.field, view.current, start, moves) {
        let mut f = *view.field;
        let Ok(chain) = f.play(view.current, m.placement, view.rules) else { continue };
        if f.is_game_over(view.rules) {
            continue;
        }
        let later = if left > 0 { best_last_score(&f, view.next, view.rules, moves) } else { 0 };
        scored.push((m, chain, chain.score as u64 + later as u64));
    }
    // The first of equal totals wins (move-generation order): deterministic.
    let best = (0..scored.len()).fold(None, |b: Option<usize>, i| match b {
        Some(j) if scored[j].2 >= scored[i].2 => Some(j),
        _ => Some(i),
    })?;
    if scored[best].2 == 0 {
        return None;
    }
    let mut ranking: Vec<_> = scored.iter().map(|(m, _, v)| (m.placement, *v as f64)).collect();
    ranking.sort_by(|a, b| b.1.total_cmp(&a.1));
    let (m, chain, value) = scored.swap_remove(best);
    let fired = (chain.chains > 0).then_some(FireReason::LastPieces);
    Some(Decision { placement: m.placement, path: m.path, chain, value: value as f64, fired, ranking })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::{Color, Pair};

    fn pair(a: usize, b: usize) -> Piece {
        Piece::Pair(Pair::new(Color::ALL[a], Color::ALL[b]))
    }

    fn view<'a>(field: &'a Field, rules: &'a Rules, current: Piece, next: Piece, left: Option<u32>) -> View<'a> {
        View { field, current, next, pending_nuisance: 0, opponent: None, rules, pieces_played: 50, pieces_left: left }
    }

    #[test]
    fn the_last_piece_fires_the_chain_the_build_holds() {
        // Column 1 holds a two-chain behind a red trigger (GGG under R, then RRR on the floor).
        let f = Field::from_rows(&["R.....", "G.....", "G.....", "GRRR.."]);
        let rules = Rules::puyo1();
        let moves = MoveRules::default();
        let start = PiecePosition::spawn(&rules);
        let d = cash_in(&view(&f, &rules, pair(1, 1), pair(3, 3), Some(0)), start, &moves).expect("a scoring move");
        assert_eq!(d.chain.chains, 2);
        assert_eq!(d.fired, Some(FireReason::LastPieces));
        // Before the last two pieces the normal search decides; without a known end, always.
        assert!(cash_in(&view(&f, &rules, pair(1, 1), pair(3, 3), Some(2)), start, &moves).is_none());
        assert!(cash_in(&view(&f, &rules, pair(1, 1), pair(3, 3), None), start, &moves).is_none());
    }

    #[test]
    fn the_second_to_last_piece_sets_up_a_chain_the_last_one_fires() {
        // Three greens wait in column 1; the current pair has no green, the next has two: the current pair
        // scores nothing, but the line is chosen for what the last piece then pops.
        let f = Field::from_rows(&["G.....", "G.....", "G....."]);
        let rules = Rules::puyo1();
        let moves = MoveRules::default();
        let d = cash_in(&view(&f, &rules, pair(0, 0), pair(1, 1), Some(1)), PiecePosition::spawn(&rules), &moves)
            .expect("a line that scores");
        assert_eq!(d.chain.chains, 0, "the current pair cannot pop anything here");
        assert!(d.value > 0.0);
        let mut after = f;
        after.play(pair(0, 0), d.placement, &rules).expect("valid");
        assert!(best_last_score(&after, pair(1, 1), &rules, &moves) > 0);
    }
}
