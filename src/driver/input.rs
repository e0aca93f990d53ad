//! The input driver: turns a placement and its input path into buttons, one frame at a time.
//!
//! Closed loop: each frame it reads where RAM says the pair is. A step counts as done when RAM shows its
//! effect; when RAM shows something else (a kick, a refused move, an extra move) it re-plans from there;
//! when nothing happens for a while it tries again, and after too many failures it drops the pair where it
//! is. Once column and orientation match, it holds Down as the speed setting says. It never writes RAM.

use crate::ai::movegen::{self, MoveRules, PiecePosition};
use crate::emu::pad;
use crate::game::{Field, Piece, Placement, Step};

use super::path::{Pose, plan};
use super::speed::SpeedProfile;

/// Re-plans allowed per piece before the driver gives up and drops the pair where it is.
pub const MAX_REPLANS: u32 = 8;

/// The button of a step.
pub fn button(step: Step) -> u8 {
    match step {
        Step::Left => pad::LEFT,
        Step::Right => pad::RIGHT,
        Step::RotateCw => pad::A,
        Step::RotateCcw => pad::B,
    }
}

/// What the driver sees of the pair each frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Observation {
    /// A pair is falling under control.
    pub controllable: bool,
    /// Its pose (meaningful when controllable).
    pub pose: Pose,
    /// The pivot's row (0 = hidden row), for re-planning with the movement model.
    pub y: u8,
}

/// What the piece falls among, so a re-plan uses the same movement model as the search (kicks and
/// walls included) instead of a field-blind path.
#[derive(Clone, Copy, Debug)]
pub struct Surroundings {
    /// The field under the falling piece.
    pub field: Field,
    /// The falling piece.
    pub piece: Piece,
    /// The cartridge's movement rules.
    pub moves: MoveRules,
}

/// A press waiting for the game to show its effect.
#[derive(Clone, Copy, Debug)]
struct Pending {
    step: Step,
    before: Pose,
    frames: u32,
}

/// Counters for reports and tests.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DriverStats {
    /// Presses made.
    pub presses: u64,
    /// Times RAM disagreed with the plan and the driver re-planned.
    pub replans: u64,
    /// Pieces dropped short of their target after too many failures.
    pub gave_up: u64,
}

/// Drives one player's pad.
#[derive(Clone, Debug)]
pub struct Driver {
    profile: SpeedProfile,
    target: Option<Pose>,
    steps: Vec<Step>,
    pending: Option<Pending>,
    /// Buttons returned last frame.
    held: u8,
    /// Frames the current press has been held.
    held_for: u32,
    /// Frames since the last press started.
    since_press: u32,
    /// Controllable frames since the piece appeared (for the reaction delay; counting from the piece, not
    /// from the plan, keeps the timeline the same however late within the delay the plan arrives).
    since_spawn: u32,
    /// Frames spent in the drop phase.
    dropping: u32,
    replans_this_piece: u32,
    /// The falling piece's surroundings, when the session gave them.
    surroundings: Option<Surroundings>,
    /// The pivot's row last observed.
    y: u8,
    stats: DriverStats,
}

impl Driver {
    /// A driver at a speed setting.
    pub fn new(speed: u8) -> Driver {
        Driver {
            profile: SpeedProfile::new(speed),
            target: None,
            steps: Vec::new(),
            pending: None,
            held: 0,
            held_for: 0,
            since_press: u32::MAX / 2,
            since_spawn: 0,
            dropping: 0,
            replans_this_piece: 0,
            surroundings: None,
            y: 0,
            stats: DriverStats::default(),
        }
    }

    /// The speed setting.
    pub fn speed(&self) -> u8 {
        self.profile.speed
    }

    /// Changes the speed setting (takes effect at once).
    pub fn set_speed(&mut self, speed: u8) {
        self.profile = SpeedProfile::new(speed);
    }

    /// Counters so far.
    pub fn stats(&self) -> DriverStats {
        self.stats
    }

