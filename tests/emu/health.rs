//! The health check on real runs of the open cartridge: a contract that predicts the game is reported
//! healthy with every check counted; an address file that does not describe the cartridge, played with
//! calibration off, stops the bots with an error that names the failing fact, and the report never says
//! "settled" for it.
use std::path::Path;
use std::process::Command;

use serde_json::Value;

use crate::common::calib::guessed_folder;

fn lab(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src/labcart").join(name)
}

/// `puyobot play --headless --json ARGS…`: exit success, the JSON report, stderr.
fn play(args: &[&str]) -> (bool, Value, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_puyobot"))
        .args(["play", "--headless", "--json", "--speed", "10", "--fast"])
        .args(args)
        // The bug report of a run that stops goes to the build's scratch folder.
        .env("PUYOBOT_DATA_DIR", Path::new(env!("CARGO_TARGET_TMPDIR")).join("health-data"))
        .output()
        .expect("run puyobot");
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    let json = serde_json::from_str(&text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"));
    (out.status.success(), json, String::from_utf8_lossy(&out.stderr).to_string())
}

#[test]
fn a_contract_that_predicts_the_game_is_healthy_and_every_check_is_counted() {
    let (ok, j, err) = play(&["--mode", "ai-vs-ai", "--pieces", "40", "--seed", "3"]);
    assert!(ok, "{err}");
    let h = &j["health"];
    assert_eq!(h["state"], "healthy", "{h}");
    assert!(h["failure"].is_null());
    for p in h["players"].as_array().expect("players") {
        let n = |k: &str| p[k].as_u64().unwrap_or_else(|| panic!("{k} in {p}"));
        assert!(n("pieces_spawned") >= 30, "{p}");
        assert_eq!(n("pieces_asked"), n("pieces_spawned"), "every piece was asked about: {p}");
        assert!(n("locks_checked") >= 30 && n("locks_mismatched") == 0, "{p}");
        assert!(n("next_checked") >= 30 && n("next_confirmed") == n("next_checked"), "{p}");
        assert!(n("presses") > 0 && n("presses_as_predicted") * 10 >= n("presses") * 9, "{p}");
    }
}

#[test]
fn a_wrong_contract_with_calibration_off_stops_and_names_the_fact() {
    // The open cartridge's orientation variant numbers the four directions differently from the guessed
    // files: with calibration off nothing learns that, so the presses do not do what the model expects.
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("health-wrong-contract");
    let guessed = guessed_folder(&dir);
    let rom = lab("puyolab-orient.nes");
    let (ok, j, err) = play(&[
        "--rom",
        rom.to_str().unwrap(),
        "--allow-unknown-rom",
        "--addresses",
        guessed.to_str().unwrap(),
        "--mode",
        "endless",
        "--pieces",
        "150",
        "--calibrate",
        "off",
    ]);
    assert!(!ok, "a run on a contract that does not predict the game must fail");
    assert_eq!(j["health"]["state"], "failed", "{}", j["health"]);
    assert_ne!(j["calibration"]["state"], "settled");
    let failure = j["health"]["failure"].as_str().expect("the failure is in the report");
    assert!(failure.contains("movement") && failure.contains("What to do"), "{failure}");
    assert!(err.contains("movement") && err.contains("What to do"), "the error names the fact: {err}");
    let pieces = j["players"][0]["pieces"].as_u64().unwrap();
    assert!(pieces < 60, "stopped early, not after playing on blind: {pieces} pieces");
}
