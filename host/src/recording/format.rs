//! The recording formats and the one place that dispatches reading and writing
//! to them. To add a format: a variant, its detection, its name rule, and one
//! arm in [`Format::read_stream`] and [`Format::sink`].

use std::io::{self, Write};
use std::path::Path;

use anyhow::{bail, Context, Result};

use super::stream::{Emitter, FrameSink, Input};
use super::{clear, csv, legacy, llv, native, ReadOptions, WriteOptions};
use crate::take::Take;

/// The extension of native recordings (base64 lines), which LLV cannot read;
/// `.gesichter` names LLV's gzip, which it can.
pub const NATIVE_EXTENSION: &str = ".gesichter-lines";

/// A byte of the base64 alphabet (RFC 4648, with padding).
fn is_base64(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || matches!(byte, b'+' | b'/' | b'=')
}

/// A recording format (FORMATS.md section 3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// The project's native recording: one base64 packet per line (3a).
    Native,
    /// LLV 1.1+ gzip recording (3b).
    Llv,
    /// LLV's legacy lines of base64 JSON (3c), read-only.
    #[value(skip)]
    LlvLegacy,
    /// Clear JSON, LLV's `unpack` output (3d).
    Json,
    /// A Live Link Face CSV take (FORMATS.md section 4).
    Csv,
}

impl Format {
    /// Tells the format from a file's first bytes.
    pub fn detect(bytes: &[u8]) -> Result<Format> {
        if bytes.starts_with(&[0x1f, 0x8b]) {
            return Ok(Format::Llv);
        }
        let text_start = bytes.iter().position(|b| !b.is_ascii_whitespace());
        if text_start.is_some_and(|at| bytes[at] == b'{') {
            return Ok(Format::Json);
        }
        if bytes
            .get(..9)
            .is_some_and(|head| head.eq_ignore_ascii_case(b"Timecode,"))
        {
            return Ok(Format::Csv);
        }
        let first_line = bytes
            .split(|b| *b == b'\n')
            .map(|l| l.trim_ascii())
            .find(|l| !l.is_empty() && !l.starts_with(b"#"));
        match first_line {
            // base64 of `{"`: a JSON frame per line.
            Some(line) if line.starts_with(b"eyJ") => Ok(Format::LlvLegacy),
            Some(line) if line.iter().any(|b| !b.is_ascii_graphic()) => {
                bail!("not a recording: binary data that is neither gzip nor base64 lines")
            }
            Some(line) if line.contains(&b',') => bail!(
                "not a recording: a CSV whose first line is not a Live Link Face take's \
                 header (`Timecode,BlendshapeCount,...`)"
            ),
            Some(line) if !line.iter().all(|b| is_base64(*b)) => bail!(
                "not a recording: its first line is neither base64 lines, JSON, gzip \
                 nor a Live Link Face CSV header"
            ),
            _ => Ok(Format::Native),
        }
    }

    /// The output format a file name implies: `.gesichter` LLV's gzip (the
    /// name LLV gives its files, and the format it reads), `.gesichter-lines`
    /// native base64 lines, `.klare-gesichter` / `.json` JSON, `.csv` a Live
    /// Link Face CSV take.
    pub fn from_name(path: &Path) -> Option<Format> {
        let name = path.file_name()?.to_str()?.to_ascii_lowercase();
        if name.ends_with(".klare-gesichter") || name.ends_with(".json") {
            Some(Format::Json)
        } else if name.ends_with(NATIVE_EXTENSION) {
            Some(Format::Native)
        } else if name.ends_with(".gesichter") {
            Some(Format::Llv)
        } else if name.ends_with(".csv") {
            Some(Format::Csv)
        } else {
            None
        }
    }

    /// The format asked for by `given` (the command's `flag`), else the one
    /// OUT's name implies, else an error saying which flag to add.
    pub fn for_output(path: &Path, given: Option<Format>, flag: &str) -> Result<Format> {
        match given {
            Some(format) => Ok(format),
            None => Format::from_name(path).ok_or_else(|| {
                anyhow::anyhow!(
                    "cannot tell the output format from {path:?}; add {flag} native, llv, json or csv"
                )
            }),
        }
    }

    /// A human name for messages.
    pub fn describe(self) -> &'static str {
        match self {
            Format::Native => "native (base64 lines)",
            Format::Llv => "LLV gzip",
            Format::LlvLegacy => "LLV legacy (base64 JSON lines)",
            Format::Json => "clear JSON",
            Format::Csv => "Live Link Face CSV take",
        }
    }

    /// Reads a source of this format frame by frame into `emit`; `name` is
    /// used in errors and warnings.
    pub fn read_stream(
        self,
        name: &str,
        input: &mut Input,
        options: &ReadOptions,
        emit: &mut Emitter,
        warnings: &mut Vec<String>,
    ) -> Result<()> {
        let allow = options.allow_nonfinite;
        match self {
            Format::Native => native::read(name, input, emit, warnings),
            Format::Llv => llv::read(name, input, emit, warnings),
            Format::LlvLegacy => legacy::read(name, input, allow, emit, warnings),
            Format::Json => clear::read(name, input, allow, emit, warnings),
            Format::Csv => csv::read_stream(&mut input.reader, &options.csv, allow, emit)
                .with_context(|| name.to_string()),
        }
    }

    /// A sink writing this format to `out`.
    pub fn sink<'a>(
        self,
        out: &'a mut dyn Write,
        options: WriteOptions,
    ) -> io::Result<Box<dyn FrameSink + 'a>> {
        Ok(match self {
            Format::Native => Box::new(native::Sink::new(out)),
            Format::Llv => Box::new(llv::Sink::new(out, options.count)?),
            Format::LlvLegacy => {
                return Err(io::Error::other(
                    "LLV legacy recordings are read-only; write native, llv or json",
                ))
            }
            Format::Json => Box::new(clear::Sink::new(out, options.retain_raw, options.count)?),
            Format::Csv => Box::new(csv::Sink::new(out)?),
        })
    }

    /// Writes `take` in this format.
    pub fn write(self, take: &Take, out: &mut dyn Write, options: WriteOptions) -> io::Result<()> {
        let options = WriteOptions {
            count: Some(take.len() as u64),
            ..options
        };
        let mut sink = self.sink(out, options)?;
        for packet in take.packets() {
            sink.push(packet)?;
        }
        sink.finish()
    }
}
