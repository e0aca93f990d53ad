//! What the fact learners share: the read-only snapshot of what is known ([`Known`]), the list of
//! contradictions they report into ([`Contradictions`]), one player's frame as read ([`PlayerFrame`]),
//! and the interface of a learner that only watches ([`FactLearner`]).
//!
//! The facts a lock is read with are learned jointly: the colour byte and the empty code
//! ([`super::layout`]), the colour codes and mask ([`super::colours`]), the X / Y bases
//! ([`super::bases`]) and the movement ([`super::motion`]); a lock is read through all of them and
//! narrows several at once, so the [`super::Learner`] passes each event through them in a fixed order.
//! Every other fact (the next pair's bytes, the timing) only watches the frames and reads the snapshot:
//! it implements [`FactLearner`], and a new one is one more entry in the learner's list.

use crate::memmap::XyTracks;
use crate::memmap::raw::View;

use super::observe::Event;
use super::types::Candidate;
use super::types::TimingSample;

/// What is known so far, copied out for a fact learner to read: no learner reads another one's fields.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Known {
    /// Which byte of a cell holds the colour.
    pub offset: Option<usize>,
    /// The empty cell's code in that byte.
    pub empty: Option<u8>,
    /// The colour byte's bits that carry the code.
    pub colour_mask: u8,
    /// Which puyo X / Y follow (often known before the rest of the movement).
    pub tracks: Option<XyTracks>,
    /// The whole movement, once settled.
    pub movement: Option<Candidate>,
    /// The X byte's value in column 1 and the Y byte's in row 0.
    pub xy_bases: (u8, u8),
}

/// Contradictions found, in order: each one is logged as a warning when found and listed in the report.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Contradictions(Vec<String>);

impl Contradictions {
    /// Logs and keeps a contradiction.
    pub fn push(&mut self, message: String) {
        log::warn!("calibration: {message}");
        self.0.push(message);
    }

    /// All of them, in order.
    pub fn all(&self) -> &[String] {
        &self.0
    }

    /// How many were found.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// True when none was found.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// One player's frame as the learner read it.
#[derive(Clone, Copy, Debug)]
pub struct PlayerFrame<'a> {
    /// The player (address-file order).
    pub player: usize,
    /// Frames observed so far, this one included.
    pub frame: u64,
    /// The player's bytes: orientation numbered as the movement model numbers it, X / Y shifted to the
    /// field's columns and rows, `active` when the piece can move (read from the piece's life, not a byte).
    pub view: &'a View,
    /// The pad held during the frame.
    pub pad: u8,
    /// What the frame showed of the timing of a piece's life.
    pub timing: Option<TimingSample>,
    /// What the frame showed (spawn, turn, lock ...), in order.
    pub events: &'a [Event],
}

/// A learner of one fact that only watches: fed every player's frame with the snapshot of what is known,
/// it changes nothing but itself (and may report contradictions).
pub trait FactLearner {
    /// One player's frame.
    fn observe(&mut self, seen: &PlayerFrame<'_>, known: &Known, found: &mut Contradictions);

    /// Forgets everything (the fact is learned again).
    fn reset(&mut self);
}
