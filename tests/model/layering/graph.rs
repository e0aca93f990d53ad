//! The crate's import graph, read from its source text: every module with a file of its own
//! (`calib/learner.rs`, or a folder's `mod.rs`) and every `crate::`, `super::` and `self::` path, resolved
//! through the `use` declarations of the modules it passes (`crate::calib::Learner` is a use of
//! `calib::learner`, because `calib/mod.rs` says `pub use learner::Learner`).
//!
//! A folder's graph has the folder's modules as nodes and an edge wherever one of them (any file in it,
//! its inline test module included) names another. A path that names the folder's own module (`super::Frame`
//! from `calib/learner.rs`) is no edge: the folder's `mod.rs` is the folder, not one of its modules.
//! Glob imports of a parent (`use super::*`) give no edge: the scan does not resolve bare names.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// A module's path from the crate root: `["calib", "learner"]`; the crate root is `[]`.
pub type ModPath = Vec<String>;

/// A folder's import graph: each of its modules with the modules of the same folder it uses.
pub type Graph = Vec<(String, Vec<String>)>;

/// One source file: the module it holds and its code with comments, strings and char literals blanked.
struct Source {
    module: ModPath,
    code: String,
}

/// The crate's modules and the imports between them.
pub struct Crate {
    /// Every module with a file of its own, with the names its file's top-level `use`s bring into it
    /// (name → the path it stands for), for the paths that go through it.
    modules: BTreeMap<ModPath, BTreeMap<String, ModPath>>,
    sources: Vec<Source>,
}

impl Crate {
    /// The library crate under `src/` (`main.rs` is the binary's own crate and is left out).
    pub fn read() -> Crate {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut files = Vec::new();
        let mut stack = vec![root.clone()];
        while let Some(dir) = stack.pop() {
            let entries = std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("reading {}: {e}", dir.display()));
            for entry in entries.flatten() {
                let path = entry.path();
                if path.is_dir() {
                    stack.push(path);
                } else if path.extension().is_some_and(|e| e == "rs") && path != root.join("main.rs") {
                    let text =
                        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
                    let relative = path.strip_prefix(&root).expect("under src").to_string_lossy().replace('\\', "/");
                    files.push((relative, text));
                }
            }
        }
        files.sort();
        let borrowed: Vec<(&str, &str)> = files.iter().map(|(p, t)| (p.as_str(), t.as_str())).collect();
        Crate::from_files(&borrowed)
    }

    /// A crate of the given files, each as its path below `src/` and its text.
    pub fn from_files(files: &[(&str, &str)]) -> Crate {
        let sources: Vec<Source> =
            files.iter().map(|(path, text)| Source { module: module_of(path), code: blank(text) }).collect();
        let known: BTreeSet<ModPath> = sources.iter().map(|s| s.module.clone()).collect();
        let modules = sources.iter().map(|s| (s.module.clone(), top_level_uses(&s.code, &s.module, &known))).collect();
        Crate { modules, sources }
    }

    /// Every folder (a module with modules of its own) with its import graph.
    pub fn folder_graphs(&self) -> BTreeMap<ModPath, Graph> {
        let mut edges: BTreeMap<ModPath, BTreeMap<String, BTreeSet<String>>> = BTreeMap::new();
        for module in self.modules.keys() {
            if let Some((name, parent)) = module.split_last() {
                edges.entry(parent.to_vec()).or_default().entry(name.clone()).or_default();
            }
        }
        for source in &self.sources {
            for path in paths_named(&source.code, &source.module) {
                let target = self.resolve(&path, 0);
                let from = &source.module;
                let common = from.iter().zip(&target).take_while(|(a, b)| a == b).count();
                if common < from.len() && common < target.len() {
                    let folder = edges.entry(from[..common].to_vec()).or_default();
                    folder.entry(from[common].clone()).or_default().insert(target[common].clone());
                }
            }
        }
        edges
            .into_iter()
            .map(|(folder, graph)| (folder, graph.into_iter().map(|(n, d)| (n, d.into_iter().collect())).collect()))
            .collect()
    }

    /// The deepest module `path` reaches, following `use` declarations on the way.
    fn resolve(&self, path: &[String], hops: usize) -> ModPath {
        let mut at: ModPath = Vec::new();
        for (i, segment) in path.iter().enumerate() {
            let mut next = at.clone();
            next.push(segment.clone());
            if self.modules.contains_key(&next) {
                at = next;
                continue;
            }
            let imported = self.modules.get(&at).and_then(|uses| uses.get(segment));
            if let (Some(target), true) = (imported, hops < 16) {
                let mut whole = target.clone();
                whole.extend(path[i + 1..].iter().cloned());
                return self.resolve(&whole, hops + 1);
            }
            break;
        }
        at
    }
}

