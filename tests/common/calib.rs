//! Shared by the calibration tests: the learner driven by its opening on a `Lab`, the real cartridge's
//! guessed address folder as a user has it, and `puyobot play` run for its JSON report.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

use puyobot::calib::{CalibrateMode, Frame, Learner, OpeningPolicy};
use puyobot::memmap::AddressSource;
use serde_json::Value;

use super::labcart::Lab;

/// Runs the learner with the opening policy on every seat of the built-in address file `file` for
/// `pieces` pieces (of the player who locked most), or until settled when `until_settled`.
pub fn learn(lab: &mut Lab, file: &str, pieces: u32, until_settled: bool) -> Learner {
    let map = AddressSource::Builtin.address_file(file).expect("built-in address file");
    let mut learner = Learner::new(&map, CalibrateMode::Auto);
    let mut policies: Vec<OpeningPolicy> = (0..map.player.len()).map(OpeningPolicy::new).collect();
    let mut ram = [0u8; 2048];
    for _ in 0..pieces * 600 {
        ram.copy_from_slice(&lab.deck.wram()[..2048]);
        let mut pads = [0u8; 2];
        for (i, p) in policies.iter_mut().enumerate() {
            pads[map.player[i].pad as usize - 1] = p.buttons(&ram, &learner);
        }
        learner.observe(&Frame { ram: &ram, pads });
        lab.frame(pads[0], pads[1]);
        if (until_settled && learner.is_settled()) || learner.report().pieces_seen >= pieces {
            break;
        }
    }
    learner
}

/// The real cartridge's guessed files as they ship, with a catalogue that lists only the real
/// cartridge (so every test build is an unknown dump), in `dir/guessed`.
pub fn guessed_folder(dir: &Path) -> PathBuf {
    let out = dir.join("guessed");
    std::fs::create_dir_all(&out).expect("folder");
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("addresses");
    for file in ["1p-endless.toml", "2p.toml", "ai-vs-ai.toml"] {
        let text = std::fs::read(root.join(file)).expect("a guessed file");
        write_whole(&out.join(file), &text);
    }
    let roms = std::fs::read_to_string(root.join("roms.toml")).expect("roms.toml");
    let cut = roms.find("# The open test cartridge").expect("catalogue layout");
    write_whole(&out.join("roms.toml"), &roms.as_bytes()[..cut]);
    out
}

/// Writes `path` by renaming a finished temporary file over it: tests running at the same time share the
/// folder, and a `puyobot` of another test reading the file must never see it half written.
fn write_whole(path: &Path, bytes: &[u8]) {
    let tmp = path.with_extension(format!("tmp-{}-{:?}", std::process::id(), std::thread::current().id()));
    std::fs::write(&tmp, bytes).expect("write a temporary file");
    std::fs::rename(&tmp, path).expect("rename the temporary file");
}

/// The settings the calibration tests' assertions (chains built, pieces placed, the chain bot's win) rely
/// on, given as flags so that neither `./config.toml` nor a retune of the defaults changes them: no
/// configuration file, full speed, full strength, `chain` on pad 1 (and [`PINNED_P2`] in 2-player modes),
/// and the two-ply search (`--fast`): these runs test calibration and the contract, not the bot's strength,
/// and the two-ply search plays them at a fraction of the full search's cost.
pub const PINNED: [&str; 9] =
    ["--config", "/dev/null", "--speed", "10", "--strength", "10", "--p1-ai", "chain", "--fast"];

/// The bot on pad 2, pinned in 2-player modes (`--p2-ai` is refused in Endless).
pub const PINNED_P2: [&str; 2] = ["--p2-ai", "classic"];

/// `puyobot play --rom ROM --allow-unknown-rom --addresses DIR --headless --json` with the settings pinned
/// ([`PINNED`]) and `ARGS…`, which must succeed; its JSON report.
pub fn play_json(rom: &Path, addresses: &Path, args: &[&str]) -> Value {
    let (ok, json, stderr) = play_outcome(rom, addresses, args);
    assert!(ok, "puyobot play {args:?} failed: {stderr}");
    json.unwrap_or_else(|| panic!("not a JSON report: {stderr}"))
}

/// The same run, whatever its outcome: whether it succeeded, its JSON report (when it printed one) and
/// its stderr.
pub fn play_outcome(rom: &Path, addresses: &Path, args: &[&str]) -> (bool, Option<Value>, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_puyobot"))
        .arg("play")
        .arg("--rom")
        .arg(rom)
        .arg("--allow-unknown-rom")
        .arg("--addresses")
        .arg(addresses)
        .args(["--headless", "--json"])
        .args(PINNED)
        .args(if args.windows(2).any(|w| w == ["--mode", "endless"]) { &[][..] } else { &PINNED_P2[..] })
        .args(args)
        // The bug reports of the runs that stop go to the build's scratch folder, not the user's data folder.
        .env("PUYOBOT_DATA_DIR", Path::new(env!("CARGO_TARGET_TMPDIR")).join("calib-data"))
        .output()
        .expect("run puyobot");
    (out.status.success(), serde_json::from_slice(&out.stdout).ok(), String::from_utf8_lossy(&out.stderr).to_string())
}
