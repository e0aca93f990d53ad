//! Which of the two current-pair bytes holds the pivot (the puyo a turn rotates around).
//!
//! The address file names one byte `current_pivot` and the other `current_child`; a cartridge may keep
//! them the other way round. Locks alone cannot tell: a pair read with the bytes swapped lands exactly like
//! a pair whose X / Y follow the other puyo with every orientation reversed. Turns settle which puyo X / Y
//! follow (the one that does not move when the pair turns in open space), and then the colours decide: when
//! every lock fits the colour codes only with the two bytes exchanged, the bytes are the other way round.
//! The learner then reads them swapped from that frame on, and the learned address file names them so.

use crate::memmap::raw::View;
use crate::memmap::schema::AddressFile;

use super::fact::Contradictions;

/// The current-pair byte order as learned.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PairOrder {
    /// The byte named `current_pivot` holds the child's code (and `current_child` the pivot's).
    swapped: bool,
    /// Times the order was changed (a second change is a contradiction: the evidence disagrees).
    changes: u32,
}

impl PairOrder {
    /// True when the bytes are read the other way round from the address file's names.
    pub fn swapped(&self) -> bool {
        self.swapped
    }

    /// Reads `view`'s current pair in the learned order.
    pub fn apply(&self, view: &mut View) {
        if self.swapped {
            std::mem::swap(&mut view.pivot, &mut view.child);
        }
    }

    /// The colours fit only with the bytes exchanged while the movement pins which puyo X / Y follow: the
    /// order changes. A change back is logged as a contradiction.
    pub fn exchange(&mut self, found: &mut Contradictions) {
        self.swapped = !self.swapped;
        self.changes += 1;
        if self.changes > 1 {
            found.push(format!(
                "current-pair bytes: the colours fit only with the two current bytes {} (changed {} times)",
                self.name(),
                self.changes
            ));
        } else {
            log::info!("calibration: the current-pair bytes are {}", self.name());
        }
    }

    /// For reports: `"as named"` or `"swapped"`.
    pub fn name(&self) -> &'static str {
        if self.swapped { "swapped" } else { "as named" }
    }

    /// `file` with the current-pair entries of every player named as learned.
    pub fn write_into(&self, file: &mut AddressFile, learned: impl Fn(&str) -> String) {
        if !self.swapped {
            return;
        }
        for p in &mut file.player {
            std::mem::swap(&mut p.current_pivot, &mut p.current_child);
            for (e, what) in [(&mut p.current_pivot, "pivot"), (&mut p.current_child, "child")] {
                e.source = learned(&format!("holds the current {what}'s code (the bytes are the other way round)"));
                e.verified = true;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memmap::AddressSource;

    #[test]
    fn an_exchanged_order_reads_the_bytes_the_other_way_round_and_names_them_so_in_the_file() {
        let mut order = PairOrder::default();
        let mut found = Contradictions::default();
        let mut view = View { pivot: 3, child: 5, ..View::default() };
        order.apply(&mut view);
        assert_eq!((view.pivot, view.child), (3, 5));
        order.exchange(&mut found);
        assert!(order.swapped() && found.is_empty(), "a first change is learning, not a contradiction");
        order.apply(&mut view);
        assert_eq!((view.pivot, view.child), (5, 3));
        let start = AddressSource::Builtin.address_file("labcart/2p.toml").unwrap();
        let mut file = start.clone();
        order.write_into(&mut file, |w| w.to_string());
        for (p, s) in file.player.iter().zip(&start.player) {
            assert_eq!(p.current_pivot.addr, s.current_child.addr);
            assert_eq!(p.current_child.addr, s.current_pivot.addr);
        }
        order.exchange(&mut found);
        assert!(!order.swapped());
        assert_eq!(found.len(), 1, "changing back means the evidence disagrees");
    }
}
