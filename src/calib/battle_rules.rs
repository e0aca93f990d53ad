//! The 2P rules learned from the running game: points per nuisance, the per-chain cap, the most nuisance
//! that falls at once and what happens to nuisance that does not fit.
//!
//! Nobody can be told these for the cartridge, so every rule set in a wide grid is a hypothesis, each
//! carrying the nuisance state it predicts (the senders' leftover points, what waits on each side). Every
//! observation (a chain's score at its lock, the nuisance that landed on a field, RAM's pending count
//! where the address file knows it) removes the hypotheses it contradicts. When the moment a send
//! reaches the other side is not seen (a chain ends while the other player's piece resolves) each
//! hypothesis branches over the possible orders and the observations prune the branches.
//!
//! Pure: it sees fields and numbers, never RAM or the emulator ([`crate::play`] feeds it).

use std::collections::BTreeSet;

use serde::Serialize;

use crate::game::{Cell, Field, HEIGHT, NuisanceOverflow, Rules, WIDTH};

/// Points per nuisance considered, in tens (the cartridge counts score in tens): 10 to 200 points.
const RATE_TENS: std::ops::RangeInclusive<u16> = 1..=20;
/// Largest per-chain cap considered (a cap above what any chain sent acts as none).
const MAX_CAP: u16 = 120;
/// Largest drop considered (twelve rows).
const MAX_DROP: u16 = 72;

/// One 2P rule set, as compact as the grid needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct RuleSet {
    /// Points per nuisance.
    pub points: u16,
    /// Most nuisance one chain sends; `None`: no cap.
    pub cap: Option<u16>,
    /// Most nuisance that falls at once.
    pub drop: u16,
    /// Nuisance that finds its column full goes back to the queue (else it vanishes).
    pub requeue: bool,
}

impl RuleSet {
    /// The rule set `rules` plays with.
    pub fn of(rules: &Rules) -> RuleSet {
        RuleSet {
            points: rules.nuisance_rate.min(u16::MAX as u32) as u16,
            cap: rules.nuisance_cap_per_chain.map(|c| c.min(u16::MAX as u32) as u16),
            drop: rules.nuisance_max_drop.min(u16::MAX as u32) as u16,
            requeue: rules.nuisance_overflow == NuisanceOverflow::Requeue,
        }
    }

    /// Writes this rule set into `rules`.
    pub fn apply(self, rules: &mut Rules) {
        rules.nuisance_rate = self.points as u32;
        rules.nuisance_cap_per_chain = self.cap.map(u32::from);
        rules.nuisance_max_drop = self.drop as u32;
        rules.nuisance_overflow = if self.requeue { NuisanceOverflow::Requeue } else { NuisanceOverflow::Vanish };
    }

    /// The rules in words, e.g. `cap 30, 70 points, 30 per drop, vanish`.
    pub fn describe(self) -> String {
        let cap = self.cap.map_or("no cap".to_string(), |c| format!("cap {c}"));
        let over = if self.requeue { "requeue" } else { "vanish" };
        format!("{cap}, {} points, {} per drop, {over}", self.points, self.drop)
    }

    /// The names of the rules in which `self` and `other` differ.
    fn differences(self, other: RuleSet) -> Vec<&'static str> {
        let mut out = Vec::new();
        if self.cap != other.cap {
            out.push(RULE_CAP);
        }
        if self.points != other.points {
            out.push(RULE_POINTS);
        }
        if self.drop != other.drop {
            out.push(RULE_DROP);
        }
        if self.requeue != other.requeue {
            out.push(RULE_OVERFLOW);
        }
        out
    }
}

/// The names the reports give the four rules.
pub const RULE_CAP: &str = "per-chain cap";
/// Points per nuisance.
pub const RULE_POINTS: &str = "points per nuisance";
/// Most nuisance per drop.
pub const RULE_DROP: &str = "nuisance per drop";
/// What nuisance that does not fit does.
pub const RULE_OVERFLOW: &str = "overflow";

