//! The trace file layout (version 1; `docs/trace-format.md` is the reference):
//!
//! ```text
//! magic "PUYOTRC\x1a" | version u16 | header length u32 | header | header CRC32 u32
//! block*: 'B' | first frame u32 | frames u16 | raw length u32 | packed length u32 | CRC32 u32 | deflate
//! end:    'E' | frames u32 | RAM hash after the last frame u64 | CRC32 u32 of the 12 bytes before it
//! ```
//!
//! All integers are little-endian. A block's payload, once inflated, is one record per frame: pad 1,
//! pad 2, then the RAM runs that differ from the frame before (LEB128 count, then per run the LEB128 gap
//! from the end of the previous run, the LEB128 length and the bytes). The first frame of a file holds
//! the whole 2 KiB of RAM as one run. A frame's RAM is RAM at the start of that frame, and its pads are
//! the buttons held during it, which is exactly what the learner's [`crate::calib::Frame`] is.

use std::collections::BTreeMap;

use crate::emu::RomImage;
use crate::emu::rom::INES_HEADER_LEN;

/// The eight bytes every trace file starts with.
pub const MAGIC: [u8; 8] = *b"PUYOTRC\x1a";
/// The format version this code writes (version 2 added note records, the bots' decisions).
pub const VERSION: u16 = 2;
/// The oldest format version this code reads (version 1: no note records).
pub const OLDEST_VERSION: u16 = 1;
/// Bytes of CPU RAM in every frame.
pub const RAM_SIZE: usize = 2048;
/// Frames per block the writer makes (five seconds of play: a crash loses at most that much).
pub const BLOCK_FRAMES: usize = 300;
/// The most frames a reader accepts in one block.
pub const MAX_BLOCK_FRAMES: usize = 4096;
/// The largest inflated record of one frame: two pads, a count and at most 1024 runs of one byte.
pub const MAX_FRAME_BYTES: usize = 2 + 3 + 1024 * 5 + RAM_SIZE;
/// The most bytes of metadata text a header holds (its length is a u16).
pub const MAX_META_LEN: usize = u16::MAX as usize;
/// The largest header body a reader accepts.
pub const MAX_HEADER_LEN: u32 = 70_000;
/// Block tag.
pub const TAG_BLOCK: u8 = b'B';
/// End-record tag.
pub const TAG_END: u8 = b'E';
/// Note-record tag (a bot's decision).
pub const TAG_NOTE: u8 = b'N';
/// Bytes of a note record's head after its tag: frame u32, player u8, text length u16.
pub const NOTE_HEAD_LEN: usize = 4 + 1 + 2;
/// The longest note text written, in bytes (a longer one is cut at a character boundary).
pub const MAX_NOTE_LEN: usize = 200;
/// Bytes of a block header after its tag.
pub const BLOCK_HEAD_LEN: usize = 4 + 2 + 4 + 4 + 4;
/// Bytes of the end record after its tag.
pub const END_LEN: usize = 4 + 8 + 4;

/// A line a player's bot said about its decision (e.g. `FIRE 4: 30 = CAP -> x3:Up`), kept beside the
/// frame it was made before: a recording shows why each piece went where it went.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceNote {
    /// The frame (of the file) the decision was made before.
    pub frame: u64,
    /// The player, 0 for player 1.
    pub player: u8,
    /// What the bot said, at most [`MAX_NOTE_LEN`] bytes.
    pub text: String,
}

impl TraceNote {
    /// A note of `player` at `frame`, its text cut to [`MAX_NOTE_LEN`] bytes.
    pub fn new(frame: u64, player: usize, text: &str) -> TraceNote {
        let mut end = text.len().min(MAX_NOTE_LEN);
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        TraceNote { frame, player: player.min(u8::MAX as usize) as u8, text: text[..end].to_string() }
    }

