//! Where pieces come from: a seeded random generator or a fixed queue (parsed elsewhere). Pure: the
//! self-play loops and the mock emulator both deal from these.

use std::collections::VecDeque;

use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

use crate::game::{Color, Item, Pair, Piece};

/// An endless supply of pieces.
pub trait PieceSource {
    /// The `index`-th piece (0-based). Both players of a battle read the same sequence.
    fn piece(&mut self, index: usize) -> Piece;

    /// Promises that no piece before `index` will be asked for again, so a source that remembers the
    /// pieces it dealt may drop them (long games then run in constant memory). The default keeps all.
    fn forget_before(&mut self, _index: usize) {}
}

/// Random pairs with a seeded Xoshiro256++ stream; optionally an item every `item_interval` pieces.
#[derive(Clone, Debug)]
pub struct RandomPieces {
    rng: Xoshiro256PlusPlus,
    colors: u8,
    item: Option<(Item, u32)>,
    /// Pieces dealt from index `base` on; older ones were forgotten (see [`PieceSource::forget_before`]).
    made: VecDeque<Piece>,
    base: usize,
}

/// Colours of the random pairs when nothing says otherwise: Puyo Puyo's four (`sim`, `train`, the
/// search's sampled futures).
pub const DEFAULT_COLORS: u8 = 4;

impl RandomPieces {
    /// A generator over the first `colors` colours (clamped to 3..=6), seeded with `seed`.
    pub fn new(seed: u64, colors: u8) -> RandomPieces {
        RandomPieces {
            rng: Xoshiro256PlusPlus::seed_from_u64(seed),
            colors: colors.clamp(3, 6),
            item: None,
            made: VecDeque::new(),
            base: 0,
        }
    }

    /// Makes every `interval`-th piece (1-based: pieces interval, 2·interval, …) the given item.
    pub fn with_item(mut self, item: Item, interval: u32) -> RandomPieces {
        self.item = (interval > 0).then_some((item, interval));
        self
    }

    /// Number of colours drawn from.
    pub fn colors(&self) -> u8 {
        self.colors
    }

    fn make(&mut self, index: usize) -> Piece {
        if let Some((item, interval)) = self.item
            && (index as u64 + 1).is_multiple_of(interval as u64)
        {
            return Piece::Item(item);
        }
        let a = Color::ALL[self.rng.random_range(0..self.colors as usize)];
        let b = Color::ALL[self.rng.random_range(0..self.colors as usize)];
        Piece::Pair(Pair::new(a, b))
    }
}

impl PieceSource for RandomPieces {
    /// # Panics
    /// When asked for a piece before the index last passed to `forget_before`: that breaks the promise
    /// made there and is a bug in the calling loop.
    fn piece(&mut self, index: usize) -> Piece {
        assert!(index >= self.base, "piece {index} was forgotten (pieces before {} were released)", self.base);
        while self.base + self.made.len() <= index {
            let p = self.make(self.base + self.made.len());
            self.made.push_back(p);
        }
        self.made[index - self.base]
    }

    fn forget_before(&mut self, index: usize) {
        // Pieces not dealt yet must still be drawn in order, so only dealt ones are dropped.
        while self.base < index && !self.made.is_empty() {
            self.made.pop_front();
            self.base += 1;
        }
    }
}

/// A fixed queue (e.g. from a file) that repeats from the start when it runs out.
#[derive(Clone, Debug)]
pub struct QueuePieces {
    pieces: Vec<Piece>,
}

impl QueuePieces {
    /// A queue of at least one piece; `None` when empty.
    pub fn new(pieces: Vec<Piece>) -> Option<QueuePieces> {
        (!pieces.is_empty()).then_some(QueuePieces { pieces })
    }

    /// Number of pieces before the queue repeats.
    pub fn len(&self) -> usize {
        self.pieces.len()
    }

    /// Never true: a queue has at least one piece.
    pub fn is_empty(&self) -> bool {
        self.pieces.is_empty()
    }
}

impl PieceSource for QueuePieces {
    fn piece(&mut self, index: usize) -> Piece {
        self.pieces[index % self.pieces.len()]
    }
}

/// The RNG for game `game` of a run seeded with `seed`: a stream of its own, so results do not depend on
/// which thread plays which game or in what order.
pub fn game_rng(seed: u64, game: u64) -> Xoshiro256PlusPlus {
    // seed_from_u64 runs SplitMix64 over its input, so nearby (seed, game) pairs give unrelated streams.
    Xoshiro256PlusPlus::seed_from_u64(seed ^ game.wrapping_add(1).wrapping_mul(0x9E37_79B9_7F4A_7C15))
}
