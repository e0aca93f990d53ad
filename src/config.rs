//! `config.toml`: what a user sets for `puyobot play` (mode, ROM, speeds, seed, bots, keys, pads, sound),
//! overridable by flags; `--print-config` shows the merge. The bots' weights and search settings are not
//! here: they are named AI profiles ([`AiConfig::named`]), and `sim` and `train` read a profile file
//! ([`load_profile`]).
//!
//! Every table is typed once, here, when the file is read, and refuses unknown keys: the player's own
//! tables (`[play]`, `[bots]`) are defined here; `[keys]`, `[audio]` and `[gamepad]` are the window's
//! ([`KeyBindings`], [`AudioSettings`], [`GamepadBindings`]), defined by their modules and composed here.
//! Errors name the file, the dotted key and what was expected. The session gets only what it needs
//! ([`Config::seat_config`]).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::ai::{AiConfig, Levels};
use crate::driver::MAX_SPEED;
use crate::emu::EmuSpeed;
pub use crate::memmap::Mode;
use crate::play::SeatConfig;
use crate::ui::audio::AudioSettings;
use crate::ui::gamepad::GamepadBindings;
use crate::ui::{KeyBindingError, KeyBindings};

/// The `[play]` table.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PlaySettings {
    /// Game mode.
    pub mode: Mode,
    /// ROM file; empty = the built-in open test cartridge.
    pub rom: String,
    /// Bot speed 0..=10.
    pub speed: u8,
    /// Emulator speed in a window.
    pub emu_speed: EmuSpeed,
    /// Seed for the bots, the pad faults and the deal (the menu scripts' `seed_wait` steps); recorded in
    /// the output.
    pub seed: u64,
    /// Walk the menus from power-on (false = leave them to the person).
    pub menu: bool,
    /// Run ROMs whose hash is not in `addresses/roms.toml`.
    pub allow_unknown_rom: bool,
    /// Self-calibration: learn the unverified entries of the address file (`auto`), trust it (`off`), or
    /// learn, print and stop (`only`).
    pub calibrate: crate::calib::CalibrateMode,
    /// Folder of address files (laid out like `addresses/`); empty = the copies built into the binary.
    pub addresses_dir: String,
    /// Address file used for an unknown ROM (with `allow_unknown_rom`), relative to the folder; empty =
    /// the real cartridge's file for the mode.
    pub unknown_rom_addresses: String,
    /// Game option the menu scripts set and the deal confirms: `"off"`, `"big-puyo"` or `"carbuncle"`;
    /// absent = leave the game's option as it is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub items: Option<crate::play::options::ItemsChoice>,
    /// Number of colours the menu scripts set and the deal confirms (3..=6 where the game offers it);
    /// absent = leave the game's option as it is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub colors: Option<u8>,
    /// When a run stops short (a health or calibration failure, a stall, an interrupt, a top-out before
    /// the pieces asked for), write a bug-report bundle (`--no-bug-report` turns it off).
    pub bug_report: bool,
    /// The folder bug reports go to (`--bug-report-dir`); empty = `bug-reports` in the data folder.
    pub bug_report_dir: String,
    /// Pieces a side may lock in one 2P game of `--games N` before the game is ended and reported as long
    /// (`--long-game-pieces`; 0 = no limit): see [`crate::play::long_game`].
    pub long_game_pieces: u32,
}

impl Default for PlaySettings {
    fn default() -> Self {
        PlaySettings {
            mode: Mode::AiVsAi,
            rom: String::new(),
            speed: 7,
            emu_speed: EmuSpeed::X1,
            seed: 1,
            menu: true,
            allow_unknown_rom: false,
            calibrate: crate::calib::CalibrateMode::Auto,
            addresses_dir: String::new(),
            unknown_rom_addresses: String::new(),
            items: None,
            colors: None,
            bug_report: true,
            bug_report_dir: String::new(),
            long_game_pieces: crate::play::long_game::LONG_GAME_PIECES,
        }
    }
}

impl PlaySettings {
    /// The long-game limit of a match's 2P games, `None` when `long_game_pieces` is 0.
    pub fn long_game_limit(&self) -> Option<u32> {
        (self.long_game_pieces > 0).then_some(self.long_game_pieces)
    }
}

