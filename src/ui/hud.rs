//! The window's picture at 1x, before scaling: the NES frame untouched in the middle, a panel per
//! player on each side and a status line below (the "HUD"), or the frame alone when the HUD is off.
//!
//! Text never covers the game: the panels and the status line sit around the frame, and the frame's
//! pixels are copied as the emulator made them. The one thing drawn on the game is the bot's planned
//! placement (the "ghost"), an overlay with its own key. The help page is the exception by request: while
//! it is open it fills the window.
//!
//! Layout with the HUD on ([`canvas`]): `PANEL_W` + 256 + `PANEL_W` wide, 240 + `STATUS_H` high.
//! - Left panel: player 1 (even indices); right panel: player 2. A bot's panel shows its name and
//!   state, speed, the chain its plan expects and its thinking time; a person's panel shows the pad
//!   buttons held. Both show the score and the largest chain.
//! - Status line 1: emulator speed and measured rate, pause, sound; the save-state slot at the right.
//! - Status line 2: what starts the game while it waits for the person's Start, else the latest message
//!   (saved paths, errors, "P2 WINS"), else the start hint, else the match tally.

use super::font::{self, ADVANCE, LINE_H};
use super::pacing::EmuSpeed;
use super::{FRAME_RGBA_LEN, GhostCell, HudInfo, HudPlayer, NES_HEIGHT, NES_WIDTH};
use super::{PAD_A, PAD_B, PAD_DOWN, PAD_LEFT, PAD_RIGHT, PAD_SELECT, PAD_START, PAD_UP};

/// Width of each side panel in 1x pixels (15 characters and margins).
pub const PANEL_W: usize = 96;
/// Height of the status area below the picture in 1x pixels (two lines).
pub const STATUS_H: usize = 2 * PITCH as usize + 2;
/// Line pitch of HUD text.
const PITCH: i32 = LINE_H as i32 + 1;
/// Characters that fit on a panel line.
const PANEL_CHARS: usize = (PANEL_W - 6) / ADVANCE;
/// Characters of a key name on the help page.
const HELP_KEY_CHARS: usize = 13;
/// Characters of a description on the help page (half the HUD's width, less the key).
pub const HELP_WHAT_CHARS: usize = ((NES_WIDTH + 2 * PANEL_W) / 2 - 4) / ADVANCE - HELP_KEY_CHARS;

/// Colour of the area around the picture.
pub const BACKGROUND: [u8; 3] = [20, 20, 30];
/// Colour of ordinary HUD text.
pub const TEXT: [u8; 3] = [255, 255, 255];
/// Colour of secondary HUD text (a button not held).
pub const DIM: [u8; 3] = [90, 90, 110];
/// Colour of "BOT ON".
pub const ON: [u8; 3] = [96, 255, 96];
/// Colour of "BOT OFF".
pub const OFF: [u8; 3] = [255, 120, 120];
/// Colour of messages.
pub const MESSAGE: [u8; 3] = [255, 230, 80];

/// Where the frame sits in the composed picture, and the picture's size (1x pixels).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Canvas {
    /// Width of the composed picture.
    pub width: usize,
    /// Height of the composed picture.
    pub height: usize,
    /// X of the NES frame's left edge.
    pub pic_x: usize,
    /// Y of the NES frame's top edge.
    pub pic_y: usize,
}

/// The composed picture's geometry: the frame alone, or the frame with the panels and status line.
pub fn canvas(hud_on: bool) -> Canvas {
    if hud_on {
        Canvas { width: NES_WIDTH + 2 * PANEL_W, height: NES_HEIGHT + STATUS_H, pic_x: PANEL_W, pic_y: 0 }
    } else {
        Canvas { width: NES_WIDTH, height: NES_HEIGHT, pic_x: 0, pic_y: 0 }
    }
}

