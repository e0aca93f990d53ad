//! Integer nearest-neighbour scaling of the 256×240 frame into the window,
//! centred with black borders (letterboxing) when the window is larger.

/// Where the scaled frame sits inside the window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Layout {
    /// Integer scale factor (at least 1).
    pub scale: usize,
    /// X of the frame's left edge in the window; negative if the window is
    /// narrower than the frame at scale 1 (then the frame is cropped).
    pub x: i64,
    /// Y of the frame's top edge in the window (negative as for `x`).
    pub y: i64,
    /// Width of the scaled frame in window pixels.
    pub width: usize,
    /// Height of the scaled frame in window pixels.
    pub height: usize,
}

/// Picks the largest integer scale at which a `src_w` × `src_h` frame fits a
/// `win_w` × `win_h` window (at least 1) and centres it.
pub fn layout(win_w: usize, win_h: usize, src_w: usize, src_h: usize) -> Layout {
    let scale = if src_w == 0 || src_h == 0 { 1 } else { (win_w / src_w).min(win_h / src_h).max(1) };
    let (width, height) = (src_w * scale, src_h * scale);
    Layout { scale, x: (win_w as i64 - width as i64) / 2, y: (win_h as i64 - height as i64) / 2, width, height }
}

/// Packs an RGB pixel into softbuffer's `0x00RRGGBB` format.
pub fn pack_rgb(r: u8, g: u8, b: u8) -> u32 {
    (u32::from(r) << 16) | (u32::from(g) << 8) | u32::from(b)
}

/// Blits the RGBA frame `src` (`src_w` × `src_h`) into the `0x00RRGGBB`
/// buffer `dst` (`dst_w` × `dst_h`) at `lay`, replicating each source pixel
/// into a `scale` × `scale` block; everything outside the frame is black.
/// Missing source bytes (a short `src`) show as black.
pub fn blit_scaled(src: &[u8], src_w: usize, src_h: usize, dst: &mut [u32], dst_w: usize, dst_h: usize, lay: Layout) {
    let dst_len = dst.len().min(dst_w * dst_h);
    let dst = &mut dst[..dst_len];
    dst.fill(0);
    if dst_w == 0 || lay.scale == 0 {
        return;
    }
    let scale = lay.scale as i64;
    // Visible column range of the window covered by the frame.
    let x0 = lay.x.max(0);
    let x1 = (lay.x + (src_w as i64) * scale).min(dst_w as i64);
    if x1 <= x0 {
        return;
    }
    // One scaled source row, built once per source row and copied `scale` times.
    let mut row = vec![0u32; (x1 - x0) as usize];
    let mut built_for: Option<usize> = None;
    for wy in 0..dst_h as i64 {
        let fy = wy - lay.y;
        if fy < 0 {
            continue;
        }
        let sy = (fy / scale) as usize;
        if sy >= src_h {
            break;
        }
        if built_for != Some(sy) {
            for (i, out) in row.iter_mut().enumerate() {
                let sx = ((x0 + i as i64 - lay.x) / scale) as usize;
                let k = (sy * src_w + sx) * 4;
                *out = match src.get(k..k + 3) {
                    Some(p) => pack_rgb(p[0], p[1], p[2]),
                    None => 0,
                };
            }
            built_for = Some(sy);
        }
        let start = wy as usize * dst_w + x0 as usize;
        if let Some(out) = dst.get_mut(start..start + row.len()) {
            out.copy_from_slice(&row);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_exact_fit_and_letterbox() {
        assert_eq!(layout(768, 720, 256, 240), Layout { scale: 3, x: 0, y: 0, width: 768, height: 720 });
        // Wide window: height limits the scale to 2, centred horizontally.
        let l = layout(1000, 500, 256, 240);
        assert_eq!((l.scale, l.width, l.height), (2, 512, 480));
        assert_eq!((l.x, l.y), (244, 10));
        // Tall window.
        let l = layout(600, 1000, 256, 240);
        assert_eq!((l.scale, l.x, l.y), (2, 44, 260));
        // Too small: scale 1, cropped symmetrically.
        let l = layout(200, 100, 256, 240);
        assert_eq!((l.scale, l.x, l.y), (1, -28, -70));
    }

    #[test]
    fn blit_replicates_pixels_and_borders_are_black() {
        // 2×2 source: red, green / blue, white.
        let src = [
            255, 0, 0, 255, 0, 255, 0, 255, //
            0, 0, 255, 255, 255, 255, 255, 255,
        ];
        let (w, h) = (8, 6);
        let lay = layout(w, h, 2, 2);
        assert_eq!((lay.scale, lay.x, lay.y), (3, 1, 0));
        let mut dst = vec![0xdead_beef; w * h];
        blit_scaled(&src, 2, 2, &mut dst, w, h, lay);
        let at = |x: usize, y: usize| dst[y * w + x];
        for y in 0..6 {
            assert_eq!(at(0, y), 0, "left border");
            assert_eq!(at(7, y), 0, "right border");
        }
        for y in 0..3 {
            for x in 1..4 {
                assert_eq!(at(x, y), 0xff0000);
            }
            for x in 4..7 {
                assert_eq!(at(x, y), 0x00ff00);
            }
        }
        for y in 3..6 {
            for x in 1..4 {
                assert_eq!(at(x, y), 0x0000ff);
            }
            for x in 4..7 {
                assert_eq!(at(x, y), 0xffffff);
            }
        }
    }

    #[test]
    fn blit_full_nes_frame_size_and_crop() {
        let mut src = vec![0u8; 256 * 240 * 4];
        // Mark the bottom-right source pixel.
        let k = (239 * 256 + 255) * 4;
        src[k..k + 4].copy_from_slice(&[1, 2, 3, 255]);
        let (w, h) = (800, 740);
        let lay = layout(w, h, 256, 240);
        let mut dst = vec![0u32; w * h];
        blit_scaled(&src, 256, 240, &mut dst, w, h, lay);
        assert_eq!((lay.scale, lay.x, lay.y), (3, 16, 10));
        let last_x = 16 + 768 - 1;
        let last_y = 10 + 720 - 1;
        assert_eq!(dst[last_y * w + last_x], 0x010203);
        assert_eq!(dst[(last_y - 2) * w + last_x - 2], 0x010203);
        assert_eq!(dst[(last_y - 3) * w + last_x], 0);
        assert_eq!(dst[last_y * w + last_x + 1], 0);
        // Cropped (window smaller than the frame) and short source: no panic.
        let lay = layout(100, 50, 256, 240);
        let mut small = vec![0u32; 100 * 50];
        blit_scaled(&src, 256, 240, &mut small, 100, 50, lay);
        blit_scaled(&src[..100], 256, 240, &mut small, 100, 50, lay);
    }
}
