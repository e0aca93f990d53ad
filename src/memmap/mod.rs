//! The cartridge's RAM map as data: address files (`addresses/*.toml`), their validation, the table of
//! known dumps, the one RAM reader (`raw`: one player's bytes, before any code has a meaning) and the
//! decoder from those bytes to the game model.

pub mod catalog;
pub mod control;
pub mod decode;
pub mod load;
pub mod mode;
pub mod raw;
pub mod schema;

pub use catalog::{AddressSource, Catalog, CatalogError, KnownRom};
pub use decode::{ColorMap, Decoder, PlayerState, Snapshot, UnknownCell};
pub use load::{AddressFileError, parse_address_file};
pub use mode::Mode;
pub use schema::{AddressFile, Movement, Turn, XyTracks};
