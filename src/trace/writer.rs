//! Writing traces: [`TraceWriter`] turns frames into the file format (the recording machine that feeds it
//! is [`super::recorder`]).

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

use flate2::Compression;
use flate2::write::DeflateEncoder;

use crate::emu::ram_hash;

use super::format::{
    BLOCK_FRAMES, MAGIC, RAM_SIZE, TAG_BLOCK, TAG_END, TraceError, TraceHeader, TraceNote, VERSION, encode_frame,
};

/// What a finished trace holds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TraceStats {
    /// Frames recorded.
    pub frames: u64,
    /// Bytes written, header and end record included.
    pub bytes: u64,
}

/// Writes a trace: the header at once, frames in blocks, the end record on [`TraceWriter::finish`].
#[derive(Debug)]
pub struct TraceWriter<W: Write> {
    out: W,
    label: String,
    prev: Option<Box<[u8; RAM_SIZE]>>,
    block: Vec<u8>,
    block_first: u64,
    block_frames: usize,
    /// Notes made during the open block, written after it.
    notes: Vec<TraceNote>,
    stats: TraceStats,
}

impl TraceWriter<BufWriter<File>> {
    /// Creates (or replaces) the file at `path` and writes the header.
    pub fn create(path: &Path, header: &TraceHeader) -> Result<Self, TraceError> {
        let label = path.display().to_string();
        let file = File::create(path).map_err(|source| TraceError::Io { file: label.clone(), source })?;
        TraceWriter::new(BufWriter::new(file), &label, header)
    }
}

impl<W: Write> TraceWriter<W> {
    /// Writes the header to `out`; `label` names the destination in errors.
    pub fn new(mut out: W, label: &str, header: &TraceHeader) -> Result<Self, TraceError> {
        let body = header.encode();
        let mut head = Vec::with_capacity(body.len() + 18);
        head.extend_from_slice(&MAGIC);
        head.extend_from_slice(&VERSION.to_le_bytes());
        head.extend_from_slice(&(body.len() as u32).to_le_bytes());
        head.extend_from_slice(&body);
        head.extend_from_slice(&crc32fast::hash(&body).to_le_bytes());
        out.write_all(&head).map_err(|source| TraceError::Io { file: label.to_string(), source })?;
        Ok(TraceWriter {
            out,
            label: label.to_string(),
            prev: None,
            block: Vec::new(),
            block_first: 0,
            block_frames: 0,
            notes: Vec::new(),
            stats: TraceStats { frames: 0, bytes: head.len() as u64 },
        })
    }

    fn io(&self, source: std::io::Error) -> TraceError {
        TraceError::Io { file: self.label.clone(), source }
    }

    /// Adds one frame: RAM at its start and the pads held during it.
    pub fn push(&mut self, pads: [u8; 2], ram: &[u8; RAM_SIZE]) -> Result<(), TraceError> {
        encode_frame(&mut self.block, pads, self.prev.as_deref(), ram);
        match self.prev.as_mut() {
            Some(p) => p.copy_from_slice(ram),
            None => self.prev = Some(Box::new(*ram)),
        }
        self.block_frames += 1;
        self.stats.frames += 1;
        if self.block_frames >= BLOCK_FRAMES {
            self.flush_block()?;
        }
        Ok(())
    }

    /// Notes what `player`'s bot decided before the frame about to be pushed; written after the block
    /// that holds that frame.
    pub fn note(&mut self, player: usize, text: &str) {
        self.notes.push(TraceNote::new(self.stats.frames, player, text));
    }

    /// Adds notes already made (the flight recorder's), their frames counted in this file.
    pub(crate) fn push_notes(&mut self, notes: impl IntoIterator<Item = TraceNote>) -> Result<(), TraceError> {
        self.notes.extend(notes);
        self.write_notes()?;
        self.out.flush().map_err(|e| self.io(e))
    }

    /// Writes the notes made so far (the caller flushes).
    fn write_notes(&mut self) -> Result<(), TraceError> {
        if self.notes.is_empty() {
            return Ok(());
        }
        let mut bytes = Vec::new();
        for n in self.notes.drain(..) {
            n.encode(&mut bytes);
        }
        self.out.write_all(&bytes).map_err(|e| self.io(e))?;
        self.stats.bytes += bytes.len() as u64;
        Ok(())
    }

    /// Adds `frames` frames already encoded (`format::encode_frame`) as one block of their own, the first of
    /// them holding the whole RAM (the flight recorder's segments, [`super::ring`]). Not to be mixed with
    /// [`TraceWriter::push`]: the next pushed frame would be encoded against the wrong RAM.
    pub(crate) fn push_encoded(&mut self, records: &[u8], frames: usize) -> Result<(), TraceError> {
        self.flush_block()?;
        self.block.extend_from_slice(records);
        self.block_frames = frames;
        self.stats.frames += frames as u64;
        self.flush_block()
    }

    /// Writes the frames buffered so far as one block and flushes it to the file.
    pub fn flush_block(&mut self) -> Result<(), TraceError> {
        if self.block_frames == 0 {
            return Ok(());
        }
        let mut enc = DeflateEncoder::new(Vec::with_capacity(self.block.len() / 4), Compression::default());
        enc.write_all(&self.block).map_err(|e| self.io(e))?;
        let packed = enc.finish().map_err(|e| self.io(e))?;
        let mut head = Vec::with_capacity(19);
        head.push(TAG_BLOCK);
        head.extend_from_slice(&(self.block_first as u32).to_le_bytes());
        head.extend_from_slice(&(self.block_frames as u16).to_le_bytes());
        head.extend_from_slice(&(self.block.len() as u32).to_le_bytes());
        head.extend_from_slice(&(packed.len() as u32).to_le_bytes());
        head.extend_from_slice(&crc32fast::hash(&self.block).to_le_bytes());
        self.out.write_all(&head).map_err(|e| self.io(e))?;
        self.out.write_all(&packed).map_err(|e| self.io(e))?;
        self.stats.bytes += (head.len() + packed.len()) as u64;
        self.block.clear();
        self.block_first += self.block_frames as u64;
        self.block_frames = 0;
        self.write_notes()?;
        self.out.flush().map_err(|e| self.io(e))
    }

    /// Frames and bytes so far (bytes count only blocks already written).
    pub fn stats(&self) -> TraceStats {
        self.stats
    }

    /// Writes the last block and the end record (`final_ram`: RAM after the last frame) and returns the
    /// destination.
    pub fn finish(mut self, final_ram: &[u8; RAM_SIZE]) -> Result<(W, TraceStats), TraceError> {
        self.flush_block()?;
        self.write_notes()?;
        let mut end = Vec::with_capacity(17);
        end.push(TAG_END);
        end.extend_from_slice(&(self.stats.frames as u32).to_le_bytes());
        end.extend_from_slice(&ram_hash(final_ram).to_le_bytes());
        let crc = crc32fast::hash(&end[1..]);
        end.extend_from_slice(&crc.to_le_bytes());
        self.out.write_all(&end).map_err(|e| self.io(e))?;
        self.out.flush().map_err(|e| self.io(e))?;
        self.stats.bytes += end.len() as u64;
        Ok((self.out, self.stats))
    }
}
