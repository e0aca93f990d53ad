//! Menu facts from a person's presses before play: which RAM byte follows the menu cursor when Up / Down
//! is pressed on the title and mode select, and what the mode byte holds when the first pair can move.
//!
//! Passive like the rest of the learner: a byte is the cursor when it changes within a few frames after
//! (almost) every new Up / Down press and seldom otherwise. Bytes that change with the cursor but by more
//! than one (sprite positions) rank below the one that steps by one. Fewer than two presses settle
//! nothing: the fact stays unknown and the report says what would settle it.

use serde::Serialize;

use crate::emu::pad;
use crate::memmap::raw::{byte, mode_byte};
use crate::memmap::schema::AddressFile;

use super::Frame;
use super::report::Unsettled;

/// Frames after a press within which a change counts as its effect.
const WINDOW: u64 = 8;

/// Distinct values kept per address.
const MAX_VALUES: usize = 32;

/// Candidates listed besides the chosen one.
const MAX_OTHERS: usize = 3;

/// One address that changed with the menu cursor.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CursorByte {
    /// CPU address.
    pub address: u16,
    /// Values it held before play, in the order first seen.
    pub values_seen: Vec<u8>,
    /// Up / Down presses after which it changed (within a few frames).
    pub hits: u32,
    /// Changes by exactly one (either way, or a wrap between its extreme values) after Up / Down.
    pub unit_steps: u32,
    /// Changes that followed no press at all.
    pub unexplained: u32,
    /// What Down did to it most often: +1 or -1 (`None` when never seen).
    pub down_adds: Option<i8>,
}

/// The mode byte when play started.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ModeByte {
    /// CPU address (the address file's `[global] mode` entry).
    pub address: u16,
    /// Its value on the first frame a pair could move.
    pub value: u8,
    /// The public RAM map's meaning of that value (0 = 1P Endless, 1 = 1P Mission, 2 = 2P; unverified).
    pub meaning: String,
}

/// What the menus showed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct MenuReport {
    /// Frame on which a pair could first move (`None`: play never started).
    pub play_started_frame: Option<u64>,
    /// New Up / Down presses before play.
    pub up_down_presses: u32,
    /// The mode byte when play started (`None` when play never started or the address file has no mode
    /// entry; `unknown` then says which).
    pub mode_byte: Option<ModeByte>,
    /// The byte that follows the cursor, when settled.
    pub cursor: Option<CursorByte>,
    /// Other bytes that changed with the cursor (sprite positions and the like), best first.
    pub other_candidates: Vec<CursorByte>,
    /// What stays unknown and what would settle it.
    pub unknown: Vec<Unsettled>,
}

#[derive(Clone, Debug, Default)]
struct Stats {
    hits: u32,
    unit_steps: u32,
    changes: u32,
    explained: u32,
    values: Vec<u8>,
    down_plus: u32,
    down_minus: u32,
}

/// An Up / Down press whose window is still open: the addresses already credited to it.
#[derive(Clone, Debug)]
struct OpenPress {
    frame: u64,
    down: bool,
    credited: Vec<u16>,
}

/// Watches frames until play starts.
#[derive(Clone, Debug)]
pub struct MenuWatcher {
    start: AddressFile,
    prev: Option<Box<[u8; 2048]>>,
    prev_pads: [u8; 2],
    frame: u64,
    last_press: Option<u64>,
    open: Vec<OpenPress>,
    stats: Vec<Stats>,
    presses: u32,
    /// The frame play started on, and the mode byte then (`None`: the address file has no mode entry).
    started: Option<(u64, Option<u8>)>,
    /// Some player's spawn-delay timer has been seen non-zero (a countdown): until then a 0 is power-on
    /// RAM or a menu, not a piece.
    counted: bool,
}

impl MenuWatcher {
    /// A watcher that tells play from menus with the spawn and X / Y bytes of `start`.
    pub fn new(start: &AddressFile) -> MenuWatcher {
        MenuWatcher {
            start: start.clone(),
            prev: None,
            prev_pads: [0; 2],
            frame: 0,
            last_press: None,
            open: Vec::new(),
            stats: vec![Stats::default(); 2048],
            presses: 0,
            started: None,
            counted: false,
        }
    }

