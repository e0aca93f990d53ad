//! Window front-end: shows a running [`Viewable`] (the NES session) in a
//! winit 0.30 window drawn on the CPU with softbuffer 0.4.
//!
//! The session implements the small [`Viewable`] trait; [`run_window`] owns
//! everything about the window: integer scaling, pacing the emulator from the
//! wall clock, the keyboard (hot keys from [`KeyBindings`] plus a NES pad for
//! a human player), the HUD and screenshots.
//!
//! Layout of the module:
//! - [`keys`]: key bindings as data (`[keys]` table of `config.toml`).
//! - [`key_script`]: scripted key events delivered on given frames (`PUYOBOT_KEY_SCRIPT`).
//! - [`font`]: a built-in 5×7 bitmap font.
//! - [`hud`]: draws the HUD into a copy of the NES frame.
//! - [`scale`]: integer nearest-neighbour scaling with letterboxing.
//! - [`pacing`]: how many frames to emulate per redraw.
//! - [`window`]: the winit/softbuffer event loop ([`run_window`]).
//! - [`demo`]: a fake [`Viewable`] (test pattern) for demos and tests.
//! - [`session_view`]: [`Viewable`] for a session on the real emulator, with
//!   save-state slots (the window adapter; it lives here so `play` needs no `ui`).

pub mod demo;
pub mod font;
pub mod hud;
pub mod key_script;
pub mod keys;
pub mod pacing;
pub mod scale;
pub mod screenshot;
pub mod session_view;
pub mod window;

pub use keys::{KeyBindingError, KeyBindings};
pub use pacing::EmuSpeed;
pub use window::{ExitReason, WindowExit, WindowOptions, run_window};

/// Width of a NES frame in pixels.
pub const NES_WIDTH: usize = 256;
/// Height of a NES frame in pixels.
pub const NES_HEIGHT: usize = 240;
/// Length in bytes of an RGBA NES frame (`256 * 240 * 4`).
pub const FRAME_RGBA_LEN: usize = NES_WIDTH * NES_HEIGHT * 4;

/// NES pad bits, from the emulator host's single definition ([`crate::emu::pad`]).
pub use crate::emu::pad::{
    A as PAD_A, B as PAD_B, DOWN as PAD_DOWN, LEFT as PAD_LEFT, RIGHT as PAD_RIGHT, SELECT as PAD_SELECT,
    START as PAD_START, UP as PAD_UP,
};

/// What the window needs from a running game session.
///
/// The window calls these from its event loop, on the thread that called
/// [`run_window`]. Nothing here needs to be thread-safe.
pub trait Viewable {
    /// Advances the emulation by exactly one NES frame. Bots act inside this
    /// call. An error stops the window and is returned by [`run_window`].
    fn step_frame(&mut self) -> anyhow::Result<()>;

    /// The last emulated frame as `256 * 240 * 4` bytes of RGBA, row by row
    /// from the top left. The window copies it and never writes to it. A
    /// slice of another length is tolerated (missing pixels show black) but
    /// logged.
    fn frame_rgba(&mut self) -> &[u8];

    /// What the HUD should show for the bots (called once per redraw).
    fn hud(&self) -> HudInfo;

    /// Sets the buttons currently held on the keyboard for NES pad `pad`
    /// (0 = pad 1). `buttons` uses the raw NES bits: A=0x01 B=0x02
    /// Select=0x04 Start=0x08 Up=0x10 Down=0x20 Left=0x40 Right=0x80 (see
    /// [`PAD_A`] etc.). Called whenever the held keys change (and with 0 when
    /// the window loses focus); the session decides how this mixes with a
    /// bot playing the same pad.
    fn set_keyboard_pad(&mut self, pad: u8, buttons: u8);

    /// Turns the bot of player `player` (0 = player 1, 1 = player 2) on or
    /// off and returns its new state (`true` = on).
    fn toggle_bot(&mut self, player: usize) -> bool;

    /// Changes the bots' playing speed by `delta` and returns the new speed,
    /// clamped by the session to `0..=10`.
    fn change_bot_speed(&mut self, delta: i32) -> u8;

    /// Saves the whole session state into slot `slot` (1..=9 from the window).
    fn save_state(&mut self, slot: u8) -> anyhow::Result<()>;

    /// Restores the session state from slot `slot` (1..=9 from the window).
    fn load_state(&mut self, slot: u8) -> anyhow::Result<()>;
}

/// Everything the session wants drawn on the HUD, sampled once per redraw.
///
/// The window adds its own items (emulator speed, measured frame rate,
/// pause state, its own transient messages).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HudInfo {
    /// One entry per player, in player order (player 1 first). Even indices
    /// are drawn on the left, odd ones on the right.
    pub players: Vec<HudPlayer>,
    /// An optional line from the session (e.g. "P2 WINS"), drawn near the
    /// bottom until the session stops returning it.
    pub message: Option<String>,
    /// The running tally of a match (games, wins per side, largest chains), drawn above the bottom
    /// line; `None` before a match has a game to count.
    pub tally: Option<String>,
}

/// HUD data for one player.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HudPlayer {
    /// Short label, e.g. "P1" (drawn upper-case; keep it under ~8 chars).
    pub label: String,
    /// Whether the bot currently plays this player.
    pub bot_on: bool,
    /// The bot's speed setting, 0..=10.
    pub speed: u8,
    /// Length of the chain the bot expects from its current plan.
    pub expected_chain: u32,
    /// How long the bot's last decision took, in milliseconds.
    pub think_ms: f32,
    /// Where the bot intends to place its current piece, drawn as outlined
    /// 16×16 squares.
    pub ghost: Vec<GhostCell>,
}

/// One 16×16 ghost cell of a planned placement.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct GhostCell {
    /// NES screen x of the cell's top-left pixel (may be partly off-screen).
    pub x: i32,
    /// NES screen y of the cell's top-left pixel (may be partly off-screen).
    pub y: i32,
    /// Outline colour.
    pub rgb: [u8; 3],
}
