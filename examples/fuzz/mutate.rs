//! Mutations of seed inputs: byte-level edits (flips, insertions, deletions, splices, truncation) and
//! TOML-aware edits that swap keys and values, turn numbers huge, negative or into strings, and arrays
//! into scalars. Every choice comes from the caller's RNG, so a case is reproducible from its seed.

use rand::Rng;
use rand::seq::IndexedRandom;
use rand_xoshiro::Xoshiro256PlusPlus;

/// The RNG every generator and mutation draws from.
pub type FuzzRng = Xoshiro256PlusPlus;

/// Bytes that tend to matter to parsers: boundaries, TOML punctuation, the iNES magic's end byte.
const INTERESTING_BYTES: &[u8] = &[
    0x00, 0x01, 0x02, 0x07, 0x08, 0x0F, 0x10, 0x1A, 0x20, 0x7F, 0x80, 0xC0, 0xFE, 0xFF, b'\n', b'\r', b'\t', b'"',
    b'\'', b'[', b']', b'{', b'}', b'=', b'#', b'.', b',', b'\\', b'0', b'x', b'-', b'+',
];

/// Replacement values for TOML-aware edits: out-of-range and wrong-typed values of every kind.
const INTERESTING_VALUES: &[&str] = &[
    "0",
    "1",
    "-1",
    "2",
    "6",
    "7",
    "13",
    "14",
    "255",
    "256",
    "-256",
    "2047",
    "2048",
    "0x7FF",
    "0x800",
    "0xFFFF",
    "65535",
    "65536",
    "4294967295",
    "4294967296",
    "9223372036854775807",
    "-9223372036854775808",
    "99999999999999999999999",
    "1.5",
    "-0.0",
    "1e308",
    "nan",
    "inf",
    "-inf",
    "true",
    "false",
    "\"\"",
    "\"x\"",
    "\"NES\\u001a\"",
    "\"\u{e9}\u{1F600}\"",
    "\"\\u0000\"",
    "'literal'",
    "\"\"\"multi\nline\"\"\"",
    "[]",
    "[1]",
    "[0, 0, 0, 0, 0, 0, 0]",
    "[\"A\", \"B\"]",
    "[[1], [2]]",
    "{}",
    "{ addr = 0 }",
    "{ addr = 2048, source = \"\", verified = true }",
    "1979-05-27T07:32:00Z",
];

/// Key names for renames: the ones the project's files use and some it does not.
const INTERESTING_KEYS: &[&str] = &[
    "addr",
    "base",
    "row_stride",
    "cell_stride",
    "color_offset",
    "bytes",
    "multiplier",
    "pad",
    "colors",
    "empty",
    "wall",
    "press",
    "wait",
    "wait_until",
    "frames",
    "timeout",
    "speed",
    "mode",
    "seed",
    "threads",
    "samples",
    "depth",
    "quit",
    "p1",
    "source",
    "verified",
    "unknown_key",
    "\"quoted key\"",
    "a.b.c",
    "x",
];

/// Table headers for inserted or replaced headers.
const INTERESTING_HEADERS: &[&str] = &[
    "[meta]",
    "[codes]",
    "[orientation]",
    "[global]",
    "[[player]]",
    "[menu]",
    "[[rom]]",
    "[play]",
    "[bots]",
    "[keys]",
    "[ai]",
    "[ai.search]",
    "[ai.chain]",
    "[player]",
    "[[menu.steps]]",
    "[nonsense]",
    "[",
    "[[]]",
];

/// Applies 1 to 4 byte-level mutations; `others` are inputs to splice from.
pub fn mutate_bytes(rng: &mut FuzzRng, data: &mut Vec<u8>, others: &[Vec<u8>]) {
    for _ in 0..rng.random_range(1..=4) {
        mutate_bytes_once(rng, data, others);
    }
}

