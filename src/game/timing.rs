//! The game's clock as it bears on a falling piece: gravity (frames per row, possibly rising with the
//! level), the soft drop, the lock delay, and what a press costs (its frames, the game's input lag).
//! [`crate::game::movegen`] uses a [`Timing`] to keep only the placements whose presses are done before
//! the pair locks. Pure arithmetic on frame counts: frame 0 is the frame the piece is handed to the
//! player (its spawn, or the frame a re-plan starts from).

use std::fmt;
use std::str::FromStr;

/// What happens when a falling piece cannot fall further.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LockDelay {
    /// It locks on the frame it cannot fall further: no press counts once it is there.
    None,
    /// It locks `frames` frames after it got there; `moves`: whether moves and turns still work while
    /// it waits (one moved off a ledge falls again and waits anew when it lands).
    Frames {
        /// Frames from the frame it got there to its lock.
        frames: u16,
        /// Moves and turns work while it waits.
        moves: bool,
    },
}

impl LockDelay {
    /// Frames after the arrival during which a press still takes effect (0 when none does).
    pub fn window(self) -> u32 {
        match self {
            LockDelay::None | LockDelay::Frames { moves: false, .. } => 0,
            LockDelay::Frames { frames, moves: true } => frames as u32,
        }
    }
}

/// Gravity that speeds up with the level: `start` frames per row at level 0, `step` fewer per level,
/// never below `min`; the level rises by one every `pieces_per_level` pieces (0: it never rises).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GravityCurve {
    /// Frames per row at level 0.
    pub start: u16,
    /// Frames per row taken off per level.
    pub step: u16,
    /// The fastest gravity, in frames per row (at least 1).
    pub min: u16,
    /// Pieces per level (0: the level stays 0).
    pub pieces_per_level: u32,
}

impl GravityCurve {
    /// The same gravity for every piece.
    pub fn constant(frames_per_row: u16) -> GravityCurve {
        GravityCurve { start: frames_per_row.max(1), step: 0, min: frames_per_row.max(1), pieces_per_level: 0 }
    }

    /// The level of the piece with 0-based index `piece` in its game: pieces `0..pieces_per_level` are
    /// level 0, and so on.
    pub fn level(&self, piece: u32) -> u32 {
        piece.checked_div(self.pieces_per_level).unwrap_or(0)
    }

    /// Frames per row of gravity for the piece with 0-based index `piece`.
    pub fn frames_per_row(&self, piece: u32) -> u16 {
        let drop = (self.step as u32).saturating_mul(self.level(piece));
        (self.start as u32).saturating_sub(drop).max(self.min.max(1) as u32) as u16
    }
}

impl fmt::Display for GravityCurve {
    /// The form [`GravityCurve::from_str`] reads: `START:STEP:MIN:PIECES`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}:{}", self.start, self.step, self.min, self.pieces_per_level)
    }
}

impl FromStr for GravityCurve {
    type Err = String;

    /// `START:STEP:MIN:PIECES`, e.g. `30:2:2:16`: 30 frames per row at level 0, 2 fewer per level, never
    /// below 2, a level every 16 pieces.
    fn from_str(text: &str) -> Result<GravityCurve, String> {
        let parts: Vec<&str> = text.split(':').collect();
        let [start, step, min, pieces] = parts[..] else {
            return Err(format!("expected START:STEP:MIN:PIECES (e.g. 30:2:2:16), got '{text}'"));
        };
        let num = |name: &str, s: &str| -> Result<u32, String> {
            s.trim().parse::<u32>().map_err(|_| format!("{name} in '{text}' must be a whole number, got '{s}'"))
        };
        let (start, step, min, pieces) =
            (num("START", start)?, num("STEP", step)?, num("MIN", min)?, num("PIECES", pieces)?);
        if !(1..=255).contains(&start) || !(1..=start).contains(&min) || step > 255 {
            return Err(format!("'{text}': needs 1 <= MIN <= START <= 255 and STEP <= 255"));
        }
        Ok(GravityCurve { start: start as u16, step: step as u16, min: min as u16, pieces_per_level: pieces })
    }
}

