//! PNG screenshots of the composed 256×240 frame (at 1x).

use anyhow::Context as _;
use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

/// Writes an RGBA image (`width` × `height`) as an RGB PNG at `path`,
/// creating the parent directory if needed. Missing bytes (a short `rgba`)
/// are written as black.
pub fn write_png(path: &Path, rgba: &[u8], width: usize, height: usize) -> anyhow::Result<()> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).with_context(|| format!("creating screenshot directory {}", dir.display()))?;
    }
    let mut rgb = vec![0u8; width * height * 3];
    for (out, px) in rgb.chunks_exact_mut(3).zip(rgba.chunks_exact(4)) {
        out.copy_from_slice(&px[..3]);
    }
    let file = File::create(path).with_context(|| format!("creating {}", path.display()))?;
    let mut enc = png::Encoder::new(BufWriter::new(file), width as u32, height as u32);
    enc.set_color(png::ColorType::Rgb);
    enc.set_depth(png::BitDepth::Eight);
    let mut writer = enc.write_header().with_context(|| format!("writing {}", path.display()))?;
    writer.write_image_data(&rgb).with_context(|| format!("writing {}", path.display()))?;
    writer.finish().with_context(|| format!("writing {}", path.display()))?;
    Ok(())
}

/// A new file name in `dir`: `puyobot-<unix seconds>-<n>.png`, with the
/// smallest `n` (from `counter` upwards) that does not exist yet. Advances
/// `counter` past the chosen number.
pub fn next_screenshot_path(dir: &Path, counter: &mut u32) -> PathBuf {
    let secs = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0);
    loop {
        let path = dir.join(format!("puyobot-{secs}-{:03}.png", *counter));
        *counter = counter.wrapping_add(1);
        if !path.exists() {
            return path;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn png_round_trip() {
        let dir = std::env::temp_dir().join(format!("puyobot-shot-test-{}", std::process::id()));
        let path = dir.join("sub").join("a.png");
        let mut rgba = vec![0u8; 4 * 3 * 4];
        rgba[4..8].copy_from_slice(&[1, 2, 3, 255]);
        write_png(&path, &rgba, 4, 3).unwrap();
        let decoder = png::Decoder::new(std::io::BufReader::new(File::open(&path).unwrap()));
        let mut reader = decoder.read_info().unwrap();
        let mut buf = vec![0; reader.output_buffer_size().unwrap()];
        let info = reader.next_frame(&mut buf).unwrap();
        assert_eq!((info.width, info.height), (4, 3));
        assert_eq!(&buf[3..6], &[1, 2, 3]);
        let mut n = 0;
        let p1 = next_screenshot_path(&dir, &mut n);
        std::fs::write(&p1, b"x").unwrap();
        let p2 = next_screenshot_path(&dir, &mut n);
        assert_ne!(p1, p2);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
