//! Which configuration file a command reads: `--config FILE` (which must exist), else `./config.toml`
//! when the current folder has one, else the user's file (`~/.config/puyobot/config.toml` on Linux,
//! [`crate::paths::user_config_file`]), else the built-in defaults. The first file found is read whole;
//! files are not layered, so what `--print-config` shows comes from one file and the flags.

use std::path::{Path, PathBuf};

use crate::config::{Config, DEFAULT_FILE};

/// The configuration a command runs with and the file it came from (`None`: the built-in defaults).
#[derive(Clone, Debug)]
pub struct Loaded {
    /// The configuration as read (flags not applied yet).
    pub config: Config,
    /// The file read.
    pub file: Option<PathBuf>,
}

/// The file to read: `explicit` when given, else the first of `./config.toml` and the user's file that
/// exists.
pub fn locate(explicit: Option<&Path>) -> Option<PathBuf> {
    if let Some(p) = explicit {
        return Some(p.to_path_buf());
    }
    let local = PathBuf::from(DEFAULT_FILE);
    if local.is_file() {
        return Some(local);
    }
    crate::paths::user_config_file().filter(|p| p.is_file())
}

/// Reads the configuration [`locate`] finds; an explicit file that cannot be read is an error.
pub fn load(explicit: Option<&Path>) -> anyhow::Result<Loaded> {
    match locate(explicit) {
        Some(file) => Ok(Loaded { config: Config::load(&file, true)?, file: Some(file) }),
        None => Ok(Loaded { config: Config::default(), file: None }),
    }
}

/// The comment `--print-config` puts above the configuration: where it came from.
pub fn provenance(file: Option<&Path>) -> String {
    let from = match file {
        Some(f) => format!("the built-in defaults, then {}", absolute(f).display()),
        None => "the built-in defaults (no config file found)".to_string(),
    };
    format!("# puyobot configuration: {from}, then the command-line flags\n")
}

fn absolute(p: &Path) -> PathBuf {
    std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf())
}
