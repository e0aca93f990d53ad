//! The session as the window sees it: [`Viewable`](super::Viewable) for a session on the real emulator.

use std::path::Path;

use anyhow::Context;

use super::states::StateStore;
use super::{GhostCell, HudInfo, HudPlayer, Viewable};
use crate::emu::{Emu, Machine, SaveStates};
use crate::game::{Field, Item, Piece, Placement, field::bit};
use crate::memmap::schema::ScreenLayout;
use crate::trace::TraceRecorder;

use crate::play::matches::Tally;
use crate::play::session::Session;

/// Number of save-state slots the window offers (1..=9).
pub const SLOTS: usize = 9;

/// A console the window can show: a [`Machine`] with save states, a picture and sound.
pub trait Screen: Machine + SaveStates {
    /// The console itself.
    fn emu(&self) -> &Emu;
    /// The console itself, mutably (picture and sound; never RAM).
    fn emu_mut(&mut self) -> &mut Emu;
}

impl Screen for Emu {
    fn emu(&self) -> &Emu {
        self
    }

    fn emu_mut(&mut self) -> &mut Emu {
        self
    }
}

impl Screen for TraceRecorder<Emu> {
    fn emu(&self) -> &Emu {
        self.inner()
    }

    fn emu_mut(&mut self) -> &mut Emu {
        self.inner_mut()
    }
}

/// A session on the emulator (or on a recorder around it), with save-state slots on disk.
pub struct WindowSession<M: Screen = Emu> {
    /// The game.
    pub session: Session<M>,
    states: StateStore,
}

impl<M: Screen> std::fmt::Debug for WindowSession<M> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WindowSession").field("session", &self.session).finish()
    }
}

impl<M: Screen> WindowSession<M> {
    /// Wraps a session; its save states go to `paths::data_subdir("states")`, in the folder of the
    /// running ROM.
    pub fn new(session: Session<M>) -> WindowSession<M> {
        Self::with_state_dir(session, &crate::paths::data_subdir("states"))
    }

    /// Wraps a session, keeping save states under `root` (one folder per ROM).
    pub fn with_state_dir(session: Session<M>, root: &Path) -> WindowSession<M> {
        let emu = session.machine().emu();
        let states = StateStore::new(root, emu.rom_sha1(), emu.rom_name());
        WindowSession { session, states }
    }

    /// Where the save states of this ROM live.
    pub fn states(&self) -> &StateStore {
        &self.states
    }
}

/// The cells a piece at `placement` would land in on `field`, as (x, y).
pub fn landing_cells(field: &Field, piece: Piece, placement: Placement) -> Vec<(usize, usize)> {
    let mut f = *field;
    let landed = match piece {
        Piece::Pair(p) => f.drop_pair(p, placement).unwrap_or(0),
        Piece::Item(Item::Carbuncle) => {
            let x = placement.x as usize;
            f.landing_row(x).map_or(0, |y| 1u128 << bit(x, y))
        }
        Piece::Item(Item::BigPuyo) => {
            let mut m = 0;
            for x in [placement.x as usize, placement.x as usize + 1] {
                if (1..=6).contains(&x)
                    && let Some(y) = f.landing_row(x)
                {
                    m |= 1u128 << bit(x, y);
                    if y > 0 {
                        m |= 1u128 << bit(x, y - 1);
                    }
                }
            }
            m
        }
    };
    let mut out = Vec::new();
    for x in 1..=6 {
        for y in 0..14 {
            if landed & (1u128 << bit(x, y)) != 0 {
                out.push((x, y));
            }
        }
    }
    out
}

/// The HUD's line when the menu or restart script could not reach the game (the log has the details):
/// the person drives the menus with the keys, and the bots take over when a pair falls.
pub const MENU_FAILED: &str = "MENU SCRIPT FAILED: USE THE KEYS";

fn ghost(screen: &ScreenLayout, cells: &[(usize, usize)]) -> Vec<GhostCell> {
    cells
        .iter()
        .map(|&(x, y)| GhostCell {
            x: screen.left + screen.cell * x as i32,
            y: screen.top + screen.cell * y as i32,
            rgb: [255, 255, 255],
        })
        .collect()
}

impl<M: Screen> Viewable for WindowSession<M> {
    fn step_frame(&mut self) -> anyhow::Result<()> {
        self.session.step_frame().context("emulation stopped")
    }

    fn frame_rgba(&mut self) -> &[u8] {
        self.session.machine_mut().emu_mut().frame_rgba()
    }

