//! Move generation: every lock placement of a piece reachable from where it is now, with the shortest
//! input path to get there.
//!
//! The search is a breadth-first walk over piece positions (pivot column, pivot row, orientation) using
//! the movement contract of the reference (§7): a move left or right succeeds when every cell of the piece
//! at the new column is inside the field and empty; a rotation turns the child around the pivot when the
//! child's target cell is free, else kicks (sideways for Right/Left, up one row for Down) when the kick
//! cell is free, else fails. No gravity acts during the walk: the bot acts every frame, so the piece is
//! modelled at the row it is at now (the spawn row by default). When the walk is over, the driver drops
//! the piece straight down and it locks at the placement.

use super::field::{HEIGHT, WIDTH, bit};
use super::timing::Timing;
use super::{Field, Item, Orientation, Piece, Placement, Rules};

pub use super::Step;

/// The inputs that bring a piece from its current position to a placement; after them the driver drops.
pub type InputPath = Vec<Step>;

/// Where a falling piece is: pivot column (1..=6; a Big Puyo's left column), pivot row (0..=13) and
/// orientation (always `Up` for items).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PiecePosition {
    /// Pivot column, 1-based.
    pub x: u8,
    /// Pivot row (0 = hidden row, 13 = bottom).
    pub y: u8,
    /// Direction from pivot to child.
    pub orientation: Orientation,
}

impl PiecePosition {
    /// The spawn position of the rules: pivot at (`spawn_x`, `spawn_y`), child towards the rules' spawn
    /// orientation.
    pub fn spawn(rules: &Rules) -> PiecePosition {
        PiecePosition { x: rules.spawn_x, y: rules.spawn_y, orientation: rules.spawn_orientation }
    }
}

/// The movement rules, kept as parameters because the cartridge's are not verified (docs/cartridge.md §5, §7).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct MoveRules {
    /// A rotation to Right/Left blocked at the child's cell shifts the pivot one column away.
    pub kick_sideways: bool,
    /// A rotation to Down blocked below lifts the pivot one row when that cell is free.
    pub kick_up: bool,
    /// Rows above this one are outside the field (0: the hidden row is the highest usable row).
    pub top_row: u8,
    /// The game's clock: with it, a placement counts only if its presses are done, with the margin,
    /// before the pair locks, the pair falling while they happen ([`Timing`]). `None` (the default):
    /// no time limit, the piece waits at its row. Not part of a profile file: the player sets it.
    #[serde(skip)]
    pub timing: Option<Timing>,
}

impl Default for MoveRules {
    fn default() -> Self {
        MoveRules { kick_sideways: true, kick_up: true, top_row: 0, timing: None }
    }
}

/// A reachable lock placement and the shortest input path to it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Move {
    /// Where the piece locks once dropped.
    pub placement: Placement,
    /// Inputs to press before dropping.
    pub path: InputPath,
    /// The position the piece is in when the path is done (where the drop starts).
    pub end: PiecePosition,
}

/// Number of distinct positions: 6 columns × 14 rows × 4 orientations.
const STATES: usize = WIDTH * HEIGHT * 4;

#[inline]
fn state_index(p: PiecePosition) -> usize {
    ((p.x as usize - 1) * HEIGHT + p.y as usize) * 4 + p.orientation.index()
}

/// What the walk needs to know about the field and the piece.
struct Walker<'a> {
    occupied: u128,
    piece: Piece,
    rules: &'a MoveRules,
}

