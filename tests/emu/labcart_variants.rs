//! The labcart built with the extended contract axes (src/labcart/README.md "Contracts"): each build is
//! checked frame by frame against what the README says it does. Needs `ca65`: a missing assembler fails
//! the test unless `PUYOBOT_SKIP_MISSING_TOOLS=1` (tests/common/tools.rs).

use crate::common::contract::{BuildError, Contract, Dir};
use crate::common::labcart::*;

/// Build `c` as `target/labcart-contracts/variants-<name>.nes`; without ca65 the test fails, or with the
/// opt-out set this prints the skip and returns None.
fn build(c: &Contract, name: &str) -> Option<Vec<u8>> {
    c.validate().unwrap_or_else(|e| panic!("contract invalid: {e}: {c}"));
    println!("{name}: {c}");
    match c.build_rom(&format!("variants-{name}")) {
        Ok(rom) => Some(rom),
        Err(BuildError::NoAssembler) => {
            crate::common::tools::missing_ca65(&format!("labcart_variants ({name})"));
            None
        }
        Err(e) => panic!("{e}"),
    }
}

/// Place `pieces` pieces of player 1 (columns 1, 2, 4, 5, 6 in turn, child up), calling `see` with
/// the RAM after every frame.
fn play_observing(lab: &mut Lab, c: &Contract, pieces: usize, mut see: impl FnMut(&Lab)) {
    let cols = [1, 2, 4, 5, 6];
    for i in 0..pieces {
        let mut pl = [Placer::new(cols[i % cols.len()], c.lab_variant().orients.value(Dir::Up)), Placer::idle()];
        let mut frames = 0;
        while !pl[0].done() {
            lab.step_placers(&mut pl);
            see(lab);
            frames += 1;
            assert!(frames < 3000, "placement never finished\n{}", lab.print_field(0));
        }
        assert!(pl[0].reached, "piece {i} reached column {}\n{}", cols[i % cols.len()], lab.print_field(0));
        assert_eq!(lab.game_state(), gstate::PLAY, "game still running after piece {i}\n{}", lab.print_field(0));
    }
}

/// The next-pair bytes of player p.
fn next(lab: &Lab, p: usize) -> (u8, u8) {
    (lab.ram(addr::NEXT_PIVOT[p]), lab.ram(addr::NEXT_CHILD[p]))
}

/// The current-pair bytes of player p.
fn current(lab: &Lab, p: usize) -> (u8, u8) {
    let piece = lab.piece(p);
    (piece.pivot, piece.child)
}

#[test]
fn next_lag_keeps_the_spawned_pair_in_the_next_bytes() {
    for lag in [1u8, 8, 30] {
        let c = Contract { next_lag: lag, ..Contract::DEFAULT };
        let Some(rom) = build(&c, &format!("next-lag-{lag}")) else { return };
        let mut lab = Lab::new(&rom, c.lab_variant());
        lab.boot(MenuChoice::ONE_P);
        // at game start the next bytes show the first pair at once
        let first = next(&lab, 0);
        assert!(c.colours().contains(&first.0) && c.colours().contains(&first.1), "first next pair {first:?}");
        // frames since the last spawn, and the next pair shown once the lag is over
        let mut since: Option<usize> = None;
        let mut shown = first;
        let mut spawns = 0;
        play_observing(&mut lab, &c, 6, |l| {
            if l.ram(addr::SPAWNED[0]) == 1 {
                assert_eq!(current(l, 0), shown, "the pair that spawned is the one the next bytes showed");
                since = Some(0);
                spawns += 1;
            } else if let Some(s) = since.as_mut() {
                *s += 1;
            }
            let Some(s) = since else { return };
            if s < lag as usize {
                assert_eq!(next(l, 0), current(l, 0), "frame {s} after a spawn (lag {lag}): next bytes = current pair");
            } else if s == lag as usize {
                shown = next(l, 0);
                assert!(c.colours().contains(&shown.0) && c.colours().contains(&shown.1), "new next pair {shown:?}");
            } else {
                assert_eq!(next(l, 0), shown, "frame {s} after a spawn: the new next pair stays");
            }
        });
        assert!(spawns >= 6, "saw {spawns} spawns");
    }
}

