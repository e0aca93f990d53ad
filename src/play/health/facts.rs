//! The facts of the contract a failing check points at, what to do about each, and a failure's words.

use serde::Serialize;

use super::super::explain::Hypothesis;

/// A fact of the cartridge's contract that a failing check points at.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Fact {
    /// What the field cells hold: the colour byte, the codes of colours, nuisance and items, and when a
    /// lock has been written.
    FieldCells,
    /// The current pair's bytes: their codes, or when they are valid after a spawn.
    CurrentPair,
    /// The next pair's bytes: their code table, or when they are valid after a spawn.
    NextPair,
    /// How the pair moves: orientation values, X / Y, turns and kicks, or when the pose bytes are valid.
    Movement,
    /// The menus: the game plays the mode that was asked for (both fields get pairs in a 2-player mode).
    Mode,
    /// The game options asked for (`--items`, `--colors`): the game deals what was asked.
    Options,
    /// The game's timing as measured: gravity (frames per row), the lock delay, the input lag. Plans that
    /// keep failing while every encoding holds point here.
    Timing,
    /// The 2P rules: the per-chain nuisance cap, points per nuisance, the most nuisance per drop and what
    /// happens to nuisance that does not fit.
    BattleRules,
    /// None of the facts above: the checks held, yet the game went where they did not predict.
    Unexplained,
    /// Not the cartridge's: a bot process (`exec:`) did not answer in time, exited, or sent no playable move.
    Bot,
}

impl Fact {
    /// The name reports use (`field-cells`, `current-pair`, `next-pair`, `movement`, `mode`), as serde writes it.
    pub fn key(self) -> &'static str {
        match self {
            Fact::FieldCells => "field-cells",
            Fact::CurrentPair => "current-pair",
            Fact::NextPair => "next-pair",
            Fact::Movement => "movement",
            Fact::Mode => "mode",
            Fact::Options => "options",
            Fact::Timing => "timing",
            Fact::BattleRules => "battle-rules",
            Fact::Unexplained => "unexplained",
            Fact::Bot => "bot",
        }
    }

    /// The fact in words, for messages.
    pub fn describe(self) -> &'static str {
        match self {
            Fact::FieldCells => {
                "the field's cell codes (colour byte, colour / nuisance / item codes) or when a lock is written"
            }
            Fact::CurrentPair => "the current pair's bytes (their codes, or when they are valid after a spawn)",
            Fact::NextPair => "the next pair's bytes (their code table, or when they are valid after a spawn)",
            Fact::Movement => {
                "how the pair moves (orientation values, X / Y, turns, kicks) or when the pose bytes are valid"
            }
            Fact::Mode => "the menus reaching the mode asked for",
            Fact::Options => "the game options asked for (--items, --colors)",
            Fact::Timing => "the game's timing (gravity in frames per row, the lock delay, the input lag)",
            Fact::BattleRules => {
                "the 2P rules (per-chain nuisance cap, points per nuisance, nuisance per drop, overflow)"
            }
            Fact::Unexplained => "none of the facts checked (every check held, yet the game did not go as predicted)",
            Fact::Bot => "the bot process's answers (docs/bot-protocol.md)",
        }
    }

    /// What an owner of the cartridge can do about it.
    pub fn advice(self) -> &'static str {
        match self {
            Fact::FieldCells => {
                "record a trace (`puyobot record`), run `puyobot calibrate` on it, and compare the [codes] and \
                 field entries of the address file with what it reports"
            }
            Fact::CurrentPair => {
                "check the current_pivot / current_child entries and [codes] of the address file (a trace from \
                 `puyobot record` shows the bytes frame by frame)"
            }
            Fact::NextPair => {
                "check the next_pivot / next_child entries of the address file, their code table \
                 ([codes] next_codes) and [timing] next_lag (a trace from `puyobot record` shows when they change)"
            }
            Fact::Movement => {
                "check [orientation], [movement] and the x / y / orientation entries of the address file (a \
                 trace from `puyobot record` shows how the bytes follow the presses)"
            }
            Fact::Mode => {
                "start the game from the menus yourself in the window (`puyobot play --no-menu`), or fix the \
                 [menu] steps of the address file: the mode byte may not follow the menu cursor, so a `seek` on \
                 it finds nothing; fixed presses (`press`) reach the mode instead"
            }
            Fact::Options => {
                "set the option on the game's menus yourself in the window (`puyobot play --no-menu`), or check \
                 [options.items] / [options.colors] of the address file (the byte, its values and the line the \
                 option is on)"
            }
            Fact::Timing => {
                "record a trace (`puyobot record`) and run `puyobot calibrate` on it: it reports the frames per row, \
                 the lock delay and the input lag it measured; a game this fast may need a lower --speed setting to \
                 be read, or a slower game setting"
            }
            Fact::BattleRules => {
                "set the 2P rules on the game's menus and tell the bots with --nuisance-cap, --nuisance-points, \
                 --nuisance-drop and --nuisance-overflow, or record a trace (`puyobot record`) of the 2P game and \
                 send it with the report"
            }
            Fact::Unexplained => {
                "record a trace of the run (`puyobot record`) and send it with the report: the checks do not \
                 say which fact is wrong"
            }
            Fact::Bot => {
                "run the bot's command by hand and type it the messages of docs/bot-protocol.md (its stderr is \
                 shown with the run's); raise its time with a faster bot or a slower game"
            }
        }
    }
}

impl std::fmt::Display for Fact {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Fact::FieldCells => "field cells",
            Fact::CurrentPair => "current pair",
            Fact::NextPair => "next pair",
            Fact::Movement => "movement",
            Fact::Mode => "mode",
            Fact::Options => "options",
            Fact::Timing => "timing",
            Fact::BattleRules => "2P rules",
            Fact::Unexplained => "unexplained",
            Fact::Bot => "bot",
        })
    }
}

/// The fact of the contract an explanation points at.
pub(super) fn explained_fact(h: Hypothesis) -> Fact {
    match h {
        Hypothesis::PairBytesSwapped => Fact::CurrentPair,
        Hypothesis::Timing => Fact::Timing,
        Hypothesis::Movement => Fact::Movement,
        Hypothesis::Codes => Fact::FieldCells,
    }
}

/// A failing check: which fact, and what was seen.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Failure {
    /// The player whose checks failed.
    pub player: String,
    /// The fact the checks depend on.
    pub fact: Fact,
    /// What was seen, in words.
    pub seen: String,
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {} ({}) fails: {}", self.player, self.fact, self.fact.describe(), self.seen)
    }
}
