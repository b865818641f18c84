//! Per-shape value edits: LLV's modifiers file, gain, offset, zero and clamp
//! (applied in that order), and the left-right mirror. A value an edit leaves
//! as it is keeps its bits; a value that is NaN or infinite is never changed.

use std::path::Path;

use anyhow::{anyhow, bail, Context, Result};
use llv_core::blendshape::{self, COUNT, FIRST_ROTATION, NAMES};

use super::{Frame, Out, Stage};

/// A blendshape by name, ignoring case (`jawOpen`, `JawOpen`), or an error naming it.
pub fn shape(name: &str) -> Result<usize> {
    blendshape::find_ignore_case(name.trim())
        .ok_or_else(|| anyhow!("`{name}` is not one of the 61 ARKit blendshapes"))
}

/// Parses `SHAPE=NUMBER`.
pub fn shape_number(text: &str) -> Result<(usize, f64)> {
    let (name, number) = text
        .split_once('=')
        .ok_or_else(|| anyhow!("`{text}`: expected SHAPE=NUMBER, e.g. JawOpen=1.2"))?;
    let value: f64 = number
        .trim()
        .parse()
        .map_err(|_| anyhow!("`{text}`: `{number}` is not a number"))?;
    if !value.is_finite() {
        bail!("`{text}`: `{number}` is not a finite number");
    }
    Ok((shape(name)?, value))
}

/// A clamp: `LO..HI` for the 52 ARKit coefficients, or `SHAPE=LO..HI` for one shape.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Clamp {
    /// The shape, or `None` for every coefficient (0..52, not the head and eye angles).
    pub shape: Option<usize>,
    /// Lowest value kept.
    pub lo: f32,
    /// Highest value kept.
    pub hi: f32,
}

impl Clamp {
    /// Parses `LO..HI` or `SHAPE=LO..HI`.
    pub fn parse(text: &str) -> Result<Clamp> {
        let (shape_name, range) = match text.split_once('=') {
            Some((name, range)) => (Some(name), range),
            None => (None, text),
        };
        let (lo, hi) = range
            .split_once("..")
            .ok_or_else(|| anyhow!("`{text}`: expected LO..HI or SHAPE=LO..HI, e.g. 0..1"))?;
        let number = |t: &str| -> Result<f32> {
            let v: f32 = t
                .trim()
                .parse()
                .map_err(|_| anyhow!("`{text}`: `{t}` is not a number"))?;
            if !v.is_finite() {
                bail!("`{text}`: `{t}` is not a finite number");
            }
            Ok(v)
        };
        let (lo, hi) = (number(lo)?, number(hi)?);
        if lo > hi {
            bail!("`{text}`: {lo} is above {hi}");
        }
        Ok(Clamp {
            shape: shape_name.map(shape).transpose()?,
            lo,
            hi,
        })
    }
}

/// LLV's modifiers file: a JSON object of shape name -> multiplier.
pub fn read_modifiers(path: &Path) -> Result<Vec<(usize, f64)>> {
    let name = path.display();
    let text = std::fs::read_to_string(path).with_context(|| format!("{name}: cannot read"))?;
    let object: serde_json::Map<String, serde_json::Value> = serde_json::from_str(&text)
        .with_context(|| format!("{name}: not a JSON object of shape name -> multiplier"))?;
    let mut out = Vec::with_capacity(object.len());
    for (key, value) in &object {
        let index = shape(key).with_context(|| format!("{name}: key \"{key}\""))?;
        let k = value
            .as_f64()
            .filter(|k| k.is_finite())
            .ok_or_else(|| anyhow!("{name}: \"{key}\": {value} is not a number"))?;
        out.push((index, k));
    }
    Ok(out)
}

/// One value edit.
#[derive(Clone, Debug, PartialEq)]
pub enum Op {
    /// Multiply by a modifiers file's multiplier (the file's name is kept for the report).
    Modifier(usize, f64, String),
    /// Multiply.
    Gain(usize, f64),
    /// Add.
    Offset(usize, f64),
    /// Set to 0.
    Zero(usize),
    /// Keep within a range.
    Clamp(Clamp),
}

