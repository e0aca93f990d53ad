//! Traces end to end: a synthetic "person" (menu presses, random-ish moves, turns with A only, soft
//! drop; never B) plays the open cartridge and a contract build through the trace recorder, and
//! `puyobot calibrate` must learn exactly the build's contract and the menu facts from the trace alone.
//! A bot-played trace goes through `--write-addresses`, and `puyobot play --addresses DIR --calibrate
//! off` must then play with 0 mismatches. Also: the headless `record` path, a truncated trace, and
//! bad input.
use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::common::contract::{BuildError, Contract};
use puyobot::emu::pad::{A, DOWN, LEFT, RIGHT, START, UP};
use puyobot::emu::{Emu, Machine, RomImage};
use puyobot::trace::{TraceHeader, TraceRecorder, TraceWriter};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use serde_json::Value;

/// P1's spawn-delay byte: 0 exactly while the pair can move (the person "sees" the pair fall).
const SPAWN_DELAY_P1: usize = 0x0615;
/// The open cartridge's menu-cursor line byte (0 MODE, 1 ITEM, 2 COLORS; src/labcart/README.md).
const LAB_CURSOR: u16 = 0x0095;

fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("trace_calibrate").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

fn puyobot(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_puyobot")).args(args).output().expect("run puyobot")
}

fn ok_json(args: &[&str]) -> Value {
    let out = puyobot(args);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "puyobot {args:?} failed: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"))
}

/// The person: holds `pads` for one frame on the recorder.
struct Person {
    m: TraceRecorder<Emu>,
    rng: Xoshiro256PlusPlus,
}

impl Person {
    fn frame(&mut self, p1: u8) {
        self.m.set_pads([p1, 0]);
        self.m.clock_frame().expect("frame");
    }

    fn idle(&mut self, n: usize) {
        for _ in 0..n {
            self.frame(0);
        }
    }

    /// One press of 1-3 frames, then a human pause.
    fn tap(&mut self, b: u8) {
        let hold = self.rng.random_range(1..=3);
        for _ in 0..hold {
            self.frame(b);
        }
        let pause = self.rng.random_range(3..=12);
        self.idle(pause);
    }

    fn active(&self) -> bool {
        self.m.ram()[SPAWN_DELAY_P1] == 0
    }

    /// Title, then the mode select with the cursor moved about (Down / Up only: the mode, items and
    /// colours keep their defaults, 1P Endless with 4 colours), then Start.
    fn menus(&mut self) {
        self.idle(30);
        self.tap(START);
        self.idle(20);
        for b in [DOWN, DOWN, UP, DOWN, UP, UP, DOWN, UP] {
            self.tap(b);
        }
        self.idle(15);
        self.tap(START);
    }

    /// `pieces` pairs: wait a while as the pair falls, turn it 0-3 times with A at random moments,
    /// shift it towards a random column, then soft-drop it.
    fn play(&mut self, pieces: usize) {
        for _ in 0..pieces {
            let mut waited = 0;
            while !self.active() {
                self.frame(0);
                waited += 1;
                assert!(waited < 2000, "no pair became movable");
            }
            let wait = self.rng.random_range(5..40);
            self.idle(wait);
            let turns = self.rng.random_range(0..=3);
            let shift: i32 = self.rng.random_range(-3..=3);
            let mut steps: Vec<u8> = vec![A; turns];
            steps.extend(std::iter::repeat_n(if shift < 0 { LEFT } else { RIGHT }, shift.unsigned_abs() as usize));
            // Turns and moves in a random order.
            for i in (1..steps.len()).rev() {
                let j = self.rng.random_range(0..=i);
                steps.swap(i, j);
            }
            for b in steps {
                if !self.active() {
                    break;
                }
                self.tap(b);
            }
            let mut held = 0;
            while self.active() && held < 600 {
                self.frame(DOWN);
                held += 1;
            }
        }
        self.idle(60);
    }
}

