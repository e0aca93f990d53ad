//! The labcart driven through tetanes-core: menu, RAM contract, movement, rules.
use crate::common::labcart::*;

const O: Orients = Orients::CONTRACT;

fn count(f: &[[u8; 6]; 14], code: u8) -> usize {
    f.iter().flatten().filter(|c| **c == code).count()
}

/// Landing row of a single puyo dropped in column x (1..6), None if the column is full.
fn landing_row(f: &[[u8; 6]; 14], x: u8) -> Option<usize> {
    (0..14).rev().find(|&y| f[y][x as usize - 1] == 0 && (y == 13 || f[y + 1][x as usize - 1] != 0))
}

fn height(f: &[[u8; 6]; 14], x: u8) -> usize {
    (0..14).filter(|&y| f[y][x as usize - 1] != 0).count()
}

#[test]
fn menu_script_reaches_each_mode() {
    let mut lab = Lab::new(ROM_CONTRACT, Variant::CONTRACT);
    lab.idle(10);
    assert_eq!(lab.game_state(), gstate::TITLE);
    assert_ne!(lab.ram(addr::SPAWN_DELAY[0]), 0, "no piece on the title");
    assert_ne!(lab.ram(addr::SPAWN_DELAY[1]), 0);
    let mut lab = Lab::new(ROM_CONTRACT, Variant::CONTRACT);
    lab.boot(MenuChoice::ONE_P);
    assert_eq!(lab.ram(addr::MODE), 0);
    assert_eq!(lab.ram(addr::ITEM_OPTION), 0);
    assert_eq!(lab.ram(addr::COLOURS), 4);

    let mut lab = Lab::new(ROM_CONTRACT, Variant::CONTRACT);
    lab.boot(MenuChoice { two_player: true, item: 2, colours: 6 });
    assert_eq!(lab.ram(addr::MODE), 2);
    assert_eq!(lab.ram(addr::ITEM_OPTION), 2);
    assert_eq!(lab.ram(addr::COLOURS), 6);
    assert!(lab.wait_controllable(0));
    assert!(lab.wait_controllable(1));

    let mut lab = Lab::new(ROM_CONTRACT, Variant::CONTRACT);
    lab.boot(MenuChoice { two_player: false, item: 1, colours: 3 });
    assert_eq!(lab.ram(addr::MODE), 0);
    assert_eq!(lab.ram(addr::ITEM_OPTION), 1);
    assert_eq!(lab.ram(addr::COLOURS), 3);
    // 1P: player 2 never gets a piece
    assert!(lab.wait_controllable(0));
    assert_ne!(lab.ram(addr::SPAWN_DELAY[1]), 0);
    // colours only 1..3
    for _ in 0..10 {
        let pc = lab.piece(0);
        assert!((1..=3).contains(&pc.pivot) && (1..=3).contains(&pc.child), "{pc:?}");
        let x = lab.ram(addr::SCORE[0]) % 6 + 1;
        lab.place(0, x, O.up);
        assert!(lab.wait_controllable(0));
    }
}

#[test]
fn spawn_flags_and_field_layout() {
    let mut lab = Lab::new(ROM_FIXED, Variant::CONTRACT);
    lab.boot(MenuChoice::ONE_P);
    // walls and empty cells
    for y in 0..14u16 {
        for x in 0..8u16 {
            let a = 0x0300 + 16 * y + 2 * x;
            let want = if x == 0 || x == 7 { 8 } else { 0 };
            assert_eq!(lab.ram(a), 0, "attribute byte");
            assert_eq!(lab.ram(a + 1), want, "cell {x},{y}");
        }
    }
    assert_ne!(lab.ram(addr::SPAWN_DELAY[0]), 0);
    let next = (lab.ram(addr::NEXT_PIVOT[0]), lab.ram(addr::NEXT_CHILD[0]));
    assert!((1..=4).contains(&next.0) && (1..=4).contains(&next.1));
    let mut n = 0;
    while lab.ram(addr::SPAWN_DELAY[0]) != 0 {
        assert_eq!(lab.ram(addr::SPAWNED[0]), 0);
        assert_eq!(lab.ram(addr::SPAWN_ANY), 0);
        lab.idle(1);
        n += 1;
        assert!(n < 100);
    }
    // the spawn frame
    assert_eq!(lab.ram(addr::SPAWNED[0]), 1);
    assert_eq!(lab.ram(addr::SPAWN_ANY), 1);
    let pc = lab.piece(0);
    assert_eq!((pc.x, pc.y, pc.orient), (3, 1, 2));
    assert_eq!((pc.pivot, pc.child), next, "current pair = previous next pair");
    assert_eq!(lab.ram(addr::SPRITE_X[0]), 48);
    assert_eq!(lab.ram(addr::SPRITE_Y[0]), 16);
    let t0 = lab.ram(addr::DROP_TIMER[0]);
    lab.idle(1);
    assert_eq!(lab.ram(addr::SPAWNED[0]), 0);
    assert_eq!(lab.ram(addr::SPAWN_ANY), 0);
    assert_eq!(lab.ram(addr::DROP_TIMER[0]), t0 - 1, "drop timer counts down");
    // falls one whole row when the timer expires
    let y0 = lab.piece(0).y;
    lab.wait_until(40, |l| l.piece(0).y != y0);
    assert_eq!(lab.piece(0).y, y0 + 1);
    assert_eq!(lab.ram(addr::SPRITE_Y[0]), 32);
    assert_eq!(lab.ram(addr::LEVEL), 0);
}

