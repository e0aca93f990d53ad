//! A bot as the command line names it: a built-in bot's name (`chain`, `classic`) or `exec:CMD`, a bot
//! process speaking the bot protocol (docs/bot-protocol.md). Checked once here for every flag that
//! takes a bot, and made into a player for `sim`.

use crate::ai::{AiConfig, Level, StrengthBot};
use crate::botproto::{BotCommand, ProcessBot};
use crate::game::Player;
use crate::sim::{Clock, UnderGravity};

/// Checks a bot flag's value: a built-in bot's name, or `exec:` and a command.
pub fn check_bot(spec: &str) -> Result<String, String> {
    match BotCommand::from_spec(spec) {
        Some(command) => command.map(|_| spec.to_string()),
        None => crate::ai::check_name(spec),
    }
}

/// The name a run reports for `spec` at `level`: a built-in bot's label (once it is known to build with
/// `config`), or a bot process's own name from its `info` (the process is started to ask, then ended).
pub fn label(spec: &str, config: &AiConfig, level: Level) -> anyhow::Result<String> {
    match BotCommand::from_spec(spec) {
        Some(command) => {
            let bot = ProcessBot::spawn(&command.map_err(anyhow::Error::msg)?, 0, None)?;
            Ok(format!("{} (exec)", bot.name()))
        }
        None => {
            StrengthBot::new(spec, config, 0, level)?;
            Ok(crate::ai::strength::label(spec, level))
        }
    }
}

/// The player `spec` names for one game of `sim`, with the game's `seed`, on `clock` when the run has one.
pub fn sim_player(
    spec: &str,
    config: &AiConfig,
    seed: u64,
    level: Level,
    clock: Option<Clock>,
    colors: u8,
) -> anyhow::Result<Box<dyn Player>> {
    let player: Box<dyn Player> = match BotCommand::from_spec(spec) {
        Some(command) => {
            Box::new(ProcessBot::spawn(&command.map_err(anyhow::Error::msg)?, seed, Some(colors.clamp(3, 6)))?)
        }
        None => Box::new(StrengthBot::new(spec, config, seed, level)?),
    };
    Ok(match clock {
        Some(c) => Box::new(UnderGravity::new(player, config.search.moves, c)),
        None => player,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bot_flag_takes_a_name_or_a_command() {
        assert_eq!(check_bot("chain").as_deref(), Ok("chain"));
        assert!(check_bot("chian").unwrap_err().contains("unknown bot"));
        assert_eq!(check_bot("exec:python3 b.py").as_deref(), Ok("exec:python3 b.py"));
        assert!(check_bot("exec:").unwrap_err().contains("empty"));
        assert!(check_bot("exec:python3 'b.py").unwrap_err().contains("quote"));
    }
}
