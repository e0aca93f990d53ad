//! Window front-end: shows a running [`Viewable`] (the NES session) in a
//! winit 0.30 window drawn on the CPU with softbuffer 0.4.
//!
//! The session implements the small [`Viewable`] trait; [`run_window`] owns
//! everything about the window: integer scaling, pacing the emulator from the
//! wall clock, the sound, the keyboard (hot keys from [`KeyBindings`] plus a
//! NES pad for a human player) and game controllers, the HUD, the help page,
//! screenshots and save-state slots. `docs/window.md` describes it for players.
//!
//! Layout of the module:
//! - [`keys`]: key bindings as data (`[keys]` table of `config.toml`), and the key help.
//! - [`audio`]: the console's sound through `cpal` (`[audio]` table).
//! - [`gamepad`]: game controllers through `gilrs` for pad 1 (`[gamepad]` table).
//! - [`key_script`]: scripted key events delivered on given frames (`--key-script`).
//! - [`font`]: a built-in 5×7 bitmap font.
//! - [`hud`]: composes the window's picture: the NES frame, the player panels and status line around
//!   it, the optional ghost overlay, the help page.
//! - [`scale`]: integer nearest-neighbour scaling with letterboxing.
//! - [`pacing`]: how many frames to emulate per redraw.
//! - [`window`]: the winit/softbuffer event loop ([`run_window`]).
//! - [`demo`]: a fake [`Viewable`] (test pattern) for demos and tests.
//! - [`session_view`]: [`Viewable`] for a session on the real emulator, with
//!   save-state slots on disk (the window adapter; it lives here so `play` needs no `ui`).
//! - [`states`]: save-state files, one folder per ROM.
//! - [`replay_view`]: [`Viewable`] for a replay file's pads played back on the emulator (`puyobot replay`).
//! - [`clip`]: animated GIF clips of the game picture (`puyobot replay --gif`).

pub mod audio;
pub mod clip;
pub mod demo;
pub mod font;
pub mod gamepad;
pub mod hud;
pub mod key_script;
pub mod keys;
pub mod pacing;
pub mod replay_view;
pub mod scale;
pub mod screenshot;
pub mod session_view;
pub mod states;
pub mod window;
mod window_parts;

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

    /// What the HUD should show for the players (called once per redraw).
    fn hud(&self) -> HudInfo;

    /// Sets the buttons a person holds (keyboard and controllers together) for NES pad `pad`
    /// (0 = pad 1). `buttons` uses the raw NES bits: A=0x01 B=0x02
    /// Select=0x04 Start=0x08 Up=0x10 Down=0x20 Left=0x40 Right=0x80 (see
    /// [`PAD_A`] etc.). Called whenever the held buttons change (the keys are
    /// released when the window loses focus); the session decides how this
    /// mixes with a bot playing the same pad.
    fn set_keyboard_pad(&mut self, pad: u8, buttons: u8);

    /// Turns the bot of player `player` (0 = player 1, 1 = player 2) on or
    /// off and returns its new state (`true` = on).
    fn toggle_bot(&mut self, player: usize) -> bool;

    /// Changes the bots' playing speed by `delta` and returns the new speed,
    /// clamped by the session to `0..=10`.
    fn change_bot_speed(&mut self, delta: i32) -> u8;

    /// Changes the speed of player `player`'s bot alone (0 = player 1) by `delta`; returns its new speed,
    /// or `None` when that player has no bot.
    fn change_player_bot_speed(&mut self, player: usize, delta: i32) -> Option<u8> {
        let _ = (player, delta);
        None
    }

    /// Turns the console's sound output on at `sample_rate` samples a second, or off (`None`). A view
    /// without sound ignores it.
    fn set_audio(&mut self, sample_rate: Option<f32>) {
        let _ = sample_rate;
    }

    /// The sound samples (mono, -1..=1) of the last [`Viewable::step_frame`]; empty while sound is off.
    fn audio_samples(&self) -> &[f32] {
        &[]
    }

    /// Stretches the number of samples a frame makes by `ratio` (about 1; see [`audio::rate_ratio`]).
    fn set_audio_ratio(&mut self, ratio: f32) {
        let _ = ratio;
    }

    /// Saves the whole session state into slot `slot` (1..=9 from the window); returns where it went
    /// (a file, or a description for a view that keeps states in memory).
    fn save_state(&mut self, slot: u8) -> anyhow::Result<String>;

    /// Restores the session state from slot `slot` (1..=9 from the window). The error's text is shown on
    /// the window's status line (e.g. a state made with another ROM).
    fn load_state(&mut self, slot: u8) -> anyhow::Result<()>;
}

/// Everything the session wants drawn on the HUD, sampled once per redraw.
///
/// The window adds its own items (emulator speed, measured frame rate,
/// pause state, its own transient messages).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HudInfo {
    /// One entry per player, in player order (player 1 first). Even indices
    /// get the panel left of the picture, odd ones the panel on the right.
    pub players: Vec<HudPlayer>,
    /// An optional line from the session (e.g. "P2 WINS"), drawn near the
    /// bottom until the session stops returning it.
    pub message: Option<String>,
    /// The running tally of a match (games, wins per side, largest chains), drawn on the status line
    /// when no message is up; `None` before a match has a game to count.
    pub tally: Option<String>,
    /// The game waits for the person to press Start on pad 1; the window says which key and button do.
    pub awaiting_start: bool,
    /// The 2P rules the bots play with and whether the game has shown them (e.g.
    /// `2P CAP 30 70PT DROP 30 LEARNED`), drawn in the middle of the status line's first row.
    pub rules: Option<String>,
}

/// HUD data for one player.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HudPlayer {
    /// Short label, e.g. "P1" (drawn upper-case; keep it under ~8 chars).
    pub label: String,
    /// Whether the bot currently plays this player.
    pub bot_on: bool,
    /// Whether a person plays this player (no bot, or its bot is off); the panel then shows the
    /// buttons held on [`HudPlayer::pad`] instead of the bot's lines.
    pub human: bool,
    /// The 0-based NES pad this player uses.
    pub pad: usize,
    /// The player's score, when known (from RAM, or the rules model's count).
    pub score: Option<u64>,
    /// The longest chain this player has made in the session, the game under way included.
    pub largest_chain: u32,
    /// The bot's speed setting, 0..=10.
    pub speed: u8,
    /// Length of the chain the bot expects from its current plan.
    pub expected_chain: u32,
    /// How long the bot's last decision took, in milliseconds.
    pub think_ms: f32,
    /// The game's clock as calibration measured it for this player (`G` frames per row of gravity, `LK`
    /// lock delay, `LAG` input lag; `?` not measured), when calibration is on.
    pub timing: Option<String>,
    /// The bot's decision line: its intent with its last decision (e.g. `FIRE 4: 30 = CAP`).
    pub intent: Option<String>,
    /// Where the bot intends to place its current piece, drawn as outlined
    /// 16×16 squares over the picture while the ghost overlay is on.
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
