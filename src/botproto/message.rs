//! The protocol's messages as Rust types, one JSON object per line, told apart by their `type` field.
//! Unknown fields are ignored (serde's default), so a later minor addition does not break an older peer;
//! [`crate::botproto::VERSION`] changes when a message changes meaning.

use serde::{Deserialize, Serialize};

use crate::game::{ItemRules, MAX_COLORS, MoveRules, NuisanceOverflow, Orientation, Placement, Rules};

/// A message from the front end (the game) to the bot.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum FrontMessage {
    /// The game's rules and the time limits; the bot answers `ready` (or `error`).
    Rules(RulesMessage),
    /// The whole state of a game; sent at a game's start and again whenever the state changed in a way
    /// the bot cannot predict (nuisance fell, the opponent moved, a piece locked off its placement).
    Start(Box<StartMessage>),
    /// Asks for moves for the current piece; the bot answers `suggestion`.
    Suggest,
    /// The current piece locked at `move`: the bot applies it, the next piece becomes current.
    Play(PlayMessage),
    /// The piece dealt after the (new) current one: it becomes the next piece.
    NewPiece(NewPieceMessage),
    /// The game ended; a `start` begins the next one.
    Stop,
    /// The bot exits.
    Quit,
}

/// A message from the bot to the front end.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum BotMessage {
    /// The bot's first line: who it is and which protocol version it speaks.
    Info(InfoMessage),
    /// The bot accepted `rules` and waits for `start`.
    Ready,
    /// Moves for the current piece, most preferred first.
    Suggestion(SuggestionMessage),
    /// The bot refuses (an unsupported version, rules it cannot play); the front end stops with it.
    Error(ErrorMessage),
}

/// `info`: the bot's name, version, author and protocol version.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct InfoMessage {
    /// The bot's name, shown on the HUD and in reports.
    pub name: String,
    /// The bot's own version.
    #[serde(default)]
    pub version: String,
    /// Who wrote it.
    #[serde(default)]
    pub author: String,
    /// The protocol version it speaks.
    pub protocol: u32,
}

/// `error`: why the bot refuses.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ErrorMessage {
    /// The reason, in words.
    pub message: String,
}

/// `rules`: everything about the game the bot may use.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RulesMessage {
    /// The protocol version the front end speaks.
    pub version: u32,
    /// Columns (6).
    pub width: u8,
    /// Rows, the hidden row included (14); row 0 is the hidden row, the last the floor's.
    pub height: u8,
    /// Colours the pairs are dealt from, when the front end knows it.
    #[serde(default)]
    pub colors: Option<u8>,
    /// Smallest group that pops, and whether the hidden row takes part.
    pub pop_size: u32,
    /// Whether puyos in the hidden row can be part of a popping group.
    #[serde(default)]
    pub hidden_row_pops: bool,
    /// The scoring tables.
    pub scoring: Scoring,
    /// How chains turn into nuisance and how nuisance falls.
    pub nuisance: NuisanceRules,
    /// Where pairs appear.
    pub spawn: Spawn,
    /// How a falling pair moves (kicks, the highest usable row) and, when the game has a clock the
    /// front end knows, how fast it falls.
    pub movement: Movement,
    /// Items (Big Puyo, Carbuncle): when they come and what they do.
    pub items: ItemsRules,
    /// The time the bot has.
    pub time: TimeLimits,
}

/// The scoring tables (each entry by chain step, colour count or group size; the last entry repeats).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Scoring {
    /// Chain power by step, from the first.
    pub chain_power: Vec<u32>,
    /// Colour bonus by colours popped in one step, from one.
    pub color_bonus: Vec<u32>,
    /// Group bonus by group size, from `pop_size`.
    pub group_bonus: Vec<u32>,
}

/// The nuisance rules.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NuisanceRules {
    /// Points per nuisance puyo sent.
    pub rate: u32,
    /// Most nuisance one chain sends (`null`: no cap).
    pub cap_per_chain: Option<u32>,
    /// Most nuisance that falls at once.
    pub max_drop: u32,
    /// What a nuisance puyo that finds its column full does: `vanish` or `requeue`.
    pub overflow: NuisanceOverflow,
}

