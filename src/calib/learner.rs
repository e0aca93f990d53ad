//! The learner: frames in, facts out. It starts from the addresses the public RAM map gives with
//! confidence and learns the rest (see the module documentation of [`crate::calib`]).

use std::collections::{BTreeMap, BTreeSet};

use crate::game::Orientation;
use crate::memmap::raw::{CELLS, MAX_CELL_BYTES, RawField, View, idx, pos};
use crate::memmap::schema::{AddressFile, XyTracks};

use super::bases::{BaseLearner, BaseVerdict};
use super::codes::{Mapping, majority_pattern};
use super::control::{ControlWatch, TimingLearner};
use super::motion::{Candidate, Motion, Relative, RotationSeen};
use super::next::{NextLearner, NextTable};
use super::observe::{Event, LockSeen, Observer, RefusedSeen, TurnSeen};
use super::state::{CalibrationState, Moment, UnsettledFact, movement_parts};
use super::{CalibrateMode, Frame};

/// Pieces (by the player who locked most) after which an unsettled calibration counts as failed.
pub const MAX_PIECES: u32 = 20;

/// Frames a cell must keep an unexplained code before it counts as nuisance.
const NUISANCE_FRAMES: u32 = 60;

/// Pair locks kept as evidence for the colour mapping (the oldest are dropped).
const KEPT_LOCKS: usize = 64;

/// `field` with byte `k` of every cell read through `mask`.
fn masked_field(field: &RawField, k: usize, mask: u8) -> RawField {
    let mut out = *field;
    for c in &mut out {
        c[k] &= mask;
    }
    out
}

/// What kind of item a piece code is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ItemKind {
    /// A piece that did not land as a pair, kind not yet seen.
    Unknown,
    /// Cleared cells in two adjacent columns: Big Puyo.
    BigPuyo,
    /// Changed the codes of cells next to it: Carbuncle.
    Carbuncle,
}

/// One clean pair lock, read at the colour byte: which way the other puyo sat from the one X / Y follow,
/// and the codes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct PairLock {
    o: u8,
    rel: Relative,
    pivot: u8,
    child: u8,
    tracked: u8,
    other: u8,
}

/// Facts the start file vouches for (`verified = true`) in `auto` mode.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Trusted {
    pub codes: bool,
    pub offset: bool,
    pub orientation: bool,
    pub movement: bool,
}

/// Learns the contract of a cartridge from frames of RAM and pads.
#[derive(Clone, Debug)]
pub struct Learner {
    pub(crate) start: AddressFile,
    pub(crate) mode: CalibrateMode,
    pub(crate) trusted: Trusted,
    observers: Vec<Observer>,
    /// The empty cell's bytes (the most common pattern on the first field seen).
    pub(crate) empty_pattern: Option<[u8; MAX_CELL_BYTES]>,
    cell_bytes: usize,
    /// Which cell byte may still be the colour byte.
    offsets: [bool; MAX_CELL_BYTES],
    pub(crate) motion: Motion,
    /// Locks seen before the colour byte was known, to read again once it is.
    pending: Vec<LockSeen>,
    locks: Vec<PairLock>,
    /// Monochrome pairs: piece code → field code (true whichever puyo X / Y follow).
    mono: Mapping,
    /// Piece codes seen in pairs of two different codes (so they are colours, not items).
    pub(crate) pair_codes: BTreeSet<u8>,
    pub(crate) items: BTreeMap<u8, ItemKind>,
    /// Colour piece codes in the order they were first mapped: learned files list colours in this order,
    /// so a colour learned later is appended and the earlier ones keep their model colour.
    pub(crate) colour_order: Vec<u8>,
    pub(crate) nuisance: Option<u8>,
    stable: Vec<[(u8, u32); CELLS]>,
    /// Orientation after A / B from each value, as seen.
    pub(crate) after_a: BTreeMap<u8, u8>,
    pub(crate) after_b: BTreeMap<u8, u8>,
    /// Orientation values pieces spawned with.
    pub(crate) spawn_values: BTreeSet<u8>,
    /// Turns the pair made next to something (kicks are judged once the movement is settled).
    near_turns: Vec<TurnSeen>,
    /// Turn presses that changed nothing (a kick that did not happen, when one was possible).
    refused: Vec<RefusedSeen>,
    /// Contradictions, in the order they were found.
    pub(crate) contradictions: Vec<String>,
    /// Pieces locked by the player who locked most.
    pub(crate) pieces: u32,
    /// When the contract settled (`None` while it is not, or since a contradiction).
    settled_at: Option<Moment>,
    pub(crate) max_pieces: u32,
    /// Pieces seen before the bound started counting ([`Learner::restart_bound`]).
    bound_from: u32,
    frames: u64,
    /// The next pair's code table and lag.
    next: NextLearner,
    /// Raw orientation values in the order first seen on a movable frame. The movement model numbers
    /// them 0..3 by their place here, so any four distinct values work, whatever their range.
    pub(crate) ori_values: Vec<u8>,
    /// Each player's piece life (when a piece can move), followed over frames.
    control: Vec<ControlWatch>,
    /// The pose lag and lock signal the frames showed.
    pub(crate) timing: TimingLearner,
    /// The X / Y offsets the locks allow.
    bases: BaseLearner,
    /// Subtracted from the X / Y bytes before anything reads them: the field's column 1 and row 0 read as
    /// X 1 and Y 0 (from the start file's bases, moved by what locks show).
    pub(crate) xy_shift: (i16, i16),
    /// Locks that arrived while the X / Y bases were ambiguous, to read once they are not.
    pending_bases: Vec<LockSeen>,
    /// The colour byte's bits that carry the code: those seen changing in a cell that kept its puyo
    /// (link bits, animation) are cleared.
    pub(crate) colour_mask: u8,
}

