//! Text on PNG plots, drawn with ab_glyph by [`Glyphs`], a wrapper of the
//! bitmap backend: plotters 0.3's own ab_glyph drawing puts each glyph at the
//! pen without its left side bearing, which turned `13:13:04:31` into
//! `13: 13: 04: 31`. Here each glyph sits at the pen plus its bearing, the
//! text box is the font's advance widths by its ascent and descent, and
//! anchors and rotations follow plotters' own rules.

use ab_glyph::{Font, FontRef, PxScale, ScaleFont};
use plotters::backend::DrawingBackend;
use plotters_backend::text_anchor::{HPos, VPos};
use plotters_backend::{
    BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingErrorKind,
};

/// A drawing backend whose text is drawn by ab_glyph in one font.
pub struct Glyphs<B> {
    inner: B,
    font: FontRef<'static>,
}

impl<B: DrawingBackend> Glyphs<B> {
    /// `inner` with its text drawn in `font` (a TrueType or OpenType font's bytes).
    pub fn new(inner: B, font: &'static [u8]) -> Result<Self, ab_glyph::InvalidFont> {
        Ok(Glyphs {
            inner,
            font: FontRef::try_from_slice(font)?,
        })
    }

    /// Width and height of `text` at `size` pixels.
    fn measure(&self, text: &str, size: f64) -> (i32, i32) {
        let font = self.font.as_scaled(PxScale::from(size as f32));
        let mut width = 0.0f32;
        let mut prev = None;
        for c in text.chars() {
            let id = font.glyph_id(c);
            if let Some(p) = prev {
                width += font.kern(p, id);
            }
            width += font.h_advance(id);
            prev = Some(id);
        }
        (width.ceil() as i32, font.height().ceil() as i32)
    }
}

impl<B: DrawingBackend> DrawingBackend for Glyphs<B> {
    type ErrorType = B::ErrorType;

    fn get_size(&self) -> (u32, u32) {
        self.inner.get_size()
    }

    fn ensure_prepared(&mut self) -> Result<(), DrawingErrorKind<B::ErrorType>> {
        self.inner.ensure_prepared()
    }

    fn present(&mut self) -> Result<(), DrawingErrorKind<B::ErrorType>> {
        self.inner.present()
    }

    fn draw_pixel(
        &mut self,
        point: BackendCoord,
        color: BackendColor,
    ) -> Result<(), DrawingErrorKind<B::ErrorType>> {
        self.inner.draw_pixel(point, color)
    }

    fn draw_line<S: BackendStyle>(
        &mut self,
        from: BackendCoord,
        to: BackendCoord,
        style: &S,
    ) -> Result<(), DrawingErrorKind<B::ErrorType>> {
        self.inner.draw_line(from, to, style)
    }

