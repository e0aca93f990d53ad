//! The front end's side of the protocol: a [`ProcessBot`] runs a bot command as a child process and is a
//! [`Player`] like the built-in bots. Every wait has a limit (a reader thread hands the bot's lines over
//! a channel, read with a timeout), and the child is always reaped: dropping the `ProcessBot` asks it to
//! quit, then kills its process group and waits for it.

use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::process::CommandExt;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

use crate::game::movegen::{self, PiecePosition};
use crate::game::{Decision, Field, MoveRules, Piece, Placement, Player, PlayerError, Rules, View};

use super::codec::{MAX_LINE, decode_bot, encode, field_rows, piece_text};
use super::command::BotCommand;
use super::message::{
    BotMessage, FrontMessage, InfoMessage, Move, NewPieceMessage, OpponentState, PlayMessage, RulesMessage,
    StartMessage, SuggestionMessage,
};

/// How often a wait looks at the interrupt flag (Ctrl-C).
const POLL: Duration = Duration::from_millis(50);
/// How long a bot told to quit may take before it is killed.
const QUIT_GRACE: Duration = Duration::from_millis(300);

/// What the reader thread hands over.
enum Line {
    /// One line, without its end.
    Text(String),
    /// A line longer than the codec accepts.
    TooLong,
    /// The bot closed its output (it exited, most likely).
    Closed,
}

/// The child process and its pipes.
struct Link {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<Line>,
}

impl Link {
    /// Starts `command` in its own process group (so killing it kills what it started too), its stdin
    /// and stdout piped, its stderr the front end's.
    fn spawn(command: &BotCommand) -> std::io::Result<Link> {
        let mut child = Command::new(&command.argv[0])
            .args(&command.argv[1..])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .process_group(0)
            .spawn()?;
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().ok_or_else(|| std::io::Error::other("no stdout pipe"))?;
        let (tx, lines) = channel();
        std::thread::Builder::new().name("puyobot-bot-reader".into()).spawn(move || {
            let mut reader = BufReader::new(stdout);
            loop {
                let mut buf = Vec::new();
                let line = match (&mut reader).take(MAX_LINE as u64 + 1).read_until(b'\n', &mut buf) {
                    Ok(0) | Err(_) => Line::Closed,
                    Ok(_) if buf.len() > MAX_LINE => Line::TooLong,
                    Ok(_) => Line::Text(String::from_utf8_lossy(&buf).trim_end_matches(['\r', '\n']).to_string()),
                };
                let last = !matches!(line, Line::Text(_));
                if tx.send(line).is_err() || last {
                    return;
                }
            }
        })?;
        Ok(Link { child, stdin, lines })
    }

