//! Reading a ROM file: the iNES header check and the hash that identifies a dump.
//!
//! Dumps of the same cartridge differ in their 16-byte header, so a dump is identified by the CRC32 and
//! SHA-1 of everything **after** the header (docs/cartridge.md §1).

use std::path::{Path, PathBuf};

/// Length of an iNES header.
pub const INES_HEADER_LEN: usize = 16;
/// The magic bytes that open every iNES file.
pub const INES_MAGIC: [u8; 4] = *b"NES\x1a";

/// Why a ROM could not be read or is not acceptable.
#[derive(Debug, thiserror::Error)]
pub enum RomError {
    /// The file does not exist.
    #[error("ROM file {path} does not exist")]
    Missing {
        /// The path given.
        path: PathBuf,
    },
    /// The file exists but could not be read.
    #[error("cannot read ROM file {path}: {source}")]
    Unreadable {
        /// The path given.
        path: PathBuf,
        /// What the OS said.
        source: std::io::Error,
    },
    /// The file does not start with the iNES magic `NES<EOF>`.
    #[error("{name} is not an iNES ROM: it starts with {found} instead of 4E 45 53 1A (\"NES\\x1a\")")]
    NotInes {
        /// File name or label.
        name: String,
        /// The first bytes, in hex.
        found: String,
    },
    /// The file is shorter than its header says.
    #[error(
        "{name} is truncated: its iNES header announces {expected} bytes ({prg_kib} KiB PRG + {chr_kib} KiB CHR), the file has {found}"
    )]
    Truncated {
        /// File name or label.
        name: String,
        /// Bytes the header announces, header included.
        expected: usize,
        /// Bytes present.
        found: usize,
        /// PRG-ROM size in KiB.
        prg_kib: usize,
        /// CHR-ROM size in KiB.
        chr_kib: usize,
    },
    /// The hash matches no known cartridge.
    #[error(
        "{name} is not a known Puyo Puyo dump: found CRC32 {crc32}, SHA-1 {sha1} (hash of the bytes after the \
         16-byte header); expected one of: {expected}. Pass --allow-unknown-rom to run it anyway"
    )]
    Unknown {
        /// File name or label.
        name: String,
        /// CRC32 found, upper-case hex.
        crc32: String,
        /// SHA-1 found, upper-case hex.
        sha1: String,
        /// The known dumps, as "name (CRC32 …)" list.
        expected: String,
    },
}

/// The identity of a dump: hashes of the bytes after the header.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RomHash {
    /// CRC32, 8 upper-case hex digits.
    pub crc32: String,
    /// SHA-1, 40 upper-case hex digits.
    pub sha1: String,
}

impl RomHash {
    /// Hashes `body` (the bytes after the header).
    pub fn of(body: &[u8]) -> RomHash {
        let crc32 = format!("{:08X}", crc32fast::hash(body));
        let sha1 = sha1_smol::Sha1::from(body).digest().to_string().to_uppercase();
        RomHash { crc32, sha1 }
    }
}

/// A ROM file that passed the iNES checks.
#[derive(Clone, Debug)]
pub struct RomImage {
    /// A label for messages and for the emulator (the file name).
    pub name: String,
    /// The whole file, header included.
    pub bytes: Vec<u8>,
    /// Identity of the dump.
    pub hash: RomHash,
    /// iNES mapper number.
    pub mapper: u16,
}