    fn hud(&self) -> HudInfo {
        let snap = self.session.snapshot();
        let map = self.session.address_file();
        let players = self
            .session
            .seats
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let mut g = Vec::new();
                if s.bot_on
                    && let (Some(target), Some(st), Some(screen)) = (
                        s.target(),
                        snap.and_then(|sn| sn.players.get(i)),
                        map.player.get(i).and_then(|p| p.screen.as_ref()),
                    )
                    && let Some(piece) = st.current
                    && st.controllable
                {
                    g = ghost(screen, &landing_cells(&st.field, piece, target));
                }
                let human = !(s.has_bot() && s.bot_on);
                HudPlayer {
                    label: if human { format!("{} HUMAN", s.label) } else { format!("{} {}", s.label, s.bot_name) },
                    bot_on: s.bot_on,
                    human,
                    pad: s.pad,
                    score: Some(s.ram_score.map_or(s.stats.model_score, u64::from)),
                    // Counts the game under way too, not only the finished ones.
                    largest_chain: self.session.largest_chain(i),
                    speed: s.speed(),
                    expected_chain: s.expected_chain(),
                    think_ms: s.think_ms(),
                    intent: s.intent().map(str::to_string),
                    timing: self.session.calibration().map(|c| c.timing_hud_line(i)),
                    ghost: g,
                }
            })
            .collect();
        let message = match (&self.session.outcome, &self.session.menu_error) {
            // A stopped contract outranks everything: the bots no longer play, and the person must know why.
            _ if self.session.health_failure().is_some() => self
                .session
                .health_failure()
                .map(|f| format!("BOTS STOPPED: {} FAILS (SEE THE LOG)", f.fact.to_string().to_uppercase())),
            (Some(o), _) => Some(match &o.winner {
                Some(w) => format!("{w} WINS"),
                None => "GAME OVER".to_string(),
            }),
            (None, Some(_)) if self.session.in_menus() => Some(MENU_FAILED.to_string()),
            _ => self.session.calibration().filter(|c| !c.settled() || c.failed()).map(|c| c.hud_line()),
        };
        let labels: Vec<String> = self.session.seats.iter().map(|s| s.label.clone()).collect();
        // The game under way counts too (as it stands), so the tally's largest chains agree with the panels.
        let games = self.session.game_results();
        let tally =
            (self.session.game_number() > 0).then(|| Tally::of(&labels, &games).hud_line(self.session.game_number()));
        let rules = self.session.rules_hud_line();
        HudInfo { players, message, tally, awaiting_start: self.session.awaiting_start(), rules }
    }

    fn set_keyboard_pad(&mut self, pad: u8, buttons: u8) {
        self.session.set_keyboard_pad(pad as usize, buttons);
    }

    fn toggle_bot(&mut self, player: usize) -> bool {
        self.session.toggle_bot(player)
    }

    fn change_bot_speed(&mut self, delta: i32) -> u8 {
        self.session.change_bot_speed(delta)
    }

    fn change_player_bot_speed(&mut self, player: usize, delta: i32) -> Option<u8> {
        let seat = self.session.seats.get_mut(player).filter(|s| s.has_bot())?;
        let speed = (i32::from(seat.speed()) + delta).clamp(0, 10) as u8;
        seat.set_speed(speed);
        Some(speed)
    }

    fn set_audio(&mut self, sample_rate: Option<f32>) {
        self.session.machine_mut().emu_mut().set_audio(sample_rate);
    }

    fn audio_samples(&self) -> &[f32] {
        self.session.machine().emu().audio_samples()
    }

    fn set_audio_ratio(&mut self, ratio: f32) {
        self.session.machine_mut().emu_mut().set_audio_ratio(ratio);
    }

    fn save_state(&mut self, slot: u8) -> anyhow::Result<String> {
        anyhow::ensure!((1..=SLOTS as u8).contains(&slot), "no save-state slot {slot}");
        let state = self.session.machine_mut().save_state()?;
        let path = self.states.save(slot, &state)?;
        Ok(path.display().to_string())
    }

    fn load_state(&mut self, slot: u8) -> anyhow::Result<()> {
        anyhow::ensure!((1..=SLOTS as u8).contains(&slot), "no save-state slot {slot}");
        let state = self.states.load(slot)?;
        self.session.machine_mut().load_state(&state).context("the emulator refused the state")?;
        self.session.reset_tracking();
        Ok(())
    }
}
