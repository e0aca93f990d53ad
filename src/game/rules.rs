//! The rules table: every number and switch the model uses, in one place.
//!
//! The defaults are the **arcade Puyo Puyo (1991) scoring rule, assumed for the Famicom cartridge**: the
//! cartridge's own formula is undocumented (docs/cartridge.md §5), so these are a best guess that the player checks
//! against RAM. Item semantics follow the original bot's write-up (one line); the details are guesses too.

use serde::{Deserialize, Serialize};

use super::piece::MAX_COLORS;
use super::{HEIGHT, Orientation, WIDTH};

/// Chain power by chain step (1-based: index 0 is the first step); steps beyond the table use the last entry.
pub const PUYO1_CHAIN_POWER: [u32; 9] = [0, 8, 16, 32, 64, 128, 256, 512, 999];
/// Colour bonus by the number of distinct colours popped in one step (index 0 = one colour).
pub const PUYO1_COLOR_BONUS: [u32; 5] = [0, 3, 6, 12, 24];
/// Group bonus by group size (index 0 = 4 puyos, last entry = 11 or more).
pub const PUYO1_GROUP_BONUS: [u32; 8] = [0, 2, 3, 4, 5, 6, 7, 10];

/// How the special items behave. Guesses from the original bot's write-up, kept here so they can be changed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ItemRules {
    /// Every `interval`-th piece of a player is an item when items are enabled (0 = never).
    pub interval: u32,
    /// Big Puyo clears every puyo (colours and nuisance, hidden row included) in its two columns.
    pub big_puyo_clears_nuisance: bool,
    /// Carbuncle recolours nuisance it touches as well as colours.
    pub carbuncle_recolors_nuisance: bool,
    /// Each model colour's rank in Carbuncle's tie-break (with no colour below it, the touched colour of
    /// lowest rank wins): the order of the cartridge's colour codes, so a code table learned in another
    /// order than the codes run still picks the colour the game picks. Identity by default.
    pub carbuncle_rank: [u8; MAX_COLORS],
}

impl Default for ItemRules {
    fn default() -> Self {
        ItemRules {
            interval: 16,
            big_puyo_clears_nuisance: true,
            carbuncle_recolors_nuisance: false,
            carbuncle_rank: [0, 1, 2, 3, 4, 5],
        }
    }
}

impl ItemRules {
    /// Carbuncle's ranks for the colour codes `codes` (model colour order): lowest code first; colours
    /// without a code keep their place after them.
    pub fn ranks_by_code(codes: &[u8]) -> [u8; MAX_COLORS] {
        let mut order: Vec<usize> = (0..MAX_COLORS).collect();
        order.sort_by_key(|&c| (codes.get(c).is_none(), codes.get(c).copied(), c));
        let mut rank = [0u8; MAX_COLORS];
        for (r, &c) in order.iter().enumerate() {
            rank[c] = r as u8;
        }
        rank
    }
}

/// What happens to a nuisance puyo that finds its column full when it falls.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NuisanceOverflow {
    /// It is lost (the guess the model has always made).
    #[default]
    Vanish,
    /// It stays queued and falls with a later drop (Compile's later games).
    Requeue,
}

impl NuisanceOverflow {
    /// The word used in flags, config files and reports.
    pub fn name(self) -> &'static str {
        match self {
            NuisanceOverflow::Vanish => "vanish",
            NuisanceOverflow::Requeue => "requeue",
        }
    }
}

/// Everything the model needs to know about the game's rules.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Rules {
    /// Chain power by step; the last entry repeats.
    pub chain_power: Vec<u32>,
    /// Colour bonus by number of colours popped in one step; the last entry repeats.
    pub color_bonus: Vec<u32>,
    /// Group bonus by group size from 4; the last entry covers larger groups.
    pub group_bonus: Vec<u32>,
    /// Smallest group that pops.
    pub pop_size: u32,
    /// Whether puyos in the hidden row (row 0) can be part of a popping group.
    pub hidden_row_pops: bool,
    /// Points per nuisance puyo sent.
    pub nuisance_rate: u32,
    /// Most nuisance one chain can send (the cartridge's LIMIT option); `None`: no cap, as in the arcade game.
    pub nuisance_cap_per_chain: Option<u32>,
    /// Most nuisance that falls on a field at once.
    pub nuisance_max_drop: u32,
    /// What happens to a nuisance puyo that finds its column full when it falls.
    pub nuisance_overflow: NuisanceOverflow,
    /// Spawn column, 1-based.
    pub spawn_x: u8,
    /// Spawn row of the pivot (0 = hidden row).
    pub spawn_y: u8,
    /// The direction of the child from the pivot when a pair spawns (up on the arcade rule; a cartridge
    /// may differ, and calibration learns it). A child spawning in a visible row makes its cell a
    /// second death cell.
    pub spawn_orientation: Orientation,
    /// Special items.
    pub items: ItemRules,
}

