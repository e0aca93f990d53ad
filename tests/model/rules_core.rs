//! Rules core: one test per rule, hand-worked chain fixtures, and property tests of resolution.

use proptest::prelude::*;
use puyobot::game::field::bit;
use puyobot::game::{
    Cell, Color, Field, Item, ItemRules, Orientation, Pair, Piece, Placement, Rules, nuisance_from_score, text,
};
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

const R: Color = Color::ALL[0];
const G: Color = Color::ALL[1];
const B: Color = Color::ALL[2];
const Y: Color = Color::ALL[3];

fn fixture(name: &str) -> Field {
    let path = format!("{}/tests/fixtures/fields/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    text::parse_field(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn resolve(field: &mut Field) -> puyobot::game::ChainSummary {
    field.settle_and_resolve(&Rules::puyo1())
}

#[test]
fn gravity_lets_floating_puyos_fall_to_the_floor_or_the_stack() {
    let mut f = Field::from_rows(&["R.....", "......", "G.....", "......", "......", ".B...."]);
    assert!(!f.is_settled());
    f.apply_gravity();
    assert!(f.is_settled());
    assert_eq!(f.get(1, 13), Cell::Color(G));
    assert_eq!(f.get(1, 12), Cell::Color(R));
    assert_eq!(f.get(2, 13), Cell::Color(B));
    assert_eq!(f.count(), 3);
}

#[test]
fn four_joined_puyos_pop_and_three_do_not() {
    let mut three = Field::from_rows(&["RR....", "R....."]);
    assert_eq!(resolve(&mut three).chains, 0);
    assert_eq!(three.count(), 3);
    let mut four = Field::from_rows(&["RR....", "RR...."]);
    let s = resolve(&mut four);
    assert_eq!((s.chains, s.cleared, s.score), (1, 4, 40));
    assert!(four.is_empty());
}

#[test]
fn diagonal_neighbours_do_not_join() {
    let mut f = Field::from_rows(&["R.R...", "GRGR.."]);
    assert_eq!(resolve(&mut f).chains, 0);
    assert_eq!(f.count(), 6);
}

#[test]
fn the_hidden_row_takes_no_part_in_groups_unless_the_rule_says_so() {
    // A column of 14 reds: the top one sits in hidden row 0.
    let rows: Vec<&str> = std::iter::repeat_n("R.....", 14).collect();
    let mut rules = Rules::puyo1();
    let mut f = Field::from_rows(&rows);
    let s = f.resolve(&rules);
    assert_eq!(s.cleared, 13, "rows 1..13 pop, the hidden-row puyo stays");
    assert_eq!(f.count(), 1);
    assert_eq!(f.get(1, 13), Cell::Color(R), "the hidden-row puyo falls to the floor");

    // Three visible reds plus one in the hidden row next to them: no pop by default.
    let mut f = Field::new();
    for y in 0..4 {
        f.set(2, 13 - y, Cell::Color(G));
    }
    f.set(1, 0, Cell::Color(R));
    f.set(2, 0, Cell::Color(R));
    let mut g = f;
    assert_eq!(f.resolve(&rules).chains, 1); // only the green column
    rules.hidden_row_pops = true;
    assert_eq!(g.resolve(&rules).chains, 1);
    assert_eq!(g.get(1, 0), Cell::Color(R), "two reds are still too few");
}

#[test]
fn nuisance_next_to_a_popping_group_pops_with_it_and_scores_nothing() {
    let mut f = Field::from_rows(&["O.....", "RRRRO.", "OOOOOO"]);
    let s = resolve(&mut f);
    assert_eq!(s.chains, 1);
    assert_eq!(s.cleared, 4 + 1 + 1 + 4, "4 reds, the nuisance above, to the right, and the four below");
    assert_eq!(s.score, 40, "nuisance does not count as popped puyos");
    assert_eq!(f.rows()[13], "....OO");
    assert_eq!(f.count(), 2);
}

#[test]
fn nuisance_never_pops_alone() {
    let mut f = Field::from_rows(&["OOOOOO", "OOOOOO"]);
    assert_eq!(resolve(&mut f).chains, 0);
    assert_eq!(f.count(), 12);
}

#[test]
fn step_score_uses_chain_power_colour_bonus_and_group_bonus() {
    // Step 1, two colours (4 R + 5 G): 10 × 9 × (0 + 3 + 2) = 450.
    let mut f = Field::from_rows(&["RRG...", "RRGGGG"]);
    let (s, steps) = f.resolve_steps(&Rules::puyo1());
    assert_eq!(s.score, 450);
    assert_eq!(steps.len(), 1);
    assert_eq!(steps[0].colors, 2);
    let mut sizes: Vec<u32> = steps[0].groups.iter().map(|g| g.1).collect();
    sizes.sort();
    assert_eq!(sizes, vec![4, 5]);
}

#[test]
fn stairs_fixture_is_a_four_chain() {
    let mut f = fixture("stairs4.txt");
    let s = resolve(&mut f);
    assert_eq!((s.chains, s.cleared, s.score), (4, 16, 2280));
    assert!(f.is_empty());
}

#[test]
fn gtr_fixture_is_a_three_chain() {
    let mut f = fixture("gtr3.txt");
    let s = resolve(&mut f);
    assert_eq!((s.chains, s.cleared, s.score), (3, 12, 1000));
}

#[test]
fn sandwich_fixture_is_a_two_chain() {
    let mut f = fixture("sandwich2.txt");
    let s = resolve(&mut f);
    assert_eq!((s.chains, s.cleared, s.score), (2, 8, 360));
}

#[test]
fn floating_fixture_settles_then_pops_with_the_nuisance() {
    let mut f = fixture("floating.txt");
    let s = resolve(&mut f);
    assert_eq!((s.chains, s.cleared, s.score), (1, 5, 40));
    assert!(f.is_empty());
}

#[test]
fn a_pair_lands_by_orientation_and_splits_when_horizontal() {
    let base = Field::from_rows(&["..R..."]);
    let pair = Pair::new(G, B); // pivot G, child B
    let mut up = base;
    up.drop_pair(pair, Placement::new(3, Orientation::Up)).unwrap();
    assert_eq!((up.get(3, 12), up.get(3, 11)), (Cell::Color(G), Cell::Color(B)));
    let mut down = base;
    down.drop_pair(pair, Placement::new(3, Orientation::Down)).unwrap();
    assert_eq!((down.get(3, 12), down.get(3, 11)), (Cell::Color(B), Cell::Color(G)));
    let mut right = base;
    right.drop_pair(pair, Placement::new(3, Orientation::Right)).unwrap();
    assert_eq!((right.get(3, 12), right.get(4, 13)), (Cell::Color(G), Cell::Color(B)));
    let mut left = base;
    left.drop_pair(pair, Placement::new(3, Orientation::Left)).unwrap();
    assert_eq!((left.get(3, 12), left.get(2, 13)), (Cell::Color(G), Cell::Color(B)));
    assert!(left.is_settled());
    assert!(Field::new().drop_pair(pair, Placement::new(1, Orientation::Left)).is_err());
    assert!(Field::new().drop_pair(pair, Placement::new(6, Orientation::Right)).is_err());
}

#[test]
fn a_puyo_above_the_hidden_row_vanishes() {
    let rows: Vec<String> = (0..13).map(|i| if i % 2 == 0 { "R.....".into() } else { "G.....".into() }).collect();
    let refs: Vec<&str> = rows.iter().map(|s| s.as_str()).collect();
    let mut f = Field::from_rows(&refs); // column 1 filled to row 1
    f.drop_pair(Pair::new(B, Y), Placement::new(1, Orientation::Up)).unwrap();
    assert_eq!(f.get(1, 0), Cell::Color(B), "the pivot lands in the hidden row");
    assert_eq!(f.count(), 14, "the child had nowhere to go and vanished");
}

#[test]
fn the_game_is_over_when_the_spawn_cell_is_occupied() {
    let rules = Rules::puyo1();
    let mut f = Field::new();
    assert!(!f.is_game_over(&rules));
    for y in 1..14 {
        f.set(3, y, if y % 2 == 0 { Cell::Color(R) } else { Cell::Color(G) });
    }
    assert!(f.is_game_over(&rules));
    f.set(3, 1, Cell::Empty);
    assert!(!f.is_game_over(&rules), "only the spawn cell (column 3, row 1) counts");
}

#[test]
fn nuisance_from_score_uses_the_rate_carries_the_remainder_and_caps() {
    let rules = Rules::puyo1();
    let mut carry = 0;
    assert_eq!(nuisance_from_score(&rules, 140, &mut carry), 2);
    assert_eq!(carry, 0);
    assert_eq!(nuisance_from_score(&rules, 100, &mut carry), 1);
    assert_eq!(carry, 30);
    assert_eq!(nuisance_from_score(&rules, 40, &mut carry), 1, "30 + 40 = 70 makes one more");
    assert_eq!(nuisance_from_score(&rules, 70 * 100, &mut carry), 30, "capped per chain");
}

#[test]
fn pending_nuisance_falls_in_rows_then_distinct_random_columns() {
    let rules = Rules::puyo1();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);
    let mut f = Field::new();
    assert_eq!(f.drop_nuisance(16, &rules, &mut rng), 16);
    assert_eq!(f.nuisance_count(), 16);
    let heights = f.heights();
    assert!(heights.iter().all(|&h| h == 2 || h == 3), "{heights:?}");
    assert_eq!(heights.iter().filter(|&&h| h == 3).count(), 4);
    let mut g = Field::new();
    assert_eq!(g.drop_nuisance(100, &rules, &mut rng), 30, "at most nuisance_max_drop at once");
    assert_eq!(g.heights(), [5; 6]);
}