/// The module a file below `src/` holds: `lib.rs` the root, `calib/mod.rs` `calib`, `calib/learner.rs`
/// `calib::learner`.
fn module_of(path: &str) -> ModPath {
    let mut parts: ModPath = path.trim_end_matches(".rs").split('/').map(str::to_string).collect();
    if matches!(parts.last().map(String::as_str), Some("mod" | "lib")) {
        parts.pop();
    }
    parts
}

/// The code with comments removed and the insides of string and char literals left out, so a `crate::`
/// or a brace in a comment or a string is not read as code. Lifetimes (`'a`) are kept.
fn blank(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < chars.len() {
        match chars[i] {
            '/' if chars.get(i + 1).copied() == Some('/') => {
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
            }
            '/' if chars.get(i + 1).copied() == Some('*') => {
                i += 2;
                while i < chars.len() && !(chars[i] == '*' && chars.get(i + 1).copied() == Some('/')) {
                    i += 1;
                }
                i += 2;
            }
            'r' if (chars.get(i + 1).copied() == Some('"')
                || (chars.get(i + 1).copied() == Some('#')
                    && matches!(chars.get(i + 2).copied(), Some('"' | '#'))))
                && !chars[..i].last().is_some_and(|c| c.is_alphanumeric() || *c == '_') =>
            {
                let hashes = chars[i + 1..].iter().take_while(|c| **c == '#').count();
                i += 2 + hashes;
                let close: Vec<char> = std::iter::once('"').chain(std::iter::repeat_n('#', hashes)).collect();
                while i < chars.len() && !chars[i..].starts_with(&close) {
                    i += 1;
                }
                i += close.len();
                out.push_str("\"\"");
            }
            '"' => {
                i += 1;
                while i < chars.len() && chars[i] != '"' {
                    i += if chars[i] == '\\' { 2 } else { 1 };
                }
                i += 1;
                out.push_str("\"\"");
            }
            '\'' if chars.get(i + 1).copied() == Some('\\') => {
                i += 2;
                while i < chars.len() && chars[i] != '\'' {
                    i += 1;
                }
                i += 1;
                out.push_str("' '");
            }
            '\'' if chars.get(i + 2).copied() == Some('\'') => {
                i += 3;
                out.push_str("' '");
            }
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
    out
}

fn ident(s: &str) -> &str {
    let end = s.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(s.len());
    &s[..end]
}

/// The module a path starting at `here` begins from and the text after its `crate::` / `super::`… /
/// `self::`, for code in module `base`; `None` when `here` starts no such path.
fn path_start<'a>(here: &'a str, base: &[String]) -> Option<(ModPath, &'a str)> {
    if let Some(after) = here.strip_prefix("crate::") {
        return Some((Vec::new(), after));
    }
    if let Some(after) = here.strip_prefix("self::") {
        return Some((base.to_vec(), after));
    }
    let mut after = here.strip_prefix("super::")?;
    let mut at = base[..base.len().checked_sub(1)?].to_vec();
    while let Some(up) = after.strip_prefix("super::") {
        after = up;
        at.pop()?;
    }
    Some((at, after))
}

/// Every path of `code` (in a file holding `module`) that starts with `crate::`, `super::` or `self::`,
/// as the module it starts from and the text after that start. A path in an inline module (`mod tests
/// { … }`) climbs from that module.
fn path_starts<'a>(code: &'a str, module: &[String]) -> Vec<(ModPath, &'a str)> {
    let mut out = Vec::new();
    let mut inline: Vec<(String, usize)> = Vec::new();
    let (mut depth, mut pending_mod) = (0usize, None::<String>);
    let mut boundary = true;
    for (i, c) in code.char_indices() {
        match c {
            '{' => {
                depth += 1;
                if let Some(name) = pending_mod.take() {
                    inline.push((name, depth));
                }
            }
            '}' => {
                if inline.last().is_some_and(|(_, d)| *d == depth) {
                    inline.pop();
                }
                depth = depth.saturating_sub(1);
            }
            ';' => pending_mod = None,
            _ if boundary => {
                let here = &code[i..];
                if let Some(after) = here.strip_prefix("mod ") {
                    pending_mod = Some(ident(after.trim_start()).to_string());
                }
                let mut base: ModPath = module.to_vec();
                base.extend(inline.iter().map(|(n, _)| n.clone()));
                out.extend(path_start(here, &base));
            }
            _ => {}
        }
        boundary = !(c.is_ascii_alphanumeric() || c == '_' || c == ':');
    }
    out
}

