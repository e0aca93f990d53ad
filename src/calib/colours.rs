//! The colour codes: how piece codes map to field codes, which bits of the colour byte carry the code,
//! nuisance and the items.
//!
//! - A pair of two different codes that lands shows both field codes; which is which depends on which
//!   puyo X / Y follow, so the mapping is kept for either answer and a lock that contradicts one answer
//!   rules it out (the learner tells the movement).
//! - A pair of one code shows its field code whatever X / Y follow.
//! - Bits seen changing in a cell that kept its puyo (link bits, animation) are masked out of every code.
//! - A code that stays in the field and is no colour is nuisance; a piece code that does not land as a
//!   pair is an item, Big Puyo when it empties the two columns under it, else Carbuncle.
//!
//! The cell layout (colour byte, empty code) and which puyo X / Y follow are read from the learner's
//! [`Known`] snapshot.

use std::collections::{BTreeMap, BTreeSet};

use crate::memmap::XyTracks;
use crate::memmap::raw::{CELLS, RawField, View, pos};
use crate::memmap::schema::Codes;

use super::codes::Mapping;
use super::fact::{Contradictions, Known};
use super::observe::LockSeen;
use super::report::CodesReport;
use super::types::Relative;

/// Frames a cell must keep an unexplained code before it counts as nuisance.
const NUISANCE_FRAMES: u32 = 60;

/// Pair locks kept as evidence for the colour mapping (the oldest are dropped).
const KEPT_LOCKS: usize = 64;

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
pub struct PairLock {
    /// Orientation (numbered).
    pub o: u8,
    /// Where the other puyo sat from the one X / Y follow.
    pub rel: Relative,
    /// The pivot's piece code.
    pub pivot: u8,
    /// The child's piece code.
    pub child: u8,
    /// The field code where X / Y pointed.
    pub tracked: u8,
    /// The other field code.
    pub other: u8,
}

/// Which piece codes the play side reads from knowledge rather than from a guess ([`ColourLearner::known_codes`]).
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

/// `field` with byte `k` of every cell read through `mask`.
fn masked_field(field: &RawField, k: usize, mask: u8) -> RawField {
    let mut out = *field;
    for c in &mut out {
        c[k] &= mask;
    }
    out
}

/// The codes learned so far.
#[derive(Clone, Debug)]
pub struct ColourLearner {
    /// The start file's codes, when they are trusted (nothing is learned then).
    trusted: Option<Codes>,
    /// Clean pair locks of two codes, the latest [`KEPT_LOCKS`].
    locks: Vec<PairLock>,
    /// Monochrome pairs: piece code → field code (true whichever puyo X / Y follow).
    mono: Mapping,
    /// Piece codes seen in pairs of two different codes (so they are colours, not items).
    pair_codes: BTreeSet<u8>,
    /// Field codes pairs landed as: colours, never nuisance, whatever the colours learned again after a
    /// contradiction (the current-pair bytes found the other way round) still lack.
    landed: BTreeSet<u8>,
    items: BTreeMap<u8, ItemKind>,
    /// Colour piece codes in the order they were first mapped: learned files list colours in this order,
    /// so a colour learned later is appended and the earlier ones keep their model colour.
    colour_order: Vec<u8>,
    nuisance: Option<u8>,
    /// Per player and cell: the unexplained code it holds and for how many frames.
    stable: Vec<[(u8, u32); CELLS]>,
    /// The colour byte's bits that carry the code: those seen changing in a cell that kept its puyo
    /// (link bits, animation) are cleared.
    colour_mask: u8,
}

impl ColourLearner {
    /// Learns the codes of `players` players starting from `start` (its colour mask), or trusts `start`.
    pub fn new(start: &Codes, trusted: bool, players: usize) -> ColourLearner {
        ColourLearner {
            trusted: trusted.then(|| start.clone()),
            locks: Vec::new(),
            mono: Mapping::default(),
            pair_codes: BTreeSet::new(),
            landed: BTreeSet::new(),
            items: BTreeMap::new(),
            colour_order: Vec::new(),
            nuisance: None,
            stable: vec![[(0, 0); CELLS]; players],
            colour_mask: start.color_mask,
        }
    }

