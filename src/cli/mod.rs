//! Command-line front ends, one module per subcommand.

pub mod chain;
pub mod play;
pub mod plot;
pub mod replay;
pub mod sim;
pub mod soak;
pub mod train;
