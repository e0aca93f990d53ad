//! Stopping a long run at a safe point: the first SIGINT (Ctrl-C) or SIGTERM asks the run to stop, and
//! the run writes what it has (its report marked `interrupted`, replay, trace, checkpoint) before the
//! program exits with [`EXIT_CODE`]; a second signal ends the program at once.
//!
//! The flag is process-wide because a signal is: every loop that can run for long polls [`requested`]
//! between frames, games or generations, which costs one relaxed atomic load.

use std::sync::Once;
use std::sync::atomic::{AtomicBool, Ordering};

/// The exit code of a run stopped by a signal (128 + SIGINT, as shells report it).
pub const EXIT_CODE: u8 = 130;

static STOP: AtomicBool = AtomicBool::new(false);
static INSTALL: Once = Once::new();

/// Installs the SIGINT/SIGTERM handler (once per process; later calls do nothing). Without it the
/// signals end the program at once, as they do for commands that have nothing to save.
pub fn install() {
    INSTALL.call_once(|| {
        let set = ctrlc::set_handler(|| {
            if STOP.swap(true, Ordering::SeqCst) {
                // The second signal: the person does not want to wait for the safe point.
                std::process::exit(i32::from(EXIT_CODE));
            }
            eprintln!("\ninterrupted: stopping at the next safe point and writing what there is (again to quit now)");
        });
        if let Err(e) = set {
            log::warn!("cannot catch Ctrl-C ({e}); an interrupt will end the run without saving");
        }
    });
}

/// Whether a stop was asked for (a signal, or [`request`]).
pub fn requested() -> bool {
    STOP.load(Ordering::Relaxed)
}

/// Asks the run to stop, as the first signal does.
pub fn request() {
    STOP.store(true, Ordering::SeqCst);
}