/// The timing facts of one falling piece, and what one press costs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Timing {
    /// Frames per row of gravity (at least 1).
    pub frames_per_row: u16,
    /// Frames from frame 0 to the first one-row fall (the drop timer's value; at a spawn, the gravity).
    pub first_fall: u16,
    /// Frames per row with Down held (the driver's drop after the presses).
    pub soft_drop: u16,
    /// What happens once the piece cannot fall further.
    pub lock: LockDelay,
    /// Frames one press costs: held, then released until the next may start (hold + gap).
    pub press_frames: u16,
    /// Frames from a press to its effect in the game.
    pub input_lag: u16,
    /// Frames kept in hand: a press counts as done this much later than planned (gravity and the lock
    /// are judged then).
    pub margin: u16,
}

impl Timing {
    /// A piece just spawned, falling one row every `frames_per_row` frames, with the open test
    /// cartridge's other timing (soft drop 2, a 16-frame lock delay that allows moves) and the bot's
    /// fastest presses (held 1 frame, released 1, no lag), kept 2 frames in hand.
    pub fn spawned(frames_per_row: u16) -> Timing {
        let fpr = frames_per_row.max(1);
        Timing {
            frames_per_row: fpr,
            first_fall: fpr,
            soft_drop: 2.min(fpr),
            lock: LockDelay::Frames { frames: 16, moves: true },
            press_frames: 2,
            input_lag: 0,
            margin: 2,
        }
    }

    /// The frames one press costs at a driver pace of `hold` frames held and `gap` frames between presses.
    pub fn press_cost(hold: u32, gap: u32) -> u16 {
        (hold + gap).clamp(1, u16::MAX as u32) as u16
    }

    /// The frame by which press `i` (0-based) of a path has taken effect: the end of its slot plus the
    /// input lag.
    pub fn press_done(&self, i: u32) -> u32 {
        self.input_lag as u32 + (i + 1) * self.press_frames.max(1) as u32
    }

    /// How many one-row falls gravity has made by frame `t` (if nothing stopped the piece).
    pub fn rows_by(&self, t: u32) -> u32 {
        let first = self.first_fall.max(1) as u32;
        if t < first { 0 } else { 1 + (t - first) / self.frames_per_row.max(1) as u32 }
    }

    /// The frame of the `k`-th one-row fall (1-based).
    pub fn fall_frame(&self, k: u32) -> u32 {
        self.first_fall.max(1) as u32 + (k.max(1) - 1) * self.frames_per_row.max(1) as u32
    }

    /// Frames the driver's soft drop takes for `rows` rows.
    pub fn drop_frames(&self, rows: u32) -> u32 {
        rows * self.soft_drop.max(1) as u32
    }

    /// True when a press done by frame `t` still takes effect on a piece that could not fall further
    /// since frame `landed` (`None`: it can still fall): before the lock, with the margin.
    pub fn in_time(&self, t: u32, landed: Option<u32>) -> bool {
        landed.is_none_or(|l| t + (self.margin as u32) < l + self.lock.window())
    }
}

impl fmt::Display for Timing {
    /// The form [`Timing::from_str`] reads (the piece's gravity, soft drop, lock and lag; the press cost
    /// and the margin are the player's, not the game's, and are left out).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "fall={},soft={},lock=", self.frames_per_row, self.soft_drop)?;
        match self.lock {
            LockDelay::None => f.write_str("none")?,
            LockDelay::Frames { frames, moves: true } => write!(f, "{frames}")?,
            LockDelay::Frames { frames, moves: false } => write!(f, "{frames}:still")?,
        }
        write!(f, ",lag={}", self.input_lag)
    }
}

impl FromStr for Timing {
    type Err = String;

