//! The interface between a game loop and whoever decides where pieces go (a bot, a script, a person at
//! the emulator): what a player sees ([`View`]), what it answers ([`Decision`]) and the [`Player`] trait.
//! It sits in the model layer beside the movement model, so the self-play loops, the bots and the
//! emulator's driver all share it without depending on one another.

use std::time::Instant;

use super::{ChainSummary, Field, InputPath, MoveRules, Piece, Placement, Rules};

/// What a player sees when it must place a piece. The Famicom shows the current and one next piece.
#[derive(Clone, Copy, Debug)]
pub struct View<'a> {
    /// The player's own field (settled).
    pub field: &'a Field,
    /// The piece to place now.
    pub current: Piece,
    /// The piece after it.
    pub next: Piece,
    /// True pieces after `next`, for the search's `reveal` diagnostic: filled by the simulator's endless
    /// runs only, empty wherever the game's own information is all there is.
    pub revealed: &'a [Piece],
    /// Nuisance waiting to fall on this player after this piece.
    pub nuisance_on_me: u32,
    /// The opponent, in a battle.
    pub opponent: Option<OpponentView<'a>>,
    /// The rules in force.
    pub rules: &'a Rules,
    /// Pieces this player has placed so far.
    pub pieces_played: u32,
    /// Pieces still to come after `current` when the game has a fixed length (the simulator's endless
    /// runs: 0 = `current` is the last piece); `None` when the game runs on (the cartridge, battles).
    pub pieces_left: Option<u32>,
    /// The link to the game drops or invents presses now and then (the driver saw the pair move without a
    /// press): a pair may end a column or a turn off its placement, so the bot keeps more room
    /// ([`crate::ai::ignition::IgnitionPolicy::cautious`]).
    pub caution: bool,
}

impl<'a> View<'a> {
    /// A 1P view at the start of an open-ended game: no opponent, no nuisance pending, nothing revealed,
    /// no pieces played yet. Change the other fields with struct update syntax.
    pub fn solo(field: &'a Field, current: Piece, next: Piece, rules: &'a Rules) -> View<'a> {
        View {
            field,
            current,
            next,
            revealed: &[],
            nuisance_on_me: 0,
            opponent: None,
            rules,
            pieces_played: 0,
            pieces_left: None,
            caution: false,
        }
    }
}

/// What a player sees of its opponent.
#[derive(Clone, Copy, Debug)]
pub struct OpponentView<'a> {
    /// The opponent's field.
    pub field: &'a Field,
    /// Nuisance waiting to fall on the opponent (sent by this player).
    pub nuisance_on_them: u32,
    /// Nuisance the opponent's running chain will still send.
    pub incoming_from_chain: u32,
}

/// Why a player fires a chain now rather than building on (set by bots with an ignition policy).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FireReason {
    /// The chain reaches the length or score threshold.
    Threshold,
    /// Our field is about to top out.
    Danger,
    /// Battle: the chain sends a full load of nuisance.
    FullLoad,
    /// Battle: nuisance is on its way.
    Answer,
    /// Battle: the opponent is nearly full.
    Finish,
    /// Endless with a fixed length: the last pieces cash in the build (a chain never fired scores nothing).
    LastPieces,
}

/// A decision: where the current piece goes and the inputs that take it there. The one type that travels
/// from the search through the session to the driver, which presses `path` and, when the pad or the game
/// disagrees, re-plans towards `placement` or the best of `ranking` still reachable.
#[derive(Clone, Debug, PartialEq)]
pub struct Decision {
    /// Where to lock the current piece.
    pub placement: Placement,
    /// Inputs from the spawn position to `placement`, before the drop (empty: the driver finds them).
    pub path: InputPath,
    /// The chain the player expects this placement to fire now (for logs and the HUD).
    pub chain: ChainSummary,
    /// The search's value of `placement` (0 when the player does not rank).
    pub value: f64,
    /// Why the player fires, when an ignition policy chose this placement.
    pub fired: Option<FireReason>,
    /// Other placements of the piece with their values, best first, for when `placement` can no longer be
    /// reached (empty when the player does not rank).
    pub ranking: Vec<(Placement, f64)>,
    /// The player's intent in a few upper-case words, for the window's HUD and the trace (e.g.
    /// `FIRE 4: 30 = CAP`, `HOLD: COUNTER READY`, `JAB: BURY TRIGGER`); `None` when it has none to tell.
    pub intent: Option<String>,
}