/// Which piece codes the play side reads from knowledge rather than from a guess ([`Learner::known_codes`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KnownCodes {
    /// The Big Puyo code is learned or trusted.
    pub big_puyo: bool,
    /// The Carbuncle code is learned or trusted.
    pub carbuncle: bool,
    /// A piece code in no table, which the decoder gives a free colour class on the spot, is a colour of the
    /// contract (the file is trusted) rather than a guess that its first lock will confirm or correct (it
    /// may be an item nobody guessed).
    pub new_colors: bool,
}

impl KnownCodes {
    /// Every code is known: the file is trusted or calibration is off.
    pub const ALL: KnownCodes = KnownCodes { big_puyo: true, carbuncle: true, new_colors: true };
}

impl Learner {
    /// Starts from an address file: entries marked verified are trusted, the rest are learned.
    pub fn new(start: &AddressFile, mode: CalibrateMode) -> Learner {
        let auto = mode != CalibrateMode::Only;
        let trusted = Trusted {
            codes: auto && start.codes.verified,
            offset: auto && start.player.iter().all(|p| p.field.verified),
            orientation: auto && start.orientation.verified,
            movement: auto && start.movement.verified,
        };
        let mut l = Learner {
            start: start.clone(),
            mode,
            trusted,
            observers: vec![Observer::default(); start.player.len()],
            empty_pattern: None,
            cell_bytes: 0,
            offsets: [true; MAX_CELL_BYTES],
            motion: Motion::new(),
            pending: Vec::new(),
            locks: Vec::new(),
            mono: Mapping::default(),
            pair_codes: BTreeSet::new(),
            items: BTreeMap::new(),
            colour_order: Vec::new(),
            nuisance: None,
            stable: vec![[(0, 0); CELLS]; start.player.len()],
            after_a: BTreeMap::new(),
            after_b: BTreeMap::new(),
            spawn_values: BTreeSet::new(),
            near_turns: Vec::new(),
            refused: Vec::new(),
            contradictions: Vec::new(),
            pieces: 0,
            settled_at: None,
            max_pieces: MAX_PIECES,
            bound_from: 0,
            next: NextLearner::default(),
            // A trusted file's values are the ones to number; else they are numbered as they appear.
            ori_values: if trusted.orientation {
                let o = &start.orientation;
                vec![o.down, o.left, o.up, o.right]
            } else {
                Vec::new()
            },
            frames: 0,
            control: vec![ControlWatch::default(); start.player.len()],
            timing: TimingLearner::default(),
            bases: BaseLearner::default(),
            xy_shift: (start.movement.x_base as i16 - 1, start.movement.y_base as i16),
            pending_bases: Vec::new(),
            colour_mask: start.codes.color_mask,
        };
        if trusted.offset
            && let Some(p) = start.player.first()
        {
            let k = p.field.color_offset as usize;
            l.offsets = std::array::from_fn(|i| i == k);
        }
        l.apply_trusted_motion();
        if l.is_settled() {
            l.settled_at = Some(Moment::default());
        }
        l
    }

    /// Sets the number of pieces after which an unsettled calibration counts as failed.
    pub fn set_max_pieces(&mut self, pieces: u32) {
        self.max_pieces = pieces.max(1);
    }

    /// The pieces seen so far no longer count toward the bound of [`Learner::set_max_pieces`]: the session
    /// is ending the game they are in (it came out in the wrong mode) by dropping them in place, so the
    /// opening cannot drive them. What they taught stays.
    pub fn restart_bound(&mut self) {
        self.bound_from = self.pieces;
    }

    /// Whether the bound of pieces to settle in has passed.
    pub fn out_of_pieces(&self) -> bool {
        self.pieces.saturating_sub(self.bound_from) >= self.max_pieces
    }

    /// Where calibration stands (in `off` mode the learner learns nothing and stays [`CalibrationState::Learning`]).
    pub fn state(&self) -> CalibrationState {
        if self.is_settled() {
            let at = self.settled_at.unwrap_or(Moment { pieces: self.pieces, frames: self.frames });
            CalibrationState::Settled { at }
        } else if self.out_of_pieces() {
            CalibrationState::Failed { facts: self.unsettled_facts() }
        } else {
            CalibrationState::Learning
        }
    }

    /// True when calibration failed: not settled within the bound of pieces (cheap: nothing is built).
    pub fn failed(&self) -> bool {
        self.mode != CalibrateMode::Off && self.out_of_pieces() && !self.is_settled()
    }

