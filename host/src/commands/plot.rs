//! `llv plot`: a take's curves over time as a PNG or SVG ([`crate::plot`]).

use std::path::PathBuf;

use anyhow::{Context, Result};

use crate::args::{OutputArgs, ReadArgs};
use crate::edit::values::shape;
use crate::plot::{plot_file, PlotOptions};

const EXAMPLES: &str = "\
Grey spans are gaps (intervals over 1.5 times the take's cadence), red spans
frames without a face (all 52 ARKit coefficients exactly 0). The time axis is
the take's timecode.

Examples:
  llv plot take.gesichter -o take.png                       # the ten most active curves
  llv plot take.csv -o jaw.svg --shapes JawOpen,MouthClose,HeadYaw
  llv plot take.gesichter -o wide.png --width 3000 --height 800
  llv info take.gesichter --plot                            # the summary and take.png";

/// `llv plot IN -o OUT.png|svg [--shapes A,B,...]`.
#[derive(clap::Args, Debug)]
#[command(after_help = EXAMPLES)]
pub struct Args {
    /// The take to plot (any format; read twice, so a file, not `-`).
    input: PathBuf,
    /// The picture to write: PNG, or SVG when the name ends in .svg.
    #[arg(short, long, value_name = "PNG|SVG")]
    output: PathBuf,
    /// The shapes to draw (comma-separated; default: the ten most active).
    #[arg(long, value_name = "A,B,...", value_delimiter = ',')]
    shapes: Vec<String>,
    /// Width in pixels.
    #[arg(long, default_value_t = 1600)]
    width: u32,
    /// Height in pixels.
    #[arg(long, default_value_t = 900)]
    height: u32,
    #[command(flatten)]
    read: ReadArgs,
    #[command(flatten)]
    out: OutputArgs,
}

/// Runs `llv plot`.
pub fn run(args: Args) -> Result<()> {
    let shapes = args
        .shapes
        .iter()
        .map(|s| shape(s).context("--shapes"))
        .collect::<Result<Vec<_>>>()?;
    let options = PlotOptions {
        shapes: Some(shapes),
        width: args.width,
        height: args.height,
        ..PlotOptions::default()
    };
    plot_file(
        &args.input,
        &args.read.options(),
        &args.output,
        &options,
        args.out.force,
    )?;
    eprintln!("wrote {}", args.output.display());
    Ok(())
}
