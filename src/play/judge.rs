//! The lock judge: between a seat and calibration, it holds the contract's side of the after-lock check.
//! It owns the verifier's pending prediction, which piece codes the contract knows rather than guesses,
//! and whether the contract is settled; it answers each check with a [`Verdict`]: the prediction held,
//! it failed against the contract, or the lock cannot judge the contract (calibration's business).
//!
//! The session updates it only when the contract changes ([`LockJudge::set_contract`]).

use crate::calib::KnownCodes;
use crate::driver::{Check, Lock, Prediction, Verifier};
use crate::game::{Item, Piece, Rules};
use crate::memmap::{PlayerState, UnknownCell};

/// What the judge knows of the contract in use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Contract {
    /// Which piece codes the decoder reads from knowledge rather than from a guess.
    pub known: KnownCodes,
    /// The contract is settled (or calibration is off): a failed prediction is held against it.
    pub settled: bool,
}

impl Default for Contract {
    fn default() -> Contract {
        Contract { known: KnownCodes::ALL, settled: true }
    }
}

/// Why a lock cannot judge the contract.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Unjudged {
    /// The piece was read with a guessed code and RAM agreed with the prediction: nothing to learn.
    GuessAgreed,
    /// The piece was read with the guessed code `code` and RAM differed: calibration learns what the code
    /// is from this very lock.
    Guessed {
        /// The piece's raw pivot code.
        code: u8,
    },
    /// RAM differed only in cells holding codes no table lists (or the prediction started from such a
    /// field): calibration learns them.
    Unread {
        /// The codes, sorted, each once.
        codes: Vec<u8>,
    },
    /// The prediction failed while the contract is not settled: calibration's surprise, not a mismatch.
    Unsettled,
}

/// The judge's answer about one lock.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The prediction held.
    Match,
    /// RAM differs from the prediction of a settled contract.
    Mismatch,
    /// The lock says nothing about the contract.
    CannotJudge(Unjudged),
}

/// How a piece was read: with a guessed code, and from a field holding unlisted codes.
#[derive(Clone, Debug, Default)]
struct Reading {
    guessed: bool,
    /// The raw pivot code (names a guessed code in health's messages).
    code: u8,
    /// Cells of the field the prediction starts from whose code no table lists.
    unknown: Vec<UnknownCell>,
}

/// One seat's judge of its locks.
#[derive(Clone, Debug, Default)]
pub struct LockJudge {
    verifier: Verifier,
    contract: Contract,
    /// How the piece under way reads (its last controllable frame counts).
    falling: Reading,
    /// How the piece awaiting its check read.
    locked: Reading,
}

impl LockJudge {
    /// The contract changed: later checks judge it.
    pub fn set_contract(&mut self, contract: Contract) {
        self.contract = contract;
    }

    /// The contract judged.
    pub fn contract(&self) -> Contract {
        self.contract
    }

    /// The piece under way, under control this frame as RAM shows it: its lock will be checked.
    pub fn follow(&mut self, st: &PlayerState) {
        let Some(piece) = st.current else { return };
        if st.orientation.is_none() {
            return;
        }
        self.verifier.follow();
        self.falling.guessed = self.read_with_guess(piece, st.current_assigned);
        self.falling.code = st.current_codes.0;
        self.falling.unknown.clone_from(&st.unknown_cells);
    }

    /// The piece locked (`lock`, when the model could play it): the prediction waits for the next spawn.
    pub fn locked(&mut self, lock: Option<&Lock>, rules: &Rules) {
        if let Some(lock) = lock {
            self.verifier.expect(lock, rules);
        }
        self.locked = std::mem::take(&mut self.falling);
    }

    /// Forgets the prediction and the piece under way (after a state load, or a contract replaced).
    pub fn reset(&mut self) {
        self.verifier.reset();
    }

    /// The bot's plan for the piece awaiting its check was let go.
    pub fn forget_decision(&mut self) {
        self.verifier.forget_decision();
    }

    /// A piece spawned and the game has resolved the last lock: compares RAM (`st`) with its prediction.
    /// `None` when there was no prediction to check.
    pub fn judge(&mut self, st: &PlayerState, label: &str) -> Option<(Verdict, Prediction)> {
        let basis = std::mem::take(&mut self.locked.unknown);
        let unread: Vec<(usize, usize)> =
            basis.iter().chain(&st.unknown_cells).map(|c| (c.x as usize, c.y as usize)).collect();
        let (pred, check) = self.verifier.on_spawn(&st.field, &unread, !basis.is_empty(), label)?;
        let verdict = match check {
            // The piece was read with a guessed code (calibration learns what it is from this very lock).
            Check::Match { .. } if self.locked.guessed => Verdict::CannotJudge(Unjudged::GuessAgreed),
            _ if self.locked.guessed => Verdict::CannotJudge(Unjudged::Guessed { code: self.locked.code }),
            Check::Unread { cells } => {
                // Calibration learns the codes from this lock (a link bit no lock showed before, a colour
                // nobody listed).
                let at = |x: usize, y: usize, c: &&UnknownCell| (c.x as usize, c.y as usize) == (x, y);
                let mut codes: Vec<u8> = cells
                    .iter()
                    .filter_map(|&(x, y, ..)| st.unknown_cells.iter().find(|c| at(x, y, c)).map(|c| c.code))
                    .chain(basis.iter().map(|c| c.code))
                    .collect();
                codes.sort_unstable();
                codes.dedup();
                Verdict::CannotJudge(Unjudged::Unread { codes })
            }
            Check::Match { .. } => Verdict::Match,
            Check::Mismatch { .. } if self.contract.settled => Verdict::Mismatch,
            Check::Mismatch { .. } => Verdict::CannotJudge(Unjudged::Unsettled),
        };
        Some((verdict, pred))
    }

