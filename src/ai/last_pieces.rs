//! The end of a game of known length (the simulator's endless runs stop after N pieces): a chain still
//! unfired when the last piece locks scores nothing, so the last pieces are placed for points alone, by an
//! exhaustive expectimax over their placements: the current and next pieces are known, the one after is
//! averaged over every pair the colours in play can make.

use crate::game::movegen::{self, MoveRules, PiecePosition};
use crate::game::{Color, Field, Pair, Piece, Rules};
use crate::game::{Decision, FireReason, View};

/// Pieces at the end of a fixed-length game that are placed for points alone: the current, the next and
/// one unseen piece.
pub const CASH_IN_PIECES: u32 = 3;

/// Every pair `colors` colours make, unordered (a placement turns either way), with its probability.
fn pair_kinds(colors: u8) -> Vec<(Piece, f64)> {
    let k = colors.clamp(1, Color::ALL.len() as u8) as usize;
    let mut out = Vec::with_capacity(k * (k + 1) / 2);
    for a in 0..k {
        for b in a..k {
            let p = if a == b { 1.0 } else { 2.0 } / (k * k) as f64;
            out.push((Piece::Pair(Pair::new(Color::ALL[a], Color::ALL[b])), p));
        }
    }
    out
}

/// The end of the game as the search sees it: the known pieces still to come after the one being placed,
/// how many unseen ones follow them, and the pairs an unseen piece can be ([`pair_kinds`], made once).
#[derive(Clone, Copy)]
struct Rest<'a> {
    known: &'a [Piece],
    unseen: u32,
    kinds: &'a [(Piece, f64)],
}

/// Expected points `rest` can still score from `field`, each piece placed as well as possible (a top-out
/// scores nothing more).
fn expected_rest(field: &Field, rest: Rest<'_>, rules: &Rules, moves: &MoveRules) -> f64 {
    let best = |piece: Piece, after: Rest<'_>| {
        movegen::placements(field, piece, PiecePosition::spawn(rules), moves)
            .as_slice()
            .iter()
            .filter_map(|&p| {
                let mut f = *field;
                let s = f.play(piece, p, rules).ok()?;
                if f.is_game_over(rules) {
                    return None;
                }
                Some(s.score as f64 + expected_rest(&f, after, rules, moves))
            })
            .fold(0.0, f64::max)
    };
    match rest.known.split_first() {
        Some((&piece, known)) => best(piece, Rest { known, ..rest }),
        None if rest.unseen > 0 => rest
            .kinds
            .iter()
            .map(|&(piece, p)| p * best(piece, Rest { known: &[], unseen: rest.unseen - 1, ..rest }))
            .sum(),
        None => 0.0,
    }
}

