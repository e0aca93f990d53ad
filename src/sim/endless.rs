//! The 1P endless loop: one player, pieces until N are placed or the field tops out.

use std::time::Instant;

use crate::game::{Field, Piece, Rules};

use crate::game::deal::PieceSource;
use crate::game::player::{Player, PlayerError, View};

/// Pieces after the next one each endless view carries for the search's `reveal` diagnostic.
const REVEALED: usize = 4;

/// What happened on one move.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MoveRecord {
    /// Chain length fired by this piece (0 = none).
    pub chain: u32,
    /// Points scored by this piece.
    pub score: u32,
    /// Puyos on the field after the move resolved.
    pub puyos: u32,
    /// Puyos this move's chain removed (0 without a chain).
    pub cleared: u32,
    /// Wall-clock time the player took to choose, in microseconds.
    pub think_us: u64,
}

/// The record of one endless game.
#[derive(Clone, Debug, Default)]
pub struct EndlessRecord {
    /// One entry per placed piece.
    pub moves: Vec<MoveRecord>,
    /// True when the game ended because the spawn cell was occupied (or the player made an illegal move).
    pub topped_out: bool,
    /// Placements the player chose that did not fit the piece (each ends the game).
    pub illegal_moves: u32,
    /// Times the field was emptied by a chain.
    pub field_clears: u32,
    /// Total points.
    pub score: u64,
    /// The field when the game ended.
    pub final_field: Field,
    /// The player could not choose (a bot process that misbehaved): the game stopped there.
    pub error: Option<PlayerError>,
}

/// How an endless game ended, without the per-move records (see [`play_endless_streaming`]).
#[derive(Clone, Debug, Default)]
pub struct EndlessOutcome {
    /// Pieces placed.
    pub pairs: usize,
    /// True when the game ended because the spawn cell was occupied (or the player made an illegal move).
    pub topped_out: bool,
    /// Placements the player chose that did not fit the piece (each ends the game).
    pub illegal_moves: u32,
    /// Times the field was emptied by a chain.
    pub field_clears: u32,
    /// Total points.
    pub score: u64,
    /// The field when the game ended.
    pub final_field: Field,
    /// The player could not choose (a bot process that misbehaved): the game stopped there.
    pub error: Option<PlayerError>,
}

/// Plays up to `n` pieces of 1P endless with `player` on an empty field, collecting every move.
/// Memory grows with `n`; for long games use [`play_endless_streaming`].
pub fn play_endless(player: &mut dyn Player, pieces: &mut dyn PieceSource, rules: &Rules, n: usize) -> EndlessRecord {
    let mut moves = Vec::new();
    let out = play_endless_streaming(player, pieces, rules, n, &mut |m| moves.push(*m));
    EndlessRecord {
        moves,
        topped_out: out.topped_out,
        illegal_moves: out.illegal_moves,
        field_clears: out.field_clears,
        score: out.score,
        final_field: out.final_field,
        error: out.error,
    }
}

/// Plays up to `n` pieces of 1P endless with `player` on an empty field, handing each move to `on_move`
/// as it happens. Keeps nothing per move and tells `pieces` to forget dealt pieces, so memory stays
/// constant however long the game.
pub fn play_endless_streaming(
    player: &mut dyn Player,
    pieces: &mut dyn PieceSource,
    rules: &Rules,
    n: usize,
    on_move: &mut dyn FnMut(&MoveRecord),
) -> EndlessOutcome {
    let mut field = Field::new();
    let mut out = EndlessOutcome::default();
    for i in 0..n {
        pieces.forget_before(i);
        let current = pieces.piece(i);
        let next = pieces.piece(i + 1);
        let revealed: [Piece; REVEALED] = std::array::from_fn(|k| pieces.piece(i + 2 + k));
        let view = View {
            field: &field,
            current,
            next,
            revealed: &revealed,
            nuisance_on_me: 0,
            opponent: None,
            rules,
            pieces_played: i as u32,
            pieces_left: Some((n - 1 - i) as u32),
            caution: false,
        };
        let started = Instant::now();
        let decision = match player.try_choose(&view) {
            Ok(d) => d,
            Err(e) => {
                out.error = Some(e);
                break;
            }
        };
        let think_us = started.elapsed().as_micros() as u64;
        let Ok(summary) = field.play(current, decision.placement, rules) else {
            log::warn!("{} chose {} for {current}: not a valid placement", player.name(), decision.placement);
            out.illegal_moves += 1;
            out.topped_out = true;
            break;
        };
        player.placed(decision.placement);
        log::trace!("move {i}: {current} at {}, {} links, field {field:?}", decision.placement, summary.chains);
        out.pairs += 1;
        out.score += summary.score as u64;
        if summary.chains > 0 && field.is_empty() {
            out.field_clears += 1;
        }
        on_move(&MoveRecord {
            chain: summary.chains,
            score: summary.score,
            puyos: field.count(),
            cleared: summary.cleared,
            think_us,
        });
        if field.is_game_over(rules) {
            out.topped_out = true;
            break;
        }
    }
    out.final_field = field;
    out
}
