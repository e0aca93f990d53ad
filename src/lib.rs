#![warn(missing_docs)]

//! puyobot: plays Famicom Puyo Puyo inside an embedded NES emulator.
//!
//! Data flow: RAM → decode → game model → search → plan → driver → buttons. The pure parts
//! ([`game`], [`sim`]) know nothing of the emulator or the window.

pub mod ai;
pub mod botproto;
pub mod calib;
pub mod cli;
pub mod config;
pub mod driver;
pub mod emu;
pub mod game;
pub mod interrupt;
pub mod memmap;
pub mod paths;
pub mod play;
pub mod sim;
pub mod trace;
pub mod train;
pub mod ui;
