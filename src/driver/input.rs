//! The input driver: turns a [`Decision`] into buttons, one frame at a time.
//!
//! Closed loop: each frame it reads where RAM says the pair is. A press counts as done when RAM shows the
//! pose the movement model ([`crate::game::movegen`]) predicts for it, kicks included. When RAM shows
//! something else (a lost, late or extra press, a refused move) it re-plans with the same model from the
//! pose RAM shows: towards the decision's placement while it is reachable, else towards the best-ranked
//! placement still reachable. Once column and orientation match, it holds Down as the speed setting says.
//!
//! With the game's clock ([`MoveRules::timing`]) a re-plan counts the time left: the walk starts from the
//! pose RAM shows, with the frames left until the next row, the lock delay already spent on a ledge, and
//! the driver's own pace (its gap between presses, the game's input lag), so it only aims where its
//! presses still arrive before the pair locks. A press waits its input lag for its effect before it
//! counts as refused. On a game with an input lag of [`AHEAD_LAG`] frames or more the driver presses
//! ahead: the next press goes in before the last one has shown its effect, each acting on the pose the
//! presses before it are expected to leave, and the effects are checked in order as they arrive (a
//! surprise lets the presses already made land before the re-plan). When the speed setting's pace cannot
//! reach the bot's placement before the pair lands, the driver hurries for the rest of the piece (speed
//! 10's pace): the setting sets how fast the bot plays while the game leaves time, and never costs it a
//! placement the game's clock allows.
//! Each press goes through the one press executor ([`super::press::Presser`]). It never writes RAM.

use crate::emu::pad;
use crate::game::Decision;
use crate::game::movegen::{self, Move, MoveRules, PiecePosition};
use crate::game::timing::{LockDelay, Timing};
use crate::game::{Field, Orientation, Piece, Placement, Step};
use crate::memmap::PlayerState;

use super::press::{Effect, Pose, PressTiming, Presser, Progress};
use super::speed::SpeedProfile;

/// Presses per piece that RAM may refuse (no effect where the model sees room) before the driver stops
/// steering and drops the pair where it is: the model and the game disagree, so more presses cannot help.
pub const MAX_REFUSED: u32 = 8;

/// The pace the driver hurries to when its speed setting's pace cannot reach the bot's placement before
/// the pair locks: speed 10's (no reaction delay, a press every other frame).
const HURRIED: u8 = 10;

/// The input lag (frames) from which the driver presses ahead of its presses' effects. Waiting for each
/// effect costs the lag on every press: at 5 frames of lag a press every 7 frames instead of every 2, and
/// on a fast gravity most of the field's placements.
pub const AHEAD_LAG: u32 = 2;

/// Re-plans per piece before the driver stops steering and drops the pair where it is: a game whose lock
/// delay starts again on every move lets a pair that keeps ending elsewhere than planned wander for ever,
/// so the piece is let go and the next one planned afresh.
pub const MAX_REPLANS: u32 = 12;

/// The button of a step.
pub fn button(step: Step) -> u8 {
    match step {
        Step::Left => pad::LEFT,
        Step::Right => pad::RIGHT,
        Step::RotateCw => pad::A,
        Step::RotateCcw => pad::B,
    }
}

/// What the driver reads of the pair each frame (from the player's decoded state).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Observation {
    /// A pair is falling under control.
    controllable: bool,
    /// Where it is (meaningful when controllable): pivot column, pivot row, orientation.
    pose: PiecePosition,
}

impl Observation {
    fn of(st: &PlayerState) -> Observation {
        let orientation = st.orientation.unwrap_or(Orientation::Up);
        Observation { controllable: st.controllable, pose: PiecePosition { x: st.x, y: st.y, orientation } }
    }
}

/// What the piece falls among: the driver plans with the same movement model as the search.
#[derive(Clone, Copy, Debug)]
struct Surroundings {
    /// The field under the falling piece.
    field: Field,
    /// The falling piece.
    piece: Piece,
    /// The cartridge's movement rules.
    moves: MoveRules,
}

/// What the driver attaches to a press: the step, and what it expects of it.
#[derive(Clone, Copy, Debug)]
struct Planned {
    step: Step,
    before: PiecePosition,
    /// Where the model says the press takes the pair (`None`: the model expects a refusal).
    expect: Option<PiecePosition>,
}

/// Where the pair stands on a frame the driver steers it.
#[derive(Clone, Copy, Debug)]
struct Steering {
    /// The pose RAM shows.
    pose: PiecePosition,
    /// Where the presses made so far leave the pair (RAM's pose once none is in flight), at RAM's row.
    at: PiecePosition,
    /// A press is in flight.
    in_flight: bool,
    /// The buttons the press in flight needs held.
    held: u8,
}

/// The pose a press can change, for the press executor.
fn press_pose(pose: PiecePosition) -> Pose {
    Pose { x: pose.x, turn: pose.orientation.index() as u8 }
}

/// How the driver presses at a speed setting: held `hold` frames at least and down until RAM shows the
/// effect, refused `hold + patience + lag` frames after the press (`lag`: the game's input lag, the frames
/// before any effect can show).
fn press_timing(profile: &SpeedProfile, lag: u32) -> PressTiming {
    PressTiming {
        hold: profile.hold,
        patience: profile.patience + lag,
        // Pressing ahead, a press is let go after its hold: the next one goes in meanwhile.
        hold_while_waiting: lag < AHEAD_LAG,
        effect: Effect::Moved,
    }
}

/// Counters for reports and tests.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DriverStats {
    /// Presses made.
    pub presses: u64,
    /// Times RAM disagreed with the plan and the driver re-planned.
    pub replans: u64,
    /// Re-plans that left the decision's placement for another one (it was no longer reachable).
    pub retargets: u64,
    /// Pieces dropped where they were because the game kept refusing what the model allows.
    pub gave_up: u64,
    /// Presses RAM showed no effect of (refused, lost, or too late for a pair that had locked).
    pub refused: u64,
    /// Times RAM showed the pair moved or turned with no press in flight (a press the link invented).
    pub unasked_moves: u64,
}

