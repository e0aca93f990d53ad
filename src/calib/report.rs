//! What the learner knows, as the JSON `calibration` object of a headless run and as text.

use serde::Serialize;

use super::CalibrateMode;
use super::clock::ClockReport;
use super::learner::Learner;
use super::state::{CalibrationState, ReportState};

/// The learned codes; each `None` (JSON null) until seen.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct CodesReport {
    /// The empty cell.
    pub empty: Option<u8>,
    /// The colours' field codes, in order of their piece codes.
    pub colors: Option<Vec<u8>>,
    /// The colours' piece codes in the same order, when they differ from the field codes.
    pub piece_colors: Option<Vec<u8>>,
    /// Nuisance.
    pub nuisance: Option<u8>,
    /// Big Puyo's piece code.
    pub big_puyo: Option<u8>,
    /// Carbuncle's piece code.
    pub carbuncle: Option<u8>,
    /// Piece codes that did not land as pairs but whose item kind is not known yet.
    pub unknown_items: Vec<u8>,
    /// The colour byte's bits that carry the code (255: all; the others were seen changing with the
    /// neighbours or an animation in a cell that kept its puyo).
    pub color_mask: u8,
}

/// The value of each direction in the orientation byte; each `None` until settled.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct OrientationReport {
    /// Child below the pivot.
    pub down: Option<u8>,
    /// Child left of the pivot.
    pub left: Option<u8>,
    /// Child above the pivot.
    pub up: Option<u8>,
    /// Child right of the pivot.
    pub right: Option<u8>,
}

/// Whether blocked turns were seen to kick (`None`: not seen).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct KicksReport {
    /// A turn to left / right blocked sideways moved the pivot a column.
    pub sideways: Option<bool>,
    /// A turn to down blocked below lifted the pivot a row.
    pub up: Option<bool>,
}

/// What the next pair's bytes hold and when.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct NextPairReport {
    /// `"same"` (the piece codes), `"mapped"` (a table of their own, in `codes`), `"unknown"` (too few
    /// spawns seen) or `"contradicted"` (no one-to-one table explains them).
    pub table: String,
    /// `[next code, piece code]` pairs when the table is `"mapped"`.
    pub codes: Option<Vec<[u8; 2]>>,
    /// Frames after a spawn during which the next bytes still show something else (a slide animation).
    pub lag: u32,
}

/// A fact that is not settled: what it is, what was seen, and how to proceed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Unsettled {
    /// The fact.
    pub fact: String,
    /// What the learner saw.
    pub seen: String,
    /// What the user can do.
    pub advice: String,
}

/// The `calibration` object.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CalibrationReport {
    /// `"settled"`, `"learning"`, `"failed"` (not settled within the bound) or `"off"`; a trace's report
    /// says `"unsettled"` instead of learning.
    pub state: ReportState,
    /// Pieces (of the player who locked most) it took to settle.
    pub pieces_to_settle: Option<u32>,
    /// Pieces seen so far.
    pub pieces_seen: u32,
    /// Codes.
    pub codes: CodesReport,
    /// Orientation values.
    pub orientation: OrientationReport,
    /// Which way A turns: `"clockwise"` / `"counterclockwise"`.
    pub a_rotates: Option<String>,
    /// Which puyo X / Y follow: `"pivot"` / `"child"`.
    pub xy_tracks: Option<String>,
    /// Which current-pair byte holds the pivot's code: `"as named"` (the one the address file calls
    /// `current_pivot`) or `"swapped"` (the one it calls `current_child`).
    pub current_pair: String,
    /// Which byte of a cell holds the colour.
    pub color_byte_offset: Option<u8>,
    /// Kicks seen.
    pub kicks: KicksReport,
    /// The X byte's value in column 1 and the Y byte's in row 0.
    pub xy_bases: [u8; 2],
    /// Frames after the spawn-delay timer reaches 0 before a new piece's bytes are written (most seen).
    pub pose_lag: u32,
    /// What marks a lock: `"timer"` or `"field"` (the timer stays 0 while a lock resolves).
    pub lock_signal: String,
    /// Orientation values pieces spawned with.
    pub spawn_orientations: Vec<u8>,
    /// The game's clock as measured, per player in address-file order (see [`ClockReport`]).
    pub timing: Vec<ClockReport>,
    /// The next pair's bytes.
    pub next_pair: NextPairReport,
    /// Contradictions found (each sent the learner back to learning a fact).
    pub contradictions: Vec<String>,
    /// What is not settled, and how to proceed.
    pub unsettled: Vec<Unsettled>,
    /// The 2P rules learned from the game (after a 2P game was seen).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rules: Option<super::battle_rules::BattleRulesReport>,
}

