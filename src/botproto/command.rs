//! A bot command as the user writes it: `exec:CMD` on the command line (split like a shell splits
//! words, without expansions), or a list of words in `config.toml`'s `[bots]`; and the time limits
//! it plays under.

use std::time::Duration;

use super::message::TimeLimits;

/// The prefix that marks a bot given as a command rather than a built-in bot's name.
pub const EXEC_PREFIX: &str = "exec:";

/// The time a bot has when nothing else is said: a second per move, five to start and to read the rules.
pub const DEFAULT_LIMITS: TimeLimits = TimeLimits { move_ms: 1_000, ready_ms: 5_000 };

/// A bot to run as a child process.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BotCommand {
    /// The program and its arguments.
    pub argv: Vec<String>,
    /// The time it has.
    pub limits: TimeLimits,
}

impl BotCommand {
    /// A command from its words.
    pub fn new(argv: Vec<String>) -> Result<BotCommand, String> {
        if argv.first().is_none_or(|p| p.is_empty()) {
            return Err("the bot command is empty (expected e.g. exec:python3 examples/bots/simple.py)".into());
        }
        Ok(BotCommand { argv, limits: DEFAULT_LIMITS })
    }

    /// The command of a bot spec `exec:CMD`; `None` when `spec` names a built-in bot.
    pub fn from_spec(spec: &str) -> Option<Result<BotCommand, String>> {
        let cmd = spec.strip_prefix(EXEC_PREFIX)?;
        Some(split_words(cmd).and_then(BotCommand::new).map_err(|e| format!("{spec:?}: {e}")))
    }

    /// The spec that gives this command back (`exec:` and the words, quoted where they need it).
    pub fn to_spec(&self) -> String {
        format!("{EXEC_PREFIX}{}", self.display())
    }

    /// The command as a shell would read it back.
    pub fn display(&self) -> String {
        self.argv.iter().map(|w| quote(w)).collect::<Vec<_>>().join(" ")
    }

    /// How long a move may take.
    pub fn move_limit(&self) -> Duration {
        Duration::from_millis(self.limits.move_ms)
    }

    /// How long the start and the rules may take.
    pub fn ready_limit(&self) -> Duration {
        Duration::from_millis(self.limits.ready_ms)
    }
}

/// A `[bots]` entry: a bot's name or `exec:CMD` as a string, or a command as a list of words (made into
/// the `exec:` spec that gives it back).
pub fn name_or_words<'de, D: serde::Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    #[derive(serde::Deserialize)]
    #[serde(untagged)]
    enum Entry {
        Name(String),
        Words(Vec<String>),
    }
    match <Entry as serde::Deserialize>::deserialize(d)? {
        Entry::Name(name) => Ok(name),
        Entry::Words(words) => BotCommand::new(words).map(|c| c.to_spec()).map_err(serde::de::Error::custom),
    }
}

/// `word` quoted for a shell when it holds anything but plain characters.
fn quote(word: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "-_./:=+,@%".contains(c);
    if !word.is_empty() && word.chars().all(plain) {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

/// Splits `text` into words as a POSIX shell does for a simple command: blanks separate words, single
/// quotes keep everything, double quotes keep everything but `\"` and `\\`, a backslash outside quotes
/// keeps the next character. No variables, globs or redirections.
pub fn split_words(text: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut word: Option<String> = None;
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            c if c.is_whitespace() => words.extend(word.take()),
            '\'' => {
                let w = word.get_or_insert_with(String::new);
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => w.push(c),
                        None => return Err("a single quote is not closed".into()),
                    }
                }
            }
            '"' => {
                let w = word.get_or_insert_with(String::new);
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(c @ ('"' | '\\')) => w.push(c),
                            Some(c) => {
                                w.push('\\');
                                w.push(c);
                            }
                            None => return Err("a double quote is not closed".into()),
                        },
                        Some(c) => w.push(c),
                        None => return Err("a double quote is not closed".into()),
                    }
                }
            }
            '\\' => match chars.next() {
                Some(c) => word.get_or_insert_with(String::new).push(c),
                None => return Err("a backslash ends the command".into()),
            },
            c => word.get_or_insert_with(String::new).push(c),
        }
    }
    words.extend(word);
    Ok(words)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_split_like_a_shell_and_quote_back() {
        let words = split_words(r#"python3  "my bots/a.py" --x='1 2' a\ b """#).expect("splits");
        assert_eq!(words, ["python3", "my bots/a.py", "--x=1 2", "a b", ""]);
        let c = BotCommand::new(words.clone()).expect("a command");
        assert_eq!(split_words(&c.display()).expect("splits back"), words);
        assert!(split_words("a 'b").is_err());
        assert!(split_words("a \"b").is_err());
    }

    #[test]
    fn a_spec_is_a_command_only_with_the_prefix() {
        assert_eq!(BotCommand::from_spec("chain"), None);
        let c = BotCommand::from_spec("exec:puyobot bot --strength 3").expect("exec").expect("valid");
        assert_eq!(c.argv, ["puyobot", "bot", "--strength", "3"]);
        assert_eq!(BotCommand::from_spec(&c.to_spec()), Some(Ok(c)));
        assert!(BotCommand::from_spec("exec:").expect("exec").is_err());
        assert!(BotCommand::from_spec("exec:  ").expect("exec").is_err());
    }
}

#[cfg(test)]
mod config_tests {
    #[derive(serde::Deserialize)]
    struct Bots {
        #[serde(deserialize_with = "super::name_or_words")]
        p1: String,
    }

    #[test]
    fn a_config_entry_is_a_name_or_a_command_as_a_list() {
        let b: Bots = toml::from_str("p1 = \"chain\"").expect("a name");
        assert_eq!(b.p1, "chain");
        let b: Bots = toml::from_str("p1 = [\"python3\", \"my bots/simple.py\"]").expect("a list");
        assert_eq!(b.p1, "exec:python3 'my bots/simple.py'");
        assert!(toml::from_str::<Bots>("p1 = []").is_err());
    }
}
