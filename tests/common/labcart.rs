//! Reusable harness for driving the labcart (src/labcart/*.nes) through tetanes-core.
//!
//! Everything works closed-loop on RAM: boot through the menu script, wait until a piece is
//! controllable, read the field, steer the piece to (column, orientation) by pressing buttons
//! frame by frame, hard-drop with Down, and wait for the next controllable piece.
#![allow(dead_code)]

use tetanes_core::input::JoypadBtnState;
use tetanes_core::prelude::*;
use tetanes_core::video::VideoFilter;

pub use super::contract::Dir;

pub const ROM_CONTRACT: &[u8] = include_bytes!("../../src/labcart/puyolab.nes");
pub const ROM_CODES: &[u8] = include_bytes!("../../src/labcart/puyolab-codes.nes");
pub const ROM_ORIENT: &[u8] = include_bytes!("../../src/labcart/puyolab-orient.nes");
pub const ROM_FIXED: &[u8] = include_bytes!("../../src/labcart/puyolab-fixed.nes");

/// Button bits as tetanes-core's `JoypadBtnState` numbers them.
pub use puyobot::emu::pad as btn;

/// RAM addresses (contract and labcart-only).
pub mod addr {
    pub const SPAWN_ANY: u16 = 0x004A;
    pub const NEXT_PIVOT: [u16; 2] = [0x0067, 0x0069];
    pub const NEXT_CHILD: [u16; 2] = [0x0068, 0x006A];
    pub const MODE: u16 = 0x006F;
    pub const LEVEL: u16 = 0x0070;
    pub const SCORE: [u16; 2] = [0x007A, 0x007D];
    pub const CHAIN: [u16; 2] = [0x0080, 0x0081];
    pub const PENDING: [u16; 2] = [0x0082, 0x0084];
    pub const FIELD: [u16; 2] = [0x0300, 0x0400];
    pub const SPAWNED: [u16; 2] = [0x0605, 0x0606];
    pub const SPAWN_DELAY: [u16; 2] = [0x0615, 0x0616];
    pub const DROP_TIMER: [u16; 2] = [0x0631, 0x0632];
    pub const SPRITE_X: [u16; 2] = [0x0645, 0x0646];
    pub const SPRITE_Y: [u16; 2] = [0x064D, 0x064E];
    pub const X: [u16; 2] = [0x0669, 0x066A];
    pub const Y: [u16; 2] = [0x066D, 0x066E];
    pub const CUR_PIVOT: [u16; 2] = [0x0679, 0x067A];
    pub const CUR_CHILD: [u16; 2] = [0x067D, 0x067E];
    pub const ORIENT: [u16; 2] = [0x06D5, 0x06D6];
    // labcart-only
    pub const ITEM_OPTION: u16 = 0x0090;
    pub const COLOURS: u16 = 0x0091;
    pub const GAME_STATE: u16 = 0x0092;
    pub const WINNER: u16 = 0x0093;
    pub const PAUSED: u16 = 0x0094;
    pub const PLAYER_STATE: [u16; 2] = [0x0096, 0x0097];
}

/// Game states at $0092.
pub mod gstate {
    pub const TITLE: u8 = 0;
    pub const MENU: u8 = 1;
    pub const PLAY: u8 = 2;
    pub const OVER: u8 = 3;
}

/// Cell / piece codes of one ROM variant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Codes {
    pub empty: u8,
    pub colour1: u8,
    pub nuisance: u8,
    pub wall: u8,
    pub big: u8,
    pub carbuncle: u8,
}

impl Codes {
    pub const CONTRACT: Codes = Codes { empty: 0, colour1: 1, nuisance: 7, wall: 8, big: 9, carbuncle: 10 };
    pub const ALT: Codes = Codes { empty: 0, colour1: 0x11, nuisance: 0x20, wall: 8, big: 0x30, carbuncle: 0x31 };
    pub fn is_colour(&self, c: u8) -> bool {
        c >= self.colour1 && c < self.colour1 + 6
    }
    /// An item code (Big Puyo or Carbuncle).
    pub fn is_item(&self, c: u8) -> bool {
        c == self.big || c == self.carbuncle
    }
}

