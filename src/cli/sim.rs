//! `puyobot sim endless|battle|merge`: self-play statistics for the bots. This module parses arguments,
//! makes the bots and prints; [`crate::sim::runner`] plays the games on a rayon pool and the statistics
//! live in [`crate::sim`].
//!
//! Game `g` draws everything (pieces, bot seeds, nuisance columns) from `sim::game_rng(seed, g)`, so
//! figures do not depend on scheduling, and `--shard I/N` runs the games whose offset from the first is
//! `I` mod `N`; `sim merge` combines the shards' JSON into the JSON of the whole run. Figures go to
//! stdout; a progress bar goes to stderr only when stderr is a terminal. An interrupt (Ctrl-C, SIGTERM)
//! starts no new game: the games under way finish and the figures cover the games played, marked
//! `interrupted`.
//!
//! Think time: mean, median and p95 per move are **wall time** around each decision on the playing
//! thread (median and p95 from a log-scale table, to about 4 %); the thread's CPU time from
//! `/proc/thread-self/schedstat` is summed as well and given as a mean per move.

use std::path::PathBuf;

use anyhow::{Context, bail};

use crate::ai::{AiConfig, Level, Levels};

use super::args::{ItemsArg, JsonArg, MaxPiecesArg, ONE_JSON_OBJECT, SelfPlayArgs, in_order, worded};
use crate::game::{GravityCurve, LockDelay, Orientation, Piece, Player, Rules, Timing, text};
use crate::sim::runner::{EndlessSpec, battle_game, endless_game, play_games};
use crate::sim::{
    BIG_CHAIN, BattleGame, BattleRules, BattleRun, BattleSummary, Clock, EndlessGameResult, EndlessRun, EndlessSummary,
    Shard, Summary, merge,
};

/// Arguments of `puyobot sim`.
#[derive(Debug, clap::Args)]
pub struct SimArgs {
    /// Which game to simulate.
    #[command(subcommand)]
    pub mode: SimMode,
}

/// The self-play modes, and merging their shards.
#[derive(Debug, clap::Subcommand)]
pub enum SimMode {
    /// 1P endless: one bot, N pairs per game.
    Endless(EndlessArgs),
    /// 2P battle: two bots on a shared piece sequence.
    Battle(BattleArgs),
    /// Combine the JSON of a run's shards (--shard I/N --json) into the JSON of the whole run.
    Merge(MergeArgs),
    /// The strength ladder: battles between each pair of adjacent strength levels, with win rates.
    Ladder(super::ladder::LadderArgs),
    /// Print an AI profile as a profile file (edit it and pass it back with --profile FILE).
    Profile(ProfileArgs),
}

/// Arguments of `puyobot sim profile`.
#[derive(Debug, clap::Args)]
pub struct ProfileArgs {
    /// The profile: a name (full, two-ply) or a profile file.
    #[arg(default_value = crate::ai::DEFAULT_PROFILE, value_name = "NAME|FILE")]
    pub profile: String,
}

/// Arguments of `puyobot sim endless`.
#[derive(Debug, clap::Args)]
#[command(mut_args(in_order(ENDLESS_ORDER)), mut_args(worded(ENDLESS_TEXTS)))]
pub struct EndlessArgs {
    /// Bot: classic, chain, or exec:CMD (a bot process speaking the bot protocol).
    #[arg(long, default_value = crate::ai::DEFAULT_P1, value_parser = super::bot_spec::check_bot)]
    pub ai: String,
    /// Strength 0 (a beginner can beat it) to 10 (full strength, the default).
    #[arg(long, default_value = "10", value_parser = parse_level)]
    pub strength: Level,
    /// Pieces per game (memory does not grow with it).
    #[arg(long, default_value_t = 100)]
    pub pieces: usize,
    /// The seed, colours, parallelism and AI profile.
    #[command(flatten)]
    pub run: SelfPlayArgs,
    /// `--items`.
    #[command(flatten)]
    pub items: ItemsArg,
    /// Play this queue file (one pair per line, e.g. RG; BIG / CAR for items) instead of random pairs.
    #[arg(long, conflicts_with = "items")]
    pub queue: Option<PathBuf>,
    /// Number of games in the run (all shards together).
    #[arg(long, default_value_t = 1)]
    pub games: usize,
    /// Index of the first game (to replay game g of a run: --first-game g --games 1).
    #[arg(long, default_value_t = 0)]
    pub first_game: usize,
    /// Run only slice I of N of the games (those whose offset from the first game is I mod N).
    #[arg(long, value_name = "I/N")]
    pub shard: Option<Shard>,
    /// `--json`.
    #[command(flatten)]
    pub output: JsonArg,
    /// Draw the chain-length histogram and the puyos-on-field curve to this SVG file.
    #[arg(long, value_name = "FILE")]
    pub plot: Option<PathBuf>,
    /// Where a new pair's child spawns, as a cartridge's `[movement] spawn` says (up, right, down, left):
    /// a pair spawning sideways or downwards also needs its child's cell free, a second death cell.
    #[arg(long, default_value = "up", value_parser = parse_spawn)]
    pub spawn: Orientation,
    /// The game's clock: gravity and lock delay (no time limit without them).
    #[command(flatten)]
    pub clock: ClockArgs,
}

