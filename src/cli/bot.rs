//! `puyobot bot`: the built-in AI as a bot process, speaking the bot protocol (docs/bot-protocol.md) on
//! stdin and stdout, for other front ends (and for `exec:puyobot bot` in this program's own).

use crate::ai::{Level, StrengthBot};
use crate::botproto::{Identity, serve};
use crate::game::Player;

/// Arguments of `puyobot bot`.
#[derive(Debug, clap::Args)]
pub struct BotArgs {
    /// Bot: classic or chain.
    #[arg(long, default_value = crate::ai::DEFAULT_P1, value_parser = crate::ai::check_name)]
    pub ai: String,
    /// Strength 0 (a beginner can beat it) to 10 (full strength, the default).
    #[arg(long, default_value = "10", value_parser = parse_level)]
    pub strength: Level,
    /// AI profile: a name (full, two-ply) or a profile file of [ai.*] tables.
    #[arg(long, default_value = crate::ai::DEFAULT_PROFILE, value_name = "NAME|FILE")]
    pub profile: String,
}

fn parse_level(text: &str) -> Result<Level, String> {
    let n: u8 = text.parse().map_err(|_| format!("expected a strength 0..=10, got {text:?}"))?;
    Level::new(n)
}

/// Runs `puyobot bot` until the front end says `quit` or closes stdin.
pub fn run(args: &BotArgs) -> anyhow::Result<()> {
    let config = super::sim::load_profile(&args.profile)?;
    // Fail before the `info` on a bad name or profile: the front end sees the exit and this message.
    StrengthBot::new(&args.ai, &config, 0, args.strength)?;
    let who = Identity {
        name: format!("puyobot {}", crate::ai::strength::label(&args.ai, args.strength)),
        version: env!("CARGO_PKG_VERSION").into(),
        author: "puyobot".into(),
    };
    let make = |seed: u64| -> Result<Box<dyn Player>, String> {
        Ok(Box::new(StrengthBot::new(&args.ai, &config, seed, args.strength).map_err(|e| e.to_string())?))
    };
    let stdin = std::io::stdin().lock();
    let stdout = std::io::stdout().lock();
    serve(stdin, stdout, &who, make)?;
    Ok(())
}
