//! What the learner reads of one player's RAM in one frame, before any code has a meaning: the raw
//! bytes of the field cells, the piece bytes and the X / Y / orientation bytes.
//!
//! Only the addresses the public RAM map gives with confidence are used: the field's base and strides,
//! the current / next / X / Y / orientation bytes and the spawn-delay timer. Whether a piece can move
//! is not read here but followed over frames by [`super::control::ControlWatch`]. Every read goes through
//! [`byte`], so no RAM image or address file can make it panic.

use crate::game::{HEIGHT, WIDTH};
use crate::memmap::decode::byte;
use crate::memmap::schema::PlayerMap;

/// Bytes of a cell the learner considers (a cell is `cell_stride` bytes; the colour is one of them).
pub const MAX_CELL_BYTES: usize = 4;

/// Cells of a field (6 columns × 14 rows).
pub const CELLS: usize = WIDTH * HEIGHT;

/// The raw bytes of every field cell: `cells[idx(x, y)][k]` is byte `k` of cell (x, y).
pub type RawField = [[u8; MAX_CELL_BYTES]; CELLS];

/// Index of cell (x 1..=6, y 0..=13) in a [`RawField`].
pub const fn idx(x: usize, y: usize) -> usize {
    y * WIDTH + (x - 1)
}

/// Cell (x, y) of an index.
pub const fn pos(i: usize) -> (usize, usize) {
    (i % WIDTH + 1, i / WIDTH)
}

/// One player's raw RAM in one frame.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct View {
    /// The X byte.
    pub x: u8,
    /// The Y byte.
    pub y: u8,
    /// The orientation byte.
    pub o: u8,
    /// The current piece's pivot byte.
    pub pivot: u8,
    /// The current piece's child byte.
    pub child: u8,
    /// The next piece's pivot and child bytes (raw: they may use another code table).
    pub next: (u8, u8),
    /// A piece can be moved (set by the learner from the frames before: see [`super::control`]).
    pub active: bool,
    /// The spawn-delay timer reads 0.
    pub timer_zero: bool,
    /// Every cell's bytes.
    pub cells: RawField,
    /// Bytes per cell actually used (`cell_stride`, at most [`MAX_CELL_BYTES`]).
    pub cell_bytes: usize,
}

impl View {
    /// Reads one player's bytes.
    pub fn read(ram: &[u8; 2048], p: &PlayerMap) -> View {
        let rd = |a: u16| byte(ram, a as usize);
        let (x, y) = (rd(p.x.addr), rd(p.y.addr));
        let f = &p.field;
        let cell_bytes = (f.cell_stride as usize).clamp(1, MAX_CELL_BYTES);
        let mut cells = [[0u8; MAX_CELL_BYTES]; CELLS];
        for yy in 0..HEIGHT {
            for xx in 1..=WIDTH {
                let start = f.base as usize + f.row_stride as usize * yy + f.cell_stride as usize * xx;
                for (k, b) in cells[idx(xx, yy)].iter_mut().enumerate().take(cell_bytes) {
                    *b = byte(ram, start + k);
                }
            }
        }
        View {
            x,
            y,
            o: rd(p.orientation.addr),
            pivot: rd(p.current_pivot.addr),
            child: rd(p.current_child.addr),
            next: (rd(p.next_pivot.addr), rd(p.next_child.addr)),
            active: false,
            timer_zero: rd(p.spawn_delay.addr) == 0,
            cells,
            cell_bytes,
        }
    }

    /// Byte `k` of cell (x, y).
    pub fn cell(&self, x: usize, y: usize, k: usize) -> u8 {
        self.cells[idx(x, y)][k]
    }
}
