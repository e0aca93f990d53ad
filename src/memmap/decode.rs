//! RAM → a typed view of the game: both fields as [`Field`]s, the current and next pieces, the falling
//! pair's position and orientation, whether it is controllable, and the score.
//!
//! Decoding is the raw view plus the code tables: RAM is read once per player by [`super::raw::View`] (the
//! same reader self-calibration learns from), and this module gives its bytes their meaning with the
//! address file's codes, orientation values and bases.
//!
//! Total by construction: every RAM read goes through [`super::raw::byte`], which reads 0 outside the
//! 2 KiB, and every code has a meaning, so no RAM image can make it panic. Colours are equivalence classes:
//! each raw colour code maps to one model [`Color`] for the whole run. A code the address file does not
//! list is reported once (`log::warn`) and handled: in a piece it takes a free colour class, in the field it
//! counts as nuisance (a value seen in the field but never in a pair, docs/cartridge.md §6) until a piece
//! shows it.

use crate::game::{Cell, Color, Field, HEIGHT, Item, MAX_COLORS, Orientation, Pair, Piece, WIDTH};

use super::control::PieceClock;
use super::raw::{self, View};
use super::schema::{AddressFile, Codes, OrientationCodes, XyTracks};

/// The assignment of raw colour codes to model colours, stable for a whole run.
#[derive(Clone, Debug)]
pub struct ColorMap {
    /// Raw code of each model colour slot.
    slots: [Option<u8>; MAX_COLORS],
    /// Slots given to a code the file does not list, the first time a piece showed it (a guess: the code
    /// may be a colour the file lacks, or an item nobody guessed).
    assigned: [bool; MAX_COLORS],
    /// Codes already reported as unknown.
    warned: [bool; 256],
}

impl ColorMap {
    /// A map with the file's colour codes in model order.
    pub fn new(codes: &Codes) -> ColorMap {
        let mut slots = [None; MAX_COLORS];
        for (slot, &code) in slots.iter_mut().zip(&codes.colors) {
            *slot = Some(code);
        }
        ColorMap { slots, assigned: [false; MAX_COLORS], warned: [false; 256] }
    }

    /// The model colour of a known raw code.
    pub fn get(&self, raw: u8) -> Option<Color> {
        self.slots.iter().position(|&s| s == Some(raw)).and_then(|i| Color::new(i as u8))
    }

    /// The model colour of a raw code seen in a piece: known codes map directly, an unknown one takes the
    /// first free class (reported once). `None` when all six classes are taken.
    pub fn get_or_assign(&mut self, raw: u8) -> Option<Color> {
        if let Some(c) = self.get(raw) {
            return Some(c);
        }
        let free = self.slots.iter().position(|s| s.is_none());
        self.warn_once(
            raw,
            match free {
                Some(i) => format!("unknown piece code {raw} taken as a new colour class {i}"),
                None => format!("unknown piece code {raw} and no free colour class left; treated as no piece"),
            },
        );
        let i = free?;
        self.slots[i] = Some(raw);
        self.assigned[i] = true;
        Color::new(i as u8)
    }

    /// Whether `color`'s slot was given on the spot to a code the file does not list.
    pub fn is_assigned(&self, color: Color) -> bool {
        self.assigned.get(color.index()).copied().unwrap_or(false)
    }

    /// Logs `message` the first time `raw` is reported.
    pub fn warn_once(&mut self, raw: u8, message: String) {
        if !self.warned[raw as usize] {
            self.warned[raw as usize] = true;
            log::warn!("{message}");
        }
    }

    /// Raw codes seen so far that the file does not list, in order of code.
    pub fn unknown_codes(&self) -> Vec<u8> {
        (0..=255u8).filter(|&c| self.warned[c as usize]).collect()
    }
}

/// A field cell whose code no table lists: column `x` (1..=6), row `y` (0..=13) and the code as read
/// through the colour mask.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UnknownCell {
    /// Column, 1..=6.
    pub x: u8,
    /// Row, 0..=13.
    pub y: u8,
    /// The code, after the colour mask.
    pub code: u8,
}

/// What the decoder made of one player's RAM in one frame.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PlayerState {
    /// The settled field (the falling pair is not in it).
    pub field: Field,
    /// The current piece, when the bytes hold one.
    pub current: Option<Piece>,
    /// The current piece holds a code the file does not list, given a free colour class on the spot.
    pub current_assigned: bool,
    /// The current piece's raw bytes (pivot, child), to name a code in messages.
    pub current_codes: (u8, u8),
    /// Field cells holding a code no table lists (read as nuisance until calibration learns the code).
    pub unknown_cells: Vec<UnknownCell>,
    /// The next piece, when the bytes hold one.
    pub next: Option<Piece>,
    /// Pivot column as stored (1..=6 when valid).
    pub x: u8,
    /// Pivot row as stored (0..=13 when valid).
    pub y: u8,
    /// Orientation, when the byte holds a known value.
    pub orientation: Option<Orientation>,
    /// The raw orientation byte.
    pub raw_orientation: u8,
    /// The spawn flag is set this frame.
    pub spawn_flag: bool,
    /// Spawn delay timer (non-zero while no piece is controllable).
    pub spawn_delay: u8,
    /// Gravity timer.
    pub drop_timer: u8,
    /// A piece is falling under the player's control.
    pub controllable: bool,
    /// Score in points, when the address file knows where it is.
    pub score: Option<u32>,
    /// Nuisance waiting to fall on this player, when the address file knows where it is.
    pub pending_nuisance: Option<u32>,
}

