//! Keyframed animation made on a rig, turned into a take that `llv play` and
//! the box play like a phone take: glTF 2.0 morph-target weight animations
//! ([`gltf`]) and LLV's FBX metadata JSON ([`fbx_json`]). Each named target
//! curve is sampled at the take's rate and mapped back to an ARKit shape
//! through a rig map's reverse direction ([`crate::rig`]).

pub mod fbx_json;
pub mod gltf;

use std::collections::HashMap;
use std::path::Path;

use anyhow::{anyhow, bail, Result};
use llv_core::blendshape::{COUNT, NAMES};
use llv_core::packet::MAX_LEN;
use llv_core::time::{FrameRate, FrameTime, Timecode};

use crate::edit::Frame;
use crate::rig::Back;

/// How a keyed curve goes from key to key (glTF's sampler interpolations).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Interpolation {
    /// Straight lines between keys.
    Linear,
    /// Each key's value until the next key.
    Step,
    /// Cubic Hermite spline with in and out tangents per key.
    CubicSpline,
}

/// One target's animation curve.
#[derive(Clone, Debug, PartialEq)]
pub enum Curve {
    /// Keys at times (seconds), increasing.
    Keys {
        /// Key times in seconds.
        times: Vec<f32>,
        /// Key values.
        values: Vec<f32>,
        /// Per key, the in and out tangents (cubic splines only).
        tangents: Vec<(f32, f32)>,
        /// How values go between keys.
        interpolation: Interpolation,
    },
    /// Pieces of values spread evenly from a start to an end time (seconds).
    Pieces(Vec<Piece>),
}

/// Values evenly spread from `start` to `end` (the first at `start`, the last at `end`).
#[derive(Clone, Debug, PartialEq)]
pub struct Piece {
    /// The values.
    pub values: Vec<f32>,
    /// Time of the first value, seconds.
    pub start: f64,
    /// Time of the last value, seconds.
    pub end: f64,
}

impl Piece {
    fn sample(&self, t: f64) -> f32 {
        let n = self.values.len();
        if n == 1 || self.end <= self.start || t <= self.start {
            return self.values[0];
        }
        if t >= self.end {
            return self.values[n - 1];
        }
        let at = (t - self.start) / (self.end - self.start) * (n - 1) as f64;
        let i = (at.floor() as usize).min(n - 2);
        let alpha = at - i as f64;
        lerp(self.values[i], self.values[i + 1], alpha)
    }

    fn distance(&self, t: f64) -> f64 {
        if t < self.start {
            self.start - t
        } else if t > self.end {
            t - self.end
        } else {
            0.0
        }
    }
}

fn lerp(a: f32, b: f32, alpha: f64) -> f32 {
    if alpha == 0.0 {
        return a;
    }
    (f64::from(a) + (f64::from(b) - f64::from(a)) * alpha) as f32
}

impl Curve {
    /// The first and last time the curve has a value for.
    pub fn span(&self) -> Option<(f64, f64)> {
        match self {
            Curve::Keys { times, .. } => {
                Some((f64::from(*times.first()?), f64::from(*times.last()?)))
            }
            Curve::Pieces(pieces) => {
                let start = pieces.iter().map(|p| p.start).reduce(f64::min)?;
                let end = pieces.iter().map(|p| p.end).reduce(f64::max)?;
                Some((start, end))
            }
        }
    }

    /// The value at `t` seconds; before the first key the first value, after
    /// the last the last value (animation curves hold their ends).
    pub fn sample(&self, t: f64) -> f32 {
        match self {
            Curve::Keys {
                times,
                values,
                tangents,
                interpolation,
            } => {
                let Some(&first) = times.first() else {
                    return 0.0;
                };
                if t <= f64::from(first) {
                    return values[0];
                }
                // The last key at or before t.
                let i = times.partition_point(|k| f64::from(*k) <= t) - 1;
                if i + 1 >= times.len() {
                    return values[i];
                }
                let (t0, t1) = (f64::from(times[i]), f64::from(times[i + 1]));
                let s = (t - t0) / (t1 - t0);
                match interpolation {
                    Interpolation::Step => values[i],
                    Interpolation::Linear => lerp(values[i], values[i + 1], s),
                    Interpolation::CubicSpline => {
                        let dt = t1 - t0;
                        let (p0, p1) = (f64::from(values[i]), f64::from(values[i + 1]));
                        let m0 = f64::from(tangents[i].1) * dt;
                        let m1 = f64::from(tangents[i + 1].0) * dt;
                        let (s2, s3) = (s * s, s * s * s);
                        ((2.0 * s3 - 3.0 * s2 + 1.0) * p0
                            + (s3 - 2.0 * s2 + s) * m0
                            + (-2.0 * s3 + 3.0 * s2) * p1
                            + (s3 - s2) * m1) as f32
                    }
                }
            }
            Curve::Pieces(pieces) => pieces
                .iter()
                .min_by(|a, b| a.distance(t).total_cmp(&b.distance(t)))
                .map_or(0.0, |p| p.sample(t)),
        }
    }
}

/// An animation: curves by target name, in the file's order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Animation {
    /// Each target's name and curve.
    pub curves: Vec<(String, Curve)>,
    /// The files read besides the animation's own (glTF buffers).
    pub files: Vec<std::path::PathBuf>,
}

impl Animation {
    /// Reads `path`: `.glb`/`.gltf` as glTF, anything else as LLV's FBX metadata JSON.
    pub fn load(path: &Path) -> Result<Animation> {
        let ext = path
            .extension()
            .map(|e| e.to_string_lossy().to_ascii_lowercase())
            .unwrap_or_default();
        if ext == "glb" || ext == "gltf" {
            gltf::load(path)
        } else {
            fbx_json::load(path)
        }
    }

