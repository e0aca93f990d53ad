//! The window: a winit 0.30 event loop drawing with softbuffer 0.4.
//!
//! The emulator is paced from the wall clock × the speed step (see
//! [`pacing`](super::pacing)); each redraw (about 60 a second) clocks
//! [`Viewable::step_frame`] as many times as are due, then copies the frame,
//! draws the HUD on the copy and scales it into the window.

use super::hud::{self, WindowStatus};
use super::key_script::{KeyScript, ScriptedKey};
use super::keys::{Action, KeyBindings, KeyMap};
use super::pacing::{EmuSpeed, Pace, pace};
use super::scale::{blit_scaled, layout};
use super::screenshot::{next_screenshot_path, write_png};
use super::{FRAME_RGBA_LEN, NES_HEIGHT, NES_WIDTH, Viewable};
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
const MESSAGE_TIME: Duration = Duration::from_secs(3);
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
    /// Initial window size as a multiple of 256×240 (clamped to 1..=8). When
    /// the window is resized the largest integer scale that fits is used and
    /// the picture is centred.
    pub scale: u32,
    /// Start in borderless fullscreen.
    pub fullscreen: bool,
    /// Start paused.
    pub start_paused: bool,
    /// Start with the HUD shown.
    pub show_hud: bool,
    /// Initial emulator speed.
    pub emu_speed: EmuSpeed,
    /// Key bindings (the `[keys]` table).
    pub keys: KeyBindings,
    /// Directory for screenshots taken with the screenshot key (created on
    /// first use).
    pub screenshot_dir: PathBuf,
    /// Exit on its own after this many emulated frames.
    pub max_frames: Option<u64>,
    /// Write a screenshot (256×240 PNG, HUD included if shown) to this path
    /// when the window exits for any reason.
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
            emu_speed: EmuSpeed::X1,
            keys: KeyBindings::default(),
            screenshot_dir: PathBuf::from("screenshots"),
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
}