#[test]
fn moves_rotations_and_kicks() {
    let mut lab = Lab::new(ROM_FIXED, Variant::CONTRACT);
    lab.boot(MenuChoice::ONE_P);
    assert!(lab.wait_controllable(0));
    let pos = |l: &Lab| {
        let p = l.piece(0);
        (p.x, p.y, p.orient)
    };
    let y = lab.piece(0).y;
    lab.tap(btn::LEFT, 1);
    assert_eq!(pos(&lab), (2, y, O.up));
    lab.tap(btn::RIGHT, 1);
    assert_eq!(pos(&lab), (3, y, O.up));
    // clockwise: up -> right -> down -> left -> up
    for want in [O.right, O.down, O.left, O.up] {
        lab.tap(btn::A, 1);
        assert_eq!(lab.piece(0).orient, want);
    }
    // counter-clockwise
    for want in [O.left, O.down, O.right, O.up] {
        lab.tap(btn::B, 1);
        assert_eq!(lab.piece(0).orient, want);
    }
    // wall kick at column 6 rotating right
    for _ in 0..3 {
        lab.tap(btn::RIGHT, 1);
    }
    assert_eq!(lab.piece(0).x, 6);
    lab.tap(btn::RIGHT, 1);
    assert_eq!(lab.piece(0).x, 6, "the wall stops the move");
    lab.tap(btn::A, 1);
    assert_eq!((lab.piece(0).x, lab.piece(0).orient), (5, O.right), "kicked off the right wall");
    // back to up, then the left wall
    lab.tap(btn::B, 1);
    for _ in 0..5 {
        lab.tap(btn::LEFT, 1);
    }
    assert_eq!((lab.piece(0).x, lab.piece(0).orient), (1, O.up));
    lab.tap(btn::B, 1);
    assert_eq!((lab.piece(0).x, lab.piece(0).orient), (2, O.left), "kicked off the left wall");
    // horizontal piece: moving against the wall uses both cells
    lab.tap(btn::LEFT, 1);
    assert_eq!(lab.piece(0).x, 2, "child at column 1 blocks the move");
    // floor kick: rotate to down while resting on the floor
    lab.tap(btn::A, 1);
    lab.tap(btn::A, 1);
    assert_eq!(lab.piece(0).orient, O.right);
    while lab.piece(0).y < 12 {
        lab.frame(btn::DOWN, 0);
    }
    assert!(lab.wait_until(40, |l| l.piece(0).y == 13));
    assert!(lab.controllable(0), "bounce: still movable after landing");
    lab.tap(btn::A, 0);
    let p = lab.piece(0);
    assert_eq!((p.y, p.orient), (12, O.down), "kicked up from the floor");
    let (pv, ch, x) = (p.pivot, p.child, p.x);
    // lock writes both cells
    assert!(lab.wait_until(100, |l| !l.controllable(0)));
    let f = lab.field(0);
    assert_eq!(f[12][x as usize - 1], pv);
    assert_eq!(f[13][x as usize - 1], ch);
}

