//! `puyobot sim ladder`: how clearly each strength level beats the one below it.
//!
//! For each adjacent pair of levels in `--from..=--to` it plays `--battles` battles of the same bot at
//! the two levels and prints the stronger level's wins, win rate and 95 % Wilson interval (draws count as
//! not won). The stronger level is player 1 in even battles and player 2 in odd ones, since player 1
//! acts first on ties. Battle g of every pair deals from `sim::game_rng(seed, g)`, so each pair sees the
//! same deals and a run repeats exactly for its seed.

use anyhow::bail;
use serde::Serialize;

use super::sim::{battle_game, load_profile, play_games};
use crate::ai::Level;
use crate::ai::strength::MAX;
use crate::sim::{BattleGame, wilson};

/// Arguments of `puyobot sim ladder`.
#[derive(Debug, clap::Args)]
pub struct LadderArgs {
    /// Bot: classic or chain.
    #[arg(long, default_value = "chain", value_parser = crate::ai::check_name)]
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
    /// Run seed; battle g of every pair uses the stream game_rng(seed, g).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Colours of the random pairs (3..=6).
    #[arg(long, default_value_t = 4)]
    pub colors: u8,
    /// Pieces per side before a battle is called a draw.
    #[arg(long, default_value_t = 500)]
    pub max_pieces: usize,
    /// Battles played in parallel.
    #[arg(long, default_value_t = 1)]
    pub jobs: usize,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
    /// AI profile: a name (full, two-ply) or a profile file of [ai.*] tables (as for `sim battle`).
    #[arg(long, default_value = "full", value_name = "NAME|FILE")]
    pub profile: String,
}

/// One adjacent pair of levels.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Rung {
    /// The stronger level.
    pub upper: u8,
    /// The level below it.
    pub lower: u8,
    /// Battles played.
    pub battles: u64,
    /// Battles the upper level won.
    pub upper_wins: u64,
    /// Battles the lower level won.
    pub lower_wins: u64,
    /// Draws (neither side topped out within `max_pieces`).
    pub draws: u64,
    /// The upper level's win rate with its 95 % Wilson interval: (rate, low, high).
    pub upper_win_rate: (f64, f64, f64),
    /// Mean pieces each side placed per battle.
    pub mean_pieces: f64,
}

impl Rung {
    /// Tallies the battles of `upper` against `lower`, where the upper level was player 1 in even games.
    pub fn tally(upper: u8, lower: u8, games: &[BattleGame]) -> Rung {
        let upper_side = |g: &BattleGame| if g.game.is_multiple_of(2) { 1 } else { 2 };
        let upper_wins = games.iter().filter(|g| g.winner == upper_side(g)).count() as u64;
        let draws = games.iter().filter(|g| g.winner == 0).count() as u64;
        let n = games.len() as u64;
        let pieces: u64 = games.iter().map(|g| u64::from(g.pieces[0]) + u64::from(g.pieces[1])).sum();
        Rung {
            upper,
            lower,
            battles: n,
            upper_wins,
            lower_wins: n - upper_wins - draws,
            draws,
            upper_win_rate: wilson(upper_wins, n),
            mean_pieces: if n == 0 { 0.0 } else { pieces as f64 / (2 * n) as f64 },
        }
    }

    /// True when the interval's lower end is above one half.
    pub fn separated(&self) -> bool {
        self.upper_win_rate.1 > 0.5
    }
}

/// The whole ladder.
#[derive(Clone, Debug, Serialize)]
pub struct Ladder {
    /// Always `ladder`.
    pub mode: String,
    /// The bot.
    pub ai: String,
    /// Run seed.
    pub seed: u64,
    /// Colours.
    pub colors: u8,
    /// Pieces per side before a draw.
    pub max_pieces: usize,
    /// One entry per adjacent pair, strongest first.
    pub rungs: Vec<Rung>,
    /// True when the run was interrupted (the figures cover the battles played).
    pub interrupted: bool,
}

