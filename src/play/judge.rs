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