/// The order `sim endless --help` lists the flags in.
const ENDLESS_ORDER: &[&str] = &[
    "ai",
    "strength",
    "pieces",
    "seed",
    "colors",
    "items",
    "queue",
    "games",
    "jobs",
    "first_game",
    "shard",
    "json",
    "plot",
    "profile",
    "spawn",
    "frames_per_row",
    "gravity_curve",
    "lock_delay",
    "input_lag",
];

/// The order `sim battle --help` lists the flags in.
const BATTLE_ORDER: &[&str] = &[
    "p1",
    "p2",
    "strength",
    "games",
    "first_game",
    "seed",
    "colors",
    "items",
    "nuisance_cap",
    "nuisance_drop",
    "nuisance_points",
    "nuisance_overflow",
    "max_pieces",
    "jobs",
    "shard",
    "json",
    "profile",
    "frames_per_row",
    "gravity_curve",
    "lock_delay",
    "input_lag",
];

/// `sim endless`'s own words for shared flags.
const ENDLESS_TEXTS: &[(&str, &str)] =
    &[("seed", "Run seed; game g uses the stream game_rng(seed, g)"), ONE_JSON_OBJECT];

/// The game's clock for `sim endless` and `sim battle`. Without a gravity flag a pair waits at its row
/// while the bot's presses happen (no time limit), as before.
#[derive(Debug, Clone, clap::Args)]
pub struct ClockArgs {
    /// Gravity: frames per row for every piece. The pair falls while the presses happen (2 frames
    /// each, 2 kept in hand), and the search only picks placements reached before the pair locks.
    #[arg(long, value_name = "N", conflicts_with = "gravity_curve", value_parser = clap::value_parser!(u16).range(1..=255))]
    pub frames_per_row: Option<u16>,
    /// Gravity that speeds up with the level: START:STEP:MIN:PIECES, e.g. 30:2:2:16 (30 frames per row,
    /// 2 fewer each level, never below 2, a level every 16 pieces).
    #[arg(long, value_name = "START:STEP:MIN:PIECES")]
    pub gravity_curve: Option<GravityCurve>,
    /// With a gravity flag: frames a landed pair waits before it locks, moves allowed (default 16), or
    /// `none` (it locks as soon as it cannot fall).
    #[arg(long, value_name = "N|none", value_parser = parse_lock)]
    pub lock_delay: Option<LockDelay>,
    /// With a gravity flag: frames from a press to its effect (default 0). The presses go in ahead of
    /// their effects, 2 frames apart, as the driver makes them on a game with a lag of 2 or more.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(0..=60))]
    pub input_lag: Option<u16>,
}