/// Orientation numbering (direction from pivot to child) of one ROM variant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Orients {
    pub down: u8,
    pub left: u8,
    pub up: u8,
    pub right: u8,
}

impl Orients {
    pub const CONTRACT: Orients = Orients { down: 0, left: 1, up: 2, right: 3 };
    pub const ALT: Orients = Orients { down: 2, left: 3, up: 0, right: 1 };
    /// The orientation value of a direction.
    pub fn value(&self, d: Dir) -> u8 {
        match d {
            Dir::Down => self.down,
            Dir::Left => self.left,
            Dir::Up => self.up,
            Dir::Right => self.right,
        }
    }
    /// The direction an orientation value names (values above 3 read as right, like `delta`).
    pub fn dir(&self, o: u8) -> Dir {
        Dir::ALL.into_iter().find(|d| self.value(*d) == o).unwrap_or(Dir::Right)
    }
    /// (dx, dy) from the pivot to the child for orientation value `o`.
    pub fn delta(&self, o: u8) -> (i32, i32) {
        if o == self.down {
            (0, 1)
        } else if o == self.left {
            (-1, 0)
        } else if o == self.up {
            (0, -1)
        } else {
            (1, 0)
        }
    }
}

/// What the harness must know about one build to read its RAM and steer its pieces.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Variant {
    pub codes: Codes,
    /// The orientation byte's value of each direction (as published: with a contract's
    /// `ORI_STEP`/`ORI_BASE` applied).
    pub orients: Orients,
    /// A turns the pair clockwise (B the other way).
    pub a_clockwise: bool,
    /// The X/Y bytes hold the child's cell instead of the pivot's.
    pub xy_child: bool,
    /// Byte of a field cell that holds the code (0 or 1).
    pub color_offset: u8,
    /// The ITEM option at power-on (0 off, 1 Big Puyo, 2 Carbuncle); `boot` presses from there.
    pub items_at_boot: u8,
    /// The X byte holds column − 1 + `x_base`, the Y byte row + `y_base`.
    pub x_base: u8,
    pub y_base: u8,
    /// The spawn-delay byte is 0 while a lock resolves too: `controllable` also asks the
    /// labcart-only player state.
    pub timer_resolve0: bool,
    /// Frames after a spawn before the pose bytes are the new piece's and it takes input: a
    /// `Placer` waits that long once the piece is controllable.
    pub pose_late: u8,
    /// 1: the code byte also holds link bits (bits 4..7): `field` keeps bits 0..3.
    pub color_bits: u8,
    /// The current-pair bytes the other way round: the pivot's code is in the "current child" byte.
    pub pair_swap: bool,
}

impl Variant {
    pub const CONTRACT: Variant = Variant {
        codes: Codes::CONTRACT,
        orients: Orients::CONTRACT,
        a_clockwise: true,
        xy_child: false,
        color_offset: 1,
        items_at_boot: 0,
        x_base: 1,
        y_base: 0,
        timer_resolve0: false,
        pose_late: 0,
        color_bits: 0,
        pair_swap: false,
    };
    pub const CODES: Variant = Variant { codes: Codes::ALT, ..Variant::CONTRACT };
    pub const ORIENT: Variant = Variant { orients: Orients::ALT, ..Variant::CONTRACT };
}

/// Menu choices; `Lab::boot` walks the documented menu script to reach them.
#[derive(Clone, Copy, Debug)]
pub struct MenuChoice {
    pub two_player: bool,
    /// 0 off, 1 Big Puyo, 2 Carbuncle
    pub item: u8,
    /// 3..=6
    pub colours: u8,
}