    /// The record: tag, frame, player, text length, text, then the CRC32 of everything after the tag.
    pub fn encode(&self, out: &mut Vec<u8>) {
        let start = out.len();
        out.push(TAG_NOTE);
        out.extend_from_slice(&(self.frame.min(u32::MAX as u64) as u32).to_le_bytes());
        out.push(self.player);
        out.extend_from_slice(&(self.text.len() as u16).to_le_bytes());
        out.extend_from_slice(self.text.as_bytes());
        let crc = crc32fast::hash(&out[start + 1..]);
        out.extend_from_slice(&crc.to_le_bytes());
    }
}

/// Why a trace file cannot be read (or written). Every variant names the file; those about its content
/// name the byte offset and what was expected there.
#[derive(Debug, thiserror::Error)]
pub enum TraceError {
    /// The file could not be opened, read or written.
    #[error("{file}: {source}")]
    Io {
        /// The file.
        file: String,
        /// What the OS said.
        source: std::io::Error,
    },
    /// The file does not start with the trace magic.
    #[error(
        "{file} is not a puyobot trace: byte 0 holds {found}, expected the magic 50 55 59 4F 54 52 43 1A (\"PUYOTRC\\x1a\")"
    )]
    NotTrace {
        /// The file.
        file: String,
        /// The first bytes, in hex.
        found: String,
    },
    /// A version this program does not read.
    #[error("{file}: byte 8: trace format version {found}, this puyobot reads version {VERSION}")]
    Version {
        /// The file.
        file: String,
        /// The version in the file.
        found: u16,
    },
    /// The content is not what the format allows.
    #[error("{file}: byte {offset}: {what}")]
    Corrupt {
        /// The file.
        file: String,
        /// Byte offset in the file where the bad record (or field) starts.
        offset: u64,
        /// What was found and what was expected.
        what: String,
    },
    /// The file ends inside the header: not one frame can be read.
    #[error("{file} is truncated at byte {offset}: the header is incomplete ({what})")]
    TruncatedHeader {
        /// The file.
        file: String,
        /// File length.
        offset: u64,
        /// What was being read.
        what: String,
    },
}

/// The header: which cartridge was played and how it was recorded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceHeader {
    /// SHA-1 of the ROM after its 16-byte iNES header, 40 upper-case hex digits.
    pub rom_sha1: String,
    /// CRC32 of the same bytes, 8 upper-case hex digits.
    pub rom_crc32: String,
    /// The ROM's iNES header as it was in the file.
    pub ines: [u8; INES_HEADER_LEN],
    /// iNES mapper number.
    pub mapper: u16,
    /// PRG-ROM size in KiB.
    pub prg_kib: u16,
    /// CHR-ROM size in KiB (0: CHR-RAM).
    pub chr_kib: u16,
    /// Free-form facts as `key = value` (keys and values without line breaks): `rom_name`, `mode`,
    /// `players` (who pressed the pads: `keyboard`, `bot`, …), `puyobot` (version).
    pub meta: BTreeMap<String, String>,
}

impl TraceHeader {
    /// The header for a recording of `rom`, with no metadata yet.
    pub fn for_rom(rom: &RomImage) -> TraceHeader {
        let mut ines = [0u8; INES_HEADER_LEN];
        for (d, s) in ines.iter_mut().zip(&rom.bytes) {
            *d = *s;
        }
        let mut meta = BTreeMap::new();
        meta.insert("rom_name".to_string(), rom.name.clone());
        meta.insert("puyobot".to_string(), env!("CARGO_PKG_VERSION").to_string());
        TraceHeader {
            rom_sha1: rom.hash.sha1.clone(),
            rom_crc32: rom.hash.crc32.clone(),
            ines,
            mapper: rom.mapper,
            prg_kib: u16::from(ines[4]) * 16,
            chr_kib: u16::from(ines[5]) * 8,
            meta,
        }
    }

