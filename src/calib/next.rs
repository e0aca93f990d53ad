//! The next pair's bytes: their code table and when they are valid.
//!
//! Any Puyo Puyo shows the next pair, and that pair becomes the current pair at the next spawn. So the
//! next bytes read during one piece, set against the current bytes at the spawn after it, give their code
//! table (any one-to-one mapping to the piece codes, possibly with the two bytes the other way round),
//! and the frame after a spawn at which the next bytes last change gives how long they keep showing
//! something else (a slide animation). Nothing about either is assumed.

use std::collections::BTreeMap;

/// Spawns whose next bytes agree with one table before it is taken as known.
const EVIDENCE: u32 = 3;

/// A change of the next bytes later than this many frames after a spawn is not a slide animation (the
/// piece may be held that long by a person or a slow opening); it is ignored.
const MAX_LAG: u32 = 60;

/// One candidate table: next code → piece code, one-to-one, kept while nothing contradicts it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Table {
    map: BTreeMap<u8, u8>,
    alive: bool,
    evidence: u32,
}

impl Table {
    fn new() -> Table {
        Table { map: BTreeMap::new(), alive: true, evidence: 0 }
    }

    /// Adds `next → piece`; false (and the table dies) when it contradicts what is known.
    fn add(&mut self, next: u8, piece: u8) -> bool {
        let clash =
            self.map.get(&next).is_some_and(|&p| p != piece) || self.map.iter().any(|(&n, &p)| p == piece && n != next);
        if clash {
            self.alive = false;
        } else {
            self.map.insert(next, piece);
        }
        !clash
    }

    fn is_identity(&self) -> bool {
        self.map.iter().all(|(n, p)| n == p)
    }
}

/// What the next bytes showed so far.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NextLearner {
    /// The next bytes in the order of the current bytes (pivot, child).
    straight: Table,
    /// The next bytes the other way round.
    swapped: Table,
    /// The latest frame after a spawn at which the next bytes changed.
    lag: u32,
}

impl Default for NextLearner {
    fn default() -> NextLearner {
        NextLearner { straight: Table::new(), swapped: Table::new(), lag: 0 }
    }
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
            if t.alive && t.add(np, a) && t.add(nc, b) {
                t.evidence += 1;
            }
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

    /// The code table, as far as it is known: the straight order is preferred while both fit.
    pub fn table(&self) -> NextTable {
        let best = [&self.straight, &self.swapped].into_iter().find(|t| t.alive && t.evidence >= EVIDENCE);
        match best {
            Some(t) if t.is_identity() => NextTable::Same,
            Some(t) => NextTable::Mapped(t.map.iter().map(|(&n, &p)| [n, p]).collect()),
            None if !self.straight.alive && !self.swapped.alive => NextTable::Contradicted,
            None => NextTable::Unknown,
        }
    }

    /// Forgets everything (the next pair is to be learned again).
    pub fn reset(&mut self) {
        *self = NextLearner::default();
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
        // A next code that maps to two piece codes: no table explains it.
        n.spawn(Some((0, 0)), 0x12, 0x12);
        assert_eq!(n.table(), NextTable::Contradicted);
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
}
