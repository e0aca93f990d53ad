//! Self-check: after each lock, the field in RAM against the rules core's prediction.
//!
//! The prediction is the [`Lock`] event: `Field::play` on the field read while the piece was falling,
//! with the piece and the pose RAM showed on its last controllable frame. The comparison waits until the
//! game has finished resolving: the next piece becoming controllable. Nuisance that fell in between (2P) is accounted for:
//! each column may carry extra nuisance on top of the predicted stack.

use crate::game::{Cell, ChainSummary, Field, HEIGHT, Orientation, Piece, Placement, Rules, WIDTH};

use super::lock::Lock;

/// A prediction waiting for the game to finish resolving.
#[derive(Clone, Debug)]
pub struct Prediction {
    /// The field before the lock.
    pub before: Field,
    /// The piece that locked.
    pub piece: Piece,
    /// Where it locked.
    pub placement: Placement,
    /// Where RAM last showed it before the lock (differs from `placement` when it locked one input away).
    pub seen_at: Placement,
    /// What the model says the field becomes.
    pub after: Field,
    /// What the model says the lock scores.
    pub summary: ChainSummary,
    /// Where the bot had decided to put the piece (`None`: no bot decided, or the plan was let go).
    pub decided: Option<Placement>,
}

impl Prediction {
    /// The pair locked one input away from where RAM last showed it, and not where the bot had decided:
    /// evidence that the pose bytes run late (or that a press nobody planned arrived). A lock at the
    /// decided placement one input away is the plan's own last step: a game without a lock delay locks a
    /// pair pushed onto a ledge on the very frame it moves, before RAM ever shows it movable there.
    pub fn moved_off_plan_at_lock(&self) -> bool {
        self.placement != self.seen_at
            && !self.decided.is_some_and(|d| crate::game::movegen::same_outcome(self.piece, self.placement, d))
    }
}

/// The outcome of one comparison.
#[derive(Clone, Debug, PartialEq)]
pub enum Check {
    /// RAM matches the prediction (`nuisance` fell on top of it meanwhile).
    Match {
        /// Nuisance puyos found on top of the predicted stacks.
        nuisance: u32,
    },
    /// RAM differs.
    Mismatch {
        /// Cells that differ: (x, y, predicted, found).
        cells: Vec<(usize, usize, Cell, Cell)>,
    },
    /// RAM differs only in cells holding a code no table lists (now, or in the field the prediction was
    /// made from): the lock could not be read, so it neither holds nor breaks the prediction. Calibration
    /// learns such codes (a link bit, a colour nobody listed); the seat counts them per code.
    Unread {
        /// Cells that differ: (x, y, predicted, found).
        cells: Vec<(usize, usize, Cell, Cell)>,
    },
}

/// Tracks one player's locks and counts mismatches.
#[derive(Clone, Debug, Default)]
pub struct Verifier {
    /// The piece under way was followed since the last reset: its lock is checked.
    following: bool,
    pending: Option<Prediction>,
    /// Outcomes of the poses one frame of input could reach from the last one seen (a faulty pad can
    /// move the piece on the very frame it locks, after RAM was last read).
    nearby: Vec<Prediction>,
    /// Locks that RAM showed one input away from the last pose seen (counted, not mismatches).
    pub moved_at_lock: u64,
    /// Comparisons made.
    pub checks: u64,
    /// Comparisons that failed.
    pub mismatches: u64,
}

impl Verifier {
    /// The piece under way is under control this frame: its lock will be checked (unless a reset comes
    /// first).
    pub fn follow(&mut self) {
        self.following = true;
    }

    /// The piece locked: takes `lock` as the prediction to check when the game has resolved it, when the
    /// piece was followed. Returns the prediction.
    pub fn expect(&mut self, lock: &Lock, rules: &Rules) -> Option<&Prediction> {
        if !std::mem::take(&mut self.following) {
            return None;
        }
        let (before, piece, placement) = (lock.before, lock.piece, lock.placement());
        self.nearby.clear();
        for dx in [-1i8, 0, 1] {
            for orientation in [Orientation::Up, Orientation::Right, Orientation::Down, Orientation::Left] {
                let x = placement.x as i8 + dx;
                let alt = Placement { x: x.clamp(0, 127) as u8, orientation };
                if x < 1 || alt == placement {
                    continue;
                }
                let mut f = before;
                if let Ok(summary) = f.play(piece, alt, rules) {
                    let decided = lock.decided;
                    self.nearby.push(Prediction {
                        before,
                        piece,
                        placement: alt,
                        seen_at: placement,
                        after: f,
                        summary,
                        decided,
                    });
                }
            }
        }
        let (after, summary, decided) = (lock.after, lock.summary, lock.decided);
        self.pending = Some(Prediction { before, piece, placement, seen_at: placement, after, summary, decided });
        self.pending.as_ref()
    }

