//! Long games: a 2P game of `--games N` that runs past `--long-game-pieces` pieces a side is ended and
//! reported as long (its figures and a reason in the JSON, health not "healthy"), and the run fails.

use serde_json::Value;

#[test]
fn an_ai_vs_ai_game_past_the_long_game_pieces_is_reported_as_long_and_fails_the_run() {
    let out = crate::common::ai_vs_ai(&["--games", "1", "--seed", "1", "--long-game-pieces", "30"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "a long game fails the run: {stderr}");
    assert!(stderr.contains("1 of 1 games ran long"), "{stderr}");
    let r: Value = serde_json::from_slice(&out.stdout).expect("the JSON report is printed all the same");
    assert_eq!(r["health"]["state"], "long-game", "{}", r["health"]);
    assert_eq!(r["tally"]["long_games"], 1, "{}", r["tally"]);
    let g = &r["games"][0];
    assert_eq!((g["result"].as_str(), g["winner"].as_str()), (Some("long"), None), "{g}");
    let long = &g["long_game"];
    assert_eq!(long["pieces_limit"], 30, "{long}");
    let sides = long["sides"].as_array().expect("sides");
    assert_eq!(sides.len(), 2, "{long}");
    let pieces: Vec<u64> = sides.iter().map(|s| s["pieces"].as_u64().expect("pieces")).collect();
    assert_eq!(pieces.iter().max(), Some(&30), "the game ends when a side reaches the limit: {long}");
    assert!(pieces.iter().all(|&p| p >= 20), "both sides played: {long}");
    for (s, p) in sides.iter().zip(&g["players"].as_array().expect("players")[..]) {
        assert_eq!(s["pieces"], p["pieces"], "{s}");
        assert!(s["fewest_rows_left"].as_u64().is_some_and(|n| n < 13), "a stack was built: {s}");
    }
    // Nuisance was sent and landed, and no more landed than the chains sent.
    let sent: u64 = sides.iter().map(|s| s["nuisance_sent"].as_u64().unwrap_or(0)).sum();
    let landed: u64 = sides.iter().map(|s| s["nuisance_landed"].as_u64().unwrap_or(0)).sum();
    assert!(sent > 0 && landed > 0 && landed <= sent, "sent {sent}, landed {landed}: {long}");
    let reason = long["reason"].as_str().expect("a reason");
    assert!(reason.contains("in 30 pieces") && reason.contains("P1 sent"), "{reason}");
    let line = r["health"]["long_games"][0].as_str().expect("the health names the long game");
    assert!(line.starts_with("game 1: past 30 pieces a side without a winner: "), "{line}");
    assert!(stderr.contains(reason), "the error repeats the reason: {stderr}");
}
