//! A transposition table for field values. The beam reaches the same field many times in one decision
//! (sampled futures that deal the same pair, symmetric placements, transposed orders) and again in the
//! next decision (the known next pair was one of the futures), and the chain evaluation is pure: a field
//! evaluated once need not be evaluated again. The table is direct-mapped (one slot per hash, a new entry
//! replaces the old one), so its memory is fixed whatever the length of the game. A value depends on the
//! field, the rules and whatever else its owner names in a tag (the chain evaluation's battle mode and
//! extension keys); a lookup under other rules or another tag empties the table first.

use std::sync::Mutex;

use crate::game::{Field, Rules};

/// Slots in the table: several decisions' worth of fields at the default search settings (4 MiB).
const SLOTS: usize = 1 << 15;

/// Tables kept from dropped caches, at most this many, for new caches to reuse.
const MAX_SPARE_TABLES: usize = 4;

/// The slot vectors of dropped caches. A run that builds new bots game after game (a soak, a match)
/// reuses them instead of asking the allocator for 4 MiB each time, which a freed-and-reallocated table
/// can leave resident twice over.
static SPARE_TABLES: Mutex<Vec<Vec<Slot>>> = Mutex::new(Vec::new());

/// One slot: the field it holds and its value.
#[derive(Clone, Copy)]
struct Slot {
    field: Field,
    value: f64,
    used: bool,
}

/// The slots and what their values were computed under.
struct Table {
    slots: Vec<Slot>,
    rules: Option<Rules>,
    tag: u64,
}

/// Field values by field, shared by the search's threads.
pub struct FieldCache {
    table: Mutex<Table>,
}

impl FieldCache {
    /// An empty table; its memory is taken on first use.
    pub fn new() -> FieldCache {
        FieldCache { table: Mutex::new(Table { slots: Vec::new(), rules: None, tag: 0 }) }
    }

    /// The value stored for `field` under `rules` and `tag`, or `compute()`, stored for next time.
    pub fn get_or_insert(&self, field: &Field, rules: &Rules, tag: u64, compute: impl FnOnce() -> f64) -> f64 {
        let index = (fingerprint(field) as usize) & (SLOTS - 1);
        if let Ok(table) = self.table.lock()
            && table.tag == tag
            && table.rules.as_ref() == Some(rules)
            && let Some(slot) = table.slots.get(index)
            && slot.used
            && slot.field == *field
        {
            return slot.value;
        }
        // Computed outside the lock: other threads keep using the table meanwhile.
        let value = compute();
        if let Ok(mut table) = self.table.lock() {
            if table.tag != tag || table.rules.as_ref() != Some(rules) {
                table.slots.clear();
                table.rules = Some(rules.clone());
                table.tag = tag;
            }
            if table.slots.is_empty() {
                if table.slots.capacity() < SLOTS
                    && let Some(spare) = SPARE_TABLES.lock().ok().and_then(|mut s| s.pop())
                {
                    table.slots = spare;
                    table.slots.clear();
                }
                table.slots.resize(SLOTS, Slot { field: Field::new(), value: 0.0, used: false });
            }
            table.slots[index] = Slot { field: *field, value, used: true };
        }
        value
    }
}

impl Drop for FieldCache {
    fn drop(&mut self) {
        let Ok(table) = self.table.get_mut() else { return };
        let slots = std::mem::take(&mut table.slots);
        if slots.capacity() >= SLOTS
            && let Ok(mut spare) = SPARE_TABLES.lock()
            && spare.len() < MAX_SPARE_TABLES
        {
            spare.push(slots);
        }
    }
}

impl Default for FieldCache {
    fn default() -> Self {
        FieldCache::new()
    }
}

/// A copy starts empty: the values belong to the evaluation that computed them.
impl Clone for FieldCache {
    fn clone(&self) -> Self {
        FieldCache::new()
    }
}

impl std::fmt::Debug for FieldCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let used = self.table.lock().map(|t| t.slots.iter().filter(|s| s.used).count()).unwrap_or(0);
        write!(f, "FieldCache {{ {used} of {SLOTS} slots used }}")
    }
}

/// A 64-bit hash of a field's cells (a multiply-xorshift over its layers; the table only needs the
/// low bits spread well).
fn fingerprint(field: &Field) -> u64 {
    const K: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut h = 0u64;
    for &layer in &field.layers {
        h = (h ^ layer as u64).wrapping_mul(K);
        h = (h ^ (layer >> 64) as u64).wrapping_mul(K);
        h ^= h >> 29;
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::{Cell, Color};

    #[test]
    fn a_table_reused_from_a_dropped_cache_holds_none_of_its_values() {
        let rules = Rules::puyo1();
        let f = Field::from_rows(&["RG....", "GB...."]);
        for round in 0..3 {
            let cache = FieldCache::new();
            let mut computed = false;
            let v = cache.get_or_insert(&f, &rules, 0, || {
                computed = true;
                f64::from(round)
            });
            assert!(computed, "round {round}: a new cache computes, whatever table it reuses");
            assert_eq!(v, f64::from(round));
        }
    }

    #[test]
    fn a_stored_value_is_returned_without_computing_it_again() {
        let (cache, rules) = (FieldCache::new(), Rules::puyo1());
        let f = Field::from_rows(&["RG....", "GB...."]);
        assert_eq!(cache.get_or_insert(&f, &rules, 0, || 7.0), 7.0);
        assert_eq!(cache.get_or_insert(&f, &rules, 0, || panic!("computed twice")), 7.0);
    }

    #[test]
    fn fields_that_share_a_slot_never_see_each_others_values() {
        // More fields than slots: every one gets its own value back or a fresh computation, never
        // another field's.
        let (cache, rules) = (FieldCache::new(), Rules::puyo1());
        let mut fields = Vec::new();
        for i in 0..(SLOTS + 500) {
            let mut f = Field::new();
            for b in 0..20 {
                if i >> b & 1 == 1 {
                    f.set(1 + b % 6, 13 - b / 6, Cell::Color(Color::ALL[b % 4]));
                }
            }
            fields.push(f);
        }
        for (i, f) in fields.iter().enumerate() {
            assert_eq!(cache.get_or_insert(f, &rules, 0, || i as f64), i as f64);
        }
        for (i, f) in fields.iter().enumerate() {
            assert_eq!(cache.get_or_insert(f, &rules, 0, || i as f64), i as f64, "field {i}");
        }
    }

    #[test]
    fn other_rules_another_tag_or_a_copy_start_afresh() {
        let (cache, rules) = (FieldCache::new(), Rules::puyo1());
        let f = Field::from_rows(&["R....."]);
        cache.get_or_insert(&f, &rules, 0, || 1.0);
        assert_eq!(cache.clone().get_or_insert(&f, &rules, 0, || 2.0), 2.0);
        assert_eq!(cache.get_or_insert(&f, &rules, 1, || 3.0), 3.0);
        let three = Rules { pop_size: 3, ..Rules::puyo1() };
        assert_eq!(cache.get_or_insert(&f, &three, 1, || 4.0), 4.0);
        // The table now holds values for the new rules only.
        assert_eq!(cache.get_or_insert(&f, &rules, 0, || 5.0), 5.0);
    }
}
