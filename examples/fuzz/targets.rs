//! The fuzz targets: for each parser or decoder, how a case's input is made (from the repository's real
//! files, mutated, or generated) and what is run on it. A target's `run` reads only the case, so a case
//! replays identically from its bytes.

use std::path::{Path, PathBuf};

use rand::Rng;
use rand::seq::IndexedRandom;

use puyobot::config::Config;
use puyobot::emu::{Emu, RomImage};
use puyobot::game::text::{format_field, parse_field, parse_queue};
use puyobot::game::{Cell, Color, Field, HEIGHT, MAX_COLORS, Rules, WIDTH};
use puyobot::memmap::{AddressFile, Catalog, Decoder, parse_address_file};
use puyobot::trace::TraceReader;

use super::mutate::{FuzzRng, mutate_bytes, mutate_text, mutate_toml_values};

/// One generated input: the files it consists of and which seed or address file it was made from.
#[derive(Clone, Debug, Default)]
pub struct Case {
    /// The input's parts, each with the file suffix it is saved under when the case fails.
    pub parts: Vec<(&'static str, Vec<u8>)>,
    /// An index the target uses to pick a loaded file (e.g. the address file a RAM image goes through).
    pub pick: usize,
    /// A flag the target may set for an extra, costlier check on this case (the ROM target's emulator).
    pub deep: bool,
    /// What the input was made from, for the failure report.
    pub note: String,
}

/// A fuzz target.
pub trait Target {
    /// Makes the input of one case.
    fn generate(&self, rng: &mut FuzzRng) -> Case;
    /// Runs the code under test on one case; panics are what the fuzzer looks for. Returns whether the
    /// parser accepted the input (so it reached the checks behind the parser), for the run's statistics.
    fn run(&self, case: &Case) -> bool;
}

/// The names `--target` accepts.
pub const NAMES: [&str; 9] =
    ["decoder", "address-file", "config", "field-file", "queue-file", "rom", "trace", "remote", "bot-protocol"];

/// The target called `name`, built from the files under `root` (the repository).
pub fn by_name(name: &str, root: &Path) -> Result<Box<dyn Target>, String> {
    Ok(match name {
        "decoder" => Box::new(DecoderTarget::new(root)?),
        "address-file" => Box::new(AddressFileTarget::new(root)?),
        "config" => Box::new(ConfigTarget::new(root)?),
        "field-file" => Box::new(FieldFileTarget::new(root)?),
        "queue-file" => Box::new(QueueFileTarget),
        "rom" => Box::new(RomTarget::new(root)?),
        "trace" => return trace_target(root),
        "remote" => Box::new(RemoteTarget::new(root)?),
        "bot-protocol" => Box::new(BotProtocolTarget),
        other => return Err(format!("unknown target {other:?}; expected one of {NAMES:?}")),
    })
}

/// The trace target, seeded from the recorded traces under `tests/fixtures/trace/`.
fn trace_target(root: &Path) -> Result<Box<dyn Target>, String> {
    Ok(Box::new(TraceTarget::new(root)?))
}

/// Reads every `*.toml` file under `dir`, recursively, sorted by path (so a seed picks the same file on
/// every machine); new folders (learned address files) are picked up without a code change.
fn toml_files_under(dir: &Path) -> Result<Vec<(PathBuf, String)>, String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let entries = std::fs::read_dir(&d).map_err(|e| format!("cannot list {}: {e}", d.display()))?;
        for entry in entries {
            let path = entry.map_err(|e| format!("cannot list {}: {e}", d.display()))?.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "toml") {
                let text =
                    std::fs::read_to_string(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
                out.push((path, text));
            }
        }
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(out)
}

