//! Shards: deterministic slices of a run's games, so a batch scheduler can spread one run over many
//! processes or machines and the slices merge back into the run.
//!
//! Shard `I/N` takes the games whose offset from the run's first game is `I` modulo `N` (round robin, so
//! slow and fast games spread evenly). Game `g` always draws from `game_rng(seed, g)`, so a game plays
//! the same whichever shard runs it.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// Slice `index` of `count` (0-based), written `I/N`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct Shard {
    /// This slice, `0..count`.
    pub index: usize,
    /// Number of slices.
    pub count: usize,
}

impl Shard {
    /// The whole run as one slice.
    pub const WHOLE: Shard = Shard { index: 0, count: 1 };

    /// True when the game at `offset` from the run's first game belongs to this slice.
    pub fn selects(&self, offset: usize) -> bool {
        offset % self.count == self.index
    }

    /// The offsets of this slice among `0..games`.
    pub fn offsets(&self, games: usize) -> impl Iterator<Item = usize> + use<> {
        (self.index..games).step_by(self.count)
    }

    /// True for the whole run.
    pub fn is_whole(&self) -> bool {
        self.count == 1
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

impl FromStr for Shard {
    type Err = String;
    fn from_str(s: &str) -> Result<Shard, String> {
        let bad = || format!("shard {s:?}: expected I/N with 0 <= I < N, e.g. 0/4");
        let (i, n) = s.split_once('/').ok_or_else(bad)?;
        let index: usize = i.trim().parse().map_err(|_| bad())?;
        let count: usize = n.trim().parse().map_err(|_| bad())?;
        if count == 0 || index >= count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }
}

impl TryFrom<String> for Shard {
    type Error = String;
    fn try_from(s: String) -> Result<Shard, String> {
        s.parse()
    }
}

impl From<Shard> for String {
    fn from(s: Shard) -> String {
        s.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_partition_the_games() {
        let n = 3;
        let mut seen = [0; 10];
        for i in 0..n {
            for o in (Shard { index: i, count: n }).offsets(10) {
                seen[o] += 1;
            }
        }
        assert!(seen.iter().all(|&c| c == 1));
        assert_eq!("2/5".parse::<Shard>(), Ok(Shard { index: 2, count: 5 }));
        for bad in ["5/5", "1/0", "x/2", "3", "-1/2"] {
            assert!(bad.parse::<Shard>().is_err(), "{bad}");
        }
    }
}
