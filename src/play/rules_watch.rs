//! The 2P rules checked against the running game, frame by frame: each chain's nuisance and each drop
//! are predicted with the rules in use and compared with what RAM shows (the nuisance that lands in each
//! field; the pending count where the address file knows it). What the rules did not predict names the
//! rule, which is relearned from every observation so far ([`crate::calib::battle_rules`]); when no rule
//! set explains the game the session stops naming the rules. Never silent.

use crate::calib::battle_rules::{
    BattleRules, BattleRulesReport, DropSeen, Outcome, RULE_CAP, RULE_DROP, RULE_OVERFLOW, RULE_POINTS, RuleSet,
};
use crate::driver::Lock;
use crate::game::{Cell, Field, HEIGHT, Rules, WIDTH};
use crate::memmap::Snapshot;

/// The 2P rules watch of a session.
#[derive(Debug, Default)]
pub struct RulesWatch {
    /// The learner, from the first 2P frame on.
    learner: Option<BattleRules>,
    /// Each player's field after its last lock's chain, as the model resolved it, until its next piece.
    after: [Option<Field>; 2],
    /// This game's nuisance cannot be followed: it began before the contract settled, or a field
    /// disagreed with the model (the lock check names that).
    blind: bool,
    /// Games (or their rest) the watch could not follow.
    blind_games: u32,
    /// Times the rules in use were ruled out and relearned.
    relearned: u32,
    /// Pieces that became controllable for each player this game (counted before the contract settles).
    spawns: [u32; 2],
    /// The game began before the contract settled: when it settles, the game is followed only if no
    /// chain can have sent anything yet.
    waiting: bool,
    /// The rules asked for on the command line (set on the menus; the bots start with them).
    pub choices: super::rule_options::RuleChoices,
}

impl RulesWatch {
    /// A new game: nothing pending.
    pub fn new_game(&mut self) {
        log::debug!("2P rules: a new game (the last was {})", if self.blind { "not followed" } else { "followed" });
        self.after = [None, None];
        self.blind = false;
        self.waiting = false;
        self.spawns = [0; 2];
        if let Some(l) = self.learner.as_mut() {
            l.new_game();
        }
    }

    /// The session's rules were rebuilt (a learned contract): they take the 2P rules learned so far.
    pub fn apply(&self, rules: &mut Rules) {
        if let Some(l) = &self.learner {
            l.in_use().apply(rules);
        }
    }

    /// The rules in use were set by the person (flags): the learner checks those from now on.
    pub fn set_in_use(&mut self, rules: &Rules) {
        if let Some(l) = self.learner.as_mut() {
            l.set_in_use(RuleSet::of(rules));
        }
    }

    /// The 2P rules for the window's status line once a 2P game was seen: the rules the bots play with,
    /// and whether the game has shown them yet (`2P CAP 30 70PT DROP 30 LEARNING`).
    pub fn hud_line(&self) -> Option<String> {
        let l = self.learner.as_ref()?;
        let state = if l.contradicted() {
            " NONE FITS"
        } else if l.settled() {
            " LEARNED"
        } else {
            " LEARNING"
        };
        Some(format!("2P {}{state}", l.in_use().short()))
    }

    /// Times the rules in use were ruled out.
    pub fn relearned(&self) -> u32 {
        self.relearned
    }

    /// The `calibration.rules` object, once a 2P game was seen.
    pub fn report(&self) -> Option<BattleRulesReport> {
        self.learner.as_ref().map(|l| {
            let mut r = l.report();
            r.blind_games = self.blind_games;
            r
        })
    }

    /// One frame of a 2P game (`settled`: the contract reads RAM right): follows locks, drops and
    /// arrivals; relearns `rules` when they were ruled out. Returns the message to stop with when no
    /// rule set explains the game.
    pub fn frame(
        &mut self,
        prev: Option<&Snapshot>,
        now: &Snapshot,
        locks: &[Option<Lock>],
        rules: &mut Rules,
        settled: bool,
        labels: &[String],
    ) -> Option<String> {
        if now.players.len() != 2 {
            return None;
        }
        let learner = self.learner.get_or_insert_with(|| BattleRules::new(rules));
        if self.relearned == 0 && learner.in_use() != RuleSet::of(rules) {
            // The rules were set (the flags, a learned contract taking them) before any was ruled out.
            learner.set_in_use(RuleSet::of(rules));
        }
        if learner.contradicted() || self.blind {
            return None;
        }
        self.count_spawns(prev, now);
        if !self.follows_once_settled(now, settled) {
            return None;
        }
        let label = |i: usize| labels.get(i).map_or(format!("P{}", i + 1), String::clone);
        self.feed_locks(locks, &label);
        let outcomes = self.observe_spawns(prev?, now, &label)?;
        self.judge(outcomes, rules)
    }

    /// Counts the pieces that became controllable this frame (before the contract settles too).
    fn count_spawns(&mut self, prev: Option<&Snapshot>, now: &Snapshot) {
        for (j, p) in now.players.iter().enumerate().take(2) {
            let before = prev.and_then(|s| s.players.get(j)).is_some_and(|b| b.controllable);
            self.spawns[j] += u32::from(!before && p.controllable);
        }
    }

