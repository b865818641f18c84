//! The one-euro filter (Casiez, Roussel and Vogel, CHI 2012): a low-pass
//! filter whose cutoff rises with the speed of the value, so a held expression
//! loses its jitter and a fast one keeps its snap. Time steps come from the
//! frame times, so a 30 Hz or uneven take is filtered as it was captured.
//!
//! For each value: `dx = (x - x_prev) / dt`, smoothed with cutoff
//! `d_cutoff`; then `cutoff = min_cutoff + beta * |dx|` and
//! `x' = x_prev' + a (x - x_prev')` with `a = 1 / (1 + 1 / (2 pi cutoff dt))`.
//! The first frame, and a frame whose time does not move forward, pass unchanged.

use std::f64::consts::PI;

use anyhow::{bail, Result};
use llv_core::blendshape::{COUNT, NAMES};
use llv_core::time::FrameTime;

use super::{Frame, Out, Stage};

/// The filter's parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Params {
    /// Cutoff (Hz) of a value at rest: lower removes more jitter.
    pub min_cutoff: f64,
    /// How fast the cutoff rises with speed: higher lags less on fast moves.
    pub beta: f64,
    /// Cutoff (Hz) of the speed estimate.
    pub d_cutoff: f64,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            min_cutoff: 1.0,
            beta: 0.3,
            d_cutoff: 1.0,
        }
    }
}

fn alpha(cutoff: f64, dt: f64) -> f64 {
    1.0 / (1.0 + 1.0 / (2.0 * PI * cutoff * dt))
}

/// The smoothing stage, on the shapes chosen.
pub struct Smooth {
    params: Params,
    shapes: [bool; COUNT],
    /// Per shape: the last raw value, the last filtered one, the filtered speed.
    state: [(f64, f64, f64); COUNT],
    prev: Option<FrameTime>,
    frames: u64,
    changed: u64,
}

impl Smooth {
    /// Smooths `shapes` (every shape when empty).
    pub fn new(params: Params, shapes: &[usize]) -> Result<Self> {
        if !(params.min_cutoff > 0.0 && params.d_cutoff > 0.0 && params.beta >= 0.0) {
            bail!("smooth: cutoffs must be above 0 Hz and beta at least 0");
        }
        let mut chosen = [shapes.is_empty(); COUNT];
        for &s in shapes {
            chosen[s] = true;
        }
        Ok(Smooth {
            params,
            shapes: chosen,
            state: [(0.0, 0.0, 0.0); COUNT],
            prev: None,
            frames: 0,
            changed: 0,
        })
    }
}

impl Stage for Smooth {
    fn push(&mut self, mut frame: Frame, out: Out<'_>) -> Result<()> {
        self.frames += 1;
        let dt = self
            .prev
            .and_then(|p| frame.time.seconds_since(&p))
            .filter(|dt| *dt > 0.0);
        let first = self.prev.is_none();
        if first || dt.is_some() {
            self.prev = Some(frame.time);
        }
        for (i, value) in frame.values.iter_mut().enumerate() {
            if !self.shapes[i] || !value.is_finite() {
                continue;
            }
            let x = f64::from(*value);
            let (raw, filtered, speed) = &mut self.state[i];
            match dt {
                None if first => {
                    (*raw, *filtered, *speed) = (x, x, 0.0);
                }
                None => {}
                Some(dt) => {
                    let p = &self.params;
                    let dx = (x - *raw) / dt;
                    *speed += alpha(p.d_cutoff, dt) * (dx - *speed);
                    let cutoff = p.min_cutoff + p.beta * speed.abs();
                    *filtered += alpha(cutoff, dt) * (x - *filtered);
                    *raw = x;
                    let new = *filtered as f32;
                    if new.to_bits() != value.to_bits() {
                        *value = new;
                        self.changed += 1;
                    }
                }
            }
        }
        out(frame)
    }

    fn report(&self) -> String {
        let chosen: Vec<&str> = NAMES
            .iter()
            .zip(&self.shapes)
            .filter(|(_, on)| **on)
            .map(|(n, _)| *n)
            .collect();
        let which = if chosen.len() == COUNT {
            "every shape".to_string()
        } else {
            chosen.join(", ")
        };
        let p = &self.params;
        format!(
            "smooth (one-euro, min cutoff {} Hz, beta {}, d cutoff {} Hz) on {which}: \
             {} values changed in {} frames",
            p.min_cutoff, p.beta, p.d_cutoff, self.changed, self.frames
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::edit::tests_support::{frame, run};
    use llv_core::time::FrameRate;

    #[test]
    fn jitter_shrinks_and_steps_are_followed() {
        let rate = FrameRate::FPS_60;
        // 0.5 with +-0.05 jitter, then a step to 1.0.
        let input: Vec<Frame> = (0..240)
            .map(|n| {
                let base = if n < 120 { 0.5 } else { 1.0 };
                let jitter = if n % 2 == 0 { 0.05 } else { -0.05 };
                frame(n, rate, |s| if s == 17 { base + jitter } else { 0.25 })
            })
            .collect();
        let out = run(
            &mut Smooth::new(Params::default(), &[17]).unwrap(),
            input.clone(),
        );
        let spread = |frames: &[Frame]| {
            let v: Vec<f32> = frames.iter().map(|f| f.values[17]).collect();
            v.iter().cloned().fold(f32::MIN, f32::max) - v.iter().cloned().fold(f32::MAX, f32::min)
        };
        assert!(
            spread(&out[60..120]) < 0.1 * spread(&input[60..120]),
            "{}",
            spread(&out[60..120])
        );
        let settled = out[239].values[17];
        assert!((settled - 1.0).abs() < 0.05, "{settled}");
        // Other shapes untouched, bit for bit.
        assert!(out
            .iter()
            .zip(&input)
            .all(|(a, b)| a.values[16].to_bits() == b.values[16].to_bits()));
    }
}
