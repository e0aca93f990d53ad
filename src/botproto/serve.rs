//! The bot's side of the protocol: any [`Player`] answers a front end on a pair of streams (`puyobot bot`
//! serves the built-in AI on stdin and stdout). The state the front end sends is kept here, the moves it
//! reports are applied with the rules model, and the player sees the same [`View`] it would see in the
//! front end's own loop.

use std::io::{BufRead, Write};

use crate::game::{Field, MoveRules, OpponentView, Piece, Placement, Player, Rules, View};

use super::codec::{CodecError, decode_front, encode, parse_piece, parse_rows};
use super::message::{
    BotMessage, ErrorMessage, FrontMessage, InfoMessage, Move, OpponentState, StartMessage, SuggestionMessage,
};

/// Who the bot is, for its `info`.
#[derive(Clone, Debug)]
pub struct Identity {
    /// Its name.
    pub name: String,
    /// Its version.
    pub version: String,
    /// Who wrote it.
    pub author: String,
}

/// Why serving stopped before a `quit` or the end of the input.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// Reading or writing the streams failed.
    #[error("bot protocol: {0}")]
    Io(#[from] std::io::Error),
    /// The front end speaks another version or sent rules this bot cannot play (told to it as `error`).
    #[error("bot protocol: {0}")]
    Refused(String),
}

/// The opponent as the last `start` told it.
struct Opponent {
    field: Field,
    nuisance: u32,
    incoming: u32,
}

/// One game's state as the front end told it.
struct Game {
    field: Field,
    current: Piece,
    next: Option<Piece>,
    nuisance: u32,
    opponent: Option<Opponent>,
    pieces_played: u32,
    pieces_left: Option<u32>,
    caution: bool,
}

impl Game {
    fn from_start(s: &StartMessage) -> Result<Game, CodecError> {
        let opponent = match &s.opponent {
            None => None,
            Some(OpponentState { field, nuisance, incoming }) => {
                Some(Opponent { field: parse_rows(field)?, nuisance: *nuisance, incoming: *incoming })
            }
        };
        Ok(Game {
            field: parse_rows(&s.field)?,
            current: parse_piece(&s.current)?,
            next: Some(parse_piece(&s.next)?),
            nuisance: s.nuisance,
            opponent,
            pieces_played: s.pieces_played,
            pieces_left: s.pieces_left,
            caution: s.caution,
        })
    }
}

/// The serving loop's state: the rules, the game, and the player (made anew for each seed).
struct Server<F> {
    make: F,
    player: Option<(u64, Box<dyn Player>)>,
    rules: Option<(Rules, MoveRules)>,
    game: Option<Game>,
}

/// Serves `make`'s players on `input` / `output` until `quit` or the end of the input. `make(seed)` makes
/// the player for a game whose `start` carries `seed` (0 without one; its error is told as `error`); a player is kept while the seed
/// stays the same, so a `start` that re-syncs the state keeps its memory.
pub fn serve<F>(input: impl BufRead, mut output: impl Write, who: &Identity, make: F) -> Result<(), ServeError>
where
    F: FnMut(u64) -> Result<Box<dyn Player>, String>,
{
    let info = InfoMessage {
        name: who.name.clone(),
        version: who.version.clone(),
        author: who.author.clone(),
        protocol: super::VERSION,
    };
    send(&mut output, &BotMessage::Info(info))?;
    let mut server = Server { make, player: None, rules: None, game: None };
    for line in input.lines() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        let message = match decode_front(&line) {
            Ok(m) => m,
            Err(e) => {
                // A message of a later version or a typo: said on stderr, never a reason to stop playing.
                log::warn!("ignored: {e}");
                continue;
            }
        };
        match server.handle(message) {
            Ok(Some(reply)) => send(&mut output, &reply)?,
            Ok(None) => {}
            Err(Stop::Quit) => return Ok(()),
            Err(Stop::Refuse(why)) => {
                send(&mut output, &BotMessage::Error(ErrorMessage { message: why.clone() }))?;
                return Err(ServeError::Refused(why));
            }
        }
    }
    Ok(())
}

fn send(output: &mut impl Write, message: &BotMessage) -> std::io::Result<()> {
    writeln!(output, "{}", encode(message))?;
    output.flush()
}

