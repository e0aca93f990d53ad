//! A fake [`Viewable`] that needs no ROM: an animated test pattern with two
//! fake Puyo fields, falling pairs and a moving ghost. Used by
//! `examples/window_demo.rs` and the window tests.

use super::{FRAME_RGBA_LEN, GhostCell, HudInfo, HudPlayer, NES_WIDTH, Viewable};
use std::collections::HashMap;

/// Puyo colours of the fake fields.
const COLOURS: [[u8; 3]; 4] = [[230, 40, 40], [40, 200, 60], [60, 90, 240], [240, 210, 40]];
/// Left x of each fake field (6 columns × 12 rows of 16×16 cells).
const FIELD_X: [i32; 2] = [16, 144];
/// Top y of the fake fields.
const FIELD_Y: i32 = 24;

/// Animated test pattern implementing [`Viewable`].
#[derive(Debug, Clone)]
pub struct DemoView {
    frame: u64,
    rgba: Vec<u8>,
    bots: [bool; 2],
    bot_speed: u8,
    pad: u8,
    cursor: (i32, i32),
    slots: HashMap<u8, (u64, (i32, i32))>,
}

impl Default for DemoView {
    fn default() -> Self {
        Self::new()
    }
}

impl DemoView {
    /// A demo at frame 0 with both fake bots on and bot speed 5.
    pub fn new() -> Self {
        let mut d = DemoView {
            frame: 0,
            rgba: vec![0; FRAME_RGBA_LEN],
            bots: [true, true],
            bot_speed: 5,
            pad: 0,
            cursor: (128, 120),
            slots: HashMap::new(),
        };
        d.render();
        d
    }

    /// Number of frames emulated so far.
    pub fn frame(&self) -> u64 {
        self.frame
    }

    /// Column of the falling pair of player `p` at the current frame.
    fn column(&self, p: usize) -> i32 {
        ((self.frame / 45 + p as u64 * 3) % 6) as i32
    }

    /// Height of the fake stack in column `c` of player `p`.
    fn stack_height(p: usize, c: i32) -> i32 {
        [3, 5, 2, 6, 4, 1][((c as usize) + p * 2) % 6]
    }

    fn fill(&mut self, x: i32, y: i32, w: i32, h: i32, rgb: [u8; 3]) {
        for py in y.max(0)..(y + h).min(240) {
            for px in x.max(0)..(x + w).min(NES_WIDTH as i32) {
                let i = (py as usize * NES_WIDTH + px as usize) * 4;
                self.rgba[i..i + 4].copy_from_slice(&[rgb[0], rgb[1], rgb[2], 255]);
            }
        }
    }

    fn render(&mut self) {
        let t = self.frame as usize;
        for y in 0..240 {
            for x in 0..NES_WIDTH {
                let i = (y * NES_WIDTH + x) * 4;
                let v = ((x + y + t) / 8 % 2) as u8 * 16;
                self.rgba[i..i + 4].copy_from_slice(&[20 + v, 20 + v, 60 + v, 255]);
            }
        }
        for (p, &fx) in FIELD_X.iter().enumerate() {
            self.fill(fx - 4, FIELD_Y - 4, 6 * 16 + 8, 12 * 16 + 8, [150, 150, 160]);
            self.fill(fx, FIELD_Y, 6 * 16, 12 * 16, [0, 0, 0]);
            for c in 0..6 {
                for r in 0..Self::stack_height(p, c) {
                    let rgb = COLOURS[((c + r) as usize + p) % 4];
                    self.fill(fx + c * 16 + 1, FIELD_Y + (11 - r) * 16 + 1, 14, 14, rgb);
                }
            }
            // The falling pair.
            let c = self.column(p);
            let fall = ((self.frame % 45) * 3) as i32;
            let rgb = COLOURS[(self.frame / 45 + p as u64) as usize % 4];
            self.fill(fx + c * 16 + 1, FIELD_Y + fall + 1, 14, 14, rgb);
            self.fill(fx + c * 16 + 1, FIELD_Y + fall + 17, 14, 14, COLOURS[(rgb[0] as usize) % 4]);
        }
        // A cursor moved with the keyboard pad (white while a button is held).
        let rgb = if self.pad != 0 { [255, 255, 255] } else { [255, 0, 255] };
        self.fill(self.cursor.0 - 2, self.cursor.1 - 2, 5, 5, rgb);
    }
}

