//! `play --record` (or its other name `--save-inputs`) then `puyobot replay`: the same pads, the same
//! final RAM hash, the same report (wall-clock timings aside), with pad faults on, and `puyobot calibrate`
//! learns from the same file. Replay files of older versions (TOML) are still read; damaged files, cut
//! files and the wrong ROM are refused naming the file.

use std::path::{Path, PathBuf};
use std::process::Command;

use puyobot::trace::{TraceEnd, TraceHeader, TraceReader, TraceWriter};

fn puyobot(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_puyobot")).args(args).output().expect("the puyobot binary runs");
    (out.status.success(), String::from_utf8_lossy(&out.stdout).into(), String::from_utf8_lossy(&out.stderr).into())
}

/// The report without the fields that measure wall-clock time.
fn deterministic(json: &str) -> serde_json::Value {
    crate::common::report::without_timing(serde_json::from_str(json).expect("JSON report"))
}

/// One frame of a trace: the pads held during it, RAM at its start.
type Frame = ([u8; 2], Box<[u8; 2048]>);

/// Every frame of a trace, its header and its end.
fn read_trace(path: &Path) -> (TraceHeader, Vec<Frame>, TraceEnd) {
    let mut r = TraceReader::open(path).expect("trace");
    let mut frames = Vec::new();
    while let Some((p, ram)) = r.next_frame().expect("frame") {
        frames.push((p, Box::new(*ram)));
    }
    let end = r.end().cloned().expect("end");
    (r.header().clone(), frames, end)
}

/// Writes a trace of `frames` under `header`, ending on RAM `last`.
fn write_trace(path: &Path, header: &TraceHeader, frames: &[Frame], last: &[u8; 2048]) {
    let mut w = TraceWriter::create(path, header).expect("create");
    for (p, ram) in frames {
        w.push(*p, ram).expect("push");
    }
    w.finish(last).expect("finish");
}