/// The files of `dir` with extension `ext`, sorted by path.
fn files_with_ext(dir: &Path, ext: &str) -> Result<Vec<(PathBuf, Vec<u8>)>, String> {
    let entries = std::fs::read_dir(dir).map_err(|e| format!("cannot list {}: {e}", dir.display()))?;
    let mut out = Vec::new();
    for entry in entries {
        let path = entry.map_err(|e| format!("cannot list {}: {e}", dir.display()))?.path();
        if path.extension().is_some_and(|e| e == ext) {
            let bytes = std::fs::read(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
            out.push((path, bytes));
        }
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(out)
}

fn rel(root: &Path, p: &Path) -> String {
    p.strip_prefix(root).unwrap_or(p).display().to_string()
}

/// Address files (every `addresses/**/*.toml` but the catalogs, and the learned folder under
/// `tests/fixtures/learned/` that calibration wrote), parsed and validated.
fn load_address_files(root: &Path) -> Result<Vec<(String, String, AddressFile)>, String> {
    let mut out = Vec::new();
    let mut files = toml_files_under(&root.join("addresses"))?;
    files.extend(toml_files_under(&root.join("tests/fixtures/learned"))?);
    for (path, text) in files {
        if path.file_name().is_some_and(|n| n == "roms.toml") {
            continue;
        }
        let name = rel(root, &path);
        let map = parse_address_file(&name, &text).map_err(|e| format!("a committed address file is refused: {e}"))?;
        out.push((name, text, map));
    }
    if out.is_empty() {
        return Err(format!("no address files under {}", root.join("addresses").display()));
    }
    Ok(out)
}

// ---- decoder ----

/// Random and structured RAM images, one to four frames per case through one decoder, with every address
/// file (and, for a fifth of the cases, a mutated address file that still validates).
struct DecoderTarget {
    files: Vec<(String, String, AddressFile)>,
}

impl DecoderTarget {
    fn new(root: &Path) -> Result<DecoderTarget, String> {
        Ok(DecoderTarget { files: load_address_files(root)? })
    }
}

impl Target for DecoderTarget {
    fn generate(&self, rng: &mut FuzzRng) -> Case {
        let pick = rng.random_range(0..self.files.len());
        let (name, text, map) = &self.files[pick];
        let mut case = Case { pick, note: format!("address file {name}"), ..Case::default() };
        if rng.random_ratio(1, 5) {
            // A file the validator accepts but no one wrote: mostly nudged numbers.
            let mutated =
                if rng.random_bool(0.8) { mutate_toml_values(rng, text) } else { mutate_text(rng, text, &[]) };
            case.note = format!("mutated {name}");
            case.parts.push(("addresses.toml", mutated));
        }
        let frames = rng.random_range(1..=4);
        let mut ram = Vec::with_capacity(2048 * frames);
        let mut frame = random_ram(rng, map);
        for _ in 0..frames {
            ram.extend_from_slice(&frame);
            // The next frame: a few bytes changed, as from one frame of play to the next, or a new image.
            if rng.random_bool(0.7) {
                for _ in 0..rng.random_range(1..=32) {
                    let i = rng.random_range(0..2048);
                    frame[i] = code_or_byte(rng, map);
                }
            } else {
                frame = random_ram(rng, map);
            }
        }
        case.parts.push(("ram.bin", ram));
        case
    }

    fn run(&self, case: &Case) -> bool {
        let (name, _, base) = &self.files[case.pick];
        let mut map = base.clone();
        let mut ram_part = &[][..];
        let mut accepted = true;
        for (suffix, bytes) in &case.parts {
            match *suffix {
                "addresses.toml" => match parse_address_file(name, &String::from_utf8_lossy(bytes)) {
                    Ok(m) => map = m,
                    Err(_) => accepted = false,
                },
                _ => ram_part = bytes,
            }
        }
        let players = map.player.len();
        let mut decoder = Decoder::new(map);
        let rules = Rules::puyo1();
        for chunk in ram_part.chunks(2048) {
            let mut ram = [0u8; 2048];
            ram[..chunk.len()].copy_from_slice(chunk);
            let snap = decoder.decode(&ram);
            assert_eq!(snap.players.len(), players, "one decoded player per [[player]]");
            for p in &snap.players {
                assert!(!p.controllable || p.current.is_some(), "controllable without a current piece");
                // What the bot does with a decoded field: settle it and resolve its chains.
                let mut field = p.field;
                field.settle_and_resolve(&rules);
            }
        }
        let _ = decoder.colors().unknown_codes();
        accepted
    }
}

/// One RAM image: uniform bytes, or bytes drawn from the file's own codes (which reach the colour classes,
/// items and orientations), or mostly zero.
fn random_ram(rng: &mut FuzzRng, map: &AddressFile) -> [u8; 2048] {
    let mut ram = [0u8; 2048];
    match rng.random_range(0..3) {
        0 => rng.fill(&mut ram[..]),
        1 => ram.iter_mut().for_each(|b| *b = code_or_byte(rng, map)),
        _ => {
            for _ in 0..rng.random_range(0..64) {
                let i = rng.random_range(0..2048);
                ram[i] = code_or_byte(rng, map);
            }
        }
    }
    ram
}

/// A byte the file gives a meaning to (a cell code or an orientation value), a small number, or any byte.
fn code_or_byte(rng: &mut FuzzRng, map: &AddressFile) -> u8 {
    let c = &map.codes;
    let o = &map.orientation;
    match rng.random_range(0..4) {
        0 => *c.colors.choose(rng).unwrap_or(&0),
        1 => *[c.empty, c.nuisance, c.wall, c.big_puyo, c.carbuncle, o.up, o.right, o.down, o.left]
            .choose(rng)
            .unwrap_or(&0),
        2 => rng.random_range(0..16),
        _ => rng.random(),
    }
}

// ---- address-file ----

/// Mutated address files and catalogs (from every file under `addresses/`) and random text, through the
/// loader and validator; what passes goes through the decoder (address files) or identification (catalogs).
struct AddressFileTarget {
    seeds: Vec<(String, String)>,
    raw: Vec<Vec<u8>>,
    labcart: RomImage,
}

impl AddressFileTarget {
    fn new(root: &Path) -> Result<AddressFileTarget, String> {
        let mut files = toml_files_under(&root.join("addresses"))?;
        files.extend(toml_files_under(&root.join("tests/fixtures/learned"))?);
        let seeds: Vec<(String, String)> = files.into_iter().map(|(p, t)| (rel(root, &p), t)).collect();
        if seeds.is_empty() {
            return Err("no files under addresses/".into());
        }
        let raw = seeds.iter().map(|(_, t)| t.clone().into_bytes()).collect();
        let labcart = puyobot::emu::rom::labcart().map_err(|e| e.to_string())?;
        Ok(AddressFileTarget { seeds, raw, labcart })
    }
}

impl Target for AddressFileTarget {
    fn generate(&self, rng: &mut FuzzRng) -> Case {
        let pick = rng.random_range(0..self.seeds.len());
        let (name, text) = &self.seeds[pick];
        if rng.random_ratio(1, 50) {
            let n = rng.random_range(0..512);
            let junk: Vec<u8> = (0..n).map(|_| rng.random()).collect();
            return Case { parts: vec![(".toml", junk)], pick, note: "random bytes".into(), ..Case::default() };
        }
        let bytes =
            if rng.random_bool(0.3) { mutate_toml_values(rng, text) } else { mutate_text(rng, text, &self.raw) };
        Case { parts: vec![(".toml", bytes)], pick, note: format!("mutated {name}"), ..Case::default() }
    }

    fn run(&self, case: &Case) -> bool {
        let text = String::from_utf8_lossy(&case.parts[0].1);
        let label = "fuzz/addresses.toml";
        // Each text goes through the parser of the file it was made from (the catalog's or an address
        // file's); the other parser would refuse it at its first table and cost as much again.
        if self.seeds[case.pick].0.ends_with("roms.toml") {
            let Ok(cat) = Catalog::parse(label, &text) else { return false };
            let _ = cat.identify(&self.labcart);
            return true;
        }
        let Ok(map) = parse_address_file(label, &text) else { return false };
        let mut decoder = Decoder::new(map);
        decoder.decode(&[0u8; 2048]);
        decoder.decode(&[0xFFu8; 2048]);
        true
    }
}

// ---- config ----

/// Mutated `config.toml` through `Config::parse`, and the printed `full` AI profile through
/// `parse_profile`; what passes must print (`--print-config`, `sim profile`) to a text that parses again
/// to the same configuration.
struct ConfigTarget {
    seeds: Vec<String>,
    raw: Vec<Vec<u8>>,
}

impl ConfigTarget {
    fn new(root: &Path) -> Result<ConfigTarget, String> {
        let main = std::fs::read_to_string(root.join("config.toml")).map_err(|e| format!("config.toml: {e}"))?;
        let seeds = vec![main, puyobot::ai::AiConfig::default().to_toml()];
        let raw = seeds.iter().map(|s| s.clone().into_bytes()).collect();
        Ok(ConfigTarget { seeds, raw })
    }
}

impl Target for ConfigTarget {
    fn generate(&self, rng: &mut FuzzRng) -> Case {
        // The real file most of the time; the profile is the [ai]-only seed.
        let pick = if rng.random_ratio(4, 5) { 0 } else { 1 };
        let seed = &self.seeds[pick];
        let bytes =
            if rng.random_bool(0.3) { mutate_toml_values(rng, seed) } else { mutate_text(rng, seed, &self.raw) };
        Case { parts: vec![(".toml", bytes)], pick, note: format!("mutated seed {pick}"), ..Case::default() }
    }

    fn run(&self, case: &Case) -> bool {
        let text = String::from_utf8_lossy(&case.parts[0].1);
        if case.pick == 1 {
            let Ok(profile) = puyobot::config::parse_profile("fuzz/profile.toml", &text) else { return false };
            let printed = profile.to_toml();
            match puyobot::config::parse_profile("printed", &printed) {
                Ok(again) => assert_eq!(again.to_toml(), printed, "sim profile does not round-trip"),
                Err(e) => panic!("sim profile output does not parse again: {e}\n{printed}"),
            }
            return true;
        }
        let Ok(cfg) = Config::parse("fuzz/config.toml", &text) else { return false };
        let printed = cfg.to_toml();
        match Config::parse("printed", &printed) {
            // Compared as text: a NaN weight is not equal to itself.
            Ok(again) => assert_eq!(again.to_toml(), printed, "--print-config does not round-trip"),
            Err(e) => panic!("--print-config output does not parse again: {e}\n{printed}"),
        }
        true
    }
}

// ---- field-file ----

/// Mutated field files (`tests/fixtures/fields/` and generated fields) through the text parser; what
/// parses must print back to the same field, and is resolved as `puyobot chain` does.
struct FieldFileTarget {
    seeds: Vec<Vec<u8>>,
}

impl FieldFileTarget {
    fn new(root: &Path) -> Result<FieldFileTarget, String> {
        let seeds: Vec<Vec<u8>> =
            files_with_ext(&root.join("tests/fixtures/fields"), "txt")?.into_iter().map(|(_, b)| b).collect();
        if seeds.is_empty() {
            return Err("no field files in tests/fixtures/fields".into());
        }
        Ok(FieldFileTarget { seeds })
    }
}

impl Target for FieldFileTarget {
    fn generate(&self, rng: &mut FuzzRng) -> Case {
        let (mut bytes, note) = if rng.random_bool(0.5) {
            let i = rng.random_range(0..self.seeds.len());
            (self.seeds[i].clone(), format!("fixture {i}"))
        } else {
            (format_field(&random_field(rng)).into_bytes(), "generated".to_string())
        };
        if rng.random_bool(0.9) {
            mutate_lines(rng, &mut bytes, b".ORGBYPL#\n\r \t");
            if rng.random_bool(0.3) {
                mutate_bytes(rng, &mut bytes, &self.seeds);
            }
        }
        Case { parts: vec![(".txt", bytes)], note, ..Case::default() }
    }

    fn run(&self, case: &Case) -> bool {
        let text = String::from_utf8_lossy(&case.parts[0].1);
        let Ok(mut field) = parse_field(&text) else { return false };
        let again = parse_field(&format_field(&field));
        assert_eq!(again.as_ref(), Ok(&field), "a parsed field prints back to a different field");
        puyobot::cli::chain::resolve_report(&mut field);
        true
    }
}

/// A field of random cells (floating puyos included: files need not be settled).
fn random_field(rng: &mut FuzzRng) -> Field {
    let mut f = Field::new();
    let fill = rng.random_range(0.0..1.0);
    for y in 0..HEIGHT {
        for x in 1..=WIDTH {
            if rng.random_bool(fill) {
                let cell = match rng.random_range(0..8) {
                    0 => Cell::Nuisance,
                    _ => Color::new(rng.random_range(0..MAX_COLORS as u8)).map_or(Cell::Nuisance, Cell::Color),
                };
                f.set(x, y, cell);
            }
        }
    }
    f
}

/// Line-level and alphabet-aware edits of a line-oriented text file: lines removed, duplicated, swapped,
/// truncated or lengthened, and characters replaced by ones from `alphabet`.
fn mutate_lines(rng: &mut FuzzRng, bytes: &mut Vec<u8>, alphabet: &[u8]) {
    for _ in 0..rng.random_range(1..=4) {
        let mut lines: Vec<Vec<u8>> = bytes.split(|&b| b == b'\n').map(<[u8]>::to_vec).collect();
        let i = rng.random_range(0..lines.len());
        match rng.random_range(0..6) {
            0 => {
                lines.remove(i);
            }
            1 => {
                let l = lines[i].clone();
                lines.insert(rng.random_range(0..=lines.len()), l);
            }
            2 => {
                let j = rng.random_range(0..lines.len());
                lines.swap(i, j);
            }
            3 => {
                let n = lines[i].len();
                lines[i].truncate(rng.random_range(0..=n));
            }
            4 => {
                let c = *alphabet.choose(rng).unwrap_or(&b'.');
                lines[i].push(c);
            }
            _ => {
                if !lines[i].is_empty() {
                    let k = rng.random_range(0..lines[i].len());
                    lines[i][k] = *alphabet.choose(rng).unwrap_or(&b'.');
                }
            }
        }
        *bytes = lines.join(&b'\n');
    }
}

// ---- queue-file ----

/// Generated piece queues (pairs, items, comments, blank lines, stray whitespace), often mutated, through
/// the queue parser.
struct QueueFileTarget;

impl Target for QueueFileTarget {
    fn generate(&self, rng: &mut FuzzRng) -> Case {
        let mut text = String::new();
        for _ in 0..rng.random_range(0..40) {
            let line = match rng.random_range(0..12) {
                0 => "BIG".to_string(),
                1 => "CAR".to_string(),
                2 => "# a comment".to_string(),
                3 => String::new(),
                _ => {
                    let a = Color::LETTERS[rng.random_range(0..MAX_COLORS)];
                    let b = Color::LETTERS[rng.random_range(0..MAX_COLORS)];
                    format!("{a}{b}")
                }
            };
            let pad = if rng.random_ratio(1, 8) { "  " } else { "" };
            let end = if rng.random_ratio(1, 8) { "\r\n" } else { "\n" };
            text.push_str(&format!("{pad}{line}{pad}{end}"));
        }
        let mut bytes = text.into_bytes();
        if rng.random_bool(0.8) {
            mutate_lines(rng, &mut bytes, b"RGBYPLOBIGCAR#\n\r .");
            if rng.random_bool(0.3) {
                mutate_bytes(rng, &mut bytes, &[]);
            }
        }
        Case { parts: vec![(".txt", bytes)], note: "generated".into(), ..Case::default() }
    }

    fn run(&self, case: &Case) -> bool {
        let text = String::from_utf8_lossy(&case.parts[0].1);
        let Ok(q) = parse_queue(&text) else { return false };
        assert!(!q.is_empty(), "a parsed queue is never empty");
        true
    }
}

// ---- bot-protocol ----

/// Exchanges of the bot protocol (`rules`, `start` with random fields, `suggest`, `play`, `new_piece`, and
/// the bot's messages), often mutated, through both sides' decoders and the serving loop of
/// `puyobot bot` (with a player that always answers the spawn column).
struct BotProtocolTarget;

/// A player that always places at the spawn column, for the serving loop.
struct SpawnColumn;

impl puyobot::game::Player for SpawnColumn {
    fn name(&self) -> &str {
        "spawn-column"
    }
    fn choose(&mut self, view: &puyobot::game::View<'_>) -> puyobot::game::Decision {
        let up = puyobot::game::Orientation::Up;
        puyobot::game::Decision::at(puyobot::game::Placement::new(view.rules.spawn_x, up))
    }
}

fn random_piece(rng: &mut FuzzRng) -> String {
    match rng.random_range(0..20) {
        0 => "BIG".into(),
        1 => "CAR".into(),
        _ => format!(
            "{}{}",
            Color::LETTERS[rng.random_range(0..MAX_COLORS)],
            Color::LETTERS[rng.random_range(0..MAX_COLORS)]
        ),
    }
}

fn random_message(rng: &mut FuzzRng) -> String {
    use puyobot::botproto::message::*;
    use puyobot::botproto::{command::DEFAULT_LIMITS, encode};
    use puyobot::game::{MoveRules, Orientation};
    let placement = Move { x: rng.random_range(0..=7), orientation: Orientation::ALL[rng.random_range(0..4)] };
    match rng.random_range(0..9) {
        0 => encode(&FrontMessage::Rules(RulesMessage::new(
            &Rules::puyo1(),
            MoveRules::default(),
            Some(4),
            DEFAULT_LIMITS,
        ))),
        1 | 2 => {
            let opponent = rng.random_bool(0.5).then(|| OpponentState {
                field: random_field(rng).rows(),
                nuisance: rng.random_range(0..40),
                incoming: rng.random_range(0..40),
            });
            encode(&FrontMessage::Start(Box::new(StartMessage {
                field: random_field(rng).rows(),
                current: random_piece(rng),
                next: random_piece(rng),
                nuisance: rng.random_range(0..40),
                opponent,
                pieces_played: rng.random_range(0..500),
                pieces_left: rng.random_bool(0.5).then(|| rng.random_range(0..100)),
                caution: rng.random_bool(0.1),
                seed: Some(rng.random()),
            })))
        }
        3 | 4 => encode(&FrontMessage::Suggest),
        5 => encode(&FrontMessage::Play(PlayMessage { placement, index: Some(0) })),
        6 => encode(&FrontMessage::NewPiece(NewPieceMessage { piece: random_piece(rng) })),
        7 => encode(&BotMessage::Suggestion(SuggestionMessage { moves: vec![placement], intent: None })),
        _ => encode(&BotMessage::Info(InfoMessage {
            name: "x".into(),
            version: String::new(),
            author: String::new(),
            protocol: 1,
        })),
    }
}

impl Target for BotProtocolTarget {
    fn generate(&self, rng: &mut FuzzRng) -> Case {
        let mut text = String::new();
        for _ in 0..rng.random_range(1..12) {
            text.push_str(&random_message(rng));
            text.push('\n');
        }
        let mut bytes = text.into_bytes();
        if rng.random_bool(0.7) {
            mutate_lines(rng, &mut bytes, b"{}[]\":,0123456789-.eE RGBYPLO#\n");
            if rng.random_bool(0.3) {
                mutate_bytes(rng, &mut bytes, &[]);
            }
        }
        Case { parts: vec![(".jsonl", bytes)], note: "generated".into(), ..Case::default() }
    }

    fn run(&self, case: &Case) -> bool {
        use puyobot::botproto::{codec, decode_bot, decode_front, encode};
        let text = String::from_utf8_lossy(&case.parts[0].1);
        let mut accepted = false;
        for line in text.lines() {
            if let Ok(m) = decode_front(line) {
                accepted = true;
                assert_eq!(decode_front(&encode(&m)).as_ref(), Ok(&m), "a front-end message reads back");
                if let puyobot::botproto::FrontMessage::Start(s) = &m {
                    let _ = codec::parse_rows(&s.field);
                    let _ = codec::parse_piece(&s.current);
                }
            }
            if let Ok(m) = decode_bot(line) {
                accepted = true;
                assert_eq!(decode_bot(&encode(&m)).as_ref(), Ok(&m), "a bot message reads back");
            }
        }
        let who = puyobot::botproto::Identity { name: "fuzz".into(), version: String::new(), author: String::new() };
        let mut out = Vec::new();
        let make = |_| -> Result<Box<dyn puyobot::game::Player>, String> { Ok(Box::new(SpawnColumn)) };
        let _ = puyobot::botproto::serve(text.as_bytes(), &mut out, &who, make);
        for line in String::from_utf8_lossy(&out).lines() {
            assert!(decode_bot(line).is_ok(), "the bot side writes only messages: {line}");
        }
        accepted
    }
}

// ---- rom ----

/// Mutated iNES images (from the committed `src/labcart/*.nes`): header bytes, sizes around what the
/// header announces, NES 2.0 flags, truncations and random small files, through the ROM checks and the
/// identification against the built-in catalog; one case in 16 that passes also powers on an emulator.
struct RomTarget {
    seeds: Vec<Vec<u8>>,
    catalog: Catalog,
}

impl RomTarget {
    fn new(root: &Path) -> Result<RomTarget, String> {
        let seeds: Vec<Vec<u8>> =
            files_with_ext(&root.join("src/labcart"), "nes")?.into_iter().map(|(_, b)| b).collect();
        if seeds.is_empty() {
            return Err("no .nes files in src/labcart".into());
        }
        let catalog = puyobot::memmap::AddressSource::Builtin.catalog().map_err(|e| e.to_string())?;
        Ok(RomTarget { seeds, catalog })
    }
}

impl Target for RomTarget {
    fn generate(&self, rng: &mut FuzzRng) -> Case {
        let pick = rng.random_range(0..self.seeds.len());
        let mut rom = self.seeds[pick].clone();
        let mut note = format!("src/labcart seed {pick}");
        for _ in 0..rng.random_range(1..=3) {
            match rng.random_range(0..8) {
                0 | 1 => {
                    // A header byte after the magic.
                    let i = rng.random_range(4..16);
                    rom[i] = if rng.random_bool(0.5) {
                        *[0u8, 1, 2, 0x0F, 0x10, 0x80, 0xFF].choose(rng).unwrap_or(&0)
                    } else {
                        rng.random()
                    };
                }
                2 => {
                    // The NES 2.0 marker and its size extension nibbles.
                    rom[7] = (rom[7] & !0x0C) | if rng.random_bool(0.7) { 0x08 } else { 0x04 };
                    rom[9] = rng.random();
                }
                3 => {
                    // A size near what the header announces.
                    let announced = 16 + rom[4] as usize * 16384 + rom[5] as usize * 8192;
                    let n = (announced as i64 + rng.random_range(-600..=600)).clamp(0, 1 << 20) as usize;
                    rom.resize(n, 0);
                }
                4 => {
                    let n = rom.len();
                    rom.truncate(rng.random_range(0..=n.min(64)));
                }
                5 => {
                    rom[6] = rng.random();
                    rom[7] = rng.random();
                }
                6 => mutate_bytes(rng, &mut rom, &self.seeds),
                _ => {
                    note = "random small file".into();
                    let n = rng.random_range(0..64);
                    rom = (0..n).map(|_| rng.random()).collect();
                    if rng.random_bool(0.5) && rom.len() >= 4 {
                        rom[..4].copy_from_slice(b"NES\x1a");
                    }
                }
            }
            if rom.len() < 16 {
                break;
            }
        }
        let deep = rng.random_ratio(1, 16);
        Case { parts: vec![(".nes", rom)], pick, deep, note }
    }

    fn run(&self, case: &Case) -> bool {
        let Ok(rom) = RomImage::from_bytes("fuzz.nes", case.parts[0].1.clone()) else { return false };
        let _ = self.catalog.identify(&rom);
        if case.deep {
            let _ = Emu::new(&rom, true);
        }
        true
    }
}

// ---- trace ----

/// Trace files (`src/trace/`): the committed traces under `tests/fixtures/trace/`, cut anywhere, with bytes
/// flipped, with header fields and record headers edited, and with a block whose inflated frames were
/// mutated and packed again with a correct CRC (so the frame decoder itself is reached); and random bytes.
/// Each case is read frame by frame to its end; one accepted case in 16 also goes through the offline
/// learner with the open cartridge's 1P address file.
struct TraceTarget {
    seeds: Vec<Vec<u8>>,
    map: AddressFile,
}

impl TraceTarget {
    fn new(root: &Path) -> Result<TraceTarget, String> {
        let seeds: Vec<Vec<u8>> =
            files_with_ext(&root.join("tests/fixtures/trace"), "trace")?.into_iter().map(|(_, b)| b).collect();
        if seeds.is_empty() {
            return Err("no .trace files in tests/fixtures/trace".into());
        }
        let map = puyobot::memmap::AddressSource::Builtin
            .address_file("labcart/1p-endless.toml")
            .map_err(|e| e.to_string())?;
        Ok(TraceTarget { seeds, map })
    }
}

/// Offsets of the records after the header (`B` blocks and the `E` end record) of a well-formed trace.
fn trace_records(bytes: &[u8]) -> Vec<usize> {
    let le32 = |i: usize| bytes.get(i..i + 4).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize);
    let mut out = Vec::new();
    let Some(len) = le32(10) else { return out };
    let mut at = 14 + len + 4;
    while let Some(&tag) = bytes.get(at) {
        out.push(at);
        if tag != b'B' {
            break;
        }
        let Some(packed) = le32(at + 11) else { break };
        at += 19 + packed;
    }
    out
}

/// Inflates block `at`, mutates its frames, deflates them again and fixes the block's lengths and CRC.
fn repack_block(rng: &mut FuzzRng, bytes: &mut Vec<u8>, at: usize) {
    use std::io::{Read, Write};
    let Some(head) = bytes.get(at..at + 19) else { return };
    let packed_len = u32::from_le_bytes([head[11], head[12], head[13], head[14]]) as usize;
    let Some(packed) = bytes.get(at + 19..at + 19 + packed_len) else { return };
    let mut raw = Vec::new();
    if flate2::read::DeflateDecoder::new(packed).read_to_end(&mut raw).is_err() {
        return;
    }
    if rng.random_bool(0.5) && raw.len() > 2 {
        // A frame's pad bytes or RAM-run header: small numbers matter most.
        let i = rng.random_range(0..raw.len());
        raw[i] = *[0u8, 1, 2, 0x7F, 0x80, 0xFF].choose(rng).unwrap_or(&0);
    } else {
        mutate_bytes(rng, &mut raw, &[]);
    }
    let mut enc = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::fast());
    if enc.write_all(&raw).is_err() {
        return;
    }
    let Ok(new_packed) = enc.finish() else { return };
    let mut head = head.to_vec();
    head[7..11].copy_from_slice(&(raw.len() as u32).to_le_bytes());
    head[11..15].copy_from_slice(&(new_packed.len() as u32).to_le_bytes());
    head[15..19].copy_from_slice(&crc32fast::hash(&raw).to_le_bytes());
    let mut out = bytes[..at].to_vec();
    out.extend_from_slice(&head);
    out.extend_from_slice(&new_packed);
    out.extend_from_slice(&bytes[at + 19 + packed_len..]);
    *bytes = out;
}

