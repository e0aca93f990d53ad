//! The 2P battle loop, on a frame clock: whoever's next piece is ready first acts; chains take time; the
//! nuisance a chain sends arrives when the chain ends and falls after the receiver's next piece resolves.
//! No offsetting: nuisance is never cancelled by counter-chains.

use rand::Rng;
use serde::{Deserialize, Serialize};

use crate::game::nuisance::lethal_dose;
use crate::game::{ChainSummary, Field, Piece, Rules, nuisance_from_score};

use crate::game::deal::PieceSource;
use crate::game::player::{OpponentView, Player, PlayerError, View};

/// How many frames things take. Rough figures for the cartridge at the bots' top speed; they only set
/// the relative pace of the two players.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct BattleTiming {
    /// From a piece becoming controllable to its lock.
    pub piece_frames: u32,
    /// One chain step: pop animation plus fall.
    pub chain_step_frames: u32,
    /// Nuisance falling onto the field.
    pub nuisance_frames: u32,
    /// Between a resolved field and the next controllable piece.
    pub spawn_frames: u32,
}

impl Default for BattleTiming {
    fn default() -> Self {
        BattleTiming { piece_frames: 36, chain_step_frames: 56, nuisance_frames: 30, spawn_frames: 12 }
    }
}

/// One player's side of a finished battle.
#[derive(Clone, Debug, Default)]
pub struct SideRecord {
    /// Pieces placed.
    pub pieces: u32,
    /// Every chain fired (lengths ≥ 1).
    pub chains: Vec<u32>,
    /// Total points.
    pub score: u64,
    /// Nuisance sent to the opponent.
    pub nuisance_sent: u32,
    /// Chains that sent nuisance.
    pub attacks: u32,
    /// Of those, the attacks that sent the per-chain cap or the opponent's lethal dose (what it still
    /// lacked after the nuisance already on its way to it), whichever is less.
    pub full_attacks: u32,
    /// Pieces this side had placed when it sent its first such attack.
    pub first_full_attack: Option<u32>,
    /// True when this side's spawn cell was blocked (or it made an illegal move).
    pub topped_out: bool,
    /// The field at the end.
    pub final_field: Field,
}

impl SideRecord {
    /// The longest chain this side fired (0 if none).
    pub fn largest_chain(&self) -> u32 {
        self.chains.iter().copied().max().unwrap_or(0)
    }
}

/// The record of one battle.
#[derive(Clone, Debug, Default)]
pub struct BattleRecord {
    /// 0 when player 1 won, 1 when player 2 won, `None` for a draw.
    pub winner: Option<usize>,
    /// Frames the game lasted.
    pub frames: u64,
    /// Both sides.
    pub sides: [SideRecord; 2],
    /// A player could not choose (a bot process that misbehaved): the game stopped there, undecided.
    pub error: Option<PlayerError>,
}

struct Side {
    field: Field,
    ready_at: u64,
    index: usize,
    carry: u32,
    pending: u32,
    /// Nuisance in flight to the opponent and the frame it lands.
    attack: Option<(u32, u64)>,
    rec: SideRecord,
}

impl Side {
    fn new() -> Side {
        Side {
            field: Field::new(),
            ready_at: 0,
            index: 0,
            carry: 0,
            pending: 0,
            attack: None,
            rec: SideRecord::default(),
        }
    }
    /// Nuisance this side has sent that has not fallen yet: in flight or waiting on the opponent.
    fn sent_not_fallen(&self, theirs: &Side) -> u32 {
        theirs.pending + self.attack.map_or(0, |(n, _)| n)
    }

    /// Counts an attack of `sent` nuisance on `theirs`, made with this side's `pieces`-th piece.
    fn count_attack(&mut self, theirs: &Side, sent: u32, rules: &Rules) {
        let lacking = lethal_dose(&theirs.field, rules).saturating_sub(self.sent_not_fallen(theirs));
        self.rec.attacks += 1;
        if sent >= rules.nuisance_cap().min(lacking.max(1)) {
            self.rec.full_attacks += 1;
            self.rec.first_full_attack.get_or_insert(self.rec.pieces);
        }
    }

    /// What this side's player sees with `current` and `next` to come: its field and pending nuisance, the
    /// opponent's with what this side has sent it (waiting or in flight), and the opponent's attack in flight.
    fn view<'a>(&'a self, theirs: &'a Side, current: Piece, next: Piece, rules: &'a Rules) -> View<'a> {
        let incoming = theirs.attack.map_or(0, |(n, _)| n);
        View {
            field: &self.field,
            current,
            next,
            nuisance_on_me: self.pending,
            opponent: Some(OpponentView {
                field: &theirs.field,
                nuisance_on_them: self.sent_not_fallen(theirs),
                incoming_from_chain: incoming,
            }),
            rules,
            pieces_played: self.index as u32,
            pieces_left: None,
            caution: false,
            revealed: &[],
        }
    }
}