    /// The start file's codes are trusted.
    pub fn is_trusted(&self) -> bool {
        self.trusted.is_some()
    }

    /// The colour byte's bits that carry the code.
    pub fn colour_mask(&self) -> u8 {
        self.colour_mask
    }

    /// Colour piece codes in the order they were first mapped.
    pub fn colour_order(&self) -> &[u8] {
        &self.colour_order
    }

    /// A piece appeared with codes `pivot` / `child`: two different codes are colours, not items.
    pub fn spawn(&mut self, pivot: u8, child: u8, found: &mut Contradictions) {
        if pivot == child {
            return;
        }
        self.pair_codes.insert(pivot);
        self.pair_codes.insert(child);
        for code in [pivot, child] {
            if self.items.remove(&code).is_some() {
                found.push(format!("piece code {code} was taken for an item but came in a pair with another code"));
            }
        }
    }

    /// Bits of the colour byte that changed between the frame before (`prev`) and `view` in cells that held
    /// a puyo in both while no cell was filled or emptied (nothing moved): link bits or animation, not colour.
    pub fn recoded_cells(&mut self, prev: &View, view: &View, known: &Known) {
        if self.is_trusted() {
            return;
        }
        let (Some(k), Some(empty)) = (known.offset, known.empty) else { return };
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
        self.note_varying(bits, known.empty);
    }

    /// `bits` of the colour byte change in a cell that kept its puyo: leaves them out of every code read
    /// from now on, unless that would make two codes already told apart equal (then they carry colour:
    /// the change was something else, such as a piece's cells moving). `empty`: the empty code, if known.
    pub fn note_varying(&mut self, bits: u8, empty: Option<u8>) {
        let mask = self.colour_mask & !bits;
        if mask == self.colour_mask {
            return;
        }
        let mut known: Vec<u8> = self.locks.iter().flat_map(|l| [l.tracked, l.other]).collect();
        known.extend(self.mono.pairs.values());
        known.extend(empty);
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

    /// A lock as the colour codes read it (colour byte `k`, empty code `empty`): bits that changed in cells
    /// that kept a puyo (the pair's arrival changed their links) are masked out, and the lock comes back
    /// with its fields read through the mask.
    pub fn read_lock(&mut self, l: &LockSeen, k: usize, empty: u8) -> LockSeen {
        let kept = |m: u8, i: usize| l.before[i][k] & m != empty & m && l.after[i][k] & m != empty & m;
        let m = self.colour_mask;
        let bits = (0..CELLS).filter(|&i| kept(m, i)).fold(0, |b, i| b | (l.before[i][k] ^ l.after[i][k]));
        self.note_varying(bits, Some(empty));
        if l.pivot == l.child {
            // One piece code: its two new cells differ only in bits that are not colour.
            let new: Vec<usize> =
                (0..CELLS).filter(|&i| l.before[i][k] & m == empty & m && l.after[i][k] & m != empty & m).collect();
            if let [a, b] = new[..] {
                self.note_varying(l.after[a][k] ^ l.after[b][k], Some(empty));
            }
        }
        let m = self.colour_mask;
        let (before, after) = (masked_field(&l.before, k, m), masked_field(&l.after, k, m));
        LockSeen { before: Box::new(before), after: Box::new(after), ..l.clone() }
    }

    /// True when piece code `piece` may be an item: never seen in a pair of two codes nor mapped to a colour
    /// (with X / Y following `tracks`).
    pub fn may_be_item(&self, piece: u8, tracks: Option<XyTracks>) -> bool {
        !self.pair_codes.contains(&piece)
            && self.mono.field(piece).or_else(|| self.colour_codes(tracks).and_then(|m| m.field(piece))).is_none()
    }

    /// A lock of one code that did not fill two empty cells: an item; `ch`: the cells whose colour byte `k`
    /// changed.
    pub fn item_lock(&mut self, l: &LockSeen, k: usize, empty: u8, ch: &[usize], found: &mut Contradictions) {
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
            found.push(format!("item code {} acted as {kind:?} after acting as {was:?}", l.pivot));
        }
    }

