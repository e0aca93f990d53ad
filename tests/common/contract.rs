//! The labcart's build-time contract: every value `src/labcart/build.sh --out FILE -- -D …` can
//! set, a seeded draw of any valid set, the build itself, and the `Variant` the `Lab` harness
//! needs to drive such a build. The meanings are documented in `src/labcart/README.md`
//! ("Contracts"); this file must stay in step with `src/labcart/defs.inc`.
#![allow(dead_code)]

use std::fmt;
use std::path::{Path, PathBuf};
use std::process::Command;

use rand::Rng;
use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_xoshiro::Xoshiro256PlusPlus;

use super::labcart::{Codes, Orients, Variant};

/// The wall code: fixed in every build (the walls are `00 08`).
pub const WALL: u8 = 8;

/// A direction from the pivot to the child.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dir {
    Down,
    Left,
    Up,
    Right,
}

impl Dir {
    /// All four, in the committed contract's numbering order (down 0, left 1, up 2, right 3).
    pub const ALL: [Dir; 4] = [Dir::Down, Dir::Left, Dir::Up, Dir::Right];

    /// The direction after a clockwise quarter turn (up → right → down → left → up).
    pub fn clockwise(self) -> Dir {
        match self {
            Dir::Up => Dir::Right,
            Dir::Right => Dir::Down,
            Dir::Down => Dir::Left,
            Dir::Left => Dir::Up,
        }
    }

    /// The direction after a counter-clockwise quarter turn.
    pub fn counter_clockwise(self) -> Dir {
        self.clockwise().clockwise().clockwise()
    }

    /// The name build.sh takes for `SPAWN_ORI`.
    pub fn name(self) -> &'static str {
        match self {
            Dir::Down => "down",
            Dir::Left => "left",
            Dir::Up => "up",
            Dir::Right => "right",
        }
    }

    /// (dx, dy) of the child from the pivot; y grows downwards.
    pub fn delta(self) -> (i32, i32) {
        match self {
            Dir::Down => (0, 1),
            Dir::Left => (-1, 0),
            Dir::Up => (0, -1),
            Dir::Right => (1, 0),
        }
    }
}

