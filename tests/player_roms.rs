//! The ROM table against the files: the labcart hashes in addresses/roms.toml match the committed
//! cartridges, and the real cartridge (when `PUYO_ROM` names a dump) is identified and booted.

use std::path::PathBuf;

use puyobot::config::{Config, Mode};
use puyobot::emu::{Emu, RomImage};
use puyobot::memmap::AddressSource;
use puyobot::play::{Limits, Session, headless, seats_for};

#[test]
fn labcart_hashes_match_the_committed_files() {
    let dir = std::env::var_os("PUYOBOT_LABCART_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/labcart"));
    let cat = AddressSource::Builtin.catalog().unwrap();
    for (file, name) in [
        ("puyolab.nes", "puyolab (open test cartridge)"),
        ("puyolab-fixed.nes", "puyolab-fixed (open test cartridge, fixed seed)"),
        ("puyolab-codes.nes", "puyolab-codes (open test cartridge, other codes)"),
        ("puyolab-orient.nes", "puyolab-orient (open test cartridge, other orientation values)"),
    ] {
        let path = dir.join(file);
        if !path.exists() {
            eprintln!("SKIPPED: {} not found (the labcart is not merged yet)", path.display());
            continue;
        }
        let img = RomImage::from_path(&path).unwrap();
        let known = cat.identify(&img).unwrap_or_else(|e| panic!("update addresses/roms.toml: {e}"));
        assert_eq!(known.name, name);
    }
}

#[test]
fn the_real_cartridge_is_identified_and_boots_through_the_menu_script() {
    let Some(path) = std::env::var_os("PUYO_ROM") else {
        eprintln!("SKIPPED: set PUYO_ROM to a Puyo Puyo (J) dump to run this test");
        return;
    };
    let img = RomImage::from_path(std::path::Path::new(&path)).expect("PUYO_ROM");
    let source = AddressSource::Builtin;
    let known = source.catalog().unwrap().identify(&img).expect("PUYO_ROM is not the known dump").clone();
    assert_eq!(known.name, "Puyo Puyo (J)");
    let map = source.address_file(known.modes.for_mode(Mode::Endless)).unwrap();
    let mut cfg = Config::default();
    cfg.bots.p1 = "greedy".into();
    let seats = seats_for(Mode::Endless, &map, &cfg, false).unwrap();
    let mut s = Session::new(Emu::new(&img, true).unwrap(), map, Mode::Endless, seats, true);
    let limits = Limits { frames: Some(20_000), pieces: Some(30), stop_at_game_over: true, ..Limits::default() };
    // The address file is a best guess: report what happened rather than insist.
    match headless::run(&mut s, limits, "Puyo Puyo (J)", 1, 10) {
        Ok(r) => eprintln!("{}", r.to_text()),
        Err(e) => eprintln!("the real cartridge did not reach the game: {e}"),
    }
}
