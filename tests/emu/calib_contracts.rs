//! Self-calibration on open-cartridge builds with contracts nobody wrote an address file for: each
//! contract is drawn from a seed, built with `src/labcart/build.sh --out … -- -D …`, and learned
//! from the real cartridge's guessed address files. The learner must settle within 10 pieces and
//! report exactly the built values (empty code, colour codes, orientation values, A's direction,
//! which puyo X/Y follow, the colour byte offset; kicks, which can stay unknown, never wrongly).
//!
//! `PUYOBOT_CONTRACT_SEED` picks the seed and `PUYOBOT_CONTRACT_VARIANTS=N` the number of drawn
//! contracts for the learner sweep (after the two fixed edge cases, a colour or nuisance code 0); `PUYOBOT_CONTRACT_PLAYS=N` the number that also go through
//! `puyobot play` end to end. Skips with a message when `ca65` is missing.
use crate::common;

use std::path::{Path, PathBuf};

use crate::common::calib::{guessed_folder, play_json};
use crate::common::contract::{BuildError, Contract};
use crate::common::labcart::{Lab, MenuChoice};
use puyobot::calib::{CalibrationReport, ReportState};
use serde_json::Value;

const DEFAULT_SEED: u64 = 0xCA1B_0008;
const DEFAULT_VARIANTS: u64 = 4;
const DEFAULT_PLAYS: u64 = 2;

fn env_u64(name: &str, default: u64) -> u64 {
    match std::env::var(name) {
        Ok(s) => s.parse().unwrap_or_else(|_| panic!("{name}={s:?}: expected a whole number")),
        Err(_) => default,
    }
}

/// The seed (printed, so a failure can be replayed) and `n` contracts drawn from it.
fn drawn(count_var: &str, default: u64) -> Vec<Contract> {
    let seed = env_u64("PUYOBOT_CONTRACT_SEED", DEFAULT_SEED);
    let n = env_u64(count_var, default);
    println!("contract seed {seed} (PUYOBOT_CONTRACT_SEED), {n} contracts ({count_var})");
    (0..n).map(|i| Contract::random(seed.wrapping_add(i))).collect()
}

/// Build `c` into the test scratch dir as `name`.nes; None (with a message) when ca65 is missing.
pub(crate) fn build(c: &Contract, name: &str) -> Option<PathBuf> {
    c.validate().unwrap_or_else(|e| panic!("drawn contract invalid: {e}: {c}"));
    println!("{name}: {c}");
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("calib_contracts-builds");
    std::fs::create_dir_all(&dir).expect("build dir");
    let out = dir.join(format!("{name}.nes"));
    match c.build(&out) {
        Ok(()) => Some(out),
        Err(BuildError::NoAssembler) => {
            common::tools::missing_ca65(&format!("calib_contracts ({name})"));
            None
        }
        Err(e) => panic!("{e}"),
    }
}

fn learn(lab: &mut Lab, file: &str, pieces: u32, until_settled: bool) -> CalibrationReport {
    common::calib::learn(lab, file, pieces, until_settled).report()
}

/// The report names exactly the contract's values; `Err` says what differs.
pub(crate) fn matches(r: &CalibrationReport, c: &Contract) -> Result<(), String> {
    let mut bad = Vec::new();
    if r.state != ReportState::Settled || r.pieces_to_settle.is_none_or(|p| p > 10) {
        bad.push(format!("state {} after {:?} pieces", r.state, r.pieces_to_settle));
    }
    if r.codes.empty != Some(c.empty) {
        bad.push(format!("empty {:?}, built {}", r.codes.empty, c.empty));
    }
    let colors = r.codes.colors.clone().unwrap_or_default();
    if colors.is_empty() || !colors.iter().all(|x| c.colours().contains(x)) {
        bad.push(format!("colours {colors:?}, built {:?}", c.colours()));
    }
    let o = &r.orientation;
    let want = c.orients;
    if [o.down, o.left, o.up, o.right] != [want.down, want.left, want.up, want.right].map(Some) {
        bad.push(format!("orientation {o:?}, built {want:?}"));
    }
    let a = if c.a_clockwise { "clockwise" } else { "counterclockwise" };
    if r.a_rotates.as_deref() != Some(a) {
        bad.push(format!("a_rotates {:?}, built {a}", r.a_rotates));
    }
    let xy = if c.xy_child { "child" } else { "pivot" };
    if r.xy_tracks.as_deref() != Some(xy) {
        bad.push(format!("xy_tracks {:?}, built {xy}", r.xy_tracks));
    }
    let order = if c.pair_swap { "swapped" } else { "as named" };
    if r.current_pair != order {
        bad.push(format!("current_pair {:?}, built {order}", r.current_pair));
    }
    if r.color_byte_offset != Some(c.color_offset) {
        bad.push(format!("color_byte_offset {:?}, built {}", r.color_byte_offset, c.color_offset));
    }
    // Kicks are seen only when a turn meets a wall or a stack: a fact may still be unknown, never wrong.
    for (what, seen, built) in [("sideways", r.kicks.sideways, c.kick_side), ("up", r.kicks.up, c.kick_up)] {
        if seen.is_some_and(|k| k != built) {
            bad.push(format!("{what} kick {seen:?}, built {built}"));
        }
    }
    if bad.is_empty() { Ok(()) } else { Err(bad.join("; ")) }
}

