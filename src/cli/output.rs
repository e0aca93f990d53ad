//! What every command shares about its output: output paths checked before a run starts (so a typo or a
//! read-only folder fails in a second, not after an hour of games), and progress bars on stderr.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};

use anyhow::bail;
use indicatif::{ProgressBar, ProgressStyle};

/// Checks that the file `path` (given with `flag`) can be written: not a folder, its folder exists and
/// accepts a new file (or the file itself opens for writing). Nothing is left behind.
pub fn check_file(flag: &str, path: &Path) -> anyhow::Result<()> {
    if path.is_dir() {
        bail!("{flag} {}: is a folder; give a file name", path.display());
    }
    let parent = parent_of(path);
    if !parent.is_dir() {
        bail!("{flag} {}: the folder {} does not exist", path.display(), parent.display());
    }
    if path.exists() {
        // Opening for append changes nothing in the file, and fails the same way a rewrite would.
        if let Err(e) = std::fs::OpenOptions::new().append(true).open(path) {
            bail!("{flag} {}: cannot write it: {e}", path.display());
        }
        return Ok(());
    }
    probe(flag, path, &parent)
}

/// Checks that the folder `path` (given with `flag`) can be written into: it exists and accepts a new
/// file, or it does not exist yet and its nearest existing ancestor is a folder that accepts one.
pub fn check_dir(flag: &str, path: &Path) -> anyhow::Result<()> {
    let mut at = path.to_path_buf();
    while !at.exists() {
        at = parent_of(&at);
    }
    if !at.is_dir() {
        bail!("{flag} {}: {} is a file, not a folder", path.display(), at.display());
    }
    probe(flag, path, &at)
}

/// The folder a path sits in (`.` for a bare name).
fn parent_of(path: &Path) -> PathBuf {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// Creates and removes a scratch file in `dir`: the only sure test of write permission (mode bits do not
/// tell about read-only mounts, ACLs or root).
fn probe(flag: &str, path: &Path, dir: &Path) -> anyhow::Result<()> {
    let scratch = dir.join(format!(".puyobot-write-check-{}", std::process::id()));
    match std::fs::OpenOptions::new().write(true).create_new(true).open(&scratch) {
        Ok(_) => {
            let _ = std::fs::remove_file(&scratch);
            Ok(())
        }
        Err(e) => bail!("{flag} {}: cannot write in {}: {e}", path.display(), dir.display()),
    }
}

/// A progress bar on stderr of `len` steps with `template` (indicatif's syntax), hidden when stderr is
/// not a terminal: piped or redirected output never gets bar drawings, and stdout never gets any.
pub fn progress_bar(len: u64, template: &str) -> ProgressBar {
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(len);
    if let Ok(style) = ProgressStyle::with_template(template) {
        bar.set_style(style);
    }
    bar
}

/// A progress bar showing a headless run's progress ([`crate::play::games::Progress`]).
pub struct Bar(pub ProgressBar);

impl crate::play::games::Progress for Bar {
    fn position(&self, position: u64) {
        self.0.set_position(position);
    }

    fn game_done(&self, tally: &str) {
        self.0.set_message(tally.to_string());
        self.0.inc(1);
    }
}

/// The progress bar of a run of `total` self-play games (hidden when stderr is not a terminal).
pub fn games_bar(total: usize) -> ProgressBar {
    progress_bar(total as u64, "{bar:30} {pos}/{len} games  {elapsed_precise}  eta {eta}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_folders_folders_as_files_and_files_as_folders_are_refused_by_name() {
        let base = std::env::temp_dir().join(format!("puyobot-output-{}", std::process::id()));
        std::fs::create_dir_all(&base).expect("temp dir");
        let e = check_file("--save-inputs", &base.join("nope/run.replay")).unwrap_err().to_string();
        assert!(e.starts_with("--save-inputs ") && e.contains("does not exist"), "{e}");
        let e = check_file("--json-out", &base).unwrap_err().to_string();
        assert!(e.contains("is a folder"), "{e}");
        check_file("--save-inputs", &base.join("run.replay")).expect("a new file in a writable folder");
        assert!(!base.join("run.replay").exists(), "the check leaves nothing behind");
        check_dir("--out", &base.join("a/b")).expect("a folder to be made under a writable one");
        std::fs::write(base.join("f"), "x").expect("file");
        let e = check_dir("--out", &base.join("f/sub")).unwrap_err().to_string();
        assert!(e.contains("is a file"), "{e}");
        assert_eq!(std::fs::read_dir(&base).expect("list").count(), 1, "only the test's own file");
        let _ = std::fs::remove_dir_all(&base);
    }
}
