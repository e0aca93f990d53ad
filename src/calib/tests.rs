//! The learner on synthetic frames from the tiny game in [`super::synth`].

use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

use super::synth::{Contract, Game};
use super::*;
use crate::emu::pad;
use crate::game::Orientation;
use crate::memmap::AddressSource;
use crate::memmap::schema::AddressFile;

fn guessed() -> AddressFile {
    AddressSource::Builtin.address_file("1p-endless.toml").expect("built-in file")
}

/// Plays `game` with the opening policy until the learner settles or `pieces` pieces have locked.
fn run_opening(game: &mut Game, learner: &mut Learner, pieces: u32) {
    let mut policy = OpeningPolicy::new(0);
    for _ in 0..pieces * 400 {
        let pads = [policy.buttons(&game.ram, learner), 0];
        learner.observe(&Frame { ram: &game.ram, pads });
        game.frame(pads[0]);
        if learner.is_settled() || learner.report().pieces_seen >= pieces {
            break;
        }
    }
}

fn assert_learned(r: &CalibrationReport, c: &Contract, colours: usize) {
    assert_eq!(r.state, ReportState::Settled, "{}", r.to_text());
    assert_eq!(r.codes.empty, Some(c.empty), "{}", r.to_text());
    assert_eq!(r.color_byte_offset, Some(c.color_offset as u8));
    let o = &r.orientation;
    assert_eq!([o.up, o.right, o.down, o.left], c.ori.map(Some), "{}", r.to_text());
    assert_eq!(r.a_rotates.as_deref(), Some(if c.a_cw { "clockwise" } else { "counterclockwise" }));
    assert_eq!(r.xy_tracks.as_deref(), Some(if c.xy_child { "child" } else { "pivot" }));
    let colors = r.codes.colors.clone().unwrap_or_default();
    assert!(!colors.is_empty() && colors.len() <= colours, "{colors:?}");
    assert!(colors.iter().all(|v| c.colors[..colours].contains(v)), "{colors:?} vs {:?}", c.colors);
    assert!(r.contradictions.is_empty(), "{:?}", r.contradictions);
}

#[test]
fn the_opening_settles_every_random_contract_within_ten_pieces() {
    for seed in 0..60 {
        let c = Contract::random(seed);
        let mut game = Game::new(c.clone(), seed);
        let mut learner = Learner::new(&guessed(), CalibrateMode::Auto);
        run_opening(&mut game, &mut learner, 10);
        let r = learner.report();
        eprintln!("seed {seed}: {c:?}");
        assert_learned(&r, &c, 4);
        assert!(r.pieces_to_settle.is_some_and(|p| p <= 10), "seed {seed}: {:?}", r.pieces_to_settle);
    }
}

#[test]
fn the_learned_file_plays_by_the_contract() {
    let c = Contract::random(7);
    let mut game = Game::new(c.clone(), 7);
    let mut learner = Learner::new(&guessed(), CalibrateMode::Auto);
    run_opening(&mut game, &mut learner, 10);
    let f = learner.address_file("ABC").expect("settled");
    assert_eq!(f.codes.empty, c.empty);
    assert_eq!(f.player[0].field.color_offset as usize, c.color_offset);
    assert_eq!(f.orientation.up, c.ori[0]);
    assert_eq!(f.orientation.left, c.ori[3]);
    assert_eq!(f.movement.xy_tracks == crate::memmap::XyTracks::Child, c.xy_child);
    assert!(f.codes.source.contains("learned from ROM ABC"));
    // Unseen codes never collide with learned ones.
    let mut all = f.codes.colors.clone();
    all.extend([f.codes.empty, f.codes.nuisance, f.codes.wall, f.codes.big_puyo, f.codes.carbuncle]);
    let n = all.len();
    all.sort();
    all.dedup();
    assert_eq!(all.len(), n);
    // The decoder reads the pivot pose from the learned file.
    let mut d = crate::memmap::Decoder::new(f);
    for _ in 0..2000 {
        game.frame(0);
        let s = d.decode(&game.ram);
        let p = &s.players[0];
        if p.controllable {
            assert_eq!(p.x, 3, "the pivot spawns in column 3");
            break;
        }
    }
}

#[test]
fn piece_codes_that_differ_from_field_codes_are_mapped() {
    let mut c = Contract::random(3);
    c.piece_colors = c.colors.map(|v| v ^ 0x80);
    let mut game = Game::new(c.clone(), 3);
    let mut learner = Learner::new(&guessed(), CalibrateMode::Auto);
    run_opening(&mut game, &mut learner, 10);
    let r = learner.report();
    assert_eq!(r.state, ReportState::Settled, "{}", r.to_text());
    let fields = r.codes.colors.clone().unwrap_or_default();
    let pieces = r.codes.piece_colors.clone().expect("a mapping");
    assert_eq!(fields.len(), pieces.len());
    for (p, f) in pieces.iter().zip(&fields) {
        assert_eq!(p ^ 0x80, *f);
    }
}

