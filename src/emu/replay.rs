//! Replay files of older versions (read, no longer written: runs are recorded as traces, `crate::trace`):
//! the pads a headless run fed the console, frame by frame, with what is needed to run it again (the
//! ROM's hash, the seed, the merged configuration, the limits) and the RAM hash it ended on.
//!
//! The file is TOML so a person can read the header; the pads are run-length encoded as
//! `COUNTxP1P2` tokens (count in decimal, the two pad bytes in hex), e.g. `120x0000 3x4000`.

use std::path::Path;

use serde::Deserialize;

/// The format version this build reads.
pub const VERSION: u32 = 1;

/// A replay file.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Replay {
    /// Format version ([`VERSION`]).
    pub version: u32,
    /// SHA-1 of the ROM body (after the header), upper-case hex.
    pub rom_sha1: String,
    /// The ROM's file name when recorded (a hint; the hash decides).
    pub rom_name: String,
    /// The run's seed (bots and faults).
    pub seed: u64,
    /// `--frames` of the run, if given.
    pub frames: Option<u64>,
    /// `--pieces` of the run, if given.
    pub pieces: Option<u32>,
    /// `--games` of the run, if given (absent in files written before matches existed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub games: Option<u32>,
    /// Final RAM hash (see [`super::ram_hash`]), 16 hex digits.
    pub ram_hash: String,
    /// The merged configuration of the run, as TOML.
    pub config: String,
    /// The pads of every frame, run-length encoded.
    pub pads: String,
}

/// Why a replay file could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    /// The file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// What the system said.
        source: std::io::Error,
    },
    /// The file is not a replay of a version this build reads, or a key is wrong.
    #[error("{path}: key `{key}`: {message}")]
    Bad {
        /// The file.
        path: String,
        /// The key at fault.
        key: String,
        /// What was expected.
        message: String,
    },
}

/// Decodes the `pads` value; the error says which token is wrong and what a token looks like.
pub fn decode_pads(text: &str) -> Result<Vec<[u8; 2]>, String> {
    let mut log = Vec::new();
    for (n, token) in text.split_whitespace().enumerate() {
        let bad = || format!("token {} `{token}`: expected COUNTxP1P2, e.g. 12x4000", n + 1);
        let (count, hex) = token.split_once('x').ok_or_else(bad)?;
        let count: usize = count.parse().map_err(|_| bad())?;
        if hex.len() != 4 || count == 0 || log.len() + count > 100_000_000 {
            return Err(bad());
        }
        let p1 = u8::from_str_radix(&hex[..2], 16).map_err(|_| bad())?;
        let p2 = u8::from_str_radix(&hex[2..], 16).map_err(|_| bad())?;
        log.extend(std::iter::repeat_n([p1, p2], count));
    }
    Ok(log)
}

