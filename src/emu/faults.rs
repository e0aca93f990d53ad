//! Pad fault injection: a host layer between the session's pads and the console that loses, delays and
//! invents button presses, as a worn pad or a flaky link would.
//!
//! Faults touch the playing buttons only (A, B and the d-pad): a spurious Start would pause the game,
//! which tests the menus, not the closed loop. For the same reason they apply only while a game is in
//! play ([`Machine::set_in_play`]): on a mode select a spurious Left or Right changes the mode or the
//! options, and the session would play a game other than the one asked for (a 2P game whose idle
//! second player tops out, say) — a test of the open-loop menu script, not of the recovery in play. Every decision comes from a generator seeded by the run's
//! seed, so a faulty run replays exactly.

use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

use super::{EmuError, Machine, pad};

/// The buttons faults apply to.
const PLAY_BUTTONS: [u8; 6] = [pad::A, pad::B, pad::UP, pad::DOWN, pad::LEFT, pad::RIGHT];

/// How often and how badly the pads misbehave.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FaultSpec {
    /// Share of presses lost entirely (the button reads released until it is let go).
    pub drop: f64,
    /// A press that is not lost reaches the console 0 to this many frames late.
    pub delay: u32,
    /// Chance per frame and pad of a one-frame press nobody made.
    pub extra: f64,
}

impl FaultSpec {
    /// True when no fault can happen.
    pub fn is_none(&self) -> bool {
        self.drop == 0.0 && self.delay == 0 && self.extra == 0.0
    }

    /// Parses `"drop=0.05,delay=2,extra=0.01"`; keys may be left out (they default to 0), `""` and
    /// `"none"` mean no faults. The error names the key and what it expected.
    pub fn parse(text: &str) -> Result<FaultSpec, String> {
        let mut spec = FaultSpec::default();
        let text = text.trim();
        if text.is_empty() || text.eq_ignore_ascii_case("none") {
            return Ok(spec);
        }
        for part in text.split(',') {
            let part = part.trim();
            let Some((key, value)) = part.split_once('=') else {
                return Err(format!("fault `{part}`: expected key=value (keys: drop, delay, extra)"));
            };
            let (key, value) = (key.trim(), value.trim());
            let share = |v: &str| -> Result<f64, String> {
                match v.parse::<f64>() {
                    Ok(x) if (0.0..=1.0).contains(&x) => Ok(x),
                    _ => Err(format!("fault `{key}`: expected a share between 0 and 1, found `{v}`")),
                }
            };
            match key {
                "drop" => spec.drop = share(value)?,
                "extra" => spec.extra = share(value)?,
                "delay" => {
                    spec.delay = match value.parse::<u32>() {
                        Ok(n) if n <= 60 => n,
                        _ => {
                            return Err(format!(
                                "fault `delay`: expected a whole number of frames from 0 to 60, found `{value}`"
                            ));
                        }
                    }
                }
                _ => return Err(format!("fault `{key}`: unknown key (expected drop, delay or extra)")),
            }
        }
        Ok(spec)
    }
}

/// Faults injected so far, by kind.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct FaultCounts {
    /// Presses lost.
    pub dropped: u32,
    /// Presses delayed by at least one frame.
    pub delayed: u32,
    /// Presses invented.
    pub extra: u32,
}

impl FaultCounts {
    /// All faults together.
    pub fn total(&self) -> u32 {
        self.dropped + self.delayed + self.extra
    }
}

/// A machine whose pads pass through a faulty link.
#[derive(Debug)]
pub struct FaultyPads<M: Machine> {
    inner: M,
    spec: FaultSpec,
    rng: Xoshiro256PlusPlus,
    /// What the session asks for now.
    wanted: [u8; 2],
    /// What it asked for last frame (to see new presses).
    before: [u8; 2],
    /// Buttons lost until released.
    lost: [u8; 2],
    /// Frames each button still waits before it reaches the console.
    wait: [[u32; 8]; 2],
    counts: FaultCounts,
    /// Faults apply only while this is set (the session says when a game is in play).
    in_play: bool,
}