    fn draw_rect<S: BackendStyle>(
        &mut self,
        upper_left: BackendCoord,
        bottom_right: BackendCoord,
        style: &S,
        fill: bool,
    ) -> Result<(), DrawingErrorKind<B::ErrorType>> {
        self.inner.draw_rect(upper_left, bottom_right, style, fill)
    }

    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        style: &S,
    ) -> Result<(), DrawingErrorKind<B::ErrorType>> {
        self.inner.draw_path(path, style)
    }

    fn draw_circle<S: BackendStyle>(
        &mut self,
        center: BackendCoord,
        radius: u32,
        style: &S,
        fill: bool,
    ) -> Result<(), DrawingErrorKind<B::ErrorType>> {
        self.inner.draw_circle(center, radius, style, fill)
    }

    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        vert: I,
        style: &S,
    ) -> Result<(), DrawingErrorKind<B::ErrorType>> {
        self.inner.fill_polygon(vert, style)
    }

    fn blit_bitmap(
        &mut self,
        pos: BackendCoord,
        size: (u32, u32),
        src: &[u8],
    ) -> Result<(), DrawingErrorKind<B::ErrorType>> {
        self.inner.blit_bitmap(pos, size, src)
    }

    fn estimate_text_size<S: BackendTextStyle>(
        &self,
        text: &str,
        style: &S,
    ) -> Result<(u32, u32), DrawingErrorKind<B::ErrorType>> {
        let (w, h) = self.measure(text, style.size());
        Ok((w.max(0) as u32, h.max(0) as u32))
    }

    fn draw_text<S: BackendTextStyle>(
        &mut self,
        text: &str,
        style: &S,
        pos: BackendCoord,
    ) -> Result<(), DrawingErrorKind<B::ErrorType>> {
        let color = style.color();
        if color.alpha == 0.0 {
            return Ok(());
        }
        let (width, height) = self.measure(text, style.size());
        let dx = match style.anchor().h_pos {
            HPos::Left => 0,
            HPos::Right => -width,
            HPos::Center => -width / 2,
        };
        let dy = match style.anchor().v_pos {
            VPos::Top => 0,
            VPos::Center => -height / 2,
            VPos::Bottom => -height,
        };
        let transform = style.transform();
        let (w, h) = self.get_size();
        let scale = PxScale::from(style.size() as f32);
        let font = self.font.as_scaled(scale);
        let mut pixels = Vec::new();
        let mut pen = 0.0f32;
        let mut prev = None;
        for c in text.chars() {
            let id = font.glyph_id(c);
            if let Some(p) = prev {
                pen += font.kern(p, id);
            }
            let glyph = id.with_scale_and_position(scale, ab_glyph::point(pen, font.ascent()));
            if let Some(outline) = self.font.outline_glyph(glyph) {
                let bounds = outline.px_bounds();
                outline.draw(|x, y, coverage| {
                    let gx = bounds.min.x as i32 + x as i32 + dx;
                    let gy = bounds.min.y as i32 + y as i32 + dy;
                    let (tx, ty) = transform.transform(gx, gy);
                    let (px, py) = (pos.0 + tx, pos.1 + ty);
                    if coverage > 0.0 && px >= 0 && py >= 0 && px < w as i32 && py < h as i32 {
                        pixels.push(((px, py), coverage));
                    }
                });
            }
            pen += font.h_advance(id);
            prev = Some(id);
        }
        for (point, coverage) in pixels {
            let shade = BackendColor {
                alpha: color.alpha * f64::from(coverage.min(1.0)),
                rgb: color.rgb,
            };
            self.inner.draw_pixel(point, shade)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use plotters::prelude::*;

    /// The columns of a white 200x40 picture that hold ink.
    fn inked_columns(text: &str) -> Vec<bool> {
        let mut rgb = vec![255u8; 200 * 40 * 3];
        {
            let bitmap = BitMapBackend::with_buffer(&mut rgb, (200, 40));
            let backend = Glyphs::new(bitmap, epaint_default_fonts::HACK_REGULAR).unwrap();
            let root = backend.into_drawing_area();
            root.draw(&Text::new(text, (0, 0), ("sans-serif", 20)))
                .unwrap();
            root.present().unwrap();
        }
        (0..200)
            .map(|x| (0..40).any(|y| rgb[(y * 200 + x) * 3] < 128))
            .collect()
    }

    #[test]
    fn a_colon_sits_in_the_middle_of_its_cell() {
        // Hack is monospaced: in "1:1" the colon's ink is as far from the
        // first 1's ink as from the second's.
        let ink = inked_columns("1:1");
        let runs: Vec<(usize, usize)> =
            ink.iter()
                .enumerate()
                .fold(Vec::new(), |mut runs: Vec<(usize, usize)>, (x, &on)| {
                    match (on, runs.last_mut()) {
                        (true, Some(run)) if run.1 + 1 == x => run.1 = x,
                        (true, _) => runs.push((x, x)),
                        _ => {}
                    }
                    runs
                });
        assert_eq!(runs.len(), 3, "{runs:?}");
        let before = runs[1].0 - runs[0].1;
        let after = runs[2].0 - runs[1].1;
        assert!(before.abs_diff(after) <= 1, "{runs:?}");
    }
}