impl Replay {
    /// Reads and checks a file (version, hash shapes, pads).
    pub fn load(path: &Path) -> Result<(Replay, Vec<[u8; 2]>), ReplayError> {
        let name = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|source| ReplayError::Io { path: name.clone(), source })?;
        Replay::parse(&name, &text)
    }

    /// Parses file text; `name` labels errors.
    pub fn parse(name: &str, text: &str) -> Result<(Replay, Vec<[u8; 2]>), ReplayError> {
        let bad = |key: &str, message: String| ReplayError::Bad { path: name.into(), key: key.into(), message };
        let table: toml::Table = toml::from_str(text).map_err(|e| bad("(parse)", e.message().trim().to_string()))?;
        match table.get("version").and_then(|v| v.as_integer()) {
            Some(v) if v == i64::from(VERSION) => {}
            Some(v) => return Err(bad("version", format!("this build reads version {VERSION}, the file is {v}"))),
            None => return Err(bad("version", format!("expected the integer {VERSION}; is this a replay file?"))),
        }
        let replay: Replay = toml::Value::Table(table).try_into().map_err(|e: toml::de::Error| {
            let key = e.message().split('`').nth(1).unwrap_or("(file)").to_string();
            bad(&key, e.message().trim().to_string())
        })?;
        let hex = |s: &str, n: usize| s.len() == n && s.chars().all(|c| c.is_ascii_hexdigit());
        if !hex(&replay.rom_sha1, 40) {
            return Err(bad("rom_sha1", format!("expected 40 hex digits, found `{}`", replay.rom_sha1)));
        }
        if !hex(&replay.ram_hash, 16) {
            return Err(bad("ram_hash", format!("expected 16 hex digits, found `{}`", replay.ram_hash)));
        }
        let log = decode_pads(&replay.pads).map_err(|m| bad("pads", m))?;
        Ok((replay, log))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Run-length encodes a pad log.
    fn encode_pads(log: &[[u8; 2]]) -> String {
        let mut out = String::new();
        let (mut i, mut tokens) = (0, 0);
        while i < log.len() {
            let run = log[i..].iter().take_while(|p| **p == log[i]).count();
            if tokens > 0 {
                // Sixteen tokens a line keeps the file readable and diffable.
                out.push(if tokens % 16 == 0 { '\n' } else { ' ' });
            }
            tokens += 1;
            out.push_str(&format!("{run}x{:02X}{:02X}", log[i][0], log[i][1]));
            i += run;
        }
        out
    }

    /// The file text a version that wrote replays made of `r`.
    fn text_of(r: &Replay) -> String {
        let mut t = format!(
            "version = {}\nrom_sha1 = \"{}\"\nrom_name = \"{}\"\nseed = {}\n",
            r.version, r.rom_sha1, r.rom_name, r.seed
        );
        if let Some(f) = r.frames {
            t.push_str(&format!("frames = {f}\n"));
        }
        if let Some(p) = r.pieces {
            t.push_str(&format!("pieces = {p}\n"));
        }
        if let Some(g) = r.games {
            t.push_str(&format!("games = {g}\n"));
        }
        t.push_str(&format!(
            "ram_hash = \"{}\"\nconfig = {:?}\npads = \"\"\"\n{}\"\"\"\n",
            r.ram_hash, r.config, r.pads
        ));
        t
    }

    fn sample() -> (Replay, Vec<[u8; 2]>) {
        let log: Vec<[u8; 2]> = (0..500u32).map(|f| [if f % 9 < 2 { 0x40 } else { 0 }, (f / 100) as u8]).collect();
        let r = Replay {
            version: VERSION,
            rom_sha1: "A".repeat(40),
            rom_name: "puyolab.nes".into(),
            seed: 3,
            frames: None,
            pieces: Some(10),
            games: None,
            ram_hash: "0123456789abcdef".into(),
            config: "[play]\nseed = 3\n".into(),
            pads: encode_pads(&log),
        };
        (r, log)
    }

    #[test]
    fn a_replay_round_trips_through_text() {
        let (r, log) = sample();
        let text = text_of(&r);
        let (back, back_log) = Replay::parse("x", &text).expect("parse");
        assert_eq!(back, r);
        assert_eq!(back_log, log);
    }

    #[test]
    fn bad_files_name_the_key() {
        let (r, _) = sample();
        let text = text_of(&r);
        let err = |t: &str| Replay::parse("f.replay", t).unwrap_err().to_string();
        assert!(err(&text.replace("version = 1", "version = 9")).contains("key `version`"));
        assert!(err("seed = 1\n").contains("is this a replay file"));
        let e = err(&text.replace(&"A".repeat(40), "zz"));
        assert!(e.contains("f.replay") && e.contains("`rom_sha1`"), "{e}");
        let e = err(&text.replace("x4000", "x40"));
        assert!(e.contains("`pads`") && e.contains("COUNTxP1P2"), "{e}");
        let e = err(&text.replace("seed = 3", "seed = \"three\""));
        assert!(e.contains("f.replay"), "{e}");
    }
}
