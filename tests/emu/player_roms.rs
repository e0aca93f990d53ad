//! The ROM table against the files: the labcart hashes in addresses/roms.toml match the committed
//! cartridges, and the real cartridge (when `PUYO_ROM` names a dump) is identified and booted.

use std::path::PathBuf;

use puyobot::emu::RomImage;
use puyobot::memmap::AddressSource;

#[test]
fn labcart_hashes_match_the_committed_files() {
    let dir = std::env::var_os("PUYOBOT_LABCART_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src/labcart"));
    let cat = AddressSource::Builtin.catalog().unwrap();
    for (file, name) in [
        ("puyolab.nes", "puyolab (open test cartridge)"),
        ("puyolab-fixed.nes", "puyolab-fixed (open test cartridge, fixed seed)"),
        ("puyolab-codes.nes", "puyolab-codes (open test cartridge, other codes)"),
        ("puyolab-orient.nes", "puyolab-orient (open test cartridge, other orientation values)"),
    ] {
        let path = dir.join(file);
        let img = RomImage::from_path(&path).unwrap_or_else(|e| panic!("committed ROM {}: {e}", path.display()));
        let known = cat.identify(&img).unwrap_or_else(|e| panic!("update addresses/roms.toml: {e}"));
        assert_eq!(known.name, name);
    }
}

/// With a dump, the program does what a user runs: identify it, walk the guessed menus, calibrate what the
/// guessed file does not know, and play 30 pieces of Endless with no mismatch after calibration settled.
/// Needs the dump, which the repository cannot ship: run it with `PUYO_ROM=DUMP cargo test --release --test emu
/// -- --ignored the_real_cartridge`.
#[test]
#[ignore = "needs PUYO_ROM, a Puyo Puyo (J) dump: run with -- --ignored"]
fn the_real_cartridge_is_identified_calibrated_and_played() {
    let path = std::env::var_os("PUYO_ROM").expect("set PUYO_ROM to a Puyo Puyo (J) dump to run this test");
    let img = RomImage::from_path(std::path::Path::new(&path)).expect("PUYO_ROM");
    let known =
        AddressSource::Builtin.catalog().unwrap().identify(&img).expect("PUYO_ROM is not the known dump").clone();
    assert_eq!(known.name, "Puyo Puyo (J)");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_puyobot"))
        .args([
            "play",
            "--headless",
            "--fast",
            "--mode",
            "endless",
            "--pieces",
            "30",
            "--frames",
            "40000",
            "--json",
            "--rom",
        ])
        .arg(&path)
        .output()
        .expect("run puyobot");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "puyobot play failed on the real cartridge:\n{stderr}");
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON report");
    assert_eq!(report["calibration"]["state"], "settled", "{report:#}\n{stderr}");
    let p1 = &report["players"][0];
    assert!(p1["pieces"].as_u64().unwrap_or(0) >= 30, "{p1:#}\n{stderr}");
    assert_eq!(p1["mismatches"], 0, "{p1:#}");
}