    /// Whether `piece` was read with a guessed code: an item code not yet learned, or a code in no table
    /// that the decoder gave a colour class on the spot (`assigned`) while calibration still learns codes.
    fn read_with_guess(&self, piece: Piece, assigned: bool) -> bool {
        let k = self.contract.known;
        match piece {
            Piece::Item(Item::BigPuyo) => !k.big_puyo,
            Piece::Item(Item::Carbuncle) => !k.carbuncle,
            Piece::Pair(_) => assigned && !k.new_colors,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::driver::LockWatch;
    use crate::game::{Color, Field, HEIGHT, Orientation, Pair, Placement};

    /// RAM showing `piece` under control at column 2 (turned up) on `field`, or the field alone when
    /// the piece has locked.
    fn ram(field: Field, piece: Piece, controllable: bool) -> PlayerState {
        let orientation = Some(Orientation::Up);
        PlayerState { field, current: Some(piece), x: 2, y: 1, orientation, controllable, ..PlayerState::default() }
    }

    /// The judge follows `piece` down column 2 of an empty field and sees it lock; the next spawn shows
    /// `after` (with `unknown` cells whose code no table lists). Returns the verdict.
    fn check(judge: &mut LockJudge, piece: Piece, after: Field, unknown: Vec<UnknownCell>) -> Option<Verdict> {
        let rules = Rules::puyo1();
        let mut watch = LockWatch::default();
        let falling = ram(Field::new(), piece, true);
        watch.frame(&falling, 1, &rules);
        judge.follow(&falling);
        let lock = watch.frame(&ram(Field::new(), piece, false), 2, &rules);
        judge.locked(lock.as_ref(), &rules);
        let spawned = PlayerState { unknown_cells: unknown, ..ram(after, piece, true) };
        judge.judge(&spawned, "P1").map(|(v, _)| v)
    }

    fn red_green() -> Piece {
        Piece::Pair(Pair::new(Color::ALL[0], Color::ALL[1]))
    }

    /// The red-green pair upright at the foot of column 2.
    fn landed() -> Field {
        Field::from_rows(&[".G....", ".R...."])
    }

    #[test]
    fn a_settled_contract_is_held_to_its_predictions_and_an_unsettled_one_is_not() {
        let mut judge = LockJudge::default();
        assert_eq!(check(&mut judge, red_green(), landed(), vec![]), Some(Verdict::Match));
        // Not where the pair was seen, nor one input away from it.
        let wrong = Field::from_rows(&[".....G", ".....R"]);
        assert_eq!(check(&mut judge, red_green(), wrong, vec![]), Some(Verdict::Mismatch));
        judge.set_contract(Contract { settled: false, ..Contract::default() });
        assert_eq!(check(&mut judge, red_green(), wrong, vec![]), Some(Verdict::CannotJudge(Unjudged::Unsettled)));
        assert_eq!(check(&mut judge, red_green(), landed(), vec![]), Some(Verdict::Match), "a match is a match");
    }

    #[test]
    fn a_piece_read_with_a_guessed_code_or_a_field_with_unlisted_codes_cannot_judge_the_contract() {
        let big = Piece::Item(Item::BigPuyo);
        let mut judge = LockJudge::default();
        judge.set_contract(Contract { known: KnownCodes { big_puyo: false, ..KnownCodes::ALL }, settled: true });
        let mut predicted = Field::new();
        let mut after = Field::new();
        predicted.play(big, Placement::new(2, Orientation::Up), &Rules::puyo1()).expect("a Big Puyo lands");
        assert_eq!(check(&mut judge, big, predicted, vec![]), Some(Verdict::CannotJudge(Unjudged::GuessAgreed)));
        after.set(6, HEIGHT - 1, crate::game::Cell::Color(Color::ALL[0]));
        assert_eq!(
            check(&mut judge, big, after, vec![]),
            Some(Verdict::CannotJudge(Unjudged::Guessed { code: 0 })),
            "a guessed code that RAM contradicts is calibration's to learn"
        );
        // RAM differs from the prediction only in cells holding codes no table lists: calibration's too.
        let row = HEIGHT as u8 - 1;
        let odd = vec![UnknownCell { x: 2, y: row, code: 0x2C }, UnknownCell { x: 2, y: row - 1, code: 0x2D }];
        let read_as = Field::from_rows(&[".O....", ".O...."]);
        let mut judge = LockJudge::default();
        assert_eq!(
            check(&mut judge, red_green(), read_as, odd),
            Some(Verdict::CannotJudge(Unjudged::Unread { codes: vec![0x2C, 0x2D] }))
        );
    }

    #[test]
    fn only_a_lock_followed_since_the_last_reset_is_judged() {
        let rules = Rules::puyo1();
        let mut judge = LockJudge::default();
        let mut watch = LockWatch::default();
        let falling = ram(Field::new(), red_green(), true);
        watch.frame(&falling, 1, &rules);
        judge.follow(&falling);
        // The contract was replaced while the pair fell: its prediction says nothing about the new one.
        judge.reset();
        let lock = watch.frame(&ram(Field::new(), red_green(), false), 2, &rules);
        assert!(lock.is_some(), "the lock is still told (the nuisance tracker reads it)");
        judge.locked(lock.as_ref(), &rules);
        assert!(judge.judge(&ram(landed(), red_green(), true), "P1").is_none());
    }
}