/// Window-side state shown on the HUD next to the session's [`HudInfo`].
#[derive(Debug, Clone, Default, PartialEq)]
pub struct WindowStatus {
    /// Current emulator speed step.
    pub speed: EmuSpeed,
    /// Measured emulated frames per second.
    pub fps: f32,
    /// Whether the emulator is paused.
    pub paused: bool,
    /// Current save-state slot.
    pub slot: u8,
    /// The window's latest message (e.g. "SAVED SLOT 1 TO ...").
    pub message: Option<String>,
    /// The start hint ("F1: KEYS ..."), shown while no message is up.
    pub hint: Option<String>,
    /// What starts the game while it waits for the person's Start ("PRESS ENTER OR ..."): shown on the
    /// second status line before anything else.
    pub prompt: Option<String>,
    /// The state of the sound ("SOUND ON", "MUTED", "NO SOUND DEVICE", ...).
    pub sound: String,
    /// NES pad 1 buttons the person holds (keyboard and controllers together).
    pub pad1: u8,
}

/// What to draw besides the frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Layers {
    /// The panels and the status line.
    pub hud: bool,
    /// The planned-placement outlines over the game.
    pub ghost: bool,
}

/// Composes the window's 1x picture into `out` (resized to fit): `frame` (256×240 RGBA, copied
/// unchanged), the ghost overlay and the HUD as `layers` say, or the help page when `help` holds its
/// rows. Returns the geometry.
pub fn compose(
    out: &mut Vec<u8>,
    frame: &[u8],
    info: &HudInfo,
    status: &WindowStatus,
    layers: Layers,
    help: Option<&[(String, &str)]>,
) -> Canvas {
    let c = canvas(layers.hud || help.is_some());
    out.resize(c.width * c.height * 4, 0);
    for px in out.chunks_exact_mut(4) {
        px.copy_from_slice(&[BACKGROUND[0], BACKGROUND[1], BACKGROUND[2], 255]);
    }
    if let Some(rows) = help {
        draw_help(out, c, rows);
        return c;
    }
    for y in 0..NES_HEIGHT {
        let src = y * NES_WIDTH * 4;
        let dst = ((c.pic_y + y) * c.width + c.pic_x) * 4;
        let row = &mut out[dst..dst + NES_WIDTH * 4];
        match frame.get(src..src + NES_WIDTH * 4) {
            Some(s) => row.copy_from_slice(s),
            None => row.fill(0),
        }
    }
    if frame.len() < FRAME_RGBA_LEN {
        log::trace!("short frame: {} bytes", frame.len());
    }
    if layers.ghost {
        for p in &info.players {
            for cell in &p.ghost {
                draw_ghost(out, c, *cell);
            }
        }
    }
    if layers.hud {
        for (i, p) in info.players.iter().enumerate() {
            let x = if i % 2 == 0 { 3 } else { (c.pic_x + NES_WIDTH + 3) as i32 };
            let y = 3 + (i / 2) as i32 * (9 * PITCH);
            draw_panel(out, c, x, y, p, status.pad1);
        }
        draw_status(out, c, info, status);
    }
    c
}

fn text(out: &mut [u8], c: Canvas, x: i32, y: i32, s: &str, rgb: [u8; 3]) -> i32 {
    font::draw_text(out, c.width, c.height, x, y, s, rgb)
}

/// `s` cut to `n` characters.
fn fit(s: &str, n: usize) -> String {
    s.chars().take(n).collect()
}

/// `s` cut to `n` characters by taking out its middle: a message's start says what happened and its
/// end is often a file name.
fn fit_middle(s: &str, n: usize) -> String {
    let len = s.chars().count();
    if len <= n || n < 8 {
        return fit(s, n);
    }
    let head = n / 3;
    let tail = n - head - 2;
    let start: String = s.chars().take(head).collect();
    let end: String = s.chars().skip(len - tail).collect();
    format!("{start}..{end}")
}