/// A person: presses at random moments, sometimes several buttons, with no regard for the learner.
fn person(rng: &mut Xoshiro256PlusPlus, held: u8) -> u8 {
    if held != 0 && rng.random_bool(0.6) {
        return held;
    }
    if rng.random_bool(0.8) {
        return 0;
    }
    let choices = [pad::A, pad::B, pad::LEFT, pad::RIGHT, pad::DOWN, pad::A | pad::LEFT, pad::B | pad::RIGHT, 0];
    choices[rng.random_range(0..choices.len())]
}

#[test]
fn a_person_like_press_stream_teaches_the_same_contract() {
    for seed in 0..12 {
        let c = Contract::random(100 + seed);
        let mut game = Game::new(c.clone(), seed);
        let mut learner = Learner::new(&guessed(), CalibrateMode::Only);
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let mut held = 0;
        for _ in 0..200_000 {
            held = person(&mut rng, held);
            learner.observe(&Frame { ram: &game.ram, pads: [held, 0] });
            game.frame(held);
            if learner.is_settled() || game.pieces > 60 {
                break;
            }
        }
        assert_learned(&learner.report(), &c, 4);
    }
}

#[test]
fn a_contradiction_is_logged_and_learned_again() {
    let c = Contract::random(11);
    let mut game = Game::new(c.clone(), 11);
    let mut learner = Learner::new(&guessed(), CalibrateMode::Auto);
    run_opening(&mut game, &mut learner, 10);
    assert!(learner.is_settled());
    // The game changes its orientation numbering under the learner's feet.
    let mut changed = c.clone();
    changed.ori = [c.ori[1], c.ori[2], c.ori[3], c.ori[0]];
    game.contract = changed.clone();
    let mut policy = OpeningPolicy::new(0);
    let mut saw_unsettled = false;
    for _ in 0..20 * 400 {
        let pads = [if learner.is_settled() && saw_unsettled { 0 } else { policy.buttons(&game.ram, &learner) }, 0];
        learner.observe(&Frame { ram: &game.ram, pads });
        game.frame(pads[0]);
        saw_unsettled |= !learner.is_settled();
        if saw_unsettled && learner.is_settled() {
            break;
        }
    }
    let r = learner.report();
    assert!(!r.contradictions.is_empty(), "the change went unnoticed");
    assert!(saw_unsettled);
    assert_eq!(r.state, ReportState::Settled, "{}", r.to_text());
    let o = &r.orientation;
    assert_eq!([o.up, o.right, o.down, o.left], changed.ori.map(Some));
}

#[test]
fn nuisance_and_big_puyo_are_learned_when_they_appear() {
    let c = Contract::random(21);
    let mut game = Game::new(c.clone(), 21);
    game.nuisance_every = 3;
    game.big_every = 5;
    let mut learner = Learner::new(&guessed(), CalibrateMode::Auto);
    let mut policy = OpeningPolicy::new(0);
    for _ in 0..30 * 400 {
        let pads = [policy.buttons(&game.ram, &learner), 0];
        learner.observe(&Frame { ram: &game.ram, pads });
        game.frame(pads[0]);
        if game.pieces > 16 {
            break;
        }
    }
    let r = learner.report();
    assert_eq!(r.codes.nuisance, Some(c.nuisance), "{}", r.to_text());
    assert_eq!(r.codes.big_puyo, Some(c.big), "{}", r.to_text());
}

#[test]
fn off_reports_off_and_verified_files_are_trusted() {
    let mut l = Learner::new(&guessed(), CalibrateMode::Off);
    let game = Game::new(Contract::guess(), 1);
    l.observe(&Frame { ram: &game.ram, pads: [0, 0] });
    assert_eq!(l.report().state, ReportState::Off);
    let lab = AddressSource::Builtin.address_file("labcart/1p-endless.toml").expect("built in");
    let l = Learner::new(&lab, CalibrateMode::Auto);
    assert!(l.is_settled());
    assert_eq!(l.report().pieces_to_settle, Some(0));
    let o = l.report().orientation;
    assert_eq!(o.up, Some(lab.orientation.up));
}

#[test]
fn an_unsettled_fact_is_named_with_advice() {
    // A field that never changes: the pair never shows up in it.
    let mut game = Game::new(Contract::guess(), 2);
    let mut learner = Learner::new(&guessed(), CalibrateMode::Only);
    learner.set_max_pieces(3);
    for _ in 0..3000 {
        learner.observe(&Frame { ram: &game.ram, pads: [pad::DOWN, 0] });
        game.frame(pad::DOWN);
        // Hide the field from the learner by clearing it in RAM after every frame.
        for a in 0x300..0x3E0 {
            game.ram[a] = if a % 2 == 1 && (a & 0xF == 1 || a & 0xF == 0xF) { 8 } else { 0 };
        }
    }
    let r = learner.report();
    assert_eq!(r.state, ReportState::Failed, "{}", r.to_text());
    assert!(r.unsettled.iter().any(|u| u.fact.contains("colour byte")), "{:?}", r.unsettled);
    assert!(r.unsettled.iter().all(|u| !u.advice.is_empty()));
    // The typed state names the same facts, and the cheap check agrees.
    assert!(learner.failed());
    let CalibrationState::Failed { facts } = learner.state() else { panic!("{:?}", learner.state()) };
    assert!(facts.iter().any(|f| matches!(f, UnsettledFact::ColourByte { .. })), "{facts:?}");
    assert_eq!(facts.iter().map(|f| f.render()).collect::<Vec<_>>(), r.unsettled);
}