    /// The facts needed to play that are not settled, with what was seen of them.
    pub fn unsettled_facts(&self) -> Vec<UnsettledFact> {
        let mut out = Vec::new();
        if self.empty_pattern.is_none() && !self.trusted.codes {
            out.push(UnsettledFact::EmptyCode);
        }
        if self.offset().is_none() {
            out.push(UnsettledFact::ColourByte { pieces: self.pieces });
        }
        let m = &self.motion;
        if m.settled().is_none() {
            let raw = |t: &BTreeMap<u8, u8>| t.iter().map(|(&a, &b)| (self.ori_raw(a), self.ori_raw(b))).collect();
            out.push(UnsettledFact::Movement {
                candidates: m.count(),
                missing: movement_parts(m.tracks().is_some(), m.a_turns().is_some(), |d| m.value_of(d).is_some()),
                turns_a: raw(&self.after_a),
                turns_b: raw(&self.after_b),
            });
        }
        if self.colour_codes().is_none_or(|c| c.pairs.is_empty()) {
            out.push(UnsettledFact::ColourCodes { pair_codes: self.pair_codes.clone() });
        }
        out
    }

    /// Frames observed.
    pub fn frames(&self) -> u64 {
        self.frames
    }

    fn apply_trusted_motion(&mut self) {
        if self.trusted.orientation {
            let o = self.start.orientation.clone();
            let [up, right, down, left] = [o.up, o.right, o.down, o.left].map(|v| self.ori_index(v));
            self.motion.restrict(|c| {
                c.value(Orientation::Up) == up
                    && c.value(Orientation::Right) == right
                    && c.value(Orientation::Down) == down
                    && c.value(Orientation::Left) == left
            });
        }
        if self.trusted.movement {
            let m = self.start.movement.clone();
            self.motion.restrict(|c| c.tracks == m.xy_tracks && c.a_turns == m.a_rotates);
        }
    }

    /// Feeds one frame (online from the session, or offline from a trace of a person playing).
    pub fn observe(&mut self, frame: &Frame<'_>) {
        if self.mode == CalibrateMode::Off {
            return;
        }
        self.frames += 1;
        for i in 0..self.start.player.len() {
            let p = &self.start.player[i];
            let pad = frame.pads.get(p.pad.saturating_sub(1) as usize).copied().unwrap_or(0);
            let mut view = View::read(frame.ram, p);
            let (active, sample) = self.control[i].step(&view);
            view.active = active;
            if let Some(s) = sample {
                self.timing.add(s);
            }
            if view.active {
                self.note_orientation(view.o);
            }
            self.normalise(&mut view);
            self.cell_bytes = view.cell_bytes;
            self.recoded_cells(i, &view);
            let events = self.observers[i].step(view, pad);
            for e in events {
                self.event(e);
            }
            self.scan_nuisance(i);
        }
        self.pieces = self.observers.iter().map(|o| o.locks).max().unwrap_or(0);
        if self.settled_at.is_none() && self.is_settled() {
            self.settled_at = Some(Moment { pieces: self.pieces, frames: self.frames });
            log::info!("calibration settled after {} pieces", self.pieces);
        }
    }

    /// Player `player`'s view of `ram` as the learner reads it, without feeding it: whether the piece can
    /// move (continuing the frames fed so far), the orientation numbered, X / Y shifted to the field's
    /// columns and rows. `None` for a player the start file does not have.
    pub fn view_now(&self, ram: &[u8; 2048], player: usize) -> Option<View> {
        let p = self.start.player.get(player)?;
        let mut view = View::read(ram, p);
        view.active = self.control.get(player)?.clone().step(&view).0;
        self.normalise(&mut view);
        Some(view)
    }

    /// Numbers the orientation and shifts X / Y (see [`Learner::view_now`]).
    fn normalise(&self, view: &mut View) {
        view.o = self.ori_index(view.o);
        view.x = (view.x as i16 - self.xy_shift.0) as u8;
        view.y = (view.y as i16 - self.xy_shift.1) as u8;
    }

    /// The X / Y bytes' bases: the X value of column 1 and the Y value of row 0.
    pub fn xy_bases(&self) -> (u8, u8) {
        ((self.xy_shift.0 + 1) as u8, self.xy_shift.1 as u8)
    }

    /// Frames after the timer reaches 0 before a new piece's bytes are written, as seen most often.
    pub fn pose_lag(&self) -> u32 {
        self.timing.pose_lag()
    }

    /// What marks a lock, as seen: the field when it gained cells before the timer turned at least twice.
    pub fn lock_signal(&self) -> crate::memmap::schema::LockSignal {
        use crate::memmap::schema::LockSignal;
        if self.timing.field_locks() >= 2 { LockSignal::Field } else { LockSignal::Timer }
    }

    /// A lock's cells say the X / Y shift in use is off by `(dx, dy)`: moves it and forgets what was read
    /// with the old one (the pairs' locks and the movement), then reads the locks that were waiting.
    fn shift_bases(&mut self, dx: i16, dy: i16) {
        self.xy_shift = (self.xy_shift.0 + dx, self.xy_shift.1 + dy);
        let (x, y) = self.xy_bases();
        log::info!("calibration: the X / Y bytes read column 1 as {x} and row 0 as {y}; learning the movement again");
        let back = |v: u8, d: i16| (v as i16 - d) as u8;
        for l in &mut self.pending_bases {
            l.x = back(l.x, dx);
            l.y = back(l.y, dy);
        }
        self.locks.clear();
        self.near_turns.clear();
        self.refused.clear();
        self.motion.reset();
        self.apply_trusted_motion();
        self.settled_at = None;
        for l in std::mem::take(&mut self.pending_bases) {
            self.lock(&l);
        }
    }

