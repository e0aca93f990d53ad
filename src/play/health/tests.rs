//! The checks of one seat, piece by piece.

use super::*;
use crate::game::Rules;
use crate::play::explain::LockEvidence;

/// What a test piece does to a seat's health.
type PieceFn = dyn Fn(&mut SeatHealth);

fn healthy_piece(h: &mut SeatHealth) {
    h.spawned(true, true, true, Some(true), Some(true));
    h.asked();
    h.presses(5, 0, false);
}

#[test]
fn plans_that_keep_failing_name_the_timing_with_what_was_seen() {
    let mut h = SeatHealth::default();
    h.set_timing(Some("fall=4,lock=none".parse().unwrap()));
    for k in 0..12 {
        healthy_piece(&mut h);
        h.presses(0, 3, false);
        if k % 2 == 0 {
            h.off_plan();
        }
    }
    h.spawned(true, true, true, None, None); // the next piece: the twelfth is judged
    // A piece off plan now and then (a faulty link) is noise; half of them is the clock.
    let f = h.verdict("P1").expect("a timing failure");
    assert_eq!(f.fact, Fact::Timing);
    assert!(f.seen.contains("6 of the last 12 pieces locked off plan, 36 re-plans"), "{}", f.seen);
    assert!(f.seen.contains("4 frames per row, lock delay none"), "{}", f.seen);
    let c = h.counts();
    assert_eq!((c.off_plan, c.replans), (6, 36));
    let mut noisy = SeatHealth::default();
    for k in 0..40 {
        healthy_piece(&mut noisy);
        noisy.presses(0, 1, false);
        if k % 10 == 0 {
            noisy.off_plan();
        }
    }
    assert_eq!(noisy.verdict("P1"), None);
    // Re-plan after re-plan names it too, even when the pieces end where planned.
    let mut busy = SeatHealth::default();
    for _ in 0..12 {
        healthy_piece(&mut busy);
        busy.presses(0, 5, false);
    }
    busy.spawned(true, true, true, None, None);
    assert_eq!(busy.verdict("P1").map(|f| f.fact), Some(Fact::Timing));
}

#[test]
fn an_early_top_out_names_the_timing_only_when_plans_failed() {
    let mut h = SeatHealth::default();
    for _ in 0..7 {
        healthy_piece(&mut h);
    }
    let plain = h.early_top_out("P1", 7);
    assert_eq!(plain.fact, Fact::Unexplained);
    assert!(plain.seen.contains("topped out after 7 pieces") && plain.seen.contains("none is named"), "{}", plain.seen);
    h.off_plan();
    h.presses(0, 9, false);
    let timed = h.early_top_out("P1", 7);
    assert_eq!(timed.fact, Fact::Timing);
    assert!(timed.seen.contains("1 pieces locked off plan, 9 re-plans"), "{}", timed.seen);
    assert!(timed.seen.contains("no timing measured"), "{}", timed.seen);
}

#[test]
fn a_top_out_on_a_field_far_from_full_names_the_timing_it_was_played_on() {
    let mut h = SeatHealth::default();
    for _ in 0..12 {
        healthy_piece(&mut h);
    }
    h.topped_out(THIN_TOP_OUT_PUYOS);
    assert!(!h.thin_top_out(), "a full stack's top-out is a game over");
    h.topped_out(46);
    assert!(h.thin_top_out());
    let untimed = h.early_top_out("P1", 41);
    assert_eq!(untimed.fact, Fact::Unexplained, "no clock played on: nothing to name");
    assert!(untimed.seen.contains("with 46 puyos on the field"), "{}", untimed.seen);
    h.set_timing(Some("fall=3,lock=8,lag=4".parse().unwrap()));
    let timed = h.early_top_out("P1", 41);
    assert_eq!(timed.fact, Fact::Timing);
    assert!(timed.seen.contains("did not get out of the spawn column"), "{}", timed.seen);
    assert!(timed.seen.contains("played on 3 frames per row, lock delay 8 frames, input lag 4"), "{}", timed.seen);
}

