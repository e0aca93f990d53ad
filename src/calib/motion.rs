//! The movement facts as one space of hypotheses: what each orientation value (0..=3) means, which puyo
//! X / Y follow, and which way A turns. 24 × 2 × 2 = 96 candidates; every observation removes those it
//! contradicts, and a fact is settled when every surviving candidate agrees on it.
//!
//! Keeping the facts joint matters: a rotation seen with X / Y following the child says something about
//! two orientation values at once, and a lock says something about one value only once it is known
//! which puyo X / Y follow.

use std::collections::{BTreeMap, BTreeSet};

use crate::game::Orientation;
use crate::memmap::schema::OrientationCodes;
use crate::memmap::{Movement, Turn, XyTracks};

use super::fact::Contradictions;
use super::observe::TurnSeen;
use super::report::OrientationReport;
use super::state::{UnsettledFact, movement_parts};
use super::types::{Candidate, Relative, TurnButton, turned};

/// Number of candidates.
pub const CANDIDATES: usize = 96;

/// Every candidate, in a fixed order.
fn all_candidates() -> Vec<Candidate> {
    let mut out = Vec::with_capacity(CANDIDATES);
    let all = Orientation::ALL;
    for a in 0..4 {
        for b in 0..4 {
            for c in 0..4 {
                for d in 0..4 {
                    let idx = [a, b, c, d];
                    let mut seen = [false; 4];
                    if idx.iter().any(|&i| std::mem::replace(&mut seen[i], true)) {
                        continue;
                    }
                    for tracks in [XyTracks::Pivot, XyTracks::Child] {
                        for a_turns in [Turn::Clockwise, Turn::Counterclockwise] {
                            out.push(Candidate { dirs: idx.map(|i| all[i]), tracks, a_turns });
                        }
                    }
                }
            }
        }
    }
    out
}

/// One observation of the orientation byte changing while the pair could move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RotationSeen {
    /// Value before.
    pub from: u8,
    /// Value after.
    pub to: u8,
    /// The button that did it, if one can be named.
    pub button: Option<TurnButton>,
    /// How X / Y moved, when the pair was in open space (no kick possible) and no sideways move was
    /// pressed: only then does the change say which puyo X / Y follow.
    pub open_move: Option<(i8, i8)>,
}

/// The surviving candidates.
#[derive(Clone, Debug)]
pub struct Motion {
    all: Vec<Candidate>,
    alive: Vec<bool>,
}

impl Default for Motion {
    fn default() -> Motion {
        Motion::new()
    }
}

impl Motion {
    /// Every candidate alive.
    pub fn new() -> Motion {
        let all = all_candidates();
        let alive = vec![true; all.len()];
        Motion { all, alive }
    }

    /// Keeps only candidates that `keep` accepts. Returns false, changing nothing, when none would survive
    /// (the caller logs the contradiction and decides what to forget).
    pub fn restrict(&mut self, keep: impl Fn(&Candidate) -> bool) -> bool {
        let next: Vec<bool> = self.all.iter().zip(&self.alive).map(|(c, &a)| a && keep(c)).collect();
        if !next.iter().any(|&a| a) {
            return false;
        }
        self.alive = next;
        true
    }

    /// The candidates still alive.
    pub fn alive(&self) -> impl Iterator<Item = &Candidate> {
        self.all.iter().zip(&self.alive).filter(|(_, a)| **a).map(|(c, _)| c)
    }

    /// How many candidates are alive.
    pub fn count(&self) -> usize {
        self.alive.iter().filter(|&&a| a).count()
    }

    /// The value every alive candidate agrees on, if they all do.
    fn agreed<T: PartialEq>(&self, f: impl Fn(&Candidate) -> T) -> Option<T> {
        let mut it = self.alive();
        let first = f(it.next()?);
        if it.all(|c| f(c) == first) { Some(first) } else { None }
    }

    /// Which puyo X / Y follow, when settled.
    pub fn tracks(&self) -> Option<XyTracks> {
        self.agreed(|c| c.tracks)
    }

    /// Which way A turns, when settled.
    pub fn a_turns(&self) -> Option<Turn> {
        self.agreed(|c| c.a_turns)
    }

    /// The value of a direction, when settled.
    pub fn value_of(&self, dir: Orientation) -> Option<u8> {
        self.agreed(|c| c.value(dir))
    }

    /// The one candidate left, when everything is settled.
    pub fn settled(&self) -> Option<Candidate> {
        if self.count() == 1 { self.alive().next().copied() } else { None }
    }

