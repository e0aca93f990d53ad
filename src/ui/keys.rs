//! Key bindings as data: the `[keys]` table of `config.toml`.
//!
//! Each field of [`KeyBindings`] names one physical key (layout-independent,
//! e.g. "Z" is the key left of "X" on any layout). An empty string leaves the
//! action unbound. Names are matched case-insensitively; see
//! [`valid_key_names`] for the full list. [`default_keys_toml`] is a
//! commented copy of the defaults, ready to paste into `config.toml`.
//!
//! Escape (by default) and closing the window always quit.

use serde::{Deserialize, Serialize};
use winit::keyboard::KeyCode;

use crate::ui::{PAD_A, PAD_B, PAD_DOWN, PAD_LEFT, PAD_RIGHT, PAD_SELECT, PAD_START, PAD_UP};

/// Defines [`KeyBindings`] (one `String` field per row), its defaults, and the (field, description,
/// action) table that resolving, the help text and the commented TOML are built from: each binding is
/// written once, as one row.
macro_rules! bindings {
    ($( $field:ident = $key:literal => $action:expr, $what:literal; )*) => {
        /// Action → key name for every window action (the `[keys]` table). Each field documents the
        /// action; its default is in [`default_keys_toml`].
        #[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
        #[serde(deny_unknown_fields, default)]
        pub struct KeyBindings {
            $( #[doc = $what] pub $field: String, )*
        }

        impl Default for KeyBindings {
            fn default() -> Self {
                KeyBindings { $( $field: $key.to_string(), )* }
            }
        }

        /// The field names of [`KeyBindings`], in help-text order.
        const FIELDS: &[&str] = &[$( stringify!($field) ),*];

        impl KeyBindings {
            /// (field name, description, key name, action) for every binding, in help-text order.
            fn entries(&self) -> [(&'static str, &'static str, &str, Action); FIELDS.len()] {
                [$( (stringify!($field), $what, &self.$field, $action) ),*]
            }
        }
    };
}

bindings! {
    quit = "Escape" => Action::Quit, "quit";
    help = "F1" => Action::Help, "this key list on/off";
    fullscreen = "F11" => Action::Fullscreen, "fullscreen on/off";
    pause = "P" => Action::Pause, "pause / resume";
    frame_advance = "Period" => Action::FrameAdvance, "one frame (pauses)";
    emu_speed_down = "Minus" => Action::EmuSpeedDown, "emulator slower";
    emu_speed_up = "Equal" => Action::EmuSpeedUp, "emulator faster";
    mute = "M" => Action::Mute, "sound on/off";
    bot_p1 = "F2" => Action::ToggleBot(0), "P1 bot on/off";
    bot_p2 = "F3" => Action::ToggleBot(1), "P2 bot on/off";
    bot_speed_down = "BracketLeft" => Action::BotSpeedDown, "every bot slower";
    bot_speed_up = "BracketRight" => Action::BotSpeedUp, "every bot faster";
    bot_p1_slower = "1" => Action::PlayerBotSpeed(0, -1), "P1 bot slower";
    bot_p1_faster = "2" => Action::PlayerBotSpeed(0, 1), "P1 bot faster";
    bot_p2_slower = "3" => Action::PlayerBotSpeed(1, -1), "P2 bot slower";
    bot_p2_faster = "4" => Action::PlayerBotSpeed(1, 1), "P2 bot faster";
    hud = "H" => Action::Hud, "side panels on/off";
    ghost = "G" => Action::Ghost, "planned move on/off";
    screenshot = "F12" => Action::Screenshot, "PNG of the game picture";
    screenshot_window = "F9" => Action::ScreenshotWindow, "PNG of the whole window";
    save_state = "F5" => Action::SaveState, "save state to the slot";
    next_slot = "F6" => Action::NextSlot, "next slot (1-9)";
    load_state = "F7" => Action::LoadState, "load the slot's state";
    pad_up = "ArrowUp" => Action::Pad(PAD_UP), "pad 1 Up";
    pad_down = "ArrowDown" => Action::Pad(PAD_DOWN), "pad 1 Down";
    pad_left = "ArrowLeft" => Action::Pad(PAD_LEFT), "pad 1 Left";
    pad_right = "ArrowRight" => Action::Pad(PAD_RIGHT), "pad 1 Right";
    pad_a = "X" => Action::Pad(PAD_A), "pad 1 A";
    pad_b = "Z" => Action::Pad(PAD_B), "pad 1 B";
    pad_start = "Enter" => Action::Pad(PAD_START), "pad 1 Start";
    pad_select = "ShiftRight" => Action::Pad(PAD_SELECT), "pad 1 Select";
}

/// The comment above the generated `[keys]` table.
const KEYS_TOML_HEADER: &str = r#"# Window key bindings. Each value is one key name; "" leaves an action unbound.
# Names: A-Z, 0-9, F1-F12, ArrowUp/ArrowDown/ArrowLeft/ArrowRight, Enter, Space,
# Escape, Tab, Backspace, ShiftLeft/ShiftRight, ControlLeft/ControlRight,
# AltLeft/AltRight, Minus, Equal, Period, Comma, Slash, Backslash, Semicolon,
# Quote, Backquote, BracketLeft, BracketRight, Insert, Delete, Home, End,
# PageUp, PageDown, Numpad0-Numpad9, NumpadAdd, NumpadSubtract, NumpadEnter...
# The pad_* keys are NES pad 1, for a human player. Closing the window always quits.
"#;

/// The default `[keys]` table, commented, ready to paste into `config.toml` (which carries it verbatim;
/// `tests/model/config_file.rs` checks).
pub fn default_keys_toml() -> String {
    let mut out = format!("{KEYS_TOML_HEADER}[keys]\n");
    for (field, what, key, _) in KeyBindings::default().entries() {
        let line = format!("{field} = {key:?}");
        out.push_str(&format!("{line:<30} # {what}\n"));
    }
    out
}

/// A window action a key can be bound to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// See [`KeyBindings::quit`].
    Quit,
    /// See [`KeyBindings::help`].
    Help,
    /// See [`KeyBindings::fullscreen`].
    Fullscreen,
    /// See [`KeyBindings::pause`].
    Pause,
    /// See [`KeyBindings::frame_advance`].
    FrameAdvance,
    /// See [`KeyBindings::emu_speed_down`].
    EmuSpeedDown,
    /// See [`KeyBindings::emu_speed_up`].
    EmuSpeedUp,
    /// See [`KeyBindings::bot_speed_down`].
    BotSpeedDown,
    /// See [`KeyBindings::bot_speed_up`].
    BotSpeedUp,
    /// See [`KeyBindings::mute`].
    Mute,
    /// Toggle the bot of player index `.0` (0 = player 1).
    ToggleBot(usize),
    /// Change the speed of player `.0`'s bot by `.1`.
    PlayerBotSpeed(usize, i32),
    /// See [`KeyBindings::hud`].
    Hud,
    /// See [`KeyBindings::ghost`].
    Ghost,
    /// See [`KeyBindings::screenshot`].
    Screenshot,
    /// See [`KeyBindings::screenshot_window`].
    ScreenshotWindow,
    /// See [`KeyBindings::save_state`].
    SaveState,
    /// See [`KeyBindings::load_state`].
    LoadState,
    /// See [`KeyBindings::next_slot`].
    NextSlot,
    /// Hold a pad 1 button; the value is the NES button bit.
    Pad(u8),
}

