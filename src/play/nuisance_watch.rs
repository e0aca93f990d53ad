//! The nuisance of a 2P game followed from RAM, frame by frame, so the bots see what is coming: the
//! pending counts from RAM when the address file has them, else predicted; and what a chain under way
//! will send, predicted with the rules model from the piece that started it.
//!
//! Without RAM's pending count the prediction must not drift: a count that never drains makes a bot
//! wait for a kill that will never fall. So each drop is accounted as a whole when the player's next
//! piece comes: it took `min(pending, drop size)` from the queue, whether it all landed or part of it
//! found its column full and vanished (or went back, as the rules say); and a drop that landed fewer
//! than that on a field with room everywhere shows the queue held no more than what landed.

use crate::driver::Lock;
use crate::game::nuisance::nuisance_from_score;
use crate::game::{Field, HEIGHT, NuisanceOverflow, Rules, WIDTH};
use crate::memmap::Snapshot;

use super::view::{Opponent, PlayerView};

/// Follows the nuisance of a 2P game (see the module's comment).
#[derive(Clone, Debug, Default)]
pub struct NuisanceWatch {
    /// Each player's leftover points towards the next nuisance (the model's carry).
    carry: [u32; 2],
    /// Nuisance each player's running chain will send to the other (predicted at its lock).
    incoming: [u32; 2],
    /// Predicted nuisance waiting to fall on each player (used when RAM does not say).
    pending: [u32; 2],
    /// Nuisance that landed on each player since its piece locked: its drop, seen frame by frame.
    landed: [u32; 2],
}

impl NuisanceWatch {
    /// Forgets everything (a new game).
    pub fn reset(&mut self) {
        *self = NuisanceWatch::default();
    }

    /// Takes in one frame's RAM (`now`, after `prev`) and its `locks` (one entry per player, from the
    /// seats) and returns each player's view of the frame, with the match in 2P.
    pub fn views(
        &mut self,
        prev: Option<&Snapshot>,
        now: &Snapshot,
        locks: &[Option<Lock>],
        rules: &Rules,
    ) -> Vec<PlayerView> {
        if now.players.len() != 2 {
            return now.players.iter().cloned().map(PlayerView::alone).collect();
        }
        for j in 0..2 {
            let other = 1 - j;
            let cur = &now.players[j];
            let Some(before) = prev.and_then(|p| p.players.get(j)) else { continue };
            if let Some(Some(lock)) = locks.get(j) {
                // The lock's chain, as the model resolved it, sends its nuisance to the other side.
                self.incoming[j] += nuisance_from_score(rules, lock.summary.score, &mut self.carry[j]);
            }
            // Nuisance landing in this field (a frame's growth: pops and Big Puyo only take it away).
            self.landed[j] += cur.field.nuisance_count().saturating_sub(before.field.nuisance_count());
            if !before.controllable && cur.controllable {
                // This player's next piece: its drop, if any, is over.
                self.drop_seen(j, &cur.field, rules);
                // The chain is over by the next piece: what it sent now waits on the other side.
                self.pending[other] += std::mem::take(&mut self.incoming[j]);
            }
            // RAM's pending count for the other side grew: the chain's nuisance has arrived there.
            if let (Some(a), Some(b)) = (before_pending(prev, other), now.players[other].pending_nuisance)
                && b > a
            {
                self.incoming[j] = self.incoming[j].saturating_sub(b - a);
            }
        }
        (0..2)
            .map(|i| {
                let (me, them) = (&now.players[i], &now.players[1 - i]);
                // During a drop, what landed already is no longer waiting.
                let predicted = |k: usize| self.pending[k].saturating_sub(self.landed[k]);
                PlayerView {
                    own: me.clone(),
                    nuisance_on_me: me.pending_nuisance.unwrap_or(predicted(i)),
                    opponent: Some(Opponent {
                        field: them.field,
                        nuisance_on_them: them.pending_nuisance.unwrap_or(predicted(1 - i)),
                        chain_to_me: self.incoming[1 - i],
                    }),
                }
            })
            .collect()
    }

    /// Player `j`'s drop is over (its next piece came; `field` is what it left): takes what fell from
    /// the queue on `j` and, when more landed than was queued, from the other side's chain, whose
    /// nuisance then arrived before this drop rather than after it.
    fn drop_seen(&mut self, j: usize, field: &Field, rules: &Rules) {
        let landed = std::mem::take(&mut self.landed[j]);
        let other = 1 - j;
        let known = self.pending[j];
        let with_chain = landed > known.min(rules.nuisance_max_drop) && self.incoming[other] > 0;
        let queued = known + if with_chain { self.incoming[other] } else { 0 };
        if queued == 0 {
            return;
        }
        let falls = queued.min(rules.nuisance_max_drop);
        let left = if landed < falls && !may_have_lost_some(field) {
            // Fewer landed than the queue should have dropped, with room in every column: the queue held
            // only what landed (the prediction ran ahead of the game).
            0
        } else {
            let taken = match rules.nuisance_overflow {
                NuisanceOverflow::Vanish => falls,
                NuisanceOverflow::Requeue => landed.min(falls),
            };
            queued - taken
        };
        if landed != falls {
            log::debug!("nuisance on P{}: {queued} queued, {falls} to fall, {landed} landed, {left} left", j + 1);
        }
        self.pending[j] = left;
        if with_chain {
            self.incoming[other] = 0;
        }
    }
}

