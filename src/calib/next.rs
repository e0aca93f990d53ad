//! The next pair's bytes: their code table and when they are valid.
//!
//! Any Puyo Puyo shows the next pair, and that pair becomes the current pair at the next spawn. So the
//! next bytes read during one piece, set against the current bytes at the spawn after it, give their code
//! table (any one-to-one mapping to the piece codes, possibly with the two bytes the other way round),
//! and the frame after a spawn at which the next bytes last change gives how long they keep showing
//! something else (a slide animation). Nothing about either is assumed.
//!
//! A few spawns do not follow the rule and must not kill a table: the first piece of a new game (the next
//! pair read during the last piece of the game before), a game abandoned in the wrong mode, a spawn the
//! learner saw late. So each table counts votes, and a table is contradicted only when a fifth of them or
//! more disagree with its best one-to-one reading.

use std::collections::{BTreeMap, BTreeSet};

use super::fact::{Contradictions, FactLearner, Known, PlayerFrame};
use super::observe::Event;
use super::report::NextPairReport;

/// Spawns whose next bytes agree with one table before it is taken as known.
const EVIDENCE: u32 = 3;

/// Votes against a table's best reading it tolerates however few were cast (pairings across a game
/// boundary or an abandoned game).
const TOLERATED: u32 = 2;

/// A change of the next bytes later than this many frames after a spawn is not a slide animation (the
/// piece may be held that long by a person or a slow opening); it is ignored.
const MAX_LAG: u32 = 60;

/// One candidate table: how often each next code was followed by each piece code.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Table {
    votes: BTreeMap<(u8, u8), u32>,
}

/// A table's best one-to-one reading of its votes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Reading {
    map: BTreeMap<u8, u8>,
    /// Votes (one per byte) that agree with `map`.
    agree: u32,
    /// Votes that do not.
    disagree: u32,
}

impl Reading {
    /// Enough agreeing spawns (two votes each), and few enough disagreeing votes: a stray pairing or two,
    /// or a tenth of the votes.
    fn known(&self) -> bool {
        self.agree >= 2 * EVIDENCE
            && !self.contradicted()
            && (self.disagree <= TOLERATED || self.disagree * 10 <= self.agree + self.disagree)
    }

    /// More disagreeing votes than a few stray pairings explain.
    fn contradicted(&self) -> bool {
        self.disagree > TOLERATED && self.disagree * 5 >= self.agree + self.disagree
    }

    fn is_identity(&self) -> bool {
        self.map.iter().all(|(n, p)| n == p)
    }
}

impl Table {
    fn add(&mut self, next: u8, piece: u8) {
        *self.votes.entry((next, piece)).or_default() += 1;
    }

    /// The one-to-one mapping the votes support best: the most-seen pairs first, each next code and each
    /// piece code taken once.
    fn reading(&self) -> Reading {
        let mut pairs: Vec<(&(u8, u8), &u32)> = self.votes.iter().collect();
        pairs.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
        let (mut r, mut pieces) = (Reading::default(), BTreeSet::new());
        for (&(next, piece), &n) in pairs {
            if !r.map.contains_key(&next) && !pieces.contains(&piece) {
                r.map.insert(next, piece);
                pieces.insert(piece);
                r.agree += n;
            } else {
                r.disagree += n;
            }
        }
        r
    }
}

/// What the next bytes showed so far.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NextLearner {
    /// The next bytes in the order of the current bytes (pivot, child).
    straight: Table,
    /// The next bytes the other way round.
    swapped: Table,
    /// The latest frame after a spawn at which the next bytes changed.
    lag: u32,
}

/// The next bytes' code table as learned.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NextTable {
    /// Not enough spawns seen yet.
    Unknown,
    /// The next bytes hold the piece codes.
    Same,
    /// `[next code, piece code]` pairs.
    Mapped(Vec<[u8; 2]>),
    /// No one-to-one table explains what was seen (the next bytes are not where the file says, or not a
    /// pair code at all).
    Contradicted,
}

impl NextLearner {
    /// A spawn: the current bytes are `pivot` / `child`; `before` the next bytes on the last movable frame
    /// of the piece before. Mono pairs (both codes equal) teach a code but not the byte order.
    pub fn spawn(&mut self, before: Option<(u8, u8)>, pivot: u8, child: u8) {
        let Some((np, nc)) = before else { return };
        for (t, (a, b)) in [(&mut self.straight, (pivot, child)), (&mut self.swapped, (child, pivot))] {
            t.add(np, a);
            t.add(nc, b);
        }
    }

