//! `llv remap`: curves for any rig from a take, through a rig map (LLV's
//! mapping library JSON or an `arkit,target,weight` table, see [`crate::rig`]);
//! the same CSV, timelines and batch as `llv retarget`.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;

use crate::commands::retarget::{run_curves, TakesArgs};
use crate::rig::RigMap;

const EXAMPLES: &str = "\
The output is the curve CSV of `llv retarget`: Timecode, then one column per
target of the map, in the map's order, 10 decimals. target = weight x ARKit;
several shapes driving one target add up (--combine sum) or take the largest
(--combine max).

Examples:
  llv remap take.csv --map cc4.json -o take.cc4.csv        # LLV's mapping library JSON
  llv remap take.gesichter --map daz.csv                   # arkit,target,weight table: take.daz.csv
  llv remap takes/ --map rig.csv --out-dir curves/ --combine max --offset 01:00:00:00";

/// `llv remap IN --map MAP [-o OUT | --out-dir DIR] ...`.
#[derive(clap::Args, Debug)]
#[command(after_help = EXAMPLES)]
pub struct Args {
    /// The rig map: LLV's mapping library JSON, or a CSV table arkit,target,weight.
    #[arg(long, value_name = "MAP")]
    map: PathBuf,
    #[command(flatten)]
    takes: TakesArgs,
}

/// Runs `llv remap`; the exit code is non-zero when any take failed.
pub fn run(args: &Args) -> Result<ExitCode> {
    let map = RigMap::load(&args.map)?;
    let curves = map.retargeter(args.takes.combine)?;
    let rig = args
        .map
        .file_stem()
        .map_or("rig".into(), |s| s.to_string_lossy().into_owned());
    run_curves(
        &args.takes,
        &curves,
        &args.map,
        &format!(".{rig}.csv"),
        "remapped",
    )
}
