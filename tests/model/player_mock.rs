//! The session, driver and verifier against the software model of the RAM contract (no cartridge needed).

use puyobot::config::{Config, Mode};
use puyobot::emu::Machine;
use puyobot::emu::mock::MockGame;
use puyobot::memmap::AddressSource;
use puyobot::play::{Limits, Session, headless, seats_for};

fn session(mode: Mode, speed: u8) -> Session<MockGame> {
    let file = match mode {
        Mode::Endless => "labcart/1p-endless.toml",
        Mode::VsHuman => "labcart/2p.toml",
        Mode::AiVsAi => "labcart/ai-vs-ai.toml",
    };
    let map = AddressSource::Builtin.address_file(file).expect("built-in address file");
    let mut cfg = Config::default();
    // The two-ply search: these games test the session, not the bot's strength.
    cfg.bots.profile = "two-ply".into();
    cfg.play.speed = speed;
    cfg.bots.p1 = "greedy".into();
    cfg.bots.p2 = "greedy".into();
    cfg.lab.threaded_bots = false;
    let seats = seats_for(mode, &map, &cfg.seat_config()).expect("seats");
    let players = map.player.len();
    Session::builder(MockGame::new(players, 4, 7), map, mode, seats).build().expect("session")
}

#[test]
fn endless_on_the_model_plays_300_pieces_without_a_mismatch() {
    let mut s = session(Mode::Endless, 10);
    let limits = Limits { frames: Some(200_000), pieces: Some(300), stop_at_game_over: true, ..Limits::default() };
    let r = headless::run(&mut s, limits, "mock", 1, 10).expect("run");
    eprintln!("{}", r.to_text());
    let p = &r.players[0];
    assert!(p.pieces >= 300, "{p:?}");
    assert_eq!(p.mismatches, 0);
    assert!(p.checks() >= 299);
    assert!(!p.topped_out);
}

#[test]
fn slow_speed_still_places_pieces_where_the_bot_wants() {
    let mut s = session(Mode::Endless, 0);
    let limits = Limits { frames: Some(100_000), pieces: Some(40), stop_at_game_over: true, ..Limits::default() };
    let r = headless::run(&mut s, limits, "mock", 1, 0).expect("run");
    assert!(r.players[0].pieces >= 40);
    assert_eq!(r.players[0].mismatches, 0);
}

#[test]
fn ai_vs_ai_on_the_model_runs_both_pads_and_a_game_that_sends_no_nuisance_stops_naming_the_2p_rules() {
    let mut s = session(Mode::AiVsAi, 10);
    let limits = Limits { frames: Some(20_000), pieces: Some(60), stop_at_game_over: true, ..Limits::default() };
    let r = headless::run(&mut s, limits, "mock", 1, 10).expect("run");
    let text = r.to_text();
    for p in &r.players {
        assert!(p.pieces >= 5, "both pads play: {p:?}\n{text}");
        assert_eq!(p.mismatches, 0);
    }
    // The software model sends no nuisance in 2P, whatever the chains score: the 2P rules watch must not
    // call that game healthy, and names the rules.
    assert!(text.contains("2P rules") && text.contains("no 2P rule set explains"), "{text}");
}

#[test]
fn vs_human_keys_move_player_one_while_the_bot_plays_player_two() {
    let mut s = session(Mode::VsHuman, 10);
    // Wait for both pieces to spawn.
    while !s.snapshot().is_some_and(|snap| snap.players.iter().all(|p| p.controllable)) {
        s.step_frame().unwrap();
    }
    let x0 = s.machine().ram()[0x669];
    s.set_keyboard_pad(0, puyobot::emu::pad::LEFT);
    s.step_frame().unwrap();
    s.set_keyboard_pad(0, 0);
    s.step_frame().unwrap();
    assert_eq!(s.machine().ram()[0x669], x0 - 1, "player 1 moved left by the keyboard");
    for _ in 0..3000 {
        s.step_frame().unwrap();
    }
    assert!(s.seats[1].stats.pieces > 10, "the bot plays P2: {:?}", s.seats[1].stats);
    assert!(!s.seats[0].bot_on, "no bot on the person's pad");
    assert!(s.seats[1].stats.pieces > s.seats[0].stats.pieces, "P1 only falls by gravity");
}
