//! The window's state, in parts with one job each: the pacing of the emulator ([`Clock`]), the keyboard
//! and controllers ([`Input`]), the sound device ([`Sound`]) and what the HUD shows ([`HudState`]). The
//! event loop in [`super::window`] owns one of each and the session it hosts.

use super::FRAME_RGBA_LEN;
use super::audio::{AudioOut, sound_status, sound_wanted};
use super::gamepad::Gamepads;
use super::hud;
use super::keys::KeyMap;
use super::pacing::EmuSpeed;
use std::time::{Duration, Instant};

/// How long a transient HUD message stays up.
const MESSAGE_TIME: Duration = Duration::from_secs(4);
/// How long the start hint (help key, quit key) stays up.
const HINT_TIME: Duration = Duration::from_secs(8);
/// Redraw interval while running (about 60 Hz).
const REDRAW_RUNNING: Duration = Duration::from_micros(16_667);
/// Redraw interval while paused.
const REDRAW_PAUSED: Duration = Duration::from_millis(50);
/// Redraw interval at maximum speed (the emulation itself takes ~16 ms).
const REDRAW_MAX: Duration = Duration::from_millis(1);
/// How often the frame rate shown is measured again.
const FPS_PERIOD: Duration = Duration::from_millis(500);

/// When the emulator runs: paused or not, its speed, and the wall-clock bookkeeping of the pacing.
pub(super) struct Clock {
    /// The emulator is paused (frame advance still steps it).
    pub paused: bool,
    /// The emulator's speed step.
    pub speed: EmuSpeed,
    /// The fractional frame left over from earlier redraws (see [`super::pacing::pace`]).
    pub carry: f64,
    /// When the last redraw ran, `None` after a pause so the pause is not caught up.
    last_tick: Option<Instant>,
    /// When the next redraw is asked for.
    next_redraw: Instant,
}

impl Clock {
    /// A clock at `speed`, paused or not.
    pub fn new(paused: bool, speed: EmuSpeed) -> Self {
        Clock { paused, speed, carry: 0.0, last_tick: None, next_redraw: Instant::now() }
    }

    /// Wall-clock time since the previous redraw (zero for the first after a pause), and marks `now`.
    pub fn tick(&mut self, now: Instant) -> Duration {
        let elapsed = self.last_tick.map(|t| now - t).unwrap_or_default();
        self.last_tick = Some(now);
        elapsed
    }

    /// Pauses or resumes; the time paused is not caught up.
    pub fn toggle_pause(&mut self) {
        self.paused = !self.paused;
        self.last_tick = None;
        self.carry = 0.0;
    }

    /// One speed step faster (`faster`) or slower.
    pub fn change_speed(&mut self, faster: bool) {
        self.speed = if faster { self.speed.faster() } else { self.speed.slower() };
        self.carry = 0.0;
    }

    /// Whether a redraw is due at `now`; if so the next one is scheduled (sooner while running, soonest at
    /// maximum speed).
    pub fn redraw_due(&mut self, now: Instant) -> bool {
        if now < self.next_redraw {
            return false;
        }
        let interval = if self.paused {
            REDRAW_PAUSED
        } else if self.speed == EmuSpeed::Max {
            REDRAW_MAX
        } else {
            REDRAW_RUNNING
        };
        self.next_redraw = now + interval;
        true
    }

    /// When the event loop should wake next.
    pub fn next_redraw(&self) -> Instant {
        self.next_redraw
    }
}

/// Pad 1 as the keyboard and the controllers hold it.
pub(super) struct Input {
    /// What each key does.
    pub keymap: KeyMap,
    /// Pad 1 buttons held on the keyboard.
    keyboard_pad: u8,
    /// Controllers for pad 1.
    pub gamepads: Gamepads,
    /// Pad 1 buttons last handed to the view (keyboard and controllers together).
    pub pad: u8,
}

impl Input {
    /// Nothing held yet.
    pub fn new(keymap: KeyMap, gamepads: Gamepads) -> Self {
        Input { keymap, keyboard_pad: 0, gamepads, pad: 0 }
    }

    /// A pad button's key went down (`pressed`) or up.
    pub fn key_button(&mut self, bit: u8, pressed: bool) {
        self.keyboard_pad = if pressed { self.keyboard_pad | bit } else { self.keyboard_pad & !bit };
    }

