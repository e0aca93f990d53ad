//! The typed form of an address file (`addresses/*.toml`): where each value lives in RAM, how it is
//! coded, and where that knowledge comes from.
//!
//! Every table carries `source` (who says so) and `verified` (checked against a real run or not).

use serde::{Deserialize, Serialize};

/// One whole address file: the RAM map of one cartridge in one mode.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AddressFile {
    /// What this file describes.
    pub meta: Meta,
    /// Cell and piece codes.
    pub codes: Codes,
    /// Values of the orientation byte.
    pub orientation: OrientationCodes,
    /// How the pair moves: which puyo X/Y follow, which way A turns, kicks. Absent: the defaults
    /// ([`Movement::default`]), which is what every file meant before the table existed.
    #[serde(default)]
    pub movement: Movement,
    /// When bytes become valid after a spawn. Absent: at once ([`Timing::default`]).
    #[serde(default, skip_serializing_if = "Timing::is_default")]
    pub timing: Timing,
    /// Values that belong to no player.
    #[serde(default)]
    pub global: Globals,
    /// One table per player, player 1 first.
    pub player: Vec<PlayerMap>,
    /// How to get from power-on to this mode.
    pub menu: Menu,
    /// How to get from a game over to the next game of the same mode (matches of several games).
    /// Absent: the session stops at game over (or leaves the next game to the person).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub restart: Option<Menu>,
    /// Where the game's options live on its menus (for `--items`). Absent: not known.
    #[serde(default, skip_serializing_if = "GameOptions::is_empty")]
    pub options: GameOptions,
}

/// The game's options the menu scripts can set.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GameOptions {
    /// The items option (Big Puyo / Carbuncle).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub items: Option<ItemsOption>,
    /// The number of colours.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub colors: Option<ColorsOption>,
    /// The 2P per-chain nuisance cap (rule 0: no cap).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nuisance_cap: Option<RuleOption>,
    /// The most nuisance falling at once.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nuisance_drop: Option<RuleOption>,
    /// Points per nuisance.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nuisance_points: Option<RuleOption>,
    /// What nuisance that does not fit does (rule 0: vanish, 1: requeue).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nuisance_overflow: Option<RuleOption>,
}

/// Where a 2P rule's option is: its byte, the rules the game offers and the byte's value for each, and how
/// to reach its line on the options screen.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RuleOption {
    /// The RAM byte that holds the option.
    pub addr: u16,
    /// The rule's numbers the game offers (the cap's 0 is none; overflow's 0 vanish, 1 requeue).
    pub rules: Vec<u32>,
    /// The byte's value for each of `rules`.
    pub values: Vec<u8>,
    /// Down presses from the cursor's place when the mode is chosen to the option's line.
    #[serde(default)]
    pub line: u8,
    /// Buttons that change the option (default RIGHT).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub buttons: Option<Vec<String>>,
    /// Where this comes from.
    pub source: String,
    /// Whether it has been checked.
    pub verified: bool,
}

impl GameOptions {
    /// True when no option is known.
    pub fn is_empty(&self) -> bool {
        self.items.is_none()
            && self.colors.is_none()
            && self.nuisance_cap.is_none()
            && self.nuisance_drop.is_none()
            && self.nuisance_points.is_none()
            && self.nuisance_overflow.is_none()
    }
}

/// Where the number-of-colours option is: its byte, its values, and how to reach its line.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ColorsOption {
    /// The RAM byte that holds the option.
    pub addr: u16,
    /// The numbers of colours the game offers, and the byte's value for each (same order).
    pub counts: Vec<u8>,
    /// The byte's value for each of `counts`.
    pub values: Vec<u8>,
    /// Down presses from the cursor's place when the mode is chosen to the option's line.
    #[serde(default)]
    pub line: u8,
    /// Buttons that change the option (default RIGHT).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub buttons: Option<Vec<String>>,
    /// Where this comes from.
    pub source: String,
    /// Whether it has been checked.
    pub verified: bool,
}

/// Where the items option is: its byte, its values, and how to reach its line on the options screen.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ItemsOption {
    /// The RAM byte that holds the option.
    pub addr: u16,
    /// Its value with items off.
    pub off: u8,
    /// Its value with Big Puyo.
    pub big_puyo: u8,
    /// Its value with Carbuncle.
    pub carbuncle: u8,
    /// Down presses from the cursor's place when the mode is chosen to the option's line.
    #[serde(default)]
    pub line: u8,
    /// Buttons that change the option (tried in turn while they move the byte; default RIGHT).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub buttons: Option<Vec<String>>,
    /// Where this comes from.
    pub source: String,
    /// Whether it has been checked.
    pub verified: bool,
}

