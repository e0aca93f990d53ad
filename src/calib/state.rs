//! Where calibration stands, as types: the learner's [`CalibrationState`] (learning, settled at some piece,
//! or failed on some facts) and the facts that are not settled with what was seen of them. Nothing
//! outside renders or compares the state as text: the strings exist only in the report's JSON and text.

use std::collections::BTreeSet;

use crate::game::Orientation;

use super::report::{ReportState, Unsettled};

/// The point calibration settled at.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Moment {
    /// Pieces (of the player who locked most) seen by then.
    pub pieces: u32,
    /// Frames observed by then.
    pub frames: u64,
}

/// How far the learner got: pieces and frames seen, when it settled, and the bound of pieces to settle in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Progress {
    /// Pieces locked by the player who locked most.
    pub pieces: u32,
    /// Frames observed.
    pub frames: u64,
    /// When the contract settled (`None` while it is not, or since a contradiction).
    pub settled_at: Option<Moment>,
    /// Pieces after which an unsettled calibration counts as failed.
    pub max_pieces: u32,
    /// Pieces seen before the bound started counting ([`Progress::restart_bound`]).
    bound_from: u32,
}

impl Progress {
    /// Nothing seen yet; the bound is `max_pieces`.
    pub fn new(max_pieces: u32) -> Progress {
        Progress { pieces: 0, frames: 0, settled_at: None, max_pieces, bound_from: 0 }
    }

    /// Sets the bound (at least one piece).
    pub fn set_max_pieces(&mut self, pieces: u32) {
        self.max_pieces = pieces.max(1);
    }

    /// The pieces seen so far no longer count toward the bound.
    pub fn restart_bound(&mut self) {
        self.bound_from = self.pieces;
    }

    /// Whether the bound of pieces to settle in has passed.
    pub fn out_of_pieces(&self) -> bool {
        self.pieces.saturating_sub(self.bound_from) >= self.max_pieces
    }
}

/// Where the learner stands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CalibrationState {
    /// Not settled yet, and the bound of pieces has not passed.
    Learning,
    /// Everything needed to play is known since `at`.
    Settled {
        /// When it settled (last time: a contradiction unsettles it, and it settles again later).
        at: Moment,
    },
    /// The bound of pieces passed before everything needed to play was known.
    Failed {
        /// The facts that are not settled, with what was seen of them.
        facts: Vec<UnsettledFact>,
    },
}

impl CalibrationState {
    /// The state's name in reports: `"learning"`, `"settled"` or `"failed"`.
    pub fn name(&self) -> &'static str {
        self.report_state().name()
    }

    /// A short line for the window's HUD; `pieces_seen`: pieces seen so far.
    pub fn hud_line(&self, pieces_seen: u32) -> String {
        match self {
            CalibrationState::Settled { at } => format!("calibrated ({} pieces)", at.pieces),
            CalibrationState::Failed { .. } => "calibration FAILED: see log".into(),
            CalibrationState::Learning => format!("calibrating... piece {}", pieces_seen + 1),
        }
    }

    /// The name the report carries.
    pub fn report_state(&self) -> ReportState {
        match self {
            CalibrationState::Learning => ReportState::Learning,
            CalibrationState::Settled { .. } => ReportState::Settled,
            CalibrationState::Failed { .. } => ReportState::Failed,
        }
    }
}

/// A part of the movement fact that the candidates left do not agree on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MovementPart {
    /// Which puyo X / Y follow.
    Tracks,
    /// Which way A turns.
    ATurns,
    /// Which orientation value is which direction.
    Orientation,
}

impl MovementPart {
    fn text(self) -> &'static str {
        match self {
            MovementPart::Tracks => "which puyo X/Y follow",
            MovementPart::ATurns => "which way A turns",
            MovementPart::Orientation => "orientation values",
        }
    }
}

/// A fact needed to play that is not settled, with what was seen of it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum UnsettledFact {
    /// The empty code: no movable piece was seen, so no fresh field.
    EmptyCode,
    /// Which byte of a cell holds the colour.
    ColourByte {
        /// Pieces seen (none of their locks of two colours filled exactly two empty cells in one byte).
        pieces: u32,
    },
    /// The movement: orientation values, which puyo X / Y follow, which way A turns.
    Movement {
        /// Candidate contracts left.
        candidates: usize,
        /// The parts they disagree on.
        missing: Vec<MovementPart>,
        /// Turns seen with A, raw orientation values (before, after).
        turns_a: Vec<(u8, u8)>,
        /// Turns seen with B.
        turns_b: Vec<(u8, u8)>,
    },
    /// The colour codes.
    ColourCodes {
        /// Piece codes seen in pairs of two different codes.
        pair_codes: BTreeSet<u8>,
    },
}

