//! Reading traces one frame at a time, in constant memory. A file cut short (a crash, a full disk, a
//! partial upload) still gives every frame of its complete blocks; [`TraceReader::end`] then says where
//! and how it was cut. Anything else that is not the format is an error naming the byte offset.

use std::fs::File;
use std::io::{BufReader, Read};
use std::path::Path;

use flate2::read::DeflateDecoder;

use super::format::{
    BLOCK_HEAD_LEN, Cursor, END_LEN, MAGIC, MAX_BLOCK_FRAMES, MAX_FRAME_BYTES, MAX_HEADER_LEN, NOTE_HEAD_LEN,
    OLDEST_VERSION, RAM_SIZE, TAG_BLOCK, TAG_END, TAG_NOTE, TraceError, TraceHeader, TraceNote, VERSION, decode_frame,
};

/// One frame as read: the pads held during it and RAM at its start.
pub type FrameRef<'a> = ([u8; 2], &'a [u8; RAM_SIZE]);

/// How the frames of a file ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TraceEnd {
    /// The end record was there and agrees with the frames read.
    Complete {
        /// Frames in the file.
        frames: u64,
        /// FNV-1a hash of RAM after the last frame (see [`crate::emu::ram_hash`]).
        final_ram_hash: u64,
    },
    /// The file stops early: every complete block was read, the rest is missing.
    Truncated {
        /// Byte offset where the incomplete record starts (or where the file ends).
        offset: u64,
        /// Frames read (all of them complete).
        frames: u64,
        /// What is missing.
        what: String,
    },
}

impl TraceEnd {
    /// A warning for people, or `None` for a complete file.
    pub fn warning(&self, file: &str) -> Option<String> {
        match self {
            TraceEnd::Complete { .. } => None,
            TraceEnd::Truncated { offset, frames, what } => Some(format!(
                "{file} is truncated at byte {offset}: {what}; using the {frames} complete frames before it"
            )),
        }
    }
}

/// Reads a trace frame by frame.
pub struct TraceReader<R: Read = BufReader<File>> {
    src: R,
    file: String,
    header: TraceHeader,
    /// File offset of the next unread byte.
    pos: u64,
    ram: Box<[u8; RAM_SIZE]>,
    frames: u64,
    payload: Vec<u8>,
    payload_pos: usize,
    block_left: usize,
    block_at: u64,
    end: Option<TraceEnd>,
    /// The bots' decisions read so far (format version 2 on).
    notes: Vec<TraceNote>,
    /// The file's format version.
    version: u16,
}

impl<R: Read> std::fmt::Debug for TraceReader<R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TraceReader").field("file", &self.file).field("frames", &self.frames).finish()
    }
}

impl TraceReader<BufReader<File>> {
    /// Opens a trace file and reads its header.
    pub fn open(path: &Path) -> Result<Self, TraceError> {
        let label = path.display().to_string();
        let file = File::open(path).map_err(|source| TraceError::Io { file: label.clone(), source })?;
        TraceReader::new(BufReader::new(file), &label)
    }
}