impl MenuChoice {
    pub const ONE_P: MenuChoice = MenuChoice { two_player: false, item: 0, colours: 4 };
    pub const TWO_P: MenuChoice = MenuChoice { two_player: true, item: 0, colours: 4 };
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Piece {
    pub x: u8,
    pub y: u8,
    pub orient: u8,
    pub pivot: u8,
    pub child: u8,
}

pub struct Lab {
    pub deck: ControlDeck,
    pub v: Variant,
    pads: [u8; 2],
}

impl Lab {
    pub fn new(rom: &[u8], v: Variant) -> Lab {
        let cfg = Config::default()
            .with_ram_state(RamState::AllZeros)
            .with_sram_dir(None)
            .with_filter(VideoFilter::Pixellate);
        let mut deck = ControlDeck::with_config(cfg);
        deck.load_rom("labcart", &mut &rom[..]).expect("load labcart");
        Lab { deck, v, pads: [0, 0] }
    }

    /// Set both pads (tetanes bit numbering) and run one frame.
    pub fn frame(&mut self, p1: u8, p2: u8) {
        self.pads = [p1, p2];
        self.deck.joypad_mut(Player::One).buttons = JoypadBtnState::from_bits_truncate(p1 as u16);
        self.deck.joypad_mut(Player::Two).buttons = JoypadBtnState::from_bits_truncate(p2 as u16);
        let _ = self.deck.clock_frame().expect("clock_frame");
    }

    pub fn idle(&mut self, n: usize) {
        for _ in 0..n {
            self.frame(0, 0);
        }
    }

    /// Press `b` on pad 1 for one frame, then release for `gap` frames.
    pub fn tap(&mut self, b: u8, gap: usize) {
        self.frame(b, 0);
        self.idle(gap);
    }

    pub fn ram(&self, a: u16) -> u8 {
        self.deck.wram()[(a & 0x7FF) as usize]
    }

    pub fn poke(&mut self, a: u16, v: u8) {
        self.deck.wram_mut()[(a & 0x7FF) as usize] = v;
    }

    pub fn score(&self, p: usize) -> u32 {
        let a = addr::SCORE[p];
        self.ram(a) as u32 | (self.ram(a + 1) as u32) << 8 | (self.ram(a + 2) as u32) << 16
    }

    pub fn pending(&self, p: usize) -> u16 {
        let a = addr::PENDING[p];
        self.ram(a) as u16 | (self.ram(a + 1) as u16) << 8
    }

    pub fn game_state(&self) -> u8 {
        self.ram(addr::GAME_STATE)
    }

    /// The documented menu script: from power-on, wait 10 frames, Start (title -> menu),
    /// Right on MODE toggles 1P/2P, Down, Right x item (from the power-on ITEM option), Down, Right x (colours - 4) mod 4, Start.
    pub fn boot(&mut self, m: MenuChoice) {
        self.idle(10);
        assert_eq!(self.game_state(), gstate::TITLE, "title after 10 frames");
        self.tap(btn::START, 2);
        assert_eq!(self.game_state(), gstate::MENU, "menu after Start");
        if m.two_player {
            self.tap(btn::RIGHT, 1);
        }
        self.tap(btn::DOWN, 1);
        for _ in 0..(m.item as i32 - self.v.items_at_boot as i32).rem_euclid(3) {
            self.tap(btn::RIGHT, 1);
        }
        self.tap(btn::DOWN, 1);
        for _ in 0..(m.colours as i32 - 4).rem_euclid(4) {
            self.tap(btn::RIGHT, 1);
        }
        self.tap(btn::START, 1);
        assert_eq!(self.game_state(), gstate::PLAY, "play after Start");
    }

    /// Contract: $0615+p == 0 exactly while the piece can be moved (with `timer_resolve0`, also
    /// while a lock resolves: then the labcart-only player state tells).
    pub fn controllable(&self, p: usize) -> bool {
        self.game_state() == gstate::PLAY
            && self.ram(addr::SPAWN_DELAY[p]) == 0
            && (!self.v.timer_resolve0 || self.ram(addr::PLAYER_STATE[p]) == 2)
    }

