//! The session as the window sees it: the `Viewable` adapter without a window, and the real window
//! under Xvfb (a missing `xvfb-run` fails, unless `PUYOBOT_SKIP_MISSING_TOOLS` is set: `common::tools`).

use puyobot::config::{Config, Mode};
use puyobot::emu::{Emu, RomImage, rom};
use puyobot::memmap::AddressSource;
use puyobot::play::{Session, seats_for};
use puyobot::ui::session_view::WindowSession;
use puyobot::ui::{FRAME_RGBA_LEN, PAD_A, PAD_START, Viewable};

fn view(mode: Mode) -> WindowSession {
    view_with(mode, false)
}

/// A window session; `person_starts`: the scripts hold for the person's Start and games restart, as
/// `puyobot play --mode vs-human` sets up.
fn view_with(mode: Mode, person_starts: bool) -> WindowSession {
    let image: RomImage = rom::labcart().expect("built-in labcart");
    let source = AddressSource::Builtin;
    let known = source.catalog().unwrap().identify(&image).unwrap().clone();
    let map = source.address_file(known.modes.for_mode(mode)).unwrap();
    let mut cfg = Config::default();
    // The two-ply search: these games test the session, not the bot's strength.
    cfg.bots.profile = "two-ply".into();
    cfg.bots.p1 = "greedy".into();
    cfg.bots.p2 = "greedy".into();
    cfg.play.speed = 10;
    cfg.lab.threaded_bots = true;
    let seats = seats_for(mode, &map, &cfg.seat_config()).unwrap();
    let states = std::env::temp_dir().join(format!("puyobot-player-window-states-{}-{mode}", std::process::id()));
    let session = Session::builder(Emu::new(&image, false).unwrap(), map, mode, seats)
        .walk_menu(true)
        .hold_for_start(person_starts)
        .restart(person_starts)
        .build()
        .unwrap();
    WindowSession::with_state_dir(session, &states)
}

#[test]
fn the_viewable_adapter_shows_frames_hud_and_handles_the_keys() {
    let mut v = view(Mode::AiVsAi);
    for _ in 0..400 {
        v.step_frame().unwrap();
    }
    assert_eq!(v.frame_rgba().len(), FRAME_RGBA_LEN);
    assert!(v.frame_rgba().chunks(4).any(|px| px[..3] != [0, 0, 0]), "the picture is drawn");
    let hud = v.hud();
    assert_eq!(hud.players.len(), 2);
    assert!(hud.players.iter().all(|p| p.bot_on && p.speed == 10));
    assert!(v.session.seats.iter().all(|s| s.stats.pieces > 0), "{:?}", v.session.seats);
    // A ghost is drawn for a planned placement: 16x16 cells inside the player's half of the screen.
    // Step until a planned placement shows: there is one for most of a piece's fall.
    let mut ghosts: Vec<_> = hud.players.iter().flat_map(|p| p.ghost.clone()).collect();
    for _ in 0..600 {
        if !ghosts.is_empty() {
            break;
        }
        v.step_frame().unwrap();
        ghosts = v.hud().players.iter().flat_map(|p| p.ghost.clone()).collect();
    }
    assert!(!ghosts.is_empty(), "no ghost drawn in 1000 frames of AI vs AI");
    assert!(ghosts.iter().all(|g| (0..256).contains(&g.x) && (0..240).contains(&g.y)), "{ghosts:?}");
    assert_eq!(v.change_bot_speed(-3), 7);
    assert_eq!(v.change_bot_speed(20), 10);
    // One side's bot alone.
    assert_eq!(v.change_player_bot_speed(1, -4), Some(6));
    assert_eq!((v.hud().players[0].speed, v.hud().players[1].speed), (10, 6));
    assert_eq!(v.change_player_bot_speed(5, 1), None, "no such player");
    assert!(!v.toggle_bot(0));
    assert!(v.toggle_bot(0));
    v.save_state(1).unwrap();
    let before = v.session.machine().deck().wram().to_vec();
    for _ in 0..100 {
        v.step_frame().unwrap();
    }
    v.load_state(1).unwrap();
    assert_eq!(v.session.machine().deck().wram().to_vec(), before);
    assert!(v.load_state(2).is_err(), "an empty slot is an error, not a panic");
    let _ = std::fs::remove_dir_all(v.states().dir());
    for _ in 0..300 {
        v.step_frame().unwrap();
    }
    assert!(v.session.seats.iter().all(|s| s.stats.mismatches == 0));
    // The largest chains on the panels and in the tally count the game under way.
    let hud = v.hud();
    for (i, p) in hud.players.iter().enumerate() {
        assert_eq!(p.largest_chain, v.session.largest_chain(i));
        assert!(p.largest_chain >= v.session.seats[i].stats.largest_chain);
    }
    let want = format!("MAX CHAIN {}/{}", hud.players[0].largest_chain, hud.players[1].largest_chain);
    assert!(hud.tally.as_deref().is_some_and(|t| t.ends_with(&want)), "{:?} vs {want}", hud.tally);
}

