//! Locking a piece into the field: pairs split and fall, items take effect, then the field resolves.

use super::field::{Field, HEIGHT, NUISANCE, WIDTH, bit, column_mask, neighbours};
use super::piece::{Cell, Item, Orientation, Pair, Piece, Placement};
use super::resolve::ChainSummary;
use super::rules::Rules;

/// Why a placement cannot be applied at all.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PlacementError {
    /// A puyo of the piece would sit outside columns 1..=6.
    #[error("placement {0} puts a puyo outside columns 1..=6")]
    OutOfField(Placement),
}

impl Placement {
    /// Checks that every puyo of `piece` placed this way lies within columns 1..=6.
    pub fn check(self, piece: Piece) -> Result<(), PlacementError> {
        let ok = match piece {
            Piece::Pair(_) => (1..=6).contains(&self.x) && (1..=6).contains(&self.child_x()),
            Piece::Item(Item::BigPuyo) => (1..=5).contains(&self.x),
            Piece::Item(Item::Carbuncle) => (1..=6).contains(&self.x),
        };
        if ok { Ok(()) } else { Err(PlacementError::OutOfField(self)) }
    }
}

impl Field {
    /// Drops a pair: each half falls on its own to the top of its column; a half that finds its column
    /// full vanishes. Returns the cells where puyos landed.
    pub fn drop_pair(&mut self, pair: Pair, placement: Placement) -> Result<u128, PlacementError> {
        placement.check(Piece::Pair(pair))?;
        let x = placement.x as usize;
        let cx = placement.child_x() as usize;
        // The lower half lands first when both share a column.
        let (first, second) = match placement.orientation {
            Orientation::Down => ((cx, pair.child), (x, pair.pivot)),
            _ => ((x, pair.pivot), (cx, pair.child)),
        };
        let mut landed = 0u128;
        for (col, color) in [first, second] {
            if let Some(y) = self.drop_puyo(col, Cell::Color(color)) {
                landed |= 1 << bit(col, y);
            }
        }
        Ok(landed)
    }

    /// Locks `piece` at `placement` and resolves the field. The field must be settled.
    pub fn play(&mut self, piece: Piece, placement: Placement, rules: &Rules) -> Result<ChainSummary, PlacementError> {
        match piece {
            Piece::Pair(pair) => {
                let landed = self.drop_pair(pair, placement)?;
                Ok(self.resolve_from(rules, landed, |_| {}))
            }
            Piece::Item(Item::BigPuyo) => {
                placement.check(piece)?;
                Ok(self.big_puyo(placement.x as usize, rules))
            }
            Piece::Item(Item::Carbuncle) => {
                placement.check(piece)?;
                Ok(self.carbuncle(placement.x as usize, rules))
            }
        }
    }

    /// Big Puyo lands on columns `x` and `x+1` and clears them (no score, no chain).
    fn big_puyo(&mut self, x: usize, rules: &Rules) -> ChainSummary {
        let mask = column_mask(x) | column_mask(x + 1);
        let before = self.count();
        for (i, layer) in self.layers.iter_mut().enumerate() {
            if i != NUISANCE || rules.items.big_puyo_clears_nuisance {
                *layer &= !mask;
            }
        }
        let removed_by_item = before - self.count();
        // Kept nuisance (when the rule spares it) must still fall.
        let moved = self.apply_gravity();
        let mut summary = self.resolve_from(rules, moved, |_| {});
        summary.cleared += removed_by_item;
        summary
    }

    /// Carbuncle lands on top of column `x`, recolours the puyos it touches, vanishes, and the field resolves.
    fn carbuncle(&mut self, x: usize, rules: &Rules) -> ChainSummary {
        let Some(y) = self.landing_row(x) else {
            return ChainSummary::default();
        };
        let here = 1u128 << bit(x, y);
        let below = if y + 1 < HEIGHT { 1u128 << bit(x, y + 1) } else { 0 };
        let touchable = if rules.items.carbuncle_recolors_nuisance { self.occupied() } else { self.colored() };
        let touched = neighbours(here) & touchable;
        if touched == 0 {
            return ChainSummary::default();
        }
        let target = match self.get(x, y + 1) {
            Cell::Color(c) if below & touched != 0 => c,
            _ => {
                // The lowest colour among the touched cells (in the cartridge's code order); nuisance-only
                // contact changes nothing.
                let rank = &rules.items.carbuncle_rank;
                match (0..super::piece::MAX_COLORS).filter(|&c| self.layers[c] & touched != 0).min_by_key(|&c| rank[c])
                {
                    Some(c) => super::piece::Color::ALL[c],
                    None => return ChainSummary::default(),
                }
            }
        };
        for layer in &mut self.layers {
            *layer &= !touched;
        }
        self.layers[target.index()] |= touched;
        self.resolve_from(rules, touched, |_| {})
    }

    /// All coloured cells.
    pub fn colored(&self) -> u128 {
        self.layers[..super::piece::MAX_COLORS].iter().fold(0, |a, l| a | l)
    }

    /// True when a death cell is occupied: the pivot's spawn cell, or the child's when the pair spawns
    /// with its child in a visible row (sideways or down). The game is over for this field.
    pub fn is_game_over(&self, rules: &Rules) -> bool {
        rules
            .death_cells()
            .iter()
            .flatten()
            .any(|&(x, y)| (1..=WIDTH).contains(&x) && y < HEIGHT && self.get(x, y) != Cell::Empty)
    }
}