    /// The span of all curves, seconds.
    pub fn span(&self) -> Option<(f64, f64)> {
        let spans = self.curves.iter().filter_map(|(_, c)| c.span());
        spans.reduce(|(a, b), (c, d)| (a.min(c), b.max(d)))
    }
}

/// How an animation becomes frames.
#[derive(Clone, Debug)]
pub struct Sampling {
    /// The take's rate (60 by default, the phone's).
    pub rate: FrameRate,
    /// The timecode of the first frame.
    pub start: Timecode,
    /// Subject of every frame.
    pub subject: String,
    /// Device id of every frame.
    pub device_id: String,
}

/// What an import did.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Report {
    /// Frames made.
    pub frames: u64,
    /// Shapes driven, with the target that drives each.
    pub driven: Vec<(&'static str, String)>,
    /// Targets of the animation the map does not turn into a shape.
    pub unmapped: Vec<String>,
}

/// Samples `animation` at `sampling.rate` from its first to its last key,
/// both included, mapping targets back through `reverse` (by lower-cased
/// target name, see [`crate::rig::RigMap::reverse_by_target`]); each frame
/// goes to `emit` as a packet.
pub fn frames(
    animation: &Animation,
    reverse: &HashMap<String, Back>,
    sampling: &Sampling,
    emit: &mut dyn FnMut(&[u8]) -> Result<()>,
) -> Result<Report> {
    let (start, end) = animation
        .span()
        .ok_or_else(|| anyhow!("the animation has no keys"))?;
    let fps = sampling
        .rate
        .fps()
        .ok_or_else(|| anyhow!("{} is not a frame rate", sampling.rate))?;
    let mut report = Report::default();
    // Per shape, the first target (in file order) that drives it.
    let mut drivers: Vec<(usize, Back)> = Vec::new();
    for (index, (target, _)) in animation.curves.iter().enumerate() {
        match reverse.get(&target.to_lowercase()) {
            Some(&back) => {
                if drivers.iter().all(|(_, b)| b.shape != back.shape) {
                    drivers.push((index, back));
                    report.driven.push((NAMES[back.shape], target.clone()));
                }
            }
            None => report.unmapped.push(target.clone()),
        }
    }
    if drivers.is_empty() {
        bail!(
            "no target of the animation is in the map's reverse direction (targets: {})",
            first_names(
                &animation
                    .curves
                    .iter()
                    .map(|(n, _)| n.clone())
                    .collect::<Vec<_>>()
            )
        );
    }
    let first = sampling
        .start
        .to_frame_time(sampling.rate)
        .map_err(|e| anyhow!("start timecode {}: {e}", sampling.start))?;
    let count = ((end - start) * fps + 1e-6).floor() as u64 + 1;
    let mut buf = [0u8; MAX_LEN];
    for k in 0..count {
        let t = start + k as f64 / fps;
        let mut values = [0.0f32; COUNT];
        for &(curve, back) in &drivers {
            let v = back.apply(f64::from(animation.curves[curve].1.sample(t))) as f32;
            if !v.is_finite() {
                bail!(
                    "target \"{}\" at {t:.4} s: {v} is not a finite value",
                    animation.curves[curve].0
                );
            }
            values[back.shape] = v;
        }
        let frame_number = i32::try_from(i64::from(first.frame_number) + k as i64)
            .map_err(|_| anyhow!("frame {k}: past the frame numbers a packet holds"))?;
        let frame = Frame {
            device_id: sampling.device_id.clone(),
            subject: sampling.subject.clone(),
            time: FrameTime {
                frame_number,
                subframe: 0.0,
                rate: sampling.rate,
            },
            values,
        };
        emit(frame.encode(&mut buf)?)?;
        report.frames += 1;
    }
    Ok(report)
}

/// The first few names of a list, for messages.
pub fn first_names(names: &[String]) -> String {
    let shown: Vec<&str> = names.iter().take(8).map(String::as_str).collect();
    let more = names.len().saturating_sub(shown.len());
    if more > 0 {
        format!("{} and {more} more", shown.join(", "))
    } else {
        shown.join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn curves_hold_their_ends_and_interpolate() {
        let linear = Curve::Keys {
            times: vec![1.0, 2.0],
            values: vec![0.0, 1.0],
            tangents: Vec::new(),
            interpolation: Interpolation::Linear,
        };
        assert_eq!(
            [0.0, 1.0, 1.5, 2.0, 3.0].map(|t| linear.sample(t)),
            [0.0, 0.0, 0.5, 1.0, 1.0]
        );
        let step = Curve::Keys {
            times: vec![0.0, 1.0],
            values: vec![0.25, 0.75],
            tangents: Vec::new(),
            interpolation: Interpolation::Step,
        };
        assert_eq!(step.sample(0.99), 0.25);
        let cubic = Curve::Keys {
            times: vec![0.0, 1.0],
            values: vec![0.0, 1.0],
            tangents: vec![(0.0, 0.0), (0.0, 0.0)],
            interpolation: Interpolation::CubicSpline,
        };
        assert_eq!(cubic.sample(0.5), 0.5);
        assert!(cubic.sample(0.25) < 0.25);
        let pieces = Curve::Pieces(vec![
            Piece {
                values: vec![0.0, 1.0, 0.0],
                start: 0.0,
                end: 1.0,
            },
            Piece {
                values: vec![0.5, 0.5],
                start: 2.0,
                end: 3.0,
            },
        ]);
        assert_eq!(pieces.sample(0.25), 0.5);
        assert_eq!(pieces.sample(1.4), 0.0);
        assert_eq!(pieces.sample(1.6), 0.5);
        assert_eq!(pieces.span(), Some((0.0, 3.0)));
    }
}
