//! The window: a winit 0.30 event loop drawing with softbuffer 0.4.
//!
//! The emulator is paced from the wall clock × the speed step (see
//! [`pacing`](super::pacing)); each redraw (about 60 a second) clocks
//! [`Viewable::step_frame`] as many times as are due, feeding each frame's
//! sound to the sound card, then composes the frame with the panels around it
//! ([`hud`]) and scales the result into the window.

use super::audio::{AudioOut, AudioSettings, TARGET_LATENCY, rate_ratio, samples_in, sound_status, sound_wanted};
use super::gamepad::{GamepadBindings, Gamepads};
use super::hud::{self, Layers, WindowStatus};
use super::key_script::{KeyScript, ScriptedKey};
use super::keys::{Action, KeyBindings, KeyMap};
use super::pacing::{EmuSpeed, Pace, pace};
use super::scale::{blit_scaled, layout};
use super::screenshot::{next_screenshot_path, write_png};
use super::{FRAME_RGBA_LEN, HudInfo, NES_HEIGHT, NES_WIDTH, Viewable};
use anyhow::Context as _;
use std::num::NonZeroU32;
use std::path::PathBuf;
use std::rc::Rc;
use std::time::{Duration, Instant};
use winit::application::ApplicationHandler;
use winit::dpi::PhysicalSize;
use winit::event::{ElementState, KeyEvent, WindowEvent};
use winit::event_loop::{ActiveEventLoop, ControlFlow, EventLoop};
use winit::keyboard::{KeyCode, PhysicalKey};
use winit::window::{Fullscreen, Window, WindowId};

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
/// If emulating the due frames takes longer than this, the rest of the
/// backlog is dropped so the window stays responsive.
const STEP_GUARD: Duration = Duration::from_millis(50);
/// Number of save-state slots (1..=SLOTS), as the session adapter keeps them.
const SLOTS: u8 = super::session_view::SLOTS as u8;

/// Options of [`run_window`].
#[derive(Debug, Clone)]
pub struct WindowOptions {
    /// Window title.
    pub title: String,
    /// Initial window size as a multiple of the composed picture (256×240, or
    /// 448×260 with the HUD), clamped to 1..=8 and lowered until the window
    /// fits the screen. When the window is resized the largest integer scale
    /// that fits is used and the picture is centred.
    pub scale: u32,
    /// Start in borderless fullscreen.
    pub fullscreen: bool,
    /// Start paused.
    pub start_paused: bool,
    /// Start with the HUD (the panels beside the picture and the status line) shown.
    pub show_hud: bool,
    /// Start with the bots' planned placements (the ghost) drawn over the game.
    pub show_ghost: bool,
    /// Initial emulator speed.
    pub emu_speed: EmuSpeed,
    /// Key bindings (the `[keys]` table).
    pub keys: KeyBindings,
    /// Sound settings (the `[audio]` table).
    pub audio: AudioSettings,
    /// Game controller bindings (the `[gamepad]` table).
    pub gamepad: GamepadBindings,
    /// Directory for screenshots taken with the screenshot keys (created on
    /// first use); by default `screenshots` in the data folder.
    pub screenshot_dir: PathBuf,
    /// Exit on its own after this many emulated frames.
    pub max_frames: Option<u64>,
    /// Write a screenshot of the whole window at 1x (the picture with the
    /// HUD if shown) to this path when the window exits for any reason.
    pub screenshot_on_exit: Option<PathBuf>,
    /// Allow running the event loop off the main thread (X11/Wayland only;
    /// used by tests, which run on the test harness's threads).
    pub any_thread: bool,
    /// Key events to deliver on given frames, through the same handler as
    /// real key events (scripted play for tests and demos).
    pub key_script: KeyScript,
}

impl Default for WindowOptions {
    fn default() -> Self {
        WindowOptions {
            title: "puyobot".to_string(),
            scale: 3,
            fullscreen: false,
            start_paused: false,
            show_hud: true,
            show_ghost: true,
            emu_speed: EmuSpeed::X1,
            keys: KeyBindings::default(),
            audio: AudioSettings::default(),
            gamepad: GamepadBindings::default(),
            screenshot_dir: crate::paths::data_subdir("screenshots"),
            max_frames: None,
            screenshot_on_exit: None,
            any_thread: false,
            key_script: KeyScript::default(),
        }
    }
}

