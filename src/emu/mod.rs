//! The emulator side: reading and identifying ROM files, and the NES host around tetanes-core.
//!
//! Everything above this module talks to a [`Machine`]: 2 KiB of RAM to read, two pads to set, one frame
//! at a time. [`Emu`] is the real console. With the `test-support` feature (tests only), `mock::MockGame` is
//! a small software model of the RAM contract for tests that must not depend on a cartridge.

pub mod faults;
pub mod host;
#[cfg(any(test, feature = "test-support"))]
pub mod mock;
pub mod record;
pub mod remote;
pub mod replay;
pub mod rom;
pub mod speed;
pub mod state;

use tetanes_core::control_deck::Error as DeckError;

pub use host::Emu;
pub use record::ram_hash;
pub use rom::{RomError, RomHash, RomImage};
pub use speed::{EmuSpeed, NES_FPS};
pub use state::SaveStates;

/// What went wrong inside the emulator.
#[derive(Debug, thiserror::Error)]
pub enum EmuError {
    /// tetanes-core refused the ROM (e.g. an unsupported mapper).
    #[error("the emulator cannot load {name}: {source}")]
    Load {
        /// ROM label.
        name: String,
        /// The emulator's error.
        source: DeckError,
    },
    /// The emulated CPU stopped (an invalid opcode) or another runtime error.
    #[error("the emulator stopped at frame {frame}: {source}")]
    Run {
        /// Frame number when it happened.
        frame: u32,
        /// The emulator's error.
        source: DeckError,
    },
    /// A save state could not be written or read.
    #[error("save state: {0}")]
    State(DeckError),
    /// The host refused an operation (e.g. loading a state while a trace is recorded).
    #[error("{0}")]
    Refused(String),
    /// The link to an emulator script failed or the emulator stopped ([`remote`]).
    #[error(transparent)]
    Remote(#[from] remote::RemoteError),
}

/// Pad bits as the NES shifts them out: A, B, Select, Start, Up, Down, Left, Right.
pub mod pad {
    /// A: rotate clockwise.
    pub const A: u8 = 0x01;
    /// B: rotate counter-clockwise.
    pub const B: u8 = 0x02;
    /// Select.
    pub const SELECT: u8 = 0x04;
    /// Start.
    pub const START: u8 = 0x08;
    /// Up.
    pub const UP: u8 = 0x10;
    /// Down: soft drop.
    pub const DOWN: u8 = 0x20;
    /// Left.
    pub const LEFT: u8 = 0x40;
    /// Right.
    pub const RIGHT: u8 = 0x80;

    /// The bit of a button name as written in address files and config (`"A"`, `"START"`, …).
    pub fn from_name(name: &str) -> Option<u8> {
        Some(match name.to_ascii_uppercase().as_str() {
            "A" => A,
            "B" => B,
            "SELECT" => SELECT,
            "START" => START,
            "UP" => UP,
            "DOWN" => DOWN,
            "LEFT" => LEFT,
            "RIGHT" => RIGHT,
            _ => return None,
        })
    }
}

/// A console the bot can play: RAM to read, pads to set, frames to run.
///
/// Nothing here writes RAM, and the session only ever holds a `Machine`: the game's memory changes only
/// because the game ran on the pads it was given. Save states, which do rewrite RAM, are a separate
/// capability ([`SaveStates`]) that the window uses and the session does not have.
pub trait Machine {
    /// CPU RAM $0000–$07FF as it stands after the last frame.
    fn ram(&self) -> &[u8; 2048];
    /// Sets both pads (raw bits, see [`pad`]); they stay held until changed.
    fn set_pads(&mut self, pads: [u8; 2]);
    /// Runs one frame.
    fn clock_frame(&mut self) -> Result<(), EmuError>;
    /// Frames run since power-on.
    fn frame_number(&self) -> u32;
    /// Tells the machine whether a game is under way: the session calls it every frame, `true` once a
    /// pair has fallen after the menus, `false` while its menu or restart script runs. A host that injects
    /// pad faults ([`faults::FaultyPads`]) applies them only in play; other machines ignore it.
    fn set_in_play(&mut self, _in_play: bool) {}
    /// What `player`'s bot decided before the frame about to run, in a few words (e.g.
    /// `FIRE 4: 30 = CAP -> x3:Up`). A recording keeps it beside that frame (the trace's notes); other
    /// machines ignore it.
    fn note(&mut self, _player: usize, _text: &str) {}
}
