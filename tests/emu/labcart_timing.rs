//! The labcart built with the timing defines (src/labcart/README.md "Contracts": `FALL_FRAMES`,
//! `FALL_STEP`, `FALL_MIN`, `FALL_FAST`, `LEVEL_PIECES`, `LOCK_DELAY`, `LOCK_MOVES`, `INPUT_LAG`): each build is
//! checked frame by frame, from RAM, against what the README says it does. A missing `ca65` fails
//! these tests (tests/common/tools.rs).

use crate::common::contract::{BuildError, Contract, Dir, build_with};
use crate::common::labcart::*;

/// Build `c` as `target/labcart-contracts/timing-<name>.nes`; None (after the tools rule) without ca65.
fn build(c: &Contract, name: &str) -> Option<Vec<u8>> {
    c.validate().unwrap_or_else(|e| panic!("contract invalid: {e}: {c}"));
    println!("{name}: {c}");
    match c.build_rom(&format!("timing-{name}")) {
        Ok(rom) => Some(rom),
        Err(BuildError::NoAssembler) => {
            crate::common::tools::missing_ca65(&format!("labcart_timing ({name})"));
            None
        }
        Err(e) => panic!("{e}"),
    }
}

/// A contract with constant gravity `n` frames per row (and the default soft drop where it fits).
fn gravity(n: u8) -> Contract {
    Contract { fall_frames: n, fall_min: n, fall_fast: n.min(2), ..Contract::DEFAULT }
}

/// The labcart-only player state of an active (controllable, not yet locked) piece.
const ACTIVE: u8 = 2;

/// What one piece did, frame by frame from its spawn frame (frame 0) with the pads released: the
/// frames its pivot row grew, and the frame it locked (the player state left "active").
struct Fall {
    rows: Vec<(usize, u8)>,
    lock: usize,
}

/// Wait for player 1's next spawn, then run frames with `pad(frame)` held (frame 1 = the first after
/// the spawn frame) until the piece locks. Rows count from frame `late` on (`POSE_LATE`: before it the
/// pose bytes still show the previous piece).
fn watch_piece(lab: &mut Lab, late: usize, mut pad: impl FnMut(usize, &Lab) -> u8) -> Fall {
    assert!(lab.wait_until(3000, |l| l.ram(addr::SPAWNED[0]) == 1), "a piece spawns\n{}", lab.print_field(0));
    let mut rows = Vec::new();
    let mut last = lab.pivot_xy(0).1;
    for f in 1..5000 {
        let b = pad(f, lab);
        lab.frame(b, 0);
        let y = lab.pivot_xy(0).1;
        if f >= late && y != last {
            rows.push((f, y));
        }
        last = y;
        if lab.ram(addr::PLAYER_STATE[0]) != ACTIVE {
            return Fall { rows, lock: f };
        }
    }
    panic!("the piece never locked\n{}", lab.print_field(0));
}

#[test]
fn a_pair_falls_one_row_every_fall_frames() {
    for n in [1u8, 2, 4, 8, 30] {
        let c = gravity(n);
        let Some(rom) = build(&c, &format!("gravity-{n}")) else { return };
        if n == 30 {
            assert_eq!(rom, ROM_CONTRACT, "the default gravity builds the committed contract ROM");
        }
        let mut lab = Lab::new(&rom, c.lab_variant());
        lab.boot(MenuChoice::ONE_P);
        let fall = watch_piece(&mut lab, 0, |_, _| 0);
        // spawn at row 1, child up: the pivot falls to the bottom row 13, one row each n frames
        let want: Vec<(usize, u8)> = (1..=12).map(|k| (k * n as usize, 1 + k as u8)).collect();
        assert_eq!(fall.rows, want, "gravity {n}: (frame after the spawn, pivot row) of each fall");
        assert_eq!(lab.ram(addr::LEVEL), 0, "no level curve: the level byte stays 0");
    }
}