/// The `[lab]` table: settings for experiments and tests, not for play. The shipped `config.toml` has
/// none; a lab configuration (`--config lab.toml`) or the flags set them, and a recorded run keeps them
/// (they print only when they differ from these defaults).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct LabSettings {
    /// Think on a worker thread in a window (the emulator keeps its frame pace); headless always waits.
    pub threaded_bots: bool,
    /// In headless runs, stop when a player tops out (endless) or a winner is known (2P).
    pub stop_at_game_over: bool,
    /// Pad faults injected between the session and the console, e.g. `"drop=0.05,delay=2,extra=0.01"`
    /// (`--faults`); empty = none. See [`crate::emu::faults::FaultSpec::parse`].
    pub faults: String,
    /// Frames a bug report keeps from the start of a run, and again from its end (the traces' bound).
    pub bug_report_frames: u64,
    /// The game's timing given rather than measured, e.g. `"fall=30,soft=2,lock=16,lag=0"`: the bots and
    /// the driver play on this clock ([`crate::game::timing::Timing`]'s text form). Empty = none given
    /// (the untimed walk, or what the session measures). For experiments on builds whose timing is known.
    pub timing: String,
}

impl Default for LabSettings {
    fn default() -> Self {
        LabSettings {
            threaded_bots: true,
            stop_at_game_over: true,
            faults: String::new(),
            bug_report_frames: crate::play::flight::DEFAULT_FRAMES,
            timing: String::new(),
        }
    }
}

impl LabSettings {
    /// The lab settings' keys, which a `[play]` table may still hold (read as `[lab]`, with a warning).
    pub const KEYS: [&str; 3] = ["threaded_bots", "stop_at_game_over", "faults"];

    /// Whether every setting has its default (then `[lab]` is left out of a printed configuration).
    pub fn is_default(&self) -> bool {
        *self == LabSettings::default()
    }
}

/// The `[bots]` table: which AI plays each side.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct BotSettings {
    /// Player 1's bot (`classic` or `chain`; see `ai::OFFERED`), or a bot process: `"exec:CMD"` or the
    /// command as a list of words (`["python3", "examples/bots/simple.py"]`).
    #[serde(deserialize_with = "crate::botproto::command::name_or_words")]
    pub p1: String,
    /// Player 2's bot, as `p1`.
    #[serde(deserialize_with = "crate::botproto::command::name_or_words")]
    pub p2: String,
    /// Strength 0..=10 of both bots, or `[p1, p2]`; 10 is the bot at full strength (see
    /// [`crate::ai::strength`]).
    pub strength: Levels,
    /// The AI profile both bots play ([`crate::ai::PROFILES`]): `full` (the default: sampled futures and
    /// the beam, the search `sim` measures) or `two-ply` (current and next pair only, for quick headless
    /// statistics; `--fast`). In a window the search is cut when the pair must move
    /// ([`crate::play::thinker::window_budget`]); headless runs wait for the whole search.
    pub profile: String,
}

impl Default for BotSettings {
    fn default() -> Self {
        BotSettings {
            p1: crate::ai::DEFAULT_P1.into(),
            p2: crate::ai::DEFAULT_P2.into(),
            strength: Levels::default(),
            profile: crate::ai::DEFAULT_PROFILE.into(),
        }
    }
}

/// The whole configuration.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    /// `puyobot play` settings.
    pub play: PlaySettings,
    /// Which AI plays each side.
    pub bots: BotSettings,
    /// Window key bindings (checked at load: every name known, no key bound twice).
    pub keys: KeyBindings,
    /// The window's sound (`[audio]`).
    pub audio: AudioSettings,
    /// Game controllers for a person on pad 1 (`[gamepad]`).
    pub gamepad: GamepadBindings,
    /// The 2P rules (`[rules]`): set on the cartridge's menus where the address file knows them, and what
    /// the bots start a 2P game with.
    #[serde(skip_serializing_if = "RulesSettings::is_default")]
    pub rules: RulesSettings,
    /// Settings for experiments and tests (`[lab]`), not in the shipped file.
    #[serde(skip_serializing_if = "LabSettings::is_default")]
    pub lab: LabSettings,
}