impl Walker<'_> {
    /// True when cell (x, y) is inside the usable field and empty.
    #[inline]
    fn free(&self, x: i32, y: i32) -> bool {
        (1..=WIDTH as i32).contains(&x)
            && (self.rules.top_row as i32..HEIGHT as i32).contains(&y)
            && self.occupied & (1u128 << bit(x as usize, y as usize)) == 0
    }

    /// True when the piece at `p` cannot fall one row (it rests on the floor, a puyo or the stack).
    fn resting(&self, p: PiecePosition) -> bool {
        !self.fits(PiecePosition { y: p.y + 1, ..p })
    }

    /// Gravity on the clock from frame `from` to frame `to`: the piece at `p` falls the rows it falls by
    /// then, stopping where it rests; `landed` becomes the frame it came to rest (unchanged while it falls
    /// or had already landed).
    fn fall(&self, timing: &Timing, p: &mut PiecePosition, landed: &mut Option<u32>, from: u32, to: u32) {
        for fall in timing.rows_by(from) + 1..=timing.rows_by(to) {
            if self.resting(*p) {
                break;
            }
            p.y += 1;
            if self.resting(*p) {
                *landed = Some(timing.fall_frame(fall));
            }
        }
    }

    /// When the piece moved from `p` to `q` by a press done at frame `done` came to rest: a move onto a
    /// ledge lands it now, one along the ledge it rested on keeps its landing, one off a ledge falls again.
    fn landing_after(&self, p: PiecePosition, q: PiecePosition, landed: Option<u32>, done: u32) -> Option<u32> {
        match (self.resting(q), landed) {
            (false, _) => None,
            (true, Some(l)) if self.resting(p) && q.y == p.y => Some(l),
            (true, _) => Some(done),
        }
    }

    /// True when the piece fits at this position.
    fn fits(&self, p: PiecePosition) -> bool {
        let (x, y) = (p.x as i32, p.y as i32);
        match self.piece {
            Piece::Pair(_) => {
                self.free(x, y) && self.free(x + p.orientation.dx() as i32, y + p.orientation.dy() as i32)
            }
            Piece::Item(Item::BigPuyo) => {
                self.free(x, y) && self.free(x + 1, y) && self.free(x, y - 1) && self.free(x + 1, y - 1)
            }
            Piece::Item(Item::Carbuncle) => self.free(x, y),
        }
    }

    /// True when `step` from each of the `rows` positions straight above `p` the piece falls through
    /// gives what it gives from `p` (`q`): the same column and orientation. A press planned while the
    /// pair falls may land a row early or late; a path that leans on a kick (or a gap) found at only one
    /// of those rows is a path the game may not follow.
    fn same_from_rows_above(&self, p: PiecePosition, q: PiecePosition, step: Step, rows: u32) -> bool {
        (1..=rows.min(p.y as u32))
            .map(|k| PiecePosition { y: p.y - k as u8, ..p })
            .take_while(|&above| self.fits(above))
            .all(|above| self.apply(above, step).is_some_and(|r| (r.x, r.orientation) == (q.x, q.orientation)))
    }

    /// Where a step takes the piece, if it succeeds.
    fn apply(&self, p: PiecePosition, step: Step) -> Option<PiecePosition> {
        match step {
            Step::Left | Step::Right => {
                let dx: i32 = if step == Step::Left { -1 } else { 1 };
                let nx = p.x as i32 + dx;
                if nx < 1 {
                    return None;
                }
                let q = PiecePosition { x: nx as u8, ..p };
                self.fits(q).then_some(q)
            }
            Step::RotateCw | Step::RotateCcw => {
                if !matches!(self.piece, Piece::Pair(_)) {
                    return None;
                }
                let o =
                    if step == Step::RotateCw { p.orientation.clockwise() } else { p.orientation.counter_clockwise() };
                let (x, y) = (p.x as i32, p.y as i32);
                if self.free(x + o.dx() as i32, y + o.dy() as i32) {
                    return Some(PiecePosition { orientation: o, ..p });
                }
                match o {
                    Orientation::Right | Orientation::Left if self.rules.kick_sideways => {
                        // The pivot moves one column away from the obstacle; the child takes its old column.
                        let nx = x - o.dx() as i32;
                        self.free(nx, y).then_some(PiecePosition { x: nx as u8, y: p.y, orientation: o })
                    }
                    Orientation::Down if self.rules.kick_up && y > self.rules.top_row as i32 => {
                        self.free(x, y - 1).then(|| PiecePosition { x: p.x, y: p.y - 1, orientation: o })
                    }
                    _ => None,
                }
            }
        }
    }
}

/// The placement a position locks at, and the key that identifies equal outcomes: a pair of one colour
/// locks the same way mirrored (Up at x = Down at x, Right at x = Left at x+1).
fn placement_key(piece: Piece, p: PiecePosition) -> (Placement, Placement) {
    let placement = match piece {
        Piece::Pair(_) => Placement::new(p.x, p.orientation),
        Piece::Item(_) => Placement::new(p.x, Orientation::Up),
    };
    let key = match piece {
        Piece::Pair(pair) if pair.is_monochrome() => match p.orientation {
            Orientation::Down => Placement::new(p.x, Orientation::Up),
            Orientation::Left => Placement::new(p.x.saturating_sub(1), Orientation::Right),
            _ => placement,
        },
        _ => placement,
    };
    (placement, key)
}

