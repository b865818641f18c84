//! ARKit blendshapes to MetaHuman curves through an additive PoseAsset.
//!
//! Curve `j` of a frame is `rest[j] + sum_i value_i * CurveData[i][j]` (Unreal's
//! additive pose blend, `--combine sum`) or `rest[j] + max_i value_i * CurveData[i][j]`
//! (the seed article's method, `--combine max`). `rest` is the base pose's raw
//! value: 0 on every curve a pose drives, 1 on the rig's resting switches.

use std::io::Write;

use anyhow::Result;
use llv_core::blendshape::COUNT;
use llv_core::time::FrameTime;

use super::pose_asset::PoseAsset;
use crate::parallel::map_ordered;
use crate::recording::csv::{push_row, BATCH, ROWS_PER_JOB};
use crate::take::timecode;

/// How the weighted values of the poses driving one curve combine.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Combine {
    /// Their sum: Unreal's additive pose blend.
    Sum,
    /// Their maximum: the seed article's MotionBuilder script.
    Max,
}

/// One frame of a take: its time and its 61 values in packet order.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Frame {
    /// When the frame was captured.
    pub time: FrameTime,
    /// The blendshape values in packet order.
    pub shapes: [f32; COUNT],
}

/// The mapping prepared for evaluation: per output curve, the poses that drive it.
#[derive(Clone, Debug)]
pub struct Retargeter {
    names: Vec<String>,
    rest: Vec<f64>,
    terms: Vec<Vec<(usize, f64)>>,
    pose_count: usize,
    combine: Combine,
    /// `--combine max` counts a pose that does not drive a curve as a 0
    /// (MetaHuman's rule), or takes the maximum of the driving values alone.
    max_counts_undriven: bool,
}

impl Retargeter {
    /// MetaHuman's pose asset: keeps the curves some pose drives (a non-zero
    /// weight), or all of them; `--combine max` is over all poses, so a pose
    /// that does not drive a curve counts as 0 and a curve never falls below
    /// its rest value while any pose leaves it alone.
    pub fn new(asset: &PoseAsset, combine: Combine, all_curves: bool) -> Self {
        Retargeter::build(asset, combine, all_curves, true)
    }

    /// A rig map's curves (every target a column): `--combine max` is the
    /// largest of the signed values of the shapes that drive a curve, so one
    /// shape with weight -1 gives its negated value.
    pub fn for_rig(asset: &PoseAsset, combine: Combine) -> Self {
        Retargeter::build(asset, combine, true, false)
    }

    fn build(
        asset: &PoseAsset,
        combine: Combine,
        all_curves: bool,
        max_counts_undriven: bool,
    ) -> Self {
        let mut r = Retargeter {
            names: Vec::new(),
            rest: Vec::new(),
            terms: Vec::new(),
            pose_count: asset.poses.len(),
            combine,
            max_counts_undriven,
        };
        for (j, name) in asset.curves.iter().enumerate() {
            let terms: Vec<(usize, f64)> = asset
                .poses
                .iter()
                .filter(|p| p.weights[j] != 0.0)
                .map(|p| (p.shape, p.weights[j]))
                .collect();
            if all_curves || !terms.is_empty() {
                r.names.push(name.clone());
                r.rest.push(asset.rest[j]);
                r.terms.push(terms);
            }
        }
        r
    }

    /// The output curve names, in mapping order.
    pub fn curves(&self) -> &[String] {
        &self.names
    }

    /// Evaluates every output curve for one frame's blendshape values.
    pub fn apply(&self, shapes: &[f32; COUNT], out: &mut [f64]) {
        for ((slot, terms), rest) in out.iter_mut().zip(&self.terms).zip(&self.rest) {
            let weighted = terms.iter().map(|&(i, w)| f64::from(shapes[i]) * w);
            let value = match self.combine {
                Combine::Sum => weighted.sum(),
                // MetaHuman's maximum is over all poses: those with weight 0 contribute a 0.
                Combine::Max => {
                    let floor = if self.max_counts_undriven && terms.len() < self.pose_count {
                        0.0
                    } else {
                        f64::NEG_INFINITY
                    };
                    if terms.is_empty() {
                        0.0
                    } else {
                        weighted.fold(floor, f64::max)
                    }
                }
            };
            *slot = rest + value;
        }
    }
}

/// Writes `Timecode,<curve>...` and one row per frame (10 decimals).
pub fn write_curves(frames: &[Frame], map: &Retargeter, out: &mut dyn Write) -> Result<()> {
    let mut writer = CurveWriter::new(out, map)?;
    for frame in frames {
        writer.frame(frame)?;
    }
    writer.finish()
}

/// Writes curves: the header first, then one row per frame, printed a batch
/// at a time on every core ([`crate::parallel::map_ordered`]) and written in order.
pub struct CurveWriter<'a> {
    out: &'a mut dyn Write,
    map: &'a Retargeter,
    pending: Vec<Frame>,
    index: usize,
}

