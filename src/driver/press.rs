//! The one press executor: a button pressed closed loop on RAM.
//!
//! A [`Presser`] presses a button (letting go for a frame first when the same button was down on the frame
//! before, since the game reacts to new presses), holds it as its [`PressTiming`] says, watches the pose
//! RAM shows for the press's effect, and gives up after a patience. Presses wait for their effects in the
//! order they were made: a caller may make the next press before the last one has shown its effect (a game
//! with a long input lag), each press then naming the pose it expects to act on.
//! It decides nothing about what to press: the bots' driver ([`super::Driver`]) presses the steps of a
//! planned path, and self-calibration's opening the presses of its stages. Both press through this type,
//! each with its own timing.

use crate::emu::pad;

/// Where a press can show its effect: the column byte and the orientation (in any numbering, as long as
/// it stays the same from one frame to the next).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pose {
    /// The column (or the X byte).
    pub x: u8,
    /// The orientation (or the orientation byte).
    pub turn: u8,
}

/// What counts as a press's effect.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Effect {
    /// Any change of column or orientation. The caller then compares the new pose with what it expected
    /// (the driver: with the movement model's prediction, kicks included).
    Moved,
    /// The change the button makes: Left and Right the column, any other button the orientation. A turn
    /// that also shifts the X byte (X following the other puyo) ends only when the orientation shows it.
    ByButton,
}

/// How a [`Presser`] paces one press.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PressTiming {
    /// Frames a press is held, counting the frame it is made on: while the effect is awaited (unless
    /// `hold_while_waiting` holds it longer), and at least, through [`Presser::keep_holding`], once it has
    /// shown.
    pub hold: u32,
    /// Frames after the hold to wait for the effect: a press that has not shown it `hold + patience`
    /// frames after it was made counts as refused.
    pub patience: u32,
    /// Keep the button down until the effect shows or the press is refused, instead of letting go after
    /// `hold` frames: a press that reaches the console late (a slow link) is then still down when it
    /// arrives.
    pub hold_while_waiting: bool,
    /// What counts as the effect.
    pub effect: Effect,
}

/// How the press in flight stands after this frame's RAM.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Progress<T> {
    /// Hold this button during the frame.
    Hold(u8),
    /// Let go: the effect is still awaited.
    Wait,
    /// RAM shows the effect; the press is over. Carries what the caller attached to it.
    Shown(T),
    /// RAM showed no effect in time: the game refused the press, which is over.
    Refused(T),
}

#[derive(Clone, Copy, Debug)]
struct Pending<T> {
    button: u8,
    before: Pose,
    frames: u32,
    what: T,
}

/// Makes presses closed loop on RAM, their effects awaited in order. `T` is what the caller attaches to a
/// press (the step and the pose the model expects, say) and gets back when it is over.
#[derive(Clone, Debug)]
pub struct Presser<T> {
    timing: PressTiming,
    /// Presses whose effect RAM has not shown yet, oldest first.
    pending: std::collections::VecDeque<Pending<T>>,
    /// Buttons held during the last frame ([`Presser::end_frame`]).
    held: u8,
    /// Frames those buttons have been held.
    held_for: u32,
    /// Frames since the last press was made.
    since_press: u32,
}

impl<T: Copy> Presser<T> {
    /// A presser with no press in flight.
    pub fn new(timing: PressTiming) -> Presser<T> {
        Presser { timing, pending: Default::default(), held: 0, held_for: 0, since_press: u32::MAX / 2 }
    }

    /// The timing.
    pub fn timing(&self) -> PressTiming {
        self.timing
    }

    /// Changes the timing (a press in flight goes on under the new one).
    pub fn set_timing(&mut self, timing: PressTiming) {
        self.timing = timing;
    }

    /// True while a press is in flight.
    pub fn in_flight(&self) -> bool {
        !self.pending.is_empty()
    }

    /// Forgets the presses in flight (the piece locked, or the plan changed).
    pub fn cancel(&mut self) {
        self.pending.clear();
    }