/// Breadth-first walk from `start`; calls `found` once per distinct outcome, in order of path length,
/// with the position and the index of its BFS node (for path reconstruction through `parents`).
fn walk(
    field: &Field,
    piece: Piece,
    start: PiecePosition,
    rules: &MoveRules,
    parents: &mut [(u16, Option<Step>); STATES],
    mut found: impl FnMut(Placement, PiecePosition),
) {
    let walker = Walker { occupied: field.occupied(), piece, rules };
    let mut start = start;
    if !matches!(piece, Piece::Pair(_)) {
        start.orientation = Orientation::Up;
    }
    if !(1..=WIDTH as u8).contains(&start.x) || start.y as usize >= HEIGHT || !walker.fits(start) {
        return;
    }
    if let Some(timing) = rules.timing {
        return walk_timed(&walker, start, &timing, parents, found);
    }
    let mut seen = [false; STATES];
    let mut seen_keys = [false; WIDTH * 4 + 4];
    let mut queue = [start; STATES];
    let (mut head, mut tail) = (0, 1);
    seen[state_index(start)] = true;
    parents[state_index(start)] = (u16::MAX, None);
    const STEPS: [Step; 4] = [Step::Left, Step::Right, Step::RotateCw, Step::RotateCcw];
    while head < tail {
        let p = queue[head];
        head += 1;
        let (placement, key) = placement_key(piece, p);
        let k = (key.x as usize) * 4 + key.orientation.index();
        if !seen_keys[k] {
            seen_keys[k] = true;
            found(placement, p);
        }
        for step in STEPS {
            if let Some(q) = walker.apply(p, step) {
                let i = state_index(q);
                if !seen[i] {
                    seen[i] = true;
                    parents[i] = (state_index(p) as u16, Some(step));
                    queue[tail] = q;
                    tail += 1;
                }
            }
        }
    }
}

/// A position of the timed walk: where the piece is after its last press, how many presses that took,
/// the frame up to which gravity has been applied, and the frame since which it cannot fall (`None`
/// while it can).
#[derive(Clone, Copy)]
struct TimedNode {
    at: PiecePosition,
    presses: u32,
    gravity_until: u32,
    landed: Option<u32>,
}

/// The breadth-first walk of [`walk`] on the game's clock: press `i` is done by
/// [`Timing::press_done`]`(i)`; before it acts, gravity moves the piece down the rows it falls by then
/// (judged `margin` frames late, so a press is never counted on beating a fall by less), stopping where
/// it rests. A press counts only while the piece has not locked ([`Timing::in_time`]). Positions are
/// seen once, at their earliest press count (fewest presses = most time left). Same outcomes and order
/// rules as the untimed walk: each distinct placement once, by path length.
fn walk_timed(
    walker: &Walker<'_>,
    start: PiecePosition,
    timing: &Timing,
    parents: &mut [(u16, Option<Step>); STATES],
    mut found: impl FnMut(Placement, PiecePosition),
) {
    let mut seen = [false; STATES];
    let mut seen_keys = [false; WIDTH * 4 + 4];
    let first = TimedNode { at: start, presses: 0, gravity_until: 0, landed: walker.resting(start).then_some(0) };
    let mut queue = [first; STATES];
    let (mut head, mut tail) = (0, 1);
    seen[state_index(start)] = true;
    parents[state_index(start)] = (u16::MAX, None);
    const STEPS: [Step; 4] = [Step::Left, Step::Right, Step::RotateCw, Step::RotateCcw];
    while head < tail {
        let node = queue[head];
        head += 1;
        let (placement, key) = placement_key(walker.piece, node.at);
        let k = (key.x as usize) * 4 + key.orientation.index();
        if !seen_keys[k] {
            seen_keys[k] = true;
            found(placement, node.at);
        }
        // The next press: gravity first, judged `margin` frames late.
        let done = timing.press_done(node.presses);
        let judged = done + timing.margin as u32;
        let (mut p, mut landed) = (node.at, node.landed);
        walker.fall(timing, &mut p, &mut landed, node.gravity_until, judged);
        if !timing.in_time(done, landed) {
            continue; // it has locked where it is: that placement was reported above
        }
        // The rows the piece may still be above `p` when the press acts: it is planned for `done`, and
        // gravity was judged at `judged`.
        let rows_late = timing.rows_by(landed.map_or(judged, |l| l.clamp(done, judged))) - timing.rows_by(done);
        for step in STEPS {
            let Some(q) = walker.apply(p, step) else { continue };
            if !walker.same_from_rows_above(p, q, step, rows_late) {
                continue; // a kick or a block that depends on which frame the press lands on
            }
            let i = state_index(q);
            if seen[i] {
                continue;
            }
            seen[i] = true;
            parents[i] = (state_index(node.at) as u16, Some(step));
            let q_landed = walker.landing_after(p, q, landed, done);
            queue[tail] = TimedNode { at: q, presses: node.presses + 1, gravity_until: judged, landed: q_landed };
            tail += 1;
        }
    }
}

