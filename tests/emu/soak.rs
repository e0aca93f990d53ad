//! A CI-sized soak: AI-vs-AI games back to back at full speed for 60 seconds (it ends the
//! test run, so its length is CI wall time); resident memory must stay
//! flat (the last sample within 10 % of the first after warm-up), with no panic and no mismatch.

use std::process::Command;

#[test]
fn a_short_soak_keeps_memory_flat_with_no_panic_and_no_mismatch() {
    let out = Command::new(env!("CARGO_BIN_EXE_puyobot"))
        .args(["soak", "--minutes", "1", "--sample-secs", "5", "--fps", "0", "--seed", "3", "--json"])
        .output()
        .expect("the puyobot binary runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "soak failed:\n{stdout}\n{stderr}");
    let report: serde_json::Value =
        serde_json::from_str(stdout.lines().last().unwrap_or_default()).expect("the last line is the JSON report");
    let samples = report["samples"].as_array().expect("samples");
    assert!(samples.len() >= 10, "a sample every 5 s for 60 s: got {}", samples.len());
    assert!(report["games"].as_u64().unwrap_or(0) >= 2, "games were played back to back: {report}");
    assert_eq!(report["panics"], 0);
    assert_eq!(report["mismatches"], 0);
    let ratio = report["memory_ratio"].as_f64().expect("a memory ratio after warm-up");
    assert!(ratio <= 1.10, "resident memory grew by {:.1} %", (ratio - 1.0) * 100.0);
    assert!(samples.iter().all(|s| s["fps"].as_f64().unwrap_or(0.0) >= 0.0));
}
