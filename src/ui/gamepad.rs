//! Game controllers for the person on NES pad 1, through `gilrs`: any connected controller plays, they
//! can be plugged in and out while the window runs, and the keyboard keeps working alongside.
//!
//! The mapping is data (the `[gamepad]` table, [`GamepadBindings`]) and the logic that turns controller
//! events into NES pad bits ([`PadState`]) is pure, fed with this module's own [`PadEvent`]s, so it is
//! tested without a controller or `gilrs`; [`Gamepads`] is the thin layer that reads `gilrs`.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::ui::{PAD_A, PAD_B, PAD_DOWN, PAD_LEFT, PAD_RIGHT, PAD_SELECT, PAD_START, PAD_UP};

/// A controller button, named by its position as `gilrs` names it (`South` is the lower face button:
/// A on an Xbox pad, Cross on a PlayStation pad, B on a Nintendo pad).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum PadButton {
    /// Lower face button.
    South,
    /// Right face button.
    East,
    /// Upper face button.
    North,
    /// Left face button.
    West,
    /// Extra face button on some pads.
    C,
    /// Extra face button on some pads.
    Z,
    /// Left shoulder.
    LeftTrigger,
    /// Left trigger.
    LeftTrigger2,
    /// Right shoulder.
    RightTrigger,
    /// Right trigger.
    RightTrigger2,
    /// Select / Back / Share.
    Select,
    /// Start / Options.
    Start,
    /// The logo button.
    Mode,
    /// Left stick pressed.
    LeftThumb,
    /// Right stick pressed.
    RightThumb,
    /// D-pad up.
    DPadUp,
    /// D-pad down.
    DPadDown,
    /// D-pad left.
    DPadLeft,
    /// D-pad right.
    DPadRight,
}

/// Every button with its name in the config file.
const BUTTON_NAMES: &[(&str, PadButton)] = &[
    ("South", PadButton::South),
    ("East", PadButton::East),
    ("North", PadButton::North),
    ("West", PadButton::West),
    ("C", PadButton::C),
    ("Z", PadButton::Z),
    ("LeftTrigger", PadButton::LeftTrigger),
    ("LeftTrigger2", PadButton::LeftTrigger2),
    ("RightTrigger", PadButton::RightTrigger),
    ("RightTrigger2", PadButton::RightTrigger2),
    ("Select", PadButton::Select),
    ("Start", PadButton::Start),
    ("Mode", PadButton::Mode),
    ("LeftThumb", PadButton::LeftThumb),
    ("RightThumb", PadButton::RightThumb),
    ("DPadUp", PadButton::DPadUp),
    ("DPadDown", PadButton::DPadDown),
    ("DPadLeft", PadButton::DPadLeft),
    ("DPadRight", PadButton::DPadRight),
];

impl PadButton {
    /// Parses a config name ("East", "dpadup"; case-insensitive).
    pub fn parse(name: &str) -> Option<PadButton> {
        BUTTON_NAMES.iter().find(|(n, _)| n.eq_ignore_ascii_case(name.trim())).map(|(_, b)| *b)
    }
}

/// A controller axis the mapping reads: the left stick moves the d-pad when [`GamepadBindings::stick`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PadAxis {
    /// Left stick, right is positive.
    LeftStickX,
    /// Left stick, up is positive.
    LeftStickY,
    /// A d-pad reported as an axis (some controllers), right is positive.
    DPadX,
    /// A d-pad reported as an axis, up is positive.
    DPadY,
}

/// What a controller did.
#[derive(Debug, Clone, PartialEq)]
pub enum PadEvent {
    /// Plugged in (or present at start), with its name.
    Connected(String),
    /// Unplugged: whatever it held is released.
    Disconnected,
    /// A button went down (`true`) or up.
    Button(PadButton, bool),
    /// An axis moved to a value in -1..=1.
    Axis(PadAxis, f32),
}