    pub fn piece(&self, p: usize) -> Piece {
        Piece {
            x: self.ram(addr::X[p]),
            y: self.ram(addr::Y[p]),
            orient: self.ram(addr::ORIENT[p]),
            pivot: self.ram(if self.v.pair_swap { addr::CUR_CHILD[p] } else { addr::CUR_PIVOT[p] }),
            child: self.ram(if self.v.pair_swap { addr::CUR_PIVOT[p] } else { addr::CUR_CHILD[p] }),
        }
    }

    /// The pivot's cell (column 1..6, row 0..13) of player p's controllable piece, whichever puyo the
    /// X/Y bytes follow and from whichever base they count (an item's X/Y are its own in every build).
    pub fn pivot_xy(&self, p: usize) -> (u8, u8) {
        let pc = self.piece(p);
        let x = pc.x as i32 + 1 - self.v.x_base as i32;
        let y = pc.y as i32 - self.v.y_base as i32;
        if !self.v.xy_child || self.v.codes.is_item(pc.pivot) {
            return (x as u8, y as u8);
        }
        let (dx, dy) = self.v.orients.delta(pc.orient);
        ((x - dx) as u8, (y - dy) as u8)
    }

    /// Field as 14 rows x 6 columns of codes (the cell byte at the variant's colour offset, without
    /// link bits); row 0 is the hidden row.
    pub fn field(&self, p: usize) -> [[u8; 6]; 14] {
        let mut f = self.field_code_bytes(p);
        if self.v.color_bits == 1 {
            f.iter_mut().flatten().for_each(|c| *c &= 0x0F);
        }
        f
    }

    /// The code byte of every cell as it is (with the link bits of a `color_bits` build).
    pub fn field_code_bytes(&self, p: usize) -> [[u8; 6]; 14] {
        let off = self.v.color_offset as u16;
        let mut f = [[0u8; 6]; 14];
        for (y, row) in f.iter_mut().enumerate() {
            for (x, c) in row.iter_mut().enumerate() {
                *c = self.ram(addr::FIELD[p] + 16 * y as u16 + 2 * (x as u16 + 1) + off);
            }
        }
        f
    }

    /// The other byte of every cell (the one without the code), 14 rows x 6 columns.
    pub fn field_other_bytes(&self, p: usize) -> [[u8; 6]; 14] {
        let off = 1 - self.v.color_offset as u16;
        let mut f = [[0u8; 6]; 14];
        for (y, row) in f.iter_mut().enumerate() {
            for (x, c) in row.iter_mut().enumerate() {
                *c = self.ram(addr::FIELD[p] + 16 * y as u16 + 2 * (x as u16 + 1) + off);
            }
        }
        f
    }

    pub fn print_field(&self, p: usize) -> String {
        let mut s = String::new();
        for (y, row) in self.field(p).iter().enumerate() {
            s += &format!("{y:2} ");
            for c in row {
                s += &if *c == self.v.codes.empty { " .".to_string() } else { format!("{c:2x}") };
            }
            s += "\n";
        }
        s
    }

    /// Run frames (pads released) until `cond` holds; false after `max` frames.
    pub fn wait_until(&mut self, max: usize, cond: impl Fn(&Lab) -> bool) -> bool {
        for _ in 0..max {
            if cond(self) {
                return true;
            }
            self.idle(1);
        }
        cond(self)
    }

    pub fn wait_controllable(&mut self, p: usize) -> bool {
        self.wait_until(2000, |l| l.controllable(p) || l.game_state() != gstate::PLAY) && self.controllable(p)
    }

    /// Steer player p's piece to (x, orient), hard-drop it, and wait until it has locked.
    /// Returns false if the target could not be reached (the piece is dropped anyway).
    pub fn place(&mut self, p: usize, x: u8, orient: u8) -> bool {
        let mut pl = [Placer::idle(), Placer::idle()];
        pl[p] = Placer::new(x, orient);
        let mut frames = 0;
        while !pl[p].done() {
            self.step_placers(&mut pl);
            frames += 1;
            assert!(frames < 3000, "placement never finished");
        }
        pl[p].reached
    }