    /// Sets a metadata entry (line breaks and `=` in the key are replaced by spaces / `_`).
    pub fn set(&mut self, key: &str, value: &str) {
        let key: String = key.chars().map(|c| if c == '=' { '_' } else { c }).collect();
        let clean = |s: &str| s.replace(['\n', '\r'], " ").trim().to_string();
        self.meta.insert(clean(&key), clean(value));
    }

    /// A metadata entry.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.meta.get(key).map(String::as_str)
    }

    /// Sets a metadata entry whose value may span lines (the run's configuration): `\` is written as
    /// `\\`, a line break as `\n`, a carriage return as `\r`, so the entry stays one `key = value` line
    /// and [`TraceHeader::get_text`] gives the text back exactly.
    pub fn set_text(&mut self, key: &str, text: &str) {
        let mut escaped = String::with_capacity(text.len() + text.len() / 16);
        for c in text.chars() {
            match c {
                '\\' => escaped.push_str("\\\\"),
                '\n' => escaped.push_str("\\n"),
                '\r' => escaped.push_str("\\r"),
                c => escaped.push(c),
            }
        }
        let key: String = key.chars().map(|c| if c == '=' || c == '\n' || c == '\r' { '_' } else { c }).collect();
        self.meta.insert(key.trim().to_string(), escaped);
    }

    /// A metadata entry written by [`TraceHeader::set_text`], unescaped; `Err` with the reason when an
    /// escape is not one that `set_text` writes.
    pub fn get_text(&self, key: &str) -> Option<Result<String, String>> {
        let raw = self.meta.get(key)?;
        let mut out = String::with_capacity(raw.len());
        let mut chars = raw.chars();
        while let Some(c) = chars.next() {
            if c != '\\' {
                out.push(c);
                continue;
            }
            match chars.next() {
                Some('\\') => out.push('\\'),
                Some('n') => out.push('\n'),
                Some('r') => out.push('\r'),
                other => {
                    let found = other.map_or("the end of the value".to_string(), |c| format!("`\\{c}`"));
                    return Some(Err(format!("found {found}, expected the escapes `\\\\`, `\\n` or `\\r`")));
                }
            }
        }
        Some(Ok(out))
    }

    /// Bytes of the metadata text as [`TraceHeader::encode`] writes it; more than [`MAX_META_LEN`] do not fit.
    pub fn metadata_len(&self) -> usize {
        self.meta.iter().map(|(k, v)| k.len() + v.len() + 4).sum()
    }

    /// The header body's bytes (between the length and the CRC).
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(128);
        out.extend_from_slice(&hex_bytes::<20>(&self.rom_sha1));
        out.extend_from_slice(&u32::from_str_radix(&self.rom_crc32, 16).unwrap_or(0).to_le_bytes());
        out.extend_from_slice(&self.ines);
        out.extend_from_slice(&self.mapper.to_le_bytes());
        out.extend_from_slice(&self.prg_kib.to_le_bytes());
        out.extend_from_slice(&self.chr_kib.to_le_bytes());
        out.extend_from_slice(&(RAM_SIZE as u16).to_le_bytes());
        let mut text = String::new();
        for (k, v) in &self.meta {
            text.push_str(&format!("{k} = {v}\n"));
        }
        let mut cut = text.len().min(u16::MAX as usize);
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        let mut text = text.into_bytes();
        text.truncate(cut);
        out.extend_from_slice(&(text.len() as u16).to_le_bytes());
        out.extend_from_slice(&text);
        out
    }

    /// Parses a header body; `at` is the body's offset in `file`, for messages.
    pub fn decode(file: &str, at: u64, body: &[u8]) -> Result<TraceHeader, TraceError> {
        let mut c = Cursor { file, base: at, bytes: body, pos: 0 };
        let sha = c.take(20, "the ROM's SHA-1 (20 bytes)")?;
        let crc = c.u32("the ROM's CRC32")?;
        let mut ines = [0u8; INES_HEADER_LEN];
        ines.copy_from_slice(c.take(INES_HEADER_LEN, "the ROM's iNES header (16 bytes)")?);
        let mapper = c.u16("the mapper number")?;
        let prg_kib = c.u16("the PRG-ROM size")?;
        let chr_kib = c.u16("the CHR-ROM size")?;
        let ram_at = c.offset();
        let ram = c.u16("the RAM size")?;
        if ram as usize != RAM_SIZE {
            return Err(c.corrupt(ram_at, format!("RAM size {ram}, expected {RAM_SIZE}")));
        }
        let len = c.u16("the metadata length")? as usize;
        let text_at = c.offset();
        let text = c.take(len, "the metadata text")?;
        let text = std::str::from_utf8(text).map_err(|e| {
            c.corrupt(text_at, format!("the metadata is not UTF-8 ({e}), expected `key = value` lines"))
        })?;
        let mut meta = BTreeMap::new();
        for (i, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let Some((k, v)) = line.split_once('=') else {
                return Err(c.corrupt(text_at, format!("metadata line {}: {line:?}, expected `key = value`", i + 1)));
            };
            meta.insert(k.trim().to_string(), v.trim().to_string());
        }
        if c.pos != body.len() {
            return Err(
                c.corrupt(c.offset(), format!("{} bytes after the metadata, expected none", body.len() - c.pos))
            );
        }
        Ok(TraceHeader {
            rom_sha1: sha.iter().map(|b| format!("{b:02X}")).collect(),
            rom_crc32: format!("{crc:08X}"),
            ines,
            mapper,
            prg_kib,
            chr_kib,
            meta,
        })
    }
}

