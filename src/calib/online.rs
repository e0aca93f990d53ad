//! Calibration inside a running session: the learner watches every frame, the opening drives the bots'
//! seats while the contract is not settled, and once it is, the session switches to the learned
//! address file.

use crate::memmap::schema::{AddressFile, LockSignal};

use super::{CalibrateMode, CalibrationReport, CalibrationState, Frame, Learner, OpeningPolicy};

/// How the learner reads RAM beyond the codes: colour mask, pose lag, lock signal, X / Y bases, the
/// current-pair bytes swapped.
type Reading = (u8, u32, LockSignal, (u8, u8), bool);

/// Pieces per seat the opening spends on the kick test after the contract settles, while a kick fact is
/// still unknown (a test piece can end without evidence, e.g. when the pair locks before its turn).
const KICK_TEST_PIECES: u32 = 3;

/// What the session should do with a seat this frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SeatControl {
    /// The opening drives the seat: hold `buttons`, ask no bot; `active` says whether a piece can move
    /// (read from the bytes the learner trusts, not from the unsettled codes).
    Opening {
        /// Buttons to hold.
        buttons: u8,
        /// A piece can move.
        active: bool,
    },
    /// The seat plays normally.
    Bot,
}

/// The learner and the openings of one session.
#[derive(Clone, Debug)]
pub struct OnlineCalibration {
    learner: Learner,
    policies: Vec<OpeningPolicy>,
    /// Per seat: the piece under way started before the contract settled, so the opening finishes it.
    opening_piece: Vec<bool>,
    was_active: Vec<bool>,
    /// Per seat: pieces the opening drove after the contract settled, to test kicks.
    kick_tests: Vec<u32>,
    /// The learned file has been taken by the session.
    applied: bool,
    /// Colours in the file the session took.
    applied_colours: usize,
    /// The kick facts (sideways, up) in the file last taken; kicks are often seen after the rest settled.
    applied_kicks: (Option<bool>, Option<bool>),
    /// The nuisance and item codes in the file last taken: nuisance is first seen in 2P, items every so
    /// many pieces, both often long after the rest settled, and the decoder must use them from then on.
    applied_specials: Specials,
    /// The next pair's table and lag in the file last taken (often known only some pieces after settling).
    applied_next: (super::next::NextTable, u32),
    /// How RAM was read in the file last handed out: colour mask, pose lag, lock signal, X / Y bases.
    applied_reading: Reading,
}

/// The codes a learner can find late: nuisance, Big Puyo and Carbuncle.
type Specials = (Option<u8>, Option<u8>, Option<u8>);

impl OnlineCalibration {
    /// Calibration for a session reading RAM with `map`; `None` in `off` mode.
    pub fn new(map: &AddressFile, mode: CalibrateMode) -> Option<OnlineCalibration> {
        if mode == CalibrateMode::Off {
            return None;
        }
        let n = map.player.len();
        let learner = Learner::new(map, mode);
        let applied = learner.is_settled() && mode == CalibrateMode::Auto;
        Some(OnlineCalibration {
            learner,
            policies: (0..n).map(OpeningPolicy::new).collect(),
            opening_piece: vec![false; n],
            was_active: vec![false; n],
            kick_tests: vec![0; n],
            applied,
            applied_colours: 0,
            applied_kicks: (None, None),
            applied_specials: (None, None, None),
            applied_next: (super::next::NextTable::Unknown, 0),
            applied_reading: (0xFF, 0, LockSignal::Timer, (1, 0), false),
        })
    }

    /// The learner.
    pub fn learner(&self) -> &Learner {
        &self.learner
    }

    /// What the learner knows.
    pub fn report(&self) -> CalibrationReport {
        self.learner.report()
    }

    /// The next pair's code table is still being learned ([`Learner::next_table_unknown`]).
    pub fn next_table_unknown(&self) -> bool {
        self.learner.next_table_unknown()
    }

    /// True once the contract is settled.
    pub fn settled(&self) -> bool {
        self.learner.is_settled()
    }

    /// Nothing more to learn from the opening: settled with kicks seen (or a seat's kick-test pieces spent
    /// trying), or failed.
    pub fn finished(&self) -> bool {
        let kicks_done = !self.learner.kicks_unknown() || self.kick_tests.iter().any(|&n| n >= KICK_TEST_PIECES);
        let idle = self.opening_piece.iter().all(|&o| !o);
        (self.settled() && kicks_done && idle) || self.failed()
    }

    /// Where calibration stands.
    pub fn state(&self) -> CalibrationState {
        self.learner.state()
    }

    /// A short line for the window's HUD (no report is built).
    pub fn hud_line(&self) -> String {
        self.learner.state().hud_line(self.learner.pieces())
    }

    /// Player `player`'s measured timing as the HUD panel's short line (see
    /// [`super::clock::ClockReport::hud_line`]).
    pub fn timing_hud_line(&self, player: usize) -> String {
        self.learner.clock(player).hud_line()
    }

    /// True when calibration failed (not settled within the bound); cheap, no report is built.
    pub fn failed(&self) -> bool {
        self.learner.failed()
    }