#[test]
fn a_recorded_run_replays_bit_for_bit_with_faults_and_calibrate_learns_from_the_same_file() {
    let dir = std::env::temp_dir().join(format!("puyobot-replay-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let file = dir.join("run.trace");
    let file_s = file.display().to_string();
    let (ok, first, err) = puyobot(&[
        "play",
        "--headless",
        "--fast",
        "--mode",
        "endless",
        "--pieces",
        "40",
        "--speed",
        "10",
        "--seed",
        "9",
        "--faults",
        "drop=0.05,delay=2,extra=0.01",
        "--record",
        &file_s,
        "--json",
    ]);
    assert!(ok, "play failed: {err}");
    let a = deterministic(&first);
    assert!(a["faults_injected"].as_u64().unwrap_or(0) > 0, "{a}");
    assert_eq!(a["ram_hash"].as_str().map(str::len), Some(16), "{a}");
    // The end record holds the run's final RAM hash.
    let (header, frames, end) = read_trace(&file);
    let TraceEnd::Complete { final_ram_hash, .. } = end else { panic!("{end:?}") };
    assert_eq!(a["ram_hash"].as_str(), Some(format!("{final_ram_hash:016x}").as_str()));
    let (ok, second, err) = puyobot(&["replay", &file_s, "--json"]);
    assert!(ok, "replay failed: {err}");
    assert_eq!(deterministic(&second), a);

    // The same file teaches calibration the cartridge's contract.
    let (ok, learned, err) = puyobot(&["calibrate", &file_s, "--json"]);
    assert!(ok, "calibrate failed: {err}");
    let j: serde_json::Value = serde_json::from_str(&learned).expect("calibrate JSON");
    assert_eq!(j["calibration"]["state"], "settled", "{j:#}");
    assert_eq!(j["trace"]["frames"].as_u64(), Some(frames.len() as u64));

    // One changed pad byte makes the replay diverge, and says at which frame.
    let at = frames.iter().position(|(p, _)| *p == [0, 0]).expect("a frame with no button held");
    let mut changed = frames.clone();
    changed[at].0 = [0x00, 0x40];
    let last = *frames.last().expect("frames").1;
    write_trace(&file, &header, &changed, &last);
    let (ok, _, err) = puyobot(&["replay", &file_s, "--headless"]);
    assert!(!ok && err.contains(&format!("diverged at frame {at}")) && err.contains("the file has pads 0040"), "{err}");

    let mut bytes = std::fs::read(&file).expect("trace");
    bytes[8] = 7;
    std::fs::write(&file, &bytes).expect("write");
    let (ok, _, err) = puyobot(&["replay", &file_s]);
    assert!(!ok && err.contains("run.trace") && err.contains("version 7"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

/// The text of a replay file as versions before traces wrote it, for the run recorded in `trace`.
fn old_replay_text(trace: &Path, frames: Option<u64>) -> String {
    let (header, recorded, end) = read_trace(trace);
    let TraceEnd::Complete { final_ram_hash, .. } = end else { panic!("{end:?}") };
    let config = header.get_text("config").expect("config key").expect("config text");
    let pads: Vec<String> = recorded.iter().map(|(p, _)| format!("1x{:02X}{:02X}", p[0], p[1])).collect();
    let frames = frames.map(|f| format!("frames = {f}\n")).unwrap_or_default();
    format!(
        "# puyobot replay\nversion = 1\nrom_sha1 = \"{}\"\nrom_name = \"puyolab.nes\"\nseed = 4\n{frames}\
         ram_hash = \"{final_ram_hash:016x}\"\nconfig = '''\n{config}'''\npads = \"\"\"\n{}\"\"\"\n",
        header.rom_sha1,
        pads.join(" ")
    )
}

#[test]
fn a_replay_file_of_an_older_version_is_still_checked_and_a_bad_one_names_its_key() {
    let (file, _) = saved_run("toml", 200);
    let old = file.with_file_name("old.replay");
    let text = old_replay_text(&file, Some(200));
    std::fs::write(&old, &text).expect("write");
    let o = old.display().to_string();
    let (ok, stdout, err) = puyobot(&["replay", &o, "--headless"]);
    assert!(ok && stdout.contains("matches the file, 200 frames"), "{err}{stdout}");
    // The check is real: a pad changed in the old file diverges.
    let pads_at = text.find("pads = ").expect("pads key");
    let (head, tail) = text.split_at(pads_at);
    std::fs::write(&old, format!("{head}{}", tail.replacen("1x0000", "1x0040", 1))).expect("write");
    let (ok, _, err) = puyobot(&["replay", &o, "--headless"]);
    assert!(!ok && err.contains("diverged at frame") && err.contains("the file has pads 0040"), "{err}");
    std::fs::write(&old, text.replace("version = 1", "version = 7")).expect("write");
    let (ok, _, err) = puyobot(&["replay", &o]);
    assert!(!ok && err.contains("old.replay") && err.contains("`version`"), "{err}");
    std::fs::remove_dir_all(file.parent().expect("dir")).ok();
}

#[test]
fn a_cut_trace_and_the_wrong_rom_are_named() {
    let (file, pads) = saved_run("bad", 700);
    let bytes = std::fs::read(&file).expect("trace");
    // Cut inside the header: nothing to replay, and the message says where.
    let head = file.with_file_name("head.trace");
    std::fs::write(&head, &bytes[..30]).expect("write");
    let (ok, _, err) = puyobot(&["replay", &head.display().to_string(), "--headless"]);
    assert!(!ok && err.contains("head.trace is truncated at byte 30"), "{err}");
    // Cut inside the last block (frames 600..700; the bots' notes and the end record follow it): the
    // complete frames are checked, with a warning that the end is missing.
    let last_block = [&[b'B'][..], &600u32.to_le_bytes(), &100u16.to_le_bytes()].concat();
    let at = bytes.windows(last_block.len()).rposition(|w| w == last_block).expect("the last block");
    let cut = file.with_file_name("cut.trace");
    std::fs::write(&cut, &bytes[..at + 30]).expect("write");
    let (ok, stdout, err) = puyobot(&["replay", &cut.display().to_string(), "--headless"]);
    assert!(ok, "{err}");
    assert!(err.contains("cut.trace is truncated at byte") && err.contains("not checked"), "{err}");
    assert!(stdout.contains("matches the file, 600 frames") && pads.len() == 700, "{stdout}");
    // Another cartridge: refused naming the file, the field and both hashes.
    let other = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src/labcart/puyolab-codes.nes");
    let (ok, _, err) = puyobot(&["replay", &file.display().to_string(), "--rom", &other.display().to_string()]);
    assert!(!ok && err.contains("run.trace") && err.contains("`rom_sha1`") && err.contains("pass --rom"), "{err}");
    // A file that is neither a trace nor a replay file.
    let junk = file.with_file_name("junk.bin");
    std::fs::write(&junk, [0u8, 1, 2, 3, 0xFF]).expect("write");
    let (ok, _, err) = puyobot(&["replay", &junk.display().to_string()]);
    assert!(!ok && err.contains("junk.bin is not a puyobot trace"), "{err}");
    std::fs::remove_dir_all(file.parent().expect("dir")).ok();
}

#[test]
fn a_window_trace_is_checked_by_its_ram_on_every_frame() {
    let (file, _) = saved_run("window-check", 300);
    let (mut header, frames, end) = read_trace(&file);
    let TraceEnd::Complete { .. } = end else { panic!("{end:?}") };
    // The same frames, as a window run would have written them: nothing can run its bots again.
    header.set("run", "window");
    let window = file.with_file_name("window.trace");
    let w = window.display().to_string();
    let last = {
        let mut emu = puyobot::emu::Emu::new(&puyobot::emu::rom::labcart().expect("labcart"), true).expect("emu");
        let pads: Vec<[u8; 2]> = frames.iter().map(|f| f.0).collect();
        puyobot::emu::record::play_back(&mut emu, &pads, |_, _| {}).expect("play");
        *puyobot::emu::Machine::ram(&emu)
    };
    write_trace(&window, &header, &frames, &last);
    let (ok, stdout, err) = puyobot(&["replay", &w, "--headless"]);
    assert!(ok && stdout.contains("RAM matches the file on every frame, 300 frames"), "{err}{stdout}");
    // A pad the console did not get (the first press, on the title: the menu does not move on): RAM
    // departs from the file's on a later frame, named with the address.
    let at = frames.iter().position(|(p, _)| *p != [0, 0]).expect("a frame with a button held");
    let mut changed = frames.clone();
    changed[at].0 = [0, 0];
    write_trace(&window, &header, &changed, &last);
    let (ok, _, err) = puyobot(&["replay", &w, "--headless"]);
    assert!(!ok && err.contains("the replay diverged at frame") && err.contains("in the file"), "{err}");
    // A final RAM that is not where the pads lead.
    write_trace(&window, &header, &frames, &[0x55; 2048]);
    let (ok, _, err) = puyobot(&["replay", &w, "--headless"]);
    assert!(!ok && err.contains("final RAM hash differs"), "{err}");
    std::fs::remove_dir_all(file.parent().expect("dir")).ok();
}

#[test]
fn record_and_save_inputs_naming_two_files_are_refused() {
    let (ok, _, err) = puyobot(&[
        "play",
        "--headless",
        "--frames",
        "10",
        "--record",
        "/tmp/a.trace",
        "--save-inputs",
        "/tmp/b.trace",
        "--config",
        "/dev/null",
    ]);
    assert!(!ok && err.contains("--record /tmp/a.trace") && err.contains("--save-inputs /tmp/b.trace"), "{err}");
    let (ok, _, err) =
        puyobot(&["play", "--headless", "--games", "3", "--save-inputs", "/tmp/m.trace", "--config", "/dev/null"]);
    assert!(!ok && err.contains("--save-inputs writes one power-on"), "{err}");
}

#[test]
fn a_bad_fault_string_names_the_key() {
    let (ok, _, err) = puyobot(&["play", "--headless", "--frames", "10", "--faults", "drop=0.5,lag=3"]);
    assert!(!ok && err.contains("`lag`") && err.contains("drop, delay or extra"), "{err}");
}

/// A short saved run of AI vs AI on the open test cartridge: (file, its pads).
fn saved_run(name: &str, frames: u32) -> (std::path::PathBuf, Vec<[u8; 2]>) {
    let dir = std::env::temp_dir().join(format!("puyobot-replay-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let file = dir.join("run.trace");
    let frames = frames.to_string();
    let (ok, _, err) = puyobot(&[
        "play",
        "--headless",
        "--fast",
        "--mode",
        "ai-vs-ai",
        "--frames",
        &frames,
        "--seed",
        "4",
        "--config",
        "/dev/null",
        // The older name of --record.
        "--save-inputs",
        &file.display().to_string(),
    ]);
    assert!(ok, "play failed: {err}");
    let (_, frames, _) = read_trace(&file);
    (file, frames.into_iter().map(|(p, _)| p).collect())
}

/// The console's pictures after frames `at` (1-based) of `pads`, played from power-on.
fn pictures_at(pads: &[[u8; 2]], at: &[usize]) -> Vec<Vec<u8>> {
    use puyobot::emu::Machine;
    let image = puyobot::emu::rom::labcart().expect("built-in labcart");
    let mut emu = puyobot::emu::Emu::new(&image, false).expect("emulator");
    let mut out = Vec::new();
    for (i, p) in pads.iter().enumerate().take(at.iter().copied().max().unwrap_or(0)) {
        emu.set_pads(*p);
        emu.clock_frame().expect("frame");
        if at.contains(&(i + 1)) {
            out.push(emu.frame_rgba().to_vec());
        }
    }
    out
}

#[test]
fn a_replay_plays_in_the_window_under_xvfb_frame_for_frame() {
    if !crate::common::tools::xvfb_run("replay_cli::a_replay_plays_in_the_window_under_xvfb_frame_for_frame") {
        return;
    }
    let (file, pads) = saved_run("window", 400);
    let shot = file.with_file_name("exit.png");
    let watch = |frames: &str| {
        let _xvfb = crate::common::xvfb::lock();
        Command::new("xvfb-run")
            .args(["-a", "-s", "-screen 0 1024x768x24"])
            .arg(env!("CARGO_BIN_EXE_puyobot"))
            .args(["replay", &file.display().to_string(), "--emu-speed", "max", "--frames", frames])
            .args(["--config", "/dev/null"])
            .arg("--screenshot-on-exit")
            .arg(&shot)
            .env("PUYOBOT_DATA_DIR", file.with_file_name("data"))
            .output()
            .expect("xvfb-run")
    };
    // The exit screenshot (the window at 1x: panels of 96 pixels beside the picture) holds the console's
    // picture after exactly the frames shown.
    let picture = |png: &std::path::Path| -> Vec<u8> {
        let mut reader = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(png).expect("exit screenshot")))
            .read_info()
            .expect("PNG");
        let mut buf = vec![0; reader.output_buffer_size().expect("size")];
        let info = reader.next_frame(&mut buf).expect("PNG data");
        assert_eq!((info.width, info.height, info.color_type), (448, 260, png::ColorType::Rgb));
        (0..240).flat_map(|y| buf[(y * 448 + 96) * 3..(y * 448 + 96 + 256) * 3].to_vec()).collect()
    };
    let rgb = |rgba: &[u8]| -> Vec<u8> { rgba.chunks_exact(4).flat_map(|p| p[..3].to_vec()).collect() };
    let want = pictures_at(&pads, &[150, 400]);
    assert!(want[0] != want[1], "the two moments look different");

    let out = watch("150");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("watched 150 of 400 frames"), "{err}");
    assert!(picture(&shot) == rgb(&want[0]), "the window shows the console's picture after frame 150");

    // To the end and a little past it: the picture stays, and the final RAM matches the file's hash.
    let out = watch("420");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("watched 400 of 400 frames") && err.contains("matches the file"), "{err}");
    assert!(picture(&shot) == rgb(&want[1]), "the last picture stays after the end");
    std::fs::remove_dir_all(file.parent().expect("dir")).ok();
}

#[test]
fn without_a_display_or_with_headless_replay_checks_as_before() {
    let (file, _) = saved_run("nodisplay", 200);
    let f = file.display().to_string();
    let out = Command::new(env!("CARGO_BIN_EXE_puyobot"))
        .args(["replay", &f])
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .output()
        .expect("puyobot");
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("no display") && stdout.contains("matches the file, 200 frames"), "{stderr}{stdout}");
    let (ok, stdout, err) = puyobot(&["replay", &f, "--headless"]);
    assert!(ok && stdout.contains("matches the file, 200 frames"), "{err}");
    let (ok, _, err) = puyobot(&["replay", &f, "--headless", "--frames", "10"]);
    assert!(!ok && err.contains("--frames") && err.contains("--headless"), "{err}");
    std::fs::remove_dir_all(file.parent().expect("dir")).ok();
}

#[test]
fn a_gif_clip_holds_every_second_picture_of_the_frames_asked_for() {
    let (file, pads) = saved_run("gif", 600);
    let f = file.display().to_string();
    let gif_path = file.with_file_name("clip.gif");
    let g = gif_path.display().to_string();
    let (ok, _, err) = puyobot(&["replay", &f, "--gif", &g, "--from", "451", "--to", "510"]);
    assert!(ok, "{err}");
    assert!(err.contains("frames 451 to 510") && err.contains("30 pictures"), "{err}");
    let mut options = gif::DecodeOptions::new();
    options.set_color_output(gif::ColorOutput::RGBA);
    let mut decoder = options.read_info(std::fs::File::open(&gif_path).expect("the GIF")).expect("a GIF");
    assert_eq!((decoder.width(), decoder.height()), (256, 240));
    let mut frames = Vec::new();
    while let Some(frame) = decoder.read_next_frame().expect("a frame") {
        assert_eq!((frame.width, frame.height), (256, 240));
        frames.push(frame.buffer.to_vec());
    }
    assert_eq!(frames.len(), 30);
    assert!(frames.windows(2).any(|w| w[0] != w[1]), "the clip moves (pairs fall by frame 451)");
    let at: Vec<usize> = (0..30).map(|k| 451 + 2 * k).collect();
    let want = pictures_at(&pads, &at);
    for (k, (got, want)) in frames.iter().zip(&want).enumerate() {
        assert!(got == want, "GIF frame {k} is the console's picture after frame {}", at[k]);
    }
    // Defaults: the whole run.
    let (ok, _, err) = puyobot(&["replay", &f, "--gif", &g]);
    assert!(ok && err.contains("frames 1 to 600") && err.contains("300 pictures"), "{err}");

    // Refusals, each before any work, naming the flag.
    let refused = |args: &[&str], words: &[&str]| {
        let mut all = vec!["replay", f.as_str()];
        all.extend_from_slice(args);
        let (ok, _, err) = puyobot(&all);
        assert!(!ok && words.iter().all(|w| err.contains(w)), "{args:?}: {err}");
    };
    refused(&["--gif", &g, "--from", "0"], &["--from 0", "count from 1"]);
    refused(&["--gif", &g, "--from", "200", "--to", "100"], &["--from 200 is after --to 100"]);
    refused(&["--gif", &g, "--to", "601"], &["--to 601", "has 600 frames"]);
    let nowhere = file.with_file_name("no/such/folder/clip.gif");
    refused(&["--gif", &nowhere.display().to_string()], &["--gif", "does not exist"]);
    refused(&["--from", "5"], &["--gif"]);
    refused(&["--gif", &g, "--headless"], &["--headless"]);
    std::fs::remove_dir_all(file.parent().expect("dir")).ok();
}

#[test]
fn a_recording_of_two_bots_holds_each_decision_and_replay_prints_them() {
    let dir = std::env::temp_dir().join(format!("puyobot-decisions-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let file = dir.join("battle.trace");
    let file_s = file.display().to_string();
    let args = ["play", "--headless", "--fast", "--mode", "ai-vs-ai", "--pieces", "30", "--seed", "4"];
    let (ok, out, err) = puyobot(&[&args[..], &["--record", &file_s, "--json"]].concat());
    assert!(ok, "play failed: {err}");
    let report: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    let mut r = TraceReader::open(&file).expect("trace");
    while r.next_frame().expect("frames").is_some() {}
    let notes = r.notes().to_vec();
    for player in 0..2u8 {
        let own: Vec<_> = notes.iter().filter(|n| n.player == player).collect();
        let pieces = report["players"][player as usize]["pieces"].as_u64().expect("pieces");
        // One decision a piece (a few more when the next pair changed the question).
        assert!(own.len() as u64 >= pieces.saturating_sub(1), "P{}: {} notes, {pieces} pieces", player + 1, own.len());
        assert!(own.windows(2).all(|w| w[0].frame <= w[1].frame), "in frame order");
        // In 2P the chain bot tells its battle intent with each placement (in danger it leaves the move
        // to the survival search, which says none).
        let intents = ["BUILD", "HOLD", "FIRE", "KILL", "STALL", "ABSORB", "ANSWER"];
        let told = own.iter().filter(|n| intents.iter().any(|i| n.text.starts_with(i))).count();
        assert!(told * 10 >= own.len() * 8, "P{}: {told} of {} told an intent: {own:?}", player + 1, own.len());
        assert!(own.iter().all(|n| n.text.contains("-> x")), "each names its placement: {own:?}");
    }
    let (ok, printed, err) = puyobot(&["replay", &file_s, "--decisions"]);
    assert!(ok, "{err}");
    assert_eq!(printed.lines().count(), notes.len());
    let first = &notes[0];
    assert_eq!(
        printed.lines().next(),
        Some(format!("frame {}  P{}  {}", first.frame, first.player + 1, first.text).as_str())
    );
    std::fs::remove_dir_all(&dir).ok();
}
