//! What recordings compare: a hash of RAM, and a pad log fed back into a console frame by frame.
//!
//! Recording itself is [`crate::trace::TraceRecorder`]'s job; this module only holds the two small pieces
//! that replays, reports and tests share.

use super::{EmuError, Machine};

/// FNV-1a over RAM: a short, stable fingerprint that the JSON report, trace end records and replays
/// compare.
pub fn ram_hash(ram: &[u8; 2048]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in ram {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// Feeds `log` into `machine` one frame at a time, calling `each` with RAM after every frame.
pub fn play_back<M: Machine>(
    machine: &mut M,
    log: &[[u8; 2]],
    mut each: impl FnMut(usize, &[u8; 2048]),
) -> Result<(), EmuError> {
    for (i, &pads) in log.iter().enumerate() {
        machine.set_pads(pads);
        machine.clock_frame()?;
        each(i, machine.ram());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::emu::mock::MockGame;

    #[test]
    fn the_same_pads_give_the_same_ram_and_other_pads_other_ram() {
        let presses = [0u8, 0x40, 0x40, 0x01, 0x20, 0x20, 0x80, 0];
        let log: Vec<[u8; 2]> =
            presses.iter().cycle().take(200).enumerate().map(|(i, &p)| [p, (i % 3) as u8]).collect();
        let mut hashes = Vec::new();
        play_back(&mut MockGame::new(1, 4, 7), &log, |_, ram| hashes.push(ram_hash(ram))).expect("play");
        assert_eq!(hashes.len(), 200);
        play_back(&mut MockGame::new(1, 4, 7), &log, |i, ram| assert_eq!(ram_hash(ram), hashes[i], "frame {i}"))
            .expect("again");
        // A different press must change RAM somewhere, or the comparison above proves nothing.
        let altered: Vec<[u8; 2]> = log.iter().map(|p| [0x80, p[1]]).collect();
        let mut changed = false;
        play_back(&mut MockGame::new(1, 4, 7), &altered, |i, ram| changed |= ram_hash(ram) != hashes[i])
            .expect("other pads");
        assert!(changed);
    }

    #[test]
    fn the_hash_sees_a_single_byte() {
        let a = [0u8; 2048];
        let mut b = a;
        b[2047] = 1;
        assert_ne!(ram_hash(&a), ram_hash(&b));
    }
}