#[test]
fn lock_writes_cells_and_splits() {
    let mut lab = Lab::new(ROM_FIXED, Variant::CONTRACT);
    lab.boot(MenuChoice::ONE_P);
    assert!(lab.wait_controllable(0));
    let p1 = lab.piece(0);
    assert!(lab.place(0, 1, O.up));
    assert!(lab.wait_controllable(0));
    let f = lab.field(0);
    assert_eq!((f[13][0], f[12][0]), (p1.pivot, p1.child));
    let p2 = lab.piece(0);
    assert!(lab.place(0, 1, O.right));
    assert!(lab.wait_controllable(0));
    let f = lab.field(0);
    assert_eq!(f[11][0], p2.pivot, "pivot lands on column 1");
    assert_eq!(f[13][1], p2.child, "child splits off and falls to the floor of column 2");
    let p3 = lab.piece(0);
    assert!(lab.place(0, 5, O.down));
    assert!(lab.wait_controllable(0));
    let f = lab.field(0);
    assert_eq!((f[13][4], f[12][4]), (p3.child, p3.pivot));
}

/// Build a 2-chain with columns 1 and 2 (trash in 4..6) and return (score before, after, max chain).
fn build_two_chain(lab: &mut Lab, other: Option<usize>) -> (u32, u32, u8) {
    let mut ab: Option<(u8, u8)> = None;
    let (mut c1, mut c2) = (0, 0);
    let mut other_pl = Placer::idle();
    let mut other_n = 0u8;
    for _ in 0..80 {
        // wait for P1's piece while the other player keeps playing
        loop {
            if lab.controllable(0) || lab.game_state() != gstate::PLAY {
                break;
            }
            drive_other(lab, other, &mut other_pl, &mut other_n);
        }
        assert_eq!(lab.game_state(), gstate::PLAY, "game ended while building\n{}", lab.print_field(0));
        let pc = lab.piece(0);
        if ab.is_none() && pc.pivot != pc.child {
            ab = Some((pc.pivot, pc.child));
        }
        let pair = [pc.pivot, pc.child];
        let (x, o, fin) = match ab {
            Some((a, b)) if c1 == 3 && c2 == 3 && (pair == [a, b] || pair == [b, a]) => {
                (1, if pc.pivot == a { O.up } else { O.down }, true)
            }
            Some((a, _)) if pair == [a, a] && c1 <= 1 => {
                c1 += 2;
                (1, O.up, false)
            }
            Some((_, b)) if pair == [b, b] && c2 <= 1 => {
                c2 += 2;
                (2, O.up, false)
            }
            Some((a, b)) if (pair == [a, b] || pair == [b, a]) && c1 < 3 && c2 < 3 => {
                c1 += 1;
                c2 += 1;
                if pc.pivot == a { (1, O.right, false) } else { (2, O.left, false) }
            }
            _ => {
                let f = lab.field(0);
                let x = (4..=6).min_by_key(|&x| height(&f, x)).unwrap();
                (x, O.up, false)
            }
        };
        let before = lab.score(0);
        let mut pl = Placer::new(x, o);
        while !pl.done() {
            let b0 = pl.buttons(lab, 0);
            let b1 = match other {
                Some(q) => other_buttons(lab, q, &mut other_pl, &mut other_n),
                None => 0,
            };
            lab.frame(b0, b1);
        }
        assert!(pl.reached, "placement {x} {o}");
        if fin {
            let mut max_chain = 0;
            while !lab.controllable(0) && lab.game_state() == gstate::PLAY {
                max_chain = max_chain.max(lab.ram(addr::CHAIN[0]));
                drive_other(lab, other, &mut other_pl, &mut other_n);
            }
            assert_eq!(lab.ram(addr::CHAIN[0]), 0, "chain counter back to 0");
            return (before, lab.score(0), max_chain);
        }
    }
    panic!("no 2-chain built\n{}", lab.print_field(0));
}

/// The other player spreads its pieces over the columns (skipping the spawn column).
fn other_buttons(lab: &Lab, q: usize, pl: &mut Placer, n: &mut u8) -> u8 {
    if pl.done() && lab.controllable(q) {
        let cols = [1, 2, 4, 5, 6, 4];
        let f = lab.field(q);
        let x = *cols.iter().min_by_key(|&&x| (height(&f, x), x)).unwrap();
        *pl = Placer::new(x, if n.is_multiple_of(2) { O.up } else { O.down });
        *n = n.wrapping_add(1);
    }
    pl.buttons(lab, q)
}

fn drive_other(lab: &mut Lab, other: Option<usize>, pl: &mut Placer, n: &mut u8) {
    let b = match other {
        Some(q) => other_buttons(lab, q, pl, n),
        None => 0,
    };
    lab.frame(0, b);
}

