//! Matches on the open test cartridge: `--games N` plays game after game with the `[restart]` script,
//! reports each and a tally that adds up; `--seed` changes the deal through the menus' timing and the
//! same seed gives the same games; bad `[restart]` tables and impossible requests are refused clearly;
//! in a window a menu the script cannot walk is left to the person, and the bots take over.

use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;

use puyobot::config::{Config, Mode};
use puyobot::emu::{Emu, Machine, RomImage, pad};
use puyobot::memmap::AddressSource;
use puyobot::memmap::load::parse_address_file;
use puyobot::play::{Session, SessionBuilder, seats_for};
use serde_json::Value;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn puyobot(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_puyobot")).args(args).output().expect("the puyobot binary runs");
    (out.status.success(), String::from_utf8_lossy(&out.stdout).into(), String::from_utf8_lossy(&out.stderr).into())
}

/// `puyobot play --headless --mode ai-vs-ai --games N --seed S --json` on the built-in test cartridge.
pub fn match_json(games: u32, seed: u64) -> Value {
    let (games, seed) = (games.to_string(), seed.to_string());
    let out = crate::common::ai_vs_ai(&["--games", &games, "--seed", &seed]);
    let (ok, err) = (out.status.success(), String::from_utf8_lossy(&out.stderr));
    assert!(ok, "play --games {games} --seed {seed} failed: {err}");
    serde_json::from_slice(&out.stdout).expect("JSON report")
}

/// The three-game match of seed 11, shared by the tests that need it (it is the slow part).
pub fn three_games() -> &'static Value {
    static RUN: OnceLock<Value> = OnceLock::new();
    RUN.get_or_init(|| match_json(3, 11))
}

#[test]
fn three_games_ai_vs_ai_give_three_results_a_consistent_tally_and_no_mismatch() {
    let r = three_games();
    assert_eq!(r["seed"], 11, "the seed is recorded");
    let games = r["games"].as_array().expect("games array");
    assert_eq!(games.len(), 3, "{r}");
    let mut wins = std::collections::BTreeMap::<String, u64>::new();
    let mut draws = 0;
    let mut largest = std::collections::BTreeMap::<String, u64>::new();
    for (i, g) in games.iter().enumerate() {
        assert_eq!(g["game"], i as u64 + 1, "{g}");
        let players = g["players"].as_array().expect("players");
        assert_eq!(players.len(), 2, "{g}");
        for p in players {
            assert_eq!(p["mismatches"], 0, "game {}: {p}", i + 1);
            assert!(p["pieces"].as_u64().unwrap_or(0) >= 10, "a real game was played: {p}");
            let l = p["label"].as_str().unwrap_or_default().to_string();
            let c = p["largest_chain"].as_u64().unwrap_or(0);
            let best = largest.entry(l).or_insert(0);
            *best = (*best).max(c);
        }
        match g["result"].as_str() {
            Some("win") => {
                let w = g["winner"].as_str().expect("a win names its winner").to_string();
                for p in players {
                    assert_eq!(p["topped_out"].as_bool(), Some(p["label"] != w.as_str()), "game {}: {p}", i + 1);
                }
                *wins.entry(w).or_insert(0) += 1;
            }
            Some("draw") => draws += 1,
            other => panic!("game {} ended {other:?}: {g}", i + 1),
        }
        assert!(g["frames"].as_u64().unwrap_or(0) > 300, "{g}");
    }
    let t = &r["tally"];
    assert_eq!(t["games"], 3, "{t}");
    assert_eq!(t["draws"], draws, "{t}");
    assert_eq!(t["stopped"], 0, "{t}");
    assert_eq!(t["mismatches"], 0, "{t}");
    for label in ["P1", "P2"] {
        assert_eq!(t["wins"][label].as_u64(), Some(wins.get(label).copied().unwrap_or(0)), "{t}");
        assert_eq!(t["largest_chain"][label].as_u64(), largest.get(label).copied(), "{t}");
    }
    for p in r["players"].as_array().expect("players") {
        assert_eq!(p["mismatches"], 0, "{p}");
        let l = p["label"].as_str().unwrap_or_default();
        assert_eq!(p["largest_chain"].as_u64(), largest.get(l).copied(), "the run's largest chain: {p}");
    }
    assert!(r["game_over"].as_bool().unwrap_or(false), "{r}");
}