#[test]
fn vs_human_starts_with_the_person_on_pad_1() {
    let mut v = view(Mode::VsHuman);
    let hud = v.hud();
    assert!(!hud.players[0].bot_on && hud.players[1].bot_on);
    assert!(hud.players[0].label.contains("HUMAN"));
    // The person's panel shows the person's things, the bot's the bot's.
    assert!(hud.players[0].human && hud.players[0].pad == 0 && hud.players[0].score.is_some());
    assert!(!hud.players[1].human);
    // Only the bot's side changes speed.
    let p1 = v.hud().players[0].speed;
    assert!(v.change_player_bot_speed(1, -1).is_some());
    assert_eq!(v.hud().players[0].speed, p1);
}

#[test]
fn vs_human_waits_for_the_person_s_start_then_the_game_starts_and_the_bot_plays() {
    let mut v = view_with(Mode::VsHuman, true);
    // The labcart's script reaches its last Start within about 270 frames; the person takes a minute.
    for _ in 0..3600 {
        v.step_frame().unwrap();
    }
    assert!(v.session.awaiting_start() && v.hud().awaiting_start, "the script waits for the person");
    assert!(v.session.in_menus() && v.session.game_number() == 0 && v.session.menu_error.is_none());
    assert!(v.session.seats.iter().all(|s| s.stats.pieces == 0), "no game started: {:?}", v.session.seats);
    // Other buttons do not start it.
    v.set_keyboard_pad(0, PAD_A);
    for _ in 0..60 {
        v.step_frame().unwrap();
    }
    v.set_keyboard_pad(0, 0);
    for _ in 0..60 {
        v.step_frame().unwrap();
    }
    assert!(v.session.awaiting_start());
    // Start on pad 1 (keyboard or controller: the window hands both over as one pad).
    v.set_keyboard_pad(0, PAD_START);
    for _ in 0..3 {
        v.step_frame().unwrap();
    }
    v.set_keyboard_pad(0, 0);
    assert!(!v.session.awaiting_start() && !v.hud().awaiting_start);
    for _ in 0..900 {
        v.step_frame().unwrap();
    }
    assert!(!v.session.in_menus() && v.session.game_number() == 1, "the game started");
    assert!(v.session.seats[1].stats.pieces > 0, "the bot on pad 2 plays: {:?}", v.session.seats[1]);
    assert!(v.session.menu_error.is_none(), "{:?}", v.session.menu_error);
    // The idle person tops out; with restarts on, the restart script waits for Start again.
    let waited = (0..20_000).find(|_| {
        v.step_frame().unwrap();
        v.session.awaiting_start()
    });
    assert!(waited.is_some() && v.session.finished_games().len() == 1, "no wait after the game over");
    for _ in 0..600 {
        v.step_frame().unwrap();
    }
    assert!(v.session.awaiting_start() && v.session.in_menus(), "the next game waits for the person");
}

#[test]
fn without_the_hold_vs_human_starts_by_itself() {
    let mut v = view(Mode::VsHuman);
    for _ in 0..900 {
        v.step_frame().unwrap();
        assert!(!v.session.awaiting_start());
    }
    assert!(!v.session.in_menus() && v.session.game_number() == 1);
}