impl Viewable for DemoView {
    fn step_frame(&mut self) -> anyhow::Result<()> {
        self.frame += 1;
        let (x, y) = &mut self.cursor;
        if self.pad & super::PAD_LEFT != 0 {
            *x -= 1;
        }
        if self.pad & super::PAD_RIGHT != 0 {
            *x += 1;
        }
        if self.pad & super::PAD_UP != 0 {
            *y -= 1;
        }
        if self.pad & super::PAD_DOWN != 0 {
            *y += 1;
        }
        *x = (*x).clamp(0, 255);
        *y = (*y).clamp(0, 239);
        self.render();
        Ok(())
    }

    fn frame_rgba(&mut self) -> &[u8] {
        &self.rgba
    }

    fn hud(&self) -> HudInfo {
        let players = (0..2)
            .map(|p| {
                let c = self.column(p);
                let top = 11 - Self::stack_height(p, c);
                let rgb = COLOURS[(self.frame / 45 + p as u64) as usize % 4];
                HudPlayer {
                    label: format!("P{}", p + 1),
                    bot_on: self.bots[p],
                    human: !self.bots[p],
                    pad: p,
                    score: Some(self.frame * 10),
                    largest_chain: ((self.frame / 300) % 8) as u32,
                    speed: self.bot_speed,
                    expected_chain: ((self.frame / 60 + p as u64) % 8) as u32,
                    think_ms: 1.5 + (self.frame % 100) as f32 / 10.0,
                    timing: Some("G30 LK16 LAG0".to_string()),
                    intent: self.bots[p].then(|| "BUILD 8".to_string()),
                    ghost: if self.bots[p] {
                        vec![
                            GhostCell { x: FIELD_X[p] + c * 16, y: FIELD_Y + top * 16, rgb },
                            GhostCell { x: FIELD_X[p] + c * 16, y: FIELD_Y + (top - 1) * 16, rgb },
                        ]
                    } else {
                        Vec::new()
                    },
                }
            })
            .collect();
        HudInfo { players, message: (self.frame < 180).then(|| "DEMO - NO ROM".to_string()), ..HudInfo::default() }
    }

    fn set_keyboard_pad(&mut self, pad: u8, buttons: u8) {
        if pad == 0 {
            self.pad = buttons;
        }
    }

    fn toggle_bot(&mut self, player: usize) -> bool {
        match self.bots.get_mut(player) {
            Some(b) => {
                *b = !*b;
                *b
            }
            None => false,
        }
    }

    fn change_bot_speed(&mut self, delta: i32) -> u8 {
        self.bot_speed = (i32::from(self.bot_speed) + delta).clamp(0, 10) as u8;
        self.bot_speed
    }

    fn save_state(&mut self, slot: u8) -> anyhow::Result<String> {
        self.slots.insert(slot, (self.frame, self.cursor));
        Ok(format!("memory slot {slot}"))
    }

    fn load_state(&mut self, slot: u8) -> anyhow::Result<()> {
        let (frame, cursor) = *self.slots.get(&slot).ok_or_else(|| anyhow::anyhow!("slot {slot} is empty"))?;
        self.frame = frame;
        self.cursor = cursor;
        self.render();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn demo_view_behaves() {
        let mut d = DemoView::new();
        assert_eq!(d.frame_rgba().len(), FRAME_RGBA_LEN);
        d.step_frame().unwrap();
        d.save_state(1).unwrap();
        d.step_frame().unwrap();
        assert_eq!(d.frame(), 2);
        d.load_state(1).unwrap();
        assert_eq!(d.frame(), 1);
        assert!(d.load_state(2).is_err());
        assert!(!d.toggle_bot(0));
        assert!(!d.toggle_bot(7));
        assert_eq!(d.change_bot_speed(100), 10);
        assert_eq!(d.change_bot_speed(-100), 0);
        let hud = d.hud();
        assert_eq!(hud.players.len(), 2);
        assert!(hud.players[0].ghost.is_empty() && hud.players[1].ghost.len() == 2);
    }
}