/// Where one input takes the piece from `from` (kicks included), or `None` when the game refuses it. The
/// driver's expectation of each press, so a kick is not mistaken for a fault.
pub fn step(field: &Field, piece: Piece, from: PiecePosition, step: Step, rules: &MoveRules) -> Option<PiecePosition> {
    let walker = Walker { occupied: field.occupied(), piece, rules };
    walker.apply(from, step)
}

/// Every column, as a [`cut_off`] mask.
pub const ALL_COLUMNS: u8 = (1 << WIDTH) - 1;

/// The columns (bit `x - 1` for column `x`) a pair falling as the rules' clock says cannot be moved into on
/// `field` before it locks (straight sideways from `start`, one press per column after one press spent on
/// a turn, as most placements need). A tall column between the spawn and an edge cuts the edge off once
/// gravity brings the pair below its top sooner than the presses get there; the search counts what is cut
/// off. On a clock slow enough that the pair falls no row while it is moved, only what gravity alone closes
/// counts (not a column the stacks close at the spawn's own rows), so such play is the untimed search's;
/// without a clock ([`MoveRules::timing`] `None`) nothing is cut off.
pub fn cut_off(field: &Field, start: PiecePosition, rules: &MoveRules) -> u8 {
    let Some(timing) = rules.timing else { return 0 };
    // The fast answer, and the usual one at a slow gravity: nothing stands in the rows the pair falls
    // through while it makes every press the sweep could make, so gravity stops it nowhere.
    let travel = timing.press_done(WIDTH as u32) + timing.margin as u32;
    let lowest = (start.y as usize + timing.rows_by(travel) as usize + 1).min(HEIGHT - 1);
    let lane = ((1u128 << (lowest + 1)) - 1) << (HEIGHT - 1 - lowest);
    let band = (0..WIDTH).fold(0u128, |b, x| b | lane << (16 * x));
    if field.occupied() & band == 0 {
        return 0;
    }
    let any_pair = Piece::Pair(super::Pair::new(super::Color::ALL[0], super::Color::ALL[0]));
    let walker = Walker { occupied: field.occupied(), piece: any_pair, rules };
    let start = PiecePosition { orientation: Orientation::Up, ..start };
    if !(1..=WIDTH as u8).contains(&start.x) || start.y as usize >= HEIGHT || !walker.fits(start) {
        return 0;
    }
    let in_time = sweep(&walker, start, Some(&timing));
    if timing.rows_by(travel) == 0 {
        // The pair does not fall while it is moved: only what gravity alone closes counts.
        return sweep(&walker, start, None) & !in_time;
    }
    ALL_COLUMNS & !in_time
}

/// The columns an upright pair reaches from `start` straight sideways, on the clock when one is given (each
/// press after gravity up to it, judged `margin` frames late, as the timed walk does), else held at its row.
fn sweep(walker: &Walker<'_>, start: PiecePosition, timing: Option<&Timing>) -> u8 {
    let mut mask = 1u8 << (start.x - 1);
    for dir in [Step::Left, Step::Right] {
        let (mut p, mut landed) = (start, walker.resting(start).then_some(0u32));
        // The first press is taken by a turn.
        let (mut presses, mut gravity_until) = (1u32, 0u32);
        loop {
            if let Some(timing) = timing {
                let done = timing.press_done(presses);
                let judged = done + timing.margin as u32;
                walker.fall(timing, &mut p, &mut landed, gravity_until, judged);
                if !timing.in_time(done, landed) {
                    break;
                }
                gravity_until = judged;
            }
            let Some(q) = walker.apply(p, dir) else { break };
            if let Some(timing) = timing {
                landed = walker.landing_after(p, q, landed, timing.press_done(presses));
            }
            mask |= 1 << (q.x - 1);
            (p, presses) = (q, presses + 1);
        }
    }
    mask
}

