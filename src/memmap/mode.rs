//! The three game modes: which address file a session reads and who plays which pad.

use serde::{Deserialize, Serialize};

/// Which game the bot plays.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum Mode {
    /// 1P Endless, the bot on pad 1.
    Endless,
    /// 2P, a person on pad 1 and the bot on pad 2; the game starts when the person presses Start.
    VsHuman,
    /// 2P, a bot on each pad.
    AiVsAi,
}

impl Mode {
    /// The name used on the command line and in files.
    pub fn name(self) -> &'static str {
        match self {
            Mode::Endless => "endless",
            Mode::VsHuman => "vs-human",
            Mode::AiVsAi => "ai-vs-ai",
        }
    }
}

impl std::fmt::Display for Mode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}
