//! Long 2P games: a game of a match that runs past [`LONG_GAME_PIECES`] pieces a side (`--long-game-pieces`,
//! `[play] long_game_pieces`) without a winner is ended there and reported as `long`, not as a result.
//!
//! Two bots that can never top each other out (a build that deals a Big Puyo, which clears two columns,
//! every few pieces) would otherwise play for ever, and a report of hundreds of pieces with no winner would
//! read like any other game. [`LongGameWatch`] follows what the session can see of each side over the
//! game: the nuisance its chains sent (the rules model's count from their points) and the nuisance that
//! landed in its field (RAM), how close its stack came to the spawn cell, the nuisance waiting on it and
//! whether that was ever a lethal dose, the items it locked and what Big Puyo cleared. [`LongGame`] keeps
//! those figures with a reason in words ([`reason`]) that says why neither side could finish.

use serde::Serialize;

use crate::driver::Lock;
use crate::game::nuisance::{lethal_dose, nuisance_from_score};
use crate::game::{Item, Piece, Rules, WIDTH};
use crate::memmap::Snapshot;

use super::player_summary::PlayerSummary;
use super::view::PlayerView;

/// Pieces a side may lock in one 2P game of a match before the game counts as long: a game between the
/// bots on the open test cartridge ends well within a hundred pieces a side, a game that no nuisance can
/// end goes on past any number.
pub const LONG_GAME_PIECES: u32 = 300;

/// One side of a long game, as the session saw it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct LongSide {
    /// "P1" / "P2".
    pub label: String,
    /// Pieces locked in the game.
    pub pieces: u32,
    /// Locks that started a chain, and the longest.
    pub chains: u32,
    /// The longest chain of the game.
    pub largest_chain: u32,
    /// Nuisance this side's chains sent to the other (the rules model's count from their points).
    pub nuisance_sent: u32,
    /// Nuisance that landed in this side's field (RAM).
    pub nuisance_landed: u32,
    /// The most nuisance waiting on this side at once.
    pub most_nuisance_waiting: u32,
    /// The fewest rows left between the stack and the spawn cell while a piece was under control (the
    /// field's highest point over the game; an empty field has the whole column).
    pub fewest_rows_left: u32,
    /// Times the nuisance waiting on this side was a lethal dose for its field as it stood.
    pub lethal_doses_waiting: u32,
    /// Big Puyo locked.
    pub big_puyo: u32,
    /// Puyos the Big Puyo locks cleared (nuisance included).
    pub big_puyo_cleared: u32,
    /// Nuisance among them.
    pub big_puyo_cleared_nuisance: u32,
    /// Carbuncles locked.
    pub carbuncle: u32,
}

/// A game ended because it ran past the piece limit: the figures of each side and why neither finished.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct LongGame {
    /// The limit it ran past (pieces a side).
    pub pieces_limit: u32,
    /// Why neither side could finish, in words, from the figures.
    pub reason: String,
    /// Each side, in address-file order.
    pub sides: Vec<LongSide>,
}

/// What one side did so far this game.
#[derive(Clone, Copy, Debug, Default)]
struct SideWatch {
    carry: u32,
    sent: u32,
    landed: u32,
    most_waiting: u32,
    fewest_rows: Option<u32>,
    lethal: u32,
    lethal_now: bool,
    big: u32,
    big_cleared: u32,
    big_nuisance: u32,
    carbuncle: u32,
}

/// Follows each side of a 2P game frame by frame for [`LongGame`].
#[derive(Clone, Debug, Default)]
pub struct LongGameWatch {
    sides: [SideWatch; 2],
}

impl LongGameWatch {
    /// Forgets everything (a new game).
    pub fn reset(&mut self) {
        *self = LongGameWatch::default();
    }