impl PlayerState {
    /// The current piece when it is an item.
    pub fn item(&self) -> Option<Item> {
        match self.current {
            Some(Piece::Item(i)) => Some(i),
            _ => None,
        }
    }
}

/// One frame's decoded RAM.
#[derive(Clone, Debug, PartialEq)]
pub struct Snapshot {
    /// One entry per `[[player]]` of the address file, in order.
    pub players: Vec<PlayerState>,
    /// The mode byte, when known.
    pub mode: Option<u8>,
    /// The global "a piece spawns" flag, when known.
    pub spawn_any: bool,
}

/// Decodes RAM frames with one address file, keeping the colour classes stable across frames.
#[derive(Clone, Debug)]
pub struct Decoder {
    map: AddressFile,
    colors: ColorMap,
    /// Piece code → field code, for the colours whose piece code differs from their field code.
    piece_to_field: Vec<(u8, u8)>,
    /// Each player's piece life (see [`PieceClock`]).
    clocks: Vec<PieceClock>,
}

impl Decoder {
    /// A decoder for a validated address file.
    pub fn new(map: AddressFile) -> Decoder {
        let colors = ColorMap::new(&map.codes);
        let piece_to_field = match &map.codes.piece_colors {
            Some(pc) => pc.iter().zip(&map.codes.colors).filter(|(p, f)| p != f).map(|(&p, &f)| (p, f)).collect(),
            None => Vec::new(),
        };
        let clocks = vec![PieceClock::default(); map.player.len()];
        Decoder { map, colors, piece_to_field, clocks }
    }

    /// A decoder for `map` that goes on following the pieces under way as `self` did (the contract was
    /// replaced in the middle of a piece; its control must not blink).
    pub fn replaced_by(&self, map: AddressFile) -> Decoder {
        let mut d = Decoder::new(map);
        if d.clocks.len() == self.clocks.len() {
            d.clocks = self.clocks.clone();
        }
        d
    }

    /// The address file in use.
    pub fn map(&self) -> &AddressFile {
        &self.map
    }

    /// The colour classes found so far.
    pub fn colors(&self) -> &ColorMap {
        &self.colors
    }

    /// Decodes one frame.
    pub fn decode(&mut self, ram: &[u8; 2048]) -> Snapshot {
        let players =
            (0..self.map.player.len()).map(|i| self.decode_player(&View::read(ram, &self.map.player[i]), i)).collect();
        let mode = raw::mode_byte(ram, &self.map);
        let spawn_any = raw::spawn_any_byte(ram, &self.map).is_some_and(|b| b != 0);
        Snapshot { players, mode, spawn_any }
    }

    /// Player `i`'s state from its raw bytes.
    fn decode_player(&mut self, v: &View, i: usize) -> PlayerState {
        let (next_pivot, next_child) = (self.next_code(v.next.0), self.next_code(v.next.1));
        let multiplier = self.map.player[i].score.as_ref().map_or(1, |s| s.multiplier);
        let score =
            v.score.map(|raw| (u64::from(raw).saturating_mul(u64::from(multiplier))).min(u32::MAX as u64) as u32);
        let (field, unknown_cells) = self.decode_field(v);
        let orientation = orientation_of(&self.map.orientation, v.o);
        let current = self.piece(v.pivot, v.child);
        let current_assigned = match current {
            Some(Piece::Pair(p)) => self.colors.is_assigned(p.pivot) || self.colors.is_assigned(p.child),
            _ => false,
        };
        let next = self.piece(next_pivot, next_child);
        // The bytes as if column 1 were X 1 and row 0 were Y 0 (out-of-range values wrap to large ones).
        let m = &self.map.movement;
        let (fx, fy) = (v.x.wrapping_sub(m.x_base).wrapping_add(1), v.y.wrapping_sub(m.y_base));
        let (x, y) = pivot_xy(m.xy_tracks, fx, fy, orientation, current);
        let timing = &self.map.timing;
        let live = self.clocks.get_mut(i).is_none_or(|c| c.step(v.timer_zero(), &field, timing));
        let controllable = live
            && current.is_some()
            && orientation.is_some()
            && (1..=WIDTH as u8).contains(&x)
            && (y as usize) < HEIGHT;
        PlayerState {
            field,
            current,
            current_assigned,
            current_codes: (v.pivot, v.child),
            unknown_cells,
            next,
            x,
            y,
            orientation,
            raw_orientation: v.o,
            spawn_flag: v.spawn_flag != 0,
            spawn_delay: v.spawn_delay,
            drop_timer: v.drop_timer,
            controllable,
            score,
            pending_nuisance: v.pending_nuisance,
        }
    }

