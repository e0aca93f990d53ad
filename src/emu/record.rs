//! Recording what the session fed the console: the pad bytes of every frame, and a hash of RAM.
//!
//! [`Recorder`] wraps any [`Machine`] and is itself one, so the session cannot tell it is there. The
//! log it keeps is what a replay file stores and what the no-write test feeds a fresh console.

use super::{EmuError, Machine};

/// FNV-1a over RAM: a short, stable fingerprint that the JSON report and replays compare.
pub fn ram_hash(ram: &[u8; 2048]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in ram {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// A machine that logs the pads of every frame it clocks.
#[derive(Debug)]
pub struct Recorder<M: Machine> {
    inner: M,
    pads: [u8; 2],
    log: Vec<[u8; 2]>,
    /// RAM hash after each frame, when asked for (costs one pass over RAM per frame).
    hashes: Option<Vec<u64>>,
}

impl<M: Machine> Recorder<M> {
    /// Wraps `inner`; with `hash_every_frame` it also keeps the RAM hash after every frame.
    pub fn new(inner: M, hash_every_frame: bool) -> Recorder<M> {
        Recorder { inner, pads: [0; 2], log: Vec::new(), hashes: hash_every_frame.then(Vec::new) }
    }

    /// The pads held during each frame clocked so far, in order.
    pub fn log(&self) -> &[[u8; 2]] {
        &self.log
    }

    /// RAM hashes after each frame, if they were asked for.
    pub fn hashes(&self) -> Option<&[u64]> {
        self.hashes.as_deref()
    }

    /// The wrapped machine.
    pub fn inner(&self) -> &M {
        &self.inner
    }

    /// The wrapped machine, mutably (e.g. the window's picture).
    pub fn inner_mut(&mut self) -> &mut M {
        &mut self.inner
    }

    /// Unwraps into the machine and the pad log.
    pub fn into_parts(self) -> (M, Vec<[u8; 2]>) {
        (self.inner, self.log)
    }
}

impl<M: Machine> Machine for Recorder<M> {
    fn ram(&self) -> &[u8; 2048] {
        self.inner.ram()
    }

    fn set_pads(&mut self, pads: [u8; 2]) {
        self.pads = pads;
        self.inner.set_pads(pads);
    }

    fn clock_frame(&mut self) -> Result<(), EmuError> {
        self.inner.clock_frame()?;
        self.log.push(self.pads);
        if let Some(h) = &mut self.hashes {
            h.push(ram_hash(self.inner.ram()));
        }
        Ok(())
    }

    fn frame_number(&self) -> u32 {
        self.inner.frame_number()
    }

    fn set_in_play(&mut self, in_play: bool) {
        self.inner.set_in_play(in_play);
    }
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
    fn the_log_holds_the_pads_of_each_clocked_frame_and_a_replay_matches_ram() {
        let mut rec = Recorder::new(MockGame::new(1, 4, 7), true);
        let presses = [0u8, 0x40, 0x40, 0x01, 0x20, 0x20, 0x80, 0];
        for (i, &p) in presses.iter().cycle().take(200).enumerate() {
            rec.set_pads([p, (i % 3) as u8]);
            rec.clock_frame().expect("mock frame");
        }
        assert_eq!(rec.log().len(), 200);
        assert_eq!(rec.log()[1], [0x40, 1]);
        let hashes = rec.hashes().expect("hashes kept").to_vec();
        let log = rec.log().to_vec();
        let mut fresh = MockGame::new(1, 4, 7);
        play_back(&mut fresh, &log, |i, ram| assert_eq!(ram_hash(ram), hashes[i], "frame {i}")).expect("replay");
        // A different first press must change RAM somewhere, or the comparison above proves nothing.
        let mut other = MockGame::new(1, 4, 7);
        let mut changed = false;
        let mut altered = log.clone();
        altered.iter_mut().for_each(|p| p[0] = 0x80);
        play_back(&mut other, &altered, |i, ram| changed |= ram_hash(ram) != hashes[i]).expect("replay");
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
