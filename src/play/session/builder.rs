//! [`SessionBuilder`]: every set-up option of a [`Session`], checked together by [`SessionBuilder::build`].
//!
//! The options are gathered first and the session is made once, so nothing depends on the order they are
//! given in, and contradictory or impossible options are refused before the first frame.

use std::time::Instant;

use crate::calib::OnlineCalibration;
use crate::emu::Machine;
use crate::memmap::{AddressFile, Decoder, Mode};

use super::super::matches::MatchState;
use super::super::options::ItemsChoice;
use super::super::seat::Seat;
use super::{
    Calibration, Clock, HealthGuard, ModeCheck, Next, OptionsCheck, Phase, Reading, RunSettings, Session, moves_of,
    rules_for,
};

/// Why a [`SessionBuilder`] cannot make its session: the message names the option and what to do.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct SessionError(pub String);

/// The set-up of a [`Session`]: the machine, the address file, the mode and the seats, then options, then
/// [`SessionBuilder::build`].
///
/// ```text
/// let session = Session::builder(machine, map, Mode::AiVsAi, seats).walk_menu(true).seed(7).build()?;
/// ```
pub struct SessionBuilder<M: Machine> {
    machine: M,
    map: AddressFile,
    mode: Mode,
    seats: Vec<Seat>,
    walk_menu: bool,
    seed: Option<u64>,
    items: Option<ItemsChoice>,
    colors: Option<u8>,
    restart: bool,
    manual_menu_fallback: bool,
    hold_for_start: bool,
    calibration: Option<OnlineCalibration>,
    rom_sha1: String,
    wait_for_bots: bool,
    log_health_stop: bool,
}

impl<M: Machine> SessionBuilder<M> {
    /// A session on `machine` reading RAM with `map`, playing `mode` with `seats` (in the order of the
    /// `[[player]]` tables). By default the session starts in play (no menu script), without a seed,
    /// restarts, calibration or game options, does not wait for the bots, and logs a health stop.
    pub fn new(machine: M, map: AddressFile, mode: Mode, seats: Vec<Seat>) -> SessionBuilder<M> {
        SessionBuilder {
            machine,
            map,
            mode,
            seats,
            walk_menu: false,
            seed: None,
            items: None,
            colors: None,
            restart: false,
            manual_menu_fallback: false,
            hold_for_start: false,
            calibration: None,
            rom_sha1: String::new(),
            wait_for_bots: false,
            log_health_stop: true,
        }
    }

    /// Walk the menus with the address file's `[menu]` script from power-on (the machine must be at
    /// power-on). Off, the menus are the person's and the session counts a game from the first frame.
    pub fn walk_menu(mut self, on: bool) -> Self {
        self.walk_menu = on;
        self
    }

    /// The run's seed: `seed_wait` steps of the menu and restart scripts wait a number of frames drawn from
    /// it (and the game's number), so the seed changes the deal.
    pub fn seed(mut self, seed: u64) -> Self {
        self.seed = Some(seed);
        self
    }

    /// The items option (`--items`): the scripts set it and the deal must confirm it. [`Self::build`]
    /// refuses it when the address file does not say where the option is.
    pub fn items(mut self, choice: Option<ItemsChoice>) -> Self {
        self.items = choice;
        self
    }

    /// The number of colours (`--colors`), set and confirmed as [`Self::items`]. [`Self::build`] refuses it
    /// when the address file does not say where the option is, or the game does not offer that many.
    pub fn colors(mut self, count: Option<u8>) -> Self {
        self.colors = count;
        self
    }

    /// After a game over, start the next game with the address file's `[restart]` script (when it has one).
    /// Off, the session stays at the game over until a person starts another game.
    pub fn restart(mut self, on: bool) -> Self {
        self.restart = on;
        self
    }

    /// In a window: when a `seek` step of a script finds no button that sets its byte, stop the script and
    /// leave the menus to the person (the bots take over when a pair falls) rather than go on.
    pub fn manual_menu_fallback(mut self, on: bool) -> Self {
        self.manual_menu_fallback = on;
        self
    }

    /// A person on pad 1 starts each game: the menu and restart scripts stop before their last Start press
    /// until the person presses Start on pad 1 (`vs-human` in a window). Needs a script to hold:
    /// [`Self::walk_menu`] or [`Self::restart`].
    pub fn hold_for_start(mut self, on: bool) -> Self {
        self.hold_for_start = on;
        self
    }

    /// Self-calibration (`Some`) or none; `rom_sha1` names the ROM in the sources of learned entries.
    pub fn calibration(mut self, calibration: Option<OnlineCalibration>, rom_sha1: &str) -> Self {
        self.calibration = calibration;
        self.rom_sha1 = rom_sha1.to_string();
        self
    }

    /// Make the frame loop wait for a bot's answer when the driver would act on it (unattended runs): games
    /// then replay identically however long the bots think. Off (the window's choice), a late answer just
    /// lets the pair fall further.
    pub fn wait_for_bots(mut self, on: bool) -> Self {
        self.wait_for_bots = on;
        self
    }

    /// Log the failure that stops the bots (on by default: the window's only way to show it in full); a
    /// caller that reports it itself turns it off.
    pub fn log_health_stop(mut self, on: bool) -> Self {
        self.log_health_stop = on;
        self
    }

