//! Opens the real window (winit + softbuffer) on a private Xvfb display with a
//! still picture for 90 frames at 1x: pacing, no sound device, the exit
//! screenshot, and the window's pixels read back from the X server to check the
//! game picture is shown untouched beside the HUD.
//!
//! A missing `Xvfb` fails the test unless `PUYOBOT_SKIP_MISSING_TOOLS` is set (`tests/common/tools.rs`),
//! which skips it with a message. The window runs on
//! the test thread (`WindowOptions::any_thread`); this file holds a single
//! test so setting `DISPLAY` for the process is safe.

use puyobot::ui::hud::PANEL_W;
use puyobot::ui::{EmuSpeed, ExitReason, GhostCell, HudInfo, HudPlayer, Viewable, WindowOptions, run_window};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

#[path = "common/tools.rs"]
mod tools;

/// A running Xvfb, stopped on drop.
struct Xvfb {
    child: Child,
    display: u32,
}

impl Drop for Xvfb {
    fn drop(&mut self) {
        // SIGTERM lets Xvfb remove its lock file and socket; SIGKILL as a fallback.
        let _ = Command::new("kill").arg("-TERM").arg(self.child.id().to_string()).status();
        let deadline = Instant::now() + Duration::from_secs(3);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn find_on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).map(|dir| dir.join(name)).find(|p| p.is_file())
}

