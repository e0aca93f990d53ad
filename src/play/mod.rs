//! Playing a game in the emulator: the session (RAM → decode → bots → driver → pads, frame by frame),
//! the menus, one seat's frame, the game's options, the headless run (one game or a match) and its report.

pub mod explain;
pub mod flight;
pub mod games;
pub mod headless;
pub mod health;
pub mod judge;
pub mod long_game;
pub mod matches;
pub mod menu;
pub mod nuisance_watch;
pub mod options;
pub mod player_summary;
pub mod report;
pub mod rule_options;
pub mod rules_watch;
pub mod seat;
pub mod serve;
pub mod session;
pub mod setup;
pub mod soak;
pub mod thinker;
pub mod topout;
pub mod view;

pub use games::run_game;
pub use headless::{Limits, RunError};
pub use matches::{GameEnd, GameResult, Tally};
pub use player_summary::PlayerSummary;
pub use report::{CpuFigures, SeatCpu, Summary};
pub use seat::{FrameContext, Seat, SeatStats};
pub use session::{Outcome, Session, SessionBuilder, SessionError};
pub use setup::GameOptions;
pub use thinker::Thinker;
pub use topout::TOPOUT_FRAMES;
pub use view::{Opponent, PlayerView};

use crate::ai::{AiConfig, Level, StrengthBot};
use crate::memmap::AddressFile;
use crate::memmap::Mode;

/// What the seats are made from: the configuration's `[bots]`, the AI profile and the bot speed and seed of
/// `[play]`, already merged with the flags (`config::Config::seat_config` builds it).
#[derive(Clone, Debug, PartialEq)]
pub struct SeatConfig {
    /// Bot name of player 1 and player 2 (one of `ai::NAMES`).
    pub bots: [String; 2],
    /// Strength level of player 1's and player 2's bot (10: full strength).
    pub strength: [Level; 2],
    /// The bots' AI profile (`[bots] profile`: `full` unless `--fast`).
    pub ai: AiConfig,
    /// Bot speed 0..=10 (how fast the driver presses).
    pub speed: u8,
    /// Seed of player 1's bot; player 2's is the next one.
    pub seed: u64,
    /// Think on worker threads (a window) or inline on the frame loop.
    pub threaded: bool,
    /// How long after its question a bot on a worker thread must answer (a window, where the game does
    /// not wait; [`thinker::window_budget`]); its search is cut then. `None`: every search runs to its
    /// end, its work fixed by the profile (headless runs, which wait for it).
    pub budget: Option<std::time::Duration>,
    /// The game's timing the seats play on from the start (`[lab] timing`); `None`: untimed until one is
    /// measured.
    pub timing: Option<crate::game::timing::Timing>,
}

/// Makes the seats for `mode`, one per `[[player]]` of the address file, on the pads it names, with the
/// bots `cfg` names, inline or on worker threads.
pub fn seats_for(mode: Mode, map: &AddressFile, cfg: &SeatConfig) -> Result<Vec<Seat>, String> {
    // The seat's bot name carries the level below full strength (`chain lv3`): the HUD and the report show it.
    let make = |name: &str, level: Level, seed: u64| -> Result<(String, Thinker), String> {
        // A bot process (`exec:CMD`) goes by the name its `info` gave.
        let (bot, label): (Box<dyn crate::game::Player>, String) = match crate::botproto::BotCommand::from_spec(name) {
            Some(command) => {
                let bot = crate::botproto::ProcessBot::spawn(&command?, seed, None).map_err(|e| e.to_string())?;
                let label = crate::game::Player::name(&bot).to_string();
                (Box::new(bot), label)
            }
            None => (
                Box::new(StrengthBot::new(name, &cfg.ai, seed, level).map_err(|e| e.to_string())?),
                crate::ai::strength::label(name, level),
            ),
        };
        let thinker = match (cfg.threaded, cfg.budget) {
            (false, _) => Thinker::inline(bot),
            (true, None) => Thinker::threaded(bot),
            (true, Some(budget)) => Thinker::threaded_within(bot, budget),
        };
        Ok((label, thinker))
    };
    let mut seats = Vec::new();
    for (i, p) in map.player.iter().enumerate().take(2) {
        let label = p.label.clone();
        let seat_seed = cfg.seed.wrapping_add(i as u64);
        let on = match mode {
            Mode::Endless | Mode::AiVsAi => true,
            Mode::VsHuman => i == 1,
        };
        seats.push(Seat::new(
            label,
            (p.pad.clamp(1, 2) - 1) as usize,
            Some(make(&cfg.bots[i], cfg.strength[i], seat_seed)?),
            on,
            cfg.speed,
        ));
    }
    for (i, s) in seats.iter_mut().enumerate() {
        s.set_timing(cfg.timing);
        // The chain bot at full strength with the full search: the bot whose games `sim` measured firing a
        // chain of 8 or more in every game, so a game without one is worth a word.
        s.set_aims_long_chains(
            cfg.bots[i] == crate::ai::bot::CHAIN_BUILDER
                && cfg.strength[i] == Level::FULL
                && cfg.ai == AiConfig::default(),
        );
    }
    Ok(seats)
}
