//! Loading and validating address files: a bad file is an error that names the file and the key.

use std::collections::HashMap;

use super::schema::{AddressFile, Entry, MenuStep, PlayerMap};
use crate::emu::pad;

/// RAM size of the NES: valid addresses are below this.
pub const RAM_SIZE: usize = 0x800;

/// Why an address file was refused.
#[derive(Debug, thiserror::Error)]
#[error("{file}: {key}: {message}")]
pub struct AddressFileError {
    /// The file (path or built-in name).
    pub file: String,
    /// The key at fault, dotted (`player[2].x.addr`), or `(parse)` for TOML/serde errors.
    pub key: String,
    /// What is wrong.
    pub message: String,
}

impl AddressFileError {
    fn new(file: &str, key: impl Into<String>, message: impl Into<String>) -> AddressFileError {
        AddressFileError { file: file.to_string(), key: key.into(), message: message.into() }
    }
}

/// Parses and validates the text of an address file; `file` names it in errors.
pub fn parse_address_file(file: &str, text: &str) -> Result<AddressFile, AddressFileError> {
    let parsed: AddressFile = toml::from_str(text).map_err(|e| {
        let key = serde_key(e.message()).unwrap_or_else(|| "(parse)".to_string());
        AddressFileError::new(file, key, e.to_string().trim().replace('\n', " | "))
    })?;
    validate(file, &parsed)?;
    Ok(parsed)
}

/// Pulls the field name out of serde's "missing field `x`" / "unknown field `x`" messages.
fn serde_key(message: &str) -> Option<String> {
    let start = message.find('`')? + 1;
    let len = message[start..].find('`')?;
    Some(message[start..start + len].to_string())
}

fn check_entry(file: &str, key: &str, e: &Entry) -> Result<(), AddressFileError> {
    check_addr(file, &format!("{key}.addr"), e.addr as usize)
}

fn check_addr(file: &str, key: &str, addr: usize) -> Result<(), AddressFileError> {
    if addr >= RAM_SIZE {
        return Err(AddressFileError::new(
            file,
            key,
            format!("address ${addr:04X} is outside RAM (must be $0000-$07FF)"),
        ));
    }
    Ok(())
}

/// Checks addresses, codes, orientation values, players and the menu script.
pub fn validate(file: &str, f: &AddressFile) -> Result<(), AddressFileError> {
    let checks = Checks { file, f };
    checks.field_codes()?;
    checks.piece_codes()?;
    checks.next_codes()?;
    checks.next_lag()?;
    checks.orientation()?;
    checks.globals()?;
    checks.players()?;
    checks.menus()?;
    validate_options(file, &f.options)
}

/// The steps of [`validate`], in the order they run: the first error found is the one reported.
struct Checks<'a> {
    /// The file's name, for the errors.
    file: &'a str,
    f: &'a AddressFile,
}