/// `[rules]`: the 2P nuisance rules, each left out keeps the game's (or the guess's) value. The flags
/// `--nuisance-cap`, `--nuisance-drop`, `--nuisance-points` and `--nuisance-overflow` override them.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RulesSettings {
    /// Most nuisance one chain sends: a number, or `"none"` for no cap.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nuisance_cap: Option<CapSetting>,
    /// Most nuisance that falls on a field at once.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nuisance_drop: Option<u32>,
    /// Points per nuisance puyo.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nuisance_points: Option<u32>,
    /// What nuisance that finds its column full does: `"vanish"` or `"requeue"`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nuisance_overflow: Option<crate::game::NuisanceOverflow>,
}

/// The per-chain cap as the config file writes it: a number, or the word `none`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum CapSetting {
    /// At most this many nuisance a chain.
    Count(u32),
    /// The word `none`: no cap.
    Word(NoCap),
}

/// The word `none` of [`CapSetting`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum NoCap {
    /// No cap.
    None,
}

impl RulesSettings {
    /// True when no rule is set (the table is then left out of `--print-config`).
    pub fn is_default(&self) -> bool {
        *self == RulesSettings::default()
    }

    /// The rules asked for, as the session takes them.
    pub fn choices(&self) -> crate::play::rule_options::RuleChoices {
        crate::play::rule_options::RuleChoices {
            cap: self.nuisance_cap.map(|c| match c {
                CapSetting::Count(n) => Some(n),
                CapSetting::Word(NoCap::None) => None,
            }),
            drop: self.nuisance_drop,
            points: self.nuisance_points,
            overflow: self.nuisance_overflow,
        }
    }

    /// The first key with a number the game cannot use (0), and what was expected.
    fn check(&self) -> Result<(), (&'static str, String)> {
        let numbers = [
            (
                "rules.nuisance_cap",
                self.nuisance_cap.and_then(|c| if let CapSetting::Count(n) = c { Some(n) } else { None }),
            ),
            ("rules.nuisance_drop", self.nuisance_drop),
            ("rules.nuisance_points", self.nuisance_points),
        ];
        match numbers.into_iter().find(|(_, n)| *n == Some(0)) {
            Some((key, _)) => Err((key, "expected a number of at least 1 (for the cap: or \"none\"), got 0".into())),
            None => Ok(()),
        }
    }
}

/// A config file that could not be used.
#[derive(Debug, thiserror::Error)]
#[error("{file}: {key}: {message}")]
pub struct ConfigError {
    /// The file.
    pub file: String,
    /// The key at fault (dotted), or `(parse)`.
    pub key: String,
    /// What was expected.
    pub message: String,
}

/// The file name looked for when `--config` is not given.
pub const DEFAULT_FILE: &str = "config.toml";

impl Config {
    /// Parses config text; `file` names it in errors. The lab settings in a `[play]` table
    /// ([`LabSettings::KEYS`]) are read as `[lab]` ones, with a warning naming the file and the key.
    pub fn parse(file: &str, text: &str) -> Result<Config, ConfigError> {
        let moved = lab_keys_moved(file, text)?;
        let text = moved.as_deref().unwrap_or(text);
        let cfg: Config = toml::from_str(text).map_err(|e| {
            let key = toml_error_key(text, &e).unwrap_or_else(|| "(parse)".into());
            let mut message = e.message().trim().to_string();
            if key == "ai" || key.starts_with("ai.") {
                message.push_str(
                    "; the bots' weights and search settings are AI profiles, not part of config.toml \
                     (`puyobot sim profile`, `sim --profile FILE`)",
                );
            }
            ConfigError { file: file.into(), key, message }
        })?;
        cfg.validate(file)?;
        Ok(cfg)
    }

    /// Loads `path`; a missing file is an error only when `required` (an explicit `--config`).
    pub fn load(path: &Path, required: bool) -> Result<Config, ConfigError> {
        match std::fs::read_to_string(path) {
            Ok(text) => Config::parse(&path.display().to_string(), &text),
            Err(e) if !required && e.kind() == std::io::ErrorKind::NotFound => Ok(Config::default()),
            Err(e) => {
                Err(ConfigError { file: path.display().to_string(), key: "(file)".into(), message: e.to_string() })
            }
        }
    }

