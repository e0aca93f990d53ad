//! The HUD, drawn into the window's own copy of the 256×240 RGBA frame.
//!
//! Layout: player 1 (and other even indices) top-left, player 2 top-right,
//! three lines each (label + bot on/off, speed + expected chain, think
//! time); bottom-left the emulator speed, measured frame rate and pause
//! state, bottom-right the save-state slot; messages centred above the
//! bottom line. Text sits on a darkened box so it stays legible over the
//! game. Ghost cells are 2-pixel outlines of 16×16 squares.

use super::font::{self, LINE_H};
use super::pacing::EmuSpeed;
use super::{GhostCell, HudInfo, NES_HEIGHT, NES_WIDTH};

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
    /// The window's own transient message (e.g. "SAVED SLOT 1").
    pub message: Option<String>,
}

/// Colour of ordinary HUD text.
pub const TEXT: [u8; 3] = [255, 255, 255];
/// Colour of "BOT ON".
pub const ON: [u8; 3] = [96, 255, 96];
/// Colour of "BOT OFF".
pub const OFF: [u8; 3] = [255, 120, 120];
/// Colour of messages.
pub const MESSAGE: [u8; 3] = [255, 230, 80];

const W: usize = NES_WIDTH;
const H: usize = NES_HEIGHT;
/// Line pitch including the backdrop border.
const PITCH: i32 = LINE_H as i32 + 1;

/// Draws the whole HUD into `rgba` (a 256×240 RGBA frame).
pub fn draw_hud(rgba: &mut [u8], info: &HudInfo, status: &WindowStatus) {
    for p in &info.players {
        for cell in &p.ghost {
            draw_ghost(rgba, *cell);
        }
    }
    for (i, p) in info.players.iter().enumerate() {
        let right = i % 2 == 1;
        let y0 = 1 + (i / 2) as i32 * (3 * PITCH + 2);
        let (bot, bot_rgb) = if p.bot_on { ("BOT ON", ON) } else { ("BOT OFF", OFF) };
        let label = format!("{} ", p.label);
        let line2 = format!("SPD {} CHAIN {}", p.speed, p.expected_chain);
        let line3 = format!("THINK {:.1}MS", p.think_ms);
        line(rgba, right, y0, &[(&label, TEXT), (bot, bot_rgb)]);
        line(rgba, right, y0 + PITCH, &[(&line2, TEXT)]);
        line(rgba, right, y0 + 2 * PITCH, &[(&line3, TEXT)]);
    }
    let bottom = H as i32 - PITCH;
    let mut left = format!("EMU {} {:.0}FPS", status.speed, status.fps);
    if status.paused {
        left.push_str(" PAUSED");
    }
    line(rgba, false, bottom, &[(&left, TEXT)]);
    line(rgba, true, bottom, &[(&format!("SLOT {}", status.slot), TEXT)]);
    let mut y = bottom - PITCH;
    if let Some(t) = &info.tally {
        centred(rgba, y, t, TEXT);
        y -= PITCH;
    }
    for msg in [status.message.as_deref(), info.message.as_deref()].into_iter().flatten() {
        centred(rgba, y, msg, MESSAGE);
        y -= PITCH;
    }
}

/// Draws one line of coloured segments on a dark box, left-aligned at x=2
/// or right-aligned at x=254.
fn line(rgba: &mut [u8], right: bool, y: i32, segments: &[(&str, [u8; 3])]) {
    let text: String = segments.iter().map(|(s, _)| *s).collect();
    let w = font::text_width(&text) as i32;
    let x = if right { W as i32 - 2 - w } else { 2 };
    darken(rgba, x - 1, y - 1, w + 2, LINE_H as i32 + 1);
    let mut cx = x;
    for (s, rgb) in segments {
        cx = font::draw_text(rgba, W, H, cx, y, s, *rgb);
    }
}