#[test]
fn the_same_seed_gives_the_same_games_and_another_seed_other_games() {
    let a = three_games();
    let same = match_json(1, 11);
    assert_eq!(same["games"][0], a["games"][0], "seed 11 again: the same first game");
    let other = match_json(1, 12);
    assert_ne!(other["games"][0], a["games"][0], "seed 12: another game");
    assert_ne!(other["ram_hash"], same["ram_hash"]);
}

/// The set-up of a session on the built-in test cartridge as `puyobot play` builds it, with `map`
/// (default: the mode's built-in file); each test adds its options.
fn lab_builder(mode: Mode, map_text: Option<&str>) -> SessionBuilder<Emu> {
    let image = RomImage::from_path(&root().join("src/labcart/puyolab.nes")).expect("the labcart ROM");
    let source = AddressSource::Builtin;
    let catalog = source.catalog().expect("roms.toml");
    let known = catalog.identify(&image).expect("the labcart is in roms.toml");
    let map = match map_text {
        Some(t) => parse_address_file("test.toml", t).expect("the test's address file"),
        None => source.address_file(known.modes.for_mode(mode)).expect("address file"),
    };
    let mut cfg = Config::default();
    // The two-ply search: these games test the session, not the bot's strength.
    cfg.bots.profile = "two-ply".into();
    cfg.bots.p1 = "greedy".into();
    cfg.bots.p2 = "greedy".into();
    cfg.lab.threaded_bots = false;
    let seats = seats_for(mode, &map, &cfg.seat_config()).expect("seats");
    Session::builder(Emu::new(&image, true).expect("emulator"), map, mode, seats).walk_menu(true)
}

/// Walks the menus with `seed` and returns the labcart's game seed ($009E/$009F, the frame counter at
/// the Start that began the game) and the first pairs dealt.
fn deal(seed: u64) -> (u16, [u8; 4]) {
    let mut s = lab_builder(Mode::Endless, None).seed(seed).build().expect("session");
    let mut guard = 0;
    while s.in_menus() {
        s.step_frame().expect("frame");
        guard += 1;
        assert!(guard < 3000, "no game after the menus");
    }
    let ram = s.machine().ram();
    (u16::from_le_bytes([ram[0x9E], ram[0x9F]]), [ram[0x679], ram[0x67D], ram[0x67], ram[0x68]])
}

#[test]
fn the_seed_changes_the_deal_through_the_menu_timing() {
    let one = deal(1);
    assert_eq!(deal(1), one, "the same seed, the same deal");
    let others: Vec<_> = [2, 3, 1000].into_iter().map(deal).collect();
    for (seed, d) in [2, 3, 1000].iter().zip(&others) {
        assert_ne!(d.0, one.0, "seed {seed} starts the game on another frame");
    }
    assert!(others.iter().any(|d| d.1 != one.1), "other seeds deal other pairs: {one:?} {others:?}");
}

fn labcart_file() -> String {
    std::fs::read_to_string(root().join("addresses/labcart/ai-vs-ai.toml")).expect("address file")
}

/// The labcart's AI-vs-AI file with its `[restart]` table replaced by `restart`.
fn with_restart(restart: &str) -> String {
    let text = labcart_file();
    let at = text.find("[restart]").expect("the labcart file has a [restart] table");
    format!("{}{restart}", &text[..at])
}

#[test]
fn malformed_restart_tables_name_the_file_the_key_and_the_expectation() {
    let head = "[restart]\nsource = \"test\"\nverified = false\n";
    let cases = [
        (format!("{head}steps = []\n"), "restart.steps", "at least one step"),
        (
            format!("{head}steps = [{{ wait = 5 }}, {{ wait = 5, press = [\"START\"] }}]\n"),
            "restart.steps[2]",
            "exactly one of",
        ),
        (format!("{head}steps = [{{ press = [\"TURBO\"] }}]\n"), "restart.steps[1].press", "unknown button"),
        (format!("{head}steps = [{{ seed_wait = 99999 }}]\n"), "restart.steps[1].seed_wait", "0..=3600"),
        (
            format!("{head}steps = [{{ seek = {{ addr = 0x0900, equals = 2 }} }}]\n"),
            "restart.steps[1].seek.addr",
            "outside RAM",
        ),
        (format!("{head}steps = [{{ wait = 5, colour = 3 }}]\n"), "colour", "unknown field"),
        ("[restart]\nverified = false\nsteps = []\n".to_string(), "source", "missing field"),
    ];
    for (table, key, expect) in cases {
        let e = parse_address_file("my-cart.toml", &with_restart(&table)).expect_err(&table);
        assert_eq!((e.file.as_str(), e.key.as_str()), ("my-cart.toml", key), "{e}");
        assert!(e.to_string().contains(expect), "{e}");
    }
    assert!(parse_address_file("ok.toml", &with_restart(&format!("{head}steps = [{{ seed_wait = 0 }}]\n"))).is_ok());
    let bad = labcart_file().replacen("addr = 0x0082, bytes = 2", "addr = 0x0082, bytes = 9", 1);
    let e = parse_address_file("my-cart.toml", &bad).expect_err("bytes = 9");
    assert_eq!(e.key, "player[1].pending_nuisance.bytes", "{e}");
}

