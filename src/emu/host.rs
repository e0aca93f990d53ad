//! The emulator host: a tetanes-core `ControlDeck` configured for a bot.
//!
//! Fixed all-zero power-on RAM (reproducible runs), no battery files anywhere, NTSC, the `Pixellate`
//! filter (a crisp, deterministic image), and headless when no window shows the picture.

use tetanes_core::input::JoypadBtnState;
use tetanes_core::prelude::*;
use tetanes_core::video::VideoFilter;

use super::rom::RomImage;
use super::state::SaveStates;
use super::{EmuError, Machine};

/// One NES running one cartridge.
pub struct Emu {
    deck: ControlDeck,
    pads: [u8; 2],
    headless: bool,
    /// Whether the APU's samples are produced (only a window that plays sound wants them).
    audio: bool,
    /// SHA-1 of the cartridge (its [`RomImage::hash`]), so save states can name the ROM they belong to.
    rom_sha1: String,
    /// The cartridge's label, for messages.
    rom_name: String,
}

impl std::fmt::Debug for Emu {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Emu").field("frame", &self.deck.frame_number()).field("pads", &self.pads).finish()
    }
}

impl Emu {
    /// Powers on a console with `rom` inserted. `headless` skips video and audio entirely.
    pub fn new(rom: &RomImage, headless: bool) -> Result<Emu, EmuError> {
        let mode = headless_mode(headless, false);
        let cfg = Config::default()
            .with_ram_state(RamState::AllZeros)
            .with_sram_dir(None)
            .with_region(NesRegion::Ntsc)
            .with_filter(VideoFilter::Pixellate)
            .with_headless_mode(mode);
        let mut deck = ControlDeck::with_config(cfg);
        deck.load_rom(&rom.name, &mut rom.bytes.as_slice())
            .map_err(|source| EmuError::Load { name: rom.name.clone(), source })?;
        Ok(Emu {
            deck,
            pads: [0; 2],
            headless,
            audio: false,
            rom_sha1: rom.hash.sha1.clone(),
            rom_name: rom.name.clone(),
        })
    }

    /// Turns rendering on or off (off is faster; the picture goes stale).
    pub fn set_headless(&mut self, headless: bool) {
        self.headless = headless;
        self.deck.set_headless_mode(headless_mode(self.headless, self.audio));
    }

    /// Turns the APU's sample output on at `sample_rate` samples a second (`Some`), or off (`None`, the
    /// default: mixing and filtering the samples costs time nobody wants when nothing plays them).
    pub fn set_audio(&mut self, sample_rate: Option<f32>) {
        self.audio = sample_rate.is_some();
        if let Some(rate) = sample_rate
            && (self.deck.bus().apu.sample_rate - rate).abs() > f32::EPSILON
        {
            self.deck.set_sample_rate(rate);
        }
        self.deck.set_headless_mode(headless_mode(self.headless, self.audio));
    }

    /// The samples (mono, -1..=1) the APU made during the last frame; empty while audio is off.
    pub fn audio_samples(&self) -> &[f32] {
        if self.audio { self.deck.audio_samples() } else { &[] }
    }

    /// Stretches the number of samples per frame by `ratio` (clamped by the emulator to 0.95..=1.05), so
    /// a sound card whose clock runs a little faster or slower than the wall clock neither starves nor
    /// overflows; the pitch shift of a fraction of a percent is inaudible.
    pub fn set_audio_ratio(&mut self, ratio: f32) {
        self.deck.bus_mut().apu.set_sample_ratio(ratio);
    }

    /// SHA-1 of the cartridge's body (after the iNES header), upper-case hex, as in `addresses/roms.toml`.
    pub fn rom_sha1(&self) -> &str {
        &self.rom_sha1
    }

    /// The cartridge's label (its file name).
    pub fn rom_name(&self) -> &str {
        &self.rom_name
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

/// The emulator's headless flags for rendering on/off and sound on/off.
fn headless_mode(headless: bool, audio: bool) -> HeadlessMode {
    let mut mode = HeadlessMode::empty();
    if headless {
        mode |= HeadlessMode::NO_VIDEO;
    }
    if !audio {
        mode |= HeadlessMode::NO_AUDIO;
    }
    mode
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
        // Rendering and sound belong to the window showing the console now, not to the saved moment.
        self.deck.set_headless_mode(headless_mode(self.headless, self.audio));
        // Loading clears the pads; the held buttons belong to the player, not to the saved moment.
        let pads = self.pads;
        self.set_pads(pads);
        Ok(())
    }
}
