//! The labcart's build-time contract: every value `src/labcart/build.sh --out FILE -- -D …` can
//! set, a seeded draw of any valid set, the build itself, and the `Variant` the `Lab` harness
//! needs to drive such a build. The meanings are documented in `src/labcart/README.md`
//! ("Contracts"); this file must stay in step with `src/labcart/defs.inc`.
#![allow(dead_code)]

use std::fmt;
use std::path::{Path, PathBuf};
use std::process::Command;

use rand::Rng;
use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_xoshiro::Xoshiro256PlusPlus;

use super::labcart::{Codes, Orients, Variant};

/// The wall code: fixed in every build (the walls are `00 08`).
pub const WALL: u8 = 8;

/// A direction from the pivot to the child.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dir {
    Down,
    Left,
    Up,
    Right,
}

impl Dir {
    /// All four, in the committed contract's numbering order (down 0, left 1, up 2, right 3).
    pub const ALL: [Dir; 4] = [Dir::Down, Dir::Left, Dir::Up, Dir::Right];

    /// The direction after a clockwise quarter turn (up → right → down → left → up).
    pub fn clockwise(self) -> Dir {
        match self {
            Dir::Up => Dir::Right,
            Dir::Right => Dir::Down,
            Dir::Down => Dir::Left,
            Dir::Left => Dir::Up,
        }
    }

    /// The direction after a counter-clockwise quarter turn.
    pub fn counter_clockwise(self) -> Dir {
        self.clockwise().clockwise().clockwise()
    }

    /// The name build.sh takes for `SPAWN_ORI`.
    pub fn name(self) -> &'static str {
        match self {
            Dir::Down => "down",
            Dir::Left => "left",
            Dir::Up => "up",
            Dir::Right => "right",
        }
    }

    /// (dx, dy) of the child from the pivot; y grows downwards.
    pub fn delta(self) -> (i32, i32) {
        match self {
            Dir::Down => (0, 1),
            Dir::Left => (-1, 0),
            Dir::Up => (0, -1),
            Dir::Right => (1, 0),
        }
    }
}

/// Every value a labcart build can be given (README "Contracts").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Contract {
    /// `CODE_EMPTY`: the code of an empty cell.
    pub empty: u8,
    /// `CODE_COL1`: the first colour code; the colours are `colour1..colour1 + 6`.
    pub colour1: u8,
    /// `CODE_NUIS`: nuisance.
    pub nuisance: u8,
    /// `CODE_BIG`: Big Puyo (piece bytes only; never in the field).
    pub big: u8,
    /// `CODE_CARB`: Carbuncle (piece bytes only; never in the field).
    pub carbuncle: u8,
    /// `ORI_DOWN`, `ORI_LEFT`, `ORI_UP`, `ORI_RIGHT`: the orientation value of each direction
    /// from the pivot to the child.
    pub orients: Orients,
    /// `A_CW`: A turns the pair clockwise (B counter-clockwise); false: the other way round.
    pub a_clockwise: bool,
    /// `XY_CHILD`: the X/Y bytes hold the child's cell; false: the pivot's.
    pub xy_child: bool,
    /// `COLOR_OFFSET`: the byte of a field cell holding the code (0 or 1); the other byte is 0.
    pub color_offset: u8,
    /// `SPAWN_ORI`: the direction from the pivot to the child when a pair spawns.
    pub spawn: Dir,
    /// `KICK_SIDE`: a turn blocked sideways moves the pivot one column away; false: it is refused.
    pub kick_side: bool,
    /// `KICK_UP`: a turn blocked below lifts the pivot one row; false: it is refused.
    pub kick_up: bool,
}

/// Why a build did not produce a ROM.
#[derive(Debug)]
pub enum BuildError {
    /// `ca65` is not installed (Debian package cc65); see `common::tools` for what a test does then.
    NoAssembler,
    /// build.sh refused the values or failed; its messages.
    Rejected(String),
    /// Running build.sh or reading its output failed.
    Io(String),
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BuildError::NoAssembler => write!(f, "ca65 not found (install the cc65 package)"),
            BuildError::Rejected(m) => write!(f, "src/labcart/build.sh refused the contract:\n{m}"),
            BuildError::Io(m) => write!(f, "{m}"),
        }
    }
}

impl std::error::Error for BuildError {}

