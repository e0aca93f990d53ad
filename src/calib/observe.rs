//! Passive observation of one player: from consecutive frames of raw RAM and the pad bytes, the events
//! the learner reasons about (a piece appears, the orientation byte changes, a piece locks and cells
//! appear). Nothing here assumes which buttons are pressed or when, so a trace of a person playing
//! gives the same kind of events as the bot's opening.

use std::collections::VecDeque;

use crate::emu::pad;
use crate::memmap::raw::{RawField, View};

use super::types::{MAX_LAG, TurnButton};

/// Frames back in which a new press may explain a change (the game may react a frame or two late), beyond
/// the game's input lag once measured ([`Observer::set_input_lag`]).
const PRESS_WINDOW: usize = 3;

/// Frames after a lock within which the pair's cells must appear in the field.
const LOCK_WATCH_FRAMES: u32 = 90;

/// A new piece became movable.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpawnSeen {
    /// Its pivot and child bytes.
    pub pivot: u8,
    /// The child byte.
    pub child: u8,
    /// X, Y and orientation bytes on its first movable frame.
    pub x: u8,
    /// Y byte.
    pub y: u8,
    /// Orientation byte.
    pub o: u8,
    /// The next-pair bytes on the last movable frame of the piece before (`None` for the first piece):
    /// the pair they showed should be this one, in the next bytes' own code table.
    pub next_before: Option<(u8, u8)>,
    /// Movable frames of the piece before after its first (the next bytes it showed count only when it
    /// lived past the next bytes' lag).
    pub frames_before: u32,
}

/// The orientation byte changed while the piece could move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TurnSeen {
    /// Orientation before and after.
    pub from: u8,
    /// Orientation after.
    pub to: u8,
    /// X / Y before.
    pub xy: (u8, u8),
    /// X / Y after.
    pub xy_after: (u8, u8),
    /// The button newly pressed just before, when exactly one of A / B was.
    pub button: Option<TurnButton>,
    /// Left or Right was held in the frames that may have caused the change.
    pub sideways: bool,
    /// The field on the frame before (to judge whether a kick was possible).
    pub field: Box<RawField>,
}

/// A piece stopped being movable: its last movable state and the field until its cells showed up.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LockSeen {
    /// Pivot / child bytes of the piece.
    pub pivot: u8,
    /// Child byte.
    pub child: u8,
    /// X, Y, orientation on the last movable frame.
    pub x: u8,
    /// Y byte.
    pub y: u8,
    /// Orientation byte.
    pub o: u8,
    /// X, Y, orientation on the frame the lock showed (the first one the piece could not move), when
    /// they differ from the last movable frame's: a turn or a fall made on the lock's own frame shows
    /// only there.
    pub late: Option<(u8, u8, u8)>,
    /// The field on the last movable frame.
    pub before: Box<RawField>,
    /// The field on the first later frame in which at least two cells differ in one cell byte (or when
    /// the watch ran out).
    pub after: Box<RawField>,
}

/// What one frame showed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// A piece became movable (`first` on the first one this observer saw).
    Spawn {
        /// The piece.
        seen: SpawnSeen,
        /// The field on that frame.
        field: Box<RawField>,
        /// The first movable piece of this observer.
        first: bool,
    },
    /// The orientation byte changed.
    Turn(TurnSeen),
    /// A piece locked.
    Lock(LockSeen),
    /// A or B was newly pressed while the piece could move and the orientation did not change.
    TurnRefused(RefusedSeen),
    /// The next-pair bytes changed while the piece could move, `frames` frames after its first movable
    /// frame (a slide animation: until then they showed something else than the next pair).
    NextChanged {
        /// Frames after the first movable frame.
        frames: u32,
    },
}

/// A turn press that changed nothing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RefusedSeen {
    /// The button.
    pub button: TurnButton,
    /// X, Y, orientation when it was pressed.
    pub x: u8,
    /// Y byte.
    pub y: u8,
    /// Orientation byte.
    pub o: u8,
    /// The field when it was pressed.
    pub field: Box<RawField>,
}

/// X, Y, orientation and the field on a frame the piece could move.
type Pose = (u8, u8, u8, Box<RawField>);

#[derive(Clone, Debug)]
struct Watch {
    lock: LockSeen,
    frames: u32,
}

/// One player's observer.
#[derive(Clone, Debug, Default)]
pub struct Observer {
    prev: Option<View>,
    /// Pads of the last frames, newest first: (held, newly pressed).
    pads: VecDeque<(u8, u8)>,
    /// For the same frames: the piece's X, Y, orientation and the field, when it could move.
    poses: VecDeque<Option<Pose>>,
    watch: Option<Watch>,
    seen_piece: bool,
    /// Pieces seen locking.
    pub locks: u32,
    /// The next-pair bytes on the last movable frame seen.
    last_active_next: Option<(u8, u8)>,
    /// Movable frames of the piece under way (its first is 0).
    active_frames: u32,
    /// The field on the piece's first movable frame: what its lock changed is measured from it (an item
    /// whose lock the timer marks only later has changed the field by then).
    spawn_field: Option<Box<RawField>>,
    /// The game's input lag as measured: a press explains a change this many frames later than it would
    /// without lag.
    lag: usize,
}

