//! The item codes of a game with items on from power-on are learned from what the items do, in a 2P game
//! where nuisance falls and chains run: the identity is right, settled within the pieces of a short game,
//! and never a contradiction, for each item and for both by turns. Needs `ca65`: a missing assembler fails the test unless
//! `PUYOBOT_SKIP_MISSING_TOOLS=1` (tests/common/tools.rs).

use std::path::{Path, PathBuf};

use crate::common::calib::{guessed_folder, play_outcome};
use crate::common::contract::{BuildError, Contract};

/// The labcart with `item` on at power-on (1 Big Puyo, 2 Carbuncle, 3 both by turns), built into the scratch folder; `None`
/// (the skip printed) without ca65 when the opt-out is set.
fn build(item: u8) -> Option<(Contract, PathBuf)> {
    let c = Contract { items_at_boot: item, ..Contract::DEFAULT };
    c.validate().unwrap_or_else(|e| panic!("contract invalid: {e}: {c}"));
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("items-identity");
    std::fs::create_dir_all(&dir).expect("scratch dir");
    let out = dir.join(format!("items-at-boot-{item}.nes"));
    match c.build(&out) {
        Ok(()) => Some((c, out)),
        Err(BuildError::NoAssembler) => {
            crate::common::tools::missing_ca65(&format!("items_identity (ITEMS_AT_BOOT={item})"));
            None
        }
        Err(e) => panic!("{e}"),
    }
}

#[test]
fn item_codes_are_learned_right_and_settled_in_a_2p_game_with_nuisance() {
    for item in [1u8, 2, 3] {
        let Some((c, rom)) = build(item) else { return };
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("items-identity");
        let guessed = guessed_folder(&dir);
        // Both items come by turns, each every 32nd piece: the game is longer for the same evidence.
        let pieces = if item == 3 { "70" } else { "40" };
        let args = ["--mode", "ai-vs-ai", "--pieces", pieces, "--seed", "3"];
        let (ok, json, stderr) = play_outcome(&rom, &guessed, &args);
        let j = json.unwrap_or_else(|| panic!("item {item}: no JSON report: {stderr}"));
        let cal = &j["calibration"];
        let codes = &cal["codes"];
        assert!(ok, "item {item}: the run failed: {stderr}");
        let expected: &[(u8, &str, &str)] = match item {
            1 => &[(c.big, "big_puyo", "carbuncle")],
            2 => &[(c.carbuncle, "carbuncle", "big_puyo")],
            _ => &[(c.big, "big_puyo", "carbuncle"), (c.carbuncle, "carbuncle", "big_puyo")],
        };
        for &(code, key, other) in expected {
            assert_eq!(codes[key], code, "item {item}: {codes}");
            if item != 3 {
                assert!(codes[other].is_null(), "item {item}: {codes}");
            }
            let evidence =
                codes["items"].as_array().unwrap_or_else(|| panic!("item {item}: no item evidence: {codes}"));
            let e = evidence.iter().find(|e| e["code"] == code).unwrap_or_else(|| panic!("item {item}: {codes}"));
            assert_eq!(e["settled"], true, "item {item}: settled within {pieces} pieces: {e}");
            assert_eq!(e[other], 0, "item {item}: no lock read as the other item: {e}");
        }
        let contradictions = cal["contradictions"].as_array().expect("contradictions");
        assert!(
            contradictions.iter().all(|m| !m.as_str().unwrap_or("").contains("item")),
            "item {item}: {contradictions:?}"
        );
        assert!(!stderr.contains("acted as"), "item {item}: {stderr}");
        assert_eq!(j["health"]["state"], "healthy", "item {item}: {}", j["health"]);
    }
}
