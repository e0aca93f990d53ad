//! The player on the open test cartridge: endless with each variant, AI vs AI to a winner, vs-human keys.
//!
//! The cartridge files are committed in `src/labcart/`; a missing file is a failure.

use std::path::PathBuf;

use puyobot::config::{Config, Mode};
use puyobot::emu::{Emu, Machine, RomImage, pad};
use puyobot::memmap::AddressSource;
use puyobot::play::{Limits, Session, Summary, headless, seats_for};

fn rom(name: &str) -> RomImage {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src/labcart").join(name);
    RomImage::from_path(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A session as `puyobot play` builds it: identified by hash, address file for the mode, menus walked.
fn session(image: &RomImage, mode: Mode, speed: u8) -> Session<Emu> {
    session_with(image, mode, speed, false)
}

fn session_with(image: &RomImage, mode: Mode, speed: u8, threaded: bool) -> Session<Emu> {
    session_bots(image, mode, speed, threaded, ["greedy", "greedy"])
}

fn session_bots(image: &RomImage, mode: Mode, speed: u8, threaded: bool, bots: [&str; 2]) -> Session<Emu> {
    let source = AddressSource::Builtin;
    let catalog = source.catalog().expect("roms.toml");
    let known = catalog.identify(image).expect("the labcart is in roms.toml");
    let map = source.address_file(known.modes.for_mode(mode)).expect("address file");
    let mut cfg = Config::default();
    // The two-ply search: these games test the session, not the bot's strength.
    cfg.bots.profile = "two-ply".into();
    cfg.play.speed = speed;
    cfg.bots.p1 = bots[0].into();
    cfg.bots.p2 = bots[1].into();
    // Pinned rather than the defaults: the chain-building and winner assertions rely on full strength and
    // on the seed of the deal.
    cfg.bots.strength = puyobot::ai::Levels::parse("10").expect("strength");
    cfg.play.seed = 1;
    cfg.lab.threaded_bots = threaded;
    let seats = seats_for(mode, &map, &cfg.seat_config()).expect("seats");
    Session::builder(Emu::new(image, true).expect("emulator"), map, mode, seats)
        .walk_menu(true)
        .build()
        .expect("session")
}

fn endless(name: &str) -> Summary {
    let image = rom(name);
    let mut s = session(&image, Mode::Endless, 10);
    let limits = Limits { frames: Some(60_000), pieces: Some(150), stop_at_game_over: true, ..Limits::default() };
    let r = headless::run(&mut s, limits, name, 1, 10).expect("run");
    eprintln!("{}", r.to_text());
    r
}

fn assert_clean_endless(r: &Summary) {
    let p = &r.players[0];
    assert!(p.pieces >= 150, "{p:?}");
    assert_eq!(p.mismatches, 0, "{p:?}");
    assert!(p.checks() >= 149, "{p:?}");
    assert!(!p.topped_out, "{p:?}");
    assert_eq!(p.score_source(), "ram");
}

#[test]
fn endless_150_pieces_on_the_contract_build() {
    assert_clean_endless(&endless("puyolab.nes"));
}

#[test]
fn endless_150_pieces_with_other_codes() {
    assert_clean_endless(&endless("puyolab-codes.nes"));
}

#[test]
fn endless_150_pieces_with_other_orientation_values() {
    assert_clean_endless(&endless("puyolab-orient.nes"));
}

#[test]
fn vs_human_keys_move_player_one_while_the_bot_plays_player_two() {
    let image = rom("puyolab.nes");
    let mut s = session(&image, Mode::VsHuman, 10);
    let mut guard = 0;
    while !s.snapshot().is_some_and(|snap| snap.players.first().is_some_and(|p| p.controllable)) {
        s.step_frame().expect("frame");
        guard += 1;
        assert!(guard < 2000, "no controllable piece for P1");
    }
    assert_eq!(s.machine().ram()[0x6F], 2, "2P mode selected by the menu script");
    let x0 = s.machine().ram()[0x669];
    // The person presses Left, then A, on pad 1.
    s.set_keyboard_pad(0, pad::LEFT);
    s.step_frame().unwrap();
    s.set_keyboard_pad(0, 0);
    s.step_frame().unwrap();
    assert_eq!(s.machine().ram()[0x669], x0 - 1, "Left moved P1's pair");
    let o0 = s.machine().ram()[0x6D5];
    s.set_keyboard_pad(0, pad::A);
    s.step_frame().unwrap();
    s.set_keyboard_pad(0, 0);
    s.step_frame().unwrap();
    assert_ne!(s.machine().ram()[0x6D5], o0, "A rotated P1's pair");
    for _ in 0..2000 {
        s.step_frame().unwrap();
    }
    assert!(!s.seats[0].bot_on);
    assert!(s.seats[1].stats.pieces >= 15, "the bot plays P2: {:?}", s.seats[1].stats);
    assert_eq!(s.seats[1].stats.mismatches, 0);
    assert!(s.seats[1].stats.pieces > 2 * s.seats[0].stats.pieces, "P1 only falls by gravity");
}

#[test]
fn headless_games_replay_identically_with_bots_on_worker_threads() {
    let image = rom("puyolab.nes");
    let mut results = Vec::new();
    for threaded in [false, true] {
        let mut s = session_with(&image, Mode::AiVsAi, 7, threaded);
        let limits = Limits { frames: Some(3000), pieces: None, stop_at_game_over: true, ..Limits::default() };
        let r = headless::run(&mut s, limits, "puyolab", 1, 7).expect("run");
        let fields: Vec<_> = s.snapshot().unwrap().players.iter().map(|p| p.field).collect();
        let stats: Vec<_> = r.players.iter().map(|p| (p.pieces, p.score, p.chains, p.mismatches)).collect();
        results.push((r.frames, stats, fields));
    }
    assert!(results[0].1.iter().all(|p| p.0 > 20), "{:?}", results[0].1);
    assert_eq!(results[0], results[1]);
}

/// A full AI-vs-AI game to a winner (the one long game of this file: it also stands for the greedy
/// bots' game to a winner, which this test replaced to keep CI short).
#[test]
fn the_chain_bot_beats_the_classic_bot_on_the_cartridge_with_no_mismatch() {
    let image = rom("puyolab.nes");
    let mut s = session_bots(&image, Mode::AiVsAi, 10, false, ["chain", "classic"]);
    let limits = Limits { frames: Some(200_000), pieces: None, stop_at_game_over: true, ..Limits::default() };
    let r = headless::run(&mut s, limits, "puyolab", 1, 10).expect("run");
    eprintln!("{}", r.to_text());
    assert!(r.game_over, "no winner after {} frames", r.frames);
    assert_eq!(r.winner.as_deref(), Some("P1"), "chain (P1) should beat classic (P2)");
    for p in &r.players {
        assert_eq!(p.mismatches, 0, "{p:?}");
        assert!(p.pieces > 10, "{p:?}");
        assert_eq!(p.topped_out, p.label != "P1", "only the loser topped out: {p:?}");
    }
    assert!(r.players[0].largest_chain >= 3, "the chain bot builds chains: {:?}", r.players[0]);
    // The cartridge agrees: game state 3 (over), winner byte 1.
    let ram = s.machine().ram();
    assert_eq!(ram[0x92], 3);
    assert_eq!(ram[0x93], 1);
}
