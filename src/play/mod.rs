//! Playing a game in the emulator: the session (RAM → decode → bots → driver → pads, frame by frame),
//! the menus, one seat's frame, the headless run and its report.

pub mod headless;
pub mod matches;
pub mod menu;
pub mod report;
pub mod seat;
pub mod session;
pub mod soak;
pub mod thinker;

pub use headless::{Limits, RunError};
pub use matches::{GameEnd, GameResult, Tally};
pub use report::{PlayerSummary, Summary};
pub use seat::{FrameContext, Seat, SeatStats, TOPOUT_FRAMES};
pub use session::{Outcome, Session};
pub use thinker::Thinker;

use crate::ai::{AiConfig, Bot};
use crate::config::Config;
use crate::memmap::AddressFile;
use crate::memmap::Mode;

/// The `[ai]` table with `[ai.search].samples` set to the play-time value from `[bots]`.
fn with_play_samples(ai: &toml::Table, samples: u32) -> toml::Table {
    let mut ai = ai.clone();
    let search = ai.entry("search").or_insert_with(|| toml::Value::Table(toml::Table::new()));
    if let toml::Value::Table(search) = search {
        search.insert("samples".into(), toml::Value::Integer(samples.into()));
    }
    ai
}

/// Makes the seats for `mode`, one per `[[player]]` of the address file, on the pads it names: bots from
/// `[bots]`, inline or on worker threads.
pub fn seats_for(mode: Mode, map: &AddressFile, cfg: &Config, threaded: bool) -> Result<Vec<Seat>, String> {
    let speed = cfg.play.speed;
    let ai = with_play_samples(&cfg.ai, cfg.bots.samples);
    let ai: AiConfig =
        toml::Value::Table(ai).try_into().map_err(|e: toml::de::Error| format!("[ai]: {}", e.message()))?;
    let make = |name: &str, seed: u64| -> Result<(String, Thinker), String> {
        let bot = Box::new(Bot::new(name, &ai, seed).map_err(|e| e.to_string())?);
        Ok((name.to_string(), if threaded { Thinker::threaded(bot) } else { Thinker::inline(bot) }))
    };
    let seed = cfg.play.seed;
    let mut seats = Vec::new();
    for (i, p) in map.player.iter().enumerate().take(2) {
        let label = p.label.clone();
        let name = if i == 0 { &cfg.bots.p1 } else { &cfg.bots.p2 };
        let seat_seed = seed.wrapping_add(i as u64);
        let on = match mode {
            Mode::Endless | Mode::AiVsAi => true,
            Mode::VsHuman => i == 1,
        };
        seats.push(Seat::new(label, (p.pad.clamp(1, 2) - 1) as usize, Some(make(name, seat_seed)?), on, speed));
    }
    Ok(seats)
}

#[cfg(test)]
mod tests {
    use super::with_play_samples;

    #[test]
    fn play_samples_replace_the_search_samples_and_keep_the_other_keys() {
        let ai: toml::Table = toml::from_str("[search]\nsamples = 8\ndepth = 2\n[chain]\nlink2 = 1.0\n").unwrap();
        let out = with_play_samples(&ai, 0);
        assert_eq!(out["search"]["samples"].as_integer(), Some(0));
        assert_eq!(out["search"]["depth"].as_integer(), Some(2));
        assert_eq!(out["chain"]["link2"].as_float(), Some(1.0));
        let empty = with_play_samples(&toml::Table::new(), 3);
        assert_eq!(empty["search"]["samples"].as_integer(), Some(3));
    }
}