impl Op {
    fn describe(&self) -> String {
        match self {
            Op::Modifier(s, k, file) => format!("modifier {} x{k} ({file})", NAMES[*s]),
            Op::Gain(s, k) => format!("gain {} x{k}", NAMES[*s]),
            Op::Offset(s, x) => format!("offset {} {x:+}", NAMES[*s]),
            Op::Zero(s) => format!("zero {}", NAMES[*s]),
            Op::Clamp(Clamp {
                shape: Some(s),
                lo,
                hi,
            }) => {
                format!("clamp {} to {lo}..{hi}", NAMES[*s])
            }
            Op::Clamp(Clamp {
                shape: None,
                lo,
                hi,
            }) => {
                format!("clamp the 52 coefficients to {lo}..{hi}")
            }
        }
    }

    /// Applies the edit to the frame's values; returns how many changed.
    fn apply(&self, values: &mut [f32; COUNT]) -> u64 {
        let mut changed = 0;
        let mut set = |slot: &mut f32, new: f32| {
            if slot.is_finite() && new.to_bits() != slot.to_bits() {
                *slot = new;
                changed += 1;
            }
        };
        match *self {
            Op::Modifier(s, k, _) | Op::Gain(s, k) => {
                if k != 1.0 {
                    let new = (f64::from(values[s]) * k) as f32;
                    set(&mut values[s], new);
                }
            }
            Op::Offset(s, x) => {
                if x != 0.0 {
                    let new = (f64::from(values[s]) + x) as f32;
                    set(&mut values[s], new);
                }
            }
            Op::Zero(s) => {
                if values[s] != 0.0 {
                    set(&mut values[s], 0.0);
                }
            }
            Op::Clamp(Clamp { shape, lo, hi }) => {
                let range = match shape {
                    Some(s) => s..s + 1,
                    None => 0..FIRST_ROTATION,
                };
                for slot in &mut values[range] {
                    if *slot < lo {
                        set(slot, lo);
                    } else if *slot > hi {
                        set(slot, hi);
                    }
                }
            }
        }
        changed
    }
}

/// The value edits, in their order.
pub struct Adjust {
    ops: Vec<(Op, u64)>,
}

impl Adjust {
    /// Runs `ops` in order on every frame.
    pub fn new(ops: Vec<Op>) -> Self {
        Adjust {
            ops: ops.into_iter().map(|op| (op, 0)).collect(),
        }
    }
}

impl Stage for Adjust {
    fn push(&mut self, mut frame: Frame, out: Out<'_>) -> Result<()> {
        for (op, changed) in &mut self.ops {
            *changed += op.apply(&mut frame.values);
        }
        out(frame)
    }

    fn report(&self) -> String {
        self.ops
            .iter()
            .map(|(op, changed)| format!("{}: {changed} values changed", op.describe()))
            .collect::<Vec<_>>()
            .join("\n")
    }
}

/// For each shape, the one it becomes in the mirror image, and whether its sign flips.
pub fn mirror_map() -> [(usize, bool); COUNT] {
    std::array::from_fn(|i| {
        let name = NAMES[i];
        let swapped = if let Some(rest) = name.strip_prefix("LeftEye") {
            format!("RightEye{rest}")
        } else if let Some(rest) = name.strip_prefix("RightEye") {
            format!("LeftEye{rest}")
        } else if let Some(rest) = name.strip_suffix("Left") {
            format!("{rest}Right")
        } else if let Some(rest) = name.strip_suffix("Right") {
            format!("{rest}Left")
        } else {
            name.to_string()
        };
        let other = blendshape::index_of(&swapped).expect("every Left shape has its Right");
        let negate = i >= FIRST_ROTATION && (name.ends_with("Yaw") || name.ends_with("Roll"));
        (other, negate)
    })
}

