//! The 2P rule flags (`--nuisance-cap`, `--nuisance-drop`, `--nuisance-points`, `--nuisance-overflow`):
//! one clap group that a subcommand flattens into its arguments, and the [`Rules`] they make.

use crate::game::{NuisanceOverflow, Rules};
use crate::play::rule_options::RuleChoices;

/// The battle rules a run is played under. Left out, each keeps the value of Puyo Puyo's rules
/// ([`Rules::puyo1`]).
#[derive(Debug, Clone, Default, clap::Args)]
pub struct RulesArgs {
    /// Most nuisance one chain sends (the cartridge's LIMIT option), or `none` for no cap as in the arcade
    /// game [default: 30]. `play` sets it on the menus where the address file knows the option, and checks it.
    #[arg(long, value_name = "N|none", value_parser = parse_cap)]
    pub nuisance_cap: Option<Cap>,
    /// Most nuisance that falls on a field at once; the rest stays queued [default: 30].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub nuisance_drop: Option<u32>,
    /// Points per nuisance puyo sent [default: 70].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub nuisance_points: Option<u32>,
    /// What a nuisance puyo finding its column full does: vanish, or stay queued for a later drop
    /// (requeue) [default: vanish].
    #[arg(long, value_name = "vanish|requeue", value_parser = parse_overflow)]
    pub nuisance_overflow: Option<NuisanceOverflow>,
}

/// A per-chain nuisance cap as the flag gives it: a number, or none.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cap(pub Option<u32>);

impl RulesArgs {
    /// The rules asked for: what `play` sets on the cartridge's menus and checks, and what `sim` plays.
    pub fn choices(&self) -> RuleChoices {
        RuleChoices {
            cap: self.nuisance_cap.map(|c| c.0),
            drop: self.nuisance_drop,
            points: self.nuisance_points,
            overflow: self.nuisance_overflow,
        }
    }

    /// Lays the flags given over the configuration's `[rules]`.
    pub fn lay_over(&self, rules: &mut crate::config::RulesSettings) {
        use crate::config::{CapSetting, NoCap};
        if let Some(Cap(cap)) = self.nuisance_cap {
            rules.nuisance_cap = Some(cap.map_or(CapSetting::Word(NoCap::None), CapSetting::Count));
        }
        rules.nuisance_drop = self.nuisance_drop.or(rules.nuisance_drop);
        rules.nuisance_points = self.nuisance_points.or(rules.nuisance_points);
        rules.nuisance_overflow = self.nuisance_overflow.or(rules.nuisance_overflow);
    }

    /// `base` with the flags given applied.
    pub fn apply(&self, mut base: Rules) -> Rules {
        self.choices().apply(&mut base);
        base
    }
}

/// `--nuisance-cap`: a positive number or `none`.
fn parse_cap(text: &str) -> Result<Cap, String> {
    if text.eq_ignore_ascii_case("none") {
        return Ok(Cap(None));
    }
    match text.parse::<u32>() {
        Ok(n) if n >= 1 => Ok(Cap(Some(n))),
        _ => Err(format!("expected a number of nuisance puyos of at least 1, or none; got {text:?}")),
    }
}

/// `--nuisance-overflow`: `vanish` or `requeue`.
fn parse_overflow(text: &str) -> Result<NuisanceOverflow, String> {
    [NuisanceOverflow::Vanish, NuisanceOverflow::Requeue]
        .into_iter()
        .find(|o| o.name().eq_ignore_ascii_case(text))
        .ok_or_else(|| format!("expected vanish or requeue, got {text:?}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(clap::Parser)]
    struct Cli {
        #[command(flatten)]
        rules: RulesArgs,
    }

    fn rules_of(flags: &[&str]) -> Result<Rules, String> {
        let cli = <Cli as clap::Parser>::try_parse_from(std::iter::once("battle").chain(flags.iter().copied()))
            .map_err(|e| e.to_string())?;
        Ok(cli.rules.apply(Rules::puyo1()))
    }

    #[test]
    fn no_flag_keeps_puyo_puyos_rules() {
        assert_eq!(rules_of(&[]).unwrap(), Rules::puyo1());
    }

    #[test]
    fn each_flag_sets_its_rule() {
        let r = rules_of(&[
            "--nuisance-cap",
            "none",
            "--nuisance-drop",
            "18",
            "--nuisance-points",
            "120",
            "--nuisance-overflow",
            "requeue",
        ])
        .unwrap();
        assert_eq!(r.nuisance_cap_per_chain, None);
        assert_eq!(r.nuisance_cap(), u32::MAX);
        assert_eq!((r.nuisance_max_drop, r.nuisance_rate), (18, 120));
        assert_eq!(r.nuisance_overflow, NuisanceOverflow::Requeue);
        assert_eq!(rules_of(&["--nuisance-cap", "60"]).unwrap().nuisance_cap_per_chain, Some(60));
        assert!(r.validate().is_ok());
    }

    #[test]
    fn bad_values_are_refused_naming_the_flag_and_what_was_expected() {
        for (flags, wanted) in [
            (["--nuisance-cap", "0"], "or none"),
            (["--nuisance-cap", "lots"], "or none"),
            (["--nuisance-drop", "0"], "1..=1000"),
            (["--nuisance-points", "x"], "invalid digit"),
            (["--nuisance-overflow", "drop"], "vanish or requeue"),
        ] {
            let e = rules_of(&flags).unwrap_err();
            assert!(e.contains(flags[0]), "{flags:?}: {e}");
            assert!(e.contains(wanted), "{flags:?}: {e}");
        }
    }
}