/// Records the person playing `rom` to `out`.
fn person_trace(rom: &RomImage, out: &Path, seed: u64, pieces: usize) {
    let mut header = TraceHeader::for_rom(rom);
    header.set("mode", "endless");
    header.set("players", "test person");
    let writer = TraceWriter::create(out, &header).expect("create trace");
    let m = TraceRecorder::new(Emu::new(rom, true).expect("emulator"), Some(writer));
    let mut p = Person { m, rng: Xoshiro256PlusPlus::seed_from_u64(seed) };
    p.menus();
    p.play(pieces);
    let stats = p.m.finish().expect("finish").expect("was recording");
    println!("person trace: {} frames, {} bytes", stats.frames, stats.bytes);
}

struct Expected {
    empty: u8,
    colours: Vec<u8>,
    orients: [u8; 4], // down, left, up, right
    a_clockwise: bool,
    xy_child: bool,
    offset: u8,
}

impl Expected {
    /// What calibration must report for a build of contract `c`.
    fn of(c: &Contract) -> Expected {
        let o = c.orients;
        Expected {
            empty: c.empty,
            colours: c.colours().to_vec(),
            orients: [o.down, o.left, o.up, o.right],
            a_clockwise: c.a_clockwise,
            xy_child: c.xy_child,
            offset: c.color_offset,
        }
    }
}

fn check_contract(j: &Value, e: &Expected, what: &str) {
    let c = &j["calibration"];
    assert_eq!(c["state"], "settled", "{what}: {j:#}");
    assert_eq!(c["codes"]["empty"], e.empty, "{what}");
    let colours: Vec<u64> =
        c["codes"]["colors"].as_array().expect("colours").iter().filter_map(Value::as_u64).collect();
    assert!(!colours.is_empty() && colours.iter().all(|x| e.colours.contains(&(*x as u8))), "{what}: {colours:?}");
    let o = &c["orientation"];
    assert_eq!([&o["down"], &o["left"], &o["up"], &o["right"]], e.orients.map(Value::from).each_ref(), "{what}");
    assert_eq!(c["a_rotates"], if e.a_clockwise { "clockwise" } else { "counterclockwise" }, "{what}");
    assert_eq!(c["xy_tracks"], if e.xy_child { "child" } else { "pivot" }, "{what}");
    assert_eq!(c["color_byte_offset"], e.offset, "{what}");
    // The person never pressed B: that stays unknown, with what would settle it.
    let unknown: Vec<&str> =
        j["unknown"].as_array().expect("unknown").iter().filter_map(|u| u["fact"].as_str()).collect();
    assert!(unknown.contains(&"what B does"), "{what}: {unknown:?}");
    // Menus: the mode byte says 1P Endless; the cursor byte is found with the values it took.
    let m = &j["menu"];
    assert_eq!(m["mode_byte"]["address"], 0x6F, "{what}");
    assert_eq!(m["mode_byte"]["value"], 0, "{what}: {m:#}");
    assert_eq!(m["up_down_presses"], 8, "{what}: {m:#}");
}

#[test]
fn a_person_trace_on_the_open_cartridge_teaches_its_contract_and_menus() {
    let dir = scratch("labcart-person");
    let rom = puyobot::emu::rom::labcart().expect("labcart");
    let trace = dir.join("person.trace");
    person_trace(&rom, &trace, 11, 14);
    let t = trace.to_str().expect("utf-8");
    let j = ok_json(&["calibrate", t, "--json"]);
    let lab = Expected {
        empty: 0,
        colours: (1..=6).collect(),
        orients: [0, 1, 2, 3],
        a_clockwise: true,
        xy_child: false,
        offset: 1,
    };
    check_contract(&j, &lab, "labcart");
    let cursor = &j["menu"]["cursor"];
    assert_eq!(cursor["address"], LAB_CURSOR, "{:#}", j["menu"]);
    let mut values: Vec<u64> =
        cursor["values_seen"].as_array().expect("values").iter().filter_map(Value::as_u64).collect();
    values.sort();
    assert_eq!(values, [0, 1, 2], "{:#}", j["menu"]);
    assert_eq!(cursor["down_adds"], 1);
    assert_eq!(j["trace"]["complete"], true);
    assert_eq!(j["trace"]["meta"]["players"], "test person");
    // The text form says the same and names what is unknown.
    let out = puyobot(&["calibrate", t]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success());
    assert!(text.contains("cursor byte $0095") && text.contains("mode byte $006F = 0"), "{text}");
    assert!(text.contains("unknown: what B does"), "{text}");
}