#[test]
fn a_clock_that_cuts_the_open_field_short_names_the_timing() {
    let mut h = SeatHealth::default();
    h.set_timing(Some("fall=2,lock=none,lag=8".parse().unwrap()));
    h.set_open_reach(Some((21, 22)));
    for _ in 0..12 {
        healthy_piece(&mut h);
    }
    assert_eq!(h.verdict("P1"), None, "one placement short: played, and a lost game is the clock's");
    let said = h.clock_limits_play().expect("a reach cut short is said");
    assert!(said.contains("reaches 21 of the 22 placements"), "{said}");
    assert_eq!(h.clock_limits_play(), None, "said once");
    let lost = h.early_top_out("P1", 40);
    assert_eq!(lost.fact, Fact::Timing);
    assert!(lost.seen.contains("reaches 21 of the 22 placements even on an empty field"), "{}", lost.seen);
    assert_eq!(h.clock_too_fast("P1"), None);
    h.set_open_reach(Some((5, 22)));
    assert_eq!(h.verdict("P1"), None, "the encodings' checks still hold");
    let f = h.clock_too_fast("P1").expect("most of the field out of reach fails at once");
    assert_eq!(f.fact, Fact::Timing);
    assert!(f.seen.contains("input lag 8") && f.seen.contains("reaches 5 of the 22"), "{}", f.seen);
    h.reset();
    assert!(h.clock_cuts_reach(), "the clock's reach is kept across a reset");
    // A full open reach, but a clock that cut columns off the field for most pieces: a lost game is the
    // clock's too.
    let mut cut = SeatHealth::default();
    cut.set_open_reach(Some((22, 22)));
    for k in 0..WINDOW {
        healthy_piece(&mut cut);
        if k % 3 != 0 {
            cut.clock_cut();
        }
    }
    healthy_piece(&mut cut);
    assert!(cut.clock_cuts_reach());
    cut.clock_cut();
    cut.clock_cut();
    assert_eq!(cut.counts().pieces_clock_cut, 9, "once per piece");
    let mut lagged = SeatHealth::default();
    lagged.set_timing(Some("fall=2,lock=none,lag=8".parse().unwrap()));
    let said = lagged.clock_limits_play().expect("4 rows before a press acts is said");
    assert!(said.contains("falls 4 rows before a press takes effect"), "{said}");
    let said = cut.clock_limits_play().expect("9 of 13 pieces narrowed by the clock");
    assert!(said.contains("cut columns off the field for 9 of 13 pieces"), "{said}");
    assert_eq!(cut.clock_limits_play(), None, "said once");
    let lost = cut.early_top_out("P1", 110);
    assert_eq!(lost.fact, Fact::Timing);
    assert!(lost.seen.contains("cut columns off the field for 8 of the last 12 pieces"), "{}", lost.seen);
    h.set_open_reach(Some((22, 22)));
    assert!(!h.clock_cuts_reach());
}

#[test]
fn clean_pieces_are_healthy_and_counted() {
    let mut h = SeatHealth::default();
    for _ in 0..40 {
        healthy_piece(&mut h);
    }
    assert_eq!(h.verdict("P1"), None);
    let c = h.counts();
    assert_eq!((c.pieces_spawned, c.pieces_asked, c.locks_checked, c.locks_mismatched), (40, 40, 40, 0));
    assert_eq!((c.next_checked, c.next_confirmed, c.presses, c.presses_as_predicted), (40, 40, 200, 200));
}