/// `N` bytes from hex digits (missing or bad digits read as 0).
fn hex_bytes<const N: usize>(hex: &str) -> [u8; N] {
    let mut out = [0u8; N];
    for (i, b) in out.iter_mut().enumerate() {
        *b = hex.get(2 * i..2 * i + 2).and_then(|h| u8::from_str_radix(h, 16).ok()).unwrap_or(0);
    }
    out
}

/// Reads fields from a byte slice that sits at `base` in `file`, with errors that name the offset.
pub(crate) struct Cursor<'a> {
    pub file: &'a str,
    pub base: u64,
    pub bytes: &'a [u8],
    pub pos: usize,
}

impl<'a> Cursor<'a> {
    /// File offset of the next byte.
    pub fn offset(&self) -> u64 {
        self.base + self.pos as u64
    }

    /// A `Corrupt` error at `offset`.
    pub fn corrupt(&self, offset: u64, what: String) -> TraceError {
        TraceError::Corrupt { file: self.file.to_string(), offset, what }
    }

    /// The next `n` bytes.
    pub fn take(&mut self, n: usize, what: &str) -> Result<&'a [u8], TraceError> {
        match self.bytes.get(self.pos..self.pos.saturating_add(n)) {
            Some(s) => {
                self.pos += n;
                Ok(s)
            }
            None => Err(self.corrupt(
                self.offset(),
                format!(
                    "expected {what}, but only {} bytes are left",
                    self.bytes.len() - self.pos.min(self.bytes.len())
                ),
            )),
        }
    }

    /// A little-endian u16.
    pub fn u16(&mut self, what: &str) -> Result<u16, TraceError> {
        let b = self.take(2, what)?;
        Ok(u16::from_le_bytes([b[0], b[1]]))
    }

    /// A little-endian u32.
    pub fn u32(&mut self, what: &str) -> Result<u32, TraceError> {
        let b = self.take(4, what)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    /// An unsigned LEB128 number of at most 32 bits.
    pub fn varint(&mut self, what: &str) -> Result<u32, TraceError> {
        let at = self.offset();
        let mut v: u64 = 0;
        for i in 0..5 {
            let b = self.take(1, what)?[0];
            v |= u64::from(b & 0x7F) << (7 * i);
            if b & 0x80 == 0 {
                return u32::try_from(v).map_err(|_| self.corrupt(at, format!("{what}: {v} does not fit 32 bits")));
            }
        }
        Err(self.corrupt(at, format!("{what}: a LEB128 number longer than 5 bytes")))
    }
}