fn mutate_bytes_once(rng: &mut FuzzRng, data: &mut Vec<u8>, others: &[Vec<u8>]) {
    let len = data.len();
    match rng.random_range(0..10) {
        0 if len > 0 => {
            let i = rng.random_range(0..len);
            data[i] ^= 1 << rng.random_range(0..8);
        }
        1 if len > 0 => {
            let i = rng.random_range(0..len);
            data[i] = random_byte(rng);
        }
        2 => {
            let at = rng.random_range(0..=len);
            let n = rng.random_range(1..=8);
            let bytes: Vec<u8> = (0..n).map(|_| random_byte(rng)).collect();
            data.splice(at..at, bytes);
        }
        3 if len > 0 => {
            let at = rng.random_range(0..len);
            let n = rng.random_range(1..=16.min(len - at));
            data.drain(at..at + n);
        }
        4 if len > 0 => {
            // Copy a chunk of the input elsewhere in it (repeats keys, tables, lines).
            let from = rng.random_range(0..len);
            let n = rng.random_range(1..=64.min(len - from));
            let chunk = data[from..from + n].to_vec();
            let at = rng.random_range(0..=len);
            data.splice(at..at, chunk);
        }
        5 if !others.is_empty() => {
            // Splice: this input's head on another's tail.
            let Some(other) = others.choose(rng) else { return };
            let cut = rng.random_range(0..=len);
            let from = rng.random_range(0..=other.len());
            data.truncate(cut);
            data.extend_from_slice(&other[from..]);
        }
        6 => {
            data.truncate(rng.random_range(0..=len));
        }
        7 if len > 0 => {
            // A little-endian 16- or 32-bit boundary value.
            let value: u32 = *[0u32, 0x7FF, 0x800, 0xFFFF, 0x1_0000, u32::MAX, 0x8000_0000].choose(rng).unwrap_or(&0);
            let width = if rng.random_bool(0.5) { 2 } else { 4 };
            let at = rng.random_range(0..len);
            for (k, b) in value.to_le_bytes().iter().take(width).enumerate() {
                if let Some(slot) = data.get_mut(at + k) {
                    *slot = *b;
                }
            }
        }
        8 => {
            // A multi-byte UTF-8 character (parsers that slice by byte offsets meet char boundaries here).
            let ch = *['\u{e9}', '\u{20ac}', '\u{1F600}', '\u{FFFD}', '\u{200B}', '\u{202E}', '\u{85}']
                .choose(rng)
                .unwrap_or(&'\u{e9}');
            let mut buf = [0u8; 4];
            let at = rng.random_range(0..=len);
            data.splice(at..at, ch.encode_utf8(&mut buf).bytes());
        }
        _ => {
            let at = rng.random_range(0..=len);
            data.insert(at, random_byte(rng));
        }
    }
}

fn random_byte(rng: &mut FuzzRng) -> u8 {
    if rng.random_bool(0.5) { *INTERESTING_BYTES.choose(rng).unwrap_or(&0) } else { rng.random() }
}

/// Where the keys, values and table headers of a TOML text are (byte ranges).
#[derive(Debug, Default)]
struct TomlSpans {
    keys: Vec<(usize, usize)>,
    values: Vec<(usize, usize)>,
    headers: Vec<(usize, usize)>,
}

/// Finds keys (`name =`), their values (a string, a bracketed array, a braced table or a bare token) and
/// `[header]` lines. A rough scanner, not a TOML parser: mutated texts are often not TOML any more.
fn scan(text: &str) -> TomlSpans {
    let b = text.as_bytes();
    let mut spans = TomlSpans::default();
    let mut i = 0;
    let mut line_start = true;
    while i < b.len() {
        let c = b[i];
        if c == b'\n' {
            line_start = true;
            i += 1;
            continue;
        }
        if c == b' ' || c == b'\t' || c == b'\r' {
            i += 1;
            continue;
        }
        if c == b'#' {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
            continue;
        }
        if line_start && c == b'[' {
            let end = b[i..].iter().position(|&x| x == b'\n').map_or(b.len(), |p| i + p);
            spans.headers.push((i, end));
            i = end;
            continue;
        }
        line_start = false;
        if c == b'"' || c == b'\'' {
            i = skip_string(b, i);
            continue;
        }
        if is_key_byte(c) {
            let start = i;
            while i < b.len() && is_key_byte(b[i]) {
                i += 1;
            }
            let key_end = i;
            let mut j = i;
            while j < b.len() && (b[j] == b' ' || b[j] == b'\t') {
                j += 1;
            }
            if j < b.len() && b[j] == b'=' {
                spans.keys.push((start, key_end));
                j += 1;
                while j < b.len() && (b[j] == b' ' || b[j] == b'\t') {
                    j += 1;
                }
                let v_end = value_end(b, j);
                if v_end > j {
                    spans.values.push((j, v_end));
                }
                // Continue inside the value so the keys of inline tables are found too.
                i = j;
            }
            continue;
        }
        i += 1;
    }
    spans
}

fn is_key_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'-'
}

/// End of a quoted string starting at `i` (past the closing quote, or the end of the line).
fn skip_string(b: &[u8], i: usize) -> usize {
    let quote = b[i];
    let mut j = i + 1;
    while j < b.len() && b[j] != b'\n' {
        if quote == b'"' && b[j] == b'\\' {
            j += 2;
            continue;
        }
        if b[j] == quote {
            return j + 1;
        }
        j += 1;
    }
    j.min(b.len())
}

