//! A seat's bot and the question in flight: asking about a piece (again when the next pair changes),
//! collecting the answer, and the time it cost.

use std::time::Instant;

use crate::game::{Decision, MoveRules, Piece, Rules};

use super::super::thinker::{Request, Thinker};
use super::super::view::PlayerView;
use super::{FrameContext, SeatStats};

/// Most questions about one piece: the first, and new ones when the next pair changes or becomes readable
/// after the spawn (a slide animation); a byte that keeps changing does not keep the bot busy.
pub(super) const MAX_QUESTIONS_PER_PIECE: u32 = 4;

/// The seat's bot and its questions about the piece under way.
#[derive(Default)]
pub(super) struct BotLink {
    /// The bot, when the seat has one.
    pub thinker: Option<Thinker>,
    /// A question is in flight.
    pub waiting: bool,
    /// When the question in flight was asked.
    asked_at: Option<Instant>,
    /// Tags the questions to the bot.
    next_id: u64,
    /// The next pair the bot was last asked with, for the piece under way.
    pub asked_next: Option<Piece>,
    /// Questions asked about the piece under way.
    pub questions: u32,
    /// Chain length the bot expects from its current decision.
    pub expected_chain: u32,
    /// Last decision time in milliseconds.
    pub think_ms: f32,
    /// The bot aims at long chains (the chain bot at full strength with the full search).
    pub aims_long_chains: bool,
    /// The bot could not choose (a bot process that misbehaved): the session stops the bots with it.
    pub failure: Option<crate::game::PlayerError>,
    /// The bot's intent with its last decision, in a few words (the HUD's decision line).
    pub intent: Option<String>,
    /// The last decision in a few words, until the session hands it to the recording.
    pub decided: Option<String>,
}

/// What a question needs besides the view: the seat's figures and the cartridge's movement rules.
pub(super) struct Asking<'a> {
    pub rules: &'a Rules,
    pub pieces_played: u32,
    pub moves: MoveRules,
    /// The link drops or invents presses ([`crate::game::View::caution`]).
    pub caution: bool,
}

impl BotLink {
    /// A link to `thinker` (or to no bot).
    pub fn new(thinker: Option<Thinker>) -> BotLink {
        BotLink { thinker, ..BotLink::default() }
    }

    /// Forgets the question in flight (its answer, when it comes, is dropped).
    pub fn cancel(&mut self) {
        self.waiting = false;
        if let Some(t) = self.thinker.as_mut() {
            t.cancel();
        }
    }

    /// A new piece: no question asked about it yet.
    pub fn new_piece(&mut self) {
        self.questions = 0;
        self.asked_next = None;
    }

    /// Asks the bot about the current pair of `view` with `next` as the pair after it; returns whether
    /// it was asked.
    pub fn ask(&mut self, view: &PlayerView, next: Piece, a: &Asking<'_>, stats: &mut SeatStats) -> bool {
        let (Some(t), Some(current)) = (self.thinker.as_mut(), view.own.current) else { return false };
        let st = &view.own;
        log::trace!("asking for {current} (next {next}) at {:?}\n{:?}", (st.x, st.y, st.orientation), st.field);
        self.next_id += 1;
        let asked = Instant::now();
        t.ask(Request {
            id: self.next_id,
            view: view.clone(),
            current,
            next,
            rules: a.rules.clone(),
            pieces_played: a.pieces_played,
            moves: a.moves,
            caution: a.caution,
        });
        self.waiting = true;
        self.asked_at = Some(asked);
        if t.is_inline() {
            stats.frame_path_time += asked.elapsed();
        }
        self.questions += 1;
        self.asked_next = Some(next);
        true
    }

    /// The bot's answer once it is there (waiting for it when `must_have`), with its times counted.
    pub fn collect(&mut self, must_have: bool, ctx: &FrameContext<'_>, stats: &mut SeatStats) -> Option<Decision> {
        let answer = match self.thinker.as_mut() {
            Some(t) if self.waiting && must_have => {
                let a = t.wait();
                if !t.is_inline() {
                    // The frame loop waited from the start of this frame, or from the question if it was
                    // asked in this frame (on one core the worker may run before the loop reaches the wait).
                    let since = self.asked_at.map_or(ctx.frame_start, |q| q.max(ctx.frame_start));
                    stats.frame_path_time += since.elapsed();
                }
                a
            }
            Some(t) if self.waiting => t.poll(),
            _ => None,
        };
        if let Some(t) = self.thinker.as_mut() {
            // Searches for questions abandoned on the way (a piece forgotten) cost CPU time too.
            stats.think_cpu += t.take_discarded_cpu();
        }
        let answer = answer?;
        self.waiting = false;
        if let Some(e) = answer.failure {
            self.failure = Some(e);
            return None;
        }
        stats.think_time += answer.elapsed;
        stats.think_cpu += answer.cpu;
        stats.decisions += 1;
        self.think_ms = answer.elapsed.as_secs_f32() * 1000.0;
        self.expected_chain = answer.decision.expected_chain();
        self.intent = answer.decision.intent.clone();
        self.decided = Some(decision_note(&answer.decision));
        Some(answer.decision)
    }
}

/// A decision as a recording's note: the intent, when the bot said one, and where the piece goes
/// (`FIRE 4: 30 = CAP -> x3:Up`).
pub(super) fn decision_note(d: &Decision) -> String {
    match &d.intent {
        Some(intent) => format!("{intent} -> {}", d.placement),
        None => format!("-> {}", d.placement),
    }
}