#[test]
fn next_table_maps_the_next_bytes() {
    for (table, codes) in
        [(1u8, (1u8, 7u8, 9u8, 10u8)), (2, (1, 7, 9, 10)), (1, (0x11, 0x20, 0x30, 0x31)), (2, (0x21, 0, 0x30, 0x31))]
    {
        let (colour1, nuisance, big, carbuncle) = codes;
        let empty = if colour1 == 0x21 { 1 } else { 0 };
        let c =
            Contract { next_table: table, colour1, nuisance, big, carbuncle, empty, next_lag: 2, ..Contract::DEFAULT };
        let Some(rom) = build(&c, &format!("next-table-{table}-{colour1}")) else { return };
        let mut lab = Lab::new(&rom, c.lab_variant());
        lab.boot(MenuChoice { two_player: false, item: 1, colours: 6 });
        assert_eq!(next(&lab, 1), (c.next_code(c.empty), c.next_code(c.empty)), "1P: P2's next bytes (no piece)");
        let shown_colours: Vec<u8> = c.colours().iter().map(|&k| c.next_code(k)).collect();
        assert!(!shown_colours.contains(&c.next_code(c.empty)), "no piece is not a colour's value");
        let mut shown = next(&lab, 0);
        let mut since = 0;
        let mut spawns = 0;
        play_observing(&mut lab, &c, 15, |l| {
            since += 1;
            if l.ram(addr::SPAWNED[0]) == 1 {
                let (p, ch) = current(l, 0);
                assert_eq!((c.next_code(p), c.next_code(ch)), shown, "spawn {spawns}: the current pair in field codes");
                since = 0;
                spawns += 1;
            }
            if since == c.next_lag as usize {
                shown = next(l, 0);
            }
        });
        assert_eq!(spawns, 15);
        // the 16th piece is the Big Puyo
        assert_eq!(shown, (c.next_code(c.big), c.next_code(c.big)), "the item in the next bytes");
        assert!(lab.wait_controllable(0));
        assert_eq!(current(&lab, 0), (c.big, c.big), "the item in the current bytes");
    }
}

#[test]
fn mode_late_writes_the_mode_byte_at_game_start() {
    for late in [false, true] {
        let c = Contract { mode_late: late, ..Contract::DEFAULT };
        let Some(rom) = build(&c, &format!("mode-late-{}", u8::from(late))) else { return };
        let mut lab = Lab::new(&rom, c.lab_variant());
        lab.idle(10);
        lab.tap(btn::START, 2);
        assert_eq!(lab.game_state(), gstate::MENU);
        lab.tap(btn::RIGHT, 1);
        assert_eq!(lab.ram(addr::MODE), if late { 0 } else { 2 }, "mode byte after Right on MODE (late {late})");
        lab.tap(btn::DOWN, 1);
        lab.tap(btn::UP, 1);
        lab.tap(btn::RIGHT, 1);
        lab.tap(btn::RIGHT, 1);
        assert_eq!(lab.ram(addr::MODE), if late { 0 } else { 2 }, "mode byte after toggling twice more");
        lab.tap(btn::START, 1);
        assert_eq!(lab.game_state(), gstate::PLAY);
        assert_eq!(lab.ram(addr::MODE), 2, "mode byte once the game started");
        assert!(lab.wait_controllable(1), "a 2P game: P2 gets pieces");
    }
}

/// Start a 1P game from power-on with Start, Start only (no menu change).
fn start_without_menu_changes(lab: &mut Lab) {
    lab.idle(10);
    lab.tap(btn::START, 2);
    lab.tap(btn::START, 1);
    assert_eq!(lab.game_state(), gstate::PLAY);
}

