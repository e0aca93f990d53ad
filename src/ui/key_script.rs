//! Scripted key events for the window: the same key presses a person makes, delivered on given frames.
//!
//! The window feeds each scripted event to its own key handler, exactly where a key event from the
//! window system goes (bindings, pad bits, hot keys), so a test can play through the window's input
//! path deterministically: `--key-script FILE` of `puyobot play`, `puyobot record` and `puyobot replay` in a
//! window (reproducible demos, bug reports, the window tests).
//!
//! The file has one event per line, `FRAME KEY down|up`, e.g. `120 Enter down`: the event is delivered
//! before frame `FRAME + 1` is emulated (frame 0 = before the first frame). `KEY` is a key name as in the
//! `[keys]` table. Blank lines and text after `#` are ignored; frames must not decrease.

use std::path::Path;

use thiserror::Error;
use winit::keyboard::KeyCode;

use super::keys::parse_key_name;

/// One scripted key event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScriptedKey {
    /// Frames emulated before the event is delivered.
    pub frame: u64,
    /// The physical key.
    pub code: KeyCode,
    /// Pressed (`down`) or released (`up`).
    pub pressed: bool,
}

/// A key script: events in frame order, consumed as the window emulates.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct KeyScript {
    events: Vec<ScriptedKey>,
    next: usize,
}

/// A key script that cannot be read; names the file and the line.
#[derive(Debug, Error)]
pub enum KeyScriptError {
    /// The file could not be read.
    #[error("key script {path}: {source}")]
    Read {
        /// The file.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// A line is not `FRAME KEY down|up`.
    #[error("key script {path}, line {line}: {what} (expected `FRAME KEY down|up`, e.g. `120 Enter down`)")]
    Line {
        /// The file.
        path: String,
        /// 1-based line number.
        line: usize,
        /// What is wrong.
        what: String,
    },
}

impl KeyScript {
    /// Reads and parses a script file.
    pub fn from_file(path: &Path) -> Result<KeyScript, KeyScriptError> {
        let name = path.display().to_string();
        let text =
            std::fs::read_to_string(path).map_err(|source| KeyScriptError::Read { path: name.clone(), source })?;
        KeyScript::parse(&text, &name)
    }

    /// Parses a script; `path` names it in errors.
    pub fn parse(text: &str, path: &str) -> Result<KeyScript, KeyScriptError> {
        let mut events = Vec::new();
        for (i, raw) in text.lines().enumerate() {
            let fail = |what: String| KeyScriptError::Line { path: path.to_string(), line: i + 1, what };
            let line = raw.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let parts: Vec<&str> = line.split_whitespace().collect();
            let [frame, key, state] = parts[..] else {
                return Err(fail(format!("{} fields", parts.len())));
            };
            let frame: u64 = frame.parse().map_err(|_| fail(format!("frame `{frame}` is not a number")))?;
            let code = parse_key_name(key).ok_or_else(|| fail(format!("unknown key name `{key}`")))?;
            let pressed = match state.to_ascii_lowercase().as_str() {
                "down" => true,
                "up" => false,
                other => return Err(fail(format!("`{other}` is neither down nor up"))),
            };
            if events.last().is_some_and(|e: &ScriptedKey| e.frame > frame) {
                return Err(fail(format!("frame {frame} comes after a later frame")));
            }
            events.push(ScriptedKey { frame, code, pressed });
        }
        Ok(KeyScript { events, next: 0 })
    }

    /// The events due once `frames` frames have been emulated (each is returned once).
    pub fn due(&mut self, frames: u64) -> &[ScriptedKey] {
        let start = self.next;
        while self.next < self.events.len() && self.events[self.next].frame <= frames {
            self.next += 1;
        }
        &self.events[start..self.next]
    }

    /// Number of events in the script.
    pub fn len(&self) -> usize {
        self.events.len()
    }

    /// True for a script with no events.
    pub fn is_empty(&self) -> bool {
        self.events.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_come_out_once_in_frame_order() {
        let mut s =
            KeyScript::parse("# title\n0 Enter down\n2 enter up # release\n\n5 X down\n5 ArrowLeft down\n", "t")
                .expect("valid");
        assert_eq!(s.len(), 4);
        assert_eq!(s.due(0), [ScriptedKey { frame: 0, code: KeyCode::Enter, pressed: true }]);
        assert!(s.due(1).is_empty());
        assert_eq!(s.due(4).len(), 1);
        let both: Vec<KeyCode> = s.due(9).iter().map(|e| e.code).collect();
        assert_eq!(both, [KeyCode::KeyX, KeyCode::ArrowLeft]);
        assert!(s.due(100).is_empty());
    }

    #[test]
    fn bad_lines_name_the_file_and_line() {
        let err = |t: &str| KeyScript::parse(t, "keys.txt").expect_err("invalid").to_string();
        assert!(err("1 Enter down\nx Enter down").contains("keys.txt, line 2: frame `x` is not a number"));
        assert!(err("1 Hyper down").contains("line 1: unknown key name `Hyper`"));
        assert!(err("1 Enter sideways").contains("`sideways` is neither down nor up"));
        assert!(err("1 Enter").contains("2 fields"));
        assert!(err("5 A down\n4 A up").contains("line 2: frame 4 comes after a later frame"));
        let missing = KeyScript::from_file(Path::new("/nonexistent/keys.txt")).expect_err("missing");
        assert!(missing.to_string().contains("/nonexistent/keys.txt"));
    }
}