#[test]
fn the_level_byte_rises_with_pieces_and_the_gravity_follows() {
    // levels 0, 0, 1, 1, 2, 2, 3, 3, 4: 12, 12, 8, 8, 4, 4, 3 (the floor), 3, 3 frames per row
    let c = Contract { fall_frames: 12, fall_step: 4, fall_min: 3, fall_fast: 2, level_pieces: 2, ..Contract::DEFAULT };
    let Some(rom) = build(&c, "curve") else { return };
    let mut lab = Lab::new(&rom, c.lab_variant());
    lab.boot(MenuChoice::ONE_P);
    let cols = [1u8, 2, 4, 5, 6];
    let mut seen = Vec::new();
    for k in 1..=9u32 {
        assert!(lab.wait_until(3000, |l| l.ram(addr::SPAWNED[0]) == 1), "piece {k} spawns");
        let level = lab.ram(addr::LEVEL);
        let n = c.gravity_of_piece(k) as usize;
        assert_eq!(level as u32, (k - 1) / 2, "piece {k}: level byte");
        assert_eq!(lab.ram(addr::DROP_TIMER[0]) as usize, n, "piece {k}: the drop timer starts at the gravity");
        // two falls by gravity alone: one row each n frames
        let y0 = lab.pivot_xy(0).1;
        let mut falls = Vec::new();
        for f in 1..=2 * n {
            lab.idle(1);
            if lab.pivot_xy(0).1 != y0 + falls.len() as u8 {
                falls.push(f);
            }
        }
        assert_eq!(falls, vec![n, 2 * n], "piece {k} (level {level}): frames of its first two falls");
        seen.push((level, n));
        // then put it away so the field never fills
        assert!(lab.place(0, cols[k as usize % cols.len()], c.lab_variant().orients.value(Dir::Up)));
    }
    let want: Vec<(u8, usize)> = vec![(0, 12), (0, 12), (1, 8), (1, 8), (2, 4), (2, 4), (3, 3), (3, 3), (4, 3)];
    assert_eq!(seen, want, "(level, frames per row) of pieces 1..9");
}

#[test]
fn a_landed_pair_locks_after_the_lock_delay() {
    // (LOCK_DELAY, frames from the frame the pivot reaches the bottom row to the lock frame)
    for delay in [0u8, 1, 5, 16] {
        let c = Contract { lock_delay: delay, ..gravity(2) };
        let Some(rom) = build(&c, &format!("lock-{delay}")) else { return };
        let mut lab = Lab::new(&rom, c.lab_variant());
        lab.boot(MenuChoice::ONE_P);
        let fall = watch_piece(&mut lab, 0, |_, _| 0);
        let arrival = fall.rows.last().expect("it fell").0;
        assert_eq!(fall.rows.last().unwrap().1, 13, "it fell to the bottom row");
        assert_eq!(fall.lock - arrival, delay as usize, "LOCK_DELAY {delay}: lock frame - arrival frame");
        let field = lab.field(0);
        assert!(c.colours().contains(&field[13][2]) && c.colours().contains(&field[12][2]), "locked in column 3");
    }
}

#[test]
fn lock_moves_decides_whether_a_landed_pair_still_moves_and_turns() {
    for moves in [true, false] {
        let c = Contract { lock_delay: 12, lock_moves: moves, ..gravity(2) };
        let Some(rom) = build(&c, &format!("lock-moves-{moves}")) else { return };
        let mut lab = Lab::new(&rom, c.lab_variant());
        lab.boot(MenuChoice::ONE_P);
        let spawn_ori = lab.ram(addr::ORIENT[0]);
        let mut arrival = None;
        let mut seen = Vec::new();
        let fall = watch_piece(&mut lab, 0, |f, l| {
            if arrival.is_none() && l.pivot_xy(0).1 == 13 {
                arrival = Some(f - 1);
            }
            // on the 3rd frame after the arrival press Left, on the 6th press A
            match arrival.map(|a| f - a) {
                Some(3) => btn::LEFT,
                Some(6) => btn::A,
                Some(9) => {
                    seen.push((l.pivot_xy(0).0, l.ram(addr::ORIENT[0])));
                    0
                }
                _ => 0,
            }
        });
        let arrival = arrival.expect("landed");
        assert_eq!(fall.lock - arrival, 12, "moves or not, the lock waits LOCK_DELAY frames");
        let want = if moves { (2, c.turned(spawn_ori, true)) } else { (3, spawn_ori) };
        assert_eq!(seen, vec![want], "LOCK_MOVES {moves}: (column, orientation) after Left and A while landed");
    }
}

