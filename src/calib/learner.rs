//! The learner: frames in, facts out. It starts from the addresses the public RAM map gives with
//! confidence and learns the rest (see the module documentation of [`crate::calib`]).
//!
//! [`Learner`] coordinates one learner per fact: it reads each player's frame (the piece's life from
//! [`ControlWatch`], the events from [`Observer`]), passes every event through the facts a lock is read
//! with ([`CellLayout`], [`ColourLearner`], [`Bases`], [`MotionLearner`], [`KickLearner`]) in order, then
//! hands the frame to the learners that only watch ([`FactLearner`]: the next pair, the timing). It keeps
//! the progress (pieces, when it settled, the bound) and the contradictions.

use crate::memmap::raw::{View, pos};
use crate::memmap::schema::{AddressFile, LockSignal};

use super::bases::{Bases, LockRead};
use super::clock::ClockLearner;
use super::codes::Mapping;
use super::colours::{ColourLearner, KnownCodes, PairLock};
use super::control::{ControlWatch, TimingLearner};
use super::fact::{Contradictions, FactLearner, Known, PlayerFrame};
use super::kicks::KickLearner;
use super::layout::{CellLayout, changed};
use super::motion::MotionLearner;
use super::next::{NextLearner, NextTable};
use super::observe::{Event, LockSeen, Observer};
use super::order::PairOrder;
use super::report::ClockReport;
use super::state::{CalibrationState, Moment, Progress, UnsettledFact};
use super::types::{Candidate, Relative};
use super::{CalibrateMode, Frame};

/// Pieces (by the player who locked most) after which an unsettled calibration counts as failed.
pub const MAX_PIECES: u32 = 20;

/// One player as observed: the piece's life and the events.
#[derive(Clone, Debug, Default)]
struct PlayerWatch {
    control: ControlWatch,
    observer: Observer,
}

/// Learns the contract of a cartridge from frames of RAM and pads.
#[derive(Clone, Debug)]
pub struct Learner {
    start: AddressFile,
    mode: CalibrateMode,
    players: Vec<PlayerWatch>,
    /// The empty cell and the colour byte.
    layout: CellLayout,
    /// Colour codes, mask, nuisance and items.
    colours: ColourLearner,
    /// The X / Y bases.
    bases: Bases,
    /// Orientation values, which puyo X / Y follow, which way A turns.
    motion: MotionLearner,
    /// Whether blocked turns kick.
    kicks: KickLearner,
    /// Which current-pair byte holds the pivot.
    order: PairOrder,
    /// The next pair's code table and lag.
    next: NextLearner,
    /// The pose lag and lock signal the frames showed.
    timing: TimingLearner,
    /// The game's clock per player: gravity, soft drop, lock delay, input lag, spawn delay.
    clock: ClockLearner,
    /// Contradictions, in the order they were found.
    found: Contradictions,
    /// Pieces seen, when it settled, the bound.
    progress: Progress,
}

impl Learner {
    /// Starts from an address file: entries marked verified are trusted, the rest are learned.
    pub fn new(start: &AddressFile, mode: CalibrateMode) -> Learner {
        let auto = mode != CalibrateMode::Only;
        let codes = auto && start.codes.verified;
        let offset = auto && start.player.iter().all(|p| p.field.verified);
        let orientation = auto && start.orientation.verified;
        let movement = auto && start.movement.verified;
        let n = start.player.len();
        let mut l = Learner {
            start: start.clone(),
            mode,
            players: vec![PlayerWatch::default(); n],
            layout: CellLayout::new(
                offset,
                start.player.first().map(|p| p.field.color_offset as usize),
                codes.then_some(start.codes.empty),
            ),
            colours: ColourLearner::new(&start.codes, codes, n),
            bases: Bases::new(start.movement.x_base, start.movement.y_base, movement),
            motion: MotionLearner::new(orientation.then_some(&start.orientation), movement.then_some(&start.movement)),
            kicks: KickLearner::default(),
            order: PairOrder::default(),
            next: NextLearner::default(),
            timing: TimingLearner::default(),
            clock: ClockLearner::default(),
            found: Contradictions::default(),
            progress: Progress::new(MAX_PIECES),
        };
        if l.is_settled() {
            l.progress.settled_at = Some(Moment::default());
        }
        l
    }

    /// Sets the number of pieces after which an unsettled calibration counts as failed.
    pub fn set_max_pieces(&mut self, pieces: u32) {
        self.progress.set_max_pieces(pieces);
    }

