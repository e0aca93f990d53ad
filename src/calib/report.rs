//! The report's types: what the learner knows, as the JSON `calibration` object of a headless run and as
//! text. Each fact's learner renders its part (`CodesReport`, `OrientationReport`, ...); the whole is put
//! together in [`super::reporting`].

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::game::timing::{LockDelay, Timing};

use super::types::MAX_LAG;

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
    /// What each item code's locks showed (empty until an item locked).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub items: Vec<ItemEvidence>,
    /// The colour byte's bits that carry the code (255: all; the others were seen changing with the
    /// neighbours or an animation in a cell that kept its puyo).
    pub color_mask: u8,
}

/// What one item code's locks showed: locks that acted as each item, locks that showed neither, and
/// whether its identity is settled (one kind ahead by enough locks, the evidence not disagreeing).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct ItemEvidence {
    /// The piece code.
    pub code: u8,
    /// Locks that emptied the two columns under the item.
    pub big_puyo: u32,
    /// Locks that recoloured the puyos the item touched (or left its columns as they were).
    pub carbuncle: u32,
    /// Locks that showed neither clearly.
    pub unclear: u32,
    /// The identity is settled.
    pub settled: bool,
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
        for e in &c.items {
            s += &format!(
                "  item code {}: {} locks as Big Puyo, {} as Carbuncle, {} unclear ({})\n",
                e.code,
                e.big_puyo,
                e.carbuncle,
                e.unclear,
                if e.settled { "settled" } else { "not settled" }
            );
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
        if let Some(r) = &self.rules {
            s += &format!(
                "  2P rules ({}): playing with {}; standing: cap {}, {} points, {} per drop, {} ({} chains, {} drops seen)\n",
                r.state,
                r.in_use,
                r.cap_per_chain,
                r.nuisance_points,
                r.max_drop,
                r.overflow,
                r.chains_seen,
                r.drops_seen
            );
            for line in &r.relearned {
                s += &format!("  2P rules relearned: {line}\n");
            }
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

/// The `state` of a calibration report (serialised as its lower-case name).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ReportState {
    /// Calibration is off: the address file is trusted.
    Off,
    /// Still learning.
    Learning,
    /// Everything needed to play is known (and, in a play report, its predictions held).
    Settled,
    /// Not settled within the bound of pieces, or the settled contract failed the health check.
    Failed,
    /// A trace ended before everything was known (a trace has no bound of pieces).
    Unsettled,
}

impl ReportState {
    /// The name used in the JSON and the text.
    pub fn name(self) -> &'static str {
        match self {
            ReportState::Off => "off",
            ReportState::Learning => "learning",
            ReportState::Settled => "settled",
            ReportState::Failed => "failed",
            ReportState::Unsettled => "unsettled",
        }
    }
}

impl fmt::Display for ReportState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// How many times each timing fact was measured.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct ClockSamples {
    /// Gravity intervals (two falls in a row with Down not held).
    pub gravity: u32,
    /// Pieces that showed their gravity.
    pub gravity_pieces: u32,
    /// Soft-drop intervals.
    pub soft_drop: u32,
    /// Locks without Down held.
    pub lock: u32,
    /// Presses matched with their effect.
    pub input_lag: u32,
    /// Spawns after a lock.
    pub spawn: u32,
}

/// One player's measured timing: the JSON `calibration.timing` entry (`null` where not measured).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct ClockReport {
    /// Frames per row of gravity of the latest piece that showed it.
    pub frames_per_row: Option<u16>,
    /// The fastest and slowest gravity seen, in frames per row.
    pub frames_per_row_range: Option<[u16; 2]>,
    /// Frames per row with Down held.
    pub soft_drop: Option<u16>,
    /// Frames from landing to the lock (0: none).
    pub lock_delay: Option<u16>,
    /// Moves or turns were seen working while a landed piece waited (`null`: not seen).
    pub lock_moves: Option<bool>,
    /// Frames from a press to its effect beyond the frame it is held in (the floor: most presses take
    /// no less).
    pub input_lag: Option<u16>,
    /// How many frames later than `input_lag` presses still often take effect (0 on a steady link; a
    /// flaky pad or link spreads them).
    pub input_lag_jitter: Option<u16>,
    /// Frames between moves while Left / Right stays held (`null`: not seen).
    pub auto_repeat: Option<u16>,
    /// Frames from a lock to the next piece's first movable frame (the shortest seen).
    pub spawn_delay: Option<u16>,
    /// How many times each was measured.
    pub samples: ClockSamples,
}

impl ClockReport {
    /// The movement search's timing for a piece just spawned, once the gravity is measured (`None` before:
    /// the untimed search). What is not measured yet is taken at its most demanding: no lock delay, a soft
    /// drop as slow as gravity, and the longest input lag looked for until one press was matched. The
    /// lag's jitter is kept in hand as margin. Moves during a measured lock delay are taken to work until
    /// presses on a landed piece are seen ignored: the driver presses there only where the model says a
    /// press works, so its first such presses test it, and a slower model would cost every fast game
    /// most of its reach (a move after landing is seldom seen otherwise).
    pub fn timing(&self, press_frames: u16) -> Option<Timing> {
        let fpr = self.frames_per_row?.max(1);
        let mut t = Timing::spawned(fpr);
        t.soft_drop = self.soft_drop.unwrap_or(fpr).clamp(1, fpr);
        t.lock = match self.lock_delay {
            None | Some(0) => LockDelay::None,
            Some(n) => LockDelay::Frames { frames: n, moves: self.lock_moves.unwrap_or(true) },
        };
        t.input_lag = self.input_lag.unwrap_or(MAX_LAG as u16);
        t.press_frames = press_frames.max(1);
        // Presses a jittery link makes late are kept in hand too.
        t.margin = 2 + self.input_lag_jitter.unwrap_or(0);
        Some(t)
    }

    /// The HUD panel's short line: `G` frames per row of gravity, `LK` lock delay, `LAG` input lag (`?`
    /// where not measured), e.g. `G30 LK16 LAG0`.
    pub fn hud_line(&self) -> String {
        let opt = |v: Option<u16>| v.map_or("?".to_string(), |v| v.to_string());
        format!("G{} LK{} LAG{}", opt(self.frames_per_row), opt(self.lock_delay), opt(self.input_lag))
    }

    /// One line for the text report.
    pub fn line(&self) -> String {
        let opt = |v: Option<u16>| v.map_or("?".to_string(), |v| v.to_string());
        let range = self.frames_per_row_range.map_or(String::new(), |[lo, hi]| format!(" ({lo}..{hi})"));
        let lock = match self.lock_delay {
            None => "?".to_string(),
            Some(0) => "none".to_string(),
            Some(n) => format!("{n}f{}", if self.lock_moves == Some(true) { " moves" } else { "" }),
        };
        format!(
            "gravity {}f/row{range}, soft drop {}, lock {lock}, input lag {}, spawn delay {}",
            opt(self.frames_per_row),
            opt(self.soft_drop),
            opt(self.input_lag),
            opt(self.spawn_delay)
        )
    }
}