/// Description of an address file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Meta {
    /// Human-readable name, e.g. "Puyo Puyo (J), 1P Endless".
    pub name: String,
    /// Where the addresses come from.
    pub source: String,
    /// Whether the whole file has been checked against the cartridge.
    pub verified: bool,
    /// Free-form notes.
    #[serde(default)]
    pub notes: String,
}

/// One RAM byte.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Entry {
    /// CPU address, `$0000..=$07FF`.
    pub addr: u16,
    /// Where this comes from.
    pub source: String,
    /// Whether it has been checked.
    pub verified: bool,
}

/// Where a playfield lives and how its cells are laid out.
///
/// The colour byte of cell (x 1..=6, y 0..=13) is at `base + row_stride*y + cell_stride*x + color_offset`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FieldLayout {
    /// Address of row 0, column 0 (the left wall).
    pub base: u16,
    /// Bytes per row.
    pub row_stride: u16,
    /// Bytes per cell.
    pub cell_stride: u16,
    /// Offset of the colour byte within a cell.
    pub color_offset: u16,
    /// Where this comes from.
    pub source: String,
    /// Whether it has been checked.
    pub verified: bool,
}

impl FieldLayout {
    /// Address of the colour byte of cell (x, y), as a wide integer (no overflow on odd layouts).
    pub fn cell_addr(&self, x: usize, y: usize) -> usize {
        self.base as usize + self.row_stride as usize * y + self.cell_stride as usize * x + self.color_offset as usize
    }
}

/// Where a field is drawn: the NES pixel of the top-left of cell (x, y) is
/// `(left + cell*x, top + cell*y)`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScreenLayout {
    /// Pixel x of column 0 (the left wall).
    pub left: i32,
    /// Pixel y of row 0 (the hidden row).
    pub top: i32,
    /// Cell size in pixels.
    pub cell: i32,
    /// Where this comes from.
    pub source: String,
    /// Whether it has been checked.
    pub verified: bool,
}

/// A score counter.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScoreEntry {
    /// Address of the lowest byte.
    pub addr: u16,
    /// Number of bytes, little-endian binary (1..=4).
    pub bytes: u8,
    /// What one unit of the counter is worth in points (10 when the game keeps score ÷ 10).
    pub multiplier: u32,
    /// Where this comes from.
    pub source: String,
    /// Whether it has been checked.
    pub verified: bool,
}

/// The codes found in field cells and in the current / next piece bytes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Codes {
    /// An empty cell.
    pub empty: u8,
    /// The colour codes, in model colour order (the first maps to model colour 0, and so on).
    pub colors: Vec<u8>,
    /// A nuisance puyo.
    pub nuisance: u8,
    /// The wall cells at x = 0 and x = 7.
    pub wall: u8,
    /// Big Puyo (both piece bytes hold it).
    pub big_puyo: u8,
    /// Carbuncle (both piece bytes hold it).
    pub carbuncle: u8,
    /// The current / next piece codes of the colours, when the piece bytes use other codes than the
    /// field: `piece_colors[i]` is the piece code of field colour `colors[i]`. Absent: the same codes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub piece_colors: Option<Vec<u8>>,
    /// The next pair's bytes when they use another code table than the current pair: each entry is
    /// `[next code, piece code]`, one-to-one. Absent: the next bytes hold piece codes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_codes: Option<Vec<[u8; 2]>>,
    /// The bits of a field cell's colour byte that carry its code; the others (link bits towards
    /// same-colour neighbours, animation) are ignored. Absent: all eight.
    #[serde(default = "all_bits", skip_serializing_if = "is_all_bits")]
    pub color_mask: u8,
    /// Where this comes from.
    pub source: String,
    /// Whether it has been checked.
    pub verified: bool,
}

/// What each value of the orientation byte means: the direction from pivot to child.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OrientationCodes {
    /// Child above the pivot (the spawn orientation).
    pub up: u8,
    /// Child right of the pivot.
    pub right: u8,
    /// Child below the pivot.
    pub down: u8,
    /// Child left of the pivot.
    pub left: u8,
    /// Where this comes from.
    pub source: String,
    /// Whether it has been checked.
    pub verified: bool,
}

/// Which puyo of a falling pair the X / Y bytes follow.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum XyTracks {
    /// The pivot (the puyo in the "current pivot" byte, which the child turns around).
    #[default]
    Pivot,
    /// The child (the other puyo).
    Child,
}

impl XyTracks {
    /// The name used in files and reports.
    pub fn name(self) -> &'static str {
        match self {
            XyTracks::Pivot => "pivot",
            XyTracks::Child => "child",
        }
    }
}

/// A turning direction, seen from above the field as drawn on screen.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Turn {
    /// Up → right → down → left.
    #[default]
    Clockwise,
    /// Up → left → down → right.
    Counterclockwise,
}