/// Opens the window and runs `view` in it until the user quits, the window
/// is closed or [`WindowOptions::max_frames`] is reached.
///
/// Errors: bad key bindings, no display to open a window on, a failing
/// [`Viewable::step_frame`], or a failing `screenshot_on_exit`. Save/load
/// and screenshot-key failures are only shown on the HUD and logged.
///
/// winit allows one event loop per process, so this can be called only
/// once per process; it must run on the main thread unless
/// [`WindowOptions::any_thread`] is set (X11/Wayland).
pub fn run_window<V: Viewable + ?Sized>(view: &mut V, opts: WindowOptions) -> anyhow::Result<WindowExit> {
    let keymap = opts.keys.resolve().context("invalid [keys] bindings")?;
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
    let mut app = App::new(view, opts, keymap);
    let run = event_loop.run_app(&mut app);
    if let Some(e) = app.error.take() {
        return Err(e);
    }
    run.context("window event loop failed")?;
    Ok(WindowExit { reason: app.exit.unwrap_or(ExitReason::WindowClosed), frames: app.frames })
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
    /// Composed 256×240 RGBA frame (game + HUD); the session's buffer is
    /// never written.
    screen: Vec<u8>,
    paused: bool,
    hud_on: bool,
    speed: EmuSpeed,
    carry: f64,
    last_tick: Option<Instant>,
    next_redraw: Instant,
    pad: u8,
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
    fn new(view: &'a mut V, opts: WindowOptions, keymap: KeyMap) -> Self {
        let now = Instant::now();
        App {
            view,
            paused: opts.start_paused,
            hud_on: opts.show_hud,
            speed: opts.emu_speed,
            opts,
            keymap,
            gfx: None,
            screen: vec![0; FRAME_RGBA_LEN],
            carry: 0.0,
            last_tick: None,
            next_redraw: now,
            pad: 0,
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
        let scale = self.opts.scale.clamp(1, 8);
        let mut attrs = Window::default_attributes()
            .with_title(self.opts.title.clone())
            .with_inner_size(PhysicalSize::new(NES_WIDTH as u32 * scale, NES_HEIGHT as u32 * scale))
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
            match write_png(&path, &self.screen, NES_WIDTH, NES_HEIGHT) {
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
        self.message = Some((text.to_uppercase(), Instant::now()));
    }

    fn update_title(&self) {
        if let Some(gfx) = &self.gfx {
            let paused = if self.paused { " - paused" } else { "" };
            gfx.window.set_title(&format!("{} - {}{}", self.opts.title, self.speed, paused));
        }
    }

    /// Copies the session's frame into `screen` and draws the HUD on it.
    fn compose(&mut self) {
        let frame = self.view.frame_rgba();
        let n = frame.len().min(FRAME_RGBA_LEN);
        if frame.len() != FRAME_RGBA_LEN && !self.warned_frame_len {
            log::warn!("frame_rgba returned {} bytes, expected {FRAME_RGBA_LEN}", frame.len());
            self.warned_frame_len = true;
        }
        self.screen[..n].copy_from_slice(&frame[..n]);
        self.screen[n..].fill(0);
        if self.hud_on {
            let info = self.view.hud();
            let status = WindowStatus {
                speed: self.speed,
                fps: self.fps,
                paused: self.paused,
                slot: self.slot,
                message: self.message.as_ref().map(|(m, _)| m.clone()),
            };
            hud::draw_hud(&mut self.screen, &info, &status);
        }
    }

    fn redraw(&mut self, el: &ActiveEventLoop) {
        let now = Instant::now();
        let elapsed = self.last_tick.map(|t| now - t).unwrap_or_default();
        self.last_tick = Some(now);
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
        let lay = layout(w, h, NES_WIDTH, NES_HEIGHT);
        blit_scaled(&self.screen, NES_WIDTH, NES_HEIGHT, &mut buffer, w, h, lay);
        buffer.present().map_err(|e| anyhow::anyhow!("presenting: {e}"))?;
        Ok(())
    }

    fn set_pad(&mut self, pad: u8) {
        if pad != self.pad {
            self.pad = pad;
            self.view.set_keyboard_pad(0, pad);
        }
    }

    fn on_key(&mut self, el: &ActiveEventLoop, code: KeyCode, pressed: bool, repeat: bool) {
        let Some(action) = self.keymap.action(code) else {
            return;
        };
        if let Action::Pad(bit) = action {
            let pad = if pressed { self.pad | bit } else { self.pad & !bit };
            self.set_pad(pad);
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
        );
        if repeat && !repeatable {
            return;
        }
        match action {
            Action::Quit => self.request_exit(el, ExitReason::Quit),
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
            Action::Screenshot => {
                self.compose();
                let path = next_screenshot_path(&self.opts.screenshot_dir, &mut self.shot_counter);
                match write_png(&path, &self.screen, NES_WIDTH, NES_HEIGHT) {
                    Ok(()) => {
                        log::info!("screenshot saved to {}", path.display());
                        self.message = Some(("SCREENSHOT SAVED".into(), Instant::now()));
                    }
                    Err(e) => {
                        log::warn!("screenshot failed: {e:#}");
                        self.message = Some(("SCREENSHOT FAILED".into(), Instant::now()));
                    }
                }
            }
            Action::SaveState => match self.view.save_state(self.slot) {
                Ok(()) => self.set_message(format!("saved slot {}", self.slot)),
                Err(e) => {
                    log::warn!("saving slot {} failed: {e:#}", self.slot);
                    self.message = Some((format!("SAVE {} FAILED", self.slot), Instant::now()));
                }
            },
            Action::LoadState => match self.view.load_state(self.slot) {
                Ok(()) => self.set_message(format!("loaded slot {}", self.slot)),
                Err(e) => {
                    log::warn!("loading slot {} failed: {e:#}", self.slot);
                    self.message = Some((format!("LOAD {} FAILED", self.slot), Instant::now()));
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
    }

    fn window_event(&mut self, el: &ActiveEventLoop, _id: WindowId, event: WindowEvent) {
        match event {
            WindowEvent::CloseRequested => self.request_exit(el, ExitReason::WindowClosed),
            WindowEvent::Resized(_) => {
                if let Some(gfx) = &self.gfx {
                    gfx.window.request_redraw();
                }
            }
            WindowEvent::Focused(false) => self.set_pad(0),
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
