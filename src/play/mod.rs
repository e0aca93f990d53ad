//! Playing a game in the emulator: the session (RAM → decode → bots → driver → pads, frame by frame),
//! the menus, the bots, the headless run and its report.

pub mod bots;
pub mod headless;
pub mod menu;
pub mod report;
pub mod session;
pub mod thinker;
pub mod window;

pub use headless::{Limits, RunError};
pub use report::{PlayerSummary, Summary};
pub use session::{Outcome, Seat, Session};
pub use thinker::Thinker;

use crate::config::{Config, Mode};
use crate::memmap::AddressFile;

/// Makes the seats for `mode`, one per `[[player]]` of the address file, on the pads it names: bots from
/// `[bots]`, inline or on worker threads.
pub fn seats_for(mode: Mode, map: &AddressFile, cfg: &Config, threaded: bool) -> Result<Vec<Seat>, String> {
    let speed = cfg.play.speed;
    let make = |name: &str, seed: u64| -> Result<(String, Thinker), String> {
        let bot = bots::make(name, &cfg.ai, seed)?;
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