/// Draws `text` horizontally centred on a dark box.
fn centred(rgba: &mut [u8], y: i32, text: &str, rgb: [u8; 3]) {
    let w = font::text_width(text) as i32;
    let x = (W as i32 - w) / 2;
    darken(rgba, x - 1, y - 1, w + 2, LINE_H as i32 + 1);
    font::draw_text(rgba, W, H, x, y, text, rgb);
}

/// Darkens a rectangle to a quarter of its brightness (clipped).
pub fn darken(rgba: &mut [u8], x: i32, y: i32, w: i32, h: i32) {
    let (x0, y0) = (x.max(0), y.max(0));
    let (x1, y1) = ((x + w).min(W as i32), (y + h).min(H as i32));
    for py in y0..y1 {
        for px in x0..x1 {
            let i = (py as usize * W + px as usize) * 4;
            if let Some(p) = rgba.get_mut(i..i + 3) {
                for c in p {
                    *c /= 4;
                }
            }
        }
    }
}

/// Draws a ghost cell as a 2-pixel outline of its 16×16 square (clipped).
pub fn draw_ghost(rgba: &mut [u8], cell: GhostCell) {
    for d in 0..16 {
        for t in 0..2 {
            font::put_pixel(rgba, W, H, cell.x + d, cell.y + t, cell.rgb);
            font::put_pixel(rgba, W, H, cell.x + d, cell.y + 15 - t, cell.rgb);
            font::put_pixel(rgba, W, H, cell.x + t, cell.y + d, cell.rgb);
            font::put_pixel(rgba, W, H, cell.x + 15 - t, cell.y + d, cell.rgb);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ui::{FRAME_RGBA_LEN, HudPlayer};

    fn px(buf: &[u8], x: usize, y: usize) -> [u8; 3] {
        let i = (y * W + x) * 4;
        [buf[i], buf[i + 1], buf[i + 2]]
    }

    #[test]
    fn ghost_outline_only() {
        let mut buf = vec![0u8; FRAME_RGBA_LEN];
        draw_ghost(&mut buf, GhostCell { x: 32, y: 48, rgb: [10, 20, 30] });
        assert_eq!(px(&buf, 32, 48), [10, 20, 30]);
        assert_eq!(px(&buf, 47, 63), [10, 20, 30]);
        assert_eq!(px(&buf, 33, 55), [10, 20, 30]);
        assert_eq!(px(&buf, 40, 55), [0, 0, 0], "inside stays untouched");
        assert_eq!(px(&buf, 48, 48), [0, 0, 0], "nothing right of the cell");
        // Off-screen cells are clipped, not a panic.
        draw_ghost(&mut buf, GhostCell { x: 250, y: -8, rgb: [1, 1, 1] });
        assert_eq!(px(&buf, 250, 7), [1, 1, 1]);
    }

    #[test]
    fn hud_text_positions() {
        let mut buf = vec![200u8; FRAME_RGBA_LEN];
        let info = HudInfo {
            players: vec![
                HudPlayer { label: "P1".into(), bot_on: true, ..Default::default() },
                HudPlayer { label: "P2".into(), bot_on: false, ..Default::default() },
            ],
            message: None,
            tally: None,
        };
        draw_hud(&mut buf, &info, &WindowStatus::default());
        // 'P' at (2,1): row 0 is ####. so (2..=5, 1) white, (6,1) dark backdrop.
        for x in 2..6 {
            assert_eq!(px(&buf, x, 1), TEXT);
        }
        assert_eq!(px(&buf, 6, 1), [50, 50, 50]);
        // "P2 BOT OFF" is right-aligned: its last glyph 'F' ends at x=253.
        assert_eq!(px(&buf, 253, 1), OFF);
        assert_eq!(px(&buf, 255, 1), [200, 200, 200], "outside the box untouched");
        // Bottom line starts with 'E' at (2, 231).
        assert_eq!(px(&buf, 2, 231), TEXT);
        // Middle of the screen untouched.
        assert_eq!(px(&buf, 128, 120), [200, 200, 200]);
    }
}