    /// Kills the process group and waits for the child.
    fn reap(&mut self) {
        self.stdin.take();
        let deadline = Instant::now() + QUIT_GRACE;
        while Instant::now() < deadline {
            if matches!(self.child.try_wait(), Ok(Some(_))) {
                break;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        // The group outlives a child that exited: anything it started goes too.
        if let Ok(pid) = i32::try_from(self.child.id()) {
            // SAFETY: kill(2) with a negative pid signals the process group the child leads; no memory
            // is involved.
            unsafe {
                libc::kill(-pid, libc::SIGKILL);
            }
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// What the bot will believe after the last `play`, when the front end can predict it (1P, no nuisance):
/// the next view that matches is told with `new_piece`, any other with a fresh `start`.
#[derive(Clone, Debug, PartialEq)]
struct Expected {
    field: Field,
    current: Piece,
    pieces_played: u32,
    pieces_left: Option<u32>,
}

/// The view a suggestion answered, for the `play` that follows.
struct Asked {
    field: Field,
    current: Piece,
    next: Piece,
    pieces_played: u32,
    pieces_left: Option<u32>,
    predictable: bool,
    moves: Vec<Placement>,
}

/// A bot in another process, speaking the protocol on its stdin and stdout.
pub struct ProcessBot {
    command: BotCommand,
    link: Link,
    name: String,
    /// How errors name it: its name and command.
    who: String,
    seed: u64,
    colors: Option<u8>,
    moves: MoveRules,
    /// The rules and movement last sent (and accepted).
    sent_rules: Option<(Rules, MoveRules)>,
    asked: Option<Asked>,
    expected: Option<Expected>,
    /// A previous error: the bot is not asked again.
    failed: Option<PlayerError>,
}

impl ProcessBot {
    /// Starts `command` and reads its `info`; `seed` goes to the bot in each `start`, `colors` in `rules`.
    pub fn spawn(command: &BotCommand, seed: u64, colors: Option<u8>) -> Result<ProcessBot, PlayerError> {
        let who = command.display();
        let link = Link::spawn(command)
            .map_err(|e| PlayerError { player: who.clone(), what: format!("cannot start: {e}") })?;
        let mut bot = ProcessBot {
            command: command.clone(),
            link,
            name: who.clone(),
            who,
            seed,
            colors,
            moves: MoveRules::default(),
            sent_rules: None,
            asked: None,
            expected: None,
            failed: None,
        };
        let info = bot.await_info()?;
        bot.name = info.name;
        Ok(bot)
    }

    /// The bot's process id (for tests that check it is gone).
    pub fn pid(&self) -> u32 {
        self.link.child.id()
    }

    fn error(&self, what: impl Into<String>) -> PlayerError {
        PlayerError { player: self.who.clone(), what: what.into() }
    }

    fn await_info(&mut self) -> Result<InfoMessage, PlayerError> {
        let message = self.await_message("info", self.command.ready_limit())?;
        if let BotMessage::Info(info) = &message {
            self.who = format!("{:?} ({})", info.name, self.command.display());
        }
        match message {
            BotMessage::Info(info) if info.protocol == super::VERSION => Ok(info),
            BotMessage::Info(info) => Err(self.error(format!(
                "speaks protocol version {}; this front end speaks version {}",
                info.protocol,
                super::VERSION
            ))),
            other => Err(self.error(format!("sent {} first, not info", kind(&other)))),
        }
    }

    /// Writes one message; a closed pipe means the bot has gone.
    fn send(&mut self, message: &FrontMessage) -> Result<(), PlayerError> {
        let mut line = encode(message);
        line.push('\n');
        let written = match self.link.stdin.as_mut() {
            Some(stdin) => stdin.write_all(line.as_bytes()).and_then(|_| stdin.flush()),
            None => Err(std::io::Error::other("stdin closed")),
        };
        if written.is_err() {
            let status = self.exit_status();
            return Err(self.error(format!("exited ({status}) before reading {}", kind_front(message))));
        }
        Ok(())
    }

    /// The child's exit status in words, once it has exited (after a short wait).
    fn exit_status(&mut self) -> String {
        let deadline = Instant::now() + Duration::from_millis(200);
        loop {
            match self.link.child.try_wait() {
                Ok(Some(status)) => return status.to_string(),
                Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(10)),
                _ => return "still running, its output closed".into(),
            }
        }
    }

    /// The next message, within `limit`; `what` names it for the error.
    fn await_message(&mut self, what: &str, limit: Duration) -> Result<BotMessage, PlayerError> {
        let deadline = Instant::now() + limit;
        loop {
            if crate::interrupt::requested() {
                return Err(self.error(format!("interrupted while waiting for its {what}")));
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(self.error(format!("sent no {what} within {} ms", limit.as_millis())));
            }
            match self.link.lines.recv_timeout(left.min(POLL)) {
                Ok(Line::Text(line)) if line.trim().is_empty() => continue,
                Ok(Line::Text(line)) => {
                    return match decode_bot(&line) {
                        Ok(BotMessage::Error(e)) => Err(self.error(format!("refused: {}", e.message))),
                        Ok(m) => Ok(m),
                        Err(e) => Err(self.error(format!("sent garbage while its {what} was due: {e}"))),
                    };
                }
                Ok(Line::TooLong) => {
                    return Err(self.error(format!("sent a line over {MAX_LINE} bytes while its {what} was due")));
                }
                Ok(Line::Closed) | Err(RecvTimeoutError::Disconnected) => {
                    let status = self.exit_status();
                    return Err(self.error(format!("exited ({status}) while its {what} was due")));
                }
                Err(RecvTimeoutError::Timeout) => {}
            }
        }
    }

    /// Sends `rules` when the rules or the movement changed, and waits for `ready`.
    fn sync_rules(&mut self, rules: &Rules) -> Result<(), PlayerError> {
        if self.sent_rules.as_ref().is_some_and(|(r, m)| r == rules && *m == self.moves) {
            return Ok(());
        }
        let message = RulesMessage::new(rules, self.moves, self.colors, self.command.limits);
        self.send(&FrontMessage::Rules(message))?;
        match self.await_message("ready", self.command.ready_limit())? {
            BotMessage::Ready => {
                self.sent_rules = Some((rules.clone(), self.moves));
                self.expected = None;
                Ok(())
            }
            other => Err(self.error(format!("sent {} when ready was due", kind(&other)))),
        }
    }

    /// Tells the bot the state of `view`: one `new_piece` when it follows from the last `play`, else `start`.
    fn sync_state(&mut self, view: &View<'_>) -> Result<(), PlayerError> {
        let follows = self.expected.take().is_some_and(|e| {
            view.opponent.is_none()
                && view.nuisance_on_me == 0
                && e == Expected {
                    field: *view.field,
                    current: view.current,
                    pieces_played: view.pieces_played,
                    pieces_left: view.pieces_left,
                }
        });
        if follows {
            return self.send(&FrontMessage::NewPiece(NewPieceMessage { piece: piece_text(view.next) }));
        }
        let start = StartMessage {
            field: field_rows(view.field),
            current: piece_text(view.current),
            next: piece_text(view.next),
            nuisance: view.nuisance_on_me,
            opponent: view.opponent.map(|o| OpponentState {
                field: field_rows(o.field),
                nuisance: o.nuisance_on_them,
                incoming: o.incoming_from_chain,
            }),
            pieces_played: view.pieces_played,
            pieces_left: view.pieces_left,
            caution: view.caution,
            seed: Some(self.seed),
        };
        self.send(&FrontMessage::Start(Box::new(start)))
    }

    /// The suggestion's moves the piece can reach on `view`, in the bot's order; an error when none.
    fn playable(&self, view: &View<'_>, s: &SuggestionMessage) -> Result<Vec<Placement>, PlayerError> {
        let start = PiecePosition::spawn(view.rules);
        let reachable = movegen::placements(view.field, view.current, start, &self.moves);
        let ok = |p: Placement| {
            p.check(view.current).is_ok()
                && reachable.as_slice().iter().any(|&r| movegen::same_outcome(view.current, r, p))
        };
        let moves: Vec<Placement> = s.moves.iter().map(|&m| Placement::from(m)).filter(|&p| ok(p)).collect();
        if moves.is_empty() {
            let said: Vec<String> = s.moves.iter().take(8).map(|m| format!("{}", Placement::from(*m))).collect();
            return Err(self.error(format!(
                "suggested no move {} can reach (it suggested: {})",
                view.current,
                if said.is_empty() { "nothing".into() } else { said.join(", ") }
            )));
        }
        Ok(moves)
    }

    fn ask(&mut self, view: &View<'_>) -> Result<Decision, PlayerError> {
        self.sync_rules(view.rules)?;
        self.sync_state(view)?;
        self.send(&FrontMessage::Suggest)?;
        let suggestion = match self.await_message("suggestion", self.command.move_limit())? {
            BotMessage::Suggestion(s) => s,
            other => return Err(self.error(format!("sent {} when a suggestion was due", kind(&other)))),
        };
        let moves = self.playable(view, &suggestion)?;
        let decision = Decision {
            ranking: moves[1..].iter().map(|&p| (p, 0.0)).collect(),
            intent: suggestion.intent.map(|i| i.chars().take(40).collect()),
            ..Decision::at(moves[0])
        };
        self.asked = Some(Asked {
            field: *view.field,
            current: view.current,
            next: view.next,
            pieces_played: view.pieces_played,
            pieces_left: view.pieces_left,
            predictable: view.opponent.is_none() && view.nuisance_on_me == 0,
            moves: suggestion.moves.iter().map(|&m| m.into()).collect(),
        });
        Ok(decision)
    }
}

/// A bot message's type, for errors.
fn kind(m: &BotMessage) -> &'static str {
    match m {
        BotMessage::Info(_) => "info",
        BotMessage::Ready => "ready",
        BotMessage::Suggestion(_) => "a suggestion",
        BotMessage::Error(_) => "error",
    }
}

/// A front-end message's type, for errors.
fn kind_front(m: &FrontMessage) -> &'static str {
    match m {
        FrontMessage::Rules(_) => "rules",
        FrontMessage::Start(_) => "start",
        FrontMessage::Suggest => "suggest",
        FrontMessage::Play(_) => "play",
        FrontMessage::NewPiece(_) => "new_piece",
        FrontMessage::Stop => "stop",
        FrontMessage::Quit => "quit",
    }
}

impl Player for ProcessBot {
    fn name(&self) -> &str {
        &self.name
    }

    /// The infallible path, for callers that cannot stop: on an error the piece goes to the spawn column
    /// (the error is logged, and every later call fails the same way through [`Player::try_choose`]).
    fn choose(&mut self, view: &View<'_>) -> Decision {
        self.try_choose(view).unwrap_or_else(|e| {
            log::error!("{e}");
            Decision::at(Placement::new(view.rules.spawn_x, crate::game::Orientation::Up))
        })
    }

    fn try_choose(&mut self, view: &View<'_>) -> Result<Decision, PlayerError> {
        if let Some(e) = &self.failed {
            return Err(e.clone());
        }
        let answer = self.ask(view);
        if let Err(e) = &answer {
            self.failed = Some(e.clone());
        }
        answer
    }

    fn placed(&mut self, placement: Placement) {
        let Some(asked) = self.asked.take() else { return };
        let index = asked.moves.iter().position(|&m| m == placement);
        let play = PlayMessage { placement: Move::from(placement), index };
        if let Err(e) = self.send(&FrontMessage::Play(play)) {
            // The next question reports it with the exit status.
            log::debug!("{e}");
            return;
        }
        let mut field = asked.field;
        let resolved =
            field.play(asked.current, placement, self.sent_rules.as_ref().map(|(r, _)| r).unwrap_or(&Rules::puyo1()));
        self.expected = (asked.predictable && resolved.is_ok()).then(|| Expected {
            field,
            current: asked.next,
            pieces_played: asked.pieces_played + 1,
            pieces_left: asked.pieces_left.map(|n| n.saturating_sub(1)),
        });
    }

    fn set_movement(&mut self, moves: MoveRules) {
        self.moves = moves;
    }
}

impl Drop for ProcessBot {
    fn drop(&mut self) {
        if self.failed.is_none() {
            let _ = self.send(&FrontMessage::Quit);
        }
        self.link.reap();
    }
}
