//! The integration tests that boot the emulator or run the `puyobot` binary, in one test binary: one link
//! instead of one per file, and the test harness spreads the slow tests over the cores (each file used to
//! be its own binary, run one after another). A module per former file; select one with
//! `cargo test --release --test emu MODULE::`.

#[path = "../common/mod.rs"]
mod common;

mod battle_rules;
mod bot_process;
mod calib_contracts;
mod calib_labcart;
mod calib_play;
mod calib_timing;
mod contract_classes;
mod cpu_report;
mod fault_recovery;
mod flight_recorder;
mod health;
mod items_identity;
mod items_option;
mod labcart_contract;
mod labcart_crosscheck;
mod labcart_game;
mod labcart_nuisance;
mod labcart_render;
mod labcart_timing;
mod labcart_variants;
mod long_game;
mod matches;
mod no_ram_writes;
mod player_errors;
mod player_labcart;
mod player_roms;
mod player_window;
mod replay_cli;
mod runs;
mod serve_fceux;
mod serve_link;
mod soak;
mod timed_play;
mod trace_calibrate;
mod window_sound_states;