    /// A piece can move: a spawn-delay timer reached 0 after counting down. X / Y are not read: their
    /// bases are learned later.
    fn active(&mut self, ram: &[u8; 2048]) -> bool {
        let timers: Vec<u8> = self.start.player.iter().map(|p| byte(ram, p.spawn_delay.addr as usize)).collect();
        let active = self.counted && timers.contains(&0);
        self.counted |= timers.iter().any(|&t| t != 0);
        active
    }

    /// Feeds one frame (RAM at its start, pads held during it). Frames after play started are ignored.
    pub fn observe(&mut self, f: &Frame<'_>) {
        if self.started.is_some() {
            return;
        }
        let frame = self.frame;
        self.frame += 1;
        if self.active(f.ram) {
            self.started = Some((frame, mode_byte(f.ram, &self.start)));
            return;
        }
        if let Some(prev) = &self.prev {
            // RAM now shows what the previous frame did.
            let cause = frame.saturating_sub(1);
            let near_press = self.last_press.is_some_and(|p| cause >= p && cause < p + WINDOW);
            self.open.retain(|p| cause < p.frame + WINDOW);
            for a in 0..2048 {
                let (old, new) = (prev[a], f.ram[a]);
                if old == new {
                    continue;
                }
                let s = &mut self.stats[a];
                s.changes += 1;
                s.explained += near_press as u32;
                for v in [old, new] {
                    if s.values.len() < MAX_VALUES && !s.values.contains(&v) {
                        s.values.push(v);
                    }
                }
                for p in self.open.iter_mut().filter(|p| cause >= p.frame && !p.credited.contains(&(a as u16))) {
                    p.credited.push(a as u16);
                    s.hits += 1;
                    let d = new.wrapping_sub(old);
                    let step = match d {
                        1 => Some(1i8),
                        0xFF => Some(-1),
                        _ => None,
                    };
                    // A wrap: from the largest value seen to the smallest, or back.
                    let lo = s.values.iter().copied().min().unwrap_or(0);
                    let hi = s.values.iter().copied().max().unwrap_or(0);
                    let wrap = (old == hi && new == lo) || (old == lo && new == hi);
                    if step.is_some() || wrap {
                        s.unit_steps += 1;
                    }
                    match (p.down, step) {
                        (true, Some(1)) | (false, Some(-1)) => s.down_plus += 1,
                        (true, Some(-1)) | (false, Some(1)) => s.down_minus += 1,
                        _ => {}
                    }
                }
            }
        }
        let new = (f.pads[0] & !self.prev_pads[0]) | (f.pads[1] & !self.prev_pads[1]);
        if new != 0 {
            self.last_press = Some(frame);
        }
        let (up, down) = (new & pad::UP != 0, new & pad::DOWN != 0);
        if up != down {
            self.presses += 1;
            self.open.push(OpenPress { frame, down, credited: Vec::new() });
        }
        self.prev_pads = f.pads;
        match self.prev.as_mut() {
            Some(p) => p.copy_from_slice(f.ram),
            None => self.prev = Some(Box::new(*f.ram)),
        }
    }

    fn candidate(&self, a: usize) -> CursorByte {
        let s = &self.stats[a];
        CursorByte {
            address: a as u16,
            values_seen: s.values.clone(),
            hits: s.hits,
            unit_steps: s.unit_steps,
            unexplained: s.changes - s.explained,
            down_adds: match s.down_plus.cmp(&s.down_minus) {
                std::cmp::Ordering::Greater => Some(1),
                std::cmp::Ordering::Less => Some(-1),
                std::cmp::Ordering::Equal => None,
            },
        }
    }

