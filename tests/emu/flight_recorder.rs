//! The flight recorder on real runs of the open cartridge: a run that stops short writes a bug-report
//! bundle to the data folder and names it (stderr and the JSON's `bug_report`); `puyobot replay` on its
//! trace reproduces the stop and `puyobot calibrate` reads it; a long run keeps a bounded bundle that
//! still replays; a folder that cannot be written gives a warning and the run's own error; the bundle
//! holds the ROM's hashes, never its bytes.
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

use crate::common::calib::guessed_folder;

fn scratch(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join("flight-recorder").join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("scratch dir");
    d
}

fn lab(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src/labcart").join(name)
}

fn puyobot(data: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_puyobot")).args(args).env("PUYOBOT_DATA_DIR", data).output().expect("run puyobot")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// The `error: …` line of a run's stderr.
fn error_line(stderr: &str) -> String {
    stderr.lines().skip_while(|l| !l.starts_with("error: ")).collect::<Vec<_>>().join("\n")
}

/// The bundle folders under `data`'s `bug-reports`.
fn bundles(data: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(data.join("bug-reports")) else { return Vec::new() };
    let mut v: Vec<PathBuf> = entries.map(|e| e.expect("entry").path()).collect();
    v.sort();
    v
}

/// Every file under `dir`, with its bytes.
fn files(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).expect("bundle") {
        let p = e.expect("entry").path();
        if p.is_dir() {
            out.extend(files(&p));
        } else {
            out.push((p.clone(), std::fs::read(&p).expect("read")));
        }
    }
    out
}

/// No file of the bundle holds any of a few 1 KB slices of the ROM (PRG and CHR).
fn assert_no_rom_bytes(bundle: &Path, rom: &[u8]) {
    let body = &rom[16..];
    let all = files(bundle);
    for at in (0..body.len() - 1024).step_by(body.len() / 7) {
        let slice = &body[at..at + 1024];
        for (p, bytes) in &all {
            assert!(!bytes.windows(1024).any(|w| w == slice), "{} holds ROM bytes {at:#x}..", p.display());
        }
    }
}

