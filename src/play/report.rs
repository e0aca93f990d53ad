//! The end-of-run report: a plain-text summary or JSON.

use std::time::Duration;

use serde::Serialize;

use crate::calib::{CalibrationReport, ReportState};
use crate::emu::Machine;

use super::health::HealthCounts;
use super::matches::{GameResult, Tally};
pub use super::player_summary::PlayerSummary;
use super::player_summary::{BotWork, Checked};
use super::session::Session;

use crate::emu::NES_FPS;

/// Whether the contract predicted the game, for the whole run (the `health` object of the JSON).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct HealthReport {
    /// `"healthy"` (calibration settled, or off, and every check holds), `"mismatched"` (every check holds
    /// but a lock or two since the contract settled were not as predicted, too few to name a fact),
    /// `"long-game"` (every check holds, but a 2P game ran past the long-game limit without a winner:
    /// `long_games` says which and why), `"learning"` (calibration has not settled, or is learning a fact
    /// again) or `"failed"` (a check failed and the bots stopped). A long game is a warning, not a fact of
    /// the contract: it replaces only "healthy", and the run still exits with an error.
    pub state: String,
    /// The checks of each player since the contract in use settled.
    pub players: Vec<PlayerHealth>,
    /// Facts a failing check sent back to calibration, in order (`field-cells`, `current-pair`,
    /// `next-pair`, `movement`).
    pub relearned: Vec<String>,
    /// The failure that stopped the bots: which fact, what was seen, and what to do.
    pub failure: Option<String>,
    /// The 2P games ended as long, one line each: `game 2: past 300 pieces a side: <reason>`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub long_games: Vec<String>,
}

/// The state of a health report whose checks say `state`, for a run with long games or not: a long game
/// turns "healthy" into "long-game" (the other states say more about the contract, and stay).
pub fn with_long_games(state: &str, long: bool) -> &str {
    if long && state == "healthy" { LONG_GAME } else { state }
}

/// The health state of a run whose checks held but that had a long game.
pub const LONG_GAME: &str = "long-game";

/// A long game's line in `health.long_games`.
pub fn long_game_line(g: &GameResult) -> Option<String> {
    let long = g.long_game.as_ref()?;
    Some(format!("game {}: past {} pieces a side without a winner: {}", g.game, long.pieces_limit, long.reason))
}

/// One player's health checks.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PlayerHealth {
    /// "P1" / "P2".
    pub label: String,
    /// The checks and how many held.
    #[serde(flatten)]
    pub counts: HealthCounts,
}

impl HealthReport {
    /// The health of a session's run.
    pub fn of<M: Machine>(s: &Session<M>) -> HealthReport {
        let mismatched = s.seats.iter().any(|p| p.health.counts().locks_mismatched > 0);
        let state = if s.health_failure().is_some() {
            "failed"
        } else if s.contract_healthy() && mismatched {
            // Too few to fail a check, but a contract that mispredicted a lock is not a healthy one.
            "mismatched"
        } else if s.contract_healthy() {
            "healthy"
        } else {
            "learning"
        };
        let long_games: Vec<String> = s.finished_games().iter().filter_map(long_game_line).collect();
        HealthReport {
            state: with_long_games(state, !long_games.is_empty()).into(),
            long_games,
            players: s
                .seats
                .iter()
                .map(|p| PlayerHealth { label: p.label.clone(), counts: p.health.counts() })
                .collect(),
            relearned: s.relearned().iter().map(|f| f.key().to_string()).collect(),
            failure: s.health_failure().map(|f| format!("{f}. What to do: {}.", f.fact.advice())),
        }
    }

    /// The report before any game ran.
    pub fn empty() -> HealthReport {
        HealthReport {
            state: "learning".into(),
            players: Vec::new(),
            relearned: Vec::new(),
            failure: None,
            long_games: Vec::new(),
        }
    }

