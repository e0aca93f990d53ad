//! Resolution: find popping groups, pop them (with adjacent nuisance), let the rest fall, repeat.
//!
//! The hot path of the whole program: the search resolves hundreds of fields per decision and self-play
//! millions. Only groups that contain a cell that has just moved can be new, so each step searches from
//! those "dirty" cells instead of the whole field.

use super::field::{
    FIELD_MASK, Field, HIDDEN_ROW_MASK, MAX_COLORS_U, NUISANCE, VISIBLE_MASK, at_least, flood, neighbours,
};
use super::piece::Color;
use super::rules::Rules;

/// What one step of a chain popped.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ChainStep {
    /// 1-based step number.
    pub step: u32,
    /// Coloured puyos popped.
    pub popped: u32,
    /// Nuisance puyos popped alongside.
    pub nuisance_popped: u32,
    /// Distinct colours popped.
    pub colors: u32,
    /// Size and colour of each group.
    pub groups: Vec<(Color, u32)>,
    /// Points scored by this step.
    pub score: u32,
}

/// The outcome of resolving a field to rest.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ChainSummary {
    /// Number of steps that popped something (the chain length).
    pub chains: u32,
    /// Total points.
    pub score: u32,
    /// Puyos removed, nuisance included.
    pub cleared: u32,
}

impl Field {
    /// Applies gravity, then resolves to rest. Returns the summary.
    pub fn settle_and_resolve(&mut self, rules: &Rules) -> ChainSummary {
        self.apply_gravity();
        self.resolve_from(rules, FIELD_MASK, |_| {})
    }

    /// Resolves a settled field completely, searching the whole field for groups.
    pub fn resolve(&mut self, rules: &Rules) -> ChainSummary {
        self.resolve_from(rules, FIELD_MASK, |_| {})
    }

    /// Resolves a settled field completely and reports every step.
    pub fn resolve_steps(&mut self, rules: &Rules) -> (ChainSummary, Vec<ChainStep>) {
        let mut steps = Vec::new();
        let (summary, _, _) = self.resolve_impl::<true>(rules, FIELD_MASK, 0, u32::MAX, &mut |s| steps.push(s.clone()));
        (summary, steps)
    }

    /// Resolves a settled field whose only possibly-new groups contain a cell of `dirty`
    /// (e.g. the cells a piece just landed in). `on_step` sees each step (its `groups` list stays empty:
    /// use [`Field::resolve_steps`] for per-group details).
    pub fn resolve_from(&mut self, rules: &Rules, dirty: u128, mut on_step: impl FnMut(&ChainStep)) -> ChainSummary {
        self.resolve_impl::<false>(rules, dirty, 0, u32::MAX, &mut on_step).0
    }

    /// Resolves at most `max_steps` steps of a chain whose first `done` steps have already run (the steps
    /// are scored as steps `done + 1`, `done + 2`, …), searching for groups from `dirty` as
    /// [`Field::resolve_from`] does. Returns the summary of these steps only (their count, points and
    /// puyos cleared) and the cells that moved in the last one (the `dirty` of the step after it).
    pub fn resolve_partial(&mut self, rules: &Rules, dirty: u128, done: u32, max_steps: u32) -> (ChainSummary, u128) {
        let (summary, moved, _) = self.resolve_impl::<false>(rules, dirty, done, max_steps, &mut |_| {});
        (summary, moved)
    }

    /// One step of a chain, as [`Field::resolve_partial`] with `max_steps` 1, also returning the cells
    /// the step removed (popped groups and the nuisance beside them, where they stood; 0 when nothing
    /// popped). Two steps that remove the same cells from fields that differ only there leave the same
    /// field behind.
    pub fn resolve_step(&mut self, rules: &Rules, dirty: u128, done: u32) -> (ChainSummary, u128, u128) {
        self.resolve_impl::<false>(rules, dirty, done, 1, &mut |_| {})
    }