#[test]
fn items_at_boot_deal_items_without_menu_changes() {
    for (item, big, carbuncle) in [(1u8, 9u8, 10u8), (2, 9, 10), (1, 0x3F, 0x20), (2, 0x2A, 0x30)] {
        let c = Contract { items_at_boot: item, big, carbuncle, ..Contract::DEFAULT };
        let Some(rom) = build(&c, &format!("items-at-boot-{item}-{big}-{carbuncle}")) else { return };
        let mut lab = Lab::new(&rom, c.lab_variant());
        start_without_menu_changes(&mut lab);
        assert_eq!(lab.ram(addr::ITEM_OPTION), item, "ITEM option at power-on");
        play_observing(&mut lab, &c, 15, |_| {});
        let code = if item == 1 { big } else { carbuncle };
        assert_eq!(next(&lab, 0), (code, code), "the 16th piece is the item");
        assert!(lab.wait_controllable(0));
        assert_eq!(current(&lab, 0), (code, code), "the item spawned");
        // the harness's menu script starts from the power-on option
        let mut lab = Lab::new(&rom, c.lab_variant());
        lab.boot(MenuChoice::ONE_P);
        assert_eq!(lab.ram(addr::ITEM_OPTION), 0, "Lab::boot reaches ITEM off");
    }
}

/// The pivot's cell from the sprite bytes, which follow the pivot in every build.
fn sprite_pivot(lab: &Lab, p: usize) -> (i32, i32) {
    let sx = lab.ram(addr::SPRITE_X[p]) as i32 - 128 * p as i32;
    (sx / 16, lab.ram(addr::SPRITE_Y[p]) as i32 / 16)
}

/// The orientation byte is one of the build's values, and X/Y are the pivot's (or the child's) cell
/// plus the X/Y bases.
fn check_pose(lab: &Lab, c: &Contract, p: usize, what: &str) {
    let pc = lab.piece(p);
    let o = c.published_orients();
    assert!(
        Dir::ALL.iter().any(|d| o.value(*d) == pc.orient),
        "{what}: orientation byte {} is not one of {o:?}",
        pc.orient
    );
    let (px, py) = sprite_pivot(lab, p);
    let item = pc.pivot == c.big || pc.pivot == c.carbuncle;
    let (dx, dy) = if c.xy_child && !item { o.dir(pc.orient).delta() } else { (0, 0) };
    let want = (px + dx - 1 + c.x_base as i32, py + dy + c.y_base as i32);
    assert_eq!(
        (pc.x as i32, pc.y as i32),
        want,
        "{what}: X/Y with the pivot at ({px}, {py}), orientation {}",
        pc.orient
    );
}

