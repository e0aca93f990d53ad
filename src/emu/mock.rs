//! A software model of the RAM contract (docs/cartridge.md §7), for tests that need a game without a cartridge.
//!
//! It keeps its state in the rules core's types and writes RAM exactly where the default address files
//! look (fields at $0300/$0400, pieces, X/Y/orientation, timers, score), reads the pads with one frame of
//! latency like the real console, reacts to new presses only, and locks with `Field::play`. It is not an
//! emulator and knows nothing of menus: it starts in the mode it is built for.

use crate::game::deal::{PieceSource, RandomPieces};
use crate::game::{Cell, Color, Field, HEIGHT, Orientation, Piece, Rules, WIDTH};

use super::{EmuError, Machine, pad};

/// Frames between a lock (or power-on) and the next spawn.
const SPAWN_DELAY: u8 = 12;
/// Frames per row of gravity.
const GRAVITY: u8 = 20;

#[derive(Clone, Copy, Debug)]
struct Falling {
    piece: Piece,
    x: i8,
    y: i8,
    o: Orientation,
}

/// The model game: 1 or 2 players sharing one piece sequence.
#[derive(Clone, Debug)]
pub struct MockGame {
    ram: Box<[u8; 2048]>,
    players: usize,
    fields: [Field; 2],
    pieces: RandomPieces,
    index: [usize; 2],
    falling: [Option<Falling>; 2],
    spawn_delay: [u8; 2],
    drop_timer: [u8; 2],
    pads: [u8; 2],
    prev: [u8; 2],
    score: [u32; 2],
    over: [bool; 2],
    frame: u32,
    rules: Rules,
}

/// Orientation byte of the contract: 0 down, 1 left, 2 up, 3 right.
fn orientation_code(o: Orientation) -> u8 {
    match o {
        Orientation::Down => 0,
        Orientation::Left => 1,
        Orientation::Up => 2,
        Orientation::Right => 3,
    }
}

fn piece_codes(p: Piece) -> (u8, u8) {
    match p {
        Piece::Pair(pair) => (pair.pivot.index() as u8 + 1, pair.child.index() as u8 + 1),
        Piece::Item(crate::game::Item::BigPuyo) => (9, 9),
        Piece::Item(crate::game::Item::Carbuncle) => (10, 10),
    }
}

impl MockGame {
    /// A game for `players` (1 = endless, 2 = versus) with `colors` colours, pieces seeded by `seed`.
    pub fn new(players: usize, colors: u8, seed: u64) -> MockGame {
        let mut g = MockGame {
            ram: Box::new([0; 2048]),
            players: players.clamp(1, 2),
            fields: [Field::new(); 2],
            pieces: RandomPieces::new(seed, colors),
            index: [0; 2],
            falling: [None; 2],
            spawn_delay: [SPAWN_DELAY; 2],
            drop_timer: [GRAVITY; 2],
            pads: [0; 2],
            prev: [0; 2],
            score: [0; 2],
            over: [false; 2],
            frame: 0,
            rules: Rules::puyo1(),
        };
        g.ram[0x6F] = if g.players == 2 { 2 } else { 0 };
        g.write_ram();
        g
    }

    /// Whether player `p` (0-based) has topped out.
    pub fn is_over(&self, p: usize) -> bool {
        self.over[p]
    }

    /// Player `p`'s field.
    pub fn field(&self, p: usize) -> &Field {
        &self.fields[p]
    }

    fn free(&self, p: usize, x: i8, y: i8) -> bool {
        (1..=WIDTH as i8).contains(&x)
            && (0..HEIGHT as i8).contains(&y)
            && self.fields[p].get(x as usize, y as usize) == Cell::Empty
    }

    fn fits(&self, p: usize, f: &Falling) -> bool {
        self.free(p, f.x, f.y) && self.free(p, f.x + f.o.dx(), f.y + f.o.dy())
    }

    fn rotate(&self, p: usize, f: Falling, o: Orientation) -> Option<Falling> {
        let turned = Falling { o, ..f };
        if self.fits(p, &turned) {
            return Some(turned);
        }
        let kicked = match o {
            Orientation::Left | Orientation::Right => Falling { x: f.x - o.dx(), ..turned },
            Orientation::Down => Falling { y: f.y - 1, ..turned },
            Orientation::Up => return None,
        };
        self.fits(p, &kicked).then_some(kicked)
    }