#[test]
fn drawn_contracts_are_learned_within_ten_pieces() {
    let mut failures = Vec::new();
    let mut contracts = Contract::EDGE_CASES.to_vec();
    contracts.extend(drawn("PUYOBOT_CONTRACT_VARIANTS", DEFAULT_VARIANTS));
    for (i, c) in contracts.iter().enumerate() {
        let Some(rom_path) = build(c, &format!("calib-{i}")) else { return };
        let rom = std::fs::read(&rom_path).expect("built ROM");
        for (seat, menu, file) in
            [("1P", MenuChoice::ONE_P, "1p-endless.toml"), ("2P", MenuChoice::TWO_P, "ai-vs-ai.toml")]
        {
            let mut lab = Lab::new(&rom, c.lab_variant());
            lab.boot(menu);
            let r = learn(&mut lab, file, 10, true);
            if let Err(e) = matches(&r, c) {
                failures.push(format!("contract {i} {seat} ({c}): {e}\n{}", r.to_text()));
            }
        }
    }
    println!(
        "{} of {} contract runs settled on the built values",
        2 * contracts.len() - failures.len(),
        2 * contracts.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn drawn_contracts_items_are_learned_when_they_come() {
    let mut failures = Vec::new();
    let mut contracts = Contract::EDGE_CASES.to_vec();
    contracts.extend(drawn("PUYOBOT_CONTRACT_VARIANTS", DEFAULT_VARIANTS));
    let edge_cases = Contract::EDGE_CASES.len();
    for (i, c) in contracts.iter().enumerate() {
        let Some(rom_path) = build(c, &format!("items-{i}")) else { return };
        let rom = std::fs::read(&rom_path).expect("built ROM");
        // The edge cases learn both items; the drawn contracts one each, by turns (each item is still
        // learned on half of them, and a run is a boot and 18 pieces).
        let items: &[u8] = if i < edge_cases {
            &[1, 2]
        } else if i % 2 == 0 {
            &[1]
        } else {
            &[2]
        };
        for &item in items {
            let mut lab = Lab::new(&rom, c.lab_variant());
            lab.boot(MenuChoice { two_player: false, item, colours: 4 });
            // the 16th piece is the item; 18 leaves it time to land
            let r = learn(&mut lab, "1p-endless.toml", 18, false);
            let mut bad = matches(&r, c).err().into_iter().collect::<Vec<_>>();
            if item == 1 && r.codes.big_puyo != Some(c.big) {
                bad.push(format!("big_puyo {:?}, built {}", r.codes.big_puyo, c.big));
            }
            // Carbuncle shows its kind only when it lands next to puyos; its code is known either way
            if item == 2 && r.codes.carbuncle != Some(c.carbuncle) && !r.codes.unknown_items.contains(&c.carbuncle) {
                bad.push(format!(
                    "carbuncle {:?} / unknown {:?}, built {}",
                    r.codes.carbuncle, r.codes.unknown_items, c.carbuncle
                ));
            }
            if !bad.is_empty() {
                failures.push(format!("contract {i} item {item} ({c}): {}\n{}", bad.join("; "), r.to_text()));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

// ---- end to end through `puyobot play`

/// The JSON `calibration` object names exactly the built values.
fn check_json(c: &Contract, what: &str, j: &Value) {
    let r: CalibrationReport = CalibrationReport {
        state: serde_json::from_value(j["state"].clone()).unwrap_or_else(|e| panic!("{what}: state: {e}\n{j:#}")),
        pieces_to_settle: j["pieces_to_settle"].as_u64().map(|v| v as u32),
        pieces_seen: j["pieces_seen"].as_u64().unwrap_or(0) as u32,
        codes: puyobot::calib::report::CodesReport {
            empty: j["codes"]["empty"].as_u64().map(|v| v as u8),
            colors: j["codes"]["colors"]
                .as_array()
                .map(|a| a.iter().filter_map(Value::as_u64).map(|v| v as u8).collect()),
            ..Default::default()
        },
        orientation: puyobot::calib::report::OrientationReport {
            down: j["orientation"]["down"].as_u64().map(|v| v as u8),
            left: j["orientation"]["left"].as_u64().map(|v| v as u8),
            up: j["orientation"]["up"].as_u64().map(|v| v as u8),
            right: j["orientation"]["right"].as_u64().map(|v| v as u8),
        },
        a_rotates: j["a_rotates"].as_str().map(str::to_string),
        xy_tracks: j["xy_tracks"].as_str().map(str::to_string),
        current_pair: j["current_pair"].as_str().unwrap_or("?").to_string(),
        color_byte_offset: j["color_byte_offset"].as_u64().map(|v| v as u8),
        kicks: puyobot::calib::report::KicksReport {
            sideways: j["kicks"]["sideways"].as_bool(),
            up: j["kicks"]["up"].as_bool(),
        },
        xy_bases: [1, 0],
        pose_lag: 0,
        lock_signal: "timer".into(),
        spawn_orientations: Vec::new(),
        timing: Vec::new(),
        next_pair: Default::default(),
        contradictions: Vec::new(),
        unsettled: Vec::new(),
        rules: None,
    };
    if let Err(e) = matches(&r, c) {
        panic!("{what} ({c}): {e}\n{j:#}");
    }
}

fn no_mismatch(report: &Value, what: &str) {
    for p in report["players"].as_array().into_iter().flatten() {
        assert_eq!(p["mismatches"], 0, "{what}: {p:#}");
    }
}

#[test]
fn drawn_contracts_calibrate_and_play_end_to_end() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("calib_contracts");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    let guessed = guessed_folder(&dir);
    let contracts = drawn("PUYOBOT_CONTRACT_PLAYS", DEFAULT_PLAYS);
    let mut roms = Vec::new();
    for (i, c) in contracts.iter().enumerate() {
        let Some(rom) = build(c, &format!("play-{i}")) else { return };
        roms.push(rom);
    }
    // Each contract's runs are separate processes: play the contracts side by side (CI has 2 cores).
    std::thread::scope(|scope| {
        for (i, (c, rom)) in contracts.iter().zip(&roms).enumerate() {
            let (dir, guessed) = (&dir, &guessed);
            scope.spawn(move || play_one_contract(i, c, rom, dir, guessed));
        }
    });
}

/// 150 pieces of Endless and a battle from the guessed files, then 50 pieces from the learned folder.
fn play_one_contract(i: usize, c: &Contract, rom: &Path, dir: &Path, guessed: &Path) {
    let learned = dir.join(format!("learned-{i}"));
    let learned_arg = learned.to_str().expect("utf-8 path");
    let endless = play_json(rom, guessed, &["--mode", "endless", "--pieces", "150", "--write-addresses", learned_arg]);
    check_json(c, "endless", &endless["calibration"]);
    // A kick is learned when the game shows one (the opening's kick test, or play against walls and
    // stacks): each kick known by the end is right, and at least one is known. A kick the game never
    // showed stays unknown, and play on it is held to 0 mismatches below.
    let kicks = &endless["calibration"]["kicks"];
    let built = [c.kick_side, c.kick_up];
    let known: Vec<_> = ["sideways", "up"].iter().zip(built).filter(|(k, _)| !kicks[**k].is_null()).collect();
    assert!(!known.is_empty(), "contract {i}: no kick learned in 150 pieces: {kicks}");
    for (k, b) in known {
        assert_eq!(kicks[*k], b, "contract {i}: kick {k}: {kicks}");
    }
    no_mismatch(&endless, &format!("contract {i} endless"));
    let p1 = &endless["players"][0];
    assert!(p1["pieces"].as_u64().unwrap_or(0) >= 150, "contract {i}: {p1:#}");
    assert_eq!(p1["topped_out"], false, "contract {i} topped out");

    let battle = play_json(rom, guessed, &["--mode", "ai-vs-ai", "--frames", "200000"]);
    check_json(c, "ai-vs-ai", &battle["calibration"]);
    let nuisance = &battle["calibration"]["codes"]["nuisance"];
    assert!(nuisance.is_null() || *nuisance == c.nuisance, "contract {i}: nuisance {nuisance}, built {}", c.nuisance);
    no_mismatch(&battle, &format!("contract {i} ai-vs-ai"));
    assert!(battle["winner"].is_string(), "contract {i}: no winner: {battle:#}");

    let again = play_json(rom, &learned, &["--mode", "endless", "--pieces", "50", "--calibrate", "off"]);
    assert_eq!(again["calibration"]["state"], "off");
    no_mismatch(&again, &format!("contract {i} with the learned folder"));
    assert!(again["players"][0]["pieces"].as_u64().unwrap_or(0) >= 50, "contract {i}: {again:#}");
}