    /// Frames since the last press was made (large before any).
    pub fn since_press(&self) -> u32 {
        self.since_press
    }

    /// Presses `button` to act on the pose `before` (what RAM shows now, or with presses in flight the pose
    /// they are expected to leave), attaching `what`. `None` when the same button was down during the last
    /// frame: the game reacts to a new press, so let go for a frame and press again then.
    pub fn press(&mut self, button: u8, before: Pose, what: T) -> Option<u8> {
        if self.held & button != 0 {
            return None;
        }
        self.pending.push_back(Pending { button, before, frames: 0, what });
        self.since_press = 0;
        Some(button)
    }

    /// Follows the oldest press in flight with the pose RAM shows this frame; `None` when none is in
    /// flight. The buttons to hold are those of every press still within its hold (the oldest one's
    /// until its effect shows when the timing holds while waiting).
    pub fn watch(&mut self, now: Pose) -> Option<Progress<T>> {
        for p in self.pending.iter_mut() {
            p.frames += 1;
        }
        let p = self.pending.front()?;
        let shown = match self.timing.effect {
            Effect::Moved => now != p.before,
            Effect::ByButton if p.button & (pad::LEFT | pad::RIGHT) != 0 => now.x != p.before.x,
            Effect::ByButton => now.turn != p.before.turn,
        };
        let t = self.timing;
        if shown || p.frames >= t.hold + t.patience {
            let what = p.what;
            self.pending.pop_front();
            return Some(if shown { Progress::Shown(what) } else { Progress::Refused(what) });
        }
        let held = self.pending.iter().enumerate().fold(0u8, |held, (i, p)| {
            let hold = (t.hold_while_waiting && i == 0) || p.frames < t.hold;
            held | if hold { p.button } else { 0 }
        });
        Some(if held != 0 { Progress::Hold(held) } else { Progress::Wait })
    }

    /// The last frame's press, while it has been held fewer than `hold` frames (a soft drop is no press);
    /// else nothing.
    pub fn keep_holding(&self) -> u8 {
        if self.held != pad::DOWN && self.held_for < self.timing.hold { self.held } else { 0 }
    }

    /// The buttons held during the last frame.
    pub fn held(&self) -> u8 {
        self.held
    }