impl Target for TraceTarget {
    fn generate(&self, rng: &mut FuzzRng) -> Case {
        let pick = rng.random_range(0..self.seeds.len());
        let mut bytes = self.seeds[pick].clone();
        let mut note = format!("tests/fixtures/trace seed {pick}");
        let records = trace_records(&bytes);
        for _ in 0..rng.random_range(1..=2) {
            match rng.random_range(0..8) {
                0 => {
                    // Cut anywhere, or at or around a record boundary.
                    let n = match records.choose(rng) {
                        Some(&r) if rng.random_bool(0.5) => (r as i64 + rng.random_range(-2..=20)).max(0) as usize,
                        _ => rng.random_range(0..=bytes.len()),
                    };
                    bytes.truncate(n.min(bytes.len()));
                }
                1 | 2 => {
                    if let Some(&r) = records.choose(rng) {
                        repack_block(rng, &mut bytes, r);
                    }
                }
                3 => {
                    // A record header field: tag, first frame, frame count, lengths.
                    if let Some(&r) = records.choose(rng) {
                        let i = r + rng.random_range(0..19);
                        if i < bytes.len() {
                            bytes[i] = if rng.random_bool(0.5) {
                                rng.random()
                            } else {
                                *[0u8, 1, 0xFF, b'B', b'E'].choose(rng).unwrap_or(&0)
                            };
                        }
                    }
                }
                4 => {
                    // The version, the header length or a header byte.
                    let i = rng.random_range(8..(64.min(bytes.len()).max(9)));
                    if i < bytes.len() {
                        bytes[i] = rng.random();
                    }
                }
                5 | 6 => mutate_bytes(rng, &mut bytes, &self.seeds),
                _ => {
                    note = "random bytes".into();
                    let n = rng.random_range(0..256);
                    bytes = (0..n).map(|_| rng.random()).collect();
                    if rng.random_bool(0.5) && bytes.len() >= 8 {
                        bytes[..8].copy_from_slice(&puyobot::trace::MAGIC);
                    }
                }
            }
        }
        let deep = rng.random_ratio(1, 16);
        Case { parts: vec![(".trace", bytes)], pick, deep, note }
    }