    /// How player `player` (address-file order) is driven during the frame whose RAM is `ram`. Call for
    /// seats with a bot switched on, before [`OnlineCalibration::observe`].
    pub fn control(&mut self, player: usize, ram: &[u8; 2048]) -> SeatControl {
        if player >= self.policies.len() {
            return SeatControl::Bot;
        }
        let active = self.learner.view_now(ram, player).is_some_and(|v| v.active);
        let was = std::mem::replace(&mut self.was_active[player], active);
        if active && !was {
            let settled = self.learner.is_settled();
            // Up to KICK_TEST_PIECES more pieces per seat after settling, to see how turns kick, unless seen.
            let test = settled
                && !self.trusted_movement()
                && self.learner.kicks_unknown()
                && self.kick_tests[player] < KICK_TEST_PIECES;
            if test {
                self.kick_tests[player] += 1;
            }
            self.opening_piece[player] = !settled || test;
        }
        if !active && !self.learner.is_settled() {
            // Between pieces the opening holds nothing, but keeps the seat until the contract settles.
            return SeatControl::Opening { buttons: self.policies[player].buttons(ram, &self.learner), active };
        }
        if self.opening_piece[player] {
            SeatControl::Opening { buttons: self.policies[player].buttons(ram, &self.learner), active }
        } else {
            SeatControl::Bot
        }
    }

    fn trusted_movement(&self) -> bool {
        self.learner.start().movement.verified && self.learner.mode() == CalibrateMode::Auto
    }

    /// True when some player's piece can move, by the bytes the learner trusts (the spawn delay and X / Y):
    /// the session's cue that the game has started, before the codes are known.
    pub fn any_active(&self, ram: &[u8; 2048]) -> bool {
        (0..self.learner.start().player.len()).any(|i| self.learner.view_now(ram, i).is_some_and(|v| v.active))
    }

    /// Feeds the frame: its RAM and the pads held during it.
    pub fn observe(&mut self, frame: &Frame<'_>) {
        self.learner.observe(frame);
    }

    /// The learned address file when the contract has just settled, or when a colour was learned since
    /// the last one (`auto` mode): the session decodes with it from then on.
    pub fn take_learned(&mut self, rom_sha1: &str) -> Option<AddressFile> {
        if !self.learner.is_settled() || self.learner.mode() != CalibrateMode::Auto {
            return None;
        }
        let kicks = self.learner.kicks();
        let specials = self.learner.special_codes();
        let next = (self.learner.next_table(), self.learner.next_lag());
        let l = &self.learner;
        let reading =
            (l.colours().colour_mask(), l.pose_lag(), l.lock_signal(), l.xy_bases(), l.pair_order().swapped());
        if self.applied {
            // A fully trusted file is never rewritten; a learned one grows when a new colour shows up, and
            // changes when a kick is first seen (or refused) or a nuisance or item code is first seen.
            let grown = self.learner.colour_codes().is_some_and(|m| m.pairs.len().min(6) > self.applied_colours);
            let kicked = self.applied_colours > 0 && kicks != self.applied_kicks;
            let found = self.applied_colours > 0 && specials != self.applied_specials;
            let next_seen = self.applied_colours > 0 && next != self.applied_next;
            let reread = self.applied_colours > 0 && reading != self.applied_reading;
            if reread {
                log::info!(
                    "calibration: reading RAM with what was learned since (colour mask {:#04x}, pose lag {}, locks \
                     marked by the {}, X / Y bases {:?}, current-pair bytes {})",
                    reading.0,
                    reading.1,
                    reading.2.name(),
                    reading.3,
                    l.pair_order().name()
                );
            }
            if self.applied_colours == 0 || !(grown || kicked || found || next_seen || reread) {
                return None;
            }
            if found {
                log::info!(
                    "calibration: reading RAM with the codes learned since (nuisance {}, Big Puyo {}, Carbuncle {})",
                    show(specials.0),
                    show(specials.1),
                    show(specials.2)
                );
            }
        }
        let f = self.learner.address_file(rom_sha1)?;
        self.applied = true;
        self.applied_colours = f.codes.colors.len();
        self.applied_kicks = kicks;
        self.applied_specials = specials;
        self.applied_next = next;
        self.applied_reading = reading;
        Some(f)
    }

    /// Learns the whole contract again from the start file (its verified entries stay trusted): the
    /// session's health check found that the settled contract does not predict what the game does. The
    /// openings drive the seats again until it settles.
    pub fn relearn(&mut self) {
        let (start, mode, max) = (self.learner.start().clone(), self.learner.mode(), self.learner.max_pieces());
        let n = self.policies.len();
        self.learner = Learner::new(&start, mode);
        self.learner.set_max_pieces(max);
        self.policies = (0..n).map(OpeningPolicy::new).collect();
        self.opening_piece = vec![false; n];
        self.was_active = vec![false; n];
        self.kick_tests = vec![0; n];
        self.applied = false;
        self.applied_colours = 0;
        self.applied_kicks = (None, None);
        self.applied_specials = (None, None, None);
        self.applied_next = (super::next::NextTable::Unknown, 0);
    }

    /// Learns the next pair's bytes again (their table or lag failed the health check); the rest of the
    /// contract stays settled.
    pub fn relearn_next(&mut self) {
        self.learner.relearn_next();
        self.applied_next = (super::next::NextTable::Unknown, 0);
    }

    /// Measures the game's clock again (see [`Learner::relearn_clock`]).
    pub fn relearn_clock(&mut self) {
        self.learner.relearn_clock();
    }

    /// The session is ending the game under way (it came out in the wrong mode): the pieces dropped to end
    /// it do not count toward the bound of pieces to settle in. Call on each such frame.
    pub fn restart_bound(&mut self) {
        self.learner.restart_bound();
    }

    /// Forgets that the learned file was taken (after a contradiction unsettled the contract).
    pub fn unsettled_again(&mut self) -> bool {
        if self.applied && !self.learner.is_settled() {
            self.applied = false;
            return true;
        }
        false
    }
}

/// A learned code for people: the number, or "not seen".
fn show(code: Option<u8>) -> String {
    code.map_or_else(|| "not seen".to_string(), |c| c.to_string())
}
