//! The bots' settings as one [`AiConfig`] (weights per evaluation, search options, ignition policy), and
//! the named AI profiles built from them. The values of the `full` profile are the types' `Default`
//! impls, the one place each default is kept; every other profile is written as its difference from it.
//! A profile file (`puyobot sim --profile FILE`, `puyobot train --profile FILE`) holds `[ai.*]` tables;
//! every key is optional (the `full` profile's value), an unknown key is an error.

use serde::{Deserialize, Serialize};

use super::eval::{ChainWeights, ClassicWeights};
use super::ignition::IgnitionPolicy;
use super::rush::RushWeights;
use super::search::SearchOptions;

/// The bots' settings: what a profile sets.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct AiConfig {
    /// Weights of the `classic` evaluation.
    pub classic: ClassicWeights,
    /// Weights of the `chain` evaluation.
    pub chain: ChainWeights,
    /// Search options, shared by all bots.
    pub search: SearchOptions,
    /// Ignition policy of the `chain` bot.
    pub ignition: IgnitionPolicy,
    /// What the `rush` attacker changes in the chain evaluation.
    pub rush: RushWeights,
}

/// The default AI profile: of `[bots] profile`, and of `--profile` in `sim` and `train`.
pub const DEFAULT_PROFILE: &str = "full";

/// The profile `play --fast` selects: current and next pair only.
pub const FAST_PROFILE: &str = "two-ply";

/// The named profiles with what each is for, the default of `sim` and `train` first.
pub const PROFILES: [(&str, &str); 2] = [
    (DEFAULT_PROFILE, "the tuned weights with sampled futures, the beam and the late look: `sim`, `train` and `play`"),
    (FAST_PROFILE, "the same weights, current and next pair only: `play --fast`, quick headless statistics"),
];

/// A profile file: its `[ai.*]` tables, and nothing else.
#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct ProfileFile {
    #[serde(default)]
    ai: AiConfig,
}

impl AiConfig {
    /// The profile called `name` (one of [`PROFILES`]).
    pub fn named(name: &str) -> Option<AiConfig> {
        match name {
            DEFAULT_PROFILE => Some(AiConfig::default()),
            FAST_PROFILE => Some(AiConfig::two_ply()),
            _ => None,
        }
    }

    /// The `two-ply` profile: the `full` profile without sampled futures. Eight sampled futures make a
    /// `chain` decision about 15 times as costly; without them a headless run is quick (`play --fast`).
    pub fn two_ply() -> AiConfig {
        let mut c = AiConfig::default();
        c.search.samples = 0;
        c
    }

    /// Reads a profile file's text: `[ai.*]` tables only; a missing key takes the `full` profile's value,
    /// an unknown key or table is an error.
    pub fn from_toml(text: &str) -> Result<AiConfig, toml::de::Error> {
        let file: ProfileFile = toml::from_str(text)?;
        Ok(file.ai)
    }

    /// The profile as the text of a profile file (what [`AiConfig::from_toml`] reads back).
    pub fn to_toml(&self) -> String {
        let file = ProfileFile { ai: self.clone() };
        toml::to_string_pretty(&file).unwrap_or_else(|e| format!("# cannot print the profile: {e}\n"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_named_profile_prints_to_a_file_that_reads_back_the_same() {
        for (name, _) in PROFILES {
            let p = AiConfig::named(name).expect("a named profile");
            assert_eq!(AiConfig::from_toml(&p.to_toml()).expect("reads back"), p, "{name}");
        }
        assert_eq!(AiConfig::named("nope"), None);
    }

    #[test]
    fn two_ply_differs_from_full_only_in_its_sampled_futures() {
        let (full, two) = (AiConfig::named("full").unwrap(), AiConfig::named("two-ply").unwrap());
        assert_eq!(two.search.samples, 0);
        assert_ne!(full.search.samples, 0);
        assert_eq!(
            AiConfig { search: SearchOptions { samples: full.search.samples, ..two.search.clone() }, ..two },
            full
        );
    }

    #[test]
    fn a_profile_file_holds_ai_tables_only() {
        assert_eq!(AiConfig::from_toml("[ai.chain]\nchain = 5.0\n").expect("parses").chain.chain, 5.0);
        assert!(AiConfig::from_toml("[ai.chain]\nchian = 5.0\n").is_err());
        // rush's own table changes only the weights rush searches with.
        let c = AiConfig::from_toml("[ai.rush]\nbattle_sent = 7.0\n").expect("parses");
        assert_eq!((c.rush.apply(&c.chain).battle_sent, c.chain.battle_sent), (7.0, 0.0));
        assert!(AiConfig::from_toml("[play]\nspeed = 3\n").is_err());
    }
}
