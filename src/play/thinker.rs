//! Running a bot's search: inline (headless: the frame loop waits, and the time is counted) or on a worker
//! thread (window: the emulator keeps clocking frames while the bot thinks and the pair falls). A worker
//! thread may give each search a deadline ([`window_budget`]): the bot then plays its full search as an
//! anytime search, answering by the time the pair must start moving with the best it has found.

use std::sync::mpsc::{Receiver, Sender, TryRecvError, channel};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::driver::SpeedProfile;
use crate::emu::NES_FPS;
use crate::game::{Decision, OpponentView, Player, PlayerError, View};
use crate::game::{MoveRules, Piece, Rules};
use crate::sim::thread_cpu_ns;

use super::view::PlayerView;

/// Everything a bot needs for one decision, owned so it can cross threads.
#[derive(Clone, Debug)]
pub struct Request {
    /// Tag to match the answer with the question.
    pub id: u64,
    /// The player's view of the frame the question was asked on.
    pub view: PlayerView,
    /// The piece to place.
    pub current: Piece,
    /// The piece after it (as read when asked, or the current pair in its place while unreadable).
    pub next: Piece,
    /// The rules.
    pub rules: Rules,
    /// Pieces the player has placed.
    pub pieces_played: u32,
    /// The movement contract the console follows (learned kicks included): the bot searches with it.
    pub moves: MoveRules,
    /// The link drops or invents presses ([`crate::game::View::caution`]).
    pub caution: bool,
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
    /// The bot could not choose (a bot process that misbehaved); `decision` is then a placeholder the
    /// seat does not play.
    pub failure: Option<PlayerError>,
}

/// Frames a window's bot may think beyond the driver's reaction delay before its answer is due. The pair
/// falls slowly at first (a row every 30 frames on the test cartridge's normal gravity), so an answer up
/// to this late only delays the first press by a fraction of a row, and every placement stays in reach.
pub const GRACE_FRAMES: u32 = 12;

/// How long a window's bot thinks about a pair at bot speed `speed`: the frames from the question (at
/// the spawn) to the driver's first press (the speed's reaction delay and one frame), plus
/// [`GRACE_FRAMES`], at the console's frame rate. This is a plain wall-clock budget at normal emulator
/// speed: the search runs on its own thread and cannot see the emulator's pace, and at a faster
/// emulator speed the answer is simply later by the game's clock (the driver starts from wherever the
/// pair has fallen to). Slow speeds give the bot more time; speed 10 gives it 13 frames, about 0.22 s,
/// which the median full search fits into and the late look's widest decisions do not (they are cut
/// after the futures searched by then).
pub fn window_budget(speed: u8) -> Duration {
    let frames = SpeedProfile::new(speed).reaction + 1 + GRACE_FRAMES;
    Duration::from_secs_f64(f64::from(frames) / NES_FPS)
}