#[test]
fn input_lag_delays_a_press_on_the_falling_piece() {
    for lag in [0u8, 1, 3, 8] {
        let c = Contract { input_lag: lag, ..Contract::DEFAULT };
        let Some(rom) = build(&c, &format!("input-lag-{lag}")) else { return };
        if lag == 0 {
            assert_eq!(rom, ROM_CONTRACT, "no lag builds the committed contract ROM");
        }
        let mut lab = Lab::new(&rom, c.lab_variant());
        lab.boot(MenuChoice::ONE_P);
        let (x0, o0) = (lab.pivot_xy(0).0, lab.ram(addr::ORIENT[0]));
        let (mut moved, mut turned) = (None, None);
        // Left held on frame 2 only, A on frame 20 only
        watch_piece(&mut lab, 0, |f, l| {
            if moved.is_none() && l.pivot_xy(0).0 != x0 {
                moved = Some(f - 1);
            }
            if turned.is_none() && l.ram(addr::ORIENT[0]) != o0 {
                turned = Some(f - 1);
            }
            match f {
                2 => btn::LEFT,
                20 => btn::A,
                _ => 0,
            }
        });
        assert_eq!(moved, Some(2 + lag as usize), "INPUT_LAG {lag}: the frame Left moved the pair");
        assert_eq!(turned, Some(20 + lag as usize), "INPUT_LAG {lag}: the frame A turned it");
        assert_eq!(lab.pivot_xy(0).0, x0 - 1, "one column, once");
    }
}

#[test]
fn holding_down_falls_one_row_every_fall_fast_frames() {
    let c = Contract { fall_fast: 4, ..Contract::DEFAULT };
    let Some(rom) = build(&c, "soft-drop-4") else { return };
    let mut lab = Lab::new(&rom, c.lab_variant());
    lab.boot(MenuChoice::ONE_P);
    let fall = watch_piece(&mut lab, 0, |_, _| btn::DOWN);
    let want: Vec<(usize, u8)> = (1..=12).map(|k| (4 * k, 1 + k as u8)).collect();
    assert_eq!(fall.rows, want, "Down held from the first frame: one row each 4 frames");
    assert_eq!(fall.lock, 49, "Down on a resting piece locks it on the next frame");
}