fn draw_panel(out: &mut [u8], c: Canvas, x: i32, y: i32, p: &HudPlayer, pad1: u8) {
    let mut y = y;
    let mut line = |out: &mut [u8], segments: &[(&str, [u8; 3])]| {
        let mut cx = x;
        let mut left = PANEL_CHARS;
        for (s, rgb) in segments {
            let s = fit(s, left);
            left -= s.chars().count();
            cx = text(out, c, cx, y, &s, *rgb);
        }
        y += PITCH;
    };
    line(out, &[(&p.label.to_uppercase(), TEXT)]);
    if p.human {
        line(out, &[("PERSON", ON)]);
        if p.pad == 0 {
            // The buttons held, lit; the ones not held, dim.
            let lit = |bit: u8| if pad1 & bit != 0 { TEXT } else { DIM };
            line(out, &[("L ", lit(PAD_LEFT)), ("R ", lit(PAD_RIGHT)), ("U ", lit(PAD_UP)), ("D", lit(PAD_DOWN))]);
            line(out, &[("B ", lit(PAD_B)), ("A ", lit(PAD_A)), ("SEL ", lit(PAD_SELECT)), ("ST", lit(PAD_START))]);
        } else {
            line(out, &[(&format!("PAD {}", p.pad + 1), DIM)]);
            line(out, &[("", DIM)]);
        }
    } else {
        let (bot, rgb) = if p.bot_on { ("BOT ON", ON) } else { ("BOT OFF", OFF) };
        line(out, &[(bot, rgb)]);
        line(out, &[(&format!("SPEED {}", p.speed), TEXT)]);
        line(out, &[(&format!("PLAN CHAIN {}", p.expected_chain), TEXT)]);
        line(out, &[(&format!("THINK {:.1}MS", p.think_ms), TEXT)]);
        if let Some(intent) = &p.intent {
            line(out, &[(intent, ON)]);
        }
    }
    if let Some(score) = p.score {
        line(out, &[(&format!("SCORE {score}"), TEXT)]);
    }
    line(out, &[(&format!("MAX CHAIN {}", p.largest_chain), TEXT)]);
    if let Some(t) = &p.timing {
        line(out, &[(t, DIM)]);
    }
}

fn draw_status(out: &mut [u8], c: Canvas, info: &HudInfo, status: &WindowStatus) {
    let y1 = (c.pic_y + NES_HEIGHT) as i32 + 2;
    let y2 = y1 + PITCH;
    let mut left = format!("EMU {} {:.0}FPS", status.speed, status.fps);
    if status.paused {
        left.push_str(" PAUSED");
    }
    if !status.sound.is_empty() {
        left.push_str("  ");
        left.push_str(&status.sound);
    }
    let chars = (c.width - 6) / ADVANCE;
    text(out, c, 3, y1, &fit(&left, chars), TEXT);
    let slot = format!("SLOT {}", status.slot);
    let slot_x = c.width as i32 - 3 - font::text_width(&slot) as i32;
    text(out, c, slot_x, y1, &slot, TEXT);
    if let Some(rules) = &info.rules {
        // Centred between the emulator's figures and the slot, cut to the room there.
        let left_end = 3 + font::text_width(&fit(&left, chars)) as i32 + 2 * ADVANCE as i32;
        let room = ((slot_x - 2 * ADVANCE as i32 - left_end).max(0) as usize) / ADVANCE;
        let rules = fit(rules, room);
        let x = left_end + (room * ADVANCE - font::text_width(&rules)) as i32 / 2;
        text(out, c, x, y1, &rules, DIM);
    }
    let messages: Vec<&str> = [status.message.as_deref(), info.message.as_deref()].into_iter().flatten().collect();
    let (line, rgb) = if let Some(p) = &status.prompt {
        (p.clone(), ON)
    } else if !messages.is_empty() {
        (messages.join("  "), MESSAGE)
    } else if let Some(h) = &status.hint {
        (h.clone(), MESSAGE)
    } else if let Some(t) = &info.tally {
        (t.clone(), TEXT)
    } else {
        return;
    };
    let line = fit_middle(&line, chars);
    let x = (c.width as i32 - font::text_width(&line) as i32) / 2;
    text(out, c, x.max(3), y2, &line, rgb);
}

