//! The flight recorder's memory of a run: every frame goes in, and a bounded part of the run stays, ready
//! to be written as trace files when the run stops (`docs/calibration.md`, "When it stops").
//!
//! Frames are kept in segments of [`BLOCK_FRAMES`] frames, each opening with the whole RAM (a keyframe),
//! so that any segment can start a trace file. The first `head` frames are kept (they hold power-on, the
//! menus and calibration's opening, which `puyobot calibrate` and `puyobot replay` need), and of the rest
//! only the last `tail` frames: older segments are dropped as new ones close. Memory and the bundle's size
//! are therefore bounded by `head + tail` frames whatever the run's length.
//!
//! Written out, a run that lost nothing is one trace from power-on (`run.trace`); a longer one is the
//! start (`start.trace`, from power-on) and the tail (`tail.trace`, whose header key `first_frame` says
//! which frame of the run its frame 0 is). No emulator save state is needed for the tail: a headless run
//! of the bots is run again from power-on with the recorded seed and configuration, and the tail is the
//! evidence its frames are compared with.

use std::collections::VecDeque;
use std::io::Write;
use std::path::{Path, PathBuf};

use super::format::{BLOCK_FRAMES, RAM_SIZE, TraceError, TraceHeader, TraceNote, encode_frame};
use super::writer::{TraceStats, TraceWriter};

/// The header key of a trace that does not start at power-on: the run's frame its frame 0 is.
pub const FIRST_FRAME_KEY: &str = "first_frame";

/// Frames of one segment, each segment opening with a keyframe.
struct Segment {
    /// The run's frame of the segment's first record.
    first: u64,
    /// Frames in it.
    frames: usize,
    /// The encoded frame records (`format::encode_frame`), the first holding the whole RAM.
    records: Vec<u8>,
    /// The bots' decisions made during the segment, their frames counted from the run's start.
    notes: Vec<TraceNote>,
}

/// A bounded record of a run's frames: the first `head` frames and the last `tail` ones.
pub struct TraceRing {
    head_frames: u64,
    tail_frames: u64,
    head: Vec<Segment>,
    tail: VecDeque<Segment>,
    tail_len: u64,
    open: Segment,
    prev: Box<[u8; RAM_SIZE]>,
    frames: u64,
    dropped: u64,
    /// RAM at the start of the first frame after the head: the start file's final RAM.
    head_end_ram: Option<Box<[u8; RAM_SIZE]>>,
}

impl std::fmt::Debug for TraceRing {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TraceRing").field("frames", &self.frames).field("dropped", &self.dropped).finish()
    }
}

/// One trace file written by [`TraceRing::write`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WrittenTrace {
    /// The file.
    pub path: PathBuf,
    /// The run's frame of its frame 0.
    pub first_frame: u64,
    /// Frames and bytes.
    pub stats: TraceStats,
}

impl TraceRing {
    /// Keeps the first `head` frames and the last `tail` frames of the run (each rounded up to whole
    /// segments of [`BLOCK_FRAMES`]).
    pub fn new(head: u64, tail: u64) -> TraceRing {
        TraceRing {
            head_frames: head,
            tail_frames: tail.max(1),
            head: Vec::new(),
            tail: VecDeque::new(),
            tail_len: 0,
            open: Segment { first: 0, frames: 0, records: Vec::new(), notes: Vec::new() },
            prev: Box::new([0; RAM_SIZE]),
            frames: 0,
            dropped: 0,
            head_end_ram: None,
        }
    }

    /// Adds one frame: RAM at its start and the pads held during it (the same frame a trace writer gets).
    pub fn push(&mut self, pads: [u8; 2], ram: &[u8; RAM_SIZE]) {
        if self.open.frames == 0 {
            if self.head_full() && self.head_end_ram.is_none() {
                self.head_end_ram = Some(Box::new(*ram));
            }
            encode_frame(&mut self.open.records, pads, None, ram);
        } else {
            encode_frame(&mut self.open.records, pads, Some(&self.prev), ram);
        }
        self.prev.copy_from_slice(ram);
        self.open.frames += 1;
        self.frames += 1;
        if self.open.frames >= BLOCK_FRAMES {
            self.close_segment();
        }
    }

