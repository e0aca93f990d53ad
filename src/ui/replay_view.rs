//! A recording as the window shows it: [`Viewable`] for a console fed the file's pads frame by frame,
//! from power-on. No bots run; the window's keys for pausing, stepping one frame and the emulator's speed
//! work as in play, and the pad keys do nothing (the pads are the file's).

use anyhow::{Context, bail};

use super::{HudInfo, Viewable};
use crate::emu::{Emu, Machine, ram_hash};

/// A console playing back a pad log.
pub struct ReplayView {
    emu: Emu,
    pads: Vec<[u8; 2]>,
    /// Frames played so far (the next frame's index into `pads`).
    played: usize,
}

impl std::fmt::Debug for ReplayView {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ReplayView").field("played", &self.played).field("frames", &self.pads.len()).finish()
    }
}

impl ReplayView {
    /// A view of `pads` (one entry a frame, from power-on) on `emu`, a console just powered on.
    pub fn new(emu: Emu, pads: Vec<[u8; 2]>) -> ReplayView {
        ReplayView { emu, pads, played: 0 }
    }

    /// Frames played so far.
    pub fn played(&self) -> usize {
        self.played
    }

    /// Frames in the log.
    pub fn len(&self) -> usize {
        self.pads.len()
    }

    /// Whether the log has no frames.
    pub fn is_empty(&self) -> bool {
        self.pads.is_empty()
    }

    /// Whether every frame of the log has been played.
    pub fn finished(&self) -> bool {
        self.played >= self.pads.len()
    }

    /// The console's RAM hash now, as reports and recordings give it (16 hex digits).
    pub fn ram_hash(&self) -> String {
        format!("{:016x}", ram_hash(self.emu.ram()))
    }
}

impl Viewable for ReplayView {
    /// Plays the log's next frame; past its end the console stops and the last picture stays.
    fn step_frame(&mut self) -> anyhow::Result<()> {
        let Some(&pads) = self.pads.get(self.played) else { return Ok(()) };
        self.emu.set_pads(pads);
        self.emu.clock_frame().with_context(|| format!("replaying frame {}", self.played + 1))?;
        self.played += 1;
        Ok(())
    }

    fn frame_rgba(&mut self) -> &[u8] {
        self.emu.frame_rgba()
    }

    fn hud(&self) -> HudInfo {
        let message = self.finished().then(|| format!("REPLAY ENDED AT FRAME {}", self.pads.len()));
        let tally = Some(format!("REPLAY  FRAME {} OF {}", self.played, self.pads.len()));
        HudInfo { message, tally, ..HudInfo::default() }
    }

    /// The pads are the file's: the person's buttons are not mixed in.
    fn set_keyboard_pad(&mut self, _pad: u8, _buttons: u8) {}

    fn toggle_bot(&mut self, _player: usize) -> bool {
        false
    }

    fn change_bot_speed(&mut self, _delta: i32) -> u8 {
        0
    }

    fn set_audio(&mut self, sample_rate: Option<f32>) {
        self.emu.set_audio(sample_rate);
    }

    fn audio_samples(&self) -> &[f32] {
        self.emu.audio_samples()
    }

    fn set_audio_ratio(&mut self, ratio: f32) {
        self.emu.set_audio_ratio(ratio);
    }

    fn save_state(&mut self, _slot: u8) -> anyhow::Result<String> {
        bail!("a replay has no save states (its frames come from the file)")
    }

    fn load_state(&mut self, _slot: u8) -> anyhow::Result<()> {
        bail!("a replay has no save states (its frames come from the file)")
    }
}
