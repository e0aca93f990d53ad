//! Command-line front ends, one module per subcommand.

pub mod calibrate;
pub mod chain;
pub mod play;
pub mod plot;
pub mod record;
pub mod replay;
pub mod sim;
pub mod soak;
pub mod train;
