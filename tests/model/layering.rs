//! The module layering stays true: a layer uses only layers below it.
//!
//! Order (low to high): interrupt, paths (leaves every layer may use) < game < sim < ai < emu < memmap,
//! trace < driver < calib, train < play < ui < config < cli (calibration's opening presses through the
//! driver's press executor; the configuration reads every layer's tables; the command line reads the
//! configuration). The pure layers (`game`, `sim`, `ai`) therefore
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

/// The elements of a `{…}` group (`group` starts after its `{`) at its own level, trimmed, empty ones
/// (a trailing comma) left out: `ai::{Bot, NAMES}, ui}` gives `ai::{Bot, NAMES}` and `ui`.
fn group_heads(group: &str) -> Vec<&str> {
    let mut heads = Vec::new();
    let (mut depth, mut begin) = (0usize, 0usize);
    for (i, c) in group.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => {
                heads.push(group[begin..i].trim());
                break;
            }
            '}' => depth -= 1,
            ',' if depth == 0 => {
                heads.push(group[begin..i].trim());
                begin = i + 1;
            }
            _ => {}
        }
    }
    heads.retain(|h| !h.is_empty());
    heads
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
