//! Opens the real window (winit + softbuffer) on a private Xvfb display with
//! the fake [`DemoView`], runs 60 frames, and checks the exit screenshot.
//!
//! A missing `Xvfb` fails the test unless `PUYOBOT_SKIP_MISSING_TOOLS` is set (`tests/common/tools.rs`),
//! which skips it with a message. The window runs on
//! the test thread (`WindowOptions::any_thread`); this file holds a single
//! test so setting `DISPLAY` for the process is safe.

use puyobot::ui::demo::DemoView;
use puyobot::ui::{EmuSpeed, ExitReason, WindowOptions, run_window};
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

#[test]
fn window_runs_and_screenshots_under_xvfb() {
    let Some(xvfb) = find_on_path("Xvfb") else {
        tools::missing_xvfb("window_xvfb::window_runs_and_screenshots_under_xvfb");
        return;
    };
    let server = start_xvfb(&xvfb).expect("Xvfb is installed but would not start on :91..:140");
    // SAFETY: this test binary has a single test and no other threads that
    // read the environment while the variables are changed.
    unsafe {
        std::env::set_var("DISPLAY", format!(":{}", server.display));
        std::env::remove_var("WAYLAND_DISPLAY");
    }
    let shot = std::env::temp_dir().join(format!("puyobot-window-xvfb-{}.png", std::process::id()));
    let _ = std::fs::remove_file(&shot);

    let mut view = DemoView::new();
    let started = Instant::now();
    let exit = run_window(
        &mut view,
        WindowOptions {
            title: "puyobot xvfb test".into(),
            emu_speed: EmuSpeed::X1,
            max_frames: Some(60),
            screenshot_on_exit: Some(shot.clone()),
            screenshot_dir: std::env::temp_dir(),
            any_thread: true,
            ..WindowOptions::default()
        },
    )
    .expect("run_window under Xvfb");
    let took = started.elapsed();
    drop(server);

    assert_eq!(exit.reason, ExitReason::MaxFrames);
    assert_eq!(exit.frames, 60);
    assert_eq!(view.frame(), 60);
    // 60 frames at 1x pace take about a second of wall-clock time.
    assert!(took >= Duration::from_millis(800), "1x pacing too fast: {took:?}");

    let file = std::fs::File::open(&shot).expect("exit screenshot written");
    let mut reader = png::Decoder::new(std::io::BufReader::new(file)).read_info().expect("valid PNG");
    let mut buf = vec![0; reader.output_buffer_size().expect("PNG size")];
    let info = reader.next_frame(&mut buf).expect("PNG data");
    assert_eq!((info.width, info.height), (256, 240));
    assert_eq!(info.color_type, png::ColorType::Rgb);
    let pixels: Vec<[u8; 3]> = buf[..info.buffer_size()].chunks_exact(3).map(|p| [p[0], p[1], p[2]]).collect();
    let mut colours = pixels.clone();
    colours.sort_unstable();
    colours.dedup();
    assert!(colours.len() >= 8, "screenshot looks blank: {} colours", colours.len());
    // HUD text is white; the top-left 'P' of "P1" starts at (2, 1).
    assert_eq!(pixels[256 + 2], [255, 255, 255], "HUD not drawn");
    let _ = std::fs::remove_file(&shot);
}
