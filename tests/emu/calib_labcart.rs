//! The learner and its opening on the open cartridge's committed builds, in the emulator, starting from
//! the real cartridge's guessed address files: it must settle within 10 pieces and learn each build's
//! contract exactly (the builds differ in colour codes and in orientation numbering).

use crate::common::labcart::{Lab, MenuChoice, ROM_CODES, ROM_CONTRACT, ROM_ORIENT, Variant};
use puyobot::calib::{CalibrationReport, ReportState};

use crate::common::calib::learn as run;

fn check(r: &CalibrationReport, v: Variant) {
    assert_eq!(r.state, ReportState::Settled, "{}", r.to_text());
    assert!(r.pieces_to_settle.is_some_and(|p| p <= 10), "{}", r.to_text());
    assert_eq!(r.codes.empty, Some(0));
    assert_eq!(r.color_byte_offset, Some(1));
    let colors = r.codes.colors.clone().unwrap_or_default();
    assert!(!colors.is_empty() && colors.iter().all(|&c| v.codes.is_colour(c)), "{colors:?}");
    assert_eq!(r.codes.piece_colors, None, "the labcart's piece and field codes are the same");
    let o = &r.orientation;
    let want = v.orients;
    assert_eq!([o.down, o.left, o.up, o.right], [want.down, want.left, want.up, want.right].map(Some));
    assert_eq!(r.a_rotates.as_deref(), Some("clockwise"));
    assert_eq!(r.xy_tracks.as_deref(), Some("pivot"));
    assert!(r.contradictions.is_empty(), "{:?}", r.contradictions);
}

#[test]
fn each_committed_build_is_learned_from_the_guessed_files_within_ten_pieces() {
    for (name, rom, v) in [
        ("puyolab", ROM_CONTRACT, Variant::CONTRACT),
        ("codes", ROM_CODES, Variant::CODES),
        ("orient", ROM_ORIENT, Variant::ORIENT),
    ] {
        let mut lab = Lab::new(rom, v);
        lab.boot(MenuChoice::ONE_P);
        let l = run(&mut lab, "1p-endless.toml", 10, true);
        eprintln!("{name} 1P: {}", l.report().to_text());
        check(&l.report(), v);

        let mut lab = Lab::new(rom, v);
        lab.boot(MenuChoice::TWO_P);
        let l = run(&mut lab, "ai-vs-ai.toml", 10, true);
        eprintln!("{name} 2P: {}", l.report().to_text());
        check(&l.report(), v);
    }
}

#[test]
fn items_are_learned_when_they_come() {
    for (item, v) in [(1u8, Variant::CODES), (2, Variant::CODES)] {
        let mut lab = Lab::new(ROM_CODES, v);
        lab.boot(MenuChoice { two_player: false, item, colours: 4 });
        let l = run(&mut lab, "1p-endless.toml", 18, false);
        let r = l.report();
        eprintln!("item {item}: {}", r.to_text());
        check(&r, v);
        assert_eq!((r.kicks.sideways, r.kicks.up), (Some(true), Some(true)), "the open cartridge kicks");
        if item == 1 {
            assert_eq!(r.codes.big_puyo, Some(v.codes.big), "{}", r.to_text());
        } else {
            // Carbuncle shows its kind only when it lands next to puyos; its code is known either way.
            let seen =
                r.codes.carbuncle == Some(v.codes.carbuncle) || r.codes.unknown_items.contains(&v.codes.carbuncle);
            assert!(seen, "{}", r.to_text());
        }
    }
}
