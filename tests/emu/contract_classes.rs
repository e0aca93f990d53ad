//! Builds of the open cartridge that differ from the guessed contract the ways a 1993 game plausibly
//! does (next-pair bytes with their own code table or a slide lag, item codes nobody guessed, a nuisance
//! code equal to a guessed item code, orientation values outside 0..3, a mode byte that does not follow
//! the menu, a spawn-delay timer at 0 while a lock resolves, pose bytes written late, other X / Y bases,
//! link bits in the colour byte, the current-pair bytes the other way round), each played from the real cartridge's guessed address files with `--calibrate auto`: each
//! must either play cleanly (0 mismatches after settling, a healthy report, no top-out, both sides placing
//! pieces in AI vs AI) or stop with an error that names the fact. Never a normal-looking report on a
//! contract that does not predict the game.
//!
//! Besides the fixed cases, `PUYOBOT_CLASS_DRAWS=N` contracts drawn by `Contract::random_extended` from
//! `PUYOBOT_CLASS_SEED` (every axis at once) are held to "plays cleanly or stops naming a fact".
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::common;
use crate::common::calib::{guessed_folder, play_outcome};
use crate::common::contract::{BuildError, Contract, build_with};

fn dir() -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join("contract-classes");
    std::fs::create_dir_all(&d).expect("scratch dir");
    d
}

/// Builds the open cartridge with `defines` (as `-D NAME=VALUE`) into `name`.nes; `None` when ca65 is
/// missing and the opt-out is set.
fn build(name: &str, defines: &[String]) -> Option<PathBuf> {
    let out = dir().join(format!("{name}.nes"));
    match build_with(&out, defines) {
        Ok(()) => Some(out),
        Err(BuildError::NoAssembler) => {
            common::tools::missing_ca65(&format!("contract_classes ({name})"));
            None
        }
        Err(e) => panic!("{name}: {e}"),
    }
}

fn defines(pairs: &[(&str, &str)]) -> Vec<String> {
    pairs.iter().flat_map(|(k, v)| ["-D".to_string(), format!("{k}={v}")]).collect()
}

/// What one run ended as.
struct Run {
    ok: bool,
    json: Option<Value>,
    stderr: String,
}

fn play(rom: &Path, mode: &str, pieces: &str) -> Run {
    let guessed = guessed_folder(&dir());
    let (ok, json, stderr) = play_outcome(rom, &guessed, &["--seed", "5", "--mode", mode, "--pieces", pieces]);
    Run { ok, json, stderr }
}

/// The run played cleanly: success, healthy, 0 mismatches, every player placed pieces, no top-out in
/// Endless.
fn assert_plays(name: &str, r: &Run, mode: &str) -> Value {
    assert!(r.ok, "{name} {mode} failed: {}", r.stderr);
    let j = r.json.clone().expect("JSON report");
    assert_eq!(j["health"]["state"], "healthy", "{name} {mode}: {}", j["health"]);
    assert_eq!(j["calibration"]["state"], "settled", "{name} {mode}");
    for p in j["players"].as_array().expect("players") {
        assert_eq!(p["mismatches"], 0, "{name} {mode}: {p}");
        assert!(p["pieces"].as_u64().unwrap() >= 20, "{name} {mode}: every player places pieces: {p}");
        if mode == "endless" {
            assert_eq!(p["topped_out"], false, "{name} {mode}: {p}");
        }
    }
    j
}

/// The run stopped with an error naming a fact: a health failure, a calibration that did not settle, or
/// a menu script that never saw a pair it could read fall.
fn assert_stops_naming_a_fact(name: &str, r: &Run) {
    assert!(!r.ok, "{name}: a run that cannot predict the game must fail");
    let named = ["health: ", "not settled: ", "menu script: "].iter().any(|k| r.stderr.contains(k));
    assert!(named, "{name}: the error names the fact: {}", r.stderr);
    if let Some(j) = &r.json {
        assert_ne!(j["calibration"]["state"], "settled", "{name}: never settled while failing");
    }
}

#[test]
fn next_pair_bytes_with_their_own_code_table_are_learned() {
    let Some(rom) = build("next-table", &defines(&[("NEXT_TABLE", "1")])) else { return };
    let j = assert_plays("next-table", &play(&rom, "endless", "120"), "endless");
    let h = &j["health"]["players"][0];
    assert!(h["next_checked"].as_u64().unwrap() >= 100, "{h}");
    assert_eq!(h["next_confirmed"], h["next_checked"], "every next pair read spawned: {h}");
    assert_eq!(h["pieces_asked"], h["pieces_spawned"], "the bot was asked about every piece: {h}");
}

