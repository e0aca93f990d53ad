//! The window: a winit 0.30 event loop drawing with softbuffer 0.4.
//!
//! The emulator is paced from the wall clock × the speed step (see
//! [`pacing`](super::pacing)); each redraw (about 60 a second) clocks
//! [`Viewable::step_frame`] as many times as are due, feeding each frame's
//! sound to the sound card, then composes the frame with the panels around it
//! ([`hud`]) and scales the result into the window.

use super::audio::{AudioSettings, TARGET_LATENCY, rate_ratio, samples_in};
use super::gamepad::{GamepadBindings, Gamepads};
use super::hud::{self, Layers, WindowStatus};
use super::key_script::{KeyScript, ScriptedKey};
use super::keys::{Action, KeyBindings, KeyMap};
use super::pacing::{EmuSpeed, Pace, pace};
use super::scale::{blit_scaled, layout};
use super::screenshot::{next_screenshot_path, write_png};
use super::window_parts::{Clock, HudState, Input, Sound};
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
        sound_device: app.sound.out.is_some(),
    })
}

/// The window and its softbuffer surface.
struct Gfx {
    window: Rc<Window>,
    surface: softbuffer::Surface<Rc<Window>, Rc<Window>>,
}

/// Event-loop state: the session hosted (`view`, its frames and save slot, how the window ends) and the
/// window's parts, each with its own job.
struct App<'a, V: Viewable + ?Sized> {
    view: &'a mut V,
    opts: WindowOptions,
    gfx: Option<Gfx>,
    /// Pause, speed and the pacing's bookkeeping.
    clock: Clock,
    /// The keyboard and controllers.
    input: Input,
    /// The sound device.
    sound: Sound,
    /// What the HUD shows, and the composed picture.
    hud: HudState,
    /// The save-state slot the save and load keys use.
    slot: u8,
    /// Frames emulated so far.
    frames: u64,
    /// Screenshots written (for the next file name).
    shot_counter: u32,
    /// A failure to draw was reported once.
    warned_present: bool,
    exit: Option<ExitReason>,
    error: Option<anyhow::Error>,
}

impl<'a, V: Viewable + ?Sized> App<'a, V> {
    fn new(view: &'a mut V, opts: WindowOptions, keymap: KeyMap, gamepads: Gamepads) -> Self {
        App {
            view,
            clock: Clock::new(opts.start_paused, opts.emu_speed),
            input: Input::new(keymap, gamepads),
            sound: Sound::new(opts.audio.mute),
            hud: HudState::new(opts.show_hud, opts.show_ghost),
            opts,
            gfx: None,
            slot: 1,
            frames: 0,
            shot_counter: 0,
            warned_present: false,
            exit: None,
            error: None,
        }
    }