/// End of the value starting at `i`.
fn value_end(b: &[u8], i: usize) -> usize {
    if i >= b.len() {
        return i;
    }
    match b[i] {
        b'"' | b'\'' => skip_string(b, i),
        open @ (b'[' | b'{') => {
            let close = if open == b'[' { b']' } else { b'}' };
            let mut depth = 0usize;
            let mut j = i;
            while j < b.len() {
                match b[j] {
                    b'"' | b'\'' => {
                        j = skip_string(b, j);
                        continue;
                    }
                    x if x == open => depth += 1,
                    x if x == close => {
                        depth = depth.saturating_sub(1);
                        if depth == 0 {
                            return j + 1;
                        }
                    }
                    _ => {}
                }
                j += 1;
            }
            j
        }
        _ => {
            let mut j = i;
            while j < b.len() && !matches!(b[j], b',' | b'}' | b']' | b'\n' | b'#' | b'\r') {
                j += 1;
            }
            while j > i && b[j - 1] == b' ' {
                j -= 1;
            }
            j
        }
    }
}

/// Applies 1 to 4 TOML-aware mutations.
pub fn mutate_toml(rng: &mut FuzzRng, text: &mut String) {
    for _ in 0..rng.random_range(1..=4) {
        mutate_toml_once(rng, text);
    }
}

/// Applies 1 to 3 edits of values only (wrong-typed, out of range, nudged): the file keeps its shape, so
/// more of the results get past the parser to the validator and what is behind it.
pub fn mutate_toml_values(rng: &mut FuzzRng, text: &str) -> Vec<u8> {
    let mut text = text.to_string();
    for _ in 0..rng.random_range(1..=3) {
        let which = rng.random_range(0..3);
        mutate_toml_edit(rng, &mut text, which);
    }
    text.into_bytes()
}

fn mutate_toml_once(rng: &mut FuzzRng, text: &mut String) {
    let which = rng.random_range(0..11);
    mutate_toml_edit(rng, text, which);
}

fn mutate_toml_edit(rng: &mut FuzzRng, text: &mut String, which: u32) {
    let spans = scan(text);
    match which {
        0 | 1 => {
            // The most useful edit: one value replaced by an out-of-range or wrong-typed one.
            if let Some(&(s, e)) = spans.values.choose(rng) {
                let v = INTERESTING_VALUES.choose(rng).copied().unwrap_or("0");
                text.replace_range(s..e, v);
            }
        }
        2 => {
            // An integer nudged: off by one, doubled, negated, shifted past a boundary.
            let ints: Vec<(usize, usize, i128)> =
                spans.values.iter().filter_map(|&(s, e)| parse_int(&text[s..e]).map(|v| (s, e, v))).collect();
            if let Some(&(s, e, v)) = ints.choose(rng) {
                let nv = match rng.random_range(0..7) {
                    0 => v + 1,
                    1 => v - 1,
                    2 => -v,
                    3 => v * 2,
                    4 => v + 0x800,
                    5 => v * 256,
                    _ => rng.random_range(-300..3000),
                };
                let repl = if rng.random_bool(0.3) && nv >= 0 { format!("0x{nv:X}") } else { nv.to_string() };
                text.replace_range(s..e, &repl);
            }
        }
        3 => {
            // An array turned into a scalar (its first element, or a number).
            let arrays: Vec<(usize, usize)> =
                spans.values.iter().copied().filter(|&(s, _)| text.as_bytes()[s] == b'[').collect();
            if let Some(&(s, e)) = arrays.choose(rng) {
                let inner_end = if e - 1 > s && text.as_bytes()[e - 1] == b']' { e - 1 } else { e };
                let inner = text[s + 1..inner_end].to_string();
                let first = inner.split(',').next().unwrap_or("").trim().to_string();
                let repl = if first.is_empty() || rng.random_bool(0.3) { "3".to_string() } else { first };
                text.replace_range(s..e, &repl);
            }
        }
        4 => {
            // A scalar wrapped in an array, or a number turned into a string.
            if let Some(&(s, e)) = spans.values.choose(rng) {
                let v = text[s..e].to_string();
                let repl = if rng.random_bool(0.5) { format!("[{v}]") } else { format!("\"{}\"", v.replace('"', "")) };
                text.replace_range(s..e, &repl);
            }
        }
        5 => {
            // Two values swapped (later span first so the earlier offsets stay valid).
            if spans.values.len() >= 2 {
                let a = *spans.values.choose(rng).unwrap_or(&(0, 0));
                let b = *spans.values.choose(rng).unwrap_or(&(0, 0));
                swap_spans(text, a, b);
            }
        }
        6 => {
            // Two keys swapped, or a key renamed (to a duplicate, a known key elsewhere or an unknown one).
            if spans.keys.len() >= 2 && rng.random_bool(0.4) {
                let a = *spans.keys.choose(rng).unwrap_or(&(0, 0));
                let b = *spans.keys.choose(rng).unwrap_or(&(0, 0));
                swap_spans(text, a, b);
            } else if let Some(&(s, e)) = spans.keys.choose(rng) {
                let name = if rng.random_bool(0.5) {
                    spans.keys.choose(rng).map(|&(a, b)| text[a..b].to_string()).unwrap_or_default()
                } else {
                    INTERESTING_KEYS.choose(rng).copied().unwrap_or("x").to_string()
                };
                text.replace_range(s..e, &name);
            }
        }
        7 => {
            // A whole `key = value` removed.
            if let Some(i) = (!spans.keys.is_empty()).then(|| rng.random_range(0..spans.keys.len())) {
                let (ks, _) = spans.keys[i];
                let ve = spans.values.iter().find(|&&(vs, _)| vs >= ks).map_or(ks, |&(_, ve)| ve);
                text.replace_range(ks..ve.max(ks), "");
            }
        }
        8 => {
            // A table header removed, duplicated, or replaced by another.
            if let Some(&(s, e)) = spans.headers.choose(rng) {
                match rng.random_range(0..3) {
                    0 => text.replace_range(s..e, ""),
                    1 => {
                        let h = text[s..e].to_string();
                        text.insert_str(s, &format!("{h}\n"));
                    }
                    _ => text.replace_range(s..e, INTERESTING_HEADERS.choose(rng).copied().unwrap_or("[x]")),
                }
            } else {
                let at = line_start_near(text, rng.random_range(0..=text.len()));
                text.insert_str(at, &format!("{}\n", INTERESTING_HEADERS.choose(rng).copied().unwrap_or("[x]")));
            }
        }
        9 => {
            // Lines: one deleted, duplicated, or moved.
            let lines: Vec<&str> = text.split_inclusive('\n').collect();
            if lines.is_empty() {
                return;
            }
            let mut lines: Vec<String> = lines.into_iter().map(str::to_string).collect();
            let i = rng.random_range(0..lines.len());
            match rng.random_range(0..3) {
                0 => {
                    lines.remove(i);
                }
                1 => {
                    let l = lines[i].clone();
                    lines.insert(rng.random_range(0..=lines.len()), l);
                }
                _ => {
                    let j = rng.random_range(0..lines.len());
                    lines.swap(i, j);
                }
            }
            *text = lines.concat();
        }
        _ => {
            // A new `key = value` line somewhere.
            let at = line_start_near(text, rng.random_range(0..=text.len()));
            let k = INTERESTING_KEYS.choose(rng).copied().unwrap_or("x");
            let v = INTERESTING_VALUES.choose(rng).copied().unwrap_or("0");
            text.insert_str(at, &format!("{k} = {v}\n"));
        }
    }
}

