//! Colours, cells, pieces and placements: the vocabulary shared by the rules, the search and the driver.

use std::fmt;

/// Number of distinct puyo colours the game can use.
pub const MAX_COLORS: usize = 6;

/// One of the six puyo colours, `0..6`. Which on-screen colour it is does not matter to the rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Color(u8);

impl Color {
    /// All six colours in index order.
    pub const ALL: [Color; MAX_COLORS] = [Color(0), Color(1), Color(2), Color(3), Color(4), Color(5)];
    /// Letters used by field files and pair queues, in index order.
    pub const LETTERS: [char; MAX_COLORS] = ['R', 'G', 'B', 'Y', 'P', 'L'];

    /// The colour with this index, if it is below [`MAX_COLORS`].
    pub const fn new(index: u8) -> Option<Color> {
        if (index as usize) < MAX_COLORS { Some(Color(index)) } else { None }
    }

    /// The colour's index, `0..6`.
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// The letter a field file uses for this colour.
    pub const fn letter(self) -> char {
        Self::LETTERS[self.0 as usize]
    }

    /// The colour a field-file letter names (case-sensitive), if any.
    pub fn from_letter(c: char) -> Option<Color> {
        Self::LETTERS.iter().position(|&l| l == c).map(|i| Color(i as u8))
    }
}

/// What one field cell holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Cell {
    /// Nothing.
    Empty,
    /// A coloured puyo.
    Color(Color),
    /// A nuisance ("ojama") puyo: pops only next to a popping group.
    Nuisance,
}

impl Cell {
    /// The character a field file uses for this cell.
    pub const fn to_char(self) -> char {
        match self {
            Cell::Empty => '.',
            Cell::Nuisance => 'O',
            Cell::Color(c) => c.letter(),
        }
    }

    /// The cell a field-file character stands for, if any.
    pub fn from_char(c: char) -> Option<Cell> {
        match c {
            '.' => Some(Cell::Empty),
            'O' => Some(Cell::Nuisance),
            _ => Color::from_letter(c).map(Cell::Color),
        }
    }
}

/// Direction from a pair's pivot ("bottom") puyo to its child ("top") puyo.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Orientation {
    /// Child above the pivot (the spawn orientation).
    Up,
    /// Child right of the pivot.
    Right,
    /// Child below the pivot.
    Down,
    /// Child left of the pivot.
    Left,
}

impl Orientation {
    /// All orientations in clockwise order starting from `Up`.
    pub const ALL: [Orientation; 4] = [Orientation::Up, Orientation::Right, Orientation::Down, Orientation::Left];

    /// The next orientation clockwise (what button A does).
    pub const fn clockwise(self) -> Orientation {
        match self {
            Orientation::Up => Orientation::Right,
            Orientation::Right => Orientation::Down,
            Orientation::Down => Orientation::Left,
            Orientation::Left => Orientation::Up,
        }
    }

    /// The next orientation counter-clockwise (what button B does).
    pub const fn counter_clockwise(self) -> Orientation {
        match self {
            Orientation::Up => Orientation::Left,
            Orientation::Left => Orientation::Down,
            Orientation::Down => Orientation::Right,
            Orientation::Right => Orientation::Up,
        }
    }

    /// Column offset of the child relative to the pivot.
    pub const fn dx(self) -> i8 {
        match self {
            Orientation::Right => 1,
            Orientation::Left => -1,
            _ => 0,
        }
    }

    /// Row offset of the child relative to the pivot (rows grow downwards).
    pub const fn dy(self) -> i8 {
        match self {
            Orientation::Up => -1,
            Orientation::Down => 1,
            _ => 0,
        }
    }

    /// Index in [`Orientation::ALL`].
    pub const fn index(self) -> usize {
        self as usize
    }
}

/// A falling pair: the pivot puyo and the child puyo that rotates around it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Pair {
    /// The pivot ("bottom" at spawn) puyo.
    pub pivot: Color,
    /// The child ("top" at spawn) puyo.
    pub child: Color,
}

impl Pair {
    /// A pair from its pivot and child colours.
    pub const fn new(pivot: Color, child: Color) -> Pair {
        Pair { pivot, child }
    }

    /// True when both halves share a colour, so mirrored placements are the same move.
    pub fn is_monochrome(self) -> bool {
        self.pivot == self.child
    }
}

impl fmt::Display for Pair {
    /// Queue-file form: child then pivot would be ambiguous, so it is always pivot then child (e.g. `RG`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.pivot.letter(), self.child.letter())
    }
}

/// Which special item a piece is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Item {
    /// A 2×2 piece that clears the two columns it lands in.
    BigPuyo,
    /// A single piece that recolours the puyos it touches.
    Carbuncle,
}

/// Anything that can fall: an ordinary pair or an item.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Piece {
    /// Two puyos.
    Pair(Pair),
    /// A special item.
    Item(Item),
}

impl fmt::Display for Piece {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Piece::Pair(p) => write!(f, "{p}"),
            Piece::Item(Item::BigPuyo) => write!(f, "BIG"),
            Piece::Item(Item::Carbuncle) => write!(f, "CAR"),
        }
    }
}

/// Where a piece locks: pivot column `1..=6` (for Big Puyo, its left column) and orientation
/// (ignored for items, which are always `Up`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Placement {
    /// Pivot column, 1-based like the cartridge's X byte.
    pub x: u8,
    /// Direction from pivot to child.
    pub orientation: Orientation,
}

impl Placement {
    /// A placement from column and orientation.
    pub const fn new(x: u8, orientation: Orientation) -> Placement {
        Placement { x, orientation }
    }

    /// The child's column, 1-based (may be 0 or 7 for invalid placements).
    pub const fn child_x(self) -> i8 {
        self.x as i8 + self.orientation.dx()
    }
}

impl fmt::Display for Placement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "x{}:{:?}", self.x, self.orientation)
    }
}

/// One controller action that moves or turns a falling piece; an input path is a list of these,
/// after which the driver drops the piece.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Step {
    /// Move one column left.
    Left,
    /// Move one column right.
    Right,
    /// Rotate clockwise (button A).
    RotateCw,
    /// Rotate counter-clockwise (button B).
    RotateCcw,
}