impl ClockArgs {
    /// The clock these flags ask for; `None` without a gravity flag.
    pub fn clock(&self) -> anyhow::Result<Option<Clock>> {
        let curve = match (self.frames_per_row, self.gravity_curve) {
            (Some(n), _) => GravityCurve::constant(n),
            (None, Some(c)) => c,
            (None, None) if self.lock_delay.is_some() || self.input_lag.is_some() => {
                bail!(
                    "--lock-delay and --input-lag need a gravity: --frames-per-row N or --gravity-curve \
                     START:STEP:MIN:PIECES"
                )
            }
            (None, None) => return Ok(None),
        };
        let mut timing = Timing::spawned(curve.start);
        if let Some(lock) = self.lock_delay {
            timing.lock = lock;
        }
        if let Some(lag) = self.input_lag {
            timing.input_lag = lag;
        }
        Ok(Some(Clock { curve, timing }))
    }
}

/// `--lock-delay`: a frame count or `none`.
fn parse_lock(text: &str) -> Result<LockDelay, String> {
    if text.eq_ignore_ascii_case("none") {
        return Ok(LockDelay::None);
    }
    match text.parse::<u16>() {
        Ok(0) => Ok(LockDelay::None),
        Ok(frames) => Ok(LockDelay::Frames { frames, moves: true }),
        Err(_) => Err(format!("expected a number of frames or none, got {text:?}")),
    }
}

/// Arguments of `puyobot sim battle`.
#[derive(Debug, clap::Args)]
#[command(mut_args(in_order(BATTLE_ORDER)), mut_args(worded(&[ONE_JSON_OBJECT])))]
pub struct BattleArgs {
    /// Player 1's bot: chain, classic, rush, or exec:CMD (a bot process speaking the bot protocol).
    #[arg(long, default_value = crate::ai::DEFAULT_P1, value_parser = super::bot_spec::check_bot)]
    pub p1: String,
    /// Player 2's bot: chain, classic, rush, or exec:CMD.
    #[arg(long, default_value = crate::ai::DEFAULT_P2, value_parser = super::bot_spec::check_bot)]
    pub p2: String,
    /// Strength 0..=10 of both bots (7), or of player 1 and player 2 (3,10); 10 is full strength.
    #[arg(long, default_value = "10", value_parser = Levels::parse)]
    pub strength: Levels,
    /// Number of games in the run (all shards together): 500 give a win rate to about ±4 points.
    #[arg(long, default_value_t = 500)]
    pub games: usize,
    /// Index of the first game.
    #[arg(long, default_value_t = 0)]
    pub first_game: usize,
    /// The seed, colours, parallelism and AI profile.
    #[command(flatten)]
    pub run: SelfPlayArgs,
    /// `--max-pieces`.
    #[command(flatten)]
    pub max_pieces: MaxPiecesArg,
    /// Run only slice I of N of the games.
    #[arg(long, value_name = "I/N")]
    pub shard: Option<Shard>,
    /// `--json`.
    #[command(flatten)]
    pub output: JsonArg,
    /// The game's clock: gravity and lock delay (no time limit without them).
    #[command(flatten)]
    pub clock: ClockArgs,
    /// `--items`.
    #[command(flatten)]
    pub items: ItemsArg,
    /// The 2P rules: nuisance cap, drop, points and overflow.
    #[command(flatten)]
    pub rules: super::rules_args::RulesArgs,
}

/// Arguments of `puyobot sim merge`.
#[derive(Debug, clap::Args)]
pub struct MergeArgs {
    /// The shards' JSON files (every shard of one run, any order).
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Print text instead of JSON.
    #[arg(long)]
    pub text: bool,
    /// Draw an endless run's plot to this SVG file.
    #[arg(long, value_name = "FILE")]
    pub plot: Option<PathBuf>,
}

/// Runs `puyobot sim`.
pub fn run(args: &SimArgs) -> anyhow::Result<()> {
    crate::interrupt::install();
    match &args.mode {
        SimMode::Endless(a) => {
            if let Some(p) = &a.plot {
                super::output::check_file("--plot", p)?;
            }
            let s = run_endless(a)?;
            if let Some(p) = &a.plot {
                super::plot::endless(&s, p)?;
            }
            print_summary(&Summary::Endless(Box::new(s)), a.output.json);
            Ok(())
        }
        SimMode::Battle(a) => {
            print_summary(&Summary::Battle(Box::new(run_battle(a)?)), a.output.json);
            Ok(())
        }
        SimMode::Profile(a) => {
            print!("{}", profile_text(&a.profile)?);
            Ok(())
        }
        SimMode::Ladder(a) => super::ladder::run(a),
        SimMode::Merge(a) => {
            if let Some(p) = &a.plot {
                super::output::check_file("--plot", p)?;
            }
            let s = merge_files(&a.files)?;
            if let (Some(p), Summary::Endless(e)) = (&a.plot, &s) {
                super::plot::endless(e, p)?;
            }
            print_summary(&s, !a.text);
            Ok(())
        }
    }
}

