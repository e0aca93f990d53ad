//! Self-calibration end to end: `puyobot play` on open-cartridge builds it has no address file for,
//! starting from the real cartridge's guessed address files with `--allow-unknown-rom`. Calibration must
//! settle within 10 pieces and learn the build's values; then 150 pieces of Endless with 0 mismatches
//! and no top-out, AI vs AI to a winner with 0 mismatches, and the `--write-addresses` folder must play
//! the same build with `--calibrate off` and 0 mismatches.

use std::path::{Path, PathBuf};

use crate::common::calib::{guessed_folder, play_json as play};
use serde_json::Value;

/// A build and the values it was built with.
struct Build {
    name: String,
    rom: PathBuf,
    empty: u8,
    colours: Vec<u8>,
    /// Values of up, right, down, left.
    ori: [u8; 4],
    a_cw: bool,
    xy_child: bool,
    color_offset: u8,
    nuisance: u8,
}

fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("calib_play").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

/// A committed build made unknown (one CHR byte changed: the game is the same).
fn committed(dir: &Path, file: &str) -> PathBuf {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/labcart").join(file);
    let mut bytes = std::fs::read(src).expect("committed build");
    if let Some(last) = bytes.last_mut() {
        *last ^= 1;
    }
    let out = dir.join(file);
    std::fs::write(&out, bytes).expect("write");
    out
}

fn check_learned(b: &Build, c: &Value) {
    assert_eq!(c["state"], "settled", "{}: {c:#}", b.name);
    let pieces = c["pieces_to_settle"].as_u64().unwrap_or(99);
    assert!(pieces <= 10, "{}: settled after {pieces} pieces", b.name);
    assert_eq!(c["codes"]["empty"], b.empty, "{}: {c:#}", b.name);
    let colours: Vec<u64> = c["codes"]["colors"].as_array().into_iter().flatten().filter_map(Value::as_u64).collect();
    assert!(!colours.is_empty() && colours.iter().all(|&v| b.colours.contains(&(v as u8))), "{}: {colours:?}", b.name);
    if !c["codes"]["nuisance"].is_null() {
        assert_eq!(c["codes"]["nuisance"], b.nuisance, "{}: {c:#}", b.name);
    }
    let o = &c["orientation"];
    assert_eq!([&o["up"], &o["right"], &o["down"], &o["left"]], b.ori.map(Value::from).each_ref(), "{}", b.name);
    assert_eq!(c["a_rotates"], if b.a_cw { "clockwise" } else { "counterclockwise" }, "{}", b.name);
    assert_eq!(c["xy_tracks"], if b.xy_child { "child" } else { "pivot" }, "{}", b.name);
    assert_eq!(c["color_byte_offset"], b.color_offset, "{}", b.name);
}

fn no_mismatch(report: &Value, what: &str) {
    for p in report["players"].as_array().into_iter().flatten() {
        assert_eq!(p["mismatches"], 0, "{what}: {p:#}");
    }
}

/// Everything self-calibration must achieve on one build.
fn full_check(b: &Build, dir: &Path, guessed: &Path) {
    let learned = dir.join(format!("learned-{}", b.name));
    let endless = play(
        &b.rom,
        guessed,
        &["--mode", "endless", "--pieces", "150", "--write-addresses", learned.to_str().expect("utf-8 path")],
    );
    check_learned(b, &endless["calibration"]);
    no_mismatch(&endless, &format!("{} endless", b.name));
    let p1 = &endless["players"][0];
    assert!(p1["pieces"].as_u64().unwrap_or(0) >= 150, "{}: {p1:#}", b.name);
    assert_eq!(p1["topped_out"], false, "{}", b.name);

    let battle = play(&b.rom, guessed, &["--mode", "ai-vs-ai", "--frames", "200000"]);
    check_learned(b, &battle["calibration"]);
    no_mismatch(&battle, &format!("{} ai-vs-ai", b.name));
    assert!(battle["winner"].is_string(), "{}: no winner: {battle:#}", b.name);

    let again = play(&b.rom, &learned, &["--mode", "endless", "--pieces", "50", "--calibrate", "off"]);
    assert_eq!(again["calibration"]["state"], "off");
    no_mismatch(&again, &format!("{} with the learned folder", b.name));
    assert!(again["players"][0]["pieces"].as_u64().unwrap_or(0) >= 50);
}

#[test]
fn committed_builds_as_unknown_dumps_are_calibrated_and_played() {
    let dir = scratch("committed");
    let guessed = guessed_folder(&dir);
    let builds = [
        Build {
            name: "orient".into(),
            rom: committed(&dir, "puyolab-orient.nes"),
            empty: 0,
            colours: (1..=6).collect(),
            ori: [0, 1, 2, 3],
            a_cw: true,
            xy_child: false,
            color_offset: 1,
            nuisance: 7,
        },
        Build {
            name: "codes".into(),
            rom: committed(&dir, "puyolab-codes.nes"),
            empty: 0,
            colours: (0x11..=0x16).collect(),
            ori: [2, 3, 0, 1],
            a_cw: true,
            xy_child: false,
            color_offset: 1,
            nuisance: 0x20,
        },
    ];
    // Each check runs separate processes: check the builds side by side (CI has 2 cores).
    std::thread::scope(|scope| {
        for b in &builds {
            let (dir, guessed) = (&dir, &guessed);
            scope.spawn(move || full_check(b, dir, guessed));
        }
    });
}
