//! Configuration of the bots: the `[ai]` table of `config.toml` (weights per evaluation, search options,
//! ignition policy), every key optional.

use serde::{Deserialize, Serialize};

use super::eval::{ChainWeights, ClassicWeights};
use super::ignition::IgnitionPolicy;
use super::search::SearchOptions;

/// The commented TOML snippet documenting the `[ai]` table (also in `src/ai/config_snippet.toml`).
pub const CONFIG_SNIPPET: &str = include_str!("config_snippet.toml");

/// The `[ai]` table.
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
}

/// A whole config file, of which only `[ai]` is read here (other tables are left to their owners).
#[derive(Debug, Default, Deserialize)]
struct ConfigFile {
    #[serde(default)]
    ai: AiConfig,
}

impl AiConfig {
    /// Reads the `[ai]` table from a config file's text; a missing table gives the defaults, an unknown
    /// key inside it is an error.
    pub fn from_toml(text: &str) -> Result<AiConfig, toml::de::Error> {
        let file: ConfigFile = toml::from_str(text)?;
        Ok(file.ai)
    }
}