impl<M: Machine> FaultyPads<M> {
    /// Wraps `inner`; `seed` drives every fault.
    pub fn new(inner: M, spec: FaultSpec, seed: u64) -> FaultyPads<M> {
        // A fixed offset keeps the fault stream apart from the bots', which use the same run seed.
        let rng = Xoshiro256PlusPlus::seed_from_u64(seed ^ 0xfa17_5eed_0000_0011);
        FaultyPads {
            inner,
            spec,
            rng,
            wanted: [0; 2],
            before: [0; 2],
            lost: [0; 2],
            wait: [[0; 8]; 2],
            counts: FaultCounts::default(),
            in_play: false,
        }
    }

    /// Faults injected so far.
    pub fn counts(&self) -> FaultCounts {
        self.counts
    }

    /// The wrapped machine.
    pub fn inner(&self) -> &M {
        &self.inner
    }

    /// The wrapped machine, mutably.
    pub fn inner_mut(&mut self) -> &mut M {
        &mut self.inner
    }

    /// What reaches the console this frame for pad `p`.
    fn filter(&mut self, p: usize) -> u8 {
        let wanted = self.wanted[p];
        let pressed = wanted & !self.before[p];
        let released = !wanted;
        self.lost[p] &= !released;
        let mut out = wanted;
        for b in PLAY_BUTTONS {
            let i = b.trailing_zeros() as usize;
            if released & b != 0 {
                self.wait[p][i] = 0;
                continue;
            }
            if pressed & b != 0 {
                if self.spec.drop > 0.0 && self.rng.random_bool(self.spec.drop) {
                    self.lost[p] |= b;
                    self.counts.dropped += 1;
                } else if self.spec.delay > 0 {
                    let d = self.rng.random_range(0..=self.spec.delay);
                    if d > 0 {
                        self.wait[p][i] = d;
                        self.counts.delayed += 1;
                    }
                }
            }
            if self.wait[p][i] > 0 {
                self.wait[p][i] -= 1;
                out &= !b;
            }
        }
        out &= !self.lost[p];
        if self.spec.extra > 0.0 && self.rng.random_bool(self.spec.extra) {
            let b = PLAY_BUTTONS[self.rng.random_range(0..PLAY_BUTTONS.len())];
            out |= b;
            self.counts.extra += 1;
        }
        out
    }
}

impl<M: Machine> Machine for FaultyPads<M> {
    fn ram(&self) -> &[u8; 2048] {
        self.inner.ram()
    }

    fn set_pads(&mut self, pads: [u8; 2]) {
        self.wanted = pads;
    }

    fn clock_frame(&mut self) -> Result<(), EmuError> {
        let out = if self.spec.is_none() || !self.in_play { self.wanted } else { [self.filter(0), self.filter(1)] };
        self.before = self.wanted;
        self.inner.set_pads(out);
        self.inner.clock_frame()
    }

    fn frame_number(&self) -> u32 {
        self.inner.frame_number()
    }

    fn set_in_play(&mut self, in_play: bool) {
        if in_play != self.in_play {
            // Whatever was lost or late stays behind with the phase it belonged to.
            self.lost = [0; 2];
            self.wait = [[0; 8]; 2];
        }
        self.in_play = in_play;
        self.inner.set_in_play(in_play);
    }