    fn create_window(&mut self, el: &ActiveEventLoop) -> anyhow::Result<()> {
        let c = hud::canvas(self.hud.on);
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
            match write_png(&path, &self.hud.screen, self.hud.canvas.width, self.hud.canvas.height) {
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
        if self.sound.active
            && let Some(out) = &self.sound.out
        {
            let queue = out.queue();
            queue.push(self.view.audio_samples(), self.opts.audio.gain());
            self.view.set_audio_ratio(rate_ratio(queue.len(), samples_in(TARGET_LATENCY, out.sample_rate())));
        }
        self.frames += 1;
        self.hud.count_frame();
        if self.opts.max_frames.is_some_and(|max| self.frames >= max) {
            self.request_exit(el, ExitReason::MaxFrames);
            return false;
        }
        true
    }

    fn set_message(&mut self, text: String) {
        self.hud.set_message(text);
    }

    /// Turns the view's sound on or off to match the device, mute, pause and speed: sound plays at 1x
    /// only, where it keeps time with the picture.
    fn update_sound(&mut self) {
        let want = self.sound.wanted(&self.clock);
        if want == self.sound.active {
            return;
        }
        self.sound.active = want;
        let Some(out) = &self.sound.out else { return };
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

    /// Hands pad 1 (keyboard and controllers together) to the view when it changed.
    fn update_pad(&mut self) {
        if let Some(pad) = self.input.changed_pad() {
            self.view.set_keyboard_pad(0, pad);
        }
    }

    /// Reads the controllers.
    fn poll_gamepads(&mut self) {
        for msg in self.input.gamepads.poll() {
            self.set_message(msg);
        }
        self.update_pad();
    }

    fn update_title(&self) {
        if let Some(gfx) = &self.gfx {
            let paused = if self.clock.paused { " - paused" } else { "" };
            gfx.window.set_title(&format!("{} - {}{}", self.opts.title, self.clock.speed, paused));
        }
    }

    fn request_redraw(&self) {
        if let Some(gfx) = &self.gfx {
            gfx.window.request_redraw();
        }
    }

    /// Composes the window's picture into the HUD's screen: the session's frame, the HUD around it, the
    /// ghost over it, or the help page.
    fn compose(&mut self) {
        let hud = &mut self.hud;
        let info = if hud.on || hud.ghost_on { self.view.hud() } else { HudInfo::default() };
        let status = WindowStatus {
            speed: self.clock.speed,
            fps: hud.fps,
            paused: self.clock.paused,
            slot: self.slot,
            message: hud.message(),
            hint: (Instant::now() < hud.hint_until).then(|| self.opts.keys.hint()).filter(|h| !h.is_empty()),
            prompt: info.awaiting_start.then(|| {
                let pad = self.opts.gamepad.enabled.then_some(self.opts.gamepad.start.as_str());
                self.opts.keys.start_prompt(pad)
            }),
            sound: self.sound.status(self.clock.speed, self.opts.audio.volume),
            pad1: self.input.pad,
        };
        let help = hud.help_on.then(|| self.opts.keys.help_rows());
        let frame = self.view.frame_rgba();
        if frame.len() != FRAME_RGBA_LEN && !hud.warned_frame_len {
            log::warn!("frame_rgba returned {} bytes, expected {FRAME_RGBA_LEN}", frame.len());
            hud.warned_frame_len = true;
        }
        let layers = Layers { hud: hud.on, ghost: hud.ghost_on };
        hud.canvas = hud::compose(&mut hud.screen, frame, &info, &status, layers, help.as_deref());
    }

    /// Saves the game picture alone (`whole = false`) or the whole window at 1x into the screenshot
    /// folder, and says where on the status line.
    fn screenshot(&mut self, whole: bool) {
        let path = next_screenshot_path(&self.opts.screenshot_dir, &mut self.shot_counter);
        let written = if whole {
            self.compose();
            write_png(&path, &self.hud.screen, self.hud.canvas.width, self.hud.canvas.height)
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

    /// Emulates the frames due since the last redraw (none while paused).
    fn run_due_frames(&mut self, el: &ActiveEventLoop, now: Instant) {
        let elapsed = self.clock.tick(now);
        if self.clock.paused {
            return;
        }
        match pace(self.clock.speed, elapsed, &mut self.clock.carry) {
            Pace::Frames(n) => {
                for _ in 0..n {
                    if !self.step(el) {
                        break;
                    }
                    if now.elapsed() > STEP_GUARD {
                        self.clock.carry = 0.0;
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

    fn redraw(&mut self, el: &ActiveEventLoop) {
        let now = Instant::now();
        self.poll_gamepads();
        self.update_sound();
        self.run_due_frames(el, now);
        if self.exit.is_some() || self.error.is_some() {
            return;
        }
        self.hud.refresh(now);
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
        let (cw, ch) = (self.hud.canvas.width, self.hud.canvas.height);
        let lay = layout(w, h, cw, ch);
        blit_scaled(&self.hud.screen, cw, ch, &mut buffer, w, h, lay);
        buffer.present().map_err(|e| anyhow::anyhow!("presenting: {e}"))?;
        Ok(())
    }

    /// A key went down or up: a pad button's key goes to pad 1; any other bound key's action runs when
    /// pressed (held down, only the actions that repeat run again).
    fn on_key(&mut self, el: &ActiveEventLoop, code: KeyCode, pressed: bool, repeat: bool) {
        let Some(action) = self.input.keymap.action(code) else {
            return;
        };
        if let Action::Pad(bit) = action {
            self.input.key_button(bit, pressed);
            self.update_pad();
            return;
        }
        if !pressed || (repeat && !action.repeats()) {
            return;
        }
        self.run_action(el, action);
        self.update_title();
        self.request_redraw();
    }

    /// Runs the action of a key press.
    fn run_action(&mut self, el: &ActiveEventLoop, action: Action) {
        match action {
            Action::Quit => self.request_exit(el, ExitReason::Quit),
            Action::Help => {
                self.hud.help_on = !self.hud.help_on;
                self.hud.hint_until = Instant::now();
            }
            Action::Mute => {
                self.sound.muted = !self.sound.muted;
                self.set_message(if self.sound.muted { "sound muted" } else { "sound on" }.into());
            }
            Action::Ghost => {
                self.hud.ghost_on = !self.hud.ghost_on;
                self.set_message(format!("planned moves {}", if self.hud.ghost_on { "shown" } else { "hidden" }));
            }
            Action::Hud => {
                self.hud.on = !self.hud.on;
                log::info!("HUD {}", if self.hud.on { "on" } else { "off" });
            }
            Action::Fullscreen => self.toggle_fullscreen(),
            Action::Pause => {
                self.clock.toggle_pause();
                self.set_message(if self.clock.paused { "paused" } else { "running" }.into());
            }
            Action::FrameAdvance => self.frame_advance(el),
            Action::EmuSpeedDown | Action::EmuSpeedUp => {
                self.clock.change_speed(action == Action::EmuSpeedUp);
                self.set_message(format!("emulator {}", self.clock.speed));
            }
            Action::BotSpeedDown | Action::BotSpeedUp | Action::PlayerBotSpeed(..) | Action::ToggleBot(_) => {
                self.bot_action(action)
            }
            Action::Screenshot => self.screenshot(false),
            Action::ScreenshotWindow => self.screenshot(true),
            Action::SaveState | Action::LoadState | Action::NextSlot => self.slot_action(action),
            Action::Pad(_) => {}
        }
    }

    /// Borderless fullscreen on or off.
    fn toggle_fullscreen(&self) {
        if let Some(gfx) = &self.gfx {
            let full = gfx.window.fullscreen().is_some();
            gfx.window.set_fullscreen((!full).then_some(Fullscreen::Borderless(None)));
        }
    }

    /// Paused: one frame; running: pauses.
    fn frame_advance(&mut self, el: &ActiveEventLoop) {
        if self.clock.paused {
            self.step(el);
        } else {
            self.clock.paused = true;
            self.set_message("paused".into());
        }
    }

    /// The bots' keys: every bot's speed, one player's bot speed, one player's bot on or off.
    fn bot_action(&mut self, action: Action) {
        let message = match action {
            Action::BotSpeedDown | Action::BotSpeedUp => {
                let delta = if action == Action::BotSpeedUp { 1 } else { -1 };
                format!("bot speed {}", self.view.change_bot_speed(delta))
            }
            Action::PlayerBotSpeed(p, delta) => match self.view.change_player_bot_speed(p, delta) {
                Some(speed) => format!("P{} bot speed {speed}", p + 1),
                None => format!("P{} has no bot", p + 1),
            },
            Action::ToggleBot(p) => {
                let state = if self.view.toggle_bot(p) { "on" } else { "off" };
                format!("P{} bot {state}", p + 1)
            }
            _ => return,
        };
        self.set_message(message);
    }

    /// The save-state keys: save to or load from the current slot, or move to the next slot.
    fn slot_action(&mut self, action: Action) {
        let slot = self.slot;
        let message = match action {
            Action::SaveState => match self.view.save_state(slot) {
                Ok(place) => format!("saved slot {slot}: {place}"),
                Err(e) => {
                    log::warn!("saving slot {slot} failed: {e:#}");
                    format!("save {slot} failed: {e:#}")
                }
            },
            Action::LoadState => match self.view.load_state(slot) {
                Ok(()) => format!("loaded slot {slot}"),
                Err(e) => {
                    log::warn!("loading slot {slot} failed: {e:#}");
                    format!("load {slot}: {e:#}")
                }
            },
            Action::NextSlot => {
                self.slot = slot % SLOTS + 1;
                format!("slot {}", self.slot)
            }
            _ => return,
        };
        self.set_message(message);
    }
}

impl<V: Viewable + ?Sized> ApplicationHandler for App<'_, V> {
    fn resumed(&mut self, el: &ActiveEventLoop) {
        if self.gfx.is_none()
            && let Err(e) = self.create_window(el)
        {
            self.fail(el, e);
        }
        self.sound.open();
    }

    fn window_event(&mut self, el: &ActiveEventLoop, _id: WindowId, event: WindowEvent) {
        match event {
            WindowEvent::CloseRequested => self.request_exit(el, ExitReason::WindowClosed),
            WindowEvent::Resized(_) => self.request_redraw(),
            WindowEvent::Focused(false) => {
                // Keys released while unfocused never arrive; controllers keep playing.
                self.input.release_keys();
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
        self.poll_gamepads();
        if self.clock.redraw_due(Instant::now()) {
            self.request_redraw();
        }
        el.set_control_flow(ControlFlow::WaitUntil(self.clock.next_redraw()));
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
