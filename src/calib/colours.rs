//! The colour codes: how piece codes map to field codes, which bits of the colour byte carry the code,
//! nuisance and the items.
//!
//! - A pair of two different codes that lands shows both field codes; which is which depends on which
//!   puyo X / Y follow, so the mapping is kept for either answer and a lock that contradicts one answer
//!   rules it out (the learner tells the movement).
//! - A pair of one code shows its field code whatever X / Y follow.
//! - Bits seen changing in a cell that kept its puyo (link bits, animation) are masked out of every code.
//! - A code that stays in the field and is no colour is nuisance; a piece code that does not land as a
//!   pair is an item. Each of its locks is judged by what an item itself does ([`item_evidence`]): Big
//!   Puyo empties the two columns under it, Carbuncle recolours the puyos it touches. Nuisance landing,
//!   puyos falling after a pop and locks that show neither are no evidence. The evidence is tallied per
//!   code ([`ItemTally`]): the identity settles after [`ITEM_SETTLE`] locks of one kind, and a code whose
//!   locks keep showing both kinds is a contradiction that stops the run ([`ColourLearner::item_conflict`]).
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
use super::report::{CodesReport, ItemEvidence};
use super::types::Relative;

/// Frames a cell must keep an unexplained code before it counts as nuisance.
const NUISANCE_FRAMES: u32 = 60;

/// Pair locks kept as evidence for the colour mapping (the oldest are dropped).
const KEPT_LOCKS: usize = 64;

/// Locks of one kind, more than of the other, that settle an item code's identity.
pub const ITEM_SETTLE: u32 = 2;

/// Locks of each kind that make an item code's evidence disagree for real (with the fewer at least a
/// third of the more): a misread lock now and then is outvoted, a code that keeps acting as both items
/// is a contradiction.
pub const ITEM_CONFLICT: u32 = 2;

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

impl ItemKind {
    /// The item's name, for messages.
    pub fn name(self) -> &'static str {
        match self {
            ItemKind::Unknown => "an unknown item",
            ItemKind::BigPuyo => "Big Puyo",
            ItemKind::Carbuncle => "Carbuncle",
        }
    }
}

/// What the locks of one item code showed: how many gave evidence of each kind, and how many none.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ItemTally {
    /// Locks that emptied the two columns under the item (Big Puyo).
    pub big_puyo: u32,
    /// Locks that recoloured the puyos the item touched, or kept the columns under it (Carbuncle).
    pub carbuncle: u32,
    /// Locks that showed neither clearly (nuisance landing, a pop, nothing to change).
    pub unclear: u32,
    /// The kind of the first lock with evidence (it breaks a tie).
    first: Option<ItemKind>,
}

impl ItemTally {
    /// Counts one lock's evidence.
    pub fn add(&mut self, kind: ItemKind) {
        match kind {
            ItemKind::BigPuyo => self.big_puyo += 1,
            ItemKind::Carbuncle => self.carbuncle += 1,
            ItemKind::Unknown => self.unclear += 1,
        }
        if kind != ItemKind::Unknown {
            self.first.get_or_insert(kind);
        }
    }

    /// The kind most locks showed (on a tie, the first seen); `Unknown` before any evidence.
    pub fn kind(&self) -> ItemKind {
        match self.big_puyo.cmp(&self.carbuncle) {
            std::cmp::Ordering::Greater => ItemKind::BigPuyo,
            std::cmp::Ordering::Less => ItemKind::Carbuncle,
            std::cmp::Ordering::Equal => self.first.unwrap_or(ItemKind::Unknown),
        }
    }

    /// The identity is settled: one kind leads by [`ITEM_SETTLE`] locks and the evidence does not disagree.
    pub fn settled(&self) -> bool {
        self.big_puyo.abs_diff(self.carbuncle) >= ITEM_SETTLE && !self.disagrees()
    }

