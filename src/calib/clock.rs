//! The game's clock, measured per player from what the pose bytes do (nothing is taken from the
//! cartridge's numbers, and the level byte is not needed):
//! - **gravity**: frames between two one-row falls of a piece while Down was not held (re-measured every
//!   piece: it changes with the level);
//! - **soft drop**: the same while Down was held all along;
//! - **lock delay**: frames from the frame a piece fell into the row it locked in to its lock, when Down
//!   was not held (0: it locked on the very frame it got there); whether moves and turns still work
//!   while it waits (a move or turn seen after it landed and before it locked);
//! - **input lag**: frames from a new Left / Right press to the X byte moving that way (or A / B to the
//!   orientation byte changing), minus the one frame every press takes;
//! - **auto-repeat**: frames between moves while Left / Right stays held (only seen when it is held long);
//! - **spawn delay**: frames from a lock to the next piece's first movable frame (the shortest seen: a
//!   chain makes it longer).
//!
//! Only the order of frames is used, never a byte's value range: a fall is the Y byte growing by one
//! while the orientation byte stays, whatever the bases, and whichever puyo X / Y follow. Pose bytes
//! written a few frames late shift every change alike, so the differences measured do not move.

use std::collections::BTreeMap;

use crate::emu::pad;

use super::fact::{Contradictions, FactLearner, Known, PlayerFrame};
use super::report::{ClockReport, ClockSamples};
use super::types::MAX_LAG;

/// Frames of a press beyond the lag within which its effect is looked for.
const EFFECT_SLACK: u64 = 4;

/// Counts of the values seen of one measurement.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Tally(BTreeMap<u16, u32>);

impl Tally {
    fn add(&mut self, v: u64) {
        *self.0.entry(v.min(u16::MAX as u64) as u16).or_default() += 1;
    }

    /// The value seen most often (the smaller on a tie).
    fn mode(&self) -> Option<u16> {
        self.0.iter().max_by_key(|&(v, c)| (*c, std::cmp::Reverse(*v))).map(|(v, _)| *v)
    }

    fn min(&self) -> Option<u16> {
        self.0.keys().next().copied()
    }

    /// The smallest value that holds at least a tenth of the samples: the floor of a measure that a
    /// jittery link spreads upwards, without the rare stray sample below it.
    fn floor(&self) -> Option<u16> {
        let n = self.count();
        self.0.iter().find(|&(_, &c)| c * 10 >= n).map(|(v, _)| *v)
    }

    /// The largest value that holds at least a tenth of the samples.
    fn ceiling(&self) -> Option<u16> {
        let n = self.count();
        self.0.iter().rev().find(|&(_, &c)| c * 10 >= n).map(|(v, _)| *v)
    }

    /// The value seen most often among those seen at least twice.
    fn repeated(&self) -> Option<u16> {
        self.0.iter().filter(|&(_, &c)| c >= 2).max_by_key(|&(v, c)| (*c, std::cmp::Reverse(*v))).map(|(v, _)| *v)
    }

    fn count(&self) -> u32 {
        self.0.values().sum()
    }
}

/// A new press waiting for its effect.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Pending {
    frame: u64,
    button: u8,
}

/// One player's clock, followed frame by frame: what the frames before showed, the piece under way, and
/// what was measured.
#[derive(Clone, Debug, Default)]
pub struct PlayerClock {
    /// What the frames just before showed.
    recent: RecentFrames,
    /// The piece under way.
    piece: PieceWatch,
    /// What was measured over every piece.
    measured: Measured,
}

/// What the frames before this one showed: the pose and the pad, when Down and the sides were last
/// held, and the last lock.
#[derive(Clone, Debug, Default)]
struct RecentFrames {
    /// X, Y, orientation and whether the piece could move, on the frame before.
    prev: Option<(u8, u8, u8, bool)>,
    /// The pad of the frame before.
    prev_pad: u8,
    /// The last frame Down was held.
    last_down: Option<u64>,
    /// The first frame of the run of frames Down is held in (None while not held).
    down_since: Option<u64>,
    /// The last frame Left or Right was not held.
    last_no_side: u64,
    /// The frame of the last lock (for the spawn delay).
    lock_frame: Option<u64>,
}