#[test]
fn games_zero_is_refused_and_a_headless_match_needs_no_restart_script() {
    let (ok, _, err) = puyobot(&["play", "--headless", "--games", "0", "--config", "/dev/null"]);
    assert!(!ok);
    assert!(err.contains("--games 0"), "{err}");
    // A folder whose AI-vs-AI file has no [restart] table (only a window needs one, to go on after a
    // game over).
    let dir = std::env::temp_dir().join(format!("puyobot-norestart-{}", std::process::id()));
    let lab = dir.join("labcart");
    std::fs::create_dir_all(&lab).expect("temp dir");
    for entry in std::fs::read_dir(root().join("addresses/labcart")).expect("labcart folder") {
        let path = entry.expect("entry").path();
        let text = std::fs::read_to_string(&path).expect("read");
        let text = text.find("\n# From a game over").map_or(text.clone(), |at| text[..at + 1].to_string());
        std::fs::write(lab.join(path.file_name().expect("name")), text).expect("write");
    }
    std::fs::copy(root().join("addresses/roms.toml"), dir.join("roms.toml")).expect("roms.toml");
    let d = dir.display().to_string();
    // Headless, each game starts from its own power-on: no [restart] script is needed.
    let (ok, out, err) = puyobot(&[
        "play",
        "--headless",
        "--fast",
        "--games",
        "2",
        "--jobs",
        "2",
        "--speed",
        "10",
        "--addresses",
        &d,
        "--config",
        "/dev/null",
        "--json",
    ]);
    assert!(ok, "{err}");
    let r: Value = serde_json::from_str(&out).expect("JSON report");
    assert_eq!(r["games"].as_array().map(Vec::len), Some(2), "{r}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn in_a_window_a_failed_seek_leaves_the_menus_to_the_keys_and_the_bots_take_over() {
    // A menu script whose seek cannot succeed: the labcart's mode byte is 0 or 2, never 5.
    let text = labcart_file().replace(
        "  { press = [\"RIGHT\"], frames = 1, note = \"MODE: 1P ENDLESS -> 2P\" },",
        "  { seek = { addr = 0x006F, equals = 5 }, buttons = [\"RIGHT\"], presses = 2 },",
    );
    let mut s = lab_builder(Mode::AiVsAi, Some(&text)).manual_menu_fallback(true).build().expect("session");
    let mut frames = 0;
    while s.menu_error.is_none() {
        s.step_frame().expect("frame");
        frames += 1;
        assert!(frames < 2000, "the failed seek was not reported");
    }
    let e = s.menu_error.clone().unwrap_or_default();
    assert!(e.contains("$006F") && e.contains("keys"), "{e}");
    assert!(s.in_menus());
    // Nothing starts the game by itself: the script stopped rather than press Start into the wrong mode.
    for _ in 0..300 {
        s.step_frame().expect("frame");
    }
    assert!(s.in_menus());
    assert_eq!(s.machine().ram()[0x92], 1, "still on the mode select");
    // The person picks 2P if the script's presses left 1P, presses Start, and the bots play from the
    // first pair.
    let mut presses = vec![pad::START];
    if s.machine().ram()[0x6F] != 2 {
        presses.insert(0, pad::RIGHT);
    }
    for p in presses {
        s.set_keyboard_pad(0, p);
        s.step_frame().expect("frame");
        s.set_keyboard_pad(0, 0);
        s.step_frame().expect("frame");
    }
    for _ in 0..3000 {
        s.step_frame().expect("frame");
    }
    assert!(!s.in_menus());
    assert!(s.menu_error.is_none(), "the message goes once the game runs");
    for seat in &s.seats {
        assert!(seat.stats.pieces >= 5, "the bots took over: {:?}", seat.stats);
        assert_eq!(seat.stats.mismatches, 0);
    }
}