/// A single strength for `sim endless` (one bot plays).
fn parse_level(text: &str) -> Result<Level, String> {
    Levels::parse(text)?.single()
}

/// `--spawn`: an orientation by its name.
fn parse_spawn(text: &str) -> Result<Orientation, String> {
    Orientation::ALL
        .into_iter()
        .find(|o| format!("{o:?}").eq_ignore_ascii_case(text))
        .ok_or_else(|| format!("expected up, right, down or left, got {text:?}"))
}

/// The AI profile `--profile` names: a named profile or a profile file ([`crate::config::load_profile`]).
/// `config.toml` plays no part: it holds what a user sets for `play`.
pub fn load_profile(profile: &str) -> anyhow::Result<AiConfig> {
    Ok(crate::config::load_profile(profile)?)
}

/// The text `puyobot sim profile` prints: where the profile comes from, what the named ones are, then
/// its `[ai.*]` tables.
fn profile_text(profile: &str) -> anyhow::Result<String> {
    let p = load_profile(profile)?;
    let mut out = format!("# puyobot AI profile: {profile}. Pass an edited copy back with --profile FILE;\n");
    out.push_str("# a key left out takes the `full` profile's value. The named profiles:\n");
    for (name, about) in crate::ai::PROFILES {
        out.push_str(&format!("#   {name}: {about}\n"));
    }
    out.push_str("# What each key does: the doc comments of AiConfig's types (cargo doc) and the bots' section of\n");
    out.push_str("# docs/architecture.md.\n\n");
    out.push_str(&p.to_toml());
    Ok(out)
}

/// A CRC32 of the bot configuration (and queue), so shards of different runs refuse to merge.
fn config_crc(config: &AiConfig, queue: &Option<Vec<Piece>>, clock: Option<&Clock>) -> anyhow::Result<u32> {
    let mut h = crc32fast::Hasher::new();
    h.update(serde_json::to_string(config).context("cannot serialise the [ai] configuration")?.as_bytes());
    if let Some(c) = clock {
        h.update(c.describe().as_bytes());
    }
    if let Some(q) = queue {
        for p in q {
            h.update(p.to_string().as_bytes());
        }
    }
    Ok(h.finalize())
}

/// Plays the games `games` on `jobs` threads with a progress bar (hidden when stderr is not a terminal).
fn play_with_bar<T: Send>(
    games: &[usize],
    jobs: usize,
    play: impl Fn(usize) -> anyhow::Result<T> + Sync,
) -> anyhow::Result<Vec<T>> {
    let bar = super::output::games_bar(games.len());
    let played = play_games(games, jobs, &|| bar.inc(1), play);
    bar.finish_and_clear();
    played
}