#[test]
fn big_puyo_clears_the_two_columns_it_lands_in() {
    let rules = Rules::puyo1();
    let mut f = Field::from_rows(&["RGBYRG", "OGBYRG", "RGBYRG"]);
    let s = f.play(Piece::Item(Item::BigPuyo), Placement::new(2, Orientation::Up), &rules).unwrap();
    assert_eq!(s.chains, 0);
    assert_eq!(s.cleared, 6);
    assert_eq!(f.height(2), 0);
    assert_eq!(f.height(3), 0);
    assert_eq!(f.height(1), 3);
    assert!(f.play(Piece::Item(Item::BigPuyo), Placement::new(6, Orientation::Up), &rules).is_err());
}

#[test]
fn carbuncle_recolours_what_it_touches_to_the_colour_below_and_the_field_resolves() {
    let rules = Rules::puyo1();
    // Carbuncle lands on column 2 (on the R at row 12); it touches R below, G left, B right.
    let mut f = Field::from_rows(&["G.B...", "RRR..."]);
    let s = f.play(Piece::Item(Item::Carbuncle), Placement::new(2, Orientation::Up), &rules).unwrap();
    // G and B turn red: 5 reds pop.
    assert_eq!((s.chains, s.cleared), (1, 5));
    assert!(f.is_empty());
    // On the floor with nothing below it takes the lowest colour among its neighbours.
    let mut g = Field::from_rows(&["B.G..."]);
    g.play(Piece::Item(Item::Carbuncle), Placement::new(2, Orientation::Up), &rules).unwrap();
    assert_eq!((g.get(1, 13), g.get(3, 13)), (Cell::Color(G), Cell::Color(G)));
    // Nuisance is not recoloured by default.
    let mut h = Field::from_rows(&["O.R..."]);
    h.play(Piece::Item(Item::Carbuncle), Placement::new(2, Orientation::Up), &rules).unwrap();
    assert_eq!(h.get(1, 13), Cell::Nuisance);
}