/// How fast the driver presses: the speed setting's pace, the hurried one and which of them this piece
/// takes, and the game's input lag the presses wait for.
#[derive(Clone, Debug)]
struct Pacing {
    /// The speed setting's pace.
    profile: SpeedProfile,
    /// The pace when hurried ([`HURRIED`]).
    hurry: SpeedProfile,
    /// This piece is driven at the hurried pace: at the speed setting's pace the pair would lock before
    /// the presses reached the placement (a fast gravity or no lock delay). Never undone within a piece.
    hurried: bool,
    /// The pace for the plan under way has been chosen.
    chosen: bool,
    /// The game's input lag the press patience allows for (from the timing given with the plan).
    lag: u32,
}

impl Pacing {
    /// The speed setting's pace, not hurried, with no input lag.
    fn new(speed: u8) -> Pacing {
        Pacing {
            profile: SpeedProfile::new(speed),
            hurry: SpeedProfile::new(HURRIED),
            hurried: false,
            chosen: false,
            lag: 0,
        }
    }

    /// The pace the driver presses at now: the speed setting's, or the hurried one.
    fn pace(&self) -> &SpeedProfile {
        if self.hurried { &self.hurry } else { &self.profile }
    }

    /// How the press executor presses at the present pace and lag.
    fn press_timing(&self) -> PressTiming {
        press_timing(self.pace(), self.lag)
    }

    /// True when the driver presses ahead of its presses' effects (the game's input lag is
    /// [`AHEAD_LAG`] frames or more).
    fn ahead_of_effects(&self) -> bool {
        self.lag >= AHEAD_LAG
    }

    /// Frames from one press to the next at the present pace: pressing ahead, one more to let go between
    /// presses (the game reacts to new presses).
    fn press_gap(&self) -> u32 {
        if self.ahead_of_effects() { ahead_gap(self.pace()) } else { self.pace().gap }
    }
}

/// The plan under way: the decision, where the pair is going now, the steps left to get there, and what
/// the pair falls among.
#[derive(Clone, Debug, Default)]
struct Plan {
    /// The decision being carried out.
    decision: Option<Decision>,
    /// Where the pair is going now: the decision's placement, or a replacement after a re-plan.
    target: Option<Placement>,
    /// What the pair falls among, as the plan was given.
    surroundings: Option<Surroundings>,
    /// The steps still to press towards the target.
    steps: Vec<Step>,
    /// The path has been checked against the pose RAM showed at the first action.
    checked: bool,
}

/// The piece's own clock, counted from what RAM shows: frames since it appeared, on its row and in the
/// drop, and the rows of its gravity sample.
#[derive(Clone, Copy, Debug, Default)]
struct PieceFrames {
    /// Controllable frames since the piece appeared (for the reaction delay; counting from the piece, not
    /// from the plan, keeps the timeline the same however late within the delay the plan arrives).
    since_spawn: u32,
    /// Controllable frames since RAM last showed the pair's row change (or since it appeared): the time
    /// gravity has spent on this row, or, on a ledge, the lock delay spent (counted from the last fall,
    /// never less than the truth).
    since_row: u32,
    /// The row RAM showed last frame.
    last_row: Option<u8>,
    /// Frames spent in the drop phase.
    dropping: u32,
    /// Rows the pair is to fall by gravity, since it appeared, before the soft drop (this piece), and
    /// the rows it fell with Down not held.
    gravity_rows_wanted: u32,
    gravity_rows: u32,
}

/// The re-plan bookkeeping of the plan under way: how often RAM refused a press or sent the driver to
/// re-plan (past a limit it lets the pair drop where it is), and how long presses made ahead still land
/// before a re-plan.
#[derive(Clone, Copy, Debug, Default)]
struct Retries {
    /// Presses refused.
    refused: u32,
    /// Re-plans made.
    replans: u32,
    /// Pressing ahead, a surprise re-plans only from this frame ([`PieceFrames::since_spawn`]) on: the
    /// presses already made land first.
    settle_until: u32,
}

/// Drives one player's pad: carries out the plan at its pace, pressing through the press executor and
/// checking each press's effect in RAM.
#[derive(Clone, Debug)]
pub struct Driver {
    /// How fast it presses.
    pacing: Pacing,
    /// What it carries out.
    plan: Plan,
    /// The press executor: the presses in flight, and what was held and when the last press started.
    presser: Presser<Planned>,
    /// The pose the presses in flight are expected to leave (meaningful while one is in flight).
    ahead: Option<PiecePosition>,
    /// The pose RAM showed last frame (to notice moves nobody asked for).
    last_pose: Option<PiecePosition>,
    /// The piece's own frames.
    piece: PieceFrames,
    /// The plan's refusals and re-plans.
    retries: Retries,
    /// Counters for reports and tests.
    stats: DriverStats,
}

impl Driver {
    /// A driver at a speed setting.
    pub fn new(speed: u8) -> Driver {
        let pacing = Pacing::new(speed);
        Driver {
            presser: Presser::new(pacing.press_timing()),
            pacing,
            plan: Plan::default(),
            ahead: None,
            last_pose: None,
            piece: PieceFrames::default(),
            retries: Retries::default(),
            stats: DriverStats::default(),
        }
    }

    /// The speed setting.
    pub fn speed(&self) -> u8 {
        self.pacing.profile.speed
    }

    /// Changes the speed setting (takes effect at once).
    pub fn set_speed(&mut self, speed: u8) {
        self.pacing.profile = SpeedProfile::new(speed);
        self.presser.set_timing(self.pacing.press_timing());
    }

    /// Drives the rest of this piece at the hurried pace.
    fn hurry_up(&mut self) {
        if !self.pacing.hurried {
            log::debug!(
                "driver: hurrying (speed {} cannot reach the placement before the lock)",
                self.pacing.profile.speed
            );
            self.pacing.hurried = true;
            self.presser.set_timing(self.pacing.press_timing());
        }
    }

    /// True when this piece is driven at the hurried pace.
    pub fn hurried(&self) -> bool {
        self.pacing.hurried
    }

    /// Counters so far.
    pub fn stats(&self) -> DriverStats {
        self.stats
    }

    /// The placement being driven to, if any.
    pub fn target(&self) -> Option<Placement> {
        self.plan.target
    }

    /// The decision being carried out, if any.
    pub fn decision(&self) -> Option<&Decision> {
        self.plan.decision.as_ref()
    }