    /// The health of several games run one by one (each from power-on): the checks add up per player,
    /// the first failure is the run's, the long games are all listed, and the run is healthy only if every
    /// game was (a run whose games were healthy but for long ones is "long-game").
    pub fn merged<'a>(games: impl IntoIterator<Item = &'a HealthReport>) -> HealthReport {
        let mut out = HealthReport::empty();
        let mut states = Vec::new();
        for g in games {
            states.push(g.state.clone());
            for p in &g.players {
                match out.players.iter_mut().find(|q| q.label == p.label) {
                    Some(q) => q.counts.add(&p.counts),
                    None => out.players.push(p.clone()),
                }
            }
            out.relearned.extend(g.relearned.iter().cloned());
            out.long_games.extend(g.long_games.iter().cloned());
            if out.failure.is_none() {
                out.failure.clone_from(&g.failure);
            }
        }
        out.state = if states.iter().any(|s| s == "failed") {
            "failed"
        } else if states.iter().any(|s| s == "mismatched") {
            "mismatched"
        } else if !states.is_empty() && states.iter().all(|s| s == "healthy" || s == LONG_GAME) {
            with_long_games("healthy", !out.long_games.is_empty())
        } else {
            "learning"
        }
        .into();
        out
    }

    /// A headless match's health, whose games were numbered again by their place in the run: the long
    /// games' lines name those numbers.
    pub fn renumber_long_games(&mut self, games: &[GameResult]) {
        if !self.long_games.is_empty() {
            self.long_games = games.iter().filter_map(long_game_line).collect();
        }
    }

    /// The report as text: one line per player, and the failure.
    pub fn to_text(&self) -> String {
        let mut out = format!("health: {}\n", self.state);
        for p in &self.players {
            let c = &p.counts;
            out += &format!(
                "  {}: locks {}/{} as predicted, asked about {}/{} pieces, next pairs {}/{} as read, presses {}/{} as predicted\n",
                p.label,
                c.locks_checked - c.locks_mismatched,
                c.locks_checked,
                c.pieces_asked,
                c.pieces_spawned,
                c.next_confirmed,
                c.next_checked,
                c.presses_as_predicted,
                c.presses
            );
        }
        if !self.relearned.is_empty() {
            out += &format!("  learned again: {}\n", self.relearned.join(", "));
        }
        if let Some(f) = &self.failure {
            out += &format!("  stopped: {f}\n");
        }
        for l in &self.long_games {
            out += &format!("  long game: {l}\n");
        }
        out
    }
}

/// Speed in CPU time: frames per second of the process's CPU time, and the bots' share of it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CpuFigures {
    /// CPU seconds of the process (every thread) during the run.
    pub seconds: f64,
    /// Frames per CPU second (bots included).
    pub fps: f64,
    /// `fps` / 60.1: the real-time factor the run would have on a core of its own.
    pub realtime_factor: f64,
    /// CPU seconds of the bots' searches (on whichever thread).
    pub bot_seconds: f64,
    /// `bot_seconds` / `seconds`.
    pub bot_share: f64,
    /// The same per seat, in seat order.
    pub seats: Vec<SeatCpu>,
}

/// One seat's bot in CPU time.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SeatCpu {
    /// "P1" / "P2".
    pub label: String,
    /// CPU seconds of this seat's searches.
    pub bot_seconds: f64,
    /// `bot_seconds` / the process's CPU seconds.
    pub bot_share: f64,
}

impl CpuFigures {
    /// The figures for `frames` run in `cpu` of process CPU time, `bots` the seats' labels and the CPU time
    /// of their searches. `None` when `cpu` is zero (a run too short for the process clock's ticks).
    pub fn of(frames: u64, cpu: Duration, bots: &[(String, Duration)]) -> Option<CpuFigures> {
        let seconds = cpu.as_secs_f64();
        if seconds <= 0.0 {
            return None;
        }
        let fps = frames as f64 / seconds;
        let seats: Vec<SeatCpu> = bots
            .iter()
            .map(|(label, t)| SeatCpu {
                label: label.clone(),
                bot_seconds: t.as_secs_f64(),
                bot_share: t.as_secs_f64() / seconds,
            })
            .collect();
        let bot_seconds: f64 = seats.iter().map(|s| s.bot_seconds).sum();
        Some(CpuFigures {
            seconds,
            fps,
            realtime_factor: fps / NES_FPS,
            bot_seconds,
            bot_share: bot_seconds / seconds,
            seats,
        })
    }
}

