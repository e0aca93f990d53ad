//! The flag groups subcommands share, each flag defined once: its name, values, range and default. A
//! command takes a group with `#[command(flatten)]`; a group that sets configuration keys lays itself over
//! its table (`lay_over`), so flags reach the configuration the same way in every command.
//!
//! A command that words a shared flag its own way, or lists its flags in its own order, says so with
//! [`worded`] and [`in_order`] on its arguments struct: the help text changes, the flag does not.

use std::path::PathBuf;

use clap::{Arg, Args};

use crate::ai::Levels;
use crate::calib::CalibrateMode;
use crate::config::{BotSettings, Config, Mode, PlaySettings};

/// `--speed`'s values: the driver's speed settings, 0..=[`crate::driver::MAX_SPEED`].
pub fn speed_parser() -> clap::builder::RangedI64ValueParser<u8> {
    clap::value_parser!(u8).range(0..=i64::from(crate::driver::MAX_SPEED))
}

/// A command's own help texts for shared flags, `(id, text)` (`mut_args(worded(..))` on its struct).
pub fn worded(texts: &'static [(&'static str, &'static str)]) -> impl FnMut(Arg) -> Arg {
    move |arg| match texts.iter().find(|(id, _)| arg.get_id() == *id) {
        Some((_, text)) => arg.help(*text),
        None => arg,
    }
}

/// A command's own order of its flags in its help, by id (`mut_args(in_order(..))` on its struct). They
/// come after any flag the struct leaves out (those of a struct that flattens this one come first).
pub fn in_order(ids: &'static [&'static str]) -> impl FnMut(Arg) -> Arg {
    move |arg| match ids.iter().position(|id| arg.get_id() == *id) {
        Some(i) => arg.display_order(LISTED_FIRST + i),
        None => arg,
    }
}

/// The display order of the first flag [`in_order`] lists: after the flags of an outer struct (numbered
/// from 0 as they are declared), before clap's own `--help` (999).
const LISTED_FIRST: usize = 100;

/// What `play` and `serve` share: the game and its bots, where the run stops, what it prints and records,
/// and the configuration and address files it starts from.
#[derive(Debug, Clone, Default, Args)]
pub struct SessionArgs {
    /// Mode, bot speed and menus.
    #[command(flatten)]
    pub game: GameArgs,
    /// Where the run stops.
    #[command(flatten)]
    pub limits: RunLimits,
    /// `--json`.
    #[command(flatten)]
    pub output: JsonArg,
    /// `--seed`.
    #[command(flatten)]
    pub seed: SeedArg,
    /// The configuration file and unknown ROMs.
    #[command(flatten)]
    pub setup: SetupArgs,
    /// The bots.
    #[command(flatten)]
    pub bots: BotArgs,
    /// Address files and calibration.
    #[command(flatten)]
    pub addresses: AddressArgs,
    /// Record the run to a trace file: every frame's pads and RAM changes, with what is needed to run it
    /// again. `puyobot replay FILE` watches or checks it, `puyobot calibrate FILE` learns from it.
    #[arg(long, value_name = "FILE")]
    pub record: Option<PathBuf>,
}

impl SessionArgs {
    /// `--record FILE`, with the flag's name.
    pub fn recording(&self) -> Option<(&'static str, &std::path::Path)> {
        self.record.as_deref().map(|p| ("--record", p))
    }

    /// Lays the flags over the configuration.
    pub fn lay_over(&self, cfg: &mut Config) {
        self.game.lay_over(&mut cfg.play);
        self.seed.lay_over(&mut cfg.play);
        self.setup.lay_over(&mut cfg.play);
        self.bots.lay_over(&mut cfg.bots);
        self.addresses.lay_over(&mut cfg.play);
        if let Some(n) = self.limits.long_game_pieces {
            cfg.play.long_game_pieces = n;
        }
    }
}

/// The game mode, the bots' speed and the menus.
#[derive(Debug, Clone, Default, Args)]
pub struct GameArgs {
    /// Game mode.
    #[arg(long, value_enum)]
    pub mode: Option<Mode>,
    /// Bot speed, 0 (slow, human-paced) to 10 (as fast as the game accepts).
    #[arg(long, value_parser = speed_parser())]
    pub speed: Option<u8>,
    /// Do not walk the menus: leave them to the person.
    #[arg(long)]
    pub no_menu: bool,
}