    /// `fall=F,soft=S,lock=L,lag=G`, each key optional (the rest as [`Timing::spawned`]`(30)`): F frames
    /// per row of gravity, S with Down held, L the lock delay in frames (`none`: it locks on the frame it
    /// lands; `16:still`: 16 frames during which moves and turns do nothing), G frames from a press to
    /// its effect. E.g. `fall=4,lock=none,lag=3`.
    fn from_str(text: &str) -> Result<Timing, String> {
        let mut t = Timing::spawned(30);
        let mut soft = None;
        for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let Some((key, value)) = part.split_once('=') else {
                return Err(format!("timing `{part}`: expected key=value (keys: fall, soft, lock, lag)"));
            };
            let (key, value) = (key.trim(), value.trim());
            let frames = |v: &str, range: std::ops::RangeInclusive<u16>| -> Result<u16, String> {
                match v.parse::<u16>() {
                    Ok(n) if range.contains(&n) => Ok(n),
                    _ => Err(format!(
                        "timing `{key}`: expected a whole number of frames from {} to {}, found `{v}`",
                        range.start(),
                        range.end()
                    )),
                }
            };
            match key {
                "fall" => t.frames_per_row = frames(value, 1..=255)?,
                "soft" => soft = Some(frames(value, 1..=255)?),
                "lag" => t.input_lag = frames(value, 0..=60)?,
                "lock" => {
                    t.lock = if value.eq_ignore_ascii_case("none") {
                        LockDelay::None
                    } else {
                        let (n, moves) = match value.split_once(':') {
                            Some((n, "still")) => (n, false),
                            Some((_, other)) => {
                                return Err(format!("timing `lock`: expected N or N:still, found `:{other}`"));
                            }
                            None => (value, true),
                        };
                        LockDelay::Frames { frames: frames(n, 0..=255)?, moves }
                    }
                }
                _ => return Err(format!("timing `{key}`: unknown key (expected fall, soft, lock or lag)")),
            }
        }
        t.first_fall = t.frames_per_row;
        t.soft_drop = soft.unwrap_or(2).min(t.frames_per_row);
        Ok(t)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_curve_speeds_up_by_level_down_to_its_floor() {
        let c: GravityCurve = "30:4:6:10".parse().unwrap();
        let got: Vec<u16> = [0, 9, 10, 19, 20, 30, 60, 1000].iter().map(|&p| c.frames_per_row(p)).collect();
        assert_eq!(got, vec![30, 30, 26, 26, 22, 18, 6, 6]);
        assert_eq!(c.level(25), 2);
        assert_eq!(c.to_string(), "30:4:6:10");
        assert_eq!(GravityCurve::constant(8).frames_per_row(500), 8);
        assert_eq!("12:1:2:0".parse::<GravityCurve>().unwrap().frames_per_row(99), 12, "no levels: level 0");
        for bad in ["30:2:2", "30:2:40:16", "0:0:0:1", "a:1:1:1"] {
            assert!(bad.parse::<GravityCurve>().is_err(), "{bad} refused");
        }
    }

    #[test]
    fn presses_falls_and_the_lock_window_count_frames() {
        let t = Timing { input_lag: 1, ..Timing::spawned(4) };
        assert_eq!((t.press_done(0), t.press_done(2)), (3, 7));
        assert_eq!((t.rows_by(3), t.rows_by(4), t.rows_by(7), t.rows_by(8)), (0, 1, 1, 2));
        assert_eq!((t.fall_frame(1), t.fall_frame(3)), (4, 12));
        assert_eq!(t.drop_frames(5), 10);
        // 16 frames of lock delay with moves, 2 in hand: a press by frame l + 13 counts, by l + 14 not
        assert!(t.in_time(100, None) && t.in_time(63, Some(50)) && !t.in_time(64, Some(50)));
        let none = Timing { lock: LockDelay::None, ..t };
        assert!(none.in_time(47, Some(50)) && !none.in_time(48, Some(50)));
        let still = Timing { lock: LockDelay::Frames { frames: 16, moves: false }, ..t };
        assert_eq!(still.lock.window(), 0);
        assert_eq!(Timing::press_cost(1, 1), 2);
    }

    #[test]
    fn a_timing_reads_from_its_text_and_prints_back() {
        let t: Timing = "fall=4,lock=none,lag=3".parse().unwrap();
        assert_eq!((t.frames_per_row, t.first_fall, t.soft_drop, t.lock, t.input_lag), (4, 4, 2, LockDelay::None, 3));
        assert_eq!(t.to_string(), "fall=4,soft=2,lock=none,lag=3");
        let still: Timing = "lock=8:still, soft=1".parse().unwrap();
        assert_eq!((still.frames_per_row, still.lock), (30, LockDelay::Frames { frames: 8, moves: false }));
        assert_eq!(still.to_string().parse::<Timing>().unwrap(), still);
        assert_eq!("".parse::<Timing>().unwrap(), Timing::spawned(30));
        for bad in ["fall=0", "fall", "lock=8:go", "lag=x", "speed=3"] {
            assert!(bad.parse::<Timing>().is_err(), "{bad} refused");
        }
    }
}