/// The piece under way: its falls and moves, the gravity it showed, and its presses awaiting their effect.
#[derive(Clone, Debug, Default)]
struct PieceWatch {
    /// The frame the piece under way last fell a row.
    last_fall: Option<u64>,
    /// The frame the piece under way last moved sideways.
    last_move: Option<u64>,
    /// The piece under way moved or turned after its last fall.
    moved_since_fall: bool,
    /// Gravity intervals of the piece under way.
    gravity: Tally,
    /// Gravity intervals of the last piece before it that showed any.
    previous_gravity: Tally,
    /// The piece under way has shown its gravity for sure.
    confirmed: bool,
    /// New presses waiting for their effect.
    pending: Vec<Pending>,
    /// Frames of the presses of the piece under way that showed no effect in time.
    unanswered: Vec<u64>,
    /// The first frame of the piece's present pose (X, Y and orientation unchanged since).
    pose_since: u64,
    /// The frame the piece under way last changed row, by a fall or by a turn (a fall on the frame of a
    /// turn is not counted as a fall, but the piece did leave its row).
    last_row_change: Option<u64>,
    /// The frame of the first move or turn after the piece's last change of row (None: none since).
    first_move_in_row: Option<u64>,
}

/// What was measured over every piece: the samples of each fact, and the gravity as it stands.
#[derive(Clone, Debug, Default)]
struct Measured {
    /// Gravity of the latest piece that showed it, and the range seen.
    gravity_now: Option<u16>,
    gravity_range: Option<(u16, u16)>,
    /// Pieces that showed their gravity for sure.
    gravity_pieces: u32,
    /// Gravity intervals (falls with Down not held), soft-drop intervals, lock delays, input lags, spawn
    /// delays and auto-repeat intervals, as seen.
    gravity: Tally,
    soft: Tally,
    lock: Tally,
    lag: Tally,
    spawn: Tally,
    repeat: Tally,
    /// Moves or turns seen while a piece was known to be landed (see `moved_after_fall`).
    moved_grounded: u32,
    /// Presses that showed no effect while their piece was known to be landed (see `locked`).
    refused_grounded: u32,
}

impl PlayerClock {
    /// The input lag as measured, or the longest looked for while none is measured.
    fn lag_bound(&self) -> u64 {
        self.measured.lag.ceiling().map_or(MAX_LAG as u64, |l| l as u64)
    }

    /// True when Down was not held in any frame from `from` on.
    fn down_free_since(&self, from: u64) -> bool {
        self.recent.last_down.is_none_or(|d| d < from)
    }

    /// Feeds one frame: `frame` its number, the pose (X, Y, orientation, movable) and the pad held in it.
    pub fn step(&mut self, frame: u64, pose: (u8, u8, u8, bool), pad_held: u8) {
        let (x, y, o, active) = pose;
        let reach = self.lag_bound() + 2;
        if self.recent.prev.is_none_or(|(px, py, po, _)| (px, py, po) != (x, y, o)) {
            self.piece.pose_since = frame;
        }
        if let Some((px, py, po, pactive)) = self.recent.prev {
            if active && !pactive {
                self.spawned(frame);
            } else if active && pactive {
                if y == py.wrapping_add(1) && o == po {
                    self.fell(frame, reach);
                } else if y != py {
                    self.piece.last_row_change = Some(frame);
                    self.piece.first_move_in_row = None;
                }
                if o != po {
                    self.effect(frame, &[pad::A, pad::B], None);
                    self.moved_after_fall(frame, reach);
                } else if x != px {
                    let button = if x < px { pad::LEFT } else { pad::RIGHT };
                    self.effect(frame, &[button], Some(button));
                    self.moved_after_fall(frame, reach);
                }
            } else if !active && pactive {
                self.locked(frame, y > py && o == po, reach);
            }
        }
        // The pad held in this frame.
        let new = pad_held & !self.recent.prev_pad;
        if active {
            for b in [pad::LEFT, pad::RIGHT, pad::A, pad::B] {
                if new & b != 0 {
                    self.piece.pending.push(Pending { frame, button: b });
                }
            }
        }
        let window = self.lag_bound() + EFFECT_SLACK;
        let unanswered = &mut self.piece.unanswered;
        self.piece.pending.retain(|p| {
            let waiting = frame <= p.frame + window;
            if !waiting {
                unanswered.push(p.frame);
            }
            waiting
        });
        if pad_held & pad::DOWN != 0 {
            self.recent.last_down = Some(frame);
            self.recent.down_since.get_or_insert(frame);
        } else {
            self.recent.down_since = None;
        }
        if pad_held & (pad::LEFT | pad::RIGHT) == 0 {
            self.recent.last_no_side = frame;
        }
        self.recent.prev_pad = pad_held;
        self.recent.prev = Some((x, y, o, active));
    }

