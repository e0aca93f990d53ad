//! The headless JSON report's `cpu` object: the process's CPU time, frames per CPU second and each seat's
//! bot CPU time, consistent with each other and with the bots that played.

use std::process::Command;

use serde_json::Value;

fn num(v: &Value, key: &str) -> f64 {
    v[key].as_f64().unwrap_or_else(|| panic!("`{key}` is not a number in {v}"))
}

#[test]
fn the_cpu_object_is_present_and_consistent() {
    let out = Command::new(env!("CARGO_BIN_EXE_puyobot"))
        .args([
            "play",
            "--headless",
            "--fast",
            "--mode",
            "ai-vs-ai",
            "--p1-ai",
            "chain",
            "--p2-ai",
            "greedy",
            "--frames",
            "1500",
            "--speed",
            "10",
            "--seed",
            "3",
            "--json",
        ])
        .output()
        .expect("the puyobot binary runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let report: Value = serde_json::from_slice(&out.stdout).expect("JSON report");
    if !std::path::Path::new("/proc/self/stat").exists() {
        // Not Linux: the platform does not tell the process's CPU time.
        assert!(report["cpu"].is_null(), "{report}");
        return;
    }
    let cpu = &report["cpu"];
    assert!(cpu.is_object(), "no `cpu` object: {report}");
    let frames = report["frames"].as_f64().expect("frames");
    let seconds = num(cpu, "seconds");
    let fps = num(cpu, "fps");
    assert!(frames > 0.0 && seconds > 0.0 && fps > 0.0, "{cpu}");
    assert!((fps - frames / seconds).abs() < 1e-6 * fps, "{cpu}");
    assert!((num(cpu, "realtime_factor") - fps / 60.0988).abs() < 0.01, "{cpu}");
    // The process's threads cannot use more CPU time than the machine's cores had in the run's wall time
    // (the process clock ticks at 10 ms).
    let wall = num(&report, "seconds");
    let cores = std::thread::available_parallelism().map_or(1, usize::from) as f64;
    assert!(seconds <= wall * cores + 0.02, "CPU {seconds} s in {wall} s of wall clock on {cores} cores");

    let share = num(cpu, "bot_share");
    assert!(share > 0.0 && share < 1.0, "{cpu}");
    let seats = cpu["seats"].as_array().expect("seats");
    let labels: Vec<&str> = seats.iter().filter_map(|s| s["label"].as_str()).collect();
    assert_eq!(labels, ["P1", "P2"], "{cpu}");
    let bot_seconds: f64 = seats.iter().map(|s| num(s, "bot_seconds")).sum();
    assert!((bot_seconds - num(cpu, "bot_seconds")).abs() < 1e-9, "{cpu}");
    for s in seats {
        assert!((num(s, "bot_share") - num(s, "bot_seconds") / seconds).abs() < 1e-9, "{cpu}");
    }
    // Both bots decided, and the chain bot's search costs far more than the greedy test bot's.
    let players = report["players"].as_array().expect("players");
    assert!(players.iter().all(|p| p["decisions"].as_u64().unwrap_or(0) > 0), "{report}");
    let (chain, greedy) = (num(&seats[0], "bot_seconds"), num(&seats[1], "bot_seconds"));
    assert!(chain > 0.0 && chain > 3.0 * greedy, "chain {chain} s, greedy {greedy} s");
}
