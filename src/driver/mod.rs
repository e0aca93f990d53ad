//! The input driver: a [`crate::game::Decision`] → buttons, frame by frame, checked against RAM and
//! re-planned with the game's movement model; and the after-lock comparison of RAM with the rules core.

pub mod input;
pub mod speed;
pub mod verify;

pub use input::{Driver, DriverStats, Observation, Surroundings};
pub use speed::SpeedProfile;
pub use verify::{Check, Prediction, Verifier};