    /// Bits of the colour byte that changed between the last frame and `view` in cells that held a puyo
    /// in both while no cell was filled or emptied (nothing moved): link bits or animation, not colour.
    fn recoded_cells(&mut self, player: usize, view: &View) {
        if self.trusted.codes {
            return;
        }
        let (Some(k), Some(empty)) = (self.offset(), self.empty_code()) else { return };
        let Some(prev) = self.observers.get(player).and_then(|o| o.view()) else { return };
        let m = self.colour_mask;
        let mut bits = 0u8;
        for (a, b) in prev.cells.iter().zip(view.cells.iter()) {
            let (was, is) = (a[k] & m != empty & m, b[k] & m != empty & m);
            if was != is {
                return;
            }
            if was {
                bits |= a[k] ^ b[k];
            }
        }
        self.note_varying(bits);
    }

    /// `bits` of the colour byte change in a cell that kept its puyo: leaves them out of every code read
    /// from now on, unless that would make two codes already told apart equal (then they carry colour:
    /// the change was something else, such as a piece's cells moving).
    pub(super) fn note_varying(&mut self, bits: u8) {
        let mask = self.colour_mask & !bits;
        if mask == self.colour_mask {
            return;
        }
        let mut known: Vec<u8> = self.locks.iter().flat_map(|l| [l.tracked, l.other]).collect();
        known.extend(self.mono.pairs.values());
        known.extend(self.empty_code());
        known.sort_unstable();
        known.dedup();
        let mut masked: Vec<u8> = known.iter().map(|v| v & mask).collect();
        masked.sort_unstable();
        masked.dedup();
        if masked.len() != known.len() || mask == 0 {
            log::debug!("calibration: bits {bits:#04x} changed in a kept cell but tell codes apart; kept");
            return;
        }
        log::info!(
            "calibration: bits {:#04x} of the colour byte change with neighbours or animation; codes are read \
             through the mask {mask:#04x}",
            self.colour_mask & bits
        );
        let wider = std::mem::replace(&mut self.colour_mask, mask);
        for l in &mut self.locks {
            l.tracked &= mask;
            l.other &= mask;
        }
        let mut mono = Mapping::default();
        for (&p, &f) in &self.mono.pairs {
            mono.add(p, f & mask);
        }
        self.mono = mono;
        // A nuisance code learned through the wider mask may be a colour with link bits (a linked puyo that
        // kept its code for a while): it is learned again through the new mask if it is nuisance.
        if let Some(n) = self.nuisance.take() {
            log::info!("calibration: nuisance code {n} was read through the mask {wider:#04x}; learning it again");
        }
        for s in &mut self.stable {
            s.iter_mut().for_each(|c| *c = (0, 0));
        }
    }

    fn contradiction(&mut self, message: String) {
        log::warn!("calibration: {message}");
        self.contradictions.push(message);
        self.settled_at = None;
    }

    fn event(&mut self, e: Event) {
        match e {
            Event::Spawn { seen, field, first } => {
                if first && self.empty_pattern.is_none() {
                    let (mut p, _) = majority_pattern(&field);
                    if self.trusted.codes && self.trusted.offset {
                        p[self.offset().unwrap_or(0)] = self.start.codes.empty;
                    }
                    self.empty_pattern = Some(p);
                }
                if seen.pivot != seen.child {
                    self.pair_codes.insert(seen.pivot);
                    self.pair_codes.insert(seen.child);
                    for code in [seen.pivot, seen.child] {
                        if self.items.remove(&code).is_some() {
                            self.contradiction(format!(
                                "piece code {code} was taken for an item but came in a pair with another code"
                            ));
                        }
                    }
                }
                self.spawn_values.insert(seen.o);
                // A piece that locked before the next bytes' lag was over (it spawned on something) left
                // them showing the slide, not the next pair.
                let before = seen.next_before.filter(|_| seen.frames_before >= self.next.lag());
                self.next.spawn(before, seen.pivot, seen.child);
            }
            Event::NextChanged { frames } => self.next.changed(frames),
            Event::Turn(t) => self.turn(t),
            Event::TurnRefused(r) => {
                if self.refused.len() < 64 {
                    self.refused.push(r);
                }
            }
            Event::Lock(l) => {
                if self.offset().is_some() {
                    self.lock(&l);
                } else {
                    self.offset_evidence(&l);
                    self.pending.push(l);
                    if self.offset().is_some() {
                        for l in std::mem::take(&mut self.pending) {
                            self.lock(&l);
                        }
                    }
                }
            }
        }
    }

    /// The colour byte's offset within a cell, when settled.
    pub fn offset(&self) -> Option<usize> {
        let n = self.cell_bytes.max(1);
        let mut alive = (0..n).filter(|&k| self.offsets[k]);
        let k = alive.next()?;
        if alive.next().is_none() { Some(k) } else { None }
    }

    /// The empty code, when known.
    pub fn empty_code(&self) -> Option<u8> {
        if self.trusted.codes {
            return Some(self.start.codes.empty);
        }
        Some(self.empty_pattern?[self.offset()?])
    }

    /// Cells whose byte `k` differs between two fields.
    fn changed(before: &RawField, after: &RawField, k: usize) -> Vec<usize> {
        (0..CELLS).filter(|&i| before[i][k] != after[i][k]).collect()
    }