/// Appends `v` as unsigned LEB128.
pub fn put_varint(out: &mut Vec<u8>, mut v: u32) {
    loop {
        let b = (v & 0x7F) as u8;
        v >>= 7;
        if v == 0 {
            out.push(b);
            return;
        }
        out.push(b | 0x80);
    }
}

/// Unchanged bytes a run may bridge (cheaper than starting a new run, whose gap and length cost two).
const BRIDGE: usize = 2;

/// Appends one frame record: the pads, then the runs of `cur` that differ from `prev` (all of `cur` when
/// `prev` is `None`).
pub fn encode_frame(out: &mut Vec<u8>, pads: [u8; 2], prev: Option<&[u8; RAM_SIZE]>, cur: &[u8; RAM_SIZE]) {
    out.extend_from_slice(&pads);
    let Some(prev) = prev else {
        put_varint(out, 1);
        put_varint(out, 0);
        put_varint(out, RAM_SIZE as u32);
        out.extend_from_slice(cur);
        return;
    };
    let mut runs: Vec<(usize, usize)> = Vec::new();
    for i in (0..RAM_SIZE).filter(|&i| prev[i] != cur[i]) {
        match runs.last_mut() {
            Some((_, end)) if i - *end <= BRIDGE => *end = i + 1,
            _ => runs.push((i, i + 1)),
        }
    }
    put_varint(out, runs.len() as u32);
    let mut at = 0;
    for (start, end) in runs {
        put_varint(out, (start - at) as u32);
        put_varint(out, (end - start) as u32);
        out.extend_from_slice(&cur[start..end]);
        at = end;
    }
}