    fn spawned(&mut self, frame: u64) {
        if let Some(l) = self.recent.lock_frame.take() {
            self.measured.spawn.add(frame - l);
        }
        self.piece.last_fall = None;
        self.piece.last_move = None;
        self.piece.moved_since_fall = false;
        self.piece.first_move_in_row = None;
        self.piece.last_row_change = None;
        self.piece.unanswered.clear();
        if self.piece.gravity.count() > 0 {
            self.piece.previous_gravity = std::mem::take(&mut self.piece.gravity);
        }
        self.piece.confirmed = false;
        self.piece.pending.clear();
    }

    /// The piece fell a row on this frame.
    fn fell(&mut self, frame: u64, reach: u64) {
        // Moves and turns between the two falls do not disqualify them: the Y byte grows only on a fall
        // (a frame whose turn changed the orientation is never counted as one).
        if let Some(t0) = self.piece.last_fall {
            let since = t0.saturating_sub(reach);
            let interval = frame - t0;
            if self.down_free_since(since) {
                self.piece.gravity.add(interval);
                self.measured.gravity.add(interval);
                if let Some(g) = self.confirmed_gravity() {
                    if !self.piece.confirmed {
                        self.piece.confirmed = true;
                        self.measured.gravity_pieces += 1;
                    }
                    self.measured.gravity_now = Some(g);
                    self.measured.gravity_range = Some(match self.measured.gravity_range {
                        None => (g, g),
                        Some((lo, hi)) => (lo.min(g), hi.max(g)),
                    });
                }
            } else if self.recent.down_since.is_some_and(|d| d <= since) && self.recent.last_down == Some(frame - 1) {
                self.measured.soft.add(interval);
            }
        }
        self.piece.last_fall = Some(frame);
        self.piece.last_row_change = Some(frame);
        self.piece.moved_since_fall = false;
        self.piece.first_move_in_row = None;
    }

    /// The gravity the piece under way shows for sure: an interval seen twice among its own, or once when
    /// the last piece before it that showed any showed it too. One interval alone is not enough: a press
    /// the link invented (a Down nobody held) or a fall hidden by a turn on the same frame gives an
    /// interval gravity never had, and the search and the driver play on the clock measured.
    fn confirmed_gravity(&self) -> Option<u16> {
        self.piece.gravity.repeated().or_else(|| {
            self.piece.gravity.0.keys().rev().find(|v| self.piece.previous_gravity.0.contains_key(v)).copied()
        })
    }

    /// The piece moved or turned on this frame. It is known to have been landed when it stayed in its row
    /// longer than its gravity allows with Down not held: then the move is a move during the lock delay.
    /// (A move soon after a fall proves nothing: the piece may have been in the air and moved onto a
    /// ledge, which is how a game that ignores the pad once landed still shows a move before a lock.)
    fn moved_after_fall(&mut self, frame: u64, reach: u64) {
        let (Some(_), Some(t0)) = (self.piece.last_fall, self.piece.last_row_change) else { return };
        self.piece.moved_since_fall = true;
        if self.piece.last_row_change == Some(frame) {
            return;
        }
        self.piece.first_move_in_row.get_or_insert(frame);
        let gravity = self.confirmed_gravity().or(self.measured.gravity_range.map(|(_, hi)| hi));
        if let Some(g) = gravity
            && frame > t0 + g as u64 + 1
            && self.down_free_since(t0.saturating_sub(reach))
        {
            self.measured.moved_grounded += 1;
        }
    }

