//! The shipped `config.toml` documents every default: the AI's and the window's tables are pasted from the
//! snippets their modules own, and must not drift from them.

const CONFIG: &str = include_str!("../config.toml");

#[test]
fn config_toml_carries_the_ai_tables_verbatim() {
    let snippet = include_str!("../src/ai/config_snippet.toml");
    assert!(CONFIG.contains(snippet.trim()), "paste src/ai/config_snippet.toml into config.toml again");
}

#[test]
fn config_toml_carries_the_window_keys_verbatim() {
    let snippet = puyobot::ui::keys::DEFAULT_KEYS_TOML;
    let table = snippet.find("[keys]").map_or(snippet, |i| &snippet[i..]);
    assert!(CONFIG.contains(table.trim()), "paste DEFAULT_KEYS_TOML into config.toml again");
}