/// Why the loop ends.
enum Stop {
    Quit,
    Refuse(String),
}

impl<F: FnMut(u64) -> Result<Box<dyn Player>, String>> Server<F> {
    fn handle(&mut self, message: FrontMessage) -> Result<Option<BotMessage>, Stop> {
        match message {
            FrontMessage::Rules(r) => {
                if r.version != super::VERSION {
                    return Err(Stop::Refuse(format!(
                        "protocol version {} is not supported (this bot speaks version {})",
                        r.version,
                        super::VERSION
                    )));
                }
                let rules = r.game_rules().map_err(Stop::Refuse)?;
                let moves = r.move_rules();
                if let Some((_, p)) = self.player.as_mut() {
                    p.set_movement(moves);
                }
                self.rules = Some((rules, moves));
                Ok(Some(BotMessage::Ready))
            }
            FrontMessage::Start(s) => {
                let seed = s.seed.unwrap_or(0);
                match Game::from_start(&s) {
                    Ok(g) => self.game = Some(g),
                    Err(e) => log::warn!("start ignored: {e}"),
                }
                if self.player.as_ref().is_none_or(|(s, _)| *s != seed) {
                    let mut p = (self.make)(seed).map_err(Stop::Refuse)?;
                    if let Some((_, moves)) = &self.rules {
                        p.set_movement(*moves);
                    }
                    self.player = Some((seed, p));
                }
                Ok(None)
            }
            FrontMessage::Suggest => Ok(Some(self.suggest())),
            FrontMessage::Play(p) => {
                self.play(p.placement.into());
                Ok(None)
            }
            FrontMessage::NewPiece(n) => {
                match (parse_piece(&n.piece), self.game.as_mut()) {
                    (Ok(piece), Some(g)) => g.next = Some(piece),
                    (Err(e), _) => log::warn!("new_piece ignored: {e}"),
                    (_, None) => log::warn!("new_piece before any start: ignored"),
                }
                Ok(None)
            }
            FrontMessage::Stop => {
                self.game = None;
                Ok(None)
            }
            FrontMessage::Quit => Err(Stop::Quit),
        }
    }

    /// The player's moves for the current piece: its choice, then its ranking.
    fn suggest(&mut self) -> BotMessage {
        let (Some(g), Some((rules, _)), Some((_, player))) = (&self.game, &self.rules, self.player.as_mut()) else {
            return BotMessage::Suggestion(SuggestionMessage { moves: Vec::new(), intent: None });
        };
        let view = View {
            field: &g.field,
            current: g.current,
            // Not told yet (a `play` without its `new_piece`): the current piece is the best guess.
            next: g.next.unwrap_or(g.current),
            revealed: &[],
            nuisance_on_me: g.nuisance,
            opponent: g.opponent.as_ref().map(|o| OpponentView {
                field: &o.field,
                nuisance_on_them: o.nuisance,
                incoming_from_chain: o.incoming,
            }),
            rules,
            pieces_played: g.pieces_played,
            pieces_left: g.pieces_left,
            caution: g.caution,
        };
        let d = player.choose(&view);
        let mut moves: Vec<Move> = vec![d.placement.into()];
        moves.extend(d.ranking.iter().filter(|(p, _)| *p != d.placement).map(|(p, _)| Move::from(*p)));
        BotMessage::Suggestion(SuggestionMessage { moves, intent: d.intent })
    }

