//! The shipped `config.toml` documents every default: the AI's and the window's tables are pasted from the
//! snippets their modules own, and must not drift from them.

const CONFIG: &str = include_str!("../../config.toml");

#[test]
fn config_toml_carries_the_ai_tables_verbatim() {
    let snippet = include_str!("../../src/ai/config_snippet.toml");
    assert!(CONFIG.contains(snippet.trim()), "paste src/ai/config_snippet.toml into config.toml again");
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