/// Where a pair spawns.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Spawn {
    /// The pivot's column, 1-based.
    pub x: u8,
    /// The pivot's row (0 = hidden row).
    pub y: u8,
    /// Where the child is at spawn.
    pub orientation: Orientation,
}

/// How a falling pair moves: the model's movement contract (`game::MoveRules`) and its clock.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Movement {
    /// A turn to the right or left blocked at the child's cell shifts the pivot one column away.
    pub kick_sideways: bool,
    /// A turn to down blocked below lifts the pivot one row.
    pub kick_up: bool,
    /// The highest row a pair may use (0: the hidden row).
    pub top_row: u8,
    /// Frames per row of gravity at this piece, when the game has a clock the front end knows (`null`:
    /// the pair waits while it is moved, as in the simulator without a clock).
    #[serde(default)]
    pub frames_per_row: Option<u16>,
    /// Frames a press takes (held and released), when known.
    #[serde(default)]
    pub press_frames: Option<u16>,
}

/// Items: every `interval`-th piece is one when the game deals them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ItemsRules {
    /// Whether the game deals items at all (when the front end knows; `null`: it may).
    #[serde(default)]
    pub enabled: Option<bool>,
    /// Every `interval`-th piece is an item when items are on.
    pub interval: u32,
    /// Big Puyo clears nuisance in its two columns too.
    pub big_puyo_clears_nuisance: bool,
    /// Carbuncle recolours nuisance it touches.
    pub carbuncle_recolors_nuisance: bool,
    /// Each colour's rank in Carbuncle's tie-break (index: colour R G B Y P L).
    pub carbuncle_rank: Vec<u8>,
}

/// The time limits, in milliseconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TimeLimits {
    /// From `suggest` to the `suggestion`.
    pub move_ms: u64,
    /// From the start of the process to `info`, and from `rules` to `ready`.
    pub ready_ms: u64,
}

/// `start`: one game's whole state.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StartMessage {
    /// The bot's own field: 14 rows of 6 characters, row 0 (hidden) first (`.` empty, `RGBYPL` colours,
    /// `O` nuisance), as field files write it.
    pub field: Vec<String>,
    /// The piece to place: `RG` (pivot then child), `BIG` or `CAR`.
    pub current: String,
    /// The piece after it.
    pub next: String,
    /// Nuisance waiting to fall on the bot after this piece.
    #[serde(default)]
    pub nuisance: u32,
    /// The opponent, in a battle.
    #[serde(default)]
    pub opponent: Option<OpponentState>,
    /// Pieces the bot has placed in this game.
    #[serde(default)]
    pub pieces_played: u32,
    /// Pieces still to come after `current` when the game has a fixed length (`null`: it runs on).
    #[serde(default)]
    pub pieces_left: Option<u32>,
    /// The link to the game drops or invents presses now and then: keep more room.
    #[serde(default)]
    pub caution: bool,
    /// A seed for the bot's own randomness in this game (the same seed and states give the same moves).
    #[serde(default)]
    pub seed: Option<u64>,
}

/// The opponent's side of a `start`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OpponentState {
    /// The opponent's field, as `field`.
    pub field: Vec<String>,
    /// Nuisance waiting to fall on the opponent.
    #[serde(default)]
    pub nuisance: u32,
    /// Nuisance the opponent's running chain will still send to the bot.
    #[serde(default)]
    pub incoming: u32,
}

/// `suggestion`: moves, most preferred first.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SuggestionMessage {
    /// The moves; the front end plays the first one it can reach.
    pub moves: Vec<Move>,
    /// What the bot means to do, in a few words (shown on the HUD).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub intent: Option<String>,
}

/// `play`: where the current piece locked.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlayMessage {
    /// The placement it locked at.
    #[serde(rename = "move")]
    pub placement: Move,
    /// Its index in the last `suggestion`, when it was one of them.
    #[serde(default)]
    pub index: Option<usize>,
}

/// `new_piece`: the piece dealt after the current one.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NewPieceMessage {
    /// The piece, as `start` writes pieces.
    pub piece: String,
}