impl Action {
    /// Whether the action runs again while its key is held down (the keyboard's repeat): the steps of a
    /// speed and frame advance do, toggles do not.
    pub fn repeats(self) -> bool {
        matches!(
            self,
            Action::FrameAdvance
                | Action::EmuSpeedDown
                | Action::EmuSpeedUp
                | Action::BotSpeedDown
                | Action::BotSpeedUp
                | Action::PlayerBotSpeed(..)
        )
    }
}

/// A problem in the `[keys]` table.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KeyBindingError {
    /// A key name that does not exist.
    #[error(
        "keys.{action} = {name:?}: unknown key name. Valid names include {examples} \
         (case does not matter; \"\" leaves the action unbound)"
    )]
    UnknownKey {
        /// The action (field name) whose value is wrong.
        action: &'static str,
        /// The bad key name as written.
        name: String,
        /// A list of example valid names.
        examples: String,
    },
    /// Two actions bound to the same key.
    #[error("keys.{first} and keys.{second} are both bound to {key:?}; each key can do one thing")]
    Duplicate {
        /// The key name.
        key: String,
        /// The first action using it.
        first: &'static str,
        /// The second action using it.
        second: &'static str,
    },
}

/// Key names accepted in bindings: (canonical name, key). Single letters and
/// digits, and winit's own names ("KeyA", "Digit1"), are handled separately.
const NAMED_KEYS: &[(&str, KeyCode)] = &[
    ("F1", KeyCode::F1),
    ("F2", KeyCode::F2),
    ("F3", KeyCode::F3),
    ("F4", KeyCode::F4),
    ("F5", KeyCode::F5),
    ("F6", KeyCode::F6),
    ("F7", KeyCode::F7),
    ("F8", KeyCode::F8),
    ("F9", KeyCode::F9),
    ("F10", KeyCode::F10),
    ("F11", KeyCode::F11),
    ("F12", KeyCode::F12),
    ("ArrowUp", KeyCode::ArrowUp),
    ("ArrowDown", KeyCode::ArrowDown),
    ("ArrowLeft", KeyCode::ArrowLeft),
    ("ArrowRight", KeyCode::ArrowRight),
    ("Enter", KeyCode::Enter),
    ("Space", KeyCode::Space),
    ("Escape", KeyCode::Escape),
    ("Tab", KeyCode::Tab),
    ("Backspace", KeyCode::Backspace),
    ("ShiftLeft", KeyCode::ShiftLeft),
    ("ShiftRight", KeyCode::ShiftRight),
    ("ControlLeft", KeyCode::ControlLeft),
    ("ControlRight", KeyCode::ControlRight),
    ("AltLeft", KeyCode::AltLeft),
    ("AltRight", KeyCode::AltRight),
    ("Minus", KeyCode::Minus),
    ("Equal", KeyCode::Equal),
    ("Period", KeyCode::Period),
    ("Comma", KeyCode::Comma),
    ("Slash", KeyCode::Slash),
    ("Backslash", KeyCode::Backslash),
    ("Semicolon", KeyCode::Semicolon),
    ("Quote", KeyCode::Quote),
    ("Backquote", KeyCode::Backquote),
    ("BracketLeft", KeyCode::BracketLeft),
    ("BracketRight", KeyCode::BracketRight),
    ("Insert", KeyCode::Insert),
    ("Delete", KeyCode::Delete),
    ("Home", KeyCode::Home),
    ("End", KeyCode::End),
    ("PageUp", KeyCode::PageUp),
    ("PageDown", KeyCode::PageDown),
    ("Pause", KeyCode::Pause),
    ("PrintScreen", KeyCode::PrintScreen),
    ("ScrollLock", KeyCode::ScrollLock),
    ("CapsLock", KeyCode::CapsLock),
    ("Numpad0", KeyCode::Numpad0),
    ("Numpad1", KeyCode::Numpad1),
    ("Numpad2", KeyCode::Numpad2),
    ("Numpad3", KeyCode::Numpad3),
    ("Numpad4", KeyCode::Numpad4),
    ("Numpad5", KeyCode::Numpad5),
    ("Numpad6", KeyCode::Numpad6),
    ("Numpad7", KeyCode::Numpad7),
    ("Numpad8", KeyCode::Numpad8),
    ("Numpad9", KeyCode::Numpad9),
    ("NumpadAdd", KeyCode::NumpadAdd),
    ("NumpadSubtract", KeyCode::NumpadSubtract),
    ("NumpadMultiply", KeyCode::NumpadMultiply),
    ("NumpadDivide", KeyCode::NumpadDivide),
    ("NumpadDecimal", KeyCode::NumpadDecimal),
    ("NumpadEnter", KeyCode::NumpadEnter),
];

