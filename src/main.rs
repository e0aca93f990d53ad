//! The `puyobot` command.

use clap::{Parser, Subcommand};
use puyobot::cli;

/// Plays Famicom Puyo Puyo in an embedded NES emulator, and tools around it.
#[derive(Debug, Parser)]
#[command(name = "puyobot", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Resolve a field file to rest and print the chain, score and final field.
    Chain(cli::chain::ChainArgs),
    /// Play the game in the emulator: a bot on one or both pads, in a window or headless.
    #[command(after_long_help = puyobot::ui::keys::key_help())]
    Play(cli::play::PlayArgs),
    /// Play the game of another emulator (FCEUX, Mesen 2, BizHawk) through its script in plugins/: the
    /// same session as `play`, over a local TCP connection (docs/plugins.md).
    Serve(cli::serve::ServeArgs),
    /// Self-play statistics: 1P endless or 2P battle between bots.
    Sim(cli::sim::SimArgs),
    /// The built-in AI as a bot process on stdin / stdout (the bot protocol, docs/bot-protocol.md).
    Bot(cli::bot::BotArgs),
    /// Record a trace (every frame's pads and RAM changes) while you play with the keyboard, or with --bot.
    Record(cli::record::RecordArgs),
    /// Run the self-calibrating learner on a recorded trace: what it learned, what stays unknown.
    Calibrate(cli::calibrate::CalibrateArgs),
    /// Watch a recorded run (a trace of `play --record`) in the window, check it frame for frame
    /// (--headless), or write a GIF clip of it (--gif).
    Replay(cli::replay::ReplayArgs),
    /// AI-vs-AI games back to back for a wall-clock time, sampling memory, speed, mismatches and panics.
    Soak(cli::soak::SoakArgs),
    /// Tune an evaluation's weights by self-play (tournament or SPSA), resumable and shardable.
    Train(cli::train::TrainArgs),
}

/// Lets a closed stdout (`puyobot … | head -1`) end the program quietly, as it ends `cat` or `ls`: Rust
/// ignores SIGPIPE, so every `println!` after the reader left would panic with "Broken pipe". Files are
/// written before the report is printed, so nothing is lost.
fn default_sigpipe() {
    #[cfg(unix)]
    // SAFETY: called first thing in `main`, before any other thread exists; SIG_DFL is a valid handler.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

fn main() -> std::process::ExitCode {
    default_sigpipe();
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn")).init();
    let cli = Cli::parse();
    let result = match &cli.command {
        Command::Chain(args) => cli::chain::run(args),
        // `play --emulator NAME` starts that emulator with its script and serves it.
        Command::Play(args) => match args.emulator {
            Some(emulator) if !args.print_config => cli::serve::run_with_emulator(args, emulator),
            _ => cli::play::run(args),
        },
        Command::Serve(args) => cli::serve::run(args),
        Command::Sim(args) => cli::sim::run(args),
        Command::Bot(args) => cli::bot::run(args),
        Command::Replay(args) => cli::replay::run(args),
        Command::Record(args) => cli::record::run(args),
        Command::Calibrate(args) => cli::calibrate::run(args),
        Command::Soak(args) => cli::soak::run(args),
        Command::Train(args) => cli::train::run(args),
    };
    if let Err(e) = &result {
        eprintln!("error: {}", puyobot::cli::error_text(e));
    }
    if puyobot::interrupt::requested() {
        // The run stopped at a safe point and wrote what it had; the code says it did not finish.
        return std::process::ExitCode::from(puyobot::interrupt::EXIT_CODE);
    }
    match result {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(_) => std::process::ExitCode::FAILURE,
    }
}
