//! A tiny game for the learner's tests: pairs that fall, turn, kick and lock, written into RAM under any
//! contract (codes, colour byte, orientation values, which puyo X / Y follow, which way A turns).
//! Test-only; it plays by the cartridge contract's movement rules, not by the full game's.

use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

use crate::emu::pad;
use crate::game::Orientation;

/// A contract the tiny game writes RAM by.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Contract {
    pub empty: u8,
    /// Field codes of the six colours.
    pub colors: [u8; 6],
    /// Piece codes of the six colours.
    pub piece_colors: [u8; 6],
    pub nuisance: u8,
    pub big: u8,
    /// Orientation values of up, right, down, left.
    pub ori: [u8; 4],
    pub a_cw: bool,
    pub xy_child: bool,
    pub color_offset: usize,
    pub spawn: Orientation,
}

impl Contract {
    /// The best-guess contract.
    pub fn guess() -> Contract {
        Contract {
            empty: 0,
            colors: [1, 2, 3, 4, 5, 6],
            piece_colors: [1, 2, 3, 4, 5, 6],
            nuisance: 7,
            big: 9,
            ori: [2, 3, 0, 1],
            a_cw: true,
            xy_child: false,
            color_offset: 1,
            spawn: Orientation::Up,
        }
    }

    /// Any contract the open cartridge's builder can make (piece and field codes the same).
    pub fn random(seed: u64) -> Contract {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        loop {
            let empty = rng.random_range(0..64u8);
            let col1 = rng.random_range(0..58u8);
            let nuisance = rng.random_range(0..64u8);
            let big = rng.random_range(0..64u8);
            let colors: [u8; 6] = std::array::from_fn(|i| col1 + i as u8);
            let mut all: Vec<u8> = colors.to_vec();
            all.extend([empty, nuisance, big, 8]);
            let mut sorted = all.clone();
            sorted.sort();
            sorted.dedup();
            if sorted.len() != all.len() {
                continue;
            }
            let mut ori = [0u8, 1, 2, 3];
            for i in (1..4).rev() {
                ori.swap(i, rng.random_range(0..=i));
            }
            return Contract {
                empty,
                colors,
                piece_colors: colors,
                nuisance,
                big,
                ori,
                a_cw: rng.random_bool(0.5),
                xy_child: rng.random_bool(0.5),
                color_offset: rng.random_range(0..2),
                spawn: Orientation::ALL[rng.random_range(0..4)],
            };
        }
    }