/// The guessed address files and the wrong-orientation build with calibration off: the health check
/// stops the bots within a few dozen pieces, naming movement.
fn health_stop_args(guessed: &Path) -> Vec<String> {
    let rom = lab("puyolab-orient.nes");
    [
        "play",
        "--headless",
        "--json",
        "--speed",
        "10",
        "--fast",
        "--rom",
        rom.to_str().unwrap(),
        "--allow-unknown-rom",
        "--addresses",
        guessed.to_str().unwrap(),
        "--mode",
        "endless",
        "--pieces",
        "150",
        "--calibrate",
        "off",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

#[test]
fn a_health_stop_writes_a_bundle_that_replays_and_calibrates_and_holds_no_rom() {
    let dir = scratch("health");
    let guessed = guessed_folder(&dir);
    let data = dir.join("data");
    let args = health_stop_args(&guessed);
    let argv: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = puyobot(&data, &argv);
    let err = text(&out.stderr);
    assert!(!out.status.success(), "the health check stops the run: {err}");
    let found = bundles(&data);
    assert_eq!(found.len(), 1, "one bundle: {found:?}\n{err}");
    let bundle = &found[0];
    let name = bundle.file_name().unwrap().to_string_lossy().into_owned();
    assert!(name.ends_with("-health-movement"), "named by time and reason: {name}");
    assert!(err.contains(&format!("bug report: {}", bundle.display())), "the path is on stderr: {err}");
    let j: Value = serde_json::from_slice(&out.stdout).expect("JSON report");
    assert_eq!(j["bug_report"], bundle.display().to_string());

    let report: Value = serde_json::from_slice(&std::fs::read(bundle.join("report.json")).unwrap()).unwrap();
    assert_eq!(report["reason"], "health-movement");
    assert!(report["message"].as_str().unwrap().contains("movement"), "{}", report["message"]);
    assert_eq!(report["argv"][1], "play");
    let argv_text: Vec<&str> = report["argv"].as_array().unwrap().iter().filter_map(Value::as_str).collect();
    assert_eq!(argv_text[1..], argv[..], "the whole command line");
    assert_eq!(report["seed"], 1);
    assert_eq!(report["health"]["state"], "failed");
    assert!(report["health"]["players"][0]["presses"].as_u64().unwrap() > 0, "{}", report["health"]);
    let rom = std::fs::read(lab("puyolab-orient.nes")).unwrap();
    let body = &rom[16..];
    assert_eq!(report["rom"]["sha1"], sha1_smol::Sha1::from(body).digest().to_string().to_uppercase());
    assert_eq!(report["rom"]["crc32"], format!("{:08X}", crc32fast::hash(body)));
    let readme = std::fs::read_to_string(bundle.join("README.txt")).unwrap();
    assert!(readme.contains("What to send") && readme.contains("no ROM bytes"), "{readme}");
    assert!(bundle.join("config.toml").is_file());
    assert_no_rom_bytes(bundle, &rom);

    // The trace holds every frame the run played, and the same configuration run again stops the same way.
    let trace = bundle.join("run.trace");
    assert_eq!(report["traces"][0]["frames"], report["frames"]);
    let replay = puyobot(
        &data,
        &["replay", trace.to_str().unwrap(), "--headless", "--rom", lab("puyolab-orient.nes").to_str().unwrap()],
    );
    let replay_err = text(&replay.stderr);
    assert!(replay.status.success(), "replay: {replay_err}");
    assert!(replay_err.contains("reproduced") && replay_err.contains("health-movement"), "{replay_err}");
    assert!(text(&replay.stdout).contains("matches the file"), "{}", text(&replay.stdout));
    let cal =
        puyobot(&data, &["calibrate", trace.to_str().unwrap(), "--addresses", guessed.to_str().unwrap(), "--json"]);
    assert!(cal.status.success(), "calibrate: {}", text(&cal.stderr));
    let cal: Value = serde_json::from_slice(&cal.stdout).expect("calibrate JSON");
    assert_eq!(cal["trace"]["frames"], report["frames"]);

    // Off: the same stop, the same error line, no bundle and no `bug_report`.
    let quiet_data = dir.join("quiet");
    let mut quiet = argv.clone();
    quiet.push("--no-bug-report");
    let q = puyobot(&quiet_data, &quiet);
    assert_eq!(q.status.code(), out.status.code());
    assert_eq!(error_line(&text(&q.stderr)), error_line(&err));
    assert!(bundles(&quiet_data).is_empty());
    let qj: Value = serde_json::from_slice(&q.stdout).expect("JSON report");
    assert!(qj.get("bug_report").is_none(), "{qj}");
}

#[test]
fn a_folder_that_cannot_be_written_warns_and_keeps_the_runs_own_error() {
    let dir = scratch("unwritable");
    let guessed = guessed_folder(&dir);
    // A regular file where the folder should be: no user (root included) can create a folder under it.
    let blocker = dir.join("not-a-folder");
    std::fs::write(&blocker, b"x").unwrap();
    let folder = blocker.join("bug-reports");
    let args = health_stop_args(&guessed);
    let mut argv: Vec<&str> = args.iter().map(String::as_str).collect();
    let quiet = {
        let mut q = argv.clone();
        q.push("--no-bug-report");
        puyobot(&dir.join("quiet"), &q)
    };
    argv.extend(["--bug-report-dir", folder.to_str().unwrap()]);
    let out = puyobot(&dir.join("data"), &argv);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), quiet.status.code(), "{err}");
    assert!(err.contains("warning: no bug report") && err.contains(folder.to_str().unwrap()), "{err}");
    assert_eq!(error_line(&err), error_line(&text(&quiet.stderr)));
    assert!(error_line(&err).contains("health: "), "{err}");
    let j: Value = serde_json::from_slice(&out.stdout).expect("the report is still printed");
    assert!(j.get("bug_report").is_none());
}

#[test]
fn a_calibration_failure_writes_a_bundle_with_what_calibration_saw() {
    let dir = scratch("calibration");
    let guessed = guessed_folder(&dir);
    // The field moved to where nothing of the game is: calibration cannot learn the colour byte.
    let file = guessed.join("1p-endless.toml");
    let t = std::fs::read_to_string(&file).unwrap();
    assert!(t.contains("base = 0x0300, row_stride = 16"), "the guessed file's field entry");
    std::fs::write(&file, t.replace("base = 0x0300, row_stride = 16", "base = 0x0500, row_stride = 16")).unwrap();
    let data = dir.join("data");
    let rom = lab("puyolab.nes");
    let out = puyobot(
        &data,
        &[
            "play",
            "--headless",
            "--speed",
            "10",
            "--fast",
            "--rom",
            rom.to_str().unwrap(),
            "--allow-unknown-rom",
            "--addresses",
            guessed.to_str().unwrap(),
            "--mode",
            "endless",
            "--pieces",
            "100",
        ],
    );
    let err = text(&out.stderr);
    assert!(!out.status.success() && err.contains("not settled: "), "calibration fails: {err}");
    let found = bundles(&data);
    assert_eq!(found.len(), 1, "{err}");
    assert!(found[0].to_string_lossy().ends_with("-calibration"), "{found:?}");
    let report: Value = serde_json::from_slice(&std::fs::read(found[0].join("report.json")).unwrap()).unwrap();
    assert_eq!(report["calibration"]["state"], "failed", "{}", report["calibration"]);
    assert!(!report["calibration"]["unsettled"].as_array().unwrap().is_empty());
    let trace = found[0].join("run.trace");
    let replay = puyobot(&data, &["replay", trace.to_str().unwrap(), "--headless"]);
    let replay_err = text(&replay.stderr);
    assert!(replay.status.success() && replay_err.contains("reproduced: the run stops again"), "{replay_err}");
    assert_no_rom_bytes(&found[0], &std::fs::read(&rom).unwrap());
}