    /// A lock of two different codes must fill exactly two empty cells in the colour byte, with two
    /// different codes: rules out cell bytes that do not.
    fn offset_evidence(&mut self, l: &LockSeen) {
        let Some(empty) = self.empty_pattern else { return };
        if l.pivot == l.child {
            return;
        }
        let n = self.cell_bytes.max(1);
        let ok: Vec<bool> = (0..n)
            .map(|k| {
                let ch = Self::changed(&l.before, &l.after, k);
                ch.len() == 2
                    && ch.iter().all(|&i| l.before[i][k] == empty[k] && l.after[i][k] != empty[k])
                    && l.after[ch[0]][k] != l.after[ch[1]][k]
            })
            .collect();
        let alive: Vec<usize> = (0..n).filter(|&k| self.offsets[k]).collect();
        if alive.iter().any(|&k| ok[k]) {
            for k in alive {
                self.offsets[k] = ok[k];
            }
        }
    }

    fn lock(&mut self, l: &LockSeen) {
        let (Some(k), Some(empty)) = (self.offset(), self.empty_code()) else { return };
        // Cells that kept a puyo but changed show bits that follow the neighbours (the pair's arrival).
        let kept = |m: u8, i: usize| l.before[i][k] & m != empty & m && l.after[i][k] & m != empty & m;
        let m = self.colour_mask;
        let bits = (0..CELLS).filter(|&i| kept(m, i)).fold(0, |b, i| b | (l.before[i][k] ^ l.after[i][k]));
        self.note_varying(bits);
        if l.pivot == l.child {
            // One piece code: its two new cells differ only in bits that are not colour.
            let new: Vec<usize> =
                (0..CELLS).filter(|&i| l.before[i][k] & m == empty & m && l.after[i][k] & m != empty & m).collect();
            if let [a, b] = new[..] {
                self.note_varying(l.after[a][k] ^ l.after[b][k]);
            }
        }
        let m = self.colour_mask;
        let (before, after) = (masked_field(&l.before, k, m), masked_field(&l.after, k, m));
        let l = &LockSeen { before: Box::new(before), after: Box::new(after), ..l.clone() };
        let ch = Self::changed(&l.before, &l.after, k);
        let filled = ch.len() == 2 && ch.iter().all(|&i| l.before[i][k] == empty && l.after[i][k] != empty);
        if l.pivot == l.child {
            log::debug!(
                "calibration: lock of piece code {} changed {} cells (filled two: {filled})",
                l.pivot,
                ch.len()
            );
        }
        if !filled {
            if l.pivot == l.child && !self.pair_codes.contains(&l.pivot) && self.colour_field(l.pivot).is_none() {
                self.item_lock(l, k, empty, &ch);
            }
            return;
        }
        let (a, b) = (pos(ch[0]), pos(ch[1]));
        if !self.trusted.movement {
            match self.bases.lock((l.x, l.y), a, b) {
                BaseVerdict::Fits => {}
                BaseVerdict::Unknown => {
                    if self.pending_bases.len() < KEPT_LOCKS {
                        self.pending_bases.push(l.clone());
                    }
                    return;
                }
                BaseVerdict::Shift(dx, dy) => {
                    self.pending_bases.push(l.clone());
                    self.shift_bases(dx, dy);
                    return;
                }
            }
        }
        let (x, y) = (l.x as usize, l.y as usize);
        // The cell X / Y name; for a horizontal pair each half may have dropped, so the column decides.
        let (t, o) = if a == (x, y) {
            (a, b)
        } else if b == (x, y) {
            (b, a)
        } else if a.0 == x && b.0 != x {
            (a, b)
        } else if b.0 == x && a.0 != x {
            (b, a)
        } else {
            return;
        };
        let rel = if t.0 == o.0 && t.1.abs_diff(o.1) == 1 {
            Relative::Vertical(if o.1 > t.1 { 1 } else { -1 })
        } else if t.0.abs_diff(o.0) == 1 {
            Relative::Horizontal(if o.0 > t.0 { 1 } else { -1 })
        } else {
            return;
        };
        let (mut tracked, mut other) = (l.after[idx(t.0, t.1)][k], l.after[idx(o.0, o.1)][k]);
        if let Some(tracks) = self.motion.tracks() {
            // A puyo of a known colour that landed as its code with more bits set: those bits follow the
            // neighbours (a new cell's link towards a puyo of its colour), not the colour.
            let (pt, po) = match tracks {
                XyTracks::Pivot => (l.pivot, l.child),
                XyTracks::Child => (l.child, l.pivot),
            };
            let known = self.mapping(tracks).unwrap_or_default();
            for (piece, seen) in [(pt, tracked), (po, other)] {
                if let Some(f) = known.field(piece).or_else(|| self.mono.field(piece))
                    && seen != f
                    && seen & f == f
                {
                    self.note_varying(seen ^ f);
                }
            }
            tracked &= self.colour_mask;
            other &= self.colour_mask;
        }
        if l.pivot == l.child {
            if tracked != other {
                // One piece code, two field codes: not a pair of one colour. Nothing to learn here.
                return;
            }
            if !self.mono.add(l.pivot, tracked) {
                self.contradiction(format!(
                    "piece code {} landed as field code {tracked}, but earlier as {:?}",
                    l.pivot,
                    self.mono.field(l.pivot)
                ));
                self.mono = Mapping::default();
                self.mono.add(l.pivot, tracked);
            }
            if self.items.remove(&l.pivot).is_some() {
                self.contradiction(format!("piece code {} was taken for an item but landed as a pair", l.pivot));
            }
            if self.nuisance == Some(tracked) {
                self.contradiction(format!("field code {tracked} was taken for nuisance but a piece landed as it"));
                self.nuisance = None;
            }
        }
        self.motion_lock(l.o, rel);
        let lock = PairLock { o: l.o, rel, pivot: l.pivot, child: l.child, tracked, other };
        self.locks.push(lock);
        if self.locks.len() > KEPT_LOCKS {
            self.locks.remove(0);
        }
        self.check_mappings();
    }