/// The advice that ends most facts' advice: what the user can do without the game's help.
const EDIT: &str = "edit the address file by hand (mark what you checked verified = true), or record a trace of a \
                    few pieces (puyobot record) and run puyobot calibrate on it";

/// Turns as `2 → 3, 3 → 0`, or `none`.
fn turns_text(turns: &[(u8, u8)]) -> String {
    if turns.is_empty() {
        return "none".into();
    }
    let each: Vec<String> = turns.iter().map(|(a, b)| format!("{a} → {b}")).collect();
    each.join(", ")
}

impl UnsettledFact {
    /// The fact as the report lists it: its name, what was seen, and what the user can do.
    pub fn render(&self) -> Unsettled {
        let (fact, seen, advice) = match self {
            UnsettledFact::EmptyCode => (
                "empty code",
                "no movable piece yet: the spawn delay byte never read 0 with X / Y inside the field".to_string(),
                "check the menu script and the spawn_delay, x and y addresses of the address file".to_string(),
            ),
            UnsettledFact::ColourByte { pieces } => (
                "colour byte of a cell",
                format!(
                    "{pieces} locks of two different colours; none filled exactly two empty cells in one cell byte"
                ),
                format!("the field address or layout may be wrong; set field.color_offset and verified, or {EDIT}"),
            ),
            UnsettledFact::Movement { candidates, missing, turns_a, turns_b } => {
                let missing: Vec<&str> = missing.iter().map(|m| m.text()).collect();
                (
                    "movement",
                    format!(
                        "{candidates} candidate contracts left ({}); turns seen with A: {}, with B: {}",
                        missing.join(", "),
                        turns_text(turns_a),
                        turns_text(turns_b)
                    ),
                    format!(
                        "turn the pair with A in the middle of an empty field, drop pairs both upright and on their \
                         side; or {EDIT}"
                    ),
                )
            }
            UnsettledFact::ColourCodes { pair_codes } => (
                "colour codes",
                format!("piece codes seen in pairs: {pair_codes:?}"),
                format!("needs clean locks and the movement; or {EDIT}"),
            ),
        };
        Unsettled { fact: fact.into(), seen, advice }
    }
}

/// The parts of the movement the directions of `agreed` leave open (for [`UnsettledFact::Movement`]).
pub(crate) fn movement_parts(tracks: bool, a_turns: bool, agreed: impl Fn(Orientation) -> bool) -> Vec<MovementPart> {
    let mut out = Vec::new();
    if !tracks {
        out.push(MovementPart::Tracks);
    }
    if !a_turns {
        out.push(MovementPart::ATurns);
    }
    if !Orientation::ALL.iter().all(|&d| agreed(d)) {
        out.push(MovementPart::Orientation);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_states_keep_the_reports_names() {
        assert_eq!(CalibrationState::Learning.name(), "learning");
        assert_eq!(CalibrationState::Settled { at: Moment::default() }.name(), "settled");
        assert_eq!(CalibrationState::Failed { facts: Vec::new() }.name(), "failed");
        assert_eq!(serde_json::to_string(&ReportState::Unsettled).unwrap(), "\"unsettled\"");
        assert_eq!(ReportState::Off.to_string(), "off");
        assert_eq!(CalibrationState::Learning.hud_line(2), "calibrating... piece 3");
        assert_eq!(serde_json::from_str::<ReportState>("\"failed\"").unwrap(), ReportState::Failed);
    }

    #[test]
    fn the_bound_counts_the_pieces_since_it_restarted() {
        let mut p = Progress::new(3);
        p.pieces = 3;
        assert!(p.out_of_pieces());
        p.restart_bound();
        p.pieces = 5;
        assert!(!p.out_of_pieces());
        p.set_max_pieces(0);
        assert_eq!(p.max_pieces, 1);
        assert!(p.out_of_pieces());
    }

    #[test]
    fn a_fact_renders_what_was_seen() {
        let m = UnsettledFact::Movement {
            candidates: 4,
            missing: vec![MovementPart::ATurns],
            turns_a: vec![(2, 3), (3, 0)],
            turns_b: Vec::new(),
        };
        let u = m.render();
        assert_eq!(u.fact, "movement");
        assert_eq!(
            u.seen,
            "4 candidate contracts left (which way A turns); turns seen with A: 2 → 3, 3 → 0, with B: none"
        );
        let c = UnsettledFact::ColourCodes { pair_codes: [1, 2].into() }.render();
        assert_eq!(c.seen, "piece codes seen in pairs: {1, 2}");
        assert!(c.advice.starts_with("needs clean locks and the movement; or edit the address file"), "{}", c.advice);
    }
}
