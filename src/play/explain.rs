//! Which fact explains what the locks showed: when a health check fails, the locks it failed on are
//! tested against the alternative explanations, and the stop names the one that fits every lock (or says
//! plainly that none does). The fact each explanation points at is health's business (`super::health`).
//!
//! Each explanation is a way the contract in use can be wrong, and each predicts the field RAM shows
//! after a lock from evidence already recorded (the field before, the piece as read, where RAM last showed
//! it, where the bot planned it):
//!
//! - **the current-pair bytes swapped**: the field is the prediction with the pair's two colours
//!   exchanged (the byte read as the pivot's holds the child's code);
//! - **timing**: the pair locked where RAM last showed it although the bot planned elsewhere (it landed
//!   before the presses were done), or where planned although RAM last showed it elsewhere (the pose bytes
//!   lag the game);
//! - **movement**: the field is the pair locked with another orientation value meaning (one mapping of
//!   orientation values, and one column shift, for every lock: the orientation or X / Y read wrong);
//! - **codes**: the field is the pair locked with its colours read through one other colour mapping (a
//!   piece code taken for another colour).
//!
//! Locks of a pair of one colour are left out of the colour explanations (they cannot tell them apart).

use std::collections::BTreeMap;

use crate::driver::{Check, verify::compare};
use crate::game::{Color, Field, Orientation, Pair, Piece, Placement, Rules};

/// One lock that went other than predicted, as recorded.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LockEvidence {
    /// The settled field the piece fell on.
    pub before: Field,
    /// The piece as read.
    pub piece: Piece,
    /// Where RAM last showed the piece before it locked.
    pub seen_at: Placement,
    /// Where the bot planned it, when a bot did.
    pub decided: Option<Placement>,
    /// The field RAM showed once the lock resolved.
    pub found: Field,
}

/// An explanation of the evidence (health maps each to the fact of the contract it points at).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Hypothesis {
    /// The byte read as the pivot's holds the child's code, and the other way round.
    PairBytesSwapped,
    /// The pair locked before the presses were done, or the pose bytes lag the game.
    Timing,
    /// The orientation values (or X / Y) mean other directions (columns) than the contract says.
    Movement,
    /// A piece code is read as another colour than the one it lands as.
    Codes,
}

impl Hypothesis {
    /// In the order they are tried: the simplest explanation of the same evidence comes first (a swap of
    /// the two bytes also looks like a reversed orientation on upright pairs).
    pub const ALL: [Hypothesis; 4] =
        [Hypothesis::PairBytesSwapped, Hypothesis::Timing, Hypothesis::Movement, Hypothesis::Codes];

    /// Its short name, for messages.
    pub fn name(self) -> &'static str {
        match self {
            Hypothesis::PairBytesSwapped => "current pair",
            Hypothesis::Timing => "timing",
            Hypothesis::Movement => "movement",
            Hypothesis::Codes => "field cells",
        }
    }

    /// What it says, for messages.
    pub fn describe(self) -> &'static str {
        match self {
            Hypothesis::PairBytesSwapped => {
                "the current-pair byte order: each field is the prediction with the pair's two colours exchanged, \
                 so the byte read as the pivot's (current_pivot) holds the child's code and current_child the \
                 pivot's"
            }
            Hypothesis::Timing => {
                "the timing: the pairs locked where RAM last showed them rather than where planned (they landed \
                 before the presses were done), or where planned rather than where RAM last showed them (the pose \
                 bytes lag the game)"
            }
            Hypothesis::Movement => {
                "the movement: each field is the pair locked with one other meaning of the orientation values (or \
                 X) than the contract's"
            }
            Hypothesis::Codes => {
                "the colour codes: each field is the pair locked with its colours read through one other colour \
                 mapping"
            }
        }
    }
}

/// What the evidence says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Explanation {
    /// `first` fits every lock; `also` fit too (later in [`Hypothesis::ALL`]).
    Named {
        /// The explanation named.
        first: Hypothesis,
        /// Others that fit the same evidence.
        also: Vec<Hypothesis>,
    },
    /// No single explanation fits every lock.
    Unexplained,
    /// No lock to judge.
    NoEvidence,
}