    /// The number of pieces after which an unsettled calibration counts as failed.
    pub fn max_pieces(&self) -> u32 {
        self.progress.max_pieces
    }

    /// The pieces seen so far no longer count toward the bound of [`Learner::set_max_pieces`]: the session
    /// is ending the game they are in (it came out in the wrong mode) by dropping them in place, so the
    /// opening cannot drive them. What they taught stays.
    pub fn restart_bound(&mut self) {
        self.progress.restart_bound();
    }

    /// Whether the bound of pieces to settle in has passed.
    pub fn out_of_pieces(&self) -> bool {
        self.progress.out_of_pieces()
    }

    /// Where calibration stands (in `off` mode the learner learns nothing and stays [`CalibrationState::Learning`]).
    pub fn state(&self) -> CalibrationState {
        if self.is_settled() {
            let now = Moment { pieces: self.progress.pieces, frames: self.progress.frames };
            CalibrationState::Settled { at: self.progress.settled_at.unwrap_or(now) }
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
        if !self.layout.saw_empty() {
            out.push(UnsettledFact::EmptyCode);
        }
        if self.layout.offset().is_none() {
            out.push(UnsettledFact::ColourByte { pieces: self.progress.pieces });
        }
        out.extend(self.motion.unsettled());
        if self.colour_codes().is_none_or(|c| c.pairs.is_empty()) {
            out.push(UnsettledFact::ColourCodes { pair_codes: self.colours.pair_codes().clone() });
        }
        out
    }

    /// Frames observed.
    pub fn frames(&self) -> u64 {
        self.progress.frames
    }

    /// Pieces locked by the player who locked most.
    pub fn pieces(&self) -> u32 {
        self.progress.pieces
    }

    /// What is known so far, as the fact learners read it.
    pub fn known(&self) -> Known {
        Known {
            offset: self.layout.offset(),
            empty: self.layout.empty_code(),
            colour_mask: self.colours.colour_mask(),
            tracks: self.motion.tracks(),
            movement: self.motion.settled(),
            xy_bases: self.bases.xy_bases(),
        }
    }

    /// Feeds one frame (online from the session, or offline from a trace of a person playing).
    pub fn observe(&mut self, frame: &Frame<'_>) {
        if self.mode == CalibrateMode::Off {
            return;
        }
        self.progress.frames += 1;
        let contradictions = self.found.len();
        for i in 0..self.players.len() {
            let p = &self.start.player[i];
            let pad = frame.pads.get(p.pad.saturating_sub(1) as usize).copied().unwrap_or(0);
            let mut view = View::read(frame.ram, p);
            let (active, timing) = self.players[i].control.step(&view);
            view.active = active;
            if view.active {
                self.motion.note_orientation(view.o, &mut self.found);
            }
            self.normalise(&mut view);
            self.layout.set_cell_bytes(view.cell_bytes);
            let known = self.known();
            if let Some(prev) = self.players[i].observer.view() {
                self.colours.recoded_cells(prev, &view, &known);
            }
            // Presses are matched with their effects the game's input lag later.
            let lag = self.clock.input_lag_window().unwrap_or(0) as u32;
            self.players[i].observer.set_input_lag(lag);
            let events = self.players[i].observer.step(view, pad);
            for e in &events {
                self.event(e);
            }
            let known = self.known();
            if let Some(view) = self.players[i].observer.view() {
                let seen = PlayerFrame { player: i, frame: self.progress.frames, view, pad, timing, events: &events };
                let watchers: [&mut dyn FactLearner; 3] = [&mut self.next, &mut self.timing, &mut self.clock];
                for w in watchers {
                    w.observe(&seen, &known, &mut self.found);
                }
            }
            self.colours.scan_nuisance(i, self.players[i].observer.view(), &known, &mut self.found);
        }
        self.progress.pieces = self.players.iter().map(|p| p.observer.locks).max().unwrap_or(0);
        if self.found.len() != contradictions {
            // A contradiction sends the learner back: it settles again (later, or on this very frame).
            self.progress.settled_at = None;
        }
        if self.progress.settled_at.is_none() && self.is_settled() {
            self.progress.settled_at = Some(Moment { pieces: self.progress.pieces, frames: self.progress.frames });
            log::info!("calibration settled after {} pieces", self.progress.pieces);
        }
    }

    /// Player `player`'s view of `ram` as the learner reads it, without feeding it: whether the piece can
    /// move (continuing the frames fed so far), the orientation numbered, X / Y shifted to the field's
    /// columns and rows. `None` for a player the start file does not have.
    pub fn view_now(&self, ram: &[u8; 2048], player: usize) -> Option<View> {
        let p = self.start.player.get(player)?;
        let mut view = View::read(ram, p);
        view.active = self.players.get(player)?.control.clone().step(&view).0;
        self.normalise(&mut view);
        Some(view)
    }

    /// Reads the current pair in the learned byte order, numbers the orientation and shifts X / Y (see
    /// [`Learner::view_now`]).
    fn normalise(&self, view: &mut View) {
        self.order.apply(view);
        view.o = self.motion.ori_index(view.o);
        (view.x, view.y) = self.bases.shifted(view.x, view.y);
    }

    /// The X / Y bytes' bases: the X value of column 1 and the Y value of row 0.
    pub fn xy_bases(&self) -> (u8, u8) {
        self.bases.xy_bases()
    }

    /// True when the locks have pinned the X / Y bases (the values of column 1 and row 0) in use.
    pub fn xy_bases_settled(&self) -> bool {
        self.bases.settled()
    }

    /// Frames after the timer reaches 0 before a new piece's bytes are written, as seen most often.
    pub fn pose_lag(&self) -> u32 {
        self.timing.pose_lag()
    }

    /// Player `player`'s measured timing (gravity of the latest piece, soft drop, lock delay, input lag,
    /// spawn delay; `None` fields where not measured).
    pub fn clock(&self, player: usize) -> ClockReport {
        self.clock.report(player)
    }

    /// Every player's measured timing, in address-file order.
    pub fn clocks(&self) -> Vec<ClockReport> {
        (0..self.players.len()).map(|i| self.clock.report(i)).collect()
    }

    /// What marks a lock, as seen: the field when it gained cells before the timer turned at least twice.
    pub fn lock_signal(&self) -> LockSignal {
        self.timing.lock_signal()
    }

    /// One event, through the facts a lock is read with, in order.
    fn event(&mut self, e: &Event) {
        match e {
            Event::Spawn { seen, field, first } => {
                if *first {
                    self.layout.first_field(field);
                }
                self.colours.spawn(seen.pivot, seen.child, &mut self.found);
                self.motion.spawned(seen.o);
            }
            Event::Turn(t) => {
                let open = !t.sideways && self.layout.is_open(&t.field, t.xy.0, t.xy.1);
                if self.motion.turn(t, open, &mut self.found) {
                    self.kicks.turn(t, open);
                }
            }
            Event::TurnRefused(r) => self.kicks.refused(r),
            Event::Lock(l) => {
                if self.layout.offset().is_some() {
                    self.lock(l);
                } else {
                    for l in self.layout.lock_before_offset(l.clone()) {
                        self.lock(&l);
                    }
                }
            }
            // The next pair's learner reads these.
            Event::NextChanged { .. } => {}
        }
    }

    /// A lock, once the colour byte is known: through the colour codes (mask, items), the bases, the
    /// movement, then kept as colour evidence.
    fn lock(&mut self, l: &LockSeen) {
        let (Some(k), Some(empty)) = (self.layout.offset(), self.layout.empty_code()) else { return };
        let l = &self.colours.read_lock(l, k, empty);
        let ch = changed(&l.before, &l.after, k);
        let filled = ch.len() == 2 && ch.iter().all(|&i| l.before[i][k] == empty && l.after[i][k] != empty);
        if l.pivot == l.child {
            log::debug!(
                "calibration: lock of piece code {} changed {} cells (filled two: {filled})",
                l.pivot,
                ch.len()
            );
        }
        if !filled {
            if l.pivot == l.child && self.colours.may_be_item(l.pivot, self.motion.tracks()) {
                self.colours.item_lock(l, k, empty, self.motion.tracks(), &mut self.found);
            }
            return;
        }
        let (a, b) = (pos(ch[0]), pos(ch[1]));
        let Some(l) = &self.lock_pose(l, a, b) else {
            log::debug!("calibration: a lock whose pose changed on its last frame fits both poses; not read");
            return;
        };
        match self.bases.lock(l, a, b) {
            LockRead::Read => {}
            LockRead::Wait => return,
            LockRead::Shifted(again) => return self.rebased(again),
        }
        let Some((t, o, rel)) = pair_cells(l, a, b) else { return };
        let known = self.known();
        let Some((tracked, other)) = self.colours.pair_lock(l, (t, o), &known, &mut self.found) else { return };
        self.motion.lock(l.o, rel, &mut self.found);
        self.colours.add_lock(PairLock { o: l.o, rel, pivot: l.pivot, child: l.child, tracked, other });
        self.check_mappings();
    }

    /// The pose a lock that filled cells `a` and `b` is read with. A turn or a fall made on the frame the
    /// piece locked shows only in the lock frame's bytes (a fast gravity or no lock delay does that
    /// often); the last movable frame's pose is then stale. While the bases are learned the lock frame's
    /// pose (the game's last word) is taken; after, the pose that puts X / Y on a filled cell and fits the
    /// movement still possible, the lock frame's first. `None` when both fit as well and disagree: the
    /// lock says nothing certain; so too when the lock frame shows an orientation value never seen while
    /// a piece could move (it has no number of its own yet, and the last movable frame's is stale).
    fn lock_pose(&self, l: &LockSeen, a: Cell, b: Cell) -> Option<LockSeen> {
        let Some((x, y, o)) = l.late else { return Some(l.clone()) };
        if !self.motion.index_seen(o) {
            return None;
        }
        let late = LockSeen { x, y, o, late: None, ..l.clone() };
        if !self.bases.settled() {
            return Some(late);
        }
        // (X / Y on a filled cell, the movement accepts it)
        let fit = |c: &LockSeen| {
            pair_cells(c, a, b)
                .map(|(t, _, rel)| (t == (c.x as usize, c.y as usize), self.motion.accepts_lock(c.o, rel)))
        };
        let old = LockSeen { late: None, ..l.clone() };
        match (fit(&late), fit(&old)) {
            (Some((true, true)), _) => Some(late),
            (_, Some((true, true))) => Some(old),
            (Some((_, true)), Some((_, true))) => None,
            (Some((_, true)), _) => Some(late),
            _ => Some(old),
        }
    }

    /// The X / Y bases moved: what was read with the old ones (the pairs' locks, the movement, the kicks) is
    /// forgotten, and the locks that waited for them are read again.
    fn rebased(&mut self, again: Vec<LockSeen>) {
        self.colours.forget_locks();
        self.kicks.reset();
        self.motion.reset();
        self.progress.settled_at = None;
        for l in again {
            self.lock(&l);
        }
    }

    /// The colour locks contradict X / Y following one puyo: the movement rules it out, or, when that is
    /// the only answer left, the colours are learned again.
    fn check_mappings(&mut self) {
        use crate::memmap::XyTracks::{Child, Pivot};
        for (tracks, other) in [(Pivot, Child), (Child, Pivot)] {
            if self.colours.mapping(tracks).is_none() && !self.motion.exclude_tracks(tracks) {
                // The movement pins X / Y to `tracks` (turns showed it) and the colours fit only with the two
                // current bytes exchanged: the bytes are the other way round (see [`super::order`]).
                if self.colours.mapping(other).is_some() {
                    self.order.exchange(&mut self.found);
                    self.colours.exchange_pair_bytes();
                    continue;
                }
                self.colours.restart_from_last_lock(&mut self.found);
                return;
            }
        }
        self.colours.mapped(self.motion.tracks(), &mut self.found);
    }

    /// The colour byte's offset within a cell, when settled.
    pub fn offset(&self) -> Option<usize> {
        self.layout.offset()
    }

    /// The empty code, when known.
    pub fn empty_code(&self) -> Option<u8> {
        self.layout.empty_code()
    }

    /// The piece → field colour mapping, when it is known which puyo X / Y follow.
    pub fn colour_codes(&self) -> Option<Mapping> {
        self.colours.colour_codes(self.motion.tracks())
    }

    /// True when every cell within two of (x, y) is inside the field and empty: a turn there cannot kick.
    pub fn is_open(&self, field: &crate::memmap::raw::RawField, x: u8, y: u8) -> bool {
        self.layout.is_open(field, x, y)
    }

    /// Everything needed to play is known: the empty code, the colour byte, the colour mapping, and the
    /// movement (orientation values, which puyo X / Y follow, which way A turns).
    pub fn is_settled(&self) -> bool {
        self.layout.settled() && self.colours.settled(self.motion.tracks()) && self.motion.settled().is_some()
    }

    /// The nuisance, Big Puyo and Carbuncle codes learned so far (`None` where not seen; always `None`
    /// when the start file's codes are trusted).
    pub fn special_codes(&self) -> (Option<u8>, Option<u8>, Option<u8>) {
        self.colours.special_codes()
    }

    /// Which piece codes the decoder reads from what was learned (or from a trusted file) rather than from a
    /// guess: a lock predicted with a guessed code says nothing about the learned contract.
    pub fn known_codes(&self) -> KnownCodes {
        if self.mode == CalibrateMode::Off {
            return KnownCodes::ALL;
        }
        self.colours.known_codes()
    }

    /// The movement model's number (0..3) of a raw orientation value.
    pub fn ori_index(&self, raw: u8) -> u8 {
        self.motion.ori_index(raw)
    }

    /// The raw orientation value the movement model numbers `index`.
    pub fn ori_raw(&self, index: u8) -> u8 {
        self.motion.ori_raw(index)
    }

    /// The next pair's code table, as far as it is known.
    pub fn next_table(&self) -> NextTable {
        self.next.table()
    }

    /// The next pair's code table is still being learned (not known from the start file, and not
    /// settled by the spawns seen): a next pair that cannot be read yet says nothing against its bytes.
    pub fn next_table_unknown(&self) -> bool {
        !self.colours().is_trusted() && self.next_table() == NextTable::Unknown
    }

    /// Frames after a spawn before the next bytes show the next pair.
    pub fn next_lag(&self) -> u32 {
        self.next.lag()
    }

    /// Measures the game's clock again from the next piece on (plans kept failing on the clock measured):
    /// the rest of the contract stays settled and the bots keep playing, untimed until it is measured.
    pub fn relearn_clock(&mut self) {
        self.clock.reset();
    }

    /// Forgets what the next bytes showed, to learn them again.
    pub fn relearn_next(&mut self) {
        self.next.reset();
    }

    /// Which current-pair byte holds the pivot, as learned.
    pub fn pair_order(&self) -> PairOrder {
        self.order
    }

    /// The settled movement candidate.
    pub fn movement(&self) -> Option<Candidate> {
        self.motion.settled()
    }

    /// The movement fact's learner (orientation values, turns seen, spawn values).
    pub fn motion(&self) -> &MotionLearner {
        &self.motion
    }

    /// The colour codes' learner.
    pub fn colours(&self) -> &ColourLearner {
        &self.colours
    }

    /// The next pair's learner.
    pub fn next(&self) -> &NextLearner {
        &self.next
    }

    /// The kicks' learner.
    pub fn kick_learner(&self) -> &KickLearner {
        &self.kicks
    }

    /// The cell layout's learner.
    pub fn layout(&self) -> &CellLayout {
        &self.layout
    }

    /// The item code whose locks keep acting as both items, in words, once found: the session stops on it.
    pub fn item_conflict(&self) -> Option<&str> {
        self.colours.item_conflict()
    }

    /// Contradictions found, in order.
    pub fn contradictions(&self) -> &[String] {
        self.found.all()
    }

    /// Whether blocked turns kick sideways / up: `Some(true)` when a turn moved the pivot, `Some(false)`
    /// when a turn was refused although the kick had room; `None` until seen. A later observation that
    /// disagrees wins (and is logged in the report's text as a contradiction).
    pub fn kicks(&self) -> (Option<bool>, Option<bool>) {
        self.kicks.kicks(&self.known())
    }

    /// True when cell (x, y) of `view` is inside the field and empty (false while that is not known).
    pub fn cell_free(&self, view: &View, x: i32, y: i32) -> bool {
        self.layout.cell_free(&view.cells, x, y)
    }

    /// True while a kick fact has not been seen either way.
    pub fn kicks_unknown(&self) -> bool {
        let (a, b) = self.kicks();
        a.is_none() || b.is_none()
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

/// A field cell: (column, row).
type Cell = (usize, usize);

/// The cell X / Y named (`t`) and the other one (`o`) of a pair that filled cells `a` and `b`, and where
/// the other sat from it; `None` when the cells are not a pair's at X / Y.
fn pair_cells(l: &LockSeen, a: Cell, b: Cell) -> Option<(Cell, Cell, Relative)> {
    let (x, y) = (l.x as usize, l.y as usize);
    // For a horizontal pair each half may have dropped, so the column decides.
    let (t, o) = if a == (x, y) {
        (a, b)
    } else if b == (x, y) {
        (b, a)
    } else if a.0 == x && b.0 != x {
        (a, b)
    } else if b.0 == x && a.0 != x {
        (b, a)
    } else {
        return None;
    };
    let rel = if t.0 == o.0 && t.1.abs_diff(o.1) == 1 {
        Relative::Vertical(if o.1 > t.1 { 1 } else { -1 })
    } else if t.0.abs_diff(o.0) == 1 {
        Relative::Horizontal(if o.0 > t.0 { 1 } else { -1 })
    } else {
        return None;
    };
    Some((t, o, rel))
}