/// Plays the ladder of `args`.
pub fn ladder(args: &LadderArgs) -> anyhow::Result<Ladder> {
    if args.battles == 0 {
        bail!("--battles must be at least 1");
    }
    if args.from >= args.to || args.to > MAX {
        bail!("--from {} --to {}: expected 0 <= from < to <= {MAX}", args.from, args.to);
    }
    let config = load_profile(&args.profile)?;
    crate::ai::Bot::new(&args.ai, &config, 0)?;
    let mut rungs = Vec::new();
    for upper in (args.from + 1..=args.to).rev() {
        if crate::interrupt::requested() {
            break;
        }
        let lower = upper - 1;
        let (hi, lo) = (Level::new(upper).map_err(anyhow::Error::msg)?, Level::new(lower).map_err(anyhow::Error::msg)?);
        let games: Vec<usize> = (0..args.battles).collect();
        let name = args.ai.as_str();
        let played = play_games(&games, args.jobs, |g| {
            let levels = if g % 2 == 0 { [hi, lo] } else { [lo, hi] };
            battle_game(g, args.seed, args.colors, args.max_pieces, [name, name], levels, &config)
        })?;
        let rung = Rung::tally(upper, lower, &played);
        log::info!("{upper} vs {lower}: {} of {} won", rung.upper_wins, rung.battles);
        rungs.push(rung);
    }
    Ok(Ladder {
        mode: "ladder".into(),
        ai: args.ai.clone(),
        seed: args.seed,
        colors: args.colors.clamp(3, 6),
        max_pieces: args.max_pieces,
        rungs,
        interrupted: crate::interrupt::requested(),
    })
}

/// Runs `puyobot sim ladder` and prints the table.
pub fn run(args: &LadderArgs) -> anyhow::Result<()> {
    let l = ladder(args)?;
    if args.json {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn game(g: usize, winner: u8) -> BattleGame {
        BattleGame { game: g, winner, frames: 0, pieces: [10, 20], largest_chain: [0, 0], nuisance_sent: [0, 0] }
    }

    /// The flags of `sim` and `play` as the command line parses them.
    #[derive(clap::Parser)]
    struct Sim {
        #[command(subcommand)]
        mode: super::super::sim::SimMode,
    }

    #[derive(clap::Parser)]
    struct Play {
        #[command(flatten)]
        args: super::super::play::PlayArgs,
    }

    #[test]
    fn strength_flags_parse_per_side_and_refuse_bad_values_naming_the_range() {
        use super::super::sim::SimMode;
        use clap::Parser;
        let level = |n| Level::new(n).unwrap();
        match Sim::try_parse_from(["sim", "battle", "--strength", "3,10"]).unwrap().mode {
            SimMode::Battle(b) => assert_eq!(b.strength.0, [level(3), level(10)]),
            _ => panic!("not a battle"),
        }
        match Sim::try_parse_from(["sim", "battle"]).unwrap().mode {
            SimMode::Battle(b) => assert_eq!(b.strength.0, [Level::FULL; 2], "full strength by default"),
            _ => panic!("not a battle"),
        }
        match Sim::try_parse_from(["sim", "endless", "--strength", "4"]).unwrap().mode {
            SimMode::Endless(e) => assert_eq!(e.strength, level(4)),
            _ => panic!("not endless"),
        }
        let p = Play::try_parse_from(["play", "--strength", "7"]).unwrap();
        let cfg = super::super::play::merged_config(&p.args).unwrap();
        assert_eq!(cfg.bots.strength.0, [level(7); 2]);
        for (argv, wanted) in [
            (vec!["sim", "battle", "--strength", "11"], "0..=10"),
            (vec!["sim", "battle", "--strength", "1,2,3"], "0..=10"),
            (vec!["sim", "endless", "--strength", "3,10"], "one strength"),
            (vec!["sim", "ladder", "--to", "11"], "1..=10"),
        ] {
            let e = Sim::try_parse_from(&argv).err().expect("refused").to_string();
            assert!(e.contains("--strength") || e.contains("--to"), "{argv:?}: {e}");
            assert!(e.contains(wanted), "{argv:?}: {e}");
        }
        let e = Play::try_parse_from(["play", "--strength", "x"]).err().expect("refused").to_string();
        assert!(e.contains("--strength") && e.contains("0..=10"), "{e}");
    }

    #[test]
    fn a_rung_counts_the_upper_level_on_its_side() {
        // Upper is player 1 in even games, player 2 in odd ones.
        let games = [game(0, 1), game(1, 2), game(2, 2), game(3, 0)];
        let r = Rung::tally(5, 4, &games);
        assert_eq!((r.upper_wins, r.lower_wins, r.draws, r.battles), (2, 1, 1, 4));
        assert_eq!(r.upper_win_rate.0, 0.5);
        assert_eq!(r.mean_pieces, 15.0);
        assert!(!r.separated());
    }
}