impl Explanation {
    /// The explanation named, when one fits.
    pub fn named(&self) -> Option<Hypothesis> {
        match self {
            Explanation::Named { first, .. } => Some(*first),
            _ => None,
        }
    }

    /// Words to add to the failure's "seen".
    pub fn words(&self, locks: usize) -> String {
        match self {
            Explanation::Named { first, also } => {
                let mut s = format!("explained by {} ({locks} locks tested)", first.describe());
                if !also.is_empty() {
                    let names: Vec<&str> = also.iter().map(|h| h.name()).collect();
                    s += &format!("; it also fits: {}", names.join(", "));
                }
                s
            }
            Explanation::Unexplained => format!(
                "no single fact explains it: tested against {locks} locks, neither the current-pair bytes swapped, \
                 nor the timing, nor another orientation meaning, nor another colour mapping gives the fields RAM \
                 showed"
            ),
            Explanation::NoEvidence => String::new(),
        }
    }
}

/// Tests every hypothesis against every lock of `locks`.
pub fn explain(locks: &[LockEvidence], rules: &Rules) -> Explanation {
    if locks.is_empty() {
        return Explanation::NoEvidence;
    }
    let fits: Vec<Hypothesis> = Hypothesis::ALL.into_iter().filter(|h| fits_all(*h, locks, rules)).collect();
    match fits.split_first() {
        Some((first, also)) => Explanation::Named { first: *first, also: also.to_vec() },
        None => Explanation::Unexplained,
    }
}

/// The field after locking `piece` at `at` on `before` matches `found` (extra nuisance on top allowed).
fn gives(before: &Field, piece: Piece, at: Placement, found: &Field, rules: &Rules) -> bool {
    let mut f = *before;
    f.play(piece, at, rules).is_ok() && matches!(compare(&f, found), Check::Match { .. })
}

/// The two colours of a pair of two colours.
fn two_colours(piece: Piece) -> Option<Pair> {
    match piece {
        Piece::Pair(p) if p.pivot != p.child => Some(p),
        _ => None,
    }
}

fn fits_all(h: Hypothesis, locks: &[LockEvidence], rules: &Rules) -> bool {
    match h {
        Hypothesis::PairBytesSwapped => {
            let telling: Vec<(&LockEvidence, Pair)> =
                locks.iter().filter_map(|l| two_colours(l.piece).map(|p| (l, p))).collect();
            !telling.is_empty()
                && telling.len() == locks.iter().filter(|l| matches!(l.piece, Piece::Pair(_))).count()
                && telling.iter().all(|(l, p)| {
                    !gives(&l.before, l.piece, l.seen_at, &l.found, rules)
                        && gives(&l.before, Piece::Pair(Pair::new(p.child, p.pivot)), l.seen_at, &l.found, rules)
                })
        }
        Hypothesis::Timing => locks.iter().all(|l| {
            let Some(d) = l.decided.filter(|d| *d != l.seen_at) else { return false };
            gives(&l.before, l.piece, l.seen_at, &l.found, rules) || gives(&l.before, l.piece, d, &l.found, rules)
        }),
        Hypothesis::Movement => movement_fits(locks, rules),
        Hypothesis::Codes => codes_fit(locks, rules),
    }
}

/// One column shift and one orientation mapping (not both the identity) give every lock's field.
fn movement_fits(locks: &[LockEvidence], rules: &Rules) -> bool {
    for dx in [0i8, -1, 1] {
        // per lock, the orientations the read one may mean
        let options: Vec<(Orientation, Vec<Orientation>)> = locks
            .iter()
            .map(|l| {
                let x = l.seen_at.x as i8 + dx;
                let meant = Orientation::ALL
                    .into_iter()
                    .filter(|&o| x >= 1 && gives(&l.before, l.piece, Placement::new(x as u8, o), &l.found, rules))
                    .collect();
                (l.seen_at.orientation, meant)
            })
            .collect();
        if options.iter().any(|(_, m)| m.is_empty()) {
            continue;
        }
        let mut map = BTreeMap::new();
        if consistent_map(&options, 0, &mut map) {
            let identity = dx == 0 && map.iter().all(|(k, v)| k == v);
            if !identity {
                return true;
            }
        }
    }
    false
}