    /// The X or orientation byte changed: the press it answers is a sample of the input lag (only when one
    /// press of those buttons waited, so the effect is not shared); a move while Left / Right stayed held
    /// and no press waited is an auto-repeat.
    fn effect(&mut self, frame: u64, buttons: &[u8], side: Option<u8>) {
        let waiting: Vec<Pending> =
            self.piece.pending.iter().filter(|p| buttons.contains(&p.button)).copied().collect();
        self.piece.pending.retain(|p| !buttons.contains(&p.button));
        if let [p] = waiting[..] {
            self.measured.lag.add(frame - p.frame - 1);
        } else if waiting.is_empty()
            && let (Some(b), Some(m)) = (side, self.piece.last_move)
            && self.recent.prev_pad & b != 0
            && self.recent.last_no_side < m
        {
            self.measured.repeat.add(frame - m);
        }
        if side.is_some() {
            self.piece.last_move = Some(frame);
        }
    }

    /// The piece locked on this frame; `fell_now`: its Y grew by one on this very frame.
    fn locked(&mut self, frame: u64, fell_now: bool, reach: u64) {
        self.recent.lock_frame = Some(frame);
        let lag = self.lag_bound();
        let answer_by = frame.saturating_sub(lag + 1);
        self.piece.unanswered.extend(self.piece.pending.drain(..).filter(|p| p.frame < answer_by).map(|p| p.frame));
        // Presses the game ignored while the piece sat in the pose it locked in: the piece was landed
        // there all along (same place, same field), and the driver presses only where the movement model
        // sees room, so the pad does not move a landed piece. (Never on a lock without a delay: the piece
        // locks on the frame it lands.)
        let since = self.piece.pose_since;
        self.measured.refused_grounded +=
            self.piece.unanswered.iter().filter(|&&p| p >= since && p < answer_by).count() as u32;
        if fell_now {
            if self.down_free_since(frame.saturating_sub(reach + 1)) {
                self.measured.lock.add(0);
            }
            return;
        }
        let Some(landed) = self.piece.last_fall else { return };
        if self.piece.moved_since_fall {
            // A piece that moved a few frames after its last fall, stayed in that row and still locked
            // exactly the lock delay after the fall was landed when it moved: a move onto a ledge would
            // have started the wait later. (The move on the frame right after the fall is left out: the
            // game may not have noticed the landing yet.)
            let landed_when_moved = self.piece.first_move_in_row.is_some_and(|m| m >= landed + 3)
                && self.piece.last_row_change == Some(landed)
                && self.measured.lock.mode().is_some_and(|l| l > 0 && u64::from(l) == frame - landed)
                && self.down_free_since(landed.saturating_sub(reach));
            if landed_when_moved {
                self.measured.moved_grounded += 1;
            }
            return;
        }
        if self.down_free_since(landed.saturating_sub(reach)) {
            self.measured.lock.add(frame - landed);
        }
    }

    /// Whether moves and turns work while a landed piece waits: seen working, or seen ignored twice and
    /// never working (`None` until then).
    fn lock_moves(&self) -> Option<bool> {
        if self.measured.moved_grounded > 0 {
            Some(true)
        } else if self.measured.refused_grounded >= 2 {
            Some(false)
        } else {
            None
        }
    }

    /// What was measured so far.
    pub fn report(&self) -> ClockReport {
        ClockReport {
            frames_per_row: self.measured.gravity_now,
            frames_per_row_range: self.measured.gravity_range.map(|(lo, hi)| [lo, hi]),
            soft_drop: self.measured.soft.mode(),
            lock_delay: self.measured.lock.mode(),
            lock_moves: self.lock_moves(),
            input_lag: self.measured.lag.floor(),
            input_lag_jitter: self.measured.lag.ceiling().zip(self.measured.lag.floor()).map(|(hi, lo)| hi - lo),
            auto_repeat: self.measured.repeat.mode(),
            spawn_delay: self.measured.spawn.min(),
            samples: ClockSamples {
                gravity: self.measured.gravity.count(),
                gravity_pieces: self.measured.gravity_pieces,
                soft_drop: self.measured.soft.count(),
                lock: self.measured.lock.count(),
                input_lag: self.measured.lag.count(),
                spawn: self.measured.spawn.count(),
            },
        }
    }
}

/// Every player's clock.
#[derive(Clone, Debug, Default)]
pub struct ClockLearner {
    players: Vec<PlayerClock>,
}

