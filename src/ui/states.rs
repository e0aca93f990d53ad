//! Save-state files: one folder per cartridge, named by its SHA-1, under the data folder's `states`
//! (see [`crate::paths`]), with a file per slot. They survive restarts.
//!
//! A file starts with a short text header naming the ROM it was made with; loading it into another ROM
//! is refused with a message naming both, rather than left to the emulator's opaque state mismatch (a
//! state only means something for the cartridge that made it, and files can be copied between
//! folders).

use std::io::Write as _;
use std::path::{Path, PathBuf};

/// First line of every state file.
const MAGIC: &str = "PUYOBOT SAVE STATE 1\n";

/// Why a state file could not be used.
#[derive(Debug, thiserror::Error)]
pub enum StateFileError {
    /// No file for this slot.
    #[error("slot {slot} is empty ({})", path.display())]
    Empty {
        /// The slot.
        slot: u8,
        /// Where its file would be.
        path: PathBuf,
    },
    /// The file was made with another cartridge.
    #[error("saved with another ROM ({file_rom}, SHA-1 {}), not {rom}; not loaded ({})", &file_sha1[..file_sha1.len().min(8)], path.display())]
    WrongRom {
        /// The file.
        path: PathBuf,
        /// The ROM label written in the file.
        file_rom: String,
        /// The ROM SHA-1 written in the file.
        file_sha1: String,
        /// The ROM running now.
        rom: String,
    },
    /// Not a state file, or a damaged one.
    #[error("{} is not a puyobot save state ({why})", path.display())]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        why: String,
    },
    /// Reading or writing failed.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// The system's error.
        source: std::io::Error,
    },
}

/// The save-state slots of one cartridge on disk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StateStore {
    dir: PathBuf,
    rom_sha1: String,
    rom_name: String,
}

impl StateStore {
    /// The slots of the ROM with SHA-1 `rom_sha1` (label `rom_name`) under `root` (normally
    /// `paths::data_subdir("states")`). Nothing is created until a state is saved.
    pub fn new(root: &Path, rom_sha1: &str, rom_name: &str) -> StateStore {
        let sha1 = rom_sha1.trim().to_ascii_uppercase();
        StateStore { dir: root.join(&sha1), rom_sha1: sha1, rom_name: rom_name.to_string() }
    }

    /// The folder of this ROM's slots.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The file of slot `slot`.
    pub fn slot_path(&self, slot: u8) -> PathBuf {
        self.dir.join(format!("slot-{slot}.state"))
    }

    /// Writes `state` (the emulator's bytes) into slot `slot`, replacing what was there only once the
    /// new file is complete; returns the file's path.
    pub fn save(&self, slot: u8, state: &[u8]) -> Result<PathBuf, StateFileError> {
        let io = |path: &Path| {
            let path = path.to_path_buf();
            move |source| StateFileError::Io { path, source }
        };
        std::fs::create_dir_all(&self.dir).map_err(io(&self.dir))?;
        let path = self.slot_path(slot);
        let tmp = path.with_extension("state.tmp");
        let name = self.rom_name.replace(['\n', '\r'], " ");
        let mut bytes = format!("{MAGIC}rom_sha1 {}\nrom_name {name}\n\n", self.rom_sha1).into_bytes();
        bytes.extend_from_slice(state);
        let mut f = std::fs::File::create(&tmp).map_err(io(&tmp))?;
        f.write_all(&bytes).and_then(|_| f.sync_all()).map_err(io(&tmp))?;
        drop(f);
        std::fs::rename(&tmp, &path).map_err(io(&path))?;
        Ok(path)
    }

    /// Reads slot `slot`: the emulator's bytes, once the header says the file belongs to this ROM.
    pub fn load(&self, slot: u8) -> Result<Vec<u8>, StateFileError> {
        let path = self.slot_path(slot);
        let bytes = match std::fs::read(&path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(StateFileError::Empty { slot, path }),
            Err(source) => return Err(StateFileError::Io { path, source }),
        };
        self.parse(&path, &bytes)
    }

    /// Checks a state file's header against this ROM and returns its emulator bytes.
    pub fn parse(&self, path: &Path, bytes: &[u8]) -> Result<Vec<u8>, StateFileError> {
        let corrupt = |why: &str| StateFileError::Corrupt { path: path.to_path_buf(), why: why.to_string() };
        let rest = bytes.strip_prefix(MAGIC.as_bytes()).ok_or_else(|| corrupt("no header"))?;
        let end = rest.windows(2).position(|w| w == b"\n\n").ok_or_else(|| corrupt("header not ended"))?;
        let header = std::str::from_utf8(&rest[..end]).map_err(|_| corrupt("header is not text"))?;
        let field = |key: &str| {
            header.lines().find_map(|l| l.strip_prefix(key).and_then(|v| v.strip_prefix(' '))).map(str::to_string)
        };
        let file_sha1 = field("rom_sha1").ok_or_else(|| corrupt("no rom_sha1"))?;
        if !file_sha1.eq_ignore_ascii_case(&self.rom_sha1) {
            return Err(StateFileError::WrongRom {
                path: path.to_path_buf(),
                file_rom: field("rom_name").unwrap_or_else(|| "?".into()),
                file_sha1,
                rom: self.rom_name.clone(),
            });
        }
        Ok(rest[end + 2..].to_vec())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("puyobot-states-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        d
    }

    #[test]
    fn save_then_load_from_a_fresh_store_and_refuse_another_roms_file() {
        let root = temp("roundtrip");
        let a = StateStore::new(&root, "ab12", "a.nes");
        let path = a.save(3, b"\x00\x01\n\nstate").unwrap();
        assert_eq!(path, root.join("AB12").join("slot-3.state"));
        // A new store (as after a restart) reads it back byte for byte.
        assert_eq!(StateStore::new(&root, "AB12", "a.nes").load(3).unwrap(), b"\x00\x01\n\nstate");
        assert!(matches!(a.load(4), Err(StateFileError::Empty { slot: 4, .. })));
        // Another ROM's slot holding this file (copied over): refused, naming both ROMs.
        let b = StateStore::new(&root, "CD34", "b.nes");
        std::fs::create_dir_all(b.dir()).unwrap();
        std::fs::copy(&path, b.slot_path(3)).unwrap();
        let err = b.load(3).unwrap_err();
        assert!(matches!(err, StateFileError::WrongRom { .. }), "{err}");
        let msg = err.to_string();
        assert!(msg.contains("a.nes") && msg.contains("AB12") && msg.contains("b.nes"), "{msg}");
        // Not a state file at all.
        std::fs::write(b.slot_path(5), b"hello").unwrap();
        assert!(matches!(b.load(5), Err(StateFileError::Corrupt { .. })));
        std::fs::remove_dir_all(&root).unwrap();
    }
}
