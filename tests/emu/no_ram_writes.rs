//! The session never writes game RAM: a whole session's pads (menus, games and the restarts between
//! them), recorded to a trace and replayed into a fresh console that nobody reads, give the RAM the trace
//! holds on every frame. Also save states.

use std::path::PathBuf;

use puyobot::config::{Config, Mode};
use puyobot::emu::record::play_back;
use puyobot::emu::{Emu, Machine, RomImage, SaveStates, ram_hash};
use puyobot::memmap::AddressSource;
use puyobot::play::{Limits, Session, headless, seats_for};
use puyobot::trace::{TraceEnd, TraceHeader, TraceReader, TraceRecorder, TraceWriter};

/// The console of these sessions: recorded to a trace in memory, pads kept.
type Recorded = TraceRecorder<Emu, Vec<u8>>;

fn labcart() -> RomImage {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src/labcart/puyolab.nes");
    RomImage::from_path(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn session(image: &RomImage, mode: Mode) -> Session<Recorded> {
    let source = AddressSource::Builtin;
    let catalog = source.catalog().expect("roms.toml");
    let known = catalog.identify(image).expect("the labcart is in roms.toml");
    let map = source.address_file(known.modes.for_mode(mode)).expect("address file");
    let mut cfg = Config::default();
    // The two-ply search: these games test the session, not the bot's strength.
    cfg.bots.profile = "two-ply".into();
    cfg.play.speed = 10;
    cfg.lab.threaded_bots = false;
    let seats = seats_for(mode, &map, &cfg.seat_config()).expect("seats");
    let writer = TraceWriter::new(Vec::new(), "memory", &TraceHeader::for_rom(image)).expect("header");
    let machine = TraceRecorder::new(Emu::new(image, true).expect("emulator"), Some(writer)).with_pad_log();
    Session::builder(machine, map, mode, seats).walk_menu(true).build().expect("session")
}

#[test]
fn a_whole_session_leaves_ram_as_the_game_alone_would() {
    let image = labcart();
    for mode in [Mode::Endless, Mode::AiVsAi] {
        let mut s = session(&image, mode);
        // Several games if one ends early: the restart script between them writes no RAM either.
        let limits = Limits { pieces: Some(60), games: Some(5), ..Limits::default() };
        let r = headless::run(&mut s, limits, "puyolab.nes", 1, 10).expect("run");
        // The run stops once a player has locked 60 pieces (either seat in a 2-player mode).
        assert!(r.players.iter().any(|p| p.pieces >= 60), "{:?}", r.players);
        let final_ram = *s.machine().ram();
        let log = s.machine().pad_log().expect("pads kept").to_vec();
        assert!(log.len() > 1000 && log.iter().any(|p| p[0] != 0), "the session pressed buttons");
        let bytes = finish(s);
        // The trace holds RAM at the start of every frame; a fresh console fed only its pads must have it.
        let mut trace = TraceReader::new(&bytes[..], "memory").expect("trace");
        let mut fresh = Emu::new(&image, true).expect("emulator");
        let (mut frames, mut first_bad) = (0usize, None);
        while let Some((pads, ram)) = trace.next_frame().expect("frame") {
            assert_eq!(pads, log[frames], "the trace's pads are the pad log's");
            if first_bad.is_none() && fresh.ram() != ram {
                first_bad = Some(frames);
            }
            fresh.set_pads(pads);
            fresh.clock_frame().expect("frame");
            frames += 1;
        }
        assert_eq!(frames, log.len());
        assert_eq!(first_bad, None, "{mode:?}: RAM differs from the pads-only replay");
        assert_eq!(*fresh.ram(), final_ram, "{mode:?}: final RAM");
        let end = trace.end().expect("read to the end");
        assert_eq!(end, &TraceEnd::Complete { frames: frames as u64, final_ram_hash: ram_hash(&final_ram) });
    }
}

/// Ends the session's recording and returns the trace's bytes.
fn finish(mut s: Session<Recorded>) -> Vec<u8> {
    s.machine_mut().finish_writer().expect("finish").expect("was recording").0
}

#[test]
fn a_save_state_restores_ram_and_the_same_inputs_give_the_same_frames() {
    let image = labcart();
    let mut s = session(&image, Mode::Endless);
    let limits = Limits { pieces: Some(10), ..Limits::default() };
    headless::run(&mut s, limits, "puyolab.nes", 1, 10).expect("run");
    let mut emu = Emu::new(&image, true).expect("emulator");
    // Bring a fresh console to the session's moment with its pads, then branch from there.
    play_back(&mut emu, s.machine().pad_log().expect("pads kept"), |_, _| {}).expect("replay");
    let saved_ram = *emu.ram();
    let state = emu.save_state().expect("save");
    let pads: Vec<[u8; 2]> = (0..600u32).map(|f| [[0x40, 0x80, 0x01, 0x20][(f / 7 % 4) as usize], 0]).collect();
    let mut first = Vec::new();
    play_back(&mut emu, &pads, |_, ram| first.push(ram_hash(ram))).expect("play on");
    assert_ne!(*emu.ram(), saved_ram, "playing on changed RAM");
    emu.load_state(&state).expect("load");
    assert_eq!(*emu.ram(), saved_ram, "RAM equals the saved moment");
    let mut second = Vec::new();
    play_back(&mut emu, &pads, |_, ram| second.push(ram_hash(ram))).expect("play again");
    assert_eq!(first, second, "the same inputs give the same frames after a load");
}
