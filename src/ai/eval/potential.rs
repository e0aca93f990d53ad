//! The potential-chain detector: "what chain can I trigger by adding k puyos of one colour to one
//! column?" For every column the piece can reach and every colour touching that column's top, puyos of
//! that colour are stacked one at a time (up to `max_keys`) until they pop; the field is then resolved and
//! the chain recorded. Optionally each found chain is extended: keys of other colours are added to other
//! columns of the original field, and a trial counts when it makes the same trigger fire a longer chain.

use std::ops::Range;

use crate::game::field::{FIELD_MASK, HEIGHT, VISIBLE_MASK, WIDTH, at_least, bit, flood, neighbours};
use crate::game::{Cell, ChainSummary, Color, Field, Rules};

/// A chain the field could fire.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Potential {
    /// Chain length.
    pub chains: u32,
    /// Score of the chain.
    pub score: u32,
    /// Trigger column, 1-based.
    pub x: u8,
    /// Trigger colour.
    pub color: Color,
    /// Puyos added in all (trigger keys plus extension keys).
    pub keys: u32,
    /// Height of the trigger column before the keys (0 = floor).
    pub trigger_height: u32,
    /// Room beside the trigger: columns on each side no higher than it (lower ones count twice).
    pub room: u32,
    /// Puyos left on the field once the chain has run (keys that did not pop included): the build's junk.
    pub remaining: u32,
}

/// How hard the detector looks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DetectOptions {
    /// Most puyos stacked on the trigger column (1..=3).
    pub max_keys: u32,
    /// Extension rounds after a trigger is found (0 = none).
    pub extend_depth: u32,
    /// Only triggers whose chain is within this many links of the longest trigger found are extended
    /// (an extension round rarely adds more; `u32::MAX` = extend every trigger).
    pub extend_slack: u32,
    /// Most puyos of one colour an extension round adds to one column (1..=3).
    pub extend_keys: u32,
}

impl Default for DetectOptions {
    fn default() -> Self {
        DetectOptions { max_keys: 3, extend_depth: 1, extend_slack: u32::MAX, extend_keys: 2 }
    }
}

/// The columns a piece can reach from the spawn column: walking out from `spawn_x`, a column whose top
/// reaches the lowest row of the spawning pair (`bottom_row`: height 13 or more on the arcade rule, row 1)
/// blocks everything beyond it.
pub fn reachable_columns(heights: &[usize; WIDTH], spawn_x: usize, bottom_row: usize) -> (usize, usize) {
    let block = HEIGHT - bottom_row;
    let mut lo = spawn_x;
    while lo > 1 && heights[lo - 2] < block {
        lo -= 1;
    }
    let mut hi = spawn_x;
    while hi < WIDTH && heights[hi] < block {
        hi += 1;
    }
    (lo, hi)
}

/// Highest height (0-based, exclusive) a key may occupy in column `x`: a column with a death cell keeps
/// it free; other columns may use the top visible row (height 13 is the hidden row, which never pops).
#[inline]
fn key_limit(x: usize, rules: &Rules) -> usize {
    rules.safe_height(x)
}

/// The group of `color` containing `seed`, within the visible rows.
#[inline]
fn group_of(layer: u128, seed: u128) -> u128 {
    flood(layer & VISIBLE_MASK, seed)
}

/// Room beside column `x` (1-based): columns on each side up to the first higher one, lower ones twice.
fn room(heights: &[usize; WIDTH], x: usize) -> u32 {
    let hx = heights[x - 1];
    let mut r = 0;
    for side in [-1i32, 1] {
        let mut i = x as i32 - 1 + side;
        while (0..WIDTH as i32).contains(&i) && heights[i as usize] <= hx {
            r += 1 + (heights[i as usize] < hx) as u32;
            i += side;
        }
    }
    r
}

/// Calls `visit` with every chain found by stacking keys on a reachable column (and, with
/// `extend_depth`, their extensions). Returns the number of trials simulated.
pub fn detect(field: &Field, rules: &Rules, opts: DetectOptions, visit: impl FnMut(&Potential)) -> u32 {
    detect_impl(field, rules, opts, true, visit)
}

