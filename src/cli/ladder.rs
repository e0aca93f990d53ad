//! `puyobot sim ladder`: how clearly each strength level beats the one below it.
//!
//! For each adjacent pair of levels in `--from..=--to` it plays `--battles` battles of the same bot at
//! the two levels ([`crate::sim::ladder`] plays them) and prints the stronger level's wins, win rate and
//! 95 % Wilson interval (draws count as not won).

use anyhow::bail;

use crate::ai::strength::MAX;
use crate::ai::{Level, StrengthBot};
use crate::sim::ladder::{Ladder, LadderSpec, play_ladder};

use super::args::{JsonArg, MaxPiecesArg, ONE_JSON_OBJECT, SelfPlayArgs, in_order, worded};

/// Arguments of `puyobot sim ladder`.
#[derive(Debug, clap::Args)]
#[command(mut_args(in_order(LADDER_ORDER)), mut_args(worded(LADDER_TEXTS)))]
pub struct LadderArgs {
    /// Bot: classic or chain.
    #[arg(long, default_value = crate::ai::DEFAULT_P1, value_parser = crate::ai::check_name)]
    pub ai: String,
    /// Battles per pair of adjacent levels.
    #[arg(long, default_value_t = 40)]
    pub battles: usize,
    /// Lowest level of the ladder (its first pair is this level against the one above).
    #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u8).range(0..=9))]
    pub from: u8,
    /// Highest level of the ladder.
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u8).range(1..=10))]
    pub to: u8,
    /// `--max-pieces`.
    #[command(flatten)]
    pub max_pieces: MaxPiecesArg,
    /// The seed, colours, parallelism and AI profile.
    #[command(flatten)]
    pub run: SelfPlayArgs,
    /// `--json`.
    #[command(flatten)]
    pub output: JsonArg,
}

/// The order `sim ladder --help` lists the flags in.
const LADDER_ORDER: &[&str] =
    &["ai", "battles", "from", "to", "seed", "colors", "max_pieces", "jobs", "json", "profile"];

/// `sim ladder`'s own words for shared flags.
const LADDER_TEXTS: &[(&str, &str)] = &[
    ("seed", "Run seed; battle g of every pair uses the stream game_rng(seed, g)"),
    ("max_pieces", "Pieces per side before a battle is called a draw"),
    ("jobs", "Battles played in parallel"),
    ONE_JSON_OBJECT,
    ("profile", "AI profile: a name (full, two-ply) or a profile file of [ai.*] tables (as for `sim battle`)"),
];

/// Plays the ladder of `args`.
pub fn ladder(args: &LadderArgs) -> anyhow::Result<Ladder> {
    if args.battles == 0 {
        bail!("--battles must be at least 1");
    }
    if args.from >= args.to || args.to > MAX {
        bail!("--from {} --to {}: expected 0 <= from < to <= {MAX}", args.from, args.to);
    }
    let config = args.run.load_profile()?;
    crate::ai::Bot::new(&args.ai, &config, 0)?;
    let spec = LadderSpec {
        ai: args.ai.clone(),
        battles: args.battles,
        from: args.from,
        to: args.to,
        seed: args.run.seed(),
        colors: args.run.colors,
        max_pieces: args.max_pieces.max_pieces,
        jobs: args.run.jobs,
    };
    let bar = super::output::games_bar(args.battles * usize::from(args.to - args.from));
    let ladder = play_ladder(&spec, &|| bar.inc(1), |level, seed| -> anyhow::Result<StrengthBot> {
        Ok(StrengthBot::new(&args.ai, &config, seed, Level::new(level).map_err(anyhow::Error::msg)?)?)
    });
    bar.finish_and_clear();
    ladder
}

/// Runs `puyobot sim ladder` and prints the table.
pub fn run(args: &LadderArgs) -> anyhow::Result<()> {
    let l = ladder(args)?;
    if args.output.json {
        println!("{}", serde_json::to_string_pretty(&l)?);
        return Ok(());
    }
    println!("ladder of {}  seed {}  {} battles per pair", l.ai, l.seed, args.battles);
    println!("pair     won  lost  draws  rate    95% interval   pieces/side");
    for r in &l.rungs {
        let (p, lo, hi) = r.upper_win_rate;
        println!(
            "{:>2} v {:<2} {:>4}  {:>4}  {:>5}  {:>5.1}%  {:>5.1}–{:<5.1}%  {:>6.1}{}",
            r.upper,
            r.lower,
            r.upper_wins,
            r.lower_wins,
            r.draws,
            100.0 * p,
            100.0 * lo,
            100.0 * hi,
            r.mean_pieces,
            if r.separated() { "" } else { "  not separated" }
        );
    }
    if l.interrupted {
        println!("interrupted: the figures cover the battles played until then");
    }
    Ok(())
}
