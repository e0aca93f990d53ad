mod common;
use common::labcart::*;

fn shot(lab: &mut Lab, name: &str) {
    let fb = lab.deck.frame_buffer().to_vec();
    save_png(std::path::Path::new(&format!("target/dbg-{name}.png")), &fb, 256, 240);
}

#[test]
fn debug_boot() {
    let mut lab = Lab::new(ROM_FIXED, Variant::CONTRACT);
    lab.idle(10);
    println!("gstate {}", lab.game_state());
    shot(&mut lab, "title");
    lab.tap(btn::START, 2);
    lab.idle(3);
    shot(&mut lab, "menu");
    lab.tap(btn::START, 1);
    println!("gstate {}", lab.game_state());
    lab.wait_controllable(0);
    println!("piece {:?} delay {}", lab.piece(0), lab.ram(0x615));
    for i in 0..6 {
        let pc = lab.piece(0);
        let ok = lab.place(0, (i % 6) + 1, 2);
        println!("placed {:?} ok {ok}", pc);
        lab.wait_controllable(0);
    }
    println!("{}", lab.print_field(0));
    lab.idle(20);
    shot(&mut lab, "play");
}