/// Start of the line holding byte `pos` (always a char boundary: right after a newline, or 0).
fn line_start_near(text: &str, pos: usize) -> usize {
    text.as_bytes()[..pos.min(text.len())].iter().rposition(|&c| c == b'\n').map_or(0, |p| p + 1)
}

fn parse_int(s: &str) -> Option<i128> {
    let s = s.trim().replace('_', "");
    if let Some(hex) = s.strip_prefix("0x") {
        return i128::from_str_radix(hex, 16).ok();
    }
    s.parse().ok()
}

/// Swaps two non-overlapping spans of `text` (identical or overlapping spans leave it unchanged).
fn swap_spans(text: &mut String, a: (usize, usize), b: (usize, usize)) {
    let (first, second) = if a.0 <= b.0 { (a, b) } else { (b, a) };
    if first.1 > second.0 {
        return;
    }
    let s1 = text[first.0..first.1].to_string();
    let s2 = text[second.0..second.1].to_string();
    text.replace_range(second.0..second.1, &s1);
    text.replace_range(first.0..first.1, &s2);
}

/// A random mix: mostly TOML-aware edits, sometimes byte edits (the result is read as UTF-8 with
/// replacement characters, as a file with stray bytes would be after `from_utf8_lossy`).
pub fn mutate_text(rng: &mut FuzzRng, seed: &str, others: &[Vec<u8>]) -> Vec<u8> {
    let mut text = seed.to_string();
    let roll = rng.random_range(0..10);
    if roll < 6 {
        mutate_toml(rng, &mut text);
        text.into_bytes()
    } else if roll < 8 {
        mutate_toml(rng, &mut text);
        let mut bytes = text.into_bytes();
        mutate_bytes(rng, &mut bytes, others);
        bytes
    } else {
        let mut bytes = text.into_bytes();
        mutate_bytes(rng, &mut bytes, others);
        bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scanner_finds_keys_values_and_headers() {
        let s = scan("[a]\nx = 1\ny = { z = \"q\", w = [1, 2] }\n");
        assert_eq!(s.headers.len(), 1);
        assert_eq!(s.keys.len(), 4);
        assert_eq!(s.values.len(), 4);
    }
}