/// Why [`run_window`] returned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExitReason {
    /// The quit key was pressed.
    Quit,
    /// The window was closed.
    WindowClosed,
    /// [`WindowOptions::max_frames`] frames were emulated.
    MaxFrames,
}

/// Result of a window session.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WindowExit {
    /// Why the window closed.
    pub reason: ExitReason,
    /// Frames emulated while the window was open.
    pub frames: u64,
    /// Whether a sound device was open (false: the game ran silent).
    pub sound_device: bool,
}

/// Opens the window and runs `view` in it until the user quits, the window
/// is closed or [`WindowOptions::max_frames`] is reached.
///
/// Errors: bad key or controller bindings, no display to open a window on, a failing
/// [`Viewable::step_frame`], or a failing `screenshot_on_exit`. Save/load
/// and screenshot-key failures are only shown on the HUD and logged.
///
/// winit allows one event loop per process, so this can be called only
/// once per process; it must run on the main thread unless
/// [`WindowOptions::any_thread`] is set (X11/Wayland).
pub fn run_window<V: Viewable + ?Sized>(view: &mut V, opts: WindowOptions) -> anyhow::Result<WindowExit> {
    let keymap = opts.keys.resolve().context("invalid [keys] bindings")?;
    let padmap = opts.gamepad.resolve().context("invalid [gamepad] bindings")?;
    opts.audio.validate().map_err(|e| anyhow::anyhow!(e))?;
    #[allow(unused_mut)]
    let mut builder = EventLoop::builder();
    #[cfg(any(
        target_os = "linux",
        target_os = "dragonfly",
        target_os = "freebsd",
        target_os = "netbsd",
        target_os = "openbsd"
    ))]
    if opts.any_thread {
        winit::platform::x11::EventLoopBuilderExtX11::with_any_thread(&mut builder, true);
        winit::platform::wayland::EventLoopBuilderExtWayland::with_any_thread(&mut builder, true);
    }
    let event_loop = builder.build().context("cannot start the window system (is DISPLAY or WAYLAND_DISPLAY set?)")?;
    let gamepads = Gamepads::open(padmap, opts.gamepad.enabled);
    let mut app = App::new(view, opts, keymap, gamepads);
    let run = event_loop.run_app(&mut app);
    app.view.set_audio(None);
    if let Some(e) = app.error.take() {
        return Err(e);
    }
    run.context("window event loop failed")?;
    Ok(WindowExit {
        reason: app.exit.unwrap_or(ExitReason::WindowClosed),
        frames: app.frames,
        sound_device: app.sound.is_some(),
    })
}

/// The window and its softbuffer surface.
struct Gfx {
    window: Rc<Window>,
    surface: softbuffer::Surface<Rc<Window>, Rc<Window>>,
}

/// Event-loop state.
struct App<'a, V: Viewable + ?Sized> {
    view: &'a mut V,
    opts: WindowOptions,
    keymap: KeyMap,
    gfx: Option<Gfx>,
    /// The composed picture at 1x (frame + HUD); the session's buffer is
    /// never written.
    screen: Vec<u8>,
    /// Geometry of `screen`.
    canvas: hud::Canvas,
    paused: bool,
    hud_on: bool,
    ghost_on: bool,
    help_on: bool,
    speed: EmuSpeed,
    carry: f64,
    last_tick: Option<Instant>,
    next_redraw: Instant,
    /// Pad 1 buttons held on the keyboard.
    keyboard_pad: u8,
    /// Controllers for pad 1.
    gamepads: Gamepads,
    /// Pad 1 buttons last handed to the view (keyboard and controllers together).
    pad: u8,
    /// The sound device, when one could be opened.
    sound: Option<AudioOut>,
    /// Whether opening the sound device was tried.
    sound_tried: bool,
    /// Whether the view makes sound samples now.
    sound_active: bool,
    muted: bool,
    /// When the start hint goes away.
    hint_until: Instant,
    slot: u8,
    frames: u64,
    shot_counter: u32,
    message: Option<(String, Instant)>,
    fps: f32,
    fps_frames: u64,
    fps_since: Instant,
    warned_frame_len: bool,
    warned_present: bool,
    exit: Option<ExitReason>,
    error: Option<anyhow::Error>,
}