/// Plays the endless games of `args` (its shard only, if given) and summarises them.
pub fn run_endless(args: &EndlessArgs) -> anyhow::Result<EndlessSummary> {
    if args.games == 0 {
        bail!("--games must be at least 1");
    }
    let config = args.run.load_profile()?;
    let clock = args.clock.clock()?;
    // Fail early on a bad bot name or weights, or a bot process that does not start.
    let label = super::bot_spec::label(&args.ai, &config, args.strength)?;
    let queue = match &args.queue {
        None => None,
        Some(p) => {
            let t = std::fs::read_to_string(p).with_context(|| format!("cannot read queue {}", p.display()))?;
            Some(text::parse_queue(&t).with_context(|| format!("in queue {}", p.display()))?)
        }
    };
    let shard = args.shard.unwrap_or(Shard::WHOLE);
    let games: Vec<usize> = shard.offsets(args.games).map(|o| args.first_game + o).collect();
    let rules = Rules { spawn_orientation: args.spawn, ..Rules::puyo1() };
    let spec = EndlessSpec {
        seed: args.run.seed(),
        colors: args.run.colors,
        pieces: args.pieces,
        rules: &rules,
        queue: queue.as_deref(),
        item: args.items.choice().item(),
    };
    let results: Vec<EndlessGameResult> = play_with_bar(&games, args.run.jobs, |g| {
        endless_game(g, &spec, |seed| -> anyhow::Result<Box<dyn Player>> {
            super::bot_spec::sim_player(&args.ai, &config, seed, args.strength, clock, args.run.colors)
        })
    })?;
    let run = EndlessRun {
        ai: label,
        seed: args.run.seed(),
        colors: args.run.colors.clamp(3, 6),
        items: args.items.choice().name().into(),
        spawn: args.spawn,
        pieces: args.pieces,
        first_game: args.first_game,
        run_games: args.games,
        config_crc: config_crc(&config, &queue, clock.as_ref())?,
        clock: clock.map(|c| c.describe()),
    };
    EndlessSummary::from_results(run, Some(shard), results).map_err(anyhow::Error::msg)
}

/// Plays the battles of `args` (its shard only, if given) and summarises them.
pub fn run_battle(args: &BattleArgs) -> anyhow::Result<BattleSummary> {
    if args.games == 0 {
        bail!("--games must be at least 1");
    }
    let config = args.run.load_profile()?;
    let clock = args.clock.clock()?;
    let labels = [
        super::bot_spec::label(&args.p1, &config, args.strength.0[0])?,
        super::bot_spec::label(&args.p2, &config, args.strength.0[1])?,
    ];
    let shard = args.shard.unwrap_or(Shard::WHOLE);
    let games: Vec<usize> = shard.offsets(args.games).map(|o| args.first_game + o).collect();
    let names = [args.p1.as_str(), args.p2.as_str()];
    let rules = args.rules.apply(Rules::puyo1());
    let runs: Vec<BattleGame> = play_with_bar(&games, args.run.jobs, |g| {
        battle_game(
            g,
            args.run.seed(),
            args.run.colors,
            args.items.choice().item(),
            args.max_pieces.max_pieces,
            &rules,
            |side, seed| -> anyhow::Result<Box<dyn Player>> {
                super::bot_spec::sim_player(names[side], &config, seed, args.strength.0[side], clock, args.run.colors)
            },
        )
    })?;
    let [p1, p2] = labels;
    let run = BattleRun {
        p1,
        p2,
        seed: args.run.seed(),
        colors: args.run.colors.clamp(3, 6),
        items: args.items.choice().name().into(),
        max_pieces: args.max_pieces.max_pieces,
        first_game: args.first_game,
        run_games: args.games,
        config_crc: config_crc(&config, &None, clock.as_ref())?,
        rules: Some(BattleRules::of(&rules)),
    };
    Ok(BattleSummary::build(run, Some(shard), runs))
}

/// Reads and merges the shards' JSON files.
pub fn merge_files(files: &[PathBuf]) -> anyhow::Result<Summary> {
    let parts = files
        .iter()
        .map(|f| {
            let t = std::fs::read_to_string(f).with_context(|| format!("cannot read {}", f.display()))?;
            Summary::from_json(&t).map_err(|e| anyhow::anyhow!("{}: {e}", f.display()))
        })
        .collect::<anyhow::Result<Vec<_>>>()?;
    merge(parts).map_err(|e| anyhow::anyhow!("cannot merge {}: {e}", list(files)))
}

fn list(files: &[PathBuf]) -> String {
    files.iter().map(|f| f.display().to_string()).collect::<Vec<_>>().join(", ")
}

fn print_summary(s: &Summary, json: bool) {
    let interrupted = crate::interrupt::requested();
    if json {
        let text = s.to_json();
        match serde_json::from_str::<serde_json::Value>(&text) {
            Ok(serde_json::Value::Object(mut obj)) if interrupted => {
                obj.insert("interrupted".into(), true.into());
                println!("{}", serde_json::to_string_pretty(&obj).unwrap_or(text));
            }
            _ => println!("{text}"),
        }
        return;
    }
    match s {
        Summary::Endless(s) => print_endless(s),
        Summary::Battle(s) => print_battle(s),
    }
    if interrupted {
        println!("interrupted: the figures cover the games played until then");
    }
}