/// True when `piece` at `at` cannot fall one row (it rests on the floor or the stack): its lock delay runs.
pub fn resting(field: &Field, piece: Piece, at: PiecePosition, rules: &MoveRules) -> bool {
    Walker { occupied: field.occupied(), piece, rules }.resting(at)
}

/// True when locking `piece` at `a` and at `b` gives the same field (a one-colour pair mirrored).
pub fn same_outcome(piece: Piece, a: Placement, b: Placement) -> bool {
    let key = |p: Placement| placement_key(piece, PiecePosition { x: p.x, y: 1, orientation: p.orientation }).1;
    key(a) == key(b)
}

/// The shortest input path from `from` to `goal` (or to a placement with the same outcome), when `goal` is
/// still reachable.
pub fn path_to(field: &Field, piece: Piece, from: PiecePosition, goal: Placement, rules: &MoveRules) -> Option<Move> {
    generate(field, piece, from, rules).into_iter().find(|m| same_outcome(piece, m.placement, goal))
}

/// The placements a pair of two colours reaches from `start` on an empty field: on the rules' clock, and
/// with the pair taken to wait at its row (`(timed, untimed)`). A clock that cuts the empty field's reach
/// short leaves the bot fewer placements on every field after it: the presses arrive too late to steer.
pub fn open_reach(start: PiecePosition, rules: &MoveRules) -> (usize, usize) {
    let pair = Piece::Pair(super::Pair::new(super::Color::ALL[0], super::Color::ALL[1]));
    let field = Field::new();
    let untimed = MoveRules { timing: None, ..*rules };
    (generate(&field, pair, start, rules).len(), generate(&field, pair, start, &untimed).len())
}

/// Every distinct lock placement of `piece` reachable from `start` on `field`, each with its shortest
/// input path, in order of path length. Empty when the piece does not fit at `start`.
pub fn generate(field: &Field, piece: Piece, start: PiecePosition, rules: &MoveRules) -> Vec<Move> {
    let mut parents = [(u16::MAX, None); STATES];
    let mut ends = Vec::with_capacity(24);
    walk(field, piece, start, rules, &mut parents, |placement, end| ends.push((placement, end)));
    ends.into_iter()
        .map(|(placement, end)| {
            let mut path = Vec::new();
            let mut i = state_index(end);
            while let (parent, Some(step)) = parents[i] {
                path.push(step);
                i = parent as usize;
            }
            path.reverse();
            Move { placement, path, end }
        })
        .collect()
}

/// A small fixed-capacity list of placements, for the search's inner loops (no allocation).
#[derive(Clone, Copy, Debug)]
pub struct Placements {
    items: [Placement; 24],
    len: usize,
}

impl Placements {
    /// The placements as a slice.
    pub fn as_slice(&self) -> &[Placement] {
        &self.items[..self.len]
    }