    /// A pair that filled two empty cells: `t` the cell X / Y named, `o` the other (column, row), in a lock
    /// read through [`ColourLearner::read_lock`]. Returns their field codes (tracked, other) to keep as a
    /// [`PairLock`], or `None` when the lock teaches nothing about colours (one piece code shown as two).
    pub fn pair_lock(
        &mut self,
        l: &LockSeen,
        cells: ((usize, usize), (usize, usize)),
        known: &Known,
        found: &mut Contradictions,
    ) -> Option<(u8, u8)> {
        let (Some(k), empty) = (known.offset, known.empty) else { return None };
        let (t, o) = cells;
        let idx = crate::memmap::raw::idx;
        let (mut tracked, mut other) = (l.after[idx(t.0, t.1)][k], l.after[idx(o.0, o.1)][k]);
        if let Some(tracks) = known.tracks {
            // A puyo of a known colour that landed as its code with more bits set: those bits follow the
            // neighbours (a new cell's link towards a puyo of its colour), not the colour.
            let (pt, po) = match tracks {
                XyTracks::Pivot => (l.pivot, l.child),
                XyTracks::Child => (l.child, l.pivot),
            };
            let mapped = self.mapping(tracks).unwrap_or_default();
            for (piece, seen) in [(pt, tracked), (po, other)] {
                if let Some(f) = mapped.field(piece).or_else(|| self.mono.field(piece))
                    && seen != f
                    && seen & f == f
                {
                    self.note_varying(seen ^ f, empty);
                }
            }
            tracked &= self.colour_mask;
            other &= self.colour_mask;
        }
        if l.pivot == l.child {
            if tracked != other {
                // One piece code, two field codes: not a pair of one colour. Nothing to learn here.
                return None;
            }
            if !self.mono.add(l.pivot, tracked) {
                found.push(format!(
                    "piece code {} landed as field code {tracked}, but earlier as {:?}",
                    l.pivot,
                    self.mono.field(l.pivot)
                ));
                self.mono = Mapping::default();
                self.mono.add(l.pivot, tracked);
            }
            if self.items.remove(&l.pivot).is_some() {
                found.push(format!("piece code {} was taken for an item but landed as a pair", l.pivot));
            }
            if self.nuisance == Some(tracked) {
                found.push(format!("field code {tracked} was taken for nuisance but a piece landed as it"));
                self.nuisance = None;
            }
        }
        self.landed.extend([tracked, other]);
        Some((tracked, other))
    }

    /// The current-pair bytes turned out to be the other way round: the kept locks are read so.
    pub fn exchange_pair_bytes(&mut self) {
        for l in &mut self.locks {
            std::mem::swap(&mut l.pivot, &mut l.child);
        }
    }

    /// Keeps a clean pair lock as evidence (the oldest goes beyond [`KEPT_LOCKS`]).
    pub fn add_lock(&mut self, lock: PairLock) {
        self.locks.push(lock);
        if self.locks.len() > KEPT_LOCKS {
            self.locks.remove(0);
        }
    }

    /// Forgets the pair locks (they were read with X / Y bases that turned out wrong).
    pub fn forget_locks(&mut self) {
        self.locks.clear();
        self.landed.clear();
    }

