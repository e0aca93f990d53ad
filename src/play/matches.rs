//! Matches: the results of the games a session played one after another, and their running tally.
//!
//! The session records a [`GameResult`] when a game ends (a top-out) and, when the run stops in the
//! middle of one, a `stopped` result for it; [`Tally::of`] adds them up.

use std::collections::BTreeMap;

use serde::Serialize;

use super::long_game::{LongGame, LongGameWatch};
use super::nuisance_watch::NuisanceWatch;
use super::player_summary::PlayerSummary;
use super::seat::{Seat, SeatStats};

/// What a session knows of the games it plays one after another.
#[derive(Debug, Default)]
pub struct MatchState {
    /// Run the address file's `[restart]` script after a game over.
    pub restart: bool,
    /// The run's seed, for `seed_wait` steps (none: they wait 0 frames).
    pub seed: Option<u64>,
    /// In a window: a failed `seek` hands the menus to the person.
    pub manual_fallback: bool,
    /// Games begun (the one under way included).
    pub begun: u32,
    /// A game is under way (begun, not yet ended).
    open: bool,
    /// Frame the current game began.
    start_frame: u64,
    /// Each seat's counters when the current game began.
    start_stats: Vec<SeatStats>,
    /// Each seat's longest chain in the games before the current one.
    earlier_largest: Vec<u32>,
    /// Frames the `seed_wait` steps before the next (or current) game waited.
    pub seed_wait: u32,
    /// The games that ended.
    pub results: Vec<GameResult>,
    /// Games the menus started in another mode than the one asked for, ended to try the menus again.
    pub wrong_mode: Vec<GameResult>,
    /// The nuisance on its way to each player, for the bots.
    pub nuisance: NuisanceWatch,
    /// The 2P rules checked and learned from the games.
    pub rules: super::rules_watch::RulesWatch,
    /// What each side of the current 2P game did, for a long game's report.
    pub long: LongGameWatch,
}

impl MatchState {
    /// Before the first frame; `playing` when the game is already under way (no menus to walk).
    pub fn new(playing: bool) -> MatchState {
        MatchState { begun: u32::from(playing), open: playing, ..MatchState::default() }
    }

    /// A game begins on frame `frame`: per-game counters start again (each seat's largest chain and
    /// top-out; the longest chain so far is kept here).
    pub fn begin(&mut self, seats: &mut [Seat], frame: u64) {
        self.earlier_largest.resize(seats.len(), 0);
        for (i, s) in seats.iter_mut().enumerate() {
            self.earlier_largest[i] = self.earlier_largest[i].max(s.stats.largest_chain);
            s.stats.largest_chain = 0;
            s.stats.topped_out = false;
        }
        self.start_stats = seats.iter().map(|s| s.stats.clone()).collect();
        self.start_frame = frame;
        self.begun += 1;
        self.open = true;
        self.nuisance.reset();
        self.rules.new_game();
        self.long.reset();
    }

    /// The game under way ended on frame `frame`, as `end`: records it.
    pub fn end(&mut self, seats: &[Seat], frame: u64, end: GameEnd, winner: Option<String>) {
        if self.open {
            let result = self.result(seats, frame, end, winner);
            log::info!("game {} over: {}", result.game, result.describe());
            self.results.push(result);
            self.open = false;
            self.seed_wait = 0;
        }
    }

    /// The 2P game under way ran past `limit` pieces a side on frame `frame`: it ends as a long game, with
    /// what each side did and why neither could finish ([`LongGame`]). Returns the reason.
    pub fn end_long(&mut self, seats: &[Seat], frame: u64, limit: u32) -> Option<String> {
        if !self.open {
            return None;
        }
        let mut result = self.result(seats, frame, GameEnd::Long, None);
        let long = self.long.long_game(&result.players, limit);
        let reason = long.reason.clone();
        log::warn!("game {} is long (past {limit} pieces a side): {reason}", result.game);
        result.long_game = Some(long);
        self.results.push(result);
        self.open = false;
        self.seed_wait = 0;
        Some(reason)
    }

    /// The pieces each seat locked in the game under way (0 when none is).
    pub fn game_pieces(&self, seats: &[Seat]) -> Vec<u32> {
        seats
            .iter()
            .enumerate()
            .map(|(i, s)| {
                if self.open {
                    s.stats.pieces.saturating_sub(self.start_stats.get(i).map_or(0, |st| st.pieces))
                } else {
                    0
                }
            })
            .collect()
    }

