//! Sound: the emulator's APU samples played through the default output device with `cpal`.
//!
//! The window pushes each emulated frame's samples into a [`SampleQueue`]; the sound card's callback
//! pulls them on its own thread. The emulator is paced by the wall clock, the sound card by its own
//! crystal, and the two never agree exactly, so [`rate_ratio`] nudges the number of samples the APU
//! makes per frame (a fraction of a percent, inaudible) to keep the queue near [`TARGET_LATENCY`]
//! instead of letting it starve or grow.
//!
//! Sound plays only at 1x: at other speeds the music would run fast or slow and stutter, so the window
//! switches the APU's output off (which also saves its filtering time) and the queue drains to silence.
//! Without an output device (a server, CI, an SSH session) [`AudioOut::open`] fails, the window logs one
//! warning and the game goes on silent.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::{Context as _, anyhow};
use cpal::traits::{DeviceTrait, HostTrait, StreamTrait};
use cpal::{FromSample, SampleFormat, SizedSample};
use serde::{Deserialize, Serialize};

use crate::emu::EmuSpeed;

/// How much sound the queue aims to hold: enough to ride out a late redraw, little enough that a
/// button's sound is not noticeably late.
pub const TARGET_LATENCY: Duration = Duration::from_millis(60);
/// The most the queue holds; older samples are dropped past this (after a stall) so sound never lags.
pub const MAX_LATENCY: Duration = Duration::from_millis(200);
/// The largest stretch [`rate_ratio`] applies: ±0.5 %, a pitch change nobody hears.
pub const MAX_RATIO_STEP: f32 = 0.005;

/// The `[audio]` table of `config.toml`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct AudioSettings {
    /// Volume in percent, 0..=100.
    pub volume: u8,
    /// Start with the sound muted (the mute key and `--mute` toggle / set it).
    pub mute: bool,
}

impl Default for AudioSettings {
    fn default() -> Self {
        AudioSettings { volume: 70, mute: false }
    }
}

impl AudioSettings {
    /// The linear gain for [`AudioSettings::volume`] (0.0..=1.0).
    pub fn gain(&self) -> f32 {
        f32::from(self.volume.min(100)) / 100.0
    }

    /// Checks the values; the message names the key.
    pub fn validate(&self) -> Result<(), String> {
        if self.volume > 100 {
            return Err(format!("audio.volume = {}: must be 0..=100 (percent)", self.volume));
        }
        Ok(())
    }
}

/// The default `[audio]` table, commented, for `config.toml`.
pub fn default_audio_toml() -> String {
    let d = AudioSettings::default();
    let row = |kv: String, what: &str| format!("{kv:<30} # {what}\n");
    format!(
        "# Sound from the emulated console, in the window at 1x emulator speed (silent at other speeds).\n\
         # Without an output device the window says so once and plays silent.\n[audio]\n{}{}",
        row(format!("volume = {}", d.volume), "percent, 0..=100"),
        row(format!("mute = {}", d.mute), "start muted (the mute key toggles; flag: --mute)"),
    )
}

/// A bounded FIFO of mono samples shared between the window (producer) and the sound card's callback
/// (consumer).
#[derive(Debug, Clone)]
pub struct SampleQueue {
    inner: Arc<Mutex<VecDeque<f32>>>,
    capacity: usize,
}

