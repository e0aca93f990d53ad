//! The learned contract as address files: one complete file per mode plus a `roms.toml` that names the
//! ROM, so `puyobot play --addresses DIR --calibrate off` plays it without learning again.

use std::path::{Path, PathBuf};

use anyhow::Context;

use crate::game::Orientation;
use crate::memmap::Mode;
use crate::memmap::catalog::{Catalog, KnownRom, ModeFiles};
use crate::memmap::load::validate;
use crate::memmap::schema::{AddressFile, Codes, OrientationCodes, Timing as TimingFile};

use super::types::Candidate;
use crate::memmap::{AddressSource, Movement};

use super::learner::Learner;
use super::next::NextTable;

/// The ROM the contract was learned on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LearnedRom {
    /// Name for people.
    pub name: String,
    /// CRC32 of the bytes after the iNES header, 8 hex digits.
    pub crc32: String,
    /// SHA-1 of the bytes after the iNES header, 40 hex digits.
    pub sha1: String,
}

/// A code no other entry of `used` takes, for codes the learner has not seen (they must stay distinct).
fn free_code(used: &[u8], preferred: u8) -> u8 {
    if !used.contains(&preferred) {
        return preferred;
    }
    (0xF0..=0xFF).chain((0x40..0xF0).rev()).find(|c| !used.contains(c)).unwrap_or(preferred)
}

impl Learner {
    /// The learned contract as a complete address file (each learned entry's source =
    /// "learned from ROM <sha1> …"), when settled.
    pub fn address_file(&self, rom_sha1: &str) -> Option<AddressFile> {
        let start = self.start().clone();
        self.apply_to(&start, rom_sha1)
    }

    /// `base` (an address file of any mode for the same cartridge) with everything learned written in;
    /// `None` until settled or when the result would not validate.
    pub fn apply_to(&self, base: &AddressFile, rom_sha1: &str) -> Option<AddressFile> {
        if !self.is_settled() {
            return None;
        }
        let mut f = base.clone();
        let learned = |what: &str| format!("learned from ROM {rom_sha1} by puyobot's calibration: {what}");
        if !self.colours().is_trusted() {
            self.write_codes(&mut f.codes, &learned)?;
        }
        let m = self.movement()?;
        if !self.motion().trusts_orientation() {
            self.write_orientation(&mut f.orientation, &m, &learned);
        }
        if !self.motion().trusts_movement() {
            f.movement = self.learned_movement(&base.movement, &m, &learned);
        }
        if !base.timing.verified {
            self.write_timing(&mut f.timing, &learned);
        }
        match self.next_table() {
            NextTable::Mapped(table) if !self.colours().is_trusted() => f.codes.next_codes = Some(table),
            NextTable::Same if !self.colours().is_trusted() => f.codes.next_codes = None,
            _ => {}
        }
        if !self.layout().is_trusted() {
            self.write_colour_offset(&mut f, &learned)?;
        }
        self.pair_order().write_into(&mut f, learned);
        f.meta.name = format!("{} (learned)", base.meta.name);
        f.meta.source = learned(&format!("starting from {}", base.meta.source));
        match validate("learned address file", &f) {
            Ok(()) => Some(f),
            Err(e) => {
                log::warn!("calibration: the learned address file does not validate: {e}");
                None
            }
        }
    }

    /// The learned codes: empty, mask, colours (and their piece codes), then wall, nuisance and items,
    /// each kept from the guess (moved to a free code on a collision) when not seen. `None` until the
    /// colour codes and the empty code are known.
    fn write_codes(&self, c: &mut Codes, learned: &dyn Fn(&str) -> String) -> Option<()> {
        let map = self.colour_codes()?;
        c.empty = self.empty_code()?;
        c.color_mask = self.colours().colour_mask();
        c.empty &= c.color_mask;
        let order = self.colours().colour_order();
        let mut pieces: Vec<u8> = order.iter().copied().filter(|p| map.field(*p).is_some()).collect();
        pieces.extend(map.pairs.keys().filter(|p| !order.contains(p)));
        pieces.truncate(6);
        c.colors = pieces.iter().filter_map(|&p| map.field(p)).collect();
        c.piece_colors = (!map.is_identity()).then_some(pieces);
        let mut used: Vec<u8> = vec![c.empty];
        used.extend(&c.colors);
        used.extend(c.piece_colors.iter().flatten());
        let mut guessed = Vec::new();
        let mut pick = |learned: Option<u8>, guess: u8, name: &str, used: &mut Vec<u8>| {
            let v = learned.unwrap_or_else(|| {
                guessed.push(name.to_string());
                free_code(used, guess)
            });
            used.push(v);
            v
        };
        c.wall = pick(Some(c.wall).filter(|w| !used.contains(w)), c.wall, "wall", &mut used);
        // Learned codes are taken first, so a guess that collides with one moves to a free code.
        let (nuisance, big, carbuncle) = self.special_codes();
        let learned_specials: Vec<u8> = [nuisance, big, carbuncle].into_iter().flatten().collect();
        let mut used_guess = used.clone();
        used_guess.extend(&learned_specials);
        let (n_guess, b_guess, c_guess) = (c.nuisance, c.big_puyo, c.carbuncle);
        c.nuisance = pick(nuisance, free_code(&used_guess, n_guess), "nuisance", &mut used);
        used_guess.push(c.nuisance);
        c.big_puyo = pick(big, free_code(&used_guess, b_guess), "big_puyo", &mut used);
        used_guess.push(c.big_puyo);
        c.carbuncle = pick(carbuncle, free_code(&used_guess, c_guess), "carbuncle", &mut used);
        c.source = if guessed.is_empty() {
            learned("empty, colours, nuisance and items")
        } else {
            learned(&format!(
                "empty and colours; not seen, so kept from the guess (or moved to a free code): {}",
                guessed.join(", ")
            ))
        };
        c.verified = guessed.is_empty();
        Some(())
    }

