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

// ---- the game's clock (MoveRules::timing)

use proptest::prelude::*;
use puyobot::game::movegen::{Move, same_outcome, step};
use puyobot::game::{Cell, LockDelay, Timing};

/// A field of random column heights (0..=11 puyos per column, random colours and nuisance), as stacks.
fn stacks() -> impl Strategy<Value = Field> {
    proptest::collection::vec(proptest::collection::vec(0..=4usize, 0..=11), 6).prop_map(|cols| {
        let mut f = Field::new();
        for (i, col) in cols.iter().enumerate() {
            for (k, &c) in col.iter().enumerate() {
                let cell = if c == 4 { Cell::Nuisance } else { Cell::Color(Color::ALL[c]) };
                f.set(i + 1, 13 - k, cell);
            }
        }
        f
    })
}

fn timings() -> impl Strategy<Value = Timing> {
    (1..=30u16, 0..=29u16, 1..=4u16, 0..=3u16, 0..=3u16, 0..=3u8, 0..=20u16).prop_map(
        |(fpr, phase, press, lag, margin, lock, frames)| Timing {
            frames_per_row: fpr,
            first_fall: 1 + phase % fpr,
            soft_drop: 1,
            lock: match lock {
                0 => LockDelay::None,
                1 => LockDelay::Frames { frames, moves: false },
                _ => LockDelay::Frames { frames, moves: true },
            },
            press_frames: press,
            input_lag: lag,
            margin,
        },
    )
}

/// True when the pair at `p` has a free cell below each of its puyos (it can fall one row).
fn can_fall(f: &Field, p: PiecePosition) -> bool {
    let free =
        |x: i32, y: i32| (1..=6).contains(&x) && (0..14).contains(&y) && f.get(x as usize, y as usize) == Cell::Empty;
    let (x, y) = (p.x as i32, p.y as i32 + 1);
    free(x, y) && free(x + p.orientation.dx() as i32, y + p.orientation.dy() as i32)
}

/// The path replayed frame by frame on the clock `t` (gravity at each fall frame up to the frame press
/// i is judged at, then the press): the position after the last press, or None when a press fails or
/// comes after the lock.
fn replay(f: &Field, piece: Piece, start: PiecePosition, t: &Timing, path: &[Step]) -> Option<PiecePosition> {
    let rules = MoveRules::default();
    let mut p = start;
    let mut landed = (!can_fall(f, p)).then_some(0);
    let mut clock = 0;
    for (i, &s) in path.iter().enumerate() {
        let done = t.press_done(i as u32);
        let judged = done + t.margin as u32;
        for frame in clock + 1..=judged {
            let fall =
                frame >= t.first_fall as u32 && (frame - t.first_fall as u32).is_multiple_of(t.frames_per_row as u32);
            if fall && can_fall(f, p) {
                p.y += 1;
                if !can_fall(f, p) {
                    landed = Some(frame);
                }
            }
        }
        clock = judged;
        if !t.in_time(done, landed) {
            return None;
        }
        let q = step(f, piece, p, s, &rules)?;
        landed = match (can_fall(f, q), landed) {
            (true, _) => None,
            (false, Some(l)) if !can_fall(f, p) && q.y == p.y => Some(l),
            (false, _) => Some(done),
        };
        p = q;
    }
    Some(p)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    /// With time to spare (gravity slower than any path, a lock that never comes) the timed walk is
    /// the untimed one: the same placements, paths and order.
    #[test]
    fn a_timed_walk_with_time_to_spare_is_the_untimed_walk(f in stacks(), a in 0..6usize, b in 0..6usize) {
        let slow = Timing { frames_per_row: 10_000, first_fall: 10_000, ..Timing::spawned(30) };
        let timed = MoveRules { timing: Some(slow), ..MoveRules::default() };
        let piece = pair(a, b);
        prop_assert_eq!(generate(&f, piece, spawn(), &timed), generate(&f, piece, spawn(), &MoveRules::default()));
        let (t, u) = (placements(&f, piece, spawn(), &timed), placements(&f, piece, spawn(), &MoveRules::default()));
        prop_assert_eq!(t.as_slice(), u.as_slice());
    }

    /// A timed walk keeps a subset of the untimed placements, and each kept path, replayed frame by
    /// frame on the clock, makes every press before the lock and ends where the walk says.
    #[test]
    fn a_timed_walk_keeps_placements_whose_presses_fit_the_time(
        f in stacks(), a in 0..6usize, b in 0..6usize, t in timings()
    ) {
        let piece = pair(a, b);
        let timed = MoveRules { timing: Some(t), ..MoveRules::default() };
        let all: Vec<Move> = generate(&f, piece, spawn(), &MoveRules::default());
        let kept = generate(&f, piece, spawn(), &timed);
        prop_assert_eq!(kept.is_empty(), all.is_empty(), "the start itself is always kept");
        for m in &kept {
            prop_assert!(all.iter().any(|u| same_outcome(piece, u.placement, m.placement)), "{} is reachable untimed", m.placement);
            let end = replay(&f, piece, spawn(), &t, &m.path);
            prop_assert_eq!(end, Some(m.end), "{} by {:?} on {:?}", m.placement, m.path, t);
            prop_assert_eq!((m.end.x, m.end.orientation), (m.placement.x, m.placement.orientation));
        }
        let set: Vec<Placement> = placements(&f, piece, spawn(), &timed).as_slice().to_vec();
        prop_assert_eq!(set, kept.iter().map(|m| m.placement).collect::<Vec<_>>());
    }
}

