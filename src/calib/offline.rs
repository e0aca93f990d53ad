//! Calibration on a recorded trace (`puyobot calibrate TRACE`): the same learner, fed the recorded RAM
//! and the recorded pad bytes as "the presses", learning only from what the person (or bot) happened to
//! do. Nothing here drives the game, so nothing is guessed: every fact without evidence is listed as
//! unknown with what would settle it.

use serde::Serialize;

use crate::memmap::schema::AddressFile;

use super::menu::{MenuReport, MenuWatcher};
use super::report::{CalibrationReport, ReportState, Unsettled};
use super::{CalibrateMode, Frame, Learner};

/// The learner and the menu watcher over one trace.
#[derive(Clone, Debug)]
pub struct OfflineCalibration {
    learner: Learner,
    menu: MenuWatcher,
}

/// What a trace taught.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct OfflineReport {
    /// The learner's report (`state` is `"settled"` or `"unsettled"`: a trace has no piece bound).
    pub calibration: CalibrationReport,
    /// Facts the trace never showed, beyond those `calibration.unsettled` lists, and how to show them.
    pub unknown: Vec<Unsettled>,
    /// Menu facts.
    pub menu: MenuReport,
}

impl OfflineCalibration {
    /// Learns everything (trusting no entry of `start`) from frames read with `start`'s addresses.
    pub fn new(start: &AddressFile) -> OfflineCalibration {
        let mut learner = Learner::new(start, CalibrateMode::Only);
        learner.set_max_pieces(u32::MAX);
        OfflineCalibration { learner, menu: MenuWatcher::new(start) }
    }

    /// Feeds one recorded frame.
    pub fn observe(&mut self, frame: &Frame<'_>) {
        self.menu.observe(frame);
        self.learner.observe(frame);
    }

    /// The learner (for writing address files).
    pub fn learner(&self) -> &Learner {
        &self.learner
    }

    /// What was learned and what was not.
    pub fn report(&self) -> OfflineReport {
        let mut calibration = self.learner.report();
        if calibration.state != ReportState::Settled {
            calibration.state = ReportState::Unsettled;
        }
        OfflineReport { unknown: self.unknowns(&calibration), menu: self.menu.report(), calibration }
    }

    fn unknowns(&self, r: &CalibrationReport) -> Vec<Unsettled> {
        let l = &self.learner;
        let mut out = Vec::new();
        let mut add = |fact: &str, seen: String, advice: &str| {
            out.push(Unsettled { fact: fact.into(), seen, advice: advice.into() })
        };
        let (with_a, with_b) = l.motion().turns_seen();
        if with_b == 0 {
            add(
                "what B does",
                format!("B never turned a pair ({with_a} turns with A)"),
                "the learned files take B as the opposite of A; press B on a few pairs in open space to check it",
            );
        }
        if r.kicks.sideways.is_none() {
            add(
                "sideways kick",
                "no turn towards a wall or a stack (kicked or refused)".into(),
                "stand a pair upright against the left or right wall (or a stack) and turn it into the wall",
            );
        }
        if r.kicks.up.is_none() {
            add(
                "upward kick",
                "no turn downwards onto the floor or a stack (kicked or refused)".into(),
                "let a flat pair rest on the floor or the stack and turn it so the other puyo would go below",
            );
        }
        if r.codes.nuisance.is_none() {
            add(
                "nuisance code",
                "no cell that kept a code that is neither empty nor a colour".into(),
                "play a 2P game until nuisance falls on the recorded player's field",
            );
        }
        if r.codes.big_puyo.is_none() {
            add("Big Puyo code", "no Big Puyo land".into(), "play Endless with ITEM set to Big Puyo until one lands");
        }
        if r.codes.carbuncle.is_none() {
            add(
                "Carbuncle code",
                "no Carbuncle land next to puyos".into(),
                "play Endless with ITEM set to Carbuncle until one lands next to puyos",
            );
        }
        out
    }
}

impl OfflineReport {
    /// The report as text for people.
    pub fn to_text(&self) -> String {
        let mut s = self.calibration.to_text();
        for u in &self.unknown {
            s += &format!("  unknown: {}: saw {}; {}\n", u.fact, u.seen, u.advice);
        }
        s + &self.menu.to_text()
    }
}