impl<'a, V: Viewable + ?Sized> App<'a, V> {
    fn new(view: &'a mut V, opts: WindowOptions, keymap: KeyMap, gamepads: Gamepads) -> Self {
        let now = Instant::now();
        App {
            view,
            paused: opts.start_paused,
            hud_on: opts.show_hud,
            ghost_on: opts.show_ghost,
            help_on: false,
            speed: opts.emu_speed,
            muted: opts.audio.mute,
            opts,
            keymap,
            gfx: None,
            screen: vec![0; FRAME_RGBA_LEN],
            canvas: hud::canvas(false),
            carry: 0.0,
            last_tick: None,
            next_redraw: now,
            keyboard_pad: 0,
            gamepads,
            pad: 0,
            sound: None,
            sound_tried: false,
            sound_active: false,
            hint_until: now + HINT_TIME,
            slot: 1,
            frames: 0,
            shot_counter: 0,
            message: None,
            fps: 0.0,
            fps_frames: 0,
            fps_since: now,
            warned_frame_len: false,
            warned_present: false,
            exit: None,
            error: None,
        }
    }

    fn create_window(&mut self, el: &ActiveEventLoop) -> anyhow::Result<()> {
        let c = hud::canvas(self.hud_on);
        let (cw, ch) = (c.width as u32, c.height as u32);
        let mut scale = self.opts.scale.clamp(1, 8);
        // A window larger than the screen would hide the status line; nine tenths leaves room for the
        // desktop's panels.
        if let Some(m) = el.primary_monitor() {
            let size = m.size();
            while scale > 1 && (cw * scale > size.width * 9 / 10 || ch * scale > size.height * 9 / 10) {
                scale -= 1;
            }
        }
        let mut attrs = Window::default_attributes()
            .with_title(self.opts.title.clone())
            .with_inner_size(PhysicalSize::new(cw * scale, ch * scale))
            .with_min_inner_size(PhysicalSize::new(NES_WIDTH as u32, NES_HEIGHT as u32));
        if self.opts.fullscreen {
            attrs = attrs.with_fullscreen(Some(Fullscreen::Borderless(None)));
        }
        let window = Rc::new(el.create_window(attrs).context("creating the window")?);
        let context =
            softbuffer::Context::new(window.clone()).map_err(|e| anyhow::anyhow!("softbuffer context: {e}"))?;
        let surface = softbuffer::Surface::new(&context, window.clone())
            .map_err(|e| anyhow::anyhow!("softbuffer surface: {e}"))?;
        self.gfx = Some(Gfx { window, surface });
        self.update_title();
        Ok(())
    }

    fn fail(&mut self, el: &ActiveEventLoop, e: anyhow::Error) {
        if self.error.is_none() {
            self.error = Some(e);
        }
        el.exit();
    }

    /// Ends the session: writes `screenshot_on_exit` and stops the loop.
    fn request_exit(&mut self, el: &ActiveEventLoop, reason: ExitReason) {
        if self.exit.is_some() {
            return;
        }
        self.exit = Some(reason);
        if let Some(path) = self.opts.screenshot_on_exit.clone() {
            self.compose();
            match write_png(&path, &self.screen, self.canvas.width, self.canvas.height) {
                Ok(()) => log::info!("exit screenshot saved to {}", path.display()),
                Err(e) => {
                    self.fail(el, e.context("writing the exit screenshot"));
                    return;
                }
            }
        }
        el.exit();
    }

    /// Emulates one frame. Returns false if the window should stop.
    fn step(&mut self, el: &ActiveEventLoop) -> bool {
        if self.exit.is_some() || self.error.is_some() {
            return false;
        }
        let due: Vec<ScriptedKey> = self.opts.key_script.due(self.frames).to_vec();
        for key in due {
            self.on_key(el, key.code, key.pressed, false);
        }
        if let Err(e) = self.view.step_frame() {
            self.fail(el, e.context(format!("emulating frame {}", self.frames + 1)));
            return false;
        }
        if self.sound_active
            && let Some(out) = &self.sound
        {
            let queue = out.queue();
            queue.push(self.view.audio_samples(), self.opts.audio.gain());
            self.view.set_audio_ratio(rate_ratio(queue.len(), samples_in(TARGET_LATENCY, out.sample_rate())));
        }
        self.frames += 1;
        self.fps_frames += 1;
        if self.opts.max_frames.is_some_and(|max| self.frames >= max) {
            self.request_exit(el, ExitReason::MaxFrames);
            return false;
        }
        true
    }

    fn set_message(&mut self, text: String) {
        log::info!("{text}");
        self.message = Some((text, Instant::now()));
    }

