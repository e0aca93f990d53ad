//! Field files: one line per row, top to bottom, six characters (`.` empty, `O` nuisance,
//! `R G B Y P L` colours); fewer than 14 lines fill the bottom rows; `#` starts a comment line.

use super::field::{Field, HEIGHT, WIDTH};
use super::piece::{Cell, Color, Item, Pair, Piece};

/// A problem in a field or queue text, with the 1-based line and column it was found at.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TextError {
    /// A character that is not a cell.
    #[error("line {line}, column {column}: unexpected character {found:?}; expected one of . O R G B Y P L")]
    BadChar {
        /// 1-based line.
        line: usize,
        /// 1-based column (in characters).
        column: usize,
        /// What was there.
        found: char,
    },
    /// A row that is not six cells long.
    #[error("line {line}: a row needs exactly 6 cells, found {found}")]
    BadWidth {
        /// 1-based line.
        line: usize,
        /// How many characters it had.
        found: usize,
    },
    /// More than 14 rows.
    #[error("line {line}: a field has at most 14 rows (row 0 hidden, row 13 the bottom)")]
    TooManyRows {
        /// 1-based line of the 15th row.
        line: usize,
    },
    /// A queue line that is not a pair or an item.
    #[error("line {line}: expected a pair of two colour letters (e.g. RG) or BIG / CAR, found {found:?}")]
    BadPiece {
        /// 1-based line.
        line: usize,
        /// The line's text.
        found: String,
    },
    /// A queue with no pieces.
    #[error("the queue holds no pieces")]
    EmptyQueue,
}

/// Parses a field file's text. Trailing whitespace and Windows line ends are tolerated.
pub fn parse_field(text: &str) -> Result<Field, TextError> {
    let mut rows: Vec<[Cell; WIDTH]> = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line_no = i + 1;
        let line = raw.trim_end();
        if line.starts_with('#') || (line.is_empty() && rows.is_empty()) {
            continue;
        }
        if rows.len() == HEIGHT {
            if line.is_empty() {
                continue;
            }
            return Err(TextError::TooManyRows { line: line_no });
        }
        let mut row = [Cell::Empty; WIDTH];
        let mut n = 0;
        for (col, ch) in line.chars().enumerate() {
            let cell = Cell::from_char(ch).ok_or(TextError::BadChar { line: line_no, column: col + 1, found: ch })?;
            if col < WIDTH {
                row[col] = cell;
            }
            n += 1;
        }
        if n != WIDTH {
            return Err(TextError::BadWidth { line: line_no, found: n });
        }
        rows.push(row);
    }
    let mut field = Field::new();
    let offset = HEIGHT - rows.len();
    for (i, row) in rows.iter().enumerate() {
        for (x, cell) in row.iter().enumerate() {
            field.set(x + 1, offset + i, *cell);
        }
    }
    Ok(field)
}

/// Formats a field as a field file (14 lines).
pub fn format_field(field: &Field) -> String {
    let mut s = field.rows().join("\n");
    s.push('\n');
    s
}

/// Parses a piece queue: one piece per line, a pair as two colour letters (pivot then child, e.g. `RG`),
/// or `BIG` / `CAR` for the items; blank lines and `#` comments are skipped.
pub fn parse_queue(text: &str) -> Result<Vec<Piece>, TextError> {
    let mut out = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let piece = match line {
            "BIG" => Piece::Item(Item::BigPuyo),
            "CAR" => Piece::Item(Item::Carbuncle),
            _ => {
                let mut chars = line.chars();
                match (
                    chars.next().and_then(Color::from_letter),
                    chars.next().and_then(Color::from_letter),
                    chars.next(),
                ) {
                    (Some(a), Some(b), None) => Piece::Pair(Pair::new(a, b)),
                    _ => return Err(TextError::BadPiece { line: i + 1, found: line.to_string() }),
                }
            }
        };
        out.push(piece);
    }
    if out.is_empty() {
        return Err(TextError::EmptyQueue);
    }
    Ok(out)
}

/// Test fixtures: here rather than in `field.rs`, because they parse with this module's field format.
impl Field {
    /// Builds a field from rows of characters, top row first; fewer than 14 rows fill the bottom.
    /// For tests and fixtures only (unit tests, and the `test-support` feature for the integration tests
    /// and benches): panics on a bad character. User input goes through [`parse_field`].
    #[cfg(any(test, feature = "test-support"))]
    pub fn from_rows(rows: &[&str]) -> Field {
        match parse_field(&rows.join("\n")) {
            Ok(f) => f,
            Err(e) => panic!("bad fixture: {e}"),
        }
    }
}
