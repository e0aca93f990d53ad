//! Command-line front ends, one module per subcommand, and what they share: the configuration lookup,
//! output checks and progress bars. The runners live in their layers: headless games in [`crate::play`],
//! self-play in [`crate::sim`].

pub mod args;
pub mod bot;
pub mod bot_spec;
pub mod bug_report;
pub mod calibrate;
pub mod chain;
pub mod config_file;
pub mod ladder;
pub mod output;
pub mod play;
pub mod play_args;
pub mod plot;
pub mod record;
pub mod replay;
pub mod replay_file;
pub mod rules_args;
pub mod serve;
pub mod sim;
pub mod soak;
pub mod train;

/// An error as one line for the user: its messages from the outside in, each said once (a message that
/// already ends with its cause's text, as `thiserror`'s `{source}` does, does not repeat it).
pub fn error_text(e: &anyhow::Error) -> String {
    let mut out = String::new();
    for m in e.chain().map(|c| c.to_string()) {
        if out.ends_with(&m) || out.contains(&format!(": {m}")) {
            continue;
        }
        if !out.is_empty() {
            out += ": ";
        }
        out += &m;
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_cause_already_in_its_message_is_said_once() {
        let io = std::io::Error::new(std::io::ErrorKind::IsADirectory, "Is a directory (os error 21)");
        #[derive(Debug, thiserror::Error)]
        #[error("out.replay: {0}")]
        struct Wrap(#[source] std::io::Error);
        let e = anyhow::Error::new(Wrap(io)).context("cannot save the replay");
        assert_eq!(super::error_text(&e), "cannot save the replay: out.replay: Is a directory (os error 21)");
        let plain = anyhow::anyhow!("inner").context("outer");
        assert_eq!(super::error_text(&plain), "outer: inner");
    }
}