#[test]
fn four_group_pops_and_two_chain_scores() {
    let mut lab = Lab::new(ROM_FIXED, Variant::CONTRACT);
    lab.boot(MenuChoice::ONE_P);
    assert!(lab.wait_controllable(0));
    let (before, after, chain) = build_two_chain(&mut lab, None);
    // step 1: 4 popped x max(1, 0) = 4; step 2: 4 x chain power 8 = 32 (score / 10)
    assert_eq!(chain, 2);
    assert_eq!(after - before, 36, "score delta of the 2-chain\n{}", lab.print_field(0));
    let f = lab.field(0);
    assert_eq!(height(&f, 1), 0, "column 1 popped\n{}", lab.print_field(0));
    assert_eq!(height(&f, 2), 0, "column 2 popped");
}

#[test]
fn nuisance_arrives_in_2p() {
    let mut lab = Lab::new(ROM_FIXED, Variant::CONTRACT);
    lab.boot(MenuChoice::TWO_P);
    assert!(lab.wait_controllable(0));
    let nuis_before = count(&lab.field(1), 7);
    let (before, after, chain) = build_two_chain(&mut lab, Some(1));
    assert_eq!(chain, 2);
    assert!(after - before >= 36);
    // P2 has pending nuisance (at least 36 / 7 = 5 from the chain) and gets it after its next lock
    let pend = lab.pending(1);
    assert!(pend >= 5, "pending {pend}");
    let mut pl = Placer::idle();
    let mut n = 0;
    let mut dropped = false;
    for _ in 0..3000 {
        let b = other_buttons(&lab, 1, &mut pl, &mut n);
        lab.frame(0, b);
        if lab.pending(1) < pend {
            dropped = true;
            break;
        }
    }
    assert!(dropped, "pending nuisance never dropped");
    let got = pend - lab.pending(1);
    println!("pending {pend} got {got}\n{}", lab.print_field(1));
    assert_eq!(got, pend.min(30));
    let f = lab.field(1);
    assert!(count(&f, 7) > nuis_before, "nuisance in P2's field\n{}", lab.print_field(1));
    assert_eq!(count(&f, 7), nuis_before + got as usize, "{}", lab.print_field(1));
}

fn play_until_item(lab: &mut Lab, item: u8) {
    for i in 0..15 {
        assert!(lab.wait_controllable(0));
        let pc = lab.piece(0);
        assert_ne!(pc.pivot, item, "piece {} is not an item", i + 1);
        if i == 14 {
            assert_eq!(lab.ram(addr::NEXT_PIVOT[0]), item, "next shows the item");
            assert_eq!(lab.ram(addr::NEXT_CHILD[0]), item);
        }
        let cols = [1, 2, 4, 5, 6, 4, 5, 6];
        let f = lab.field(0);
        let x = *cols.iter().min_by_key(|&&x| (height(&f, x), x)).unwrap();
        lab.place(0, x, if i % 2 == 0 { O.up } else { O.down });
    }
    assert!(lab.wait_controllable(0));
    let pc = lab.piece(0);
    assert_eq!((pc.pivot, pc.child, pc.orient, pc.x, pc.y), (item, item, O.up, 3, 1), "16th piece");
}

#[test]
fn big_puyo_clears_two_columns() {
    let mut lab = Lab::new(ROM_FIXED, Variant::CONTRACT);
    lab.boot(MenuChoice { two_player: false, item: 1, colours: 4 });
    play_until_item(&mut lab, 9);
    // A/B do nothing
    lab.tap(btn::A, 1);
    assert_eq!(lab.piece(0).orient, O.up);
    let before = lab.field(0);
    assert!(height(&before, 1) + height(&before, 2) > 0);
    assert!(lab.place(0, 1, O.up));
    let after = lab.field(0);
    println!("big before\n{}", lab.print_field(0));
    for (y, row) in after.iter().enumerate() {
        assert_eq!(row[0], 0, "column 1 cleared\n{}", lab.print_field(0));
        assert_eq!(row[1], 0, "column 2 cleared");
        assert_eq!(row[2..], before[y][2..], "other columns untouched");
    }
    // X can reach 5 (its right column is 6) but not 6
    assert!(lab.wait_controllable(0));
}

