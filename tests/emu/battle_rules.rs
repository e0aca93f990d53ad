//! The 2P rules learned from the game: open-cartridge builds whose per-chain cap, points per nuisance
//! or drop size differ from the model's guesses (cap 30, 70 points, 30 a drop), played AI vs AI from the
//! real cartridge's guessed address files with `--calibrate auto`. Each run either learns the rule (the
//! JSON `calibration.rules` names the build's value and the bots play with it) or stops naming the 2P
//! rules: never a healthy run whose rules in use the game contradicted. A missing `ca65` fails these
//! tests (tests/common/tools.rs).

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::common::contract::{BuildError, build_with};

/// Builds the open cartridge with `defines` into a scratch folder of its own: the folder and the ROM.
fn build(name: &str, defines: &[&str]) -> Option<(PathBuf, PathBuf)> {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("battle_rules").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    let rom = dir.join(format!("{name}.nes"));
    let defines: Vec<String> = defines.iter().map(|d| d.to_string()).collect();
    match build_with(&rom, &defines) {
        Ok(()) => Some((dir, rom)),
        Err(BuildError::NoAssembler) => {
            crate::common::tools::missing_ca65(&format!("battle_rules ({name})"));
            None
        }
        Err(e) => panic!("{name}: {e}"),
    }
}

/// AI vs AI on the build from the guessed files, calibrating: whether the run succeeded, the report, stderr.
fn play(name: &str, defines: &[&str], games: u32) -> Option<(bool, Value, String)> {
    let (dir, rom) = build(name, defines)?;
    let guessed = crate::common::calib::guessed_folder(&dir);
    let games = games.to_string();
    let args = ["--seed", "3", "--mode", "ai-vs-ai", "--games", &games, "--calibrate", "auto"];
    let (ok, json, stderr) = crate::common::calib::play_outcome(&rom, &guessed, &args);
    let json = json.unwrap_or_else(|| panic!("{name}: no JSON report: {stderr}"));
    Some((ok, json, stderr))
}

/// The run's `calibration.rules`, after checking it either stopped naming the 2P rules (then `None`) or
/// ran healthy with rules the game ruled out replaced (`relearned` not empty, no contradiction).
fn learned(name: &str, ok: bool, j: &Value, stderr: &str) -> Option<Value> {
    let rules = j["calibration"]["rules"].clone();
    let failure = &j["health"]["failure"];
    if failure["fact"] == "battle-rules" {
        assert_ne!(j["health"]["state"], "healthy", "{name}: a stop is not healthy: {}", j["health"]);
        let seen = failure["seen"].as_str().unwrap_or_default();
        assert!(
            seen.contains("cap") && seen.contains("points per nuisance"),
            "{name}: the stop names the rules: {seen}"
        );
        return None;
    }
    assert!(ok, "{name}: the run failed: {stderr}");
    assert!(rules.is_object(), "{name}: calibration.rules is reported: {}\n{stderr}", j["calibration"]);
    assert_eq!(rules["contradiction"], Value::Null, "{name}: {rules}");
    assert!(rules["drops_seen"].as_u64().unwrap_or(0) > 0, "{name}: drops were followed: {rules}");
    let relearned = rules["relearned"].as_array().expect("relearned list");
    assert!(!relearned.is_empty(), "{name}: the guess was ruled out and relearned: {rules}");
    assert!(stderr.contains("2P rules:"), "{name}: the log names each rule ruled out: {stderr}");
    Some(rules)
}

fn text<'a>(rules: &'a Value, key: &str) -> &'a str {
    rules[key].as_str().unwrap_or_else(|| panic!("{key} in {rules}"))
}

#[test]
fn no_cap_is_learned_from_landed_nuisance_or_stops_naming_the_rules() {
    let Some((ok, j, err)) = play("cap-none", &["-D", "NUIS_CAP=0"], 2) else { return };
    let Some(rules) = learned("cap-none", ok, &j, &err) else { return };
    assert!(text(&rules, "cap_per_chain").starts_with("none or "), "the cap of 30 is ruled out: {rules}");
    assert!(!text(&rules, "in_use").contains("cap 30,"), "the bots no longer play with a cap of 30: {rules}");
    assert!(rules["relearned"].to_string().contains("per-chain cap"), "the cap is named: {rules}");
}

#[test]
fn a_cap_of_60_is_learned_or_stops_naming_the_rules() {
    let Some((ok, j, err)) = play("cap-60", &["-D", "NUIS_CAP=60"], 2) else { return };
    let Some(rules) = learned("cap-60", ok, &j, &err) else { return };
    let caps = text(&rules, "cap_per_chain");
    assert!(!caps.split(", ").any(|c| c == "30") && caps != "none", "30 is ruled out, 60 is not: {rules}");
    assert!(rules["relearned"].to_string().contains("per-chain cap"), "the cap is named: {rules}");
}

#[test]
fn another_drop_size_is_learned_or_stops_naming_the_rules() {
    let Some((ok, j, err)) = play("drop-18", &["-D", "NUIS_DROP=18"], 2) else { return };
    let Some(rules) = learned("drop-18", ok, &j, &err) else { return };
    assert_eq!(text(&rules, "max_drop"), "18", "{rules}");
    assert!(text(&rules, "in_use").contains("18 per drop"), "the bots play with it: {rules}");
}

#[test]
fn other_points_per_nuisance_are_learned_or_stop_naming_the_rules() {
    let Some((ok, j, err)) = play("points-120", &["-D", "NUIS_POINTS=120"], 2) else { return };
    let Some(rules) = learned("points-120", ok, &j, &err) else { return };
    let points = text(&rules, "nuisance_points");
    assert!(!points.split(", ").any(|p| p == "70"), "70 points is ruled out: {rules}");
    assert!(!text(&rules, "in_use").contains(" 70 points"), "the bots no longer play with 70: {rules}");
}

#[test]
fn rules_set_through_the_menus_play_with_no_mismatch_and_no_relearning() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_puyobot"))
        .args(["play", "--headless", "--json", "--mode", "ai-vs-ai", "--games", "2", "--seed", "3"])
        .args(crate::common::calib::PINNED)
        .args(crate::common::calib::PINNED_P2)
        .args(["--nuisance-cap", "none", "--nuisance-drop", "18"])
        .output()
        .expect("run puyobot");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let j: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("not JSON ({e}): {stderr}"));
    let rules = &j["calibration"]["rules"];
    assert_eq!(text(rules, "in_use"), "no cap, 70 points, 18 per drop, vanish", "{rules}");
    assert_eq!(rules["relearned"], serde_json::json!([]), "the game deals what the menus set: {rules}");
    assert_eq!(text(rules, "max_drop"), "18", "the pending counts and landed nuisance confirm the drop: {rules}");
    assert!(rules["drops_seen"].as_u64().unwrap_or(0) > 20, "{rules}");
    for g in j["games"].as_array().expect("games") {
        for p in g["players"].as_array().expect("players") {
            assert_eq!(p["mismatches"], 0, "{p}");
        }
    }
    assert_eq!(j["health"]["state"], "healthy", "{}", j["health"]);
}

#[test]
fn a_rule_flag_the_address_file_cannot_set_is_refused_naming_it() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_puyobot"))
        .args(["play", "--headless", "--json", "--mode", "ai-vs-ai", "--pieces", "5"])
        .args(crate::common::calib::PINNED)
        .args(["--nuisance-points", "90"])
        .output()
        .expect("run puyobot");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "90 points is not on the open cartridge's menu");
    assert!(stderr.contains("--nuisance-points: the game offers [40, 70, 120]"), "{stderr}");
}