    /// One frame with both players' placers producing the buttons.
    pub fn step_placers(&mut self, pl: &mut [Placer; 2]) {
        let b0 = pl[0].buttons(self, 0);
        let b1 = pl[1].buttons(self, 1);
        self.frame(b0, b1);
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    Idle,
    WaitPiece,
    Steer,
    Drop,
    Done,
}

/// Closed-loop steering of one player's piece: rotate, move the pivot to column `x`, drop (Down
/// held) until locked.
#[derive(Clone, Copy, Debug)]
pub struct Placer {
    pub x: u8,
    pub orient: u8,
    phase: Phase,
    last: u8,
    tries: u32,
    /// Frames waited for the late pose bytes (`Variant::pose_late`).
    waited: u8,
    pub reached: bool,
}

impl Placer {
    pub fn idle() -> Placer {
        Placer { x: 0, orient: 0, phase: Phase::Idle, last: 0, tries: 0, waited: 0, reached: false }
    }
    pub fn new(x: u8, orient: u8) -> Placer {
        Placer { x, orient, phase: Phase::WaitPiece, last: 0, tries: 0, waited: 0, reached: false }
    }
    pub fn done(&self) -> bool {
        matches!(self.phase, Phase::Done | Phase::Idle)
    }

    /// Buttons for this frame (tetanes bits) given the RAM after the previous frame.
    pub fn buttons(&mut self, lab: &Lab, p: usize) -> u8 {
        let b = self.decide(lab, p);
        self.last = b;
        b
    }

    fn decide(&mut self, lab: &Lab, p: usize) -> u8 {
        loop {
            match self.phase {
                Phase::Idle | Phase::Done => return 0,
                Phase::WaitPiece => {
                    if lab.game_state() != gstate::PLAY {
                        self.phase = Phase::Done;
                        return 0;
                    }
                    if !lab.controllable(p) {
                        return 0;
                    }
                    if self.waited < lab.v.pose_late {
                        self.waited += 1;
                        return 0;
                    }
                    self.phase = Phase::Steer;
                }
                Phase::Steer => {
                    if !lab.controllable(p) {
                        self.phase = Phase::Done;
                        return 0;
                    }
                    self.tries += 1;
                    let pc = lab.piece(p);
                    let (px, _) = lab.pivot_xy(p);
                    let item = !lab.v.codes.is_colour(pc.pivot);
                    let want = if !item && pc.orient != self.orient && self.tries < 40 {
                        // counter-clockwise when the target is a quarter turn that way, else clockwise
                        let o = &lab.v.orients;
                        let ccw = o.dir(pc.orient).counter_clockwise() == o.dir(self.orient);
                        if ccw != lab.v.a_clockwise { btn::A } else { btn::B }
                    } else if px > self.x && self.tries < 80 {
                        btn::LEFT
                    } else if px < self.x && self.tries < 80 {
                        btn::RIGHT
                    } else {
                        self.reached = px == self.x && (item || pc.orient == self.orient);
                        self.phase = Phase::Drop;
                        continue;
                    };
                    // release between presses so the cartridge sees a new press
                    return if self.last & want != 0 { 0 } else { want };
                }
                Phase::Drop => {
                    if !lab.controllable(p) {
                        self.phase = Phase::Done;
                        return 0;
                    }
                    return btn::DOWN;
                }
            }
        }
    }
}

/// RGBA frame buffer -> PNG file.
pub fn save_png(path: &std::path::Path, rgba: &[u8], w: u32, h: u32) {
    let file = std::fs::File::create(path).expect("create png");
    let mut enc = png::Encoder::new(std::io::BufWriter::new(file), w, h);
    enc.set_color(png::ColorType::Rgba);
    enc.set_depth(png::BitDepth::Eight);
    let mut wr = enc.write_header().expect("png header");
    wr.write_image_data(rgba).expect("png data");
}
