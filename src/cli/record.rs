//! `puyobot record`: a person plays (or, with `--bot`, the bots play) while every frame's pads and RAM
//! changes go into a trace file for `puyobot calibrate`.

use std::path::PathBuf;

use clap::Args;

use super::play::{PlayArgs, Players, run_with};

/// Arguments of `puyobot record`.
#[derive(Debug, Clone, Args)]
pub struct RecordArgs {
    /// The trace file to write (replaced if it exists).
    #[arg(long, value_name = "TRACE")]
    pub out: PathBuf,
    /// Let the bots play (and walk the menus) as `puyobot play` does; without it the person at the
    /// keyboard plays pad 1, menus included (a pad-2 bot still plays in `vs-human`).
    #[arg(long)]
    pub bot: bool,
    /// Everything `puyobot play` takes (`--rom`, `--mode`, `--headless --frames N` with `--bot`, …). A
    /// person's recording defaults to `--mode endless`.
    #[command(flatten)]
    pub play: PlayArgs,
}

/// Runs `puyobot record`.
pub fn run(args: &RecordArgs) -> anyhow::Result<()> {
    super::output::check_file("--out", &args.out)?;
    if args.play.emulator.is_some() {
        anyhow::bail!(
            "--emulator: `record` plays in puyobot's own emulator; to record a game in another emulator, run \
             `puyobot play --emulator fceux --record FILE`"
        );
    }
    let mut play = args.play.clone();
    play.session.record = Some(args.out.clone());
    if !args.bot && play.session.game.mode.is_none() {
        play.session.game.mode = Some(crate::memmap::Mode::Endless);
    }
    run_with(&play, if args.bot { Players::Bots } else { Players::Person })
}