    /// Notes what `player`'s bot decided before the frame about to be pushed (kept with its segment).
    pub fn note(&mut self, player: usize, text: &str) {
        self.open.notes.push(TraceNote::new(self.frames, player, text));
    }

    /// Frames pushed so far.
    pub fn frames(&self) -> u64 {
        self.frames
    }

    /// Frames between the start and the tail that were not kept.
    pub fn dropped(&self) -> u64 {
        self.dropped
    }

    /// Bytes held (encoded frames, before compression).
    pub fn held_bytes(&self) -> usize {
        self.head.iter().chain(self.tail.iter()).map(|s| s.records.len()).sum::<usize>() + self.open.records.len()
    }

    fn head_full(&self) -> bool {
        self.head.iter().map(|s| s.frames as u64).sum::<u64>() >= self.head_frames
    }

    fn close_segment(&mut self) {
        let capacity = self.open.records.capacity();
        let next = Segment { first: self.frames, frames: 0, records: Vec::with_capacity(capacity), notes: Vec::new() };
        let done = std::mem::replace(&mut self.open, next);
        if !self.head_full() {
            self.head.push(done);
            return;
        }
        self.tail_len += done.frames as u64;
        self.tail.push_back(done);
        // Keep whole segments covering at least the last `tail` frames (the open one counts too).
        while let Some(front) = self.tail.front() {
            if self.tail_len - front.frames as u64 >= self.tail_frames {
                self.tail_len -= front.frames as u64;
                self.dropped += front.frames as u64;
                self.tail.pop_front();
            } else {
                break;
            }
        }
    }

    /// Writes what is kept into `dir`: `run.trace` when no frame was dropped, else `start.trace` and
    /// `tail.trace`. `header` is the run's (cartridge, seed, configuration); `final_ram` is RAM after the
    /// last frame pushed.
    pub fn write(
        &self,
        dir: &Path,
        header: &TraceHeader,
        final_ram: &[u8; RAM_SIZE],
    ) -> Result<Vec<WrittenTrace>, TraceError> {
        let mut later: Vec<&Segment> = self.tail.iter().collect();
        if self.open.frames > 0 {
            later.push(&self.open);
        }
        if self.dropped == 0 {
            let all: Vec<&Segment> = self.head.iter().chain(later).collect();
            return Ok(vec![write_file(&dir.join("run.trace"), header, &all, final_ram)?]);
        }
        let head: Vec<&Segment> = self.head.iter().collect();
        let head_end = self.head_end_ram.as_deref().unwrap_or(final_ram);
        let start = write_file(&dir.join("start.trace"), header, &head, head_end)?;
        let first = later.first().map_or(self.frames, |s| s.first);
        let mut tail_header = header.clone();
        tail_header.set(FIRST_FRAME_KEY, &first.to_string());
        let tail = write_file(&dir.join("tail.trace"), &tail_header, &later, final_ram)?;
        Ok(vec![start, tail])
    }
}