/// The nuisance state one hypothesis predicts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
struct Track {
    /// Each sender's leftover points.
    carry: [u16; 2],
    /// Nuisance waiting on each player, sent before its current piece locked.
    pending: [u32; 2],
    /// Nuisance each player's running chain will send (not yet known to have arrived).
    inflight: [u32; 2],
    /// Nuisance that reached each player while its piece resolved: before or after its drop, unseen.
    late: [u32; 2],
}

/// A hypothesis: a rule set and the state it predicts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Hypothesis {
    rules: RuleSet,
    track: Track,
}

/// One drop as seen: what the field was before and how many nuisance landed.
#[derive(Clone, Copy, Debug)]
pub struct DropSeen {
    /// The player the nuisance fell on.
    pub player: usize,
    /// Its field after its chain, before the drop.
    pub before: Field,
    /// Nuisance that landed.
    pub landed: u32,
}

/// What an observation did to the hypotheses.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The rules in use still explain everything seen.
    Holds,
    /// The rules in use were ruled out and replaced by the closest standing ones.
    Relearned {
        /// The rules that differ from the new choice.
        wrong: Vec<&'static str>,
        /// The rules in use before.
        was: RuleSet,
        /// The rules in use now.
        now: RuleSet,
    },
    /// No rule set in the grid explains what was seen.
    Contradiction,
}

/// The hypotheses still standing and what the observations showed.
#[derive(Clone, Debug)]
pub struct BattleRules {
    alive: Vec<Hypothesis>,
    /// Each player's piece has locked and its drop is not yet seen.
    in_window: [bool; 2],
    /// The rules the session plays with.
    in_use: RuleSet,
    chains: u32,
    drops: u32,
    relearned: Vec<String>,
    contradiction: Option<String>,
}

impl BattleRules {
    /// Every rule set of the grid, the session starting with `rules`' (added when off the grid).
    pub fn new(rules: &Rules) -> BattleRules {
        let in_use = RuleSet::of(rules);
        let mut alive = Vec::new();
        for tens in RATE_TENS {
            for cap in std::iter::once(None).chain((1..=MAX_CAP).map(Some)) {
                for drop in 1..=MAX_DROP {
                    for requeue in [false, true] {
                        let rules = RuleSet { points: tens * 10, cap, drop, requeue };
                        alive.push(Hypothesis { rules, track: Track::default() });
                    }
                }
            }
        }
        if !alive.iter().any(|h| h.rules == in_use) {
            alive.push(Hypothesis { rules: in_use, track: Track::default() });
        }
        BattleRules {
            alive,
            in_window: [false; 2],
            in_use,
            chains: 0,
            drops: 0,
            relearned: Vec::new(),
            contradiction: None,
        }
    }

    /// The rules the session should play with.
    pub fn in_use(&self) -> RuleSet {
        self.in_use
    }

    /// The session plays with `rules` from now on (set by the person, or the first learned contract):
    /// checked like the guesses.
    pub fn set_in_use(&mut self, rules: RuleSet) {
        self.in_use = rules;
    }

    /// Whether no rule set is left.
    pub fn contradicted(&self) -> bool {
        self.contradiction.is_some()
    }

    /// A new game: nothing is pending, no sender has points left over.
    pub fn new_game(&mut self) {
        for h in &mut self.alive {
            h.track = Track::default();
        }
        self.dedup();
        self.in_window = [false; 2];
    }

    /// `player`'s piece locked and its chain scores `score` points: what it sends is under way.
    pub fn locked(&mut self, player: usize, score: u32) {
        let p = player & 1;
        self.in_window[p] = true;
        if score == 0 {
            return;
        }
        self.chains += 1;
        for h in &mut self.alive {
            let t = &mut h.track;
            let total = t.carry[p] as u32 + score;
            let rate = h.rules.points as u32;
            t.carry[p] = (total % rate) as u16;
            let count = total / rate;
            t.inflight[p] += h.rules.cap.map_or(count, |c| count.min(c as u32));
        }
    }

    /// `player`'s next piece became controllable: its chain's nuisance has reached the other side.
    pub fn chain_arrived(&mut self, player: usize) {
        let (p, other) = (player & 1, 1 - (player & 1));
        let late = self.in_window[other];
        for h in &mut self.alive {
            let t = &mut h.track;
            let sent = std::mem::take(&mut t.inflight[p]);
            if late { t.late[other] += sent } else { t.pending[other] += sent }
        }
    }