/// [`detect`] done the plain way: every extension trial resolves its field from the trigger. Same
/// chains, in the same order, as [`detect`], several times slower; kept as the reference the fast
/// extension is tested against.
pub fn detect_reference(field: &Field, rules: &Rules, opts: DetectOptions, visit: impl FnMut(&Potential)) -> u32 {
    detect_impl(field, rules, opts, false, visit)
}

fn detect_impl(
    field: &Field,
    rules: &Rules,
    opts: DetectOptions,
    fast: bool,
    mut visit: impl FnMut(&Potential),
) -> u32 {
    let heights = field.heights();
    let (lo, hi) = reachable_columns(&heights, rules.spawn_x as usize, rules.spawn_bottom_row());
    let mut trials = 0;
    // The states of every trigger's chain, one after the other: the extensions start from them.
    let mut states: Vec<ChainState> = Vec::with_capacity(64);
    // Triggers found, with their range of `states`: extended once all are known, so that only the ones
    // close to the longest are.
    let mut found_all: Vec<(Potential, Range<usize>)> = Vec::new();
    for x in lo..=hi {
        let h0 = heights[x - 1];
        let limit = key_limit(x, rules);
        if h0 >= limit {
            continue;
        }
        let max_keys = (opts.max_keys as usize).min(limit - h0);
        let stack_cells = (((1u128 << max_keys) - 1) << h0) << (16 * (x - 1));
        let touching = neighbours(stack_cells) & !stack_cells;
        for color in Color::ALL {
            let layer = field.color_bits(color);
            if layer & touching == 0 {
                continue;
            }
            let mut trial = *field;
            let mut keys = 0u128;
            for k in 0..max_keys {
                let key = 1u128 << bit(x, HEIGHT - 1 - (h0 + k));
                // The cell is above the column's top, so empty in every layer.
                trial.layers[color.index()] |= key;
                keys |= key;
                if !at_least(group_of(trial.color_bits(color), keys), rules.pop_size) {
                    continue;
                }
                trials += 1;
                let start = states.len();
                // Searched from all the keys, as a move's landed cells are: the same group as from the
                // lowest one, the trigger the extensions search from.
                let summary = record_chain(trial, keys, ChainSummary::default(), rules, &mut states);
                let after = states.last().map_or(trial, |st| st.field);
                let found = Potential {
                    chains: summary.chains,
                    score: summary.score,
                    x: x as u8,
                    color,
                    keys: k as u32 + 1,
                    trigger_height: h0 as u32,
                    room: room(&heights, x),
                    remaining: after.count(),
                };
                visit(&found);
                if opts.extend_depth > 0 {
                    found_all.push((found, start..states.len()));
                } else {
                    states.truncate(start);
                }
                break;
            }
        }
    }
    let columns = Columns { heights: &heights, lo, hi };
    trials + extend_longest(found_all, &states, &columns, rules, opts, fast, &mut visit)
}

/// The columns a key can reach, `lo..=hi`, and every column's height.
struct Columns<'a> {
    heights: &'a [usize; WIDTH],
    lo: usize,
    hi: usize,
}

/// Tries extension keys on the triggers `found` within `extend_slack` links of the longest, each from its
/// recorded chain states; returns the trials made.
fn extend_longest(
    found: Vec<(Potential, Range<usize>)>,
    states: &[ChainState],
    columns: &Columns,
    rules: &Rules,
    opts: DetectOptions,
    fast: bool,
    visit: &mut impl FnMut(&Potential),
) -> u32 {
    let (heights, span) = (columns.heights, (columns.lo, columns.hi));
    let longest = found.iter().map(|(p, _)| p.chains).max().unwrap_or(0);
    let mut trials = 0;
    for (found, range) in found {
        if found.chains.saturating_add(opts.extend_slack) < longest {
            continue;
        }
        let chain = &states[range];
        let (Some(first), Some(last)) = (chain.first(), chain.last()) else { continue };
        trials += if fast {
            extend_fast(chain, heights, found, rules, opts, opts.extend_depth, span, visit)
        } else {
            extend(&first.field, &last.field, heights, found, rules, opts, opts.extend_depth, span, visit)
        };
    }
    trials
}

