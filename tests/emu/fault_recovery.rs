//! Recovery under pad faults: with presses lost, late and invented, the closed loop re-plans and the
//! `chain` bot plays 300 pieces of Endless on the open test cartridge, without a model mismatch, seeing
//! the presses the link invents, and still builds a real chain; and faults never reach the scripted menus, so the game played
//! is the one asked for.

use std::path::PathBuf;
use std::process::Command;

use puyobot::config::{Config, Mode};
use puyobot::emu::faults::{FaultSpec, FaultyPads};
use puyobot::emu::{Emu, Machine, RomImage};
use puyobot::memmap::AddressSource;
use puyobot::play::{Limits, Session, headless, seats_for};

/// Runs 300 faulty Endless pieces with `seed` and returns P1's report and the fault count.
fn faulty_endless(seed: &str) -> (serde_json::Value, u64) {
    let out = Command::new(env!("CARGO_BIN_EXE_puyobot"))
        .args([
            "play",
            "--headless",
            "--fast",
            "--mode",
            "endless",
            "--pieces",
            "300",
            "--faults",
            "drop=0.05,delay=2,extra=0.01",
            "--seed",
            seed,
            "--json",
        ])
        .output()
        .expect("the puyobot binary runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "seed {seed}: {}", String::from_utf8_lossy(&out.stderr));
    let json: serde_json::Value = serde_json::from_str(&stdout).expect("JSON report");
    let faults = json["faults_injected"].as_u64().expect("faults_injected");
    (json["players"][0].clone(), faults)
}

/// Seed 4 with the standard faulty link (`drop=0.05,delay=2,extra=0.01`) once stopped with "no piece locked
/// for 36000 frames" when faults reached the menus (they had turned the mode select to 2P).
#[test]
fn the_chain_bot_recovers_from_pad_faults_over_300_pieces() {
    let (p1, faults) = faulty_endless("4");
    assert!(faults > 0, "no fault was injected");
    assert_eq!(p1["bot"], "chain");
    assert_eq!(p1["mismatches"], 0, "{p1}");
    // The session plays all 300 pieces: the link invents presses (the driver sees the pair move with no
    // press in flight), so the bot keeps more room and no invented press on a lock frame tops it out.
    let pieces = p1["pieces"].as_u64().expect("pieces");
    assert!(pieces == 300 && p1["topped_out"] == false, "stopped after {pieces} pieces: {p1}");
    let unasked = p1["unasked_moves"].as_u64().expect("unasked_moves");
    assert!(unasked >= puyobot::play::seat::CAUTION_AFTER_UNASKED_MOVES, "the invented presses went unseen: {p1}");
    // Faults do happen to the plan: the driver re-planned, and reports where pieces went elsewhere.
    assert!(p1["replans"].as_u64().is_some_and(|r| r > 0), "{p1}");
    assert!(p1["off_plan"].as_u64().is_some_and(|o| o < 30), "{p1}");
    let largest = p1["largest_chain"].as_u64().expect("largest_chain");
    assert!(largest >= 8, "largest chain {largest}: {p1}");
}

/// The labcart's mode byte (0 = 1P Endless), item option (0 = off), colour count and game state (2 = play).
const MODE: usize = 0x006F;
const ITEMS: usize = 0x0090;
const COLOURS: usize = 0x0091;
const GAME_STATE: usize = 0x0092;

/// A link far worse than the standard one: 30 % of the frames carry a spurious d-pad or A / B press.
/// Faults belong to play: on the mode select such presses would change the mode and the options (seed 4
/// of the standard faults once started a 2P game there, whose idle P2 topped out while the endless
/// session waited for P1's next lock until it stalled). The game started must be the one asked for, with
/// the power-on options, whatever the seed.
#[test]
fn faults_leave_the_menus_alone_so_the_game_is_the_one_asked_for() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src/labcart/puyolab.nes");
    let image = RomImage::from_path(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let source = AddressSource::Builtin;
    let catalog = source.catalog().expect("roms.toml");
    let known = catalog.identify(&image).expect("the labcart is in roms.toml");
    let map = source.address_file(known.modes.for_mode(Mode::Endless)).expect("address file");
    let spec = FaultSpec::parse("drop=0.3,delay=2,extra=0.3").expect("fault spec");
    for seed in 1..=6u64 {
        let mut cfg = Config::default();
        // The two-ply search: these games test the session, not the bot's strength.
        cfg.bots.profile = "two-ply".into();
        cfg.bots.p1 = "greedy".into();
        cfg.play.speed = 10;
        let mut seat_cfg = cfg.seat_config();
        seat_cfg.threaded = false;
        let seats = seats_for(Mode::Endless, &map, &seat_cfg).expect("seats");
        let machine = FaultyPads::new(Emu::new(&image, true).expect("emulator"), spec, seed);
        let mut s = Session::builder(machine, map.clone(), Mode::Endless, seats)
            .walk_menu(true)
            .seed(seed)
            .build()
            .expect("session");
        let limits = Limits { pieces: Some(4), ..Limits::default() };
        let r = headless::run(&mut s, limits, "puyolab.nes", seed, 10).expect("run");
        assert!(!r.stalled && r.players[0].pieces >= 4, "seed {seed}: {:?}", r.players[0]);
        let m = s.machine();
        assert!(m.counts().total() > 20, "seed {seed}: faults hit play: {:?}", m.counts());
        let ram = m.ram();
        assert_eq!(
            (ram[MODE], ram[ITEMS], ram[COLOURS], ram[GAME_STATE]),
            (0, 0, 4, 2),
            "seed {seed}: 1P Endless, no items, 4 colours, in play"
        );
    }
}