/// Chooses for each lock one of its options so that one read value always means one value, and two read
/// values never mean the same one (a mapping of values is a permutation).
fn consistent_map<K: Ord + Copy, V: PartialEq + Copy>(
    options: &[(K, Vec<V>)],
    i: usize,
    map: &mut BTreeMap<K, V>,
) -> bool {
    let Some((k, vs)) = options.get(i) else { return true };
    if let Some(v) = map.get(k) {
        return vs.contains(v) && consistent_map(options, i + 1, map);
    }
    for v in vs {
        if map.values().any(|w| w == v) {
            continue;
        }
        map.insert(*k, *v);
        if consistent_map(options, i + 1, map) {
            return true;
        }
        map.remove(k);
    }
    false
}

/// One colour mapping (not the identity on the colours the pieces had) gives every lock's field.
fn codes_fit(locks: &[LockEvidence], rules: &Rules) -> bool {
    // per lock with two colours, the (pivot, child) colour pairs that give its field
    let mut options: Vec<(Color, Vec<Color>)> = Vec::new();
    for l in locks {
        let Some(p) = two_colours(l.piece) else { return false };
        let fitting: Vec<(Color, Color)> = Color::ALL
            .into_iter()
            .flat_map(|a| Color::ALL.into_iter().map(move |b| (a, b)))
            .filter(|&(a, b)| a != b && gives(&l.before, Piece::Pair(Pair::new(a, b)), l.seen_at, &l.found, rules))
            .collect();
        if fitting.is_empty() {
            return false;
        }
        // The two colours are chosen together: kept as two entries whose options stay paired by index.
        options.push((p.pivot, fitting.iter().map(|f| f.0).collect()));
        options.push((p.child, fitting.iter().map(|f| f.1).collect()));
    }
    paired_map(&options, 0, &mut BTreeMap::new())
}