/// The `[gamepad]` table of `config.toml`: NES button → controller button name ("" = unbound).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct GamepadBindings {
    /// Read game controllers at all.
    pub enabled: bool,
    /// The left stick also moves the d-pad.
    pub stick: bool,
    /// NES A (rotate clockwise).
    pub a: String,
    /// NES B (rotate counter-clockwise).
    pub b: String,
    /// A second button for NES A.
    pub a2: String,
    /// A second button for NES B.
    pub b2: String,
    /// NES Start.
    pub start: String,
    /// NES Select.
    pub select: String,
    /// NES Up.
    pub up: String,
    /// NES Down.
    pub down: String,
    /// NES Left.
    pub left: String,
    /// NES Right.
    pub right: String,
}

impl Default for GamepadBindings {
    fn default() -> Self {
        GamepadBindings {
            enabled: true,
            stick: true,
            // The NES pad has B on the left and A on the right; so do the lower and right face buttons.
            a: "East".into(),
            b: "South".into(),
            a2: "North".into(),
            b2: "West".into(),
            start: "Start".into(),
            select: "Select".into(),
            up: "DPadUp".into(),
            down: "DPadDown".into(),
            left: "DPadLeft".into(),
            right: "DPadRight".into(),
        }
    }
}

/// The default `[gamepad]` table, commented, for `config.toml`.
pub fn default_gamepad_toml() -> String {
    let d = GamepadBindings::default();
    let mut out = String::from(
        "# Game controllers (any connected one plays NES pad 1, with the keyboard; plug in and out at will).\n\
         # Button names, by position: South East North West (face buttons), C Z, LeftTrigger LeftTrigger2\n\
         # RightTrigger RightTrigger2, Select Start Mode, LeftThumb RightThumb, DPadUp DPadDown DPadLeft\n\
         # DPadRight. \"\" leaves a NES button unbound.\n[gamepad]\n",
    );
    let row = |k: &str, v: String, what: &str| format!("{:<30} # {what}\n", format!("{k} = {v}"));
    out += &row("enabled", d.enabled.to_string(), "read game controllers");
    out += &row("stick", d.stick.to_string(), "the left stick moves the d-pad too");
    for (k, v, what) in d.rows() {
        out += &row(k, format!("{v:?}"), &format!("NES {what}"));
    }
    out
}

/// A problem in the `[gamepad]` table.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "gamepad.{field} = {name:?}: unknown controller button. Use one of South, East, North, West, C, Z, \
     LeftTrigger, LeftTrigger2, RightTrigger, RightTrigger2, Select, Start, Mode, LeftThumb, RightThumb, \
     DPadUp, DPadDown, DPadLeft, DPadRight (\"\" leaves it unbound)"
)]
pub struct GamepadBindingError {
    /// The field whose value is wrong.
    pub field: &'static str,
    /// The name as written.
    pub name: String,
}

impl GamepadBindings {
    /// (field, button name, NES button) for every NES button binding.
    fn rows(&self) -> [(&'static str, &str, &'static str); 10] {
        [
            ("a", &self.a, "A"),
            ("b", &self.b, "B"),
            ("a2", &self.a2, "A (second button)"),
            ("b2", &self.b2, "B (second button)"),
            ("start", &self.start, "Start"),
            ("select", &self.select, "Select"),
            ("up", &self.up, "Up"),
            ("down", &self.down, "Down"),
            ("left", &self.left, "Left"),
            ("right", &self.right, "Right"),
        ]
    }

    /// Checks every name and builds the button → NES bit table. A controller button may drive several
    /// NES buttons (it sets them all).
    pub fn resolve(&self) -> Result<PadMap, GamepadBindingError> {
        let bits = [PAD_A, PAD_B, PAD_A, PAD_B, PAD_START, PAD_SELECT, PAD_UP, PAD_DOWN, PAD_LEFT, PAD_RIGHT];
        let mut map = BTreeMap::new();
        for ((field, name, _), bit) in self.rows().into_iter().zip(bits) {
            if name.trim().is_empty() {
                continue;
            }
            let button = PadButton::parse(name).ok_or_else(|| GamepadBindingError { field, name: name.to_string() })?;
            *map.entry(button).or_insert(0) |= bit;
        }
        Ok(PadMap { buttons: map, stick: self.stick })
    }
}

/// Resolved `[gamepad]` bindings: controller button → NES bits.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PadMap {
    buttons: BTreeMap<PadButton, u8>,
    stick: bool,
}