#[test]
fn carbuncle_s_lowest_colour_follows_the_cartridge_s_code_order() {
    // Codes learned in the order they appeared: model green's code is below model blue's, red's above
    // both. With nothing below, Carbuncle takes the touched colour of lowest code, whatever its place in
    // the model's order.
    let mut rules = Rules::puyo1();
    rules.items.carbuncle_rank = ItemRules::ranks_by_code(&[13, 11, 12, 10]);
    assert_eq!(rules.items.carbuncle_rank, [3, 1, 2, 0, 4, 5]);
    let mut g = Field::from_rows(&["B.G..."]);
    g.play(Piece::Item(Item::Carbuncle), Placement::new(2, Orientation::Up), &rules).unwrap();
    assert_eq!((g.get(1, 13), g.get(3, 13)), (Cell::Color(G), Cell::Color(G)));
    let mut r = Field::from_rows(&["R.B..."]);
    r.play(Piece::Item(Item::Carbuncle), Placement::new(2, Orientation::Up), &rules).unwrap();
    assert_eq!((r.get(1, 13), r.get(3, 13)), (Cell::Color(B), Cell::Color(B)), "blue's code 12 is below red's 13");
}

#[test]
fn field_file_errors_name_the_line_and_column() {
    let e = text::parse_field("......\nR..X..\n").unwrap_err();
    assert_eq!(e.to_string(), "line 2, column 4: unexpected character 'X'; expected one of . O R G B Y P L");
    let e = text::parse_field("# comment\nRRR\n").unwrap_err();
    assert_eq!(e, text::TextError::BadWidth { line: 2, found: 3 });
    let too_many = "......\n".repeat(15);
    assert_eq!(text::parse_field(&too_many).unwrap_err(), text::TextError::TooManyRows { line: 15 });
    let e = text::parse_field("r.....").unwrap_err();
    assert!(matches!(e, text::TextError::BadChar { line: 1, column: 1, found: 'r' }));
}