/// A placement: the pivot's column (1-based) and where the child is. A Big Puyo's `x` is its left
/// column; a Carbuncle's is its column; both use `up`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Move {
    /// The pivot's column, 1..=6.
    pub x: u8,
    /// The child's direction from the pivot.
    pub orientation: Orientation,
}

impl From<Placement> for Move {
    fn from(p: Placement) -> Move {
        Move { x: p.x, orientation: p.orientation }
    }
}

impl From<Move> for Placement {
    fn from(m: Move) -> Placement {
        Placement::new(m.x, m.orientation)
    }
}

impl RulesMessage {
    /// The `rules` message for `rules`, the movement `moves` and the time limits `time`.
    pub fn new(rules: &Rules, moves: MoveRules, colors: Option<u8>, time: TimeLimits) -> RulesMessage {
        RulesMessage {
            version: super::VERSION,
            width: crate::game::WIDTH as u8,
            height: crate::game::HEIGHT as u8,
            colors,
            pop_size: rules.pop_size,
            hidden_row_pops: rules.hidden_row_pops,
            scoring: Scoring {
                chain_power: rules.chain_power.clone(),
                color_bonus: rules.color_bonus.clone(),
                group_bonus: rules.group_bonus.clone(),
            },
            nuisance: NuisanceRules {
                rate: rules.nuisance_rate,
                cap_per_chain: rules.nuisance_cap_per_chain,
                max_drop: rules.nuisance_max_drop,
                overflow: rules.nuisance_overflow,
            },
            spawn: Spawn { x: rules.spawn_x, y: rules.spawn_y, orientation: rules.spawn_orientation },
            movement: Movement {
                kick_sideways: moves.kick_sideways,
                kick_up: moves.kick_up,
                top_row: moves.top_row,
                frames_per_row: moves.timing.map(|t| t.frames_per_row),
                press_frames: moves.timing.map(|t| t.press_frames),
            },
            items: ItemsRules {
                enabled: None,
                interval: rules.items.interval,
                big_puyo_clears_nuisance: rules.items.big_puyo_clears_nuisance,
                carbuncle_recolors_nuisance: rules.items.carbuncle_recolors_nuisance,
                carbuncle_rank: rules.items.carbuncle_rank.to_vec(),
            },
            time,
        }
    }

    /// The movement contract of this message (without a clock: the bot is told the gravity only).
    pub fn move_rules(&self) -> MoveRules {
        MoveRules {
            kick_sideways: self.movement.kick_sideways,
            kick_up: self.movement.kick_up,
            top_row: self.movement.top_row,
            timing: None,
        }
    }

    /// The model's rules table from this message, checked: the first bad key and why.
    pub fn game_rules(&self) -> Result<Rules, String> {
        if usize::from(self.width) != crate::game::WIDTH || usize::from(self.height) != crate::game::HEIGHT {
            return Err(format!(
                "a {}×{} field is not supported (only {}×{})",
                self.width,
                self.height,
                crate::game::WIDTH,
                crate::game::HEIGHT
            ));
        }
        let rules = Rules {
            chain_power: self.scoring.chain_power.clone(),
            color_bonus: self.scoring.color_bonus.clone(),
            group_bonus: self.scoring.group_bonus.clone(),
            pop_size: self.pop_size,
            hidden_row_pops: self.hidden_row_pops,
            nuisance_rate: self.nuisance.rate,
            nuisance_cap_per_chain: self.nuisance.cap_per_chain,
            nuisance_max_drop: self.nuisance.max_drop,
            nuisance_overflow: self.nuisance.overflow,
            spawn_x: self.spawn.x,
            spawn_y: self.spawn.y,
            spawn_orientation: self.spawn.orientation,
            items: ItemRules {
                interval: self.items.interval,
                big_puyo_clears_nuisance: self.items.big_puyo_clears_nuisance,
                carbuncle_recolors_nuisance: self.items.carbuncle_recolors_nuisance,
                carbuncle_rank: self
                    .items
                    .carbuncle_rank
                    .as_slice()
                    .try_into()
                    .map_err(|_| format!("rules: items.carbuncle_rank needs {MAX_COLORS} entries"))?,
            },
        };
        rules.validate().map_err(|(key, why)| format!("rules: {key} {why}"))?;
        Ok(rules)
    }
}