    fn motion_lock(&mut self, o: u8, rel: Relative) {
        if o > 3 {
            self.contradiction(format!("orientation byte held {o}, outside 0..=3"));
            return;
        }
        if !self.motion.restrict(|c| Motion::lock_accepts(c, o, rel)) {
            self.contradiction(format!(
                "a lock with orientation {o} put the other puyo {rel:?} of X/Y, against what was learned; \
                 learning the movement again"
            ));
            self.motion.reset();
            self.apply_trusted_motion();
            self.motion.restrict(|c| Motion::lock_accepts(c, o, rel));
        }
    }

    /// The piece → field mapping if X / Y follow `tracks`, or `None` when the locks contradict it.
    fn mapping(&self, tracks: XyTracks) -> Option<Mapping> {
        let mut m = self.mono.clone();
        for l in &self.locks {
            let (t, o) = match tracks {
                XyTracks::Pivot => (l.pivot, l.child),
                XyTracks::Child => (l.child, l.pivot),
            };
            if !(m.add(t, l.tracked) && m.add(o, l.other)) {
                return None;
            }
        }
        Some(m)
    }

    fn check_mappings(&mut self) {
        for tracks in [XyTracks::Pivot, XyTracks::Child] {
            if self.mapping(tracks).is_none() && !self.motion.restrict(|c| c.tracks != tracks) {
                let last = self.locks.last().copied();
                let seen = last.map_or(String::new(), |l| {
                    format!(
                        " (orientation {}, pivot code {}, child code {}, field codes {} and {})",
                        l.o, l.pivot, l.child, l.tracked, l.other
                    )
                });
                self.contradiction(format!(
                    "colour codes: the last lock{seen} contradicts every earlier one; learning the colours again"
                ));
                self.locks.clear();
                self.locks.extend(last);
                self.mono = Mapping::default();
                return;
            }
        }
        if let Some(m) = self.colour_codes() {
            for &p in m.pairs.keys() {
                if !self.colour_order.contains(&p) {
                    self.colour_order.push(p);
                }
            }
        }
        if let Some(n) = self.nuisance
            && self.colour_codes().is_some_and(|m| m.field_codes().contains(&n))
        {
            self.contradiction(format!("field code {n} was taken for nuisance but a piece landed as it"));
            self.nuisance = None;
        }
    }

    /// The piece → field colour mapping, when it is known which puyo X / Y follow.
    pub fn colour_codes(&self) -> Option<Mapping> {
        if self.trusted.codes {
            let c = &self.start.codes;
            let mut m = Mapping::default();
            for (i, &f) in c.colors.iter().enumerate() {
                let p = c.piece_colors.as_ref().and_then(|pc| pc.get(i).copied()).unwrap_or(f);
                m.add(p, f);
            }
            return Some(m);
        }
        let tracks = self.motion.tracks()?;
        self.mapping(tracks)
    }

    fn colour_field(&self, piece: u8) -> Option<u8> {
        self.mono.field(piece).or_else(|| self.colour_codes().and_then(|m| m.field(piece)))
    }

    fn item_lock(&mut self, l: &LockSeen, k: usize, empty: u8, ch: &[usize]) {
        // Big Puyo empties the two whole columns under it (X and X + 1); anything else an item does
        // (recolouring, then maybe a pop) is Carbuncle's. No change at all on empty columns says nothing.
        let x = l.x as usize;
        let cleared = ch.iter().all(|&i| l.before[i][k] != empty && l.after[i][k] == empty);
        let in_columns = ch.iter().all(|&i| pos(i).0 == x || pos(i).0 == x + 1);
        let columns_empty = (0..CELLS).filter(|&i| pos(i).0 == x || pos(i).0 == x + 1).all(|i| l.after[i][k] == empty);
        // An item that changed nothing although its columns held puyos did not empty them: not Big Puyo, so
        // the other item (a Carbuncle whose neighbours already had its colour, or whose change was only in
        // bits outside the colour mask).
        let columns_held = (0..CELLS).any(|i| (pos(i).0 == x || pos(i).0 == x + 1) && l.before[i][k] != empty);
        let kind = if ch.is_empty() {
            if columns_held { ItemKind::Carbuncle } else { ItemKind::Unknown }
        } else if cleared && in_columns && columns_empty {
            ItemKind::BigPuyo
        } else {
            ItemKind::Carbuncle
        };
        let entry = self.items.entry(l.pivot).or_insert(ItemKind::Unknown);
        if *entry == ItemKind::Unknown {
            *entry = kind;
        } else if kind != ItemKind::Unknown && kind != *entry {
            let was = *entry;
            *entry = kind;
            self.contradiction(format!("item code {} acted as {kind:?} after acting as {was:?}", l.pivot));
        }
    }

