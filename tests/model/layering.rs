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
//! Within `cli` and `play` the modules form no import circle either (a module that uses another is
//! never used by it, directly or around a ring), so each can be read after the ones it uses.

use std::path::{Path, PathBuf};

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

/// The modules of `src/<layer>/` (each top-level file but `mod.rs`) with their files: the file and, for
/// a module with a folder of its own (`session.rs` and `session/`), every file in that folder, each with
/// its depth below `src/<layer>/` (0 for `session.rs`, 1 for `session/builder.rs`).
fn modules_of(layer: &str) -> Vec<(String, Vec<(PathBuf, usize)>)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src").join(layer);
    let mut out = Vec::new();
    let entries = std::fs::read_dir(&root).unwrap_or_else(|e| panic!("reading {}: {e}", root.display()));
    for entry in entries.flatten() {
        let path = entry.path();
        let Some(name) = path.file_stem().and_then(|s| s.to_str()).map(str::to_string) else { continue };
        if path.is_dir() || path.extension().is_none_or(|e| e != "rs") || name == "mod" {
            continue;
        }
        let mut files = vec![(path.clone(), 0)];
        let mut stack = vec![(root.join(&name), 1)];
        while let Some((dir, depth)) = stack.pop() {
            let Ok(inner) = std::fs::read_dir(&dir) else { continue };
            for e in inner.flatten() {
                let p = e.path();
                if p.is_dir() {
                    stack.push((p, depth + 1));
                } else if p.extension().is_some_and(|e| e == "rs") {
                    files.push((p, depth));
                }
            }
        }
        out.push((name, files));
    }
    out.sort();
    out
}

/// What the layer's `mod.rs` re-exports, item → module: `pub use session::{Session, SessionBuilder};`
/// makes `crate::play::Session` a use of `session`.
fn reexports(layer: &str) -> Vec<(String, String)> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("src").join(layer).join("mod.rs");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
    let mut out = Vec::new();
    for line in text.lines() {
        let Some(rest) = line.trim().strip_prefix("pub use ") else { continue };
        let rest = rest.trim_end_matches(';');
        let Some((module, items)) = rest.split_once("::") else { continue };
        let items = items.strip_prefix('{').map_or(vec![items], group_heads);
        for item in items {
            let name = item.rsplit(" as ").next().unwrap_or(item);
            out.push((name.trim().to_string(), module.to_string()));
        }
    }
    out
}

/// The names a file at `depth` below `src/<layer>/` uses of the layer's own top level: each
/// `crate::<layer>::NAME` (and each head of `crate::<layer>::{…}`), and each `super::…::NAME` whose
/// `super`s climb to the layer's folder or beyond (`super::super::seat` in `session/builder.rs`, or in
/// the test module inside `session.rs`). Comment lines are skipped.
fn layer_uses(text: &str, layer: &str, depth: usize) -> Vec<String> {
    let code: Vec<&str> = text.lines().map(str::trim_start).filter(|l| !l.starts_with("//")).collect();
    let code = code.join("\n");
    let ident = |s: &str| -> String { s.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect() };
    let heads = |rest: &str| -> Vec<String> {
        match rest.strip_prefix('{') {
            Some(group) => group_heads(group).into_iter().map(ident).collect(),
            None => vec![ident(rest)],
        }
    };
    let mut out = Vec::new();
    let own = format!("crate::{layer}::");
    let mut from = 0;
    while let Some(at) = code[from..].find(&own) {
        let after = from + at + own.len();
        out.extend(heads(&code[after..]));
        from = after;
    }
    let mut from = 0;
    while let Some(at) = code[from..].find("super::") {
        let start = from + at;
        let mut after = start;
        let mut climbs = 0;
        while code[after..].starts_with("super::") {
            after += "super::".len();
            climbs += 1;
        }
        let preceded = code[..start].ends_with("::");
        if !preceded && climbs > depth {
            out.extend(heads(&code[after..]));
        }
        from = after;
    }
    out.retain(|n| !n.is_empty());
    out
}