impl PadMap {
    /// The NES bits `button` drives (0 when unbound).
    pub fn bits(&self, button: PadButton) -> u8 {
        self.buttons.get(&button).copied().unwrap_or(0)
    }
}

/// How far a stick must lean before it counts as a d-pad direction.
pub const STICK_THRESHOLD: f32 = 0.5;

/// What one controller holds.
#[derive(Debug, Clone, Default, PartialEq)]
struct Held {
    name: String,
    buttons: BTreeMap<PadButton, bool>,
    stick: (f32, f32),
    dpad_axis: (f32, f32),
}

/// Every connected controller's held buttons, turned into NES pad 1 bits.
#[derive(Debug, Clone, Default)]
pub struct PadState {
    map: PadMap,
    pads: BTreeMap<usize, Held>,
}

impl PadState {
    /// No controller yet, with the mapping `map`.
    pub fn new(map: PadMap) -> PadState {
        PadState { map, pads: BTreeMap::new() }
    }

    /// Applies one event from controller `id`; returns a line for the status bar when a controller came
    /// or went. Events from a controller never announced as connected are taken as from a connected one
    /// (some platforms report the controllers present at start only through their events).
    pub fn handle(&mut self, id: usize, event: PadEvent) -> Option<String> {
        match event {
            PadEvent::Connected(name) => {
                let msg = format!("controller connected: {name}");
                self.pads.insert(id, Held { name, ..Held::default() });
                Some(msg)
            }
            PadEvent::Disconnected => self.pads.remove(&id).map(|h| format!("controller disconnected: {}", h.name)),
            PadEvent::Button(b, down) => {
                self.pads.entry(id).or_default().buttons.insert(b, down);
                None
            }
            PadEvent::Axis(axis, v) => {
                let held = self.pads.entry(id).or_default();
                match axis {
                    PadAxis::LeftStickX => held.stick.0 = v,
                    PadAxis::LeftStickY => held.stick.1 = v,
                    PadAxis::DPadX => held.dpad_axis.0 = v,
                    PadAxis::DPadY => held.dpad_axis.1 = v,
                }
                None
            }
        }
    }

    /// NES pad bits held by all controllers together. Opposite directions cancel out rather than reach
    /// the game together (no real pad can press both).
    pub fn buttons(&self) -> u8 {
        let mut bits = 0u8;
        for held in self.pads.values() {
            for (&b, &down) in &held.buttons {
                if down {
                    bits |= self.map.bits(b);
                }
            }
            let mut lean = |(x, y): (f32, f32)| {
                if x >= STICK_THRESHOLD {
                    bits |= PAD_RIGHT;
                } else if x <= -STICK_THRESHOLD {
                    bits |= PAD_LEFT;
                }
                if y >= STICK_THRESHOLD {
                    bits |= PAD_UP;
                } else if y <= -STICK_THRESHOLD {
                    bits |= PAD_DOWN;
                }
            };
            lean(held.dpad_axis);
            if self.map.stick {
                lean(held.stick);
            }
        }
        if bits & (PAD_LEFT | PAD_RIGHT) == PAD_LEFT | PAD_RIGHT {
            bits &= !(PAD_LEFT | PAD_RIGHT);
        }
        if bits & (PAD_UP | PAD_DOWN) == PAD_UP | PAD_DOWN {
            bits &= !(PAD_UP | PAD_DOWN);
        }
        bits
    }

    /// The names of the connected controllers.
    pub fn connected(&self) -> Vec<&str> {
        self.pads.values().map(|h| h.name.as_str()).collect()
    }
}

/// Controllers read through `gilrs`; without controller support (no input devices readable) the window
/// runs on the keyboard alone.
pub struct Gamepads {
    gilrs: Option<gilrs::Gilrs>,
    state: PadState,
}

impl std::fmt::Debug for Gamepads {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gamepads").field("active", &self.gilrs.is_some()).field("state", &self.state).finish()
    }
}