    /// The drop on `seen.player` (seen when its next piece became controllable, before
    /// [`BattleRules::chain_arrived`] for the same frame). Returns what it did to the rules in use.
    pub fn dropped(&mut self, seen: &DropSeen, what: &str) -> Outcome {
        let k = seen.player & 1;
        if !std::mem::replace(&mut self.in_window[k], false) {
            return Outcome::Holds;
        }
        self.drops += 1;
        let free = free_cells(&seen.before);
        let mut next = Vec::with_capacity(self.alive.len());
        for h in &self.alive {
            branch_drop(h, k, &free, seen.landed, &mut next);
        }
        let grew = next.len() > self.alive.len();
        self.alive = next;
        if grew {
            self.dedup();
        }
        self.judge(what)
    }

    /// RAM's pending count for `player` (where the address file has it), read when nothing is known to
    /// be on its way to it but the other side's running chain.
    pub fn pending_seen(&mut self, player: usize, pending: u32, what: &str) -> Outcome {
        let k = player & 1;
        if self.in_window[k] {
            return Outcome::Holds;
        }
        let j = 1 - k;
        self.alive.retain(|h| {
            let t = &h.track;
            t.late[k] == 0 && (t.pending[k] == pending || t.pending[k] + t.inflight[j] == pending)
        });
        self.judge(what)
    }

    /// After an observation: the rules in use still stand, or are replaced by the closest standing ones,
    /// or nothing stands.
    fn judge(&mut self, what: &str) -> Outcome {
        if self.contradiction.is_some() {
            return Outcome::Contradiction;
        }
        if self.alive.is_empty() {
            self.contradiction = Some(format!("no 2P rule set explains {what}"));
            return Outcome::Contradiction;
        }
        if self.alive.iter().any(|h| h.rules == self.in_use) {
            return Outcome::Holds;
        }
        let was = self.in_use;
        let now = self.closest(was);
        let wrong = was.differences(now);
        self.relearned.push(format!(
            "{what}: the {} {} wrong; now {}",
            wrong.join(" and "),
            if wrong.len() == 1 { "was" } else { "were" },
            now.describe()
        ));
        self.in_use = now;
        Outcome::Relearned { wrong, was, now }
    }

    /// The standing rule set closest to `to`: the most rules equal, then the nearest numbers.
    fn closest(&self, to: RuleSet) -> RuleSet {
        let distance = |r: &RuleSet| {
            let same = [r.cap == to.cap, r.points == to.points, r.drop == to.drop, r.requeue == to.requeue];
            let cap = |c: Option<u16>| c.map_or(MAX_CAP as i64 + 1, i64::from);
            let near = (r.points as i64 - to.points as i64).abs()
                + (cap(r.cap) - cap(to.cap)).abs()
                + (r.drop as i64 - to.drop as i64).abs();
            (std::cmp::Reverse(same.iter().filter(|s| **s).count()), near, *r)
        };
        self.alive.iter().map(|h| h.rules).min_by_key(distance).unwrap_or(to)
    }

    fn dedup(&mut self) {
        self.alive.sort_unstable();
        self.alive.dedup();
    }

    /// The JSON `calibration.rules` object.
    pub fn report(&self) -> BattleRulesReport {
        let sets: BTreeSet<RuleSet> = self.alive.iter().map(|h| h.rules).collect();
        let caps: BTreeSet<Option<u16>> = sets.iter().map(|r| r.cap).collect();
        let points: BTreeSet<u16> = sets.iter().map(|r| r.points).collect();
        let drops: BTreeSet<u16> = sets.iter().map(|r| r.drop).collect();
        let over: BTreeSet<bool> = sets.iter().map(|r| r.requeue).collect();
        let known = caps.len() == 1 && points.len() == 1 && drops.len() == 1 && over.len() == 1;
        let state = if self.contradiction.is_some() {
            "contradiction"
        } else if known {
            "settled"
        } else {
            "learning"
        };
        BattleRulesReport {
            state: state.into(),
            in_use: self.in_use.describe(),
            cap_per_chain: describe_caps(&caps),
            nuisance_points: describe_numbers(points.iter().map(|&p| p as u32)),
            max_drop: describe_numbers(drops.iter().map(|&d| d as u32)),
            overflow: over.iter().map(|&r| if r { "requeue" } else { "vanish" }).collect::<Vec<_>>().join(" or "),
            chains_seen: self.chains,
            drops_seen: self.drops,
            relearned: self.relearned.clone(),
            contradiction: self.contradiction.clone(),
            blind_games: 0,
        }
    }
}