impl Turn {
    /// The name used in files and reports.
    pub fn name(self) -> &'static str {
        match self {
            Turn::Clockwise => "clockwise",
            Turn::Counterclockwise => "counterclockwise",
        }
    }

    /// The other way round.
    pub fn reverse(self) -> Turn {
        match self {
            Turn::Clockwise => Turn::Counterclockwise,
            Turn::Counterclockwise => Turn::Clockwise,
        }
    }
}

/// How the falling pair moves in RAM and under the buttons.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Movement {
    /// Which puyo the X / Y bytes follow (`"pivot"` or `"child"`).
    #[serde(default)]
    pub xy_tracks: XyTracks,
    /// Which way button A turns the pair (`"clockwise"` or `"counterclockwise"`); B turns the other way.
    #[serde(default)]
    pub a_rotates: Turn,
    /// A rotation whose target cell is blocked sideways pushes the pivot one column away.
    #[serde(default = "yes")]
    pub kick_sideways: bool,
    /// A rotation to "down" that is blocked below lifts the pivot one row.
    #[serde(default = "yes")]
    pub kick_up: bool,
    /// The direction of the child from the pivot when a pair spawns (`"up"`, `"right"`, `"down"`,
    /// `"left"`); absent: up.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spawn: Option<crate::game::Orientation>,
    /// The X byte's value in the field's first column (the X byte holds column − 1 + `x_base`).
    #[serde(default = "one")]
    pub x_base: u8,
    /// The Y byte's value in the field's top row 0 (the Y byte holds row + `y_base`).
    #[serde(default)]
    pub y_base: u8,
    /// Where this comes from.
    pub source: String,
    /// Whether it has been checked.
    pub verified: bool,
}

fn all_bits() -> u8 {
    0xFF
}

fn is_all_bits(v: &u8) -> bool {
    *v == 0xFF
}

fn yes() -> bool {
    true
}

fn one() -> u8 {
    1
}

impl Default for Movement {
    fn default() -> Movement {
        Movement {
            xy_tracks: XyTracks::Pivot,
            a_rotates: Turn::Clockwise,
            kick_sideways: true,
            kick_up: true,
            spawn: None,
            x_base: 1,
            y_base: 0,
            source: "not in the file: the default (X/Y follow the pivot, A turns clockwise, kicks sideways and up)"
                .into(),
            verified: false,
        }
    }
}

/// When a cartridge's bytes become valid after a spawn, in frames after the pair first answers presses.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Timing {
    /// Frames the next pair's bytes keep showing the pair that just spawned (a slide animation) before
    /// they show the new next pair. The bot is asked after them.
    #[serde(default)]
    pub next_lag: u32,
    /// Frames after the spawn-delay timer reaches 0 during which the X / Y / orientation and current-pair
    /// bytes still show the previous piece (the game ignores the pad until they are written). The pair is
    /// controllable from the frame after.
    #[serde(default)]
    pub pose_lag: u32,
    /// What marks a lock: `"timer"` (the spawn-delay timer turns non-zero) or `"field"` (the timer may stay
    /// 0 while the lock resolves; the lock is the field gaining two or more cells, or the timer).
    #[serde(default)]
    pub lock_signal: LockSignal,
    /// Frames per row of gravity calibration measured on the first player (its fastest piece): a record for
    /// people. Nothing reads it to play: the game's clock is measured again every piece.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frames_per_row: Option<u16>,
    /// Frames per row with Down held, as measured (a record, like `frames_per_row`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub soft_drop: Option<u16>,
    /// Frames from landing to the lock (0: none), as measured (a record).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lock_delay: Option<u16>,
    /// Frames from a press to its effect beyond the frame it is held in, as measured (a record).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_lag: Option<u16>,
    /// Where this comes from.
    #[serde(default = "timing_source")]
    pub source: String,
    /// Whether it has been checked.
    #[serde(default)]
    pub verified: bool,
}

/// What tells the end of a piece's control (`[timing] lock_signal`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LockSignal {
    /// The spawn-delay timer turns non-zero at the lock and stays so until the next piece.
    #[default]
    Timer,
    /// The timer may stay 0 while the lock resolves: a lock is also the field gaining two or more cells.
    Field,
}

impl LockSignal {
    /// The name in address files.
    pub fn name(self) -> &'static str {
        match self {
            LockSignal::Timer => "timer",
            LockSignal::Field => "field",
        }
    }
}

fn timing_source() -> String {
    "not in the file: the default (the next pair's bytes are valid at the spawn)".into()
}

impl Default for Timing {
    fn default() -> Timing {
        Timing {
            next_lag: 0,
            pose_lag: 0,
            lock_signal: LockSignal::Timer,
            frames_per_row: None,
            soft_drop: None,
            lock_delay: None,
            input_lag: None,
            source: timing_source(),
            verified: false,
        }
    }
}

