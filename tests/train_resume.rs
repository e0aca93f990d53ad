//! `puyobot train` is deterministic, resumes from its checkpoint to exactly what an uninterrupted run
//! gives, and evaluates a generation in shards that advance to the same state.

use std::path::{Path, PathBuf};
use std::process::Command;

use puyobot::ai::AiConfig;
use puyobot::sim::Shard;
use puyobot::train::run::{advance, eval_shard, load_or_init, read_shards, save, shard_written, write_shard};
use puyobot::train::{Fitness, Method, ParamSpace, Settings};

fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("puyobot-train-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

fn train(out: &Path, method: &str, fitness: &str, generations: usize) {
    let g = generations.to_string();
    let o = Command::new(env!("CARGO_BIN_EXE_puyobot"))
        .args(["train", "--ai", "classic", "--method", method, "--fitness", fitness, "--generations", &g])
        .args([
            "--games",
            "2",
            "--pieces",
            "30",
            "--max-pieces",
            "40",
            "--population",
            "4",
            "--seed",
            "3",
            "--jobs",
            "2",
        ])
        .arg("--out")
        .arg(out)
        .output()
        .expect("puyobot runs");
    assert!(o.status.success(), "train failed: {}", String::from_utf8_lossy(&o.stderr));
}

fn files(d: &Path) -> Vec<String> {
    ["checkpoint.json", "history.csv", "weights.toml"]
        .iter()
        .map(|f| std::fs::read_to_string(d.join(f)).unwrap_or_else(|e| panic!("{}: {e}", d.join(f).display())))
        .collect()
}

fn stopped_and_resumed_equals_uninterrupted(method: &str, fitness: &str) {
    let whole = dir(&format!("{method}-whole"));
    train(&whole, method, fitness, 3);
    let resumed = dir(&format!("{method}-resumed"));
    train(&resumed, method, fitness, 1);
    let after_one = files(&resumed);
    assert_eq!(after_one[1].lines().count(), 2, "a header and one generation");
    train(&resumed, method, fitness, 3);
    let (a, b) = (files(&whole), files(&resumed));
    assert_eq!(a, b, "resumed run differs from the uninterrupted one");
    assert_eq!(a[1].lines().count(), 4);
    assert_ne!(after_one[0], a[0], "the checkpoint moved on");
    assert!(a[2].contains("[ai.classic]"));
    assert!(
        a[2].starts_with(&format!("# Trained by `puyobot train`: method {method}, fitness {fitness},")),
        "{}",
        a[2]
    );
    let svg = std::fs::read_to_string(whole.join("progress.svg")).expect("a progress plot");
    assert!(svg.starts_with("<svg") && svg.contains("fitness per generation"));
}

#[test]
fn spsa_resumes_to_the_uninterrupted_result() {
    stopped_and_resumed_equals_uninterrupted("spsa", "score");
}

#[test]
fn tournament_resumes_to_the_uninterrupted_result() {
    stopped_and_resumed_equals_uninterrupted("tournament", "battle");
}

#[test]
fn a_checkpoint_refuses_other_settings() {
    let d = dir("other-settings");
    train(&d, "spsa", "score", 1);
    let o = Command::new(env!("CARGO_BIN_EXE_puyobot"))
        .args(["train", "--ai", "classic", "--generations", "2", "--games", "3", "--pieces", "30", "--seed", "3"])
        .arg("--out")
        .arg(&d)
        .output()
        .expect("puyobot runs");
    assert!(!o.status.success());
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("games (checkpoint 2, now 3)"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

#[test]
fn sharded_generations_advance_like_local_ones() {
    let config = AiConfig::default();
    let space = ParamSpace::new(&config, "classic", &[]).expect("classic weights");
    let settings = Settings {
        method: Method::Tournament,
        eval: "classic".into(),
        fitness: Fitness::Score,
        seed: 8,
        games: 2,
        pieces: 25,
        colors: 4,
        max_pieces: 40,
        population: 4,
        spread: 0.2,
        spsa_a: 0.2,
        spsa_c: 0.1,
        spsa_stability: 5.0,
        params: space.names().to_vec(),
        config_crc: 0,
    };
    let local = dir("local");
    let sharded = dir("sharded");
    for _ in 0..2 {
        let s = load_or_init(&local, settings.clone(), &space).expect("state");
        let r = eval_shard(&s, &space, Shard::WHOLE, &|| {}).expect("games");
        save(&local, &advance(&s, &r).expect("advance"), &space).expect("save");

        let s = load_or_init(&sharded, settings.clone(), &space).expect("state");
        for i in [2, 0, 1] {
            let shard = Shard { index: i, count: 3 };
            let r = eval_shard(&s, &space, shard, &|| {}).expect("games");
            write_shard(&sharded, &s, shard, r).expect("write shard");
        }
        let r = read_shards(&sharded, &s).expect("all shards");
        save(&sharded, &advance(&s, &r).expect("advance"), &space).expect("save");
    }
    assert_eq!(files(&local), files(&sharded));
    // A missing shard is named; a written one is known as written (a batch task run again skips it).
    let s = load_or_init(&sharded, settings, &space).expect("state");
    let err = read_shards(&sharded, &s).expect_err("no shard written yet");
    assert!(err.to_string().contains("no shard files gen-00002-shard-"), "{err}");
    let shard = Shard { index: 1, count: 2 };
    assert!(!shard_written(&sharded, &s, shard));
    write_shard(&sharded, &s, shard, eval_shard(&s, &space, shard, &|| {}).expect("games")).expect("write");
    assert!(shard_written(&sharded, &s, shard));
    assert!(!shard_written(&sharded, &s, Shard { index: 0, count: 2 }));
    let err = read_shards(&sharded, &s).expect_err("shard 0/2 missing");
    assert!(err.to_string().contains("missing shard 0/2 in"), "{err}");
    // Every missing shard of a split is named, not only the first.
    let shard = Shard { index: 2, count: 4 };
    let mut other = s.clone();
    other.generation += 1;
    write_shard(&sharded, &other, shard, eval_shard(&s, &space, shard, &|| {}).expect("games")).expect("write");
    let err = read_shards(&sharded, &other).expect_err("three of four missing");
    assert!(err.to_string().contains("missing shards 0/4, 1/4, 3/4 in"), "{err}");
    // No temporary file is left behind.
    let left: Vec<_> = std::fs::read_dir(&sharded)
        .expect("list")
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

#[test]
fn a_shard_task_run_again_skips_its_written_slice_and_advance_names_the_missing_ones() {
    let d = dir("cli-shards");
    let run = |extra: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_puyobot"))
            .args(["train", "--ai", "classic", "--games", "2", "--pieces", "20", "--seed", "5"])
            .arg("--out")
            .arg(&d)
            .args(extra)
            .output()
            .expect("puyobot runs")
    };
    let o = run(&["--shard", "1/3"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let shard = d.join("gen-00000-shard-1-of-3.json");
    let written = std::fs::read_to_string(&shard).expect("shard file");
    let stamp = std::fs::metadata(&shard).and_then(|m| m.modified()).expect("mtime");
    let o = run(&["--shard", "1/3"]);
    assert!(o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("already written"), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(std::fs::metadata(&shard).and_then(|m| m.modified()).expect("mtime"), stamp, "played again");
    assert_eq!(std::fs::read_to_string(&shard).expect("shard file"), written);
    let o = run(&["--advance"]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("generation 0 cannot advance: missing shards 0/3, 2/3 in"), "{err}");
    assert!(!d.join("checkpoint.json").exists(), "advanced without all shards");
}