impl Observer {
    /// The last frame's view.
    pub fn view(&self) -> Option<&View> {
        self.prev.as_ref()
    }

    /// Sets the game's input lag: presses are matched with changes up to this many frames later.
    pub fn set_input_lag(&mut self, frames: u32) {
        self.lag = (frames as usize).min(MAX_LAG as usize);
    }

    /// Frames back in which a new press may explain a change.
    fn window(&self) -> usize {
        PRESS_WINDOW + self.lag
    }

    /// Feeds one frame: the player's bytes at its start and the pad held during it.
    pub fn step(&mut self, view: View, pad_held: u8) -> Vec<Event> {
        let mut out = Vec::new();
        self.end_lock_watch(&view, &mut out);
        match self.prev.take() {
            Some(prev) => self.changes_since(&prev, &view, &mut out),
            None if view.active => out.push(self.spawn(&view)),
            None => {}
        }
        self.remember_pads(&view, pad_held, &mut out);
        if view.active {
            self.last_active_next = Some(view.next);
        }
        self.prev = Some(view);
        out
    }

    /// A lock being watched ends once the field has changed (or the next piece is movable, or the watch
    /// has run its frames): the lock is told with the field after it.
    fn end_lock_watch(&mut self, view: &View, out: &mut Vec<Event>) {
        if let Some(w) = self.watch.as_mut() {
            w.frames += 1;
            let changed = (0..view.cell_bytes)
                .map(|k| view.cells.iter().zip(w.lock.before.iter()).filter(|(a, b)| a[k] != b[k]).count())
                .max()
                .unwrap_or(0);
            let respawn = view.active && self.prev.as_ref().is_some_and(|p| !p.active);
            if changed >= 2 || respawn || w.frames >= LOCK_WATCH_FRAMES {
                let mut w = self.watch.take().map(|w| w.lock);
                if let Some(l) = w.as_mut() {
                    // On a respawn the new frame may already hold the next piece's moves; the previous
                    // frame is the last one that belongs to this lock.
                    *l.after = if respawn && changed < 2 {
                        self.prev.as_ref().map_or(view.cells, |p| p.cells)
                    } else {
                        view.cells
                    };
                }
                out.extend(w.map(Event::Lock));
            }
        }
    }

    /// What changed since the previous frame: the next pair, a spawn, a turn, or a lock beginning.
    fn changes_since(&mut self, prev: &View, view: &View, out: &mut Vec<Event>) {
        if view.active && prev.active {
            self.active_frames += 1;
            if view.next != prev.next {
                out.push(Event::NextChanged { frames: self.active_frames });
            }
        }
        if view.active && !prev.active {
            out.push(self.spawn(view));
        } else if view.active && prev.active && view.o != prev.o {
            let window = self.window();
            out.push(Event::Turn(TurnSeen {
                from: prev.o,
                to: view.o,
                xy: (prev.x, prev.y),
                xy_after: (view.x, view.y),
                button: self.take_turn_button(),
                sideways: self.pads.iter().take(window).any(|&(h, _)| h & (pad::LEFT | pad::RIGHT) != 0),
                field: Box::new(prev.cells),
            }));
        } else if !view.active && prev.active {
            self.start_lock_watch(prev, view);
        }
    }

    /// The piece stopped being movable: watch the field for its lock.
    fn start_lock_watch(&mut self, prev: &View, view: &View) {
        self.locks += 1;
        self.watch = Some(Watch {
            lock: LockSeen {
                pivot: prev.pivot,
                child: prev.child,
                x: prev.x,
                y: prev.y,
                o: prev.o,
                late: ((view.x, view.y, view.o) != (prev.x, prev.y, prev.o)).then_some((view.x, view.y, view.o)),
                before: self.spawn_field.take().unwrap_or_else(|| Box::new(prev.cells)),
                after: Box::new(prev.cells),
            },
            frames: 0,
        });
    }

