//! Move generation against hand-worked fields: blocked columns, kicks, the hidden row, the start row,
//! one-colour pairs and items.

use std::collections::BTreeSet;

use puyobot::game::movegen::{MoveRules, PiecePosition, Step, generate, placements};
use puyobot::game::{Color, Field, Item, Orientation, Pair, Piece, Placement, Rules};

fn pair(a: usize, b: usize) -> Piece {
    Piece::Pair(Pair::new(Color::ALL[a], Color::ALL[b]))
}

fn spawn() -> PiecePosition {
    PiecePosition::spawn(&Rules::puyo1())
}

/// A field whose listed columns are filled (with nuisance, so nothing pops) up to `height`.
fn walls(cols: &[(usize, usize)]) -> Field {
    let mut f = Field::new();
    for &(x, h) in cols {
        for k in 0..h {
            f.set(x, 13 - k, puyobot::game::Cell::Nuisance);
        }
    }
    f
}

fn set_of(field: &Field, piece: Piece, start: PiecePosition, rules: &MoveRules) -> BTreeSet<Placement> {
    generate(field, piece, start, rules).into_iter().map(|m| m.placement).collect()
}

#[test]
fn empty_field_reaches_all_22_placements_with_shortest_paths() {
    let moves = generate(&Field::new(), pair(0, 1), spawn(), &MoveRules::default());
    assert_eq!(moves.len(), 22);
    let find = |x, o| moves.iter().find(|m| m.placement == Placement::new(x, o)).expect("reachable");
    assert!(find(3, Orientation::Up).path.is_empty());
    assert_eq!(find(1, Orientation::Up).path, vec![Step::Left, Step::Left]);
    assert_eq!(find(3, Orientation::Right).path, vec![Step::RotateCw]);
    assert_eq!(find(3, Orientation::Down).path.len(), 2);
    assert_eq!(find(6, Orientation::Left).path.len(), 4);
    // Paths come in non-decreasing length.
    assert!(moves.windows(2).all(|w| w[0].path.len() <= w[1].path.len()));
}

#[test]
fn a_full_column_blocks_everything_beyond_it_and_a_blocked_rotation_kicks() {
    // Column 2 is filled to row 1: the pair can reach neither column 1 nor column 2.
    let f = walls(&[(2, 13)]);
    let moves = generate(&f, pair(0, 1), spawn(), &MoveRules::default());
    assert_eq!(moves.len(), 14, "columns 3..6: 4 Up, 4 Down, 3 Right, 3 Left");
    for m in &moves {
        assert!(m.placement.x >= 3 && m.placement.child_x() >= 3, "{}", m.placement);
    }
    // Rotating to Left at column 3 hits column 2, so the pivot kicks right: one press reaches (4, Left).
    let kicked = moves.iter().find(|m| m.placement == Placement::new(4, Orientation::Left)).expect("kick");
    assert_eq!(kicked.path, vec![Step::RotateCcw]);
    // Without sideways kicks the same placement needs a move first.
    let no_kick = MoveRules { kick_sideways: false, ..MoveRules::default() };
    let slow = generate(&f, pair(0, 1), spawn(), &no_kick);
    let m = slow.iter().find(|m| m.placement == Placement::new(4, Orientation::Left)).expect("reachable");
    assert_eq!(m.path.len(), 2);
}

#[test]
fn a_column_below_the_pair_does_not_block_it() {
    // Column 2 at height 12 leaves row 1 free: the pair passes over it at spawn height.
    let f = walls(&[(2, 12)]);
    assert!(set_of(&f, pair(0, 1), spawn(), &MoveRules::default()).contains(&Placement::new(1, Orientation::Up)));
}

#[test]
fn a_one_wide_shaft_allows_no_rotation_and_no_quick_flip() {
    let f = walls(&[(2, 13), (4, 13)]);
    let moves = generate(&f, pair(0, 1), spawn(), &MoveRules::default());
    assert_eq!(moves.len(), 1);
    assert_eq!(moves[0].placement, Placement::new(3, Orientation::Up));
    assert!(moves[0].path.is_empty());
}