#[test]
fn next_pair_bytes_that_slide_in_late_are_waited_for() {
    let Some(rom) = build("next-lag", &defines(&[("NEXT_LAG", "12")])) else { return };
    let j = assert_plays("next-lag", &play(&rom, "ai-vs-ai", "80"), "ai-vs-ai");
    for h in j["health"]["players"].as_array().unwrap() {
        assert_eq!(h["next_confirmed"], h["next_checked"], "{h}");
    }
}

#[test]
fn item_codes_nobody_guessed_and_a_nuisance_code_on_a_guessed_item_code_are_learned() {
    // Big Puyo from power-on with a code the guesses do not have: learned when it first comes.
    let d = defines(&[("ITEMS_AT_BOOT", "1"), ("CODE_BIG", "37"), ("CODE_CARB", "38")]);
    let Some(rom) = build("items", &d) else { return };
    let j = assert_plays("items", &play(&rom, "endless", "80"), "endless");
    assert_eq!(j["calibration"]["codes"]["big_puyo"], 37, "{}", j["calibration"]["codes"]);
    // Nuisance on the guessed Big Puyo code: first seen in 2P, long after settling.
    let guessed_big = "9";
    let Some(rom) = build("collide", &defines(&[("CODE_NUIS", guessed_big), ("CODE_BIG", "37")])) else { return };
    assert_plays("collide", &play(&rom, "ai-vs-ai", "80"), "ai-vs-ai");
}

#[test]
fn orientation_values_outside_0_to_3_are_learned() {
    let Some(rom) = build("ori-step", &defines(&[("ORI_STEP", "2"), ("ORI_BASE", "5")])) else { return };
    let j = assert_plays("ori-step", &play(&rom, "endless", "100"), "endless");
    let o = &j["calibration"]["orientation"];
    let mut values: Vec<u64> = ["down", "left", "up", "right"].iter().map(|k| o[*k].as_u64().unwrap()).collect();
    values.sort_unstable();
    assert_eq!(values, [5, 7, 9, 11], "{o}");
}

#[test]
fn a_mode_byte_that_does_not_follow_the_menu_is_found_by_what_the_game_plays() {
    // The seek step cannot see the cursor: the first game comes out 1P, is ended, and the menus are tried
    // again with other cursor moves until both fields get pairs.
    let Some(rom) = build("mode-late", &defines(&[("MODE_LATE", "1")])) else { return };
    // The pieces of the games ended for the wrong mode count toward the limit: 400 leaves a battle of two
    // bots of unequal strength room to end with a winner (the run stops at the winner).
    let r = play(&rom, "ai-vs-ai", "400");
    assert!(r.stderr.contains("trying the menu again"), "{}", r.stderr);
    let j = assert_plays("mode-late", &r, "ai-vs-ai");
    assert!(j["winner"].is_string(), "AI vs AI ends with a winner: {}", j["winner"]);
}

#[test]
fn a_timer_at_0_while_resolving_late_pose_bytes_and_other_xy_bases_are_learned() {
    let d = defines(&[("TIMER_RESOLVE0", "1"), ("POSE_LATE", "3"), ("X_BASE", "0"), ("Y_BASE", "2")]);
    let Some(rom) = build("timing", &d) else { return };
    let j = assert_plays("timing", &play(&rom, "endless", "80"), "endless");
    let c = &j["calibration"];
    assert_eq!(c["xy_bases"], serde_json::json!([0, 2]), "{c}");
    assert_eq!(c["pose_lag"], 3, "{c}");
    assert_eq!(c["lock_signal"], "field", "{c}");
    let h = &j["health"]["players"][0];
    assert_eq!(h["pieces_asked"], h["pieces_spawned"], "the bot was asked about every piece: {h}");
    assert_plays("timing", &play(&rom, "ai-vs-ai", "80"), "ai-vs-ai");
}