/// The mirror: left and right shapes swap, yaw and roll (head and eyes) change sign.
pub struct Mirror {
    map: [(usize, bool); COUNT],
    frames: u64,
}

impl Mirror {
    /// The mirror stage.
    pub fn new() -> Self {
        Mirror {
            map: mirror_map(),
            frames: 0,
        }
    }
}

impl Default for Mirror {
    fn default() -> Self {
        Mirror::new()
    }
}

impl Stage for Mirror {
    fn push(&mut self, mut frame: Frame, out: Out<'_>) -> Result<()> {
        let before = frame.values;
        for (i, &(from, negate)) in self.map.iter().enumerate() {
            frame.values[i] = if negate { -before[from] } else { before[from] };
        }
        self.frames += 1;
        out(frame)
    }

    fn report(&self) -> String {
        format!(
            "mirror: {} frames, left and right swapped, yaw and roll negated",
            self.frames
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::edit::tests_support::{frame, run};
    use llv_core::time::FrameRate;

    #[test]
    fn parses_shapes_numbers_and_ranges() {
        assert_eq!(shape_number("jawopen=1.5").unwrap(), (17, 1.5));
        assert!(shape_number("Jaw=1")
            .unwrap_err()
            .to_string()
            .contains("`Jaw` is not one"));
        assert!(shape_number("JawOpen").is_err());
        assert_eq!(
            Clamp::parse("0..1").unwrap(),
            Clamp {
                shape: None,
                lo: 0.0,
                hi: 1.0
            }
        );
        assert_eq!(Clamp::parse("HeadYaw=-0.5..0.5").unwrap().shape, Some(52));
        assert!(Clamp::parse("1..0").is_err());
    }

    #[test]
    fn edits_change_only_their_shape() {
        let rate = FrameRate::FPS_60;
        let input = vec![frame(0, rate, |s| s as f32 * 0.05 - 0.5)];
        let ops = vec![
            Op::Gain(17, 2.0),
            Op::Offset(0, 0.25),
            Op::Zero(1),
            Op::Clamp(Clamp::parse("0..1").unwrap()),
        ];
        let mut stage = Adjust::new(ops);
        let out = run(&mut stage, input.clone());
        let (a, b) = (&input[0].values, &out[0].values);
        assert_eq!(b[17], ((17.0f32 * 0.05 - 0.5) as f64 * 2.0) as f32);
        assert_eq!(b[0], 0.0f32.max((-0.5f64 + 0.25) as f32));
        assert_eq!(b[1], 0.0);
        for (i, v) in b[..52].iter().enumerate() {
            assert!((0.0..=1.0).contains(v), "{i}");
        }
        for i in 52..61 {
            assert_eq!(
                a[i].to_bits(),
                b[i].to_bits(),
                "{i} is an angle: not clamped"
            );
        }
        assert!(stage.report().contains("gain JawOpen x2: 1 values changed"));
    }

    #[test]
    fn mirror_swaps_sides_and_twice_is_identity() {
        let map = mirror_map();
        let at = |n: &str| blendshape::index_of(n).unwrap();
        assert_eq!(map[at("EyeBlinkLeft")], (at("EyeBlinkRight"), false));
        assert_eq!(map[at("JawLeft")], (at("JawRight"), false));
        assert_eq!(map[at("JawOpen")], (at("JawOpen"), false));
        assert_eq!(map[at("HeadYaw")], (at("HeadYaw"), true));
        assert_eq!(map[at("HeadPitch")], (at("HeadPitch"), false));
        assert_eq!(map[at("LeftEyeRoll")], (at("RightEyeRoll"), true));
        assert_eq!(map[at("RightEyePitch")], (at("LeftEyePitch"), false));
        let input = vec![frame(0, FrameRate::FPS_60, |s| s as f32 - 30.0)];
        let once = run(&mut Mirror::new(), input.clone());
        assert_ne!(once, input);
        assert_eq!(run(&mut Mirror::new(), once), input);
    }
}