#[test]
fn orientation_and_xy_numbering() {
    let cases = [
        Contract { ori_step: 2, x_base: 0, ..Contract::DEFAULT },
        Contract {
            ori_step: 4,
            ori_base: 1,
            orients: Orients::ALT,
            x_base: 2,
            y_base: 3,
            xy_child: true,
            ..Contract::DEFAULT
        },
        Contract {
            ori_step: 64,
            ori_base: 63,
            x_base: 16,
            y_base: 16,
            a_clockwise: false,
            spawn: Dir::Left,
            color_offset: 0,
            ..Contract::DEFAULT
        },
        Contract { ori_base: 252, y_base: 1, ..Contract::DEFAULT },
    ];
    for (i, c) in cases.iter().enumerate() {
        let Some(rom) = build(c, &format!("ori-xy-{i}")) else { return };
        let mut lab = Lab::new(&rom, c.lab_variant());
        lab.boot(MenuChoice { two_player: false, item: 0, colours: 6 });
        let start = lab.piece(0);
        let (sdx, sdy) = if c.xy_child { c.spawn.delta() } else { (0, 0) };
        assert_eq!(
            (start.x as i32, start.y as i32, start.orient),
            (3 + sdx - 1 + c.x_base as i32, 1 + sdy + c.y_base as i32, c.spawn_value()),
            "pose bytes at game start"
        );
        assert!(lab.wait_controllable(0));
        assert_eq!(lab.piece(0).orient, c.spawn_value(), "spawn orientation value");
        assert_eq!(sprite_pivot(&lab, 0), (3, 1), "spawn pivot cell");
        check_pose(&lab, c, 0, "spawn");
        let mut o = lab.piece(0).orient;
        for k in 0..4 {
            lab.frame(btn::A, 0);
            lab.frame(0, 0);
            assert_eq!(lab.piece(0).orient, c.turned(o, true), "A press {k}");
            check_pose(&lab, c, 0, "after A");
            o = lab.piece(0).orient;
        }
        lab.frame(btn::B, 0);
        lab.frame(0, 0);
        assert_eq!(lab.piece(0).orient, c.turned(o, false), "B press");
        check_pose(&lab, c, 0, "after B");
        lab.frame(btn::RIGHT, 0);
        lab.frame(0, 0);
        check_pose(&lab, c, 0, "after Right");
        // the harness steers by these numbers; each half lands where the direction says
        let o = c.published_orients();
        for (x, dir) in [(1u8, Dir::Up), (6, Dir::Down), (4, Dir::Left), (2, Dir::Right)] {
            if !lab.wait_controllable(0) {
                panic!("no piece\n{}", lab.print_field(0));
            }
            let pc = lab.piece(0);
            let before = lab.field(0);
            let mut pl = [Placer::new(x, o.value(dir)), Placer::idle()];
            while !pl[0].done() {
                lab.step_placers(&mut pl);
                if lab.controllable(0) {
                    check_pose(&lab, c, 0, "steering");
                }
            }
            assert!(pl[0].reached, "case {i}: reached column {x} {dir:?}");
            assert!(lab.wait_controllable(0), "a piece after the drop");
            let f = lab.field(0);
            let (dx, dy) = dir.delta();
            let top = |col: usize| (0..14).find(|&y| before[y][col] != c.empty).unwrap_or(14);
            let (pcol, ccol) = (x as usize - 1, (x as i32 - 1 + dx) as usize);
            let (py, cy) = if dx != 0 {
                (top(pcol) - 1, top(ccol) - 1)
            } else if dy > 0 {
                (top(pcol) - 2, top(pcol) - 1)
            } else {
                (top(pcol) - 1, top(pcol) - 2)
            };
            assert_eq!(
                (f[py][pcol], f[cy][ccol]),
                (pc.pivot, pc.child),
                "case {i}: {dir:?} at {x}\n{}",
                lab.print_field(0)
            );
        }
    }
}

#[test]
fn timer_resolve0_zeroes_the_spawn_delay_while_resolving() {
    for zero in [false, true] {
        let c = Contract { timer_resolve0: zero, ..Contract::DEFAULT };
        let Some(rom) = build(&c, &format!("timer-resolve0-{}", u8::from(zero))) else { return };
        let mut lab = Lab::new(&rom, c.lab_variant());
        lab.boot(MenuChoice::TWO_P);
        assert_ne!(lab.ram(addr::SPAWN_DELAY[0]), 0, "counting down to the first piece");
        let (mut resolving, mut counting, mut active) = (0, 0, 0);
        lab.poke(addr::PENDING[0], 6);
        play_observing(&mut lab, &c, 8, |l| {
            let (state, delay) = (l.ram(addr::PLAYER_STATE[0]), l.ram(addr::SPAWN_DELAY[0]));
            match state {
                2 => {
                    assert_eq!(delay, 0, "controllable: 0");
                    active += 1;
                }
                1 => {
                    assert!((1..=30).contains(&delay), "counting down to a spawn: {delay}");
                    counting += 1;
                }
                3..=5 => {
                    assert_eq!(delay, if zero { 0 } else { 10 }, "resolving (state {state})");
                    resolving += 1;
                }
                _ => panic!("player state {state}"),
            }
            assert_eq!(
                l.ram(addr::SPAWN_DELAY[1]) == 0,
                l.ram(addr::PLAYER_STATE[1]) == 2 || (zero && (3..=5).contains(&l.ram(addr::PLAYER_STATE[1]))),
                "P2"
            );
        });
        assert!(resolving > 20 && counting > 20 && active > 20, "{resolving} {counting} {active}");
        assert_eq!(lab.pending(0), 0, "the nuisance fell");
    }
}