impl GameArgs {
    /// Sets `mode`, `speed` and `menu` of `[play]`.
    pub fn lay_over(&self, play: &mut PlaySettings) {
        if let Some(m) = self.mode {
            play.mode = m;
        }
        if let Some(s) = self.speed {
            play.speed = s;
        }
        if self.no_menu {
            play.menu = false;
        }
    }
}

/// Where a run of the game stops: after frames, pieces or games.
#[derive(Debug, Clone, Copy, Default, Args)]
pub struct RunLimits {
    /// Stop after N frames (headless, or close the window after N emulated frames).
    #[arg(long)]
    pub frames: Option<u64>,
    /// Headless (or --emulator): stop once a player has locked N pieces.
    #[arg(long)]
    pub pieces: Option<u32>,
    /// Headless: play N games, each from its own power-on (game k with seed S+k-1), report each and the
    /// totals, then stop. With --emulator: N games in a row, each started by the restart script.
    #[arg(long)]
    pub games: Option<u32>,
    /// With --games: a 2P game in which a side locks N pieces without a winner is ended and reported as a
    /// long game, and the run fails (default 300; 0 = no limit; sets play.long_game_pieces).
    #[arg(long, value_name = "N")]
    pub long_game_pieces: Option<u32>,
}

impl RunLimits {
    /// The limit flags given, in the order `--frames`, `--pieces`, `--games`.
    pub fn given(&self) -> Vec<&'static str> {
        [("--frames", self.frames.is_some()), ("--pieces", self.pieces.is_some()), ("--games", self.games.is_some())]
            .into_iter()
            .filter_map(|(flag, on)| on.then_some(flag))
            .collect()
    }
}

/// `--json`: the report as JSON.
#[derive(Debug, Clone, Copy, Default, Args)]
pub struct JsonArg {
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
}

/// `--items`: which item the game deals, if any.
#[derive(Debug, Clone, Copy, Default, Args)]
pub struct ItemsArg {
    /// Items: every 16th piece of each player is a Big Puyo (big-puyo) or a Carbuncle (carbuncle), as on
    /// the open cartridge; off (the default) deals pairs only.
    #[arg(long, value_enum)]
    pub items: Option<crate::play::options::ItemsChoice>,
}

impl ItemsArg {
    /// The choice, `off` when the flag is left out.
    pub fn choice(&self) -> crate::play::options::ItemsChoice {
        self.items.unwrap_or(crate::play::options::ItemsChoice::Off)
    }
}

/// `--seed` of a run of the game, over `play.seed`.
#[derive(Debug, Clone, Copy, Default, Args)]
pub struct SeedArg {
    /// Seed for the bots, the pad faults and the deal (the menu scripts' `seed_wait` steps); recorded in
    /// the output.
    #[arg(long)]
    pub seed: Option<u64>,
}

impl SeedArg {
    /// Sets `seed` of `[play]`.
    pub fn lay_over(&self, play: &mut PlaySettings) {
        if let Some(s) = self.seed {
            play.seed = s;
        }
    }
}

/// The configuration file, and whether a ROM the catalogue does not know may run.
#[derive(Debug, Clone, Default, Args)]
pub struct SetupArgs {
    /// Configuration file (default: ./config.toml when it exists, else the user's config.toml).
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// Run a ROM whose hash is not in addresses/roms.toml.
    #[arg(long)]
    pub allow_unknown_rom: bool,
}

impl SetupArgs {
    /// Reads the configuration file ([`super::config_file::load`]), lays the flags over it with
    /// `lay_over` and checks the result; also returns the file read (`None`: the built-in defaults).
    pub fn configure(&self, lay_over: impl FnOnce(&mut Config)) -> anyhow::Result<(Config, Option<PathBuf>)> {
        let loaded = super::config_file::load(self.config.as_deref())?;
        let mut cfg = loaded.config;
        lay_over(&mut cfg);
        cfg.validate("command line")?;
        Ok((cfg, loaded.file))
    }

    /// Sets `allow_unknown_rom` of `[play]`.
    pub fn lay_over(&self, play: &mut PlaySettings) {
        if self.allow_unknown_rom {
            play.allow_unknown_rom = true;
        }
    }
}

