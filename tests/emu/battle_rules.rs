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

/// The run learned `key` = `value` (and plays with it), or it stopped naming the 2P rules; never healthy
/// with rules the game contradicted.
fn learned_or_stopped(name: &str, ok: bool, j: &Value, stderr: &str, key: &str, value: &str, in_use: &str) {
    let rules = &j["calibration"]["rules"];
    let failure = &j["health"]["failure"];
    if failure["fact"] == "battle-rules" {
        assert!(!ok || j["health"]["state"] != "healthy", "{name}: a stop is not healthy: {}", j["health"]);
        let seen = failure["seen"].as_str().unwrap_or_default();
        assert!(
            seen.contains("cap") && seen.contains("points per nuisance"),
            "{name}: the stop names the rules: {seen}"
        );
        return;
    }
    assert!(rules.is_object(), "{name}: calibration.rules is reported: {}\n{stderr}", j["calibration"]);
    assert_eq!(rules["contradiction"], Value::Null, "{name}: {rules}");
    assert_eq!(rules[key], value, "{name}: the build's rule is learned: {rules}\n{stderr}");
    let use_text = rules["in_use"].as_str().unwrap_or_default();
    assert!(use_text.contains(in_use), "{name}: the bots play with the learned rule ({in_use}): {rules}");
    assert!(
        !rules["relearned"].as_array().expect("relearned list").is_empty(),
        "{name}: the guess was ruled out: {rules}"
    );
    assert!(rules["drops_seen"].as_u64().unwrap_or(0) > 0, "{name}: {rules}");
}

#[test]
fn no_cap_is_learned_from_landed_nuisance_or_stops_naming_the_rules() {
    let Some((ok, j, err)) = play("cap-none", &["-D", "NUIS_CAP=0"], 2) else { return };
    let caps = j["calibration"]["rules"]["cap_per_chain"].as_str().unwrap_or_default().to_string();
    if j["health"]["failure"]["fact"] != "battle-rules" {
        assert!(
            caps.starts_with("none"),
            "cap none: the cap of 30 is ruled out: {caps}: {}",
            j["calibration"]["rules"]
        );
    }
    learned_or_stopped("cap-none", ok, &j, &err, "cap_per_chain", &caps, "");
    assert!(
        !j["calibration"]["rules"]["in_use"].as_str().unwrap_or_default().contains("cap 30,"),
        "{}",
        j["calibration"]["rules"]
    );
}

#[test]
fn a_cap_of_60_is_learned_or_stops_naming_the_rules() {
    let Some((ok, j, err)) = play("cap-60", &["-D", "NUIS_CAP=60"], 2) else { return };
    let rules = &j["calibration"]["rules"];
    let in_use = rules["in_use"].as_str().unwrap_or_default();
    if j["health"]["failure"]["fact"] != "battle-rules" {
        assert!(!in_use.contains("cap 30,"), "cap 60: a chain sent more than 30: {rules}");
    }
    learned_or_stopped("cap-60", ok, &j, &err, "overflow", "vanish", "70 points");
}

#[test]
fn another_drop_size_is_learned_or_stops_naming_the_rules() {
    let Some((ok, j, err)) = play("drop-18", &["-D", "NUIS_DROP=18"], 2) else { return };
    learned_or_stopped("drop-18", ok, &j, &err, "max_drop", "18", "18 per drop");
}

#[test]
fn other_points_per_nuisance_are_learned_or_stop_naming_the_rules() {
    let Some((ok, j, err)) = play("points-120", &["-D", "NUIS_POINTS=120"], 2) else { return };
    let rules = &j["calibration"]["rules"];
    if j["health"]["failure"]["fact"] != "battle-rules" {
        let points = rules["nuisance_points"].as_str().unwrap_or_default();
        assert!(!points.split(", ").any(|p| p == "70"), "120 points: 70 is ruled out: {rules}");
        assert!(
            rules["in_use"].as_str().unwrap_or_default().contains("120 points") || points.contains(".."),
            "{rules}"
        );
    }
    learned_or_stopped("points-120", ok, &j, &err, "overflow", "vanish", "per drop");
}