/// Starts Xvfb on the first display in :91..:140 that it can take.
fn start_xvfb(xvfb: &Path) -> Option<Xvfb> {
    for display in 91..=140u32 {
        let Ok(child) = Command::new(xvfb)
            .arg(format!(":{display}"))
            .args(["-screen", "0", "1024x768x24", "-nolisten", "tcp"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
        else {
            continue;
        };
        let mut server = Xvfb { child, display };
        let socket = format!("/tmp/.X11-unix/X{display}");
        let deadline = Instant::now() + Duration::from_secs(10);
        let mut ready = false;
        while Instant::now() < deadline {
            if let Ok(Some(_)) = server.child.try_wait() {
                break; // display taken by someone else: try the next one
            }
            if UnixStream::connect(&socket).is_ok() {
                // Make sure it is our server that answered, not an older one.
                std::thread::sleep(Duration::from_millis(200));
                ready = matches!(server.child.try_wait(), Ok(None));
                break;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        if ready {
            return Some(server);
        }
        drop(server);
    }
    None
}

/// A session whose picture never changes (so a capture taken at any moment must match it), with a
/// planned placement that the window must not draw while the ghost overlay is off.
/// The decision line player 1's bot shows.
const DECISION_LINE: &str = "FIRE 4: 30 = CAP";

struct StillView {
    frame: Vec<u8>,
    frames: u64,
}

impl StillView {
    fn new() -> StillView {
        let mut frame = vec![0u8; 256 * 240 * 4];
        for (i, px) in frame.chunks_exact_mut(4).enumerate() {
            let (x, y) = (i % 256, i / 256);
            px.copy_from_slice(&[(x * 3 % 256) as u8, (y * 5 % 256) as u8, ((x ^ y) & 0xff) as u8, 255]);
        }
        StillView { frame, frames: 0 }
    }
}

impl Viewable for StillView {
    fn step_frame(&mut self) -> anyhow::Result<()> {
        self.frames += 1;
        Ok(())
    }
    fn frame_rgba(&mut self) -> &[u8] {
        &self.frame
    }
    fn hud(&self) -> HudInfo {
        let ghost = vec![GhostCell { x: 64, y: 64, rgb: [255, 255, 255] }];
        let players = (0..2)
            .map(|i| HudPlayer {
                label: format!("P{}", i + 1),
                bot_on: true,
                ghost: ghost.clone(),
                // Player 1's bot tells its decision: the HUD's decision line.
                intent: (i == 0).then(|| DECISION_LINE.to_string()),
                ..HudPlayer::default()
            })
            .collect();
        HudInfo { players, ..HudInfo::default() }
    }
    fn set_keyboard_pad(&mut self, _pad: u8, _buttons: u8) {}
    fn toggle_bot(&mut self, _player: usize) -> bool {
        true
    }
    fn change_bot_speed(&mut self, _delta: i32) -> u8 {
        5
    }
    fn save_state(&mut self, _slot: u8) -> anyhow::Result<String> {
        Ok(String::new())
    }
    fn load_state(&mut self, _slot: u8) -> anyhow::Result<()> {
        Ok(())
    }
}

/// What the X server shows of the first mapped top-level window of at least `min_w`×`min_h`: its
/// size and its pixels as RGB, read back with GetImage.
fn capture_window(display: u32, min_w: u16, min_h: u16) -> Result<(usize, usize, Vec<[u8; 3]>), String> {
    use x11rb::connection::Connection;
    use x11rb::protocol::xproto::{ConnectionExt, ImageFormat, MapState};
    let (conn, screen) = x11rb::connect(Some(&format!(":{display}"))).map_err(|e| e.to_string())?;
    let root = conn.setup().roots[screen].root;
    let deadline = Instant::now() + Duration::from_secs(20);
    while Instant::now() < deadline {
        let tree = conn.query_tree(root).map_err(|e| e.to_string())?.reply().map_err(|e| e.to_string())?;
        for w in tree.children {
            let Ok(Ok(attrs)) = conn.get_window_attributes(w).map(|c| c.reply()) else { continue };
            let Ok(Ok(geo)) = conn.get_geometry(w).map(|c| c.reply()) else { continue };
            if attrs.map_state != MapState::VIEWABLE || geo.width < min_w || geo.height < min_h {
                continue;
            }
            // Let a few presents happen after mapping.
            std::thread::sleep(Duration::from_millis(500));
            let img = conn
                .get_image(ImageFormat::Z_PIXMAP, w, 0, 0, geo.width, geo.height, !0)
                .map_err(|e| e.to_string())?
                .reply()
                .map_err(|e| e.to_string())?;
            let (wd, ht) = (geo.width as usize, geo.height as usize);
            if img.data.len() != wd * ht * 4 {
                return Err(format!("unexpected image layout: {} bytes for {wd}x{ht}", img.data.len()));
            }
            // 24-bit TrueColor in 32-bit pixels, least significant byte first: B, G, R, pad.
            let px = img.data.chunks_exact(4).map(|p| [p[2], p[1], p[0]]).collect();
            return Ok((wd, ht, px));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    Err("no window appeared".into())
}

#[test]
fn window_runs_and_screenshots_under_xvfb() {
    let Some(xvfb) = find_on_path("Xvfb") else {
        tools::missing_xvfb("window_xvfb::window_runs_and_screenshots_under_xvfb");
        return;
    };
    let server = start_xvfb(&xvfb).expect("Xvfb is installed but would not start on :91..:140");
    // An ALSA configuration with no devices: the window must carry on silent, as on a machine without
    // a sound card (and never make noise on a developer's speakers).
    let alsa = std::env::temp_dir().join(format!("puyobot-window-xvfb-alsa-{}.conf", std::process::id()));
    std::fs::write(&alsa, "").unwrap();
    // SAFETY: this test binary has a single test and no other threads that
    // read the environment while the variables are changed.
    unsafe {
        std::env::set_var("DISPLAY", format!(":{}", server.display));
        std::env::remove_var("WAYLAND_DISPLAY");
        std::env::set_var("ALSA_CONFIG_PATH", &alsa);
    }
    let shot = std::env::temp_dir().join(format!("puyobot-window-xvfb-{}.png", std::process::id()));
    let _ = std::fs::remove_file(&shot);

    // The HUD is on and the ghost off: the game picture in the window must be the session's frame,
    // every pixel scaled 2x, with nothing drawn over it. A second thread reads back what the X server
    // shows while the window runs.
    let display = server.display;
    let capture = std::thread::spawn(move || capture_window(display, 448 * 2, 260 * 2));
    let mut view = StillView::new();
    let started = Instant::now();
    let exit = run_window(
        &mut view,
        WindowOptions {
            title: "puyobot xvfb test".into(),
            emu_speed: EmuSpeed::X1,
            scale: 2,
            show_ghost: false,
            max_frames: Some(90),
            screenshot_on_exit: Some(shot.clone()),
            screenshot_dir: std::env::temp_dir(),
            any_thread: true,
            ..WindowOptions::default()
        },
    )
    .expect("run_window under Xvfb");
    let took = started.elapsed();
    let captured = capture.join().unwrap();
    drop(server);
    let _ = std::fs::remove_file(&alsa);

    assert_eq!(exit.reason, ExitReason::MaxFrames);
    assert_eq!(exit.frames, 90);
    assert_eq!(view.frames, 90);
    assert!(!exit.sound_device, "no sound device here, and the window ran on silent");
    // 90 frames at 1x pace take about a second and a half of wall-clock time.
    assert!(took >= Duration::from_millis(1300), "1x pacing too fast: {took:?}");
    let frame = view.frame_rgba().to_vec();

    // What the X server showed.
    let (ww, wh, shown) = captured.expect("capture of the window");
    assert_eq!((ww, wh), (896, 520), "the window at 2x of the 448x260 layout");
    for y in 0..480 {
        for x in 0..512 {
            let f = &frame[((y / 2) * 256 + x / 2) * 4..][..3];
            assert_eq!(&shown[y * ww + 192 + x][..], f, "window pixel ({}, {y})", 192 + x);
        }
    }
    // Beside the picture: the panels, with text ('P' of "P1" at 2x (3, 3)).
    assert_eq!(shown[100 * ww + 100], puyobot::ui::hud::BACKGROUND);
    assert_eq!(shown[6 * ww + 6], [255, 255, 255], "HUD text in the window");

    // Player 1's panel is the HUD's own drawing of it, decision line included: the panel composed with the
    // line equals what the window showed, and the panel composed without it does not.
    let with_line = left_panel(&view, &frame);
    let mut quiet = view.hud();
    quiet.players[0].intent = None;
    let without_line = left_panel_of(&quiet, &frame);
    let shown_panel: Vec<[u8; 3]> =
        (0..240 * PANEL_W).map(|i| shown[(i / PANEL_W) * 2 * ww + (i % PANEL_W) * 2]).collect();
    assert!(with_line == shown_panel, "player 1's panel in the window is the HUD's, with its decision line");
    assert!(without_line != shown_panel, "the decision line {DECISION_LINE:?} is drawn in player 1's panel");

    // The exit screenshot: the whole window at 1x, the picture byte-identical to the frame.
    let (w, h, pixels) = read_png(&shot);
    assert_eq!((w, h), (448, 240 + puyobot::ui::hud::STATUS_H), "the whole window at 1x, HUD included");
    assert_eq!(pixels[3 * w + 3], [255, 255, 255], "HUD drawn");
    for y in 0..240 {
        for x in 0..256 {
            assert_eq!(&pixels[y * w + 96 + x][..], &frame[(y * 256 + x) * 4..][..3], "screenshot ({x}, {y})");
        }
    }
    let _ = std::fs::remove_file(&shot);
}

fn read_png(path: &Path) -> (usize, usize, Vec<[u8; 3]>) {
    let file = std::fs::File::open(path).expect("exit screenshot written");
    let mut reader = png::Decoder::new(std::io::BufReader::new(file)).read_info().expect("valid PNG");
    let mut buf = vec![0; reader.output_buffer_size().expect("PNG size")];
    let info = reader.next_frame(&mut buf).expect("PNG data");
    assert_eq!(info.color_type, png::ColorType::Rgb);
    let px = buf[..info.buffer_size()].chunks_exact(3).map(|p| [p[0], p[1], p[2]]).collect();
    (info.width as usize, info.height as usize, px)
}

/// Player 1's panel (the left one, 1x) as the HUD composes it for `view`.
fn left_panel(view: &StillView, frame: &[u8]) -> Vec<[u8; 3]> {
    left_panel_of(&view.hud(), frame)
}

/// Player 1's panel (the left one, 1x) as the HUD composes it for `info`.
fn left_panel_of(info: &HudInfo, frame: &[u8]) -> Vec<[u8; 3]> {
    let mut out = Vec::new();
    let layers = puyobot::ui::hud::Layers { hud: true, ghost: false };
    let c = puyobot::ui::hud::compose(&mut out, frame, info, &Default::default(), layers, None);
    (0..240 * PANEL_W)
        .map(|i| {
            let px = &out[((i / PANEL_W) * c.width + i % PANEL_W) * 4..][..3];
            [px[0], px[1], px[2]]
        })
        .collect()
}
