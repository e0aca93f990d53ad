//! Nuisance on the open cartridge against the rules core and the after-lock verifier.

use crate::common;

use crate::common::labcart::{Lab, MenuChoice, ROM_FIXED, Variant};
use crate::common::model::{cell_of, field_of, orientation_value, piece_of};
use puyobot::driver::verify::{Check, compare};
use puyobot::game::{Cell, Color, Field, Orientation, Pair, Piece, Placement, Rules};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

const PENDING_P1: u16 = 0x0082;
const FIELD_P2: u16 = 0x0400;

/// Empties P2's field so the idle P2 never tops out.
fn clear_p2(lab: &mut Lab) {
    for y in 0..14u16 {
        for x in 1..=6u16 {
            lab.poke(FIELD_P2 + 16 * y + 2 * x + 1, 0);
        }
    }
}

/// Random placements (tall stacks included) with random nuisance waiting on P1: after each lock the
/// cartridge's field equals the model's prediction plus nuisance on top, as the verifier allows.
#[test]
fn pending_nuisance_lands_on_top_of_the_predicted_field() {
    let rules = Rules::puyo1();
    let mut mismatches = Vec::new();
    let mut landed = 0;
    let mut checks = 0;
    for seed in 0..6u64 {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let mut lab = Lab::new(ROM_FIXED, Variant::CONTRACT);
        lab.boot(MenuChoice { two_player: true, item: 0, colours: 4 });
        for i in 0..60 {
            if !lab.wait_controllable(0) {
                break;
            }
            clear_p2(&mut lab);
            if rng.random_bool(0.4) {
                lab.poke(PENDING_P1, rng.random_range(0..=12));
            }
            let before = field_of(&lab, 0);
            let piece = piece_of(&lab);
            // any placement the model accepts that does not end the game
            let mut options = Vec::new();
            for x in 1..=6u8 {
                for o in Orientation::ALL {
                    let p = Placement::new(x, o);
                    let mut f = before;
                    if f.play(piece, p, &rules).is_ok() && !f.is_game_over(&rules) {
                        options.push(p);
                    }
                }
            }
            if options.is_empty() {
                break;
            }
            let placement = options[rng.random_range(0..options.len())];
            let mut predicted = before;
            predicted.play(piece, placement, &rules).expect("valid");
            if !lab.place(0, placement.x, orientation_value(placement.orientation)) {
                // the pair could not get there (a tall column in the way): start over from RAM
                continue;
            }
            if !lab.wait_controllable(0) {
                break;
            }
            let actual = field_of(&lab, 0);
            checks += 1;
            match compare(&predicted, &actual) {
                Check::Match { nuisance } => landed += nuisance,
                Check::Mismatch { cells } | Check::Unread { cells } => mismatches.push(format!(
                    "seed {seed} piece {i}: {piece} at {placement} cells {cells:?}\nbefore{before:?}predicted{predicted:?}found{actual:?}"
                )),
            }
        }
    }
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
    assert!(checks >= 50 && landed >= 50, "too little exercised: {checks} locks, {landed} nuisance landed");
}

fn poke_field(lab: &mut Lab, p: usize, f: &Field) {
    let base = if p == 0 { 0x0300u16 } else { FIELD_P2 };
    for y in 0..14usize {
        for x in 1..=6usize {
            let code = match f.get(x, y) {
                Cell::Empty => 0,
                Cell::Nuisance => 7,
                Cell::Color(c) => Color::ALL.iter().position(|&k| k == c).expect("a colour") as u8 + 1,
            };
            lab.poke(base + 16 * y as u16 + 2 * x as u16 + 1, code);
        }
    }
}

/// The field, pair and placement of the first after-lock mismatch seen in AI-vs-AI play (game 5 of seed 200,
/// `--speed 10`, P1): on its own, with or without nuisance waiting, the cartridge does what the model says.
#[test]
fn the_logged_seed_200_lock_matches_the_model_in_isolation() {
    let rules = Rules::puyo1();
    let before = Field::from_rows(&["GO....", "GY....", "GY....", "BOG..O", "YYG.GY", "YBBRBR", "GGBYBR"]);
    for pending in [0u8, 3] {
        let mut lab = Lab::new(ROM_FIXED, Variant::CONTRACT);
        lab.boot(MenuChoice { two_player: true, item: 0, colours: 4 });
        assert!(lab.wait_controllable(0));
        poke_field(&mut lab, 0, &before);
        lab.poke(0x0679, 2);
        lab.poke(0x067D, 1);
        lab.poke(PENDING_P1, pending);
        let piece = piece_of(&lab);
        let pl = Placement::new(4, Orientation::Right);
        let mut predicted = field_of(&lab, 0);
        assert_eq!(predicted, before);
        predicted.play(piece, pl, &rules).unwrap();
        assert!(lab.place(0, 4, 3));
        assert!(lab.wait_controllable(0));
        let actual = field_of(&lab, 0);
        let check = compare(&predicted, &actual);
        assert!(
            matches!(check, Check::Match { nuisance } if nuisance == pending as u32),
            "pending {pending}: {piece} at {pl}: {check:?}\npredicted{predicted:?}found{actual:?}"
        );
    }
}