impl RomImage {
    /// Reads and checks a ROM file.
    pub fn from_path(path: &Path) -> Result<RomImage, RomError> {
        let bytes = std::fs::read(path).map_err(|source| {
            if source.kind() == std::io::ErrorKind::NotFound {
                RomError::Missing { path: path.to_path_buf() }
            } else {
                RomError::Unreadable { path: path.to_path_buf(), source }
            }
        })?;
        let name =
            path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| path.display().to_string());
        RomImage::from_bytes(name, bytes)
    }

    /// Checks bytes already in memory.
    pub fn from_bytes(name: impl Into<String>, bytes: Vec<u8>) -> Result<RomImage, RomError> {
        let name = name.into();
        if bytes.len() < INES_HEADER_LEN || bytes[..4] != INES_MAGIC {
            let found = bytes.iter().take(4).map(|b| format!("{b:02X}")).collect::<Vec<_>>().join(" ");
            let found = if found.is_empty() { "nothing (empty file)".to_string() } else { found };
            return Err(RomError::NotInes { name, found });
        }
        let prg_units = bytes[4] as usize;
        let chr_units = bytes[5] as usize;
        let trainer = if bytes[6] & 0x04 != 0 { 512 } else { 0 };
        // NES 2.0 extends the sizes with the high nibbles of byte 9; plain iNES leaves them zero.
        let nes2 = bytes[7] & 0x0C == 0x08;
        let (prg_units, chr_units) = if nes2 {
            (prg_units | ((bytes[9] as usize & 0x0F) << 8), chr_units | ((bytes[9] as usize & 0xF0) << 4))
        } else {
            (prg_units, chr_units)
        };
        let expected = INES_HEADER_LEN + trainer + prg_units * 16 * 1024 + chr_units * 8 * 1024;
        if prg_units == 0 || bytes.len() < expected {
            return Err(RomError::Truncated {
                name,
                expected,
                found: bytes.len(),
                prg_kib: prg_units * 16,
                chr_kib: chr_units * 8,
            });
        }
        let mapper = ((bytes[6] >> 4) | (bytes[7] & 0xF0)) as u16;
        let hash = RomHash::of(&bytes[INES_HEADER_LEN..]);
        Ok(RomImage { name, bytes, hash, mapper })
    }
}

/// The open test cartridge (`src/labcart/puyolab.nes`), built into the binary.
pub const LABCART: &[u8] = include_bytes!("../labcart/puyolab.nes");

/// The open test cartridge ("labcart"), played when no ROM is given.
pub fn labcart() -> Result<RomImage, RomError> {
    RomImage::from_bytes("puyolab.nes", LABCART.to_vec())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rom(prg: u8, chr: u8, len: usize) -> Vec<u8> {
        let mut b = vec![0u8; len];
        b[..4].copy_from_slice(&INES_MAGIC);
        b[4] = prg;
        b[5] = chr;
        b
    }

    #[test]
    fn accepts_a_complete_image_and_hashes_after_the_header() {
        let b = rom(1, 1, 16 + 16384 + 8192);
        let img = RomImage::from_bytes("t", b.clone()).unwrap();
        assert_eq!(img.hash, RomHash::of(&b[16..]));
        assert_eq!(img.hash.crc32.len(), 8);
        assert_eq!(img.hash.sha1.len(), 40);
    }

    #[test]
    fn header_differences_do_not_change_the_hash() {
        let mut a = rom(1, 0, 16 + 16384);
        let b = a.clone();
        a[10] = 0x55;
        assert_eq!(RomImage::from_bytes("a", a).unwrap().hash, RomImage::from_bytes("b", b).unwrap().hash);
    }

    #[test]
    fn refuses_non_ines_and_empty_files() {
        let e = RomImage::from_bytes("x", b"hello world, not a rom".to_vec()).unwrap_err();
        assert!(matches!(e, RomError::NotInes { .. }), "{e}");
        assert!(e.to_string().contains("68 65 6C 6C"), "{e}");
        let e = RomImage::from_bytes("x", Vec::new()).unwrap_err();
        assert!(e.to_string().contains("empty"), "{e}");
    }

    #[test]
    fn refuses_truncated_files() {
        let e = RomImage::from_bytes("x", rom(8, 0, 16 + 1000)).unwrap_err();
        assert!(matches!(e, RomError::Truncated { expected, .. } if expected == 16 + 8 * 16384), "{e}");
    }

    #[test]
    fn known_hash_of_empty_input() {
        let h = RomHash::of(b"");
        assert_eq!(h.crc32, "00000000");
        assert_eq!(h.sha1, "DA39A3EE5E6B4B0D3255BFEF95601890AFD80709");
    }
}
