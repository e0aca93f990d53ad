//! The learner's report: each fact's learner renders its part of the [`CalibrationReport`].

use super::CalibrateMode;
use super::learner::Learner;
use super::report::{CalibrationReport, ReportState};
use super::state::CalibrationState;

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