#[test]
fn field_files_fill_from_the_bottom_and_round_trip() {
    let f = text::parse_field("# c\nRG....\r\n......\n").unwrap();
    assert_eq!(f.get(1, 12), Cell::Color(R));
    assert_eq!(f.get(2, 12), Cell::Color(G));
    let again = text::parse_field(&text::format_field(&f)).unwrap();
    assert_eq!(f, again);
}

#[test]
fn queues_parse_pairs_and_items_and_reject_the_rest() {
    let q = text::parse_queue("RG\n# c\n\nBIG\nCAR\nYY\n").unwrap();
    assert_eq!(q.len(), 4);
    assert_eq!(q[0], Piece::Pair(Pair::new(R, G)));
    assert_eq!(q[1], Piece::Item(Item::BigPuyo));
    let e = text::parse_queue("RG\nRX\n").unwrap_err();
    assert_eq!(e, text::TextError::BadPiece { line: 2, found: "RX".into() });
    assert_eq!(text::parse_queue("# nothing\n").unwrap_err(), text::TextError::EmptyQueue);
}

/// A random settled field: random column heights (≤ `max_height`) with random cells.
fn arb_field(max_height: usize, colors: u8) -> impl Strategy<Value = Field> {
    proptest::collection::vec(proptest::collection::vec(0..=colors, 0..=max_height), 6).prop_map(move |cols| {
        let mut f = Field::new();
        for (x, col) in cols.iter().enumerate() {
            for &c in col {
                let cell = if c == colors { Cell::Nuisance } else { Cell::Color(Color::ALL[c as usize]) };
                f.drop_puyo(x + 1, cell);
            }
        }
        f
    })
}