    /// The learned orientation values.
    fn write_orientation(&self, o: &mut OrientationCodes, m: &Candidate, learned: &dyn Fn(&str) -> String) {
        o.up = self.ori_raw(m.value(Orientation::Up));
        o.right = self.ori_raw(m.value(Orientation::Right));
        o.down = self.ori_raw(m.value(Orientation::Down));
        o.left = self.ori_raw(m.value(Orientation::Left));
        let all_seen = Orientation::ALL.into_iter().all(|d| self.motion().index_seen(m.value(d)));
        o.source = learned(if all_seen {
            "from turns and locks"
        } else {
            "from turns and locks; a value the game never showed is given a free number"
        });
        o.verified = all_seen;
    }

    /// The learned movement: which puyo X / Y follow, A's direction, kicks (kept from `base_m` when not
    /// seen), the spawn orientation and the X / Y bases.
    fn learned_movement(&self, base_m: &Movement, m: &Candidate, learned: &dyn Fn(&str) -> String) -> Movement {
        let (side, up) = self.kicks();
        let kicks_seen = side.is_some() && up.is_some();
        Movement {
            xy_tracks: m.tracks,
            a_rotates: m.a_turns,
            kick_sideways: side.unwrap_or(base_m.kick_sideways),
            kick_up: up.unwrap_or(base_m.kick_up),
            spawn: match self.motion().spawn_values().iter().collect::<Vec<_>>()[..] {
                [&v] => Orientation::ALL.into_iter().find(|&o| m.value(o) == v),
                _ => base_m.spawn,
            },
            x_base: self.xy_bases().0,
            y_base: self.xy_bases().1,
            source: learned(if kicks_seen {
                "X/Y, A's direction and kicks"
            } else {
                "X/Y and A's direction; kicks not seen, kept from the guess"
            }),
            verified: true,
        }
    }

    /// The learned timing: the next pair's lag, the pose lag, the lock signal and the first player's clock.
    fn write_timing(&self, t: &mut TimingFile, learned: &dyn Fn(&str) -> String) {
        let lag = self.next_lag();
        t.next_lag = lag;
        t.pose_lag = self.pose_lag();
        t.lock_signal = self.lock_signal();
        let clock = self.clock(0);
        t.frames_per_row = clock.frames_per_row_range.map(|[fastest, _]| fastest);
        t.soft_drop = clock.soft_drop;
        t.lock_delay = clock.lock_delay;
        t.input_lag = clock.input_lag;
        t.source = learned(&format!(
            "the next pair's bytes change {lag} frames after a spawn at the latest; a new piece's bytes are \
             written {} frames after the spawn-delay timer reaches 0; locks are marked by the {}",
            t.pose_lag,
            t.lock_signal.name()
        ));
    }

    /// The learned colour byte of a cell, for every player. `None` until it is known.
    fn write_colour_offset(&self, f: &mut AddressFile, learned: &dyn Fn(&str) -> String) -> Option<()> {
        let k = self.offset()? as u16;
        for p in &mut f.player {
            p.field.color_offset = k;
            p.field.source = learned("colour byte of a cell");
            p.field.verified = true;
        }
        Some(())
    }
}

/// Writes a complete address folder: for every mode the file `source` holds for the cartridge entry
/// `borrowed`, with what `learner` learned written in, and a `roms.toml` that names `rom`. Returns the
/// files written.
pub fn write_address_folder(
    dir: &Path,
    rom: &LearnedRom,
    learner: &Learner,
    source: &AddressSource,
    borrowed: &ModeFiles,
) -> anyhow::Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let mut written = Vec::new();
    let mut rels: Vec<&str> = [Mode::Endless, Mode::VsHuman, Mode::AiVsAi].map(|m| borrowed.for_mode(m)).to_vec();
    rels.dedup();
    for rel in rels {
        let base = source.address_file(rel)?;
        let learned = learner
            .apply_to(&base, &rom.sha1)
            .with_context(|| format!("calibration is not settled; nothing learned to write for {rel}"))?;
        let text = toml::to_string(&learned).with_context(|| format!("cannot write {rel} as TOML"))?;
        let path = dir.join(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).with_context(|| format!("cannot create {}", parent.display()))?;
        }
        let header = format!(
            "# Written by puyobot's calibration on ROM {} (SHA-1 {}). Entries marked verified were learned\n\
             # from that ROM; the others are the guesses of the file it started from.\n\n",
            rom.name, rom.sha1
        );
        std::fs::write(&path, header + &text).with_context(|| format!("cannot write {}", path.display()))?;
        written.push(path);
    }
    let catalog = Catalog {
        rom: vec![KnownRom {
            name: format!("{} (learned)", rom.name),
            crc32: rom.crc32.to_uppercase(),
            sha1: rom.sha1.to_uppercase(),
            source: "puyobot's calibration".into(),
            verified: true,
            modes: borrowed.clone(),
        }],
    };
    let path = dir.join("roms.toml");
    let text = toml::to_string(&catalog).context("cannot write roms.toml as TOML")?;
    std::fs::write(&path, text).with_context(|| format!("cannot write {}", path.display()))?;
    written.push(path);
    Ok(written)
}