    /// The value A turns `from` into, when every alive candidate agrees.
    pub fn after_a(&self, from: u8) -> Option<u8> {
        self.agreed(|c| c.dir(from).map(|d| c.value(turned(d, c.a_turns))))?
    }

    /// A lock: with orientation `value`, the other puyo sat `rel` from the one X / Y follow.
    pub fn lock_accepts(c: &Candidate, value: u8, rel: Relative) -> bool {
        let Some(d) = c.tracked_to_other(value) else { return false };
        match rel {
            Relative::Vertical(dy) => d.dx() == 0 && d.dy() == dy,
            Relative::Horizontal(dx) => d.dx() == dx,
        }
    }

    /// A rotation.
    pub fn rotation_accepts(c: &Candidate, r: &RotationSeen) -> bool {
        let (Some(d0), Some(d1)) = (c.dir(r.from), c.dir(r.to)) else { return false };
        let quarter = match r.button {
            Some(TurnButton::A) => d1 == turned(d0, c.a_turns),
            Some(TurnButton::B) => d1 == turned(d0, c.a_turns.reverse()),
            None => d1 == d0.clockwise() || d1 == d0.counter_clockwise(),
        };
        if !quarter {
            return false;
        }
        let Some((mx, my)) = r.open_move else { return true };
        // In open space the pivot stays put (gravity may add a row on the same frame); the child moves
        // from pivot + d0 to pivot + d1.
        let (ex, ey) = match c.tracks {
            XyTracks::Pivot => (0, 0),
            XyTracks::Child => (d1.dx() - d0.dx(), d1.dy() - d0.dy()),
        };
        mx == ex && (my == ey || my == ey + 1)
    }

    /// Forgets everything learned.
    pub fn reset(&mut self) {
        self.alive.iter_mut().for_each(|a| *a = true);
    }
}

/// Turns after one that fitted nothing learned (and was let pass) within which a second one is a
/// contradiction: a wrong movement shows on most turns, a flaky link's press now and then.
const STRAY_TURN_WINDOW: u32 = 8;

/// The movement fact as learned: the candidate space, the orientation values in the order first seen
/// (the space numbers them 0..3 by that order, so any four distinct values work), the turns seen with A
/// and B, and the values pieces spawned with. The start file's orientation and movement, when trusted,
/// narrow the space from the start and after every reset.
#[derive(Clone, Debug)]
pub struct MotionLearner {
    space: Motion,
    /// Raw orientation values in the order first seen on a movable frame.
    values: Vec<u8>,
    /// Orientation after A / B from each numbered value, as seen.
    after_a: BTreeMap<u8, u8>,
    after_b: BTreeMap<u8, u8>,
    /// Numbered orientation values pieces spawned with.
    spawn_values: BTreeSet<u8>,
    /// The start file's raw values of up, right, down and left, when trusted.
    trusted_values: Option<[u8; 4]>,
    /// The start file's X / Y tracking and A's direction, when trusted.
    trusted_movement: Option<(XyTracks, Turn)>,
    /// Turns seen, and the turn that last fitted nothing learned and was let pass (see [`STRAY_TURN_WINDOW`]).
    turns: u32,
    stray_turn: Option<u32>,
}

impl MotionLearner {
    /// Learns the movement, trusting the start file's orientation values and movement when given.
    pub fn new(orientation: Option<&OrientationCodes>, movement: Option<&Movement>) -> MotionLearner {
        let mut m = MotionLearner {
            space: Motion::new(),
            // A trusted file's values are the ones to number; else they are numbered as they appear.
            values: orientation.map_or(Vec::new(), |o| vec![o.down, o.left, o.up, o.right]),
            after_a: BTreeMap::new(),
            after_b: BTreeMap::new(),
            spawn_values: BTreeSet::new(),
            trusted_values: orientation.map(|o| [o.up, o.right, o.down, o.left]),
            trusted_movement: movement.map(|m| (m.xy_tracks, m.a_rotates)),
            turns: 0,
            stray_turn: None,
        };
        m.apply_trusted();
        m
    }

    /// The start file's orientation values are trusted.
    pub fn trusts_orientation(&self) -> bool {
        self.trusted_values.is_some()
    }

    /// The start file's movement is trusted.
    pub fn trusts_movement(&self) -> bool {
        self.trusted_movement.is_some()
    }

    fn apply_trusted(&mut self) {
        if let Some(raw) = self.trusted_values {
            let [up, right, down, left] = raw.map(|v| self.ori_index(v));
            self.space.restrict(|c| {
                c.value(Orientation::Up) == up
                    && c.value(Orientation::Right) == right
                    && c.value(Orientation::Down) == down
                    && c.value(Orientation::Left) == left
            });
        }
        if let Some((tracks, a_turns)) = self.trusted_movement {
            self.space.restrict(|c| c.tracks == tracks && c.a_turns == a_turns);
        }
    }