    /// The next bytes changed `frames` frames after a spawn.
    pub fn changed(&mut self, frames: u32) {
        if frames <= MAX_LAG {
            self.lag = self.lag.max(frames);
        }
    }

    /// Frames after a spawn before the next bytes show the next pair.
    pub fn lag(&self) -> u32 {
        self.lag
    }

    /// The code table, as far as it is known: the order with fewer disagreeing votes (then more agreeing
    /// ones, then more codes mapped). While both orders fit exactly as well with different tables, it is not known yet: on the first spawns a pair of two colours
    /// read the wrong way round is a one-to-one table too (each code taken for the other), and only a
    /// third colour or a mono pair tells the orders apart.
    pub fn table(&self) -> NextTable {
        let (straight, swapped) = (self.straight.reading(), self.swapped.reading());
        // Fewer disagreeing votes first, then more agreeing ones, then more codes mapped.
        let fit = |r: &Reading| (std::cmp::Reverse(r.disagree), r.agree, r.map.len());
        let best = match (straight.known(), swapped.known()) {
            (true, true) if fit(&straight) == fit(&swapped) && straight.map != swapped.map => None,
            (true, true) if fit(&swapped) > fit(&straight) => Some(&swapped),
            (true, _) => Some(&straight),
            (false, true) => Some(&swapped),
            (false, false) => None,
        };
        match best {
            Some(r) if r.is_identity() => NextTable::Same,
            Some(r) => NextTable::Mapped(r.map.iter().map(|(&n, &p)| [n, p]).collect()),
            None if straight.contradicted() && swapped.contradicted() => NextTable::Contradicted,
            None => NextTable::Unknown,
        }
    }

    /// Forgets everything (the next pair is to be learned again).
    pub fn reset(&mut self) {
        *self = NextLearner::default();
    }

    /// The table and lag for the report.
    pub fn report(&self) -> NextPairReport {
        let (table, codes) = match self.table() {
            NextTable::Unknown => ("unknown", None),
            NextTable::Same => ("same", None),
            NextTable::Mapped(t) => ("mapped", Some(t)),
            NextTable::Contradicted => ("contradicted", None),
        };
        NextPairReport { table: table.into(), codes, lag: self.lag() }
    }
}

impl FactLearner for NextLearner {
    /// Spawns give the table, changes of the next bytes the lag.
    fn observe(&mut self, seen: &PlayerFrame<'_>, _known: &Known, _found: &mut Contradictions) {
        for e in seen.events {
            match e {
                Event::Spawn { seen, .. } => {
                    // A piece that locked before the next bytes' lag was over (it spawned on something) left
                    // them showing the slide, not the next pair.
                    let before = seen.next_before.filter(|_| seen.frames_before >= self.lag());
                    self.spawn(before, seen.pivot, seen.child);
                }
                Event::NextChanged { frames } => self.changed(*frames),
                _ => {}
            }
        }
    }