/// Pose and current-pair bytes of player 1: (X, Y, orientation, pivot, child, sprite X, sprite Y).
fn pose(lab: &Lab) -> (u8, u8, u8, u8, u8, u8, u8) {
    let pc = lab.piece(0);
    (pc.x, pc.y, pc.orient, pc.pivot, pc.child, lab.ram(addr::SPRITE_X[0]), lab.ram(addr::SPRITE_Y[0]))
}

#[test]
fn pose_late_publishes_the_piece_n_frames_after_its_spawn() {
    for late in [1u8, 4, 8] {
        let c = Contract { pose_late: late, ori_step: 2, ..Contract::DEFAULT };
        let Some(rom) = build(&c, &format!("pose-late-{late}")) else { return };
        let mut lab = Lab::new(&rom, c.lab_variant());
        lab.boot(MenuChoice::ONE_P);
        for piece in 0..4 {
            // run (Down held: the last piece drops) until a spawn frame
            let (mut before, mut next_before) = (pose(&lab), next(&lab, 0));
            let mut n = 0;
            while lab.ram(addr::SPAWNED[0]) == 0 {
                before = pose(&lab);
                next_before = next(&lab, 0);
                lab.frame(btn::DOWN, 0);
                n += 1;
                assert!(n < 2000, "no spawn");
            }
            assert!(lab.controllable(0), "the spawn frame has the spawn delay at 0");
            assert_eq!(pose(&lab), before, "piece {piece}, spawn frame: the bytes are the previous piece's");
            // Left is pressed on the first waiting frame and held: ignored
            for k in 1..=late {
                lab.frame(btn::LEFT, 0);
                if k < late {
                    assert_eq!(pose(&lab), before, "piece {piece}, {k} frames after the spawn (late {late})");
                }
            }
            let want = (3, 1, c.spawn_value(), next_before.0, next_before.1, 48, 16);
            assert_eq!(pose(&lab), want, "piece {piece}: {late} frames after the spawn the new piece is published");
            lab.frame(0, 0);
            assert_eq!(lab.piece(0).x, 3, "the held Left did nothing");
            lab.frame(btn::RIGHT, 0);
            assert_eq!(lab.piece(0).x, 4, "input counts after the wait");
            lab.frame(0, 0);
        }
        // the harness places pieces in such a build
        play_observing(&mut lab, &c, 3, |_| {});
    }
}

/// The link bits a build keeps in RAM for player p (from the code byte or the other byte).
fn links_in_ram(l: &Lab, c: &Contract, p: usize) -> [[u8; 6]; 14] {
    if c.other_bits { l.field_other_bytes(p) } else { l.field_code_bytes(p).map(|row| row.map(|b| b & 0xF0)) }
}

