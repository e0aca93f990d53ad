//! Running a bot's search: inline (headless: the frame loop waits, and the time is counted) or on a worker
//! thread (window: the emulator keeps clocking frames while the bot thinks and the pair falls).

use std::sync::mpsc::{Receiver, Sender, TryRecvError, channel};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::game::{Field, MoveRules, Piece, Rules};
use crate::sim::{Decision, OpponentView, Player, View, thread_cpu_ns};

/// Everything a bot needs for one decision, owned so it can cross threads.
#[derive(Clone, Debug)]
pub struct Request {
    /// Tag to match the answer with the question.
    pub id: u64,
    /// The player's field.
    pub field: Field,
    /// The piece to place.
    pub current: Piece,
    /// The piece after it.
    pub next: Piece,
    /// The match as this player sees it, in 2P: the opponent's field and the nuisance on its way.
    pub opponent: Option<MatchView>,
    /// The rules.
    pub rules: Rules,
    /// Pieces the player has placed.
    pub pieces_played: u32,
    /// The movement contract the console follows (learned kicks included): the bot searches with it.
    pub moves: MoveRules,
}

/// What a player sees of a 2P match besides its own field.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MatchView {
    /// The opponent's field.
    pub field: Field,
    /// Nuisance waiting to fall on this player.
    pub pending_nuisance: u32,
    /// Nuisance waiting to fall on the opponent.
    pub opponent_pending: u32,
    /// Nuisance the opponent's running chain will still send this player (the rules model's
    /// prediction from the piece that started it).
    pub incoming_from_chain: u32,
}

/// A bot's answer.
#[derive(Clone, Debug)]
pub struct Answer {
    /// The request it answers.
    pub id: u64,
    /// Where to put the piece, and how.
    pub decision: Decision,
    /// How long the search took.
    pub elapsed: Duration,
    /// CPU time of the search on the thread that ran it (zero where the platform does not tell).
    pub cpu: Duration,
}

fn think(bot: &mut dyn Player, r: &Request) -> Answer {
    let start = Instant::now();
    let cpu_before = thread_cpu_ns();
    let opponent = r.opponent.as_ref().map(|m| OpponentView {
        field: &m.field,
        pending_nuisance: m.opponent_pending,
        chain_frames_left: 0,
        incoming_from_chain: m.incoming_from_chain,
    });
    let view = View {
        field: &r.field,
        current: r.current,
        next: r.next,
        pending_nuisance: r.opponent.map_or(0, |m| m.pending_nuisance),
        opponent,
        rules: &r.rules,
        pieces_played: r.pieces_played,
    };
    bot.set_movement(r.moves);
    let decision = bot.choose(&view);
    let cpu = match (cpu_before, thread_cpu_ns()) {
        (Some(a), Some(b)) => Duration::from_nanos(b.saturating_sub(a)),
        _ => Duration::ZERO,
    };
    Answer { id: r.id, decision, elapsed: start.elapsed(), cpu }
}

/// A bot with a way to run it.
pub enum Thinker {
    /// Runs the search when asked; the answer is ready at once.
    Inline {
        /// The bot.
        bot: Box<dyn Player>,
        /// The last answer, not yet collected.
        ready: Option<Answer>,
    },
    /// Runs the search on its own thread.
    Threaded {
        /// Questions to the worker.
        tx: Option<Sender<Request>>,
        /// Answers from it.
        rx: Receiver<Answer>,
        /// The worker.
        handle: Option<JoinHandle<()>>,
        /// The request whose answer is wanted.
        want: Option<u64>,
    },
}

impl std::fmt::Debug for Thinker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Thinker::Inline { .. } => "Thinker::Inline",
            Thinker::Threaded { .. } => "Thinker::Threaded",
        })
    }
}

impl Thinker {
    /// Runs `bot` inline.
    pub fn inline(bot: Box<dyn Player>) -> Thinker {
        Thinker::Inline { bot, ready: None }
    }

    /// Runs `bot` on a worker thread.
    pub fn threaded(mut bot: Box<dyn Player>) -> Thinker {
        let (tx, worker_rx) = channel::<Request>();
        let (worker_tx, rx) = channel::<Answer>();
        let handle = std::thread::Builder::new()
            .name("puyobot-think".into())
            .spawn(move || {
                while let Ok(mut r) = worker_rx.recv() {
                    // Only the newest question matters.
                    while let Ok(newer) = worker_rx.try_recv() {
                        r = newer;
                    }
                    if worker_tx.send(think(bot.as_mut(), &r)).is_err() {
                        break;
                    }
                }
            })
            .ok();
        if handle.is_none() {
            log::warn!("cannot start a thread for the bot; it will think inline");
        }
        Thinker::Threaded { tx: Some(tx), rx, handle, want: None }
    }

    /// Asks for a decision; a previous unanswered question is abandoned.
    pub fn ask(&mut self, request: Request) {
        match self {
            Thinker::Inline { bot, ready } => *ready = Some(think(bot.as_mut(), &request)),
            Thinker::Threaded { tx, want, .. } => {
                *want = Some(request.id);
                if let Some(t) = tx
                    && t.send(request).is_err()
                {
                    log::warn!("the bot's thread has stopped");
                }
            }
        }
    }

    /// The answer to the latest question, once it is there.
    pub fn poll(&mut self) -> Option<Answer> {
        match self {
            Thinker::Inline { ready, .. } => ready.take(),
            Thinker::Threaded { rx, want, .. } => loop {
                match rx.try_recv() {
                    Ok(a) if Some(a.id) == *want => {
                        *want = None;
                        return Some(a);
                    }
                    Ok(_) => continue,
                    Err(TryRecvError::Empty | TryRecvError::Disconnected) => return None,
                }
            },
        }
    }

    /// Waits for the answer to the latest question (at once for an inline bot). `None` when there is no
    /// question in flight or the worker has stopped.
    pub fn wait(&mut self) -> Option<Answer> {
        match self {
            Thinker::Inline { ready, .. } => ready.take(),
            Thinker::Threaded { rx, want, .. } => {
                let id = (*want)?;
                while let Ok(a) = rx.recv() {
                    if a.id == id {
                        *want = None;
                        return Some(a);
                    }
                }
                None
            }
        }
    }

    /// True when the search runs on the caller's thread.
    pub fn is_inline(&self) -> bool {
        matches!(self, Thinker::Inline { .. })
    }

    /// Forgets the question in flight.
    pub fn cancel(&mut self) {
        match self {
            Thinker::Inline { ready, .. } => *ready = None,
            Thinker::Threaded { want, .. } => *want = None,
        }
    }
}

impl Drop for Thinker {
    fn drop(&mut self) {
        if let Thinker::Threaded { tx, handle, .. } = self {
            tx.take();
            if let Some(h) = handle.take() {
                let _ = h.join();
            }
        }
    }
}
