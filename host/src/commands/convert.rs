//! `unpack`, `pack` and `convert`: read any recording, edit, write a format.

use std::path::{Path, PathBuf};

use anyhow::{anyhow, Result};

use crate::args::{CsvArgs, EditArgs};
use crate::recording::csv::ImportOptions;
use crate::recording::{self, Format, WriteOptions};

/// `llv unpack IN OUT`.
#[derive(clap::Args, Debug)]
pub struct UnpackArgs {
    /// Recording to read (any format; `-` for standard input).
    input: PathBuf,
    /// Clear JSON file to write (`-` for standard output).
    output: PathBuf,
    /// Keep each raw packet as "raw_frame": {"size": N, "data": base64}.
    #[arg(long)]
    retain: bool,
    #[command(flatten)]
    edit: EditArgs,
}

/// `llv pack IN OUT`.
#[derive(clap::Args, Debug)]
pub struct PackArgs {
    /// Clear JSON file to read (any recording format works; `-` for standard input).
    input: PathBuf,
    /// Recording to write (`-` for standard output).
    output: PathBuf,
    /// Output format: native base64 lines (default) or LLV's gzip.
    #[arg(long, value_enum, default_value = "native")]
    to: Format,
    #[command(flatten)]
    edit: EditArgs,
}

/// `llv convert IN OUT`.
#[derive(clap::Args, Debug)]
pub struct ConvertArgs {
    /// Recording to read (any format; `-` for standard input).
    input: PathBuf,
    /// File to write (`-` for standard output).
    output: PathBuf,
    /// Output format; by default from OUT's name (.gesichter native, .klare-gesichter/.json
    /// JSON, .csv a Live Link Face CSV take).
    #[arg(long, value_enum)]
    to: Option<Format>,
    #[command(flatten)]
    edit: EditArgs,
    #[command(flatten)]
    csv: CsvArgs,
}

/// Writes IN as clear JSON.
pub fn unpack(args: UnpackArgs) -> Result<()> {
    let options = WriteOptions {
        retain_raw: args.retain,
    };
    let csv = ImportOptions::default();
    transcode(
        &args.input,
        &args.output,
        Format::Json,
        &args.edit,
        &csv,
        options,
    )
}

/// Writes IN (normally clear JSON) as a recording.
pub fn pack(args: PackArgs) -> Result<()> {
    transcode(
        &args.input,
        &args.output,
        args.to,
        &args.edit,
        &ImportOptions::default(),
        WriteOptions::default(),
    )
}

/// Writes IN in the format asked for or implied by OUT's name.
pub fn convert(args: ConvertArgs) -> Result<()> {
    let format = match args.to {
        Some(format) => format,
        None => Format::from_name(&args.output).ok_or_else(|| {
            anyhow!(
                "cannot tell the output format from {:?}; add --to native, llv, json or csv",
                args.output
            )
        })?,
    };
    transcode(
        &args.input,
        &args.output,
        format,
        &args.edit,
        &args.csv.options(),
        WriteOptions::default(),
    )
}

fn transcode(
    input: &Path,
    output: &Path,
    format: Format,
    edit: &EditArgs,
    csv: &ImportOptions,
    options: WriteOptions,
) -> Result<()> {
    let take = recording::load_with(input, csv)?
        .take
        .edited(&edit.edit())?;
    recording::write(output, format, &take, options)?;
    if !recording::is_stdio(output) {
        eprintln!(
            "wrote {} frames to {} as {}",
            take.len(),
            output.display(),
            format.describe()
        );
    }
    Ok(())
}
