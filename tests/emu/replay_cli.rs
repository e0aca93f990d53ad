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
    let (ok, _, err) = puyobot(&["replay", &file_s]);
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