    /// The game under way is not the mode asked for and was played out to try the menus again: it is kept
    /// apart from the results, and each seat's counters go back to where they stood when it began, so the
    /// run's figures (pieces, chains, mismatches) are those of the games asked for. A field read with
    /// another mode's layout does not judge the contract.
    pub fn abandon(&mut self, seats: &mut [Seat], frame: u64) {
        if !self.open {
            return;
        }
        let result = self.result(seats, frame, GameEnd::Abandoned, None);
        log::info!(
            "game {} abandoned (not the mode asked for): {}",
            result.game,
            result
                .players
                .iter()
                .map(|p| format!("{} {} pieces, {} mismatches", p.label, p.pieces, p.mismatches))
                .collect::<Vec<_>>()
                .join("; ")
        );
        self.wrong_mode.push(result);
        for (s, start) in seats.iter_mut().zip(&self.start_stats) {
            s.stats.restore_counts(start);
        }
        self.open = false;
    }

    /// Every game: those that ended and, when one is under way with a piece locked, that one as
    /// stopped.
    pub fn all_results(&self, seats: &[Seat], frame: u64) -> Vec<GameResult> {
        let mut all = self.results.clone();
        let locked =
            seats.iter().enumerate().any(|(i, s)| s.stats.pieces > self.start_stats.get(i).map_or(0, |st| st.pieces));
        if self.open && locked {
            all.push(self.result(seats, frame, GameEnd::Stopped, None));
        }
        all
    }

    /// The longest chain of seat `i` over every game.
    pub fn largest_chain(&self, seats: &[Seat], i: usize) -> u32 {
        let now = seats.get(i).map_or(0, |s| s.stats.largest_chain);
        now.max(self.earlier_largest.get(i).copied().unwrap_or(0))
    }

    /// The current game's result so far, ended as `end`.
    fn result(&self, seats: &[Seat], frame: u64, end: GameEnd, winner: Option<String>) -> GameResult {
        let players = seats
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let start = self.start_stats.get(i).cloned().unwrap_or_default();
                let st = &s.stats;
                PlayerSummary {
                    label: s.label.clone(),
                    bot: s.bot_name.clone(),
                    pieces: st.pieces.saturating_sub(start.pieces),
                    chains: st.chains.saturating_sub(start.chains),
                    largest_chain: st.largest_chain,
                    score: s.ram_score.map_or(st.model_score.saturating_sub(start.model_score), u64::from),
                    checked: None,
                    mismatches: st.mismatches.saturating_sub(start.mismatches),
                    topped_out: st.topped_out,
                    bot_work: None,
                }
            })
            .collect();
        GameResult {
            game: self.begun.max(1),
            result: end,
            winner,
            frames: frame.saturating_sub(self.start_frame),
            seed_wait_frames: self.seed_wait,
            players,
            long_game: None,
        }
    }
}

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
    /// The run stopped (a frame or piece limit, an interrupt, or the window closed) before the game
    /// ended.
    Stopped,
    /// The game was not the mode asked for: played out to try the menus again (never in `games`).
    Abandoned,
    /// A 2P game ran past the piece limit of a long game (`--long-game-pieces`) without a winner and was
    /// ended there: not a result ([`GameResult::long_game`] says why neither side could finish).
    Long,
}

impl GameEnd {
    /// The word for it in text output.
    pub fn word(self) -> &'static str {
        match self {
            GameEnd::Win => "win",
            GameEnd::Draw => "draw",
            GameEnd::Over => "game over",
            GameEnd::Stopped => "stopped",
            GameEnd::Abandoned => "abandoned",
            GameEnd::Long => "long",
        }
    }
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
    /// Per player, in address-file order (each a game's line: without the run's checks and bot work).
    pub players: Vec<PlayerSummary>,
    /// A long game (`result` "long"): each side's figures and why neither could finish.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub long_game: Option<LongGame>,
}

impl GameResult {
    /// How the game ended, in words: `win P1`, `draw`, `game over`, `stopped`.
    pub fn describe(&self) -> String {
        match &self.winner {
            Some(w) => format!("{} {w}", self.result.word()),
            None => self.result.word().to_string(),
        }
    }
}

