//! Play on the game's clock: open-cartridge builds with a fast gravity, no lock delay, a one-frame lock
//! delay, input lag and gravity that speeds up with the level, each played with the open cartridge's
//! address file and the build's true timing given (`--lab-timing`, as a measured timing would be): 140
//! pieces of Endless with 0 mismatches, no top-out and plans that hold (few pieces off plan); and a lock
//! delay the soft drop hides, and next-pair bytes written late on a fast clock, from the real cartridge's
//! guessed files. A missing `ca65` fails these tests (tests/common/tools.rs).

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::common::contract::{BuildError, Contract, Dir};
use crate::common::labcart::Orients;

/// A folder whose catalogue lends the open cartridge's address files to any unknown dump.
fn labcart_addresses(dir: &Path) -> PathBuf {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("addresses/labcart");
    let out = dir.join("addresses");
    std::fs::create_dir_all(out.join("labcart")).expect("addresses dir");
    for f in ["1p-endless.toml", "2p.toml", "ai-vs-ai.toml"] {
        std::fs::copy(src.join(f), out.join("labcart").join(f)).expect("copy address file");
    }
    let catalogue = "[[rom]]\nname = \"puyolab\"\ncrc32 = \"00000000\"\nsha1 = \"0000000000000000000000000000000000000000\"\n\
                     source = \"test\"\nverified = true\nmodes = { endless = \"labcart/1p-endless.toml\", vs-human = \
                     \"labcart/2p.toml\", ai-vs-ai = \"labcart/ai-vs-ai.toml\" }\n";
    std::fs::write(out.join("roms.toml"), catalogue).expect("roms.toml");
    out
}