const LETTERS: [KeyCode; 26] = [
    KeyCode::KeyA,
    KeyCode::KeyB,
    KeyCode::KeyC,
    KeyCode::KeyD,
    KeyCode::KeyE,
    KeyCode::KeyF,
    KeyCode::KeyG,
    KeyCode::KeyH,
    KeyCode::KeyI,
    KeyCode::KeyJ,
    KeyCode::KeyK,
    KeyCode::KeyL,
    KeyCode::KeyM,
    KeyCode::KeyN,
    KeyCode::KeyO,
    KeyCode::KeyP,
    KeyCode::KeyQ,
    KeyCode::KeyR,
    KeyCode::KeyS,
    KeyCode::KeyT,
    KeyCode::KeyU,
    KeyCode::KeyV,
    KeyCode::KeyW,
    KeyCode::KeyX,
    KeyCode::KeyY,
    KeyCode::KeyZ,
];

const DIGITS: [KeyCode; 10] = [
    KeyCode::Digit0,
    KeyCode::Digit1,
    KeyCode::Digit2,
    KeyCode::Digit3,
    KeyCode::Digit4,
    KeyCode::Digit5,
    KeyCode::Digit6,
    KeyCode::Digit7,
    KeyCode::Digit8,
    KeyCode::Digit9,
];