/// Resolves `field` from `dirty` one step at a time, after the steps and points of `so_far`, appending
/// each state to `states` (the first is `field` itself, the last the field at rest after the chain).
/// Returns `so_far` with the chain's steps and points added (the puyos cleared are not counted).
fn record_chain(
    mut field: Field,
    mut dirty: u128,
    so_far: ChainSummary,
    rules: &Rules,
    states: &mut Vec<ChainState>,
) -> ChainSummary {
    let mut summary = so_far;
    loop {
        states.push(ChainState::new(field, dirty, summary.score));
        let (step, next, removed) = field.resolve_step(rules, dirty, summary.chains);
        if step.chains == 0 {
            return summary;
        }
        if let Some(state) = states.last_mut() {
            state.removed = removed;
        }
        summary.chains += 1;
        summary.score += step.score;
        dirty = next;
    }
}

/// The trigger's `states` before a trial's keys join its chain, as the trial's chain has them: the keys
/// (`n` of `color`) ride on top of column `x`, and are searched from when the column has just moved.
/// That is what [`first_join`] checks them against.
fn with_keys_on_top(states: &[ChainState], x: usize, color: Color, n: u32) -> impl Iterator<Item = ChainState> + '_ {
    let mut prev_height = states.first().map_or(0, |st| st.heights[x - 1]);
    states.iter().map(move |st| {
        let hx = st.heights[x - 1];
        let at = ((((1u32 << n) - 1) << hx) as u128) << (16 * (x - 1));
        let mut out = *st;
        out.field.layers[color.index()] |= at;
        if hx != prev_height {
            out.dirty |= at;
        }
        out.heights[x - 1] += n as u8;
        prev_height = hx;
        out
    })
}

/// Tries to lengthen a found chain: up to `opts.extend_keys` keys of one colour on another reachable
/// column of the plan (the field with the trigger keys), accepted when the same trigger then fires a
/// longer chain.
#[allow(clippy::too_many_arguments)]
fn extend(
    plan: &Field,
    after: &Field,
    heights: &[usize; WIDTH],
    base: Potential,
    rules: &Rules,
    opts: DetectOptions,
    depth: u32,
    (lo, hi): (usize, usize),
    visit: &mut impl FnMut(&Potential),
) -> u32 {
    // Only worth it when the chain moved puyos in some other column: new contacts can then appear there.
    let after_heights = after.heights();
    let moved = (lo..=hi).any(|x| x != base.x as usize && after_heights[x - 1] != heights[x - 1]);
    if !moved {
        return 0;
    }
    let plan_heights = plan.heights();
    let trigger = 1u128 << bit(base.x as usize, HEIGHT - 1 - (base.trigger_height as usize));
    let mut trials = 0;
    for x in lo..=hi {
        if x == base.x as usize {
            continue;
        }
        let h0 = plan_heights[x - 1];
        let limit = key_limit(x, rules);
        if h0 >= limit {
            continue;
        }
        let max_keys = (opts.extend_keys as usize).min(limit - h0);
        // Colours worth trying: those the chain brings next to this column's top.
        let near = neighbours((((1u128 << max_keys) - 1) << h0) << (16 * (x - 1)));
        for color in Color::ALL {
            if (after.color_bits(color) | plan.color_bits(color)) & near == 0 {
                continue;
            }
            let mut trial = *plan;
            let mut keys = 0u128;
            for k in 0..max_keys {
                let y = HEIGHT - 1 - (h0 + k);
                trial.set(x, y, Cell::Color(color));
                keys |= 1u128 << bit(x, y);
                // Keys that pop by themselves would fire early: not an extension.
                if at_least(group_of(trial.color_bits(color), keys), rules.pop_size) {
                    break;
                }
                trials += 1;
                let mut sim = trial;
                let summary = sim.resolve_from(rules, trigger, |_| {});
                if summary.chains > base.chains {
                    let found = Potential {
                        chains: summary.chains,
                        score: summary.score,
                        keys: base.keys + k as u32 + 1,
                        remaining: sim.count(),
                        ..base
                    };
                    visit(&found);
                    if depth > 1 {
                        trials += extend(&trial, &sim, heights, found, rules, opts, depth - 1, (lo, hi), visit);
                    }
                    break;
                }
            }
        }
    }
    trials
}