/// As [`consistent_map`] for colours, each lock's two entries taking the same option index; true when a
/// mapping other than the identity fits.
fn paired_map(options: &[(Color, Vec<Color>)], i: usize, map: &mut BTreeMap<Color, Color>) -> bool {
    let (Some((kp, vp)), Some((kc, vc))) = (options.get(i), options.get(i + 1)) else {
        return map.iter().any(|(k, v)| k != v);
    };
    for (a, b) in vp.iter().zip(vc) {
        let fits = |k: &Color, v: &Color, map: &BTreeMap<Color, Color>| match map.get(k) {
            Some(w) => w == v,
            None => !map.values().any(|w| w == v),
        };
        if !fits(kp, a, map) {
            continue;
        }
        let mut next = map.clone();
        next.insert(*kp, *a);
        if !fits(kc, b, &next) {
            continue;
        }
        next.insert(*kc, *b);
        if paired_map(options, i + 2, &mut next) {
            *map = next;
            return true;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    const R: usize = 0;
    const G: usize = 1;
    const B: usize = 2;
    const Y: usize = 3;

    fn pair(p: usize, c: usize) -> Piece {
        Piece::Pair(Pair::new(Color::ALL[p], Color::ALL[c]))
    }

    /// A small stack to land on, so that locks differ by where they go.
    fn stack() -> Field {
        Field::from_rows(&["B.....", "Y..G.."])
    }

    /// The evidence of `piece` read at `seen` but found as `truth` locked at `at`.
    fn lock(piece: Piece, seen: Placement, truth: Piece, at: Placement, decided: Option<Placement>) -> LockEvidence {
        let before = stack();
        let mut found = before;
        found.play(truth, at, &Rules::puyo1()).expect("plays");
        LockEvidence { before, piece, seen_at: seen, decided, found }
    }

    fn at(x: u8, o: Orientation) -> Placement {
        Placement::new(x, o)
    }

    fn named(locks: &[LockEvidence]) -> Explanation {
        explain(locks, &Rules::puyo1())
    }

    #[test]
    fn colours_exchanged_at_the_same_place_name_the_current_pair_bytes() {
        let locks = [
            lock(pair(R, G), at(2, Orientation::Up), pair(G, R), at(2, Orientation::Up), None),
            lock(pair(B, Y), at(4, Orientation::Right), pair(Y, B), at(4, Orientation::Right), None),
            lock(pair(Y, R), at(5, Orientation::Left), pair(R, Y), at(5, Orientation::Left), None),
        ];
        let e = named(&locks);
        assert!(matches!(e, Explanation::Named { first: Hypothesis::PairBytesSwapped, .. }), "{e:?}");
        assert!(e.words(3).contains("current_pivot"), "{}", e.words(3));
    }

    #[test]
    fn locks_where_ram_last_showed_the_pair_instead_of_the_plan_name_the_timing() {
        let plan = Some(at(6, Orientation::Left));
        let locks = [
            lock(pair(R, G), at(3, Orientation::Up), pair(R, G), at(3, Orientation::Up), plan),
            lock(
                pair(B, Y),
                at(3, Orientation::Right),
                pair(B, Y),
                at(3, Orientation::Right),
                Some(at(1, Orientation::Up)),
            ),
        ];
        let e = named(&locks);
        assert_eq!(e.named(), Some(Hypothesis::Timing), "{e:?}");
    }

    #[test]
    fn one_other_meaning_of_the_orientation_values_names_the_movement() {
        // Right read as Left and Up as Down, consistently, with colours kept (a swap cannot fit the
        // horizontal lock: the child lands left of the pivot's column, not in it).
        let locks = [
            lock(pair(R, G), at(3, Orientation::Right), pair(R, G), at(3, Orientation::Left), None),
            lock(pair(B, Y), at(5, Orientation::Right), pair(B, Y), at(5, Orientation::Left), None),
            lock(pair(G, B), at(2, Orientation::Up), pair(G, B), at(2, Orientation::Down), None),
        ];
        let e = named(&locks);
        assert!(matches!(e, Explanation::Named { first: Hypothesis::Movement, .. }), "{e:?}");
    }

    #[test]
    fn one_other_colour_mapping_names_the_codes() {
        // red read where green lands, green where blue, blue where red
        let locks = [
            lock(pair(R, G), at(2, Orientation::Right), pair(G, B), at(2, Orientation::Right), None),
            lock(pair(B, R), at(5, Orientation::Up), pair(R, G), at(5, Orientation::Up), None),
            lock(pair(G, B), at(4, Orientation::Left), pair(B, R), at(4, Orientation::Left), None),
        ];
        let e = named(&locks);
        assert!(matches!(e, Explanation::Named { first: Hypothesis::Codes, .. }), "{e:?}");
    }

    #[test]
    fn evidence_no_single_fact_fits_is_said_plainly() {
        // One lock looks swapped, the other landed two columns off with its colours changed.
        let locks = [
            lock(pair(R, G), at(2, Orientation::Right), pair(G, R), at(2, Orientation::Right), None),
            lock(pair(B, Y), at(2, Orientation::Up), pair(R, R), at(5, Orientation::Up), None),
        ];
        let e = named(&locks);
        assert_eq!(e, Explanation::Unexplained);
        assert!(e.words(2).starts_with("no single fact explains it"), "{}", e.words(2));
        assert_eq!(e.named(), None);
        assert_eq!(named(&[]), Explanation::NoEvidence);
    }

    #[test]
    fn a_swap_seen_only_on_upright_pairs_also_fits_a_reversed_orientation() {
        let locks = [
            lock(pair(R, G), at(2, Orientation::Up), pair(G, R), at(2, Orientation::Up), None),
            lock(pair(B, Y), at(4, Orientation::Up), pair(Y, B), at(4, Orientation::Up), None),
        ];
        let e = named(&locks);
        let Explanation::Named { first, also } = &e else { panic!("{e:?}") };
        assert_eq!(*first, Hypothesis::PairBytesSwapped);
        assert!(also.contains(&Hypothesis::Movement), "{e:?}");
        assert!(e.words(2).contains("also fits: movement"), "{}", e.words(2));
    }
}
