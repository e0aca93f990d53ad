//! What a trace's header says about the run it recorded, so that `puyobot replay` can run it again: the
//! seed, the limits, the merged configuration, who pressed the pads and whether it ran in a window.
//!
//! These are metadata keys (`docs/trace-format.md`), so a trace written before they existed still reads;
//! it only lacks what a replay needs to run the bots again.

use super::format::{TraceError, TraceHeader};

/// Where a recorded run played.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RunPlace {
    /// Headless, as fast as the machine goes: with bots on the pads, the same seed and configuration give
    /// the same pads again.
    Headless,
    /// In a window: the bots think against the clock and a person may press keys, so only the pads in the
    /// file can be played again.
    Window,
}

impl RunPlace {
    /// The header value: `headless` or `window`.
    pub fn name(self) -> &'static str {
        match self {
            RunPlace::Headless => "headless",
            RunPlace::Window => "window",
        }
    }
}

/// The run a trace recorded, as far as its header tells.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunInfo {
    /// The run's seed (bots, pad faults, menu script).
    pub seed: u64,
    /// `--frames` of the run, if given.
    pub frames: Option<u64>,
    /// `--pieces` of the run, if given.
    pub pieces: Option<u32>,
    /// `--games` of the run, if given (a trace holds one power-on, so at most 1).
    pub games: Option<u32>,
    /// The merged configuration of the run, as TOML.
    pub config: String,
    /// Headless or in a window.
    pub place: RunPlace,
    /// Who pressed the pads: `bot` or `keyboard`.
    pub players: String,
}

impl RunInfo {
    /// Writes the run's keys into `header`: `seed`, `frames`, `pieces`, `games` (those given), `config`
    /// (escaped, see [`TraceHeader::set_text`]), `run` and `players`.
    pub fn write_to(&self, header: &mut TraceHeader) {
        header.set("seed", &self.seed.to_string());
        for (key, value) in [
            ("frames", self.frames.map(|n| n.to_string())),
            ("pieces", self.pieces.map(|n| n.to_string())),
            ("games", self.games.map(|n| n.to_string())),
        ] {
            match value {
                Some(v) => header.set(key, &v),
                None => {
                    header.meta.remove(key);
                }
            }
        }
        header.set_text("config", &self.config);
        header.set("run", self.place.name());
        header.set("players", &self.players);
    }

    /// Reads the run's keys from the header of `file`. `Ok(None)` when the header has no `config` (a trace
    /// written before replays read traces); an error naming the key when one is malformed.
    pub fn from_header(file: &str, header: &TraceHeader) -> Result<Option<RunInfo>, TraceError> {
        let bad = |key: &str, what: String| TraceError::Corrupt {
            file: file.to_string(),
            offset: 14,
            what: format!("header key `{key}`: {what}"),
        };
        let config = match header.get_text("config") {
            None => return Ok(None),
            Some(Ok(c)) => c,
            Some(Err(e)) => return Err(bad("config", e)),
        };
        fn number<T: std::str::FromStr>(
            header: &TraceHeader,
            key: &str,
            bad: &dyn Fn(&str, String) -> TraceError,
        ) -> Result<Option<T>, TraceError> {
            match header.get(key) {
                None => Ok(None),
                Some(v) => v.parse().map(Some).map_err(|_| bad(key, format!("{v:?}, expected a whole number"))),
            }
        }
        let seed =
            number(header, "seed", &bad)?.ok_or_else(|| bad("seed", "missing, expected the run's seed".into()))?;
        let place = match header.get("run") {
            Some("headless") => RunPlace::Headless,
            Some("window") => RunPlace::Window,
            Some(other) => return Err(bad("run", format!("{other:?}, expected headless or window"))),
            None => return Err(bad("run", "missing, expected headless or window".into())),
        };
        Ok(Some(RunInfo {
            seed,
            frames: number(header, "frames", &bad)?,
            pieces: number(header, "pieces", &bad)?,
            games: number(header, "games", &bad)?,
            config,
            place,
            players: header.get("players").unwrap_or("bot").to_string(),
        }))
    }

    /// Whether running the configuration again reproduces the pads: a headless run of the bots.
    pub fn reruns(&self) -> bool {
        self.place == RunPlace::Headless && self.players == "bot"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info() -> RunInfo {
        RunInfo {
            seed: 9,
            frames: None,
            pieces: Some(40),
            games: None,
            config: "[play]\nseed = 9\nrom = \"a = b.nes\"\n".into(),
            place: RunPlace::Headless,
            players: "bot".into(),
        }
    }

    #[test]
    fn the_run_round_trips_through_the_header_bytes() {
        let mut h = TraceHeader::for_rom(&crate::emu::rom::labcart().unwrap());
        info().write_to(&mut h);
        let back = TraceHeader::decode("t", 14, &h.encode()).unwrap();
        assert_eq!(RunInfo::from_header("t", &back).unwrap(), Some(info()));
        assert!(info().reruns());
        let window = RunInfo { place: RunPlace::Window, ..info() };
        assert!(!window.reruns());
        assert!(!RunInfo { players: "keyboard".into(), ..info() }.reruns());
    }

    #[test]
    fn an_old_header_has_no_run_and_bad_keys_are_named() {
        let mut h = TraceHeader::for_rom(&crate::emu::rom::labcart().unwrap());
        h.set("seed", "3");
        assert_eq!(RunInfo::from_header("old.trace", &h).unwrap(), None);
        info().write_to(&mut h);
        h.set("pieces", "forty");
        let e = RunInfo::from_header("x.trace", &h).unwrap_err().to_string();
        assert!(e.starts_with("x.trace:") && e.contains("`pieces`") && e.contains("\"forty\""), "{e}");
        info().write_to(&mut h);
        h.set("run", "tv");
        let e = RunInfo::from_header("x.trace", &h).unwrap_err().to_string();
        assert!(e.contains("`run`") && e.contains("headless or window"), "{e}");
    }
}