impl Gamepads {
    /// Starts reading controllers with `map` (or not at all when `enabled` is false). A failure to start
    /// is logged once and leaves the keyboard alone in charge.
    pub fn open(map: PadMap, enabled: bool) -> Gamepads {
        let mut state = PadState::new(map);
        let gilrs = if enabled {
            match gilrs::Gilrs::new() {
                Ok(g) => Some(g),
                Err(gilrs::Error::NotImplemented(g)) => {
                    log::info!("game controllers are not supported on this platform");
                    Some(g)
                }
                Err(e) => {
                    log::warn!("game controllers unavailable: {e}");
                    None
                }
            }
        } else {
            None
        };
        if let Some(g) = &gilrs {
            for (id, pad) in g.gamepads() {
                if let Some(msg) = state.handle(usize::from(id), PadEvent::Connected(pad.name().to_string())) {
                    log::info!("{msg}");
                }
            }
        }
        Gamepads { gilrs, state }
    }

    /// Reads every pending controller event; returns the status lines for controllers that came or went.
    pub fn poll(&mut self) -> Vec<String> {
        let mut messages = Vec::new();
        let Some(g) = self.gilrs.as_mut() else { return messages };
        while let Some(ev) = g.next_event() {
            let id = usize::from(ev.id);
            let event = match ev.event {
                gilrs::EventType::Connected => PadEvent::Connected(g.gamepad(ev.id).name().to_string()),
                gilrs::EventType::Disconnected => PadEvent::Disconnected,
                gilrs::EventType::ButtonPressed(b, _) => match button(b) {
                    Some(b) => PadEvent::Button(b, true),
                    None => continue,
                },
                gilrs::EventType::ButtonReleased(b, _) => match button(b) {
                    Some(b) => PadEvent::Button(b, false),
                    None => continue,
                },
                gilrs::EventType::AxisChanged(a, v, _) => match axis(a) {
                    Some(a) => PadEvent::Axis(a, v),
                    None => continue,
                },
                _ => continue,
            };
            if let Some(msg) = self.state.handle(id, event) {
                log::info!("{msg}");
                messages.push(msg);
            }
        }
        messages
    }

    /// NES pad bits the controllers hold now.
    pub fn buttons(&self) -> u8 {
        self.state.buttons()
    }
}

fn button(b: gilrs::Button) -> Option<PadButton> {
    use gilrs::Button as G;
    Some(match b {
        G::South => PadButton::South,
        G::East => PadButton::East,
        G::North => PadButton::North,
        G::West => PadButton::West,
        G::C => PadButton::C,
        G::Z => PadButton::Z,
        G::LeftTrigger => PadButton::LeftTrigger,
        G::LeftTrigger2 => PadButton::LeftTrigger2,
        G::RightTrigger => PadButton::RightTrigger,
        G::RightTrigger2 => PadButton::RightTrigger2,
        G::Select => PadButton::Select,
        G::Start => PadButton::Start,
        G::Mode => PadButton::Mode,
        G::LeftThumb => PadButton::LeftThumb,
        G::RightThumb => PadButton::RightThumb,
        G::DPadUp => PadButton::DPadUp,
        G::DPadDown => PadButton::DPadDown,
        G::DPadLeft => PadButton::DPadLeft,
        G::DPadRight => PadButton::DPadRight,
        G::Unknown => return None,
    })
}