/// The whole report.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Summary {
    /// The cartridge.
    pub rom: String,
    /// The mode.
    pub mode: String,
    /// The seed the bots used.
    pub seed: u64,
    /// The bot speed setting.
    pub speed: u8,
    /// The AI profile the bots played (`full`, or `two-ply` with `--fast`; empty when the caller did not
    /// say, as a session run by hand does not know).
    pub profile: String,
    /// Frames emulated.
    pub frames: u64,
    /// Wall-clock seconds.
    pub seconds: f64,
    /// Frames per second (wall clock, bots included).
    pub fps: f64,
    /// `fps` / 60.1.
    pub realtime_factor: f64,
    /// Share of the wall-clock time the frame loop spent on the bots: inline searches and waits for a
    /// worker thread's answer.
    pub bot_time_share: f64,
    /// Total search time of all bots in seconds, on whichever thread (with worker threads it overlaps the
    /// emulation).
    pub bot_think_seconds: f64,
    /// The same figures in CPU time, which a loaded machine disturbs much less than wall-clock ones
    /// (`None` where the platform does not tell).
    pub cpu: Option<CpuFigures>,
    /// The winner's label (2P, once decided; in a headless match, the last game's).
    pub winner: Option<String>,
    /// The game ended (a top-out).
    pub game_over: bool,
    /// The run stopped because no piece locked for [`super::headless::STALL_FRAMES`] frames and no game
    /// over explained it (the game paused or stuck, or not the game the address file describes).
    pub stalled: bool,
    /// The run was stopped by an interrupt (Ctrl-C, SIGTERM) before its limit: the figures cover what
    /// was played until then.
    pub interrupted: bool,
    /// Per player.
    pub players: Vec<PlayerSummary>,
    /// What self-calibration learned (`state` "off" when it was off; never "settled" while `health` has
    /// failed).
    pub calibration: CalibrationReport,
    /// Whether the contract predicted the game, checked piece after piece.
    pub health: HealthReport,
    /// The items asked for (`--items`) and what the game dealt.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub items: Option<super::options::ItemsReport>,
    /// The number of colours asked for (`--colors`) and how many the game dealt.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub colors: Option<super::options::ColorsReport>,
    /// The totals over `games`.
    pub tally: Tally,
    /// Every game of the run, in order (one still under way when the run stopped is `stopped`).
    pub games: Vec<GameResult>,
    /// Games the menus started in another mode than the one asked for, played out to try the menus
    /// again: not in `games`, and left out of the players' counts.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub wrong_mode_games: Vec<GameResult>,
}

impl Summary {
    /// Builds the report from a session that ran for `wall` and used `cpu` of process CPU time (when known).
    pub fn of<M: Machine>(
        s: &Session<M>,
        rom: &str,
        seed: u64,
        speed: u8,
        frames: u64,
        wall: Duration,
        cpu: Option<Duration>,
    ) -> Summary {
        let seconds = wall.as_secs_f64().max(1e-9);
        let games = s.game_results();
        let labels: Vec<String> = s.seats.iter().map(|p| p.label.clone()).collect();
        let fps = frames as f64 / seconds;
        let think: f64 = s.seats.iter().map(|p| p.stats.think_time.as_secs_f64()).sum();
        let on_path: f64 = s.seats.iter().map(|p| p.stats.frame_path_time.as_secs_f64()).sum();
        let think_cpu: Vec<(String, Duration)> = s.seats.iter().map(|p| (p.label.clone(), p.stats.think_cpu)).collect();
        let players = s
            .seats
            .iter()
            .enumerate()
            .map(|(i, p)| PlayerSummary {
                label: p.label.clone(),
                bot: p.bot_name.clone(),
                pieces: p.stats.pieces,
                chains: p.stats.chains,
                largest_chain: s.largest_chain(i),
                score: p.ram_score.map_or(p.stats.model_score, u64::from),
                checked: Some(Checked {
                    score_source: if p.ram_score.is_some() { "ram" } else { "model" }.into(),
                    checks: p.stats.checks,
                }),
                mismatches: p.stats.mismatches,
                topped_out: p.stats.topped_out,
                bot_work: Some(BotWork {
                    decisions: p.stats.decisions,
                    think_ms_total: p.stats.think_time.as_secs_f64() * 1000.0,
                    replans: p.driver_stats().replans,
                    off_plan: p.stats.off_plan,
                    unasked_moves: p.driver_stats().unasked_moves,
                    calibration_surprises: p.stats.calibration_surprises,
                }),
            })
            .collect();
        Summary {
            rom: rom.to_string(),
            mode: s.mode.to_string(),
            seed,
            speed,
            profile: String::new(),
            frames,
            seconds,
            fps,
            realtime_factor: fps / NES_FPS,
            bot_time_share: on_path / seconds,
            bot_think_seconds: think,
            cpu: cpu.and_then(|c| CpuFigures::of(frames, c, &think_cpu)),
            winner: s.outcome.as_ref().and_then(|o| o.winner.clone()),
            game_over: s.outcome.is_some(),
            stalled: false,
            interrupted: false,
            players,
            calibration: {
                let mut c = s.calibration_report();
                if s.health_failure().is_some() {
                    c.overruled_by_health();
                }
                c
            },
            health: HealthReport::of(s),
            items: s.items_report(),
            colors: s.colors_report(),
            tally: Tally::of(&labels, &games),
            games,
            wrong_mode_games: s.wrong_mode_games().to_vec(),
        }
    }

