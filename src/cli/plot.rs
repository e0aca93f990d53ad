//! SVG plots for `sim --plot` and `train`, with plotters' SVG backend: it needs no system library and
//! no font file (text is left to the SVG viewer), unlike the bitmap backend, whose text needs a font.

use std::path::Path;

use anyhow::anyhow;
use plotters::prelude::*;

use crate::sim::EndlessSummary;

fn err(path: &Path) -> impl Fn(String) -> anyhow::Error + '_ {
    move |e| anyhow!("cannot draw the plot {}: {e}", path.display())
}

/// Draws an endless run: the chain-length histogram (log scale) and the puyos-on-field probability
/// curve with its Gaussian fit.
pub fn endless(s: &EndlessSummary, path: &Path) -> anyhow::Result<()> {
    draw_endless(s, path).map_err(err(path))
}

fn draw_endless(s: &EndlessSummary, path: &Path) -> Result<(), String> {
    let e = |e: &dyn std::fmt::Display| e.to_string();
    let root = SVGBackend::new(path, (1100, 450)).into_drawing_area();
    root.fill(&WHITE).map_err(|x| e(&x))?;
    let title = format!(
        "{}: {} game{} × {} pieces, {} colours, seed {}",
        s.run.ai,
        s.games,
        if s.games == 1 { "" } else { "s" },
        s.run.pieces,
        s.run.colors,
        s.run.seed
    );
    let inner = root.titled(&title, ("sans-serif", 18)).map_err(|x| e(&x))?;
    let (left, right) = inner.split_horizontally(520);

    let chains = &s.chain_histogram;
    let top = chains.iter().copied().max().unwrap_or(1).max(1) as f64;
    let max_len = chains.len().max(2) as f64;
    let mut c = ChartBuilder::on(&left)
        .caption("chains fired by length", ("sans-serif", 18))
        .margin(15)
        .x_label_area_size(40)
        .y_label_area_size(70)
        .build_cartesian_2d(0.5f64..max_len - 0.5, (0.5f64..top * 2.0).log_scale())
        .map_err(|x| e(&x))?;
    c.configure_mesh().x_desc("links").y_desc("chains (log scale)").disable_x_mesh().draw().map_err(|x| e(&x))?;
    c.draw_series(chains.iter().enumerate().skip(1).filter(|(_, n)| **n > 0).map(|(len, &n)| {
        Rectangle::new([(len as f64 - 0.4, 0.5), (len as f64 + 0.4, n as f64)], BLUE.mix(0.7).filled())
    }))
    .map_err(|x| e(&x))?;

    let puyos = &s.puyos_histogram;
    let moves = puyos.iter().sum::<u64>().max(1) as f64;
    let p: Vec<(f64, f64)> = puyos.iter().enumerate().map(|(x, &n)| (x as f64, n as f64 / moves)).collect();
    let p_top = p.iter().map(|q| q.1).fold(0.0, f64::max).max(1e-9) * 1.15;
    let x_max = (puyos.len() as f64).max(10.0);
    let mut c = ChartBuilder::on(&right)
        .caption("puyos on the field after a move", ("sans-serif", 18))
        .margin(15)
        .x_label_area_size(40)
        .y_label_area_size(70)
        .build_cartesian_2d(0f64..x_max, 0f64..p_top)
        .map_err(|x| e(&x))?;
    c.configure_mesh().x_desc("puyos").y_desc("probability").draw().map_err(|x| e(&x))?;
    c.draw_series(LineSeries::new(p, BLUE.stroke_width(2)))
        .map_err(|x| e(&x))?
        .label("measured")
        .legend(|(x, y)| PathElement::new([(x, y), (x + 20, y)], BLUE));
    let g = s.puyos_fit;
    let steps = (x_max * 4.0) as usize;
    c.draw_series(LineSeries::new((0..=steps).map(|i| i as f64 / 4.0).map(|x| (x, g.density(x))), RED))
        .map_err(|x| e(&x))?
        .label(format!("Gaussian: mean {:.1}, sd {:.1}", g.mean, g.sd))
        .legend(|(x, y)| PathElement::new([(x, y), (x + 20, y)], RED));
    c.configure_series_labels().background_style(WHITE.mix(0.8)).border_style(BLACK).draw().map_err(|x| e(&x))?;
    root.present().map_err(|x| e(&x))
}