#[test]
fn two_faults_in_a_window_are_noise_three_are_a_wrong_fact() {
    let mut h = SeatHealth::default();
    for i in 0..WINDOW {
        h.spawned(true, true, true, Some(true), Some(i % 6 != 0));
        h.asked();
    }
    h.spawned(true, true, true, Some(true), Some(true));
    assert_eq!(h.verdict("P1"), None, "two mismatches in the window");
    h.spawned(true, true, true, Some(true), Some(false));
    h.spawned(true, true, true, Some(true), Some(false));
    h.spawned(true, true, true, Some(true), Some(false));
    h.spawned(true, true, true, Some(true), Some(true));
    let f = h.verdict("P2").expect("three mismatches");
    assert_eq!((f.player.as_str(), f.fact), ("P2", Fact::FieldCells));
    assert!(f.to_string().contains("P2: field cells"), "{f}");
}

#[test]
fn each_check_names_its_own_fact() {
    let cases: [(&PieceFn, Fact); 4] = [
        (&|h| h.spawned(true, false, false, None, None), Fact::CurrentPair),
        (&|h| h.spawned(true, true, false, None, Some(true)), Fact::NextPair),
        (
            &|h| {
                h.spawned(true, true, true, Some(false), Some(true));
                h.asked();
            },
            Fact::NextPair,
        ),
        (
            &|h| {
                h.spawned(true, true, true, Some(true), Some(true));
                h.asked();
                h.presses(9, 6, true);
            },
            Fact::Movement,
        ),
    ];
    for (i, (piece, fact)) in cases.iter().enumerate() {
        let mut h = SeatHealth::default();
        for _ in 0..FAILURES + 1 {
            piece(&mut h);
        }
        assert_eq!(h.verdict("P1").map(|f| f.fact), Some(*fact), "case {i}");
    }
}

#[test]
fn a_human_seat_is_not_expected_to_ask_and_late_reads_count() {
    let mut h = SeatHealth::default();
    for _ in 0..WINDOW {
        h.spawned(false, true, true, Some(true), Some(true));
    }
    assert_eq!(h.verdict("P1"), None);
    let mut h = SeatHealth::default();
    for _ in 0..WINDOW {
        h.spawned(true, true, false, None, Some(true));
        h.read_late(true, true);
        h.asked();
    }
    h.spawned(true, true, true, None, None);
    assert_eq!(h.verdict("P1"), None, "a next pair readable a few frames after the spawn is fine");
}

#[test]
fn each_fact_reports_under_its_serde_name() {
    for f in [Fact::FieldCells, Fact::CurrentPair, Fact::NextPair, Fact::Movement, Fact::Mode] {
        assert_eq!(serde_json::to_value(f).unwrap(), f.key());
    }
}

#[test]
fn an_unknown_code_learned_at_once_is_fine_one_that_keeps_coming_back_fails_naming_it() {
    let mut h = SeatHealth::default();
    // A link bit shows in one lock (two codes), then another in a later lock: calibration learns them.
    healthy_piece(&mut h);
    h.unread_codes(&[0x2C, 0x8C]);
    h.spawned(true, true, true, Some(true), None);
    for _ in 0..WINDOW {
        healthy_piece(&mut h);
    }
    h.unread_codes(&[0x4D]);
    h.spawned(true, true, true, Some(true), None);
    for _ in 0..WINDOW {
        healthy_piece(&mut h);
    }
    assert_eq!(h.verdict("P1"), None);
    assert_eq!((h.counts().locks_unread, h.counts().locks_checked), (2, 2 * WINDOW as u64 + 1));
    // The same code, again and again, far apart: calibration cannot learn it.
    for _ in 0..UNREAD_REPEATS - 1 {
        h.unread_codes(&[0x2C]);
        h.spawned(true, true, true, Some(true), None);
        for _ in 0..WINDOW {
            healthy_piece(&mut h);
        }
    }
    let f = h.verdict("P1").expect("a code that keeps coming back");
    assert_eq!(f.fact, Fact::FieldCells);
    assert!(f.seen.contains("0x2C"), "{}", f.seen);
    // Learning the field's codes again starts the tally afresh.
    h.clear_window();
    assert_eq!(h.verdict("P1"), None);
}