    fn step_player(&mut self, p: usize) {
        let pressed = self.pads[p] & !self.prev[p];
        if let Some(mut f) = self.falling[p] {
            if pressed & pad::LEFT != 0 && self.fits(p, &Falling { x: f.x - 1, ..f }) {
                f.x -= 1;
            }
            if pressed & pad::RIGHT != 0 && self.fits(p, &Falling { x: f.x + 1, ..f }) {
                f.x += 1;
            }
            if pressed & pad::A != 0
                && let Some(r) = self.rotate(p, f, f.o.clockwise())
            {
                f = r;
            }
            if pressed & pad::B != 0
                && let Some(r) = self.rotate(p, f, f.o.counter_clockwise())
            {
                f = r;
            }
            let soft = self.pads[p] & pad::DOWN != 0;
            self.drop_timer[p] = self.drop_timer[p].saturating_sub(if soft { GRAVITY } else { 1 });
            if self.drop_timer[p] == 0 {
                self.drop_timer[p] = GRAVITY;
                let lower = Falling { y: f.y + 1, ..f };
                if self.fits(p, &lower) {
                    f = lower;
                } else {
                    let placement = crate::game::Placement::new(f.x as u8, f.o);
                    let chains = match self.fields[p].play(f.piece, placement, &self.rules) {
                        Ok(s) => {
                            self.score[p] += s.score;
                            s.chains
                        }
                        Err(_) => 0,
                    };
                    self.falling[p] = None;
                    self.spawn_delay[p] = SPAWN_DELAY.saturating_add((chains * 10).min(200) as u8);
                    return;
                }
            }
            self.falling[p] = Some(f);
        } else if !self.over[p] {
            self.spawn_delay[p] = self.spawn_delay[p].saturating_sub(1);
            if self.spawn_delay[p] == 0 {
                if self.fields[p].get(self.rules.spawn_x as usize, self.rules.spawn_y as usize) != Cell::Empty {
                    self.over[p] = true;
                    self.spawn_delay[p] = 1;
                    return;
                }
                let piece = self.pieces.piece(self.index[p]);
                self.index[p] += 1;
                self.falling[p] = Some(Falling { piece, x: 3, y: 1, o: Orientation::Up });
                self.drop_timer[p] = GRAVITY;
                self.ram[0x605 + p] = 1;
                self.ram[0x4A] = 1;
            }
        }
    }

    fn write_ram(&mut self) {
        for p in 0..self.players {
            let base = 0x300 + 0x100 * p;
            for y in 0..HEIGHT {
                let row = base + 16 * y;
                self.ram[row] = 0;
                self.ram[row + 1] = 8;
                self.ram[row + 14] = 0;
                self.ram[row + 15] = 8;
                for x in 1..=WIDTH {
                    let code = match self.fields[p].get(x, y) {
                        Cell::Empty => 0,
                        Cell::Nuisance => 7,
                        Cell::Color(c) => c.index() as u8 + 1,
                    };
                    self.ram[row + 2 * x] = 0;
                    self.ram[row + 2 * x + 1] = code;
                }
            }
            let next = self.pieces.piece(self.index[p]);
            let (np, nc) = piece_codes(next);
            self.ram[0x67 + 2 * p] = np;
            self.ram[0x68 + 2 * p] = nc;
            if let Some(f) = self.falling[p] {
                let (cp, cc) = piece_codes(f.piece);
                self.ram[0x679 + p] = cp;
                self.ram[0x67D + p] = cc;
                self.ram[0x669 + p] = f.x as u8;
                self.ram[0x66D + p] = f.y as u8;
                self.ram[0x6D5 + p] = orientation_code(f.o);
            }
            self.ram[0x615 + p] = if self.falling[p].is_some() { 0 } else { self.spawn_delay[p].max(1) };
            self.ram[0x631 + p] = self.drop_timer[p];
            let s = (self.score[p] / 10).to_le_bytes();
            self.ram[0x7A + 3 * p..0x7A + 3 * p + 3].copy_from_slice(&s[..3]);
        }
    }
}

impl Machine for MockGame {
    fn ram(&self) -> &[u8; 2048] {
        &self.ram
    }

    fn set_pads(&mut self, pads: [u8; 2]) {
        self.pads = pads;
    }

    fn clock_frame(&mut self) -> Result<(), EmuError> {
        self.frame += 1;
        self.ram[0x4A] = 0;
        self.ram[0x605] = 0;
        self.ram[0x606] = 0;
        for p in 0..self.players {
            self.step_player(p);
        }
        self.prev = self.pads;
        self.write_ram();
        Ok(())
    }

    fn frame_number(&self) -> u32 {
        self.frame
    }
}

/// The colour a mock piece code stands for (code - 1), for tests.
pub fn color_of_code(code: u8) -> Option<Color> {
    code.checked_sub(1).and_then(Color::new)
}