impl Timing {
    /// True for the default (nothing to write in a file).
    pub fn is_default(&self) -> bool {
        *self == Timing::default()
    }
}

/// Values that belong to no player.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Globals {
    /// The selected mode byte.
    pub mode: Option<Entry>,
    /// 1 on any spawn frame.
    pub spawn_any: Option<Entry>,
}

/// The RAM of one player.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlayerMap {
    /// Short label for reports ("P1").
    pub label: String,
    /// Which pad controls this player (1 or 2).
    pub pad: u8,
    /// Where the field is on screen, when known (for the HUD's ghost of the planned placement).
    pub screen: Option<ScreenLayout>,
    /// The playfield.
    pub field: FieldLayout,
    /// Current piece, pivot ("bottom") colour.
    pub current_pivot: Entry,
    /// Current piece, child ("top") colour.
    pub current_child: Entry,
    /// Next piece, pivot colour.
    pub next_pivot: Entry,
    /// Next piece, child colour.
    pub next_child: Entry,
    /// Column of the pivot, 1..=6.
    pub x: Entry,
    /// Row of the pivot, 0..=13.
    pub y: Entry,
    /// Orientation byte (values in `[orientation]`).
    pub orientation: Entry,
    /// Non-zero on the frame this player's piece spawns.
    pub spawn_flag: Entry,
    /// Non-zero whenever no piece is controllable.
    pub spawn_delay: Entry,
    /// Gravity timer.
    pub drop_timer: Entry,
    /// Score counter, when known.
    pub score: Option<ScoreEntry>,
    /// Nuisance waiting to fall on this player, when known (2P). Without it the session predicts it
    /// with the rules model from the opponent's chains.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pending_nuisance: Option<CounterEntry>,
}

/// A little-endian binary counter in RAM.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CounterEntry {
    /// Address of the lowest byte.
    pub addr: u16,
    /// Number of bytes (1..=4).
    pub bytes: u8,
    /// Where this comes from.
    pub source: String,
    /// Whether it has been checked.
    pub verified: bool,
}

/// How to walk the menus from power-on to the game.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Menu {
    /// Where this comes from.
    pub source: String,
    /// Whether it has been checked.
    pub verified: bool,
    /// The steps, in order.
    pub steps: Vec<MenuStep>,
    /// Frames to wait, after the script, for a controllable piece before giving up.
    #[serde(default = "default_ready_timeout")]
    pub ready_timeout: u32,
}

fn default_ready_timeout() -> u32 {
    1800
}

/// One menu action. Exactly one of `wait`, `press`, `wait_until`, `seek`, `start_play`, `seed_wait` is
/// given.
///
/// `seek` and `start_play` are closed-loop steps for menus nobody has checked: they watch RAM instead of
/// trusting a fixed sequence of presses.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MenuStep {
    /// Do nothing for this many frames.
    pub wait: Option<u32>,
    /// Hold these buttons (names: A B SELECT START UP DOWN LEFT RIGHT) ...
    pub press: Option<Vec<String>>,
    /// ... for this many frames (default 2), then release them for as many.
    pub frames: Option<u32>,
    /// On this pad (default 1).
    pub pad: Option<u8>,
    /// Wait until a RAM byte holds a value.
    pub wait_until: Option<Condition>,
    /// Most frames `wait_until` may take (default 600).
    pub timeout: Option<u32>,
    /// Move a menu cursor until a RAM byte holds a value: each of `buttons` is tried in turn (pressed up
    /// to `presses` times while it changes the byte, undone with the opposite direction when it does not).
    pub seek: Option<Condition>,
    /// Press these buttons until a pair falls (the game has started): checked every `gap` frames,
    /// pressed at most `presses` times. Nothing is pressed if a pair falls first.
    pub start_play: Option<Vec<String>>,
    /// Wait a number of frames drawn from the run's seed and the game's number, 0 up to this many: put
    /// before the Start that begins a game, it changes the deal of a cartridge whose random numbers
    /// advance every frame. Without a seed (a session nobody gave one) it waits 0 frames.
    pub seed_wait: Option<u32>,
    /// Buttons a `seek` step tries, in order (default DOWN, RIGHT, UP, LEFT).
    pub buttons: Option<Vec<String>>,
    /// Most presses of one button in a `seek` step, or in all of a `start_play` step (default 4).
    pub presses: Option<u32>,
    /// Frames between the presses of a `seek` or `start_play` step (default 12 and 90).
    pub gap: Option<u32>,
    /// A note for people reading the file.
    pub note: Option<String>,
}

/// A RAM byte compared with a value.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Condition {
    /// CPU address, `$0000..=$07FF`.
    pub addr: u16,
    /// The value to wait for.
    pub equals: u8,
}