/// Reads one frame record from `c` and applies its runs to `ram`; returns the pads and whether the
/// record covered all of RAM.
pub(crate) fn decode_frame(c: &mut Cursor<'_>, ram: &mut [u8; RAM_SIZE]) -> Result<([u8; 2], bool), TraceError> {
    let p = c.take(2, "the pad bytes")?;
    let pads = [p[0], p[1]];
    let count_at = c.offset();
    let runs = c.varint("the number of RAM runs")? as usize;
    if runs > RAM_SIZE {
        return Err(c.corrupt(count_at, format!("{runs} RAM runs, expected at most {RAM_SIZE}")));
    }
    let mut at = 0usize;
    let mut covered = 0usize;
    for r in 0..runs {
        let run_at = c.offset();
        let gap = c.varint("a run's gap")? as usize;
        let len = c.varint("a run's length")? as usize;
        let start = at.saturating_add(gap);
        let end = start.saturating_add(len);
        if len == 0 || end > RAM_SIZE || (r > 0 && gap == 0) {
            return Err(c.corrupt(
                run_at,
                format!(
                    "RAM run {} of {runs}: gap {gap}, length {len} after byte {at}; expected a non-empty run ending \
                     within {RAM_SIZE} bytes of RAM",
                    r + 1
                ),
            ));
        }
        ram[start..end].copy_from_slice(c.take(len, "a run's bytes")?);
        covered += len;
        at = end;
    }
    Ok((pads, covered == RAM_SIZE))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints_round_trip_and_overlong_ones_are_refused() {
        for v in [0u32, 1, 127, 128, 300, 16_383, 16_384, u32::MAX] {
            let mut b = Vec::new();
            put_varint(&mut b, v);
            let mut c = Cursor { file: "t", base: 0, bytes: &b, pos: 0 };
            assert_eq!(c.varint("v").unwrap(), v);
            assert_eq!(c.pos, b.len());
        }
        let bad = [0xFFu8; 6];
        let mut c = Cursor { file: "t", base: 10, bytes: &bad, pos: 0 };
        let e = c.varint("a run's gap").unwrap_err().to_string();
        assert!(e.contains("byte 10") && e.contains("a run's gap"), "{e}");
    }

    #[test]
    fn frames_round_trip_and_bridge_short_gaps() {
        let mut a = [0u8; RAM_SIZE];
        for (i, b) in a.iter_mut().enumerate() {
            *b = (i * 7) as u8;
        }
        let mut b = a;
        b[5] ^= 1;
        b[7] ^= 1; // two apart: one run 5..8
        b[100] ^= 0xFF;
        b[2047] = 9;
        let mut out = Vec::new();
        encode_frame(&mut out, [0x41, 0x02], None, &a);
        encode_frame(&mut out, [0x00, 0x80], Some(&a), &b);
        let mut ram = [0u8; RAM_SIZE];
        let mut c = Cursor { file: "t", base: 0, bytes: &out, pos: 0 };
        assert_eq!(decode_frame(&mut c, &mut ram).unwrap(), ([0x41, 0x02], true));
        assert_eq!(ram, a);
        let second = c.pos;
        assert_eq!(decode_frame(&mut c, &mut ram).unwrap(), ([0x00, 0x80], false));
        assert_eq!(ram, b);
        // pads, count 3, (5,3)+3 bytes, (92,1)+1, (1946,1)+1: the bridged run saves a run header.
        assert_eq!(out.len() - second, 2 + 1 + (2 + 3) + (2 + 1) + (3 + 1));
    }

    #[test]
    fn a_run_past_the_end_of_ram_is_refused_with_its_offset() {
        let mut out = vec![0, 0];
        put_varint(&mut out, 1);
        put_varint(&mut out, 2040);
        put_varint(&mut out, 9);
        out.extend_from_slice(&[1; 9]);
        let mut ram = [0u8; RAM_SIZE];
        let mut c = Cursor { file: "x.trace", base: 500, bytes: &out, pos: 0 };
        let e = decode_frame(&mut c, &mut ram).unwrap_err().to_string();
        assert!(e.starts_with("x.trace: byte 503:"), "{e}");
        assert!(e.contains("gap 2040, length 9"), "{e}");
    }

    #[test]
    fn the_header_round_trips_and_names_bad_metadata() {
        let rom = crate::emu::rom::labcart().unwrap();
        let mut h = TraceHeader::for_rom(&rom);
        h.set("mode", "endless\nwith a newline");
        let body = h.encode();
        let back = TraceHeader::decode("t", 14, &body).unwrap();
        assert_eq!(back, h);
        assert_eq!(back.get("mode"), Some("endless with a newline"));
        assert_eq!(back.mapper, rom.mapper);
        let mut bad = body.clone();
        let text_start = bad.len() - u16::from_le_bytes([body[48], body[49]]) as usize;
        for b in &mut bad[text_start..] {
            if *b == b'=' {
                *b = b':';
            }
        }
        let e = TraceHeader::decode("t", 14, &bad).unwrap_err().to_string();
        assert!(e.contains("expected `key = value`"), "{e}");
    }

    #[test]
    fn text_values_keep_line_breaks_and_backslashes_through_the_header() {
        let rom = crate::emu::rom::labcart().unwrap();
        let mut h = TraceHeader::for_rom(&rom);
        let text = "[play]\nrom = \"C:\\\\roms\\\\puyo.nes\"\r\nseed = 3\n\n# a = b\n";
        h.set_text("config", text);
        h.set("seed", "3");
        let back = TraceHeader::decode("t", 14, &h.encode()).unwrap();
        assert_eq!(back.get_text("config"), Some(Ok(text.to_string())));
        assert_eq!(back.get("seed"), Some("3"));
        assert!(!back.get("config").unwrap().contains('\n'), "one line in the file");
        let mut bad = back.clone();
        bad.meta.insert("config".into(), "a\\tb".into());
        let e = bad.get_text("config").unwrap().unwrap_err();
        assert!(e.contains("`\\t`") && e.contains("expected"), "{e}");
        assert_eq!(bad.get_text("absent"), None);
    }
}