fn print_endless(s: &EndlessSummary) {
    for r in &s.runs {
        let big = r.first_big_chain.map_or("-".to_string(), |(c, i)| format!("{c} at pair {i}"));
        println!(
            "game {:>4}: score {:>9} ({:>8.1}/pair)  first {BIG_CHAIN}+: {:<16} largest {:>2}  puyos mean {:>4.1} max {:>2}  clears {}{}",
            r.game,
            r.score,
            r.score_per_pair(),
            big,
            r.largest_chain,
            r.puyos_mean(),
            r.puyos_max,
            r.field_clears,
            if r.topped_out { "  TOPPED OUT" } else { "" }
        );
    }
    let shard = s.shard.map_or(String::new(), |sh| format!("  shard {sh}"));
    println!(
        "ai {}  seed {}  colours {}  items {}  pieces {}  games {}{shard}",
        s.run.ai, s.run.seed, s.run.colors, s.run.items, s.run.pieces, s.games
    );
    if let Some(clock) = &s.run.clock {
        println!("clock: {clock}");
    }
    println!("top-outs: {}", s.topouts);
    println!("score: mean {:.0}, per pair {:.1}", s.score_mean, s.score_per_pair);
    println!(
        "first chain of {BIG_CHAIN}+: in {:.1}% of games, mean length {:.2}, 12+ in {:.1}% of games, mean pair {:.1}",
        100.0 * s.first_big_chain_rate,
        s.first_big_chain_mean,
        100.0 * s.first_big_chain_ge12,
        s.first_big_chain_pair_mean
    );
    println!("largest chain: {} (mean per game {:.2})", s.largest_chain, s.largest_chain_mean);
    println!("chains by length: {}", nonzero(&s.chain_histogram, 1));
    let g = s.puyos_fit;
    println!(
        "puyos on field: mean {:.2}, sd {:.2} (Gaussian fit), max {}; the fit puts 42+ at 10^{:.1} and 84 at 10^{:.1} per move",
        g.mean,
        g.sd,
        s.puyos_max,
        g.log10_tail(42.0),
        g.log10_tail(84.0)
    );
    println!("moves by puyos on field: {}", nonzero(&s.puyos_histogram, 0));
    println!("field clears: {}", s.field_clears);
    println!(
        "chains of {BIG_CHAIN}+: {:.2} per game, mean {:.2} links, fired with {:.1} puyos on the field, \
         {:.2} popped per link, {:.1} left; puyos left at the end of a game: mean {:.1}",
        s.big_chains_per_game,
        s.big_chain_links_mean,
        s.big_chain_at_fire_mean,
        s.big_chain_popped_per_link,
        s.big_chain_left_mean,
        s.final_puyos_mean
    );
    let t = &s.timing;
    println!(
        "think time per move ({}): mean {:.3} ms, median {:.3} ms, p95 {:.3} ms; thread CPU mean {}, median {}, \
         p95 {}",
        t.clock,
        t.ms_per_move_mean,
        t.ms_per_move_median,
        t.ms_per_move_p95,
        ms_or_na(t.cpu_ms_per_move_mean),
        ms_or_na(t.cpu_ms_per_move_median),
        ms_or_na(t.cpu_ms_per_move_p95)
    );
}

/// A CPU figure the platform may not report.
fn ms_or_na(ms: Option<f64>) -> String {
    ms.map_or("n/a".to_string(), |m| format!("{m:.3} ms"))
}

fn nonzero(h: &[u64], from: usize) -> String {
    h.iter()
        .enumerate()
        .skip(from)
        .filter(|(_, c)| **c > 0)
        .map(|(i, c)| format!("{i}:{c}"))
        .collect::<Vec<_>>()
        .join(" ")
}