impl Default for Rules {
    fn default() -> Self {
        Rules::puyo1()
    }
}

impl Rules {
    /// The arcade Puyo Puyo 1 rule, assumed for the cartridge.
    pub fn puyo1() -> Rules {
        Rules {
            chain_power: PUYO1_CHAIN_POWER.to_vec(),
            color_bonus: PUYO1_COLOR_BONUS.to_vec(),
            group_bonus: PUYO1_GROUP_BONUS.to_vec(),
            pop_size: 4,
            hidden_row_pops: false,
            nuisance_rate: 70,
            nuisance_cap_per_chain: Some(30),
            nuisance_max_drop: 30,
            nuisance_overflow: NuisanceOverflow::Vanish,
            spawn_x: 3,
            spawn_y: 1,
            spawn_orientation: Orientation::Up,
            items: ItemRules::default(),
        }
    }

    /// The cells whose filling ends the game: the pivot's spawn cell, and the child's when the pair
    /// spawns with its child in a visible row (sideways or down). Columns 1-based, rows from 0 (hidden).
    pub fn death_cells(&self) -> [Option<(usize, usize)>; 2] {
        let (x, y) = (self.spawn_x as i64, self.spawn_y as i64);
        let o = self.spawn_orientation;
        let (cx, cy) = (x + o.dx() as i64, y + o.dy() as i64);
        let child = ((1..=WIDTH as i64).contains(&cx) && (1..HEIGHT as i64).contains(&cy))
            .then_some((cx as usize, cy as usize));
        [Some((x as usize, y as usize)), child]
    }

    /// Whether column `x` (1-based) holds a death cell.
    pub fn is_death_column(&self, x: usize) -> bool {
        self.death_cells().iter().flatten().any(|&(dx, _)| dx == x)
    }

    /// The tallest column `x` may stand while its death cells stay empty (13 where it has none: the
    /// hidden row is above).
    pub fn safe_height(&self, x: usize) -> usize {
        self.death_cells()
            .iter()
            .flatten()
            .filter(|&&(dx, _)| dx == x)
            .map(|&(_, y)| HEIGHT - 1 - y)
            .min()
            .unwrap_or(HEIGHT - 1)
    }

    /// The lowest row (largest y) a spawning pair occupies: the spawn row, or the child's when it spawns
    /// below the pivot. A column next to the spawn column that stands this high walls the pair in.
    pub fn spawn_bottom_row(&self) -> usize {
        self.death_cells().iter().flatten().map(|&(_, y)| y).max().unwrap_or(self.spawn_y as usize)
    }

    /// Checks the table is usable: non-empty bonus tables, a pop size of at least 2, a non-zero rate,
    /// a spawn cell inside the visible field. Returns the name of the first bad key and why.
    pub fn validate(&self) -> Result<(), (&'static str, String)> {
        if self.chain_power.is_empty() {
            return Err(("chain_power", "needs at least one entry".into()));
        }
        if self.color_bonus.is_empty() {
            return Err(("color_bonus", "needs at least one entry".into()));
        }
        if self.group_bonus.is_empty() {
            return Err(("group_bonus", "needs at least one entry".into()));
        }
        if !(2..=72).contains(&self.pop_size) {
            return Err(("pop_size", format!("must be 2..=72, got {}", self.pop_size)));
        }
        if self.nuisance_rate == 0 {
            return Err(("nuisance_rate", "must be at least 1".into()));
        }
        if self.nuisance_cap_per_chain == Some(0) {
            return Err(("nuisance_cap_per_chain", "must be at least 1 (leave it out for no cap)".into()));
        }
        if self.nuisance_max_drop == 0 {
            return Err(("nuisance_max_drop", "must be at least 1".into()));
        }
        if !(1..=6).contains(&self.spawn_x) {
            return Err(("spawn_x", format!("must be 1..=6, got {}", self.spawn_x)));
        }
        if !(1..=13).contains(&self.spawn_y) {
            return Err(("spawn_y", format!("must be 1..=13, got {}", self.spawn_y)));
        }
        Ok(())
    }