impl ClockLearner {
    /// Player `player`'s measurements (all `null` for a player not seen).
    pub fn report(&self, player: usize) -> ClockReport {
        self.players.get(player).map(PlayerClock::report).unwrap_or_default()
    }

    /// Every seen player's measurements, in address-file order.
    pub fn reports(&self) -> Vec<ClockReport> {
        self.players.iter().map(PlayerClock::report).collect()
    }

    /// The latest a tenth of the presses took effect on any player, if any were matched: the window in
    /// which a press may still explain a change (the lag and its jitter).
    pub fn input_lag_window(&self) -> Option<u16> {
        self.players.iter().filter_map(|p| p.measured.lag.ceiling()).max()
    }
}

impl FactLearner for ClockLearner {
    fn observe(&mut self, seen: &PlayerFrame<'_>, _known: &Known, _found: &mut Contradictions) {
        if self.players.len() <= seen.player {
            self.players.resize_with(seen.player + 1, PlayerClock::default);
        }
        let v = seen.view;
        self.players[seen.player].step(seen.frame, (v.x, v.y, v.o, v.active), seen.pad);
    }

    fn reset(&mut self) {
        *self = ClockLearner::default();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::timing::LockDelay;

    /// A synthetic game: one player's frames from a small model of a falling pair.
    struct Game {
        clock: PlayerClock,
        frame: u64,
        x: u8,
        y: u8,
        o: u8,
    }

    impl Game {
        fn new() -> Game {
            Game { clock: PlayerClock::default(), frame: 0, x: 3, y: 1, o: 0 }
        }

        fn feed(&mut self, active: bool, pad: u8) {
            self.hold((self.x, self.y, self.o, active), pad, 1);
        }

        /// `frames` frames showing `pose` with `pad` held.
        fn hold(&mut self, pose: (u8, u8, u8, bool), pad: u8, frames: u32) {
            (self.x, self.y, self.o) = (pose.0, pose.1, pose.2);
            for _ in 0..frames {
                self.frame += 1;
                self.clock.step(self.frame, pose, pad);
            }
        }

        /// A piece spawned at x 3 falling `rows` rows at 10 frames per row; it is at row `rows + 1` on
        /// the frame it returns.
        fn fall(&mut self, rows: u8) {
            self.hold((3, 1, 0, false), 0, 5);
            for r in 1..=rows {
                self.hold((3, r, 0, true), 0, 10);
            }
            self.hold((3, rows + 1, 0, true), 0, 1);
        }

        /// `frames` frames of spawn delay, then a piece at the top.
        fn spawn(&mut self, frames: u32) {
            for _ in 0..frames {
                self.feed(false, 0);
            }
            (self.x, self.y, self.o) = (3, 1, 0);
        }

        /// A piece falling `rows` rows at `fpr` frames per row (Down held: `down`), then waiting `lock`
        /// frames on the floor; `press`: a Left pressed on frame `at` of its life with its effect `lag`
        /// frames later.
        fn piece(&mut self, fpr: u32, rows: u32, lock: u32, down: bool, press: Option<(u32, u32)>) {
            let pad_down = if down { pad::DOWN } else { 0 };
            let mut t = 0;
            let mut move_at = None;
            for r in 0..rows {
                for f in 0..fpr {
                    let last = r + 1 == rows && f + 1 == fpr && lock == 0;
                    if f + 1 == fpr {
                        self.y += 1;
                    }
                    if move_at == Some(t) {
                        self.x -= 1;
                    }
                    let mut pad_now = pad_down;
                    if let Some((at, lag)) = press
                        && at == t
                    {
                        pad_now |= pad::LEFT;
                        move_at = Some(t + 1 + lag);
                    }
                    self.feed(!last, pad_now);
                    t += 1;
                }
            }
            for f in 0..lock {
                self.feed(f + 1 < lock, pad_down);
            }
        }
    }

    #[test]
    fn gravity_lock_delay_and_spawn_delay_are_measured() {
        let mut g = Game::new();
        g.spawn(10);
        g.piece(30, 11, 16, false, None);
        g.spawn(12);
        g.piece(30, 11, 16, false, None);
        let r = g.clock.report();
        assert_eq!(r.frames_per_row, Some(30));
        assert_eq!(r.lock_delay, Some(16));
        // The lock frame and the 12 frames of delay after it.
        assert_eq!(r.spawn_delay, Some(13));
        assert_eq!(r.samples.gravity_pieces, 2);
    }

    #[test]
    fn gravity_is_measured_again_every_piece() {
        let mut g = Game::new();
        for fpr in [30, 20, 8, 2] {
            g.spawn(10);
            g.piece(fpr, 11, 1, false, None);
            assert_eq!(g.clock.report().frames_per_row, Some(fpr as u16));
        }
        let r = g.clock.report();
        assert_eq!(r.frames_per_row_range, Some([2, 30]));
        assert_eq!(r.lock_delay, Some(1));
    }

    #[test]
    fn no_lock_delay_is_a_lock_on_the_landing_frame() {
        let mut g = Game::new();
        g.spawn(10);
        g.piece(4, 11, 0, false, None);
        let r = g.clock.report();
        assert_eq!((r.frames_per_row, r.lock_delay), (Some(4), Some(0)));
        assert_eq!(r.timing(2).map(|t| t.lock), Some(LockDelay::None));
    }

    #[test]
    fn soft_drop_counts_apart_from_gravity() {
        let mut g = Game::new();
        g.spawn(10);
        g.piece(2, 11, 1, true, None);
        let r = g.clock.report();
        assert_eq!(r.soft_drop, Some(2));
        assert_eq!(r.frames_per_row, None, "a piece soft-dropped all the way shows no gravity");
        // Down locks at once: no lock-delay sample.
        assert_eq!(r.lock_delay, None);
        assert_eq!(r.timing(2), None);
    }

    #[test]
    fn input_lag_is_the_frames_from_press_to_effect() {
        for lag in [0, 3] {
            let mut g = Game::new();
            for _ in 0..2 {
                g.spawn(10);
                g.piece(10, 11, 16, false, Some((5, lag)));
            }
            let r = g.clock.report();
            assert_eq!(r.input_lag, Some(lag as u16), "lag {lag}");
            assert_eq!(r.samples.input_lag, 2);
            assert_eq!(r.frames_per_row, Some(10));
            let t = r.timing(2).expect("gravity measured");
            assert_eq!((t.input_lag, t.press_frames, t.frames_per_row), (lag as u16, 2, 10));
        }
    }

    #[test]
    fn a_piece_that_moves_long_after_its_last_fall_shows_moves_during_the_lock_delay() {
        let mut p = Game::new();
        p.fall(4);
        // Still in row 5 fifteen frames after it got there: it is landed, and a Left still moves it.
        p.hold((3, 5, 0, true), 0, 14);
        p.hold((3, 5, 0, true), pad::LEFT, 1);
        p.hold((2, 5, 0, true), 0, 2);
        p.hold((2, 5, 0, false), 0, 1);
        let r = p.clock.report();
        assert_eq!(r.frames_per_row, Some(10));
        assert_eq!(r.lock_moves, Some(true));
        assert_eq!(r.lock_delay, None, "a moved piece's wait is not a lock-delay sample");
        assert_eq!(r.input_lag, Some(0));
    }

    #[test]
    fn a_move_onto_a_ledge_soon_after_a_fall_proves_nothing_about_moves_while_landed() {
        let mut p = Game::new();
        // Two pieces that land and wait 8 frames untouched: the lock delay is 8.
        for _ in 0..2 {
            p.fall(4);
            p.hold((3, 5, 0, true), 0, 7);
            p.hold((3, 5, 0, false), 0, 1);
        }
        // One moved two frames after its fall (onto a ledge, or in the air): it locks 8 frames after the
        // move, so its wait started with the move.
        p.fall(4);
        p.hold((3, 5, 0, true), pad::LEFT, 1);
        p.hold((2, 5, 0, true), 0, 7);
        p.hold((2, 5, 0, false), 0, 1);
        let r = p.clock.report();
        assert_eq!(r.lock_delay, Some(8));
        assert_eq!(r.lock_moves, None);
        // One moved five frames after its fall and still locked 8 frames after the fall: it was landed.
        p.fall(4);
        p.hold((3, 5, 0, true), 0, 4);
        p.hold((3, 5, 0, true), pad::LEFT, 1);
        p.hold((2, 5, 0, true), 0, 2);
        p.hold((2, 5, 0, false), 0, 1);
        assert_eq!(p.clock.report().lock_moves, Some(true));
    }

    #[test]
    fn one_stray_interval_does_not_set_the_gravity() {
        let mut p = Game::new();
        // Falls at 30 frames per row, but one fall comes early (a Down the link invented): one interval of
        // 7 and one of 30 on this piece.
        p.hold((3, 1, 0, false), 0, 5);
        p.hold((3, 1, 0, true), 0, 30);
        p.hold((3, 2, 0, true), 0, 7);
        p.hold((3, 3, 0, true), 0, 30);
        p.hold((3, 4, 0, true), 0, 1);
        assert_eq!(p.clock.report().frames_per_row, None, "two different intervals: neither is sure");
        // The next piece shows 30 once: the piece before showed it too.
        p.hold((3, 4, 0, false), 0, 10);
        p.hold((3, 1, 0, true), 0, 30);
        p.hold((3, 2, 0, true), 0, 30);
        p.hold((3, 3, 0, true), 0, 1);
        let r = p.clock.report();
        assert_eq!(r.frames_per_row, Some(30));
        assert_eq!(r.frames_per_row_range, Some([30, 30]));
        assert_eq!(r.samples.gravity_pieces, 1);
    }

    #[test]
    fn a_jittery_link_measures_the_lag_floor_and_its_spread() {
        let mut c = PlayerClock::default();
        let mut f = 0;
        // Presses on a console with a 1-frame lag whose link makes them 0, 1 or 2 frames later in turn.
        for (i, late) in [0u64, 1, 2, 0, 1, 2, 0, 1, 2, 1].into_iter().enumerate() {
            let x = 10 - i as u8;
            c.step(f, (x, 1, 0, true), 0);
            f += 1;
            c.step(f, (x, 1, 0, true), pad::LEFT);
            for _ in 0..=late {
                f += 1;
                c.step(f, (x, 1, 0, true), 0);
            }
            f += 1;
            c.step(f, (x - 1, 1, 0, true), 0);
            f += 10;
        }
        let r = c.report();
        assert_eq!((r.input_lag, r.input_lag_jitter), (Some(1), Some(2)));
        assert_eq!(r.timing(2).map(|t| t.margin), None, "no gravity yet");
    }

    #[test]
    fn a_fall_hidden_by_a_turn_still_leaves_the_row() {
        let mut p = Game::new();
        p.fall(4);
        // Row 5 for 3 frames, then a turn on the frame gravity takes it to row 6: the orientation changed,
        // so that is no fall sample, but the piece left row 5 and is not known landed 13 frames after
        // the fall into it.
        p.hold((3, 5, 0, true), 0, 2);
        p.hold((3, 5, 0, true), pad::A, 1);
        p.hold((3, 6, 1, true), 0, 8);
        p.hold((3, 6, 1, true), pad::LEFT, 1);
        p.hold((2, 6, 1, true), 0, 1);
        assert_eq!(p.clock.report().lock_moves, None, "13 frames after the fall, 9 after the turn");
    }

    #[test]
    fn presses_ignored_while_a_piece_waits_in_its_last_pose_show_a_lock_delay_without_moves() {
        let mut p = Game::new();
        for piece in 0..2 {
            p.fall(4);
            p.hold((3, 5, 0, true), 0, 3);
            p.hold((3, 5, 0, true), pad::LEFT, 1);
            // No lag measured yet: a press is awaited for 8 frames (the longest lag looked for).
            p.hold((3, 5, 0, true), 0, 14);
            p.hold((3, 5, 0, false), 0, 1);
            let want = if piece == 0 { None } else { Some(false) };
            assert_eq!(p.clock.report().lock_moves, want, "after piece {piece}");
        }
        // A lock delay is measured as 13 frames; play takes it without moves.
        let r = ClockReport { frames_per_row: Some(10), lock_delay: Some(13), ..p.clock.report() };
        assert_eq!(r.timing(2).map(|t| t.lock), Some(LockDelay::Frames { frames: 13, moves: false }));
        let unknown = ClockReport { lock_moves: None, ..r };
        assert_eq!(unknown.timing(2).map(|t| t.lock), Some(LockDelay::Frames { frames: 13, moves: true }));
    }
}