    fn note(&mut self, player: usize, text: &str) {
        self.inner.note(player, text);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::emu::mock::MockGame;

    /// The console under test, keeping the pads it receives on every frame.
    struct Logged {
        game: MockGame,
        pads: [u8; 2],
        log: Vec<[u8; 2]>,
    }

    impl Logged {
        fn pad_log(&self) -> Option<&[[u8; 2]]> {
            Some(&self.log)
        }
    }

    impl Machine for Logged {
        fn ram(&self) -> &[u8; 2048] {
            self.game.ram()
        }

        fn set_pads(&mut self, pads: [u8; 2]) {
            self.pads = pads;
            self.game.set_pads(pads);
        }

        fn clock_frame(&mut self) -> Result<(), EmuError> {
            self.log.push(self.pads);
            self.game.clock_frame()
        }

        fn frame_number(&self) -> u32 {
            self.game.frame_number()
        }
    }

    fn logged() -> Logged {
        Logged { game: MockGame::new(1, 4, 1), pads: [0; 2], log: Vec::new() }
    }

    #[test]
    fn fault_strings_parse_and_bad_ones_name_the_key() {
        let s = FaultSpec::parse("drop=0.05, delay=2,extra=0.01").expect("valid");
        assert_eq!(s, FaultSpec { drop: 0.05, delay: 2, extra: 0.01 });
        assert!(FaultSpec::parse("none").expect("none").is_none());
        assert!(FaultSpec::parse("").expect("empty").is_none());
        let e = FaultSpec::parse("drop=2").unwrap_err();
        assert!(e.contains("`drop`") && e.contains("between 0 and 1"), "{e}");
        let e = FaultSpec::parse("delay=-1").unwrap_err();
        assert!(e.contains("`delay`") && e.contains("whole number"), "{e}");
        let e = FaultSpec::parse("jitter=1").unwrap_err();
        assert!(e.contains("`jitter`") && e.contains("unknown key"), "{e}");
        let e = FaultSpec::parse("drop").unwrap_err();
        assert!(e.contains("key=value"), "{e}");
    }

    /// Presses Left for 3 frames, releases for 3, over and over, in play; returns what reached the console.
    fn run(spec: FaultSpec, seed: u64) -> (Vec<[u8; 2]>, FaultCounts) {
        let mut m = FaultyPads::new(logged(), spec, seed);
        for f in 0..3000 {
            m.set_in_play(true);
            m.set_pads([if f % 6 < 3 { pad::LEFT } else { 0 }, 0]);
            m.clock_frame().expect("mock frame");
        }
        let counts = m.counts();
        (m.inner().pad_log().expect("kept").to_vec(), counts)
    }

    #[test]
    fn no_faults_pass_the_pads_through() {
        let (log, counts) = run(FaultSpec::default(), 1);
        assert_eq!(counts.total(), 0);
        assert!(log.iter().enumerate().all(|(f, p)| p[0] == if f % 6 < 3 { pad::LEFT } else { 0 }));
    }

    #[test]
    fn faults_wait_for_play_and_stop_outside_it() {
        let spec = FaultSpec { drop: 0.3, delay: 2, extra: 0.2 };
        let mut m = FaultyPads::new(logged(), spec, 3);
        let wanted = |f: usize| if f % 6 < 3 { pad::LEFT } else { 0 };
        // Menus (not in play), then play, then menus again (a restart script).
        for f in 0..3000 {
            m.set_in_play((1000..2000).contains(&f));
            m.set_pads([wanted(f), 0]);
            m.clock_frame().expect("mock frame");
        }
        let log = m.inner().pad_log().expect("kept");
        let exact = |r: std::ops::Range<usize>| r.clone().all(|f| log[f] == [wanted(f), 0]);
        assert!(exact(0..1000), "the menus get exactly the pads the session set");
        assert!(exact(2000..3000), "so does a restart script after play");
        assert!(!exact(1000..2000), "in play the link is faulty");
        assert!(m.counts().total() > 100, "{:?}", m.counts());
    }

    #[test]
    fn drops_lose_about_their_share_and_are_seeded() {
        let spec = FaultSpec { drop: 0.2, delay: 0, extra: 0.0 };
        let (log, counts) = run(spec, 5);
        let presses = 500;
        let lost = log.chunks(6).filter(|c| c[0][0] & pad::LEFT == 0).count() as u32;
        assert_eq!(lost, counts.dropped, "a lost press stays lost until release");
        assert!((60..=140).contains(&lost), "about 20 % of {presses}: {lost}");
        assert_eq!(run(spec, 5), (log.clone(), counts), "same seed, same faults");
        assert_ne!(run(spec, 6).0, log, "another seed, other faults");
    }

    #[test]
    fn delays_shift_presses_by_at_most_the_bound_and_extras_add_presses() {
        let (log, counts) = run(FaultSpec { drop: 0.0, delay: 2, extra: 0.0 }, 9);
        assert!(counts.delayed > 100);
        for c in log.chunks(6) {
            let first = c.iter().position(|p| p[0] & pad::LEFT != 0).expect("a delayed press still arrives");
            assert!(first <= 2);
            assert!(c[3..].iter().all(|p| p[0] == 0), "nothing held after release");
        }
        let (log, counts) = run(FaultSpec { drop: 0.0, delay: 0, extra: 0.05 }, 9);
        assert!((200..=400).contains(&counts.extra), "about 5 % of 3000 frames on each of 2 pads: {counts:?}");
        let odd = log.iter().enumerate().filter(|(f, p)| p[0] != if f % 6 < 3 { pad::LEFT } else { 0 }).count();
        assert!(odd > 0 && odd as u32 <= counts.extra);
        assert!(log.iter().all(|p| p[0] & (pad::START | pad::SELECT) == 0), "never Start or Select");
    }
}