impl Contract {
    /// The committed `puyolab.nes` contract.
    pub const DEFAULT: Contract = Contract {
        empty: 0,
        colour1: 1,
        nuisance: 7,
        big: 9,
        carbuncle: 10,
        orients: Orients::CONTRACT,
        a_clockwise: true,
        xy_child: false,
        color_offset: 1,
        spawn: Dir::Up,
        kick_side: true,
        kick_up: true,
    };

    /// Two fixed edge cases, with the code in a cell's first byte (where the walls have their 00):
    /// a colour code 0, and a nuisance code 0.
    pub const EDGE_CASES: [Contract; 2] = [
        Contract {
            empty: 63,
            colour1: 0,
            nuisance: 40,
            big: 9,
            carbuncle: 7,
            orients: Orients { down: 3, left: 1, up: 0, right: 2 },
            a_clockwise: false,
            xy_child: true,
            color_offset: 0,
            spawn: Dir::Down,
            kick_side: false,
            kick_up: false,
        },
        Contract {
            empty: 12,
            colour1: 20,
            nuisance: 0,
            big: 1,
            carbuncle: 2,
            orients: Orients { down: 1, left: 2, up: 3, right: 0 },
            a_clockwise: true,
            xy_child: false,
            color_offset: 0,
            spawn: Dir::Right,
            kick_side: true,
            kick_up: false,
        },
    ];

    /// Any valid contract, drawn uniformly per value from a Xoshiro256++ seeded with `seed`:
    /// the colour range first, then the other codes among what is left, a random permutation of
    /// the orientation values, coin flips for the switches, and any spawn direction (the kick switches
    /// are drawn last, so the other values of a seed are those drawn before kicks could vary).
    pub fn random(seed: u64) -> Contract {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        // colour ranges that keep clear of the wall code and below 64
        let starts: Vec<u8> = (0..=58u8).filter(|c| !(*c..*c + 6).contains(&WALL)).collect();
        let colour1 = starts[rng.random_range(0..starts.len())];
        let mut taken: Vec<u8> = (colour1..colour1 + 6).chain([WALL]).collect();
        let mut draw = |rng: &mut Xoshiro256PlusPlus| {
            let free: Vec<u8> = (0..64u8).filter(|c| !taken.contains(c)).collect();
            let c = free[rng.random_range(0..free.len())];
            taken.push(c);
            c
        };
        let empty = draw(&mut rng);
        let nuisance = draw(&mut rng);
        let big = draw(&mut rng);
        let carbuncle = draw(&mut rng);
        let mut values = [0u8, 1, 2, 3];
        values.shuffle(&mut rng);
        let orients = Orients { down: values[0], left: values[1], up: values[2], right: values[3] };
        let a_clockwise = rng.random_bool(0.5);
        let xy_child = rng.random_bool(0.5);
        let color_offset = rng.random_range(0..2);
        let spawn = Dir::ALL[rng.random_range(0..4)];
        Contract {
            empty,
            colour1,
            nuisance,
            big,
            carbuncle,
            orients,
            a_clockwise,
            xy_child,
            color_offset,
            spawn,
            kick_side: rng.random_bool(0.5),
            kick_up: rng.random_bool(0.5),
        }
    }

    /// The colour codes, lowest first.
    pub fn colours(&self) -> [u8; 6] {
        std::array::from_fn(|i| self.colour1 + i as u8)
    }

    /// The orientation value a pair spawns with.
    pub fn spawn_value(&self) -> u8 {
        self.orients.value(self.spawn)
    }

    /// The orientation value after pressing A (`a == true`) or B once with nothing in the way.
    pub fn turned(&self, orient: u8, a: bool) -> u8 {
        let d = self.orients.dir(orient);
        let cw = a == self.a_clockwise;
        self.orients.value(if cw { d.clockwise() } else { d.counter_clockwise() })
    }