    /// The settled field from the cells' colour bytes, and the cells whose code no table lists.
    fn decode_field(&mut self, v: &View) -> (Field, Vec<UnknownCell>) {
        let mut field = Field::new();
        let mut unknown = Vec::new();
        for y in 0..HEIGHT {
            for x in 1..=WIDTH {
                let raw = v.color(x, y);
                let (cell, known) = self.classify(raw);
                if !known {
                    unknown.push(UnknownCell { x: x as u8, y: y as u8, code: raw & self.map.codes.color_mask });
                }
                if cell != Cell::Empty {
                    field.set(x, y, cell);
                }
            }
        }
        (field, unknown)
    }

    /// The meaning of a raw field code.
    pub fn cell(&mut self, raw: u8) -> Cell {
        self.classify(raw).0
    }

    /// The meaning of a raw field code, and whether a table lists it (an unknown code reads as nuisance:
    /// something occupies the cell, and the model must not drop puyos through it).
    fn classify(&mut self, raw: u8) -> (Cell, bool) {
        let c = &self.map.codes;
        let raw = raw & c.color_mask;
        if raw == c.empty {
            return (Cell::Empty, true);
        }
        if raw == c.nuisance {
            return (Cell::Nuisance, true);
        }
        if let Some(color) = self.colors.get(raw) {
            return (Cell::Color(color), true);
        }
        if raw == c.wall || raw == c.big_puyo || raw == c.carbuncle {
            let what = if raw == c.wall { "wall" } else { "item" };
            self.colors.warn_once(raw, format!("{what} code {raw} inside the field; read as nuisance"));
            return (Cell::Nuisance, true);
        }
        self.colors.warn_once(raw, format!("unknown field code {raw}; read as nuisance until a piece shows it"));
        (Cell::Nuisance, false)
    }

    /// The piece two raw bytes describe, if any.
    fn piece(&mut self, pivot: u8, child: u8) -> Option<Piece> {
        let c = &self.map.codes;
        if pivot == c.empty || child == c.empty {
            return None;
        }
        let (big, carbuncle, nuisance, wall) = (c.big_puyo, c.carbuncle, c.nuisance, c.wall);
        if pivot == big && child == big {
            return Some(Piece::Item(Item::BigPuyo));
        }
        if pivot == carbuncle && child == carbuncle {
            return Some(Piece::Item(Item::Carbuncle));
        }
        let mapped = |v: u8| self.piece_to_field.iter().any(|&(p, _)| p == v);
        let special = |v: u8| !mapped(v) && (v == big || v == carbuncle || v == nuisance || v == wall);
        if special(pivot) || special(child) {
            return None;
        }
        let pivot = self.colors.get_or_assign(self.field_code(pivot))?;
        let child = self.colors.get_or_assign(self.field_code(child))?;
        Some(Piece::Pair(Pair::new(pivot, child)))
    }
}

impl Decoder {
    /// The piece code a next-pair byte stands for: through `codes.next_codes` when the file has it (a code
    /// the table does not list reads as empty, so the next pair reads as unknown rather than as another
    /// colour), else the byte itself.
    fn next_code(&self, raw: u8) -> u8 {
        match &self.map.codes.next_codes {
            Some(table) => table.iter().find(|[n, _]| *n == raw).map_or(self.map.codes.empty, |&[_, p]| p),
            None => raw,
        }
    }

    /// The field code of a piece colour code (the same code unless `codes.piece_colors` says otherwise).
    fn field_code(&self, piece_code: u8) -> u8 {
        self.piece_to_field.iter().find(|(p, _)| *p == piece_code).map_or(piece_code, |&(_, f)| f)
    }
}

/// The pivot's (X, Y) from the stored bytes: the bytes themselves when they follow the pivot; when they
/// follow the child, one step back against the orientation (the model places pairs by their pivot).
/// Items have no child, so their bytes are kept; so are unknown orientations.
pub fn pivot_xy(tracks: XyTracks, x: u8, y: u8, orientation: Option<Orientation>, piece: Option<Piece>) -> (u8, u8) {
    match (tracks, orientation, piece) {
        (XyTracks::Child, Some(o), Some(Piece::Pair(_))) => {
            // Out-of-range results wrap to large values, which read as "not controllable".
            ((x as i16 - o.dx() as i16) as u8, (y as i16 - o.dy() as i16) as u8)
        }
        _ => (x, y),
    }
}

/// The orientation a raw byte stands for.
pub fn orientation_of(codes: &OrientationCodes, raw: u8) -> Option<Orientation> {
    if raw == codes.up {
        Some(Orientation::Up)
    } else if raw == codes.right {
        Some(Orientation::Right)
    } else if raw == codes.down {
        Some(Orientation::Down)
    } else if raw == codes.left {
        Some(Orientation::Left)
    } else {
        None
    }
}

/// The raw byte of an orientation.
pub fn orientation_code(codes: &OrientationCodes, o: Orientation) -> u8 {
    match o {
        Orientation::Up => codes.up,
        Orientation::Right => codes.right,
        Orientation::Down => codes.down,
        Orientation::Left => codes.left,
    }
}