    /// Forgets the current piece (call when a new piece becomes controllable or the bot is turned off).
    pub fn clear(&mut self) {
        self.forget_plan();
        self.piece.since_spawn = 0;
        self.piece.since_row = 0;
        self.piece.last_row = None;
        if self.pacing.hurried {
            self.pacing.hurried = false;
            self.presser.set_timing(self.pacing.press_timing());
        }
        self.piece.gravity_rows_wanted = 0;
        self.piece.gravity_rows = 0;
    }

    /// Forgets the plan under way but not the piece (the bot is asked about it again): the piece's clock
    /// (frames since it appeared, frames on its row), its hurried pace and its gravity sample go on.
    pub fn forget_plan(&mut self) {
        self.plan.decision = None;
        self.plan.target = None;
        self.plan.surroundings = None;
        self.plan.steps.clear();
        self.plan.checked = false;
        self.presser.cancel();
        self.ahead = None;
        self.retries.settle_until = 0;
        self.last_pose = None;
        self.piece.dropping = 0;
        self.retries.refused = 0;
        self.retries.replans = 0;
        self.pacing.chosen = false;
    }

    /// Lets the pair of this piece fall `rows` rows by gravity before the soft drop once it is in place,
    /// so the game's gravity shows (calibration measures it from falls made with Down not held; a bot
    /// that soft-drops every pair hides a gravity that changes with the level).
    pub fn let_fall(&mut self, rows: u32) {
        self.piece.gravity_rows_wanted = rows;
    }

    /// Starts carrying out `decision` for the piece falling in `st` (nothing when RAM shows no piece),
    /// planned with the cartridge's `moves`; its path is taken to start at the spawn pose, and the driver
    /// re-plans if RAM shows the pair elsewhere.
    pub fn start(&mut self, decision: Decision, st: &PlayerState, moves: MoveRules) {
        let Some(piece) = st.current else { return };
        let surroundings = Surroundings { field: st.field, piece, moves };
        log::trace!(
            "driver: to {} by {:?} (expected chain {}, value {:.1}, {} ranked)",
            decision.placement,
            decision.path,
            decision.chain.chains,
            decision.value,
            decision.ranking.len()
        );
        self.plan.target = Some(decision.placement);
        self.plan.steps = decision.path.clone();
        self.plan.decision = Some(decision);
        self.ahead = None;
        self.plan.surroundings = Some(surroundings);
        let lag = moves.timing.map_or(0, |t| u32::from(t.input_lag));
        if lag != self.pacing.lag {
            self.pacing.lag = lag;
            self.presser.set_timing(self.pacing.press_timing());
        }
        // A new plan gets its pace chosen afresh (a hurried piece stays hurried).
        self.pacing.chosen = self.pacing.hurried;
        self.plan.checked = false;
        self.presser.cancel();
        self.piece.dropping = 0;
        self.retries.refused = 0;
        self.retries.replans = 0;
    }

    /// The frame (counted from the piece's first controllable frame as 1) on which the driver may first
    /// act: a plan given by then leads to the same presses whenever it arrived. On the game's clock
    /// (`timed`) it may have to hurry, with no reaction delay.
    pub fn first_action_frame(&self, timed: bool) -> u32 {
        if timed { self.pacing.hurry.reaction + 1 } else { self.pacing.profile.reaction + 1 }
    }

    /// The buttons to hold during the next frame, given what RAM showed after the last one (`st`).
    pub fn tick(&mut self, st: &PlayerState) -> u8 {
        let obs = Observation::of(st);
        if obs.controllable {
            self.piece.since_spawn = self.piece.since_spawn.saturating_add(1);
            if self.piece.last_row.replace(obs.pose.y).is_some_and(|y| y != obs.pose.y) {
                self.piece.since_row = 0;
                if self.presser.held() & pad::DOWN == 0 {
                    self.piece.gravity_rows += 1;
                }
            }
            self.piece.since_row = self.piece.since_row.saturating_add(1);
        }
        let buttons = self.decide(obs);
        self.presser.end_frame(buttons);
        buttons
    }

    /// The buttons for this frame: nothing before the reaction delay or while presses made ahead land,
    /// else what the press in flight needs and what steering the pair to its target takes.
    fn decide(&mut self, obs: Observation) -> u8 {
        if self.plan.target.is_none() {
            return 0;
        }
        if !obs.controllable {
            // Locked (or not yet spawned): let go; the session clears the plan at the next spawn.
            self.presser.cancel();
            self.last_pose = None;
            return 0;
        }
        let pose = self.normalised(obs.pose);
        self.choose_pace(pose);
        if self.piece.since_spawn <= self.pacing.pace().reaction {
            return 0;
        }
        if self.settling() {
            self.last_pose = Some(pose);
            return 0;
        }
        let mut held = 0;
        if let Some(buttons) = self.watch(pose) {
            if !self.pacing.ahead_of_effects() {
                return buttons;
            }
            held = buttons;
        }
        if self.settling() {
            return 0;
        }
        // Where the presses made so far leave the pair (RAM's pose once none is in flight), at RAM's row.
        let in_flight = self.presser.in_flight();
        let at = match self.ahead.filter(|_| in_flight) {
            Some(a) => PiecePosition { y: pose.y, ..a },
            None => pose,
        };
        if !self.plan.checked {
            // The path was planned from the spawn pose: re-plan if RAM shows the pair elsewhere.
            self.plan.checked = true;
            if !self.path_leads_to_target(pose) || !self.target_in_time(pose) {
                self.replan(pose);
            }
        }
        self.steer(Steering { pose, at, in_flight, held })
    }

    /// Chooses the pace once the plan is in: the speed setting's, unless at that pace the pair would lock
    /// before the presses reach the placement (then the hurried pace, with no reaction delay either).
    fn choose_pace(&mut self, pose: PiecePosition) {
        if !self.pacing.chosen {
            self.pacing.chosen = true;
            if !self.reachable_at_pace(pose) {
                self.hurry_up();
            }
        }
    }

    /// Steers the pair to the target: the soft drop once the presses made leave it in place, else the
    /// next step's press (re-planned from RAM's pose when the steps ran out elsewhere).
    fn steer(&mut self, s: Steering) -> u8 {
        let Steering { pose, at, in_flight, held } = s;
        let Some(target) = self.plan.target else { return held };
        if placement_of(at) == target {
            self.plan.steps.clear();
            if in_flight {
                return held;
            }
            if self.piece.gravity_rows < self.piece.gravity_rows_wanted {
                return 0;
            }
            let down = self.pacing.pace().drop_on(self.piece.dropping);
            self.piece.dropping += 1;
            return if down { pad::DOWN } else { 0 };
        }
        if self.plan.steps.is_empty() {
            if in_flight {
                return held;
            }
            self.replan(pose);
        }
        self.press_next(at, in_flight, held)
    }

