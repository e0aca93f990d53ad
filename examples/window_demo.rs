//! Shows the puyobot window with a fake session (no ROM needed): an animated
//! test pattern with two fake fields, a moving ghost and a cursor driven by
//! the keyboard pad.
//!
//! ```text
//! cargo run --example window_demo -- [--frames N] [--screenshot PATH]
//!     [--scale N] [--speed 0.5|1|2|4|max] [--fullscreen] [--paused] [--no-hud]
//! ```

use anyhow::{Context, bail};
use puyobot::ui::demo::DemoView;
use puyobot::ui::{EmuSpeed, KeyBindings, WindowOptions, run_window};
use std::path::PathBuf;

fn usage() -> String {
    format!(
        "window_demo: the puyobot window with a fake session\n\n\
         Options:\n  --frames N         exit after N emulated frames\n  \
         --screenshot PATH  write a PNG of the whole window on exit\n  \
         --scale N          initial window scale (default 3)\n  \
         --speed S          0.5, 1, 2, 4 or max (default 1)\n  \
         --fullscreen       start fullscreen\n  --paused           start paused\n  \
         --no-hud           start with the HUD hidden\n\n{}",
        KeyBindings::default().help_text()
    )
}

fn main() -> anyhow::Result<()> {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("info")).init();
    let mut opts = WindowOptions { title: "puyobot window demo".into(), ..WindowOptions::default() };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = |name: &str| args.next().with_context(|| format!("{name} needs a value"));
        match arg.as_str() {
            "--frames" => {
                let v = value("--frames")?;
                opts.max_frames = Some(v.parse().with_context(|| format!("--frames {v:?}"))?);
            }
            "--screenshot" => opts.screenshot_on_exit = Some(PathBuf::from(value("--screenshot")?)),
            "--scale" => {
                let v = value("--scale")?;
                opts.scale = v.parse().with_context(|| format!("--scale {v:?}"))?;
            }
            "--speed" => {
                let v = value("--speed")?;
                opts.emu_speed =
                    EmuSpeed::parse(&v).with_context(|| format!("--speed {v:?}: use 0.5, 1, 2, 4 or max"))?;
            }
            "--fullscreen" => opts.fullscreen = true,
            "--paused" => opts.start_paused = true,
            "--no-hud" => opts.show_hud = false,
            "-h" | "--help" => {
                print!("{}", usage());
                return Ok(());
            }
            other => bail!("unknown argument {other:?}\n\n{}", usage()),
        }
    }
    let mut view = DemoView::new();
    let exit = run_window(&mut view, opts)?;
    log::info!("window closed: {:?} after {} frames", exit.reason, exit.frames);
    Ok(())
}
