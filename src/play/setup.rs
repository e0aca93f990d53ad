//! What a game is played with, apart from the machine: the mode, the seats' bots, the menus, calibration
//! and the game options. The configuration makes it (`config::Config::game_options`); the window, the
//! headless runner and any other front end build their session from it the same way.

use crate::calib::{CalibrateMode, OnlineCalibration};
use crate::emu::Machine;
use crate::memmap::{AddressFile, Mode};

use super::SeatConfig;
use super::options::ItemsChoice;
use super::seat::Seat;
use super::session::{Session, SessionBuilder};

/// The settings of one game (`[play]` and `[bots]` of the configuration, merged with the flags).
#[derive(Clone, Debug, PartialEq)]
pub struct GameOptions {
    /// The game mode.
    pub mode: Mode,
    /// What the seats' bots are made from; its seed is the game's seed (bots, pad faults and the menu
    /// script's `seed_wait`) and its speed the bots' speed.
    pub seats: SeatConfig,
    /// Walk the menus with the address file's script.
    pub menu: bool,
    /// Self-calibration: learn the unverified entries, trust the address file, or learn and stop.
    pub calibrate: CalibrateMode,
    /// Items the menu script sets and the deal confirms.
    pub items: Option<ItemsChoice>,
    /// Number of colours the menu script sets and the deal confirms.
    pub colors: Option<u8>,
    /// The AI profile's name, for the report.
    pub profile: String,
    /// The 2P rules asked for (`--nuisance-*`): set on the menus, played with from the first piece.
    pub rules: super::rule_options::RuleChoices,
}

impl GameOptions {
    /// The game's seed.
    pub fn seed(&self) -> u64 {
        self.seats.seed
    }

    /// The same game with another seed (game `k` of a match plays seed `S + k`).
    pub fn with_seed(&self, seed: u64) -> GameOptions {
        GameOptions { seats: SeatConfig { seed, ..self.seats.clone() }, ..self.clone() }
    }

    /// The session builder of this game on `machine` with `seats`: menus, calibration (for the ROM whose
    /// SHA-1 is `rom_sha1`), seed and game options set; the caller adds what its front end needs.
    pub fn session<M: Machine>(
        &self,
        machine: M,
        map: AddressFile,
        seats: Vec<Seat>,
        rom_sha1: &str,
    ) -> SessionBuilder<M> {
        let calibration = OnlineCalibration::new(&map, self.calibrate);
        Session::builder(machine, map, self.mode, seats)
            .walk_menu(self.menu)
            .calibration(calibration, rom_sha1)
            .seed(self.seed())
            .items(self.items)
            .colors(self.colors)
    }
}