#[test]
fn link_bits_follow_the_field() {
    let cases = [
        Contract { color_bits: 1, ..Contract::DEFAULT },
        Contract { other_bits: true, ..Contract::DEFAULT },
        Contract { other_bits: true, color_offset: 0, colour1: 0x20, nuisance: 0x3F, ..Contract::DEFAULT },
        Contract {
            color_bits: 1,
            other_bits: true,
            color_offset: 0,
            colour1: 0,
            empty: 15,
            nuisance: 6,
            big: 7,
            carbuncle: 9,
            ..Contract::DEFAULT
        },
        Contract { color_bits: 1, colour1: 10, empty: 9, nuisance: 0, big: 1, carbuncle: 2, ..Contract::DEFAULT },
    ];
    for (i, c) in cases.iter().enumerate() {
        let Some(rom) = build(c, &format!("links-{i}")) else { return };
        let mut lab = Lab::new(&rom, c.lab_variant());
        lab.boot(MenuChoice::TWO_P);
        lab.poke(addr::PENDING[0], 9);
        let (mut linked, mut frames) = (0, 0);
        let (mut searched, mut deferred) = (0, 0);
        let mut check = |l: &Lab| {
            assert_eq!(l.ram(0x0011), 1, "case {i}: lag frame (the main loop overran)");
            frames += 1;
            // private $00CE: a group search ran this frame; then link bits may follow a frame later
            if l.ram(0x00CE) != 0 {
                searched += 1;
                if (0..2).any(|p| c.link_bits(&l.field(p)) != links_in_ram(l, c, p)) {
                    deferred += 1;
                }
                return;
            }
            for p in 0..2 {
                let codes = l.field(p);
                let links = c.link_bits(&codes);
                let raw = l.field_code_bytes(p);
                let other = l.field_other_bytes(p);
                for y in 0..14 {
                    for x in 0..6 {
                        let k = codes[y][x];
                        let ok = k == c.empty || k == c.nuisance || c.colours().contains(&k);
                        assert!(ok, "case {i}: P{} ({}, {y}) code {k}\n{}", p + 1, x + 1, l.print_field(p));
                        let want_raw = if c.color_bits == 1 { k | links[y][x] } else { k };
                        let want_other = if c.other_bits { links[y][x] } else { 0 };
                        assert_eq!(
                            (raw[y][x], other[y][x]),
                            (want_raw, want_other),
                            "case {i}: P{} cell ({}, {y}) code and other byte (frame {frames})\n{}",
                            p + 1,
                            x + 1,
                            l.print_field(p)
                        );
                    }
                }
                let base = addr::FIELD[p] + 16 * 13;
                assert_eq!([l.ram(base), l.ram(base + 1), l.ram(base + 14), l.ram(base + 15)], [0, 8, 0, 8], "walls");
                linked += links.iter().flatten().filter(|b| **b != 0).count();
            }
        };
        play_observing(&mut lab, c, 16, &mut check);
        assert!(lab.score(0) > 0, "case {i}: something popped (score {})", lab.score(0));
        assert!(linked > 1000 && frames > 500, "case {i}: {linked} linked cell-frames in {frames} frames");
        println!(
            "case {i}: {frames} frames, {searched} with a group search, {deferred} of them with link bits one frame late"
        );
    }
}