/// Every value a labcart build can be given (README "Contracts").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Contract {
    /// `CODE_EMPTY`: the code of an empty cell.
    pub empty: u8,
    /// `CODE_COL1`: the first colour code; the colours are `colour1..colour1 + 6`.
    pub colour1: u8,
    /// `CODE_NUIS`: nuisance.
    pub nuisance: u8,
    /// `CODE_BIG`: Big Puyo (piece bytes only; never in the field).
    pub big: u8,
    /// `CODE_CARB`: Carbuncle (piece bytes only; never in the field).
    pub carbuncle: u8,
    /// `ORI_DOWN`, `ORI_LEFT`, `ORI_UP`, `ORI_RIGHT`: the orientation value of each direction
    /// from the pivot to the child.
    pub orients: Orients,
    /// `A_CW`: A turns the pair clockwise (B counter-clockwise); false: the other way round.
    pub a_clockwise: bool,
    /// `XY_CHILD`: the X/Y bytes hold the child's cell; false: the pivot's.
    pub xy_child: bool,
    /// `COLOR_OFFSET`: the byte of a field cell holding the code (0 or 1); the other byte is 0.
    pub color_offset: u8,
    /// `SPAWN_ORI`: the direction from the pivot to the child when a pair spawns.
    pub spawn: Dir,
    /// `KICK_SIDE`: a turn blocked sideways moves the pivot one column away; false: it is refused.
    pub kick_side: bool,
    /// `KICK_UP`: a turn blocked below lifts the pivot one row; false: it is refused.
    pub kick_up: bool,
    /// `NEXT_LAG`: frames (0..=30) the next-pair bytes keep showing the pair that just spawned.
    pub next_lag: u8,
    /// `NEXT_TABLE`: the next-pair bytes' code table: 0 the field's codes, 1 colour index 0..5 (Big Puyo
    /// $40, Carbuncle $41, no piece $FF), 2 every code XOR $20. See `next_code`.
    pub next_table: u8,
    /// `MODE_LATE`: the mode byte is written only when a game starts, not while the menu changes it.
    pub mode_late: bool,
    /// `ITEMS_AT_BOOT`: the ITEM option at power-on (0 off, 1 Big Puyo, 2 Carbuncle, 3 both by turns).
    pub items_at_boot: u8,
    /// `ORI_STEP` (1..=64) and `ORI_BASE`: the orientation byte holds `ori_base + ori_step * v` where
    /// v is the `orients` value; see `published_orients`.
    pub ori_step: u8,
    pub ori_base: u8,
    /// `X_BASE` (0..=64): the X byte holds column − 1 + `x_base` (1: columns 1..6).
    pub x_base: u8,
    /// `Y_BASE` (0..=64): the Y byte holds row + `y_base` (0: rows 0..13).
    pub y_base: u8,
    /// `TIMER_RESOLVE0`: the spawn-delay byte is 0 while a lock resolves, non-zero only while counting
    /// down to a spawn.
    pub timer_resolve0: bool,
    /// `POSE_LATE` (0..=8): frames after a spawn before the pose and current-pair bytes take the new
    /// piece's values; the piece ignores the pad and does not fall until then.
    pub pose_late: u8,
    /// `COLOR_BITS` (0 or 1): 1 ORs each colour cell's link bits (see `link_bits`) into its code byte;
    /// every code is then below 16.
    pub color_bits: u8,
    /// `OTHER_BITS`: the other byte of each cell holds its link bits instead of 0.
    pub other_bits: bool,
    /// `FALL_FRAMES` (1..=99): frames per row of gravity at level 0.
    pub fall_frames: u8,
    /// `FALL_STEP` (0..=99): frames per row the gravity loses each level (needs `level_pieces` > 0).
    pub fall_step: u8,
    /// `FALL_MIN` (1..=`fall_frames`): the fastest gravity the curve reaches.
    pub fall_min: u8,
    /// `FALL_FAST` (1..=`fall_min`): frames per row with Down held.
    pub fall_fast: u8,
    /// `LEVEL_PIECES` (0..=255): the level byte ($0070) rises every this many pieces; 0: it stays 0.
    pub level_pieces: u8,
    /// `LOCK_DELAY` (0..=255): frames a landed piece waits before it locks; 0: it locks on the frame it
    /// cannot fall further.
    pub lock_delay: u8,
    /// `LOCK_MOVES`: the pad moves and turns a landed piece while it waits; false: it ignores them.
    pub lock_moves: bool,
    /// `INPUT_LAG` (0..=8): frames between a press and its effect on the falling piece.
    pub input_lag: u8,
    /// `PAIR_SWAP`: the current-pair bytes the other way round (the byte the address files call
    /// `current_pivot` holds the child's code, `current_child` the pivot's).
    pub pair_swap: bool,
}

/// Why a build did not produce a ROM.
#[derive(Debug)]
pub enum BuildError {
    /// `ca65` is not installed (Debian package cc65); see `common::tools` for what a test does then.
    NoAssembler,
    /// build.sh refused the values or failed; its messages.
    Rejected(String),
    /// Running build.sh or reading its output failed.
    Io(String),
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BuildError::NoAssembler => write!(f, "ca65 not found (install the cc65 package)"),
            BuildError::Rejected(m) => write!(f, "src/labcart/build.sh refused the contract:\n{m}"),
            BuildError::Io(m) => write!(f, "{m}"),
        }
    }
}

impl std::error::Error for BuildError {}