#[test]
fn rotating_down_onto_a_stack_lifts_the_pivot_into_the_hidden_row() {
    // Column 3 stands to row 2: turning Down from Right finds row 2 taken and lifts the pivot to row 0.
    let f = walls(&[(3, 12)]);
    let moves = generate(&f, pair(0, 1), spawn(), &MoveRules::default());
    let down = moves.iter().find(|m| m.placement == Placement::new(3, Orientation::Down)).expect("kick up");
    assert_eq!(down.end.y, 0);
    assert_eq!(down.path.len(), 2);
    // Without the kick, or with the hidden row out of bounds, Down in column 3 is out of reach.
    let no_kick = MoveRules { kick_up: false, ..MoveRules::default() };
    assert!(!set_of(&f, pair(0, 1), spawn(), &no_kick).contains(&Placement::new(3, Orientation::Down)));
    let no_hidden = MoveRules { top_row: 1, ..MoveRules::default() };
    assert!(!set_of(&f, pair(0, 1), spawn(), &no_hidden).contains(&Placement::new(3, Orientation::Down)));
}

#[test]
fn rows_above_the_hidden_row_are_outside() {
    // From the lifted position (pivot in row 0, child below) the pair can turn sideways but never back
    // up: the child would be above row 0. Every placement reached from there must keep y >= 0.
    let f = walls(&[(3, 12)]);
    let start = PiecePosition { x: 3, y: 0, orientation: Orientation::Down };
    let reached = set_of(&f, pair(0, 1), start, &MoveRules::default());
    assert!(!reached.contains(&Placement::new(3, Orientation::Up)));
    assert!(reached.contains(&Placement::new(3, Orientation::Right)));
}

#[test]
fn replanning_from_a_lower_row_sees_columns_that_do_not_block_at_spawn() {
    // Column 2 stands to row 4: no obstacle at spawn height, a wall for a pair already at row 5.
    let f = walls(&[(2, 10)]);
    let low = PiecePosition { x: 3, y: 5, orientation: Orientation::Up };
    assert!(set_of(&f, pair(0, 1), spawn(), &MoveRules::default()).contains(&Placement::new(1, Orientation::Up)));
    let from_low = set_of(&f, pair(0, 1), low, &MoveRules::default());
    assert!(from_low.iter().all(|p| p.x >= 3 && p.child_x() >= 3), "{from_low:?}");
}

#[test]
fn a_one_colour_pair_gives_no_duplicate_outcomes() {
    let f = walls(&[(1, 3), (5, 6)]);
    let rules = Rules::puyo1();
    let moves = generate(&f, pair(2, 2), spawn(), &MoveRules::default());
    assert_eq!(moves.len(), 11);
    let mut outcomes = BTreeSet::new();
    for m in &moves {
        let mut g = f;
        g.play(pair(2, 2), m.placement, &rules).expect("valid");
        assert!(outcomes.insert(format!("{g:?}")), "duplicate outcome for {}", m.placement);
    }
    assert_eq!(placements(&f, pair(2, 2), spawn(), &MoveRules::default()).len(), 11);
}

#[test]
fn items_have_their_own_placement_sets() {
    let big = set_of(&Field::new(), Piece::Item(Item::BigPuyo), spawn(), &MoveRules::default());
    assert_eq!(big, (1..=5).map(|x| Placement::new(x, Orientation::Up)).collect());
    let car = set_of(&Field::new(), Piece::Item(Item::Carbuncle), spawn(), &MoveRules::default());
    assert_eq!(car, (1..=6).map(|x| Placement::new(x, Orientation::Up)).collect());
    // A wall at column 5 stops Big Puyo (two columns wide) at left column 3.
    let f = walls(&[(5, 13)]);
    let big = set_of(&f, Piece::Item(Item::BigPuyo), spawn(), &MoveRules::default());
    assert_eq!(big, (1..=3).map(|x| Placement::new(x, Orientation::Up)).collect());
}

#[test]
fn a_blocked_spawn_gives_no_placement() {
    let f = walls(&[(3, 13)]);
    assert!(generate(&f, pair(0, 1), spawn(), &MoveRules::default()).is_empty());
}