/// Every order of the unseen arrivals relative to `k`'s drop (none, the ones that arrived while its
/// piece resolved, those and the other side's running chain), each kept when it explains `landed`.
fn branch_drop(h: &Hypothesis, k: usize, free: &[u32; WIDTH], landed: u32, out: &mut Vec<Hypothesis>) {
    let j = 1 - k;
    let t = h.track;
    let options: &[(bool, bool)] = match (t.late[k] > 0, t.inflight[j] > 0) {
        (false, false) => &[(false, false)],
        (true, false) => &[(false, false), (true, false)],
        (false, true) => &[(false, false), (false, true)],
        (true, true) => &[(false, false), (true, false), (true, true)],
    };
    for &(with_late, with_chain) in options {
        let mut n = t;
        let before = t.pending[k] + if with_late { t.late[k] } else { 0 } + if with_chain { t.inflight[j] } else { 0 };
        let falls = before.min(h.rules.drop as u32);
        let (lo, hi) = landed_range(falls, free);
        if landed < lo || landed > hi {
            continue;
        }
        let taken = if h.rules.requeue { landed } else { falls };
        n.pending[k] = before - taken + if with_late { 0 } else { t.late[k] };
        n.late[k] = 0;
        if with_chain {
            n.inflight[j] = 0;
        }
        out.push(Hypothesis { rules: h.rules, track: n });
    }
}

/// Empty cells above each column's stack (the hidden row included).
fn free_cells(field: &Field) -> [u32; WIDTH] {
    let mut free = [0; WIDTH];
    for (x, f) in free.iter_mut().enumerate() {
        *f = (0..HEIGHT).take_while(|&y| field.get(x + 1, y) == Cell::Empty).count() as u32;
    }
    free
}

/// The fewest and most of `n` nuisance that can land on columns with `free` cells (whole rows first,
/// the rest in distinct columns of the game's choosing). The hidden row may or may not take nuisance on
/// a cartridge, so the fewest counts a column's free cells without it.
fn landed_range(n: u32, free: &[u32; WIDTH]) -> (u32, u32) {
    let rows = n / WIDTH as u32;
    let rest = n % WIDTH as u32;
    let bound = |hidden_counts: bool| {
        let room: Vec<u32> = free.iter().map(|&f| if hidden_counts { f } else { f.saturating_sub(1) }).collect();
        let base: u32 = room.iter().map(|&f| f.min(rows)).sum();
        let extra = room.iter().filter(|&&f| f > rows).count() as u32;
        (base, extra)
    };
    let (base_lo, extra_lo) = bound(false);
    let (base_hi, extra_hi) = bound(true);
    let lo = base_lo + rest.saturating_sub(WIDTH as u32 - extra_lo);
    let hi = base_hi + rest.min(extra_hi);
    (lo, hi)
}

fn describe_caps(caps: &BTreeSet<Option<u16>>) -> String {
    let numbers = describe_numbers(caps.iter().flatten().map(|&c| c as u32));
    match (caps.contains(&None), numbers.is_empty()) {
        (true, true) => "none".into(),
        (true, false) => format!("none or {numbers}"),
        (false, _) => numbers,
    }
}

/// `values` as runs, e.g. `30` or `36..72` or `40, 70..80`.
fn describe_numbers(values: impl Iterator<Item = u32>) -> String {
    let v: Vec<u32> = values.collect();
    let step = if v.iter().all(|x| x % 10 == 0) && v.len() > 1 { 10 } else { 1 };
    let mut runs: Vec<String> = Vec::new();
    let mut i = 0;
    while i < v.len() {
        let mut j = i;
        while j + 1 < v.len() && v[j + 1] == v[j] + step {
            j += 1;
        }
        runs.push(if i == j { v[i].to_string() } else { format!("{}..{}", v[i], v[j]) });
        i = j + 1;
    }
    runs.join(", ")
}