    /// The current piece locked at `placement`: the field resolves, the next piece comes up.
    fn play(&mut self, placement: Placement) {
        let (Some(g), Some((rules, _))) = (self.game.as_mut(), &self.rules) else { return };
        if let Err(e) = g.field.play(g.current, placement, rules) {
            log::warn!("play: {e}");
        }
        if let Some((_, p)) = self.player.as_mut() {
            p.placed(placement);
        }
        g.current = g.next.take().unwrap_or(g.current);
        g.pieces_played += 1;
        g.pieces_left = g.pieces_left.map(|n| n.saturating_sub(1));
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use super::*;
    use crate::botproto::codec::{decode_bot, field_rows};
    use crate::botproto::command::DEFAULT_LIMITS;
    use crate::botproto::message::{Move, NewPieceMessage, PlayMessage, RulesMessage};
    use crate::game::{Cell, Color, Decision, Orientation};

    /// Places every piece in column 1, remembering the fields it was shown.
    struct Leftmost(Arc<Mutex<Vec<Field>>>);

    impl Player for Leftmost {
        fn name(&self) -> &str {
            "leftmost"
        }
        fn choose(&mut self, view: &View<'_>) -> crate::game::Decision {
            self.0.lock().map(|mut s| s.push(*view.field)).unwrap_or(());
            Decision::at(Placement::new(1, Orientation::Up))
        }
    }

    /// The bot's answers to `messages`, the fields its player saw, and how serving ended.
    fn exchange(messages: &[FrontMessage]) -> (Vec<BotMessage>, Vec<Field>, Result<(), ServeError>) {
        let input: String = messages.iter().map(|m| encode(m) + "\n").collect();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let who = Identity { name: "t".into(), version: "0".into(), author: "a".into() };
        let mut out = Vec::new();
        let player = seen.clone();
        let make = move |_| -> Result<Box<dyn Player>, String> { Ok(Box::new(Leftmost(player.clone()))) };
        let ended = serve(input.as_bytes(), &mut out, &who, make);
        let answers = String::from_utf8_lossy(&out).lines().map(|l| decode_bot(l).expect("a message")).collect();
        let fields = seen.lock().map(|s| s.clone()).unwrap_or_default();
        (answers, fields, ended)
    }

    fn rules(version: u32) -> FrontMessage {
        let mut r = RulesMessage::new(&Rules::puyo1(), MoveRules::default(), Some(4), DEFAULT_LIMITS);
        r.version = version;
        FrontMessage::Rules(r)
    }

    fn start() -> FrontMessage {
        FrontMessage::Start(Box::new(StartMessage {
            field: field_rows(&Field::new()),
            current: "RG".into(),
            next: "BY".into(),
            nuisance: 0,
            opponent: None,
            pieces_played: 0,
            pieces_left: None,
            caution: false,
            seed: Some(3),
        }))
    }

    #[test]
    fn the_bots_side_applies_play_and_new_piece() {
        let play =
            FrontMessage::Play(PlayMessage { placement: Move { x: 1, orientation: Orientation::Up }, index: Some(0) });
        let new_piece = FrontMessage::NewPiece(NewPieceMessage { piece: "GG".into() });
        let (answers, fields, ended) = exchange(&[
            rules(1),
            start(),
            FrontMessage::Suggest,
            play,
            new_piece,
            FrontMessage::Suggest,
            FrontMessage::Quit,
        ]);
        assert!(ended.is_ok());
        assert!(matches!(&answers[0], BotMessage::Info(i) if i.protocol == 1 && i.name == "t"), "{answers:?}");
        assert_eq!(answers[1], BotMessage::Ready);
        assert!(matches!(&answers[2], BotMessage::Suggestion(s) if s.moves[0].x == 1), "{answers:?}");
        assert_eq!(answers.len(), 4, "{answers:?}");
        assert_eq!(fields.len(), 2);
        let (r, g) = (Color::ALL[0], Color::ALL[1]);
        assert_eq!((fields[1].get(1, 13), fields[1].get(1, 12)), (Cell::Color(r), Cell::Color(g)));
    }

    #[test]
    fn another_version_is_refused_with_an_error_message() {
        let (answers, fields, ended) = exchange(&[rules(2), start(), FrontMessage::Suggest]);
        assert!(matches!(ended, Err(ServeError::Refused(_))));
        assert!(matches!(&answers[1], BotMessage::Error(e) if e.message.contains("version 2")), "{answers:?}");
        assert_eq!(answers.len(), 2);
        assert!(fields.is_empty());
    }

    #[test]
    fn lines_it_cannot_read_are_skipped() {
        let input = "garbage\n{\"type\":\"suggest\"}\n{\"type\":\"quit\"}\n";
        let who = Identity { name: "t".into(), version: String::new(), author: String::new() };
        let mut out = Vec::new();
        let make = |_| -> Result<Box<dyn Player>, String> { Ok(Box::new(Leftmost(Arc::default()))) };
        assert!(serve(input.as_bytes(), &mut out, &who, make).is_ok());
        let lines: Vec<String> = String::from_utf8_lossy(&out).lines().map(String::from).collect();
        assert_eq!(lines.len(), 2, "info, then an empty suggestion before any start: {lines:?}");
    }
}
