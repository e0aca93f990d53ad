//! The open cartridge in FCEUX, under Xvfb, driven by puyobot through `plugins/fceux.lua`. A missing
//! `fceux` or `xvfb-run` fails these tests unless `PUYOBOT_SKIP_MISSING_TOOLS` is set (`common::tools`).
//! FCEUX keeps its configuration under `$HOME/.fceux`; each run gets a fresh home.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use puyobot::emu::remote::proto::{self, kind};

/// The FCEUX binary, or `None` (after failing or skipping `test`) when it is not installed.
fn fceux(test: &str) -> Option<PathBuf> {
    if !crate::common::tools::xvfb_run(test) {
        return None;
    }
    let found = ["/usr/games/fceux", "/usr/bin/fceux"].iter().map(PathBuf::from).find(|p| p.exists());
    if found.is_none() {
        crate::common::tools::missing("fceux", "apt-get install fceux lua-socket", test);
    }
    found
}

fn fresh_home(name: &str) -> PathBuf {
    let home = std::env::temp_dir().join(format!("puyobot-fceux-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&home);
    std::fs::create_dir_all(&home).unwrap();
    home
}

/// `xvfb-run -a puyobot play --emulator fceux ARGS` with FCEUX at maximum speed and no sound.
fn play_in_fceux(exe: &Path, home: &Path, args: &[&str]) -> Output {
    let _x = crate::common::xvfb::lock();
    Command::new("xvfb-run")
        .args(["-a", env!("CARGO_BIN_EXE_puyobot"), "play", "--emulator", "fceux", "--mute", "--emu-speed", "max"])
        .args(args)
        .env("HOME", home)
        .env("PUYOBOT_FCEUX", exe)
        .output()
        .expect("run xvfb-run")
}

fn report(o: &Output) -> serde_json::Value {
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("not JSON ({e}); stderr: {err}"))
}

#[test]
fn endless_in_fceux_chains_without_mismatches_and_replays_pad_for_pad() {
    let Some(exe) = fceux("serve_fceux::endless_in_fceux_chains_without_mismatches_and_replays_pad_for_pad") else {
        return;
    };
    let home = fresh_home("endless");
    let trace = home.join("fceux.trace");
    let o = play_in_fceux(
        &exe,
        &home,
        &["--mode", "endless", "--pieces", "100", "--seed", "3", "--json", "--record", trace.to_str().unwrap()],
    );
    let r = report(&o);
    let p = &r["players"][0];
    assert_eq!(p["pieces"], 100, "{r}");
    assert_eq!(p["mismatches"], 0, "{r}");
    assert!(p["largest_chain"].as_u64().unwrap() >= 8, "{r}");
    assert_eq!(r["calibration"]["state"], "settled", "{r}");
    assert!(r["remote"]["emulator"].as_str().unwrap().starts_with("FCEUX"), "{r}");
    assert_eq!(r["remote"]["end"], "done");
    assert!(r["remote"]["round_trip_ms"]["p99"].as_f64().unwrap() > 0.0);
    // The frame alignment: the built-in emulator, given the same seed, presses the same pads on every frame
    // of the FCEUX run and ends on the same RAM (pads set for frame N act on frame N in both).
    let replay = Command::new(env!("CARGO_BIN_EXE_puyobot"))
        .args(["replay", "--headless", trace.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(replay.status.success(), "{}", String::from_utf8_lossy(&replay.stderr));
    let _ = std::fs::remove_dir_all(&home);
}

#[test]
fn ai_vs_ai_in_fceux_plays_to_a_winner() {
    let Some(exe) = fceux("serve_fceux::ai_vs_ai_in_fceux_plays_to_a_winner") else { return };
    let home = fresh_home("aivai");
    let o = play_in_fceux(&exe, &home, &["--mode", "ai-vs-ai", "--seed", "3", "--json", "--frames", "20000"]);
    let r = report(&o);
    assert!(r["winner"].is_string(), "{r}");
    assert_eq!(r["game_over"], true, "{r}");
    for p in r["players"].as_array().unwrap() {
        assert!(p["pieces"].as_u64().unwrap() >= 10, "both sides place: {r}");
        assert_eq!(p["mismatches"], 0, "{r}");
    }
    assert_eq!(r["remote"]["end"], "done: game over");
    let _ = std::fs::remove_dir_all(&home);
}

/// Starts FCEUX with the plug-in pointed at `port`, closing itself when the engine stops; its stderr (the
/// script's status lines) goes to a file in `home`.
fn start_script(exe: &Path, home: &Path, port: u16) -> std::process::Child {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("plugins/fceux.lua");
    let rom = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/labcart/puyolab.nes");
    let log = std::fs::File::create(home.join("fceux.log")).unwrap();
    Command::new("xvfb-run")
        .args(["-a", exe.to_str().unwrap(), "--sound", "0", "--loadlua"])
        .arg(script)
        .arg(rom)
        .env("HOME", home)
        .env("PUYOBOT_PORT", port.to_string())
        .env("PUYOBOT_SPEED", "maximum")
        .env("PUYOBOT_EXIT_ON_STOP", "1")
        .stdout(Stdio::null())
        .stderr(log)
        .spawn()
        .expect("start FCEUX")
}

fn wait_exit(child: &mut std::process::Child, secs: u64) -> bool {
    let deadline = Instant::now() + Duration::from_secs(secs);
    while Instant::now() < deadline {
        if let Ok(Some(_)) = child.try_wait() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let _ = child.kill();
    let _ = child.wait();
    false
}

#[test]
fn the_script_lets_go_when_the_engine_is_killed_or_talks_garbage() {
    let Some(exe) = fceux("serve_fceux::the_script_lets_go_when_the_engine_is_killed_or_talks_garbage") else {
        return;
    };
    let _x = crate::common::xvfb::lock();
    // The engine killed mid-game: the script says so and (told to) closes FCEUX.
    let home = fresh_home("killed");
    let mut engine = Command::new(env!("CARGO_BIN_EXE_puyobot"))
        .args(["serve", "--listen", "127.0.0.1:0", "--mode", "ai-vs-ai", "--wait", "60"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut err = std::io::BufReader::new(engine.stderr.take().unwrap());
    let mut line = String::new();
    std::io::BufRead::read_line(&mut err, &mut line).unwrap();
    let port: u16 = line.split("127.0.0.1:").nth(1).and_then(|r| r.split(';').next()).unwrap().parse().unwrap();
    let mut fceux = start_script(&exe, &home, port);
    line.clear();
    std::io::BufRead::read_line(&mut err, &mut line).unwrap();
    assert!(line.contains("connected"), "{line}");
    std::thread::sleep(Duration::from_millis(1500));
    engine.kill().unwrap();
    let _ = engine.wait();
    assert!(wait_exit(&mut fceux, 20), "FCEUX did not close after the engine went away");
    let log = std::fs::read_to_string(home.join("fceux.log")).unwrap();
    assert!(log.contains("puyobot: connected: puyolab"), "{log}");
    assert!(log.contains("puyobot: stopped: the engine went away"), "{log}");

    // An engine that answers a frame with garbage: the script stops and says why.
    let home = fresh_home("garbage");
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let mut fceux = start_script(&exe, &home, port);
    listener.set_nonblocking(true).unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut s = loop {
        match listener.accept() {
            Ok((s, _)) => break s,
            Err(_) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(50)),
            Err(e) => {
                let _ = fceux.kill();
                panic!("FCEUX's script did not connect within 60 s: {e}");
            }
        }
    };
    s.set_nonblocking(false).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    let (k, hello) = proto::read_raw(&mut s).unwrap();
    assert_eq!(k, kind::HELLO);
    assert!(String::from_utf8_lossy(&hello).contains("prg=16384\nchr=8192\n"));
    let (k, rom) = proto::read_raw(&mut s).unwrap();
    assert_eq!((k, rom.as_slice()), (kind::ROM, &puyobot::emu::rom::LABCART[16..]));
    proto::write_msg(&mut s, kind::WELCOME, &proto::welcome_payload(&[1, 2], "test")).unwrap();
    let (k, frame) = proto::read_raw(&mut s).unwrap();
    assert_eq!((k, frame.len()), (kind::FRAME, 2052));
    std::io::Write::write_all(&mut s, b"HTTP/1.1 200 OK\r\n\r\n").unwrap();
    assert!(wait_exit(&mut fceux, 20), "FCEUX did not close after a garbage message");
    let log = std::fs::read_to_string(home.join("fceux.log")).unwrap();
    assert!(log.contains("puyobot: stopped: bad message from the engine (kind 0x48)"), "{log}");
    let _ = std::fs::remove_dir_all(&home);
}
