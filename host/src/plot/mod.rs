//! `llv plot` and `llv info --plot`: chosen curves of a take over time, drawn
//! with plotters (PNG through its bitmap backend, SVG through its SVG
//! backend) in a font that ships inside the binary (Hack, through the
//! `epaint_default_fonts` crate), so no system font is needed.
//!
//! The take is read twice, frame by frame: once for each shape's spread (the
//! default shapes are the ten whose values vary most: the largest standard
//! deviation), the cadence and the spans to shade, once for the values, kept
//! as the minimum, maximum and mean per pixel column, so memory stays flat on
//! any take. Each curve is its envelope (a translucent band from the minimum
//! to the maximum of each column) under a line through the column means: a
//! take of a million frames, hundreds per column, still shows its curves.
//! PNG text is drawn by [`text`] (plotters' own puts glyphs off their cells). Shaded: gaps (intervals over 1.5 cadence intervals, see
//! [`crate::timing`]) in grey, no-face spans (frames whose 52 ARKit
//! coefficients are all exactly 0, what a lost face gives) in red. The time
//! axis is labelled with the take's timecode.

use std::path::{Path, PathBuf};
use std::sync::Once;

use anyhow::{anyhow, bail, Context, Result};
use llv_core::blendshape::{COUNT, FIRST_ROTATION, NAMES};
use llv_core::time::{FrameRate, FrameTime};
use plotters::coord::Shift;
use plotters::prelude::*;

use crate::output;
use crate::recording::{self, ReadOptions};
use crate::timing::Cadence;

pub mod text;

/// What to draw and how big.
#[derive(Clone, Debug)]
pub struct PlotOptions {
    /// The shapes to draw; `None`: the `count` most active.
    pub shapes: Option<Vec<usize>>,
    /// How many shapes to draw by default.
    pub count: usize,
    /// Picture width in pixels.
    pub width: u32,
    /// Picture height in pixels.
    pub height: u32,
}

impl Default for PlotOptions {
    fn default() -> Self {
        PlotOptions {
            shapes: None,
            count: 10,
            width: 1600,
            height: 900,
        }
    }
}

/// `<take>.png` beside the take.
pub fn default_name(input: &Path) -> PathBuf {
    let stem = input
        .file_stem()
        .map_or("take".into(), |s| s.to_string_lossy().into_owned());
    input.with_file_name(format!("{stem}.png"))
}

/// What the first pass learns.
struct Survey {
    first: FrameTime,
    times: Vec<f64>,
    /// Per shape: count, mean, sum of squared deviations (Welford).
    spread: [(u64, f64, f64); COUNT],
    no_face: Vec<(f64, f64)>,
}

fn survey(input: &Path, read: &ReadOptions) -> Result<Survey> {
    let mut frames = recording::open(input, read)?;
    let mut survey = Survey {
        first: FrameTime {
            frame_number: 0,
            subframe: 0.0,
            rate: FrameRate::FPS_60,
        },
        times: Vec::new(),
        spread: [(0, 0.0, 0.0); COUNT],
        no_face: Vec::new(),
    };
    let mut open_no_face: Option<f64> = None;
    let mut last_t = 0.0;
    while let Some(chunk) = frames.next_chunk()? {
        for packet in chunk.frames() {
            let time = packet.time();
            if survey.times.is_empty() {
                survey.first = time;
            }
            let t = time.seconds_since(&survey.first).unwrap_or(last_t);
            survey.times.push(t);
            last_t = t;
            let mut face = false;
            for (i, v) in packet.blendshapes().enumerate() {
                if i < FIRST_ROTATION && v != 0.0 {
                    face = true;
                }
                if v.is_finite() {
                    let (n, mean, m2) = &mut survey.spread[i];
                    *n += 1;
                    let d = f64::from(v) - *mean;
                    *mean += d / *n as f64;
                    *m2 += d * (f64::from(v) - *mean);
                }
            }
            match (face, open_no_face) {
                (false, None) => open_no_face = Some(t),
                (true, Some(start)) => {
                    survey.no_face.push((start, t));
                    open_no_face = None;
                }
                _ => {}
            }
        }
    }
    if let Some(start) = open_no_face {
        survey.no_face.push((start, last_t));
    }
    frames.print_warnings();
    if survey.times.is_empty() {
        bail!("{}: no frames to plot", input.display());
    }
    Ok(survey)
}

/// The `count` shapes whose values vary most, most active first.
fn most_active(spread: &[(u64, f64, f64); COUNT], count: usize) -> Vec<usize> {
    let mut order: Vec<usize> = (0..COUNT).collect();
    let deviation = |i: usize| {
        let (n, _, m2) = spread[i];
        if n > 1 {
            (m2 / (n - 1) as f64).sqrt()
        } else {
            0.0
        }
    };
    order.sort_by(|a, b| deviation(*b).total_cmp(&deviation(*a)).then(a.cmp(b)));
    order.truncate(count);
    order
}

