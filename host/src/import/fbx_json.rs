//! LLV's FBX metadata JSON: `{"shapes": [{"target": NAME, "curves":
//! [{"values": [...], "start_time": S, "end_time": E}]}]}`. Each curve's
//! values are spread evenly from `start_time` to `end_time` (seconds); a
//! shape with several curves takes, at each time, the curve that covers it
//! (else the nearest one).

use std::path::Path;

use anyhow::{bail, Context, Result};
use serde::Deserialize;

use super::{Animation, Curve, Piece};

#[derive(Deserialize)]
struct File {
    shapes: Vec<Shape>,
}

#[derive(Deserialize)]
struct Shape {
    target: String,
    curves: Vec<FbxCurve>,
}

#[derive(Deserialize)]
struct FbxCurve {
    values: Vec<f32>,
    start_time: f64,
    end_time: f64,
}

/// Reads the file's curves.
pub fn load(path: &Path) -> Result<Animation> {
    let name = path.display();
    let text = std::fs::read_to_string(path).with_context(|| format!("{name}: cannot read"))?;
    parse(&name.to_string(), &text)
}

/// Reads the JSON text; `name` is used in messages.
pub fn parse(name: &str, text: &str) -> Result<Animation> {
    let file: File = serde_json::from_str(text).with_context(|| {
        format!(
            "{name}: not LLV's FBX metadata JSON ({{\"shapes\": [{{\"target\", \"curves\"}}]}})"
        )
    })?;
    let mut animation = Animation::default();
    for (s, shape) in file.shapes.into_iter().enumerate() {
        let mut pieces = Vec::new();
        for (c, curve) in shape.curves.into_iter().enumerate() {
            let at = format!("{name}: shapes[{s}] \"{}\": curves[{c}]", shape.target);
            if curve.values.is_empty() {
                bail!("{at}: no values");
            }
            if !(curve.start_time.is_finite() && curve.end_time >= curve.start_time) {
                bail!(
                    "{at}: start_time {} and end_time {} are not a span",
                    curve.start_time,
                    curve.end_time
                );
            }
            if let Some(bad) = curve.values.iter().position(|v| !v.is_finite()) {
                bail!("{at}: values[{bad}] is not a finite number");
            }
            pieces.push(Piece {
                values: curve.values,
                start: curve.start_time,
                end: curve.end_time,
            });
        }
        if !pieces.is_empty() {
            animation.curves.push((shape.target, Curve::Pieces(pieces)));
        }
    }
    if animation.curves.is_empty() {
        bail!("{name}: no shape has a curve");
    }
    Ok(animation)
}