    /// Checks ranges that serde cannot.
    pub fn validate(&self, file: &str) -> Result<(), ConfigError> {
        if self.play.speed > MAX_SPEED {
            return Err(ConfigError {
                file: file.into(),
                key: "play.speed".into(),
                message: format!("expected 0..={MAX_SPEED}, got {}", self.play.speed),
            });
        }
        for (key, name) in [("bots.p1", &self.bots.p1), ("bots.p2", &self.bots.p2)] {
            let message = match crate::botproto::BotCommand::from_spec(name) {
                Some(command) => command.err(),
                None => crate::ai::check_name(name).err(),
            };
            if let Some(message) = message {
                return Err(ConfigError { file: file.into(), key: key.into(), message });
            }
        }
        if let Err((key, message)) = self.rules.check() {
            return Err(ConfigError { file: file.into(), key: key.into(), message });
        }
        if AiConfig::named(&self.bots.profile).is_none() {
            let names: Vec<&str> = crate::ai::PROFILES.iter().map(|(n, _)| *n).collect();
            return Err(ConfigError {
                file: file.into(),
                key: "bots.profile".into(),
                message: format!("unknown AI profile \"{}\"; expected one of {}", self.bots.profile, names.join(", ")),
            });
        }
        crate::emu::faults::FaultSpec::parse(&self.lab.faults).map_err(|message| ConfigError {
            file: file.into(),
            key: "lab.faults".into(),
            message,
        })?;
        self.lab_timing().map_err(|message| ConfigError { file: file.into(), key: "lab.timing".into(), message })?;
        self.keys.resolve().map_err(|e| {
            let action = match &e {
                KeyBindingError::UnknownKey { action, .. } => action,
                KeyBindingError::Duplicate { second, .. } => second,
            };
            ConfigError { file: file.into(), key: format!("keys.{action}"), message: e.to_string() }
        })?;
        self.audio.validate().map_err(|message| ConfigError {
            file: file.into(),
            key: "audio.volume".into(),
            message,
        })?;
        self.gamepad.resolve().map_err(|e| ConfigError {
            file: file.into(),
            key: format!("gamepad.{}", e.field),
            message: e.to_string(),
        })?;
        Ok(())
    }

    /// What a headless run's seats are made from: `[bots]` with its AI profile, and `[play]`'s speed,
    /// seed and threading. Every search runs to its end (the frame loop waits for it), so a seed replays
    /// exactly.
    pub fn seat_config(&self) -> SeatConfig {
        SeatConfig {
            bots: [self.bots.p1.clone(), self.bots.p2.clone()],
            strength: self.bots.strength.0,
            // `validate` has checked the name; an unchecked one plays the default profile.
            ai: AiConfig::named(&self.bots.profile).unwrap_or_default(),
            speed: self.play.speed,
            seed: self.play.seed,
            threaded: self.lab.threaded_bots,
            budget: None,
            // `validate` has checked it; an unchecked one plays untimed.
            timing: self.lab_timing().unwrap_or_default(),
        }
    }

    /// `[lab] timing`, read (`None` when empty).
    pub fn lab_timing(&self) -> Result<Option<crate::game::timing::Timing>, String> {
        let text = self.lab.timing.trim();
        if text.is_empty() { Ok(None) } else { text.parse().map(Some) }
    }

    /// What a window's seats are made from: as [`Config::seat_config`], and a bot on a worker thread
    /// answers by the time its pair must move ([`crate::play::thinker::window_budget`] of `play.speed`),
    /// since the game does not wait for it there.
    pub fn window_seat_config(&self) -> SeatConfig {
        let budget = self.lab.threaded_bots.then(|| crate::play::thinker::window_budget(self.play.speed));
        SeatConfig { budget, ..self.seat_config() }
    }