    /// Opens the sound device once (a missing one is reported once, and the game goes on silent).
    fn open_sound(&mut self) {
        if self.sound_tried {
            return;
        }
        self.sound_tried = true;
        match AudioOut::open() {
            Ok(out) => {
                log::info!("sound: {} at {} Hz", out.device(), out.sample_rate());
                self.sound = Some(out);
            }
            Err(e) => log::warn!("no sound ({e:#}); playing silent"),
        }
    }

    /// Turns the view's sound on or off to match the device, mute, pause and speed: sound plays at 1x
    /// only, where it keeps time with the picture.
    fn update_sound(&mut self) {
        let want = sound_wanted(self.sound.is_some(), self.muted, self.paused, self.speed);
        if want == self.sound_active {
            return;
        }
        self.sound_active = want;
        let Some(out) = &self.sound else { return };
        out.queue().clear();
        if want {
            // Half the target of silence up front: the queue starts with slack instead of starving.
            out.queue().push_silence(samples_in(TARGET_LATENCY, out.sample_rate()) / 2);
            self.view.set_audio(Some(out.sample_rate() as f32));
            self.view.set_audio_ratio(1.0);
        } else {
            self.view.set_audio(None);
        }
    }

    /// The status line's word on sound.
    fn sound_status(&self) -> String {
        sound_status(self.sound.is_some(), self.muted, self.speed, self.opts.audio.volume)
    }

    /// Hands pad 1 (keyboard and controllers together) to the view when it changed.
    fn update_pad(&mut self) {
        let pad = self.keyboard_pad | self.gamepads.buttons();
        if pad != self.pad {
            self.pad = pad;
            self.view.set_keyboard_pad(0, pad);
        }
    }

    /// Reads the controllers.
    fn poll_gamepads(&mut self) {
        for msg in self.gamepads.poll() {
            self.set_message(msg);
        }
        self.update_pad();
    }

    fn update_title(&self) {
        if let Some(gfx) = &self.gfx {
            let paused = if self.paused { " - paused" } else { "" };
            gfx.window.set_title(&format!("{} - {}{}", self.opts.title, self.speed, paused));
        }
    }

    /// Composes the window's picture into `screen`: the session's frame, the HUD around it, the ghost
    /// over it, or the help page.
    fn compose(&mut self) {
        let info = if self.hud_on || self.ghost_on { self.view.hud() } else { HudInfo::default() };
        let status = WindowStatus {
            speed: self.speed,
            fps: self.fps,
            paused: self.paused,
            slot: self.slot,
            message: self.message.as_ref().map(|(m, _)| m.clone()),
            hint: (Instant::now() < self.hint_until).then(|| self.opts.keys.hint()).filter(|h| !h.is_empty()),
            prompt: info.awaiting_start.then(|| {
                let pad = self.opts.gamepad.enabled.then_some(self.opts.gamepad.start.as_str());
                self.opts.keys.start_prompt(pad)
            }),
            sound: self.sound_status(),
            pad1: self.pad,
        };
        let help = self.help_on.then(|| self.opts.keys.help_rows());
        let frame = self.view.frame_rgba();
        if frame.len() != FRAME_RGBA_LEN && !self.warned_frame_len {
            log::warn!("frame_rgba returned {} bytes, expected {FRAME_RGBA_LEN}", frame.len());
            self.warned_frame_len = true;
        }
        let layers = Layers { hud: self.hud_on, ghost: self.ghost_on };
        self.canvas = hud::compose(&mut self.screen, frame, &info, &status, layers, help.as_deref());
    }

    /// Saves the game picture alone (`whole = false`) or the whole window at 1x into the screenshot
    /// folder, and says where on the status line.
    fn screenshot(&mut self, whole: bool) {
        let path = next_screenshot_path(&self.opts.screenshot_dir, &mut self.shot_counter);
        let written = if whole {
            self.compose();
            write_png(&path, &self.screen, self.canvas.width, self.canvas.height)
        } else {
            write_png(&path, self.view.frame_rgba(), NES_WIDTH, NES_HEIGHT)
        };
        match written {
            Ok(()) => self.set_message(format!("screenshot: {}", path.display())),
            Err(e) => {
                log::warn!("screenshot failed: {e:#}");
                self.set_message(format!("screenshot failed: {e:#}"));
            }
        }
    }