/// The `calibration.rules` object: the 2P rules as learned from the game.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct BattleRulesReport {
    /// `"settled"` (one value of each rule stands), `"learning"` or `"contradiction"`.
    pub state: String,
    /// The rules the bots play with, in words.
    pub in_use: String,
    /// Per-chain caps still standing (`none` = no cap).
    pub cap_per_chain: String,
    /// Points per nuisance still standing.
    pub nuisance_points: String,
    /// Most nuisance per drop still standing.
    pub max_drop: String,
    /// `vanish`, `requeue` or both.
    pub overflow: String,
    /// Chains that scored, seen at their lock.
    pub chains_seen: u32,
    /// Drops seen (a piece's turn to receive, nuisance or not).
    pub drops_seen: u32,
    /// Each time the rules in use were ruled out, what showed it and what replaced them.
    pub relearned: Vec<String>,
    /// What no rule set explains, when that happened.
    pub contradiction: Option<String>,
    /// Games (or their rest) whose nuisance could not be followed: begun before the contract settled, or
    /// a field that disagreed with the model (the lock check names that).
    pub blind_games: u32,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn empty() -> Field {
        Field::new()
    }

    #[test]
    fn a_cut_chain_relearns_the_cap_from_ram_pending() {
        let mut b = BattleRules::new(&Rules::puyo1());
        // 4 200 points at 70 a nuisance is 60 nuisance: a cap of 30 sends 30, RAM shows 60.
        b.locked(0, 4200);
        let _ = b.dropped(&DropSeen { player: 0, before: empty(), landed: 0 }, "P1's drop");
        b.chain_arrived(0);
        let out = b.pending_seen(1, 60, "P2's pending");
        match out {
            Outcome::Relearned { wrong, .. } => assert_eq!(wrong, vec![RULE_CAP]),
            other => panic!("expected the cap to be relearned, got {other:?}"),
        }
        assert!(b.in_use().cap.is_none_or(|c| c >= 60), "{:?}", b.in_use());
    }

    #[test]
    fn landed_nuisance_alone_shows_the_drop_size() {
        let mut b = BattleRules::new(&Rules::puyo1());
        b.locked(0, 4200); // 60 nuisance under no cap, 30 under the guess
        b.locked(1, 0);
        b.chain_arrived(0);
        let out = b.dropped(&DropSeen { player: 1, before: empty(), landed: 30 }, "P2's drop");
        assert_eq!(out, Outcome::Holds, "30 landing fits the guess");
        b.locked(1, 0);
        let out = b.dropped(&DropSeen { player: 1, before: empty(), landed: 30 }, "P2's second drop");
        assert!(matches!(out, Outcome::Relearned { .. }), "a second 30 means more than 30 were sent: {out:?}");
        assert!(b.in_use().cap.is_none_or(|c| c >= 60));
    }

    #[test]
    fn what_no_rule_explains_is_a_contradiction() {
        let mut b = BattleRules::new(&Rules::puyo1());
        b.locked(1, 0);
        // Nuisance landing with nothing ever sent.
        let out = b.dropped(&DropSeen { player: 1, before: empty(), landed: 5 }, "P2's drop");
        assert_eq!(out, Outcome::Contradiction);
        assert_eq!(b.report().state, "contradiction");
    }

    #[test]
    fn the_range_of_landed_nuisance_follows_full_columns() {
        let free = [14, 14, 0, 14, 14, 14];
        assert_eq!(landed_range(6, &free), (5, 5));
        assert_eq!(landed_range(3, &free), (2, 3), "the game may pick the full column");
        assert_eq!(landed_range(8, &[14; 6]), (8, 8));
    }

    #[test]
    fn numbers_read_as_runs() {
        assert_eq!(describe_numbers([30, 31, 32, 40].into_iter()), "30..32, 40");
        assert_eq!(describe_numbers([60, 70, 80].into_iter()), "60..80");
        let caps: BTreeSet<Option<u16>> = [None, Some(45), Some(46)].into_iter().collect();
        assert_eq!(describe_caps(&caps), "none or 45..46");
    }
}
