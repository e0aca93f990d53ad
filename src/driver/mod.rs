//! The input driver: a [`crate::game::Decision`] → buttons, frame by frame, checked against RAM and
//! re-planned with the game's movement model; the one press executor ([`press`]) it and self-calibration's
//! opening press through; and the after-lock comparison of RAM with the rules core.

pub mod input;
pub mod lock;
pub mod press;
pub mod speed;
pub mod verify;

pub use input::{Driver, DriverStats};
pub use lock::{Lock, LockWatch};
pub use press::{Effect, Pose, PressTiming, Presser, Progress};
pub use speed::{MAX_SPEED, SpeedProfile};
pub use verify::{Check, Prediction, Verifier};