    /// Both kinds were seen clearly and repeatedly: [`ITEM_CONFLICT`] locks or more each, the fewer at
    /// least a third of the more.
    pub fn disagrees(&self) -> bool {
        let (few, many) = (self.big_puyo.min(self.carbuncle), self.big_puyo.max(self.carbuncle));
        few >= ITEM_CONFLICT && 3 * few >= many
    }
}

/// What one item lock shows of the item's kind, judged only by what an item itself does: Big Puyo
/// empties the two columns under it (X and X + 1), Carbuncle recolours the puyos it touches (below, left
/// and right of where it landed) from one colour to another. Read at colour byte `k` (through the colour
/// mask), `empty` the empty code, `colours` the field codes of colours.
///
/// - An item with nothing under it (no puyo in the two rows below its cell or the one beside it, and
///   not at the floor) has not landed: the game stopped with it in the air (the other side topped out,
///   a pause). It says nothing.
/// - Cells that filled say nothing (nuisance landing, puyos falling into emptied cells).
/// - A cell that changed colour in a column where a cell emptied is a fall after a pop, not a recolour.
/// - Cells that emptied outside the two columns are a pop: the lock says nothing of Big Puyo.
/// - An item whose two columns held puyos that all stayed as they were did not empty them: not Big Puyo,
///   so Carbuncle (one whose neighbours already had its colour).
///
/// `ItemKind::Unknown` when the lock shows neither kind clearly, or both.
pub fn item_evidence(l: &LockSeen, k: usize, empty: u8, colours: &BTreeSet<u8>) -> ItemKind {
    let b = |i: usize| l.before[i][k];
    let a = |i: usize| l.after[i][k];
    let mut poses = vec![(l.x as usize, l.y as usize)];
    poses.extend(l.late.map(|(x, y, _)| (x as usize, y as usize)).filter(|p| *p != poses[0]));
    let cell = |x: usize, y: usize| (1..=crate::game::WIDTH).contains(&x) && y < crate::game::HEIGHT;
    let rests = |&(x, y): &(usize, usize)| {
        y + 3 > crate::game::HEIGHT
            || [(x, y + 1), (x + 1, y + 1), (x, y + 2), (x + 1, y + 2)]
                .into_iter()
                .any(|(cx, cy)| cell(cx, cy) && b(crate::memmap::raw::idx(cx, cy)) != empty)
    };
    if !poses.iter().any(rests) {
        return ItemKind::Unknown;
    }
    let emptied: Vec<usize> = (0..CELLS).filter(|&i| b(i) != empty && a(i) == empty).collect();
    let emptied_in = |col: usize| emptied.iter().any(|&i| pos(i).0 == col);
    let recoloured =
        |i: usize| b(i) != a(i) && colours.contains(&b(i)) && colours.contains(&a(i)) && !emptied_in(pos(i).0);
    let touched = |&(x, y): &(usize, usize)| {
        [(x, y + 1), (x.wrapping_sub(1), y), (x + 1, y)]
            .into_iter()
            .filter(|&(cx, cy)| cell(cx, cy))
            .any(|(cx, cy)| recoloured(crate::memmap::raw::idx(cx, cy)))
    };
    let recolour = poses.iter().any(touched);
    let in_columns = |x: usize, i: usize| pos(i).0 == x || pos(i).0 == x + 1;
    let held = |x: usize| (0..CELLS).filter(move |&i| in_columns(x, i) && b(i) != empty);
    // Every puyo the two columns held is gone (emptied, or covered by something that is no colour: nuisance
    // that fell into them), at least one emptied, and nothing emptied elsewhere.
    let cleared = |x: usize| {
        held(x).all(|i| a(i) == empty || (a(i) != b(i) && !colours.contains(&a(i))))
            && emptied.iter().any(|&i| in_columns(x, i))
            && emptied.iter().all(|&i| in_columns(x, i))
    };
    let big = poses.iter().any(|&(x, _)| cleared(x));
    let kept = poses.iter().all(|&(x, _)| held(x).next().is_some() && held(x).all(|i| a(i) == b(i)));
    match (big, recolour) {
        (true, false) => ItemKind::BigPuyo,
        (false, true) => ItemKind::Carbuncle,
        (false, false) if kept && emptied.is_empty() => ItemKind::Carbuncle,
        _ => ItemKind::Unknown,
    }
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
    /// Per item code: what its locks showed.
    items: BTreeMap<u8, ItemTally>,
    /// The item code whose evidence disagrees, in words, once found.
    item_conflict: Option<String>,
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
            item_conflict: None,
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

    /// A lock of one code that did not fill two empty cells: an item. Its evidence ([`item_evidence`], read
    /// at colour byte `k` with empty code `empty`, the colours as mapped with X / Y following `tracks`) is
    /// added to the code's tally; a tally that comes to disagree is a contradiction, told once.
    pub fn item_lock(
        &mut self,
        l: &LockSeen,
        k: usize,
        empty: u8,
        tracks: Option<XyTracks>,
        found: &mut Contradictions,
    ) {
        let mut colours: BTreeSet<u8> =
            self.colour_codes(tracks).map(|m| m.field_codes().into_iter().collect()).unwrap_or_default();
        colours.extend(self.landed.iter().copied());
        colours.remove(&empty);
        if let Some(n) = self.nuisance {
            colours.remove(&n);
        }
        let kind = item_evidence(l, k, empty, &colours);
        let tally = self.items.entry(l.pivot).or_default();
        let was = (tally.kind(), tally.settled());
        tally.add(kind);
        let t = *tally;
        log::debug!(
            "calibration: item code {} lock showed {} (Big Puyo {}, Carbuncle {}, no evidence {})",
            l.pivot,
            kind.name(),
            t.big_puyo,
            t.carbuncle,
            t.unclear
        );
        if t.settled() && !was.1 {
            log::info!(
                "calibration: item code {} is {} ({} locks showed it, {} the other item, {} neither)",
                l.pivot,
                t.kind().name(),
                t.big_puyo.max(t.carbuncle),
                t.big_puyo.min(t.carbuncle),
                t.unclear
            );
        } else if was.0 != ItemKind::Unknown && t.kind() != was.0 {
            log::info!("calibration: item code {} now reads as {} by most of its locks", l.pivot, t.kind().name());
        }
        if t.disagrees() && self.item_conflict.is_none() {
            let seen = format!(
                "item code {} acted as Big Puyo in {} locks (emptied the two columns under it) and as Carbuncle in \
                 {} (recoloured a puyo it touched, or left its columns as they were): calibration cannot tell which \
                 item it is; give the item codes in [codes] big_puyo / carbuncle of an address file marked \
                 verified, or play with --items off",
                l.pivot, t.big_puyo, t.carbuncle
            );
            found.push(seen.clone());
            self.item_conflict = Some(seen);
        }
    }

    /// The item code whose locks keep acting as both items, in words, once found: the run must not play on
    /// with either reading.
    pub fn item_conflict(&self) -> Option<&str> {
        self.item_conflict.as_deref()
    }

    /// What each item code's locks showed.
    pub fn item_tallies(&self) -> &BTreeMap<u8, ItemTally> {
        &self.items
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
        let item = |k: ItemKind| self.items.iter().find(|(_, t)| t.kind() == k).map(|(&c, _)| c);
        (self.nuisance, item(ItemKind::BigPuyo), item(ItemKind::Carbuncle))
    }

    /// The item code of kind `kind` whose identity is settled.
    fn settled_item(&self, kind: ItemKind) -> Option<u8> {
        self.items.iter().find(|(_, t)| t.kind() == kind && t.settled()).map(|(&c, _)| c)
    }

    /// Which piece codes the decoder reads from what was learned (or from a trusted file) rather than from a
    /// guess: a lock predicted with a guessed code says nothing about the learned contract.
    pub fn known_codes(&self) -> KnownCodes {
        if self.is_trusted() {
            return KnownCodes::ALL;
        }
        // An item read with a kind its locks have not settled yet is a guess: its locks are not held
        // against the contract.
        let (big, carbuncle) = (self.settled_item(ItemKind::BigPuyo), self.settled_item(ItemKind::Carbuncle));
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
            self.items.iter().find(|(_, t)| t.kind() == kind).map(|(&c, _)| c)
        };
        CodesReport {
            empty: known.empty,
            colors,
            piece_colors,
            nuisance: self.trusted.as_ref().map_or(self.nuisance, |c| Some(c.nuisance)),
            big_puyo: item(ItemKind::BigPuyo),
            carbuncle: item(ItemKind::Carbuncle),
            unknown_items: self.items.iter().filter(|(_, t)| t.kind() == ItemKind::Unknown).map(|(&c, _)| c).collect(),
            items: self
                .items
                .iter()
                .map(|(&code, t)| ItemEvidence {
                    code,
                    big_puyo: t.big_puyo,
                    carbuncle: t.carbuncle,
                    unclear: t.unclear,
                    settled: t.settled(),
                })
                .collect(),
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

    /// An item lock of code 9 at (`x`, `y`) from `before` to `after` (colour byte 0, empty 0).
    fn item(x: u8, y: u8, before: &[((usize, usize), u8)], after: &[((usize, usize), u8)]) -> LockSeen {
        let mut b = [[0u8; 4]; CELLS];
        for &((cx, cy), v) in before {
            b[idx(cx, cy)][0] = v;
        }
        let mut a = b;
        for &((cx, cy), v) in after {
            a[idx(cx, cy)][0] = v;
        }
        LockSeen { pivot: 9, child: 9, x, y, o: 2, late: None, before: Box::new(b), after: Box::new(a) }
    }

    /// Colours 1 to 4; nuisance is 6.
    fn colours() -> BTreeSet<u8> {
        [1, 2, 3, 4].into()
    }

    /// Big Puyo at column 3 over puyos in columns 3 and 4, with puyos elsewhere.
    fn big_puyo(nuisance: &[(usize, usize)]) -> LockSeen {
        let before = [((3, 12), 1), ((3, 13), 2), ((4, 13), 3), ((1, 13), 1)];
        let mut after = vec![((3, 12), 0), ((3, 13), 0), ((4, 13), 0)];
        after.extend(nuisance.iter().map(|&c| (c, 6)));
        item(3, 11, &before, &after)
    }

    #[test]
    fn a_big_puyo_lock_with_nuisance_landing_in_the_same_frames_is_big_puyo() {
        assert_eq!(item_evidence(&big_puyo(&[]), 0, 0, &colours()), ItemKind::BigPuyo);
        // Nuisance fell into the cleared columns and beside them before the field was read.
        let l = big_puyo(&[(3, 13), (5, 13), (1, 12), (6, 13)]);
        assert_eq!(item_evidence(&l, 0, 0, &colours()), ItemKind::BigPuyo);
        // On empty columns a Big Puyo changes nothing: the nuisance that lands is no evidence either way.
        let empty = item(3, 13, &[((1, 13), 1)], &[((3, 13), 6), ((4, 13), 6), ((1, 12), 6)]);
        assert_eq!(item_evidence(&empty, 0, 0, &colours()), ItemKind::Unknown);
    }

    #[test]
    fn a_carbuncle_recolours_what_it_touches_but_a_fall_after_a_pop_is_no_recolour() {
        // Landed on colour 1 at (3, 12): the colour-2 puyo on its left takes colour 1.
        let before = [((3, 12), 1), ((3, 13), 1), ((2, 11), 2), ((2, 12), 3), ((2, 13), 3)];
        let l = item(3, 11, &before, &[((2, 11), 1)]);
        assert_eq!(item_evidence(&l, 0, 0, &colours()), ItemKind::Carbuncle);
        // Landed on colour 1 with nothing beside it to recolour: its columns stay as they were.
        let kept = item(3, 11, &before, &[]);
        assert_eq!(item_evidence(&kept, 0, 0, &colours()), ItemKind::Carbuncle);
        // The game stopped (the other side topped out) with an item high in the air over the stacks:
        // nothing changed, and that says nothing.
        let frozen = item(3, 2, &[((3, 12), 1), ((4, 13), 2), ((4, 12), 7)], &[]);
        assert_eq!(item_evidence(&frozen, 0, 0, &colours()), ItemKind::Unknown);
        // Two colour-2 puyos popped in column 3 and the colour-1 one above fell onto the floor beside
        // where the item landed: the cell beside it changed colour, but by a fall.
        let before = [((3, 11), 1), ((3, 12), 2), ((3, 13), 2)];
        let fall = item(4, 13, &before, &[((3, 11), 0), ((3, 12), 0), ((3, 13), 1)]);
        assert_eq!(item_evidence(&fall, 0, 0, &colours()), ItemKind::Unknown);
        // A pop inside the item's two columns that also recoloured a touched cell is not read as Big Puyo.
        let both =
            item(3, 11, &[((3, 12), 1), ((4, 11), 2), ((2, 11), 2)], &[((3, 12), 0), ((4, 11), 0), ((2, 11), 1)]);
        assert_eq!(item_evidence(&both, 0, 0, &colours()), ItemKind::Unknown);
    }

    #[test]
    fn an_item_code_settles_on_its_tally_and_a_code_acting_as_both_is_a_contradiction() {
        let mut c = ColourLearner::new(&start(), false, 1);
        let mut found = Contradictions::default();
        assert!(c.may_be_item(9, None));
        let big = big_puyo(&[(5, 13)]);
        c.item_lock(&big, 0, 0, None, &mut found);
        assert_eq!(c.special_codes(), (None, Some(9), None));
        assert!(!c.known_codes().big_puyo, "one lock is not settled yet");
        // No evidence changes nothing; a second Big Puyo lock settles it.
        c.item_lock(&item(3, 13, &[], &[((3, 13), 6), ((4, 13), 6)]), 0, 0, None, &mut found);
        c.item_lock(&big, 0, 0, None, &mut found);
        assert_eq!(c.known_codes(), KnownCodes { big_puyo: true, carbuncle: false, new_colors: false });
        // One misread is outvoted, the identity stays.
        let kept = item(3, 11, &[((3, 12), 1), ((3, 13), 1)], &[]);
        c.item_lock(&kept, 0, 0, None, &mut found);
        assert_eq!(c.special_codes(), (None, Some(9), None));
        assert!(found.is_empty() && c.item_conflict().is_none(), "{found:?}");
        let t = c.item_tallies()[&9];
        assert_eq!((t.big_puyo, t.carbuncle, t.unclear), (2, 1, 1));
        assert_eq!(c.report(&known(None)).items.first().map(|e| e.settled), Some(false), "2 to 1 leads by one");
        // Acting as Carbuncle again: both kinds seen repeatedly, a contradiction told once.
        c.item_lock(&kept, 0, 0, None, &mut found);
        c.item_lock(&kept, 0, 0, None, &mut found);
        assert_eq!(found.len(), 1, "{found:?}");
        let conflict = c.item_conflict().expect("a conflict");
        assert!(conflict.contains("item code 9 acted as Big Puyo in 2 locks"), "{conflict}");
        assert!(conflict.contains("as Carbuncle in 2"), "{conflict}");
        assert!(!c.known_codes().big_puyo && !c.known_codes().carbuncle);
        // A pair with another code later: not an item after all.
        c.spawn(9, 1, &mut found);
        assert_eq!(found.len(), 2);
        assert_eq!(c.special_codes(), (None, None, None));
    }
}