/// The import graph among the modules of `src/<layer>/`: module → the sibling modules it uses.
fn import_graph(layer: &str) -> Vec<(String, Vec<String>)> {
    let modules = modules_of(layer);
    let names: Vec<&str> = modules.iter().map(|(n, _)| n.as_str()).collect();
    let reexported = reexports(layer);
    let mut graph = Vec::new();
    for (name, files) in &modules {
        let mut deps = Vec::new();
        for (file, depth) in files {
            let text = std::fs::read_to_string(file).unwrap_or_else(|e| panic!("reading {}: {e}", file.display()));
            for used in layer_uses(&text, layer, *depth) {
                let module = match reexported.iter().find(|(item, _)| *item == used) {
                    Some((_, m)) => m.clone(),
                    None => used,
                };
                if module != *name && names.contains(&module.as_str()) && !deps.contains(&module) {
                    deps.push(module);
                }
            }
        }
        deps.sort();
        graph.push((name.clone(), deps));
    }
    graph
}

/// Every import circle of `graph`, each as the path that closes it (`a -> b -> a`), each circle once.
fn circles(graph: &[(String, Vec<String>)]) -> Vec<String> {
    fn visit(
        at: &str,
        graph: &[(String, Vec<String>)],
        path: &mut Vec<String>,
        done: &mut Vec<String>,
        found: &mut Vec<String>,
    ) {
        if let Some(i) = path.iter().position(|p| p == at) {
            let mut ring = path[i..].to_vec();
            ring.push(at.to_string());
            found.push(ring.join(" -> "));
            return;
        }
        if done.iter().any(|d| d == at) {
            return;
        }
        path.push(at.to_string());
        for next in graph.iter().find(|(n, _)| n == at).map(|(_, d)| d.as_slice()).unwrap_or(&[]) {
            visit(next, graph, path, done, found);
        }
        path.pop();
        done.push(at.to_string());
    }
    let (mut done, mut found) = (Vec::new(), Vec::new());
    for (name, _) in graph {
        visit(name, graph, &mut Vec::new(), &mut done, &mut found);
    }
    found
}

#[test]
fn no_import_circles_among_the_modules_of_cli_and_play() {
    for layer in ["cli", "play"] {
        let graph = import_graph(layer);
        assert!(graph.len() > 5, "{layer}: found only {} modules", graph.len());
        assert!(graph.iter().any(|(_, deps)| !deps.is_empty()), "{layer}: the scan saw no use between modules");
        let found = circles(&graph);
        assert!(found.is_empty(), "import circles among the modules of src/{layer}:\n{}", found.join("\n"));
    }
}

#[test]
fn the_circle_scan_reads_super_paths_and_finds_a_circle() {
    // A file of `play` and a file one folder down.
    assert_eq!(
        layer_uses("use super::seat::Seat;\nuse super::{health, thinker::Request};", "play", 0),
        ["seat", "health", "thinker"]
    );
    assert_eq!(
        layer_uses("use super::{Phase, Session};\nuse super::super::matches::MatchState;", "play", 1),
        ["matches"]
    );
    assert_eq!(layer_uses("let s = crate::play::Session::new();\n// super::menu in a comment", "play", 0), ["Session"]);
    let graph = |edges: &[(&str, &[&str])]| -> Vec<(String, Vec<String>)> {
        edges.iter().map(|(n, d)| (n.to_string(), d.iter().map(|s| s.to_string()).collect())).collect()
    };
    assert_eq!(circles(&graph(&[("a", &["b"]), ("b", &["c"]), ("c", &["a"])])), ["a -> b -> c -> a"]);
    assert!(circles(&graph(&[("a", &["b", "c"]), ("b", &["c"]), ("c", &[])])).is_empty());
}