    fn reset(&mut self) {
        NextLearner::reset(self);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_codes_are_found_after_a_few_spawns() {
        let mut n = NextLearner::default();
        n.spawn(None, 1, 2);
        assert_eq!(n.table(), NextTable::Unknown);
        for (p, c) in [(1, 2), (3, 1), (2, 4)] {
            n.spawn(Some((p, c)), p, c);
        }
        assert_eq!(n.table(), NextTable::Same);
    }

    #[test]
    fn another_table_is_learned_one_to_one_and_contradictions_kill_it() {
        let mut n = NextLearner::default();
        // Colour indices 0..3 in the next bytes for piece codes 0x11..0x14.
        for (p, c) in [(0, 1), (2, 3), (1, 0), (3, 3)] {
            n.spawn(Some((p, c)), 0x11 + p, 0x11 + c);
        }
        let NextTable::Mapped(t) = n.table() else { panic!("{:?}", n.table()) };
        assert!(t.contains(&[0, 0x11]) && t.contains(&[3, 0x14]), "{t:?}");
        // A pairing across a game boundary (the next pair of the last game's last piece): tolerated.
        n.spawn(Some((0, 0)), 0x12, 0x12);
        assert!(matches!(n.table(), NextTable::Mapped(_)), "{:?}", n.table());
        // Next bytes that follow no table at all: contradicted.
        for (p, c) in [(0, 1), (2, 3), (1, 0), (3, 3)] {
            n.spawn(Some((c, p)), 0x11 + (p + 1) % 4, 0x11 + (c + 2) % 4);
        }
        assert_eq!(n.table(), NextTable::Contradicted);
    }

    #[test]
    fn a_stray_first_pairing_does_not_hide_the_table() {
        let mut n = NextLearner::default();
        // The first spawn of a new game is set against the next pair read during the game before.
        n.spawn(Some((5, 2)), 0x11, 0x14);
        // (The last pair tells the orders apart: the others fit a table with the bytes crossed as well.)
        for (p, c) in [(0, 1), (2, 3), (1, 0), (3, 2), (0, 2)] {
            n.spawn(Some((p, c)), 0x11 + p, 0x11 + c);
        }
        let NextTable::Mapped(t) = n.table() else { panic!("{:?}", n.table()) };
        assert_eq!(t, vec![[0, 0x11], [1, 0x12], [2, 0x13], [3, 0x14]]);
    }

    #[test]
    fn bytes_the_other_way_round_are_a_table_too_and_lag_is_the_latest_change() {
        let mut n = NextLearner::default();
        for (p, c) in [(1, 2), (3, 4), (2, 3), (4, 1)] {
            n.spawn(Some((c, p)), p, c);
        }
        // The pair is the same pair either way round: the piece codes themselves.
        assert_eq!(n.table(), NextTable::Same);
        n.changed(8);
        n.changed(3);
        n.changed(500);
        assert_eq!(n.lag(), 8);
        n.reset();
        assert_eq!((n.table(), n.lag()), (NextTable::Unknown, 0));
    }

    #[test]
    fn two_colours_read_the_wrong_way_round_wait_for_a_third() {
        // The next bytes hold colour indices 0..3 for piece codes 1..4 in the true order; the current bytes
        // are the other way round. Pairs of colours 1 and 2 only fit a crossed table as well as the true
        // one: nothing is known until a third colour tells them apart.
        let mut n = NextLearner::default();
        for (p, c) in [(1, 2), (2, 1), (1, 2), (2, 1)] {
            n.spawn(Some((p - 1, c - 1)), c, p);
        }
        assert_eq!(n.table(), NextTable::Unknown, "{:?} / {:?}", n.straight.reading(), n.swapped.reading());
        for (p, c) in [(3, 1), (2, 4), (4, 3)] {
            n.spawn(Some((p - 1, c - 1)), c, p);
        }
        assert_eq!(n.table(), NextTable::Mapped(vec![[0, 1], [1, 2], [2, 3], [3, 4]]));
    }

    #[test]
    fn as_a_fact_learner_it_reads_spawns_after_the_lag_only() {
        use crate::calib::observe::SpawnSeen;
        use crate::memmap::raw::{CELLS, MAX_CELL_BYTES, View};
        let spawn = |next_before: (u8, u8), frames_before: u32, pivot: u8, child: u8| Event::Spawn {
            seen: SpawnSeen { pivot, child, x: 3, y: 1, o: 0, next_before: Some(next_before), frames_before },
            field: Box::new([[0; MAX_CELL_BYTES]; CELLS]),
            first: false,
        };
        let view = View::default();
        let mut n = NextLearner::default();
        let mut found = Contradictions::default();
        let mut feed = |n: &mut NextLearner, events: &[Event]| {
            let seen = PlayerFrame { player: 0, frame: 1, view: &view, pad: 0, timing: None, events };
            n.observe(&seen, &Known::default(), &mut found);
        };
        feed(&mut n, &[Event::NextChanged { frames: 4 }]);
        assert_eq!(n.lag(), 4);
        // Pieces that lived 4 frames or more show the next pair; one that lived 2 showed the slide.
        for (p, c) in [(1, 2), (3, 1), (2, 4)] {
            feed(&mut n, &[spawn((p, c), 4, p, c), spawn((7, 7), 2, p, c)]);
        }
        assert_eq!(n.report(), NextPairReport { table: "same".into(), codes: None, lag: 4 });
        FactLearner::reset(&mut n);
        assert_eq!(n.table(), NextTable::Unknown);
        assert!(found.is_empty());
    }
}