impl Checks<'_> {
    /// Codes: 1 to 6 colours, and every field code names one thing.
    fn field_codes(&self) -> Result<(), AddressFileError> {
        let (file, f) = (self.file, self.f);
        let c = &f.codes;
        if c.colors.is_empty() || c.colors.len() > 6 {
            return Err(AddressFileError::new(
                file,
                "codes.colors",
                format!("needs 1 to 6 colour codes, got {}", c.colors.len()),
            ));
        }
        let mut seen: HashMap<u8, String> = HashMap::new();
        let mut named: Vec<(String, u8)> = vec![("codes.empty".into(), c.empty)];
        named.extend(c.colors.iter().enumerate().map(|(i, &v)| (format!("codes.colors[{i}]"), v)));
        named.push(("codes.nuisance".into(), c.nuisance));
        named.push(("codes.wall".into(), c.wall));
        named.push(("codes.big_puyo".into(), c.big_puyo));
        named.push(("codes.carbuncle".into(), c.carbuncle));
        for (key, v) in named {
            if let Some(prev) = seen.insert(v, key.clone()) {
                return Err(AddressFileError::new(file, key, format!("code {v} is already used by {prev}")));
            }
        }
        Ok(())
    }

    /// Piece codes, when the pieces have codes of their own: one per colour, each naming one thing.
    fn piece_codes(&self) -> Result<(), AddressFileError> {
        let (file, f) = (self.file, self.f);
        let c = &f.codes;
        if let Some(pc) = &c.piece_colors {
            if pc.len() != c.colors.len() {
                return Err(AddressFileError::new(
                    file,
                    "codes.piece_colors",
                    format!("needs one piece code per colour ({}), got {}", c.colors.len(), pc.len()),
                ));
            }
            let mut seen: HashMap<u8, String> = HashMap::new();
            let mut named: Vec<(String, u8)> = vec![("codes.empty".into(), c.empty)];
            named.extend(pc.iter().enumerate().map(|(i, &v)| (format!("codes.piece_colors[{i}]"), v)));
            named.push(("codes.big_puyo".into(), c.big_puyo));
            named.push(("codes.carbuncle".into(), c.carbuncle));
            for (key, v) in named {
                if let Some(prev) = seen.insert(v, key.clone()) {
                    return Err(AddressFileError::new(file, key, format!("piece code {v} is already used by {prev}")));
                }
            }
        }
        Ok(())
    }

    /// The next pair's own code table: each next code and each piece code at most once.
    fn next_codes(&self) -> Result<(), AddressFileError> {
        let (file, f) = (self.file, self.f);
        let c = &f.codes;
        if let Some(table) = &c.next_codes {
            let mut next: HashMap<u8, usize> = HashMap::new();
            let mut piece: HashMap<u8, usize> = HashMap::new();
            for (i, &[n, p]) in table.iter().enumerate() {
                let key = format!("codes.next_codes[{i}]");
                if let Some(j) = next.insert(n, i) {
                    return Err(AddressFileError::new(
                        file,
                        key,
                        format!("next code {n} is already in codes.next_codes[{j}]"),
                    ));
                }
                if let Some(j) = piece.insert(p, i) {
                    return Err(AddressFileError::new(
                        file,
                        key,
                        format!("piece code {p} is already in codes.next_codes[{j}]"),
                    ));
                }
            }
        }
        Ok(())
    }

    /// The next pair's lag: at most 10 seconds.
    fn next_lag(&self) -> Result<(), AddressFileError> {
        let (file, f) = (self.file, self.f);
        if f.timing.next_lag > 600 {
            return Err(AddressFileError::new(
                file,
                "timing.next_lag",
                format!("{} frames is more than the 600 (10 seconds) a next pair may take to show", f.timing.next_lag),
            ));
        }
        Ok(())
    }

    /// Orientation values: four different ones.
    fn orientation(&self) -> Result<(), AddressFileError> {
        let (file, f) = (self.file, self.f);
        let o = &f.orientation;
        let mut seen: HashMap<u8, &str> = HashMap::new();
        for (key, v) in [
            ("orientation.up", o.up),
            ("orientation.right", o.right),
            ("orientation.down", o.down),
            ("orientation.left", o.left),
        ] {
            if let Some(prev) = seen.insert(v, key) {
                return Err(AddressFileError::new(file, key, format!("value {v} is already used by {prev}")));
            }
        }
        Ok(())
    }

    /// The global entries.
    fn globals(&self) -> Result<(), AddressFileError> {
        let (file, f) = (self.file, self.f);
        if let Some(e) = &f.global.mode {
            check_entry(file, "global.mode", e)?;
        }
        if let Some(e) = &f.global.spawn_any {
            check_entry(file, "global.spawn_any", e)?;
        }
        Ok(())
    }

    /// One or two players, each on a pad of its own, with valid entries.
    fn players(&self) -> Result<(), AddressFileError> {
        let (file, f) = (self.file, self.f);
        if f.player.is_empty() || f.player.len() > 2 {
            return Err(AddressFileError::new(
                file,
                "player",
                format!("needs 1 or 2 [[player]] tables, got {}", f.player.len()),
            ));
        }
        let mut pads = Vec::new();
        for (i, p) in f.player.iter().enumerate() {
            let k = format!("player[{}]", i + 1);
            self.player_pad(&k, p, &pads)?;
            pads.push(p.pad);
            self.player_entries(&k, p)?;
            self.player_field(&k, p)?;
            self.player_counters(&k, p)?;
        }
        Ok(())
    }

    /// The player's pad: 1 or 2, and not another player's.
    fn player_pad(&self, k: &str, p: &PlayerMap, pads: &[u8]) -> Result<(), AddressFileError> {
        let file = self.file;
        if !(1..=2).contains(&p.pad) {
            return Err(AddressFileError::new(file, format!("{k}.pad"), format!("must be 1 or 2, got {}", p.pad)));
        }
        if pads.contains(&p.pad) {
            return Err(AddressFileError::new(
                file,
                format!("{k}.pad"),
                format!("pad {} is used by two players", p.pad),
            ));
        }
        Ok(())
    }

    /// The player's RAM entries.
    fn player_entries(&self, k: &str, p: &PlayerMap) -> Result<(), AddressFileError> {
        let file = self.file;
        for (name, e) in [
            ("current_pivot", &p.current_pivot),
            ("current_child", &p.current_child),
            ("next_pivot", &p.next_pivot),
            ("next_child", &p.next_child),
            ("x", &p.x),
            ("y", &p.y),
            ("orientation", &p.orientation),
            ("spawn_flag", &p.spawn_flag),
            ("spawn_delay", &p.spawn_delay),
            ("drop_timer", &p.drop_timer),
        ] {
            check_entry(file, &format!("{k}.{name}"), e)?;
        }
        Ok(())
    }

    /// The field's layout: the colour byte inside a cell, a row of 8 cells inside a row, all of it in RAM.
    fn player_field(&self, k: &str, p: &PlayerMap) -> Result<(), AddressFileError> {
        let file = self.file;
        let fl = &p.field;
        if fl.color_offset >= fl.cell_stride.max(1) {
            return Err(AddressFileError::new(
                file,
                format!("{k}.field.color_offset"),
                format!("must be below cell_stride ({}), got {}", fl.cell_stride, fl.color_offset),
            ));
        }
        if fl.cell_stride == 0 || (fl.cell_stride as usize) * 8 > fl.row_stride as usize {
            return Err(AddressFileError::new(
                file,
                format!("{k}.field.row_stride"),
                format!(
                    "a row of 8 cells (walls included) of {} bytes needs row_stride >= {}",
                    fl.cell_stride,
                    fl.cell_stride as usize * 8
                ),
            ));
        }
        check_addr(file, &format!("{k}.field.base"), fl.base as usize)?;
        check_addr(file, &format!("{k}.field.base"), fl.cell_addr(7, 13))
            .map_err(|e| AddressFileError { message: format!("the field's last cell: {}", e.message), ..e })?;
        Ok(())
    }

    /// The score and the pending nuisance: 1 to 4 bytes, in RAM.
    fn player_counters(&self, k: &str, p: &PlayerMap) -> Result<(), AddressFileError> {
        let file = self.file;
        if let Some(s) = &p.score {
            if !(1..=4).contains(&s.bytes) {
                return Err(AddressFileError::new(
                    file,
                    format!("{k}.score.bytes"),
                    format!("must be 1..=4, got {}", s.bytes),
                ));
            }
            check_addr(file, &format!("{k}.score.addr"), s.addr as usize + s.bytes as usize - 1)?;
        }
        if let Some(c) = &p.pending_nuisance {
            if !(1..=4).contains(&c.bytes) {
                return Err(AddressFileError::new(
                    file,
                    format!("{k}.pending_nuisance.bytes"),
                    format!("must be 1..=4, got {}", c.bytes),
                ));
            }
            check_addr(file, &format!("{k}.pending_nuisance.addr"), c.addr as usize + c.bytes as usize - 1)?;
        }
        Ok(())
    }

    /// The menu script and the restart script.
    fn menus(&self) -> Result<(), AddressFileError> {
        let (file, f) = (self.file, self.f);
        validate_steps(file, "menu", &f.menu.steps)?;
        if let Some(r) = &f.restart {
            if r.steps.is_empty() {
                return Err(AddressFileError::new(
                    file,
                    "restart.steps",
                    "needs at least one step (leave the [restart] table out to stop at game over)",
                ));
            }
            validate_steps(file, "restart", &r.steps)?;
        }
        Ok(())
    }
}

