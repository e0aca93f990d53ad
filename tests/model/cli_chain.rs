//! `puyobot chain`: output, JSON shape and errors.

use std::process::Command;

fn chain(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_puyobot")).arg("chain").args(args).output().expect("run puyobot")
}

fn fixture(name: &str) -> String {
    format!("{}/tests/fixtures/fields/{name}", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn json_reports_chains_score_cleared_and_the_final_field() {
    let out = chain(&[&fixture("stairs4.txt"), "--json"]);
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("valid JSON");
    assert_eq!(v["chains"], 4);
    assert_eq!(v["score"], 2280);
    assert_eq!(v["cleared"], 16);
    let field = v["field"].as_array().expect("field array");
    assert_eq!(field.len(), 14);
    assert!(field.iter().all(|r| r == "......"));
}

#[test]
fn text_output_lists_each_step_and_the_field() {
    let out = chain(&[&fixture("gtr3.txt")]);
    assert!(out.status.success());
    let s = String::from_utf8_lossy(&out.stdout);
    assert_eq!(s.matches("step ").count(), 3, "{s}");
    assert!(s.contains("chains: 3  score: 1000  cleared: 12"), "{s}");
    assert_eq!(s.lines().filter(|l| *l == "......").count(), 14, "everything cleared: {s}");
}

#[test]
fn a_bad_field_file_fails_with_line_and_column() {
    let dir = std::env::temp_dir().join(format!("puyobot-chain-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.txt");
    std::fs::write(&bad, "......\n..Z...\n").unwrap();
    let out = chain(&[bad.to_str().unwrap()]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("line 2, column 3"), "{err}");
    assert!(err.contains("bad.txt"), "{err}");
    let missing = chain(&[dir.join("nope.txt").to_str().unwrap()]);
    assert!(!missing.status.success());
    assert!(String::from_utf8_lossy(&missing.stderr).contains("cannot read field file"));
}
