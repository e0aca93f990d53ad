//! The input driver: placement + input path → buttons, frame by frame, checked against RAM; and the
//! after-lock comparison of RAM with the rules core.

pub mod input;
pub mod path;
pub mod speed;
pub mod verify;

pub use input::{Driver, DriverStats, Observation, Surroundings};
pub use path::{Pose, plan};
pub use speed::SpeedProfile;
pub use verify::{Check, Prediction, Verifier};