/// Reads until `buf` is full or the source ends; returns the bytes read.
fn read_up_to<R: Read>(src: &mut R, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match src.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

impl<R: Read> TraceReader<R> {
    /// Reads the header from `src`; `label` names the file in messages.
    pub fn new(mut src: R, label: &str) -> Result<Self, TraceError> {
        let file = label.to_string();
        let io = |source| TraceError::Io { file: file.clone(), source };
        let short = |offset: usize, what: &str| TraceError::TruncatedHeader {
            file: file.clone(),
            offset: offset as u64,
            what: what.to_string(),
        };
        let mut head = [0u8; 14];
        let n = read_up_to(&mut src, &mut head).map_err(io)?;
        if n < MAGIC.len() || head[..MAGIC.len()] != MAGIC {
            if n > 0 && n < MAGIC.len() && head[..n] == MAGIC[..n] {
                return Err(short(n, "the magic"));
            }
            let found = head[..n.min(8)].iter().map(|b| format!("{b:02X}")).collect::<Vec<_>>().join(" ");
            let found = if found.is_empty() { "nothing (empty file)".to_string() } else { found };
            return Err(TraceError::NotTrace { file, found });
        }
        if n < 14 {
            return Err(short(n, "the version and header length"));
        }
        let version = u16::from_le_bytes([head[8], head[9]]);
        if !(OLDEST_VERSION..=VERSION).contains(&version) {
            return Err(TraceError::Version { file, found: version });
        }
        let len = u32::from_le_bytes([head[10], head[11], head[12], head[13]]);
        if len > MAX_HEADER_LEN {
            return Err(TraceError::Corrupt {
                file,
                offset: 10,
                what: format!("header length {len}, expected at most {MAX_HEADER_LEN}"),
            });
        }
        let mut body = vec![0u8; len as usize + 4];
        let got = read_up_to(&mut src, &mut body).map_err(io)?;
        if got < body.len() {
            return Err(short(14 + got, &format!("{} of its {} bytes", got, body.len())));
        }
        let crc_at = 14 + len as u64;
        let (body, crc) = body.split_at(len as usize);
        let crc = u32::from_le_bytes([crc[0], crc[1], crc[2], crc[3]]);
        if crc32fast::hash(body) != crc {
            return Err(TraceError::Corrupt {
                file,
                offset: crc_at,
                what: format!("header CRC32 {crc:08X}, but the header's bytes give {:08X}", crc32fast::hash(body)),
            });
        }
        let header = TraceHeader::decode(&file, 14, body)?;
        Ok(TraceReader {
            src,
            file,
            header,
            pos: crc_at + 4,
            ram: Box::new([0; RAM_SIZE]),
            frames: 0,
            payload: Vec::new(),
            payload_pos: 0,
            block_left: 0,
            block_at: 0,
            end: None,
            notes: Vec::new(),
            version,
        })
    }

    /// The bots' decisions read so far, in file order: each one follows the block holding its frame, so
    /// all of them are known once [`TraceReader::next_frame`] returned `None`.
    pub fn notes(&self) -> &[TraceNote] {
        &self.notes
    }

    /// The header.
    pub fn header(&self) -> &TraceHeader {
        &self.header
    }

    /// The file's name as given.
    pub fn file(&self) -> &str {
        &self.file
    }

    /// Frames read so far.
    pub fn frames(&self) -> u64 {
        self.frames
    }

    /// How the file ended, once [`TraceReader::next_frame`] has returned `Ok(None)`.
    pub fn end(&self) -> Option<&TraceEnd> {
        self.end.as_ref()
    }

    fn corrupt(&self, offset: u64, what: String) -> TraceError {
        TraceError::Corrupt { file: self.file.clone(), offset, what }
    }

    /// Reads `n` bytes at the current position; `Ok(None)` with the count read when the file ends first.
    fn read(&mut self, n: usize) -> Result<Result<Vec<u8>, usize>, TraceError> {
        let mut buf = vec![0u8; n];
        let got =
            read_up_to(&mut self.src, &mut buf).map_err(|source| TraceError::Io { file: self.file.clone(), source })?;
        self.pos += got as u64;
        Ok(if got == n { Ok(buf) } else { Err(got) })
    }

    fn truncated(&mut self, offset: u64, what: String) {
        self.end = Some(TraceEnd::Truncated { offset, frames: self.frames, what });
    }

    /// The next frame: the pads held during it and RAM at its start. `Ok(None)` at the end of the file
    /// (see [`TraceReader::end`]); an error when the file is not a valid trace there.
    pub fn next_frame(&mut self) -> Result<Option<FrameRef<'_>>, TraceError> {
        if self.end.is_some() {
            return Ok(None);
        }
        if self.block_left == 0 && !self.next_block()? {
            return Ok(None);
        }
        let mut c = Cursor { file: &self.file, base: 0, bytes: &self.payload, pos: self.payload_pos };
        let frame = self.frames;
        let (pads, full) = decode_frame(&mut c, &mut self.ram).map_err(|e| match e {
            TraceError::Corrupt { offset, what, .. } => TraceError::Corrupt {
                file: self.file.clone(),
                offset: self.block_at,
                what: format!("in the block at this byte, frame {frame} (inflated byte {offset}): {what}"),
            },
            other => other,
        })?;
        self.payload_pos = c.pos;
        if frame == 0 && !full {
            return Err(
                self.corrupt(self.block_at, "frame 0 does not hold the whole RAM, expected a full first frame".into())
            );
        }
        self.block_left -= 1;
        if self.block_left == 0 && self.payload_pos != self.payload.len() {
            return Err(self.corrupt(
                self.block_at,
                format!("{} bytes after the block's last frame, expected none", self.payload.len() - self.payload_pos),
            ));
        }
        self.frames += 1;
        Ok(Some((pads, &self.ram)))
    }

    /// Reads the next block (true) or the end (false, with `end` set), keeping the notes on the way.
    fn next_block(&mut self) -> Result<bool, TraceError> {
        loop {
            let at = self.pos;
            let tag = match self.read(1)? {
                Ok(t) => t[0],
                Err(_) => {
                    let frames = self.frames;
                    self.truncated(
                        at,
                        format!("the file ends after frame {frames} without an end record (the recording was cut off)"),
                    );
                    return Ok(false);
                }
            };
            match tag {
                TAG_END => return self.end_record(at),
                TAG_BLOCK => return self.block(at),
                TAG_NOTE if self.header_version() >= 2 => {
                    if !self.note_record(at)? {
                        return Ok(false);
                    }
                }
                other => {
                    return Err(self.corrupt(
                        at,
                        format!(
                            "record tag {other:#04x}, expected a block ('B'), a note ('N') or the end record ('E')"
                        ),
                    ));
                }
            }
        }
    }

    fn header_version(&self) -> u16 {
        self.version
    }

    /// A note record (true), or false when the file ends inside it.
    fn note_record(&mut self, at: u64) -> Result<bool, TraceError> {
        let head = match self.read(NOTE_HEAD_LEN)? {
            Ok(b) => b,
            Err(got) => {
                self.truncated(at, format!("a note is incomplete ({got} of {NOTE_HEAD_LEN} bytes after its tag)"));
                return Ok(false);
            }
        };
        let frame = u32::from_le_bytes([head[0], head[1], head[2], head[3]]) as u64;
        let len = u16::from_le_bytes([head[5], head[6]]) as usize;
        let rest = match self.read(len + 4)? {
            Ok(b) => b,
            Err(got) => {
                self.truncated(at, format!("a note is incomplete ({got} of its {} bytes of text and CRC)", len + 4));
                return Ok(false);
            }
        };
        let (text, crc) = rest.split_at(len);
        let mut body = head.clone();
        body.extend_from_slice(text);
        if crc32fast::hash(&body) != u32::from_le_bytes([crc[0], crc[1], crc[2], crc[3]]) {
            return Err(self.corrupt(at, "the note's CRC32 does not match its bytes".into()));
        }
        if frame > self.frames {
            return Err(self.corrupt(
                at,
                format!("a note of frame {frame} after frame {}, expected it after the block holding it", self.frames),
            ));
        }
        let Ok(text) = String::from_utf8(text.to_vec()) else {
            return Err(self.corrupt(at, "a note whose text is not UTF-8".into()));
        };
        self.notes.push(TraceNote { frame, player: head[4], text });
        Ok(true)
    }

    fn end_record(&mut self, at: u64) -> Result<bool, TraceError> {
        let body = match self.read(END_LEN)? {
            Ok(b) => b,
            Err(got) => {
                self.truncated(at, format!("the end record is incomplete ({got} of {END_LEN} bytes after its tag)"));
                return Ok(false);
            }
        };
        let frames = u32::from_le_bytes([body[0], body[1], body[2], body[3]]) as u64;
        let mut h = [0u8; 8];
        h.copy_from_slice(&body[4..12]);
        let crc = u32::from_le_bytes([body[12], body[13], body[14], body[15]]);
        if crc32fast::hash(&body[..12]) != crc {
            return Err(self.corrupt(at, "the end record's CRC32 does not match its bytes".into()));
        }
        if frames != self.frames {
            return Err(
                self.corrupt(at, format!("the end record counts {frames} frames, the blocks hold {}", self.frames))
            );
        }
        if let Ok(extra) = self.read(1)? {
            let _ = extra;
            return Err(self.corrupt(self.pos - 1, "bytes after the end record, expected the end of the file".into()));
        }
        self.end = Some(TraceEnd::Complete { frames, final_ram_hash: u64::from_le_bytes(h) });
        Ok(false)
    }

    fn block(&mut self, at: u64) -> Result<bool, TraceError> {
        let head = match self.read(BLOCK_HEAD_LEN)? {
            Ok(b) => b,
            Err(got) => {
                self.truncated(
                    at,
                    format!("a block header is incomplete ({got} of {BLOCK_HEAD_LEN} bytes after its tag)"),
                );
                return Ok(false);
            }
        };
        let u32_at = |i: usize| u32::from_le_bytes([head[i], head[i + 1], head[i + 2], head[i + 3]]);
        let first = u32_at(0) as u64;
        let frames = u16::from_le_bytes([head[4], head[5]]) as usize;
        let raw_len = u32_at(6) as usize;
        let packed_len = u32_at(10) as usize;
        let crc = u32_at(14);
        if first != self.frames {
            return Err(self.corrupt(at, format!("a block starting at frame {first}, expected frame {}", self.frames)));
        }
        if frames == 0 || frames > MAX_BLOCK_FRAMES {
            return Err(self.corrupt(at, format!("a block of {frames} frames, expected 1 to {MAX_BLOCK_FRAMES}")));
        }
        let max_raw = frames * MAX_FRAME_BYTES;
        if raw_len < frames * 3 || raw_len > max_raw {
            return Err(self.corrupt(
                at,
                format!(
                    "a block of {frames} frames with {raw_len} bytes of data, expected {} to {max_raw}",
                    frames * 3
                ),
            ));
        }
        if packed_len > raw_len + raw_len / 8 + 1024 {
            return Err(self.corrupt(at, format!("{packed_len} packed bytes for {raw_len} bytes of data")));
        }
        let packed = match self.read(packed_len)? {
            Ok(b) => b,
            Err(got) => {
                self.truncated(
                    at,
                    format!(
                        "the block of frames {first}..{} is incomplete ({got} of its {packed_len} bytes)",
                        first + frames as u64
                    ),
                );
                return Ok(false);
            }
        };
        let mut payload = Vec::with_capacity(raw_len);
        let inflated = DeflateDecoder::new(&packed[..]).take(raw_len as u64 + 1).read_to_end(&mut payload);
        if let Err(e) = inflated {
            return Err(self.corrupt(at, format!("the block's data does not inflate: {e}")));
        }
        if payload.len() != raw_len {
            return Err(self.corrupt(
                at,
                format!("the block's data inflates to {} bytes, its header says {raw_len}", payload.len()),
            ));
        }
        if crc32fast::hash(&payload) != crc {
            return Err(self.corrupt(at, "the block's CRC32 does not match its data".into()));
        }
        self.payload = payload;
        self.payload_pos = 0;
        self.block_left = frames;
        self.block_at = at;
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::super::format::TraceHeader;
    use super::super::writer::TraceWriter;
    use super::*;

    type Owned = ([u8; 2], [u8; RAM_SIZE]);

    fn header() -> TraceHeader {
        TraceHeader::for_rom(&crate::emu::rom::labcart().unwrap())
    }

    /// A trace of `n` frames of slowly changing RAM; returns the bytes and the frames written.
    fn sample(n: usize) -> (Vec<u8>, Vec<Owned>) {
        let mut w = TraceWriter::new(Vec::new(), "mem", &header()).unwrap();
        let mut ram = [0u8; RAM_SIZE];
        let mut frames = Vec::new();
        for f in 0..n {
            ram[f % 7] = ram[f % 7].wrapping_add(1);
            ram[300 + f % 50] = (f * 13) as u8;
            ram[2047] = (f / 100) as u8;
            let pads = [(f % 5) as u8, (f % 3) as u8 * 0x40];
            if f % 97 == 5 {
                w.note(f % 2, &format!("FIRE {}: 30 = CAP", f % 9));
            }
            w.push(pads, &ram).unwrap();
            frames.push((pads, ram));
        }
        let (bytes, stats) = w.finish(&ram).unwrap();
        assert_eq!(stats.bytes as usize, bytes.len());
        (bytes, frames)
    }

    fn read_all(bytes: &[u8]) -> Result<(Vec<Owned>, TraceEnd), TraceError> {
        let mut r = TraceReader::new(bytes, "t.trace")?;
        let mut out = Vec::new();
        while let Some((p, ram)) = r.next_frame()? {
            out.push((p, *ram));
        }
        let end = r.end().cloned().expect("end known after None");
        Ok((out, end))
    }

    #[test]
    fn frames_come_back_exactly_across_blocks() {
        let (bytes, frames) = sample(700);
        let (back, end) = read_all(&bytes).unwrap();
        assert_eq!(back.len(), 700);
        assert!(back == frames, "frames differ");
        assert!(matches!(end, TraceEnd::Complete { frames: 700, .. }), "{end:?}");
    }

    #[test]
    fn every_truncation_gives_the_complete_frames_or_a_header_error() {
        let (bytes, frames) = sample(650);
        for cut in 0..bytes.len() {
            match read_all(&bytes[..cut]) {
                Ok((got, TraceEnd::Truncated { offset, frames: n, what })) => {
                    assert_eq!(got.len() as u64, n);
                    let whole_blocks = got.len() % super::super::format::BLOCK_FRAMES == 0;
                    assert!(whole_blocks || got.len() == frames.len(), "cut {cut}: {} frames", got.len());
                    assert!(got[..] == frames[..got.len()], "cut {cut}: frames differ");
                    assert!(offset <= cut as u64, "cut {cut}: offset {offset} ({what})");
                }
                Ok((_, end)) => panic!("cut {cut} of {}: {end:?}", bytes.len()),
                Err(e) => {
                    let m = e.to_string();
                    assert!(m.contains("t.trace"), "{m}");
                    assert!(
                        matches!(e, TraceError::TruncatedHeader { .. } | TraceError::NotTrace { .. }),
                        "cut {cut}: {m}"
                    );
                }
            }
        }
    }

    #[test]
    fn a_flipped_byte_is_an_error_with_an_offset_or_changes_nothing_read() {
        let (bytes, frames) = sample(320);
        for i in 0..bytes.len() {
            let mut b = bytes.clone();
            b[i] ^= 0x20;
            match read_all(&b) {
                Ok((got, _)) => assert!(got[..] == frames[..got.len()], "byte {i}: wrong frames accepted"),
                Err(e) => assert!(e.to_string().starts_with("t.trace"), "byte {i}: {e}"),
            }
        }
    }

    #[test]
    fn the_bots_decisions_come_back_with_their_frames_and_version_1_files_still_read() {
        let (bytes, _) = sample(700);
        let mut r = TraceReader::new(&bytes[..], "t.trace").unwrap();
        while r.next_frame().unwrap().is_some() {}
        let notes = r.notes();
        assert_eq!(notes.len(), (0..700).filter(|f| f % 97 == 5).count());
        assert_eq!(notes[1], TraceNote { frame: 102, player: 0, text: "FIRE 3: 30 = CAP".into() });
        assert!(notes.windows(2).all(|w| w[0].frame < w[1].frame));
        // A version-1 file (no notes) reads as before; a note in one is not the format.
        let mut w = TraceWriter::new(Vec::new(), "mem", &header()).unwrap();
        w.push([0, 0], &[0; RAM_SIZE]).unwrap();
        let (mut v1, _) = w.finish(&[0; RAM_SIZE]).unwrap();
        v1[8] = 1;
        let (frames, end) = read_all(&v1).unwrap();
        assert_eq!((frames.len(), matches!(end, TraceEnd::Complete { .. })), (1, true));
        let (mut v1_with_notes, _) = sample(10);
        v1_with_notes[8] = 1;
        let e = read_all(&v1_with_notes).unwrap_err().to_string();
        assert!(e.contains("record tag 0x4e"), "{e}");
        // Text past the limit is cut at a character boundary.
        let long = TraceNote::new(0, 1, &"\u{e9}".repeat(150));
        assert!(long.text.len() <= super::super::format::MAX_NOTE_LEN && long.text.chars().all(|c| c == '\u{e9}'));
    }

    #[test]
    fn not_a_trace_and_other_versions_are_named() {
        let e = TraceReader::new(&b"NES\x1a...."[..], "rom.nes").unwrap_err().to_string();
        assert!(e.contains("rom.nes is not a puyobot trace") && e.contains("4E 45 53 1A"), "{e}");
        let e = TraceReader::new(&b""[..], "empty").unwrap_err().to_string();
        assert!(e.contains("empty file"), "{e}");
        let (mut bytes, _) = sample(3);
        bytes[8] = 9;
        let e = TraceReader::new(&bytes[..], "v.trace").unwrap_err().to_string();
        assert!(e.contains("byte 8") && e.contains("version 9"), "{e}");
    }
}