    /// The settings of one game: `[play]` and `[bots]` as [`crate::play::GameOptions`], the seats made
    /// from [`Config::seat_config`].
    pub fn game_options(&self) -> crate::play::GameOptions {
        crate::play::GameOptions {
            mode: self.play.mode,
            seats: self.seat_config(),
            menu: self.play.menu,
            calibrate: self.play.calibrate,
            items: self.play.items,
            colors: self.play.colors,
            profile: self.bots.profile.clone(),
            rules: self.rules.choices(),
        }
    }

    /// The merged configuration as TOML (for `--print-config`).
    pub fn to_toml(&self) -> String {
        toml::to_string_pretty(self).unwrap_or_else(|e| format!("# cannot print the configuration: {e}\n"))
    }

    /// The ROM path, if one is set.
    pub fn rom_path(&self) -> Option<PathBuf> {
        (!self.play.rom.is_empty()).then(|| PathBuf::from(&self.play.rom))
    }
}

/// The AI profile `name_or_file`: a named profile ([`crate::ai::PROFILES`]), else a profile file of
/// `[ai.*]` tables. Errors name the file and the key.
pub fn load_profile(name_or_file: &str) -> Result<AiConfig, ConfigError> {
    if let Some(p) = AiConfig::named(name_or_file) {
        return Ok(p);
    }
    let text = std::fs::read_to_string(name_or_file).map_err(|e| {
        let names: Vec<&str> = crate::ai::PROFILES.iter().map(|(n, _)| *n).collect();
        ConfigError {
            file: name_or_file.into(),
            key: "(file)".into(),
            message: format!("{e} (not a profile name either: the profiles are {})", names.join(", ")),
        }
    })?;
    parse_profile(name_or_file, &text)
}

/// Parses a profile file's text; `file` names it in errors.
pub fn parse_profile(file: &str, text: &str) -> Result<AiConfig, ConfigError> {
    let profile = AiConfig::from_toml(text).map_err(|e| {
        let key = toml_error_key(text, &e).unwrap_or_else(|| "(parse)".into());
        ConfigError { file: file.into(), key, message: e.message().trim().to_string() }
    })?;
    // What serde cannot check: the chain bot's template name.
    crate::ai::eval::ChainEval::new(profile.chain.clone()).map_err(|message| ConfigError {
        file: file.into(),
        key: "ai.chain.template_name".into(),
        message,
    })?;
    Ok(profile)
}

/// Finds the dotted key a TOML error points at, from its byte span: the table header above it and the key
/// on its line.
/// The text with the lab settings of its `[play]` table moved to `[lab]` (`None`: it has none there), each
/// named in a warning. A key in both tables is refused, since the two values may disagree.
fn lab_keys_moved(file: &str, text: &str) -> Result<Option<String>, ConfigError> {
    let Ok(mut doc) = text.parse::<toml::Table>() else { return Ok(None) };
    let Some(toml::Value::Table(play)) = doc.get_mut("play") else { return Ok(None) };
    let found: Vec<(&str, toml::Value)> =
        LabSettings::KEYS.iter().filter_map(|k| play.remove(*k).map(|v| (*k, v))).collect();
    if found.is_empty() {
        return Ok(None);
    }
    let lab = doc.entry("lab").or_insert_with(|| toml::Value::Table(toml::Table::new()));
    let Some(lab) = lab.as_table_mut() else { return Ok(None) };
    for (key, value) in found {
        if lab.contains_key(key) {
            return Err(ConfigError {
                file: file.into(),
                key: format!("play.{key}"),
                message: format!("also set as lab.{key}; a lab setting belongs in [lab] only"),
            });
        }
        log::warn!(
            "{file}: play.{key} is a lab setting, read as lab.{key}; move it to a [lab] table{}",
            if key == "faults" { " or give --faults" } else { "" }
        );
        lab.insert(key.to_string(), value);
    }
    Ok(Some(toml::to_string(&doc).unwrap_or_else(|_| text.to_string())))
}