/// Examples of valid key names, for error messages.
const EXAMPLE_NAMES: &str = "A-Z, 0-9, F1-F12, ArrowUp, ArrowDown, ArrowLeft, ArrowRight, Enter, \
     Space, Escape, ShiftLeft, ShiftRight, ControlLeft, Minus, Equal, Period, Comma, Slash, \
     BracketLeft, BracketRight, Numpad0-Numpad9";

/// Parses a key name ("Z", "7", "F11", "ArrowLeft", "Period", "KeyZ",
/// "Digit7"…; case-insensitive) into a winit key code.
pub fn parse_key_name(name: &str) -> Option<KeyCode> {
    let n = name.trim();
    let single = |s: &str| -> Option<KeyCode> {
        let mut chars = s.chars();
        let c = chars.next()?;
        if chars.next().is_some() {
            return None;
        }
        if c.is_ascii_alphabetic() {
            Some(LETTERS[(c.to_ascii_uppercase() as u8 - b'A') as usize])
        } else if c.is_ascii_digit() {
            Some(DIGITS[(c as u8 - b'0') as usize])
        } else {
            None
        }
    };
    if let Some(k) = single(n) {
        return Some(k);
    }
    let lower = n.to_ascii_lowercase();
    if let Some(rest) = lower.strip_prefix("key").filter(|r| r.len() == 1) {
        return single(rest).filter(|_| rest.chars().all(|c| c.is_ascii_alphabetic()));
    }
    if let Some(rest) = lower.strip_prefix("digit").filter(|r| r.len() == 1) {
        return single(rest).filter(|_| rest.chars().all(|c| c.is_ascii_digit()));
    }
    NAMED_KEYS.iter().find(|(canon, _)| canon.eq_ignore_ascii_case(n)).map(|(_, k)| *k)
}

/// Every accepted canonical key name (single letters and digits included).
pub fn valid_key_names() -> Vec<String> {
    let mut v: Vec<String> = ('A'..='Z').chain('0'..='9').map(String::from).collect();
    v.extend(NAMED_KEYS.iter().map(|(n, _)| n.to_string()));
    v
}