/// The values of one curve that fall in one pixel column.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Cell {
    lo: f32,
    hi: f32,
    sum: f64,
    count: u32,
}

impl Cell {
    fn mean(&self) -> f64 {
        self.sum / f64::from(self.count.max(1))
    }
}

/// Per shape, per pixel column: the values that fall in it.
type Columns = Vec<Vec<Option<Cell>>>;

fn columns(
    input: &Path,
    read: &ReadOptions,
    shapes: &[usize],
    first: &FrameTime,
    span: f64,
    width: usize,
) -> Result<Columns> {
    let mut out: Columns = vec![vec![None; width]; shapes.len()];
    let mut frames = recording::open(input, read)?;
    while let Some(chunk) = frames.next_chunk()? {
        for packet in chunk.frames() {
            let Some(t) = packet.time().seconds_since(first) else {
                continue;
            };
            let col = if span > 0.0 {
                ((t / span) * (width - 1) as f64)
                    .round()
                    .clamp(0.0, (width - 1) as f64) as usize
            } else {
                0
            };
            for (slot, &shape) in out.iter_mut().zip(shapes) {
                let Some(v) = packet.blendshape(shape).filter(|v| v.is_finite()) else {
                    continue;
                };
                let cell = &mut slot[col];
                let c = cell.get_or_insert(Cell {
                    lo: v,
                    hi: v,
                    sum: 0.0,
                    count: 0,
                });
                c.lo = c.lo.min(v);
                c.hi = c.hi.max(v);
                c.sum += f64::from(v);
                c.count = c.count.saturating_add(1);
            }
        }
    }
    Ok(out)
}

/// What a picture is written as: the name's extension says, `.png` or `.svg`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A PNG picture.
    Png,
    /// An SVG drawing.
    Svg,
}

impl Kind {
    fn of(out: &Path) -> Result<Kind> {
        let ext = out
            .extension()
            .map(|e| e.to_string_lossy().to_ascii_lowercase());
        match ext.as_deref() {
            Some("png") => Ok(Kind::Png),
            Some("svg") => Ok(Kind::Svg),
            _ => bail!(
                "{}: a plot is written as PNG or SVG: name it .png or .svg",
                out.display()
            ),
        }
    }
}

/// The checks before plotting `input` into `out`, which a command that
/// plots after other work runs first: `input` is a file, `out` is named
/// `.png` or `.svg`, is not the input and exists only with `force`.
pub fn check(input: &Path, out: &Path, force: bool) -> Result<Kind> {
    if recording::is_stdio(input) {
        bail!("plot reads the take twice: name a file, not standard input");
    }
    let kind = Kind::of(out)?;
    output::check(out, &[input], force)?;
    Ok(kind)
}

/// Draws the curves of `input` into `out` (PNG or SVG, by its name's
/// extension; any other name is refused), written atomically, never over the
/// take and replacing a file only with `force`.
pub fn plot_file(
    input: &Path,
    read: &ReadOptions,
    out: &Path,
    options: &PlotOptions,
    force: bool,
) -> Result<()> {
    let kind = check(input, out, force)?;
    register_font()?;
    let survey = survey(input, read)?;
    let shapes = match &options.shapes {
        Some(list) if !list.is_empty() => list.clone(),
        _ => most_active(&survey.spread, options.count),
    };
    let span = survey.times.iter().copied().fold(0.0, f64::max);
    let width = options.width.max(200) as usize;
    let cols = columns(input, read, &shapes, &survey.first, span, width)?;
    let gaps: Vec<(f64, f64)> = Cadence::of(&survey.times)
        .map(|c| c.gaps.iter().map(|g| (g.start, g.end)).collect())
        .unwrap_or_default();
    let picture = Picture {
        title: input
            .file_name()
            .map_or(String::new(), |n| n.to_string_lossy().into_owned()),
        first: survey.first,
        span,
        shapes,
        cols,
        gaps,
        no_face: survey.no_face,
    };
    let size = (options.width.max(200), options.height.max(150));
    if kind == Kind::Svg {
        let mut text = String::new();
        {
            let root = SVGBackend::with_string(&mut text, size).into_drawing_area();
            picture.draw(&root)?;
            root.present().map_err(|e| anyhow!("drawing: {e}"))?;
        }
        output::write_file(out, force, |w| w.write_all(text.as_bytes()))
    } else {
        let mut rgb = vec![0u8; size.0 as usize * size.1 as usize * 3];
        {
            let bitmap = BitMapBackend::with_buffer(&mut rgb, size);
            let root = text::Glyphs::new(bitmap, epaint_default_fonts::HACK_REGULAR)
                .map_err(|_| anyhow!("the bundled font does not load"))?
                .into_drawing_area();
            picture.draw(&root)?;
            root.present().map_err(|e| anyhow!("drawing: {e}"))?;
        }
        let image = image::RgbImage::from_raw(size.0, size.1, rgb)
            .ok_or_else(|| anyhow!("drawing: the picture has the wrong size"))?;
        let mut png = Vec::new();
        image
            .write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png)
            .context("encoding the PNG")?;
        output::write_file(out, force, |w| w.write_all(&png))
    }
}