/// The placement of `view.current` (reachable from `start`) expected to score the most points over the
/// pieces the game has left (unseen ones drawn from `colors` colours), when at most [`CASH_IN_PIECES`] are
/// left and some line scores at all. `None` otherwise (the game runs on, or nothing can pop before the
/// end: the normal search decides). Placements that top out are never picked.
pub fn cash_in(view: &View<'_>, start: PiecePosition, moves: &MoveRules, colors: u8) -> Option<Decision> {
    let left = view.pieces_left?;
    if left + 1 > CASH_IN_PIECES || view.opponent.is_some() {
        return None;
    }
    let known = [view.next];
    let kinds = pair_kinds(colors);
    let rest = Rest { known: &known[..(left as usize).min(1)], unseen: left.saturating_sub(1), kinds: &kinds };
    let mut scored = Vec::new();
    for m in movegen::generate(view.field, view.current, start, moves) {
        let mut f = *view.field;
        let Ok(chain) = f.play(view.current, m.placement, view.rules) else { continue };
        if f.is_game_over(view.rules) {
            continue;
        }
        let later = expected_rest(&f, rest, view.rules, moves);
        scored.push((m, chain, chain.score as f64 + later));
    }
    // The first of equal totals wins (move-generation order): deterministic.
    let best = (0..scored.len()).fold(None, |b: Option<usize>, i| match b {
        Some(j) if scored[j].2 >= scored[i].2 => Some(j),
        _ => Some(i),
    })?;
    if scored[best].2 <= 0.0 {
        return None;
    }
    let mut ranking: Vec<_> = scored.iter().map(|(m, _, v)| (m.placement, *v)).collect();
    ranking.sort_by(|a, b| b.1.total_cmp(&a.1));
    let (m, chain, value) = scored.swap_remove(best);
    let fired = (chain.chains > 0).then_some(FireReason::LastPieces);
    Some(Decision { placement: m.placement, path: m.path, chain, value, fired, ranking, intent: None })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::{Color, Pair};

    fn pair(a: usize, b: usize) -> Piece {
        Piece::Pair(Pair::new(Color::ALL[a], Color::ALL[b]))
    }

    fn view<'a>(field: &'a Field, rules: &'a Rules, current: Piece, next: Piece, left: Option<u32>) -> View<'a> {
        View { pieces_played: 50, pieces_left: left, ..View::solo(field, current, next, rules) }
    }

    #[test]
    fn the_last_piece_fires_the_chain_the_build_holds() {
        // Column 1 holds a two-chain behind a red trigger (GGG under R, then RRR on the floor).
        let f = Field::from_rows(&["R.....", "G.....", "G.....", "GRRR.."]);
        let rules = Rules::puyo1();
        let moves = MoveRules::default();
        let start = PiecePosition::spawn(&rules);
        let d = cash_in(&view(&f, &rules, pair(1, 1), pair(3, 3), Some(0)), start, &moves, 4).expect("a scoring move");
        assert_eq!(d.chain.chains, 2);
        assert_eq!(d.fired, Some(FireReason::LastPieces));
        // Before the last three pieces the normal search decides; without a known end, always.
        assert!(cash_in(&view(&f, &rules, pair(1, 1), pair(3, 3), Some(3)), start, &moves, 4).is_none());
        assert!(cash_in(&view(&f, &rules, pair(1, 1), pair(3, 3), None), start, &moves, 4).is_none());
    }

    #[test]
    fn the_second_to_last_piece_sets_up_a_chain_the_last_one_fires() {
        // Three greens wait in column 1; the current pair has no green, the next has two: the current pair
        // scores nothing, but the line is chosen for what the last piece then pops.
        let f = Field::from_rows(&["G.....", "G.....", "G....."]);
        let rules = Rules::puyo1();
        let moves = MoveRules::default();
        let d = cash_in(&view(&f, &rules, pair(0, 0), pair(1, 1), Some(1)), PiecePosition::spawn(&rules), &moves, 4)
            .expect("a line that scores");
        assert_eq!(d.chain.chains, 0, "the current pair cannot pop anything here");
        assert!(d.value > 0.0);
        let mut after = f;
        after.play(pair(0, 0), d.placement, &rules).expect("valid");
        let last = Rest { known: &[pair(1, 1)], unseen: 0, kinds: &[] };
        assert!(expected_rest(&after, last, &rules, &moves) > 0.0);
    }

    #[test]
    fn an_unseen_last_piece_is_averaged_over_the_pairs_the_colours_make() {
        // The pair kinds of 4 colours: 10, with probabilities summing to 1.
        let kinds = pair_kinds(4);
        assert_eq!(kinds.len(), 10);
        assert!((kinds.iter().map(|k| k.1).sum::<f64>() - 1.0).abs() < 1e-12);
        // Three greens in column 1: an unseen pair pops them when it holds a green (7 of 16 draws), 40
        // points each (4 puyos at chain power 0: the minimum multiplier 1). A green-green pair pops 5: 10 × 5
        // × group bonus 2 = 100.
        let f = Field::from_rows(&["G.....", "G.....", "G....."]);
        let rules = Rules::puyo1();
        let got = expected_rest(&f, Rest { known: &[], unseen: 1, kinds: &kinds }, &rules, &MoveRules::default());
        let expected = (6.0 * 40.0 + 1.0 * 100.0) / 16.0;
        assert!((got - expected).abs() < 1e-9, "expected {expected}, got {got}");
    }
}
