//! The table of known cartridges (`addresses/roms.toml`): hash → name → address file per mode, and where
//! address files are read from (the copies built into the binary, or a directory the user edits).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::Mode;
use super::load::{AddressFileError, parse_address_file};
use super::schema::AddressFile;
use crate::emu::{RomError, RomImage};

/// The address files compiled into the binary, by path relative to `addresses/`.
pub const BUILTIN: &[(&str, &str)] = &[
    ("roms.toml", include_str!("../../addresses/roms.toml")),
    ("1p-endless.toml", include_str!("../../addresses/1p-endless.toml")),
    ("2p.toml", include_str!("../../addresses/2p.toml")),
    ("ai-vs-ai.toml", include_str!("../../addresses/ai-vs-ai.toml")),
    ("labcart/1p-endless.toml", include_str!("../../addresses/labcart/1p-endless.toml")),
    ("labcart/2p.toml", include_str!("../../addresses/labcart/2p.toml")),
    ("labcart/ai-vs-ai.toml", include_str!("../../addresses/labcart/ai-vs-ai.toml")),
    ("labcart-codes/1p-endless.toml", include_str!("../../addresses/labcart-codes/1p-endless.toml")),
    ("labcart-codes/2p.toml", include_str!("../../addresses/labcart-codes/2p.toml")),
    ("labcart-codes/ai-vs-ai.toml", include_str!("../../addresses/labcart-codes/ai-vs-ai.toml")),
    ("labcart-orient/1p-endless.toml", include_str!("../../addresses/labcart-orient/1p-endless.toml")),
    ("labcart-orient/2p.toml", include_str!("../../addresses/labcart-orient/2p.toml")),
    ("labcart-orient/ai-vs-ai.toml", include_str!("../../addresses/labcart-orient/ai-vs-ai.toml")),
];

/// Where address files come from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AddressSource {
    /// The copies compiled into the binary.
    Builtin,
    /// A directory laid out like `addresses/`.
    Dir(PathBuf),
}

/// Why the catalog or an address file could not be used.
#[derive(Debug, thiserror::Error)]
pub enum CatalogError {
    /// The file could not be read.
    #[error("cannot read address file {file}: {message}")]
    Read {
        /// The file.
        file: String,
        /// Why.
        message: String,
    },
    /// The file is malformed.
    #[error(transparent)]
    Invalid(#[from] AddressFileError),
    /// The ROM is not in the table.
    #[error(transparent)]
    Rom(#[from] RomError),
}

impl AddressSource {
    /// Reads a file by its path relative to the addresses folder; returns (label for errors, text).
    pub fn read(&self, rel: &str) -> Result<(String, String), CatalogError> {
        match self {
            AddressSource::Builtin => BUILTIN
                .iter()
                .find(|(p, _)| *p == rel)
                .map(|(p, t)| (format!("addresses/{p} (built in)"), t.to_string()))
                .ok_or_else(|| CatalogError::Read { file: format!("addresses/{rel}"), message: "not built in".into() }),
            AddressSource::Dir(dir) => {
                let path = dir.join(rel);
                let label = path.display().to_string();
                std::fs::read_to_string(&path)
                    .map(|t| (label.clone(), t))
                    .map_err(|e| CatalogError::Read { file: label, message: e.to_string() })
            }
        }
    }

    /// Reads and validates an address file.
    pub fn address_file(&self, rel: &str) -> Result<AddressFile, CatalogError> {
        let (label, text) = self.read(rel)?;
        Ok(parse_address_file(&label, &text)?)
    }

    /// Reads the catalog.
    pub fn catalog(&self) -> Result<Catalog, CatalogError> {
        let (label, text) = self.read("roms.toml")?;
        Catalog::parse(&label, &text)
    }
}

/// The whole `roms.toml`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Catalog {
    /// The known dumps.
    pub rom: Vec<KnownRom>,
}

/// One known dump.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KnownRom {
    /// Name shown to the user.
    pub name: String,
    /// CRC32 of the bytes after the header, 8 hex digits.
    pub crc32: String,
    /// SHA-1 of the bytes after the header, 40 hex digits.
    pub sha1: String,
    /// Where the hashes come from.
    pub source: String,
    /// Whether a dump with these hashes has been run by this project.
    pub verified: bool,
    /// Address file per mode, relative to the addresses folder.
    pub modes: ModeFiles,
}

/// Address file per mode.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModeFiles {
    /// `--mode endless`.
    pub endless: String,
    /// `--mode vs-human`.
    #[serde(rename = "vs-human")]
    pub vs_human: String,
    /// `--mode ai-vs-ai`.
    #[serde(rename = "ai-vs-ai")]
    pub ai_vs_ai: String,
}

impl ModeFiles {
    /// The file for a mode.
    pub fn for_mode(&self, mode: Mode) -> &str {
        match mode {
            Mode::Endless => &self.endless,
            Mode::VsHuman => &self.vs_human,
            Mode::AiVsAi => &self.ai_vs_ai,
        }
    }
}

impl Catalog {
    /// Parses `roms.toml`.
    pub fn parse(label: &str, text: &str) -> Result<Catalog, CatalogError> {
        let cat: Catalog = toml::from_str(text).map_err(|e| AddressFileError {
            file: label.to_string(),
            key: "(parse)".into(),
            message: e.to_string().trim().replace('\n', " | "),
        })?;
        for (i, r) in cat.rom.iter().enumerate() {
            let bad = |key: &str, msg: String| AddressFileError {
                file: label.to_string(),
                key: format!("rom[{}].{key}", i + 1),
                message: msg,
            };
            if r.crc32.len() != 8 || !r.crc32.chars().all(|c| c.is_ascii_hexdigit()) {
                return Err(bad("crc32", format!("expected 8 hex digits, got {:?}", r.crc32)).into());
            }
            if r.sha1.len() != 40 || !r.sha1.chars().all(|c| c.is_ascii_hexdigit()) {
                return Err(bad("sha1", format!("expected 40 hex digits, got {:?}", r.sha1)).into());
            }
        }
        Ok(cat)
    }

    /// The entry whose hashes match `rom`.
    pub fn find(&self, rom: &RomImage) -> Option<&KnownRom> {
        self.rom
            .iter()
            .find(|r| r.sha1.eq_ignore_ascii_case(&rom.hash.sha1) && r.crc32.eq_ignore_ascii_case(&rom.hash.crc32))
    }

    /// The entry for `rom`, or the refusal that names what was found and what is expected.
    pub fn identify(&self, rom: &RomImage) -> Result<&KnownRom, RomError> {
        self.find(rom).ok_or_else(|| RomError::Unknown {
            name: rom.name.clone(),
            crc32: rom.hash.crc32.clone(),
            sha1: rom.hash.sha1.clone(),
            expected: self.rom.iter().map(|r| format!("{} (CRC32 {})", r.name, r.crc32)).collect::<Vec<_>>().join(", "),
        })
    }

    /// The entry with this name.
    pub fn by_name(&self, name: &str) -> Option<&KnownRom> {
        self.rom.iter().find(|r| r.name == name)
    }
}

/// Resolves an address-folder setting: empty means built in.
pub fn source_from_setting(dir: &str, base: &Path) -> AddressSource {
    if dir.is_empty() { AddressSource::Builtin } else { AddressSource::Dir(base.join(dir)) }
}
