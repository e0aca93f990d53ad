//! The window's console side without a window: the APU's sound samples, and save states on disk that
//! outlive the session that made them and refuse another ROM.

use puyobot::config::{Config, Mode};
use puyobot::emu::{Emu, Machine, RomImage, SaveStates, rom};
use puyobot::memmap::AddressSource;
use puyobot::play::{Session, seats_for};
use puyobot::ui::Viewable;
use puyobot::ui::session_view::WindowSession;

/// A 16 KiB NROM cartridge whose reset code starts pulse channel 1 on a steady 440 Hz square wave and
/// then idles: the smallest "title screen with music".
fn tone_rom() -> RomImage {
    let code: &[u8] = &[
        0x78, // SEI
        0xD8, // CLD
        0xA9, 0x01, 0x8D, 0x15, 0x40, // LDA #$01, STA $4015: pulse 1 on
        0xA9, 0xBF, 0x8D, 0x00, 0x40, // LDA #$BF, STA $4000: duty 50 %, length halted, volume 15
        0xA9, 0x00, 0x8D, 0x01, 0x40, // LDA #$00, STA $4001: no sweep
        0xA9, 0xFD, 0x8D, 0x02, 0x40, // LDA #$FD, STA $4002: period low (253: 440 Hz)
        0xA9, 0x00, 0x8D, 0x03, 0x40, // LDA #$00, STA $4003: period high, start the note
        0x4C, 0x1B, 0xC0, // idle: JMP $C01B
    ];
    let mut prg = vec![0xEAu8; 0x4000];
    prg[..code.len()].copy_from_slice(code);
    // NMI, RESET, IRQ vectors: idle loop, start, idle loop.
    prg[0x3FFA..].copy_from_slice(&[0x1B, 0xC0, 0x00, 0xC0, 0x1B, 0xC0]);
    let mut bytes = b"NES\x1a\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00".to_vec();
    bytes.extend_from_slice(&prg);
    bytes.extend_from_slice(&[0u8; 0x2000]);
    RomImage::from_bytes("tone.nes", bytes).expect("a valid iNES image")
}

fn rms(samples: &[f32]) -> f32 {
    (samples.iter().map(|s| s * s).sum::<f32>() / samples.len().max(1) as f32).sqrt()
}

#[test]
fn the_apu_makes_a_frames_worth_of_audible_samples_when_sound_is_on_and_none_when_off() {
    let mut emu = Emu::new(&tone_rom(), false).unwrap();
    for _ in 0..10 {
        emu.clock_frame().unwrap();
        assert!(emu.audio_samples().is_empty(), "sound is off by default");
    }
    emu.set_audio(Some(48_000.0));
    let mut all = Vec::new();
    for _ in 0..30 {
        emu.clock_frame().unwrap();
        let n = emu.audio_samples().len();
        // 48 000 / 60.1 frames a second.
        assert!((790..=810).contains(&n), "{n} samples in one frame");
        all.extend_from_slice(emu.audio_samples());
    }
    let tail = &all[all.len() / 2..];
    assert!(rms(tail) > 0.02, "the note is audible: rms {}", rms(tail));
    assert!(tail.iter().all(|s| s.is_finite() && s.abs() <= 1.0));
    // A square wave at 440 Hz crosses zero about 880 times a second: 14-15 times a frame.
    let centre = tail.iter().sum::<f32>() / tail.len() as f32;
    let crossings = tail.windows(2).filter(|w| (w[0] - centre).signum() != (w[1] - centre).signum()).count();
    let per_second = crossings as f32 / (tail.len() as f32 / 48_000.0);
    assert!((800.0..=960.0).contains(&per_second), "{per_second} zero crossings a second, not a 440 Hz note");
    // The stretch for a sound card's drift changes the count by a fraction of a percent.
    emu.set_audio_ratio(1.005);
    emu.clock_frame().unwrap();
    emu.clock_frame().unwrap();
    assert!((795..=815).contains(&emu.audio_samples().len()), "{}", emu.audio_samples().len());
    // A state saved while sound was off loads without turning it off (or changing its rate).
    emu.set_audio(None);
    let silent_state = emu.save_state().unwrap();
    emu.set_audio(Some(48_000.0));
    emu.load_state(&silent_state).unwrap();
    emu.clock_frame().unwrap();
    assert!((790..=815).contains(&emu.audio_samples().len()), "{}", emu.audio_samples().len());
    emu.set_audio(None);
    emu.clock_frame().unwrap();
    assert!(emu.audio_samples().is_empty(), "off again");
}

fn session(image: &RomImage, root: &std::path::Path) -> WindowSession {
    let labcart = rom::labcart().unwrap();
    let source = AddressSource::Builtin;
    let known = source.catalog().unwrap().identify(&labcart).unwrap().clone();
    let map = source.address_file(known.modes.for_mode(Mode::AiVsAi)).unwrap();
    let mut cfg = Config::default();
    // The two-ply search: these games test the session, not the bot's strength.
    cfg.bots.profile = "two-ply".into();
    cfg.bots.p1 = "greedy".into();
    cfg.bots.p2 = "greedy".into();
    let seats = seats_for(Mode::AiVsAi, &map, &cfg.seat_config()).unwrap();
    let walk_menu = image.hash == labcart.hash;
    WindowSession::with_state_dir(
        Session::builder(Emu::new(image, false).unwrap(), map, Mode::AiVsAi, seats)
            .walk_menu(walk_menu)
            .build()
            .unwrap(),
        root,
    )
}

#[test]
fn a_state_saved_to_disk_loads_in_a_new_session_and_another_roms_is_refused() {
    let root = std::env::temp_dir().join(format!("puyobot-window-states-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let labcart = rom::labcart().unwrap();
    let mut first = session(&labcart, &root);
    for _ in 0..300 {
        first.step_frame().unwrap();
    }
    let saved = first.save_state(4).unwrap();
    let ram_at_save = first.session.machine().ram().to_vec();
    assert!(saved.ends_with("slot-4.state"), "{saved}");
    assert!(saved.contains(&labcart.hash.sha1), "one folder per ROM: {saved}");
    drop(first);

    // A new session (a restart): nothing in memory, the file is the only link.
    let mut second = session(&labcart, &root);
    for _ in 0..50 {
        second.step_frame().unwrap();
    }
    assert_ne!(second.session.machine().ram().to_vec(), ram_at_save);
    second.load_state(4).unwrap();
    assert_eq!(second.session.machine().ram().to_vec(), ram_at_save, "the saved moment is back");
    for _ in 0..100 {
        second.step_frame().unwrap();
    }
    assert!(second.load_state(5).unwrap_err().to_string().contains("slot 5 is empty"));

    // The file copied into another ROM's folder: refused with a message, and that console goes on.
    let tone = tone_rom();
    let mut other = session(&tone, &root);
    std::fs::create_dir_all(other.states().dir()).unwrap();
    std::fs::copy(&saved, other.states().slot_path(4)).unwrap();
    other.step_frame().unwrap();
    let before = other.session.machine().ram().to_vec();
    let err = format!("{:#}", other.load_state(4).unwrap_err());
    assert!(err.contains("another ROM") && err.contains("tone.nes"), "{err}");
    assert_eq!(other.session.machine().ram().to_vec(), before, "nothing was loaded");
    std::fs::remove_dir_all(&root).unwrap();
}
