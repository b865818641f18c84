//! `llv sequence`: a debug take that moves each blendshape in turn from
//! `--min` to `--max`, frame for frame what LLV's `sequence` writes (frames
//! from 1337 at 60/1, one frame number skipped between shapes, LLV's device
//! id and subject), so `examples/debug-*.gesichter` can be regenerated.

use std::path::PathBuf;

use anyhow::{anyhow, bail, Result};
use llv_core::blendshape::{find_ignore_case, COUNT, NAMES};
use llv_core::packet::{FaceFrame, VERSION};
use llv_core::time::{FrameRate, FrameTime};

use crate::args::OutputArgs;
use crate::recording::{self, Format, WriteOptions};
use crate::take::{Take, ANONYMOUS_DEVICE_ID};

/// The subject LLV's generated frames carry.
const SUBJECT: &str = "LLV Default Device";
/// The first frame number LLV's sequences use.
const FIRST_FRAME: i32 = 1337;

/// `llv sequence OUT`.
#[derive(clap::Args, Debug)]
#[command(after_help = "\
Examples:
  llv sequence debug-all.gesichter                       # 61 shapes x 66 frames, -1 -> 1
  llv sequence debug-jawopen.gesichter --shape JawOpen
  llv sequence ramp.gesichter --seconds-per-shape 2 --min 0 --max 1")]
pub struct Args {
    /// File to write (format from its name, native by default; `-` for standard output).
    output: PathBuf,
    /// Move only this blendshape (name, any case); by default all 61 in packet order.
    #[arg(long, value_name = "NAME")]
    shape: Option<String>,
    /// Seconds each shape takes at 60 fps (1.1 gives LLV's 66 frames per shape).
    #[arg(long, value_name = "S", default_value_t = 1.1)]
    seconds_per_shape: f64,
    /// Value at a shape's first frame.
    #[arg(long, value_name = "V", default_value_t = -1.0, allow_negative_numbers = true)]
    min: f64,
    /// Value at a shape's last frame.
    #[arg(
        long,
        value_name = "V",
        default_value_t = 1.0,
        allow_negative_numbers = true
    )]
    max: f64,
    /// Output format (default: from OUT's name, else native).
    #[arg(long, value_enum)]
    to: Option<Format>,
    #[command(flatten)]
    out: OutputArgs,
}

/// Runs `llv sequence`.
pub fn run(args: Args) -> Result<()> {
    let shapes: Vec<usize> = match &args.shape {
        Some(name) => vec![find_ignore_case(name).ok_or_else(|| {
            anyhow!(
                "unknown blendshape {name:?}; the names are: {}",
                NAMES.join(", ")
            )
        })?],
        None => (0..COUNT).collect(),
    };
    let frames_per_shape = (60.0 * args.seconds_per_shape).round_ties_even();
    if !(1.0..=1.0e6).contains(&frames_per_shape) {
        bail!("--seconds-per-shape must give between 1 and 1000000 frames per shape at 60 fps");
    }
    let take = sequence(&shapes, frames_per_shape as u32, args.min, args.max)?;
    let format = args
        .to
        .or_else(|| Format::from_name(&args.output))
        .unwrap_or(Format::Native);
    recording::write(
        &args.output,
        format,
        &take,
        WriteOptions::default(),
        args.out.force,
    )?;
    if !recording::is_stdio(&args.output) {
        eprintln!(
            "wrote {} frames ({} per shape) to {}",
            take.len(),
            frames_per_shape,
            args.output.display()
        );
    }
    Ok(())
}

/// The frames for `shapes` (packet indices), `per_shape` frames each, ramping `min` to `max`.
pub fn sequence(shapes: &[usize], per_shape: u32, min: f64, max: f64) -> Result<Take> {
    let mut take = Take::with_capacity(shapes.len() * per_shape as usize);
    let mut buf = [0u8; llv_core::packet::MAX_LEN];
    let last = f64::from(per_shape - 1);
    for (slot, &shape) in shapes.iter().enumerate() {
        for step in 0..per_shape {
            // LLV numbers frames slot * (per_shape + 1) + step: one number skipped between shapes.
            let index = slot as u64 * (u64::from(per_shape) + 1) + u64::from(step);
            let mut blendshapes = [0.0f32; COUNT];
            blendshapes[shape] = if per_shape == 1 {
                max as f32
            } else {
                (f64::from(step) * (max - min) / last + min) as f32
            };
            let frame = FaceFrame {
                version: VERSION,
                device_id: ANONYMOUS_DEVICE_ID,
                subject: SUBJECT,
                time: FrameTime {
                    frame_number: i32::try_from(index)
                        .ok()
                        .and_then(|i| i.checked_add(FIRST_FRAME))
                        .ok_or_else(|| anyhow!("sequence too long"))?,
                    subframe: (index as f64 * 0.000614 + 0.121) as f32,
                    rate: FrameRate::FPS_60,
                },
                blendshapes,
            };
            let len = frame.encode(&mut buf).map_err(|e| anyhow!("{e}"))?;
            take.push(&buf[..len]).map_err(|e| anyhow!("{e}"))?;
        }
    }
    Ok(take)
}