    /// The piece → field mapping if X / Y follow `tracks`, or `None` when the locks contradict it.
    pub fn mapping(&self, tracks: XyTracks) -> Option<Mapping> {
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

    /// The last lock contradicts every earlier one whichever puyo X / Y follow: the colours are learned again
    /// from it alone.
    pub fn restart_from_last_lock(&mut self, found: &mut Contradictions) {
        let last = self.locks.last().copied();
        let seen = last.map_or(String::new(), |l| {
            format!(
                " (orientation {}, pivot code {}, child code {}, field codes {} and {})",
                l.o, l.pivot, l.child, l.tracked, l.other
            )
        });
        found.push(format!(
            "colour codes: the last lock{seen} contradicts every earlier one; learning the colours again"
        ));
        self.locks.clear();
        self.locks.extend(last);
        self.mono = Mapping::default();
    }

    /// After a lock was kept, with X / Y following `tracks` (if known): new colours take their place in the
    /// order, and a nuisance code that turned out to be a colour is dropped.
    pub fn mapped(&mut self, tracks: Option<XyTracks>, found: &mut Contradictions) {
        if let Some(m) = self.colour_codes(tracks) {
            for &p in m.pairs.keys() {
                if !self.colour_order.contains(&p) {
                    self.colour_order.push(p);
                }
            }
        }
        if let Some(n) = self.nuisance
            && self.colour_codes(tracks).is_some_and(|m| m.field_codes().contains(&n))
        {
            found.push(format!("field code {n} was taken for nuisance but a piece landed as it"));
            self.nuisance = None;
        }
    }

    /// The piece → field colour mapping, when it is known which puyo X / Y follow (`tracks`).
    pub fn colour_codes(&self, tracks: Option<XyTracks>) -> Option<Mapping> {
        if let Some(c) = &self.trusted {
            let mut m = Mapping::default();
            for (i, &f) in c.colors.iter().enumerate() {
                let p = c.piece_colors.as_ref().and_then(|pc| pc.get(i).copied()).unwrap_or(f);
                m.add(p, f);
            }
            return Some(m);
        }
        self.mapping(tracks?)
    }

    /// The colours needed to play are known (with X / Y following `tracks`).
    pub fn settled(&self, tracks: Option<XyTracks>) -> bool {
        self.colour_codes(tracks).is_some_and(|m| self.is_trusted() || !m.pairs.is_empty())
    }

    /// Piece codes seen in pairs of two different codes.
    pub fn pair_codes(&self) -> &BTreeSet<u8> {
        &self.pair_codes
    }

    /// Player `player`'s field `view` (the last frame's): a cell that keeps a code that is neither empty, a
    /// colour nor a pair's code for [`NUISANCE_FRAMES`] frames holds nuisance.
    pub fn scan_nuisance(&mut self, player: usize, view: Option<&View>, known: &Known, found: &mut Contradictions) {
        if self.is_trusted() {
            return;
        }
        let (Some(k), Some(empty)) = (known.offset, known.empty) else { return };
        let Some(map) = self.colour_codes(known.tracks) else { return };
        let Some(view) = view else { return };
        let Some(stable) = self.stable.get_mut(player) else { return };
        let colours = map.field_codes();
        // Until every pair code seen is mapped, an unexplained code may still be a colour.
        let complete = self.pair_codes.iter().all(|&p| map.field(p).is_some());
        let mut kept = None;
        for (c, s) in view.cells.iter().zip(stable.iter_mut()) {
            let v = c[k] & self.colour_mask;
            if v == empty || colours.contains(&v) || self.pair_codes.contains(&v) || self.landed.contains(&v) {
                *s = (v, 0);
                continue;
            }
            *s = if s.0 == v { (v, s.1 + 1) } else { (v, 1) };
            if s.1 >= NUISANCE_FRAMES && complete {
                kept = Some(v);
            }
        }
        if let Some(v) = kept {
            match self.nuisance {
                None => {
                    log::info!("calibration: field code {v} stays in the field without being a colour: nuisance");
                    self.nuisance = Some(v);
                }
                Some(n) if n != v => {
                    found.push(format!("two codes act as nuisance: {n} and {v}; keeping {v}"));
                    self.nuisance = Some(v);
                }
                _ => {}
            }
        }
    }

    /// The nuisance, Big Puyo and Carbuncle codes learned so far (`None` where not seen; always `None`
    /// when the start file's codes are trusted).
    pub fn special_codes(&self) -> (Option<u8>, Option<u8>, Option<u8>) {
        if self.is_trusted() {
            return (None, None, None);
        }
        let item = |k: ItemKind| self.items.iter().find(|(_, v)| **v == k).map(|(&c, _)| c);
        (self.nuisance, item(ItemKind::BigPuyo), item(ItemKind::Carbuncle))
    }

    /// Which piece codes the decoder reads from what was learned (or from a trusted file) rather than from a
    /// guess: a lock predicted with a guessed code says nothing about the learned contract.
    pub fn known_codes(&self) -> KnownCodes {
        if self.is_trusted() {
            return KnownCodes::ALL;
        }
        let (_, big, carbuncle) = self.special_codes();
        KnownCodes { big_puyo: big.is_some(), carbuncle: carbuncle.is_some(), new_colors: false }
    }

    /// The codes for the report (the start file's where trusted).
    pub fn report(&self, known: &Known) -> CodesReport {
        let (colors, piece_colors) = match self.colour_codes(known.tracks) {
            Some(m) if !m.pairs.is_empty() => {
                let pc: Vec<u8> = m.pairs.keys().copied().collect();
                (Some(m.field_codes()), if m.is_identity() { None } else { Some(pc) })
            }
            _ => (None, None),
        };
        let item = |kind: ItemKind| {
            if let Some(c) = &self.trusted {
                return Some(match kind {
                    ItemKind::BigPuyo => c.big_puyo,
                    _ => c.carbuncle,
                });
            }
            self.items.iter().find(|(_, k)| **k == kind).map(|(&c, _)| c)
        };
        CodesReport {
            empty: known.empty,
            colors,
            piece_colors,
            nuisance: self.trusted.as_ref().map_or(self.nuisance, |c| Some(c.nuisance)),
            big_puyo: item(ItemKind::BigPuyo),
            carbuncle: item(ItemKind::Carbuncle),
            unknown_items: self.items.iter().filter(|(_, k)| **k == ItemKind::Unknown).map(|(&c, _)| c).collect(),
            color_mask: self.colour_mask,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memmap::AddressSource;
    use crate::memmap::raw::idx;

    fn start() -> Codes {
        AddressSource::Builtin.address_file("1p-endless.toml").expect("built-in file").codes
    }

    fn known(tracks: Option<XyTracks>) -> Known {
        Known { offset: Some(0), empty: Some(0), colour_mask: 0xFF, tracks, ..Known::default() }
    }

    /// Pivot `p` lands at (3, 13), child `c` above it at (3, 12).
    fn lock(p: u8, c: u8) -> LockSeen {
        let before = [[0u8; 4]; CELLS];
        let mut after = before;
        after[idx(3, 13)][0] = p;
        after[idx(3, 12)][0] = c;
        LockSeen { pivot: p, child: c, x: 3, y: 13, o: 2, late: None, before: Box::new(before), after: Box::new(after) }
    }

    #[test]
    fn a_nuisance_code_read_through_a_wider_colour_mask_is_learned_again_when_the_mask_narrows() {
        // Link bits seen one at a time: a linked puyo that kept its code (13 with the link bit $80) was taken
        // for nuisance before bit $80 was known to vary. Through the narrower mask it reads as colour 13, so
        // the nuisance guess is dropped rather than masked into a colour.
        let mut c = ColourLearner::new(&start(), false, 1);
        c.colour_mask = 0x8F;
        c.nuisance = Some(13 | 0x80);
        c.note_varying(0x80, Some(0));
        assert_eq!(c.colour_mask(), 0x0F);
        assert_eq!(c.special_codes().0, None);
    }

    #[test]
    fn pair_locks_map_piece_codes_and_contradict_one_tracking() {
        let mut c = ColourLearner::new(&start(), false, 1);
        let mut found = Contradictions::default();
        c.spawn(0x11, 0x12, &mut found);
        let k = known(None);
        // Piece codes 0x11 / 0x12 land as field codes 1 / 2; the pivot where X / Y point.
        for (p, cc, fp, fc) in [(0x11, 0x12, 1, 2), (0x12, 0x13, 2, 3)] {
            let mut l = lock(p, cc);
            l.after[idx(3, 13)][0] = fp;
            l.after[idx(3, 12)][0] = fc;
            let l = c.read_lock(&l, 0, 0);
            let (tracked, other) = c.pair_lock(&l, ((3, 13), (3, 12)), &k, &mut found).expect("a pair");
            let rel = Relative::Vertical(-1);
            c.add_lock(PairLock { o: 2, rel, pivot: p, child: cc, tracked, other });
        }
        assert!(c.mapping(XyTracks::Pivot).is_some());
        assert!(c.mapping(XyTracks::Child).is_none(), "child tracking maps 0x12 to both 1 and 3");
        assert!(!c.settled(None), "not before it is known which puyo X / Y follow");
        c.mapped(Some(XyTracks::Pivot), &mut found);
        assert!(c.settled(Some(XyTracks::Pivot)));
        assert_eq!(c.colour_order(), &[0x11, 0x12, 0x13]);
        assert_eq!(c.report(&known(Some(XyTracks::Pivot))).piece_colors, Some(vec![0x11, 0x12, 0x13]));
        assert!(found.is_empty(), "{found:?}");
    }

    #[test]
    fn a_code_a_pair_landed_as_is_never_taken_for_nuisance_after_the_colours_are_learned_again() {
        // Two one-colour pairs land as field codes 1 and 4; a contradiction (the current-pair bytes found
        // the other way round) makes the colours learned again from a lock of codes 2 and 3 alone. Code 1
        // then stays in the field unmapped: it is a colour, not nuisance.
        let mut c = ColourLearner::new(&start(), false, 1);
        let mut found = Contradictions::default();
        let k = known(Some(XyTracks::Pivot));
        for code in [1, 4] {
            let l = c.read_lock(&lock(code, code), 0, 0);
            c.pair_lock(&l, ((3, 13), (3, 12)), &k, &mut found).expect("a pair");
        }
        let l = c.read_lock(&lock(2, 3), 0, 0);
        let (tracked, other) = c.pair_lock(&l, ((3, 13), (3, 12)), &k, &mut found).expect("a pair");
        c.add_lock(PairLock { o: 2, rel: Relative::Vertical(-1), pivot: 2, child: 3, tracked, other });
        c.restart_from_last_lock(&mut found);
        c.mapped(Some(XyTracks::Pivot), &mut found);
        assert!(c.colour_codes(Some(XyTracks::Pivot)).is_some_and(|m| !m.field_codes().contains(&1)));
        let mut cells = [[0u8; 4]; CELLS];
        cells[idx(1, 13)][0] = 1;
        let mut view = View { cells, ..View::default() };
        for _ in 0..=NUISANCE_FRAMES {
            c.scan_nuisance(0, Some(&view), &k, &mut found);
        }
        assert_eq!(c.special_codes().0, None, "code 1 taken for nuisance");
        view.cells[idx(2, 13)][0] = 9;
        for _ in 0..=NUISANCE_FRAMES {
            c.scan_nuisance(0, Some(&view), &k, &mut found);
        }
        assert_eq!(c.special_codes().0, Some(9), "a code no pair landed as is nuisance");
        assert_eq!(found.len(), 1, "only the restart: {found:?}");
    }

    #[test]
    fn an_item_that_empties_two_columns_is_big_puyo() {
        let mut c = ColourLearner::new(&start(), false, 1);
        let mut found = Contradictions::default();
        let mut before = [[0u8; 4]; CELLS];
        before[idx(3, 13)][0] = 1;
        before[idx(4, 13)][0] = 2;
        let l = LockSeen {
            pivot: 9,
            child: 9,
            x: 3,
            y: 12,
            o: 2,
            late: None,
            before: Box::new(before),
            after: Box::new([[0u8; 4]; CELLS]),
        };
        assert!(c.may_be_item(9, None));
        c.item_lock(&l, 0, 0, &[idx(3, 13), idx(4, 13)], &mut found);
        assert_eq!(c.special_codes(), (None, Some(9), None));
        assert_eq!(c.known_codes(), KnownCodes { big_puyo: true, carbuncle: false, new_colors: false });
        // A pair with another code later: not an item after all.
        c.spawn(9, 1, &mut found);
        assert_eq!(found.len(), 1);
        assert_eq!(c.special_codes(), (None, None, None));
    }
}
