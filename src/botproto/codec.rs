//! Lines to messages and back, and the text forms of pieces and fields the messages carry. Pure: no I/O.

use crate::game::text::{parse_field, parse_queue};
use crate::game::{Field, HEIGHT, Piece, WIDTH};

use super::message::{BotMessage, FrontMessage};

/// Longest line either side accepts, in bytes: a `start` is about 400; anything near this is not a message.
pub const MAX_LINE: usize = 64 * 1024;

/// Why a line is not a message.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CodecError {
    /// Longer than [`MAX_LINE`].
    #[error("a line of {0} bytes (at most {MAX_LINE})")]
    TooLong(usize),
    /// Not JSON, or not an object of a known `type` with the fields that type needs.
    #[error("not a protocol message ({reason}): {line}")]
    Bad {
        /// What serde said.
        reason: String,
        /// The line, cut to 120 characters.
        line: String,
    },
    /// A piece that is not `RG`-style, `BIG` or `CAR`.
    #[error("not a piece: {0:?} (a pair is two letters of RGBYPL, pivot first; or BIG, CAR)")]
    Piece(String),
    /// A field that is not 14 rows of 6 cells.
    #[error("not a field ({0}): expected 14 rows of 6 of . R G B Y P L O, hidden row first")]
    Field(String),
}

/// One message as one line of JSON, without the newline.
pub fn encode<T: serde::Serialize>(message: &T) -> String {
    // The message types hold only strings, numbers and enums: serialising them cannot fail.
    serde_json::to_string(message).unwrap_or_else(|e| format!("{{\"type\":\"error\",\"message\":\"{e}\"}}"))
}

fn decode<T: serde::de::DeserializeOwned>(line: &str) -> Result<T, CodecError> {
    let line = line.trim_end_matches(['\r', '\n']);
    if line.len() > MAX_LINE {
        return Err(CodecError::TooLong(line.len()));
    }
    serde_json::from_str(line)
        .map_err(|e| CodecError::Bad { reason: e.to_string(), line: line.chars().take(120).collect() })
}

/// A bot's line as a message.
pub fn decode_bot(line: &str) -> Result<BotMessage, CodecError> {
    decode(line)
}

/// A front end's line as a message.
pub fn decode_front(line: &str) -> Result<FrontMessage, CodecError> {
    decode(line)
}

/// A piece in the messages' form: `RG` (pivot, then child), `BIG`, `CAR`.
pub fn piece_text(piece: Piece) -> String {
    piece.to_string()
}

/// The piece a message names.
pub fn parse_piece(text: &str) -> Result<Piece, CodecError> {
    let bad = || CodecError::Piece(text.chars().take(20).collect());
    if text.trim().is_empty() || text.contains(['\n', '#']) {
        return Err(bad());
    }
    match parse_queue(text).map_err(|_| bad())?.as_slice() {
        [p] => Ok(*p),
        _ => Err(bad()),
    }
}

/// A field in the messages' form: 14 rows of 6 characters, the hidden row first.
pub fn field_rows(field: &Field) -> Vec<String> {
    field.rows()
}

/// The field a message's rows describe.
pub fn parse_rows(rows: &[String]) -> Result<Field, CodecError> {
    if rows.len() != HEIGHT {
        return Err(CodecError::Field(format!("{} rows", rows.len())));
    }
    if let Some(r) = rows.iter().find(|r| r.chars().count() != WIDTH || r.contains('#')) {
        return Err(CodecError::Field(format!("row {:?}", r.chars().take(20).collect::<String>())));
    }
    parse_field(&rows.join("\n")).map_err(|e| CodecError::Field(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::botproto::message::{Move, SuggestionMessage};
    use crate::game::{Cell, Color, Orientation};

    #[test]
    fn a_suggestion_reads_back_and_unknown_fields_are_ignored() {
        let line = r#"{"type":"suggestion","moves":[{"x":2,"orientation":"right","why":"pop"}],"later":1}"#;
        let m = decode_bot(line).expect("a suggestion");
        assert_eq!(
            m,
            BotMessage::Suggestion(SuggestionMessage {
                moves: vec![Move { x: 2, orientation: Orientation::Right }],
                intent: None
            })
        );
        assert_eq!(decode_bot(&encode(&m)), Ok(m));
    }

    #[test]
    fn wrong_shapes_are_errors_not_panics() {
        for line in
            ["", "null", "{}", "[1]", r#"{"type":"suggestion"}"#, r#"{"type":"suggestion","moves":[{"x":"a"}]}"#]
        {
            assert!(matches!(decode_bot(line), Err(CodecError::Bad { .. })), "{line:?}");
        }
        assert!(matches!(decode_bot(&"x".repeat(MAX_LINE + 1)), Err(CodecError::TooLong(_))));
    }

    #[test]
    fn pieces_and_fields_round_trip() {
        for text in ["RG", "LL", "BIG", "CAR"] {
            assert_eq!(piece_text(parse_piece(text).expect(text)), text);
        }
        for bad in ["", "R", "RGB", "XX", "RG\nGB", "#"] {
            assert!(parse_piece(bad).is_err(), "{bad:?}");
        }
        let mut f = Field::new();
        f.set(1, 13, Cell::Color(Color::ALL[2]));
        f.set(6, 0, Cell::Nuisance);
        assert_eq!(parse_rows(&field_rows(&f)), Ok(f));
        assert!(parse_rows(&field_rows(&f)[1..]).is_err());
        let mut rows = field_rows(&f);
        rows[3] = "......#".into();
        assert!(parse_rows(&rows).is_err());
    }
}