#[test]
fn link_bits_in_the_colour_byte_are_masked_out() {
    let Some(rom) = build("color-bits", &defines(&[("COLOR_BITS", "1"), ("OTHER_BITS", "1")])) else { return };
    let j = assert_plays("color-bits", &play(&rom, "endless", "100"), "endless");
    let mask = j["calibration"]["codes"]["color_mask"].as_u64().unwrap();
    assert_eq!(mask & 0x0F, 0x0F, "the code bits are kept: {mask:#x}");
    assert_ne!(mask & 0xF0, 0xF0, "link bits were seen and left out: {mask:#x}");
    assert!(j["players"][0]["largest_chain"].as_u64().unwrap() >= 4, "it builds chains: {}", j["players"][0]);
}

#[test]
fn current_pair_bytes_the_other_way_round_are_learned() {
    let Some(rom) = build("pair-swap", &defines(&[("PAIR_SWAP", "1")])) else { return };
    let j = assert_plays("pair-swap", &play(&rom, "endless", "80"), "endless");
    assert_eq!(j["calibration"]["current_pair"], "swapped", "{}", j["calibration"]);
    assert!(j["players"][0]["largest_chain"].as_u64().unwrap() >= 4, "it builds chains: {}", j["players"][0]);
    let j = assert_plays("pair-swap", &play(&rom, "ai-vs-ai", "200"), "ai-vs-ai");
    assert_eq!(j["calibration"]["current_pair"], "swapped", "{}", j["calibration"]);
    assert!(j["winner"].is_string(), "AI vs AI ends with a winner: {}", j["winner"]);
}

/// The open cartridge's own address files, under a catalogue that names no ROM (every build is unknown).
fn labcart_folder() -> PathBuf {
    let out = dir().join("labcart-files");
    std::fs::create_dir_all(&out).expect("folder");
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("addresses").join("labcart");
    for file in ["1p-endless.toml", "2p.toml", "ai-vs-ai.toml"] {
        std::fs::copy(root.join(file), out.join(file)).expect("a labcart address file");
    }
    let roms = "[[rom]]\nname = \"open test cartridge files\"\ncrc32 = \"00000000\"\n\
                sha1 = \"0000000000000000000000000000000000000000\"\nsource = \"test\"\nverified = false\n\
                modes = { endless = \"1p-endless.toml\", vs-human = \"2p.toml\", ai-vs-ai = \"ai-vs-ai.toml\" }\n";
    std::fs::write(out.join("roms.toml"), roms).expect("roms.toml");
    out
}

#[test]
fn current_pair_bytes_a_file_names_the_wrong_way_round_stop_naming_the_byte_order() {
    // Calibration off: the file is believed, so the bytes are read the wrong way round. The pairs land
    // "turned over" (one input from where RAM showed them), and the stop names the byte order, not the
    // movement or the field cells.
    let Some(rom) = build("pair-swap-off", &defines(&[("PAIR_SWAP", "1")])) else { return };
    let folder = labcart_folder();
    let args = ["--seed", "5", "--mode", "endless", "--pieces", "100", "--calibrate", "off"];
    let (ok, json, stderr) = play_outcome(&rom, &folder, &args);
    let r = Run { ok, json, stderr };
    assert_stops_naming_a_fact("pair-swap off", &r);
    assert!(r.stderr.contains("health: P1: current pair"), "names the current pair: {}", r.stderr);
    assert!(r.stderr.contains("current-pair byte order"), "names the byte order: {}", r.stderr);
    // The same files play the build they were written for.
    let Some(plain) = build("pair-plain", &[]) else { return };
    let (ok, json, stderr) = play_outcome(&plain, &folder, &args);
    assert!(ok, "{stderr}");
    assert_eq!(json.expect("JSON")["health"]["state"], "healthy");
}

#[test]
fn drawn_contracts_either_play_cleanly_or_stop_naming_a_fact() {
    let seed: u64 = std::env::var("PUYOBOT_CLASS_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(0x0C1A_55E5);
    let n: u64 = std::env::var("PUYOBOT_CLASS_DRAWS").ok().and_then(|s| s.parse().ok()).unwrap_or(3);
    println!("class seed {seed} (PUYOBOT_CLASS_SEED), {n} draws (PUYOBOT_CLASS_DRAWS)");
    for i in 0..n {
        let c = Contract::random_extended(seed.wrapping_add(i));
        let name = format!("drawn-{i}");
        println!("{name}: {c}");
        let Some(rom) = build(&name, &c.defines()) else { return };
        let r = play(&rom, "endless", "100");
        if r.ok {
            assert_plays(&name, &r, "endless");
        } else {
            assert_stops_naming_a_fact(&name, &r);
        }
    }
}
