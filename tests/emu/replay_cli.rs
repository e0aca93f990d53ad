//! `play --save-inputs` then `puyobot replay`: the same pads, the same final RAM hash, the same report
//! (wall-clock timings aside), with pad faults on; and a damaged replay file is refused with its key.

use std::process::Command;

fn puyobot(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_puyobot")).args(args).output().expect("the puyobot binary runs");
    (out.status.success(), String::from_utf8_lossy(&out.stdout).into(), String::from_utf8_lossy(&out.stderr).into())
}

/// The report without the fields that measure wall-clock time.
fn deterministic(json: &str) -> serde_json::Value {
    let mut v: serde_json::Value = serde_json::from_str(json).expect("JSON report");
    fn strip(v: &mut serde_json::Value) {
        match v {
            serde_json::Value::Object(m) => {
                m.retain(|k, _| {
                    ![
                        "seconds",
                        "fps",
                        "realtime_factor",
                        "bot_time_share",
                        "bot_think_seconds",
                        "think_ms_total",
                        "cpu",
                    ]
                    .contains(&k.as_str())
                });
                m.values_mut().for_each(strip);
            }
            serde_json::Value::Array(a) => a.iter_mut().for_each(strip),
            _ => {}
        }
    }
    strip(&mut v);
    v
}

#[test]
fn a_saved_run_replays_bit_for_bit_with_faults() {
    let dir = std::env::temp_dir().join(format!("puyobot-replay-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let file = dir.join("run.replay");
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
        "--save-inputs",
        &file_s,
        "--json",
    ]);
    assert!(ok, "play failed: {err}");
    let a = deterministic(&first);
    assert!(a["faults_injected"].as_u64().unwrap_or(0) > 0, "{a}");
    assert_eq!(a["ram_hash"].as_str().map(str::len), Some(16), "{a}");
    let (ok, second, err) = puyobot(&["replay", &file_s, "--json"]);
    assert!(ok, "replay failed: {err}");
    assert_eq!(deterministic(&second), a);

    // One changed pad byte makes the replay diverge, and says at which frame.
    let text = std::fs::read_to_string(&file).expect("replay file");
    let pads_at = text.find("pads = ").expect("pads key");
    let (head, tail) = text.split_at(pads_at);
    let changed = format!("{head}{}", tail.replacen("x0000", "x0040", 1));
    std::fs::write(&file, changed).expect("write");
    let (ok, _, err) = puyobot(&["replay", &file_s, "--headless"]);
    assert!(!ok && err.contains("diverged at frame") && err.contains("the file has pads 0040"), "{err}");

    std::fs::write(&file, text.replace("version = 1", "version = 7")).expect("write");
    let (ok, _, err) = puyobot(&["replay", &file_s]);
    assert!(!ok && err.contains("run.replay") && err.contains("`version`"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
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
    let file = dir.join("run.replay");
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
        "--save-inputs",
        &file.display().to_string(),
    ]);
    assert!(ok, "play failed: {err}");
    let (_, pads) = puyobot::emu::replay::Replay::load(&file).expect("replay file");
    (file, pads)
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