    /// The nuisance one chain may send at most (`u32::MAX` with no cap).
    pub fn nuisance_cap(&self) -> u32 {
        self.nuisance_cap_per_chain.unwrap_or(u32::MAX)
    }

    /// Chain power of the `step`-th step (1-based).
    pub fn chain_power(&self, step: u32) -> u32 {
        table_at(&self.chain_power, step.saturating_sub(1) as usize)
    }

    /// Colour bonus for `colors` distinct colours in one step (1..).
    pub fn color_bonus(&self, colors: u32) -> u32 {
        table_at(&self.color_bonus, colors.saturating_sub(1) as usize)
    }

    /// Group bonus for one group of `size` puyos.
    pub fn group_bonus(&self, size: u32) -> u32 {
        table_at(&self.group_bonus, size.saturating_sub(self.pop_size) as usize)
    }

    /// Score of one step: `10 × popped × clamp(power + colour bonus + group bonus, 1, 999)`.
    pub fn step_score(&self, step: u32, popped: u32, colors: u32, group_bonus_sum: u32) -> u32 {
        let multiplier = (self.chain_power(step) + self.color_bonus(colors) + group_bonus_sum).clamp(1, 999);
        10 * popped * multiplier
    }
}

fn table_at(table: &[u32], index: usize) -> u32 {
    table.get(index).or(table.last()).copied().unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chain_power_follows_the_puyo1_table_and_saturates() {
        let r = Rules::puyo1();
        assert_eq!(r.chain_power(1), 0);
        assert_eq!(r.chain_power(2), 8);
        assert_eq!(r.chain_power(5), 64);
        assert_eq!(r.chain_power(9), 999);
        assert_eq!(r.chain_power(19), 999);
    }

    #[test]
    fn group_bonus_starts_at_pop_size_and_caps_at_eleven() {
        let r = Rules::puyo1();
        assert_eq!(r.group_bonus(4), 0);
        assert_eq!(r.group_bonus(5), 2);
        assert_eq!(r.group_bonus(10), 7);
        assert_eq!(r.group_bonus(11), 10);
        assert_eq!(r.group_bonus(30), 10);
    }

    #[test]
    fn step_score_multiplier_is_at_least_one_and_at_most_999() {
        let r = Rules::puyo1();
        // A lone 4-group at step 1: multiplier 0 clamps to 1.
        assert_eq!(r.step_score(1, 4, 1, 0), 40);
        // Step 2, one colour, 4 puyos: 10*4*8.
        assert_eq!(r.step_score(2, 4, 1, 0), 320);
        // Two colours in one step add the colour bonus 3.
        assert_eq!(r.step_score(2, 8, 2, 0), 10 * 8 * 11);
        // Huge multipliers clamp to 999.
        assert_eq!(r.step_score(12, 4, 5, 40), 10 * 4 * 999);
    }

    #[test]
    fn validate_names_the_bad_key() {
        let mut r = Rules::puyo1();
        assert!(r.validate().is_ok());
        r.spawn_x = 9;
        assert_eq!(r.validate().unwrap_err().0, "spawn_x");
        let mut r = Rules::puyo1();
        r.chain_power.clear();
        assert_eq!(r.validate().unwrap_err().0, "chain_power");
    }

    #[test]
    fn the_spawn_orientation_decides_the_death_cells() {
        use crate::game::{Cell, Color, Field};
        let mut r = Rules::puyo1();
        assert_eq!(r.death_cells(), [Some((3, 1)), None], "a child spawning in the hidden row is no death cell");
        assert_eq!((r.safe_height(3), r.safe_height(4), r.spawn_bottom_row()), (12, 13, 1));
        let mut f = Field::new();
        f.set(4, 1, Cell::Color(Color::ALL[0]));
        assert!(!f.is_game_over(&r));
        r.spawn_orientation = Orientation::Right;
        assert_eq!(r.death_cells(), [Some((3, 1)), Some((4, 1))]);
        assert!(f.is_game_over(&r), "the child's spawn cell is taken");
        r.spawn_orientation = Orientation::Down;
        assert_eq!((r.safe_height(3), r.spawn_bottom_row()), (11, 2));
        assert!(!f.is_game_over(&r));
        f.set(3, 2, Cell::Nuisance);
        assert!(f.is_game_over(&r));
    }
}
