//! Animated GIF clips of the game picture (256×240, no HUD), for sharing.
//!
//! The console makes 60 pictures a second, and a GIF's frame delay counts hundredths of a second (and
//! browsers slow delays under 2/100 s down to 1/10 s), so a clip holds every second picture at
//! 3, 3 and 4 hundredths in turn: 30 pictures a second, exactly the game's speed. The NES draws with
//! fewer than 256 colours, so each picture gets its own exact palette (no dithering); a picture with
//! more colours than a GIF palette holds is quantized.

use std::io::Write;

use anyhow::Context;

use super::{FRAME_RGBA_LEN, NES_HEIGHT, NES_WIDTH};

/// Console pictures per GIF frame.
pub const FRAMES_PER_GIF_FRAME: u64 = 2;
/// The delays (hundredths of a second) of successive GIF frames: 10/100 s per 3 GIF frames = 6 pictures.
const DELAYS: [u16; 3] = [3, 3, 4];

/// Writes console pictures into an animated GIF that loops forever.
pub struct GifClip<W: Write> {
    encoder: gif::Encoder<W>,
    /// Pictures offered so far (every [`FRAMES_PER_GIF_FRAME`]-th one is kept).
    offered: u64,
    written: u64,
}

impl<W: Write> GifClip<W> {
    /// Starts a clip on `out`.
    pub fn new(out: W) -> anyhow::Result<GifClip<W>> {
        let mut encoder =
            gif::Encoder::new(out, NES_WIDTH as u16, NES_HEIGHT as u16, &[]).context("starting the GIF")?;
        encoder.set_repeat(gif::Repeat::Infinite).context("writing the GIF's loop setting")?;
        Ok(GifClip { encoder, offered: 0, written: 0 })
    }

    /// Offers the next console picture (256×240 RGBA); every second one becomes a GIF frame, the first
    /// included.
    pub fn push(&mut self, rgba: &[u8]) -> anyhow::Result<()> {
        anyhow::ensure!(rgba.len() == FRAME_RGBA_LEN, "a picture of {} bytes, expected {FRAME_RGBA_LEN}", rgba.len());
        let keep = self.offered.is_multiple_of(FRAMES_PER_GIF_FRAME);
        self.offered += 1;
        if !keep {
            return Ok(());
        }
        let mut frame = indexed(rgba).unwrap_or_else(|| {
            let mut copy = rgba.to_vec();
            gif::Frame::from_rgba_speed(NES_WIDTH as u16, NES_HEIGHT as u16, &mut copy, 10)
        });
        frame.delay = DELAYS[(self.written % DELAYS.len() as u64) as usize];
        self.encoder.write_frame(&frame).context("writing a GIF frame")?;
        self.written += 1;
        Ok(())
    }

    /// GIF frames written so far.
    pub fn frames(&self) -> u64 {
        self.written
    }

    /// Ends the GIF (its trailer) and hands back the output.
    pub fn finish(self) -> anyhow::Result<W> {
        self.encoder.into_inner().context("ending the GIF")
    }
}

/// GIF frames a clip of `pictures` console pictures holds.
pub fn gif_frames(pictures: u64) -> u64 {
    pictures.div_ceil(FRAMES_PER_GIF_FRAME)
}

/// The picture as palette indices with its own exact palette, or `None` past 256 colours.
fn indexed(rgba: &[u8]) -> Option<gif::Frame<'static>> {
    let mut palette: Vec<[u8; 3]> = Vec::new();
    let mut pixels = Vec::with_capacity(NES_WIDTH * NES_HEIGHT);
    for px in rgba.chunks_exact(4) {
        let rgb = [px[0], px[1], px[2]];
        // Linear search: an NES picture has a few dozen colours, and runs of one colour are the rule.
        let i = match palette.iter().rposition(|c| *c == rgb) {
            Some(i) => i,
            None if palette.len() < 256 => {
                palette.push(rgb);
                palette.len() - 1
            }
            None => return None,
        };
        pixels.push(i as u8);
    }
    let flat: Vec<u8> = palette.concat();
    Some(gif::Frame::from_palette_pixels(NES_WIDTH as u16, NES_HEIGHT as u16, pixels, flat, None))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn picture(seed: u8) -> Vec<u8> {
        (0..NES_WIDTH * NES_HEIGHT)
            .flat_map(|i| {
                let v = ((i / 16) as u8).wrapping_mul(37).wrapping_add(seed) % 40;
                [v * 6, 255 - v * 6, v, 255]
            })
            .collect()
    }

    #[test]
    fn a_clip_decodes_to_every_second_picture_exactly_at_the_game_s_speed() {
        let mut clip = GifClip::new(Vec::new()).unwrap();
        let pictures: Vec<Vec<u8>> = (0..7).map(picture).collect();
        for p in &pictures {
            clip.push(p).unwrap();
        }
        assert_eq!(clip.frames(), gif_frames(7));
        let bytes = clip.finish().unwrap();
        let mut options = gif::DecodeOptions::new();
        options.set_color_output(gif::ColorOutput::RGBA);
        let mut decoder = options.read_info(bytes.as_slice()).unwrap();
        assert_eq!((decoder.width(), decoder.height()), (256, 240));
        let mut got = Vec::new();
        while let Some(f) = decoder.read_next_frame().unwrap() {
            got.push((f.delay, f.buffer.to_vec()));
        }
        assert_eq!(got.len(), 4);
        for (k, (_, rgba)) in got.iter().enumerate() {
            assert!(rgba == &pictures[2 * k], "GIF frame {k} is console picture {}, colour for colour", 2 * k);
        }
        let delays: Vec<u16> = got.iter().map(|g| g.0).collect();
        assert_eq!(delays, [3, 3, 4, 3]);
        assert_eq!(delays[..3].iter().sum::<u16>(), 10, "3 GIF frames = 6 pictures = 1/10 s");
    }

    #[test]
    fn a_picture_with_too_many_colours_is_quantized_and_a_wrong_size_refused() {
        let mut clip = GifClip::new(Vec::new()).unwrap();
        let many: Vec<u8> = (0..NES_WIDTH * NES_HEIGHT).flat_map(|i| [i as u8, (i >> 8) as u8, 7, 255]).collect();
        clip.push(&many).unwrap();
        assert!(clip.push(&[0; 16]).is_err());
        assert_eq!(clip.frames(), 1);
        assert!(!clip.finish().unwrap().is_empty());
    }
}