    /// What the menus showed so far.
    pub fn report(&self) -> MenuReport {
        let mut unknown = Vec::new();
        let presses = self.presses;
        let mut eligible: Vec<CursorByte> = (0..2048)
            .map(|a| self.candidate(a))
            .filter(|c| c.hits >= 2 && c.hits * 4 >= presses * 3 && c.unexplained <= c.hits)
            .collect();
        eligible
            .sort_by_key(|c| (std::cmp::Reverse(c.unit_steps), std::cmp::Reverse(c.hits), c.unexplained, c.address));
        let cursor = if presses >= 2 && !eligible.is_empty() { Some(eligible.remove(0)) } else { None };
        eligible.truncate(MAX_OTHERS);
        if cursor.is_none() {
            let seen = if presses < 2 {
                format!("{presses} new Up/Down presses on the menus before play")
            } else {
                format!("{presses} Up/Down presses, but no byte changed after at least three in four of them")
            };
            unknown.push(Unsettled {
                fact: "menu cursor byte".into(),
                seen,
                advice: "on the mode select, press Down and Up a few times (one press at a time, a moment apart) \
                         before starting the game, and record again"
                    .into(),
            });
        }
        let entry = self.start.global.mode.as_ref().map(|e| e.addr);
        let mode_byte = match (self.started, entry) {
            (Some((_, Some(value))), Some(address)) => Some(ModeByte { address, value, meaning: meaning(value) }),
            _ => None,
        };
        match (self.started, entry) {
            (None, _) => unknown.push(Unsettled {
                fact: "mode byte when play starts".into(),
                seen: format!(
                    "no pair could move in {} frames (spawn-delay byte never 0 with X/Y in the field)",
                    self.frame
                ),
                advice: "record until the first pair falls; if it did fall, the spawn_delay, x and y addresses of the \
                         address file are wrong"
                    .into(),
            }),
            (Some(_), None) => unknown.push(Unsettled {
                fact: "mode byte when play starts".into(),
                seen: "the address file has no mode byte ([global] mode), so none was read".into(),
                advice:
                    "add `mode = { addr = ..., source = \"...\", verified = false }` under [global] in the address \
                         file and calibrate again"
                        .into(),
            }),
            (Some(_), Some(_)) => {}
        }
        MenuReport {
            play_started_frame: self.started.map(|(f, _)| f),
            up_down_presses: presses,
            mode_byte,
            cursor,
            other_candidates: eligible,
            unknown,
        }
    }
}

/// The public RAM map's meaning of a mode byte value (unverified on the cartridge).
fn meaning(value: u8) -> String {
    match value {
        0 => "1P Endless".into(),
        1 => "1P Mission".into(),
        2 => "2P".into(),
        v => format!("{v}: no meaning in the public RAM map"),
    }
}