    /// The bot's plan for the piece awaiting its check was let go (the bot was switched off or stopped):
    /// the check no longer says whether it locked on plan.
    pub fn forget_decision(&mut self) {
        if let Some(p) = self.pending.as_mut() {
            p.decided = None;
        }
        self.nearby.iter_mut().for_each(|p| p.decided = None);
    }

    /// The next piece became controllable: compares `field` (RAM) with the pending prediction. `unread`
    /// lists the cells (x, y) whose code no table knows, in `field` or in the field the prediction was
    /// made from: differences there alone make [`Check::Unread`], not a mismatch. So does any difference
    /// when `basis_unread` says the prediction started from a field holding such codes (a chain through
    /// a cell the model could not read changes cells far from it).
    pub fn on_spawn(
        &mut self,
        field: &Field,
        unread: &[(usize, usize)],
        basis_unread: bool,
        label: &str,
    ) -> Option<(Prediction, Check)> {
        let mut p = self.pending.take()?;
        self.checks += 1;
        let mut check = compare(&p.after, field);
        if matches!(check, Check::Mismatch { .. })
            && let Some((i, c)) = self
                .nearby
                .iter()
                .enumerate()
                .map(|(i, n)| (i, compare(&n.after, field)))
                .find(|(_, c)| matches!(c, Check::Match { .. }))
        {
            // The model is right; the piece moved after the last read. Predict from where it locked.
            log::debug!(
                "{label}: {} locked at {} rather than {} (moved after the last read)",
                p.piece,
                self.nearby[i].placement,
                p.placement
            );
            p = self.nearby.swap_remove(i);
            check = c;
            self.moved_at_lock += 1;
        }
        self.nearby.clear();
        let check = match check {
            Check::Mismatch { cells } if basis_unread || cells.iter().all(|(x, y, ..)| unread.contains(&(*x, *y))) => {
                let at: Vec<String> = cells.iter().map(|(x, y, ..)| format!("{x},{y}")).collect();
                log::info!(
                    "{label}: after {} at {} the field holds codes no table knows at column,row {}; not judged",
                    p.piece,
                    p.placement,
                    at.join(" ")
                );
                Check::Unread { cells }
            }
            other => other,
        };
        if let Check::Mismatch { cells } = &check {
            self.mismatches += 1;
            // The fields print as pictures; the cells as "column,row" in words.
            let at: Vec<String> = cells.iter().map(|(x, y, ..)| format!("{x},{y}")).collect();
            log::warn!(
                "{label}: field differs from the model after {} at {}: {} cell(s) at column,row {}\nbefore:{:?}predicted:{:?}found:{:?}",
                p.piece,
                p.placement,
                cells.len(),
                at.join(" "),
                p.before,
                p.after,
                field
            );
        }
        Some((p, check))
    }

    /// Forgets any pending prediction (e.g. after a state load).
    pub fn reset(&mut self) {
        self.following = false;
        self.pending = None;
        self.nearby.clear();
    }
}

