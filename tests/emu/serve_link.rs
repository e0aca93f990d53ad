//! `puyobot serve` against a reference emulator script written in Rust: the built-in emulator speaking the
//! protocol of docs/plugins.md. It checks that a served game is the game `play --headless` plays, and that
//! every broken link (garbage, a wrong RAM size, an oversized or truncated message, a silent or vanished
//! emulator, a second emulator, an unknown ROM) ends the run with a clear message, the report and the
//! trace so far, and a non-zero exit.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use puyobot::emu::remote::proto::{self, Hello, kind};
use puyobot::emu::{Emu, Machine, rom};

/// A running `puyobot serve` and the address it listens on.
struct Engine {
    child: Child,
    addr: String,
    stderr: mpsc::Receiver<String>,
}

impl Engine {
    fn start(args: &[&str]) -> Engine {
        let mut child = Command::new(env!("CARGO_BIN_EXE_puyobot"))
            .args(["serve", "--listen", "127.0.0.1:0"])
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start puyobot serve");
        let (tx, rx) = mpsc::channel();
        let err = BufReader::new(child.stderr.take().expect("stderr"));
        std::thread::spawn(move || {
            for line in err.lines().map_while(Result::ok) {
                let _ = tx.send(line);
            }
        });
        let first = rx.recv_timeout(Duration::from_secs(20)).expect("serve says where it listens");
        let addr = first.split("listening on ").nth(1).and_then(|r| r.split(';').next()).expect(&first).to_string();
        Engine { child, addr, stderr: rx }
    }

    /// Waits for the engine to end: (exit success, stdout, stderr).
    fn finish(mut self) -> (bool, String, String) {
        let mut out = String::new();
        if let Some(mut o) = self.child.stdout.take() {
            std::io::Read::read_to_string(&mut o, &mut out).expect("stdout");
        }
        let status = self.child.wait().expect("wait");
        // Every line up to the reader's end of file: lines still on their way when the child exits count too.
        let err: Vec<String> = self.stderr.iter().collect();
        (status.success(), out, err.join("\n"))
    }
}

/// The reference emulator: the built-in console behind a connection.
struct Client {
    s: TcpStream,
    emu: Emu,
}

impl Client {
    fn connect(addr: &str, rom_bytes: &[u8]) -> (Client, u8, Vec<u8>) {
        let mut s = TcpStream::connect(addr).expect("connect");
        s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
        let image = rom::labcart().unwrap();
        let hello = Hello {
            version: proto::VERSION,
            emulator: "reference".into(),
            prg: 16384,
            chr: rom_bytes.len() - 16384,
            rom_name: Some("puyolab.nes".into()),
        };
        // A refused emulator may be told before it has sent all of its hello and ROM.
        let _ = proto::write_msg(&mut s, kind::HELLO, &proto::hello_payload(&hello));
        let _ = proto::write_msg(&mut s, kind::ROM, rom_bytes);
        let (k, payload) = proto::read_raw(&mut s).expect("welcome or refusal");
        (Client { s, emu: Emu::new(&image, true).unwrap() }, k, payload)
    }

    fn send_frame(&mut self) {
        let p = proto::frame_payload(self.emu.frame_number(), self.emu.ram());
        proto::write_msg(&mut self.s, kind::FRAME, &p).unwrap();
    }

    /// Plays frames until the engine stops (returns its reason) or `max` frames ran (returns `None`); the
    /// pads of every frame are kept.
    fn play(&mut self, max: u64, pads: &mut Vec<[u8; 2]>) -> Option<String> {
        for _ in 0..max {
            self.send_frame();
            let (k, payload) = proto::read_raw(&mut self.s).expect("pads or stop");
            if k == kind::STOP {
                return Some(String::from_utf8_lossy(&payload).into_owned());
            }
            assert_eq!(k, kind::PADS, "{}", String::from_utf8_lossy(&payload));
            let (frame, p, _status) = proto::parse_pads(&payload).unwrap();
            assert_eq!(frame, self.emu.frame_number(), "the pads answer the frame just sent");
            pads.push(p);
            self.emu.set_pads(p);
            self.emu.clock_frame().unwrap();
        }
        None
    }
}

fn labcart_body() -> Vec<u8> {
    rom::LABCART[16..].to_vec()
}

fn json(out: &str) -> serde_json::Value {
    serde_json::from_str(out).unwrap_or_else(|e| panic!("not JSON ({e}): {out}"))
}