/// Draws training progress: fitness per generation on top, each weight relative to its start below.
/// `weights[i]` is the series of parameter `names[i]`.
pub fn training(
    path: &Path,
    title: &str,
    fitness: &[(f64, f64)],
    names: &[String],
    weights: &[Vec<(f64, f64)>],
) -> anyhow::Result<()> {
    draw_training(path, title, fitness, names, weights).map_err(err(path))
}

fn draw_training(
    path: &Path,
    title: &str,
    fitness: &[(f64, f64)],
    names: &[String],
    weights: &[Vec<(f64, f64)>],
) -> Result<(), String> {
    let e = |e: &dyn std::fmt::Display| e.to_string();
    let root = SVGBackend::new(path, (1000, 800)).into_drawing_area();
    root.fill(&WHITE).map_err(|x| e(&x))?;
    let (top, bottom) = root.split_vertically(360);
    let gens = fitness.iter().map(|p| p.0).fold(1.0, f64::max);
    let (lo, hi) = fitness.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), p| (a.min(p.1), b.max(p.1)));
    let (lo, hi) = if lo.is_finite() { (lo, hi) } else { (0.0, 1.0) };
    let pad = ((hi - lo) * 0.1).max(1e-6);
    let mut c = ChartBuilder::on(&top)
        .caption(title, ("sans-serif", 18))
        .margin(15)
        .x_label_area_size(35)
        .y_label_area_size(70)
        .build_cartesian_2d(0f64..gens, lo - pad..hi + pad)
        .map_err(|x| e(&x))?;
    c.configure_mesh().x_desc("generation").y_desc("fitness").draw().map_err(|x| e(&x))?;
    c.draw_series(LineSeries::new(fitness.iter().copied(), BLUE.stroke_width(2))).map_err(|x| e(&x))?;

    // Each weight divided by its first value (a weight that starts at 0 is drawn as is), so weights of
    // very different scales share one axis.
    let rel: Vec<Vec<(f64, f64)>> = weights
        .iter()
        .map(|s| {
            let w0 = s.first().map_or(0.0, |p| p.1);
            s.iter().map(|&(g, w)| (g, if w0.abs() > 1e-12 { w / w0 } else { w })).collect()
        })
        .collect();
    let (lo, hi) = rel.iter().flatten().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), p| (a.min(p.1), b.max(p.1)));
    let (lo, hi) = if lo.is_finite() { (lo, hi) } else { (0.0, 2.0) };
    let pad = ((hi - lo) * 0.1).max(1e-3);
    let mut c = ChartBuilder::on(&bottom)
        .caption("weights relative to their start", ("sans-serif", 16))
        .margin(15)
        .x_label_area_size(35)
        .y_label_area_size(70)
        .build_cartesian_2d(0f64..gens, lo - pad..hi + pad)
        .map_err(|x| e(&x))?;
    c.configure_mesh().x_desc("generation").y_desc("weight / start").draw().map_err(|x| e(&x))?;
    for (i, (name, s)) in names.iter().zip(rel).enumerate() {
        let color = Palette99::pick(i).to_rgba();
        c.draw_series(LineSeries::new(s, color.stroke_width(2)))
            .map_err(|x| e(&x))?
            .label(name.clone())
            .legend(move |(x, y)| PathElement::new([(x, y), (x + 20, y)], color));
    }
    c.configure_series_labels().background_style(WHITE.mix(0.8)).border_style(BLACK).draw().map_err(|x| e(&x))?;
    root.present().map_err(|x| e(&x))
}