fn has_poppable_group(f: &Field) -> bool {
    // Independent flood fill over cells, not bitboards.
    let mut seen = [[false; 14]; 7];
    for x in 1..=6 {
        for y in 1..14 {
            let Cell::Color(c) = f.get(x, y) else { continue };
            if seen[x][y] {
                continue;
            }
            let mut stack = vec![(x, y)];
            seen[x][y] = true;
            let mut n = 0;
            while let Some((cx, cy)) = stack.pop() {
                n += 1;
                let around = [(cx - 1, cy), (cx + 1, cy), (cx, cy - 1), (cx, cy + 1)];
                for (nx, ny) in around {
                    if (1..=6).contains(&nx)
                        && (1..14).contains(&ny)
                        && !seen[nx][ny]
                        && f.get(nx, ny) == Cell::Color(c)
                    {
                        seen[nx][ny] = true;
                        stack.push((nx, ny));
                    }
                }
            }
            if n >= 4 {
                return true;
            }
        }
    }
    false
}

proptest! {
    #[test]
    fn after_resolution_nothing_floats_and_no_group_remains(mut f in arb_field(14, 4)) {
        let before = f.count();
        let s = f.resolve(&Rules::puyo1());
        prop_assert!(f.is_settled());
        prop_assert!(!has_poppable_group(&f));
        prop_assert_eq!(before - s.cleared, f.count(), "puyo counts add up");
    }

    #[test]
    fn resolution_is_idempotent(mut f in arb_field(14, 4)) {
        let rules = Rules::puyo1();
        f.resolve(&rules);
        let once = f;
        let again = f.resolve(&rules);
        prop_assert_eq!(again.chains, 0);
        prop_assert_eq!(f, once);
    }

    #[test]
    fn dropping_a_pair_and_resolving_from_its_cells_equals_a_full_search(
        mut f in arb_field(11, 4), x in 1u8..=6, o in 0usize..4, a in 0usize..4, b in 0usize..4,
    ) {
        let rules = Rules::puyo1();
        f.resolve(&rules);
        let p = Placement::new(x, Orientation::ALL[o]);
        let pair = Pair::new(Color::ALL[a], Color::ALL[b]);
        let mut fast = f;
        let mut full = f;
        let fast_res = fast.play(Piece::Pair(pair), p, &rules);
        if full.drop_pair(pair, p).is_ok() {
            let full_res = full.resolve(&rules);
            prop_assert_eq!(fast_res.ok(), Some(full_res));
            prop_assert_eq!(fast, full);
        }
    }

    #[test]
    fn set_and_get_agree_with_the_bit_layout(x in 1usize..=6, y in 0usize..14, c in 0usize..6) {
        let mut f = Field::new();
        f.set(x, y, Cell::Color(Color::ALL[c]));
        prop_assert_eq!(f.color_bits(Color::ALL[c]), 1u128 << bit(x, y));
        prop_assert_eq!(f.get(x, y), Cell::Color(Color::ALL[c]));
    }
}

#[test]
fn long_fixture_is_a_twelve_chain_of_single_fours() {
    let mut f = fixture("long12.txt");
    let (s, steps) = f.resolve_steps(&Rules::puyo1());
    assert_eq!((s.chains, s.cleared), (12, 48));
    assert!(steps.iter().all(|st| st.popped == 4 && st.colors == 1));
    // 40 × (1 + 8 + 16 + 32 + 64 + 128 + 256 + 512 + 4 × 999): step 1's multiplier 0 clamps to 1.
    assert_eq!(s.score, 40 * (1 + 8 + 16 + 32 + 64 + 128 + 256 + 512 + 4 * 999));
}

#[test]
fn domino_fixture_of_the_csp_paper_is_an_eight_chain() {
    let mut f = fixture("domino8.txt");
    let (s, steps) = f.resolve_steps(&Rules::puyo1());
    assert_eq!((s.chains, s.cleared), (8, 32));
    assert!(steps.iter().all(|st| st.popped == 4 && st.colors == 1));
    assert_eq!(s.score, 40 * (1 + 8 + 16 + 32 + 64 + 128 + 256 + 512));
}