    /// Takes in one 2P frame: RAM `now` (after `prev`), each seat's lock on it, and each player's view
    /// (the nuisance waiting on it). Does nothing outside 2P.
    pub fn frame(
        &mut self,
        prev: Option<&Snapshot>,
        now: &Snapshot,
        locks: &[Option<Lock>],
        views: &[PlayerView],
        rules: &Rules,
    ) {
        if now.players.len() != 2 {
            return;
        }
        for (j, w) in self.sides.iter_mut().enumerate() {
            let cur = &now.players[j];
            if let Some(Some(lock)) = locks.get(j) {
                w.sent += nuisance_from_score(rules, lock.summary.score, &mut w.carry);
                match lock.piece {
                    Piece::Item(Item::BigPuyo) => {
                        w.big += 1;
                        w.big_cleared += lock.summary.cleared;
                        w.big_nuisance += lock.before.nuisance_count().saturating_sub(lock.after.nuisance_count());
                    }
                    Piece::Item(Item::Carbuncle) => w.carbuncle += 1,
                    Piece::Pair(_) => {}
                }
            }
            if let Some(before) = prev.and_then(|p| p.players.get(j)) {
                w.landed += cur.field.nuisance_count().saturating_sub(before.field.nuisance_count());
            }
            let waiting = views.get(j).map_or(0, |v| v.nuisance_on_me);
            w.most_waiting = w.most_waiting.max(waiting);
            if cur.controllable {
                let dose = lethal_dose(&cur.field, rules);
                let rows = dose / WIDTH as u32;
                w.fewest_rows = Some(w.fewest_rows.map_or(rows, |r| r.min(rows)));
                let lethal = waiting > 0 && waiting >= dose;
                if lethal && !w.lethal_now {
                    w.lethal += 1;
                }
                w.lethal_now = lethal;
            }
        }
    }

    /// The long game of `players` (the game's result lines, in seat order), ended at `limit` pieces.
    pub fn long_game(&self, players: &[PlayerSummary], limit: u32) -> LongGame {
        let sides: Vec<LongSide> = players
            .iter()
            .zip(&self.sides)
            .map(|(p, w)| LongSide {
                label: p.label.clone(),
                pieces: p.pieces,
                chains: p.chains,
                largest_chain: p.largest_chain,
                nuisance_sent: w.sent,
                nuisance_landed: w.landed,
                most_nuisance_waiting: w.most_waiting,
                fewest_rows_left: w.fewest_rows.unwrap_or(0),
                lethal_doses_waiting: w.lethal,
                big_puyo: w.big,
                big_puyo_cleared: w.big_cleared,
                big_puyo_cleared_nuisance: w.big_nuisance,
                carbuncle: w.carbuncle,
            })
            .collect();
        LongGame { pieces_limit: limit, reason: reason(&sides), sides }
    }
}

/// Why neither side of a long game finished, from its figures: how close the fields came to the top,
/// what Big Puyo cleared, the nuisance each side sent and how much of it landed, and whether a lethal
/// dose ever waited on a side.
pub fn reason(sides: &[LongSide]) -> String {
    let [a, b] = sides else {
        return "not a 2-player game".to_string();
    };
    let pieces = a.pieces.max(b.pieces);
    let mut parts = Vec::new();
    let closest = a.fewest_rows_left.min(b.fewest_rows_left);
    let nearest: Vec<&str> = sides.iter().filter(|s| s.fewest_rows_left == closest).map(|s| s.label.as_str()).collect();
    parts.push(match closest {
        0 => format!("{} reached the spawn cell in {pieces} pieces without topping out", nearest.join(" and ")),
        1 => format!(
            "neither side topped out in {pieces} pieces (closest: 1 row below the spawn cell, {})",
            nearest.join(", ")
        ),
        n => format!(
            "neither side topped out in {pieces} pieces (closest: {n} rows below the spawn cell, {})",
            nearest.join(", ")
        ),
    });
    let big = a.big_puyo + b.big_puyo;
    if big > 0 {
        let nuisance = a.big_puyo_cleared_nuisance + b.big_puyo_cleared_nuisance;
        let of_them = if nuisance > 0 { format!(" ({nuisance} of them nuisance)") } else { String::new() };
        parts.push(format!("{big} Big Puyo cleared {} puyos{of_them}", a.big_puyo_cleared + b.big_puyo_cleared));
    }
    let carbuncle = a.carbuncle + b.carbuncle;
    if carbuncle > 0 {
        parts.push(format!("{carbuncle} Carbuncles recoloured stacks"));
    }
    if a.nuisance_sent + b.nuisance_sent == 0 {
        parts.push("neither side sent any nuisance".to_string());
    } else {
        for (from, to) in [(a, b), (b, a)] {
            parts.push(format!(
                "{} sent {} nuisance, {} landed (largest chain {})",
                from.label, from.nuisance_sent, to.nuisance_landed, from.largest_chain
            ));
        }
    }
    let threatened: Vec<String> = sides
        .iter()
        .filter(|s| s.lethal_doses_waiting > 0)
        .map(|s| format!("{} had a lethal dose waiting {} and survived", s.label, times(s.lethal_doses_waiting)))
        .collect();
    if threatened.is_empty() {
        parts.push("no lethal dose ever waited on either side".to_string());
    } else {
        parts.extend(threatened);
    }
    parts.join("; ")
}