impl Learner {
    /// What is known so far, serialisable as the JSON `calibration` object: each fact's learner renders
    /// its part.
    pub fn report(&self) -> CalibrationReport {
        let off = self.mode() == CalibrateMode::Off;
        let state = self.state();
        let pieces_to_settle = match &state {
            CalibrationState::Settled { at } => Some(at.pieces),
            _ => None,
        };
        let name = if off { ReportState::Off } else { state.report_state() };
        let unsettled = match (off, state) {
            (true, _) => Vec::new(),
            (false, CalibrationState::Failed { facts }) => facts.iter().map(|f| f.render()).collect(),
            (false, _) => self.unsettled_facts().iter().map(|f| f.render()).collect(),
        };
        let known = self.known();
        let m = self.motion();
        let (a_rotates, xy_tracks) = m.names();
        let kicks = self.kick_learner();
        CalibrationReport {
            state: name,
            pieces_to_settle,
            pieces_seen: self.pieces(),
            codes: self.colours().report(&known),
            orientation: m.orientation_report(),
            a_rotates,
            xy_tracks,
            current_pair: self.pair_order().name().to_string(),
            color_byte_offset: known.offset.map(|k| k as u8),
            kicks: kicks.report(&known),
            xy_bases: known.xy_bases.into(),
            pose_lag: self.pose_lag(),
            lock_signal: self.lock_signal().name().to_string(),
            spawn_orientations: m.spawn_orientations(),
            timing: self.clocks(),
            next_pair: self.next().report(),
            contradictions: self.contradictions().iter().cloned().chain(kicks.conflicts(&known)).collect(),
            unsettled,
            rules: None,
        }
    }
}

impl CalibrationReport {
    /// The health check found that the settled contract does not predict what the game does: a settled
    /// calibration is reported as failed.
    pub fn overruled_by_health(&mut self) {
        if self.state == ReportState::Settled {
            self.state = ReportState::Failed;
        }
    }

    /// The report as text for people.
    pub fn to_text(&self) -> String {
        let opt = |v: Option<u8>| v.map_or("?".to_string(), |v| v.to_string());
        let mut s = format!("calibration: {}", self.state);
        if let Some(p) = self.pieces_to_settle {
            s += &format!(" after {p} pieces");
        }
        s += "\n";
        let c = &self.codes;
        s += &format!(
            "  codes: empty {}, colours {}, nuisance {}, Big Puyo {}, Carbuncle {}\n",
            opt(c.empty),
            c.colors.as_ref().map_or("?".into(), |v| format!("{v:?}")),
            opt(c.nuisance),
            opt(c.big_puyo),
            opt(c.carbuncle)
        );
        if let Some(pc) = &c.piece_colors {
            s += &format!("  piece codes of those colours: {pc:?}\n");
        }
        let o = &self.orientation;
        s += &format!(
            "  orientation: down {}, left {}, up {}, right {}\n",
            opt(o.down),
            opt(o.left),
            opt(o.up),
            opt(o.right)
        );
        s += &format!(
            "  A turns {}, X/Y follow the {}, current-pair bytes {}, colour in cell byte {}\n",
            self.a_rotates.as_deref().unwrap_or("?"),
            self.xy_tracks.as_deref().unwrap_or("?"),
            self.current_pair,
            opt(self.color_byte_offset)
        );
        s += &format!(
            "  X of column 1 {}, Y of row 0 {}; a new piece's bytes {} frames after the timer's 0; locks marked by the {}\n",
            self.xy_bases[0], self.xy_bases[1], self.pose_lag, self.lock_signal
        );
        let n = &self.next_pair;
        let table = match &n.codes {
            Some(t) => {
                let each: Vec<String> = t.iter().map(|[a, b]| format!("{a} → {b}")).collect();
                format!("their own codes ({})", each.join(", "))
            }
            None if n.table == "same" => "the piece codes".into(),
            None => n.table.clone(),
        };
        s += &format!("  next pair bytes: {table}; valid {} frames after a spawn\n", n.lag);
        for (i, t) in self.timing.iter().enumerate() {
            s += &format!("  timing of player {}: {}\n", i + 1, t.line());
        }
        for c in &self.contradictions {
            s += &format!("  contradiction: {c}\n");
        }
        for u in &self.unsettled {
            s += &format!("  not settled: {}: saw {}; {}\n", u.fact, u.seen, u.advice);
        }
        s
    }
}