    /// The same checks defs.inc makes; `Err` names the first broken rule.
    pub fn validate(&self) -> Result<(), String> {
        let c1 = self.colour1 as u32;
        if c1 + 5 > 63 {
            return Err(format!("CODE_COL1 = {c1}: colours {c1}..{} pass 63", c1 + 5));
        }
        if (c1..=c1 + 5).contains(&(WALL as u32)) {
            return Err(format!("CODE_COL1 = {c1}: a colour code equals the wall code 8"));
        }
        let named = [
            ("CODE_EMPTY", self.empty),
            ("CODE_NUIS", self.nuisance),
            ("CODE_BIG", self.big),
            ("CODE_CARB", self.carbuncle),
        ];
        for (i, (name, v)) in named.iter().enumerate() {
            if *v > 63 || *v == WALL {
                return Err(format!("{name} = {v}: must be below 64 and not the wall code 8"));
            }
            if self.colours().contains(v) {
                return Err(format!("{name} = {v} is a colour code"));
            }
            if let Some((other, _)) = named[..i].iter().find(|(_, w)| w == v) {
                return Err(format!("{name} and {other} are both {v}"));
            }
        }
        let o = self.orients;
        let mut vals = [o.down, o.left, o.up, o.right];
        vals.sort_unstable();
        if vals != [0, 1, 2, 3] {
            return Err(format!(
                "ORI_DOWN/LEFT/UP/RIGHT = {}/{}/{}/{} is not a permutation of 0..3",
                o.down, o.left, o.up, o.right
            ));
        }
        if self.color_offset > 1 {
            return Err(format!("COLOR_OFFSET = {} must be 0 or 1", self.color_offset));
        }
        Ok(())
    }

    /// The arguments after `--` for build.sh: every value, explicitly.
    pub fn defines(&self) -> Vec<String> {
        let o = self.orients;
        let pairs = [
            ("CODE_EMPTY", self.empty.to_string()),
            ("CODE_COL1", self.colour1.to_string()),
            ("CODE_NUIS", self.nuisance.to_string()),
            ("CODE_BIG", self.big.to_string()),
            ("CODE_CARB", self.carbuncle.to_string()),
            ("ORI_DOWN", o.down.to_string()),
            ("ORI_LEFT", o.left.to_string()),
            ("ORI_UP", o.up.to_string()),
            ("ORI_RIGHT", o.right.to_string()),
            ("A_CW", u8::from(self.a_clockwise).to_string()),
            ("XY_CHILD", u8::from(self.xy_child).to_string()),
            ("COLOR_OFFSET", self.color_offset.to_string()),
            ("SPAWN_ORI", self.spawn.name().to_string()),
            ("KICK_SIDE", u8::from(self.kick_side).to_string()),
            ("KICK_UP", u8::from(self.kick_up).to_string()),
        ];
        pairs.into_iter().flat_map(|(k, v)| ["-D".to_string(), format!("{k}={v}")]).collect()
    }

    /// Build this contract into `out` with `src/labcart/build.sh --out out -- -D …`.
    pub fn build(&self, out: &Path) -> Result<(), BuildError> {
        build_with(out, &self.defines())
    }

    /// Build into `target/labcart-contracts/<name>.nes` and return the ROM bytes.
    pub fn build_rom(&self, name: &str) -> Result<Vec<u8>, BuildError> {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target").join("labcart-contracts");
        std::fs::create_dir_all(&dir).map_err(|e| BuildError::Io(format!("{}: {e}", dir.display())))?;
        let out = dir.join(format!("{name}.nes"));
        self.build(&out)?;
        std::fs::read(&out).map_err(|e| BuildError::Io(format!("{}: {e}", out.display())))
    }

    /// What the `Lab` harness needs to read this build's RAM and steer its pieces.
    pub fn lab_variant(&self) -> Variant {
        Variant {
            codes: Codes {
                empty: self.empty,
                colour1: self.colour1,
                nuisance: self.nuisance,
                wall: WALL,
                big: self.big,
                carbuncle: self.carbuncle,
            },
            orients: self.orients,
            a_clockwise: self.a_clockwise,
            xy_child: self.xy_child,
            color_offset: self.color_offset,
        }
    }
}

impl fmt::Display for Contract {
    /// The build.sh defines, as one would type them.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.defines().join(" "))
    }
}

/// Run build.sh with arbitrary defines (for tests of its refusals too).
pub fn build_with(out: &Path, defines: &[String]) -> Result<(), BuildError> {
    if Command::new("ca65").arg("--version").output().is_err() {
        return Err(BuildError::NoAssembler);
    }
    let script: PathBuf = Path::new(env!("CARGO_MANIFEST_DIR")).join("src").join("labcart").join("build.sh");
    let res = Command::new("bash")
        .arg(&script)
        .arg("--out")
        .arg(out)
        .arg("--")
        .args(defines)
        .output()
        .map_err(|e| BuildError::Io(format!("running {}: {e}", script.display())))?;
    if res.status.success() {
        Ok(())
    } else {
        Err(BuildError::Rejected(String::from_utf8_lossy(&res.stderr).into_owned()))
    }
}