impl SampleQueue {
    /// An empty queue holding at most `capacity` samples.
    pub fn new(capacity: usize) -> SampleQueue {
        SampleQueue { inner: Arc::new(Mutex::new(VecDeque::with_capacity(capacity))), capacity: capacity.max(1) }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, VecDeque<f32>> {
        // A panic on the audio thread must not silence the window for good.
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Appends `samples` scaled by `gain`; when the queue would overflow, the oldest samples go first.
    pub fn push(&self, samples: &[f32], gain: f32) {
        let mut q = self.lock();
        q.extend(samples.iter().map(|s| (s * gain).clamp(-1.0, 1.0)));
        let excess = q.len().saturating_sub(self.capacity);
        q.drain(..excess);
    }

    /// Appends `n` samples of silence (to give a starting stream some slack).
    pub fn push_silence(&self, n: usize) {
        let mut q = self.lock();
        let n = n.min(self.capacity.saturating_sub(q.len()));
        q.extend(std::iter::repeat_n(0.0, n));
    }

    /// Fills `out` (interleaved, `channels` per frame) from the queue, each mono sample copied to every
    /// channel; silence where the queue runs dry. Returns how many mono samples were missing.
    pub fn pull_into<T: Copy>(&self, out: &mut [T], channels: usize, convert: impl Fn(f32) -> T) -> usize {
        let channels = channels.max(1);
        let mut q = self.lock();
        let mut missing = 0;
        for frame in out.chunks_mut(channels) {
            let s = q.pop_front().unwrap_or_else(|| {
                missing += 1;
                0.0
            });
            frame.fill(convert(s));
        }
        missing
    }

    /// Samples waiting to be played.
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    /// Whether nothing waits to be played.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Drops everything queued (muting takes effect at once rather than after the queue plays out).
    pub fn clear(&self) {
        self.lock().clear();
    }
}

/// The sample-count stretch for the next frame, from how full the queue is: above 1 when it holds less
/// than `target` (make more samples), below 1 when it holds more; at most [`MAX_RATIO_STEP`] either way.
pub fn rate_ratio(queued: usize, target: usize) -> f32 {
    if target == 0 {
        return 1.0;
    }
    let error = (target as f32 - queued as f32) / target as f32;
    1.0 + (error * MAX_RATIO_STEP).clamp(-MAX_RATIO_STEP, MAX_RATIO_STEP)
}

/// Whether the console's sound plays now: there is a device, it is not muted, the emulator runs, and at
/// 1x (at other speeds the music would be too fast or slow and stutter).
pub fn sound_wanted(device: bool, muted: bool, paused: bool, speed: EmuSpeed) -> bool {
    device && !muted && !paused && speed == EmuSpeed::X1
}

/// The status line's word on sound.
pub fn sound_status(device: bool, muted: bool, speed: EmuSpeed, volume: u8) -> String {
    if !device {
        "NO SOUND DEVICE".into()
    } else if muted {
        "MUTED".into()
    } else if speed != EmuSpeed::X1 {
        format!("SILENT AT {speed}")
    } else {
        format!("SOUND {}%", volume.min(100))
    }
}

/// Samples in `d` at `rate` samples a second.
pub fn samples_in(d: Duration, rate: u32) -> usize {
    (d.as_secs_f64() * f64::from(rate)).round() as usize
}

/// An open output stream on the default device, fed from a [`SampleQueue`].
pub struct AudioOut {
    /// Kept alive: dropping the stream stops the sound.
    _stream: cpal::Stream,
    queue: SampleQueue,
    sample_rate: u32,
    device: String,
}

impl std::fmt::Debug for AudioOut {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AudioOut").field("device", &self.device).field("sample_rate", &self.sample_rate).finish()
    }
}

impl AudioOut {
    /// Opens the default output device at its default rate and starts the stream (silent until samples
    /// are pushed). Fails when the machine has no usable output device.
    pub fn open() -> anyhow::Result<AudioOut> {
        // alsa-lib prints its own complaints (no card, unknown PCM) to stderr; collect them on this
        // thread instead and add them to the one error.
        #[cfg(target_os = "linux")]
        let alsa_log = alsa::Output::local_error_handler().ok();
        let opened = Self::open_default();
        #[cfg(target_os = "linux")]
        if let (Err(_), Some(out)) = (&opened, alsa_log) {
            let text = out.borrow().to_string();
            if !text.trim().is_empty() {
                log::debug!("alsa-lib: {}", text.trim());
            }
        }
        opened
    }

    fn open_default() -> anyhow::Result<AudioOut> {
        let host = cpal::default_host();
        let device = host.default_output_device().ok_or_else(|| anyhow!("no default output device"))?;
        let name = device.description().map(|d| d.to_string()).unwrap_or_else(|_| "default".to_string());
        let supported = device.default_output_config().map_err(|e| anyhow!("{name}: {e}"))?;
        let format = supported.sample_format();
        let config: cpal::StreamConfig = supported.into();
        let sample_rate = config.sample_rate;
        let queue = SampleQueue::new(samples_in(MAX_LATENCY, sample_rate));
        let stream = match format {
            SampleFormat::F32 => build::<f32>(&device, &config, queue.clone()),
            SampleFormat::I16 => build::<i16>(&device, &config, queue.clone()),
            SampleFormat::U16 => build::<u16>(&device, &config, queue.clone()),
            SampleFormat::I32 => build::<i32>(&device, &config, queue.clone()),
            SampleFormat::F64 => build::<f64>(&device, &config, queue.clone()),
            other => Err(anyhow!("sample format {other} is not supported")),
        }
        .with_context(|| format!("opening {name}"))?;
        stream.play().map_err(|e| anyhow!("starting {name}: {e}"))?;
        Ok(AudioOut { _stream: stream, queue, sample_rate, device: name })
    }

    /// The device's sample rate (samples a second); the emulator makes its samples at this rate.
    pub fn sample_rate(&self) -> u32 {
        self.sample_rate
    }

