//! Every bad input gets its own clear error: ROM files, unknown dumps, config files, address files.

use std::io::Write;
use std::path::PathBuf;

use puyobot::cli::play::{PlayArgs, load_game, merged_config};
use puyobot::config::Config;
use puyobot::emu::{RomError, RomImage};
use puyobot::memmap::{AddressSource, parse_address_file};

fn tmp(name: &str, bytes: &[u8]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("puyobot-player-errors-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::File::create(&p).unwrap().write_all(bytes).unwrap();
    p
}

/// A valid NROM image (16 KiB PRG, 8 KiB CHR) whose hash no catalogue lists.
fn unknown_rom() -> Vec<u8> {
    let mut b = vec![0u8; 16 + 16384 + 8192];
    b[..4].copy_from_slice(b"NES\x1a");
    b[4] = 1;
    b[5] = 1;
    b[16] = 0x42;
    b
}

#[test]
fn a_missing_rom_is_named() {
    let e = RomImage::from_path(std::path::Path::new("/nonexistent/Puyo Puyo (J).nes")).unwrap_err();
    assert!(matches!(e, RomError::Missing { .. }));
    assert!(e.to_string().contains("does not exist") && e.to_string().contains("Puyo Puyo (J).nes"), "{e}");
}

#[test]
fn an_unreadable_rom_is_reported() {
    // A directory cannot be read as a file.
    let e = RomImage::from_path(&std::env::temp_dir()).unwrap_err();
    assert!(matches!(e, RomError::Unreadable { .. }), "{e}");
}

#[test]
fn a_truncated_rom_says_how_long_it_should_be() {
    let mut b = unknown_rom();
    b.truncate(10_000);
    let e = RomImage::from_path(&tmp("short.nes", &b)).unwrap_err();
    assert!(matches!(e, RomError::Truncated { expected: 24592, found: 10000, .. }), "{e}");
    assert!(e.to_string().contains("24592"), "{e}");
}

#[test]
fn a_non_ines_file_shows_its_first_bytes() {
    let e = RomImage::from_path(&tmp("text.nes", b"PK\x03\x04 a zip file")).unwrap_err();
    assert!(matches!(e, RomError::NotInes { .. }));
    assert!(e.to_string().contains("50 4B 03 04"), "{e}");
}

#[test]
fn an_unknown_dump_is_refused_with_what_was_found_and_what_is_expected() {
    let path = tmp("unknown.nes", &unknown_rom());
    let mut cfg = Config::default();
    cfg.play.mode = puyobot::config::Mode::Endless;
    cfg.play.rom = path.display().to_string();
    let e = load_game(&cfg).unwrap_err().to_string();
    let found = RomImage::from_path(&path).unwrap().hash;
    assert!(e.contains(&found.crc32) && e.contains(&found.sha1), "{e}");
    assert!(e.contains("FCB5CB1E") && e.contains("Puyo Puyo (J)"), "{e}");
    assert!(e.contains("--allow-unknown-rom"), "{e}");
    // With the override it loads, borrowing the real cartridge's address file.
    cfg.play.allow_unknown_rom = true;
    let (_, name, map) = load_game(&cfg).expect("allowed");
    assert!(name.contains("unknown dump"), "{name}");
    assert_eq!(map.meta.name, "Puyo Puyo (J), 1P Endless");
}

#[test]
fn the_command_line_reports_a_bad_rom_without_panicking() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_puyobot"))
        .args(["play", "--rom", "/nonexistent/x.nes", "--headless", "--frames", "1", "--config", "/dev/null"])
        .output()
        .expect("run puyobot");
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("error: ROM file /nonexistent/x.nes does not exist"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
}

/// The ROM may come first, as emulator front ends take it; the positional form reaches the same checks.
#[test]
fn the_rom_may_be_given_as_a_positional_argument() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_puyobot"))
        .args(["play", "/nonexistent/y.nes", "--headless", "--frames", "1", "--config", "/dev/null"])
        .output()
        .expect("run puyobot");
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("error: ROM file /nonexistent/y.nes does not exist"), "{err}");
    let both = std::process::Command::new(env!("CARGO_BIN_EXE_puyobot"))
        .args(["play", "a.nes", "--rom", "b.nes", "--headless", "--frames", "1"])
        .output()
        .expect("run puyobot");
    assert!(!both.status.success());
    assert!(String::from_utf8_lossy(&both.stderr).contains("cannot be used with"), "two ROMs must be refused");
}

/// `play --config PATH`.
fn with_config(path: PathBuf) -> PlayArgs {
    let mut args = PlayArgs::default();
    args.session.setup.config = Some(path);
    args
}