    fn ori_value(&self, o: Orientation) -> u8 {
        self.ori[o.index()]
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Cell {
    Empty,
    Color(usize),
    Nuisance,
}

#[derive(Clone, Copy, Debug)]
struct Falling {
    pivot: usize,
    child: usize,
    big: bool,
    x: i32,
    y: i32,
    o: Orientation,
    fall: u32,
    rest: u32,
}

/// The tiny game for one player at the guessed file's P1 addresses.
pub struct Game {
    pub contract: Contract,
    field: [[Cell; 6]; 14],
    falling: Option<Falling>,
    delay: u32,
    last_pad: u8,
    rng: Xoshiro256PlusPlus,
    pub pieces: u32,
    pub ram: [u8; 2048],
    /// Every this many pieces a nuisance puyo falls after the lock (0: never).
    pub nuisance_every: u32,
    /// Every this many pieces the piece is a Big Puyo (0: never).
    pub big_every: u32,
    pub colours: usize,
    /// Blocked turns kick (sideways and up), as on the open cartridge.
    pub kicks: bool,
}

const BASE: usize = 0x300;

impl Game {
    /// A game under `contract`, its colours drawn from `seed`.
    pub fn new(contract: Contract, seed: u64) -> Game {
        let mut g = Game {
            contract,
            field: [[Cell::Empty; 6]; 14],
            falling: None,
            delay: 30,
            last_pad: 0,
            rng: Xoshiro256PlusPlus::seed_from_u64(seed),
            pieces: 0,
            ram: [0; 2048],
            nuisance_every: 0,
            big_every: 0,
            colours: 4,
            kicks: true,
        };
        g.write_ram();
        g
    }

    fn free(&self, x: i32, y: i32) -> bool {
        (1..=6).contains(&x) && (0..14).contains(&y) && self.field[y as usize][(x - 1) as usize] == Cell::Empty
    }

    fn fits(&self, f: &Falling, x: i32, y: i32, o: Orientation) -> bool {
        if f.big {
            return self.free(x, y) && self.free(x + 1, y) && self.free(x, y - 1) && self.free(x + 1, y - 1);
        }
        self.free(x, y) && self.free(x + o.dx() as i32, y + o.dy() as i32)
    }

    /// Runs one frame with pad 1 holding `pad`.
    pub fn frame(&mut self, pad_held: u8) {
        let new = pad_held & !self.last_pad;
        self.last_pad = pad_held;
        if let Some(mut f) = self.falling {
            if !f.big && new & (pad::A | pad::B) != 0 {
                let cw = (new & pad::A != 0) == self.contract.a_cw;
                let o = if cw { f.o.clockwise() } else { f.o.counter_clockwise() };
                if self.fits(&f, f.x, f.y, o) {
                    f.o = o;
                } else {
                    let (kx, ky) = match o {
                        Orientation::Right => (f.x - 1, f.y),
                        Orientation::Left => (f.x + 1, f.y),
                        Orientation::Down if f.y > 0 => (f.x, f.y - 1),
                        _ => (99, 99),
                    };
                    if self.kicks && kx != 99 && self.fits(&f, kx, ky, o) {
                        f.x = kx;
                        f.y = ky;
                        f.o = o;
                    }
                }
            }
            for (b, dx) in [(pad::LEFT, -1), (pad::RIGHT, 1)] {
                if new & b != 0 && self.fits(&f, f.x + dx, f.y, f.o) {
                    f.x += dx;
                }
            }
            let down = pad_held & pad::DOWN != 0;
            if self.fits(&f, f.x, f.y + 1, f.o) {
                f.rest = 0;
                f.fall += 1;
                if f.fall >= if down { 2 } else { 30 } {
                    f.fall = 0;
                    f.y += 1;
                }
                self.falling = Some(f);
            } else {
                f.rest += 1;
                if down || f.rest > 16 {
                    self.lock(&f);
                    self.falling = None;
                    self.delay = 10;
                } else {
                    self.falling = Some(f);
                }
            }
        } else if self.delay > 0 {
            self.delay -= 1;
            // Gravity while waiting: the lock wrote the cells where the pair was.
            self.gravity();
            if self.delay == 0 {
                self.spawn();
            }
        }
        self.write_ram();
    }

    fn lock(&mut self, f: &Falling) {
        if f.big {
            for x in [f.x, f.x + 1] {
                for row in self.field.iter_mut() {
                    row[(x - 1) as usize] = Cell::Empty;
                }
            }
            return;
        }
        self.field[f.y as usize][(f.x - 1) as usize] = Cell::Color(f.pivot);
        let (cx, cy) = (f.x + f.o.dx() as i32, f.y + f.o.dy() as i32);
        self.field[cy as usize][(cx - 1) as usize] = Cell::Color(f.child);
        if self.nuisance_every > 0 && self.pieces.is_multiple_of(self.nuisance_every) {
            // Falls on top later (gravity): put it in the hidden row of column 6.
            self.field[0][5] = Cell::Nuisance;
        }
    }

    fn gravity(&mut self) {
        for x in 0..6 {
            for y in (0..13).rev() {
                if self.field[y][x] != Cell::Empty && self.field[y + 1][x] == Cell::Empty {
                    self.field[y + 1][x] = self.field[y][x];
                    self.field[y][x] = Cell::Empty;
                }
            }
        }
    }

    fn spawn(&mut self) {
        self.pieces += 1;
        let big = self.big_every > 0 && self.pieces.is_multiple_of(self.big_every);
        let n = self.colours;
        let (pivot, child) = (self.rng.random_range(0..n), self.rng.random_range(0..n));
        let o = if big { Orientation::Up } else { self.contract.spawn };
        self.falling = Some(Falling { pivot, child, big, x: 3, y: 1, o, fall: 0, rest: 0 });
    }

    fn write_ram(&mut self) {
        let c = self.contract.clone();
        for y in 0..14 {
            for x in 0..8 {
                let a = BASE + 16 * y + 2 * x;
                let (b0, b1) = if x == 0 || x == 7 {
                    (0, 8)
                } else {
                    let code = match self.field[y][x - 1] {
                        Cell::Empty => c.empty,
                        Cell::Color(i) => c.colors[i],
                        Cell::Nuisance => c.nuisance,
                    };
                    if c.color_offset == 1 { (0, code) } else { (code, 0) }
                };
                self.ram[a] = b0;
                self.ram[a + 1] = b1;
            }
        }
        match self.falling {
            Some(f) => {
                let (p, ch) = if f.big { (c.big, c.big) } else { (c.piece_colors[f.pivot], c.piece_colors[f.child]) };
                self.ram[0x679] = p;
                self.ram[0x67D] = ch;
                let (x, y) =
                    if c.xy_child && !f.big { (f.x + f.o.dx() as i32, f.y + f.o.dy() as i32) } else { (f.x, f.y) };
                self.ram[0x669] = x as u8;
                self.ram[0x66D] = y as u8;
                self.ram[0x6D5] = c.ori_value(f.o);
                self.ram[0x615] = 0;
            }
            None => {
                self.ram[0x615] = self.delay.max(1) as u8;
            }
        }
    }
}
