//! `unpack`, `pack` and `convert`: read any recording, edit, write a format.

use std::path::PathBuf;

use anyhow::{anyhow, Result};

use crate::args::{EditArgs, OutputArgs, ReadArgs};
use crate::output;
use crate::progress;
use crate::recording::write_counted;
use crate::recording::{self, Format, WriteOptions};
use llv_core::packet::MAX_LEN;

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
#[command(after_help = "\
Examples:
  llv unpack examples/dao.gesichter dao.klare-gesichter   # what LLV 1.4's unpack prints
  llv unpack --retain take1.gesichter - | less            # with each raw packet, base64")]
pub struct UnpackArgs {
    #[command(flatten)]
    job: Transcode,
    /// Keep each raw packet as "raw_frame": {"size": N, "data": base64}.
    #[arg(long)]
    retain: bool,
}

/// `llv pack IN OUT`: IN (normally clear JSON) as a recording.
#[derive(clap::Args, Debug)]
#[command(after_help = "\
Examples:
  llv pack dao.klare-gesichter dao.gesichter          # LLV's gzip (the name says so)
  llv pack dao.klare-gesichter dao.gesichter-lines    # native lines
  llv pack --to native dao.klare-gesichter -          # native lines to standard output")]
pub struct PackArgs {
    #[command(flatten)]
    job: Transcode,
    /// Output format; by default from OUT's name (.gesichter LLV's gzip, which LLV reads;
    /// .gesichter-lines native base64 lines), else native.
    #[arg(long, value_enum)]
    to: Option<Format>,
}

/// `llv convert IN OUT`.
#[derive(clap::Args, Debug)]
#[command(after_help = "\
Examples:
  llv convert take1.gesichter-lines take1.gesichter     # native lines -> LLV gzip (from the name)
  llv convert examples/dao.gesichter dao.csv            # -> a Live Link Face CSV take
  llv convert take.csv take.gesichter --rename Hero     # a phone CSV take -> LLV gzip
  llv convert examples/legacy.gesichter new.gesichter --anonymize")]
pub struct ConvertArgs {
    #[command(flatten)]
    job: Transcode,
    /// Output format; by default from OUT's name (.gesichter LLV's gzip, which LLV reads;
    /// .gesichter-lines native base64 lines; .klare-gesichter/.json JSON; .csv a Live Link
    /// Face CSV take).
    #[arg(long, value_enum)]
    to: Option<Format>,
}

/// Writes IN as clear JSON.
pub fn unpack(args: UnpackArgs) -> Result<()> {
    let options = WriteOptions {
        retain_raw: args.retain,
        ..WriteOptions::default()
    };
    args.job.run(Format::Json, options)
}

/// Writes IN (normally clear JSON) as a recording.
pub fn pack(args: PackArgs) -> Result<()> {
    let format = args
        .to
        .or_else(|| Format::from_name(&args.job.output))
        .unwrap_or(Format::Native);
    args.job.run(format, WriteOptions::default())
}

/// Writes IN in the format asked for or implied by OUT's name.
pub fn convert(args: ConvertArgs) -> Result<()> {
    let output = &args.job.output;
    let format = Format::for_output(output, args.to, "--to")?;
    args.job.run(format, WriteOptions::default())
}

impl Transcode {
    /// Reads IN frame by frame, edits each frame and writes OUT in `format`.
    fn run(&self, format: Format, options: WriteOptions) -> Result<()> {
        let output = self.output.as_path();
        if !recording::is_stdio(output) {
            // Before the work: the write refuses again, atomically, if the file appears meanwhile.
            output::check(output, &[&self.input], self.out.force)?;
        }
        let edit = self.edit.edit();
        // The input's header count lets LLV gzip and clear JSON write theirs
        // first instead of spooling the body (written again without it if
        // the file holds another count, e.g. a cut LLV file).
        let count = recording::announced_count(&self.input);
        let mut warnings = Vec::new();
        let written = write_counted(output, format, options, count, self.out.force, |sink| {
            let mut frames = recording::open(&self.input, &self.read.options())?;
            let bar = progress::reading(&frames, "reading");
            let mut buf = [0u8; MAX_LEN];
            let mut index = 0u64;
            let read = (|| -> Result<()> {
                while let Some(chunk) = frames.next_chunk()? {
                    for packet in chunk.packets() {
                        let packet = edit
                            .apply(packet, &mut buf)
                            .map_err(|e| anyhow!("frame {index}: {e}"))?;
                        index += 1;
                        sink(packet)?;
                    }
                    progress::update(&bar, &frames);
                }
                Ok(())
            })();
            bar.finish_and_clear();
            warnings = frames.warnings().to_vec();
            read
        })?;
        for warning in &warnings {
            eprintln!("warning: {warning}");
        }
        if !recording::is_stdio(output) {
            eprintln!(
                "wrote {written} frames to {} as {}",
                output.display(),
                format.describe()
            );
        }
        Ok(())
    }
}