#[test]
fn a_long_run_keeps_a_bounded_bundle_whose_tail_replays() {
    let dir = scratch("long");
    let data = dir.join("data");
    let lab_cfg = dir.join("lab.toml");
    // The smallest ring (one block of 300 frames at each end), so that a short top-out already drops most
    // of its frames; the bound is the same for a run of any length (`trace::ring`'s own test runs 20 000).
    std::fs::write(&lab_cfg, "[lab]\nbug_report_frames = 300\n").unwrap();
    let out = puyobot(
        &data,
        &[
            "play",
            "--headless",
            "--json",
            "--speed",
            "10",
            "--fast",
            "--mode",
            "endless",
            "--pieces",
            "2000",
            "--strength",
            "0",
            "--seed",
            "4",
            "--config",
            lab_cfg.to_str().unwrap(),
        ],
    );
    let err = text(&out.stderr);
    // A top-out before the pieces asked for is a stop for the bug report, not an error of the run.
    assert!(out.status.success(), "{err}");
    let found = bundles(&data);
    assert_eq!(found.len(), 1, "{err}");
    let bundle = &found[0];
    assert!(bundle.to_string_lossy().ends_with("-top-out"), "{found:?}");
    let report: Value = serde_json::from_slice(&std::fs::read(bundle.join("report.json")).unwrap()).unwrap();
    let frames = report["frames"].as_u64().unwrap();
    let kept: u64 = report["traces"].as_array().unwrap().iter().map(|t| t["frames"].as_u64().unwrap()).sum();
    assert!(kept <= 900, "the start and the tail, at most a block more: {kept} of {frames} frames");
    assert_eq!(report["frames_not_kept"].as_u64().unwrap(), frames - kept, "{report}");
    assert!(frames > 2 * kept, "the run was long enough to drop frames: {frames}");
    let size: usize = files(bundle).iter().map(|(_, b)| b.len()).sum();
    assert!(size < 80_000, "the bundle stays small: {size} bytes");
    let tail = bundle.join("tail.trace");
    let names: Vec<_> = files(bundle).into_iter().map(|f| f.0).collect();
    assert!(bundle.join("start.trace").is_file() && tail.is_file(), "{names:?}");
    let replay = puyobot(&data, &["replay", tail.to_str().unwrap(), "--headless"]);
    let stdout = text(&replay.stdout);
    assert!(replay.status.success(), "the tail replays from the recorded seed: {}", text(&replay.stderr));
    assert!(stdout.contains(&format!("matches the file, {} frames", report["traces"][1]["frames"])), "{stdout}");
    let start = bundle.join("start.trace");
    let cal = puyobot(&data, &["calibrate", start.to_str().unwrap()]);
    assert!(cal.status.success(), "{}", text(&cal.stderr));
    assert!(text(&cal.stdout).contains("frames"), "{}", text(&cal.stdout));
}

#[test]
fn an_interrupt_writes_a_bundle_and_keeps_its_exit_code() {
    let dir = scratch("interrupt");
    let data = dir.join("data");
    let child = Command::new(env!("CARGO_BIN_EXE_puyobot"))
        .args(["play", "--headless", "--json", "--speed", "10", "--fast", "--mode", "endless"])
        .args(["--pieces", "2000", "--seed", "4"])
        .env("PUYOBOT_DATA_DIR", &data)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run puyobot");
    // SIGTERM once it is under way, as a service manager stops a program.
    std::thread::sleep(std::time::Duration::from_secs(4));
    // SAFETY: kill(2) on the child's own id, which is ours to signal (it has not been waited for).
    unsafe {
        libc::kill(child.id() as i32, libc::SIGTERM);
    }
    let out = child.wait_with_output().expect("wait");
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "an interrupt's exit code: {err}");
    let found = bundles(&data);
    assert_eq!(found.len(), 1, "{err}");
    assert!(found[0].to_string_lossy().ends_with("-interrupt"), "{found:?}");
    let j: Value = serde_json::from_slice(&out.stdout).expect("the report is printed");
    assert_eq!(j["interrupted"], true);
    assert_eq!(j["bug_report"], found[0].display().to_string());
    let report: Value = serde_json::from_slice(&std::fs::read(found[0].join("report.json")).unwrap()).unwrap();
    assert_eq!(report["frames"], j["frames"], "every frame the run played was recorded");
    // One trace from power-on, or (on a fast machine) the start and the tail: the last one replays.
    let trace = ["run.trace", "tail.trace"].iter().map(|n| found[0].join(n)).find(|p| p.is_file()).expect("a trace");
    let replay = puyobot(&data, &["replay", trace.to_str().unwrap(), "--headless"]);
    assert!(replay.status.success(), "{}", text(&replay.stderr));
}