    /// The placement being driven to, if any.
    pub fn target(&self) -> Option<Placement> {
        self.target.map(|p| Placement::new(p.x, p.orientation))
    }

    /// Forgets the current piece (call when a new piece becomes controllable or the bot is turned off).
    pub fn clear(&mut self) {
        self.target = None;
        self.steps.clear();
        self.pending = None;
        self.since_spawn = 0;
        self.dropping = 0;
        self.replans_this_piece = 0;
        self.surroundings = None;
    }

    /// Gives the driver the falling piece's surroundings, for re-plans with the movement model.
    pub fn set_surroundings(&mut self, surroundings: Surroundings) {
        self.surroundings = Some(surroundings);
    }

    /// Starts driving the current piece to `placement` along `path` (steps from the pose the path was
    /// planned from; the driver re-plans if RAM shows the pair elsewhere).
    pub fn start(&mut self, placement: Placement, path: &[Step]) {
        self.target = Some(Pose::of(placement));
        self.steps = path.to_vec();
        self.pending = None;
        self.dropping = 0;
        self.replans_this_piece = 0;
    }

    /// The frame (counted from the piece's first controllable frame as 1) on which the driver may first
    /// act: a plan given by then leads to the same presses whenever it arrived.
    pub fn first_action_frame(&self) -> u32 {
        self.profile.reaction + 1
    }

    /// The buttons to hold during the next frame, given what RAM showed after the last one.
    pub fn tick(&mut self, obs: Observation) -> u8 {
        self.since_press = self.since_press.saturating_add(1);
        if obs.controllable {
            self.since_spawn = self.since_spawn.saturating_add(1);
        }
        let buttons = self.decide(obs);
        if buttons != 0 && buttons == self.held {
            self.held_for += 1;
        } else {
            self.held_for = if buttons != 0 { 1 } else { 0 };
        }
        self.held = buttons;
        buttons
    }

    fn decide(&mut self, obs: Observation) -> u8 {
        let Some(target) = self.target else { return 0 };
        if !obs.controllable {
            // Locked (or not yet spawned): let go; the session clears the plan at the next spawn.
            self.pending = None;
            return 0;
        }
        if self.since_spawn <= self.profile.reaction {
            return 0;
        }
        let pose = obs.pose;
        self.y = obs.y;

        // A press in flight: wait for RAM to show it.
        if let Some(p) = self.pending.as_mut() {
            if pose != p.before {
                let expected = p.before.after(p.step);
                let done = self.pending.take();
                if pose != expected {
                    log::debug!(
                        "driver: {:?} from {:?} gave {:?}, expected {:?}; re-planning",
                        done.map(|d| d.step),
                        done.map(|d| d.before),
                        pose,
                        expected
                    );
                    self.replan(pose, target);
                }
            } else {
                p.frames += 1;
                if p.frames > self.profile.patience + self.profile.hold {
                    log::debug!("driver: {:?} at {:?} had no effect; trying again", p.step, pose);
                    self.pending = None;
                    self.replan(pose, target);
                } else {
                    return self.keep_holding();
                }
            }
        }

        // A re-plan above may have given up and moved the target to where the pair is.
        let target = self.target.unwrap_or(target);
        if pose == target {
            self.steps.clear();
            let down = self.profile.drop_on(self.dropping);
            self.dropping += 1;
            return if down { pad::DOWN } else { 0 };
        }
        if self.steps.is_empty() {
            self.replan(pose, target);
        }
        let Some(&step) = self.steps.first() else { return 0 };
        if self.since_press < self.profile.gap {
            return self.keep_holding();
        }
        let b = button(step);
        if self.held & b != 0 {
            // The game reacts to a new press: release for one frame first.
            return 0;
        }
        self.steps.remove(0);
        self.pending = Some(Pending { step, before: pose, frames: 0 });
        self.since_press = 0;
        self.stats.presses += 1;
        b
    }