impl KeyBindings {
    /// Checks every key name and that no key is bound twice, and builds the
    /// lookup table the window uses.
    pub fn resolve(&self) -> Result<KeyMap, KeyBindingError> {
        let mut map: Vec<(KeyCode, Action, &'static str)> = Vec::new();
        for (field, _, name, action) in self.entries() {
            if name.trim().is_empty() {
                continue;
            }
            let code = parse_key_name(name).ok_or_else(|| KeyBindingError::UnknownKey {
                action: field,
                name: name.to_string(),
                examples: EXAMPLE_NAMES.to_string(),
            })?;
            if let Some((_, _, first)) = map.iter().find(|(c, _, _)| *c == code) {
                return Err(KeyBindingError::Duplicate { key: name.to_string(), first, second: field });
            }
            map.push((code, action, field));
        }
        Ok(KeyMap { map: map.into_iter().map(|(c, a, _)| (c, a)).collect() })
    }

    /// Human-readable list of the bindings, one "  KEY  what it does" line
    /// per bound action, for `--help`.
    pub fn help_text(&self) -> String {
        let rows = self.help_rows();
        let width = rows.iter().map(|e| e.0.len()).max().unwrap_or(0).max(8);
        let mut out = String::from("Window keys:\n");
        for (key, what) in rows {
            out.push_str(&format!("  {key:<width$}  {what}\n"));
        }
        out.push_str(&format!("  {:<width$}  quit\n", "(close)"));
        out
    }

    /// (key name, what it does) for every bound action, in table order: the rows of the window's help
    /// page and of [`KeyBindings::help_text`].
    pub fn help_rows(&self) -> Vec<(String, &'static str)> {
        self.entries()
            .into_iter()
            .filter(|(_, _, key, _)| !key.trim().is_empty())
            .map(|(_, what, key, _)| (key.trim().to_string(), what))
            .collect()
    }

    /// The one-line hint shown for the first seconds of a session, naming the help key (and the quit
    /// key); empty when help is unbound.
    pub fn hint(&self) -> String {
        let mut parts = Vec::new();
        if !self.help.trim().is_empty() {
            parts.push(format!("{}: KEYS", self.help.trim()));
        }
        if !self.pause.trim().is_empty() {
            parts.push(format!("{}: PAUSE", self.pause.trim()));
        }
        if !self.quit.trim().is_empty() {
            parts.push(format!("{}: QUIT", self.quit.trim()));
        }
        parts.join("   ")
    }
}

impl KeyBindings {
    /// The status line's prompt while the game waits for the person's Start on pad 1: the key bound to
    /// pad 1 Start and, when controllers are read, the controller button mapped to it (`pad_start`, a
    /// `[gamepad]` button name).
    pub fn start_prompt(&self, pad_start: Option<&str>) -> String {
        let key = self.pad_start.trim();
        let pad = pad_start.map(str::trim).filter(|p| !p.is_empty());
        let what = match (key.is_empty(), pad) {
            (false, Some(p)) => format!("{key} OR CONTROLLER {p}"),
            (false, None) => key.to_string(),
            (true, Some(p)) => format!("CONTROLLER {p}"),
            (true, None) => return "NO KEY PRESSES START: SET KEYS.PAD_START".to_string(),
        };
        format!("PRESS {} TO START THE GAME", what.to_uppercase())
    }
}

/// The key list for `puyobot play --help`: the default bindings, and where to change them.
pub fn key_help() -> String {
    let mut out = KeyBindings::default().help_text();
    out.push_str("\nThese are the defaults; the [keys] table of config.toml changes them, and the window's\n");
    out.push_str(&format!(
        "help key ({}) lists the ones in force. Game controllers: the [gamepad] table.\n",
        KeyBindings::default().help
    ));
    out
}

/// Resolved bindings: physical key → action. Built by [`KeyBindings::resolve`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyMap {
    map: Vec<(KeyCode, Action)>,
}

