//! `--items` and `--colors`: the menu script sets the game's option where the address file says it is, the deal
//! confirms it, a deal that contradicts it stops the run naming the option, and an address file that does
//! not know the option says so before anything runs.
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::common::calib::{guessed_folder, play_outcome};

fn dir(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join("items-option").join(name);
    std::fs::create_dir_all(&d).expect("scratch dir");
    d
}

fn labcart() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src/labcart/puyolab.nes")
}

/// A copy of the address folder with each of the open cartridge's files passed through `edit`.
fn labcart_folder(name: &str, edit: impl Fn(&str) -> String) -> PathBuf {
    let out = dir(name);
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("addresses");
    for entry in std::fs::read_dir(&root).expect("addresses") {
        let path = entry.expect("entry").path();
        let name = path.file_name().expect("name").to_owned();
        if path.is_dir() {
            let sub = out.join(&name);
            std::fs::create_dir_all(&sub).expect("folder");
            for file in std::fs::read_dir(&path).expect("folder").map(|e| e.expect("entry").path()) {
                let text = std::fs::read_to_string(&file).expect("address file");
                let text = if name == "labcart" { edit(&text) } else { text };
                std::fs::write(sub.join(file.file_name().expect("name")), text).expect("write");
            }
        } else {
            std::fs::copy(&path, out.join(&name)).expect("copy");
        }
    }
    out
}

fn items(j: &Value) -> &Value {
    &j["items"]
}

#[test]
fn items_asked_for_are_set_by_the_menu_script_and_confirmed_by_the_deal() {
    let folder = labcart_folder("plain", str::to_string);
    for (choice, key, other, colors) in
        [("big-puyo", "big_puyo", "carbuncle", "5"), ("carbuncle", "carbuncle", "big_puyo", "3")]
    {
        let args = ["--mode", "ai-vs-ai", "--pieces", "40", "--items", choice, "--colors", colors];
        let (ok, json, stderr) = play_outcome(&labcart(), &folder, &args);
        assert!(ok, "{choice}: {stderr}");
        let j = json.expect("JSON report");
        let it = items(&j);
        assert_eq!(it["asked"], choice, "{it}");
        assert_eq!(it["confirmed"], true, "{it}");
        assert!(it[key].as_u64().unwrap() >= 2, "both bots were dealt {choice}: {it}");
        assert_eq!(it[other], 0, "{it}");
        let c = &j["colors"];
        assert_eq!(c["asked"].to_string(), colors, "{c}");
        assert_eq!(c["dealt"].to_string(), colors, "the game dealt exactly that many colours: {c}");
        assert_eq!(c["confirmed"], true, "{c}");
        assert_eq!(j["health"]["state"], "healthy", "{}", j["health"]);
    }
}

#[test]
fn a_deal_that_contradicts_the_option_stops_the_run_naming_it() {
    // The file swaps the option's values: asking for Big Puyo sets Carbuncle.
    let folder = labcart_folder("swapped", |t| t.replace("big_puyo = 1\ncarbuncle = 2", "big_puyo = 2\ncarbuncle = 1"));
    let (ok, json, stderr) =
        play_outcome(&labcart(), &folder, &["--mode", "endless", "--pieces", "60", "--items", "big-puyo"]);
    assert!(!ok, "a run dealt the wrong item must fail");
    assert!(stderr.contains("health: ") && stderr.contains("game options"), "{stderr}");
    assert!(stderr.contains("big-puyo was asked for"), "{stderr}");
    let j = json.expect("the report is printed before the error");
    assert_eq!(j["health"]["state"], "failed", "{}", j["health"]);
    assert_eq!(j["items"]["confirmed"], false, "{}", j["items"]);
}

#[test]
fn an_address_file_that_does_not_know_the_option_says_so_before_running() {
    let guessed = guessed_folder(&dir("guessed"));
    let (ok, json, stderr) =
        play_outcome(&labcart(), &guessed, &["--mode", "endless", "--pieces", "20", "--items", "carbuncle"]);
    assert!(!ok);
    assert!(json.is_none(), "nothing ran: {json:?}");
    assert!(stderr.contains("[options.items]") && stderr.contains("--items carbuncle"), "{stderr}");
    let (ok, _, stderr) = play_outcome(&labcart(), &guessed, &["--mode", "endless", "--pieces", "20", "--colors", "5"]);
    assert!(!ok && stderr.contains("[options.colors]"), "{stderr}");
}
