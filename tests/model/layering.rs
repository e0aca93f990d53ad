//! The module layering stays true: a layer uses only layers below it.
//!
//! Order (low to high): interrupt, paths (leaves every layer may use) < game < sim < ai < emu < memmap, trace < calib, train < driver
//! < play < ui < config < cli (the configuration reads every layer's
//! tables; the command line reads the configuration). The pure layers (`game`, `sim`, `ai`) therefore
//! never see the emulator, the RAM map, the driver, the session, the window,
//! the command line or the configuration.
//!
//! The scan reads every `.rs` file under `src/<layer>/` (or `src/<layer>.rs`),
//! skips comment lines (doc links create no dependency) and collects each
//! `crate::<module>` it names.

use std::path::{Path, PathBuf};

/// Layers with their rank; a layer may use only lower ranks. Equal ranks are
/// siblings and may not use each other.
const LAYERS: &[(&str, u8)] = &[
    ("interrupt", 0),
    ("paths", 0),
    ("game", 0),
    ("sim", 1),
    ("ai", 2),
    ("emu", 3),
    ("memmap", 4),
    ("trace", 4),
    ("calib", 5),
    ("train", 5),
    ("driver", 6),
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

/// Every `crate::<module>` named on a non-comment line, with the line.
fn crate_uses(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for line in text.lines() {
        let code = line.trim_start();
        if code.starts_with("//") {
            continue;
        }
        let mut rest = code;
        while let Some(at) = rest.find("crate::") {
            let after = &rest[at + "crate::".len()..];
            let name: String = after.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
            out.push((name, code.to_string()));
            rest = after;
        }
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