impl Contract {
    /// The committed `puyolab.nes` contract.
    pub const DEFAULT: Contract = Contract {
        empty: 0,
        colour1: 1,
        nuisance: 7,
        big: 9,
        carbuncle: 10,
        orients: Orients::CONTRACT,
        a_clockwise: true,
        xy_child: false,
        color_offset: 1,
        spawn: Dir::Up,
        kick_side: true,
        kick_up: true,
        next_lag: 0,
        next_table: 0,
        mode_late: false,
        items_at_boot: 0,
        ori_step: 1,
        ori_base: 0,
        x_base: 1,
        y_base: 0,
        timer_resolve0: false,
        pose_late: 0,
        color_bits: 0,
        other_bits: false,
        fall_frames: 30,
        fall_step: 0,
        fall_min: 30,
        fall_fast: 2,
        level_pieces: 0,
        lock_delay: 16,
        lock_moves: true,
        input_lag: 0,
        pair_swap: false,
    };

    /// Two fixed edge cases, with the code in a cell's first byte (where the walls have their 00):
    /// a colour code 0, and a nuisance code 0.
    pub const EDGE_CASES: [Contract; 2] = [
        Contract {
            empty: 63,
            colour1: 0,
            nuisance: 40,
            big: 9,
            carbuncle: 7,
            orients: Orients { down: 3, left: 1, up: 0, right: 2 },
            a_clockwise: false,
            xy_child: true,
            color_offset: 0,
            spawn: Dir::Down,
            kick_side: false,
            kick_up: false,
            ..Contract::DEFAULT
        },
        Contract {
            empty: 12,
            colour1: 20,
            nuisance: 0,
            big: 1,
            carbuncle: 2,
            orients: Orients { down: 1, left: 2, up: 3, right: 0 },
            a_clockwise: true,
            xy_child: false,
            color_offset: 0,
            spawn: Dir::Right,
            kick_side: true,
            kick_up: false,
            ..Contract::DEFAULT
        },
    ];

    /// Any valid contract, drawn uniformly per value from a Xoshiro256++ seeded with `seed`:
    /// the colour range first, then the other codes among what is left, a random permutation of
    /// the orientation values, coin flips for the switches, and any spawn direction (the kick switches
    /// are drawn last, so the other values of a seed are those drawn before kicks could vary).
    pub fn random(seed: u64) -> Contract {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        // colour ranges that keep clear of the wall code and below 64
        let starts: Vec<u8> = (0..=58u8).filter(|c| !(*c..*c + 6).contains(&WALL)).collect();
        let colour1 = starts[rng.random_range(0..starts.len())];
        let mut taken: Vec<u8> = (colour1..colour1 + 6).chain([WALL]).collect();
        let mut draw = |rng: &mut Xoshiro256PlusPlus| {
            let free: Vec<u8> = (0..64u8).filter(|c| !taken.contains(c)).collect();
            let c = free[rng.random_range(0..free.len())];
            taken.push(c);
            c
        };
        let empty = draw(&mut rng);
        let nuisance = draw(&mut rng);
        let big = draw(&mut rng);
        let carbuncle = draw(&mut rng);
        let mut values = [0u8, 1, 2, 3];
        values.shuffle(&mut rng);
        let orients = Orients { down: values[0], left: values[1], up: values[2], right: values[3] };
        let a_clockwise = rng.random_bool(0.5);
        let xy_child = rng.random_bool(0.5);
        let color_offset = rng.random_range(0..2);
        let spawn = Dir::ALL[rng.random_range(0..4)];
        Contract {
            empty,
            colour1,
            nuisance,
            big,
            carbuncle,
            orients,
            a_clockwise,
            xy_child,
            color_offset,
            spawn,
            kick_side: rng.random_bool(0.5),
            kick_up: rng.random_bool(0.5),
            ..Contract::DEFAULT
        }
    }

