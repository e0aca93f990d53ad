//! The module layering stays true: a layer uses only layers below it.
//!
//! Order (low to high): interrupt, paths (leaves every layer may use) < game < sim, botproto < ai < emu < memmap,
//! trace < driver < calib, train < play < ui < config < cli (calibration's opening presses through the
//! driver's press executor; the configuration reads every layer's tables; the command line reads the
//! configuration). The pure layers (`game`, `sim`, `ai`) therefore
//! never see the emulator, the RAM map, the driver, the session, the window,
//! the command line or the configuration.
//!
//! The scan reads every `.rs` file under `src/<layer>/` (or `src/<layer>.rs`),
//! skips comment lines (doc links create no dependency) and collects each
//! `crate::<module>` it names.
//!
//! Within every folder of `src/` the modules form no import circle either (a module that uses another
//! is never used by it, directly or around a ring), so each can be read after the ones it uses; the
//! graph comes from every `crate::`, `super::` and `self::` path (see [`graph`]). Calibration's modules
//! also keep an order of layers of their own ([`CALIB_LAYERS`]).

mod graph;

use std::path::{Path, PathBuf};

use graph::{Crate, Graph, circles, group_heads};

/// Layers with their rank; a layer may use only lower ranks. Equal ranks are
/// siblings and may not use each other.
const LAYERS: &[(&str, u8)] = &[
    ("interrupt", 0),
    ("paths", 0),
    ("game", 0),
    ("sim", 1),
    ("botproto", 1),
    ("ai", 2),
    ("emu", 3),
    ("memmap", 4),
    ("trace", 4),
    ("driver", 5),
    ("calib", 6),
    ("train", 6),
    ("play", 7),
    ("ui", 8),
    ("config", 9),
    ("cli", 10),
];

fn rank(name: &str) -> Option<u8> {
    LAYERS.iter().find(|(n, _)| *n == name).map(|(_, r)| *r)
}

fn rust_files(layer: &str) -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let single = root.join(format!("{layer}.rs"));
    let mut out = Vec::new();
    if single.is_file() {
        out.push(single);
    }
    let mut stack = vec![root.join(layer)];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    out
}

/// Every `crate::<module>` named on a non-comment line, with the line it starts on. A grouped path
/// (`crate::{ui, game::Field}`, on one line or several) names each of its top-level modules.
fn crate_uses(text: &str) -> Vec<(String, String)> {
    let code: Vec<&str> = text.lines().map(str::trim_start).filter(|l| !l.starts_with("//")).collect();
    let code = code.join("\n");
    let ident = |s: &str| -> String { s.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect() };
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(at) = code[from..].find("crate::") {
        let start = from + at;
        let after = start + "crate::".len();
        let line_start = code[..start].rfind('\n').map_or(0, |i| i + 1);
        let line = code[line_start..].lines().next().unwrap_or("").to_string();
        match code[after..].strip_prefix('{') {
            Some(group) => {
                for head in group_heads(group) {
                    out.push((ident(head), line.clone()));
                }
            }
            None => out.push((ident(&code[after..]), line)),
        }
        from = after;
    }
    out
}

#[test]
fn every_layer_uses_only_lower_layers() {
    let mut violations = Vec::new();
    let mut scanned = 0;
    for (layer, own) in LAYERS {
        let files = rust_files(layer);
        assert!(!files.is_empty(), "layer {layer} has no source files");
        for file in files {
            scanned += 1;
            let text = std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("reading {}: {e}", file.display()));
            for (used, line) in crate_uses(&text) {
                if used.is_empty() {
                    violations.push(format!("{} has a crate:: path the scan cannot read: {line}", file.display()));
                    continue;
                }
                if used == *layer {
                    continue;
                }
                let allowed = rank(&used).is_none_or(|r| r < *own);
                if !allowed {
                    violations.push(format!("{} uses crate::{used}: {line}", file.display()));
                }
            }
        }
    }
    assert!(scanned > 20, "scanned only {scanned} files");
    assert!(violations.is_empty(), "upward uses:\n{}", violations.join("\n"));
}

#[test]
fn every_top_level_module_has_a_layer() {
    let lib =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("src/lib.rs")).expect("reading src/lib.rs");
    for line in lib.lines() {
        if let Some(name) = line.trim().strip_prefix("pub mod ") {
            let name = name.trim_end_matches(';');
            assert!(rank(name).is_some(), "module {name} is missing from LAYERS");
        }
    }
}

#[test]
fn the_scan_sees_an_upward_use() {
    let uses = crate_uses("use crate::ui::Viewable;\n// crate::cli in a comment\nlet x = crate::game::Field::new();");
    let names: Vec<&str> = uses.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["ui", "game"]);
}

#[test]
fn the_scan_sees_grouped_imports() {
    let names = |text: &str| -> Vec<String> { crate_uses(text).into_iter().map(|(n, _)| n).collect() };
    assert_eq!(names("use crate::{ui, game::Field};"), ["ui", "game"]);
    assert_eq!(
        names("use crate::{\n    ai::{Bot, NAMES},\n    // crate::cli in a comment\n    cli,\n};"),
        ["ai", "cli"]
    );
    assert_eq!(
        names("use crate::{config::Config, ui::{self, Viewable}};\nlet f = crate::game::Field::new();"),
        ["config", "ui", "game"]
    );
    // The line reported is the one the path starts on.
    assert_eq!(crate_uses("use crate::{\n    ui,\n};")[0].1, "use crate::{");
}

