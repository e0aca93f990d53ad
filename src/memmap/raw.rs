//! The one RAM reader: one player's bytes in one frame, before any code has a meaning.
//!
//! [`View::read`] collects the raw bytes an address file points at: every field cell's bytes, the current
//! and next pieces' bytes, the X / Y / orientation bytes, the spawn and gravity timers, and the score and
//! pending-nuisance counters where the file has them. Two readers build on it: the decoder
//! ([`super::decode`]) gives the bytes their meaning with the file's code tables, and self-calibration
//! learns the code tables from the same bytes. Every read goes through [`byte`], so no RAM image or address
//! file can make it panic.
//!
//! Whether a piece can move is not a byte: it is followed over frames (the decoder's
//! [`super::control::PieceClock`], calibration's control watch), so [`View::active`] is left to them.

use crate::game::{HEIGHT, WIDTH};

use super::schema::{AddressFile, Entry, PlayerMap};

/// Reads one RAM byte; addresses outside RAM read as 0.
#[inline]
pub fn byte(ram: &[u8; 2048], addr: usize) -> u8 {
    ram.get(addr).copied().unwrap_or(0)
}

/// The byte an address-file entry points at.
#[inline]
pub fn entry(ram: &[u8; 2048], e: &Entry) -> u8 {
    byte(ram, e.addr as usize)
}

/// The address file's mode byte in `ram`, when the file says where it is (`[global] mode`).
pub fn mode_byte(ram: &[u8; 2048], map: &AddressFile) -> Option<u8> {
    map.global.mode.as_ref().map(|e| entry(ram, e))
}

/// The address file's "a piece spawns" byte in `ram`, when the file says where it is (`[global] spawn_any`).
pub fn spawn_any_byte(ram: &[u8; 2048], map: &AddressFile) -> Option<u8> {
    map.global.spawn_any.as_ref().map(|e| entry(ram, e))
}

/// Bytes of a cell kept per cell (a cell is `cell_stride` bytes; the colour is one of them).
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
    /// The spawn flag byte.
    pub spawn_flag: u8,
    /// The spawn-delay timer byte (non-zero while no piece can move).
    pub spawn_delay: u8,
    /// The gravity timer byte.
    pub drop_timer: u8,
    /// The score counter as stored (little-endian, at most 4 bytes), when the file has one.
    pub score: Option<u32>,
    /// The pending-nuisance counter as stored (little-endian, at most 4 bytes), when the file has one.
    pub pending_nuisance: Option<u32>,
    /// A piece can be moved. Not a byte: `read` leaves it false, and whoever follows the piece over frames
    /// sets it.
    pub active: bool,
    /// The first [`MAX_CELL_BYTES`] bytes of every cell.
    pub cells: RawField,
    /// Bytes per cell actually kept (`cell_stride`, at most [`MAX_CELL_BYTES`]).
    pub cell_bytes: usize,
    /// Every cell's byte at the file's `color_offset` (which may lie beyond the bytes kept in `cells`).
    pub colors: [u8; CELLS],
}

impl Default for View {
    fn default() -> View {
        View {
            x: 0,
            y: 0,
            o: 0,
            pivot: 0,
            child: 0,
            next: (0, 0),
            spawn_flag: 0,
            spawn_delay: 0,
            drop_timer: 0,
            score: None,
            pending_nuisance: None,
            active: false,
            cells: [[0; MAX_CELL_BYTES]; CELLS],
            cell_bytes: 1,
            colors: [0; CELLS],
        }
    }
}

impl View {
    /// Reads one player's bytes.
    pub fn read(ram: &[u8; 2048], p: &PlayerMap) -> View {
        let rd = |e: &Entry| entry(ram, e);
        let f = &p.field;
        let cell_bytes = (f.cell_stride as usize).clamp(1, MAX_CELL_BYTES);
        let mut cells = [[0u8; MAX_CELL_BYTES]; CELLS];
        let mut colors = [0u8; CELLS];
        for yy in 0..HEIGHT {
            for xx in 1..=WIDTH {
                let start = f.base as usize + f.row_stride as usize * yy + f.cell_stride as usize * xx;
                for (k, b) in cells[idx(xx, yy)].iter_mut().enumerate().take(cell_bytes) {
                    *b = byte(ram, start + k);
                }
                colors[idx(xx, yy)] = byte(ram, f.cell_addr(xx, yy));
            }
        }
        View {
            x: rd(&p.x),
            y: rd(&p.y),
            o: rd(&p.orientation),
            pivot: rd(&p.current_pivot),
            child: rd(&p.current_child),
            next: (rd(&p.next_pivot), rd(&p.next_child)),
            spawn_flag: rd(&p.spawn_flag),
            spawn_delay: rd(&p.spawn_delay),
            drop_timer: rd(&p.drop_timer),
            score: p.score.as_ref().map(|s| little_endian(ram, s.addr, s.bytes)),
            pending_nuisance: p.pending_nuisance.as_ref().map(|c| little_endian(ram, c.addr, c.bytes)),
            active: false,
            cells,
            cell_bytes,
            colors,
        }
    }

