//! Bot processes (`exec:CMD`, docs/bot-protocol.md) on the open test cartridge: the reference bot plays
//! 100 pieces of Endless headless without a model mismatch and a whole AI-vs-AI game against `chain`; a
//! bot that stops answering stops the run naming it, keeps the report and the bug-report folder, and its
//! process is gone.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use serde_json::Value;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn simple_bot() -> String {
    format!("exec:python3 {}", root().join("examples/bots/simple.py").display())
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("puyobot-botprocess-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch folder");
    dir
}

fn play(data: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_puyobot"))
        .args(["play", "--headless", "--speed", "10", "--config", "/dev/null", "--json"])
        .args(args)
        .env("PUYOBOT_DATA_DIR", data)
        .output()
        .expect("the puyobot binary runs")
}

fn json(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("JSON report ({e}): {}", String::from_utf8_lossy(&out.stderr)))
}

#[test]
fn the_reference_bot_plays_100_pieces_of_endless_without_a_mismatch() {
    let dir = scratch("endless");
    let bot = simple_bot();
    let out = play(&dir, &["--mode", "endless", "--pieces", "100", "--seed", "3", "--p1-ai", &bot]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    let p = &json(&out)["players"][0];
    assert_eq!(p["bot"], "simple.py", "the HUD and the report name the bot by its info: {p}");
    assert_eq!(p["mismatches"], 0, "{p}");
    assert_eq!(p["pieces"], 100, "{p}");
}

#[test]
fn the_reference_bot_plays_a_whole_game_against_chain() {
    let dir = scratch("versus");
    let bot = simple_bot();
    let out = play(&dir, &["--fast", "--mode", "ai-vs-ai", "--games", "1", "--seed", "5", "--p1-ai", &bot]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    let r = json(&out);
    let game = &r["games"][0];
    let players = game["players"].as_array().expect("players");
    assert_eq!(players.len(), 2, "{r}");
    for p in players {
        assert_eq!(p["mismatches"], 0, "{p}");
        assert!(p["pieces"].as_u64().unwrap_or(0) >= 10, "a real game: {p}");
    }
    assert!(players.iter().any(|p| p["topped_out"] == true), "the game ran to its end: {game}");
}

#[test]
fn a_bot_that_stops_answering_stops_the_run_naming_it_and_keeps_the_bug_report() {
    let dir = scratch("silent");
    let script = dir.join("bot.py");
    let pids = dir.join("pids");
    std::fs::write(
        &script,
        r#"import json, os, sys, time
with open(sys.argv[1], "a") as f:
    f.write(str(os.getpid()) + "\n")
def send(m):
    print(json.dumps(m), flush=True)
send({"type": "info", "name": "sleepy", "protocol": 1})
moves = 0
for line in sys.stdin:
    kind = json.loads(line)["type"]
    if kind == "rules":
        send({"type": "ready"})
    elif kind == "suggest":
        moves += 1
        if moves > 5:
            time.sleep(60)
        send({"type": "suggestion", "moves": [{"x": x, "orientation": "up"} for x in (1, 2, 4, 5, 6)]})
"#,
    )
    .expect("write the bot");
    let bot = format!("exec:python3 {} {}", script.display(), pids.display());
    let data = dir.join("data");
    let started = Instant::now();
    let out = play(&data, &["--mode", "endless", "--pieces", "50", "--p1-ai", &bot]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{err}");
    assert!(started.elapsed() < Duration::from_secs(60), "ended in {:?}", started.elapsed());
    assert!(err.contains("bot \"sleepy\"") && err.contains("sent no suggestion within 1000 ms"), "{err}");
    let report = json(&out);
    assert!(report.to_string().contains("sent no suggestion"), "the report says why: {report}");
    let bundles = std::fs::read_dir(data.join("bug-reports")).map(|d| d.count()).unwrap_or(0);
    assert_eq!(bundles, 1, "a bug-report folder: {err}");
    for pid in std::fs::read_to_string(&pids).expect("pids").lines() {
        assert!(!Path::new(&format!("/proc/{pid}")).exists(), "bot process {pid} is still there");
    }
}

/// The window's session (its bots on worker threads with the window's budget, frames stepped as the
/// window steps them): the reference bot as a process plays 100 pieces of Endless without a mismatch, and
/// the HUD names it by its `info`.
#[test]
fn the_reference_bot_plays_100_pieces_in_the_windows_session_without_a_mismatch() {
    use puyobot::config::{Config, Mode};
    use puyobot::emu::{Emu, rom};
    use puyobot::memmap::AddressSource;
    use puyobot::play::{Session, seats_for};
    use puyobot::ui::Viewable;
    use puyobot::ui::session_view::WindowSession;

    let image = rom::labcart().expect("built-in labcart");
    let source = AddressSource::Builtin;
    let known = source.catalog().unwrap().identify(&image).unwrap().clone();
    let map = source.address_file(known.modes.for_mode(Mode::Endless)).unwrap();
    let mut cfg = Config::default();
    cfg.bots.p1 = simple_bot();
    cfg.play.speed = 10;
    cfg.lab.threaded_bots = true;
    let seats = seats_for(Mode::Endless, &map, &cfg.window_seat_config()).expect("the bot starts");
    let states = std::env::temp_dir().join(format!("puyobot-botprocess-states-{}", std::process::id()));
    let session =
        Session::builder(Emu::new(&image, false).unwrap(), map, Mode::Endless, seats).walk_menu(true).build().unwrap();
    let mut v = WindowSession::with_state_dir(session, &states);
    let mut frames = 0;
    while v.session.seats[0].stats.pieces < 100 {
        v.step_frame().unwrap();
        frames += 1;
        assert!(frames < 60_000, "100 pieces within 60 000 frames: {:?}", v.session.seats[0].stats);
        assert!(v.session.health_failure().is_none(), "{:?}", v.session.health_failure());
    }
    let seat = &v.session.seats[0];
    assert_eq!(seat.stats.mismatches, 0, "{:?}", seat.stats);
    assert!(!seat.stats.topped_out, "{:?}", seat.stats);
    let label = &v.hud().players[0].label;
    assert!(label.ends_with("simple.py"), "the HUD names the bot by its info: {label}");
    let _ = std::fs::remove_dir_all(&states);
}

/// The real window under Xvfb with the reference bot on pad 1: it plays, and the window closes cleanly.
#[test]
fn the_reference_bot_plays_in_the_window_under_xvfb() {
    if !crate::common::tools::xvfb_run("bot_process::the_reference_bot_plays_in_the_window_under_xvfb") {
        return;
    }
    let dir = scratch("window");
    let shot = dir.join("exit.png");
    let xvfb = crate::common::xvfb::lock();
    let out = Command::new("xvfb-run")
        .args(["-a", "-s", "-screen 0 1024x768x24"])
        .arg(env!("CARGO_BIN_EXE_puyobot"))
        .args(["play", "--mode", "endless", "--emu-speed", "max", "--frames", "3000", "--config", "/dev/null"])
        .args(["--p1-ai", &simple_bot(), "--mute", "--screenshot-on-exit"])
        .arg(&shot)
        .env("PUYOBOT_DATA_DIR", dir.join("data"))
        .output()
        .expect("xvfb-run");
    drop(xvfb);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(!err.contains("bot \"simple.py\""), "the bot never failed: {err}");
    assert_eq!(&std::fs::read(&shot).expect("exit screenshot")[1..4], b"PNG");
}