/// Builds `c`, plays [`PIECES`] pieces of Endless on it with `timing` given; the JSON report (None without
/// ca65, after the tools rule).
fn play_timed(name: &str, c: Contract, timing: &str) -> Option<Value> {
    let out = run_timed(name, c, timing)?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    // A top-out after the first pieces is a lost game, not a failure of the run.
    let json: Option<Value> = serde_json::from_slice(&out.stdout).ok();
    let lost = json.as_ref().is_some_and(|j| j["players"][0]["topped_out"] == true && j["health"]["failure"].is_null());
    assert!(out.status.success() || lost, "{name} ({timing}): puyobot play failed: {stderr}");
    Some(serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{name}: not JSON ({e}): {stderr}")))
}

/// Builds `c` into a fresh scratch folder of its own: the folder and the ROM's path (None without ca65,
/// after the tools rule).
fn build_in_scratch(name: &str, c: Contract) -> Option<(PathBuf, PathBuf)> {
    let rom = match c.build_rom(&format!("timed-{name}")) {
        Ok(rom) => rom,
        Err(BuildError::NoAssembler) => {
            crate::common::tools::missing_ca65(&format!("timed_play ({name})"));
            return None;
        }
        Err(e) => panic!("{e}"),
    };
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("timed_play").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    let rom_path = dir.join(format!("{name}.nes"));
    std::fs::write(&rom_path, rom).expect("write rom");
    Some((dir, rom_path))
}

/// Pieces of Endless each timed build plays: enough for the level curve below to reach its fastest
/// gravity (piece 97) and play 43 pieces there.
const PIECES: u32 = 140;

/// Builds `c` and runs `play` for [`PIECES`] pieces of Endless on it with `timing` given (None without ca65).
fn run_timed(name: &str, c: Contract, timing: &str) -> Option<std::process::Output> {
    c.validate().unwrap_or_else(|e| panic!("contract invalid: {e}: {c}"));
    let (dir, rom_path) = build_in_scratch(name, c)?;
    let addresses = labcart_addresses(&dir);
    let out = Command::new(env!("CARGO_BIN_EXE_puyobot"))
        .args(["play", "--headless", "--json", "--config", "/dev/null", "--speed", "10", "--fast"])
        .args([
            "--mode",
            "endless",
            "--pieces",
            &PIECES.to_string(),
            "--seed",
            "5",
            "--calibrate",
            "off",
            "--allow-unknown-rom",
        ])
        .arg("--rom")
        .arg(&rom_path)
        .arg("--addresses")
        .arg(&addresses)
        .args(["--lab-timing", timing])
        .output()
        .expect("run puyobot");
    Some(out)
}

/// Builds `c` and plays `pieces` pieces of Endless on it from the real cartridge's guessed files with
/// `--calibrate auto`: whether the run succeeded, its JSON report and its stderr (None without ca65).
fn calibrate_and_play(name: &str, c: Contract, pieces: u32) -> Option<(bool, Option<Value>, String)> {
    let (dir, rom_path) = build_in_scratch(name, c)?;
    let guessed = crate::common::calib::guessed_folder(&dir);
    let pieces = pieces.to_string();
    let args = ["--seed", "5", "--mode", "endless", "--pieces", &pieces, "--calibrate", "auto"];
    Some(crate::common::calib::play_outcome(&rom_path, &guessed, &args))
}

/// [`PIECES`] pieces, no top-out, 0 mismatches, healthy, and the plans held: at most one piece in twenty off
/// plan.
fn assert_clean(name: &str, j: &Value) {
    let p = &j["players"][0];
    let n = |k: &str| p[k].as_u64().unwrap_or_else(|| panic!("{name}: {k} in {p}"));
    assert_eq!(n("pieces"), u64::from(PIECES), "{name}: {p}");
    assert_eq!(p["topped_out"], false, "{name}: {p}");
    assert_eq!(n("mismatches"), 0, "{name}: {p}");
    assert!(n("off_plan") * 20 <= u64::from(PIECES), "{name}: plans kept failing: {p}");
    assert_eq!(j["health"]["state"], "healthy", "{name}: {}", j["health"]);
    let h = &j["health"]["players"][0];
    assert_eq!(h["off_plan"], p["off_plan"], "{name}: health counts the pieces off plan: {h}");
    assert!(h["replans"].as_u64().is_some() && h["presses_refused"].as_u64().is_some(), "{name}: {h}");
}

/// The default build with only its gravity changed to `n` frames per row.
fn gravity(n: u8) -> Contract {
    Contract { fall_frames: n, fall_min: n, fall_fast: n.min(2), ..Contract::DEFAULT }
}

#[test]
fn four_frames_per_row_plays_clean_on_its_timing() {
    let Some(j) = play_timed("fall4", gravity(4), "fall=4,soft=2,lock=16,lag=0") else { return };
    assert_clean("fall4", &j);
}

#[test]
fn no_lock_delay_and_a_one_frame_lock_delay_play_clean_on_their_timing() {
    for (name, frames) in [("lock0", 0u8), ("lock1", 1)] {
        let c = Contract { lock_delay: frames, ..Contract::DEFAULT };
        let timing = if frames == 0 { "fall=30,lock=none".to_string() } else { format!("fall=30,lock={frames}") };
        let Some(j) = play_timed(name, c, &timing) else { return };
        assert_clean(name, &j);
    }
}

#[test]
fn input_lag_is_awaited_and_no_piece_is_left_wandering() {
    // 3 frames between a press and its effect: a lagged press is awaited, not refused and pressed again,
    // and a pair whose lagged presses keep taking it elsewhere (the lock delay starting again on every
    // move) is let go rather than steered for ever. (The bot's strength at this lag is not asserted.)
    let c = Contract { input_lag: 3, ..Contract::DEFAULT };
    let Some(j) = play_timed("lag3", c, "fall=30,lock=16,lag=3") else { return };
    let p = &j["players"][0];
    assert!(p["pieces"].as_u64().unwrap() >= 40, "{p}");
    assert_eq!(p["mismatches"], 0, "{p}");
    let h = &j["health"]["players"][0];
    let n = |k: &str| h[k].as_u64().unwrap_or_else(|| panic!("{k} in {h}"));
    assert!(n("presses_refused") * 50 <= n("presses"), "lagged presses were called refused: {h}");
    assert!(n("replans") <= n("pieces_spawned"), "{h}");
}

#[test]
fn gravity_by_level_plays_clean_on_its_fastest_timing() {
    // 30 frames per row, 4 fewer a level, never below 8, a level every 16 pieces: 8 from piece 97 on.
    let c = Contract { fall_frames: 30, fall_step: 4, fall_min: 8, level_pieces: 16, ..Contract::DEFAULT };
    let Some(j) = play_timed("level", c, "fall=8,lock=16") else { return };
    assert_clean("level", &j);
}

#[test]
fn a_clock_too_fast_to_steer_stops_naming_it() {
    // A row a frame, no lock delay, 8 frames from a press to its effect: the pair has fallen 9 rows before
    // the first press acts, so even pressing ahead most of an empty field is out of reach. The run stops
    // naming the timing with that count rather than dropping pairs down the middle until it tops out.
    let c = Contract { fall_frames: 1, fall_min: 1, fall_fast: 1, lock_delay: 0, input_lag: 8, ..Contract::DEFAULT };
    let Some(out) = run_timed("lag8-fall1", c, "fall=1,soft=1,lock=none,lag=8") else { return };
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "a clock nobody can steer on played on: {stderr}");
    let j: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("not JSON ({e}): {stderr}"));
    let failure = j["health"]["failure"].as_str().unwrap_or_else(|| panic!("no failure: {}", j["health"]));
    assert!(failure.contains("timing") && failure.contains("input lag 8"), "{failure}");
    assert!(failure.contains("of the 22 placements even on an empty field"), "{failure}");
    assert!(j["players"][0]["pieces"].as_u64().unwrap() < 12, "stopped before the field filled: {}", j["players"][0]);
}