    /// The session, or the first option that cannot be honoured.
    pub fn build(self) -> Result<Session<M>, SessionError> {
        self.check()?;
        let SessionBuilder {
            machine,
            map,
            mode,
            mut seats,
            walk_menu,
            seed,
            items,
            colors,
            restart,
            manual_menu_fallback,
            hold_for_start,
            calibration,
            rom_sha1,
            wait_for_bots,
            log_health_stop,
        } = self;
        for s in &mut seats {
            s.set_moves(moves_of(&map.movement));
            s.set_next_lag(map.timing.next_lag);
        }
        let (ready_timeout, rules) = (map.menu.ready_timeout, rules_for(&map));
        // Without the menus the person starts the game: the session counts it from the first frame.
        let mut matches = MatchState::new(!walk_menu);
        matches.seed = seed;
        matches.restart = restart;
        matches.manual_fallback = manual_menu_fallback;
        let calib = Calibration { online: calibration, rom_sha1, calibrated: false, failed_logged: false };
        let mut session = Session {
            machine,
            mode,
            seats,
            keyboard: [0; 2],
            phase: Phase::Play,
            reading: Reading { decoder: Decoder::new(map), rules, last: None },
            clock: Clock { frames: 0, started: Instant::now() },
            outcome: None,
            menu_error: None,
            calib,
            matches,
            health: HealthGuard { log_stop: log_health_stop, ..HealthGuard::default() },
            mode_check: ModeCheck::default(),
            options: OptionsCheck { items, colors, ..OptionsCheck::default() },
            settings: RunSettings { wait_for_bots, hold_for_start },
        };
        let contract = session.contract();
        for s in &mut session.seats {
            s.set_contract(contract);
        }
        let start = if walk_menu {
            Next::To(Phase::Boot(session.script(&session.reading.decoder.map().menu.steps, ready_timeout)))
        } else {
            Next::Game
        };
        session.enter(start);
        Ok(session)
    }

    /// Refuses options the address file cannot honour, or that contradict each other.
    fn check(&self) -> Result<(), SessionError> {
        let map = &self.map;
        if let Some(choice) = self.items
            && map.options.items.is_none()
        {
            return Err(SessionError(format!(
                "--items {}: the address file ({}) does not say where the game keeps its items option \
                 ([options.items]), so the menu script cannot set it; set it on the game's menus yourself in the \
                 window (`puyobot play --no-menu`), or add [options.items] (docs/address-files.md)",
                choice.name(),
                map.meta.name
            )));
        }
        if let Some(count) = self.colors {
            let Some(option) = &map.options.colors else {
                return Err(SessionError(format!(
                    "--colors {count}: the address file ({}) does not say where the game keeps its number of \
                     colours ([options.colors]), so the menu script cannot set it; set it on the game's menus \
                     yourself in the window (`puyobot play --no-menu`), or add [options.colors] \
                     (docs/address-files.md)",
                    map.meta.name
                )));
            };
            if !option.counts.contains(&count) {
                return Err(SessionError(format!(
                    "--colors {count}: the game offers {:?} colours ([options.colors] counts)",
                    option.counts
                )));
            }
        }
        if self.hold_for_start && !self.walk_menu && !(self.restart && map.restart.is_some()) {
            return Err(SessionError(
                "holding the game for the person's Start needs a script to hold: walk the menus, or restart \
                 games with the address file's [restart] script"
                    .into(),
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::seat_config;
    use super::*;
    use crate::emu::mock::MockGame;
    use crate::memmap::AddressSource;

    fn builder(map: AddressFile) -> SessionBuilder<MockGame> {
        let seats = crate::play::seats_for(Mode::Endless, &map, &seat_config()).expect("seats");
        Session::builder(MockGame::new(1, 4, 7), map, Mode::Endless, seats)
    }

    fn lab_endless() -> AddressFile {
        AddressSource::Builtin.address_file("labcart/1p-endless.toml").expect("built-in address file")
    }

    #[test]
    fn options_the_address_file_cannot_set_are_refused_naming_the_option_and_the_file() {
        let mut map = lab_endless();
        let name = map.meta.name.clone();
        let counts = map.options.colors.as_ref().expect("the labcart knows its colours").counts.clone();
        assert!(!counts.contains(&9));
        let e = builder(lab_endless()).colors(Some(9)).build().expect_err("colours not offered");
        assert!(e.0.starts_with("--colors 9: the game offers"), "{e}");
        map.options.items = None;
        map.options.colors = None;
        let e = builder(map.clone()).items(Some(ItemsChoice::BigPuyo)).build().expect_err("no [options.items]");
        assert!(e.0.contains("[options.items]") && e.0.contains(&name), "{e}");
        let e = builder(map).colors(Some(4)).build().expect_err("no [options.colors]");
        assert!(e.0.contains("[options.colors]") && e.0.contains(&name), "{e}");
        assert!(builder(lab_endless()).items(Some(ItemsChoice::BigPuyo)).colors(Some(counts[0])).build().is_ok());
    }

    #[test]
    fn holding_for_the_person_s_start_needs_a_script_to_hold() {
        let e = builder(lab_endless()).hold_for_start(true).build().expect_err("no script");
        assert!(e.0.contains("needs a script"), "{e}");
        assert!(builder(lab_endless()).hold_for_start(true).walk_menu(true).build().is_ok());
        let mut map = lab_endless();
        let with_restart = map.restart.is_some();
        assert_eq!(builder(map.clone()).hold_for_start(true).restart(true).build().is_ok(), with_restart);
        map.restart = None;
        assert!(builder(map).hold_for_start(true).restart(true).build().is_err());
    }

    #[test]
    fn the_first_phase_is_the_menu_script_or_play() {
        let s = builder(lab_endless()).walk_menu(true).build().expect("session");
        assert!(s.in_menus() && matches!(s.phase, Phase::Boot(_)));
        let mut s = builder(lab_endless()).build().expect("session");
        assert!(!s.in_menus() && matches!(s.phase, Phase::Play));
        // The model starts in play: the first frames are play frames, with the game counted from the first.
        for _ in 0..30 {
            s.step_frame().expect("frame");
        }
        assert!(matches!(s.phase, Phase::Play) && s.game_number() == 1);
    }
}