/// Compares a predicted field with RAM's, allowing extra nuisance on top of each predicted column.
pub fn compare(predicted: &Field, found: &Field) -> Check {
    let mut cells = Vec::new();
    let mut nuisance = 0;
    for x in 1..=WIDTH {
        let top = HEIGHT - predicted.height(x); // first predicted row from the top that is filled
        for y in 0..HEIGHT {
            let (p, f) = (predicted.get(x, y), found.get(x, y));
            if p == f {
                continue;
            }
            if y < top && p == Cell::Empty && f == Cell::Nuisance {
                nuisance += 1;
                continue;
            }
            cells.push((x, y, p, f));
        }
    }
    if cells.is_empty() { Check::Match { nuisance } } else { Check::Mismatch { cells } }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::movegen::PiecePosition;
    use crate::game::{Color, Orientation, Pair};

    /// Follows `piece` at `pl` on `field` and tells the verifier it locked there.
    fn lock_at(v: &mut Verifier, field: &Field, piece: Piece, pl: Placement, rules: &Rules) -> Option<Field> {
        let mut after = *field;
        let summary = after.play(piece, pl, rules).ok()?;
        let pose = PiecePosition { x: pl.x, y: 1, orientation: pl.orientation };
        let lock = Lock { frame: 0, piece, pose, before: *field, after, summary, decided: None };
        v.follow();
        v.expect(&lock, rules).map(|p| p.after)
    }

    #[test]
    fn a_correct_lock_matches_and_a_wrong_one_is_counted() {
        let rules = Rules::puyo1();
        let mut v = Verifier::default();
        let f = Field::new();
        let piece = Piece::Pair(Pair::new(Color::ALL[0], Color::ALL[1]));
        let pl = Placement::new(2, Orientation::Up);
        let predicted = lock_at(&mut v, &f, piece, pl, &rules).unwrap();
        assert_eq!(v.on_spawn(&predicted, &[], false, "P1").unwrap().1, Check::Match { nuisance: 0 });
        lock_at(&mut v, &predicted, piece, pl, &rules);
        let (_, check) = v.on_spawn(&predicted, &[], false, "P1").unwrap();
        assert!(matches!(check, Check::Mismatch { ref cells } if cells.len() == 2));
        assert_eq!((v.checks, v.mismatches), (2, 1));
    }

    #[test]
    fn differences_only_where_codes_are_unknown_are_unread_and_any_other_is_a_mismatch() {
        let rules = Rules::puyo1();
        let piece = Piece::Pair(Pair::new(Color::ALL[1], Color::ALL[1]));
        let pl = Placement::new(2, Orientation::Right);
        let mut v = Verifier::default();
        lock_at(&mut v, &Field::new(), piece, pl, &rules);
        // The pair lies on the floor at columns 2 and 3; RAM shows a code no table knows in both cells
        // (a link bit), which the decoder reads as nuisance.
        let found = Field::from_rows(&[".OO..."]);
        let row = HEIGHT - 1;
        let (_, check) = v.on_spawn(&found, &[(2, row), (3, row)], false, "P1").unwrap();
        assert!(matches!(check, Check::Unread { ref cells } if cells.len() == 2));
        assert_eq!(v.mismatches, 0);
        // One differing cell whose code is known makes the whole lock a mismatch.
        lock_at(&mut v, &Field::new(), piece, pl, &rules);
        let (_, check) = v.on_spawn(&found, &[(2, row)], false, "P1").unwrap();
        assert!(matches!(check, Check::Mismatch { ref cells } if cells.len() == 2));
        assert_eq!(v.mismatches, 1);
        // The same lock predicted from a field that held an unknown code: not judged at all.
        lock_at(&mut v, &Field::new(), piece, pl, &rules);
        let (_, check) = v.on_spawn(&found, &[], true, "P1").unwrap();
        assert!(matches!(check, Check::Unread { ref cells } if cells.len() == 2));
        assert_eq!(v.mismatches, 1);
    }

    #[test]
    fn a_lock_one_input_away_is_off_plan_unless_it_is_where_the_bot_decided() {
        let piece = Piece::Pair(Pair::new(Color::ALL[0], Color::ALL[1]));
        let seen_at = Placement::new(5, Orientation::Left);
        let pushed = Placement::new(6, Orientation::Left);
        let p = |placement, decided| Prediction {
            before: Field::new(),
            piece,
            placement,
            seen_at,
            after: Field::new(),
            summary: ChainSummary::default(),
            decided,
        };
        assert!(!p(seen_at, None).moved_off_plan_at_lock(), "locked where RAM last showed it");
        assert!(p(pushed, None).moved_off_plan_at_lock(), "no plan: any move at the lock is unexplained");
        assert!(p(pushed, Some(seen_at)).moved_off_plan_at_lock());
        assert!(!p(pushed, Some(pushed)).moved_off_plan_at_lock(), "the plan's last step, on the lock frame");
        // A pair of one colour lies the same either way round.
        let same = Piece::Pair(Pair::new(Color::ALL[0], Color::ALL[0]));
        let flipped = Prediction { piece: same, ..p(pushed, Some(Placement::new(5, Orientation::Right))) };
        assert!(!flipped.moved_off_plan_at_lock());
    }

    #[test]
    fn nuisance_on_top_is_accounted_for() {
        let predicted = Field::from_rows(&["R....."]);
        let found = Field::from_rows(&["O...O.", "R...O."]);
        assert_eq!(compare(&predicted, &found), Check::Match { nuisance: 3 });
        let under = Field::from_rows(&["R.....", "O....."]);
        assert!(matches!(compare(&predicted, &under), Check::Mismatch { .. }));
    }
}