    /// Releases every key (keys released while the window is unfocused never arrive).
    pub fn release_keys(&mut self) {
        self.keyboard_pad = 0;
    }

    /// Pad 1 (keyboard and controllers together) when it changed since it was last handed on.
    pub fn changed_pad(&mut self) -> Option<u8> {
        let pad = self.keyboard_pad | self.gamepads.buttons();
        (pad != self.pad).then(|| {
            self.pad = pad;
            pad
        })
    }
}

/// The sound device and whether the game's sound goes to it.
pub(super) struct Sound {
    /// The sound device, when one could be opened.
    pub out: Option<AudioOut>,
    /// Whether opening the sound device was tried.
    tried: bool,
    /// Whether the view makes sound samples now.
    pub active: bool,
    /// The person muted the sound.
    pub muted: bool,
}

impl Sound {
    /// No device opened yet.
    pub fn new(muted: bool) -> Self {
        Sound { out: None, tried: false, active: false, muted }
    }

    /// Opens the sound device once (a missing one is reported once, and the game goes on silent).
    pub fn open(&mut self) {
        if self.tried {
            return;
        }
        self.tried = true;
        match AudioOut::open() {
            Ok(out) => {
                log::info!("sound: {} at {} Hz", out.device(), out.sample_rate());
                self.out = Some(out);
            }
            Err(e) => log::warn!("no sound ({e:#}); playing silent"),
        }
    }

    /// Whether sound should play given the clock: at 1x only, where it keeps time with the picture.
    pub fn wanted(&self, clock: &Clock) -> bool {
        sound_wanted(self.out.is_some(), self.muted, clock.paused, clock.speed)
    }

    /// The status line's word on sound.
    pub fn status(&self, speed: EmuSpeed, volume: u8) -> String {
        sound_status(self.out.is_some(), self.muted, speed, volume)
    }
}

/// What the HUD shows besides the session's own panels: which layers are on, the transient message, the
/// start hint, the frame rate, and the composed picture.
pub(super) struct HudState {
    /// The panels beside the picture and the status line are shown.
    pub on: bool,
    /// The bots' planned placements are drawn over the game.
    pub ghost_on: bool,
    /// The help page is shown.
    pub help_on: bool,
    /// The transient message and when it was set.
    message: Option<(String, Instant)>,
    /// When the start hint goes away.
    pub hint_until: Instant,
    /// Frames per second, as last measured.
    pub fps: f32,
    /// Frames emulated since `fps_since`.
    fps_frames: u64,
    /// Start of the current frame-rate measurement.
    fps_since: Instant,
    /// The composed picture at 1x (frame + HUD); the session's buffer is never written.
    pub screen: Vec<u8>,
    /// Geometry of `screen`.
    pub canvas: hud::Canvas,
    /// A frame of the wrong size was reported once.
    pub warned_frame_len: bool,
}

impl HudState {
    /// The layers shown at the start; the start hint up.
    pub fn new(on: bool, ghost_on: bool) -> Self {
        let now = Instant::now();
        HudState {
            on,
            ghost_on,
            help_on: false,
            message: None,
            hint_until: now + HINT_TIME,
            fps: 0.0,
            fps_frames: 0,
            fps_since: now,
            screen: vec![0; FRAME_RGBA_LEN],
            canvas: hud::canvas(false),
            warned_frame_len: false,
        }
    }

    /// Shows `text` on the status line for a while (and logs it).
    pub fn set_message(&mut self, text: String) {
        log::info!("{text}");
        self.message = Some((text, Instant::now()));
    }

    /// The message shown now, if any.
    pub fn message(&self) -> Option<String> {
        self.message.as_ref().map(|(m, _)| m.clone())
    }

    /// Counts one emulated frame toward the frame rate.
    pub fn count_frame(&mut self) {
        self.fps_frames += 1;
    }

    /// At a redraw: measures the frame rate again when due and takes down an old message.
    pub fn refresh(&mut self, now: Instant) {
        let since = now.duration_since(self.fps_since);
        if since >= FPS_PERIOD {
            self.fps = (self.fps_frames as f64 / since.as_secs_f64()) as f32;
            self.fps_frames = 0;
            self.fps_since = now;
        }
        if self.message.as_ref().is_some_and(|(_, t)| t.elapsed() > MESSAGE_TIME) {
            self.message = None;
        }
    }
}