#[test]
fn a_person_trace_on_a_contract_build_teaches_that_contract() {
    let dir = scratch("contract-person");
    // A contract far from the guesses: A counter-clockwise, X/Y on the child, colour in byte 0.
    let c = Contract { a_clockwise: false, xy_child: true, color_offset: 0, ..Contract::random(0x7ACE_0008) };
    c.validate().expect("valid contract");
    let rom_path = dir.join("contract.nes");
    match c.build(&rom_path) {
        Ok(()) => {}
        Err(BuildError::NoAssembler) => {
            common::tools::missing_ca65("trace_calibrate::a_person_trace_on_a_contract_build_teaches_that_contract");
            return;
        }
        Err(e) => panic!("{e}"),
    }
    println!("contract: {c}");
    let rom = RomImage::from_path(&rom_path).expect("built ROM");
    let trace = dir.join("person.trace");
    person_trace(&rom, &trace, 5, 14);
    let j = ok_json(&["calibrate", trace.to_str().expect("utf-8"), "--json"]);
    check_contract(&j, &Expected::of(&c), &format!("contract {c}"));
    assert_eq!(j["menu"]["cursor"]["address"], LAB_CURSOR, "{:#}", j["menu"]);
}

#[test]
fn a_person_trace_teaches_the_timing_and_the_xy_bases() {
    let dir = scratch("timing-person");
    // The timer at 0 while a lock resolves, pose bytes written 2 frames late, X counted from 8, Y from 2.
    let c = Contract { timer_resolve0: true, pose_late: 2, x_base: 8, y_base: 2, ..Contract::random(0x7ACE_0009) };
    c.validate().expect("valid contract");
    let rom_path = dir.join("timing.nes");
    match c.build(&rom_path) {
        Ok(()) => {}
        Err(BuildError::NoAssembler) => {
            common::tools::missing_ca65("trace_calibrate::a_person_trace_teaches_the_timing_and_the_xy_bases");
            return;
        }
        Err(e) => panic!("{e}"),
    }
    println!("contract: {c}");
    let rom = RomImage::from_path(&rom_path).expect("built ROM");
    let trace = dir.join("person.trace");
    person_trace(&rom, &trace, 6, 16);
    let j = ok_json(&["calibrate", trace.to_str().expect("utf-8"), "--json"]);
    let cal = &j["calibration"];
    assert_eq!(cal["xy_bases"], serde_json::json!([8, 2]), "{cal:#}");
    assert_eq!(cal["pose_lag"], 2, "{cal:#}");
    assert_eq!(cal["lock_signal"], "field", "{cal:#}");
    check_contract(&j, &Expected::of(&c), &format!("contract {c}"));
}

