//! `puyobot train`: tunes an evaluation's weights by self-play.
//!
//! - [`params`]: the `[ai.<name>]` table as a vector of its float fields, whatever the evaluation;
//! - [`jobs`]: one game of one or two weight vectors, and the fitness figures it yields;
//! - [`method`]: the tournament and SPSA methods as deterministic state transitions;
//! - [`run`]: generations, the checkpoint and output files, and shard files for batch schedulers.
//!
//! Above `ai` and `sim` (it builds bots and plays games); nothing of the emulator or the window.

pub mod jobs;
pub mod method;
pub mod params;
pub mod run;

pub use jobs::{Fitness, Job, JobResult};
pub use method::{Method, Row, Settings, State};
pub use params::ParamSpace;