#[test]
fn carbuncle_recolours_touched_puyos() {
    let mut lab = Lab::new(ROM_FIXED, Variant::CONTRACT);
    lab.boot(MenuChoice { two_player: false, item: 2, colours: 4 });
    play_until_item(&mut lab, 10);
    let before = lab.field(0);
    // choose the column whose landing cell touches the most colours
    let touched = |x: u8| -> Vec<(usize, usize)> {
        let Some(y) = landing_row(&before, x) else {
            return vec![];
        };
        let xi = x as usize - 1;
        let mut v = vec![];
        if y < 13 {
            v.push((y + 1, xi));
        }
        if xi > 0 {
            v.push((y, xi - 1));
        }
        if xi < 5 {
            v.push((y, xi + 1));
        }
        v.into_iter().filter(|&(yy, xx)| (1..=6).contains(&before[yy][xx])).collect()
    };
    let distinct = |x: u8| {
        let mut c: Vec<u8> = touched(x).iter().map(|&(yy, xx)| before[yy][xx]).collect();
        c.sort();
        c.dedup();
        c.len()
    };
    let x = (1..=6u8).max_by_key(|&x| (distinct(x), touched(x).len(), x)).unwrap();
    let t = touched(x);
    assert!(!t.is_empty(), "something to touch\n{}", lab.print_field(0));
    let y = landing_row(&before, x).unwrap();
    let below = if y < 13 { before[y + 1][x as usize - 1] } else { 0 };
    let target = if (1..=6).contains(&below) { below } else { t.iter().map(|&(yy, xx)| before[yy][xx]).min().unwrap() };
    assert!(lab.place(0, x, O.up));
    let after = lab.field(0);
    let mut want = before;
    for &(yy, xx) in &t {
        want[yy][xx] = target;
    }
    println!("carbuncle x {x} y {y} touched {t:?} target {target}\n{}", lab.print_field(0));
    assert_eq!(after, want, "carbuncle at column {x} row {y}\n{}", lab.print_field(0));
}

#[test]
fn game_over_in_1p_by_stacking_column_3() {
    let mut lab = Lab::new(ROM_FIXED, Variant::CONTRACT);
    lab.boot(MenuChoice::ONE_P);
    let mut pieces = 0;
    while lab.game_state() == gstate::PLAY {
        if !lab.wait_controllable(0) {
            break;
        }
        lab.place(0, 3, O.up);
        pieces += 1;
        assert!(pieces < 60, "never game over");
        lab.wait_until(400, |l| l.controllable(0) || l.game_state() != gstate::PLAY);
    }
    assert_eq!(lab.game_state(), gstate::OVER);
    assert_ne!(lab.field(0)[1][2], 0, "spawn cell occupied");
    assert_ne!(lab.ram(addr::SPAWN_DELAY[0]), 0);
    lab.idle(5);
    lab.tap(btn::START, 2);
    assert_eq!(lab.game_state(), gstate::TITLE, "Start returns to the title");
}

/// A 2P game that ends while the survivor's chain is popping must not hand its pop bits to the next
/// game. (The cartridge once kept them: the next game's first pop also took the stale cells, which
/// the after-lock check saw as a field mismatch in long AI-vs-AI matches.)
#[test]
fn a_game_ended_mid_pop_leaves_no_pop_bits_to_the_next() {
    const POPBITS: u16 = 0x05C0;
    const PS_POP: u8 = 5;
    const PS_DEAD: u8 = 6;
    let pop_bits = |lab: &Lab| (0..32).map(|i| lab.ram(POPBITS + i)).collect::<Vec<u8>>();
    let mut lab = Lab::new(ROM_FIXED, Variant::CONTRACT);
    lab.boot(MenuChoice::TWO_P);
    assert!(lab.wait_controllable(0));
    // three of the pivot's colour at the bottom of column 1: the pair dropped there upright pops
    let pivot = lab.piece(0).pivot;
    for row in 11..=13u16 {
        lab.poke(addr::FIELD[0] + 16 * row + 2 + 1, pivot);
    }
    let mut pl = [Placer::new(1, O.up), Placer::idle()];
    let mut frames = 0;
    while lab.ram(addr::PLAYER_STATE[0]) != PS_POP {
        lab.step_placers(&mut pl);
        frames += 1;
        assert!(frames < 600, "no pop after 600 frames\n{}", lab.print_field(0));
    }
    assert!(pop_bits(&lab).iter().any(|&b| b != 0), "P1 is popping\n{}", lab.print_field(0));
    // P2 tops out now: the game ends in the middle of P1's pop
    lab.poke(addr::PLAYER_STATE[1], PS_DEAD);
    assert!(lab.wait_until(10, |l| l.game_state() == gstate::OVER), "game over after P2's top-out");
    assert_eq!(lab.ram(addr::WINNER), 1, "P1 won");
    // result screen -> title -> menu -> the next game
    for state in [gstate::TITLE, gstate::MENU, gstate::PLAY] {
        lab.tap(btn::START, 2);
        assert_eq!(lab.game_state(), state);
    }
    assert_eq!(pop_bits(&lab), vec![0; 32], "pop bits left from the last game");
}
