//! The one press executor: a button pressed closed loop on RAM.
//!
//! A [`Presser`] makes one press at a time: it presses a button (letting go for a frame first when the
//! same button was down on the frame before, since the game reacts to new presses), holds it as its
//! [`PressTiming`] says, watches the pose RAM shows for the press's effect, and gives up after a patience.
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

/// Makes presses one at a time, closed loop on RAM. `T` is what the caller attaches to a press (the step
/// and the pose the model expects, say) and gets back when it is over.
#[derive(Clone, Debug)]
pub struct Presser<T> {
    timing: PressTiming,
    pending: Option<Pending<T>>,
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
        Presser { timing, pending: None, held: 0, held_for: 0, since_press: u32::MAX / 2 }
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
        self.pending.is_some()
    }

    /// Forgets the press in flight (the piece locked, or the plan changed).
    pub fn cancel(&mut self) {
        self.pending = None;
    }

    /// Frames since the last press was made (large before any).
    pub fn since_press(&self) -> u32 {
        self.since_press
    }

    /// Presses `button` from the pose RAM shows now, attaching `what`. `None` when the same button was down
    /// during the last frame: the game reacts to a new press, so let go for a frame and press again then.
    pub fn press(&mut self, button: u8, before: Pose, what: T) -> Option<u8> {
        if self.held & button != 0 {
            return None;
        }
        self.pending = Some(Pending { button, before, frames: 0, what });
        self.since_press = 0;
        Some(button)
    }

    /// Follows the press in flight with the pose RAM shows this frame; `None` when none is in flight.
    pub fn watch(&mut self, now: Pose) -> Option<Progress<T>> {
        let p = self.pending.as_mut()?;
        p.frames += 1;
        let shown = match self.timing.effect {
            Effect::Moved => now != p.before,
            Effect::ByButton if p.button & (pad::LEFT | pad::RIGHT) != 0 => now.x != p.before.x,
            Effect::ByButton => now.turn != p.before.turn,
        };
        let t = self.timing;
        if shown {
            let what = p.what;
            self.pending = None;
            return Some(Progress::Shown(what));
        }
        if p.frames >= t.hold + t.patience {
            let what = p.what;
            self.pending = None;
            return Some(Progress::Refused(what));
        }
        Some(if t.hold_while_waiting || p.frames < t.hold { Progress::Hold(p.button) } else { Progress::Wait })
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
