//! Bot speed 0..=10 → input timing. 10 is the fastest the game accepts (an input on every frame it reacts
//! to, full soft drop); 0 is slow and human-paced. The table is documented in `config.toml`.

/// The fastest speed setting (the slowest is 0): the last row of the table, and the range every flag and
/// configuration key of the bot speed accepts.
pub const MAX_SPEED: u8 = 10;

/// How the driver paces its button presses at one speed setting.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SpeedProfile {
    /// The speed setting, 0..=10.
    pub speed: u8,
    /// Frames from the piece becoming controllable (and the decision being ready) to the first input.
    pub reaction: u32,
    /// Least frames from one press to the next.
    pub gap: u32,
    /// Frames each press is held.
    pub hold: u32,
    /// Soft drop: Down is held on this many frames out of every 4 once the piece is in place (0 = let it
    /// fall by gravity, 4 = hold Down all the way).
    pub soft_drop: u32,
    /// Frames after the hold to wait for the game to show a press in RAM: a press still without its effect
    /// `hold + patience` frames after it was made counts as refused (the driver holds it down until then).
    pub patience: u32,
}

/// (reaction, gap, hold, soft drop out of 4) for speeds 0..=10.
const TABLE: [(u32, u32, u32, u32); MAX_SPEED as usize + 1] = [
    (40, 24, 3, 0),
    (32, 20, 3, 0),
    (26, 16, 2, 0),
    (20, 12, 2, 1),
    (16, 10, 2, 1),
    (12, 8, 1, 2),
    (8, 6, 1, 2),
    (5, 4, 1, 3),
    (3, 3, 1, 4),
    (1, 2, 1, 4),
    (0, 1, 1, 4),
];

impl SpeedProfile {
    /// The profile of a speed setting; values above 10 count as 10.
    pub fn new(speed: u8) -> SpeedProfile {
        let speed = speed.min(MAX_SPEED);
        let (reaction, gap, hold, soft_drop) = TABLE[speed as usize];
        SpeedProfile { speed, reaction, gap, hold, soft_drop, patience: 5 }
    }

    /// Whether Down is held on frame `n` of the drop phase.
    pub fn drop_on(&self, n: u32) -> bool {
        n % 4 < self.soft_drop
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn faster_settings_never_wait_longer() {
        for s in 1..=10u8 {
            let (a, b) = (SpeedProfile::new(s - 1), SpeedProfile::new(s));
            assert!(b.reaction <= a.reaction && b.gap <= a.gap && b.hold <= a.hold && b.soft_drop >= a.soft_drop);
        }
        let top = SpeedProfile::new(10);
        assert_eq!((top.reaction, top.gap, top.hold, top.soft_drop), (0, 1, 1, 4));
        assert!((0..8).all(|n| top.drop_on(n)));
        assert!((0..8).all(|n| !SpeedProfile::new(0).drop_on(n)));
        assert_eq!(SpeedProfile::new(200).speed, 10);
    }

    /// `config.toml` documents this table in a comment; the comment must say what the code does.
    #[test]
    fn the_table_in_config_toml_is_this_table() {
        let text = include_str!("../../config.toml");
        let rows: Vec<[u32; 5]> = text
            .lines()
            .filter_map(|line| {
                let nums: Vec<u32> =
                    line.strip_prefix('#')?.split_whitespace().take(5).map_while(|w| w.parse().ok()).collect();
                <[u32; 5]>::try_from(nums).ok()
            })
            .collect();
        let want: Vec<[u32; 5]> = (0..=10u8)
            .map(|s| {
                let p = SpeedProfile::new(s);
                [u32::from(s), p.reaction, p.gap, p.hold, p.soft_drop]
            })
            .collect();
        assert_eq!(rows, want, "config.toml's speed table differs from driver::speed::TABLE");
    }
}