    fn redraw(&mut self, el: &ActiveEventLoop) {
        let now = Instant::now();
        let elapsed = self.last_tick.map(|t| now - t).unwrap_or_default();
        self.last_tick = Some(now);
        self.poll_gamepads();
        self.update_sound();
        if !self.paused {
            match pace(self.speed, elapsed, &mut self.carry) {
                Pace::Frames(n) => {
                    for _ in 0..n {
                        if !self.step(el) {
                            break;
                        }
                        if now.elapsed() > STEP_GUARD {
                            self.carry = 0.0;
                            break;
                        }
                    }
                }
                Pace::FillBudget(budget) => {
                    while now.elapsed() < budget {
                        if !self.step(el) {
                            break;
                        }
                    }
                }
            }
        }
        if self.exit.is_some() || self.error.is_some() {
            return;
        }
        let since = now.duration_since(self.fps_since);
        if since >= Duration::from_millis(500) {
            self.fps = (self.fps_frames as f64 / since.as_secs_f64()) as f32;
            self.fps_frames = 0;
            self.fps_since = now;
        }
        if self.message.as_ref().is_some_and(|(_, t)| t.elapsed() > MESSAGE_TIME) {
            self.message = None;
        }
        self.compose();
        if let Err(e) = self.present()
            && !self.warned_present
        {
            log::warn!("cannot draw the window: {e:#}");
            self.warned_present = true;
        }
    }

    fn present(&mut self) -> anyhow::Result<()> {
        let Some(gfx) = self.gfx.as_mut() else {
            return Ok(());
        };
        let size = gfx.window.inner_size();
        let (Some(w), Some(h)) = (NonZeroU32::new(size.width), NonZeroU32::new(size.height)) else {
            return Ok(());
        };
        gfx.surface.resize(w, h).map_err(|e| anyhow::anyhow!("resizing the surface: {e}"))?;
        let mut buffer = gfx.surface.buffer_mut().map_err(|e| anyhow::anyhow!("getting the surface buffer: {e}"))?;
        let (w, h) = (w.get() as usize, h.get() as usize);
        let (cw, ch) = (self.canvas.width, self.canvas.height);
        let lay = layout(w, h, cw, ch);
        blit_scaled(&self.screen, cw, ch, &mut buffer, w, h, lay);
        buffer.present().map_err(|e| anyhow::anyhow!("presenting: {e}"))?;
        Ok(())
    }

    fn on_key(&mut self, el: &ActiveEventLoop, code: KeyCode, pressed: bool, repeat: bool) {
        let Some(action) = self.keymap.action(code) else {
            return;
        };
        if let Action::Pad(bit) = action {
            self.keyboard_pad = if pressed { self.keyboard_pad | bit } else { self.keyboard_pad & !bit };
            self.update_pad();
            return;
        }
        if !pressed {
            return;
        }
        let repeatable = matches!(
            action,
            Action::FrameAdvance
                | Action::EmuSpeedDown
                | Action::EmuSpeedUp
                | Action::BotSpeedDown
                | Action::BotSpeedUp
                | Action::PlayerBotSpeed(..)
        );
        if repeat && !repeatable {
            return;
        }
        match action {
            Action::Quit => self.request_exit(el, ExitReason::Quit),
            Action::Help => {
                self.help_on = !self.help_on;
                self.hint_until = Instant::now();
            }
            Action::Mute => {
                self.muted = !self.muted;
                self.set_message(if self.muted { "sound muted" } else { "sound on" }.into());
            }
            Action::Ghost => {
                self.ghost_on = !self.ghost_on;
                self.set_message(format!("planned moves {}", if self.ghost_on { "shown" } else { "hidden" }));
            }
            Action::PlayerBotSpeed(p, delta) => match self.view.change_player_bot_speed(p, delta) {
                Some(speed) => self.set_message(format!("P{} bot speed {speed}", p + 1)),
                None => self.set_message(format!("P{} has no bot", p + 1)),
            },
            Action::Fullscreen => {
                if let Some(gfx) = &self.gfx {
                    let full = gfx.window.fullscreen().is_some();
                    gfx.window.set_fullscreen((!full).then_some(Fullscreen::Borderless(None)));
                }
            }
            Action::Pause => {
                self.paused = !self.paused;
                self.last_tick = None;
                self.carry = 0.0;
                self.set_message(if self.paused { "paused" } else { "running" }.into());
            }
            Action::FrameAdvance => {
                if self.paused {
                    self.step(el);
                } else {
                    self.paused = true;
                    self.set_message("paused".into());
                }
            }
            Action::EmuSpeedDown | Action::EmuSpeedUp => {
                self.speed = if action == Action::EmuSpeedUp { self.speed.faster() } else { self.speed.slower() };
                self.carry = 0.0;
                self.set_message(format!("emulator {}", self.speed));
            }
            Action::BotSpeedDown | Action::BotSpeedUp => {
                let delta = if action == Action::BotSpeedUp { 1 } else { -1 };
                let speed = self.view.change_bot_speed(delta);
                self.set_message(format!("bot speed {speed}"));
            }
            Action::ToggleBot(p) => {
                let on = self.view.toggle_bot(p);
                let state = if on { "on" } else { "off" };
                self.set_message(format!("P{} bot {state}", p + 1));
            }
            Action::Hud => {
                self.hud_on = !self.hud_on;
                log::info!("HUD {}", if self.hud_on { "on" } else { "off" });
            }
            Action::Screenshot => self.screenshot(false),
            Action::ScreenshotWindow => self.screenshot(true),
            Action::SaveState => match self.view.save_state(self.slot) {
                Ok(place) => self.set_message(format!("saved slot {}: {place}", self.slot)),
                Err(e) => {
                    log::warn!("saving slot {} failed: {e:#}", self.slot);
                    self.set_message(format!("save {} failed: {e:#}", self.slot));
                }
            },
            Action::LoadState => match self.view.load_state(self.slot) {
                Ok(()) => self.set_message(format!("loaded slot {}", self.slot)),
                Err(e) => {
                    log::warn!("loading slot {} failed: {e:#}", self.slot);
                    self.set_message(format!("load {}: {e:#}", self.slot));
                }
            },
            Action::NextSlot => {
                self.slot = self.slot % SLOTS + 1;
                self.set_message(format!("slot {}", self.slot));
            }
            Action::Pad(_) => {}
        }
        self.update_title();
        if let Some(gfx) = &self.gfx {
            gfx.window.request_redraw();
        }
    }
}