impl<'a> CurveWriter<'a> {
    /// Writes the header `Timecode,<curve>...`.
    pub fn new(out: &'a mut dyn Write, map: &'a Retargeter) -> Result<Self> {
        writeln!(out, "Timecode,{}", map.curves().join(","))?;
        Ok(CurveWriter {
            out,
            map,
            pending: Vec::with_capacity(BATCH),
            index: 0,
        })
    }

    /// Takes the row of one frame.
    pub fn frame(&mut self, frame: &Frame) -> Result<()> {
        self.pending.push(*frame);
        self.index += 1;
        if self.pending.len() >= BATCH {
            self.print_pending()?;
        }
        Ok(())
    }

    fn print_pending(&mut self) -> Result<()> {
        let first = self.index - self.pending.len();
        let chunks: Vec<&[Frame]> = self.pending.chunks(ROWS_PER_JOB).collect();
        let map = self.map;
        let print = |job: usize| -> Result<Vec<u8>> {
            let rows = chunks[job];
            // A timecode and `,-0.1234567890` per curve: no growing on the way.
            let mut text = Vec::with_capacity(rows.len() * (32 + 14 * map.curves().len()));
            let mut values = vec![0.0; map.curves().len()];
            for (k, frame) in rows.iter().enumerate() {
                let tc = timecode(first + job * ROWS_PER_JOB + k, &frame.time)?;
                map.apply(&frame.shapes, &mut values);
                push_row(&mut text, format_args!("{tc}"), values.iter().copied())?;
            }
            Ok(text)
        };
        let out = &mut self.out;
        map_ordered(chunks.len(), print, |text| -> Result<()> {
            out.write_all(&text?)?;
            Ok(())
        })?;
        self.pending.clear();
        Ok(())
    }

    /// Rows taken.
    pub fn rows(&self) -> usize {
        self.index
    }

    /// Writes the rows still held and flushes the output.
    pub fn finish(mut self) -> Result<()> {
        self.print_pending()?;
        self.out.flush()?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metahuman::pose_asset::Pose;

    fn asset() -> PoseAsset {
        PoseAsset {
            curves: vec!["a".into(), "b".into(), "idle".into(), "on".into()],
            rest: vec![0.0, 0.0, 0.0, 1.0],
            poses: vec![
                Pose {
                    name: "JawOpen".into(),
                    shape: 17,
                    weights: vec![1.0, 0.5, 0.0, 0.0],
                },
                Pose {
                    name: "EyeBlinkLeft".into(),
                    shape: 0,
                    weights: vec![0.0, 0.75, 0.0, 0.0],
                },
            ],
        }
    }

    fn shapes(jaw: f32, blink: f32) -> [f32; COUNT] {
        let mut s = [0.0; COUNT];
        s[17] = jaw;
        s[0] = blink;
        s
    }

    #[test]
    fn sum_and_max_over_driving_poses() {
        let sum = Retargeter::new(&asset(), Combine::Sum, false);
        assert_eq!(sum.curves(), ["a", "b"]);
        let mut out = [0.0; 2];
        sum.apply(&shapes(0.5, 0.5), &mut out);
        assert_eq!(out, [0.5, 0.25 + 0.375]);
        let max = Retargeter::new(&asset(), Combine::Max, false);
        max.apply(&shapes(0.5, 0.5), &mut out);
        assert_eq!(out, [0.5, 0.375]);
    }

    #[test]
    fn all_curves_adds_rest_values() {
        let all = Retargeter::new(&asset(), Combine::Sum, true);
        assert_eq!(all.curves(), ["a", "b", "idle", "on"]);
        let mut out = [0.0; 4];
        all.apply(&shapes(1.0, 0.0), &mut out);
        assert_eq!(out, [1.0, 0.5, 0.0, 1.0]);
    }

    #[test]
    fn max_over_all_poses_lets_negative_weights_floor_at_zero() {
        let mut a = asset();
        a.poses[0].weights[1] = -0.5;
        let max = Retargeter::new(&a, Combine::Max, false);
        let mut out = [0.0; 2];
        max.apply(&shapes(1.0, 0.0), &mut out);
        assert_eq!(out, [1.0, 0.0]);
        // Every pose drives `b`: the maximum is of the weighted values alone.
        let mut b = a.clone();
        b.poses[1].weights[1] = -1.0;
        let max = Retargeter::new(&b, Combine::Max, false);
        max.apply(&shapes(1.0, 1.0), &mut out);
        assert_eq!(out, [1.0, -0.5]);
        // A rig map's maximum is of the signed values of the driving shapes
        // alone: `b` driven by JawOpen x -0.5 only is negative; a curve no
        // shape drives is its rest value.
        let mut c = a.clone();
        c.poses[1].weights[1] = 0.0;
        let rig = Retargeter::for_rig(&c, Combine::Max);
        let mut all = [0.0; 4];
        rig.apply(&shapes(0.5, 0.25), &mut all);
        assert_eq!(all, [0.5, -0.25, 0.0, 1.0]);
    }
}
