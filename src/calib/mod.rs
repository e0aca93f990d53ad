//! Self-calibration: learning a cartridge's RAM contract from RAM and pad bytes alone.
//!
//! The learner starts from what the public RAM map gives with confidence (the field addresses with
//! their 16-byte rows and 2-byte cells, the current / next / X / Y / orientation bytes and the spawn
//! bytes) and learns the rest by watching frames:
//!
//! - the empty code and which byte of a cell holds the colour: the most common cell on a fresh field is
//!   empty, and a pair of two different colours fills exactly two empty cells in the colour byte;
//! - the movement ([`motion`]): what each orientation value means, which puyo X / Y follow and which way
//!   A turns, as one space of 96 candidates that every turn and every lock narrows;
//! - the colour codes of pieces and of field cells (a mapping when they differ), from where each puyo
//!   of a lock landed;
//! - nuisance (a code that stays in the field and is no colour) and items (pieces of one code that do
//!   not land as a pair).
//!
//! Observation ([`observe`]) is passive: it assumes nothing about which buttons are pressed, so it
//! works on a trace of a person playing. The [`policy`] is the bot's safe opening, which presses what
//! the learner needs to see. Every fact keeps being checked; a contradiction is logged, listed in the
//! report, and sends the learner back to learning that fact.
//!
//! The modules form layers, each using only those below it (`tests/model/layering.rs` checks it): the
//! shared vocabulary ([`codes`], [`types`]); what a frame shows ([`observe`]) and the report's types
//! ([`report`]); the facts one learner reads of the others ([`fact`]), where calibration stands
//! ([`state`]) and the menus ([`menu`]); one learner per fact ([`layout`], [`colours`], [`bases`],
//! [`motion`], [`kicks`], [`next`], [`control`], [`clock`], [`order`]); the [`Learner`] that coordinates
//! them; what is read from it ([`reporting`], [`policy`], [`write`]); and the [`online`] and [`offline`]
//! drivers.

pub mod bases;
pub mod battle_rules;
pub mod clock;
pub mod codes;
pub mod colours;
pub mod control;
pub mod fact;
pub mod kicks;
pub mod layout;
pub mod learner;
pub mod menu;
pub mod motion;
pub mod next;
pub mod observe;
pub mod offline;
pub mod online;
pub mod order;
pub mod policy;
pub mod report;
pub mod reporting;
pub mod state;
pub mod types;
pub mod write;

use serde::{Deserialize, Serialize};

pub use colours::{ItemKind, KnownCodes};
pub use fact::{Contradictions, FactLearner, Known, PlayerFrame};
pub use learner::{Learner, MAX_PIECES};
pub use menu::{MenuReport, MenuWatcher};
pub use offline::{OfflineCalibration, OfflineReport};
pub use online::{OnlineCalibration, SeatControl};
pub use policy::OpeningPolicy;
pub use report::{
    CalibrationReport, ClockReport, CodesReport, KicksReport, NextPairReport, OrientationReport, ReportState, Unsettled,
};
pub use state::{CalibrationState, Moment, MovementPart, Progress, UnsettledFact};
pub use write::{LearnedRom, write_address_folder};

/// One frame as the learner sees it: CPU RAM at the start of the frame and the pad bytes held during it.
#[derive(Clone, Copy, Debug)]
pub struct Frame<'a> {
    /// CPU RAM at the start of the frame.
    pub ram: &'a [u8; 2048],
    /// Pad 1 and pad 2, held during the frame (NES bit order of [`crate::emu::pad`]).
    pub pads: [u8; 2],
}

/// What the player does about calibration (`play.calibrate`, `--calibrate`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum CalibrateMode {
    /// Trust the verified entries of the address file and learn the rest before the bot plays.
    #[default]
    Auto,
    /// Trust the address file.
    Off,
    /// Learn everything, print the result and stop.
    Only,
}

impl CalibrateMode {
    /// The name used on the command line and in files.
    pub fn name(self) -> &'static str {
        match self {
            CalibrateMode::Auto => "auto",
            CalibrateMode::Off => "off",
            CalibrateMode::Only => "only",
        }
    }
}

impl std::fmt::Display for CalibrateMode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Buttons with A and B exchanged: for a cartridge whose A turns counter-clockwise, so a driver that
/// presses A to turn clockwise turns the way it means.
pub fn swap_ab(buttons: u8) -> u8 {
    let a = buttons & crate::emu::pad::A;
    let b = buttons & crate::emu::pad::B;
    let rest = buttons & !(crate::emu::pad::A | crate::emu::pad::B);
    rest | if a != 0 { crate::emu::pad::B } else { 0 } | if b != 0 { crate::emu::pad::A } else { 0 }
}

#[cfg(test)]
mod synth;
#[cfg(test)]
mod tests;