/// Both players fire the same chain, P2 starting 0–39 frames later (their group searches, pops and
/// nuisance sends interleave): each field ends as the model predicts, nuisance on top allowed.
#[test]
fn both_players_chaining_at_once_match_the_model() {
    let rules = Rules::puyo1();
    let before = Field::from_rows(&["GO....", "GY....", "GY....", "BOG..O", "YYG.GY", "YBBRBR", "GGBYBR"]);
    let mut bad = Vec::new();
    for delay in (0..40usize).step_by(3) {
        let mut lab = Lab::new(ROM_FIXED, Variant::CONTRACT);
        lab.boot(MenuChoice { two_player: true, item: 0, colours: 4 });
        assert!(lab.wait_controllable(0));
        assert!(lab.wait_controllable(1));
        for p in 0..2 {
            poke_field(&mut lab, p, &before);
        }
        lab.poke(0x0679, 2);
        lab.poke(0x067D, 1);
        lab.poke(0x067A, 2);
        lab.poke(0x067E, 1);
        let piece = piece_of(&lab);
        let pl = Placement::new(4, Orientation::Right);
        let mut predicted = before;
        predicted.play(piece, pl, &rules).unwrap();
        let mut placers = [common::labcart::Placer::new(4, 3), common::labcart::Placer::idle()];
        let mut was = [true, true];
        let mut locked = [false, false];
        let mut done = [false, false];
        for f in 0..600 {
            if f == delay {
                placers[1] = common::labcart::Placer::new(4, 3);
            }
            lab.step_placers(&mut placers);
            for p in 0..2 {
                let c = lab.controllable(p);
                if !c && was[p] && (p == 0 || f >= delay) {
                    locked[p] = true;
                }
                if c && !was[p] && locked[p] && !done[p] {
                    done[p] = true;
                    let actual = field_of(&lab, p);
                    if let Check::Mismatch { .. } = compare(&predicted, &actual) {
                        bad.push(format!("delay {delay} P{}: found{actual:?}", p + 1));
                    }
                }
                was[p] = c;
            }
            if done == [true, true] {
                break;
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// Both players place random pairs at once, nuisance waiting on either side now and then: every lock
/// of either player ends as the model predicts, nuisance on top allowed.
#[test]
fn both_players_random_play_matches_the_model() {
    let rules = Rules::puyo1();
    let mut bad = Vec::new();
    let mut checks = 0;
    for seed in 0..12u64 {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(100 + seed);
        let mut lab = Lab::new(ROM_FIXED, Variant::CONTRACT);
        lab.boot(MenuChoice { two_player: true, item: 0, colours: 4 });
        let mut placers = [common::labcart::Placer::idle(), common::labcart::Placer::idle()];
        let mut pending: [Option<Field>; 2] = [None, None];
        let mut was = [false, false];
        for _ in 0..30_000 {
            if lab.game_state() != 2 {
                break;
            }
            for p in 0..2 {
                let c = lab.controllable(p);
                if c && !was[p] {
                    let now = field_of(&lab, p);
                    if let Some(pred) = pending[p].take() {
                        checks += 1;
                        if let Check::Mismatch { cells } = compare(&pred, &now) {
                            bad.push(format!("seed {seed} P{}: {cells:?}\npredicted{pred:?}found{now:?}", p + 1));
                        }
                    }
                    if rng.random_bool(0.3) {
                        lab.poke(if p == 0 { PENDING_P1 } else { 0x0084 }, rng.random_range(0..=8));
                    }
                    let lp = lab.piece(p);
                    let piece = match (cell_of(lp.pivot), cell_of(lp.child)) {
                        (Cell::Color(a), Cell::Color(b)) => Piece::Pair(Pair::new(a, b)),
                        other => panic!("pair codes decode to {other:?}"),
                    };
                    let mut options = Vec::new();
                    for x in 1..=6u8 {
                        for o in Orientation::ALL {
                            let pl = Placement::new(x, o);
                            let mut f = now;
                            if f.play(piece, pl, &rules).is_ok() && !f.is_game_over(&rules) {
                                options.push((pl, f));
                            }
                        }
                    }
                    if let Some(&(pl, f)) = options.get(rng.random_range(0..options.len().max(1))) {
                        placers[p] = common::labcart::Placer::new(pl.x, orientation_value(pl.orientation));
                        pending[p] = Some(f);
                    }
                }
                was[p] = c;
            }
            lab.step_placers(&mut placers);
            for p in 0..2 {
                if placers[p].done() && !placers[p].reached {
                    pending[p] = None; // the pair did not get where the model was asked about
                }
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
    eprintln!("{checks} locks checked");
    assert!(checks >= 200, "too few locks checked: {checks}");
}
