//! The labcart built with drawn contracts (src/labcart/build.sh --out … -- -D …): each build
//! honours its values in RAM — empty code, colour byte offset, piece codes, orientation numbering,
//! A/B direction, X/Y tracking, spawn orientation, nuisance and item codes.
//!
//! `PUYOBOT_CONTRACT_SEED` picks the seed (printed), `PUYOBOT_CONTRACT_VARIANTS=N` draws N
//! contracts instead of the default handful. Skips with a message when `ca65` is missing.

use crate::common::contract::{BuildError, Contract, Dir, build_with};
use crate::common::labcart::*;

const DEFAULT_SEED: u64 = 0x5EED_0008;
const DEFAULT_VARIANTS: u64 = 3;

/// The seed and the contracts under test: two fixed edge cases (a colour or the nuisance code is 0
/// while the code sits in the first byte, where the walls have their 00) and `N` drawn ones.
fn contracts() -> (u64, Vec<Contract>) {
    let seed = std::env::var("PUYOBOT_CONTRACT_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(DEFAULT_SEED);
    let n = std::env::var("PUYOBOT_CONTRACT_VARIANTS").ok().and_then(|s| s.parse().ok()).unwrap_or(DEFAULT_VARIANTS);
    println!("contract seed {seed} (PUYOBOT_CONTRACT_SEED), {n} drawn variants (PUYOBOT_CONTRACT_VARIANTS)");
    let mut v = Contract::EDGE_CASES.to_vec();
    v.extend((0..n).map(|i| Contract::random(seed.wrapping_add(i))));
    (seed, v)
}

/// Build `c` for test `test` (variant `i`), or None (with a message) when ca65 is missing.
fn build(c: &Contract, test: &str, i: usize) -> Option<Vec<u8>> {
    c.validate().unwrap_or_else(|e| panic!("drawn contract invalid: {e}: {c}"));
    println!("variant {i}: {c}");
    match c.build_rom(&format!("{test}-{i}")) {
        Ok(rom) => Some(rom),
        Err(BuildError::NoAssembler) => {
            crate::common::tools::missing_ca65(&format!("labcart_contract ({test}-{i})"));
            None
        }
        Err(e) => panic!("{e}"),
    }
}

/// Every cell's code byte is a code the contract allows in a field; the other byte is 0; walls 00 08.
fn check_field_bytes(lab: &Lab, c: &Contract, p: usize, what: &str) {
    let other = lab.field_other_bytes(p);
    assert!(other.iter().flatten().all(|b| *b == 0), "{what}: P{} non-code bytes not all 0: {other:?}", p + 1);
    for (y, row) in lab.field(p).iter().enumerate() {
        for (x, code) in row.iter().enumerate() {
            let ok = *code == c.empty || *code == c.nuisance || c.colours().contains(code);
            assert!(ok, "{what}: P{} cell ({}, {y}) holds code {code}\n{}", p + 1, x + 1, lab.print_field(p));
        }
        let base = addr::FIELD[p] + 16 * y as u16;
        let walls = [lab.ram(base), lab.ram(base + 1), lab.ram(base + 14), lab.ram(base + 15)];
        assert_eq!(walls, [0, 8, 0, 8], "{what}: P{} walls of row {y}", p + 1);
    }
}

/// The pivot's cell from the sprite bytes, which follow the pivot in every build.
fn sprite_pivot(lab: &Lab, p: usize) -> (i32, i32) {
    let sx = lab.ram(addr::SPRITE_X[p]) as i32 - 128 * p as i32;
    (sx / 16, lab.ram(addr::SPRITE_Y[p]) as i32 / 16)
}

/// X/Y hold the pivot's cell, or the child's with XY_CHILD (an item's own cell either way).
fn check_xy(lab: &Lab, c: &Contract, p: usize, what: &str) {
    let pc = lab.piece(p);
    let (px, py) = sprite_pivot(lab, p);
    let item = pc.pivot == c.big || pc.pivot == c.carbuncle;
    let (dx, dy) = if c.xy_child && !item { c.orients.dir(pc.orient).delta() } else { (0, 0) };
    assert_eq!(
        (pc.x as i32, pc.y as i32),
        (px + dx, py + dy),
        "{what}: X/Y with pivot at ({px}, {py}), orientation {} ({:?}), xy_child {}",
        pc.orient,
        c.orients.dir(pc.orient),
        c.xy_child
    );
}

/// Press `b` for one frame on pad 1, release one frame.
fn press(lab: &mut Lab, b: u8) {
    lab.frame(b, 0);
    lab.frame(0, 0);
}

/// The button that turns the pair clockwise in this build.
fn cw_button(c: &Contract) -> u8 {
    if c.a_clockwise { btn::A } else { btn::B }
}

/// Wait for player p's next pair, check its spawn, steer its pivot to column `x` with the child
/// towards `dir` (checking X/Y every controllable frame), hard-drop it; returns (pivot, child) codes.
fn place_checked(lab: &mut Lab, c: &Contract, p: usize, x: u8, dir: Dir) -> (u8, u8) {
    assert!(lab.wait_controllable(p), "P{} never got a piece\n{}", p + 1, lab.print_field(p));
    let pc = lab.piece(p);
    assert!(c.colours().contains(&pc.pivot) && c.colours().contains(&pc.child), "pair codes {pc:?}");
    assert_eq!(pc.orient, c.spawn_value(), "spawn orientation value");
    assert_eq!(sprite_pivot(lab, p), (3, 1), "spawn pivot cell");
    check_xy(lab, c, p, "spawn");
    let mut pl = [Placer::idle(), Placer::idle()];
    pl[p] = Placer::new(x, c.orients.value(dir));
    let mut frames = 0;
    while !pl[p].done() {
        lab.step_placers(&mut pl);
        if lab.controllable(p) {
            check_xy(lab, c, p, "steering");
        }
        frames += 1;
        assert!(frames < 3000, "placement never finished");
    }
    assert!(pl[p].reached, "could not reach column {x} {dir:?}");
    (pc.pivot, pc.child)
}

/// One-player game: start state, spawn, the A/B orientation sequence, a wall kick, where each
/// half lands, and game over.
fn check_one_player(rom: &[u8], c: &Contract) {
    let mut lab = Lab::new(rom, c.lab_variant());
    lab.boot(MenuChoice { two_player: false, item: 0, colours: 6 });
    for p in 0..2 {
        assert!(
            lab.field(p).iter().flatten().all(|b| *b == c.empty),
            "P{} field empty at start\n{}",
            p + 1,
            lab.print_field(p)
        );
        check_field_bytes(&lab, c, p, "game start");
    }
    assert!(c.colours().contains(&lab.ram(addr::NEXT_PIVOT[0])), "next pivot is a colour");
    assert!(c.colours().contains(&lab.ram(addr::NEXT_CHILD[0])), "next child is a colour");
    assert_eq!(lab.ram(addr::NEXT_PIVOT[1]), c.empty, "1P: P2 has no next piece");

    // spawn
    assert!(lab.wait_controllable(0));
    let pc = lab.piece(0);
    assert_eq!(pc.orient, c.spawn_value(), "spawn orientation value");
    assert_eq!(sprite_pivot(&lab, 0), (3, 1), "spawn pivot cell");
    check_xy(&lab, c, 0, "spawn");

    // A four times: the orientation byte walks the contract's numbering in A's direction, and back
    let mut o = pc.orient;
    let mut seq = vec![o];
    for _ in 0..4 {
        press(&mut lab, btn::A);
        let want = c.turned(o, true);
        assert_eq!(lab.piece(0).orient, want, "after A from {o} (sequence so far {seq:?})");
        check_xy(&lab, c, 0, "after A");
        o = want;
        seq.push(o);
    }
    let turn = |d: Dir| if c.a_clockwise { d.clockwise() } else { d.counter_clockwise() };
    assert_eq!(c.orients.dir(seq[1]), turn(c.spawn), "A's direction from the spawn orientation");
    press(&mut lab, btn::B);
    assert_eq!(lab.piece(0).orient, c.turned(o, false), "B turns the other way");
    check_xy(&lab, c, 0, "after B");

    // child up, pivot to column 6, turn clockwise: the child cannot go into the wall, so the pair kicks
    // left (KICK_SIDE = 1) or the turn is refused (KICK_SIDE = 0)
    for _ in 0..4 {
        if c.orients.dir(lab.piece(0).orient) == Dir::Up {
            break;
        }
        press(&mut lab, cw_button(c));
    }
    assert_eq!(c.orients.dir(lab.piece(0).orient), Dir::Up);
    for _ in 0..5 {
        press(&mut lab, btn::RIGHT);
    }
    assert_eq!(sprite_pivot(&lab, 0).0, 6, "pivot at the right wall");
    check_xy(&lab, c, 0, "at the wall");
    press(&mut lab, cw_button(c));
    if c.kick_side {
        assert_eq!(lab.piece(0).orient, c.orients.right, "turned right");
        assert_eq!(sprite_pivot(&lab, 0).0, 5, "kicked off the right wall");
    } else {
        assert_eq!(lab.piece(0).orient, c.orients.up, "KICK_SIDE = 0: the turn into the wall is refused");
        assert_eq!(sprite_pivot(&lab, 0).0, 6, "KICK_SIDE = 0: no kick");
    }
    check_xy(&lab, c, 0, "after the kick");
    // hard drop: kicked, the pivot lands at (5, 13) and the child at (6, 13); refused, the pair stands
    // upright in column 6; with the piece bytes' codes
    let (pivot, child) = (pc.pivot, pc.child);
    let mut n = 0;
    while lab.controllable(0) && n < 400 {
        lab.frame(btn::DOWN, 0);
        n += 1;
    }
    assert!(!lab.controllable(0), "Down held locks the pair");
    let f = lab.field(0);
    let landed = if c.kick_side { (f[13][4], f[13][5]) } else { (f[13][5], f[12][5]) };
    assert_eq!(landed, (pivot, child), "the pair after the lock\n{}", lab.print_field(0));

    // each orientation lands its halves where the contract says
    for (x, dir) in [(1, Dir::Up), (2, Dir::Down), (4, Dir::Left)] {
        let (pivot, child) = place_checked(&mut lab, c, 0, x, dir);
        let f = lab.field(0);
        let (dx, dy) = dir.delta();
        let (py, cy) = if dy > 0 {
            (12, 13)
        } else if dy < 0 {
            (13, 12)
        } else {
            (13, 13)
        };
        let cx = (x as i32 + dx) as usize;
        assert_eq!(f[py][x as usize - 1], pivot, "pivot of a {dir:?} pair at column {x}\n{}", lab.print_field(0));
        assert_eq!(f[cy][cx - 1], child, "child of a {dir:?} pair at column {x}\n{}", lab.print_field(0));
        check_field_bytes(&lab, c, 0, "after a lock");
    }

    // stack the spawn column until the game ends
    for _ in 0..40 {
        if lab.game_state() != gstate::PLAY {
            break;
        }
        if !lab.wait_controllable(0) {
            break;
        }
        lab.place(0, 3, c.orients.value(Dir::Up));
        check_field_bytes(&lab, c, 0, "stacking");
    }
    assert!(lab.wait_until(200, |l| l.game_state() == gstate::OVER), "game over\n{}", lab.print_field(0));
    assert_eq!(lab.ram(addr::PLAYER_STATE[0]), 6, "P1 lost");
}

/// Two-player game: both fields start empty, pending nuisance falls with the nuisance code, and a
/// topped-out P1 hands P2 the win.
fn check_two_player(rom: &[u8], c: &Contract) {
    let mut lab = Lab::new(rom, c.lab_variant());
    lab.boot(MenuChoice::TWO_P);
    for p in 0..2 {
        assert!(lab.field(p).iter().flatten().all(|b| *b == c.empty), "P{} field empty at start", p + 1);
    }
    assert!(lab.wait_controllable(0) && lab.wait_controllable(1));
    assert!(c.colours().contains(&lab.piece(1).pivot), "P2 pair codes {:?}", lab.piece(1));
    // 6 pending nuisance on P1 (poked: no colour sequence is known in advance to build a sending
    // chain from) fall after P1's next lock, one per column
    lab.poke(addr::PENDING[0], 6);
    place_checked(&mut lab, c, 0, 1, Dir::Up);
    assert!(lab.wait_until(600, |l| l.pending(0) == 0 && l.controllable(0)), "nuisance never fell");
    let f = lab.field(0);
    let nuis = f.iter().flatten().filter(|b| **b == c.nuisance).count();
    assert_eq!(nuis, 6, "nuisance cells with code {}\n{}", c.nuisance, lab.print_field(0));
    for x in 0..6 {
        let top = f.iter().position(|row| row[x] != c.empty).expect("every column got nuisance");
        assert_eq!(f[top][x], c.nuisance, "nuisance on top of column {}\n{}", x + 1, lab.print_field(0));
    }
    check_field_bytes(&lab, c, 0, "after nuisance");
    // P1 stacks its spawn column; P2 only lets its pieces fall
    for _ in 0..40 {
        if lab.game_state() != gstate::PLAY || !lab.wait_controllable(0) {
            break;
        }
        lab.place(0, 3, c.orients.value(Dir::Up));
    }
    assert!(lab.wait_until(200, |l| l.game_state() == gstate::OVER), "2P game over\n{}", lab.print_field(0));
    assert_eq!(lab.ram(addr::WINNER), 2, "P2 wins");
    check_field_bytes(&lab, c, 1, "P2 at the end");
}

/// Items mode: pieces 1..15 are pairs of colours, the 16th carries the item code in both piece
/// bytes (and in next before that), spawns with the spawn orientation at its own X/Y (3, 1), and
/// never leaves its code in the field.
fn check_items(rom: &[u8], c: &Contract, item: u8) {
    let code = if item == 1 { c.big } else { c.carbuncle };
    let mut lab = Lab::new(rom, c.lab_variant());
    lab.boot(MenuChoice { two_player: false, item, colours: 4 });
    let cols = [1, 2, 4, 5, 6];
    for i in 0..15 {
        if i == 14 {
            // the 15th pair is falling: the 16th piece is next
            assert!(lab.wait_controllable(0));
            assert_eq!(lab.ram(addr::NEXT_PIVOT[0]), code, "next pivot shows the item");
            assert_eq!(lab.ram(addr::NEXT_CHILD[0]), code, "next child shows the item");
        }
        let f = lab.field(0);
        let height = |x: u8| f.iter().filter(|row| row[x as usize - 1] != c.empty).count();
        let x = *cols.iter().min_by_key(|&&x| (height(x), x)).expect("columns");
        place_checked(&mut lab, c, 0, x, if i % 2 == 0 { Dir::Up } else { Dir::Down });
    }
    assert!(lab.wait_controllable(0));
    let pc = lab.piece(0);
    assert_eq!((pc.pivot, pc.child), (code, code), "16th piece codes");
    assert_eq!(pc.orient, c.spawn_value(), "items keep the spawn orientation value");
    assert_eq!((pc.x, pc.y), (3, 1), "an item's X/Y are its own cell");
    check_xy(&lab, c, 0, "item spawn");
    let before = lab.field(0);
    while lab.controllable(0) {
        lab.frame(btn::DOWN, 0);
    }
    assert!(lab.wait_controllable(0), "a piece after the item\n{}", lab.print_field(0));
    let f = lab.field(0);
    assert!(
        f.iter().flatten().all(|b| *b != c.big && *b != c.carbuncle),
        "no item code in the field\n{}",
        lab.print_field(0)
    );
    if item == 1 {
        for row in &f {
            assert_eq!(
                (row[2], row[3]),
                (c.empty, c.empty),
                "Big Puyo cleared columns 3 and 4\n{}",
                lab.print_field(0)
            );
        }
        assert_ne!(before, f, "the Big Puyo changed the field");
    }
    check_field_bytes(&lab, c, 0, "after the item");
}

#[test]
fn one_player_honours_each_contract() {
    let (_, cs) = contracts();
    for (i, c) in cs.iter().enumerate() {
        let Some(rom) = build(c, "one-player", i) else { return };
        check_one_player(&rom, c);
    }
}

#[test]
fn two_player_honours_each_contract() {
    let (_, cs) = contracts();
    for (i, c) in cs.iter().enumerate() {
        let Some(rom) = build(c, "two-player", i) else { return };
        check_two_player(&rom, c);
    }
}

#[test]
fn items_honour_each_contract() {
    let (_, cs) = contracts();
    for (i, c) in cs.iter().enumerate() {
        let Some(rom) = build(c, "items", i) else { return };
        check_items(&rom, c, 1);
        check_items(&rom, c, 2);
    }
}

#[test]
fn committed_variants_are_contracts() {
    // the committed ROMs are these contracts spelled out in full
    let cases = [
        (Contract::DEFAULT, ROM_CONTRACT, "puyolab.nes"),
        (
            Contract { colour1: 0x11, nuisance: 0x20, big: 0x30, carbuncle: 0x31, ..Contract::DEFAULT },
            ROM_CODES,
            "puyolab-codes.nes",
        ),
        (Contract { orients: Orients::ALT, ..Contract::DEFAULT }, ROM_ORIENT, "puyolab-orient.nes"),
    ];
    for (i, (c, rom, name)) in cases.iter().enumerate() {
        let Some(built) = build(c, "committed", i) else { return };
        assert!(built == *rom, "{name} differs from build.sh --out with {c}");
    }
    assert_eq!(Contract::DEFAULT.lab_variant(), Variant::CONTRACT);
}

#[test]
fn drawn_contracts_are_valid_and_vary() {
    let draws: Vec<Contract> = (0..200).map(Contract::random).collect();
    for c in &draws {
        c.validate().unwrap_or_else(|e| panic!("{e}: {c}"));
    }
    assert_eq!(Contract::random(7), Contract::random(7), "same seed, same contract");
    let distinct = |f: &dyn Fn(&Contract) -> u64| draws.iter().map(f).collect::<std::collections::HashSet<_>>().len();
    assert!(distinct(&|c| c.empty as u64) > 20);
    assert!(distinct(&|c| c.colour1 as u64) > 20);
    assert_eq!(distinct(&|c| c.spawn as u64), 4);
    assert_eq!(distinct(&|c| c.color_offset as u64), 2);
    assert_eq!(distinct(&|c| c.xy_child as u64), 2);
    assert_eq!(distinct(&|c| c.a_clockwise as u64), 2);
    assert!(distinct(&|c| c.orients.down as u64 * 64 + c.orients.left as u64 * 16 + c.orients.up as u64 * 4) > 12);
}

#[test]
fn builder_rejects_invalid_sets_with_a_message() {
    let out =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target").join("labcart-contracts").join("rejected.nes");
    if let Some(dir) = out.parent() {
        std::fs::create_dir_all(dir).expect("target dir");
    }
    let cases: [(&[&str], &str); 7] = [
        (&["-D", "CODE_NUIS=3"], "CODE_NUIS = 3 is one of the colour codes"),
        (&["-D", "CODE_COL1=5"], "equal the wall code 8"),
        (&["-D", "CODE_EMPTY=9", "-D", "CODE_BIG=9"], "CODE_EMPTY and CODE_BIG are both 9"),
        (&["-D", "CODE_CARB=64"], "outside 0..63"),
        (&["-D", "ORI_UP=0"], "not a permutation of 0..3"),
        (&["-D", "SPAWN_ORI=2"], "SPAWN_ORI must be a direction name"),
        (&["-D", "CODE_COLOUR1=3"], "unknown name 'CODE_COLOUR1'"),
    ];
    for (defs, msg) in cases {
        let defs: Vec<String> = defs.iter().map(|s| s.to_string()).collect();
        match build_with(&out, &defs) {
            Err(BuildError::NoAssembler) => {
                crate::common::tools::missing_ca65("labcart_contract (build.sh refusals)");
                return;
            }
            Err(BuildError::Rejected(m)) => assert!(m.contains(msg), "{defs:?}: message {m:?} lacks {msg:?}"),
            other => panic!("{defs:?} was not rejected: {other:?}"),
        }
    }
    let bad = Contract { nuisance: 3, ..Contract::DEFAULT };
    assert!(bad.validate().is_err(), "validate agrees with the builder");
}