#[test]
fn pieces_that_stop_before_calibration_settles_name_what_it_lacked() {
    // A row a frame, a one-frame lock delay, 4 frames of input lag: from the real cartridge's guessed
    // files, calibration sees too few turns in the air to learn the orientation values before the game
    // tops out. The stop names calibration, the gravity it measured and the movement it had not learned,
    // not a paused game or a wrong address file.
    let c = Contract { fall_frames: 1, fall_min: 1, fall_fast: 1, lock_delay: 1, input_lag: 4, ..Contract::DEFAULT };
    let Some((ok, _, stderr)) = calibrate_and_play("unsettled-stall", c, 200) else { return };
    assert!(!ok, "a run whose calibration never settled succeeded: {stderr}");
    assert!(!stderr.contains("is the game paused"), "the stop blamed a pause: {stderr}");
    assert!(stderr.contains("before calibration settled"), "{stderr}");
    assert!(stderr.contains("gravity 1f/row") && stderr.contains("not settled: movement"), "{stderr}");
    assert!(stderr.contains("bug report: "), "no flight record: {stderr}");
}

#[test]
fn a_lock_delay_the_soft_drop_hides_is_measured_from_a_pair_let_land() {
    // 3 frames a row, an 8-frame lock delay that Down cuts short, 4 frames of input lag: the bot
    // soft-drops every pair onto its landing, so the lock delay never shows on its own, and playing as if
    // there were none costs every move the delay allows. Calibrated from the real cartridge's guessed
    // files, the run lands a sample pair by gravity until the delay is measured.
    let c = Contract { fall_frames: 3, fall_min: 3, fall_fast: 3, lock_delay: 8, input_lag: 4, ..Contract::DEFAULT };
    let Some((ok, json, stderr)) = calibrate_and_play("lock-hidden", c, 40) else { return };
    assert!(ok, "{stderr}");
    let j = json.unwrap_or_else(|| panic!("not JSON: {stderr}"));
    let clock = &j["calibration"]["timing"][0];
    assert_eq!(clock["lock_delay"], 8, "{clock}");
    assert_eq!((&clock["frames_per_row"], &clock["input_lag"]), (&Value::from(3), &Value::from(4)), "{clock}");
    let p = &j["players"][0];
    assert_eq!(
        (p["pieces"].as_u64(), &p["mismatches"], &p["topped_out"]),
        (Some(40), &Value::from(0), &Value::from(false)),
        "{p}"
    );
}

#[test]
fn a_next_pair_written_late_on_a_fast_clock_is_not_waited_for() {
    // 4 frames a row and next-pair bytes valid 24 frames after each spawn: waiting for them lets every
    // pair fall 6 of its 12 rows before the bot is asked, and a game played that way never builds a long
    // chain (3 links in 200 pieces). Asked at the spawn with the current pair standing in, it builds.
    let c = Contract { next_lag: 24, ..gravity(4) };
    let Some((ok, json, stderr)) = calibrate_and_play("next-late-fast", c, 200) else { return };
    assert!(ok, "{stderr}");
    let j = json.unwrap_or_else(|| panic!("not JSON: {stderr}"));
    assert_eq!(j["calibration"]["next_pair"]["lag"].as_u64().map(|l| l >= 20), Some(true), "{}", j["calibration"]);
    let p = &j["players"][0];
    assert_eq!(
        (p["pieces"].as_u64(), &p["mismatches"], &p["topped_out"]),
        (Some(200), &Value::from(0), &Value::from(false)),
        "{p}"
    );
    assert!(p["largest_chain"].as_u64().is_some_and(|c| c >= 8), "{p}");
}

#[test]
fn an_x_base_far_from_the_guess_does_not_send_the_opening_to_a_wall() {
    // Column 1 reads 16 and row 0 reads 2 where the guessed files say 1, pairs spawn upside down, A turns
    // them counter-clockwise, a landed pair cannot turn and gravity quickens every 5 pieces. Steering by the X byte as read would push every opening pair to the left wall, where its
    // turns are refused and it locks upright: no lock on its side, so which way A turns stays unknown
    // and calibration fails after 20 pieces. Counted from the spawn column, the pairs spread and lie down.
    let c = Contract {
        x_base: 16,
        y_base: 2,
        spawn: Dir::Down,
        orients: Orients { down: 1, left: 3, up: 0, right: 2 },
        a_clockwise: false,
        kick_side: false,
        lock_delay: 8,
        lock_moves: false,
        fall_step: 1,
        fall_min: 3,
        level_pieces: 5,
        ..Contract::DEFAULT
    };
    let Some((ok, json, stderr)) = calibrate_and_play("x-base-far", c, 40) else { return };
    assert!(ok, "{stderr}");
    let j = json.unwrap_or_else(|| panic!("not JSON: {stderr}"));
    assert_eq!(j["calibration"]["state"], "settled", "{}", j["calibration"]);
    assert_eq!(j["calibration"]["xy_bases"][0], 16, "{}", j["calibration"]);
    let p = &j["players"][0];
    assert_eq!((p["pieces"].as_u64(), &p["mismatches"]), (Some(40), &Value::from(0)), "{p}");
}