    fn turn(&mut self, t: TurnSeen) {
        if t.from > 3 || t.to > 3 {
            self.contradiction(format!("orientation byte went {} -> {}, outside 0..=3", t.from, t.to));
            return;
        }
        match t.button {
            Some(super::motion::TurnButton::A) => {
                self.after_a.insert(t.from, t.to);
            }
            Some(super::motion::TurnButton::B) => {
                self.after_b.insert(t.from, t.to);
            }
            None => {}
        }
        let open = !t.sideways && self.is_open(&t.field, t.xy.0, t.xy.1);
        let seen = RotationSeen {
            from: t.from,
            to: t.to,
            button: t.button,
            open_move: open
                .then(|| (t.xy_after.0 as i16 - t.xy.0 as i16, t.xy_after.1 as i16 - t.xy.1 as i16))
                .map(|(dx, dy)| (dx.clamp(-9, 9) as i8, dy.clamp(-9, 9) as i8)),
        };
        if !self.motion.restrict(|c| Motion::rotation_accepts(c, &seen)) {
            self.contradiction(format!(
                "a turn {} -> {} ({:?}, X/Y {:?} -> {:?}) fits nothing learned; learning the movement again",
                t.from, t.to, t.button, t.xy, t.xy_after
            ));
            self.motion.reset();
            self.apply_trusted_motion();
            self.motion.restrict(|c| Motion::rotation_accepts(c, &seen));
        }
        if !open && t.button.is_some() && self.near_turns.len() < 64 {
            self.near_turns.push(t);
        }
    }

    /// True when every cell within two of (x, y) is inside the field and empty: a turn there cannot kick.
    pub fn is_open(&self, field: &RawField, x: u8, y: u8) -> bool {
        let Some(empty) = self.empty_pattern else { return false };
        let (x, y) = (x as i32, y as i32);
        for yy in y - 2..=y + 2 {
            for xx in x - 2..=x + 2 {
                if !(1..=6).contains(&xx) || !(0..=13).contains(&yy) {
                    return false;
                }
                let c = &field[idx(xx as usize, yy as usize)];
                if c[..self.cell_bytes.max(1)] != empty[..self.cell_bytes.max(1)] {
                    return false;
                }
            }
        }
        true
    }

    fn scan_nuisance(&mut self, i: usize) {
        if self.trusted.codes {
            return;
        }
        let (Some(k), Some(empty)) = (self.offset(), self.empty_code()) else { return };
        let Some(map) = self.colour_codes() else { return };
        let Some(view) = self.observers[i].view() else { return };
        let colours = map.field_codes();
        // Until every pair code seen is mapped, an unexplained code may still be a colour.
        let complete = self.pair_codes.iter().all(|&p| map.field(p).is_some());
        let mut found = None;
        for (c, s) in view.cells.iter().zip(self.stable[i].iter_mut()) {
            let v = c[k] & self.colour_mask;
            if v == empty || colours.contains(&v) || self.pair_codes.contains(&v) {
                *s = (v, 0);
                continue;
            }
            *s = if s.0 == v { (v, s.1 + 1) } else { (v, 1) };
            if s.1 >= NUISANCE_FRAMES && complete {
                found = Some(v);
            }
        }
        if let Some(v) = found {
            match self.nuisance {
                None => {
                    log::info!("calibration: field code {v} stays in the field without being a colour: nuisance");
                    self.nuisance = Some(v);
                }
                Some(n) if n != v => {
                    self.contradiction(format!("two codes act as nuisance: {n} and {v}; keeping {v}"));
                    self.nuisance = Some(v);
                }
                _ => {}
            }
        }
    }

    /// Everything needed to play is known: the empty code, the colour byte, the colour mapping, and the
    /// movement (orientation values, which puyo X / Y follow, which way A turns).
    pub fn is_settled(&self) -> bool {
        self.empty_code().is_some()
            && (self.trusted.offset || self.offset().is_some())
            && self.colour_codes().is_some_and(|m| self.trusted.codes || !m.pairs.is_empty())
            && self.motion.settled().is_some()
    }

    /// The nuisance, Big Puyo and Carbuncle codes learned so far (`None` where not seen; always `None`
    /// when the start file's codes are trusted).
    pub fn special_codes(&self) -> (Option<u8>, Option<u8>, Option<u8>) {
        if self.trusted.codes {
            return (None, None, None);
        }
        let item = |k: ItemKind| self.items.iter().find(|(_, v)| **v == k).map(|(&c, _)| c);
        (self.nuisance, item(ItemKind::BigPuyo), item(ItemKind::Carbuncle))
    }

    /// Which piece codes the decoder reads from what was learned (or from a trusted file) rather than from a
    /// guess: a lock predicted with a guessed code says nothing about the learned contract.
    pub fn known_codes(&self) -> KnownCodes {
        if self.trusted.codes || self.mode == CalibrateMode::Off {
            return KnownCodes::ALL;
        }
        let (_, big, carbuncle) = self.special_codes();
        KnownCodes { big_puyo: big.is_some(), carbuncle: carbuncle.is_some(), new_colors: false }
    }

    /// The movement model's number (0..3) of a raw orientation value: its place among the values seen, or
    /// the place it would take as a new one; 255 for a fifth value.
    pub fn ori_index(&self, raw: u8) -> u8 {
        match self.ori_values.iter().position(|&v| v == raw) {
            Some(i) => i as u8,
            None if self.ori_values.len() < 4 => self.ori_values.len() as u8,
            None => u8::MAX,
        }
    }

    /// The raw orientation value the movement model numbers `index`.
    pub fn ori_raw(&self, index: u8) -> u8 {
        self.ori_values.get(index as usize).copied().unwrap_or(index)
    }