    /// The resolution loop; `GROUPS` decides whether each group is listed in the step report, which
    /// costs an allocation the search does not want. The steps are numbered from `done + 1`; at most
    /// `max_steps` run. Returns the summary, the cells the last step moved and the cells it removed.
    #[inline(always)]
    fn resolve_impl<const GROUPS: bool>(
        &mut self,
        rules: &Rules,
        mut dirty: u128,
        done: u32,
        max_steps: u32,
        on_step: &mut impl FnMut(&ChainStep),
    ) -> (ChainSummary, u128, u128) {
        let mut summary = ChainSummary::default();
        let pop_size = rules.pop_size;
        let group_area = if rules.hidden_row_pops { FIELD_MASK } else { VISIBLE_MASK };
        // Nuisance in the hidden row stays put unless the hidden row takes part in groups.
        let nuisance_area = if rules.hidden_row_pops { FIELD_MASK } else { FIELD_MASK & !HIDDEN_ROW_MASK };
        let mut report = ChainStep::default();
        let mut removed = 0u128;
        loop {
            let mut popped_mask = 0u128;
            let mut popped = 0u32;
            let mut colors = 0u32;
            let mut group_bonus = 0u32;
            if GROUPS {
                report.groups.clear();
            }
            for c in 0..MAX_COLORS_U {
                let layer = self.layers[c] & group_area;
                let mut seeds = layer & dirty;
                let mut color_popped = false;
                while seeds != 0 {
                    let group = flood(layer, seeds & seeds.wrapping_neg());
                    seeds &= !group;
                    // Most groups searched do not pop: only those that do need their size.
                    if at_least(group, pop_size) {
                        let size = group.count_ones();
                        popped_mask |= group;
                        popped += size;
                        group_bonus += rules.group_bonus(size);
                        color_popped = true;
                        if GROUPS {
                            report.groups.push((Color::ALL[c], size));
                        }
                    }
                }
                colors += color_popped as u32;
            }
            if popped_mask == 0 {
                return (summary, dirty, removed);
            }
            let nuisance = neighbours(popped_mask) & self.layers[NUISANCE] & nuisance_area;
            summary.chains += 1;
            let step = done + summary.chains;
            let score = rules.step_score(step, popped, colors, group_bonus);
            summary.score += score;
            let nuisance_popped = nuisance.count_ones();
            summary.cleared += popped + nuisance_popped;
            report.step = step;
            report.popped = popped;
            report.nuisance_popped = nuisance_popped;
            report.colors = colors;
            report.score = score;
            on_step(&report);
            removed = popped_mask | nuisance;
            dirty = self.remove_and_fall(removed);
            if summary.chains >= max_steps {
                return (summary, dirty, removed);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::text::parse_field;

    #[test]
    fn a_chain_resolved_a_step_at_a_time_matches_the_whole() {
        let rules = Rules::puyo1();
        let mut start =
            parse_field(include_str!("../../tests/fixtures/fields/long12.txt")).expect("the 12-chain fixture parses");
        start.apply_gravity();
        let mut whole = start;
        let total = whole.resolve(&rules);
        assert_eq!(total.chains, 12);
        // One step per call, each scored as the step it is: the same chain, score, puyos and field.
        let (mut stepwise, mut dirty, mut sum) = (start, FIELD_MASK, ChainSummary::default());
        loop {
            let (s, next) = stepwise.resolve_partial(&rules, dirty, sum.chains, 1);
            if s.chains == 0 {
                break;
            }
            assert_eq!(s.chains, 1);
            sum.chains += 1;
            sum.score += s.score;
            sum.cleared += s.cleared;
            dirty = next;
        }
        assert_eq!((sum, stepwise), (total, whole));
        // Five steps, then the rest in one call numbered from step 6.
        let mut split = start;
        let (first, dirty) = split.resolve_partial(&rules, FIELD_MASK, 0, 5);
        let (rest, _) = split.resolve_partial(&rules, dirty, 5, u32::MAX);
        assert_eq!((first.chains, rest.chains), (5, 7));
        assert_eq!(first.score + rest.score, total.score);
        assert_eq!(split, whole);
    }

    #[test]
    fn a_step_reports_the_cells_it_removed() {
        let rules = Rules::puyo1();
        let mut field =
            parse_field(include_str!("../../tests/fixtures/fields/long12.txt")).expect("the 12-chain fixture parses");
        field.apply_gravity();
        let mut dirty = FIELD_MASK;
        for step in 0..12 {
            let before = field;
            let (s, next, removed) = field.resolve_step(&rules, dirty, step);
            assert_eq!(s.chains, 1);
            // What went is exactly the removed cells: clearing them and letting the rest fall is the step.
            assert_eq!(removed & !before.occupied(), 0, "step {step} removed an empty cell");
            assert_eq!(removed.count_ones(), s.cleared);
            let mut expected = before;
            expected.remove_and_fall(removed);
            assert_eq!(field, expected, "step {step}");
            dirty = next;
        }
        let (s, _, removed) = field.resolve_step(&rules, dirty, 12);
        assert_eq!((s.chains, removed), (0, 0), "nothing pops after the chain");
    }
}