fn print_battle(s: &BattleSummary) {
    let shard = s.shard.map_or(String::new(), |sh| format!("  shard {sh}"));
    println!(
        "p1 {} vs p2 {}  seed {}  items {}  games {}{shard}",
        s.run.p1, s.run.p2, s.run.seed, s.run.items, s.games
    );
    for (name, wins, (p, lo, hi)) in [(&s.run.p1, s.p1_wins, s.p1_win_rate), (&s.run.p2, s.p2_wins, s.p2_win_rate)] {
        println!("{name}: {wins} wins ({:.1}%, 95% CI {:.1}–{:.1}%)", 100.0 * p, 100.0 * lo, 100.0 * hi);
    }
    println!("draws: {}", s.draws);
    println!("mean game length: {:.1} pieces per side, {:.0} frames", s.mean_pieces, s.mean_frames);
    println!(
        "largest chain: p1 {} (mean {:.2}), p2 {} (mean {:.2})",
        s.largest_chain[0], s.largest_chain_mean[0], s.largest_chain[1], s.largest_chain_mean[1]
    );
    if let Some(r) = &s.run.rules {
        let cap = r.nuisance_cap.map_or("none".to_string(), |c| c.to_string());
        println!(
            "rules: nuisance cap {cap}, drop {}, {} points each, overflow {}",
            r.nuisance_drop, r.nuisance_points, r.nuisance_overflow
        );
    }
    for (name, a) in [(&s.run.p1, &s.attack[0]), (&s.run.p2, &s.attack[1])] {
        println!(
            "{name}: {:.2} nuisance per piece, {:.2} attacks per game, {:.0}% of them full (cap or lethal), \
             first full attack at piece {:.1} ({} games)",
            a.nuisance_per_piece,
            a.attacks_per_game,
            100.0 * a.full_attack_share,
            a.pieces_to_first_full_attack,
            a.games_with_full_attack
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The flags of `sim` and `play` as the command line parses them.
    #[derive(clap::Parser)]
    struct Sim {
        #[command(subcommand)]
        mode: SimMode,
    }

    #[derive(clap::Parser)]
    struct Play {
        #[command(flatten)]
        args: super::super::play::PlayArgs,
    }

    #[test]
    fn strength_flags_parse_per_side_and_refuse_bad_values_naming_the_range() {
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

    fn clock_of(flags: &[&str]) -> anyhow::Result<Option<Clock>> {
        #[derive(clap::Parser)]
        struct Cli {
            #[command(flatten)]
            clock: ClockArgs,
        }
        let cli = <Cli as clap::Parser>::try_parse_from(std::iter::once("sim").chain(flags.iter().copied()))?;
        cli.clock.clock()
    }

    #[test]
    fn the_clock_flags_give_the_gravity_and_lock_asked_for() {
        assert_eq!(clock_of(&[]).unwrap(), None, "no flag: no time limit");
        let c = clock_of(&["--frames-per-row", "4"]).unwrap().unwrap();
        assert_eq!(
            (c.curve, c.timing.lock),
            (GravityCurve::constant(4), LockDelay::Frames { frames: 16, moves: true })
        );
        let c = clock_of(&["--gravity-curve", "30:2:2:16", "--lock-delay", "none"]).unwrap().unwrap();
        assert_eq!((c.curve.to_string(), c.timing.lock), ("30:2:2:16".to_string(), LockDelay::None));
        assert_eq!(c.timing_for(16 * 5).frames_per_row, 20);
        let err = |flags: &[&str]| clock_of(flags).unwrap_err().to_string();
        assert!(err(&["--lock-delay", "8"]).contains("need a gravity"));
        assert!(err(&["--input-lag", "3"]).contains("need a gravity"));
        let c = clock_of(&["--frames-per-row", "4", "--input-lag", "5"]).unwrap().unwrap();
        assert_eq!((c.timing.input_lag, c.timing.press_frames), (5, 2), "pressing ahead: 2 frames a press");
        assert!(err(&["--frames-per-row", "2", "--gravity-curve", "30:2:2:16"]).contains("cannot be used with"));
        assert!(err(&["--gravity-curve", "30:2"]).contains("START:STEP:MIN:PIECES"));
        assert!(err(&["--frames-per-row", "0"]).contains("0"));
        assert!(err(&["--frames-per-row", "2", "--lock-delay", "soon"]).contains("frames or none"));
    }
}