fn toml_error_key(text: &str, e: &toml::de::Error) -> Option<String> {
    if let Some(k) = e.message().split('`').nth(1).filter(|_| e.message().contains(" field `")) {
        // serde's "unknown field `x`" / "missing field `x`": prefix the table.
        let span = e.span()?;
        let line = line_at(text, span.start);
        if let Some(header) = table_header(line) {
            // An unknown sub-table (`[ai.nope]`): the header names the key.
            let parts: Vec<&str> = header.split('.').map(str::trim).collect();
            if let Some(i) = parts.iter().position(|p| *p == k) {
                return Some(parts[..=i].join("."));
            }
        }
        let table = table_at(text, span.start);
        return Some(if table.is_empty() { k.to_string() } else { format!("{table}.{k}") });
    }
    let span = e.span()?;
    let table = table_at(text, span.start);
    let line = line_at(text, span.start);
    let key = line.split('=').next().map(str::trim).filter(|k| !k.is_empty() && !k.starts_with('['))?;
    Some(if table.is_empty() { key.to_string() } else { format!("{table}.{key}") })
}

/// The line of `text` that holds byte `pos`.
fn line_at(text: &str, pos: usize) -> &str {
    let pos = pos.min(text.len());
    let start = text[..pos].rfind('\n').map_or(0, |i| i + 1);
    text[start..].lines().next().unwrap_or("")
}

/// The table name of a `[table]` header line (a comment after it allowed); `None` for other lines.
fn table_header(line: &str) -> Option<&str> {
    let rest = line.trim_start().strip_prefix('[').filter(|r| !r.starts_with('['))?;
    rest.split(']').next().map(str::trim)
}

