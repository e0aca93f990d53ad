//! Where puyobot keeps things on the user's machine: the configuration it reads and the data it writes
//! (save states, screenshots, replays). Paths follow the platform's conventions (the XDG directories on
//! Linux) through the `dirs` crate; `PUYOBOT_DATA_DIR` and `PUYOBOT_CONFIG_DIR` override them, which lets
//! tests and portable installs keep everything in one folder.

use std::path::PathBuf;

/// The folder for puyobot's configuration (`~/.config/puyobot` on Linux), or `None` when the platform has
/// no such folder and no override is set.
pub fn config_dir() -> Option<PathBuf> {
    from_env("PUYOBOT_CONFIG_DIR").or_else(|| dirs::config_dir().map(|d| d.join("puyobot")))
}

/// The user's configuration file (`config.toml` in [`config_dir`]).
pub fn user_config_file() -> Option<PathBuf> {
    config_dir().map(|d| d.join("config.toml"))
}

/// The folder for what puyobot writes for the user (`~/.local/share/puyobot` on Linux); falls back to
/// `./puyobot-data` when the platform has no data folder.
pub fn data_dir() -> PathBuf {
    from_env("PUYOBOT_DATA_DIR")
        .or_else(|| dirs::data_dir().map(|d| d.join("puyobot")))
        .unwrap_or_else(|| PathBuf::from("puyobot-data"))
}

/// A sub-folder of [`data_dir`] (e.g. `states`, `screenshots`, `replays`); not created here.
pub fn data_subdir(name: &str) -> PathBuf {
    data_dir().join(name)
}

fn from_env(var: &str) -> Option<PathBuf> {
    std::env::var_os(var).filter(|v| !v.is_empty()).map(PathBuf::from)
}

#[cfg(test)]
mod tests {
    #[test]
    fn data_subdirs_sit_under_the_data_dir() {
        let d = super::data_dir();
        assert_eq!(super::data_subdir("states"), d.join("states"));
        assert_eq!(
            super::user_config_file().map(|f| f.file_name().map(|n| n.to_owned())),
            super::config_dir().map(|_| Some("config.toml".into()))
        );
    }
}
