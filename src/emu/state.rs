//! Save states: the one way to rewrite a console's RAM, kept apart from [`super::Machine`].
//!
//! The window holds this capability for its save/load keys; the session is generic over `Machine`
//! alone, so it cannot call these even by mistake.

use super::EmuError;

/// A console whose whole state can be saved and restored.
pub trait SaveStates {
    /// Saves the whole machine into a byte vector.
    fn save_state(&mut self) -> Result<Vec<u8>, EmuError>;
    /// Restores a state made by [`SaveStates::save_state`]; the pads held now stay held.
    fn load_state(&mut self, state: &[u8]) -> Result<(), EmuError>;
}