fn draw_help(out: &mut [u8], c: Canvas, rows: &[(String, &str)]) {
    let title = "KEYS (THE HELP KEY CLOSES THIS PAGE)";
    let x = (c.width as i32 - font::text_width(title) as i32) / 2;
    text(out, c, x, 3, title, MESSAGE);
    let per_column = rows.len().div_ceil(2);
    let col_w = c.width / 2;
    let (key_chars, what_chars) = (HELP_KEY_CHARS, HELP_WHAT_CHARS);
    for (i, (key, what)) in rows.iter().enumerate() {
        let x = 3 + (i / per_column * col_w) as i32;
        let y = 3 + 2 * PITCH + (i % per_column) as i32 * PITCH;
        text(out, c, x, y, &fit(key, key_chars - 1), ON);
        text(out, c, x + (key_chars * ADVANCE) as i32, y, &fit(what, what_chars), TEXT);
    }
}

/// Draws a ghost cell (NES screen coordinates) as a 2-pixel outline of its 16×16 square, clipped to
/// the frame's area.
pub fn draw_ghost(out: &mut [u8], c: Canvas, cell: GhostCell) {
    let mut put = |x: i32, y: i32| {
        if (0..NES_WIDTH as i32).contains(&x) && (0..NES_HEIGHT as i32).contains(&y) {
            font::put_pixel(out, c.width, c.height, x + c.pic_x as i32, y + c.pic_y as i32, cell.rgb);
        }
    };
    for d in 0..16 {
        for t in 0..2 {
            put(cell.x + d, cell.y + t);
            put(cell.x + d, cell.y + 15 - t);
            put(cell.x + t, cell.y + d);
            put(cell.x + 15 - t, cell.y + d);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn px(buf: &[u8], c: Canvas, x: usize, y: usize) -> [u8; 3] {
        let i = (y * c.width + x) * 4;
        [buf[i], buf[i + 1], buf[i + 2]]
    }

    fn frame() -> Vec<u8> {
        (0..FRAME_RGBA_LEN).map(|i| if i % 4 == 3 { 255 } else { (i * 7 % 251) as u8 }).collect()
    }

    fn info() -> HudInfo {
        HudInfo {
            players: vec![
                HudPlayer {
                    label: "P1".into(),
                    bot_on: true,
                    ghost: vec![GhostCell { x: 32, y: 48, rgb: [1, 2, 3] }],
                    ..Default::default()
                },
                HudPlayer { label: "P2 HUMAN".into(), human: true, pad: 0, score: Some(120), ..Default::default() },
            ],
            message: Some("P2 WINS".into()),
            tally: None,
            awaiting_start: false,
            rules: None,
        }
    }

    fn crop(buf: &[u8], c: Canvas) -> Vec<u8> {
        let mut v = Vec::new();
        for y in 0..NES_HEIGHT {
            let i = ((c.pic_y + y) * c.width + c.pic_x) * 4;
            v.extend_from_slice(&buf[i..i + NES_WIDTH * 4]);
        }
        v
    }

    #[test]
    fn with_the_hud_on_the_frame_is_copied_unchanged_beside_the_panels() {
        let f = frame();
        let mut out = Vec::new();
        let status = WindowStatus { sound: "SOUND ON".into(), ..Default::default() };
        let c = compose(&mut out, &f, &info(), &status, Layers { hud: true, ghost: false }, None);
        assert_eq!((c.width, c.height, c.pic_x), (448, 240 + STATUS_H, PANEL_W));
        assert_eq!(out.len(), c.width * c.height * 4);
        assert_eq!(crop(&out, c), f, "the picture is byte-identical to the emulator's frame");
        // Panel text is drawn: the 'P' of "P1" at (3, 3) is white; the right panel's "P2" too.
        assert_eq!(px(&out, c, 3, 3), TEXT);
        assert_eq!(px(&out, c, PANEL_W + NES_WIDTH + 3, 3), TEXT);
        // The status line's 'E' of "EMU" below the picture.
        assert_eq!(px(&out, c, 3, NES_HEIGHT + 2), TEXT);
        // The message is drawn in the message colour somewhere on the second status line.
        let y2 = NES_HEIGHT + 2 + PITCH as usize;
        assert!((0..c.width).any(|x| px(&out, c, x, y2) == MESSAGE), "message not drawn");
    }

    #[test]
    fn the_learned_2p_rules_sit_between_the_emulators_figures_and_the_slot() {
        let f = frame();
        let status = WindowStatus { sound: "SOUND ON".into(), ..Default::default() };
        let row = |info: &HudInfo| {
            let mut out = Vec::new();
            let c = compose(&mut out, &f, info, &status, Layers { hud: true, ghost: false }, None);
            let y1 = c.pic_y + NES_HEIGHT + 2;
            (0..LINE_H).flat_map(|dy| (0..c.width).map(move |x| (x, y1 + dy))).map(|(x, y)| px(&out, c, x, y)).collect()
        };
        let bare: Vec<[u8; 3]> = row(&info());
        let with = HudInfo { rules: Some("2P CAP 30 70PT DROP 30 LEARNED".into()), ..info() };
        let shown: Vec<[u8; 3]> = row(&with);
        let width = NES_WIDTH + 2 * PANEL_W;
        let differs: Vec<usize> = (0..shown.len()).filter(|&i| shown[i] != bare[i]).map(|i| i % width).collect();
        assert!(!differs.is_empty(), "the rules are drawn on the first status row");
        assert!(differs.iter().all(|&i| shown.iter().skip(i).step_by(width).all(|p| *p == DIM || *p == BACKGROUND)));
        let (from, to) = (*differs.iter().min().unwrap(), *differs.iter().max().unwrap());
        // Between the emulator's figures (left) and the slot (right), in the middle of the room there.
        let lit_columns = |row: &[[u8; 3]]| -> Vec<usize> {
            (0..row.len()).filter(|&i| row[i] == TEXT).map(|i| i % width).collect::<Vec<_>>()
        };
        let text_columns = lit_columns(&bare);
        let left_end = text_columns.iter().filter(|&&x| x < width / 2).max().copied().unwrap();
        let slot_start = text_columns.iter().filter(|&&x| x > width / 2).min().copied().unwrap();
        assert!(left_end < from && to < slot_start, "{left_end} < {from}..{to} < {slot_start}");
        let room_centre = (left_end + slot_start) / 2;
        assert!(((from + to) / 2).abs_diff(room_centre) <= 2 * ADVANCE, "{from}..{to} about {room_centre}");
        // What is drawn there is the rules line itself.
        let line = "2P CAP 30 70PT DROP 30 LEARNED";
        let drawn_at = |x: i32| {
            let mut buf = vec![0u8; width * LINE_H * 4];
            font::draw_text(&mut buf, width, LINE_H, x, 0, line, DIM);
            (0..width * LINE_H).map(|i| buf[i * 4..i * 4 + 3] == DIM).collect::<Vec<bool>>()
        };
        let first_lit = drawn_at(0).iter().enumerate().filter(|(_, l)| **l).map(|(i, _)| i % width).min().unwrap();
        let expected = drawn_at((from - first_lit) as i32);
        let seen: Vec<bool> = (0..width * LINE_H).map(|i| shown[i] != bare[i] && shown[i] == DIM).collect();
        assert!(expected == seen, "the rules line is drawn as the font draws it");
    }

    #[test]
    fn the_ghost_is_an_overlay_of_its_own_and_the_hud_off_leaves_the_bare_frame() {
        let f = frame();
        let mut out = Vec::new();
        let c = compose(&mut out, &f, &info(), &WindowStatus::default(), Layers { hud: false, ghost: false }, None);
        assert_eq!((c.width, c.height), (256, 240));
        assert_eq!(out, f);
        let c = compose(&mut out, &f, &info(), &WindowStatus::default(), Layers { hud: false, ghost: true }, None);
        assert_eq!(px(&out, c, 32, 48), [1, 2, 3], "outline corner");
        assert_eq!(px(&out, c, 47, 63), [1, 2, 3]);
        let inside = (55 * 256 + 40) * 4;
        assert_eq!(out[inside..inside + 3], f[inside..inside + 3], "inside untouched");
        // With the HUD on the outline moves with the picture.
        let c = compose(&mut out, &f, &info(), &WindowStatus::default(), Layers { hud: true, ghost: true }, None);
        assert_eq!(px(&out, c, PANEL_W + 32, 48), [1, 2, 3]);
        // Cells partly off the picture are clipped to it, never drawn on a panel.
        let mut off = info();
        off.players[0].ghost = vec![GhostCell { x: -8, y: 0, rgb: [9, 9, 9] }];
        let c = compose(&mut out, &f, &off, &WindowStatus::default(), Layers { hud: false, ghost: true }, None);
        assert_eq!(px(&out, c, 7, 0), [9, 9, 9]);
    }

    #[test]
    fn a_persons_panel_lights_the_buttons_held_and_a_bots_shows_its_lines() {
        let f = frame();
        let mut out = Vec::new();
        let status = WindowStatus { pad1: PAD_LEFT, ..Default::default() };
        let c = compose(&mut out, &f, &info(), &status, Layers { hud: true, ghost: false }, None);
        let x0 = PANEL_W + NES_WIDTH + 3;
        // Line 3 of the right panel: "L R U D"; 'L' (held) is lit, 'R' (not held) dim.
        let y = 3 + 2 * PITCH as usize;
        assert_eq!(px(&out, c, x0, y), TEXT, "held Left lit");
        assert_eq!(px(&out, c, x0 + 2 * ADVANCE, y), DIM, "Right not held");
        // Left panel, line 2: "BOT ON" in green.
        assert_eq!(px(&out, c, 3 + 1, 3 + PITCH as usize), ON);
    }

    #[test]
    fn the_start_prompt_outranks_messages_on_the_second_status_line() {
        let f = frame();
        let mut out = Vec::new();
        let y2 = NES_HEIGHT + 2 + PITCH as usize;
        let line = |out: &[u8], c: Canvas| (0..c.width).map(|x| px(out, c, x, y2)).collect::<Vec<_>>();
        let status = WindowStatus { message: Some("SLOT 2".into()), ..Default::default() };
        let c = compose(&mut out, &f, &info(), &status, Layers { hud: true, ghost: false }, None);
        assert!(line(&out, c).contains(&MESSAGE) && !line(&out, c).contains(&ON), "the message, in its colour");
        let status = WindowStatus { prompt: Some("PRESS ENTER TO START THE GAME".into()), ..status };
        let c = compose(&mut out, &f, &info(), &status, Layers { hud: true, ghost: false }, None);
        assert!(line(&out, c).contains(&ON) && !line(&out, c).contains(&MESSAGE), "the prompt alone, in green");
    }

    #[test]
    fn long_messages_keep_their_start_and_their_end() {
        assert_eq!(fit_middle("short", 10), "short");
        let m = fit_middle("saved slot 1: /home/someone/.local/share/puyobot/states/ABCDEF/slot-1.state", 40);
        assert_eq!(m.chars().count(), 40);
        assert!(m.starts_with("saved slot 1") && m.ends_with("slot-1.state") && m.contains(".."), "{m}");
    }

    #[test]
    fn the_help_page_lists_every_row() {
        let rows: Vec<(String, &str)> = (0..31).map(|i| (format!("K{i}"), "does a thing")).collect();
        let mut out = Vec::new();
        let c = compose(&mut out, &frame(), &info(), &WindowStatus::default(), Layers::default(), Some(&rows));
        assert_eq!(c.width, 448, "the help page uses the full layout even with the HUD off");
        // Row 0 top-left, row 16 (first of the second column) at the middle.
        let y0 = 3 + 2 * PITCH as usize;
        assert_eq!(px(&out, c, 3, y0), ON);
        assert_eq!(px(&out, c, 3 + c.width / 2, y0), ON);
        // 31 rows: 16 in the first column, 15 in the second.
        let last_y = y0 + 15 * PITCH as usize;
        assert_eq!(px(&out, c, 3, last_y), ON, "row 16 is drawn");
        assert_eq!(px(&out, c, 3 + c.width / 2, last_y - PITCH as usize), ON, "row 31 is drawn");
        assert!(last_y + PITCH as usize <= c.height);
    }
}
