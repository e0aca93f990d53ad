//! Runs people can rely on, tried on the built binary as a person would: an interrupt stops a run at a
//! safe point and writes what it has (exit 130); output paths are checked before the work; contradictory
//! flags are refused by name; a closed stdout ends the program quietly; `--jobs` does not change the
//! games; the configuration is found in the user's folder.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common::report::without_timing;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_puyobot"))
}

fn puyobot(args: &[&str]) -> Output {
    bin().args(args).output().expect("the puyobot binary runs")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn temp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("puyobot-runs-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("temp dir");
    d
}

/// Sends `signal` to the child after `after`, then waits for it.
fn signal_after(child: Child, signal: i32, after: Duration) -> Output {
    std::thread::sleep(after);
    // SAFETY: kill(2) on the pid of a child this test started and has not waited for yet.
    let sent = unsafe { libc::kill(child.id() as i32, signal) };
    assert_eq!(sent, 0, "the signal was sent");
    let started = Instant::now();
    let out = child.wait_with_output().expect("wait");
    assert!(started.elapsed() < Duration::from_secs(60), "the run stopped at a safe point, not at its end");
    out
}

#[test]
fn sigint_stops_a_headless_match_that_writes_its_report() {
    let child = bin()
        .args([
            "play",
            "--headless",
            "--fast",
            "--games",
            "50",
            "--speed",
            "10",
            "--seed",
            "3",
            "--config",
            "/dev/null",
        ])
        .arg("--json")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let out = signal_after(child, libc::SIGINT, Duration::from_secs(8));
    assert_eq!(out.status.code(), Some(130), "stderr: {}", text(&out.stderr));
    let r: Value = serde_json::from_str(&text(&out.stdout)).expect("the JSON report is written");
    assert_eq!(r["interrupted"], true, "{r}");
    let games = r["games"].as_array().expect("games");
    assert!(games.len() < 50, "{r}");
    assert_eq!(r["tally"]["games"].as_u64(), Some(games.len() as u64));
    assert!(r["frames"].as_u64().unwrap_or(0) > 0, "{r}");
}

#[test]
fn sigint_stops_a_recorded_run_whose_trace_replays_exactly_to_where_it_stopped() {
    let dir = temp("sigint");
    let inputs = dir.join("run.trace");
    // The full search in Endless: far from a game over when the interrupt comes.
    let child = bin()
        .args(["play", "--headless", "--mode", "endless", "--frames", "100000000", "--speed", "10", "--seed", "3"])
        .args(["--config", "/dev/null", "--json"])
        .arg("--save-inputs")
        .arg(&inputs)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let out = signal_after(child, libc::SIGINT, Duration::from_secs(5));
    assert_eq!(out.status.code(), Some(130), "stderr: {}", text(&out.stderr));
    let r: Value = serde_json::from_str(&text(&out.stdout)).expect("the JSON report is written");
    assert_eq!(r["interrupted"], true, "{r}");
    let frames = r["frames"].as_u64().unwrap_or(0);
    assert!(frames > 0, "{r}");
    // The trace holds what was played, and replaying it stops there and matches.
    let replay = puyobot(&["replay", &inputs.display().to_string(), "--headless"]);
    assert!(replay.status.success(), "replay: {}", text(&replay.stderr));
    let said = text(&replay.stdout);
    assert!(said.contains(&format!("matches the file, {frames} frames")), "{said}");
    assert!(said.contains(r["ram_hash"].as_str().expect("ram_hash")), "{said}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn sigterm_stops_sim_with_the_games_played_so_far() {
    let child = bin()
        .args(["sim", "endless", "--games", "100000", "--pieces", "50", "--ai", "classic", "--json"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let out = signal_after(child, libc::SIGTERM, Duration::from_secs(3));
    assert_eq!(out.status.code(), Some(130), "stderr: {}", text(&out.stderr));
    let r: Value = serde_json::from_str(&text(&out.stdout)).expect("the JSON summary is written");
    assert_eq!(r["interrupted"], true);
    let games = r["games"].as_u64().unwrap_or(0);
    assert!(games > 0 && games < 100_000, "{games} games");
}

#[test]
fn a_closed_stdout_ends_the_program_quietly() {
    let field = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/fields/gtr3.txt");
    let mut child =
        bin().arg("chain").arg(&field).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("spawn");
    drop(child.stdout.take()); // the reader leaves before the first line, as `| head -0` does
    let out = child.wait_with_output().expect("wait");
    let err = text(&out.stderr);
    assert!(!err.contains("panicked") && !err.contains("Broken pipe"), "{err}");
    use std::os::unix::process::ExitStatusExt;
    assert!(out.status.code() == Some(0) || out.status.signal() == Some(libc::SIGPIPE), "{:?}", out.status);
}

#[test]
fn output_paths_are_checked_before_the_run_starts() {
    // Each of these runs would take minutes; a refusal in seconds shows the check came first.
    let cases: [(&str, &[&str]); 5] = [
        ("--save-inputs", &["play", "--headless", "--games", "1", "--save-inputs", "/sys/run.trace"]),
        ("--save-inputs", &["play", "--headless", "--games", "1", "--save-inputs", "/nonexistent-dir/run.trace"]),
        ("--write-addresses", &["play", "--headless", "--games", "50", "--write-addresses", "/sys/learned"]),
        ("--record", &["play", "--headless", "--games", "1", "--record", "/sys/run.trace"]),
        ("--plot", &["sim", "endless", "--games", "100000", "--plot", "/sys/plot.svg"]),
    ];
    for (flag, args) in cases {
        let started = Instant::now();
        // `play` reads config.toml (`sim` plays an AI profile): keep a local one out of the way.
        let config: &[&str] = if args[0] == "play" { &["--config", "/dev/null"] } else { &[] };
        let out = bin().args(args).args(config).output().expect("run");
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert!(err.starts_with(&format!("error: {flag} /")), "{args:?}: {err}");
        assert_eq!(err.matches("os error").count(), err.contains("os error") as usize, "said once: {err}");
        assert!(started.elapsed() < Duration::from_secs(20), "{args:?} took {:?}", started.elapsed());
    }
}

#[test]
fn contradictory_or_inert_flags_are_refused_naming_both() {
    let cases: [(&[&str], &[&str]); 11] = [
        (&["--headless", "--frames", "10", "--mode", "vs-human"], &["--mode vs-human", "--headless"]),
        (&["--headless", "--frames", "10", "--mode", "endless", "--p2-ai", "classic"], &["--p2-ai", "--mode endless"]),
        (&["--headless", "--frames", "10", "--pieces", "5", "--games", "2"], &["--frames", "--pieces", "--games"]),
        (&["--headless", "--frames", "0"], &["--frames 0"]),
        (&["--json"], &["--json", "--headless"]),
        (&["--faults", "drop=0.1"], &["--faults", "--headless"]),
        (&["--headless", "--frames", "10", "--emu-speed", "2"], &["--emu-speed", "--headless"]),
        (&["--headless", "--frames", "10", "--no-menu"], &["--no-menu", "--headless"]),
        (&["--headless", "--games", "3", "--record", "/tmp/x.trace"], &["--record", "--games"]),
        (
            &["--headless", "--frames", "10", "--calibrate", "off", "--write-addresses", "/tmp/x"],
            &["--write-addresses", "--calibrate off"],
        ),
        (&["--headless", "--frames", "10", "--p1-ai", "deep-blue"], &["--p1-ai", "classic and chain"]),
    ];
    for (args, words) in cases {
        let out = bin().arg("play").args(args).args(["--config", "/dev/null"]).output().expect("run");
        let err = text(&out.stderr);
        assert!(!out.status.success(), "{args:?} ran");
        for w in words {
            assert!(err.contains(w), "{args:?}: {err:?} does not name {w}");
        }
        assert!(!err.contains("random") && !err.contains("greedy"), "test bots are not offered: {err}");
    }
    // --jobs without --games is refused by the parser.
    let out = puyobot(&["play", "--headless", "--frames", "10", "--jobs", "2"]);
    assert!(!out.status.success() && text(&out.stderr).contains("--games"), "{}", text(&out.stderr));
}

#[test]
fn a_run_stopped_by_a_piece_limit_says_stopped() {
    let out = puyobot(&["play", "--headless", "--pieces", "3", "--speed", "10", "--config", "/dev/null"]);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(stdout.contains("1 stopped") && !stdout.contains("abandoned"), "{stdout}");
}

#[test]
fn the_configuration_is_found_in_the_current_folder_then_the_users_folder() {
    let work = temp("cfg-work");
    let user = temp("cfg-user");
    let print = |cwd: &Path| {
        let out = bin().args(["play", "--print-config"]).current_dir(cwd).env("PUYOBOT_CONFIG_DIR", &user).output();
        let out = out.expect("run");
        assert!(out.status.success(), "{}", text(&out.stderr));
        text(&out.stdout)
    };
    let none = print(&work);
    assert!(none.starts_with("# puyobot configuration: the built-in defaults (no config file found)"), "{none}");
    std::fs::write(user.join("config.toml"), "[play]\nspeed = 3\n").expect("user config");
    let users = print(&work);
    assert!(users.contains("speed = 3"), "{users}");
    assert!(users.lines().next().unwrap_or_default().contains(&user.join("config.toml").display().to_string()));
    std::fs::write(work.join("config.toml"), "[play]\nspeed = 4\n").expect("local config");
    let local = print(&work);
    assert!(local.contains("speed = 4") && local.lines().next().unwrap_or_default().contains("cfg-work"), "{local}");
    let _ = std::fs::remove_dir_all(&work);
    let _ = std::fs::remove_dir_all(&user);
}

#[test]
fn no_progress_drawing_reaches_a_stderr_that_is_not_a_terminal() {
    let out = puyobot(&["sim", "endless", "--games", "3", "--pieces", "20", "--jobs", "2"]);
    assert!(out.status.success());
    let err = text(&out.stderr);
    assert!(!err.contains('\r') && !err.contains("games"), "{err:?}");
}

/// The report minus what depends on the clock.
fn games_part(r: &Value) -> Value {
    let mut players = r["players"].clone();
    for p in players.as_array_mut().into_iter().flatten() {
        if let Some(o) = p.as_object_mut() {
            o.remove("think_ms_total");
        }
    }
    serde_json::json!({
        "games": r["games"], "tally": r["tally"], "ram_hash": r["ram_hash"], "frames": r["frames"],
        "players": players, "winner": r["winner"], "seed": r["seed"], "interrupted": r["interrupted"],
    })
}

#[test]
fn jobs_do_not_change_the_games_and_game_k_is_the_single_game_of_seed_s_plus_k() {
    let serial = super::matches::three_games();
    let out = crate::common::ai_vs_ai(&["--games", "3", "--seed", "11", "--jobs", "2"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let parallel: Value = serde_json::from_str(&text(&out.stdout)).expect("JSON");
    assert_eq!(games_part(&parallel), games_part(serial), "--jobs 2 against --jobs 1");
    let alone = super::matches::match_json(1, 13);
    let mut third = serial["games"][2].clone();
    third["game"] = 1.into();
    assert_eq!(alone["games"][0], third, "game 3 of seed 11 is the one game of seed 13");
}

#[test]
fn sigint_stops_train_with_the_finished_generations_saved_and_soak_with_its_samples() {
    let dir = temp("train");
    let out = dir.join("run");
    let child = bin()
        .args(["train", "--ai", "classic", "--generations", "100000", "--games", "2", "--pieces", "20"])
        .args(["--out"])
        .arg(&out)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let o = signal_after(child, libc::SIGINT, Duration::from_secs(4));
    assert_eq!(o.status.code(), Some(130), "{}", text(&o.stderr));
    assert!(text(&o.stderr).contains("the same command resumes"), "{}", text(&o.stderr));
    let checkpoint: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("checkpoint.json")).expect("checkpoint")).expect("JSON");
    assert!(checkpoint["generation"].as_u64().unwrap_or(0) >= 1, "at least one generation was saved");

    let csv = dir.join("soak.csv");
    let child = bin()
        .args(["soak", "--minutes", "30", "--sample-secs", "1", "--fps", "0", "--config", "/dev/null", "--csv"])
        .arg(&csv)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let o = signal_after(child, libc::SIGTERM, Duration::from_secs(4));
    assert_eq!(o.status.code(), Some(130), "{}", text(&o.stderr));
    let report = text(&o.stdout);
    assert!(report.contains("(interrupted)") && !report.contains("[(\""), "{report}");
    let rows = std::fs::read_to_string(&csv).expect("csv").lines().count();
    assert!(rows >= 3, "a header and samples: {rows} lines");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_full_search_replays_exactly_headless_and_fast_plays_the_two_ply_profile() {
    let run = |fast: bool| -> Value {
        let mut args =
            vec!["play", "--headless", "--mode", "endless", "--pieces", "30", "--speed", "10", "--seed", "7"];
        args.extend(["--config", "/dev/null", "--json"]);
        if fast {
            args.push("--fast");
        }
        let out = puyobot(&args);
        assert!(out.status.success(), "{}", text(&out.stderr));
        serde_json::from_str(&text(&out.stdout)).expect("JSON")
    };
    let (first, second) = (run(false), run(false));
    assert_eq!(first["profile"], "full", "the default is the full search");
    assert!(first["players"][0]["pieces"].as_u64().unwrap_or(0) >= 30, "{first:#}");
    // The search's work is counted in sampled futures, not time: the same seed plays the same game.
    assert_eq!(without_timing(first.clone()), without_timing(second), "two runs of seed 7");
    let fast = run(true);
    assert_eq!(fast["profile"], "two-ply");
    assert_ne!(fast["ram_hash"], first["ram_hash"], "the two-ply search plays another game");
}