#[test]
fn extended_draws_are_valid_keep_random_and_play() {
    let draws: Vec<Contract> = (0..300).map(Contract::random_extended).collect();
    for (seed, e) in draws.iter().enumerate() {
        e.validate().unwrap_or_else(|err| panic!("seed {seed}: {err}: {e}"));
        let r = Contract::random(seed as u64);
        let same = Contract {
            next_lag: 0,
            next_table: 0,
            mode_late: false,
            items_at_boot: 0,
            ori_step: 1,
            ori_base: 0,
            x_base: 1,
            y_base: 0,
            timer_resolve0: false,
            pose_late: 0,
            color_bits: 0,
            other_bits: false,
            pair_swap: false,
            ..*e
        };
        if e.color_bits == 0 {
            assert_eq!(same, r, "seed {seed}: random_extended keeps random's values");
        } else {
            let codes = Contract {
                empty: r.empty,
                colour1: r.colour1,
                nuisance: r.nuisance,
                big: r.big,
                carbuncle: r.carbuncle,
                ..same
            };
            assert_eq!(codes, r, "seed {seed}: with COLOR_BITS only the codes are drawn again");
        }
    }
    let distinct = |f: &dyn Fn(&Contract) -> u32| draws.iter().map(f).collect::<std::collections::HashSet<_>>().len();
    assert!(distinct(&|c| c.next_lag as u32) > 20);
    assert_eq!(distinct(&|c| c.next_table as u32), 3);
    assert_eq!(distinct(&|c| c.mode_late as u32), 2);
    assert_eq!(distinct(&|c| c.items_at_boot as u32), 3);
    assert!(distinct(&|c| c.ori_step as u32) >= 6);
    assert!(distinct(&|c| c.ori_base as u32) > 20);
    assert!(distinct(&|c| c.x_base as u32) >= 5 && distinct(&|c| c.y_base as u32) >= 5);
    assert_eq!(distinct(&|c| c.timer_resolve0 as u32), 2);
    assert_eq!(distinct(&|c| c.pose_late as u32), 9);
    assert_eq!(distinct(&|c| c.color_bits as u32 * 2 + c.other_bits as u32), 4);
    assert_eq!(distinct(&|c| c.pair_swap as u32), 2);
    assert_eq!(Contract::random_extended(11), Contract::random_extended(11), "same seed, same contract");

    // a few drawn builds play through the harness with every axis at once
    let seed: u64 = std::env::var("PUYOBOT_CONTRACT_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(0xE7_0008);
    println!("extended contract seed {seed} (PUYOBOT_CONTRACT_SEED)");
    for i in 0..3 {
        let c = Contract::random_extended(seed + i);
        let Some(rom) = build(&c, &format!("extended-{i}")) else { return };
        let mut lab = Lab::new(&rom, c.lab_variant());
        lab.boot(MenuChoice { two_player: false, item: 0, colours: 6 });
        assert_eq!(lab.ram(addr::ITEM_OPTION), 0, "ITEM off");
        play_observing(&mut lab, &c, 8, |l| {
            for row in l.field(0) {
                for k in row {
                    assert!(k == c.empty || c.colours().contains(&k), "code {k} in the field\n{}", l.print_field(0));
                }
            }
            if l.ram(0x00CE) == 0 && (c.color_bits == 1 || c.other_bits) {
                assert_eq!(links_in_ram(l, &c, 0), c.link_bits(&l.field(0)), "link bits\n{}", l.print_field(0));
            }
        });
        assert!(lab.wait_controllable(0), "a ninth piece");
        for _ in 0..c.pose_late {
            lab.idle(1);
        }
        check_pose(&lab, &c, 0, "ninth piece");
    }
}

#[test]
fn builder_rejects_invalid_extended_values() {
    let out = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("target")
        .join("labcart-contracts")
        .join("rejected-extended.nes");
    if let Some(dir) = out.parent() {
        std::fs::create_dir_all(dir).expect("target dir");
    }
    let cases: [(&[&str], &str); 11] = [
        (&["-D", "NEXT_LAG=31"], "NEXT_LAG = 31 is outside 0..30"),
        (&["-D", "NEXT_TABLE=3"], "NEXT_TABLE = 3 must be"),
        (&["-D", "MODE_LATE=2"], "MODE_LATE = 2 must be 0 or 1"),
        (&["-D", "ITEMS_AT_BOOT=4"], "ITEMS_AT_BOOT = 4 must be"),
        (&["-D", "ORI_STEP=0"], "ORI_STEP = 0 is outside 1..64"),
        (&["-D", "ORI_STEP=2", "-D", "ORI_BASE=250"], "ORI_BASE = 250 with ORI_STEP = 2"),
        (&["-D", "X_BASE=65"], "X_BASE = 65 is outside 0..64"),
        (&["-D", "TIMER_RESOLVE0=2"], "TIMER_RESOLVE0 = 2 must be 0 or 1"),
        (&["-D", "POSE_LATE=9"], "POSE_LATE = 9 is outside 0..8"),
        (&["-D", "COLOR_BITS=1", "-D", "CODE_CARB=16"], "needs every code below 16"),
        (&["-D", "OTHER_BITS=2"], "OTHER_BITS = 2 must be 0 or 1"),
    ];
    for (defs, msg) in cases {
        let defs: Vec<String> = defs.iter().map(|s| s.to_string()).collect();
        match crate::common::contract::build_with(&out, &defs) {
            Err(BuildError::NoAssembler) => {
                crate::common::tools::missing_ca65("labcart_variants (builder_rejects_invalid_extended_values)");
                return;
            }
            Err(BuildError::Rejected(m)) => assert!(m.contains(msg), "{defs:?}: message {m:?} lacks {msg:?}"),
            other => panic!("{defs:?} was not rejected: {other:?}"),
        }
    }
    for bad in [
        Contract { next_lag: 31, ..Contract::DEFAULT },
        Contract { ori_step: 2, ori_base: 250, ..Contract::DEFAULT },
        Contract { color_bits: 1, carbuncle: 16, ..Contract::DEFAULT },
        Contract { pose_late: 9, ..Contract::DEFAULT },
    ] {
        assert!(bad.validate().is_err(), "validate agrees with the builder: {bad}");
    }
}
