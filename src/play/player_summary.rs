//! One player's line of a report: of the whole run ([`super::report::Summary::players`]) or of one game of
//! it ([`super::matches::GameResult::players`]). A game's line leaves out what only the run keeps (how
//! the score was read, the checks made, what the bot and its driver did); the JSON shows the fields in
//! the order written here, the parts left out missing.

use serde::Serialize;

/// One player's line of a report.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PlayerSummary {
    /// "P1" / "P2".
    pub label: String,
    /// The bot's name, or "human".
    pub bot: String,
    /// Pieces locked.
    pub pieces: u32,
    /// Locks that started a chain.
    pub chains: u32,
    /// Longest chain.
    pub largest_chain: u32,
    /// Score: from RAM when the address file knows where it is, else the model's sum (a headless match
    /// adds up its games' scores).
    pub score: u64,
    /// Where the score came from and how many locks were checked (the run's line only).
    #[serde(flatten)]
    pub checked: Option<Checked>,
    /// Comparisons where RAM differed from the model.
    pub mismatches: u64,
    /// The player topped out.
    pub topped_out: bool,
    /// What the bot and its driver did (the run's line only).
    #[serde(flatten)]
    pub bot_work: Option<BotWork>,
}

impl PlayerSummary {
    /// After-lock comparisons made (0 on a game's line, which does not count them).
    pub fn checks(&self) -> u64 {
        self.checked.as_ref().map_or(0, |c| c.checks)
    }

    /// "ram" or "model" ("" on a game's line, which does not say).
    pub fn score_source(&self) -> &str {
        self.checked.as_ref().map_or("", |c| c.score_source.as_str())
    }
}

/// Where a run's score came from, and the after-lock comparisons made.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Checked {
    /// "ram" or "model".
    pub score_source: String,
    /// After-lock comparisons made.
    pub checks: u64,
}

/// What a player's bot and its driver did over a run.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BotWork {
    /// Decisions made by the bot.
    pub decisions: u32,
    /// Total time in the bot's search, milliseconds.
    pub think_ms_total: f64,
    /// Times the driver re-planned because RAM disagreed with the plan.
    pub replans: u64,
    /// Pieces that locked somewhere other than the bot's decision (re-planned around a pad fault).
    pub off_plan: u64,
    /// Times the pair moved or turned with no press in flight (a press the link invented); from
    /// [`crate::play::seat::CAUTION_AFTER_UNASKED_MOVES`] on the bot plays with caution.
    pub unasked_moves: u64,
    /// RAM / model differences not held against the contract (not in `mismatches`): before calibration
    /// settled, or where codes no table lists were read (see `health`'s `locks_unread`).
    pub calibration_surprises: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(run: bool) -> PlayerSummary {
        PlayerSummary {
            label: "P1".into(),
            bot: "chain".into(),
            pieces: 40,
            chains: 3,
            largest_chain: 7,
            score: 1200,
            checked: run.then(|| Checked { score_source: "ram".into(), checks: 39 }),
            mismatches: 1,
            topped_out: false,
            bot_work: run.then_some(BotWork {
                decisions: 40,
                think_ms_total: 2.5,
                replans: 4,
                off_plan: 1,
                unasked_moves: 0,
                calibration_surprises: 2,
            }),
        }
    }

    #[test]
    fn a_game_line_and_a_run_line_keep_their_json_fields_in_order() {
        assert_eq!(
            serde_json::to_string(&line(false)).unwrap(),
            r#"{"label":"P1","bot":"chain","pieces":40,"chains":3,"largest_chain":7,"score":1200,"mismatches":1,"topped_out":false}"#
        );
        assert_eq!(
            serde_json::to_string(&line(true)).unwrap(),
            r#"{"label":"P1","bot":"chain","pieces":40,"chains":3,"largest_chain":7,"score":1200,"score_source":"ram","checks":39,"mismatches":1,"topped_out":false,"decisions":40,"think_ms_total":2.5,"replans":4,"off_plan":1,"unasked_moves":0,"calibration_surprises":2}"#
        );
        let pretty = serde_json::to_string_pretty(&line(false)).unwrap();
        assert!(pretty.starts_with("{\n  \"label\": \"P1\",\n  \"bot\""), "{pretty}");
    }
}