    /// Forgets what turns and locks taught (the X / Y bases moved, or they contradicted it).
    pub fn reset(&mut self) {
        self.space.reset();
        self.apply_trusted();
    }

    /// The orientation byte read `raw` on a movable frame.
    pub fn note_orientation(&mut self, raw: u8, found: &mut Contradictions) {
        if self.values.contains(&raw) {
            return;
        }
        if self.values.len() < 4 {
            self.values.push(raw);
        } else if self.values.len() == 4 {
            let seen = self.values.clone();
            found.push(format!("the orientation byte took a fifth value {raw} after {seen:?}"));
        }
    }

    /// The model's number (0..3) of a raw orientation value: its place among the values seen, or the place
    /// it would take as a new one; 255 for a fifth value.
    pub fn ori_index(&self, raw: u8) -> u8 {
        match self.values.iter().position(|&v| v == raw) {
            Some(i) => i as u8,
            None if self.values.len() < 4 => self.values.len() as u8,
            None => u8::MAX,
        }
    }

    /// True when the model's number `index` belongs to a raw value seen on a movable frame (a number
    /// handed out for a value not seen yet may go to another value later).
    pub fn index_seen(&self, index: u8) -> bool {
        (index as usize) < self.values.len()
    }

    /// The raw orientation value the model numbers `index`. A number no value was seen for (a game fast
    /// enough that the bot never turns the pair that way) gets a raw value none of the others has: the
    /// free values in increasing order, one per unseen number, so the four stay distinct.
    pub fn ori_raw(&self, index: u8) -> u8 {
        if let Some(&v) = self.values.get(index as usize) {
            return v;
        }
        let unseen = index as usize - self.values.len();
        (0..=u8::MAX).filter(|v| !self.values.contains(v)).nth(unseen).unwrap_or(index)
    }

    /// A piece spawned with numbered orientation `value`.
    pub fn spawned(&mut self, value: u8) {
        self.spawn_values.insert(value);
    }

    /// Numbered orientation values pieces spawned with.
    pub fn spawn_values(&self) -> &BTreeSet<u8> {
        &self.spawn_values
    }

    /// The orientation byte changed (numbered values); `open`: the pair was in open space and no sideways
    /// move was pressed, so how X / Y moved tells which puyo they follow. Returns false when nothing else
    /// should be learned from it: the values are out of range (a contradiction), or the turn fits nothing
    /// learned and is let pass as a press the link changed (a second within [`STRAY_TURN_WINDOW`] turns is
    /// a contradiction, and the movement is learned again from it).
    pub fn turn(&mut self, t: &TurnSeen, open: bool, found: &mut Contradictions) -> bool {
        if t.from > 3 || t.to > 3 {
            found.push(format!("orientation byte went {} -> {}, outside 0..=3", t.from, t.to));
            return false;
        }
        let seen = RotationSeen {
            from: t.from,
            to: t.to,
            button: t.button,
            open_move: open
                .then(|| (t.xy_after.0 as i16 - t.xy.0 as i16, t.xy_after.1 as i16 - t.xy.1 as i16))
                .map(|(dx, dy)| (dx.clamp(-9, 9) as i8, dy.clamp(-9, 9) as i8)),
        };
        self.turns += 1;
        if self.space.restrict(|c| Motion::rotation_accepts(c, &seen)) {
            self.note_turn(t);
            return true;
        }
        // Only a settled movement lets one pass: while it is being learned a turn that fits nothing says an
        // earlier inference was wrong.
        if self.space.settled().is_some() && self.stray_turn.is_none_or(|k| self.turns - k > STRAY_TURN_WINDOW) {
            // A press the link dropped, delayed or invented on the frame of a turn does this once; a wrong
            // movement does it again within a few turns.
            log::debug!(
                "a turn {} -> {} ({:?}, X/Y {:?} -> {:?}) fits nothing learned; let pass as a press the link \
                 changed unless another does within {STRAY_TURN_WINDOW} turns",
                t.from,
                t.to,
                t.button,
                t.xy,
                t.xy_after
            );
            self.stray_turn = Some(self.turns);
            return false;
        } else {
            self.stray_turn = None;
            found.push(format!(
                "a turn {} -> {} ({:?}, X/Y {:?} -> {:?}) fits nothing learned; learning the movement again",
                t.from, t.to, t.button, t.xy, t.xy_after
            ));
            self.reset();
            self.space.restrict(|c| Motion::rotation_accepts(c, &seen));
        }
        self.note_turn(t);
        true
    }

