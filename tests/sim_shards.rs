//! `sim --shard I/N` slices merge (`sim merge`) into exactly the JSON of the whole run.
//!
//! `timing` is the one part that cannot match: it is measured wall and CPU time, which differs between
//! any two runs of the same games. It merges exactly (sums and bucket counts); every other byte of the
//! merged JSON must equal the single run's.

use std::path::{Path, PathBuf};
use std::process::Command;

fn puyobot(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_puyobot")).args(args).output().expect("puyobot runs");
    assert!(out.status.success(), "puyobot {args:?} failed: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).expect("UTF-8 output")
}

fn tmp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("puyobot-sim-shards-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir.join(name)
}

/// The JSON text with the `timing` object cut out: everything before `"timing":` and from `,"totals":`.
fn without_timing(json: &str) -> (String, String) {
    let start = json.find("\"timing\":").expect("a timing object");
    let end = json.find(",\"totals\":").expect("totals after timing");
    (json[..start].to_string(), json[end..].to_string())
}

fn shards_merge_to_the_whole_run(base: &[&str], n: usize, tag: &str) -> String {
    let whole = puyobot(&[base, &["--json"]].concat());
    let mut files: Vec<PathBuf> = Vec::new();
    // Shards in reverse order, so the merge cannot rely on the files' order.
    for i in (0..n).rev() {
        let shard = format!("{i}/{n}");
        let text = puyobot(&[base, &["--json", "--shard", &shard]].concat());
        assert!(text.contains(&format!("\"shard\":\"{shard}\"")), "a shard says which it is");
        let f = tmp(&format!("{tag}-{i}.json"));
        std::fs::write(&f, text).expect("write shard");
        files.push(f);
    }
    let mut args = vec!["sim", "merge"];
    args.extend(files.iter().map(|f| f.to_str().expect("UTF-8 path")));
    let merged = puyobot(&args);
    if whole.contains("\"timing\":") {
        assert_eq!(without_timing(&merged), without_timing(&whole));
    } else {
        assert_eq!(merged, whole);
    }
    // Leaving a shard out is an error that names it.
    let mut short = vec![Path::new("sim"), Path::new("merge")];
    short.extend(files.iter().skip(1).map(|f| f.as_path()));
    let out = Command::new(env!("CARGO_BIN_EXE_puyobot")).args(&short).output().expect("puyobot runs");
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("missing"), "{}", String::from_utf8_lossy(&out.stderr));
    whole
}

#[test]
fn endless_shards_merge_to_the_single_run_json() {
    let base = ["sim", "endless", "--ai", "classic", "--games", "7", "--pieces", "60", "--seed", "11", "--colors", "5"];
    let whole = shards_merge_to_the_whole_run(&base, 3, "endless");
    assert!(whole.contains("\"games\":7"), "{whole}");
    assert!(whole.contains("\"puyos_histogram\":["));
}

#[test]
fn battle_shards_merge_to_the_single_run_json() {
    let base =
        ["sim", "battle", "--p1", "classic", "--p2", "random", "--games", "5", "--max-pieces", "80", "--seed", "4"];
    shards_merge_to_the_whole_run(&base, 2, "battle");
}

#[test]
fn merging_slices_of_different_runs_is_refused() {
    let a =
        puyobot(&["sim", "endless", "--ai", "random", "--games", "2", "--pieces", "10", "--json", "--shard", "0/2"]);
    let b = puyobot(&[
        "sim", "endless", "--ai", "random", "--games", "2", "--pieces", "10", "--json", "--shard", "1/2", "--seed", "9",
    ]);
    let (fa, fb) = (tmp("other-a.json"), tmp("other-b.json"));
    std::fs::write(&fa, a).expect("write");
    std::fs::write(&fb, b).expect("write");
    let out = Command::new(env!("CARGO_BIN_EXE_puyobot"))
        .args(["sim", "merge"])
        .args([&fa, &fb])
        .output()
        .expect("puyobot runs");
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("another run"));
}

#[test]
fn plot_draws_the_chain_histogram_and_the_puyo_curve() {
    let svg = tmp("plot.svg");
    puyobot(&[
        "sim",
        "endless",
        "--ai",
        "classic",
        "--games",
        "2",
        "--pieces",
        "80",
        "--plot",
        svg.to_str().expect("UTF-8"),
    ]);
    let text = std::fs::read_to_string(&svg).expect("the plot was written");
    assert!(text.starts_with("<svg"), "an SVG file");
    assert!(text.contains("chains fired by length") && text.contains("Gaussian: mean"), "both panels and the fit");
}