    /// Keeps the last frames' pads and poses, and tells a turn press that has left the window without
    /// explaining a turn as refused.
    fn remember_pads(&mut self, view: &View, pad_held: u8, out: &mut Vec<Event>) {
        let last_held = self.pads.front().map_or(0, |&(h, _)| h);
        self.pads.push_front((pad_held, pad_held & !last_held));
        self.poses.push_front(view.active.then(|| (view.x, view.y, view.o, Box::new(view.cells))));
        let window = self.window();
        self.pads.truncate(window + 1);
        self.poses.truncate(window + 1);
        // A turn press that has just left the window without explaining a turn was refused, if the
        // piece could move all along and still shows the same orientation.
        if let (Some(&(_, new)), Some(Some((x, y, o, field)))) = (self.pads.get(window), self.poses.get(window)) {
            let button = match (new & pad::A != 0, new & pad::B != 0) {
                (true, false) => Some(TurnButton::A),
                (false, true) => Some(TurnButton::B),
                _ => None,
            };
            let still = view.active && view.o == *o && self.poses.iter().all(|p| p.is_some());
            if let Some(button) = button.filter(|_| still) {
                out.push(Event::TurnRefused(RefusedSeen { button, x: *x, y: *y, o: *o, field: field.clone() }));
            }
        }
    }

    fn spawn(&mut self, view: &View) -> Event {
        let first = !self.seen_piece;
        self.seen_piece = true;
        let frames_before = std::mem::take(&mut self.active_frames);
        self.spawn_field = Some(Box::new(view.cells));
        let next_before = self.last_active_next;
        Event::Spawn {
            seen: SpawnSeen {
                pivot: view.pivot,
                child: view.child,
                x: view.x,
                y: view.y,
                o: view.o,
                next_before,
                frames_before,
            },
            field: Box::new(view.cells),
            first,
        }
    }

    /// The one rotation button newly pressed in the last frames, consumed so one press explains one turn.
    fn take_turn_button(&mut self) -> Option<TurnButton> {
        let mut found: Option<(usize, TurnButton)> = None;
        let window = self.window();
        for (i, &(_, new)) in self.pads.iter().enumerate().take(window) {
            let a = new & pad::A != 0;
            let b = new & pad::B != 0;
            let this = match (a, b) {
                (true, false) => TurnButton::A,
                (false, true) => TurnButton::B,
                (true, true) => return None,
                (false, false) => continue,
            };
            if found.is_some_and(|(_, f)| f != this) {
                return None;
            }
            found.get_or_insert((i, this));
        }
        let (i, b) = found?;
        if let Some(p) = self.pads.get_mut(i) {
            p.1 &= !(pad::A | pad::B);
        }
        Some(b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view(x: u8, y: u8, o: u8, active: bool) -> View {
        View { x, y, o, active, cell_bytes: 2, ..View::default() }
    }

    /// The events of a piece turned with A on its frame 2, the turn showing `shows` frames later.
    fn turn_after(lag: u32, shows: u32) -> Vec<Event> {
        let mut obs = Observer::default();
        obs.set_input_lag(lag);
        let mut events = obs.step(view(3, 1, 0, false), 0);
        for f in 1..12u32 {
            let o = if f >= 2 + 1 + shows { 1 } else { 0 };
            events.extend(obs.step(view(3, 1, o, true), if f == 2 { pad::A } else { 0 }));
        }
        events
    }

    fn turn_button(events: &[Event]) -> Option<Option<TurnButton>> {
        events.iter().find_map(|e| if let Event::Turn(t) = e { Some(t.button) } else { None })
    }

    #[test]
    fn a_press_explains_a_turn_the_input_lag_later() {
        assert_eq!(turn_button(&turn_after(0, 0)), Some(Some(TurnButton::A)));
        // Four frames late: without the lag the press has left the window and counts as refused.
        let unlagged = turn_after(0, 4);
        assert_eq!(turn_button(&unlagged), Some(None));
        assert!(unlagged.iter().any(|e| matches!(e, Event::TurnRefused(_))));
        let lagged = turn_after(3, 4);
        assert_eq!(turn_button(&lagged), Some(Some(TurnButton::A)));
        assert!(!lagged.iter().any(|e| matches!(e, Event::TurnRefused(_))));
    }

    #[test]
    fn a_lock_keeps_the_pose_its_own_frame_showed() {
        let mut obs = Observer::default();
        obs.step(view(3, 1, 0, false), 0);
        obs.step(view(3, 11, 0, true), 0);
        // The pair turned and fell on the frame it locked.
        obs.step(view(3, 12, 1, false), 0);
        let mut cells = [[0u8; crate::memmap::raw::MAX_CELL_BYTES]; crate::memmap::raw::CELLS];
        cells[0][0] = 1;
        cells[1][0] = 2;
        let filled = View { cells, ..view(3, 12, 1, false) };
        let events = obs.step(filled, 0);
        let lock = events.iter().find_map(|e| if let Event::Lock(l) = e { Some(l.clone()) } else { None });
        let lock = lock.expect("the lock is seen once the field changes");
        assert_eq!((lock.x, lock.y, lock.o), (3, 11, 0));
        assert_eq!(lock.late, Some((3, 12, 1)));
    }
}