#[test]
fn a_person_trace_teaches_the_next_pairs_own_codes_and_lag_and_the_written_file_plays() {
    let dir = scratch("next-person");
    // The next bytes hold colour indices (not the piece codes) and keep the old pair 8 frames after a spawn.
    let c = Contract { next_table: 1, next_lag: 8, ..Contract::random(0x7ACE_000A) };
    c.validate().expect("valid contract");
    let rom_path = dir.join("next.nes");
    match c.build(&rom_path) {
        Ok(()) => {}
        Err(BuildError::NoAssembler) => {
            common::tools::missing_ca65("trace_calibrate::a_person_trace_teaches_the_next_pairs_own_codes");
            return;
        }
        Err(e) => panic!("{e}"),
    }
    println!("contract: {c}");
    let rom = RomImage::from_path(&rom_path).expect("built ROM");
    let trace = dir.join("person.trace");
    person_trace(&rom, &trace, 7, 16);
    let learned = dir.join("learned");
    let (t, l) = (trace.to_str().expect("utf-8"), learned.to_str().expect("utf-8"));
    let j = ok_json(&["calibrate", t, "--json", "--write-addresses", l]);
    let next = &j["calibration"]["next_pair"];
    assert_eq!(next["table"], "mapped", "{next:#}");
    assert_eq!(next["lag"], 8, "{next:#}");
    let codes = next["codes"].as_array().expect("next codes");
    assert!(codes.len() >= 3, "{next:#}");
    for pair in codes {
        let (n, p) = (pair[0].as_u64().expect("next code") as u8, pair[1].as_u64().expect("piece code") as u8);
        assert_eq!(c.next_code(p), n, "next code {n} stands for piece code {p}: {next:#}");
    }
    let text = String::from_utf8_lossy(&puyobot(&["calibrate", t]).stdout).to_string();
    assert!(text.contains("next pair bytes: their own codes") && text.contains("valid 8 frames"), "{text}");
    // The written folder plays the build with nothing left to learn: every next pair read became the
    // current pair as read.
    let rom_arg = rom_path.to_str().expect("utf-8");
    let args = ["play", "--rom", rom_arg, "--addresses", l, "--calibrate", "off", "--headless", "--json"];
    let again = ok_json(&[&args[..], &["--mode", "endless", "--pieces", "60", "--seed", "3"]].concat());
    let p1 = &again["players"][0];
    assert_eq!(p1["mismatches"], 0, "{again:#}");
    let h = &again["health"]["players"][0];
    assert!(h["next_checked"].as_u64().unwrap_or(0) >= 50, "{h:#}");
    assert_eq!(h["next_checked"], h["next_confirmed"], "{h:#}");
    let (asked, spawned) = (h["pieces_asked"].as_u64().unwrap_or(0), h["pieces_spawned"].as_u64().unwrap_or(0));
    assert!(asked + 1 >= spawned, "the bot is asked about every piece (the last may spawn as the run ends): {h:#}");
}

#[test]
fn a_bot_trace_writes_addresses_that_play_with_no_mismatch() {
    let dir = scratch("bot");
    let trace = dir.join("bot.trace");
    let learned = dir.join("learned");
    let (t, l) = (trace.to_str().expect("utf-8"), learned.to_str().expect("utf-8"));
    // The headless record path: `puyobot record --bot --headless`, the same writer as the window's.
    let rec = puyobot(&[
        "record",
        "--out",
        t,
        "--bot",
        "--headless",
        "--fast",
        "--mode",
        "endless",
        "--pieces",
        "30",
        "--json",
    ]);
    assert!(rec.status.success(), "{}", String::from_utf8_lossy(&rec.stderr));
    assert!(String::from_utf8_lossy(&rec.stderr).contains(&format!("wrote {t}")));
    let j = ok_json(&["calibrate", t, "--json", "--write-addresses", l]);
    assert_eq!(j["calibration"]["state"], "settled", "{j:#}");
    assert_eq!(j["menu"]["mode_byte"]["value"], 0);
    assert!(learned.join("roms.toml").is_file() && learned.join("labcart/1p-endless.toml").is_file());
    let again = ok_json(&[
        "play",
        "--addresses",
        l,
        "--calibrate",
        "off",
        "--headless",
        "--fast",
        "--mode",
        "endless",
        "--pieces",
        "100",
        "--json",
    ]);
    assert_eq!(again["calibration"]["state"], "off");
    let p1 = &again["players"][0];
    assert!(p1["pieces"].as_u64().unwrap_or(0) >= 100, "{again:#}");
    assert_eq!(p1["mismatches"], 0, "{again:#}");
    assert!(p1["checks"].as_u64().unwrap_or(0) > 0 || p1["pieces"].as_u64().unwrap_or(0) >= 100);
}

