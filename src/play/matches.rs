//! Matches: the results of the games a session played one after another, and their running tally.
//!
//! The session records a [`GameResult`] when a game ends (a top-out) and, when the run stops in the
//! middle of one, an abandoned result for it; [`Tally::of`] adds them up.

use std::collections::BTreeMap;

use serde::Serialize;

/// How a game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum GameEnd {
    /// One player topped out and the other won (2P).
    Win,
    /// Both players topped out together (2P).
    Draw,
    /// The one player topped out (1P).
    Over,
    /// The run stopped (a frame or piece limit, or the window closed) before the game ended.
    Abandoned,
}

/// One player's part of one game.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GamePlayer {
    /// "P1" / "P2".
    pub label: String,
    /// The bot's name, or "human".
    pub bot: String,
    /// Pieces locked in this game.
    pub pieces: u32,
    /// Locks that started a chain, in this game.
    pub chains: u32,
    /// Longest chain of this game.
    pub largest_chain: u32,
    /// Score at the end of the game: from RAM when the address file knows where it is, else the model's.
    pub score: u64,
    /// After-lock comparisons that failed in this game.
    pub mismatches: u64,
    /// The player topped out.
    pub topped_out: bool,
}

/// One game of a match.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GameResult {
    /// 1-based number of the game in the run.
    pub game: u32,
    /// How it ended.
    pub result: GameEnd,
    /// The winner's label (a 2P win).
    pub winner: Option<String>,
    /// Frames from the first falling pair to the end (the top-out, or the end of the run).
    pub frames: u64,
    /// Frames the menu or restart script's `seed_wait` steps waited before the game (the seed's part
    /// in its deal).
    pub seed_wait_frames: u32,
    /// Per player, in address-file order.
    pub players: Vec<GamePlayer>,
}

/// The running totals of a match.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Tally {
    /// Games recorded, abandoned ones included.
    pub games: u32,
    /// Games won, by player label (every player listed, with 0 when it won none).
    pub wins: BTreeMap<String, u32>,
    /// Games both players lost together.
    pub draws: u32,
    /// 1P games that ended with a top-out.
    pub game_overs: u32,
    /// Games the run stopped before they ended.
    pub abandoned: u32,
    /// Longest chain over all games, by player label.
    pub largest_chain: BTreeMap<String, u32>,
    /// Mismatches over all games, all players.
    pub mismatches: u64,
}

impl Tally {
    /// Adds up `games`; `labels` are the players (so a player who never won is listed with 0).
    pub fn of(labels: &[String], games: &[GameResult]) -> Tally {
        let mut t = Tally {
            wins: labels.iter().map(|l| (l.clone(), 0)).collect(),
            largest_chain: labels.iter().map(|l| (l.clone(), 0)).collect(),
            ..Tally::default()
        };
        for g in games {
            t.games += 1;
            match g.result {
                GameEnd::Win => {
                    if let Some(w) = &g.winner {
                        *t.wins.entry(w.clone()).or_insert(0) += 1;
                    }
                }
                GameEnd::Draw => t.draws += 1,
                GameEnd::Over => t.game_overs += 1,
                GameEnd::Abandoned => t.abandoned += 1,
            }
            for p in &g.players {
                let best = t.largest_chain.entry(p.label.clone()).or_insert(0);
                *best = (*best).max(p.largest_chain);
                t.mismatches += p.mismatches;
            }
        }
        t
    }

    /// One line for the window's HUD, e.g. `GAME 4  P1 2  P2 1  DRAW 0  MAX 5/3`.
    pub fn hud_line(&self, current_game: u32) -> String {
        let wins: Vec<String> = self.wins.iter().map(|(l, w)| format!("{l} {w}")).collect();
        let chains: Vec<String> = self.largest_chain.values().map(|c| c.to_string()).collect();
        let mut line = format!("GAME {current_game}  {}", wins.join("  "));
        if self.draws > 0 {
            line += &format!("  DRAW {}", self.draws);
        }
        line + &format!("  MAX CHAIN {}", chains.join("/"))
    }

    /// The tally as text, one line.
    pub fn to_text(&self) -> String {
        let wins: Vec<String> = self.wins.iter().map(|(l, w)| format!("{l} {w}")).collect();
        let chains: Vec<String> = self.largest_chain.iter().map(|(l, c)| format!("{l} {c}")).collect();
        format!(
            "{} games: wins {}, {} draws, {} game overs (1P), {} abandoned; largest chains {}; {} mismatches\n",
            self.games,
            wins.join(", "),
            self.draws,
            self.game_overs,
            self.abandoned,
            chains.join(", "),
            self.mismatches
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn player(label: &str, chain: u32, mismatches: u64, topped: bool) -> GamePlayer {
        GamePlayer {
            label: label.into(),
            bot: "chain".into(),
            pieces: 40,
            chains: 3,
            largest_chain: chain,
            score: 1000,
            mismatches,
            topped_out: topped,
        }
    }

    fn game(n: u32, result: GameEnd, winner: Option<&str>, chains: [u32; 2]) -> GameResult {
        GameResult {
            game: n,
            result,
            winner: winner.map(String::from),
            frames: 1000,
            seed_wait_frames: 0,
            players: vec![
                player("P1", chains[0], 0, winner == Some("P2")),
                player("P2", chains[1], u64::from(n == 2), winner == Some("P1")),
            ],
        }
    }

    #[test]
    fn the_tally_adds_up_wins_draws_abandoned_games_and_keeps_the_largest_chains() {
        let labels = vec!["P1".to_string(), "P2".to_string()];
        let empty = Tally::of(&labels, &[]);
        assert_eq!((empty.games, empty.wins["P1"], empty.wins["P2"], empty.largest_chain["P2"]), (0, 0, 0, 0));
        let games = vec![
            game(1, GameEnd::Win, Some("P1"), [5, 2]),
            game(2, GameEnd::Win, Some("P1"), [3, 7]),
            game(3, GameEnd::Draw, None, [1, 1]),
            game(4, GameEnd::Win, Some("P2"), [0, 4]),
            game(5, GameEnd::Abandoned, None, [9, 0]),
        ];
        let t = Tally::of(&labels, &games);
        assert_eq!(t.games, 5);
        assert_eq!((t.wins["P1"], t.wins["P2"]), (2, 1));
        assert_eq!((t.draws, t.abandoned, t.game_overs), (1, 1, 0));
        assert_eq!((t.largest_chain["P1"], t.largest_chain["P2"]), (9, 7), "an abandoned game's chains count");
        assert_eq!(t.mismatches, 1);
        assert_eq!(t.wins.values().sum::<u32>() + t.draws + t.abandoned + t.game_overs, t.games);
        assert_eq!(t.hud_line(6), "GAME 6  P1 2  P2 1  DRAW 1  MAX CHAIN 9/7");
        let endless =
            Tally::of(&labels[..1], &[GameResult { players: vec![], ..game(1, GameEnd::Over, None, [0, 0]) }]);
        assert_eq!((endless.games, endless.game_overs, endless.wins.len()), (1, 1, 1));
    }
}