/// One state of a trigger's chain as it runs: the field before a step looks for groups, the cells that
/// step searches from, and the points scored so far.
#[derive(Clone, Copy)]
struct ChainState {
    field: Field,
    dirty: u128,
    score: u32,
    /// Column heights of `field`, read by every trial at every state.
    heights: [u8; WIDTH],
    /// The cells the step from this state removes (0 at the last state, where nothing pops).
    removed: u128,
}

impl ChainState {
    /// The state of `field` before a step that searches from `dirty`, with `score` points so far.
    fn new(field: Field, dirty: u128, score: u32) -> ChainState {
        let h = field.heights();
        ChainState { field, dirty, score, heights: std::array::from_fn(|i| h[i] as u8), removed: 0 }
    }
}

/// [`extend`] without resolving every trial from the start. Extension keys sit on top of their column
/// and nothing else ever enters it, so until the keys' own group pops, a trial's chain runs exactly as the
/// trigger's chain does. The trigger's chain is run once, step by step (`states`, as [`record_chain`]
/// lists them); a trial then only checks, state by state, whether its keys (at the top of their column
/// as it stands then) would pop with that step, and resolves from the first state where they do. Same
/// chains, scores and leftovers as [`extend`].
#[allow(clippy::too_many_arguments)]
fn extend_fast(
    states: &[ChainState],
    heights: &[usize; WIDTH],
    base: Potential,
    rules: &Rules,
    opts: DetectOptions,
    depth: u32,
    (lo, hi): (usize, usize),
    visit: &mut impl FnMut(&Potential),
) -> u32 {
    let (Some(first), Some(last)) = (states.first(), states.last()) else { return 0 };
    let (plan, after) = (&first.field, &last.field);
    let moved = (lo..=hi).any(|x| x != base.x as usize && last.heights[x - 1] as usize != heights[x - 1]);
    if !moved {
        return 0;
    }
    let plan_heights = first.heights;
    let area = if rules.hidden_row_pops { FIELD_MASK } else { VISIBLE_MASK };
    let trial = Trial { states, heights, base, rules, opts, depth, range: (lo, hi), area };
    let mut trials = 0;
    // The states of a joined trial's chain from the join on (when it may be extended again).
    let mut tail: Vec<ChainState> = Vec::new();
    for x in lo..=hi {
        if x == base.x as usize {
            continue;
        }
        let h0 = plan_heights[x - 1] as usize;
        let limit = key_limit(x, rules);
        if h0 >= limit {
            continue;
        }
        let max_keys = (opts.extend_keys as usize).min(limit - h0);
        let near = neighbours((((1u128 << max_keys) - 1) << h0) << (16 * (x - 1)));
        for color in Color::ALL {
            if (after.color_bits(color) | plan.color_bits(color)) & near == 0 {
                continue;
            }
            let mut keys = 0u128;
            for k in 0..max_keys {
                keys |= 1u128 << bit(x, HEIGHT - 1 - (h0 + k));
                let own = group_of(plan.color_bits(color) | keys, keys);
                if at_least(own, rules.pop_size) {
                    break;
                }
                trials += 1;
                if let Some(below) = trial.keys(x, color, k as u32 + 1, own, &mut tail, visit) {
                    trials += below;
                    break;
                }
            }
        }
    }
    trials
}

/// What the trials of one [`extend_fast`] call share: the trigger's chain, the plan's heights, the
/// potential being extended, the rules and options, the extensions left, the columns tried and the rows
/// groups live in.
struct Trial<'a> {
    states: &'a [ChainState],
    heights: &'a [usize; WIDTH],
    base: Potential,
    rules: &'a Rules,
    opts: DetectOptions,
    depth: u32,
    range: (usize, usize),
    area: u128,
}