/// The side that acts next: whoever is ready first among those with pieces left; player 1 wins ties.
fn next_to_act(sides: &[Side; 2], max_pieces: usize) -> usize {
    let p2_first = sides[1].ready_at < sides[0].ready_at;
    usize::from(sides[1].index < max_pieces && (sides[0].index >= max_pieces || p2_first))
}

/// Plays a battle between `players[0]` (player 1) and `players[1]` on a shared piece sequence. Ends when a
/// side tops out (the other wins) or when both have placed `max_pieces` pieces (a draw).
pub fn play_battle(
    players: [&mut dyn Player; 2],
    pieces: &mut dyn PieceSource,
    rules: &Rules,
    timing: &BattleTiming,
    max_pieces: usize,
    rng: &mut impl Rng,
) -> BattleRecord {
    let mut sides = [Side::new(), Side::new()];
    let mut now = 0u64;
    let mut error = None;
    loop {
        if sides.iter().all(|s| s.index >= max_pieces) {
            break;
        }
        let me = next_to_act(&sides, max_pieces);
        let other = 1 - me;
        now = sides[me].ready_at;
        // Attacks that have landed by now join the pending count.
        if let Some((n, at)) = sides[other].attack
            && at <= now
        {
            sides[me].pending += n;
            sides[other].attack = None;
        }
        pieces.forget_before(sides[0].index.min(sides[1].index));
        let [first, second] = &mut sides;
        let (mine, theirs) = if me == 0 { (first, second) } else { (second, first) };
        let current = pieces.piece(mine.index);
        let next = pieces.piece(mine.index + 1);
        let view = mine.view(theirs, current, next, rules);
        let decision = match players[me].try_choose(&view) {
            Ok(d) => d,
            Err(e) => {
                error = Some(e);
                break;
            }
        };
        mine.index += 1;
        mine.rec.pieces += 1;
        let Ok(summary) = mine.field.play(current, decision.placement, rules) else {
            log::warn!("{} chose {} for {current}: not a valid placement", players[me].name(), decision.placement);
            mine.rec.topped_out = true;
            break;
        };
        log::debug!(
            "p{} piece {}: {current} at {} ({}): {} links, {} points, {} puyos; {} nuisance waiting on it, the \
             opponent's lethal dose {}",
            me + 1,
            mine.index,
            decision.placement,
            decision.intent.as_deref().unwrap_or("-"),
            summary.chains,
            summary.score,
            mine.field.count(),
            mine.pending,
            lethal_dose(&theirs.field, rules).saturating_sub(mine.sent_not_fallen(theirs)),
        );
        players[me].placed(decision.placement);
        mine.after_placing(theirs, &summary, now, rules, timing, rng);
        if mine.field.is_game_over(rules) {
            mine.rec.topped_out = true;
            break;
        }
    }
    let [s1, s2] = sides;
    let mut rec = BattleRecord { winner: None, frames: now, sides: [s1.rec, s2.rec], error };
    rec.sides[0].final_field = s1.field;
    rec.sides[1].final_field = s2.field;
    rec.winner = match (rec.sides[0].topped_out, rec.sides[1].topped_out) {
        (true, false) => Some(1),
        (false, true) => Some(0),
        _ => None,
    };
    rec
}

impl Side {
    /// What follows a placement that resolved into `summary` at frame `now`: its chain's attack on `theirs`
    /// (landing when the chain ends), the nuisance pending on this side falling, and when this side is
    /// ready for its next piece.
    fn after_placing(
        &mut self,
        theirs: &Side,
        summary: &ChainSummary,
        now: u64,
        rules: &Rules,
        timing: &BattleTiming,
        rng: &mut impl Rng,
    ) {
        let mine = self;
        let mut frames = timing.piece_frames as u64 + summary.chains as u64 * timing.chain_step_frames as u64;
        if summary.chains > 0 {
            mine.rec.chains.push(summary.chains);
            mine.rec.score += summary.score as u64;
            let sent = nuisance_from_score(rules, summary.score, &mut mine.carry);
            if sent > 0 {
                mine.count_attack(theirs, sent, rules);
                mine.rec.nuisance_sent += sent;
                let lands = now + frames;
                // A new attack joins one still in flight; it lands when the later chain ends.
                mine.attack = Some(match mine.attack {
                    Some((n, _)) => (n + sent, lands),
                    None => (sent, lands),
                });
            }
        }
        if mine.pending > 0 {
            let dropped = mine.field.drop_nuisance(mine.pending, rules, rng);
            mine.pending -= dropped;
            frames += timing.nuisance_frames as u64;
        }
        mine.ready_at = now + frames + timing.spawn_frames as u64;
    }
}