/// The name of the `[table]` whose body contains byte `pos`.
fn table_at(text: &str, pos: usize) -> String {
    let before = &text[..pos.min(text.len())];
    before.lines().rev().find_map(table_header).unwrap_or_default().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_text_gives_the_defaults() {
        assert_eq!(Config::parse("c.toml", "").unwrap(), Config::default());
    }

    #[test]
    fn the_shipped_config_toml_holds_the_defaults() {
        // One default per setting: the file users copy says what `Default` says, key for key.
        let shipped = include_str!("../config.toml");
        assert_eq!(Config::parse("config.toml", shipped).unwrap(), Config::default());
        assert!(!shipped.contains("[lab]"), "lab settings are not the user's");
    }

    #[test]
    fn lab_settings_live_in_their_own_table_and_print_only_when_set() {
        let lab = Config::parse("c.toml", "[lab]\nfaults = \"drop=0.05\"\nstop_at_game_over = false\n").unwrap();
        assert_eq!(lab.lab.faults, "drop=0.05");
        assert!(!lab.lab.stop_at_game_over);
        assert!(lab.to_toml().contains("[lab]"), "a recorded run keeps them");
        assert!(!Config::default().to_toml().contains("[lab]"), "--print-config of the defaults has none");
        assert_eq!(Config::parse("c.toml", &lab.to_toml()).unwrap(), lab, "reads back");
        // In [play] (as older files have them) they are read as [lab] ones, with a warning.
        let old = Config::parse("c.toml", "[play]\nspeed = 3\nthreaded_bots = false\nfaults = \"delay=2\"\n").unwrap();
        assert_eq!((old.play.speed, old.lab.threaded_bots, old.lab.faults.as_str()), (3, false, "delay=2"));
        let both = Config::parse("c.toml", "[play]\nfaults = \"\"\n[lab]\nfaults = \"delay=2\"\n").unwrap_err();
        assert_eq!(both.key, "play.faults", "{both}");
        let bad = Config::parse("c.toml", "[lab]\nfaults = \"drop=2\"\n").unwrap_err();
        assert_eq!(bad.key, "lab.faults", "{bad}");
    }

    #[test]
    fn the_2p_rules_table_reads_a_number_or_none_and_names_a_bad_key() {
        let c = Config::parse("c.toml", "[rules]\nnuisance_cap = \"none\"\nnuisance_drop = 18\n").unwrap();
        let choices = c.game_options().rules;
        assert_eq!((choices.cap, choices.drop, choices.points), (Some(None), Some(18), None));
        let c = Config::parse("c.toml", "[rules]\nnuisance_cap = 60\nnuisance_overflow = \"requeue\"\n").unwrap();
        let choices = c.rules.choices();
        assert_eq!((choices.cap, choices.overflow), (Some(Some(60)), Some(crate::game::NuisanceOverflow::Requeue)));
        assert_eq!(Config::parse("c.toml", &c.to_toml()).unwrap(), c, "reads back");
        let e = Config::parse("c.toml", "[rules]\nnuisance_points = 0\n").unwrap_err();
        assert_eq!(e.key, "rules.nuisance_points", "{e}");
        let e = Config::parse("c.toml", "[rules]\nnuisance_cap = \"lots\"\n").unwrap_err();
        assert!(e.key.starts_with("rules"), "{e}");
    }

    #[test]
    fn a_bad_speed_names_the_file_and_key() {
        let e = Config::parse("c.toml", "[play]\nspeed = 11\n").unwrap_err();
        assert_eq!(e.key, "play.speed");
        assert!(e.to_string().starts_with("c.toml: play.speed"), "{e}");
        let e = Config::parse("c.toml", "[play]\nspeed = \"fast\"\n").unwrap_err();
        assert_eq!(e.key, "play.speed", "{e}");
    }

    #[test]
    fn an_unknown_key_is_refused() {
        let e = Config::parse("c.toml", "[play]\nsped = 3\n").unwrap_err();
        assert_eq!(e.key, "play.sped", "{e}");
    }

    #[test]
    fn a_bad_mode_says_what_is_expected() {
        let e = Config::parse("c.toml", "[play]\nmode = \"tetris\"\n").unwrap_err();
        assert_eq!(e.key, "play.mode", "{e}");
        assert!(e.message.contains("endless"), "{e}");
    }

    #[test]
    fn bad_key_bindings_name_the_key() {
        let e = Config::parse("c.toml", "[keys]\nquit = \"NoSuchKey\"\n").unwrap_err();
        assert_eq!(e.key, "keys.quit", "{e}");
        assert!(e.to_string().starts_with("c.toml: keys.quit: "), "{e}");
        assert!(e.message.contains("\"NoSuchKey\"") && e.message.contains("Valid names"), "{e}");
        let e = Config::parse("c.toml", "[keys]\nhud = \"F11\"\n").unwrap_err();
        assert_eq!(e.key, "keys.hud", "{e}");
        assert!(e.message.contains("keys.fullscreen"), "{e}");
        let e = Config::parse("c.toml", "[keys]\nquitt = \"Q\"\n").unwrap_err();
        assert_eq!(e.key, "keys.quitt", "{e}");
    }

    #[test]
    fn the_window_tables_are_typed_at_load() {
        let c = Config::parse("c.toml", "[keys]\nquit = \"Q\"\n").unwrap();
        assert_eq!(c.keys.quit, "Q");
        assert_eq!(c.keys.pause, KeyBindings::default().pause);
    }

    #[test]
    fn ai_tables_are_refused_with_a_pointer_to_the_profiles() {
        let e = Config::parse("c.toml", "[ai.chain]\nchain = 1.5\n").unwrap_err();
        assert_eq!(e.key, "ai", "{e}");
        assert!(e.to_string().starts_with("c.toml: ai: ") && e.message.contains("AI profiles"), "{e}");
        let e = Config::parse("c.toml", "[bots]\nsamples = 2\n").unwrap_err();
        assert_eq!(e.key, "bots.samples", "{e}");
    }

    #[test]
    fn a_bad_profile_key_names_the_file_the_table_and_the_key() {
        let e = parse_profile("p.toml", "[ai.chain]\nw = 1.5\n").unwrap_err();
        assert_eq!(e.key, "ai.chain.w", "{e}");
        assert!(e.to_string().starts_with("p.toml: ai.chain.w: ") && e.message.contains("unknown field"), "{e}");
        let e = parse_profile("p.toml", "[ai.search]\ndepth = \"deep\"\n").unwrap_err();
        assert_eq!(e.key, "ai.search.depth", "{e}");
        let e = parse_profile("p.toml", "[ai.nope]\nx = 1\n").unwrap_err();
        assert_eq!(e.key, "ai.nope", "{e}");
        let e = parse_profile("p.toml", "[ai.chain]   # the chain builder\nw = 1.5\n").unwrap_err();
        assert_eq!(e.key, "ai.chain.w", "{e}");
        let e = parse_profile("p.toml", "[ai.chain]\ntemplate_name = \"zigzag\"\n").unwrap_err();
        assert_eq!(e.key, "ai.chain.template_name", "{e}");
        assert!(e.message.contains("zigzag") && e.message.contains("gtr"), "{e}");
        let e = parse_profile("p.toml", "[play]\nspeed = 3\n").unwrap_err();
        assert_eq!(e.key, "play", "{e}");
    }

    #[test]
    fn a_profile_is_a_name_or_a_file() {
        assert_eq!(load_profile("full").unwrap(), AiConfig::default());
        assert_eq!(load_profile("two-ply").unwrap(), AiConfig::two_ply());
        let e = load_profile("/nonexistent/profile.toml").unwrap_err();
        assert!(e.to_string().starts_with("/nonexistent/profile.toml: (file): ") && e.message.contains("full"), "{e}");
        let p = parse_profile("p.toml", "[ai.chain]\nchain = 7.5\n").unwrap();
        assert_eq!(p.chain.chain, 7.5);
        assert_eq!(p.search, AiConfig::default().search, "a key not set is the full profile's");
    }

    #[test]
    fn print_config_round_trips() {
        let text = "[play]\nspeed = 3\n[keys]\nhud = \"\"\n[bots]\np2 = \"chain\"\n";
        let c = Config::parse("c.toml", text).unwrap();
        assert_eq!(Config::parse("printed", &c.to_toml()).unwrap(), c);
        assert_eq!(Config::parse("printed", &Config::default().to_toml()).unwrap(), Config::default());
    }

    #[test]
    fn seats_get_the_bots_and_the_full_profile_unless_told_otherwise() {
        let c = Config::parse("c.toml", "[bots]\np2 = \"greedy\"\n").unwrap();
        let s = c.seat_config();
        assert_eq!(s.ai, AiConfig::default());
        assert_eq!(s.bots, ["chain".to_string(), "greedy".to_string()]);
        assert_eq!(s.budget, None, "headless searches run to their end");
        let fast = Config::parse("c.toml", "[bots]\nprofile = \"two-ply\"\n").unwrap();
        assert_eq!(fast.seat_config().ai, AiConfig::two_ply());
        assert_eq!(Config::parse("printed", &fast.to_toml()).unwrap(), fast);
        let e = Config::parse("c.toml", "[bots]\nprofile = \"fast\"\n").unwrap_err();
        assert_eq!(e.key, "bots.profile", "{e}");
        assert!(e.message.contains("full, two-ply"), "{e}");
    }

    #[test]
    fn a_window_bot_on_a_worker_thread_answers_by_the_time_its_pair_moves() {
        let c = Config::parse("c.toml", "[play]\nspeed = 10\n").unwrap();
        let w = c.window_seat_config();
        assert_eq!(w.budget, Some(crate::play::thinker::window_budget(10)));
        assert_eq!(SeatConfig { budget: None, ..w }, c.seat_config(), "only the budget differs");
        let inline = Config::parse("c.toml", "[lab]\nthreaded_bots = false\n").unwrap();
        assert_eq!(inline.window_seat_config().budget, None, "an inline bot holds the frame loop anyway");
    }

    #[test]
    fn strength_is_one_level_or_one_per_side_and_bad_values_name_key_and_range() {
        use crate::ai::Level;
        let level = |n| Level::new(n).unwrap();
        assert_eq!(Config::default().seat_config().strength, [Level::FULL; 2]);
        let c = Config::parse("c.toml", "[bots]\nstrength = 4\n").unwrap();
        assert_eq!(c.seat_config().strength, [level(4); 2]);
        let c = Config::parse("c.toml", "[bots]\nstrength = [3, 10]\n").unwrap();
        assert_eq!(c.seat_config().strength, [level(3), level(10)]);
        assert_eq!(Config::parse("printed", &c.to_toml()).unwrap(), c);
        for bad in ["11", "-1", "[1, 2, 3]", "\"hard\"", "[3, 12]"] {
            let e = Config::parse("c.toml", &format!("[bots]\nstrength = {bad}\n")).unwrap_err();
            assert_eq!(e.key, "bots.strength", "{bad}: {e}");
            assert!(e.message.contains("0..=10"), "{bad}: {e}");
        }
    }
}