    /// Presses the plan's next step on the pose `at` the presses made so far leave, once the pace's gap
    /// since the last press has passed; `held` are the buttons the press in flight needs.
    fn press_next(&mut self, at: PiecePosition, in_flight: bool, held: u8) -> u8 {
        let Some(&step) = self.plan.steps.first() else { return held };
        if self.presser.since_press() < self.pacing.press_gap() {
            return held | self.presser.keep_holding();
        }
        let expect = self.plan.surroundings.and_then(|s| movegen::step(&s.field, s.piece, at, step, &s.moves));
        if in_flight && expect.is_none() {
            // A press the model expects refused is made only on the pose RAM shows.
            return held;
        }
        // `None`: the same button was down last frame, and the game reacts to a new press: let go first.
        let Some(b) = self.presser.press(button(step), press_pose(at), Planned { step, before: at, expect }) else {
            return held;
        };
        self.plan.steps.remove(0);
        self.stats.presses += 1;
        self.ahead = expect.or(Some(at));
        held | b
    }

    /// True while presses made ahead are landing before a re-plan.
    fn settling(&self) -> bool {
        self.piece.since_spawn < self.retries.settle_until
    }

    /// RAM showed something other than the plan: re-plans from `pose`, or, with presses made ahead still
    /// in flight, lets them land first (the re-plan comes when the steps run out after that).
    fn replan_after_surprise(&mut self, pose: PiecePosition) {
        if self.pacing.ahead_of_effects() && self.presser.in_flight() {
            self.presser.cancel();
            self.plan.steps.clear();
            self.retries.settle_until = self.piece.since_spawn + self.pacing.lag + 1;
            return;
        }
        self.replan(pose);
    }

    /// Compares RAM with what the driver expects: a press in flight must show the model's effect, and
    /// nothing may move the pair otherwise. Re-plans on a difference; returns buttons to hold while a
    /// press is still awaited.
    fn watch(&mut self, pose: PiecePosition) -> Option<u8> {
        let moved_from = |before: PiecePosition| (before.x, before.orientation) != (pose.x, pose.orientation);
        let last = self.last_pose.replace(pose);
        let Some(progress) = self.presser.watch(press_pose(pose)) else {
            if last.is_some_and(moved_from) {
                log::debug!("driver: the pair moved from {last:?} to {pose:?} without a press; re-planning");
                self.stats.unasked_moves += 1;
                self.replan(pose);
            }
            return None;
        };
        match progress {
            // Held until RAM shows the effect (the timing holds while waiting), so `Wait` does not come.
            Progress::Hold(b) => Some(b),
            Progress::Wait => Some(0),
            Progress::Shown(done) => {
                let expected = done.expect.is_some_and(|e| (e.x, e.orientation) == (pose.x, pose.orientation));
                if !expected {
                    log::debug!(
                        "driver: {:?} from {:?} gave {:?}, expected {:?}; re-planning",
                        done.step,
                        done.before,
                        pose,
                        done.expect
                    );
                    self.replan_after_surprise(pose);
                }
                None
            }
            Progress::Refused(p) => {
                log::debug!("driver: {:?} at {:?} had no effect; trying again", p.step, pose);
                self.retries.refused += 1;
                self.stats.refused += 1;
                if self.retries.refused > MAX_REFUSED {
                    self.give_up(pose);
                } else {
                    self.replan_after_surprise(pose);
                }
                None
            }
        }
    }

    /// True when the remaining steps, pressed from `pose`, end at the target by the model.
    fn path_leads_to_target(&self, pose: PiecePosition) -> bool {
        let (Some(s), Some(target)) = (self.plan.surroundings, self.plan.target) else { return false };
        let end = self.plan.steps.iter().try_fold(pose, |p, &step| movegen::step(&s.field, s.piece, p, step, &s.moves));
        end.is_some_and(|e| placement_of(e) == target)
    }

    /// True when the target can still be reached on the game's clock from `pose` now (always without a
    /// timing): a plan made for the spawn may be too late for a pair that has fallen or landed since.
    fn target_in_time(&self, pose: PiecePosition) -> bool {
        self.target_in_time_with(pose, |t| t)
    }

    /// [`Driver::target_in_time`] on the clock as `adjust` changes it.
    fn target_in_time_with(&self, pose: PiecePosition, adjust: impl Fn(Timing) -> Timing) -> bool {
        let (Some(s), Some(target)) = (self.plan.surroundings, self.plan.target) else { return true };
        let Some(timing) = self.time_left(&s, pose) else { return true };
        let rules = MoveRules { timing: Some(adjust(timing)), ..s.moves };
        movegen::generate(&s.field, s.piece, pose, &rules)
            .iter()
            .any(|m| movegen::same_outcome(s.piece, m.placement, target))
    }

    /// True when the plan's placement is still reachable from `pose` at the present pace before the pair
    /// lands (always without a timing). Whatever path the plan holds: a path that leans on a kick the
    /// clock gives only at one row is re-planned later, and by then a slow pace has spent the frames.
    fn reachable_at_pace(&self, pose: PiecePosition) -> bool {
        self.pacing.hurried || self.target_in_time_with(pose, without_lock_delay)
    }

    /// Items have no orientation: RAM may show any, the model says `Up`.
    fn normalised(&self, pose: PiecePosition) -> PiecePosition {
        match self.plan.surroundings.map(|s| s.piece) {
            Some(Piece::Item(_)) => PiecePosition { orientation: Orientation::Up, ..pose },
            _ => pose,
        }
    }