#[test]
fn a_truncated_trace_is_read_up_to_its_last_complete_block_with_a_warning() {
    let dir = scratch("truncated");
    let full = dir.join("full.trace");
    let f = full.to_str().expect("utf-8");
    let out = puyobot(&["play", "--headless", "--fast", "--mode", "endless", "--frames", "1000", "--record", f]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let bytes = std::fs::read(&full).expect("trace");
    // Cut inside the last block (frames 900..1000; the bots' notes and the end record follow it).
    let last_block = [&[b'B'][..], &900u32.to_le_bytes(), &100u16.to_le_bytes()].concat();
    let at = bytes.windows(last_block.len()).rposition(|w| w == last_block).expect("the last block");
    let cut = dir.join("cut.trace");
    std::fs::write(&cut, &bytes[..at + 30]).expect("write");
    let out = puyobot(&["calibrate", cut.to_str().expect("utf-8"), "--json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("cut.trace is truncated at byte") && err.contains("complete frames"), "{err}");
    let j: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(j["trace"]["complete"], false);
    let frames = j["trace"]["frames"].as_u64().expect("frames");
    assert!(frames > 0 && frames < 1000 && frames.is_multiple_of(300), "{frames}");
}

#[test]
fn bad_input_is_named() {
    let dir = scratch("bad");
    let not = dir.join("not.trace");
    std::fs::write(&not, b"hello").expect("write");
    let out = puyobot(&["calibrate", not.to_str().expect("utf-8")]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(err.contains("not.trace is not a puyobot trace") && err.contains("68 65 6C 6C 6F"), "{err}");
    let missing = dir.join("missing.trace");
    let out = puyobot(&["calibrate", missing.to_str().expect("utf-8")]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("missing.trace"), "{}", String::from_utf8_lossy(&out.stderr));
    // Nobody can press keys without a window.
    let t = dir.join("x.trace");
    let out = puyobot(&["record", "--out", t.to_str().expect("utf-8"), "--headless", "--frames", "10"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--headless needs --bot"));
    // A trace that never reached play cannot write addresses, and says why.
    let short = dir.join("short.trace");
    let s = short.to_str().expect("utf-8");
    assert!(puyobot(&["play", "--headless", "--frames", "20", "--record", s]).status.success());
    let out = puyobot(&["calibrate", s, "--write-addresses", dir.join("never").to_str().expect("utf-8")]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(err.contains("short.trace: nothing written"), "{err}");
}

#[test]
fn recording_does_not_change_what_the_console_does() {
    let rom = puyobot::emu::rom::labcart().expect("labcart");
    let dir = scratch("nowrite");
    let writer = TraceWriter::create(&dir.join("t.trace"), &TraceHeader::for_rom(&rom)).expect("create");
    let mut rec = TraceRecorder::new(Emu::new(&rom, true).expect("emu"), Some(writer));
    let mut plain = Emu::new(&rom, true).expect("emu");
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(3);
    let mut differed = false;
    for f in 0..3000 {
        let pads = if f % 7 == 0 { [rng.random::<u8>() & !0x0C, 0] } else { [0, 0] };
        let pads = if f == 40 || f == 80 { [START, 0] } else { pads };
        rec.set_pads(pads);
        plain.set_pads(pads);
        let before = *plain.ram();
        rec.clock_frame().expect("frame");
        plain.clock_frame().expect("frame");
        assert_eq!(rec.ram(), plain.ram(), "frame {f}");
        differed |= before != *plain.ram();
    }
    assert!(differed, "RAM never changed: the comparison proves nothing");
    assert_eq!(rec.finish().expect("finish").map(|s| s.frames), Some(3000));
}

#[test]
fn record_in_a_window_writes_the_same_format_under_xvfb() {
    if !common::tools::xvfb_run("trace_calibrate::record_in_a_window_writes_the_same_format_under_xvfb") {
        return;
    }
    let dir = scratch("window");
    let trace = dir.join("window.trace");
    let t = trace.to_str().expect("utf-8");
    let xvfb = common::xvfb::lock();
    let out = Command::new("xvfb-run")
        .args(["-a", "-s", "-screen 0 1024x768x24"])
        .arg(env!("CARGO_BIN_EXE_puyobot"))
        .args(["record", "--out", t, "--emu-speed", "max", "--frames", "300", "--config", "/dev/null"])
        .output()
        .expect("xvfb-run");
    drop(xvfb);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    // Nobody pressed a key: no Start, so the game stays on the title and play never starts.
    let j = ok_json(&["calibrate", t, "--json"]);
    assert_eq!(j["trace"]["complete"], true, "{j:#}");
    assert_eq!(j["trace"]["frames"], 300);
    assert_eq!(j["trace"]["meta"]["players"], "keyboard");
    assert_eq!(j["trace"]["meta"]["menu"], "person");
    assert_eq!(j["trace"]["meta"]["mode"], "endless");
    assert!(j["menu"]["mode_byte"].is_null() && j["menu"]["play_started_frame"].is_null(), "{:#}", j["menu"]);
    let facts: Vec<&str> =
        j["menu"]["unknown"].as_array().expect("unknown").iter().filter_map(|u| u["fact"].as_str()).collect();
    assert_eq!(facts, ["menu cursor byte", "mode byte when play starts"]);
    assert_eq!(j["calibration"]["state"], "unsettled");
    // The same file replays: nothing can press a window's keys again, so its pads are fed to a fresh
    // console, whose RAM must be the trace's on every frame.
    let out = puyobot(&["replay", t, "--headless"]);
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(said.contains("RAM matches the file on every frame, 300 frames"), "{said}");
}

/// A keyboard person as a key script for the window (`--key-script`): Enter on the title; on the
/// mode select `extra_menu` keys (e.g. Right to pick 2P), then Down / Up about; Enter; then `pieces`
/// pairs on a fixed rhythm (the script cannot see RAM): a short wait, turns (X = A on the first eight
/// pairs, Z = B after), a shift (some pairs pushed against the left wall first), and a soft drop long
/// enough to land the pair and short enough to leave the next one free.
fn keyboard_script(seed: u64, extra_menu: &[&str], pieces: usize) -> String {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut lines = Vec::new();
    let mut frame = 30u64;
    let mut tap = |key: &str, hold: u64, gap: u64, frame: &mut u64| {
        lines.push(format!("{frame} {key} down"));
        lines.push(format!("{} {key} up", *frame + hold));
        *frame += hold + gap;
    };
    tap("Enter", 2, 28, &mut frame);
    for key in extra_menu.iter().chain(&["ArrowDown", "ArrowDown", "ArrowUp", "ArrowDown", "ArrowUp", "ArrowUp"]) {
        tap(key, 2, 8, &mut frame);
    }
    tap("Enter", 2, 0, &mut frame);
    for p in 0..pieces {
        frame += rng.random_range(14..22);
        let turn = if p < 8 { "X" } else { "Z" };
        let shift: i32 = rng.random_range(-3..=3);
        let mut steps: Vec<&str> = vec![turn; p % 4];
        if p >= 12 && p % 2 == 0 {
            steps.splice(0..0, ["ArrowLeft"; 5]);
        } else {
            steps.extend(std::iter::repeat_n(
                if shift < 0 { "ArrowLeft" } else { "ArrowRight" },
                shift.unsigned_abs() as usize,
            ));
            for i in (1..steps.len()).rev() {
                let j = rng.random_range(0..=i);
                steps.swap(i, j);
            }
        }
        for key in steps {
            let (hold, gap) = (rng.random_range(1..4), rng.random_range(4..12));
            tap(key, hold, gap, &mut frame);
        }
        tap("ArrowDown", 35, 2, &mut frame);
    }
    lines.join("\n") + "\n"
}

/// Runs `puyobot record` in a window under Xvfb with `script` as the keyboard; false when Xvfb is missing
/// and `PUYOBOT_SKIP_MISSING_TOOLS` is set (without it a missing Xvfb fails the test).
fn record_keyboard(dir: &Path, script: &str, trace: &Path, extra: &[&str]) -> bool {
    if !common::tools::xvfb_run("trace_calibrate (keyboard recording)") {
        return false;
    }
    let keys = dir.join("keys.txt");
    std::fs::write(&keys, script).expect("write the key script");
    let xvfb = common::xvfb::lock();
    let out = Command::new("xvfb-run")
        .args(["-a", "-s", "-screen 0 1024x768x24"])
        .arg(env!("CARGO_BIN_EXE_puyobot"))
        .args(["record", "--out", trace.to_str().expect("utf-8"), "--emu-speed", "max", "--config", "/dev/null"])
        .args(extra)
        .arg("--key-script")
        .arg(&keys)
        .output()
        .expect("xvfb-run");
    drop(xvfb);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    true
}

#[test]
fn keyboard_play_in_the_window_is_recorded_and_teaches_the_contract_under_xvfb() {
    let dir = scratch("keyboard");
    let trace = dir.join("keyboard.trace");
    let script = keyboard_script(11, &[], 18);
    if !record_keyboard(&dir, &script, &trace, &["--frames", "2400"]) {
        return;
    }
    let (t, learned) = (trace.to_str().expect("utf-8"), dir.join("learned"));
    let j = ok_json(&["calibrate", t, "--json", "--write-addresses", learned.to_str().expect("utf-8")]);
    assert_eq!(j["trace"]["meta"]["players"], "keyboard", "{j:#}");
    let c = &j["calibration"];
    assert_eq!(c["state"], "settled", "{j:#}");
    assert!(c["pieces_to_settle"].as_u64().is_some_and(|n| n <= 10), "{c:#}");
    assert_eq!(c["codes"]["empty"], 0);
    let o = &c["orientation"];
    assert_eq!([&o["down"], &o["left"], &o["up"], &o["right"]], [0, 1, 2, 3].map(Value::from).each_ref());
    assert_eq!(
        (&c["a_rotates"], &c["xy_tracks"], &c["color_byte_offset"]),
        (&"clockwise".into(), &"pivot".into(), &1.into())
    );
    // Z was pressed on later pairs and some were turned against the wall: B and the sideways kick are
    // learned from the keyboard, not left unknown.
    let unknown: Vec<&str> =
        j["unknown"].as_array().expect("unknown").iter().filter_map(|u| u["fact"].as_str()).collect();
    assert!(!unknown.contains(&"what B does") && !unknown.contains(&"sideways kick"), "{unknown:?}");
    // The Up / Down presses on the mode select find the cursor byte; play starts in 1P Endless.
    assert_eq!(j["menu"]["cursor"]["address"], LAB_CURSOR, "{:#}", j["menu"]);
    assert_eq!(j["menu"]["up_down_presses"], 6, "{:#}", j["menu"]);
    assert_eq!(j["menu"]["mode_byte"]["value"], 0, "{:#}", j["menu"]);
    // What the keyboard taught plays the cartridge with nothing left to learn.
    let again = ok_json(
        &["play", "--addresses", learned.to_str().expect("utf-8"), "--calibrate", "off", "--headless"]
            .into_iter()
            .chain(["--fast", "--mode", "endless", "--pieces", "60", "--json"])
            .collect::<Vec<_>>(),
    );
    assert_eq!(again["players"][0]["mismatches"], 0, "{again:#}");
    assert!(again["players"][0]["pieces"].as_u64().is_some_and(|n| n >= 60), "{again:#}");
}

#[test]
fn a_person_on_pad_1_against_the_bot_is_recorded_in_2p_under_xvfb() {
    let dir = scratch("keyboard-2p");
    let trace = dir.join("2p.trace");
    // Right on the MODE line picks 2P; the bot takes pad 2 once play starts.
    let script = keyboard_script(5, &["ArrowRight"], 18);
    if !record_keyboard(&dir, &script, &trace, &["--mode", "vs-human", "--frames", "2400"]) {
        return;
    }
    let j = ok_json(&["calibrate", trace.to_str().expect("utf-8"), "--json"]);
    assert_eq!(j["trace"]["meta"]["mode"], "vs-human", "{:#}", j["trace"]);
    assert_eq!(j["menu"]["mode_byte"]["value"], 2, "{:#}", j["menu"]);
    let c = &j["calibration"];
    assert_eq!(c["state"], "settled", "{j:#}");
    assert_eq!(c["a_rotates"], "clockwise");
    assert_eq!(c["orientation"]["right"], 3);
}