    /// Whether this frame is followed: the contract is settled, and a game it settled in late had sent
    /// nothing yet (otherwise the game is counted blind).
    fn follows_once_settled(&mut self, now: &Snapshot, settled: bool) -> bool {
        if !settled {
            self.waiting = true;
            return false;
        }
        if std::mem::take(&mut self.waiting) {
            // A chain needs two pieces of a player locked: with at most the second piece under way and no
            // nuisance on either field, nothing has been sent and no points are left over.
            let quiet =
                self.spawns.iter().all(|&n| n <= 2) && now.players.iter().all(|p| p.field.nuisance_count() == 0);
            if !quiet {
                log::debug!("2P rules: the contract settled after this game's first chains; it is not followed");
                self.blind = true;
                self.blind_games += 1;
                return false;
            }
        }
        true
    }

    /// Tells the learner each lock's score and keeps the field it leaves for the next spawn's drop.
    fn feed_locks(&mut self, locks: &[Option<Lock>], label: &dyn Fn(usize) -> String) {
        let Some(learner) = self.learner.as_mut() else { return };
        for (j, lock) in locks.iter().enumerate().take(2) {
            if let Some(lock) = lock {
                log::debug!("2P rules: {} locked, scoring {}", label(j), lock.summary.score);
                self.after[j] = Some(lock.after);
                learner.locked(j, lock.summary.score);
            }
        }
    }

    /// At each spawn: the nuisance that landed since the lock, the chains that arrived, and the pending
    /// counts RAM shows, each with what the learner made of it. `None` when a field is not the model's
    /// (the game is then not followed further).
    fn observe_spawns(
        &mut self,
        prev: &Snapshot,
        now: &Snapshot,
        label: &dyn Fn(usize) -> String,
    ) -> Option<Vec<(Outcome, String)>> {
        let learner = self.learner.as_mut()?;
        let mut outcomes = Vec::new();
        for j in 0..2 {
            let (before, cur) = (&prev.players[j], &now.players[j]);
            if before.controllable || !cur.controllable {
                continue;
            }
            if let Some(after) = self.after[j].take() {
                let Some(landed) = landed_on(&after, &cur.field) else {
                    log::info!(
                        "2P rules: {}'s field is not the model's after its lock; the nuisance of this game is not \
                         followed further",
                        label(j)
                    );
                    self.blind = true;
                    self.blind_games += 1;
                    return None;
                };
                let what = format!("{}'s drop ({landed} nuisance landed)", label(j));
                outcomes.push((learner.dropped(&DropSeen { player: j, before: after, landed }, &what), what));
            }
            learner.chain_arrived(j);
            for k in [1 - j, j] {
                if let Some(p) = now.players[k].pending_nuisance {
                    let what = format!("{}'s pending nuisance ({p} in RAM)", label(k));
                    outcomes.push((learner.pending_seen(k, p, &what), what));
                }
            }
        }
        Some(outcomes)
    }

    /// Acts on what the learner made of each observation: relearned rules replace `rules`; a
    /// contradiction is the message to stop with, naming the rules.
    fn judge(&mut self, outcomes: Vec<(Outcome, String)>, rules: &mut Rules) -> Option<String> {
        for (outcome, what) in outcomes {
            match outcome {
                Outcome::Holds => {}
                Outcome::Relearned { wrong, was, now } => {
                    self.relearned += 1;
                    now.apply(rules);
                    log::warn!(
                        "2P rules: {what} does not follow {}: the {} {} wrong; playing with {} from now on",
                        was.describe(),
                        wrong.join(" and "),
                        if wrong.len() == 1 { "was" } else { "were" },
                        now.describe()
                    );
                }
                Outcome::Contradiction => {
                    let rules_named = if what.contains("pending") {
                        format!("the {RULE_CAP} or the {RULE_POINTS}")
                    } else {
                        format!("the {RULE_CAP}, the {RULE_POINTS}, the {RULE_DROP} or the {RULE_OVERFLOW}")
                    };
                    return Some(format!(
                        "no 2P rule set explains {what}: {rules_named} is not one the learner considers (in use: {})",
                        RuleSet::of(rules).describe()
                    ));
                }
            }
        }
        None
    }
}

/// The nuisance that landed on `after` to give `now`: every column of `now` is the column of `after`
/// with nuisance (or nothing) on top. `None` when the fields differ otherwise.
pub fn landed_on(after: &Field, now: &Field) -> Option<u32> {
    let mut landed = 0;
    for x in 1..=WIDTH {
        for y in 0..HEIGHT {
            match (after.get(x, y), now.get(x, y)) {
                (a, b) if a == b => {}
                (Cell::Empty, Cell::Nuisance) => landed += 1,
                _ => return None,
            }
        }
    }
    Some(landed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn landed_nuisance_is_what_sits_on_top_of_the_predicted_field() {
        let mut after = Field::new();
        after.set(1, 13, Cell::Color(crate::game::Color::new(0).expect("a colour")));
        let mut now = after;
        now.set(1, 12, Cell::Nuisance);
        now.set(4, 13, Cell::Nuisance);
        assert_eq!(landed_on(&after, &now), Some(2));
        let mut other = now;
        other.set(1, 13, Cell::Empty);
        assert_eq!(landed_on(&after, &other), None, "a changed colour cell is not nuisance landing");
    }
}