    /// Byte `k` of cell (x, y).
    pub fn cell(&self, x: usize, y: usize, k: usize) -> u8 {
        self.cells[idx(x, y)][k]
    }

    /// The colour byte of cell (x, y), at the file's `color_offset`.
    pub fn color(&self, x: usize, y: usize) -> u8 {
        self.colors[idx(x, y)]
    }

    /// The spawn-delay timer reads 0.
    pub fn timer_zero(&self) -> bool {
        self.spawn_delay == 0
    }
}

/// A little-endian counter of `bytes` bytes (at most 4) at `addr`.
fn little_endian(ram: &[u8; 2048], addr: u16, bytes: u8) -> u32 {
    (0..bytes.min(4) as usize).rev().fold(0u32, |v, k| (v << 8) | u32::from(byte(ram, addr as usize + k)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memmap::AddressSource;

    fn map() -> AddressFile {
        AddressSource::Builtin.address_file("labcart/2p.toml").unwrap()
    }

    #[test]
    fn it_reads_the_bytes_the_file_points_at() {
        let m = map();
        let p = &m.player[1];
        let mut ram = [0u8; 2048];
        ram[p.x.addr as usize] = 4;
        ram[p.orientation.addr as usize] = 3;
        ram[p.next_child.addr as usize] = 5;
        ram[p.field.cell_addr(2, 13)] = 6;
        ram[p.spawn_delay.addr as usize] = 9;
        let v = View::read(&ram, p);
        assert_eq!((v.x, v.o, v.next.1, v.color(2, 13)), (4, 3, 5, 6));
        assert_eq!(v.cell(2, 13, p.field.color_offset as usize), 6);
        assert!(!v.timer_zero());
        assert!(!v.active);
        assert_eq!(v.cell_bytes, p.field.cell_stride as usize);
        // The other player's bytes are not this one's.
        assert_eq!(View::read(&ram, &m.player[0]).x, 0);
    }

    #[test]
    fn a_colour_byte_beyond_the_kept_cell_bytes_is_still_read() {
        let mut m = map();
        let f = &mut m.player[0].field;
        (f.cell_stride, f.color_offset, f.row_stride) = (6, 5, 48);
        let p = &m.player[0];
        let mut ram = [0u8; 2048];
        ram[p.field.cell_addr(1, 0)] = 9;
        let v = View::read(&ram, p);
        assert_eq!(v.cell_bytes, MAX_CELL_BYTES);
        assert_eq!(v.color(1, 0), 9);
        assert!(v.cells[idx(1, 0)].iter().all(|&b| b == 0), "bytes 0..4 of the cell are not the colour byte");
    }

    #[test]
    fn counters_are_little_endian_and_addresses_past_ram_read_zero() {
        let mut ram = [0u8; 2048];
        ram[0x100] = 0x34;
        ram[0x101] = 0x12;
        assert_eq!(little_endian(&ram, 0x100, 2), 0x1234);
        assert_eq!(little_endian(&ram, 0x100, 9), 0x1234, "at most four bytes");
        ram[2047] = 7;
        assert_eq!(little_endian(&ram, 2047, 2), 7);
        assert_eq!(byte(&ram, 5000), 0);
    }

    #[test]
    fn the_mode_byte_is_read_where_the_file_says() {
        let mut m = map();
        let mut ram = [0u8; 2048];
        let at = m.global.mode.as_ref().expect("the open cartridge's file has a mode byte").addr as usize;
        ram[at] = 2;
        assert_eq!(mode_byte(&ram, &m), Some(2));
        m.global.mode = None;
        assert_eq!(mode_byte(&ram, &m), None);
    }
}