/// `sim` plays an AI profile, never `./config.toml` (the user's `play` settings): a bad key in a profile
/// file is named with the file; a config.toml in the working directory changes nothing; `sim profile`
/// prints a file that plays the same games as the name.
#[test]
fn sim_plays_the_profile_it_is_given_and_names_a_bad_key() {
    let dir = tmp("profiles");
    std::fs::create_dir_all(&dir).expect("dir");
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_puyobot")).current_dir(&dir).args(args).output().expect("puyobot runs")
    };
    std::fs::write(dir.join("bad.toml"), "[ai.chain]\nno_such_weight = 1.0\n").expect("write");
    let out = run(&["sim", "endless", "--games", "1", "--pieces", "5", "--json", "--profile", "bad.toml"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "a bad profile must stop sim");
    assert!(err.contains("bad.toml") && err.contains("ai.chain.no_such_weight"), "{err}");
    let out = run(&["sim", "profile", "full"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    std::fs::write(dir.join("full.toml"), &out.stdout).expect("write");
    let game = |profile: &str| {
        let out = run(&["sim", "endless", "--games", "1", "--pieces", "12", "--json", "--profile", profile]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
        (v["score_mean"].clone(), v["config_crc"].clone())
    };
    let named = game("full");
    assert_eq!(game("full.toml"), named, "the printed profile is the profile");
    std::fs::write(dir.join("config.toml"), "[play]\nspeed = 3\n").expect("write");
    assert_eq!(game("full"), named, "config.toml plays no part in sim");
}

#[test]
fn the_spawn_orientation_is_recorded_and_a_wrong_name_is_refused() {
    let base = ["sim", "endless", "--profile", "two-ply", "--pieces", "30", "--games", "2", "--seed", "4"];
    let left = puyobot(&[&base[..], &["--spawn", "left", "--json"]].concat());
    assert!(left.contains("\"spawn\":\"left\""), "{left}");
    let up = puyobot(&[&base[..], &["--json"]].concat());
    assert!(up.contains("\"spawn\":\"up\""), "{up}");
    let out = Command::new(env!("CARGO_BIN_EXE_puyobot"))
        .args([&base[..], &["--spawn", "sideways"]].concat())
        .output()
        .expect("puyobot runs");
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("expected up, right, down or left"), "{err}");
}

#[test]
fn battles_with_items_end_are_recorded_and_replay_from_their_seed() {
    let max = 300;
    for items in ["big-puyo", "carbuncle"] {
        let run = |first: &str, games: &str| {
            let text = puyobot(&[
                "sim",
                "battle",
                "--p1",
                "chain",
                "--p2",
                "rush",
                "--profile",
                "two-ply",
                "--items",
                items,
                "--seed",
                "7",
                "--max-pieces",
                "300",
                "--first-game",
                first,
                "--games",
                games,
                "--json",
            ]);
            serde_json::from_str::<serde_json::Value>(&text).expect("JSON")
        };
        let json = run("0", "4");
        assert_eq!(json["items"], items, "{json}");
        let runs = json["runs"].as_array().expect("the games");
        assert_eq!(runs.len(), 4);
        let mut decided = 0;
        for g in runs {
            let pieces: Vec<u64> = g["pieces"].as_array().expect("pieces").iter().filter_map(|p| p.as_u64()).collect();
            assert!(pieces.iter().all(|&p| (16..=max).contains(&p)), "every side saw an item: {g}");
            match g["winner"].as_u64().expect("a winner or 0") {
                0 => assert_eq!(pieces, [max, max], "a draw only at --max-pieces: {g}"),
                w => {
                    decided += 1;
                    assert!(g["nuisance_sent"][w as usize - 1].as_u64() > Some(0), "the winner attacked: {g}");
                }
            }
        }
        assert!(decided > 0, "{items}: no battle of 4 ended within {max} pieces a side");
        // Game 3 played alone deals and plays the same.
        assert_eq!(run("3", "1")["runs"][0], runs[3], "{items}: game 3 replays from the seed");
    }
    let off = puyobot(&["sim", "battle", "--p1", "rush", "--p2", "rush", "--games", "1", "--json"]);
    assert!(off.contains("\"items\":\"off\""), "{off}");
    let endless = ["sim", "endless", "--ai", "classic", "--pieces", "40", "--games", "1", "--items", "big-puyo"];
    let text = puyobot(&[&endless[..], &["--json"]].concat());
    assert!(text.contains("\"items\":\"big-puyo\""), "{text}");
    let out = Command::new(env!("CARGO_BIN_EXE_puyobot"))
        .args([&endless[..], &["--queue", "q.txt"]].concat())
        .output()
        .expect("puyobot runs");
    assert!(!out.status.success(), "a queue deals its own items");
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot be used with"));
}