/// The bundled font, registered once as plotters' sans-serif.
fn register_font() -> Result<()> {
    static ONCE: Once = Once::new();
    let mut result = Ok(());
    ONCE.call_once(|| {
        result = plotters::style::register_font(
            "sans-serif",
            FontStyle::Normal,
            epaint_default_fonts::HACK_REGULAR,
        )
        .map_err(|_| anyhow!("the bundled font does not load"));
    });
    result
}

/// Everything the picture shows.
struct Picture {
    title: String,
    first: FrameTime,
    span: f64,
    shapes: Vec<usize>,
    cols: Columns,
    gaps: Vec<(f64, f64)>,
    no_face: Vec<(f64, f64)>,
}

impl Picture {
    /// The timecode `t` seconds after the first frame, at the take's rate.
    fn timecode(&self, t: f64) -> String {
        let fps = self.first.rate.fps().unwrap_or(60.0);
        let frames = f64::from(self.first.frame_number) + f64::from(self.first.subframe) + t * fps;
        let time = FrameTime {
            frame_number: frames.floor() as i32,
            subframe: 0.0,
            rate: self.first.rate,
        };
        time.timecode()
            .map_or(format!("{t:.2} s"), |tc| tc.to_string()[..11].to_string())
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<()>
    where
        DB::ErrorType: 'static,
    {
        let fail = |e: DrawingAreaErrorKind<DB::ErrorType>| anyhow!("drawing: {e}");
        root.fill(&WHITE).map_err(fail)?;
        let (mut lo, mut hi) = (f32::INFINITY, f32::NEG_INFINITY);
        for cell in self.cols.iter().flatten().flatten() {
            lo = lo.min(cell.lo);
            hi = hi.max(cell.hi);
        }
        if !(lo.is_finite() && hi.is_finite()) {
            (lo, hi) = (0.0, 1.0);
        }
        let pad = ((hi - lo) * 0.05).max(0.01);
        let (y0, y1) = (f64::from(lo - pad), f64::from(hi + pad));
        let x1 = if self.span > 0.0 { self.span } else { 1.0 };
        let mut chart = ChartBuilder::on(root)
            .caption(&self.title, ("sans-serif", 24))
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(60)
            .build_cartesian_2d(0.0..x1, y0..y1)
            .map_err(fail)?;
        let label = |t: &f64| self.timecode(*t);
        chart
            .configure_mesh()
            .x_desc(format!("timecode ({} fps)", self.first.rate))
            .y_desc("value")
            .x_labels(8)
            .x_label_formatter(&label)
            .y_label_formatter(&|v| tick(*v))
            .label_style(("sans-serif", 14))
            .draw()
            .map_err(fail)?;
        // A span is at least two pixels wide, so a short gap on a long take shows.
        let least = x1 * 2.0 / f64::from(root.dim_in_pixel().0.max(1));
        let widen = |(a, b): (f64, f64)| (a, b.max(a + least));
        let grey = RGBColor(160, 160, 160).mix(0.35);
        let red = RGBColor(220, 60, 60).mix(0.2);
        for (spans, color, name) in [(&self.gaps, grey, "gap"), (&self.no_face, red, "no face")] {
            if spans.is_empty() {
                continue;
            }
            chart
                .draw_series(
                    spans
                        .iter()
                        .map(|&span| widen(span))
                        .map(|(a, b)| Rectangle::new([(a, y0), (b, y1)], color.filled())),
                )
                .map_err(fail)?
                .label(name)
                .legend(move |(x, y)| {
                    Rectangle::new([(x, y - 5), (x + 12, y + 5)], color.filled())
                });
        }
        let width = self.cols.first().map_or(1, Vec::len);
        for (n, (&shape, cols)) in self.shapes.iter().zip(&self.cols).enumerate() {
            let color = Palette99::pick(n).to_rgba();
            let x = |i: usize| self.span * i as f64 / (width.max(2) - 1) as f64;
            let cells: Vec<(f64, Cell)> = cols
                .iter()
                .enumerate()
                .filter_map(|(i, cell)| cell.map(|c| (x(i), c)))
                .collect();
            // The envelope: along the maxima, back along the minima.
            if cells.iter().any(|(_, c)| c.hi > c.lo) {
                let band = cells
                    .iter()
                    .map(|(t, c)| (*t, f64::from(c.hi)))
                    .chain(cells.iter().rev().map(|(t, c)| (*t, f64::from(c.lo))));
                chart
                    .draw_series(std::iter::once(Polygon::new(
                        band.collect::<Vec<_>>(),
                        color.mix(0.25).filled(),
                    )))
                    .map_err(fail)?;
            }
            // The means, 1 pixel wide: plotters joins wider lines with
            // miters, which spike where a line turns back on itself.
            let points = cells.iter().map(|(t, c)| (*t, c.mean()));
            chart
                .draw_series(LineSeries::new(points, color.stroke_width(1)))
                .map_err(fail)?
                .label(NAMES[shape])
                .legend(move |(x, y)| {
                    PathElement::new([(x, y), (x + 16, y)], color.stroke_width(2))
                });
        }
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .label_font(("sans-serif", 14))
            .position(SeriesLabelPosition::UpperRight)
            .draw()
            .map_err(fail)?;
        Ok(())
    }
}

/// A value-axis label: no more digits than the ticks need, never `-0`.
fn tick(v: f64) -> String {
    let v = (v * 1e6).round() / 1e6;
    // -0.0 == 0.0: a tick at zero is written 0 whatever its sign.
    let v = if v == 0.0 { 0.0 } else { v };
    format!("{v}")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A curve that spans 0 to 1 in every pixel column (a long take, many
    /// frames to a column) draws as a light band under its mean line, not
    /// as a block of its own colour.
    #[test]
    fn a_full_envelope_is_a_light_band_under_the_mean() {
        let (w, h) = (800u32, 400u32);
        let frames = 500;
        let cell = Cell {
            lo: 0.0,
            hi: 1.0,
            sum: 0.5 * f64::from(frames),
            count: frames,
        };
        let picture = Picture {
            title: "long".into(),
            first: FrameTime {
                frame_number: 0,
                subframe: 0.0,
                rate: FrameRate::FPS_60,
            },
            span: 3600.0,
            shapes: vec![17],
            cols: vec![vec![Some(cell); w as usize]],
            gaps: Vec::new(),
            no_face: Vec::new(),
        };
        register_font().unwrap();
        let mut rgb = vec![0u8; (w * h * 3) as usize];
        {
            let bitmap = BitMapBackend::with_buffer(&mut rgb, (w, h));
            let root = text::Glyphs::new(bitmap, epaint_default_fonts::HACK_REGULAR)
                .unwrap()
                .into_drawing_area();
            picture.draw(&root).unwrap();
            root.present().unwrap();
        }
        let color = Palette99::pick(0).to_rgba().rgb();
        let pixels: Vec<(u8, u8, u8)> = rgb.chunks(3).map(|p| (p[0], p[1], p[2])).collect();
        let full = pixels.iter().filter(|p| **p == color).count();
        let tinted = pixels
            .iter()
            .filter(|(r, g, b)| r.abs_diff(*g) > 20 || g.abs_diff(*b) > 20)
            .count();
        assert!(
            full < pixels.len() / 20,
            "{full} of {} in the curve's colour",
            pixels.len()
        );
        assert!(
            tinted > pixels.len() / 2,
            "{tinted} of {} tinted",
            pixels.len()
        );
    }

    #[test]
    fn ticks_have_no_negative_zero_and_plots_have_png_or_svg_names() {
        assert_eq!(tick(-0.0), "0");
        assert_eq!(tick(-1e-17), "0");
        assert_eq!(tick(0.30000000000000004), "0.3");
        assert_eq!(tick(-0.25), "-0.25");
        assert_eq!(Kind::of(Path::new("a.PNG")).unwrap(), Kind::Png);
        assert_eq!(Kind::of(Path::new("a.svg")).unwrap(), Kind::Svg);
        let e = Kind::of(Path::new("t.jpg")).unwrap_err().to_string();
        assert_eq!(
            e,
            "t.jpg: a plot is written as PNG or SVG: name it .png or .svg"
        );
        assert!(Kind::of(Path::new("plot")).is_err());
    }

    #[test]
    fn most_active_orders_by_spread() {
        let mut spread = [(10, 0.0, 0.0); COUNT];
        spread[17] = (10, 0.5, 9.0);
        spread[3] = (10, 0.5, 4.0);
        assert_eq!(most_active(&spread, 3), [17, 3, 0]);
    }
}
