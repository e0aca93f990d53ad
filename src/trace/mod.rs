//! RAM traces: every frame's pad bytes and CPU-RAM changes, written while a person (or the bot) plays,
//! so the learner can be run offline on a real cartridge nobody at the project has (`docs/trace-format.md`).
//!
//! - [`format`]: the file layout (header, blocks of frames, end record), the RAM-diff codec and the errors;
//! - [`writer`]: [`TraceWriter`], frames in, bytes out;
//! - [`recorder`]: [`TraceRecorder`], a [`crate::emu::Machine`] wrapper that records what the console is
//!   given and reads RAM, never writes it;
//! - [`reader`]: [`TraceReader`], frames out one at a time, with what a truncated file still holds;
//! - [`ring`]: [`TraceRing`], the flight recorder's bounded memory of a run (its start and its last
//!   frames), written as trace files when a run stops;
//! - [`run`]: [`RunInfo`], the header keys that let `puyobot replay` run a recorded game again.

pub mod format;
pub mod reader;
pub mod recorder;
pub mod ring;
pub mod run;
pub mod writer;

pub use format::{MAGIC, TraceError, TraceHeader, TraceNote, VERSION};
pub use reader::{FrameRef, TraceEnd, TraceReader};
pub use recorder::{RingHandle, TraceRecorder};
pub use ring::{FIRST_FRAME_KEY, TraceRing, WrittenTrace};
pub use run::{RunInfo, RunPlace};
pub use writer::{TraceStats, TraceWriter};