impl Decision {
    /// A bare decision: a placement with no path, value or ranking.
    pub fn at(placement: Placement) -> Decision {
        Decision {
            placement,
            path: Vec::new(),
            chain: ChainSummary::default(),
            value: 0.0,
            fired: None,
            ranking: Vec::new(),
            intent: None,
        }
    }

    /// Chain length the player expects this placement to fire now (0 = none).
    pub fn expected_chain(&self) -> u32 {
        self.chain.chains
    }
}

/// Why a player could not choose: a bot in another process that did not answer in time, exited, or
/// said something that is not a move. The game loops stop the run with it rather than play on with
/// another player.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("bot {player}: {what}")]
pub struct PlayerError {
    /// The player, as its reports name it (a process bot adds its command).
    pub player: String,
    /// What it did, in words.
    pub what: String,
}

/// Anything that chooses placements.
pub trait Player: Send {
    /// A short name for reports.
    fn name(&self) -> &str;
    /// Chooses where the current piece goes. Must return a placement that is valid for the piece.
    fn choose(&mut self, view: &View<'_>) -> Decision;
    /// Chooses where the current piece goes, or says why it cannot (a bot process that misbehaves). The
    /// game loops call this one; players that always answer keep the default, which wraps
    /// [`Player::choose`].
    fn try_choose(&mut self, view: &View<'_>) -> Result<Decision, PlayerError> {
        Ok(self.choose(view))
    }
    /// The current piece locked at `placement` (the loop's report of what was played, which on a
    /// console may differ from the decision). Players that keep no state between moves ignore it.
    fn placed(&mut self, _placement: Placement) {}
    /// The movement contract the game was seen to follow (kicks), which replaces the player's
    /// configured one; self-calibration learns it from the console. Players that do not search moves
    /// ignore it.
    fn set_movement(&mut self, _moves: MoveRules) {}
    /// When the next decision must be ready: an anytime player answers by then with the best it has
    /// found (a bot samples no further future past it); `None` (the default) thinks to the end of its
    /// own budget, counted in work, so a seed replays exactly. Only a window's worker thread sets one:
    /// there the game does not wait. Players that cannot cut their search short ignore it.
    fn set_deadline(&mut self, _deadline: Option<Instant>) {}
}

/// A borrowed player plays as itself, so wrappers (e.g. `sim::CpuTimed`) can take `&mut bot`.
impl<P: Player + ?Sized> Player for &mut P {
    fn name(&self) -> &str {
        (**self).name()
    }
    fn choose(&mut self, view: &View<'_>) -> Decision {
        (**self).choose(view)
    }
    fn try_choose(&mut self, view: &View<'_>) -> Result<Decision, PlayerError> {
        (**self).try_choose(view)
    }
    fn placed(&mut self, placement: Placement) {
        (**self).placed(placement)
    }
    fn set_movement(&mut self, moves: MoveRules) {
        (**self).set_movement(moves)
    }
    fn set_deadline(&mut self, deadline: Option<Instant>) {
        (**self).set_deadline(deadline)
    }
}

/// A boxed player plays as itself, so a caller can choose a wrapper at run time (e.g. a bot on a clock or not).
impl<P: Player + ?Sized> Player for Box<P> {
    fn name(&self) -> &str {
        (**self).name()
    }
    fn choose(&mut self, view: &View<'_>) -> Decision {
        (**self).choose(view)
    }
    fn try_choose(&mut self, view: &View<'_>) -> Result<Decision, PlayerError> {
        (**self).try_choose(view)
    }
    fn placed(&mut self, placement: Placement) {
        (**self).placed(placement)
    }
    fn set_movement(&mut self, moves: MoveRules) {
        (**self).set_movement(moves)
    }
    fn set_deadline(&mut self, deadline: Option<Instant>) {
        (**self).set_deadline(deadline)
    }
}