    /// Keeps where A / B led from the turn's value.
    fn note_turn(&mut self, t: &TurnSeen) {
        match t.button {
            Some(TurnButton::A) => {
                self.after_a.insert(t.from, t.to);
            }
            Some(TurnButton::B) => {
                self.after_b.insert(t.from, t.to);
            }
            None => {}
        }
    }

    /// A lock with numbered orientation `value` put the other puyo `rel` of the one X / Y follow.
    pub fn lock(&mut self, value: u8, rel: Relative, found: &mut Contradictions) {
        if value > 3 {
            found.push(format!("orientation byte held {value}, outside 0..=3"));
            return;
        }
        if !self.space.restrict(|c| Motion::lock_accepts(c, value, rel)) {
            found.push(format!(
                "a lock with orientation {value} put the other puyo {rel:?} of X/Y, against what was learned; \
                 learning the movement again"
            ));
            self.reset();
            self.space.restrict(|c| Motion::lock_accepts(c, value, rel));
        }
    }

    /// True when some movement still possible puts the other puyo `rel` of X / Y at orientation `value`.
    pub fn accepts_lock(&self, value: u8, rel: Relative) -> bool {
        value <= 3 && self.space.alive().any(|c| Motion::lock_accepts(c, value, rel))
    }

    /// The colour codes contradict X / Y following `tracks`: rules it out; false (nothing changed) when it
    /// is the only answer left.
    pub fn exclude_tracks(&mut self, tracks: XyTracks) -> bool {
        self.space.restrict(|c| c.tracks != tracks)
    }

    /// The settled candidate.
    pub fn settled(&self) -> Option<Candidate> {
        self.space.settled()
    }

    /// Which puyo X / Y follow, when the candidates agree.
    pub fn tracks(&self) -> Option<XyTracks> {
        self.space.tracks()
    }

    /// The numbered value A turns `from` into: as seen, else as every candidate agrees.
    pub fn after_a(&self, from: u8) -> Option<u8> {
        self.after_a.get(&from).copied().or_else(|| self.space.after_a(from))
    }

    /// How many turns were seen with A and with B.
    pub fn turns_seen(&self) -> (usize, usize) {
        (self.after_a.len(), self.after_b.len())
    }

    /// The raw value of a direction, when the candidates agree.
    pub fn raw_value_of(&self, dir: Orientation) -> Option<u8> {
        self.space.value_of(dir).map(|i| self.ori_raw(i))
    }

    /// The orientation values for the report.
    pub fn orientation_report(&self) -> OrientationReport {
        OrientationReport {
            down: self.raw_value_of(Orientation::Down),
            left: self.raw_value_of(Orientation::Left),
            up: self.raw_value_of(Orientation::Up),
            right: self.raw_value_of(Orientation::Right),
        }
    }

    /// Which way A turns and which puyo X / Y follow, by name, for the report.
    pub fn names(&self) -> (Option<String>, Option<String>) {
        (self.space.a_turns().map(|t| t.name().to_string()), self.space.tracks().map(|t| t.name().to_string()))
    }

    /// The raw values pieces spawned with.
    pub fn spawn_orientations(&self) -> Vec<u8> {
        self.spawn_values.iter().map(|&i| self.ori_raw(i)).collect()
    }

