//! `play`'s 2P rule flags: the cartridge's nuisance rules, set on its menus where the address file knows
//! them, and played with (and checked) from the first piece.

use clap::Args;

use crate::game::NuisanceOverflow;
use crate::play::rule_options::RuleChoices;

/// The 2P rule flags of `puyobot play`.
#[derive(Args, Clone, Debug, Default)]
pub struct PlayRuleFlags {
    /// 2P: most nuisance one chain sends (a number, or `none`): set on the menus where the address file
    /// knows the option, and checked against the game.
    #[arg(long, value_name = "N|none")]
    pub nuisance_cap: Option<String>,
    /// 2P: most nuisance that falls at once (1..=255).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=255))]
    pub nuisance_drop: Option<u32>,
    /// 2P: points per nuisance (10..=1280).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(10..=1280))]
    pub nuisance_points: Option<u32>,
    /// 2P: nuisance that finds its column full vanishes or goes back to the queue.
    #[arg(long, value_name = "vanish|requeue")]
    pub nuisance_overflow: Option<String>,
}

impl PlayRuleFlags {
    /// The rules asked for, or the flag and what it expected.
    pub fn choices(&self) -> anyhow::Result<RuleChoices> {
        let cap = match self.nuisance_cap.as_deref() {
            None => None,
            Some(t) if t.eq_ignore_ascii_case("none") => Some(None),
            Some(t) => match t.parse::<u32>() {
                Ok(n) if (1..=255).contains(&n) => Some(Some(n)),
                _ => anyhow::bail!("--nuisance-cap {t}: expected a number 1..=255 or `none`"),
            },
        };
        let overflow = match self.nuisance_overflow.as_deref() {
            None => None,
            Some(t) if t.eq_ignore_ascii_case("vanish") => Some(NuisanceOverflow::Vanish),
            Some(t) if t.eq_ignore_ascii_case("requeue") => Some(NuisanceOverflow::Requeue),
            Some(t) => anyhow::bail!("--nuisance-overflow {t}: expected `vanish` or `requeue`"),
        };
        Ok(RuleChoices { cap, drop: self.nuisance_drop, points: self.nuisance_points, overflow })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_flags_read_numbers_none_and_words_and_refuse_the_rest() {
        let f = PlayRuleFlags {
            nuisance_cap: Some("none".into()),
            nuisance_overflow: Some("requeue".into()),
            ..Default::default()
        };
        let c = f.choices().expect("valid flags");
        assert_eq!((c.cap, c.overflow), (Some(None), Some(NuisanceOverflow::Requeue)));
        let bad = PlayRuleFlags { nuisance_cap: Some("lots".into()), ..Default::default() };
        assert!(bad.choices().unwrap_err().to_string().contains("--nuisance-cap lots"));
    }
}