/// Writes `segments` (consecutive, each opening with a keyframe) as one trace file.
fn write_file(
    path: &Path,
    header: &TraceHeader,
    segments: &[&Segment],
    final_ram: &[u8; RAM_SIZE],
) -> Result<WrittenTrace, TraceError> {
    let mut w = TraceWriter::create(path, header)?;
    let first = segments.first().map_or(0, |s| s.first);
    for s in segments {
        w.push_encoded(&s.records, s.frames)?;
        let notes = s.notes.iter().map(|n| TraceNote { frame: n.frame - first, ..n.clone() });
        w.push_notes(notes)?;
    }
    let (mut out, stats) = w.finish(final_ram)?;
    let label = path.display().to_string();
    // The writer flushed its buffer; sync so a bundle announced as written is on the disk.
    out.flush().map_err(|source| TraceError::Io { file: label.clone(), source })?;
    out.get_ref().sync_all().map_err(|source| TraceError::Io { file: label, source })?;
    Ok(WrittenTrace { path: path.to_path_buf(), first_frame: segments.first().map_or(0, |s| s.first), stats })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::TraceReader;

    fn ram_of(frame: u64) -> [u8; RAM_SIZE] {
        let mut ram = [0u8; RAM_SIZE];
        ram[0] = frame as u8;
        ram[1] = (frame >> 8) as u8;
        ram[100 + (frame % 50) as usize] = 0xAA;
        ram
    }

    fn pads_of(frame: u64) -> [u8; 2] {
        [(frame % 7) as u8, (frame % 3) as u8]
    }

    fn header() -> TraceHeader {
        TraceHeader::for_rom(&crate::emu::rom::labcart().unwrap())
    }

    /// One frame as read back: its pads and RAM.
    type Frame = ([u8; 2], [u8; RAM_SIZE]);

    /// Reads a file back as (pads, RAM) per frame.
    fn read(path: &Path) -> (TraceHeader, Vec<Frame>) {
        let mut r = TraceReader::open(path).unwrap();
        let h = r.header().clone();
        let mut out = Vec::new();
        while let Some((p, ram)) = r.next_frame().unwrap() {
            out.push((p, *ram));
        }
        assert!(matches!(r.end(), Some(crate::trace::TraceEnd::Complete { .. })), "{:?}", r.end());
        (h, out)
    }

    fn tempdir(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("puyobot-ring-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn a_short_run_is_one_trace_from_power_on_frame_for_frame() {
        let mut ring = TraceRing::new(900, 900);
        for f in 0..1000 {
            ring.push(pads_of(f), &ram_of(f));
        }
        assert_eq!(ring.dropped(), 0);
        let dir = tempdir("short");
        let files = ring.write(&dir, &header(), &ram_of(1000)).unwrap();
        assert_eq!(files.len(), 1);
        assert_eq!(files[0].path, dir.join("run.trace"));
        let (h, frames) = read(&files[0].path);
        assert_eq!(h.get(FIRST_FRAME_KEY), None);
        assert_eq!(frames.len(), 1000);
        for (f, (p, ram)) in frames.iter().enumerate() {
            assert_eq!((*p, *ram), (pads_of(f as u64), ram_of(f as u64)), "frame {f}");
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_long_run_keeps_its_start_and_its_tail_and_memory_stays_bounded() {
        let mut ring = TraceRing::new(600, 900);
        let mut held = Vec::new();
        for f in 0..20_000 {
            ring.push(pads_of(f), &ram_of(f));
            if f % 5000 == 4999 {
                held.push(ring.held_bytes());
            }
        }
        // After 5 000 frames and after 20 000 the same bound holds: the start, the tail and one open segment.
        let (least, most) = (held.iter().min().unwrap(), held.iter().max().unwrap());
        assert!(*most < 2 * *least, "memory grew with the run: {held:?}");
        assert!(ring.dropped() > 17_000, "{}", ring.dropped());
        let dir = tempdir("long");
        let files = ring.write(&dir, &header(), &ram_of(20_000)).unwrap();
        let names: Vec<_> = files.iter().map(|w| w.path.file_name().unwrap().to_owned()).collect();
        assert_eq!(names, ["start.trace", "tail.trace"]);
        let (_, start) = read(&files[0].path);
        assert_eq!(start.len(), 600);
        assert_eq!(start[599], (pads_of(599), ram_of(599)));
        let (h, tail) = read(&files[1].path);
        let first: u64 = h.get(FIRST_FRAME_KEY).unwrap().parse().unwrap();
        assert_eq!(first, files[1].first_frame);
        assert!(tail.len() as u64 >= 900 && tail.len() < 900 + 2 * BLOCK_FRAMES, "{}", tail.len());
        assert_eq!(first + tail.len() as u64, 20_000);
        for (i, (p, ram)) in tail.iter().enumerate() {
            let f = first + i as u64;
            assert_eq!((*p, *ram), (pads_of(f), ram_of(f)), "frame {f}");
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn an_unwritable_folder_is_an_error_naming_the_file() {
        let mut ring = TraceRing::new(10, 10);
        ring.push([0, 0], &ram_of(0));
        let dir = tempdir("unwritable");
        let blocker = dir.join("a-file");
        std::fs::write(&blocker, b"x").unwrap();
        let e = ring.write(&blocker, &header(), &ram_of(1)).unwrap_err().to_string();
        assert!(e.contains("a-file") && e.contains("run.trace"), "{e}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