    /// The report as pretty JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
    }

    /// The report as text.
    pub fn to_text(&self) -> String {
        let mut out = format!(
            "{} / {} / seed {} / speed {}{}\n{} frames in {:.2} s: {:.0} fps ({:.1}x real time), bots {:.1}% of the frame loop ({:.2} s of search)\n",
            self.rom,
            self.mode,
            self.seed,
            self.speed,
            if self.profile.is_empty() { String::new() } else { format!(" / profile {}", self.profile) },
            self.frames,
            self.seconds,
            self.fps,
            self.realtime_factor,
            self.bot_time_share * 100.0,
            self.bot_think_seconds
        );
        if let Some(c) = &self.cpu {
            out += &format!(
                "CPU time: {:.2} s: {:.0} frames per CPU second ({:.1}x real time on a core of its own), bots {:.1}% \
                 of it\n",
                c.seconds,
                c.fps,
                c.realtime_factor,
                c.bot_share * 100.0
            );
        }
        for p in &self.players {
            out += &format!(
                "{} ({}): {} pieces, {} chains (largest {}), score {} ({}), {} mismatches in {} checks{}\n",
                p.label,
                p.bot,
                p.pieces,
                p.chains,
                p.largest_chain,
                p.score,
                p.score_source(),
                p.mismatches,
                p.checks(),
                if p.topped_out { ", topped out" } else { "" }
            );
        }
        if self.games.len() > 1 {
            for g in &self.games {
                let players: Vec<String> = g
                    .players
                    .iter()
                    .map(|p| format!("{} {} pieces, largest chain {}", p.label, p.pieces, p.largest_chain))
                    .collect();
                out +=
                    &format!("game {}: {} after {} frames; {}\n", g.game, g.describe(), g.frames, players.join("; "));
            }
        }
        if !self.games.is_empty() {
            out += &self.tally.to_text();
        }
        if self.calibration.state != ReportState::Off {
            out += &self.calibration.to_text();
        }
        out += &self.health.to_text();
        match (&self.winner, self.game_over) {
            (Some(w), _) => out += &format!("winner: {w}\n"),
            (None, true) => out += "game over\n",
            (None, false) => {}
        }
        if self.stalled {
            out += "stalled: no piece locked for a long time\n";
        }
        if self.interrupted {
            out += "interrupted: the figures cover what was played until then\n";
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn health(state: &str, long: &[&str]) -> HealthReport {
        HealthReport {
            state: state.into(),
            long_games: long.iter().map(|l| l.to_string()).collect(),
            ..HealthReport::empty()
        }
    }

    #[test]
    fn a_long_game_turns_a_healthy_run_into_a_long_game_finding_and_leaves_worse_states_as_they_are() {
        assert_eq!(with_long_games("healthy", true), "long-game");
        assert_eq!(with_long_games("healthy", false), "healthy");
        for worse in ["failed", "mismatched", "learning"] {
            assert_eq!(with_long_games(worse, true), worse);
        }
        let one = health("long-game", &["game 1: past 300 pieces a side without a winner: …"]);
        let merged = HealthReport::merged([&health("healthy", &[]), &one, &one]);
        assert_eq!(merged.state, "long-game");
        assert_eq!(merged.long_games.len(), 2, "every long game is listed");
        assert_eq!(HealthReport::merged([&health("healthy", &[]), &health("healthy", &[])]).state, "healthy");
        assert_eq!(HealthReport::merged([&one, &health("failed", &[])]).state, "failed");
        assert_eq!(HealthReport::merged([&one, &health("mismatched", &[])]).state, "mismatched");
        let text = merged.to_text();
        assert!(text.starts_with("health: long-game\n"), "{text}");
        assert_eq!(text.matches("  long game: game 1: past 300 pieces").count(), 2, "{text}");
        let json = serde_json::to_value(health("healthy", &[])).expect("json");
        assert!(json.get("long_games").is_none(), "no long games, no key: {json}");
    }
}
