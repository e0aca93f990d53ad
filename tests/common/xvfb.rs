//! One `xvfb-run` at a time within a test binary: `xvfb-run -a` picks the first display without a lock
//! file, so two started in the same instant can pick the same display and one of them fails to start.
#![allow(dead_code)]

use std::sync::{Mutex, MutexGuard};

static XVFB_RUN: Mutex<()> = Mutex::new(());

/// Held while an `xvfb-run` child runs; a test that panicked while holding it does not block the others.
pub fn lock() -> MutexGuard<'static, ()> {
    XVFB_RUN.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}