#[test]
fn drawn_timing_contracts_fall_at_their_curve() {
    let draws: Vec<Contract> = (0..300).map(Contract::random_timing).collect();
    for (seed, c) in draws.iter().enumerate() {
        c.validate().unwrap_or_else(|e| panic!("seed {seed}: {e}: {c}"));
        let timing_aside = Contract {
            fall_frames: 30,
            fall_step: 0,
            fall_min: 30,
            fall_fast: 2,
            level_pieces: 0,
            lock_delay: 16,
            lock_moves: true,
            input_lag: 0,
            ..*c
        };
        assert_eq!(timing_aside, Contract::random_extended(seed as u64), "seed {seed}: random_extended's values");
    }
    let distinct = |f: &dyn Fn(&Contract) -> u32| draws.iter().map(f).collect::<std::collections::HashSet<_>>().len();
    assert!(distinct(&|c| c.fall_frames as u32) >= 7);
    assert!(distinct(&|c| c.level_pieces as u32) > 20);
    assert!(distinct(&|c| c.fall_step as u32) >= 4);
    assert!(distinct(&|c| c.lock_delay as u32) >= 6);
    assert_eq!(distinct(&|c| c.lock_moves as u32), 2);
    assert_eq!(distinct(&|c| c.input_lag as u32), 5);

    let seed: u64 = std::env::var("PUYOBOT_CONTRACT_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(0x71_0003);
    println!("timing contract seed {seed} (PUYOBOT_CONTRACT_SEED)");
    for i in 0..3 {
        // a curve that moves within the pieces played, whatever was drawn
        let drawn = Contract::random_timing(seed + i);
        let c = Contract { level_pieces: drawn.level_pieces.clamp(1, 3), ..drawn };
        let Some(rom) = build(&c, &format!("drawn-{i}")) else { return };
        let mut lab = Lab::new(&rom, c.lab_variant());
        lab.boot(MenuChoice::ONE_P);
        for k in 1..=8u32 {
            assert!(lab.wait_until(3000, |l| l.ram(addr::SPAWNED[0]) == 1), "draw {i}: piece {k} spawns");
            assert_eq!(lab.ram(addr::LEVEL) as u32, (k - 1) / c.level_pieces as u32, "draw {i}: piece {k}'s level");
            empty_field(&mut lab, &c);
            let n = c.gravity_of_piece(k) as usize;
            let late = c.pose_late as usize;
            let fall = watch_piece(&mut lab, late, |_, _| 0);
            let frames: Vec<usize> = fall.rows.iter().map(|r| r.0).collect();
            let want: Vec<usize> = (1..=frames.len()).map(|j| late + j * n).collect();
            assert!(frames.len() >= 11, "draw {i}: piece {k} fell {} rows ({c})", frames.len());
            assert_eq!(frames, want, "draw {i}: piece {k}: frames of its falls at {n} frames per row ({c})");
            let arrival = *frames.last().unwrap();
            assert_eq!(fall.lock - arrival, c.lock_delay as usize, "draw {i}: piece {k}: lock delay ({c})");
        }
    }
}

/// Empty player 1's field (code byte `CODE_EMPTY`, other byte 0), so pieces dropped in one column
/// never top out. Done while a piece falls: the field is quiet then.
fn empty_field(lab: &mut Lab, c: &Contract) {
    for y in 0..14u16 {
        for x in 1..=6u16 {
            let cell = addr::FIELD[0] + 16 * y + 2 * x;
            lab.poke(cell + c.color_offset as u16, c.empty);
            lab.poke(cell + 1 - c.color_offset as u16, 0);
        }
    }
}

#[test]
fn build_sh_refuses_inconsistent_timing() {
    let out = std::env::temp_dir().join("puyobot-labcart-timing-refused.nes");
    let cases: [(&[&str], &str); 6] = [
        (&["-D", "FALL_FRAMES=0"], "FALL_FRAMES = 0 is outside 1..99"),
        (&["-D", "FALL_FRAMES=100"], "FALL_FRAMES = 100 is outside 1..99"),
        (&["-D", "FALL_FAST=31"], "FALL_FAST = 31 must be 1..FALL_MIN (30)"),
        (&["-D", "FALL_STEP=2"], "FALL_STEP = 2 needs LEVEL_PIECES > 0"),
        (&["-D", "FALL_MIN=40"], "FALL_MIN = 40 must be 1..FALL_FRAMES (30)"),
        (&["-D", "LOCK_MOVES=2"], "LOCK_MOVES = 2 must be 0 or 1"),
    ];
    for (defs, msg) in cases {
        let defs: Vec<String> = defs.iter().map(|s| s.to_string()).collect();
        match build_with(&out, &defs) {
            Err(BuildError::NoAssembler) => {
                crate::common::tools::missing_ca65("labcart_timing (build.sh refusals)");
                return;
            }
            Err(BuildError::Rejected(m)) => assert!(m.contains(msg), "{defs:?}: message {m:?} lacks {msg:?}"),
            other => panic!("{defs:?} was not rejected: {other:?}"),
        }
    }
}

/// The timing model (`game::timing`, `MoveRules::timing`) against the cartridge: on builds with fast
/// gravity, every placement the timed walk keeps is reached when its path is pressed at the model's pace
/// (a press every 2 frames), on fields of nuisance stacks whose heights the pair must get past (where
/// the timed walk leaves out placements the untimed one keeps: their presses would come too late).
#[test]
fn the_timed_walks_placements_are_reached_on_the_cartridge() {
    use crate::common::model::piece_of;
    use puyobot::game::movegen::{MoveRules, PiecePosition, Step, generate};
    use puyobot::game::{Cell, Field, LockDelay, Rules, Timing};
    let stacks: [[usize; 6]; 3] = [[0; 6], [10, 6, 0, 0, 8, 11], [4, 9, 0, 2, 10, 7]];
    // (build, the model's lock and gravity; presses every 2 frames, the build's input lag, no margin)
    let builds = [
        (Contract { lock_delay: 0, ..gravity(2) }, LockDelay::None, 2u16),
        (Contract { lock_delay: 6, lock_moves: true, ..gravity(1) }, LockDelay::Frames { frames: 6, moves: true }, 1),
        (Contract { lock_delay: 0, input_lag: 3, ..gravity(2) }, LockDelay::None, 2),
    ];
    for (b, (c, lock, fpr)) in builds.iter().enumerate() {
        let Some(rom) = build(c, &format!("model-{b}")) else { return };
        let timing = Timing { lock: *lock, margin: 0, input_lag: c.input_lag as u16, ..Timing::spawned(*fpr) };
        let rules = MoveRules { timing: Some(timing), ..MoveRules::default() };
        let mut lab = Lab::new(&rom, c.lab_variant());
        lab.boot(MenuChoice::ONE_P);
        let (mut checked, mut left_out) = (0, 0);
        for heights in stacks {
            let mut model = Field::new();
            for (i, h) in heights.iter().enumerate() {
                for k in 0..*h {
                    model.set(i + 1, 13 - k, Cell::Nuisance);
                }
            }
            // one piece per reachable placement, each on a fresh copy of the stacks
            let mut todo: Option<Vec<_>> = None;
            loop {
                assert!(lab.wait_until(3000, |l| l.ram(addr::SPAWNED[0]) == 1), "a piece spawns");
                for y in 0..14u16 {
                    for x in 1..=6u16 {
                        let cell = addr::FIELD[0] + 16 * y + 2 * x + c.color_offset as u16;
                        let nuisance = heights[x as usize - 1] > 13 - y as usize;
                        lab.poke(cell, if nuisance { c.nuisance } else { c.empty });
                    }
                }
                let piece = piece_of(&lab);
                let start = PiecePosition::spawn(&Rules::puyo1());
                let moves = todo.get_or_insert_with(|| {
                    let timed = generate(&model, piece, start, &rules);
                    left_out += generate(&model, piece, start, &MoveRules::default()).len() - timed.len();
                    timed
                });
                let Some(m) = moves.pop() else { break };
                // press step i on frame 2i + 1 after the spawn, release on 2i + 2 (with an input lag it acts
                // later: a press that came after the lock would leave the pair elsewhere)
                for (i, step) in m.path.iter().enumerate() {
                    let button = match step {
                        Step::Left => btn::LEFT,
                        Step::Right => btn::RIGHT,
                        Step::RotateCw => btn::A,
                        Step::RotateCcw => btn::B,
                    };
                    lab.frame(button, 0);
                    assert_eq!(lab.ram(addr::PLAYER_STATE[0]), ACTIVE, "press {i} of {:?} before the lock", m.path);
                    lab.idle(1);
                }
                assert!(lab.wait_until(200, |l| l.ram(addr::PLAYER_STATE[0]) != ACTIVE), "it locks");
                // where the pair's two puyos lie once the field has settled (the spawn wait)
                assert!(lab.wait_until(300, |l| l.ram(addr::PLAYER_STATE[0]) == 1), "the field settles");
                let mut colour_cells = Vec::new();
                for (y, row) in lab.field(0).iter().enumerate() {
                    for (x, &k) in row.iter().enumerate() {
                        if c.colours().contains(&k) {
                            colour_cells.push((x as u8 + 1, y as u8, k));
                        }
                    }
                }
                let mut want = model;
                want.play(piece, m.placement, &Rules::puyo1()).expect("a valid placement");
                let mut model_cells = Vec::new();
                for y in 0..14 {
                    for x in 1..=6 {
                        if let Cell::Color(col) = want.get(x, y) {
                            model_cells.push((x as u8, y as u8, c.colour1 + col.index() as u8));
                        }
                    }
                }
                assert_eq!(
                    colour_cells, model_cells,
                    "build {b}, stacks {heights:?}: {} by {:?} (the pair {piece})",
                    m.placement, m.path
                );
                checked += 1;
            }
        }
        println!("build {b}: {checked} placements pressed at the model's pace");
        assert!(checked > 20 && left_out > 0, "build {b}: {checked} placements, {left_out} left out");
    }
}