    /// New steps from `pose`: towards the decision's placement if the model can still reach it, else
    /// towards the best-ranked placement it can reach.
    fn replan(&mut self, pose: PiecePosition) {
        self.stats.replans += 1;
        self.retries.replans += 1;
        if self.retries.replans == MAX_REPLANS + 1 {
            return self.give_up_because(pose, &format!("moved the pair off its plan {MAX_REPLANS} times"));
        }
        if self.retries.replans > MAX_REPLANS {
            // Let go already: it drops wherever it is now.
            self.plan.target = Some(placement_of(pose));
            self.plan.steps.clear();
            return;
        }
        let Some(s) = self.plan.surroundings else { return self.give_up(pose) };
        let rules = MoveRules { timing: self.time_left(&s, pose), ..s.moves };
        let mut moves = movegen::generate(&s.field, s.piece, pose, &rules);
        let decided = self.plan.decision.as_ref().map(|d| d.placement);
        if !self.pacing.hurried
            && rules.timing.is_some()
            && decided.is_some_and(|p| !moves.iter().any(|m| movegen::same_outcome(s.piece, m.placement, p)))
        {
            // Out of reach at the speed setting's pace: hurry rather than settle for another placement.
            self.hurry_up();
            let rules = MoveRules { timing: self.time_left(&s, pose), ..s.moves };
            moves = movegen::generate(&s.field, s.piece, pose, &rules);
        }
        let Some(m) = self.choose(&moves, s.piece) else { return self.give_up(pose) };
        if self.plan.target.is_some_and(|t| !movegen::same_outcome(s.piece, t, m.placement)) {
            log::debug!("driver: {:?} is out of reach from {pose:?}; going to {}", self.plan.target, m.placement);
            self.stats.retargets += 1;
        }
        self.plan.target = Some(m.placement);
        self.plan.steps = m.path.clone();
    }

    /// The game's clock as it stands for a walk from `pose` now: gravity's next row comes after the frames
    /// left on this row, a pair on a ledge has only what is left of its lock delay, and each press costs
    /// the driver's pace ([`Driver::paced`]). `None` without a timing (the untimed walk).
    fn time_left(&self, s: &Surroundings, pose: PiecePosition) -> Option<Timing> {
        let t = self.paced(s.moves.timing?, self.piece.since_spawn);
        let spent = self.piece.since_row.min(u16::MAX as u32) as u16;
        if movegen::resting(&s.field, s.piece, pose, &s.moves) {
            let lock = match t.lock {
                LockDelay::Frames { frames, moves } if frames > spent => {
                    LockDelay::Frames { frames: frames - spent, moves }
                }
                _ => LockDelay::None,
            };
            Some(Timing { lock, ..t })
        } else {
            Some(Timing { first_fall: t.frames_per_row.saturating_sub(spent).max(1), ..t })
        }
    }

    /// The frames a press costs at the speed setting's pace (its hold and its gap): what a clock measured
    /// in frames ([`crate::game::timing::Timing::press_frames`]) takes for this driver.
    pub fn press_cost(&self) -> u16 {
        Timing::press_cost(self.pacing.profile.hold, self.pacing.profile.gap)
    }

    /// `timing` with this driver's pace for a piece `since_spawn` frames old: a press costs its gap, or
    /// its input lag and a frame to let go when that is longer (each press waits for its effect before
    /// the next), and the reaction delay still to come counts as lag before the first.
    pub fn paced(&self, timing: Timing, since_spawn: u32) -> Timing {
        paced_at(self.pacing.pace(), timing, since_spawn)
    }

    /// [`Driver::paced`] at the fastest pace the driver may take for a piece: what the bot's search
    /// counts as reachable (the driver hurries when the speed setting's pace does not get there).
    pub fn fastest(&self, timing: Timing, since_spawn: u32) -> Timing {
        paced_at(&self.pacing.hurry, timing, since_spawn)
    }

    /// The clock for a search that walks from the spawn pose, asked `since_spawn` frames into the piece:
    /// the fastest pace, its first press made on the next frame at the soonest (the frames gone count as
    /// lag from the spawn, so a pair asked about late, when the next pair's bytes are written late, is not
    /// taken to be still at the top). The search walks from the spawn and the driver re-checks from RAM's
    /// pose on that frame, each counting gravity its own way: the search keeps a frame more in hand, so a
    /// placement it counts is not one the driver finds a frame out of reach.
    pub fn fastest_from_spawn(&self, timing: Timing, since_spawn: u32) -> Timing {
        let t = paced_at(&self.pacing.hurry, timing, 0);
        let late = since_spawn.saturating_sub(self.pacing.hurry.reaction).min(u32::from(u16::MAX)) as u16;
        Timing { input_lag: t.input_lag.saturating_add(late), ..t }
    }

    /// The move to make among those reachable: the decision's placement, else the best of its ranking,
    /// else the placement nearest to it.
    fn choose<'m>(&self, moves: &'m [Move], piece: Piece) -> Option<&'m Move> {
        let decision = self.plan.decision.as_ref()?;
        let reach = |p: Placement| moves.iter().find(|m| movegen::same_outcome(piece, m.placement, p));
        reach(decision.placement).or_else(|| decision.ranking.iter().find_map(|&(p, _)| reach(p))).or_else(|| {
            let want = decision.placement;
            let turns = |o: Orientation| (o.index() + 4 - want.orientation.index()) % 4;
            moves.iter().min_by_key(|m| {
                (m.placement.x.abs_diff(want.x), turns(m.placement.orientation).min(4 - turns(m.placement.orientation)))
            })
        })
    }

    /// Stops steering: the pair drops where it is.
    fn give_up(&mut self, pose: PiecePosition) {
        self.give_up_because(pose, "keeps refusing the presses");
    }

    /// [`Driver::give_up`], saying why (`what` the game does).
    fn give_up_because(&mut self, pose: PiecePosition, what: &str) {
        let other = match pose.orientation {
            crate::game::Orientation::Up => "above",
            crate::game::Orientation::Right => "right of",
            crate::game::Orientation::Down => "below",
            crate::game::Orientation::Left => "left of",
        };
        log::warn!(
            "driver: the game {what} from column {}, row {} (the other puyo {other} the pivot); dropping the \
             pair where it is",
            pose.x,
            pose.y
        );
        self.stats.gave_up += 1;
        self.plan.target = Some(placement_of(pose));
        self.plan.steps.clear();
    }
}

/// `timing` at the pace `profile` for a piece `since_spawn` frames old ([`Driver::paced`]).
fn paced_at(profile: &SpeedProfile, timing: Timing, since_spawn: u32) -> Timing {
    let lag = u32::from(timing.input_lag);
    // Pressing ahead a press costs its gap and a frame let go; else it also waits its lag for its effect.
    let per_press = if lag >= AHEAD_LAG { ahead_gap(profile) } else { profile.gap.max(lag + profile.hold + 1) };
    let waiting = (profile.reaction + 1).saturating_sub(since_spawn);
    let lag = (lag + waiting).min(u16::MAX as u32) as u16;
    Timing { press_frames: per_press.min(u16::MAX as u32) as u16, input_lag: lag, ..timing }
}