    /// Records the buttons held during the frame. Call once every frame, whatever was held.
    pub fn end_frame(&mut self, buttons: u8) {
        if buttons != 0 && buttons == self.held {
            self.held_for += 1;
        } else {
            self.held_for = u32::from(buttons != 0);
        }
        self.held = buttons;
        self.since_press = self.since_press.saturating_add(1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const AT: Pose = Pose { x: 3, turn: 0 };

    fn timing(hold_while_waiting: bool, effect: Effect) -> PressTiming {
        PressTiming { hold: 2, patience: 3, hold_while_waiting, effect }
    }

    /// Runs a press that RAM never answers; the buttons of each frame and how it ended.
    fn unanswered(t: PressTiming) -> (Vec<u8>, Progress<()>) {
        let mut p = Presser::new(t);
        let mut frames = vec![p.press(pad::A, AT, ()).expect("nothing held before")];
        p.end_frame(frames[0]);
        loop {
            match p.watch(AT).expect("in flight") {
                Progress::Hold(b) => frames.push(b),
                Progress::Wait => frames.push(0),
                end => return (frames, end),
            }
            p.end_frame(*frames.last().unwrap());
        }
    }

    #[test]
    fn an_unanswered_press_is_refused_hold_plus_patience_frames_after_it_was_made() {
        let (frames, end) = unanswered(timing(false, Effect::ByButton));
        assert_eq!(frames, [pad::A, pad::A, 0, 0, 0]);
        assert_eq!(end, Progress::Refused(()));
        let (frames, end) = unanswered(timing(true, Effect::Moved));
        assert_eq!(frames, [pad::A; 5]);
        assert_eq!(end, Progress::Refused(()));
    }

    #[test]
    fn the_effect_ends_the_press_by_the_rule_of_the_timing() {
        let turned = Pose { x: 4, turn: 1 };
        let shifted = Pose { x: 4, turn: 0 };
        let mut p = Presser::new(timing(false, Effect::ByButton));
        p.press(pad::A, AT, 7).unwrap();
        // X alone moving is no turn's effect: still holding.
        assert_eq!(p.watch(shifted), Some(Progress::Hold(pad::A)));
        assert_eq!(p.watch(turned), Some(Progress::Shown(7)));
        assert!(!p.in_flight() && p.watch(turned).is_none());
        p.press(pad::LEFT, AT, 8).unwrap();
        assert_eq!(p.watch(Pose { x: 3, turn: 1 }), Some(Progress::Hold(pad::LEFT)));
        assert_eq!(p.watch(shifted), Some(Progress::Shown(8)));
        let mut p = Presser::new(timing(true, Effect::Moved));
        p.press(pad::A, AT, 9).unwrap();
        assert_eq!(p.watch(shifted), Some(Progress::Shown(9)));
    }

    #[test]
    fn the_same_button_is_let_go_for_a_frame_before_it_is_pressed_again() {
        let mut p = Presser::<()>::new(timing(true, Effect::Moved));
        p.end_frame(pad::RIGHT);
        assert_eq!(p.press(pad::RIGHT, AT, ()), None);
        assert!(!p.in_flight());
        assert_eq!(p.press(pad::A, AT, ()), Some(pad::A), "another button needs no release");
        p.end_frame(0);
        assert_eq!(p.press(pad::RIGHT, AT, ()), Some(pad::RIGHT));
        assert_eq!(p.since_press(), 0);
    }

    #[test]
    fn presses_made_ahead_of_their_effects_are_awaited_in_order() {
        let t = PressTiming { hold: 1, patience: 6, hold_while_waiting: false, effect: Effect::Moved };
        let mut p = Presser::new(t);
        let right = Pose { x: 4, turn: 0 };
        let turned = Pose { x: 4, turn: 1 };
        assert_eq!(p.press(pad::RIGHT, AT, 1), Some(pad::RIGHT));
        p.end_frame(pad::RIGHT);
        assert_eq!(p.watch(AT), Some(Progress::Wait), "held its one frame, no effect yet");
        p.end_frame(0);
        // The turn, made before the move has shown, acts on the pose the move leaves.
        assert_eq!(p.press(pad::A, right, 2), Some(pad::A));
        p.end_frame(pad::A);
        assert_eq!(p.watch(AT), Some(Progress::Wait));
        assert_eq!(p.watch(right), Some(Progress::Shown(1)), "the move first");
        assert!(p.in_flight());
        assert_eq!(p.watch(right), Some(Progress::Wait));
        assert_eq!(p.watch(turned), Some(Progress::Shown(2)));
        assert!(!p.in_flight());
        // A press whose effect never shows is refused with the later ones still awaited.
        p.press(pad::LEFT, AT, 3).unwrap();
        p.end_frame(pad::LEFT);
        p.end_frame(0);
        p.press(pad::B, AT, 4).unwrap();
        let ends: Vec<_> = (0..8)
            .filter_map(|_| match p.watch(AT) {
                Some(Progress::Refused(k)) => Some(k),
                _ => None,
            })
            .collect();
        assert_eq!(ends, [3, 4]);
    }

    #[test]
    fn a_press_is_kept_down_for_its_hold_but_a_soft_drop_is_not() {
        let mut p = Presser::<()>::new(timing(true, Effect::Moved));
        p.press(pad::B, AT, ()).unwrap();
        p.end_frame(pad::B);
        assert_eq!(p.keep_holding(), pad::B);
        p.end_frame(pad::B);
        assert_eq!(p.keep_holding(), 0);
        assert_eq!(p.since_press(), 2);
        p.end_frame(pad::DOWN);
        assert_eq!(p.keep_holding(), 0);
    }
}
