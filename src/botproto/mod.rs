//! The Puyo bot protocol (docs/bot-protocol.md): newline-delimited JSON between a front end (the
//! cartridge, the window, the simulator) and a bot in another process, modelled on the Tetris Bot
//! Protocol. `message` and `codec` are the messages and their text, pure; `command` is how a user names a
//! bot command; `host` runs one as a [`crate::game::Player`] (a child process, every wait limited, always
//! reaped); `serve` is the bot's side, which `puyobot bot` runs the built-in AI on.

pub mod codec;
pub mod command;
pub mod host;
pub mod message;
pub mod serve;

pub use codec::{CodecError, decode_bot, decode_front, encode};
pub use command::{BotCommand, EXEC_PREFIX};
pub use host::ProcessBot;
pub use message::{BotMessage, FrontMessage, Move, TimeLimits};
pub use serve::{Identity, ServeError, serve};

/// The protocol version this program speaks.
pub const VERSION: u32 = 1;
