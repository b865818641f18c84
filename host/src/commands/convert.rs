//! `unpack`, `pack` and `convert`: read any recording, edit, write a format.

use std::path::{Path, PathBuf};

use anyhow::{anyhow, Result};

use crate::args::{EditArgs, OutputArgs, ReadArgs};
use crate::output;
use crate::recording::{self, Format, ReadOptions, WriteOptions};

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
    #[command(flatten)]
    read: ReadArgs,
    #[command(flatten)]
    out: OutputArgs,
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
    #[command(flatten)]
    read: ReadArgs,
    #[command(flatten)]
    out: OutputArgs,
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
    read: ReadArgs,
    #[command(flatten)]
    out: OutputArgs,
}

/// Writes IN as clear JSON.
pub fn unpack(args: UnpackArgs) -> Result<()> {
    let options = WriteOptions {
        retain_raw: args.retain,
    };
    let job = Job {
        input: &args.input,
        output: &args.output,
        edit: &args.edit,
        read: &args.read.options(),
        force: args.out.force,
    };
    job.run(Format::Json, options)
}

/// Writes IN (normally clear JSON) as a recording.
pub fn pack(args: PackArgs) -> Result<()> {
    let job = Job {
        input: &args.input,
        output: &args.output,
        edit: &args.edit,
        read: &args.read.options(),
        force: args.out.force,
    };
    job.run(args.to, WriteOptions::default())
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
    let job = Job {
        input: &args.input,
        output: &args.output,
        edit: &args.edit,
        read: &args.read.options(),
        force: args.out.force,
    };
    job.run(format, WriteOptions::default())
}

/// One take read, edited and written.
struct Job<'a> {
    input: &'a Path,
    output: &'a Path,
    edit: &'a EditArgs,
    read: &'a ReadOptions,
    force: bool,
}

impl Job<'_> {
    fn run(&self, format: Format, options: WriteOptions) -> Result<()> {
        if !recording::is_stdio(self.output) {
            // Before the work: the write refuses again, atomically, if the file appears meanwhile.
            output::check_free(self.output, self.force)?;
        }
        let take = recording::load(self.input, self.read)?
            .take
            .edited(&self.edit.edit())?;
        recording::write(self.output, format, &take, options, self.force)?;
        if !recording::is_stdio(self.output) {
            eprintln!(
                "wrote {} frames to {} as {}",
                take.len(),
                self.output.display(),
                format.describe()
            );
        }
        Ok(())
    }
}