    fn run(&self, case: &Case) -> bool {
        let Ok(mut reader) = TraceReader::new(&case.parts[0].1[..], "fuzz.trace") else { return false };
        let mut learner = case.deep.then(|| puyobot::calib::OfflineCalibration::new(&self.map));
        let mut frames = 0u64;
        loop {
            match reader.next_frame() {
                Ok(Some((pads, ram))) => {
                    frames += 1;
                    if let Some(l) = learner.as_mut() {
                        l.observe(&puyobot::calib::Frame { ram, pads });
                    }
                }
                Ok(None) => {
                    assert!(reader.end().is_some(), "the reader stopped without saying how the file ended");
                    break;
                }
                Err(e) => {
                    assert!(e.to_string().starts_with("fuzz.trace"), "an error that does not name the file: {e}");
                    break;
                }
            }
        }
        assert_eq!(reader.frames(), frames);
        if let Some(l) = learner {
            let _ = l.report().to_text();
        }
        true
    }
}

// ---- remote ----

/// Streams of emulator messages as `puyobot serve` reads them (docs/plugins.md): a real handshake and
/// frames of the open cartridge's RAM, then mutated (bytes, lengths, kinds) or random.
struct RemoteTarget {
    seeds: Vec<Vec<u8>>,
}

impl RemoteTarget {
    fn new(root: &Path) -> Result<RemoteTarget, String> {
        use puyobot::emu::remote::proto::{self, Hello, kind};
        let rom = std::fs::read(root.join("src/labcart/puyolab.nes")).map_err(|e| format!("puyolab.nes: {e}"))?;
        let hello = Hello { version: 1, emulator: "fuzz".into(), prg: 16384, chr: 8192, rom_name: None };
        let mut stream = Vec::new();
        let mut put = |k: u8, p: &[u8]| proto::write_msg(&mut stream, k, p).map_err(|e| e.to_string());
        put(kind::HELLO, &proto::hello_payload(&hello))?;
        put(kind::ROM, &rom[16..])?;
        let mut emu = Emu::new(&RomImage::from_bytes("puyolab.nes", rom).map_err(|e| e.to_string())?, true)
            .map_err(|e| e.to_string())?;
        let mut frames = Vec::new();
        for f in 0..200u32 {
            use puyobot::emu::Machine;
            if f >= 195 {
                proto::write_msg(&mut frames, kind::FRAME, &proto::frame_payload(f, emu.ram()))
                    .map_err(|e| e.to_string())?;
            }
            emu.clock_frame().map_err(|e| e.to_string())?;
        }
        let mut short = Vec::new();
        proto::write_msg(&mut short, kind::BYE, b"closed").map_err(|e| e.to_string())?;
        Ok(RemoteTarget { seeds: vec![stream, frames, short] })
    }
}

