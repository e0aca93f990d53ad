//! The emulator host: a tetanes-core `ControlDeck` configured for a bot.
//!
//! Fixed all-zero power-on RAM (reproducible runs), no battery files anywhere, NTSC, the `Pixellate`
//! filter (a crisp, deterministic image), and headless when no window shows the picture.

use tetanes_core::control_deck::Error as DeckError;
use tetanes_core::input::JoypadBtnState;
use tetanes_core::prelude::*;
use tetanes_core::video::VideoFilter;

use super::Machine;
use super::rom::RomImage;
use super::state::SaveStates;

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
}

/// One NES running one cartridge.
pub struct Emu {
    deck: ControlDeck,
    pads: [u8; 2],
    headless: bool,
}

impl std::fmt::Debug for Emu {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Emu").field("frame", &self.deck.frame_number()).field("pads", &self.pads).finish()
    }
}

impl Emu {
    /// Powers on a console with `rom` inserted. `headless` skips video and audio entirely.
    pub fn new(rom: &RomImage, headless: bool) -> Result<Emu, EmuError> {
        let mode = if headless { HeadlessMode::NO_AUDIO | HeadlessMode::NO_VIDEO } else { HeadlessMode::NO_AUDIO };
        let cfg = Config::default()
            .with_ram_state(RamState::AllZeros)
            .with_sram_dir(None)
            .with_region(NesRegion::Ntsc)
            .with_filter(VideoFilter::Pixellate)
            .with_headless_mode(mode);
        let mut deck = ControlDeck::with_config(cfg);
        deck.load_rom(&rom.name, &mut rom.bytes.as_slice())
            .map_err(|source| EmuError::Load { name: rom.name.clone(), source })?;
        Ok(Emu { deck, pads: [0; 2], headless })
    }

    /// Turns rendering on or off (off is faster; the picture goes stale).
    pub fn set_headless(&mut self, headless: bool) {
        self.headless = headless;
        let mode = if headless { HeadlessMode::NO_AUDIO | HeadlessMode::NO_VIDEO } else { HeadlessMode::NO_AUDIO };
        self.deck.set_headless_mode(mode);
    }

    /// The last frame as 256×240 RGBA bytes (stale while headless).
    pub fn frame_rgba(&mut self) -> &[u8] {
        self.deck.frame_buffer().as_slice()
    }

    /// The underlying deck, for debugging tools.
    pub fn deck(&self) -> &ControlDeck {
        &self.deck
    }
}

impl Machine for Emu {
    fn ram(&self) -> &[u8; 2048] {
        self.deck.wram()
    }

    fn set_pads(&mut self, pads: [u8; 2]) {
        self.pads = pads;
        // Assign the raw bits: `set_button` would release the opposite d-pad direction.
        self.deck.joypad_mut(Player::One).buttons = JoypadBtnState::from_bits_truncate(pads[0] as u16);
        self.deck.joypad_mut(Player::Two).buttons = JoypadBtnState::from_bits_truncate(pads[1] as u16);
    }

    fn clock_frame(&mut self) -> Result<(), EmuError> {
        let frame = self.deck.frame_number();
        self.deck.clock_frame().map(|_| ()).map_err(|source| EmuError::Run { frame, source })
    }

    fn frame_number(&self) -> u32 {
        self.deck.frame_number()
    }
}

impl SaveStates for Emu {
    fn save_state(&mut self) -> Result<Vec<u8>, EmuError> {
        let mut out = Vec::new();
        self.deck.save_state(&mut out).map_err(EmuError::State)?;
        Ok(out)
    }

    fn load_state(&mut self, state: &[u8]) -> Result<(), EmuError> {
        self.deck.load_state(state).map_err(EmuError::State)?;
        // Loading clears the pads; the held buttons belong to the player, not to the saved moment.
        let pads = self.pads;
        self.set_pads(pads);
        Ok(())
    }
}