#[test]
fn fast_gravity_keeps_only_what_the_presses_reach_before_the_lock() {
    let f = Field::new();
    let none = |fpr| MoveRules {
        timing: Some(Timing { lock: LockDelay::None, margin: 0, ..Timing::spawned(fpr) }),
        ..MoveRules::default()
    };
    // 30 frames per row: every placement of an empty field, as untimed
    assert_eq!(set_of(&f, pair(0, 1), spawn(), &none(30)).len(), 22);
    // on a flat stack 8 high, at 1 frame per row with no lock delay, the pair rests on frame 4: only
    // the first press (done by frame 2) counts, the second (by frame 4) comes as it locks
    let flat = walls(&[(1, 8), (2, 8), (3, 8), (4, 8), (5, 8), (6, 8)]);
    let fast = set_of(&flat, pair(0, 1), spawn(), &none(1));
    let one_press: BTreeSet<Placement> = [(3, Orientation::Up), (2, Orientation::Up), (4, Orientation::Up)]
        .into_iter()
        .chain([(3, Orientation::Right), (3, Orientation::Left)])
        .map(|(x, o)| Placement::new(x, o))
        .collect();
    assert_eq!(fast, one_press);
    // a 16-frame lock delay with moves gives the same pair 8 more presses: every placement again
    let lenient = MoveRules { timing: Some(Timing { margin: 0, ..Timing::spawned(1) }), ..MoveRules::default() };
    assert_eq!(set_of(&flat, pair(0, 1), spawn(), &lenient).len(), 22);
    // so does the margin, the other way: 2 frames in hand and the first press is too late as well
    let tight = MoveRules {
        timing: Some(Timing { lock: LockDelay::None, margin: 2, ..Timing::spawned(1) }),
        ..MoveRules::default()
    };
    assert_eq!(set_of(&flat, pair(0, 1), spawn(), &tight), [Placement::new(3, Orientation::Up)].into());
    // column heights along the path matter: a tall column 2 stops a pair that fell below its top
    let tall = walls(&[(2, 11)]);
    let slow = set_of(&tall, pair(0, 1), spawn(), &none(30));
    assert!(slow.contains(&Placement::new(1, Orientation::Up)), "slow gravity: over the column in time");
    let quick = set_of(&tall, pair(0, 1), spawn(), &none(1));
    assert!(!quick.contains(&Placement::new(1, Orientation::Up)), "fast gravity: column 1 is cut off");
}