impl<V: Viewable + ?Sized> ApplicationHandler for App<'_, V> {
    fn resumed(&mut self, el: &ActiveEventLoop) {
        if self.gfx.is_none()
            && let Err(e) = self.create_window(el)
        {
            self.fail(el, e);
        }
        self.open_sound();
    }

    fn window_event(&mut self, el: &ActiveEventLoop, _id: WindowId, event: WindowEvent) {
        match event {
            WindowEvent::CloseRequested => self.request_exit(el, ExitReason::WindowClosed),
            WindowEvent::Resized(_) => {
                if let Some(gfx) = &self.gfx {
                    gfx.window.request_redraw();
                }
            }
            WindowEvent::Focused(false) => {
                // Keys released while unfocused never arrive; controllers keep playing.
                self.keyboard_pad = 0;
                self.update_pad();
            }
            WindowEvent::KeyboardInput {
                event: KeyEvent { physical_key: PhysicalKey::Code(code), state, repeat, .. },
                ..
            } => self.on_key(el, code, state == ElementState::Pressed, repeat),
            WindowEvent::RedrawRequested => self.redraw(el),
            _ => {}
        }
    }

    fn about_to_wait(&mut self, el: &ActiveEventLoop) {
        if self.exit.is_some() || self.error.is_some() {
            el.exit();
            return;
        }
        let now = Instant::now();
        self.poll_gamepads();
        if now >= self.next_redraw {
            if let Some(gfx) = &self.gfx {
                gfx.window.request_redraw();
            }
            let interval = if self.paused {
                REDRAW_PAUSED
            } else if self.speed == EmuSpeed::Max {
                REDRAW_MAX
            } else {
                REDRAW_RUNNING
            };
            self.next_redraw = now + interval;
        }
        el.set_control_flow(ControlFlow::WaitUntil(self.next_redraw));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `run_window` accepts a trait object as well as a concrete type.
    #[allow(dead_code)]
    fn accepts_trait_objects(view: &mut dyn Viewable) -> anyhow::Result<WindowExit> {
        run_window(view, WindowOptions::default())
    }

    #[test]
    fn bad_bindings_fail_before_opening_a_window() {
        let mut view = crate::ui::demo::DemoView::new();
        let opts = WindowOptions {
            keys: KeyBindings { pause: "NoSuchKey".into(), ..KeyBindings::default() },
            ..WindowOptions::default()
        };
        let err = format!("{:#}", run_window(&mut view, opts).unwrap_err());
        assert!(err.contains("keys.pause") && err.contains("NoSuchKey"), "{err}");
    }
}