    /// The queue the window pushes samples into.
    pub fn queue(&self) -> &SampleQueue {
        &self.queue
    }

    /// The device's name, for the log.
    pub fn device(&self) -> &str {
        &self.device
    }
}

fn build<T: SizedSample + FromSample<f32> + Send + 'static>(
    device: &cpal::Device,
    config: &cpal::StreamConfig,
    queue: SampleQueue,
) -> anyhow::Result<cpal::Stream> {
    let channels = usize::from(config.channels);
    let mut warned = false;
    device
        .build_output_stream(
            *config,
            move |data: &mut [T], _: &cpal::OutputCallbackInfo| {
                queue.pull_into(data, channels, T::from_sample);
            },
            move |err| {
                if !warned {
                    log::warn!("sound output: {err}");
                    warned = true;
                }
            },
            None,
        )
        .map_err(|e| anyhow!("{e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_queue_keeps_order_drops_the_oldest_and_fills_gaps_with_silence() {
        let q = SampleQueue::new(4);
        q.push(&[0.1, 0.2, 0.3], 1.0);
        q.push(&[0.4, 0.5, 0.6], 0.5);
        assert_eq!(q.len(), 4, "capacity holds");
        let mut out = [9.0f32; 12];
        // Stereo: each mono sample to both channels; 6 frames asked, 4 queued.
        let missing = q.pull_into(&mut out, 2, |s| s);
        assert_eq!(missing, 2);
        let want = [0.3, 0.3, 0.2, 0.2, 0.25, 0.25, 0.3, 0.3, 0.0, 0.0, 0.0, 0.0];
        for (a, b) in out.iter().zip(want) {
            assert!((a - b).abs() < 1e-6, "{out:?}");
        }
        assert!(q.is_empty());
        q.push(&[3.0, -3.0], 1.0);
        let mut out = [0i16; 2];
        q.pull_into(&mut out, 1, <i16 as cpal::Sample>::from_sample);
        assert_eq!(out, [i16::MAX, i16::MIN], "clipped to full scale");
        q.push_silence(10);
        assert_eq!(q.len(), 4);
        q.clear();
        assert!(q.is_empty());
    }

    #[test]
    fn the_rate_ratio_fills_a_starving_queue_and_drains_a_full_one_within_half_a_percent() {
        assert_eq!(rate_ratio(100, 100), 1.0);
        assert!(rate_ratio(50, 100) > 1.0);
        assert!(rate_ratio(150, 100) < 1.0);
        assert!((rate_ratio(0, 100) - 1.005).abs() < 1e-6);
        assert!((rate_ratio(10_000, 100) - 0.995).abs() < 1e-6);
        assert_eq!(rate_ratio(5, 0), 1.0);
        assert_eq!(samples_in(Duration::from_millis(60), 48_000), 2880);
    }

    #[test]
    fn sound_plays_only_at_1x_running_unmuted_with_a_device() {
        assert!(sound_wanted(true, false, false, EmuSpeed::X1));
        for speed in [EmuSpeed::Half, EmuSpeed::X2, EmuSpeed::X4, EmuSpeed::Max] {
            assert!(!sound_wanted(true, false, false, speed), "{speed}");
        }
        assert!(!sound_wanted(true, true, false, EmuSpeed::X1), "muted");
        assert!(!sound_wanted(true, false, true, EmuSpeed::X1), "paused");
        assert!(!sound_wanted(false, false, false, EmuSpeed::X1), "no device");
        assert_eq!(sound_status(true, false, EmuSpeed::X1, 70), "SOUND 70%");
        assert_eq!(sound_status(true, false, EmuSpeed::X2, 70), "SILENT AT 2X");
        assert_eq!(sound_status(true, true, EmuSpeed::X2, 70), "MUTED");
        assert_eq!(sound_status(false, true, EmuSpeed::X1, 70), "NO SOUND DEVICE");
    }

    #[test]
    fn settings_default_validate_and_parse() {
        let d = AudioSettings::default();
        assert!(!d.mute && d.validate().is_ok());
        assert!((AudioSettings { volume: 50, mute: false }.gain() - 0.5).abs() < 1e-6);
        assert!(AudioSettings { volume: 101, mute: false }.validate().unwrap_err().contains("audio.volume"));
        #[derive(Deserialize)]
        struct C {
            audio: AudioSettings,
        }
        let c: C = toml::from_str(&default_audio_toml()).unwrap();
        assert_eq!(c.audio, d);
        assert!(toml::from_str::<C>("[audio]\nvolum = 3\n").is_err(), "unknown keys are errors");
    }
}