    /// `random(seed)` (the same values), plus the axes `random` leaves at their defaults (next-byte
    /// lag and code table, the late mode byte, the power-on ITEM option, orientation and X/Y
    /// numbering, the spawn-delay byte during resolution, the late pose bytes, the link bits, the
    /// current-pair byte order), drawn
    /// from a second Xoshiro256++ seeded with `seed ^ EXTENDED_SALT`. When `COLOR_BITS = 1` is drawn,
    /// the codes are drawn again below 16 (the other values stay `random`'s).
    pub fn random_extended(seed: u64) -> Contract {
        let mut c = Contract::random(seed);
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed ^ Self::EXTENDED_SALT);
        c.next_lag = if rng.random_bool(0.5) { rng.random_range(1..=30) } else { 0 };
        c.next_table = rng.random_range(0..=2);
        c.mode_late = rng.random_bool(0.5);
        c.items_at_boot = rng.random_range(0..=2);
        c.ori_step = [1, 1, 2, 4, 8, 16, 64][rng.random_range(0..7)];
        c.ori_base = if rng.random_bool(0.5) { 0 } else { rng.random_range(0..=255 - 3 * c.ori_step as u32) as u8 };
        c.x_base = [1, 1, 0, 2, 8, 16][rng.random_range(0..6)];
        c.y_base = [0, 0, 1, 2, 8, 16][rng.random_range(0..6)];
        c.timer_resolve0 = rng.random_bool(0.5);
        c.pose_late = if rng.random_bool(0.5) { rng.random_range(1..=8) } else { 0 };
        c.other_bits = rng.random_bool(0.5);
        if rng.random_bool(0.5) {
            // link bits in the code byte: every code below 16, drawn again (colours clear of the wall 8)
            c.color_bits = 1;
            let starts = [0u8, 1, 2, 9, 10];
            c.colour1 = starts[rng.random_range(0..starts.len())];
            let mut free: Vec<u8> =
                (0..16u8).filter(|k| *k != WALL && !(c.colour1..c.colour1 + 6).contains(k)).collect();
            free.shuffle(&mut rng);
            (c.empty, c.nuisance, c.big, c.carbuncle) = (free[0], free[1], free[2], free[3]);
        }
        // drawn last, so the values above are those of the draws made before the byte order could vary
        c.pair_swap = rng.random_bool(0.5);
        c
    }

    /// Mixed into the seed of `random_extended`'s second generator.
    const EXTENDED_SALT: u64 = 0xE87E_4DED_0000_0001;

    /// `random_extended(seed)` (the same values) with the timing axes drawn too (gravity, its curve by
    /// level, soft drop, lock delay and moves during it, input lag), from a third Xoshiro256++ seeded with
    /// `seed ^ TIMING_SALT`. Kept apart from `random_extended`, whose draws the calibration classes
    /// play: calibration does not learn the timing yet.
    pub fn random_timing(seed: u64) -> Contract {
        let mut c = Contract::random_extended(seed);
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed ^ Self::TIMING_SALT);
        c.fall_frames = [30, 30, 20, 12, 8, 4, 2, 1][rng.random_range(0..8)];
        if rng.random_bool(0.5) {
            c.level_pieces = rng.random_range(1..=32);
            c.fall_step = rng.random_range(0..=4).min(c.fall_frames - 1);
            c.fall_min = if c.fall_step == 0 { c.fall_frames } else { rng.random_range(1..=c.fall_frames.min(8)) };
        } else {
            c.fall_min = c.fall_frames;
        }
        c.fall_fast = rng.random_range(1..=c.fall_min.min(4));
        c.lock_delay = [0, 0, 1, 2, 8, 16, 16, 32][rng.random_range(0..8)];
        c.lock_moves = rng.random_bool(0.5);
        c.input_lag = [0, 0, 1, 2, 4, 8][rng.random_range(0..6)];
        c
    }

    /// Mixed into the seed of `random_timing`'s third generator.
    const TIMING_SALT: u64 = 0x7141_E000_0000_0002;

    /// Frames per row of gravity for the `k`-th piece of a game (1-based, both players counted):
    /// level `(k - 1) / level_pieces`, `fall_step` frames faster per level, never below `fall_min`.
    pub fn gravity_of_piece(&self, k: u32) -> u8 {
        if self.level_pieces == 0 {
            return self.fall_frames;
        }
        let level = ((k - 1) / self.level_pieces as u32).min(255);
        (self.fall_frames as u32).saturating_sub(self.fall_step as u32 * level).max(self.fall_min as u32) as u8
    }

    /// The colour codes, lowest first.
    pub fn colours(&self) -> [u8; 6] {
        std::array::from_fn(|i| self.colour1 + i as u8)
    }

    /// The value the next-pair bytes show for a piece code (`CODE_EMPTY` when there is no next piece).
    pub fn next_code(&self, code: u8) -> u8 {
        match self.next_table {
            0 => code,
            1 if self.colours().contains(&code) => code - self.colour1,
            1 if code == self.big => 0x40,
            1 if code == self.carbuncle => 0x41,
            1 => 0xFF,
            _ => code ^ 0x20,
        }
    }

    /// The link bits of every cell of a field of codes (rows 0..13 × columns 1..6): for a colour cell
    /// $10 / $20 / $40 / $80 when the cell above / right / below / left holds the same colour; 0 for
    /// empty and nuisance cells.
    pub fn link_bits(&self, codes: &[[u8; 6]; 14]) -> [[u8; 6]; 14] {
        let mut links = [[0u8; 6]; 14];
        for y in 0..14 {
            for x in 0..6 {
                let k = codes[y][x];
                if !self.colours().contains(&k) {
                    continue;
                }
                let same = |yy: Option<usize>, xx: Option<usize>| match (yy, xx) {
                    (Some(yy), Some(xx)) if yy < 14 && xx < 6 => codes[yy][xx] == k,
                    _ => false,
                };
                let mut l = 0;
                if same(y.checked_sub(1), Some(x)) {
                    l |= 0x10;
                }
                if same(Some(y), Some(x + 1)) {
                    l |= 0x20;
                }
                if same(Some(y + 1), Some(x)) {
                    l |= 0x40;
                }
                if same(Some(y), x.checked_sub(1)) {
                    l |= 0x80;
                }
                links[y][x] = l;
            }
        }
        links
    }

    /// The values the orientation byte holds for each direction: `ori_base + ori_step * v` for the
    /// `orients` value v (the `orients` themselves with the defaults).
    pub fn published_orients(&self) -> Orients {
        let o = self.orients;
        let f = |v: u8| self.ori_base + self.ori_step * v;
        Orients { down: f(o.down), left: f(o.left), up: f(o.up), right: f(o.right) }
    }

    /// The orientation byte's value when a pair spawns.
    pub fn spawn_value(&self) -> u8 {
        self.published_orients().value(self.spawn)
    }

    /// The orientation byte's value after pressing A (`a == true`) or B once with nothing in the way,
    /// from the byte's value `orient`.
    pub fn turned(&self, orient: u8, a: bool) -> u8 {
        let o = self.published_orients();
        let d = o.dir(orient);
        let cw = a == self.a_clockwise;
        o.value(if cw { d.clockwise() } else { d.counter_clockwise() })
    }

    /// The same checks defs.inc makes; `Err` names the first broken rule.
    pub fn validate(&self) -> Result<(), String> {
        let c1 = self.colour1 as u32;
        if c1 + 5 > 63 {
            return Err(format!("CODE_COL1 = {c1}: colours {c1}..{} pass 63", c1 + 5));
        }
        if (c1..=c1 + 5).contains(&(WALL as u32)) {
            return Err(format!("CODE_COL1 = {c1}: a colour code equals the wall code 8"));
        }
        let named = [
            ("CODE_EMPTY", self.empty),
            ("CODE_NUIS", self.nuisance),
            ("CODE_BIG", self.big),
            ("CODE_CARB", self.carbuncle),
        ];
        for (i, (name, v)) in named.iter().enumerate() {
            if *v > 63 || *v == WALL {
                return Err(format!("{name} = {v}: must be below 64 and not the wall code 8"));
            }
            if self.colours().contains(v) {
                return Err(format!("{name} = {v} is a colour code"));
            }
            if let Some((other, _)) = named[..i].iter().find(|(_, w)| w == v) {
                return Err(format!("{name} and {other} are both {v}"));
            }
        }
        let o = self.orients;
        let mut vals = [o.down, o.left, o.up, o.right];
        vals.sort_unstable();
        if vals != [0, 1, 2, 3] {
            return Err(format!(
                "ORI_DOWN/LEFT/UP/RIGHT = {}/{}/{}/{} is not a permutation of 0..3",
                o.down, o.left, o.up, o.right
            ));
        }
        if self.color_offset > 1 {
            return Err(format!("COLOR_OFFSET = {} must be 0 or 1", self.color_offset));
        }
        if self.next_lag > 30 {
            return Err(format!("NEXT_LAG = {} is outside 0..30", self.next_lag));
        }
        if self.next_table > 2 {
            return Err(format!("NEXT_TABLE = {} must be 0, 1 or 2", self.next_table));
        }
        if self.items_at_boot > 3 {
            return Err(format!("ITEMS_AT_BOOT = {} must be 0, 1, 2 or 3", self.items_at_boot));
        }
        if !(1..=64).contains(&self.ori_step) {
            return Err(format!("ORI_STEP = {} is outside 1..64", self.ori_step));
        }
        if self.ori_base as u32 + 3 * self.ori_step as u32 > 255 {
            return Err(format!(
                "ORI_BASE = {} with ORI_STEP = {} puts an orientation value above 255",
                self.ori_base, self.ori_step
            ));
        }
        if self.color_bits > 1 {
            return Err(format!("COLOR_BITS = {} must be 0 or 1", self.color_bits));
        }
        if self.color_bits == 1 {
            let codes = [self.empty, self.colour1 + 5, self.nuisance, self.big, self.carbuncle];
            if let Some(k) = codes.iter().find(|k| **k > 15) {
                return Err(format!("COLOR_BITS = 1 needs every code below 16, not {k}"));
            }
        }
        if self.pose_late > 8 {
            return Err(format!("POSE_LATE = {} is outside 0..8", self.pose_late));
        }
        if self.x_base > 64 || self.y_base > 64 {
            return Err(format!("X_BASE = {} / Y_BASE = {}: both must be 0..64", self.x_base, self.y_base));
        }
        if !(1..=99).contains(&self.fall_frames) {
            return Err(format!("FALL_FRAMES = {} is outside 1..99", self.fall_frames));
        }
        if !(1..=self.fall_frames).contains(&self.fall_min) {
            return Err(format!("FALL_MIN = {} must be 1..FALL_FRAMES ({})", self.fall_min, self.fall_frames));
        }
        if !(1..=self.fall_min).contains(&self.fall_fast) {
            return Err(format!("FALL_FAST = {} must be 1..FALL_MIN ({})", self.fall_fast, self.fall_min));
        }
        if self.fall_step > 99 {
            return Err(format!("FALL_STEP = {} is outside 0..99", self.fall_step));
        }
        if self.input_lag > 8 {
            return Err(format!("INPUT_LAG = {} is outside 0..8", self.input_lag));
        }
        if self.fall_step > 0 && self.level_pieces == 0 {
            return Err(format!("FALL_STEP = {} needs LEVEL_PIECES > 0", self.fall_step));
        }
        Ok(())
    }

    /// The arguments after `--` for build.sh: every value, explicitly.
    pub fn defines(&self) -> Vec<String> {
        let o = self.orients;
        let pairs = [
            ("CODE_EMPTY", self.empty.to_string()),
            ("CODE_COL1", self.colour1.to_string()),
            ("CODE_NUIS", self.nuisance.to_string()),
            ("CODE_BIG", self.big.to_string()),
            ("CODE_CARB", self.carbuncle.to_string()),
            ("ORI_DOWN", o.down.to_string()),
            ("ORI_LEFT", o.left.to_string()),
            ("ORI_UP", o.up.to_string()),
            ("ORI_RIGHT", o.right.to_string()),
            ("A_CW", u8::from(self.a_clockwise).to_string()),
            ("XY_CHILD", u8::from(self.xy_child).to_string()),
            ("COLOR_OFFSET", self.color_offset.to_string()),
            ("SPAWN_ORI", self.spawn.name().to_string()),
            ("KICK_SIDE", u8::from(self.kick_side).to_string()),
            ("KICK_UP", u8::from(self.kick_up).to_string()),
            ("NEXT_LAG", self.next_lag.to_string()),
            ("NEXT_TABLE", self.next_table.to_string()),
            ("MODE_LATE", u8::from(self.mode_late).to_string()),
            ("ITEMS_AT_BOOT", self.items_at_boot.to_string()),
            ("ORI_STEP", self.ori_step.to_string()),
            ("ORI_BASE", self.ori_base.to_string()),
            ("X_BASE", self.x_base.to_string()),
            ("Y_BASE", self.y_base.to_string()),
            ("TIMER_RESOLVE0", u8::from(self.timer_resolve0).to_string()),
            ("POSE_LATE", self.pose_late.to_string()),
            ("COLOR_BITS", self.color_bits.to_string()),
            ("OTHER_BITS", u8::from(self.other_bits).to_string()),
            ("FALL_FRAMES", self.fall_frames.to_string()),
            ("FALL_STEP", self.fall_step.to_string()),
            ("FALL_MIN", self.fall_min.to_string()),
            ("FALL_FAST", self.fall_fast.to_string()),
            ("LEVEL_PIECES", self.level_pieces.to_string()),
            ("LOCK_DELAY", self.lock_delay.to_string()),
            ("LOCK_MOVES", u8::from(self.lock_moves).to_string()),
            ("INPUT_LAG", self.input_lag.to_string()),
            ("PAIR_SWAP", u8::from(self.pair_swap).to_string()),
        ];
        pairs.into_iter().flat_map(|(k, v)| ["-D".to_string(), format!("{k}={v}")]).collect()
    }

    /// Build this contract into `out` with `src/labcart/build.sh --out out -- -D …`.
    pub fn build(&self, out: &Path) -> Result<(), BuildError> {
        build_with(out, &self.defines())
    }

    /// Build into `target/labcart-contracts/<name>.nes` and return the ROM bytes.
    pub fn build_rom(&self, name: &str) -> Result<Vec<u8>, BuildError> {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target").join("labcart-contracts");
        std::fs::create_dir_all(&dir).map_err(|e| BuildError::Io(format!("{}: {e}", dir.display())))?;
        let out = dir.join(format!("{name}.nes"));
        self.build(&out)?;
        std::fs::read(&out).map_err(|e| BuildError::Io(format!("{}: {e}", out.display())))
    }

    /// What the `Lab` harness needs to read this build's RAM and steer its pieces.
    pub fn lab_variant(&self) -> Variant {
        Variant {
            codes: Codes {
                empty: self.empty,
                colour1: self.colour1,
                nuisance: self.nuisance,
                wall: WALL,
                big: self.big,
                carbuncle: self.carbuncle,
            },
            orients: self.published_orients(),
            a_clockwise: self.a_clockwise,
            xy_child: self.xy_child,
            color_offset: self.color_offset,
            items_at_boot: self.items_at_boot,
            x_base: self.x_base,
            y_base: self.y_base,
            timer_resolve0: self.timer_resolve0,
            pose_late: self.pose_late,
            color_bits: self.color_bits,
            pair_swap: self.pair_swap,
        }
    }
}

impl fmt::Display for Contract {
    /// The build.sh defines, as one would type them.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.defines().join(" "))
    }
}

/// Run build.sh with arbitrary defines (for tests of its refusals too).
pub fn build_with(out: &Path, defines: &[String]) -> Result<(), BuildError> {
    if Command::new("ca65").arg("--version").output().is_err() {
        return Err(BuildError::NoAssembler);
    }
    let script: PathBuf = Path::new(env!("CARGO_MANIFEST_DIR")).join("src").join("labcart").join("build.sh");
    let res = Command::new("bash")
        .arg(&script)
        .arg("--out")
        .arg(out)
        .arg("--")
        .args(defines)
        .output()
        .map_err(|e| BuildError::Io(format!("running {}: {e}", script.display())))?;
    if res.status.success() {
        Ok(())
    } else {
        Err(BuildError::Rejected(String::from_utf8_lossy(&res.stderr).into_owned()))
    }
}
