//! `unpack`, `pack` and `convert`: read any recording, edit, write a format.

use std::path::PathBuf;

use anyhow::{anyhow, Result};

use crate::args::{EditArgs, OutputArgs, ReadArgs};
use crate::output;
use crate::recording::{self, Format, WriteOptions};

/// What `unpack`, `pack` and `convert` share: IN, OUT, the edits, how to read, OUT's replacement.
#[derive(clap::Args, Debug)]
pub struct Transcode {
    /// Recording to read (any format; `-` for standard input).
    input: PathBuf,
    /// File to write (`-` for standard output).
    output: PathBuf,
    #[command(flatten)]
    edit: EditArgs,
    #[command(flatten)]
    read: ReadArgs,
    #[command(flatten)]
    out: OutputArgs,
}

/// `llv unpack IN OUT`: IN as clear JSON.
#[derive(clap::Args, Debug)]
pub struct UnpackArgs {
    #[command(flatten)]
    job: Transcode,
    /// Keep each raw packet as "raw_frame": {"size": N, "data": base64}.
    #[arg(long)]
    retain: bool,
}

/// `llv pack IN OUT`: IN (normally clear JSON) as a recording.
#[derive(clap::Args, Debug)]
pub struct PackArgs {
    #[command(flatten)]
    job: Transcode,
    /// Output format: native base64 lines (default) or LLV's gzip.
    #[arg(long, value_enum, default_value = "native")]
    to: Format,
}

/// `llv convert IN OUT`.
#[derive(clap::Args, Debug)]
pub struct ConvertArgs {
    #[command(flatten)]
    job: Transcode,
    /// Output format; by default from OUT's name (.gesichter native, .klare-gesichter/.json
    /// JSON, .csv a Live Link Face CSV take).
    #[arg(long, value_enum)]
    to: Option<Format>,
}

/// Writes IN as clear JSON.
pub fn unpack(args: UnpackArgs) -> Result<()> {
    let options = WriteOptions {
        retain_raw: args.retain,
    };
    args.job.run(Format::Json, options)
}

/// Writes IN (normally clear JSON) as a recording.
pub fn pack(args: PackArgs) -> Result<()> {
    args.job.run(args.to, WriteOptions::default())
}

/// Writes IN in the format asked for or implied by OUT's name.
pub fn convert(args: ConvertArgs) -> Result<()> {
    let output = &args.job.output;
    let format = match args.to {
        Some(format) => format,
        None => Format::from_name(output).ok_or_else(|| {
            anyhow!(
                "cannot tell the output format from {output:?}; add --to native, llv, json or csv"
            )
        })?,
    };
    args.job.run(format, WriteOptions::default())
}

impl Transcode {
    /// Reads IN, edits it and writes OUT in `format`.
    fn run(&self, format: Format, options: WriteOptions) -> Result<()> {
        let output = self.output.as_path();
        if !recording::is_stdio(output) {
            // Before the work: the write refuses again, atomically, if the file appears meanwhile.
            output::check_free(output, self.out.force)?;
        }
        let take = recording::load(&self.input, &self.read.options())?
            .take
            .edited(&self.edit.edit())?;
        recording::write(output, format, &take, options, self.out.force)?;
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
}