/// Calibration's layers, low to high: what the learners see (frames, events, the shared state types),
/// the facts, one learner per fact, the `Learner` that coordinates them, what is read from it (the
/// report, the opening policy, the learned address files), and the drivers that run it online and
/// offline. A module uses only lower layers; equal ranks may not use each other.
const CALIB_LAYERS: &[(&str, u8)] = &[
    // The shared vocabulary: code tables, movement candidates and turns, timing samples; the test game.
    ("codes", 0),
    ("types", 0),
    ("synth", 0),
    // The 2P rules' learner stands alone: it reads the model's rules and fields only (the report carries
    // what it learned).
    ("battle_rules", 0),
    // What one frame shows; the report's types (each learner renders its part).
    ("observe", 1),
    ("report", 1),
    // The facts a learner reads of the others; where calibration stands; the menus watched.
    ("fact", 2),
    ("state", 2),
    ("menu", 2),
    // One learner per fact.
    ("layout", 3),
    ("colours", 3),
    ("bases", 3),
    ("motion", 3),
    ("kicks", 3),
    ("next", 3),
    ("control", 3),
    ("clock", 3),
    ("order", 3),
    // The coordinator.
    ("learner", 4),
    // What is read from it: the report, the opening's presses, the learned address files.
    ("reporting", 5),
    ("policy", 5),
    ("write", 5),
    // The drivers, and the tests of the whole.
    ("online", 6),
    ("offline", 6),
    ("tests", 7),
];

#[test]
fn no_import_circles_among_the_modules_of_any_folder() {
    let graphs = Crate::read().folder_graphs();
    for folder in [&["calib"][..], &["play"], &["cli"], &["ai"], &["play", "session"]] {
        let folder: Vec<String> = folder.iter().map(|s| s.to_string()).collect();
        let graph = graphs.get(&folder).unwrap_or_else(|| panic!("no folder src/{}", folder.join("/")));
        assert!(graph.iter().any(|(_, deps)| !deps.is_empty()), "src/{}: the scan saw no use", folder.join("/"));
    }
    assert!(graphs.len() > 12, "found only {} folders", graphs.len());
    let mut found = Vec::new();
    for (folder, graph) in &graphs {
        let place = if folder.is_empty() { "src".to_string() } else { format!("src/{}", folder.join("/")) };
        found.extend(circles(graph).into_iter().map(|ring| format!("{place}: {ring}")));
    }
    assert!(found.is_empty(), "import circles among the modules of a folder:\n{}", found.join("\n"));
}

#[test]
fn calibration_modules_use_only_lower_calibration_layers() {
    let graphs = Crate::read().folder_graphs();
    let graph = &graphs[&vec!["calib".to_string()]];
    let rank = |name: &str| CALIB_LAYERS.iter().find(|(n, _)| *n == name).map(|(_, r)| *r);
    let mut wrong = Vec::new();
    for (module, deps) in graph {
        let Some(own) = rank(module) else {
            wrong.push(format!("calib::{module} is missing from CALIB_LAYERS"));
            continue;
        };
        for dep in deps {
            if rank(dep).is_none_or(|r| r >= own) {
                wrong.push(format!("calib::{module} (layer {own}) uses calib::{dep} (layer {:?})", rank(dep)));
            }
        }
    }
    assert!(wrong.is_empty(), "calibration's layers:\n{}", wrong.join("\n"));
}

fn graph_of(crate_files: &[(&str, &str)], folder: &[&str]) -> Graph {
    let folder: Vec<String> = folder.iter().map(|s| s.to_string()).collect();
    Crate::from_files(crate_files).folder_graphs().remove(&folder).unwrap_or_default()
}

#[test]
fn the_circle_scan_reads_crate_super_and_self_paths() {
    let files = [
        ("lib.rs", "pub mod a;"),
        ("a/mod.rs", "pub mod b;\npub mod c;\npub mod d;\npub use c::Thing;\nuse self::d::Other;"),
        // A grouped crate path, a re-exported item, a private import of the folder.
        ("a/b.rs", "use crate::a::{Thing, d::{self}};\nfn f() { super::Other::new(); }"),
        // A path in a comment or a string is no use; a test module climbs one more `super`.
        (
            "a/c.rs",
            "// crate::a::b\nconst S: &str = \"super::b\";\n#[cfg(test)]\nmod tests {\n    use super::super::b::X;\n}",
        ),
        ("a/d.rs", "pub struct Other;"),
    ];
    let graph = graph_of(&files, &["a"]);
    let edges = |name: &str| graph.iter().find(|(n, _)| n == name).map(|(_, d)| d.clone()).unwrap_or_default();
    assert_eq!(edges("b"), ["c", "d"]);
    assert_eq!(edges("c"), ["b"]);
    assert!(edges("d").is_empty());
    assert_eq!(circles(&graph), ["b -> c -> b"]);
}

#[test]
fn the_circle_scan_sees_circles_in_nested_folders_and_not_in_chains() {
    let files = [
        ("lib.rs", "pub mod p;"),
        ("p/mod.rs", "mod one;\nmod two;\nmod three;"),
        ("p/one.rs", "mod inner;\nuse super::two::X;"),
        ("p/one/inner.rs", "use super::super::three::Y;\nuse super::Z;"),
        ("p/two.rs", "pub struct X;"),
        ("p/three.rs", "use crate::p::one::W;"),
    ];
    assert_eq!(circles(&graph_of(&files, &["p"])), ["one -> three -> one"]);
    let chain = [("lib.rs", "mod a; mod b; mod c;"), ("a.rs", "use crate::b::X;"), ("b.rs", "use crate::c::Y;")];
    let graph = graph_of(&chain, &[]);
    assert!(circles(&graph).is_empty());
    assert_eq!(graph.iter().find(|(n, _)| n == "a").map(|(_, d)| d.clone()), Some(vec!["b".to_string()]));
}