/// `once`, `twice`, `N times`.
fn times(n: u32) -> String {
    match n {
        1 => "once".to_string(),
        2 => "twice".to_string(),
        n => format!("{n} times"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::{Color, Field, Pair, Placement};
    use crate::memmap::PlayerState;

    fn side(label: &str) -> LongSide {
        LongSide {
            label: label.into(),
            pieces: 912,
            chains: 40,
            largest_chain: 5,
            fewest_rows_left: 4,
            ..LongSide::default()
        }
    }

    #[test]
    fn the_reason_says_how_close_the_fields_came_what_big_puyo_cleared_and_where_the_nuisance_went() {
        let p1 = LongSide {
            nuisance_sent: 410,
            nuisance_landed: 120,
            big_puyo: 20,
            big_puyo_cleared: 200,
            big_puyo_cleared_nuisance: 90,
            ..side("P1")
        };
        let p2 = LongSide {
            nuisance_sent: 150,
            nuisance_landed: 388,
            big_puyo: 18,
            big_puyo_cleared: 112,
            fewest_rows_left: 6,
            largest_chain: 3,
            lethal_doses_waiting: 2,
            ..side("P2")
        };
        let r = reason(&[p1, p2]);
        assert_eq!(
            r,
            "neither side topped out in 912 pieces (closest: 4 rows below the spawn cell, P1); 38 Big Puyo cleared 312 puyos (90 of \
             them nuisance); P1 sent 410 nuisance, 388 landed (largest chain 5); P2 sent 150 nuisance, 120 landed \
             (largest chain 3); P2 had a lethal dose waiting twice and survived"
        );
    }

    #[test]
    fn the_reason_of_a_game_without_items_or_nuisance_says_so_and_names_a_full_field() {
        let quiet = reason(&[side("P1"), side("P2")]);
        assert!(quiet.contains("neither side sent any nuisance"), "{quiet}");
        assert!(quiet.contains("no lethal dose ever waited"), "{quiet}");
        assert!(!quiet.contains("Big Puyo"), "{quiet}");
        let full = reason(&[LongSide { fewest_rows_left: 0, ..side("P1") }, side("P2")]);
        assert!(full.starts_with("P1 reached the spawn cell in 912 pieces"), "{full}");
        assert_eq!(reason(&[side("P1")]), "not a 2-player game");
    }

    fn state(field: Field, controllable: bool) -> PlayerState {
        PlayerState { field, controllable, ..PlayerState::default() }
    }

    fn snap(p1: Field, p2: Field) -> Snapshot {
        Snapshot { players: vec![state(p1, true), state(p2, true)], mode: None, spawn_any: false }
    }

    fn view(own: &PlayerState, waiting: u32) -> PlayerView {
        PlayerView { own: own.clone(), nuisance_on_me: waiting, opponent: None }
    }

    fn lock(piece: Piece, before: Field, rules: &Rules) -> Lock {
        let mut after = before;
        let placement = Placement::new(1, crate::game::Orientation::Up);
        let summary = after.play(piece, placement, rules).expect("a legal placement");
        Lock {
            frame: 0,
            piece,
            pose: crate::game::PiecePosition { x: 1, y: 1, orientation: crate::game::Orientation::Up },
            before,
            after,
            summary,
            decided: None,
        }
    }

    #[test]
    fn the_watch_counts_nuisance_sent_and_landed_rows_left_lethal_doses_and_big_puyo_clears() {
        let rules = Rules::puyo1();
        let mut w = LongGameWatch::default();
        let empty = Field::new();
        // P1 pops four reds: 40 points, no nuisance yet at one per 70; the carry keeps the 40.
        let four = Field::from_rows(&["R.....", "R.....", "R....."]);
        let red = Piece::Pair(Pair { pivot: Color::ALL[0], child: Color::ALL[1] });
        let s0 = snap(empty, empty);
        let views0: Vec<PlayerView> = s0.players.iter().map(|p| view(p, 0)).collect();
        w.frame(None, &s0, &[Some(lock(red, four, &rules)), None], &views0, &rules);
        // A second 40 points passes 70: one nuisance sent. P2's field shows two nuisance landed and is
        // eleven rows high in the spawn column (two rows left below the spawn cell), with 12 waiting on it.
        let p2 = Field::from_rows(&[
            "..B...", "..G...", "..B...", "..G...", "..B...", "..G...", "..B...", "..G...", "..B...", "..G...",
            "O.B..O",
        ]);
        let s1 = snap(empty, p2);
        let views1 = vec![view(&s1.players[0], 0), view(&s1.players[1], 12)];
        w.frame(Some(&s0), &s1, &[Some(lock(red, four, &rules)), None], &views1, &rules);
        // Big Puyo on columns 1-2 of a field with a nuisance and two reds there.
        let big = Field::from_rows(&["O.....", "RR...."]);
        let views2 = vec![view(&s1.players[0], 0), view(&s1.players[1], 12)];
        w.frame(Some(&s1), &s1, &[None, Some(lock(Piece::Item(Item::BigPuyo), big, &rules))], &views2, &rules);
        let players: Vec<PlayerSummary> = ["P1", "P2"]
            .iter()
            .map(|l| PlayerSummary {
                label: l.to_string(),
                bot: "chain".into(),
                pieces: 30,
                chains: 2,
                largest_chain: 1,
                score: 80,
                checked: None,
                mismatches: 0,
                topped_out: false,
                bot_work: None,
            })
            .collect();
        let g = w.long_game(&players, 30);
        let (a, b) = (&g.sides[0], &g.sides[1]);
        assert_eq!((a.nuisance_sent, b.nuisance_landed, a.nuisance_landed), (1, 2, 0), "{g:?}");
        assert_eq!((a.fewest_rows_left, b.fewest_rows_left), (13, 2), "{g:?}");
        assert_eq!((b.most_nuisance_waiting, b.lethal_doses_waiting), (12, 1), "12 fill the 2 rows once: {g:?}");
        assert_eq!((b.big_puyo, b.big_puyo_cleared, b.big_puyo_cleared_nuisance), (1, 3, 1), "{g:?}");
        assert_eq!(g.pieces_limit, 30);
        assert!(g.reason.contains("1 Big Puyo cleared 3 puyos (1 of them nuisance)"), "{}", g.reason);
        assert!(g.reason.contains("P1 sent 1 nuisance, 2 landed"), "{}", g.reason);
        assert!(g.reason.contains("P2 had a lethal dose waiting once"), "{}", g.reason);
        let mut quiet = LongGameWatch::default();
        let one = Snapshot { players: vec![state(empty, true)], mode: None, spawn_any: false };
        quiet.frame(None, &one, &[None], &[], &rules);
        assert_eq!(quiet.sides[0].fewest_rows, None, "nothing is followed outside 2P");
    }
}