fn axis(a: gilrs::Axis) -> Option<PadAxis> {
    Some(match a {
        gilrs::Axis::LeftStickX => PadAxis::LeftStickX,
        gilrs::Axis::LeftStickY => PadAxis::LeftStickY,
        gilrs::Axis::DPadX => PadAxis::DPadX,
        gilrs::Axis::DPadY => PadAxis::DPadY,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state() -> PadState {
        PadState::new(GamepadBindings::default().resolve().unwrap())
    }

    #[test]
    fn default_mapping_face_buttons_dpad_and_menu_buttons() {
        let mut s = state();
        assert_eq!(s.handle(0, PadEvent::Connected("Pad".into())).as_deref(), Some("controller connected: Pad"));
        s.handle(0, PadEvent::Button(PadButton::East, true));
        assert_eq!(s.buttons(), PAD_A);
        s.handle(0, PadEvent::Button(PadButton::South, true));
        s.handle(0, PadEvent::Button(PadButton::DPadLeft, true));
        s.handle(0, PadEvent::Button(PadButton::Start, true));
        assert_eq!(s.buttons(), PAD_A | PAD_B | PAD_LEFT | PAD_START);
        s.handle(0, PadEvent::Button(PadButton::East, false));
        s.handle(0, PadEvent::Button(PadButton::Start, false));
        assert_eq!(s.buttons(), PAD_B | PAD_LEFT);
        // Second bindings: North is A too, West is B too.
        s.handle(0, PadEvent::Button(PadButton::North, true));
        assert_eq!(s.buttons() & PAD_A, PAD_A);
        // Unbound buttons do nothing.
        s.handle(0, PadEvent::Button(PadButton::Mode, true));
        assert_eq!(s.buttons(), PAD_A | PAD_B | PAD_LEFT);
    }

    #[test]
    fn the_stick_leans_past_a_threshold_and_opposites_cancel() {
        let mut s = state();
        s.handle(3, PadEvent::Axis(PadAxis::LeftStickX, 0.3));
        assert_eq!(s.buttons(), 0, "inside the dead zone");
        s.handle(3, PadEvent::Axis(PadAxis::LeftStickX, 0.9));
        s.handle(3, PadEvent::Axis(PadAxis::LeftStickY, -0.8));
        assert_eq!(s.buttons(), PAD_RIGHT | PAD_DOWN);
        // The d-pad held left on another controller while the stick leans right: neither reaches the game.
        s.handle(4, PadEvent::Button(PadButton::DPadLeft, true));
        assert_eq!(s.buttons(), PAD_DOWN);
        // With `stick = false` the stick is ignored.
        let mut off = PadState::new(GamepadBindings { stick: false, ..Default::default() }.resolve().unwrap());
        off.handle(0, PadEvent::Axis(PadAxis::LeftStickX, -1.0));
        off.handle(0, PadEvent::Axis(PadAxis::DPadY, 1.0));
        assert_eq!(off.buttons(), PAD_UP, "a d-pad reported as an axis still counts");
    }

    #[test]
    fn hot_plug_two_controllers_and_unplugging_releases_what_was_held() {
        let mut s = state();
        s.handle(0, PadEvent::Connected("First".into()));
        s.handle(1, PadEvent::Connected("Second".into()));
        assert_eq!(s.connected(), ["First", "Second"]);
        s.handle(0, PadEvent::Button(PadButton::DPadDown, true));
        s.handle(1, PadEvent::Button(PadButton::East, true));
        assert_eq!(s.buttons(), PAD_DOWN | PAD_A, "both controllers play pad 1");
        assert_eq!(s.handle(0, PadEvent::Disconnected).as_deref(), Some("controller disconnected: First"));
        assert_eq!(s.buttons(), PAD_A, "the unplugged controller's Down is released");
        assert_eq!(s.handle(0, PadEvent::Disconnected), None, "a second unplug is not news");
        // Plugged back in under the same id: starts with nothing held.
        s.handle(0, PadEvent::Connected("First".into()));
        assert_eq!(s.buttons(), PAD_A);
        s.handle(1, PadEvent::Disconnected);
        assert_eq!(s.buttons(), 0);
    }

    #[test]
    fn bindings_parse_remap_and_reject_unknown_names() {
        #[derive(Deserialize)]
        struct C {
            gamepad: GamepadBindings,
        }
        let c: C = toml::from_str(&default_gamepad_toml()).unwrap();
        assert_eq!(c.gamepad, GamepadBindings::default());
        let c: C = toml::from_str("[gamepad]\na = \"south\"\nb = \"east\"\na2 = \"\"\nb2 = \"\"\n").unwrap();
        let map = c.gamepad.resolve().unwrap();
        assert_eq!((map.bits(PadButton::South), map.bits(PadButton::East)), (PAD_A, PAD_B));
        assert_eq!(map.bits(PadButton::North), 0, "unbound");
        let err = GamepadBindings { start: "Strat".into(), ..Default::default() }.resolve().unwrap_err();
        assert!(err.to_string().contains("gamepad.start") && err.to_string().contains("Strat"), "{err}");
        assert!(toml::from_str::<C>("[gamepad]\nx = \"South\"\n").is_err(), "unknown keys are errors");
    }
}