impl KeyMap {
    /// The action bound to `key`, if any.
    pub fn action(&self, key: KeyCode) -> Option<Action> {
        self.map.iter().find(|(k, _)| *k == key).map(|(_, a)| *a)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_valid_names() {
        assert_eq!(parse_key_name("Z"), Some(KeyCode::KeyZ));
        assert_eq!(parse_key_name("z"), Some(KeyCode::KeyZ));
        assert_eq!(parse_key_name("KeyZ"), Some(KeyCode::KeyZ));
        assert_eq!(parse_key_name("7"), Some(KeyCode::Digit7));
        assert_eq!(parse_key_name("Digit7"), Some(KeyCode::Digit7));
        assert_eq!(parse_key_name("F11"), Some(KeyCode::F11));
        assert_eq!(parse_key_name("arrowleft"), Some(KeyCode::ArrowLeft));
        assert_eq!(parse_key_name("Period"), Some(KeyCode::Period));
        assert_eq!(parse_key_name("Minus"), Some(KeyCode::Minus));
        assert_eq!(parse_key_name("Equal"), Some(KeyCode::Equal));
        assert_eq!(parse_key_name("Enter"), Some(KeyCode::Enter));
        assert_eq!(parse_key_name(" ShiftRight "), Some(KeyCode::ShiftRight));
        for name in valid_key_names() {
            assert!(parse_key_name(&name).is_some(), "{name}");
        }
    }

    #[test]
    fn the_start_prompt_names_the_bound_key_and_the_controller_button() {
        let keys = KeyBindings::default();
        assert_eq!(keys.start_prompt(Some("Start")), "PRESS ENTER OR CONTROLLER START TO START THE GAME");
        assert_eq!(keys.start_prompt(None), "PRESS ENTER TO START THE GAME");
        let remapped = KeyBindings { pad_start: "Space".into(), ..KeyBindings::default() };
        assert_eq!(remapped.start_prompt(Some("South")), "PRESS SPACE OR CONTROLLER SOUTH TO START THE GAME");
        let unbound = KeyBindings { pad_start: String::new(), ..KeyBindings::default() };
        assert_eq!(unbound.start_prompt(Some("Start")), "PRESS CONTROLLER START TO START THE GAME");
        assert!(unbound.start_prompt(None).contains("KEYS.PAD_START"));
    }

    #[test]
    fn parse_invalid_names() {
        for bad in ["", "F13", "Keyz1", "KeyZZ", "Digit", "Digita", "Key1", "Ctrl", "??", "Ω"] {
            assert_eq!(parse_key_name(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn unknown_key_error_names_action_and_key() {
        let keys = KeyBindings { pause: "Pasue".into(), ..KeyBindings::default() };
        let err = keys.resolve().unwrap_err();
        let msg = err.to_string();
        assert!(matches!(err, KeyBindingError::UnknownKey { action: "pause", .. }));
        assert!(msg.contains("keys.pause"), "{msg}");
        assert!(msg.contains("\"Pasue\""), "{msg}");
        assert!(msg.contains("ArrowLeft") && msg.contains("F1-F12"), "{msg}");
    }

    #[test]
    fn duplicate_key_is_an_error_and_empty_unbinds() {
        let keys = KeyBindings { hud: "f11".into(), ..KeyBindings::default() };
        let msg = keys.resolve().unwrap_err().to_string();
        assert!(msg.contains("keys.fullscreen") && msg.contains("keys.hud"), "{msg}");
        let keys = KeyBindings { hud: String::new(), ..KeyBindings::default() };
        let map = keys.resolve().unwrap();
        assert_eq!(map.action(KeyCode::KeyH), None);
        assert!(!keys.help_text().contains("HUD"));
    }

    #[test]
    fn defaults_resolve() {
        let map = KeyBindings::default().resolve().unwrap();
        assert_eq!(map.action(KeyCode::Escape), Some(Action::Quit));
        assert_eq!(map.action(KeyCode::KeyX), Some(Action::Pad(crate::ui::PAD_A)));
        assert_eq!(map.action(KeyCode::KeyZ), Some(Action::Pad(crate::ui::PAD_B)));
        assert_eq!(map.action(KeyCode::F3), Some(Action::ToggleBot(1)));
        assert_eq!(map.action(KeyCode::F1), Some(Action::Help));
        assert_eq!(map.action(KeyCode::Digit4), Some(Action::PlayerBotSpeed(1, 1)));
        assert_eq!(map.action(KeyCode::KeyQ), None);
    }

    #[test]
    fn toml_snippet_matches_defaults() {
        #[derive(Deserialize)]
        struct Config {
            keys: KeyBindings,
        }
        let cfg: Config = toml::from_str(&default_keys_toml()).unwrap();
        assert_eq!(cfg.keys, KeyBindings::default());
        // Partial tables fall back to the defaults; unknown fields are rejected.
        let cfg: Config = toml::from_str("[keys]\npause = \"Space\"\n").unwrap();
        assert_eq!(cfg.keys.pause, "Space");
        assert_eq!(cfg.keys.quit, "Escape");
        let err = toml::from_str::<Config>("[keys]\npuase = \"Space\"\n").err().unwrap();
        assert!(err.to_string().contains("puase"), "{err}");
        // Serialising round-trips.
        let text = toml::to_string(&KeyBindings::default()).unwrap();
        let back: KeyBindings = toml::from_str(&text).unwrap();
        assert_eq!(back, KeyBindings::default());
    }

    #[test]
    fn every_description_fits_a_column_of_the_help_page() {
        for (field, what, _, _) in KeyBindings::default().entries() {
            assert!(
                what.len() <= crate::ui::hud::HELP_WHAT_CHARS,
                "keys.{field}: {what:?} is too long for the help page"
            );
        }
    }

    #[test]
    fn help_lists_every_default_binding() {
        let help = KeyBindings::default().help_text();
        for needle in ["F11", "Period", "Minus", "Equal", "F1 ", "F2 ", "ArrowLeft", "ShiftRight", "Escape"] {
            assert!(help.contains(needle), "{needle} missing in\n{help}");
        }
    }
}