/// Frames from one press to the next when pressing ahead at the pace `profile`: its gap, and at least a
/// frame let go after the hold (the game reacts to new presses).
fn ahead_gap(profile: &SpeedProfile) -> u32 {
    profile.gap.max(profile.hold + 1)
}

/// `timing` with no lock delay: the slower pace is kept only for a placement it reaches before the pair
/// lands. Presses made while the pair rests have the fewest frames to spare and rest on the least
/// measured part of the clock (how long the delay runs, whether moves work in it), and the frames a
/// slow pace's reaction spends on a pair that lands at once are the ones it needed.
fn without_lock_delay(timing: Timing) -> Timing {
    Timing { lock: LockDelay::None, ..timing }
}

/// The placement a pose locks at when dropped straight down.
fn placement_of(pose: PiecePosition) -> Placement {
    Placement::new(pose.x, pose.orientation)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Orientation::*;
    use crate::game::{Color, Pair};

    /// RAM showing the pair under control at column `x`, row 1, turned `o`.
    fn obs(x: u8, o: Orientation) -> PlayerState {
        PlayerState { controllable: true, x, y: 1, orientation: Some(o), ..PlayerState::default() }
    }

    /// RAM showing a pair on an empty field.
    fn surroundings() -> PlayerState {
        let current = Some(Piece::Pair(Pair::new(Color::ALL[0], Color::ALL[1])));
        PlayerState { field: Field::new(), current, ..PlayerState::default() }
    }

    fn decision(placement: Placement, path: &[Step]) -> Decision {
        Decision { path: path.to_vec(), ..Decision::at(placement) }
    }

    #[test]
    fn at_speed_10_it_presses_every_frame_it_can_and_releases_between_equal_buttons() {
        let mut d = Driver::new(10);
        d.start(
            decision(Placement::new(5, Right), &[Step::RotateCw, Step::Right, Step::Right]),
            &surroundings(),
            MoveRules::default(),
        );
        // A, then Right, (release), Right, then Down.
        assert_eq!(d.tick(&obs(3, Up)), pad::A);
        assert_eq!(d.tick(&obs(3, Right)), pad::RIGHT);
        assert_eq!(d.tick(&obs(4, Right)), 0);
        assert_eq!(d.tick(&obs(4, Right)), pad::RIGHT);
        assert_eq!(d.tick(&obs(5, Right)), pad::DOWN);
        assert_eq!(d.tick(&obs(5, Right)), pad::DOWN);
        assert_eq!(d.tick(&PlayerState { controllable: false, ..obs(5, Right) }), 0);
        assert_eq!(d.stats().replans, 0);
    }

    #[test]
    fn an_unexpected_pose_makes_it_replan_from_what_ram_shows() {
        let mut d = Driver::new(10);
        d.start(
            decision(Placement::new(1, Right), &[Step::RotateCw, Step::Left, Step::Left]),
            &surroundings(),
            MoveRules::default(),
        );
        assert_eq!(d.tick(&obs(3, Up)), pad::A);
        // The pair ended one column further left than the model said (e.g. a spurious Left arrived too).
        assert_eq!(d.tick(&obs(2, Right)), pad::LEFT);
        assert_eq!(d.tick(&obs(1, Right)), pad::DOWN);
        assert_eq!(d.stats().replans, 1);
        assert_eq!(d.stats().retargets, 0);
    }

    #[test]
    fn a_move_nobody_pressed_is_noticed_and_undone() {
        let mut d = Driver::new(10);
        d.start(decision(Placement::new(3, Up), &[]), &surroundings(), MoveRules::default());
        assert_eq!(d.tick(&obs(3, Up)), pad::DOWN);
        assert_eq!(d.tick(&obs(4, Up)), pad::LEFT);
        assert_eq!(d.tick(&obs(3, Up)), pad::DOWN);
        assert_eq!(d.stats().replans, 1);
        assert_eq!(d.stats().unasked_moves, 1);
    }

    #[test]
    fn an_unreachable_plan_gives_way_to_the_best_ranked_reachable_placement() {
        // Column 2 is walled up to row 2, so from column 3 low down nothing left of 3 is reachable.
        let mut field = Field::new();
        for y in 2..14 {
            field.set(2, y, crate::game::Cell::Nuisance);
        }
        let s = PlayerState { field, ..surroundings() };
        let ranking = vec![(Placement::new(1, Up), 10.0), (Placement::new(5, Up), 5.0), (Placement::new(4, Up), 1.0)];
        let mut d = Driver::new(10);
        d.start(
            Decision { ranking, ..decision(Placement::new(1, Up), &[Step::Left, Step::Left]) },
            &s,
            MoveRules::default(),
        );
        let low = PlayerState { y: 8, ..obs(3, Up) };
        assert_eq!(d.tick(&low), pad::RIGHT);
        assert_eq!(d.target(), Some(Placement::new(5, Up)));
        assert_eq!(d.stats().retargets, 1);
    }

    #[test]
    fn a_refused_move_is_retried_then_abandoned() {
        let mut d = Driver::new(10);
        d.start(decision(Placement::new(1, Up), &[Step::Left, Step::Left]), &surroundings(), MoveRules::default());
        let (mut presses, mut last) = (0, 0);
        for _ in 0..200 {
            let b = d.tick(&obs(3, Up));
            if b == pad::LEFT && last != pad::LEFT {
                presses += 1;
            }
            last = b;
        }
        assert!(presses > 1 && presses <= MAX_REFUSED as usize + 1, "{presses}");
        assert_eq!(d.stats().gave_up, 1);
        assert_eq!(d.tick(&obs(3, Up)), pad::DOWN);
    }

    /// Rules on the game's clock `timing` (text form of [`Timing`]).
    fn timed(timing: &str) -> MoveRules {
        MoveRules { timing: Some(timing.parse().expect("timing")), ..MoveRules::default() }
    }

    #[test]
    fn with_input_lag_a_press_waits_for_its_effect_and_is_made_once() {
        let mut d = Driver::new(10);
        d.start(decision(Placement::new(4, Up), &[Step::Right]), &surroundings(), timed("fall=30,lag=3"));
        assert_eq!(d.tick(&obs(3, Up)), pad::RIGHT);
        // The game shows the move 3 frames later: let go after its hold, no second press, no refusal.
        let held: Vec<u8> = (0..3).map(|_| d.tick(&obs(3, Up))).collect();
        assert_eq!(held, [0, 0, 0]);
        assert_eq!(d.tick(&obs(4, Up)), pad::DOWN);
        let s = d.stats();
        assert_eq!((s.presses, s.refused, s.replans), (1, 0, 0));
        // A lag of one frame: the press is held until it shows.
        let mut short = Driver::new(10);
        short.start(decision(Placement::new(4, Up), &[Step::Right]), &surroundings(), timed("fall=30,lag=1"));
        assert_eq!(short.tick(&obs(3, Up)), pad::RIGHT);
        assert_eq!(short.tick(&obs(3, Up)), pad::RIGHT);
        assert_eq!(short.tick(&obs(4, Up)), pad::DOWN);
        // Without the lag allowed for, the same wait would have been called a refusal at last.
        let mut hasty = Driver::new(10);
        hasty.start(decision(Placement::new(4, Up), &[Step::Right]), &surroundings(), MoveRules::default());
        for _ in 0..12 {
            hasty.tick(&obs(3, Up));
        }
        assert!(hasty.stats().refused >= 1);
    }

    #[test]
    fn with_no_lock_delay_a_pair_on_the_stack_drops_where_it_is() {
        // Column 3 stacked up to row 2: the pair spawned at row 1 rests at once and locks on this frame.
        let mut field = Field::new();
        for y in 2..14 {
            field.set(3, y, crate::game::Cell::Nuisance);
        }
        let s = PlayerState { field, ..surroundings() };
        let plan = decision(Placement::new(1, Up), &[Step::Left, Step::Left]);
        let mut d = Driver::new(10);
        d.start(plan.clone(), &s, timed("fall=30,lock=none"));
        let first = d.tick(&PlayerState { field, ..obs(3, Up) });
        assert_ne!(first, pad::LEFT, "no press can count once it has landed");
        assert_eq!(d.target(), Some(Placement::new(3, Up)));
        assert_eq!(d.stats().retargets, 1);
        // With a lock delay that allows moves, the same pair still goes where it was planned.
        let mut waits = Driver::new(10);
        waits.start(plan, &s, timed("fall=30,lock=16"));
        assert_eq!(waits.tick(&PlayerState { field, ..obs(3, Up) }), pad::LEFT);
        assert_eq!(waits.target(), Some(Placement::new(1, Up)));
    }

    #[test]
    fn with_fast_gravity_a_replan_aims_only_where_time_allows() {
        // One row a frame, no lock delay: a pair one row above the floor lands before any press arrives.
        let low = PlayerState { y: 12, ..obs(3, Up) };
        let plan = decision(Placement::new(1, Up), &[Step::Left, Step::Left]);
        let mut d = Driver::new(10);
        d.start(plan.clone(), &surroundings(), timed("fall=1,lock=none"));
        assert_ne!(d.tick(&low), pad::LEFT);
        assert_eq!(d.target(), Some(Placement::new(3, Up)));
        // At 30 frames per row the same pair has the time.
        let mut slow = Driver::new(10);
        slow.start(plan, &surroundings(), timed("fall=30,lock=none"));
        assert_eq!(slow.tick(&low), pad::LEFT);
        assert_eq!(slow.target(), Some(Placement::new(1, Up)));
    }

    #[test]
    fn paced_timing_counts_the_driver_gap_the_lag_and_the_reaction_still_to_come() {
        let t: Timing = "fall=30,lag=3".parse().unwrap();
        let slow = Driver::new(5); // reaction 12, gap 8, hold 1
        let p = slow.paced(t, 0);
        assert_eq!((p.press_frames, p.input_lag), (8, 3 + 13));
        assert_eq!(slow.paced(t, 20).input_lag, 3, "after the reaction only the lag");
        let fast = Driver::new(10); // gap 1: pressing ahead, a press and a frame to let go
        assert_eq!(fast.paced(t, 5).press_frames, 2);
        let short: Timing = "fall=30,lag=1".parse().unwrap(); // under AHEAD_LAG: each press waits its lag
        assert_eq!(fast.paced(short, 5).press_frames, 3);
    }

    #[test]
    fn on_a_long_input_lag_presses_go_in_ahead_of_their_effects_and_are_checked_in_order() {
        let plan = decision(Placement::new(6, Up), &[Step::Right, Step::Right, Step::Right]);
        let mut d = Driver::new(10);
        d.start(plan.clone(), &surroundings(), timed("fall=30,lag=5"));
        // Three presses, a frame let go between them, before the first has shown its effect.
        let made: Vec<u8> = (0..6).map(|_| d.tick(&obs(3, Up))).collect();
        assert_eq!(made, [pad::RIGHT, 0, pad::RIGHT, 0, pad::RIGHT, 0]);
        // The effects arrive one by one, five frames after each press.
        for x in [4, 4, 5, 5] {
            assert_eq!(d.tick(&obs(x, Up)), 0, "x {x}: nothing pressed while effects are awaited");
        }
        assert_eq!(d.tick(&obs(6, Up)), pad::DOWN, "the last effect in place: the soft drop");
        assert_eq!((d.stats().presses, d.stats().replans, d.stats().refused), (3, 0, 0));
        // A surprise (the second press shows as a turn) lets the presses already made land, then re-plans.
        let mut s = Driver::new(10);
        s.start(plan, &surroundings(), timed("fall=30,lag=5"));
        for _ in 0..6 {
            s.tick(&obs(3, Up));
        }
        s.tick(&obs(4, Up));
        assert_eq!(s.tick(&obs(4, Right)), 0);
        let waited: Vec<u8> = (0..6).map(|_| s.tick(&obs(5, Right))).collect();
        assert_eq!(&waited[..5], [0; 5], "the presses in flight land first: {waited:?}");
        assert_eq!(s.stats().replans, 1, "one re-plan once they have");
        assert_eq!(s.stats().unasked_moves, 0, "the late effects are not taken for invented presses");
    }

    #[test]
    fn a_pair_that_keeps_leaving_its_plan_is_let_go_where_it_is() {
        let mut d = Driver::new(10);
        d.start(
            decision(Placement::new(6, Up), &[Step::Right, Step::Right, Step::Right]),
            &surroundings(),
            MoveRules::default(),
        );
        // Each frame RAM shows the pair somewhere the driver did not send it.
        for k in 0..(MAX_REPLANS as usize + 4) {
            d.tick(&obs(if k % 2 == 0 { 2 } else { 1 }, Up));
        }
        assert_eq!(d.stats().gave_up, 1);
        let here = d.target().expect("a target");
        assert_eq!(d.tick(&obs(here.x, Up)), pad::DOWN, "it drops where it is");
    }

    #[test]
    fn a_pace_too_slow_for_the_clock_hurries_and_a_slow_clock_keeps_the_speed_setting() {
        // A row a frame without a lock delay: at speed 7's pace (5 frames of reaction, a press every 4)
        // the pair lands before it gets to column 6; at the hurried pace (a press every 2) it does not.
        let plan = decision(Placement::new(6, Up), &[Step::Right, Step::Right, Step::Right]);
        let mut d = Driver::new(7);
        d.start(plan.clone(), &surroundings(), timed("fall=1,lock=none"));
        assert_eq!(d.tick(&obs(3, Up)), pad::RIGHT, "no reaction delay when hurried");
        assert!(d.hurried());
        assert_eq!(d.target(), Some(Placement::new(6, Up)), "the plan's placement kept");
        assert_eq!(d.tick(&obs(4, Up)), 0);
        assert_eq!(d.tick(&obs(4, Up)), pad::RIGHT, "a press every other frame");
        // At 30 frames per row the speed setting's pace gets there: its reaction delay, then its presses.
        let mut relaxed = Driver::new(7);
        relaxed.start(plan, &surroundings(), timed("fall=30,lock=none"));
        let first = (0..40).position(|_| relaxed.tick(&obs(3, Up)) == pad::RIGHT);
        assert_eq!(first, Some(SpeedProfile::new(7).reaction as usize));
        assert!(!relaxed.hurried());
        // The next piece starts at the speed setting's pace again.
        d.clear();
        assert!(!d.hurried());
        // The search counts what the hurried pace reaches.
        let t: Timing = "fall=1,lock=none".parse().unwrap();
        assert_eq!((d.fastest(t, 0).press_frames, d.fastest(t, 0).input_lag), (2, 1));
        assert_eq!(d.first_action_frame(true), 1);
        // A search from the spawn asked 8 frames in: the first press is made on frame 9 at the soonest.
        assert_eq!(d.fastest_from_spawn(t, 0), d.fastest(t, 0));
        assert_eq!(d.fastest_from_spawn(t, 8).input_lag, 9);
        assert_eq!(d.first_action_frame(false), SpeedProfile::new(7).reaction + 1);
    }

    #[test]
    fn a_pair_that_lands_at_the_spawn_is_hurried_from_its_first_frame() {
        // Column 3 stands to just below the spawn: the pair rests where it spawns, with 8 frames of lock
        // delay to move in. Speed 7's reaction and first press would fit in them by the model's count, but
        // only just: the slower pace is kept only for a placement reached before the pair lands.
        let mut st = surroundings();
        for y in 2..crate::game::field::HEIGHT {
            st.field.set(3, y, crate::game::Cell::Nuisance);
        }
        let plan = decision(Placement::new(4, Up), &[Step::Right]);
        let mut d = Driver::new(7);
        d.start(plan.clone(), &st, timed("fall=30,lock=8"));
        assert_eq!(d.tick(&obs(3, Up)), pad::RIGHT, "the first frame, no reaction delay");
        assert!(d.hurried());
        // The same placement on an empty field is reached long before the pair lands: speed 7's pace.
        let mut relaxed = Driver::new(7);
        relaxed.start(plan, &surroundings(), timed("fall=30,lock=8"));
        assert_eq!(relaxed.tick(&obs(3, Up)), 0);
        assert!(!relaxed.hurried());
    }

    #[test]
    fn a_plan_given_again_for_the_same_piece_keeps_its_clock() {
        // Asked again 8 frames into the piece (the next pair read late): the reaction delay is behind it.
        let plan = decision(Placement::new(4, Up), &[Step::Right]);
        let mut d = Driver::new(7); // reaction 5
        d.let_fall(3);
        d.start(plan.clone(), &surroundings(), MoveRules::default());
        for _ in 0..4 {
            assert_eq!(d.tick(&obs(3, Up)), 0, "within the reaction delay");
        }
        d.forget_plan();
        for _ in 0..4 {
            d.tick(&obs(3, Up));
        }
        d.start(plan.clone(), &surroundings(), MoveRules::default());
        assert_eq!(d.tick(&obs(3, Up)), pad::RIGHT, "no second reaction delay");
        assert_eq!(d.tick(&obs(4, Up)), 0, "the gravity sample is kept: no soft drop yet");
        // A new piece starts its clock again.
        d.clear();
        d.start(plan, &surroundings(), MoveRules::default());
        assert_eq!(d.tick(&obs(3, Up)), 0);
    }

    #[test]
    fn a_pair_let_fall_shows_its_gravity_before_the_soft_drop() {
        let mut d = Driver::new(10);
        d.start(decision(Placement::new(3, Up), &[]), &surroundings(), timed("fall=30"));
        d.let_fall(2);
        let at = |y: u8| PlayerState { y, ..obs(3, Up) };
        // In place at once, but no Down until gravity has moved the pair two rows.
        assert_eq!(d.tick(&at(1)), 0);
        assert_eq!(d.tick(&at(1)), 0);
        assert_eq!(d.tick(&at(2)), 0);
        assert_eq!(d.tick(&at(3)), pad::DOWN);
        // The next piece soft-drops as usual.
        d.clear();
        d.start(decision(Placement::new(3, Up), &[]), &surroundings(), timed("fall=30"));
        assert_eq!(d.tick(&at(1)), pad::DOWN);
    }

    #[test]
    fn slow_speeds_wait_before_the_first_press() {
        let mut d = Driver::new(0);
        d.start(decision(Placement::new(4, Up), &[Step::Right]), &surroundings(), MoveRules::default());
        let first = (0..100).position(|_| d.tick(&obs(3, Up)) == pad::RIGHT);
        assert_eq!(first, Some(SpeedProfile::new(0).reaction as usize));
    }
}