#[test]
fn the_play_command_runs_in_a_window_under_xvfb() {
    if !crate::common::tools::xvfb_run("player_window::the_play_command_runs_in_a_window_under_xvfb") {
        return;
    }
    let shot = std::env::temp_dir().join(format!("puyobot-player-window-{}.png", std::process::id()));
    let xvfb = crate::common::xvfb::lock();
    let out = std::process::Command::new("xvfb-run")
        .args(["-a", "-s", "-screen 0 1024x768x24"])
        .arg(env!("CARGO_BIN_EXE_puyobot"))
        .args(["play", "--mode", "ai-vs-ai", "--emu-speed", "max", "--frames", "600", "--config", "/dev/null"])
        .args(["--p1-ai", "greedy", "--p2-ai", "greedy"])
        .arg("--screenshot-on-exit")
        .arg(&shot)
        .env(
            "PUYOBOT_DATA_DIR",
            std::env::temp_dir().join(format!("puyobot-player-window-data-{}", std::process::id())),
        )
        .output()
        .expect("xvfb-run");
    drop(xvfb);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let png = std::fs::read(&shot).expect("exit screenshot");
    assert_eq!(&png[1..4], b"PNG");
    let _ = std::fs::remove_file(&shot);
}

#[test]
fn vs_human_in_the_window_starts_when_the_person_presses_enter() {
    if !crate::common::tools::xvfb_run("player_window::vs_human_in_the_window_starts_when_the_person_presses_enter") {
        return;
    }
    let dir = std::env::temp_dir().join(format!("puyobot-vs-human-window-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (script, trace) = (dir.join("keys.txt"), dir.join("run.trace"));
    // Enter (pad 1 Start) at frame 700, long after the menu script (about 270 frames) reached its last Start.
    std::fs::write(&script, "700 Enter down\n703 Enter up\n").unwrap();
    let xvfb = crate::common::xvfb::lock();
    let out = std::process::Command::new("xvfb-run")
        .args(["-a", "-s", "-screen 0 1024x768x24"])
        .arg(env!("CARGO_BIN_EXE_puyobot"))
        .args(["play", "--mode", "vs-human", "--emu-speed", "max", "--frames", "1500", "--config", "/dev/null"])
        .args(["--p2-ai", "greedy", "--record", &trace.display().to_string()])
        .arg("--key-script")
        .arg(&script)
        .env("PUYOBOT_DATA_DIR", dir.join("data"))
        .output()
        .expect("xvfb-run");
    drop(xvfb);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let mut reader = puyobot::trace::TraceReader::open(&trace).expect("trace");
    let mut pads = Vec::new();
    while let Some((p, _)) = reader.next_frame().expect("frame") {
        pads.push(p);
    }
    assert_eq!(pads.len(), 1500);
    // Nothing pressed Start, and the bot on pad 2 did nothing, until the person's Enter.
    assert!(pads[300..700].iter().all(|p| *p == [0, 0]), "the game waited: {:?}", &pads[300..700]);
    assert!(pads[700..703].iter().all(|p| p[0] == PAD_START), "{:?}", &pads[700..703]);
    assert!(pads[703..].iter().any(|p| p[1] != 0), "after Start the bot on pad 2 plays");
    // The header says it ran in a window, so a replay check feeds its pads to a fresh console (nothing
    // can press the person's keys again) and finds the trace's RAM on every frame.
    let run = puyobot::trace::RunInfo::from_header("run.trace", reader.header()).expect("header").expect("run");
    assert_eq!((run.place, run.frames), (puyobot::trace::RunPlace::Window, Some(1500)));
    assert!(!run.reruns() && run.config.contains("mode = \"vs-human\""), "{run:?}");
    let check = std::process::Command::new(env!("CARGO_BIN_EXE_puyobot"))
        .args(["replay", &trace.display().to_string(), "--headless"])
        .output()
        .expect("replay");
    let said = String::from_utf8_lossy(&check.stdout);
    assert!(check.status.success(), "{}", String::from_utf8_lossy(&check.stderr));
    assert!(said.contains("RAM matches the file on every frame, 1500 frames"), "{said}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn play_help_lists_every_window_key_from_the_bindings_table() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_puyobot")).args(["play", "--help"]).output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("Window keys:"), "{text}");
    for (key, what) in puyobot::ui::KeyBindings::default().help_rows() {
        assert!(text.contains(&format!("{key:<12}  {what}")), "{key} {what} missing from play --help");
    }
}
