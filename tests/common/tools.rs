//! Tools some tests need besides Rust: `ca65` (Debian package `cc65`) to build cartridges with other
//! contracts, and `Xvfb` / `xvfb-run` (package `xvfb`) to open the window on a private display.
//!
//! A missing tool fails the test that needs it, so a green run means every test ran. Setting
//! `PUYOBOT_SKIP_MISSING_TOOLS=1` turns that failure into a skip that prints what was skipped and why.
//! CI (`.ci/run`) installs both tools and never sets it.
#![allow(dead_code)]

use std::process::Command;

/// The opt-out: set (to anything but empty or `0`), a missing tool skips the test instead of failing it.
pub const OPT_OUT: &str = "PUYOBOT_SKIP_MISSING_TOOLS";

/// Whether the opt-out is set.
pub fn opted_out() -> bool {
    std::env::var(OPT_OUT).is_ok_and(|v| !v.is_empty() && v != "0")
}

/// `test` cannot run because `tool` is missing (`install` says how to get it): panics, or with the
/// opt-out set prints what was skipped and returns, and the caller then returns.
#[track_caller]
pub fn missing(tool: &str, install: &str, test: &str) {
    if opted_out() {
        eprintln!("SKIPPED {test}: {tool} not found ({install}); {OPT_OUT} is set");
    } else {
        panic!("{test} needs {tool}, which was not found: {install}, or set {OPT_OUT}=1 to skip such tests");
    }
}

/// `ca65` is missing for `test` (see [`missing`]).
#[track_caller]
pub fn missing_ca65(test: &str) {
    missing("ca65", "apt-get install cc65", test);
}

/// `Xvfb` is missing for `test` (see [`missing`]).
#[track_caller]
pub fn missing_xvfb(test: &str) {
    missing("Xvfb", "apt-get install xvfb", test);
}

/// True when `xvfb-run` can be started; when it cannot, fails `test` or, with the opt-out set, prints
/// the skip and returns false.
#[track_caller]
pub fn xvfb_run(test: &str) -> bool {
    if Command::new("xvfb-run").arg("--help").output().is_ok() {
        return true;
    }
    missing("xvfb-run", "apt-get install xvfb", test);
    false
}
