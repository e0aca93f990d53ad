//! `config.toml`: every default of `puyobot play`, overridable by flags; `--print-config` shows the merge.
//!
//! The player's own tables (`[play]`, `[bots]`) are typed here and refuse unknown keys. `[keys]` (the
//! window's key bindings) and `[ai.*]` (the bots' weights) belong to the window and the AI; they are
//! kept as raw TOML tables and handed to those modules.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::emu::EmuSpeed;
pub use crate::memmap::Mode;

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
    /// Think on a worker thread in a window (the emulator keeps its frame pace); headless always waits.
    pub threaded_bots: bool,
    /// In headless runs, stop when a player tops out (endless) or a winner is known (2P).
    pub stop_at_game_over: bool,
    /// Pad faults injected between the session and the console, e.g. `"drop=0.05,delay=2,extra=0.01"`;
    /// empty = none. See [`crate::emu::faults::FaultSpec::parse`].
    pub faults: String,
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
            threaded_bots: true,
            stop_at_game_over: true,
            faults: String::new(),
        }
    }
}

/// The `[bots]` table: which AI plays each side.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct BotSettings {
    /// Evaluation of player 1's bot (`classic`, `chain`, or `greedy`, a cheap two-ply bot the tests use).
    pub p1: String,
    /// Evaluation of player 2's bot.
    pub p2: String,
    /// Sampled unseen pairs for the averaged third ply in emulator play, replacing `[ai.search].samples`
    /// (which `puyobot sim` uses). The sampled ply roughly triples a `chain` decision; without it headless
    /// AI-vs-AI keeps the emulator's pace.
    pub samples: u32,
}

impl Default for BotSettings {
    fn default() -> Self {
        BotSettings { p1: "chain".into(), p2: "classic".into(), samples: 0 }
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
    /// Window key bindings (read by the window module).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub keys: Option<toml::Table>,
    /// AI weights by evaluation name (`[ai.classic]`, `[ai.chain]`; read by the AI module).
    #[serde(skip_serializing_if = "toml::Table::is_empty")]
    pub ai: toml::Table,
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
    /// Parses config text; `file` names it in errors.
    pub fn parse(file: &str, text: &str) -> Result<Config, ConfigError> {
        let cfg: Config = toml::from_str(text).map_err(|e| {
            let key = toml_error_key(text, &e).unwrap_or_else(|| "(parse)".into());
            ConfigError { file: file.into(), key, message: e.message().trim().to_string() }
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
        if self.play.speed > 10 {
            return Err(ConfigError {
                file: file.into(),
                key: "play.speed".into(),
                message: format!("expected 0..=10, got {}", self.play.speed),
            });
        }
        for (key, name) in [("bots.p1", &self.bots.p1), ("bots.p2", &self.bots.p2)] {
            if !crate::ai::NAMES.contains(&name.as_str()) {
                return Err(ConfigError {
                    file: file.into(),
                    key: key.into(),
                    message: format!("expected one of {:?}, got {name:?}", crate::ai::NAMES),
                });
            }
        }
        crate::emu::faults::FaultSpec::parse(&self.play.faults).map_err(|message| ConfigError {
            file: file.into(),
            key: "play.faults".into(),
            message,
        })?;
        self.key_bindings(file)?;
        Ok(())
    }

    /// The window's key bindings from `[keys]` (defaults when the table is absent), checked.
    pub fn key_bindings(&self, file: &str) -> Result<crate::ui::KeyBindings, ConfigError> {
        let Some(table) = &self.keys else { return Ok(crate::ui::KeyBindings::default()) };
        let keys: crate::ui::KeyBindings =
            toml::Value::Table(table.clone()).try_into().map_err(|e: toml::de::Error| {
                let field = e.message().split('`').nth(1).map_or(String::new(), |k| format!(".{k}"));
                ConfigError { file: file.into(), key: format!("keys{field}"), message: e.message().trim().to_string() }
            })?;
        keys.resolve().map_err(|e| ConfigError { file: file.into(), key: "keys".into(), message: e.to_string() })?;
        Ok(keys)
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

/// Finds the dotted key a TOML error points at, from its byte span: the table header above it and the key
/// on its line.
fn toml_error_key(text: &str, e: &toml::de::Error) -> Option<String> {
    if let Some(k) = e.message().split('`').nth(1).filter(|_| e.message().contains(" field `")) {
        // serde's "unknown field `x`" / "missing field `x`": prefix the table.
        let span = e.span()?;
        let table = table_at(text, span.start);
        return Some(if table.is_empty() { k.to_string() } else { format!("{table}.{k}") });
    }
    let span = e.span()?;
    let table = table_at(text, span.start);
    let line_start = text[..span.start.min(text.len())].rfind('\n').map_or(0, |i| i + 1);
    let line = text[line_start..].lines().next().unwrap_or("");
    let key = line.split('=').next().map(str::trim).filter(|k| !k.is_empty() && !k.starts_with('['))?;
    Some(if table.is_empty() { key.to_string() } else { format!("{table}.{key}") })
}

/// The name of the `[table]` whose body contains byte `pos`.
fn table_at(text: &str, pos: usize) -> String {
    let before = &text[..pos.min(text.len())];
    before
        .lines()
        .rev()
        .map(str::trim)
        .find(|l| l.starts_with('[') && !l.starts_with("[["))
        .map(|l| l.trim_matches(|c| c == '[' || c == ']').trim().to_string())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_text_gives_the_defaults() {
        assert_eq!(Config::parse("c.toml", "").unwrap(), Config::default());
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
        assert!(e.to_string().starts_with("c.toml: keys: keys.quit"), "{e}");
        let e = Config::parse("c.toml", "[keys]\nquitt = \"Q\"\n").unwrap_err();
        assert_eq!(e.key, "keys.quitt", "{e}");
    }

    #[test]
    fn foreign_tables_are_kept() {
        let c = Config::parse("c.toml", "[keys]\nquit = \"Q\"\n[ai.chain]\nw = 1.5\n").unwrap();
        assert!(c.keys.is_some());
        assert!(c.ai.contains_key("chain"));
        assert!(c.to_toml().contains("[ai.chain]"));
    }
}