/// The bots of the two pads, their strength and AI profile, over `[bots]`.
#[derive(Debug, Clone, Default, Args)]
pub struct BotArgs {
    /// Bot for player 1: classic, chain, or exec:CMD, a bot process (overrides [bots] p1).
    #[arg(long, value_parser = super::bot_spec::check_bot)]
    pub p1_ai: Option<String>,
    /// Bot for player 2: classic, chain, or exec:CMD, a bot process (overrides [bots] p2).
    #[arg(long, value_parser = super::bot_spec::check_bot)]
    pub p2_ai: Option<String>,
    /// Bot strength 0..=10 (10: full strength), of both bots (7) or of player 1 and player 2 (3,10);
    /// overrides [bots] strength. Separate from --speed.
    #[arg(long, value_parser = Levels::parse)]
    pub strength: Option<Levels>,
    /// The bots play the `two-ply` AI profile (current and next pair only) instead of the full search:
    /// quick statistics, about 15 times less search per move (sets [bots] profile = "two-ply").
    #[arg(long)]
    pub fast: bool,
}

impl BotArgs {
    /// Sets `[bots]`.
    pub fn lay_over(&self, bots: &mut BotSettings) {
        if let Some(b) = &self.p1_ai {
            bots.p1 = b.clone();
        }
        if let Some(b) = &self.p2_ai {
            bots.p2 = b.clone();
        }
        if let Some(l) = self.strength {
            bots.strength = l;
        }
        if self.fast {
            bots.profile = crate::ai::FAST_PROFILE.into();
        }
    }
}

/// The address files, self-calibration, and where what it learned is written.
#[derive(Debug, Clone, Default, Args)]
pub struct AddressArgs {
    /// Folder of address files to use instead of the built-in copies.
    #[arg(long)]
    pub addresses: Option<PathBuf>,
    /// Self-calibration: learn the unverified entries (auto), trust the address file (off), or learn,
    /// print the result and stop (only; runs headless).
    #[arg(long, value_enum)]
    pub calibrate: Option<CalibrateMode>,
    /// After the run, write what calibration learned as a complete address folder.
    #[arg(long, value_name = "DIR")]
    pub write_addresses: Option<PathBuf>,
}

impl AddressArgs {
    /// Sets `addresses_dir` and `calibrate` of `[play]`.
    pub fn lay_over(&self, play: &mut PlaySettings) {
        if let Some(c) = self.calibrate {
            play.calibrate = c;
        }
        if let Some(a) = &self.addresses {
            play.addresses_dir = a.display().to_string();
        }
    }
}

/// The self-play commands' words for `--json`.
pub const ONE_JSON_OBJECT: (&str, &str) = ("json", "Print one JSON object instead of text");

/// The seed of a self-play run: game `g` draws from `game_rng(seed, g)`.
#[derive(Debug, Clone, Copy, Args)]
pub struct RunSeedArg {
    /// Run seed.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

/// When a self-play battle is called a draw.
#[derive(Debug, Clone, Copy, Args)]
pub struct MaxPiecesArg {
    /// Pieces per side before the game is called a draw.
    #[arg(long, default_value_t = 500)]
    pub max_pieces: usize,
}

/// What every self-play run takes: its seed, the colours of its pairs, how many games it plays at once,
/// and the bots' AI profile (`config.toml` plays no part in one).
#[derive(Debug, Clone, Args)]
pub struct SelfPlayArgs {
    /// `--seed`.
    #[command(flatten)]
    pub seed: RunSeedArg,
    /// Colours of the random pairs (3..=6).
    #[arg(long, default_value_t = crate::sim::DEFAULT_COLORS)]
    pub colors: u8,
    /// Games played in parallel.
    #[arg(long, default_value_t = 1)]
    pub jobs: usize,
    /// AI profile: a name (full, two-ply) or a profile file of [ai.*] tables (`puyobot sim profile`
    /// prints one to start from).
    #[arg(long, default_value = crate::ai::DEFAULT_PROFILE, value_name = "NAME|FILE")]
    pub profile: String,
}

impl SelfPlayArgs {
    /// The run seed.
    pub fn seed(&self) -> u64 {
        self.seed.seed
    }

    /// The AI profile, read ([`crate::config::load_profile`]).
    pub fn load_profile(&self) -> anyhow::Result<crate::ai::AiConfig> {
        Ok(crate::config::load_profile(&self.profile)?)
    }
}
