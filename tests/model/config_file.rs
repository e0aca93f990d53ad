//! The shipped `config.toml` documents every default a user sets: the window's tables are pasted from the
//! snippets their modules own, and must not drift from them. The bots' settings are AI profiles, not
//! part of it.

const CONFIG: &str = include_str!("../../config.toml");

#[test]
fn config_toml_holds_no_ai_tables() {
    assert!(!CONFIG.lines().any(|l| l.trim_start().starts_with("[ai")), "the bots' settings are AI profiles");
    let parsed: toml::Table = toml::from_str(CONFIG).expect("config.toml is TOML");
    let tables: Vec<&str> = parsed.keys().map(String::as_str).collect();
    assert_eq!(tables, ["audio", "bots", "gamepad", "keys", "play", "rules"]);
}

#[test]
fn config_toml_carries_the_window_keys_verbatim() {
    let snippet = puyobot::ui::keys::default_keys_toml();
    assert!(CONFIG.contains(snippet.trim()), "paste puyobot::ui::keys::default_keys_toml() into config.toml again");
}

#[test]
fn config_toml_carries_the_window_sound_and_controller_tables_verbatim() {
    for (snippet, name) in [
        (puyobot::ui::audio::default_audio_toml(), "audio::default_audio_toml()"),
        (puyobot::ui::gamepad::default_gamepad_toml(), "gamepad::default_gamepad_toml()"),
    ] {
        assert!(CONFIG.contains(snippet.trim()), "paste puyobot::ui::{name} into config.toml again");
    }
}