    /// Keeps the current press down until it has been held long enough, then releases.
    fn keep_holding(&self) -> u8 {
        if self.held != pad::DOWN && self.held_for < self.profile.hold { self.held } else { 0 }
    }

    fn replan(&mut self, pose: Pose, target: Pose) {
        self.stats.replans += 1;
        self.replans_this_piece += 1;
        if self.replans_this_piece > MAX_REPLANS {
            log::warn!("driver: cannot bring the pair from {pose:?} to {target:?}; dropping it where it is");
            self.stats.gave_up += 1;
            self.target = Some(pose);
            self.steps.clear();
            return;
        }
        self.steps = self.model_path(pose, target).unwrap_or_else(|| plan(pose, target));
    }

    /// The movement model's path from where RAM shows the pair to the target, on the piece's field.
    fn model_path(&self, pose: Pose, target: Pose) -> Option<Vec<Step>> {
        let s = self.surroundings?;
        let from = PiecePosition { x: pose.x, y: self.y, orientation: pose.orientation };
        let goal = Placement::new(target.x, target.orientation);
        movegen::generate(&s.field, s.piece, from, &s.moves).into_iter().find(|m| m.placement == goal).map(|m| m.path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Orientation::*;

    fn obs(x: u8, o: crate::game::Orientation) -> Observation {
        Observation { controllable: true, pose: Pose { x, orientation: o }, y: 1 }
    }

    #[test]
    fn at_speed_10_it_presses_every_frame_it_can_and_releases_between_equal_buttons() {
        let mut d = Driver::new(10);
        d.start(Placement::new(5, Right), &plan(Pose { x: 3, orientation: Up }, Pose { x: 5, orientation: Right }));
        // A, then Right, (release), Right, then Down.
        assert_eq!(d.tick(obs(3, Up)), pad::A);
        assert_eq!(d.tick(obs(3, Right)), pad::RIGHT);
        assert_eq!(d.tick(obs(4, Right)), 0);
        assert_eq!(d.tick(obs(4, Right)), pad::RIGHT);
        assert_eq!(d.tick(obs(5, Right)), pad::DOWN);
        assert_eq!(d.tick(obs(5, Right)), pad::DOWN);
        assert_eq!(d.tick(Observation { controllable: false, ..obs(5, Right) }), 0);
        assert_eq!(d.stats().replans, 0);
    }

    #[test]
    fn a_kick_makes_it_replan_from_what_ram_shows() {
        let mut d = Driver::new(10);
        d.start(Placement::new(1, Right), &[Step::RotateCw, Step::Left, Step::Left]);
        assert_eq!(d.tick(obs(3, Up)), pad::A);
        // The game kicked the pivot one column left while rotating.
        assert_eq!(d.tick(obs(2, Right)), pad::LEFT);
        assert_eq!(d.tick(obs(1, Right)), pad::DOWN);
        assert_eq!(d.stats().replans, 1);
    }

    #[test]
    fn a_refused_move_is_retried_then_abandoned() {
        let mut d = Driver::new(10);
        d.start(Placement::new(1, Up), &[Step::Left, Step::Left]);
        let mut presses = 0;
        for _ in 0..200 {
            if d.tick(obs(3, Up)) == pad::LEFT {
                presses += 1;
            }
        }
        assert!(presses > 1 && presses <= MAX_REPLANS as usize + 1, "{presses}");
        assert_eq!(d.stats().gave_up, 1);
        assert_eq!(d.tick(obs(3, Up)), pad::DOWN);
    }

    #[test]
    fn slow_speeds_wait_before_the_first_press() {
        let mut d = Driver::new(0);
        d.start(Placement::new(4, Up), &[Step::Right]);
        let first = (0..100).position(|_| d.tick(obs(3, Up)) == pad::RIGHT);
        assert_eq!(first, Some(SpeedProfile::new(0).reaction as usize));
    }
}