impl MenuReport {
    /// The report as text for people.
    pub fn to_text(&self) -> String {
        let mut s = String::from("menus:\n");
        match (&self.mode_byte, self.play_started_frame) {
            (Some(m), Some(frame)) => {
                s += &format!(
                    "  mode byte ${:04X} = {} when play started (frame {frame}): {}\n",
                    m.address, m.value, m.meaning
                )
            }
            // The mode byte's absence is listed under `unknown` below.
            (_, Some(frame)) => s += &format!("  play started on frame {frame}\n"),
            (_, None) => s += "  play never started\n",
        }
        if let Some(c) = &self.cursor {
            s += &format!(
                "  cursor byte ${:04X}: values {:?}, changed after {} of {} Up/Down presses, {} changes with no press{}\n",
                c.address,
                c.values_seen,
                c.hits,
                self.up_down_presses,
                c.unexplained,
                match c.down_adds {
                    Some(1) => ", Down adds 1",
                    Some(-1) => ", Down subtracts 1",
                    _ => "",
                }
            );
        }
        for c in &self.other_candidates {
            s += &format!("  also changed with the cursor: ${:04X} (values {:?})\n", c.address, c.values_seen);
        }
        for u in &self.unknown {
            s += &format!("  unknown: {}: saw {}; {}\n", u.fact, u.seen, u.advice);
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memmap::AddressSource;

    fn start() -> AddressFile {
        AddressSource::Builtin.address_file("labcart/1p-endless.toml").unwrap()
    }

    /// Menus where $0040 counts every frame, $0095 follows Up / Down and $0210 moves by 16 with it; play
    /// starts at frame 200 with the mode byte 2.
    fn run(presses: &[(u64, u8)]) -> MenuReport {
        run_with(&start(), 0x6F, presses)
    }

    /// As [`run`], read with `map`, the game keeping its mode byte (2) at `mode_at`.
    fn run_with(map: &AddressFile, mode_at: usize, presses: &[(u64, u8)]) -> MenuReport {
        let p = &map.player[0];
        let mut w = MenuWatcher::new(map);
        let mut ram = [0u8; 2048];
        ram[p.spawn_delay.addr as usize] = 0xFF;
        ram[mode_at] = 2;
        let mut cursor: u8 = 0;
        for f in 0..260u64 {
            let pads = presses.iter().find(|(at, _)| *at == f).map_or(0, |(_, b)| *b);
            if f == 200 {
                ram[p.spawn_delay.addr as usize] = 0;
                ram[p.x.addr as usize] = 3;
                ram[p.y.addr as usize] = 1;
            }
            w.observe(&Frame { ram: &ram, pads: [pads, 0] });
            // The frame's effect, seen at the start of the next one (two frames late for the cursor).
            ram[0x40] = ram[0x40].wrapping_add(1);
            if let Some((_, b)) = presses.iter().find(|(at, _)| *at + 1 == f) {
                cursor = if *b == pad::DOWN { (cursor + 1) % 3 } else { (cursor + 2) % 3 };
                ram[0x95] = cursor;
                ram[0x210] = 40 + 16 * cursor;
            }
        }
        w.report()
    }

    #[test]
    fn the_cursor_is_the_byte_that_steps_by_one_after_up_and_down() {
        let r = run(&[(20, pad::DOWN), (40, pad::DOWN), (60, pad::UP), (80, pad::DOWN), (100, pad::DOWN)]);
        let c = r.cursor.clone().expect("cursor found");
        assert_eq!(c.address, 0x95, "{r:?}");
        let mut v = c.values_seen.clone();
        v.sort();
        assert_eq!(v, [0, 1, 2]);
        assert_eq!(c.hits, 5);
        assert_eq!(c.down_adds, Some(1));
        assert_eq!(r.other_candidates.first().map(|c| c.address), Some(0x210), "{r:?}");
        assert!(r.other_candidates.iter().all(|c| c.address != 0x40), "the frame counter is no cursor");
        assert_eq!(r.play_started_frame, Some(200));
        assert_eq!(r.mode_byte.as_ref().map(|m| (m.value, m.meaning.as_str())), Some((2, "2P")));
        assert!(r.unknown.is_empty(), "{:?}", r.unknown);
    }

    #[test]
    fn one_press_settles_nothing_and_says_what_would() {
        let r = run(&[(20, pad::DOWN)]);
        assert!(r.cursor.is_none());
        assert_eq!(r.unknown.len(), 1);
        assert!(r.unknown[0].advice.contains("press Down and Up"), "{:?}", r.unknown);
        assert_eq!(r.mode_byte.map(|m| m.value), Some(2));
    }

    #[test]
    fn the_mode_byte_is_read_where_the_address_file_says() {
        let mut map = start();
        map.global.mode.as_mut().expect("the file has a mode byte").addr = 0x0123;
        let r = run_with(&map, 0x0123, &[]);
        assert_eq!(r.mode_byte.map(|m| (m.address, m.value)), Some((0x0123, 2)));
        // The byte the public RAM map names is 0 in this game: it is not read.
        assert_eq!(run_with(&map, 0x6F, &[]).mode_byte.map(|m| m.value), Some(0));
    }

    #[test]
    fn a_file_without_a_mode_byte_is_reported_not_guessed() {
        let mut map = start();
        map.global.mode = None;
        let r = run_with(&map, 0x6F, &[(20, pad::DOWN), (40, pad::UP)]);
        assert_eq!(r.play_started_frame, Some(200));
        assert!(r.mode_byte.is_none(), "{r:?}");
        let u = r.unknown.iter().find(|u| u.fact == "mode byte when play starts").expect("listed as unknown");
        assert!(u.seen.contains("no mode byte ([global] mode)"), "{u:?}");
        let text = r.to_text();
        assert!(text.contains("play started on frame 200") && !text.contains("never started"), "{text}");
        assert!(text.contains("[global] mode"), "{text}");
    }
}
