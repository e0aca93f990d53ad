//! Cross-check: hundreds of pieces placed on the open cartridge by scripted inputs leave its field (and score)
//! equal to what the rules core predicts for the same pairs. Also with items, where the item rules are guesses
//! the cartridge was built to match.

use crate::common::labcart::{Lab, MenuChoice, ROM_FIXED, Variant};
use crate::common::model::{field_of, orientation_value, piece_of};
use puyobot::game::{Field, Orientation, Piece, Placement, Rules};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// A placement that keeps the field low: the best-scoring pop if any, else the lowest resulting stack,
/// with a seeded random tie-break so every orientation and column gets used.
fn choose(field: &Field, piece: Piece, rules: &Rules, rng: &mut Xoshiro256PlusPlus) -> Placement {
    let orients: &[Orientation] = if matches!(piece, Piece::Pair(_)) { &Orientation::ALL } else { &[Orientation::Up] };
    let mut best: Option<(i64, Placement)> = None;
    for x in 1..=6u8 {
        for &o in orients {
            let p = Placement::new(x, o);
            let mut f = *field;
            let Ok(s) = f.play(piece, p, rules) else { continue };
            if f.is_game_over(rules) {
                continue;
            }
            // Stay away from the spawn column's top so the pair can always move.
            let max_h = f.heights().iter().copied().max().unwrap_or(0) as i64;
            let value = s.score as i64 * 10 - max_h * 100 - f.count() as i64 * 5 + rng.random_range(0..60);
            if best.is_none_or(|(v, _)| value > v) {
                best = Some((value, p));
            }
        }
    }
    best.map(|(_, p)| p).unwrap_or(Placement::new(1, Orientation::Up))
}

fn run_crosscheck(choice: MenuChoice, pieces: usize, seed: u64) -> (usize, usize) {
    let rules = Rules::puyo1();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut lab = Lab::new(ROM_FIXED, Variant::CONTRACT);
    lab.boot(choice);
    let mut items = 0;
    let mut chains = 0;
    for i in 0..pieces {
        assert!(lab.wait_controllable(0), "piece {i}: never became controllable\n{}", lab.print_field(0));
        let before = field_of(&lab, 0);
        let piece = piece_of(&lab);
        let score_before = lab.score(0);
        let placement = choose(&before, piece, &rules, &mut rng);
        let mut predicted = before;
        let summary = predicted.play(piece, placement, &rules).expect("valid placement");
        items += matches!(piece, Piece::Item(_)) as usize;
        chains += (summary.chains > 0) as usize;
        assert!(
            lab.place(0, placement.x, orientation_value(placement.orientation)),
            "piece {i} ({piece}) did not reach {placement}"
        );
        assert!(lab.wait_controllable(0), "piece {i}: no next piece\n{}", lab.print_field(0));
        let actual = field_of(&lab, 0);
        assert_eq!(
            actual, predicted,
            "piece {i}: {piece} at {placement} on\n{before:?}\ncartridge and rules core disagree"
        );
        assert_eq!(lab.score(0) - score_before, summary.score / 10, "piece {i}: score (÷10) differs");
    }
    (chains, items)
}

#[test]
fn two_hundred_pairs_give_the_same_fields_and_scores_on_the_cartridge_and_in_the_rules_core() {
    let (chains, _) = run_crosscheck(MenuChoice::ONE_P, 200, 1);
    assert!(chains >= 10, "the run should exercise popping, got {chains} chain-firing pieces");
}

#[test]
fn big_puyo_and_carbuncle_do_on_the_cartridge_what_the_rules_core_says() {
    for item in [1, 2] {
        let choice = MenuChoice { two_player: false, item, colours: 4 };
        let (_, items) = run_crosscheck(choice, 80, 2);
        assert!(items >= 4, "items every 16th piece: saw {items}");
    }
}