    /// What is not settled, with what was seen (`None` when settled).
    pub fn unsettled(&self) -> Option<UnsettledFact> {
        let m = &self.space;
        if m.settled().is_some() {
            return None;
        }
        let raw = |t: &BTreeMap<u8, u8>| t.iter().map(|(&a, &b)| (self.ori_raw(a), self.ori_raw(b))).collect();
        Some(UnsettledFact::Movement {
            candidates: m.count(),
            missing: movement_parts(m.tracks().is_some(), m.a_turns().is_some(), |d| m.value_of(d).is_some()),
            turns_a: raw(&self.after_a),
            turns_b: raw(&self.after_b),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Orientation::*;

    #[test]
    fn there_are_96_distinct_candidates() {
        let m = Motion::new();
        assert_eq!(m.count(), CANDIDATES);
        let v: Vec<_> = m.alive().collect();
        for (i, a) in v.iter().enumerate() {
            assert!(v[i + 1..].iter().all(|b| b != a));
        }
    }

    #[test]
    fn a_full_a_cycle_with_child_tracking_settles_everything_but_nothing_with_pivot() {
        // Truth: 0 down, 1 left, 2 up, 3 right; A clockwise; X/Y follow the child.
        let truth = Candidate { dirs: [Down, Left, Up, Right], tracks: XyTracks::Child, a_turns: Turn::Clockwise };
        let mut m = Motion::new();
        let mut v = 2u8;
        for _ in 0..4 {
            let d0 = truth.dir(v).unwrap();
            let d1 = d0.clockwise();
            let to = truth.value(d1);
            let r = RotationSeen {
                from: v,
                to,
                button: Some(TurnButton::A),
                open_move: Some((d1.dx() - d0.dx(), d1.dy() - d0.dy())),
            };
            assert!(m.restrict(|c| Motion::rotation_accepts(c, &r)));
            v = to;
        }
        assert_eq!(m.settled(), Some(truth));
    }

    #[test]
    fn the_learner_numbers_raw_values_as_they_come_and_relearns_after_a_contradiction() {
        let mut m = MotionLearner::new(None, None);
        let mut found = Contradictions::default();
        for raw in [0x10, 0x30, 0x20, 0x00] {
            m.note_orientation(raw, &mut found);
        }
        assert_eq!((m.ori_index(0x30), m.ori_raw(3)), (1, 0x00));
        // Numbers no value was seen for get values none of the seen ones has, distinct from each other.
        let mut few = MotionLearner::new(None, None);
        for raw in [3, 1] {
            few.note_orientation(raw, &mut found);
        }
        assert_eq!([0, 1, 2, 3].map(|i| few.ori_raw(i)), [3, 1, 0, 2]);
        m.note_orientation(0x40, &mut found);
        assert_eq!(found.len(), 1, "a fifth value is a contradiction");
        // A lock with value 0 put the other puyo below: value 0 is Down with pivot tracking, Up with child.
        m.lock(0, Relative::Vertical(1), &mut found);
        assert_eq!(found.len(), 1);
        assert!(m.unsettled().is_some());
        // The opposite at once: nothing fits both, so the space starts again from the last one.
        m.lock(0, Relative::Vertical(-1), &mut found);
        assert_eq!(found.len(), 2);
        assert!(m.exclude_tracks(XyTracks::Child));
        assert!(!m.exclude_tracks(XyTracks::Pivot), "the only answer left stays");
        assert_eq!(m.tracks(), Some(XyTracks::Pivot));
        assert_eq!(m.raw_value_of(Up), Some(0x10));
    }

    #[test]
    fn a_turn_off_the_learned_movement_is_let_pass_once_and_a_second_soon_after_is_a_contradiction() {
        let f = crate::memmap::AddressSource::Builtin.address_file("1p-endless.toml").expect("built-in file");
        let mut m = MotionLearner::new(Some(&f.orientation), Some(&f.movement));
        let settled = m.settled().expect("settled");
        let mut found = Contradictions::default();
        // A clockwise turn from up, in open space; X / Y follow the pivot, so they stay put.
        let (up, right) = (m.ori_index(f.orientation.up), m.ori_index(f.orientation.right));
        let turn = |dx: i16| TurnSeen {
            from: up,
            to: right,
            xy: (3, 5),
            xy_after: ((3 + dx) as u8, 5),
            button: Some(TurnButton::A),
            sideways: false,
            field: Box::new([[0; crate::memmap::raw::MAX_CELL_BYTES]; crate::memmap::raw::CELLS]),
        };
        // The link adds a Left on the frame of the turn: X moved too.
        assert!(!m.turn(&turn(-1), true, &mut found), "nothing learned from it");
        assert!(found.is_empty(), "one stray move is not a contradiction: {found:?}");
        assert_eq!(m.settled(), Some(settled));
        // Turns that fit, then another stray one: let pass once the window is over.
        for _ in 0..STRAY_TURN_WINDOW {
            assert!(m.turn(&turn(0), true, &mut found));
        }
        assert!(!m.turn(&turn(-1), true, &mut found));
        assert!(found.is_empty());
        // A second one within the window is a contradiction: the movement is learned again.
        assert!(m.turn(&turn(1), true, &mut found));
        assert_eq!(found.len(), 1, "{found:?}");
    }

    #[test]
    fn a_trusted_file_settles_the_learner_from_the_start() {
        let f = crate::memmap::AddressSource::Builtin.address_file("1p-endless.toml").expect("built-in file");
        let m = MotionLearner::new(Some(&f.orientation), Some(&f.movement));
        let c = m.settled().expect("settled");
        assert_eq!(c.tracks, f.movement.xy_tracks);
        assert_eq!(m.orientation_report().up, Some(f.orientation.up));
        assert!(m.trusts_orientation() && m.trusts_movement() && m.unsettled().is_none());
    }
}
