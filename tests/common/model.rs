//! The default open cartridge's RAM read as the rules core's types (codes: 0 empty, 1..=6 colours, 7
//! nuisance, 9 Big Puyo, 10 Carbuncle; orientation values 0 down, 1 left, 2 up, 3 right).

#![allow(dead_code)]

use puyobot::game::{Cell, Color, Field, Item, Orientation, Pair, Piece};

use super::labcart::Lab;

/// A field cell code as a rules-core cell.
pub fn cell_of(code: u8) -> Cell {
    match code {
        1..=6 => Cell::Color(Color::ALL[code as usize - 1]),
        7 => Cell::Nuisance,
        _ => Cell::Empty,
    }
}

/// Player `p`'s field as the rules core's field.
pub fn field_of(lab: &Lab, p: usize) -> Field {
    let mut f = Field::new();
    for (y, row) in lab.field(p).iter().enumerate() {
        for (x, &c) in row.iter().enumerate() {
            f.set(x + 1, y, cell_of(c));
        }
    }
    f
}

/// Player 1's current piece as the rules core's piece.
pub fn piece_of(lab: &Lab) -> Piece {
    let p = lab.piece(0);
    match (p.pivot, p.child) {
        (9, _) => Piece::Item(Item::BigPuyo),
        (10, _) => Piece::Item(Item::Carbuncle),
        (a, b) => match (cell_of(a), cell_of(b)) {
            (Cell::Color(a), Cell::Color(b)) => Piece::Pair(Pair::new(a, b)),
            other => panic!("current pair codes {a}/{b} decode to {other:?}"),
        },
    }
}

/// The cartridge's orientation value of `o`.
pub fn orientation_value(o: Orientation) -> u8 {
    match o {
        Orientation::Down => 0,
        Orientation::Left => 1,
        Orientation::Up => 2,
        Orientation::Right => 3,
    }
}
