//! Playing a game in the emulator: the session (RAM → decode → bots → driver → pads, frame by frame),
//! the menus, the bots, and the headless run with its report.

pub mod bots;
