//! The decoder on synthetic RAM images, and on random RAM (it must never panic).

use proptest::prelude::*;

use puyobot::game::{Cell, Color, Item, Orientation, Pair, Piece};
use puyobot::memmap::{AddressSource, Decoder};

fn decoder(rel: &str) -> Decoder {
    Decoder::new(AddressSource::Builtin.address_file(rel).expect("address file"))
}

/// An image with walls, a P1 pair 1/2 at (4, 5) facing right, next 3/3, and a few field cells.
fn image() -> [u8; 2048] {
    let mut ram = [0u8; 2048];
    for base in [0x300, 0x400] {
        for y in 0..14 {
            ram[base + 16 * y + 1] = 8;
            ram[base + 16 * y + 15] = 8;
        }
    }
    let cell = |x: usize, y: usize| 0x300 + 16 * y + 2 * x + 1;
    ram[cell(1, 13)] = 1;
    ram[cell(2, 13)] = 7;
    ram[cell(6, 12)] = 4;
    ram[0x679] = 1;
    ram[0x67D] = 2;
    ram[0x67] = 3;
    ram[0x68] = 3;
    ram[0x669] = 4;
    ram[0x66D] = 5;
    ram[0x6D5] = 3;
    ram[0x615] = 0;
    ram[0x7A] = 0x39;
    ram[0x7B] = 0x30;
    ram
}

#[test]
fn a_synthetic_image_decodes_to_the_model() {
    let mut d = decoder("1p-endless.toml");
    let snap = d.decode(&image());
    let p = &snap.players[0];
    assert_eq!(p.field.get(1, 13), Cell::Color(Color::ALL[0]));
    assert_eq!(p.field.get(2, 13), Cell::Nuisance);
    assert_eq!(p.field.get(6, 12), Cell::Color(Color::ALL[3]));
    assert_eq!(p.field.count(), 3);
    assert_eq!(p.current, Some(Piece::Pair(Pair::new(Color::ALL[0], Color::ALL[1]))));
    assert_eq!(p.next, Some(Piece::Pair(Pair::new(Color::ALL[2], Color::ALL[2]))));
    assert_eq!((p.x, p.y, p.orientation), (4, 5, Some(Orientation::Right)));
    assert!(p.controllable);
    assert_eq!(p.score, Some(0x3039 * 10));
    assert_eq!(snap.mode, Some(0));
}

#[test]
fn not_controllable_while_the_spawn_delay_runs() {
    let mut ram = image();
    ram[0x615] = 10;
    assert!(!decoder("1p-endless.toml").decode(&ram).players[0].controllable);
}

#[test]
fn items_decode_from_both_bytes() {
    let mut ram = image();
    ram[0x679] = 9;
    ram[0x67D] = 9;
    ram[0x67] = 10;
    ram[0x68] = 10;
    let p = decoder("1p-endless.toml").decode(&ram).players.remove(0);
    assert_eq!(p.current, Some(Piece::Item(Item::BigPuyo)));
    assert_eq!(p.item(), Some(Item::BigPuyo));
    assert_eq!(p.next, Some(Piece::Item(Item::Carbuncle)));
}

#[test]
fn variant_codes_and_orientations_map_to_the_same_model() {
    let mut ram = image();
    for b in ram.iter_mut().skip(0x300).take(0x1E0) {
        if (1..=6).contains(b) {
            *b += 16;
        } else if *b == 7 {
            *b = 32;
        }
    }
    for a in [0x679, 0x67D, 0x67, 0x68] {
        ram[a] += 16;
    }
    let codes = decoder("labcart-codes/1p-endless.toml").decode(&ram);
    let contract = decoder("labcart/1p-endless.toml").decode(&image());
    assert_eq!(codes.players[0].field, contract.players[0].field);
    assert_eq!(codes.players[0].current, contract.players[0].current);
    let mut ram = image();
    ram[0x6D5] = 1; // right in the orient variant
    assert_eq!(decoder("labcart-orient/1p-endless.toml").decode(&ram).players[0].orientation, Some(Orientation::Right));
}

#[test]
fn unknown_codes_are_handled_consistently() {
    let mut ram = image();
    let mut d = decoder("1p-endless.toml");
    // An unknown code in a piece takes a colour class, and keeps it.
    let narrow = {
        let mut f = AddressSource::Builtin.address_file("1p-endless.toml").unwrap();
        f.codes.colors = vec![1, 2, 3, 4];
        Decoder::new(f)
    };
    let mut n = narrow;
    ram[0x679] = 5;
    let first = n.decode(&ram).players[0].current;
    let again = n.decode(&ram).players[0].current;
    assert_eq!(first, again);
    assert_eq!(first, Some(Piece::Pair(Pair::new(Color::ALL[4], Color::ALL[1]))));
    // An unknown code in the field reads as nuisance.
    ram[0x300 + 16 * 13 + 2 * 3 + 1] = 0x77;
    assert_eq!(d.decode(&ram).players[0].field.get(3, 13), Cell::Nuisance);
    assert_eq!(d.colors().unknown_codes(), vec![0x77]);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn random_ram_never_panics(ram in proptest::collection::vec(any::<u8>(), 2048)) {
        let ram: [u8; 2048] = ram.try_into().unwrap();
        for rel in ["1p-endless.toml", "2p.toml", "labcart-codes/ai-vs-ai.toml", "labcart-orient/2p.toml"] {
            let mut d = decoder(rel);
            let snap = d.decode(&ram);
            for p in &snap.players {
                prop_assert!(p.field.count() <= 84);
                if p.controllable {
                    prop_assert!((1..=6).contains(&p.x) && p.current.is_some() && p.orientation.is_some());
                }
            }
        }
    }

    #[test]
    fn random_ram_with_small_codes_never_panics(ram in proptest::collection::vec(0u8..12, 2048)) {
        let ram: [u8; 2048] = ram.try_into().unwrap();
        let mut d = decoder("ai-vs-ai.toml");
        let a = d.decode(&ram);
        let b = d.decode(&ram);
        prop_assert_eq!(a, b);
    }
}
