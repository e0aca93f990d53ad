//! The integration tests that need no emulator (rules, decoder, session against the software RAM model,
//! the `chain` command, the configuration file, the module layering), in one test binary. A module per
//! former file; select one with `cargo test --release --test model MODULE::`.

mod cli_chain;
mod config_file;
mod layering;
mod player_decode;
mod player_mock;
mod rules_core;