/// Every path into the crate that `code` names, each as its segments from the crate root (a group
/// `crate::{ai::{Bot, NAMES}, ui}` gives each of its paths).
fn paths_named(code: &str, module: &[String]) -> Vec<ModPath> {
    path_starts(code, module).into_iter().flat_map(|(base, after)| expand(&base, after)).map(|(p, _)| p).collect()
}

/// The names the file's top-level `use` declarations bring in, each with the path it stands for; only
/// paths into the crate (`crate::`, `super::`, `self::` or a module of its own such as `colours::…`).
fn top_level_uses(code: &str, module: &[String], known: &BTreeSet<ModPath>) -> BTreeMap<String, ModPath> {
    let mut out = BTreeMap::new();
    let mut from = 0;
    while let Some(at) = code[from..].find("use ") {
        let start = from + at;
        from = start + 4;
        let word_start = !code[..start].ends_with(|c: char| c.is_ascii_alphanumeric() || c == '_');
        let at_top = code[..start].matches('{').count() == code[..start].matches('}').count();
        if !word_start || !at_top {
            continue;
        }
        let tree = code[from..].trim_start();
        let expanded = match path_start(tree, module) {
            Some((base, after)) => expand(&base, after),
            None => {
                let mut child = module.to_vec();
                child.push(ident(tree).to_string());
                if !known.contains(&child) {
                    continue;
                }
                expand(module, tree)
            }
        };
        out.extend(expanded.into_iter().filter(|(_, name)| !name.is_empty()).map(|(p, n)| (n, p)));
    }
    out
}

/// The paths of a use tree (or a path in code) that starts after `prefix`, each with the name it brings in:
/// `a::{b, c::d as e, self}` after `x` gives `x::a::b` (b), `x::a::c::d` (e) and `x::a` (a). A path ends
/// where its next segment is no name (`::<T>`, `*`).
fn expand(prefix: &[String], tree: &str) -> Vec<(ModPath, String)> {
    let mut path = prefix.to_vec();
    let mut rest = tree.trim_start();
    loop {
        if let Some(group) = rest.strip_prefix('{') {
            return group_heads(group).into_iter().flat_map(|head| expand(&path, head)).collect();
        }
        let name = ident(rest);
        if name.is_empty() {
            let last = path.last().cloned().unwrap_or_default();
            return vec![(path, last)];
        }
        if name != "self" {
            path.push(name.to_string());
        }
        rest = rest[name.len()..].trim_start();
        match rest.strip_prefix("::") {
            Some(next) => rest = next.trim_start(),
            None => {
                let alias = rest.strip_prefix("as ").map(|a| ident(a.trim_start()).to_string());
                let last = alias.unwrap_or_else(|| path.last().cloned().unwrap_or_default());
                return vec![(path, last)];
            }
        }
    }
}

/// The elements of a `{…}` group (`group` starts after its `{`) at its own level, trimmed, empty ones
/// (a trailing comma) left out: `ai::{Bot, NAMES}, ui}` gives `ai::{Bot, NAMES}` and `ui`.
pub fn group_heads(group: &str) -> Vec<&str> {
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

/// Every import circle of `graph`, each as the path that closes it (`a -> b -> a`), each circle once.
pub fn circles(graph: &Graph) -> Vec<String> {
    fn visit(at: &str, graph: &Graph, path: &mut Vec<String>, done: &mut Vec<String>, found: &mut Vec<String>) {
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