#[test]
fn spawn_orientation_is_recorded() {
    let mut c = Contract::random(5);
    c.spawn = Orientation::Down;
    let mut game = Game::new(c.clone(), 5);
    let mut learner = Learner::new(&guessed(), CalibrateMode::Auto);
    run_opening(&mut game, &mut learner, 10);
    let r = learner.report();
    assert_learned(&r, &c, 4);
    assert_eq!(r.spawn_orientations, vec![c.ori[2]]);
}

#[test]
fn kicks_are_tested_after_settling_and_learned_either_way() {
    for (seed, kicks) in (31u64..61).map(|s| (s, s % 2 == 1)) {
        let c = Contract::random(seed);
        let mut game = Game::new(c.clone(), seed);
        game.kicks = kicks;
        let mut learner = Learner::new(&guessed(), CalibrateMode::Auto);
        let mut policy = OpeningPolicy::new(0);
        for _ in 0..8 * 400 {
            let pads = [policy.buttons(&game.ram, &learner), 0];
            learner.observe(&Frame { ram: &game.ram, pads });
            game.frame(pads[0]);
            if !learner.kicks_unknown() {
                break;
            }
        }
        let r = learner.report();
        assert_eq!((r.kicks.sideways, r.kicks.up), (Some(kicks), Some(kicks)), "seed {seed}: {}", r.to_text());
        let f = learner.address_file("X").expect("settled");
        assert_eq!((f.movement.kick_sideways, f.movement.kick_up), (kicks, kicks));
    }
}

#[test]
fn codes_learned_after_settling_reach_the_decoder_and_replace_colliding_guesses() {
    // The game's nuisance code is the guessed Big Puyo code: once nuisance is seen, the learned file must
    // use it for nuisance and move the Big Puyo guess out of its way.
    let mut c = Contract::random(21);
    let guess = guessed();
    c.nuisance = guess.codes.big_puyo;
    c.big = (0x30..0x40).find(|v| !c.colors.contains(v) && !c.piece_colors.contains(v) && *v != c.empty).unwrap();
    let mut game = Game::new(c.clone(), 21);
    // Both first appear after the opening has settled (about 10 pieces).
    game.nuisance_every = 14;
    game.big_every = 13;
    let mut online = OnlineCalibration::new(&guess, CalibrateMode::Auto).expect("auto");
    let mut policy = OpeningPolicy::new(0);
    let mut last = None;
    let mut specials_when_settled = None;
    for _ in 0..40 * 400 {
        let pads = [policy.buttons(&game.ram, online.learner()), 0];
        let before = online.learner().special_codes();
        online.observe(&Frame { ram: &game.ram, pads });
        let now = online.learner().special_codes();
        let taken = online.take_learned("ABC");
        if last.is_some() && now != before {
            assert!(taken.is_some(), "codes learned after settling ({now:?}) must reach the decoder at once");
        }
        if let Some(f) = taken {
            specials_when_settled.get_or_insert(before);
            last = Some(f);
        }
        game.frame(pads[0]);
        if game.pieces > 32 {
            break;
        }
    }
    assert_eq!(specials_when_settled, Some((None, None, None)), "settled before nuisance or items were seen");
    let last = last.expect("settled");
    assert_eq!(last.codes.nuisance, c.nuisance, "{}", online.report().to_text());
    assert_eq!(last.codes.big_puyo, c.big);
    assert_ne!(last.codes.carbuncle, c.nuisance, "a guess never keeps a learned code");
    let mut d = crate::memmap::Decoder::new(last);
    assert_eq!(d.cell(c.nuisance), crate::game::Cell::Nuisance);
}

#[test]
fn the_text_report_names_the_2p_rules_learned_and_what_was_relearned() {
    let learner = Learner::new(&guessed(), CalibrateMode::Auto);
    let mut r = learner.report();
    assert!(!r.to_text().contains("2P rules"), "no 2P game seen, no line");
    let mut rules = crate::calib::battle_rules::BattleRules::new(&crate::game::Rules::puyo1());
    rules.locked(0, 4200);
    let _ = rules.dropped(
        &crate::calib::battle_rules::DropSeen { player: 0, before: crate::game::Field::new(), landed: 0 },
        "P1's drop",
    );
    rules.chain_arrived(0);
    let _ = rules.pending_seen(1, 60, "P2's pending");
    r.rules = Some(rules.report());
    let text = r.to_text();
    assert!(text.contains("2P rules (learning): playing with cap 60, 70 points, 30 per drop, vanish"), "{text}");
    assert!(text.contains("2P rules relearned: P2's pending: the per-chain cap was wrong"), "{text}");
}