/// The running totals of a match.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Tally {
    /// Games recorded, stopped ones included.
    pub games: u32,
    /// Games won, by player label (every player listed, with 0 when it won none).
    pub wins: BTreeMap<String, u32>,
    /// Games both players lost together.
    pub draws: u32,
    /// 1P games that ended with a top-out.
    pub game_overs: u32,
    /// Games the run stopped (a limit or an interrupt) before they ended.
    pub stopped: u32,
    /// 2P games ended as long: past the piece limit without a winner.
    pub long_games: u32,
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
                GameEnd::Stopped => t.stopped += 1,
                GameEnd::Long => t.long_games += 1,
                GameEnd::Abandoned => {}
            }
            for p in &g.players {
                let best = t.largest_chain.entry(p.label.clone()).or_insert(0);
                *best = (*best).max(p.largest_chain);
                t.mismatches += p.mismatches;
            }
        }
        t
    }

    /// One line for the window's HUD, e.g. `GAME 4  P1 2  P2 1  DRAW 1  MAX CHAIN 5/3` (2P) or
    /// `GAME 2  MAX CHAIN 5` (1P).
    pub fn hud_line(&self, current_game: u32) -> String {
        let wins: Vec<String> = self.wins.iter().map(|(l, w)| format!("{l} {w}")).collect();
        let chains: Vec<String> = self.largest_chain.values().map(|c| c.to_string()).collect();
        let mut line = format!("GAME {current_game}");
        if self.wins.len() > 1 {
            line += &format!("  {}", wins.join("  "));
        }
        if self.draws > 0 {
            line += &format!("  DRAW {}", self.draws);
        }
        if self.long_games > 0 {
            line += &format!("  LONG {}", self.long_games);
        }
        line + &format!("  MAX CHAIN {}", chains.join("/"))
    }

    /// The tally as text, one line.
    pub fn to_text(&self) -> String {
        let wins: Vec<String> = self.wins.iter().map(|(l, w)| format!("{l} {w}")).collect();
        let chains: Vec<String> = self.largest_chain.iter().map(|(l, c)| format!("{l} {c}")).collect();
        let long = if self.long_games > 0 { format!(", {} long (no winner)", self.long_games) } else { String::new() };
        format!(
            "{} games: wins {}, {} draws, {} game overs (1P), {} stopped{long}; largest chains {}; {} mismatches\n",
            self.games,
            wins.join(", "),
            self.draws,
            self.game_overs,
            self.stopped,
            chains.join(", "),
            self.mismatches
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn player(label: &str, chain: u32, mismatches: u64, topped: bool) -> PlayerSummary {
        PlayerSummary {
            label: label.into(),
            bot: "chain".into(),
            pieces: 40,
            chains: 3,
            largest_chain: chain,
            score: 1000,
            checked: None,
            mismatches,
            topped_out: topped,
            bot_work: None,
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
            long_game: None,
        }
    }

    #[test]
    fn the_tally_adds_up_wins_draws_stopped_games_and_keeps_the_largest_chains() {
        let labels = vec!["P1".to_string(), "P2".to_string()];
        let empty = Tally::of(&labels, &[]);
        assert_eq!((empty.games, empty.wins["P1"], empty.wins["P2"], empty.largest_chain["P2"]), (0, 0, 0, 0));
        let games = vec![
            game(1, GameEnd::Win, Some("P1"), [5, 2]),
            game(2, GameEnd::Win, Some("P1"), [3, 7]),
            game(3, GameEnd::Draw, None, [1, 1]),
            game(4, GameEnd::Win, Some("P2"), [0, 4]),
            game(5, GameEnd::Stopped, None, [9, 0]),
        ];
        let t = Tally::of(&labels, &games);
        assert_eq!(t.games, 5);
        assert_eq!((t.wins["P1"], t.wins["P2"]), (2, 1));
        assert_eq!((t.draws, t.stopped, t.game_overs), (1, 1, 0));
        assert!(t.to_text().contains("1 stopped"), "{}", t.to_text());
        assert_eq!(games[0].describe(), "win P1");
        assert_eq!(games[4].describe(), "stopped");
        assert_eq!((t.largest_chain["P1"], t.largest_chain["P2"]), (9, 7), "a stopped game's chains count");
        assert_eq!(t.mismatches, 1);
        assert_eq!(t.wins.values().sum::<u32>() + t.draws + t.stopped + t.game_overs, t.games);
        assert_eq!(t.hud_line(6), "GAME 6  P1 2  P2 1  DRAW 1  MAX CHAIN 9/7");
        let endless =
            Tally::of(&labels[..1], &[GameResult { players: vec![], ..game(1, GameEnd::Over, None, [0, 0]) }]);
        assert_eq!((endless.games, endless.game_overs, endless.wins.len()), (1, 1, 1));
        assert_eq!(endless.hud_line(2), "GAME 2  MAX CHAIN 0");
        let long =
            Tally::of(&labels, &[game(1, GameEnd::Long, None, [4, 6]), game(2, GameEnd::Win, Some("P2"), [1, 1])]);
        assert_eq!((long.games, long.long_games, long.draws, long.wins["P2"]), (2, 1, 0, 1));
        assert!(long.to_text().contains("0 stopped, 1 long (no winner)"), "{}", long.to_text());
        assert_eq!(long.hud_line(3), "GAME 3  P1 0  P2 1  LONG 1  MAX CHAIN 4/6");
    }
}
