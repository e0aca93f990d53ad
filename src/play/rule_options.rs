//! The 2P rules asked for on the command line (`--nuisance-cap`, `--nuisance-drop`, `--nuisance-points`,
//! `--nuisance-overflow`): the menu scripts set each on the game's menus where the address file knows
//! the option (`[options.nuisance_*]`), and the bots play with them from the first piece. The rules watch
//! ([`super::rules_watch`]) then checks the game deals them, as it checks the guesses.

use crate::game::{NuisanceOverflow, Rules};
use crate::memmap::schema::{GameOptions, MenuStep, RuleOption};

use super::options::with_rule;

/// The 2P rules asked for; `None`: not asked (the guesses, then what is learned).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RuleChoices {
    /// The per-chain cap: `Some(None)` for no cap.
    pub cap: Option<Option<u32>>,
    /// Most nuisance per drop.
    pub drop: Option<u32>,
    /// Points per nuisance.
    pub points: Option<u32>,
    /// What nuisance that does not fit does.
    pub overflow: Option<NuisanceOverflow>,
}

impl RuleChoices {
    /// Whether nothing was asked.
    pub fn is_empty(&self) -> bool {
        *self == RuleChoices::default()
    }

    /// Writes the rules asked for into `rules`.
    pub fn apply(&self, rules: &mut Rules) {
        if let Some(c) = self.cap {
            rules.nuisance_cap_per_chain = c;
        }
        if let Some(d) = self.drop {
            rules.nuisance_max_drop = d;
        }
        if let Some(p) = self.points {
            rules.nuisance_rate = p;
        }
        if let Some(o) = self.overflow {
            rules.nuisance_overflow = o;
        }
    }

    /// Each rule asked for with its flag, the option entry that sets it and the rule's number there
    /// (the cap's none is 0, overflow's vanish 0 and requeue 1).
    fn wanted<'a>(&self, options: &'a GameOptions) -> Vec<(&'static str, &'static str, Option<&'a RuleOption>, u32)> {
        let mut out = Vec::new();
        if let Some(c) = self.cap {
            out.push(("--nuisance-cap", "nuisance_cap", options.nuisance_cap.as_ref(), c.unwrap_or(0)));
        }
        if let Some(d) = self.drop {
            out.push(("--nuisance-drop", "nuisance_drop", options.nuisance_drop.as_ref(), d));
        }
        if let Some(p) = self.points {
            out.push(("--nuisance-points", "nuisance_points", options.nuisance_points.as_ref(), p));
        }
        if let Some(o) = self.overflow {
            let v = u32::from(o == NuisanceOverflow::Requeue);
            out.push(("--nuisance-overflow", "nuisance_overflow", options.nuisance_overflow.as_ref(), v));
        }
        out
    }

    /// Refuses a rule asked for that the address file's options cannot set, or a value the game does not
    /// offer, naming the flag and the table.
    pub fn check(&self, options: &GameOptions, file: &str) -> Result<(), String> {
        for (flag, table, option, value) in self.wanted(options) {
            let Some(option) = option else {
                return Err(format!(
                    "{flag}: the address file ({file}) does not say where the game keeps this rule \
                     ([options.{table}]); set it on the game's menus yourself in the window (`puyobot play \
                     --no-menu`) and tell the bots with the flag there"
                ));
            };
            if !option.rules.contains(&value) {
                return Err(format!("{flag}: the game offers {:?} ([options.{table}] rules; 0 = none)", option.rules));
            }
        }
        Ok(())
    }

    /// `steps` with each rule asked for set on the menus before the game's last Start.
    pub fn script(&self, steps: Vec<MenuStep>, options: &GameOptions) -> Vec<MenuStep> {
        let mut out = steps;
        for (flag, _, option, value) in self.wanted(options) {
            if let Some(option) = option {
                out = with_rule(&out, option, value, &format!("{flag} {value}")).unwrap_or(out);
            }
        }
        out
    }
}