/// Game options: values that tell the choices apart, one value per number of colours.
fn validate_options(file: &str, o: &super::schema::GameOptions) -> Result<(), AddressFileError> {
    if let Some(i) = &o.items {
        let v = [i.off, i.big_puyo, i.carbuncle];
        if v[0] == v[1] || v[0] == v[2] || v[1] == v[2] {
            let msg = format!("off, big_puyo and carbuncle need three different values, got {v:?}");
            return Err(AddressFileError::new(file, "options.items", msg));
        }
    }
    if let Some(c) = &o.colors {
        let mut distinct = c.values.clone();
        distinct.sort_unstable();
        distinct.dedup();
        if c.counts.is_empty() || c.counts.len() != c.values.len() || distinct.len() != c.values.len() {
            let msg = format!(
                "counts and values need one distinct value per number of colours, got counts {:?} and values {:?}",
                c.counts, c.values
            );
            return Err(AddressFileError::new(file, "options.colors", msg));
        }
    }
    Ok(())
}

/// Most frames a `seed_wait` step may wait (one minute of game time).
pub const MAX_SEED_WAIT: u32 = 3600;

/// Checks the steps of a `[menu]` or `[restart]` script; `table` names it in errors.
fn validate_steps(file: &str, table: &str, steps: &[MenuStep]) -> Result<(), AddressFileError> {
    for (i, s) in steps.iter().enumerate() {
        let k = format!("{table}.steps[{}]", i + 1);
        let actions = s.wait.is_some() as u8
            + s.press.is_some() as u8
            + s.wait_until.is_some() as u8
            + s.seek.is_some() as u8
            + s.start_play.is_some() as u8
            + s.seed_wait.is_some() as u8;
        if actions != 1 {
            return Err(AddressFileError::new(
                file,
                k,
                "needs exactly one of `wait`, `press`, `wait_until`, `seek`, `start_play`, `seed_wait`",
            ));
        }
        if let Some(w) = s.seed_wait
            && w > MAX_SEED_WAIT
        {
            return Err(AddressFileError::new(
                file,
                format!("{k}.seed_wait"),
                format!("must be 0..={MAX_SEED_WAIT} frames, got {w}"),
            ));
        }
        for (key, buttons) in [("press", &s.press), ("start_play", &s.start_play), ("buttons", &s.buttons)] {
            for b in buttons.iter().flatten() {
                if pad::from_name(b).is_none() {
                    return Err(AddressFileError::new(
                        file,
                        format!("{k}.{key}"),
                        format!("unknown button {b:?} (expected A, B, SELECT, START, UP, DOWN, LEFT, RIGHT)"),
                    ));
                }
            }
        }
        if s.buttons.is_some() && s.seek.is_none() {
            return Err(AddressFileError::new(file, format!("{k}.buttons"), "only a `seek` step takes `buttons`"));
        }
        if let Some(c) = &s.seek {
            check_addr(file, &format!("{k}.seek.addr"), c.addr as usize)?;
        }
        for (key, value) in [("presses", s.presses), ("gap", s.gap)] {
            if let Some(v) = value
                && !(1..=600).contains(&v)
            {
                return Err(AddressFileError::new(file, format!("{k}.{key}"), format!("must be 1..=600, got {v}")));
            }
        }
        if let Some(p) = s.pad
            && !(1..=2).contains(&p)
        {
            return Err(AddressFileError::new(file, format!("{k}.pad"), format!("must be 1 or 2, got {p}")));
        }
        if let Some(c) = &s.wait_until {
            check_addr(file, &format!("{k}.wait_until.addr"), c.addr as usize)?;
        }
    }
    Ok(())
}