#[test]
fn many_locks_that_cannot_be_read_in_a_window_fail() {
    let mut h = SeatHealth::default();
    for code in 0..FAILURES as u8 {
        h.unread_codes(&[0x40 + code]);
        h.spawned(true, true, true, Some(true), None);
        h.asked();
    }
    h.spawned(true, true, true, Some(true), Some(true));
    let f = h.verdict("P2").expect("three unread locks in a window");
    assert_eq!(f.fact, Fact::FieldCells);
    assert!(f.seen.contains("3 of the last"), "{}", f.seen);
}

#[test]
fn clearing_the_window_keeps_the_totals() {
    let mut h = SeatHealth::default();
    for _ in 0..5 {
        h.spawned(true, true, true, Some(false), Some(false));
    }
    assert!(h.verdict("P1").is_some());
    h.clear_window();
    assert_eq!(h.verdict("P1"), None);
    assert_eq!(h.counts().locks_mismatched, 5);
    h.reset();
    assert_eq!(h.counts(), HealthCounts::default());
}

/// Evidence of a red-green pair read upright at column 2 of an empty field but found with its colours
/// exchanged (`swapped`), or found as read.
fn upright_lock(swapped: bool) -> LockEvidence {
    use crate::game::{Color, Field, Orientation, Pair, Piece, Placement};
    let (r, g) = (Color::ALL[0], Color::ALL[1]);
    let at = Placement::new(2, Orientation::Up);
    let before = Field::from_rows(&["Y....."]);
    let mut found = before;
    let truth = if swapped { Pair::new(g, r) } else { Pair::new(r, g) };
    found.play(Piece::Pair(truth), at, &Rules::puyo1()).expect("plays");
    LockEvidence { before, piece: Piece::Pair(Pair::new(r, g)), seen_at: at, decided: None, found }
}

#[test]
fn mismatches_too_sparse_for_the_window_still_fail_the_field_cells() {
    let mut h = SeatHealth::default();
    for i in 0..39 {
        // one mismatch every 13 pieces: never two in a window of 12
        let ok = i % 13 != 0;
        h.spawned(true, true, true, Some(true), Some(ok));
        h.asked();
    }
    assert_eq!(h.counts().locks_mismatched, 3);
    let f = h.verdict("P1").expect("three mismatches since settling");
    assert_eq!(f.fact, Fact::FieldCells);
    assert!(f.seen.contains("3 of 39 locks since the contract settled"), "{}", f.seen);
    h.clear_window();
    assert_eq!(h.verdict("P1"), None, "a fact learned again starts the count again");
}

#[test]
fn pairs_that_keep_landing_one_input_away_fail_and_are_explained() {
    let mut h = SeatHealth::default();
    for i in 0..12 {
        if i % 2 == 0 {
            h.lock_astray(upright_lock(true), true);
        }
        h.spawned(true, true, true, Some(true), Some(true));
        h.asked();
        if i < 10 {
            assert_eq!(h.verdict("P1"), None, "piece {i}: a late move now and then is a pad fault");
        }
    }
    let plain = h.verdict("P1").expect("six of twelve");
    assert_eq!(plain.fact, Fact::Movement, "unexplained, the check's own fact");
    let f = h.verdict_explained("P1", &Rules::puyo1()).expect("six of twelve");
    assert_eq!(f.fact, Fact::CurrentPair, "{}", f.seen);
    assert!(f.seen.contains("current-pair byte order"), "{}", f.seen);
}

#[test]
fn mismatches_no_fact_explains_say_so() {
    let mut h = SeatHealth::default();
    for _ in 0..3 {
        // RAM showed the pair where it was read, yet the lock was a mismatch: nothing explains that
        h.lock_astray(upright_lock(false), false);
        h.spawned(true, true, true, Some(true), Some(false));
    }
    let f = h.verdict_explained("P1", &Rules::puyo1()).expect("three mismatches");
    assert_eq!(f.fact, Fact::FieldCells);
    assert!(f.seen.contains("no single fact explains it"), "{}", f.seen);
}