/// Whether some of a drop may not have landed on `field` (as it stands after it): a column filled to
/// the hidden row, or to the row under it (a cartridge may keep nuisance out of the hidden row).
fn may_have_lost_some(field: &Field) -> bool {
    (1..=WIDTH).any(|x| field.height(x) + 1 >= HEIGHT)
}

fn before_pending(prev: Option<&Snapshot>, i: usize) -> Option<u32> {
    prev.and_then(|p| p.players.get(i)).and_then(|p| p.pending_nuisance)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::driver::LockWatch;
    use crate::game::Cell;

    fn state(field: crate::game::Field, controllable: bool, pending: Option<u32>) -> crate::memmap::PlayerState {
        use crate::game::{Color, Orientation, Pair, Piece};
        crate::memmap::PlayerState {
            field,
            current: Some(Piece::Pair(Pair { pivot: Color::ALL[0], child: Color::ALL[1] })),
            current_codes: (0, 1),
            x: 2,
            y: 11,
            orientation: Some(Orientation::Up),
            raw_orientation: 2,
            spawn_delay: if controllable { 0 } else { 10 },
            controllable,
            pending_nuisance: pending,
            ..Default::default()
        }
    }

    fn snap(players: Vec<crate::memmap::PlayerState>) -> Snapshot {
        Snapshot { players, mode: None, spawn_any: false }
    }

    /// The views of `now` after `prev`, with the locks the players' watches tell on it.
    fn views(w: &mut NuisanceWatch, locks: &mut [LockWatch], prev: Option<&Snapshot>, now: &Snapshot) -> Vec<View> {
        let rules = Rules::puyo1();
        let told: Vec<_> = locks.iter_mut().zip(&now.players).map(|(l, st)| l.frame(st, 0, &rules)).collect();
        let opponent = |v: &PlayerView| v.opponent.expect("2P");
        w.views(prev, now, &told, &rules)
            .iter()
            .map(|v| View {
                on_me: v.nuisance_on_me,
                on_them: opponent(v).nuisance_on_them,
                chain_to_me: opponent(v).chain_to_me,
                field: opponent(v).field,
            })
            .collect()
    }

    /// The match part of a view.
    #[derive(Debug)]
    struct View {
        on_me: u32,
        on_them: u32,
        chain_to_me: u32,
        field: crate::game::Field,
    }

    #[test]
    fn the_watch_predicts_a_chains_nuisance_and_follows_it_to_the_other_side() {
        use crate::game::Field;
        // P1's red-green pair at column 2 pops the reds, then the greens: a 2-chain of 40 + 320 points,
        // 5 nuisance at one per 70.
        let p1 = Field::from_rows(&["G.....", "R.....", "RG....", "RG...."]);
        let p2 = Field::new();
        for ram in [false, true] {
            let pend = |n: u32| ram.then_some(n);
            let mut w = NuisanceWatch::default();
            let mut locks = [LockWatch::default(), LockWatch::default()];
            let s0 = snap(vec![state(p1, true, pend(0)), state(p2, true, pend(0))]);
            let v = views(&mut w, &mut locks, None, &s0);
            assert_eq!((v[1].on_me, v[1].chain_to_me), (0, 0));
            // P1 locks: the chain runs; P2 sees it coming.
            let s1 = snap(vec![state(p1, false, pend(0)), state(p2, true, pend(0))]);
            let v = views(&mut w, &mut locks, Some(&s0), &s1);
            assert_eq!(v[1].chain_to_me, 5, "ram {ram}");
            assert_eq!(v[0].chain_to_me, 0);
            assert_eq!(v[1].field, p1, "P2 sees P1's field");
            // The chain ends: RAM (when known) counts it as P2's pending; P1's next piece comes.
            let s2 = snap(vec![state(Field::new(), true, pend(0)), state(p2, true, pend(5))]);
            let v = views(&mut w, &mut locks, Some(&s1), &s2);
            assert_eq!((v[1].on_me, v[1].chain_to_me), (5, 0), "ram {ram}");
            assert_eq!(v[0].on_them, 5);
            // The nuisance lands on P2.
            let landed = Field::from_rows(&["OOOOO."]);
            let s3 = snap(vec![state(Field::new(), true, pend(0)), state(landed, false, pend(0))]);
            let v = views(&mut w, &mut locks, Some(&s2), &s3);
            assert_eq!(v[1].on_me, 0, "ram {ram}");
        }
        let one = snap(vec![state(p1, true, Some(3))]);
        let alone = NuisanceWatch::default().views(None, &one, &[None], &Rules::puyo1());
        assert_eq!((alone.len(), alone[0].nuisance_on_me, alone[0].opponent), (1, 0, None), "no match in 1P");
    }

    /// P2's field, `rows` rows of nuisance high in every column but `short` (`short_height` high).
    fn stacked(rows: usize, short: usize, short_height: usize) -> Field {
        let mut f = Field::new();
        for x in 1..=WIDTH {
            let h = if x == short { short_height } else { rows };
            for _ in 0..h {
                f.drop_puyo(x, Cell::Nuisance);
            }
        }
        f
    }

    /// P1's chain sends `sent` (a 2-chain: 5), P2's drop lands `landing` on its field: the views after P2's
    /// next piece comes.
    fn after_drop(w: &mut NuisanceWatch, before: Field, after: Field) -> Vec<View> {
        let mut locks = [LockWatch::default(), LockWatch::default()];
        let p1 = Field::from_rows(&["G.....", "R.....", "RG....", "RG...."]);
        let s0 = snap(vec![state(p1, true, None), state(before, true, None)]);
        views(w, &mut locks, None, &s0);
        let s1 = snap(vec![state(p1, false, None), state(before, true, None)]);
        views(w, &mut locks, Some(&s0), &s1);
        let s2 = snap(vec![state(Field::new(), true, None), state(before, true, None)]);
        let v = views(w, &mut locks, Some(&s1), &s2);
        assert_eq!(v[1].on_me, 5, "P1's 2-chain waits on P2");
        // P2 locks, its drop lands, its next piece comes.
        let s3 = snap(vec![state(Field::new(), true, None), state(before, false, None)]);
        views(w, &mut locks, Some(&s2), &s3);
        let s4 = snap(vec![state(Field::new(), true, None), state(after, false, None)]);
        views(w, &mut locks, Some(&s3), &s4);
        let s5 = snap(vec![state(Field::new(), true, None), state(after, true, None)]);
        views(w, &mut locks, Some(&s4), &s5)
    }

    #[test]
    fn nuisance_that_vanishes_above_a_full_column_leaves_the_queue() {
        // Column 3 is full to the top: one of the five finds no room and vanishes.
        let before = stacked(2, 3, HEIGHT);
        let mut after = before;
        for x in [1, 2, 4, 5] {
            after.drop_puyo(x, Cell::Nuisance);
        }
        let v = after_drop(&mut NuisanceWatch::default(), before, after);
        assert_eq!((v[1].on_me, v[0].on_them), (0, 0), "4 landed, 1 vanished: nothing waits");
        let mut requeue = Rules::puyo1();
        requeue.nuisance_overflow = NuisanceOverflow::Requeue;
        let mut w = NuisanceWatch::default();
        w.pending[1] = 5;
        w.landed[1] = 4;
        w.drop_seen(1, &after, &requeue);
        assert_eq!(w.pending[1], 1, "with the rule that sends it back, the one that found no room waits");
    }

    #[test]
    fn a_drop_smaller_than_the_queue_on_a_roomy_field_shows_the_queue_was_smaller() {
        let before = stacked(1, 0, 0);
        let mut after = before;
        for x in [2, 4, 6] {
            after.drop_puyo(x, Cell::Nuisance);
        }
        let v = after_drop(&mut NuisanceWatch::default(), before, after);
        assert_eq!(v[1].on_me, 0, "three landed where five were predicted, with room everywhere");
    }

    #[test]
    fn a_chain_that_arrives_before_the_drop_is_not_counted_twice() {
        // P1's chain (20 predicted) is still running when P2's drop of 30 lands 30: 10 were known,
        // the chain's 20 came with them.
        let mut w = NuisanceWatch { pending: [0, 10], incoming: [20, 0], landed: [0, 30], ..Default::default() };
        w.drop_seen(1, &stacked(5, 0, 0), &Rules::puyo1());
        assert_eq!((w.pending[1], w.incoming[0]), (0, 0));
        // A big queue drops the drop size and keeps the rest.
        let mut w = NuisanceWatch { pending: [0, 64], landed: [0, 30], ..Default::default() };
        w.drop_seen(1, &stacked(5, 0, 0), &Rules::puyo1());
        assert_eq!(w.pending[1], 34);
    }
}
