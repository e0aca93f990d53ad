//! The file `puyobot replay` reads: a trace (`play --record`, `puyobot record`), or a TOML replay file of
//! older versions (`emu::replay`, read but no longer written), both turned into one [`Recorded`].

use std::io::Read;
use std::path::Path;

use anyhow::Context;

use crate::emu::replay::Replay;
use crate::trace::{FIRST_FRAME_KEY, MAGIC, RunInfo, TraceEnd, TraceReader};

/// How `replay --headless` checks a recording.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Check {
    /// A headless run of the bots: run the recorded configuration again with these limits and compare the
    /// pads of every frame and the final RAM hash.
    Rerun {
        /// Frame limit (for a trace: never past the frames it holds).
        frames: Option<u64>,
        /// Piece limit.
        pieces: Option<u32>,
        /// Games, each from its own power-on (only TOML files of matches hold more than one).
        games: Option<u32>,
    },
    /// A window run or a person's keys, which nothing can press again: feed the file's pads to a fresh
    /// console and compare its RAM with the trace's at the start of every frame.
    Playback,
}

/// A recording as `replay` uses it.
#[derive(Clone, Debug)]
pub struct Recorded {
    /// SHA-1 of the ROM body the run played.
    pub rom_sha1: String,
    /// The ROM's file name when recorded (a hint; the hash decides).
    pub rom_name: String,
    /// The run's merged configuration as TOML; `None` for a trace written before traces held it.
    pub config: Option<String>,
    /// The pads of every frame, from power-on.
    pub pads: Vec<[u8; 2]>,
    /// The final RAM hash, 16 lower-case hex digits; `None` when a trace lost its end record.
    pub ram_hash: Option<String>,
    /// How `--headless` checks it.
    pub check: Check,
    /// Games the file holds, each from its own power-on (1 for a trace).
    pub games: u32,
    /// Whether the file is a trace (its RAM can be compared frame by frame).
    pub is_trace: bool,
    /// The run's frame of the file's frame 0: 0 from power-on, more for a bug report's tail
    /// (`first_frame` in the header).
    pub first_frame: u64,
    /// How the recorded run stopped short, for a bug report's trace: the reason and the stop's message
    /// (`stop` and `stop_message` in the header).
    pub stop: Option<(String, String)>,
}

/// Reads `path`: a trace when it starts with the trace magic, else a TOML replay file. A truncated trace
/// is used up to its last complete block, with a warning on stderr.
pub fn load(path: &Path) -> anyhow::Result<Recorded> {
    let mut start = [0u8; 8];
    let n = std::fs::File::open(path)
        .and_then(|mut f| f.read(&mut start))
        .with_context(|| format!("{}: cannot read it", path.display()))?;
    let text_like = std::str::from_utf8(&start[..n]).is_ok() && !start[..n].contains(&0);
    if n == 0 || start[..n] == MAGIC[..n] || !text_like {
        return load_trace(path);
    }
    let (replay, pads) = Replay::load(path)?;
    Ok(Recorded {
        rom_sha1: replay.rom_sha1,
        rom_name: replay.rom_name,
        config: Some(replay.config),
        pads,
        ram_hash: Some(replay.ram_hash.to_ascii_lowercase()),
        check: Check::Rerun { frames: replay.frames, pieces: replay.pieces, games: replay.games },
        games: replay.games.unwrap_or(1),
        is_trace: false,
        first_frame: 0,
        stop: None,
    })
}

/// Reads a trace's header, pads and end record.
fn load_trace(path: &Path) -> anyhow::Result<Recorded> {
    let mut reader = TraceReader::open(path)?;
    let file = reader.file().to_string();
    let header = reader.header().clone();
    let run = RunInfo::from_header(&file, &header)?;
    let mut pads = Vec::new();
    while let Some((p, _)) = reader.next_frame()? {
        pads.push(p);
    }
    let ram_hash = match reader.end() {
        Some(TraceEnd::Complete { final_ram_hash, .. }) => Some(format!("{final_ram_hash:016x}")),
        Some(end) => {
            if let Some(w) = end.warning(&file) {
                eprintln!("warning: {w}; the final RAM hash is not checked");
            }
            None
        }
        None => None,
    };
    let first_frame = match header.get(FIRST_FRAME_KEY) {
        None => 0,
        Some(v) => v.parse::<u64>().map_err(|_| {
            anyhow::anyhow!("{file}: header key `{FIRST_FRAME_KEY}`: {v:?}, expected a whole number of frames")
        })?,
    };
    let message = header.get_text("stop_message").and_then(Result::ok).unwrap_or_default();
    let stop = header.get("stop").map(|r| (r.to_string(), message));
    // A run that stopped on a failure found it after its last frame: run one frame more than the file
    // holds, so the run again meets the failure rather than the frame limit. An interrupt has no such frame.
    let past_stop = u64::from(stop.as_ref().is_some_and(|(r, _)| r != "interrupt"));
    let held = first_frame + pads.len() as u64;
    let check = match &run {
        Some(r) if r.reruns() => Check::Rerun {
            // The trace holds the frames the run played, also when an interrupt or a cut stopped it early.
            frames: Some(r.frames.map_or(held + past_stop, |f| f.min(held + past_stop))),
            pieces: r.pieces,
            games: r.games,
        },
        _ => Check::Playback,
    };
    Ok(Recorded {
        rom_sha1: header.rom_sha1.clone(),
        rom_name: header.get("rom_name").unwrap_or("the recorded ROM").to_string(),
        config: run.map(|r| r.config),
        pads,
        ram_hash,
        check,
        games: 1,
        is_trace: true,
        first_frame,
        stop,
    })
}
