//! `llv import`: a rig's keyframed animation (glTF 2.0, LLV's FBX metadata
//! JSON) as a take, through a rig map's reverse direction ([`crate::import`]).

use std::path::PathBuf;

use anyhow::{anyhow, Result};
use llv_core::time::{FrameRate, Timecode};

use crate::args::{parse_rate, OutputArgs};
use crate::import::{first_names, frames, Animation, Sampling};
use crate::output;
use crate::recording::write_stream;
use crate::recording::{self, Format, WriteOptions};
use crate::rig::{Modifiers, RigMap};
use crate::take::derived_device_id;

const EXAMPLES: &str = "\
Targets (matched ignoring case) become ARKit shapes through the map's reverse
direction (LLV's \"reverse\" entries, else its mapping turned round):
ARKit = target / modifier, so import undoes remap; --llv-modifiers multiplies
as LLV 1.4's importer does.
Frames are sampled from the first to the last key at --fps; subject and
device id default to the file's name and a stable id derived from it.

Examples:
  llv import face.glb --map cc4.json -o face.gesichter             # glTF from Blender, 60 fps
  llv import face.gltf --map rig.csv -o face.gesichter --fps 30 --start 01:00:00:00
  llv import take.fbx.json --map rig.json -o take.csv              # LLV's FBX metadata JSON";

/// `llv import IN --map MAP -o OUT`.
#[derive(clap::Args, Debug)]
#[command(after_help = EXAMPLES)]
pub struct Args {
    /// The animation: .glb/.gltf (glTF 2.0 morph-target weights) or LLV's FBX metadata JSON.
    input: PathBuf,
    /// The rig map: LLV's mapping library JSON, or a CSV table arkit,target,weight.
    #[arg(long, value_name = "MAP")]
    map: PathBuf,
    /// The take to write (`-` for standard output).
    #[arg(short, long, value_name = "OUT")]
    output: PathBuf,
    /// Frames per second to sample at: 60, 30, 59.94, N/D.
    #[arg(long, value_name = "FPS", default_value = "60", value_parser = parse_rate)]
    fps: FrameRate,
    /// Timecode of the first frame (HH:MM:SS:FF).
    #[arg(long, value_name = "TC", default_value = "00:00:00:00")]
    start: String,
    /// Subject name of the frames (default: the file's name).
    #[arg(long)]
    subject: Option<String>,
    /// Device id of the frames (default: a stable 36-character id derived from the file's name).
    #[arg(long, value_name = "ID")]
    device_id: Option<String>,
    /// Output format; by default from OUT's name (.gesichter LLV's gzip, .gesichter-lines
    /// native lines, .klare-gesichter/.json clear JSON, .csv a Live Link Face CSV take).
    #[arg(long, value_enum)]
    format: Option<Format>,
    /// Apply the map's modifiers as LLV 1.4's importer does: ARKit = modifier x target
    /// (default: ARKit = target / modifier, so import undoes remap).
    #[arg(long)]
    llv_modifiers: bool,
    #[command(flatten)]
    out: OutputArgs,
}

/// Runs `llv import`.
pub fn run(args: Args) -> Result<()> {
    let format = Format::for_output(&args.output, args.format, "--format")?;
    let start =
        Timecode::parse(&args.start).map_err(|e| anyhow!("--start `{}`: {e}", args.start))?;
    let map = RigMap::load(&args.map)?;
    let reverse = map.reverse_by_target(if args.llv_modifiers {
        Modifiers::Llv
    } else {
        Modifiers::Undo
    })?;
    let animation = Animation::load(&args.input)?;
    let mut inputs: Vec<&std::path::Path> = vec![&args.input, &args.map];
    inputs.extend(animation.files.iter().map(PathBuf::as_path));
    output::check(&args.output, &inputs, args.out.force)?;
    let stem = args
        .input
        .file_stem()
        .map_or("import".into(), |s| s.to_string_lossy().into_owned());
    let stem = stem.strip_suffix(".fbx").unwrap_or(&stem).to_string();
    let sampling = Sampling {
        rate: args.fps,
        start,
        subject: args.subject.clone().unwrap_or_else(|| stem.clone()),
        device_id: args
            .device_id
            .clone()
            .unwrap_or_else(|| derived_device_id(&stem)),
    };
    let mut report = None;
    write_stream(
        &args.output,
        format,
        WriteOptions::default(),
        args.out.force,
        |sink| {
            let made = frames(&animation, &reverse, &sampling, sink)
                .map_err(|e| anyhow!("{}: {e}", args.input.display()))?;
            report = Some(made);
            Ok(())
        },
    )?;
    let report = report.expect("the import ran");
    if !report.unmapped.is_empty() {
        eprintln!(
            "warning: {} targets have no ARKit shape in {} and are left out: {}",
            report.unmapped.len(),
            map.name,
            first_names(&report.unmapped)
        );
    }
    if !recording::is_stdio(&args.output) {
        let driven: Vec<String> = report
            .driven
            .iter()
            .map(|(shape, target)| format!("{shape} <- {target}"))
            .collect();
        eprintln!(
            "wrote {} frames at {} fps to {} as {}; {} shapes driven: {}",
            report.frames,
            args.fps,
            args.output.display(),
            format.describe(),
            driven.len(),
            first_names(&driven)
        );
    }
    Ok(())
}