fn think(bot: &mut dyn Player, r: &Request) -> Answer {
    let start = Instant::now();
    let cpu_before = thread_cpu_ns();
    let opponent = r.view.opponent.as_ref().map(|o| OpponentView {
        field: &o.field,
        nuisance_on_them: o.nuisance_on_them,
        incoming_from_chain: o.chain_to_me,
    });
    let view = View {
        field: &r.view.own.field,
        current: r.current,
        next: r.next,
        nuisance_on_me: r.view.nuisance_on_me,
        opponent,
        rules: &r.rules,
        pieces_played: r.pieces_played,
        pieces_left: None,
        revealed: &[],
        caution: r.caution,
    };
    bot.set_movement(r.moves);
    let (decision, failure) = match bot.try_choose(&view) {
        Ok(d) => (d, None),
        Err(e) => (Decision::at(crate::game::Placement::new(r.rules.spawn_x, crate::game::Orientation::Up)), Some(e)),
    };
    let cpu = match (cpu_before, thread_cpu_ns()) {
        (Some(a), Some(b)) => Duration::from_nanos(b.saturating_sub(a)),
        _ => Duration::ZERO,
    };
    Answer { id: r.id, decision, elapsed: start.elapsed(), cpu, failure }
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
        /// Questions to the worker, each with the instant its answer is due (`None`: no deadline).
        tx: Option<Sender<(Request, Option<Instant>)>>,
        /// How long after a question its answer is due (`None`: the search runs to its end).
        budget: Option<Duration>,
        /// Answers from it.
        rx: Receiver<Answer>,
        /// The worker.
        handle: Option<JoinHandle<()>>,
        /// The request whose answer is wanted.
        want: Option<u64>,
        /// CPU time of answers that came back to questions no longer wanted (not yet collected).
        discarded_cpu: Duration,
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

    /// Runs `bot` on a worker thread; each search runs to its end.
    pub fn threaded(bot: Box<dyn Player>) -> Thinker {
        Thinker::spawn(bot, None)
    }

    /// Runs `bot` on a worker thread, each answer due `budget` after its question: the bot's search is
    /// cut then, with the best it has found (see [`window_budget`]).
    pub fn threaded_within(bot: Box<dyn Player>, budget: Duration) -> Thinker {
        Thinker::spawn(bot, Some(budget))
    }

    fn spawn(mut bot: Box<dyn Player>, budget: Option<Duration>) -> Thinker {
        let (tx, worker_rx) = channel::<(Request, Option<Instant>)>();
        let (worker_tx, rx) = channel::<Answer>();
        let handle = std::thread::Builder::new()
            .name("puyobot-think".into())
            .spawn(move || {
                while let Ok(mut r) = worker_rx.recv() {
                    // Only the newest question matters.
                    while let Ok(newer) = worker_rx.try_recv() {
                        r = newer;
                    }
                    bot.set_deadline(r.1);
                    if worker_tx.send(think(bot.as_mut(), &r.0)).is_err() {
                        break;
                    }
                }
            })
            .ok();
        if handle.is_none() {
            log::warn!("cannot start a thread for the bot; it will think inline");
        }
        Thinker::Threaded { tx: Some(tx), budget, rx, handle, want: None, discarded_cpu: Duration::ZERO }
    }

    /// Asks for a decision; a previous unanswered question is abandoned.
    pub fn ask(&mut self, request: Request) {
        match self {
            Thinker::Inline { bot, ready } => *ready = Some(think(bot.as_mut(), &request)),
            Thinker::Threaded { tx, want, budget, .. } => {
                *want = Some(request.id);
                // The deadline counts from the question, which the seat asks at the spawn.
                let due = budget.map(|b| Instant::now() + b);
                if let Some(t) = tx
                    && t.send((request, due)).is_err()
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
            Thinker::Threaded { rx, want, discarded_cpu, .. } => loop {
                match rx.try_recv() {
                    Ok(a) if Some(a.id) == *want => {
                        *want = None;
                        return Some(a);
                    }
                    Ok(a) => *discarded_cpu += a.cpu,
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
            Thinker::Threaded { rx, want, discarded_cpu, .. } => {
                let id = (*want)?;
                while let Ok(a) = rx.recv() {
                    if a.id == id {
                        *want = None;
                        return Some(a);
                    }
                    *discarded_cpu += a.cpu;
                }
                None
            }
        }
    }

    /// CPU time of the searches whose answers were dropped because a newer question had replaced them,
    /// since the last call (an inline bot never drops one).
    pub fn take_discarded_cpu(&mut self) -> Duration {
        match self {
            Thinker::Inline { .. } => Duration::ZERO,
            Thinker::Threaded { discarded_cpu, .. } => std::mem::take(discarded_cpu),
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ai::{AiConfig, Bot};
    use crate::game::{Color, Pair};
    use crate::memmap::PlayerState;
    use crate::sim::thread_cpu_ns;

    /// The greedy bot after spinning for 30 ms of its thread's CPU time.
    struct Slow(Bot);

    impl Player for Slow {
        fn name(&self) -> &str {
            "slow"
        }
        fn choose(&mut self, view: &View<'_>) -> Decision {
            if let Some(start) = thread_cpu_ns() {
                let mut x = 1u64;
                while thread_cpu_ns().is_some_and(|t| t < start + 30_000_000) {
                    for _ in 0..10_000 {
                        x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(1));
                    }
                }
            }
            self.0.choose(view)
        }
    }

    fn request(id: u64) -> Request {
        let (Some(r), Some(g)) = (Color::new(0), Color::new(1)) else { panic!("colours 0 and 1 exist") };
        Request {
            id,
            view: PlayerView::alone(PlayerState::default()),
            current: Piece::Pair(Pair::new(r, g)),
            next: Piece::Pair(Pair::new(g, g)),
            rules: Rules::default(),
            pieces_played: 0,
            moves: MoveRules::default(),
            caution: false,
        }
    }

    /// The greedy bot, keeping the deadline each decision was given.
    struct Timed(Bot, std::sync::Arc<std::sync::Mutex<Vec<Option<Instant>>>>);

    impl Player for Timed {
        fn name(&self) -> &str {
            "timed"
        }
        fn choose(&mut self, view: &View<'_>) -> Decision {
            self.0.choose(view)
        }
        fn set_deadline(&mut self, deadline: Option<Instant>) {
            self.1.lock().expect("not poisoned").push(deadline);
        }
    }

    #[test]
    fn a_worker_with_a_budget_gives_each_search_its_deadline_from_the_question() {
        let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let bot = || Bot::new("greedy", &AiConfig::default(), 1).expect("the greedy bot");
        let budget = window_budget(7);
        let mut t = Thinker::threaded_within(Box::new(Timed(bot(), seen.clone())), budget);
        let before = Instant::now();
        t.ask(request(1));
        let after = Instant::now();
        assert_eq!(t.wait().expect("an answer").id, 1);
        let due = seen.lock().expect("not poisoned")[0].expect("a deadline");
        assert!(due >= before + budget && due <= after + budget, "due {:?} after the question", due - before);
        // Without a budget every search runs to its end.
        let mut t = Thinker::threaded(Box::new(Timed(bot(), seen.clone())));
        t.ask(request(2));
        assert_eq!(t.wait().expect("an answer").id, 2);
        assert_eq!(seen.lock().expect("not poisoned")[1], None);
    }

    #[test]
    fn the_window_budget_is_the_frames_before_the_first_press_and_the_grace() {
        let frames = |speed| window_budget(speed).as_secs_f64() * NES_FPS;
        assert!((frames(7) - f64::from(5 + 1 + GRACE_FRAMES)).abs() < 1e-6, "{}", frames(7));
        assert!((frames(10) - f64::from(1 + GRACE_FRAMES)).abs() < 1e-6, "{}", frames(10));
        // A slower bot presses later, so its search may run longer.
        assert!((1..=10).all(|s| window_budget(s - 1) >= window_budget(s)));
    }

    #[test]
    fn an_abandoned_questions_search_time_is_kept_for_the_report() {
        if thread_cpu_ns().is_none() {
            return; // not Linux: no per-thread CPU time to count
        }
        let bot = Bot::new("greedy", &AiConfig::default(), 1).expect("the greedy bot");
        let mut t = Thinker::threaded(Box::new(Slow(bot)));
        t.ask(request(1));
        t.cancel();
        // The answer to the forgotten question arrives, is not handed out, and its CPU time is kept.
        let deadline = Instant::now() + Duration::from_secs(30);
        let mut discarded = Duration::ZERO;
        while discarded.is_zero() && Instant::now() < deadline {
            assert!(t.poll().is_none(), "an answer to a forgotten question was handed out");
            discarded += t.take_discarded_cpu();
            std::thread::sleep(Duration::from_millis(5));
        }
        assert!(discarded >= Duration::from_millis(25), "{discarded:?}");
        assert!(t.take_discarded_cpu().is_zero(), "taken once");
        // The next question is answered as usual, and nothing more was discarded.
        t.ask(request(2));
        let answer = t.wait().expect("an answer");
        assert_eq!(answer.id, 2);
        assert!(answer.cpu >= Duration::from_millis(25), "{:?}", answer.cpu);
        assert!(t.take_discarded_cpu().is_zero());
    }
}