impl Trial<'_> {
    /// Tries `n` keys of `color` on top of column `x` (`own`: their group in the plan). `None` when they
    /// do not make the chain longer (the next key count is tried); else, after visiting the longer chain
    /// (and, with depth left, its own extensions), the trials its extensions took.
    fn keys(
        &self,
        x: usize,
        color: Color,
        n: u32,
        own: u128,
        tail: &mut Vec<ChainState>,
        visit: &mut impl FnMut(&Potential),
    ) -> Option<u32> {
        let (states, base, rules, depth) = (self.states, self.base, self.rules, self.depth);
        // The keys' group in the first state is `own` when groups live in the visible rows.
        let first_group = (self.area == VISIBLE_MASK).then_some(own);
        let (j, at, dirty, group) = first_join(states, x, color, n, first_group, rules.pop_size, self.area)?;
        let st = &states[j];
        // Keys that join only groups popping at that step anyway, with no nuisance of their own beside
        // them, leave the trigger's next state as it was (they rode on top of their column): the chain
        // runs as the trigger's does, no longer. Most joins are of this kind.
        if st.removed != 0
            && (group & !at) & !st.removed == 0
            && neighbours(at) & st.field.nuisance_bits() & !st.removed == 0
        {
            return None;
        }
        let mut sim = st.field;
        sim.layers[color.index()] |= at;
        // A trial that may be extended again records the rest of its chain, to hand on its states.
        let so_far = ChainSummary { chains: j as u32, score: st.score, cleared: 0 };
        let total = if depth > 1 {
            tail.clear();
            let total = record_chain(sim, dirty, so_far, rules, tail);
            sim = tail.last().map_or(sim, |last| last.field);
            total
        } else {
            let (s, _) = sim.resolve_partial(rules, dirty, j as u32, u32::MAX);
            ChainSummary { chains: so_far.chains + s.chains, score: so_far.score + s.score, cleared: 0 }
        };
        if total.chains <= base.chains {
            return None;
        }
        let found =
            Potential { chains: total.chains, score: total.score, keys: base.keys + n, remaining: sim.count(), ..base };
        visit(&found);
        if depth <= 1 {
            return Some(0);
        }
        let mut chain = Vec::with_capacity(j + tail.len());
        chain.extend(with_keys_on_top(&states[..j], x, color, n));
        chain.extend_from_slice(tail);
        Some(extend_fast(&chain, self.heights, found, rules, self.opts, depth - 1, self.range, visit))
    }
}

