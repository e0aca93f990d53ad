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

use std::collections::{BTreeMap, BTreeSet};

use bit_set::BitSet;

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

    /// The rules in a few upper-case words for the window's status line, e.g. `CAP 30 70PT DROP 30`
    /// (`REQUEUE` added when nuisance that does not fit goes back to the queue).
    pub fn short(self) -> String {
        let cap = self.cap.map_or("NO CAP".to_string(), |c| format!("CAP {c}"));
        let over = if self.requeue { " REQUEUE" } else { "" };
        format!("{cap} {}PT DROP {}{over}", self.points, self.drop)
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
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
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

/// The values each rule may take: the grid every rule set is drawn from.
#[derive(Clone, Debug)]
struct Grid {
    points: Vec<u16>,
    caps: Vec<Option<u16>>,
    drops: Vec<u16>,
}

impl Grid {
    /// The wide grid, with `extra`'s values added where they are off it.
    fn around(extra: RuleSet) -> Grid {
        let mut points: Vec<u16> = RATE_TENS.map(|t| t * 10).collect();
        let mut caps: Vec<Option<u16>> = std::iter::once(None).chain((1..=MAX_CAP).map(Some)).collect();
        let mut drops: Vec<u16> = (1..=MAX_DROP).collect();
        add_missing(&mut points, extra.points);
        add_missing(&mut caps, extra.cap);
        add_missing(&mut drops, extra.drop);
        Grid { points, caps, drops }
    }

    /// The sending rules (points, cap) at `index`.
    fn sending(&self, index: usize) -> (u16, Option<u16>) {
        (self.points[index / self.caps.len()], self.caps[index % self.caps.len()])
    }

    /// The landing rules (drop, requeue) at `index`.
    fn landing(&self, index: usize) -> (u16, bool) {
        (self.drops[index / 2], index % 2 == 1)
    }

    /// The index of `rules`' sending part, when on the grid.
    fn sending_index(&self, rules: RuleSet) -> Option<usize> {
        let p = self.points.iter().position(|&v| v == rules.points)?;
        let c = self.caps.iter().position(|&v| v == rules.cap)?;
        Some(p * self.caps.len() + c)
    }

    /// The index of `rules`' landing part, when on the grid.
    fn landing_index(&self, rules: RuleSet) -> Option<usize> {
        let d = self.drops.iter().position(|&v| v == rules.drop)?;
        Some(d * 2 + usize::from(rules.requeue))
    }

    fn all_sending(&self) -> BitSet {
        (0..self.points.len() * self.caps.len()).collect()
    }

    fn all_landing(&self) -> BitSet {
        (0..self.drops.len() * 2).collect()
    }
}

fn add_missing<T: PartialEq>(values: &mut Vec<T>, value: T) {
    if !values.contains(&value) {
        values.push(value);
    }
}

/// Hypotheses that predict the same state: every sending rule of `sending` with every landing rule of
/// `landing`. A chain's lock splits a group by its sending rules alone (points and cap decide what is
/// sent) and a drop by its landing rules alone (drop size and overflow decide what lands), so the
/// hypotheses standing are always a union of such products. That keeps the grid's 350 000 rule sets
/// in a few kilobytes instead of megabytes.
#[derive(Clone, Debug)]
struct Group {
    track: Track,
    /// Indices of (points, cap) on the grid.
    sending: BitSet,
    /// Indices of (drop, requeue) on the grid.
    landing: BitSet,
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
    grid: Grid,
    alive: Vec<Group>,
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
        let grid = Grid::around(in_use);
        let alive = vec![Group { track: Track::default(), sending: grid.all_sending(), landing: grid.all_landing() }];
        BattleRules {
            grid,
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

    /// Whether one rule set alone still stands (one value of each rule). Cheap: the window asks every
    /// frame.
    pub fn settled(&self) -> bool {
        let single = |sets: &mut dyn Iterator<Item = &BitSet>| {
            let mut only = None;
            for set in sets {
                let mut it = set.iter();
                let (Some(i), None) = (it.next(), it.next()) else { return false };
                if *only.get_or_insert(i) != i {
                    return false;
                }
            }
            only.is_some()
        };
        single(&mut self.alive.iter().map(|g| &g.sending)) && single(&mut self.alive.iter().map(|g| &g.landing))
    }

    /// Whether no rule set is left.
    pub fn contradicted(&self) -> bool {
        self.contradiction.is_some()
    }

    /// A new game: nothing is pending, no sender has points left over.
    pub fn new_game(&mut self) {
        for g in &mut self.alive {
            g.track = Track::default();
        }
        self.merge();
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
        let mut next = Vec::with_capacity(self.alive.len());
        for g in &self.alive {
            let mut parts: BTreeMap<Track, BitSet> = BTreeMap::new();
            for i in g.sending.iter() {
                let (points, cap) = self.grid.sending(i);
                let mut t = g.track;
                let total = t.carry[p] as u32 + score;
                let rate = points as u32;
                t.carry[p] = (total % rate) as u16;
                let count = total / rate;
                t.inflight[p] += cap.map_or(count, |c| count.min(c as u32));
                parts.entry(t).or_default().insert(i);
            }
            next.extend(parts.into_iter().map(|(track, sending)| Group { track, sending, landing: g.landing.clone() }));
        }
        self.alive = next;
        self.merge();
    }

    /// `player`'s next piece became controllable: its chain's nuisance has reached the other side.
    pub fn chain_arrived(&mut self, player: usize) {
        let (p, other) = (player & 1, 1 - (player & 1));
        let late = self.in_window[other];
        for g in &mut self.alive {
            let t = &mut g.track;
            let sent = std::mem::take(&mut t.inflight[p]);
            if late { t.late[other] += sent } else { t.pending[other] += sent }
        }
        self.merge();
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
        for g in &self.alive {
            let mut parts: BTreeMap<Track, BitSet> = BTreeMap::new();
            for i in g.landing.iter() {
                let (drop, requeue) = self.grid.landing(i);
                for t in branch_drop(g.track, drop, requeue, k, &free, seen.landed) {
                    parts.entry(t).or_default().insert(i);
                }
            }
            next.extend(parts.into_iter().map(|(track, landing)| Group { track, sending: g.sending.clone(), landing }));
        }
        self.alive = next;
        self.merge();
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
        self.alive.retain(|g| {
            let t = &g.track;
            t.late[k] == 0 && (t.pending[k] == pending || t.pending[k] + t.inflight[j] == pending)
        });
        self.judge(what)
    }

    /// Whether `rules` still explains everything seen.
    fn stands(&self, rules: RuleSet) -> bool {
        let (Some(s), Some(l)) = (self.grid.sending_index(rules), self.grid.landing_index(rules)) else {
            return false;
        };
        self.alive.iter().any(|g| g.sending.contains(s) && g.landing.contains(l))
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
        if self.stands(self.in_use) {
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

    /// The standing rule set closest to `to`: the most rules equal, then the nearest numbers. Each
    /// group's best pairs its best sending rule with its best landing rule for every count of equal
    /// rules on either side (the distance is a sum over the two sides).
    fn closest(&self, to: RuleSet) -> RuleSet {
        let cap = |c: Option<u16>| c.map_or(MAX_CAP as i64 + 1, i64::from);
        let mut best: Option<((std::cmp::Reverse<usize>, i64), RuleSet)> = None;
        for g in &self.alive {
            let sending = best_per_sameness(g.sending.iter().map(|i| {
                let (points, c) = self.grid.sending(i);
                let same = usize::from(points == to.points) + usize::from(c == to.cap);
                (same, (points as i64 - to.points as i64).abs() + (cap(c) - cap(to.cap)).abs(), (points, c))
            }));
            let landing = best_per_sameness(g.landing.iter().map(|i| {
                let (drop, requeue) = self.grid.landing(i);
                let same = usize::from(drop == to.drop) + usize::from(requeue == to.requeue);
                (same, (drop as i64 - to.drop as i64).abs(), (drop, requeue))
            }));
            for &(s_same, s_near, (points, c)) in sending.iter().flatten() {
                for &(l_same, l_near, (drop, requeue)) in landing.iter().flatten() {
                    let key = (std::cmp::Reverse(s_same + l_same), s_near + l_near);
                    let rules = RuleSet { points, cap: c, drop, requeue };
                    if best.as_ref().is_none_or(|(k, r)| (key, rules) < (*k, *r)) {
                        best = Some((key, rules));
                    }
                }
            }
        }
        best.map_or(to, |(_, r)| r)
    }

    /// Groups with the same state and the same rules on one side become one.
    fn merge(&mut self) {
        let mut by_sending: BTreeMap<(Track, BitSet), BitSet> = BTreeMap::new();
        for g in self.alive.drain(..) {
            by_sending.entry((g.track, g.sending)).or_default().union_with(&g.landing);
        }
        let mut by_landing: BTreeMap<(Track, BitSet), BitSet> = BTreeMap::new();
        for ((track, sending), landing) in by_sending {
            by_landing.entry((track, landing)).or_default().union_with(&sending);
        }
        self.alive =
            by_landing.into_iter().map(|((track, landing), sending)| Group { track, sending, landing }).collect();
    }

    /// The JSON `calibration.rules` object.
    pub fn report(&self) -> BattleRulesReport {
        let mut caps: BTreeSet<Option<u16>> = BTreeSet::new();
        let mut points: BTreeSet<u16> = BTreeSet::new();
        let mut drops: BTreeSet<u16> = BTreeSet::new();
        let mut over: BTreeSet<bool> = BTreeSet::new();
        for g in &self.alive {
            for (p, c) in g.sending.iter().map(|i| self.grid.sending(i)) {
                points.insert(p);
                caps.insert(c);
            }
            for (d, r) in g.landing.iter().map(|i| self.grid.landing(i)) {
                drops.insert(d);
                over.insert(r);
            }
        }
        let state = if self.contradiction.is_some() {
            "contradiction"
        } else if self.settled() {
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

/// For each count of equal rules (0, 1 or 2), the candidate nearest to the target (ties: the smallest).
fn best_per_sameness<T: Ord + Copy>(candidates: impl Iterator<Item = (usize, i64, T)>) -> [Option<(usize, i64, T)>; 3] {
    let mut best: [Option<(usize, i64, T)>; 3] = [None; 3];
    for c in candidates {
        let slot = &mut best[c.0.min(2)];
        if slot.is_none_or(|b| (c.1, c.2) < (b.1, b.2)) {
            *slot = Some(c);
        }
    }
    best
}

/// Every order of the unseen arrivals relative to `k`'s drop (none, the ones that arrived while its
/// piece resolved, those and the other side's running chain) under a drop of at most `drop` nuisance,
/// each kept (as the state it leaves) when it explains `landed`.
fn branch_drop(t: Track, drop: u16, requeue: bool, k: usize, free: &[u32; WIDTH], landed: u32) -> Vec<Track> {
    let j = 1 - k;
    let options: &[(bool, bool)] = match (t.late[k] > 0, t.inflight[j] > 0) {
        (false, false) => &[(false, false)],
        (true, false) => &[(false, false), (true, false)],
        (false, true) => &[(false, false), (false, true)],
        (true, true) => &[(false, false), (true, false), (true, true)],
    };
    let mut out = Vec::new();
    for &(with_late, with_chain) in options {
        let mut n = t;
        let before = t.pending[k] + if with_late { t.late[k] } else { 0 } + if with_chain { t.inflight[j] } else { 0 };
        let falls = before.min(drop as u32);
        let (lo, hi) = landed_range(falls, free);
        if landed < lo || landed > hi {
            continue;
        }
        let taken = if requeue { landed } else { falls };
        n.pending[k] = before - taken + if with_late { 0 } else { t.late[k] };
        n.late[k] = 0;
        if with_chain {
            n.inflight[j] = 0;
        }
        out.push(n);
    }
    out
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
    fn the_whole_grid_is_held_in_a_few_groups_not_one_entry_per_rule_set() {
        let mut b = BattleRules::new(&Rules::puyo1());
        assert_eq!(b.alive.len(), 1, "before any chain every rule set predicts the same state");
        assert!(b.grid.points.len() * b.grid.caps.len() * b.grid.drops.len() * 2 > 300_000);
        // A big chain each way, each seen landing: the groups follow what the rules predict differently.
        b.locked(0, 4200);
        b.locked(1, 0);
        b.chain_arrived(0);
        let _ = b.dropped(&DropSeen { player: 1, before: empty(), landed: 30 }, "P2's drop");
        b.locked(1, 2100);
        b.locked(0, 0);
        b.chain_arrived(1);
        let _ = b.dropped(&DropSeen { player: 0, before: empty(), landed: 30 }, "P1's drop");
        let bits: usize = b.alive.iter().map(|g| g.sending.capacity() + g.landing.capacity()).sum();
        assert!(b.alive.len() < 2_000, "{} groups", b.alive.len());
        assert!(bits / 8 < 256 * 1024, "{bits} bits held: the learner must stay small beside the emulator");
        b.new_game();
        assert!(b.alive.len() < 200, "a new game's reset folds the groups back: {}", b.alive.len());
        assert_eq!(b.report().state, "learning");
    }

    #[test]
    fn one_rule_set_left_is_settled_and_two_are_not() {
        let mut b = BattleRules::new(&Rules::puyo1());
        assert!(!b.settled());
        let rules = RuleSet::of(&Rules::puyo1());
        let (s, l) = (b.grid.sending_index(rules).unwrap(), b.grid.landing_index(rules).unwrap());
        let one = |i: usize| std::iter::once(i).collect::<BitSet>();
        b.alive = vec![Group { track: Track::default(), sending: one(s), landing: one(l) }];
        assert!(b.settled());
        assert_eq!(b.report().state, "settled");
        b.alive.push(Group {
            track: Track { carry: [1, 0], ..Track::default() },
            sending: one(s + 1),
            landing: one(l),
        });
        assert!(!b.settled(), "a second cap still stands");
        assert_eq!(b.report().state, "learning");
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