    fn note_orientation(&mut self, raw: u8) {
        if self.ori_values.contains(&raw) {
            return;
        }
        if self.ori_values.len() < 4 {
            self.ori_values.push(raw);
        } else if self.ori_values.len() == 4 {
            let seen = self.ori_values.clone();
            self.contradiction(format!("the orientation byte took a fifth value {raw} after {seen:?}"));
        }
    }

    /// The next pair's code table, as far as it is known.
    pub fn next_table(&self) -> NextTable {
        self.next.table()
    }

    /// Frames after a spawn before the next bytes show the next pair.
    pub fn next_lag(&self) -> u32 {
        self.next.lag()
    }

    /// Forgets what the next bytes showed, to learn them again.
    pub fn relearn_next(&mut self) {
        self.next.reset();
    }

    /// The settled movement candidate.
    pub fn movement(&self) -> Option<Candidate> {
        self.motion.settled()
    }

    /// Whether blocked turns kick sideways / up: `Some(true)` when a turn moved the pivot, `Some(false)`
    /// when a turn was refused although the kick had room; `None` until seen. A later observation that
    /// disagrees wins (and is logged in the report's text as a contradiction by [`Learner::kick_conflicts`]).
    pub fn kicks(&self) -> (Option<bool>, Option<bool>) {
        let (mut side, mut up) = (None, None);
        for (sideways, kicked) in self.kick_evidence() {
            *(if sideways { &mut side } else { &mut up }) = Some(kicked);
        }
        (side, up)
    }

    /// Kick observations that disagree with an earlier one.
    pub fn kick_conflicts(&self) -> Vec<String> {
        let mut seen: [Option<bool>; 2] = [None, None];
        let mut out = Vec::new();
        for (sideways, kicked) in self.kick_evidence() {
            let slot = &mut seen[sideways as usize];
            if slot.is_some_and(|k| k != kicked) {
                out.push(format!(
                    "a {} kick was {} after it was {}",
                    if sideways { "sideways" } else { "upward" },
                    if kicked { "seen" } else { "refused" },
                    if kicked { "refused" } else { "seen" }
                ));
            }
            *slot = Some(kicked);
        }
        out
    }

    /// (sideways?, kicked?) for every turn next to something: kicks seen, then refusals.
    fn kick_evidence(&self) -> Vec<(bool, bool)> {
        let Some(c) = self.motion.settled() else { return Vec::new() };
        let (Some(k), Some(empty)) = (self.offset(), self.empty_code()) else { return Vec::new() };
        let pivot = |x: u8, y: u8, d: Orientation| match c.tracks {
            XyTracks::Pivot => (x as i32, y as i32),
            XyTracks::Child => (x as i32 - d.dx() as i32, y as i32 - d.dy() as i32),
        };
        let mut out = Vec::new();
        for t in &self.near_turns {
            let (Some(d0), Some(d1)) = (c.dir(t.from), c.dir(t.to)) else { continue };
            let (p0, p1) = (pivot(t.xy.0, t.xy.1, d0), pivot(t.xy_after.0, t.xy_after.1, d1));
            if p0.0 != p1.0 && d1.dx() != 0 && p0.1.abs_diff(p1.1) <= 1 {
                out.push((true, true));
            } else if p1.1 < p0.1 && d1 == Orientation::Down && p0.0 == p1.0 {
                out.push((false, true));
            }
        }
        for r in &self.refused {
            let Some(d0) = c.dir(r.o) else { continue };
            let turn = match r.button {
                super::motion::TurnButton::A => c.a_turns,
                super::motion::TurnButton::B => c.a_turns.reverse(),
            };
            let d1 = super::motion::turned(d0, turn);
            let (px, py) = pivot(r.x, r.y, d0);
            let free = |x: i32, y: i32| {
                (1..=6).contains(&x) && (0..=13).contains(&y) && r.field[idx(x as usize, y as usize)][k] == empty
            };
            if free(px + d1.dx() as i32, py + d1.dy() as i32) || !free(px, py) {
                continue; // not blocked (the press came too late or early), or the pose is not the pair's
            }
            match d1 {
                Orientation::Right if free(px - 1, py) => out.push((true, false)),
                Orientation::Left if free(px + 1, py) => out.push((true, false)),
                Orientation::Down if free(px, py - 1) => out.push((false, false)),
                _ => {}
            }
        }
        out
    }

    /// True when cell (x, y) of `view` is inside the field and empty (false while that is not known).
    pub fn cell_free(&self, view: &View, x: i32, y: i32) -> bool {
        let (Some(k), Some(empty)) = (self.offset(), self.empty_code()) else { return false };
        (1..=6).contains(&x) && (0..=13).contains(&y) && view.cells[idx(x as usize, y as usize)][k] == empty
    }

    /// True while a kick fact has not been seen either way.
    pub fn kicks_unknown(&self) -> bool {
        let (a, b) = self.kicks();
        a.is_none() || b.is_none()
    }

    /// The observers' last views (for the opening policy).
    pub fn view(&self, player: usize) -> Option<&View> {
        self.observers.get(player).and_then(|o| o.view())
    }

    /// Pieces locked so far by a player.
    pub fn pieces_of(&self, player: usize) -> u32 {
        self.observers.get(player).map_or(0, |o| o.locks)
    }

    /// The start file.
    pub fn start(&self) -> &AddressFile {
        &self.start
    }

    /// The calibrate mode.
    pub fn mode(&self) -> CalibrateMode {
        self.mode
    }
}