    /// Number of placements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when no placement is reachable.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// The distinct lock placements of `piece` reachable from `start`, without paths.
pub fn placements(field: &Field, piece: Piece, start: PiecePosition, rules: &MoveRules) -> Placements {
    let mut parents = [(u16::MAX, None); STATES];
    let mut out = Placements { items: [Placement::new(1, Orientation::Up); 24], len: 0 };
    walk(field, piece, start, rules, &mut parents, |placement, _| {
        if out.len < out.items.len() {
            out.items[out.len] = placement;
            out.len += 1;
        }
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::{Color, Pair};

    fn pair(a: usize, b: usize) -> Piece {
        Piece::Pair(Pair::new(Color::ALL[a], Color::ALL[b]))
    }

    #[test]
    fn empty_field_has_22_placements_and_11_for_one_colour() {
        let rules = Rules::puyo1();
        let f = Field::new();
        let start = PiecePosition::spawn(&rules);
        assert_eq!(generate(&f, pair(0, 1), start, &MoveRules::default()).len(), 22);
        assert_eq!(generate(&f, pair(2, 2), start, &MoveRules::default()).len(), 11);
        assert_eq!(placements(&f, pair(0, 1), start, &MoveRules::default()).len(), 22);
    }

    #[test]
    fn gravity_cuts_off_the_columns_behind_a_stack_it_brings_the_pair_below() {
        use crate::game::{Cell, timing::LockDelay};
        let rules = Rules::puyo1();
        let start = PiecePosition::spawn(&rules);
        let mut f = Field::new();
        for y in 3..HEIGHT {
            f.set(2, y, Cell::Nuisance); // column 2 stands to row 3
        }
        assert_eq!(cut_off(&f, start, &MoveRules::default()), 0, "no clock: nothing is cut off");
        let clock =
            |fpr, lock| MoveRules { timing: Some(Timing { lock, ..Timing::spawned(fpr) }), ..MoveRules::default() };
        let slow = clock(30, LockDelay::None);
        assert_eq!(cut_off(&Field::new(), start, &slow), 0);
        assert_eq!(cut_off(&f, start, &slow), 0, "30 frames a row: over column 2 in time");
        // 2 frames a row: the turn and the first move are done by frame 4 (+2 in hand), 3 rows down, below
        // column 2's top: neither column 2 nor column 1 behind it is reached, and nothing stops it going right.
        let fast = clock(2, LockDelay::None);
        assert_eq!(cut_off(&f, start, &fast), 0b000011, "column 2 and column 1 behind it");
        assert_eq!(cut_off(&Field::new(), start, &fast), 0);
        // A column full to the spawn's rows: on a slow clock not gravity's doing; on a fast one it counts.
        for y in 0..HEIGHT {
            f.set(2, y, Cell::Nuisance);
        }
        assert_eq!(cut_off(&f, start, &slow), 0);
        assert_eq!(cut_off(&f, start, &fast), 0b000011);
    }

    #[test]
    fn a_timed_path_does_not_lean_on_a_kick_found_at_one_row_only() {
        // Column 3 stands to row 2, beside the spawn: a turn to Left over it kicks the pair right once it
        // has fallen to row 2, not at row 1. The presses land a row early or late with the clock's
        // margin, so the path to x6:Down must not count on that kick.
        let f = Field::from_rows(&[
            "......", "......", "..R...", ".YBRY.", "GBYRB.", "RGRBBG", "RBYRGG", "BBRBBR", "GGYGRR", "GYYGBB",
            "BGRGYB", "BYBYGY", "RRYBBG", "RYYBYB",
        ]);
        use crate::game::timing::LockDelay;
        let lock = LockDelay::Frames { frames: 8, moves: true };
        let rules = MoveRules { timing: Some(Timing { lock, ..Timing::spawned(3) }), ..MoveRules::default() };
        let start = PiecePosition { x: 3, y: 1, orientation: Orientation::Up };
        let piece = pair(3, 2);
        let target = Placement::new(6, Orientation::Down);
        let m =
            generate(&f, piece, start, &rules).into_iter().find(|m| m.placement == target).expect("x6:Down in reach");
        // Pressed before the first fall, as the driver may, the path still leads there.
        let end =
            m.path.iter().try_fold(start, |p, &s| step(&f, piece, p, s, &rules)).map(|e| placement_key(piece, e).0);
        assert_eq!(end, Some(target), "path {:?}", m.path);
    }

    #[test]
    fn the_open_reach_is_cut_short_by_a_late_press_on_a_fast_clock() {
        let start = PiecePosition::spawn(&Rules::puyo1());
        let timed = |t: &str| MoveRules { timing: Some(t.parse().unwrap()), ..MoveRules::default() };
        assert_eq!(open_reach(start, &MoveRules::default()), (22, 22), "untimed: every placement");
        assert_eq!(open_reach(start, &timed("fall=2,lock=none")), (22, 22), "fast, but the presses keep up");
        // Each press waits 8 frames for its effect while the pair falls a row every 2: it lands after two.
        let late = timed("fall=2,lock=none,lag=8");
        let (reached, of) =
            open_reach(start, &MoveRules { timing: late.timing.map(|t| Timing { press_frames: 10, ..t }), ..late });
        assert_eq!(of, 22);
        assert!(reached < 11, "{reached} placements reached");
    }
}