impl Target for RemoteTarget {
    fn generate(&self, rng: &mut FuzzRng) -> Case {
        use puyobot::emu::remote::proto::{HEADER_LEN, kind};
        let pick = rng.random_range(0..self.seeds.len());
        let mut bytes = self.seeds[pick].clone();
        let mut note = format!("message stream {pick}");
        match rng.random_range(0..6) {
            0 => {
                // A length field: small, at a bound, or huge.
                let at =
                    if rng.random_bool(0.5) { 1 } else { rng.random_range(0..bytes.len().saturating_sub(4).max(1)) };
                let len: u32 = *[0u32, 1, 7, 2051, 2052, 2053, 4096, 4097, 8 << 20, u32::MAX].choose(rng).unwrap_or(&0);
                if at + 4 <= bytes.len() {
                    bytes[at..at + 4].copy_from_slice(&len.to_le_bytes());
                }
            }
            1 => {
                // A kind byte.
                let k = *[kind::HELLO, kind::ROM, kind::FRAME, kind::BYE, kind::PADS, kind::STOP, 0, 0xFF]
                    .choose(rng)
                    .unwrap_or(&0);
                if !bytes.is_empty() {
                    bytes[0] = k;
                }
            }
            2 => {
                let n = bytes.len();
                bytes.truncate(rng.random_range(0..=n.min(HEADER_LEN + 64)));
            }
            3 => {
                note = "random bytes".into();
                let n = rng.random_range(0..128);
                bytes = (0..n).map(|_| rng.random()).collect();
            }
            _ => mutate_bytes(rng, &mut bytes, &self.seeds),
        }
        Case { parts: vec![("bin", bytes)], pick, deep: false, note }
    }

    fn run(&self, case: &Case) -> bool {
        use puyobot::emu::remote::proto::{self, ClientMsg, RAM_LEN};
        let mut r: &[u8] = &case.parts[0].1;
        let mut accepted = false;
        while let Ok(msg) = proto::read_client(&mut r) {
            accepted = true;
            match msg {
                ClientMsg::Hello(h) => {
                    assert!(h.prg > 0 && h.prg % 16384 == 0 && h.chr % 8192 == 0, "{h:?}");
                    // What the engine accepts prints and parses back the same.
                    let again = proto::parse_client(proto::kind::HELLO, &proto::hello_payload(&h));
                    let same = matches!(&again, Ok(ClientMsg::Hello(g)) if g.prg == h.prg && g.chr == h.chr && g.version == h.version);
                    assert!(same || h.emulator.contains('\n') || h.emulator.trim() != h.emulator, "{h:?} -> {again:?}");
                }
                ClientMsg::Frame { ram, .. } => assert_eq!(ram.len(), RAM_LEN),
                ClientMsg::Rom(b) => assert!(b.len() <= proto::MAX_ROM),
                ClientMsg::Bye(_) => {}
            }
        }
        accepted
    }
}