/// The first state of the trigger's chain at which `n` keys of `color` on top of column `x` pop along
/// with the chain's step: its index, the keys' cells there, the cells that step searches from and the
/// keys' group (keys included). `None`
/// when they never do. `first_group` is the keys' group in the first state, when the caller knows it.
///
/// A state only needs a flood fill when something changed near the keys' group of the state before:
/// when neither their column's height nor the colour's cells on or beside that group changed, the group
/// is the same, and only whether it touches the new step's search cells is new.
#[inline]
fn first_join(
    states: &[ChainState],
    x: usize,
    color: Color,
    n: u32,
    first_group: Option<u128>,
    pop_size: u32,
    area: u128,
) -> Option<(usize, u128, u128, u128)> {
    let keys = |h: u8| ((((1u32 << n) - 1) << h) as u128) << (16 * (x - 1));
    let mut prev_height = states.first().map_or(0, |st| st.heights[x - 1]);
    let mut at = keys(prev_height);
    // The keys' group at the state before (over `prev_layer`), with the column at `prev_height`.
    let mut prev: Option<(u128, u128)> = None;
    for (j, st) in states.iter().enumerate() {
        let hx = st.heights[x - 1];
        let layer = st.field.color_bits(color) & area;
        // The keys are searched from when they have just fallen (or, before the first step, when the trigger
        // is among them, which the caller rules out in the visible rows).
        let moved = hx != prev_height;
        if moved {
            at = keys(hx);
        }
        let dirty = st.dirty | if moved { at } else { 0 };
        prev_height = hx;
        // Keys that stayed put join this step only through the colour's cells it searches from (the keys'
        // cells are empty in the trigger's state, so never among them): without any, there is nothing to
        // look at. The group of the last state looked at stays valid for the next one, which compares
        // the layer against the one the group was found in.
        if !moved && st.dirty & layer == 0 {
            continue;
        }
        let group = match (prev, first_group) {
            (None, Some(group)) if j == 0 => group,
            (Some((group, prev_layer)), _) if !moved && (group | neighbours(group)) & (layer ^ prev_layer) == 0 => {
                group
            }
            _ => {
                let with_keys = layer | (at & area);
                if n < pop_size && with_keys & neighbours(at) & !at == 0 {
                    at & with_keys
                } else {
                    flood(with_keys, at)
                }
            }
        };
        prev = Some((group, layer));
        if group & dirty != 0 && at_least(group, pop_size) {
            return Some((j, at, dirty, group));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn best(field: &Field, opts: DetectOptions) -> Option<Potential> {
        let mut best: Option<Potential> = None;
        detect(field, &Rules::puyo1(), opts, |p| {
            if best.is_none_or(|b| (p.chains, p.score) > (b.chains, b.score)) {
                best = Some(*p);
            }
        });
        best
    }

    #[test]
    fn finds_a_two_chain_behind_one_key() {
        // Column 1: R on top of GGG; adding one G to column 2 pops the Gs, R falls onto RRR.
        let f = Field::from_rows(&["R.....", "G.....", "G.....", "GRRR.."]);
        let p = best(&f, DetectOptions { max_keys: 3, extend_depth: 0, ..DetectOptions::default() }).expect("a chain");
        assert_eq!(p.chains, 2);
        assert_eq!(p.color, Color::ALL[1]);
        assert_eq!(p.keys, 1);
    }

    #[test]
    fn an_empty_field_has_no_potential() {
        assert!(best(&Field::new(), DetectOptions::default()).is_none());
    }

    #[test]
    fn extension_finds_a_longer_chain_through_another_column() {
        // R key in column 2 pops the Rs; the G on top of column 1 falls next to GG in column 2. A G added
        // to column 3 (three Gs, no pop) makes that a second link.
        let f = Field::from_rows(&["G.....", "R.....", "RG....", "RG...."]);
        let plain =
            best(&f, DetectOptions { max_keys: 3, extend_depth: 0, ..DetectOptions::default() }).expect("a chain");
        assert_eq!(plain.chains, 1);
        let ext =
            best(&f, DetectOptions { max_keys: 3, extend_depth: 1, ..DetectOptions::default() }).expect("a chain");
        assert_eq!(ext.chains, 2);
        assert_eq!(ext.keys, 2);
    }

    #[test]
    fn three_extension_keys_complete_a_lone_tail_puyo() {
        // An R key beside column 2 pops its Rs and the G on top falls to the floor, alone: three G keys
        // on the column at the other side make the second link, which two keys cannot.
        let f = Field::from_rows(&[".G....", ".R....", ".R....", ".R...."]);
        let with = |extend_keys| {
            best(&f, DetectOptions { max_keys: 3, extend_depth: 1, extend_keys, ..DetectOptions::default() })
                .expect("a chain")
        };
        assert_eq!(with(2).chains, 1);
        let ext = with(3);
        assert_eq!((ext.chains, ext.keys), (2, 4));
    }

    #[test]
    fn finds_the_gtr_trigger_and_its_three_chain() {
        // The GTR base of tests/fixtures/fields/gtr3.txt without its trigger: one Y on column 1 pops the
        // Ys, the B hook falls into place, then the Gs: 3 links, 40 + 320 + 640 points.
        let f = Field::from_rows(&["......", "YBG...", "YYBG..", "BBGG.."]);
        let p = best(&f, DetectOptions { max_keys: 3, extend_depth: 0, ..DetectOptions::default() }).expect("a chain");
        assert_eq!((p.chains, p.score, p.x, p.keys), (3, 1000, 1, 1));
        assert_eq!(p.color, Color::ALL[3]);
        assert_eq!(p.remaining, 0);
    }

    #[test]
    fn extending_only_the_longest_triggers_keeps_the_best_chain() {
        // The extension field above plus an unrelated one-link trigger on the right: extending only
        // triggers within one link of the longest finds the same 2-chain with fewer trials.
        let f = Field::from_rows(&["G.....", "R.....", "RG...B", "RG..BB"]);
        let all = DetectOptions { max_keys: 3, extend_depth: 1, extend_slack: u32::MAX, extend_keys: 2 };
        let near = DetectOptions { extend_slack: 0, ..all };
        let (a, b) = (best(&f, all).expect("a chain"), best(&f, near).expect("a chain"));
        assert_eq!(a.chains, 2);
        assert_eq!((b.chains, b.score), (a.chains, a.score));
        let trials = |o| detect(&f, &Rules::puyo1(), o, |_| {});
        assert!(trials(near) <= trials(all));
    }
}
