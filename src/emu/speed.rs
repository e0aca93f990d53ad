//! How fast the emulator runs: the NES frame rate and the speed steps a window (and `config.toml`'s
//! `play.emu_speed`) offers. One type for the configuration, the command line and the window's pacing.

use std::fmt;

use serde::{Deserialize, Serialize};

/// NTSC NES frame rate (frames per second).
pub const NES_FPS: f64 = 60.098_8;

/// Emulator speed steps, slowest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default, Serialize, Deserialize, clap::ValueEnum)]
pub enum EmuSpeed {
    /// Half speed (slow motion).
    #[serde(rename = "0.5")]
    #[value(name = "0.5")]
    Half,
    /// Real time (60 frames per second).
    #[default]
    #[serde(rename = "1")]
    #[value(name = "1")]
    X1,
    /// Twice real time.
    #[serde(rename = "2")]
    #[value(name = "2")]
    X2,
    /// Four times real time.
    #[serde(rename = "4")]
    #[value(name = "4")]
    X4,
    /// As fast as the machine can go (in a window: about 16 ms of emulation per redraw).
    #[serde(rename = "max")]
    #[value(name = "max")]
    Max,
}

impl EmuSpeed {
    /// All steps, slowest first.
    pub const ALL: [EmuSpeed; 5] = [EmuSpeed::Half, EmuSpeed::X1, EmuSpeed::X2, EmuSpeed::X4, EmuSpeed::Max];

    /// Multiple of real time, or `None` for [`EmuSpeed::Max`].
    pub fn factor(self) -> Option<f64> {
        match self {
            EmuSpeed::Half => Some(0.5),
            EmuSpeed::X1 => Some(1.0),
            EmuSpeed::X2 => Some(2.0),
            EmuSpeed::X4 => Some(4.0),
            EmuSpeed::Max => None,
        }
    }

    /// The next faster step (stays at [`EmuSpeed::Max`]).
    pub fn faster(self) -> EmuSpeed {
        let i = Self::ALL.iter().position(|s| *s == self).unwrap_or(1);
        Self::ALL[(i + 1).min(Self::ALL.len() - 1)]
    }

    /// The next slower step (stays at [`EmuSpeed::Half`]).
    pub fn slower(self) -> EmuSpeed {
        let i = Self::ALL.iter().position(|s| *s == self).unwrap_or(1);
        Self::ALL[i.saturating_sub(1)]
    }

    /// Parses "0.5", "1", "2", "4", "max" (an optional trailing "x" is allowed).
    pub fn parse(s: &str) -> Option<EmuSpeed> {
        let t = s.trim().to_ascii_lowercase();
        if t == "max" {
            return Some(EmuSpeed::Max);
        }
        match t.strip_suffix('x').unwrap_or(&t) {
            "0.5" | "1/2" | "half" => Some(EmuSpeed::Half),
            "1" => Some(EmuSpeed::X1),
            "2" => Some(EmuSpeed::X2),
            "4" => Some(EmuSpeed::X4),
            _ => None,
        }
    }
}

impl fmt::Display for EmuSpeed {
    /// Short label for the HUD: "1/2X", "1X", "2X", "4X", "MAX".
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            EmuSpeed::Half => "1/2X",
            EmuSpeed::X1 => "1X",
            EmuSpeed::X2 => "2X",
            EmuSpeed::X4 => "4X",
            EmuSpeed::Max => "MAX",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn config_names_parse_back_to_the_same_step() {
        for s in EmuSpeed::ALL {
            let text = toml::to_string(&std::collections::BTreeMap::from([("s", s)])).expect("serialise");
            let name = text.trim().trim_start_matches("s = ").trim_matches('"').to_string();
            assert_eq!(EmuSpeed::parse(&name), Some(s), "{text}");
        }
        assert_eq!(EmuSpeed::parse("3"), None);
        assert_eq!(EmuSpeed::X1.faster(), EmuSpeed::X2);
        assert_eq!(EmuSpeed::Max.faster(), EmuSpeed::Max);
        assert_eq!(EmuSpeed::Half.slower(), EmuSpeed::Half);
    }
}