#[test]
fn a_malformed_config_names_the_file_the_key_and_what_was_expected() {
    let path = tmp("bad-config.toml", b"[play]\nspeed = \"fast\"\n");
    let e = merged_config(&with_config(path.clone())).unwrap_err().to_string();
    assert!(e.contains(&path.display().to_string()) && e.contains("play.speed"), "{e}");
    assert!(e.contains("expected u8"), "{e}");
    let path = tmp("bad-bot.toml", b"[bots]\np1 = \"deep-blue\"\n");
    let e = merged_config(&with_config(path)).unwrap_err().to_string();
    assert!(e.contains("bots.p1") && e.contains("chain"), "{e}");
    // The bots' settings are AI profiles: an [ai] table in config.toml is named, with where they went.
    let path = tmp("bad-ai.toml", b"[ai.chain]\nchain = 1.0\n");
    let e = merged_config(&with_config(path.clone())).unwrap_err().to_string();
    assert!(e.contains(&path.display().to_string()) && e.contains(": ai: "), "{e}");
    assert!(e.contains("unknown field") && e.contains("AI profiles"), "{e}");
    let path = tmp("bad-keys.toml", b"[keys]\npause = \"Pasue\"\n");
    let e = merged_config(&with_config(path.clone())).unwrap_err().to_string();
    assert!(e.contains(&path.display().to_string()) && e.contains("keys.pause") && e.contains("Valid names"), "{e}");
    let e = merged_config(&with_config("/nonexistent/config.toml".into())).unwrap_err().to_string();
    assert!(e.contains("/nonexistent/config.toml"), "{e}");
}

#[test]
fn the_shipped_config_toml_parses_to_the_defaults() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("config.toml");
    let cfg = Config::load(&path, true).expect("config.toml");
    assert_eq!(cfg.play, Config::default().play);
    assert_eq!(cfg.bots, Config::default().bots);
    assert_eq!(cfg.keys, puyobot::ui::KeyBindings::default(), "[keys] documents the window's defaults");
    assert_eq!(cfg, Config::default());
}

fn builtin(rel: &str) -> String {
    AddressSource::Builtin.read(rel).unwrap().1
}

#[test]
fn every_built_in_address_file_is_valid() {
    let cat = AddressSource::Builtin.catalog().expect("roms.toml");
    for rom in &cat.rom {
        for f in [&rom.modes.endless, &rom.modes.vs_human, &rom.modes.ai_vs_ai] {
            let map = AddressSource::Builtin.address_file(f).unwrap_or_else(|e| panic!("{e}"));
            assert!(!map.meta.source.is_empty());
        }
    }
    // The repository's folder holds the same files as the binary.
    let dir = AddressSource::Dir(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("addresses"));
    for (rel, text) in puyobot::memmap::catalog::BUILTIN {
        assert_eq!(&dir.read(rel).unwrap().1, text, "{rel}");
    }
}

#[test]
fn an_address_file_missing_a_key_is_refused_with_the_key() {
    let text = builtin("1p-endless.toml").replace("x = { addr = 0x0669", "# x removed\nxx_unused = { addr = 0x0669");
    let e = parse_address_file("my.toml", &text).unwrap_err();
    assert!(e.to_string().starts_with("my.toml:"), "{e}");
    // Either the unknown key or the missing one is named.
    assert!(e.key == "xx_unused" || e.key == "x", "{e}");
    let text = builtin("1p-endless.toml").replace(
        "x = { addr = 0x0669, source = \"Data Crystal RAM map: falling pair X, 1..6\", verified = false }\n",
        "",
    );
    let e = parse_address_file("my.toml", &text).unwrap_err();
    assert_eq!(e.key, "x", "{e}");
    assert!(e.to_string().contains("missing field `x`"), "{e}");
}

#[test]
fn an_address_outside_ram_is_refused_with_the_key() {
    let text = builtin("2p.toml").replace("orientation = { addr = 0x06D6", "orientation = { addr = 0x0800");
    let e = parse_address_file("my.toml", &text).unwrap_err();
    assert_eq!(e.key, "player[2].orientation.addr", "{e}");
    assert!(e.to_string().contains("$0800 is outside RAM"), "{e}");
    let text = builtin("1p-endless.toml").replace("base = 0x0300", "base = 0x0790");
    let e = parse_address_file("my.toml", &text).unwrap_err();
    assert_eq!(e.key, "player[1].field.base", "{e}");
}

#[test]
fn a_code_used_twice_is_refused_with_both_keys() {
    let text = builtin("1p-endless.toml").replace("nuisance = 7", "nuisance = 3");
    let e = parse_address_file("my.toml", &text).unwrap_err();
    assert_eq!(e.key, "codes.nuisance", "{e}");
    assert!(e.to_string().contains("already used by codes.colors[2]"), "{e}");
    let text = builtin("1p-endless.toml").replace("left = 1\n", "left = 2\n");
    let e = parse_address_file("my.toml", &text).unwrap_err();
    assert!(e.key.starts_with("orientation."), "{e}");
}

#[test]
fn a_bad_menu_step_is_refused() {
    let text = builtin("1p-endless.toml")
        .replace("{ press = [\"START\"], note = \"title screen\" }", "{ press = [\"TURBO\"] }");
    let e = parse_address_file("my.toml", &text).unwrap_err();
    assert_eq!(e.key, "menu.steps[2].press", "{e}");
}
