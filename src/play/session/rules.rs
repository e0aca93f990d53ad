//! The 2P rules asked for on the command line, handed to a built session: the bots play with them from
//! the first piece and the menu script sets them on the game's menus.

use crate::emu::Machine;

use super::super::rule_options::RuleChoices;
use super::{Phase, Session, SessionError};

impl<M: Machine> Session<M> {
    /// Plays with the 2P rules `choices` (each `None` keeps the guess): the bots' rules take them, the
    /// rules watch checks them, and the menu script (when it has not started) sets them on the menus.
    /// Refused when the script walks the menus and the address file cannot set one of them.
    pub fn choose_rules(&mut self, choices: &RuleChoices) -> Result<(), SessionError> {
        if choices.is_empty() {
            return Ok(());
        }
        let map = self.reading.decoder.map();
        if let Phase::Boot(_) = self.phase {
            choices.check(&map.options, &map.meta.name).map_err(SessionError)?;
        }
        choices.apply(&mut self.reading.rules);
        self.matches.rules.choices = choices.clone();
        self.matches.rules.set_in_use(&self.reading.rules);
        if let Phase::Boot(script) = &self.phase {
            let timeout = script.ready_timeout;
            let steps = self.reading.decoder.map().menu.steps.clone();
            self.phase = Phase::Boot(self.script(&steps, timeout));
        }
        Ok(())
    }
}