#[test]
fn a_served_game_is_the_game_play_plays_and_a_second_emulator_is_refused() {
    let dir = std::env::temp_dir().join(format!("puyobot-serve-link-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let trace = dir.join("served.trace");
    let engine = Engine::start(&[
        "--mode",
        "endless",
        "--pieces",
        "12",
        "--seed",
        "5",
        "--json",
        "--record",
        trace.to_str().unwrap(),
    ]);
    let (mut client, k, welcome) = Client::connect(&engine.addr, &labcart_body());
    assert_eq!(k, kind::WELCOME, "{}", String::from_utf8_lossy(&welcome));
    let welcome = String::from_utf8(welcome).unwrap();
    assert!(welcome.starts_with("puyobot-remote 1\n") && welcome.contains("drive=1\n"), "{welcome}");
    let mut pads = Vec::new();
    assert!(client.play(60, &mut pads).is_none());
    // A second emulator, while the first plays, is told why and turned away.
    let (_, k2, why) = Client::connect(&engine.addr, &labcart_body());
    assert_eq!(k2, kind::REFUSE);
    assert!(String::from_utf8_lossy(&why).contains("busy: puyobot is already playing with reference"));
    let end = client.play(100_000, &mut pads).expect("the engine stops the run");
    assert_eq!(end, "done");
    let (ok, out, err) = engine.finish();
    assert!(ok, "{err}");
    let served = json(&out);

    let embedded = Command::new(env!("CARGO_BIN_EXE_puyobot"))
        .args(["play", "--headless", "--mode", "endless", "--pieces", "12", "--seed", "5", "--json"])
        .output()
        .unwrap();
    assert!(embedded.status.success());
    let embedded = json(&String::from_utf8_lossy(&embedded.stdout));
    // The same frames, pieces, score and checks: the link changes nothing in the game.
    for key in ["frames", "winner"] {
        assert_eq!(served[key], embedded[key], "{key}");
    }
    for key in ["pieces", "score", "checks", "mismatches", "decisions", "largest_chain"] {
        assert_eq!(served["players"][0][key], embedded["players"][0][key], "players[0].{key}");
    }
    assert_eq!(served["frames"].as_u64().unwrap() as usize, pads.len());
    let remote = &served["remote"];
    assert_eq!(remote["emulator"], "reference");
    assert_eq!(remote["frames"].as_u64().unwrap() as usize, pads.len());
    let rt = &remote["round_trip_ms"];
    assert!(rt["median"].as_f64().unwrap() > 0.0 && rt["p99"].as_f64().unwrap() >= rt["median"].as_f64().unwrap());
    // The served run's trace replays in the built-in emulator pad for pad.
    let replay = Command::new(env!("CARGO_BIN_EXE_puyobot"))
        .args(["replay", "--headless", trace.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(replay.status.success(), "{}", String::from_utf8_lossy(&replay.stderr));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Plays `frames` frames, then does `spoil` to the link; returns the engine's report, its stderr and the
/// size of the trace it wrote.
fn broken_link(extra: &[&str], frames: u64, spoil: impl FnOnce(&mut Client)) -> (serde_json::Value, String, u64) {
    static RUN: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = RUN.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    let dir = std::env::temp_dir().join(format!("puyobot-serve-broken-{}-{n}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let trace = dir.join("broken.trace");
    let mut args = vec!["--mode", "ai-vs-ai", "--seed", "2", "--json", "--record", trace.to_str().unwrap()];
    args.extend_from_slice(extra);
    let engine = Engine::start(&args);
    let (mut client, k, _) = Client::connect(&engine.addr, &labcart_body());
    assert_eq!(k, kind::WELCOME);
    assert!(client.play(frames, &mut Vec::new()).is_none());
    spoil(&mut client);
    let (ok, out, err) = engine.finish();
    assert!(!ok, "a broken link fails the run: {err}");
    assert!(!err.contains("panicked"), "{err}");
    let size = std::fs::metadata(&trace).map(|m| m.len()).unwrap_or(0);
    let _ = std::fs::remove_dir_all(&dir);
    (json(&out), err, size)
}

fn assert_ended(report: &serde_json::Value, err: &str, words: &str, trace: u64) {
    assert!(err.contains(words), "stderr should say {words:?}: {err}");
    assert!(report["error"].as_str().unwrap().contains(words), "{report}");
    assert!(report["frames"].as_u64().unwrap() >= 299, "the report covers the frames played: {report}");
    assert!(report["remote"]["end"].as_str().unwrap().starts_with("stopped: "));
    assert!(trace > 100, "the trace so far is written ({trace} bytes)");
}

#[test]
fn garbage_ends_the_run_and_the_emulator_is_told() {
    let (report, err, trace) = broken_link(&[], 300, |c| {
        c.s.write_all(b"GET / HTTP/1.1\r\n\r\n").unwrap();
        // The engine tells the emulator why it stops before it closes.
        let (k, why) = proto::read_raw(&mut c.s).expect("a stop");
        assert_eq!(k, kind::STOP);
        assert!(String::from_utf8_lossy(&why).contains("unknown message kind 0x47"));
    });
    assert_ended(&report, &err, "unknown message kind 0x47", trace);
}

#[test]
fn a_wrong_ram_size_ends_the_run() {
    let (report, err, trace) = broken_link(&[], 300, |c| {
        let mut p = c.emu.frame_number().to_le_bytes().to_vec();
        p.extend_from_slice(&[0u8; 1024]);
        proto::write_msg(&mut c.s, kind::FRAME, &p).unwrap();
    });
    assert_ended(&report, &err, "frame message of 1028 bytes; expected 2052", trace);
}

#[test]
fn an_oversized_or_truncated_message_ends_the_run() {
    let (report, err, trace) = broken_link(&[], 300, |c| {
        c.s.write_all(&[kind::FRAME, 0xFF, 0xFF, 0xFF, 0x0F]).unwrap();
    });
    assert_ended(&report, &err, "more than the 2052 allowed", trace);
    let (report, err, trace) = broken_link(&["--pieces", "500"], 300, |c| {
        c.s.write_all(&[kind::FRAME, 0x04, 0x08, 0, 0, 1, 2, 3]).unwrap();
        c.s.shutdown(std::net::Shutdown::Write).unwrap();
    });
    assert_ended(&report, &err, "truncated", trace);
}

#[test]
fn a_silent_or_vanished_emulator_ends_the_run() {
    let (report, err, trace) = broken_link(&["--timeout", "0.5"], 300, |c| {
        std::thread::sleep(Duration::from_millis(1500));
        let _ = c;
    });
    assert_ended(&report, &err, "nothing arrived for 0.5 s", trace);
    let (report, err, trace) = broken_link(&["--frames", "100000"], 300, |c| {
        c.s.shutdown(std::net::Shutdown::Both).unwrap();
    });
    assert_ended(&report, &err, "the connection closed", trace);
    let (report, err, trace) = broken_link(&["--pieces", "400"], 300, |c| {
        proto::write_msg(&mut c.s, kind::BYE, b"closed by the user").unwrap();
    });
    assert_ended(&report, &err, "reference stopped after frame 299: closed by the user", trace);
}

#[test]
fn an_unknown_rom_and_a_non_loopback_address_are_refused() {
    let engine = Engine::start(&["--mode", "endless"]);
    let mut body = labcart_body();
    body[100] ^= 0xFF;
    let (_, k, why) = Client::connect(&engine.addr, &body);
    assert_eq!(k, kind::REFUSE);
    assert!(String::from_utf8_lossy(&why).contains("not a known Puyo Puyo dump"));
    let (ok, _, err) = engine.finish();
    assert!(!ok && err.contains("not a known Puyo Puyo dump"), "{err}");

    let o = Command::new(env!("CARGO_BIN_EXE_puyobot")).args(["serve", "--listen", "0.0.0.0:0"]).output().unwrap();
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("not a loopback address"));
}

#[test]
fn in_vs_human_the_engine_drives_pad_2_only() {
    let engine = Engine::start(&["--mode", "vs-human", "--frames", "30"]);
    let (mut client, k, welcome) = Client::connect(&engine.addr, &labcart_body());
    assert_eq!(k, kind::WELCOME);
    let welcome = String::from_utf8(welcome).unwrap();
    // Pad 1 is the person's: the script leaves it alone, and the engine presses nothing on it.
    assert!(welcome.contains("drive=2\n"), "{welcome}");
    let mut pads = Vec::new();
    assert_eq!(client.play(1000, &mut pads).as_deref(), Some("done"));
    assert_eq!(pads.len(), 30);
    assert!(pads.iter().all(|p| p[0] == 0), "{pads:?}");
    let (ok, _, err) = engine.finish();
    assert!(ok, "{err}");
}
