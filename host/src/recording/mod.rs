//! Recording files: one reader that detects and reads every format, and one
//! writer per output format. The dispatch lives in [`format`](mod@format).
//!
//! | module | what it holds |
//! |---|---|
//! | [`format`](mod@format) | [`Format`]: detection, names, and the dispatch to each reader and writer |
//! | [`frames`] | [`Frames`]: any recording read frame by frame on a thread |
//! | [`stream`] | what readers and writers build on: input, emitter, [`FrameSink`], spool |
//! | [`native`], [`llv`], [`legacy`], [`clear`], [`csv`] | one format each |
//! | [`gzip`] | one gzip member deflated on every core (LLV's files) |
//! | [`clear_layout`] | clear JSON's exact byte layout as LLV prints it, both directions |
//! | [`pyrepr`] | numbers and strings printed as Python's `json.dumps` prints them |
//!
//! Errors name the file, the line (text formats) or frame index (binary and
//! JSON formats) and the packet field at fault.

pub mod clear;
pub mod clear_layout;
pub mod csv;
pub mod format;
pub mod frames;
pub mod gzip;
pub mod legacy;
pub mod llv;
pub mod native;
pub mod pyrepr;
pub mod stream;

use std::io::{self, BufRead, BufWriter, Read, Write};
use std::path::Path;

use anyhow::{anyhow, bail, Context, Result};

pub use format::Format;
pub use frames::Frames;
pub use stream::FrameSink;

use crate::output;
use crate::take::Take;
use csv::ImportOptions;

/// What the message about a refused non-finite value adds.
pub const NONFINITE_HINT: &str = "--allow-nonfinite keeps it";

/// How to read a take: CSV identity and rate, and whether non-finite values pass.
#[derive(Clone, Debug, Default)]
pub struct ReadOptions {
    /// What a CSV take needs (rate, subject, device id).
    pub csv: ImportOptions,
    /// Accept NaN, infinities and numbers beyond f32 in CSV and clear JSON
    /// (refused by default, naming file, line and column).
    pub allow_nonfinite: bool,
}

/// A recording read into memory, with the format it was in and any warnings.
#[derive(Debug)]
pub struct Loaded {
    /// The format the reader detected.
    pub format: Format,
    /// The frames.
    pub take: Take,
    /// Things skipped on the way (e.g. a partial last line), each naming file and line.
    pub warnings: Vec<String>,
}

/// Reads a whole recording of any format from `path` (`-` is standard input)
/// into memory; [`Frames::open`] reads it frame by frame instead.
pub fn read(path: &Path, options: &ReadOptions) -> Result<Loaded> {
    let mut frames = Frames::open(path, options)?;
    collect(&mut frames)
}

/// Reads a recording of any format from memory with the default options; `name` is used in messages.
pub fn read_bytes(name: &str, bytes: &[u8]) -> Result<Loaded> {
    let mut frames = Frames::from_bytes(name, bytes.to_vec(), &ReadOptions::default())?;
    collect(&mut frames)
}

fn collect(frames: &mut Frames) -> Result<Loaded> {
    let take = frames.collect_take()?;
    Ok(Loaded {
        format: frames.format(),
        take,
        warnings: frames.warnings().to_vec(),
    })
}

/// Longest line a line-based recording may hold (a native line is at most
/// 1032 characters, a legacy one a few thousand).
pub const MAX_LINE: usize = 1 << 20;

/// Runs `frame` on every line of a line-based recording, skipping blank and `#`
/// lines. A failing line is an error naming file and line, except an unterminated
/// last line (a killed recording), which becomes a warning and is skipped.
fn each_line(
    name: &str,
    input: &mut dyn BufRead,
    warnings: &mut Vec<String>,
    mut frame: impl FnMut(&[u8]) -> Result<(), String>,
) -> Result<()> {
    let mut raw = Vec::with_capacity(4096);
    for number in 1.. {
        raw.clear();
        let got = input
            .take(MAX_LINE as u64 + 1)
            .read_until(b'\n', &mut raw)
            .with_context(|| format!("{name}: line {number}: cannot read"))?;
        if got == 0 {
            break;
        }
        let terminated = raw.last() == Some(&b'\n');
        if !terminated && raw.len() > MAX_LINE {
            bail!("{name}: line {number}: longer than {MAX_LINE} bytes: not a recording");
        }
        let text = raw.trim_ascii();
        if text.is_empty() || text.starts_with(b"#") {
            continue;
        }
        match frame(text) {
            Ok(()) => {}
            Err(e) if !terminated => warnings.push(format!(
                "{name}: line {number}: partial last line ({} characters, no line end) skipped: {e}",
                text.len()
            )),
            Err(e) => bail!("{name}: line {number}: {e}"),
        }
    }
    Ok(())
}

/// Options that only some output formats use.
#[derive(Clone, Copy, Debug, Default)]
pub struct WriteOptions {
    /// Clear JSON: add each frame's raw packet as `"raw_frame"`.
    pub retain_raw: bool,
}

/// Writes `take` to `path` (`-` is standard output) in `format`; a file
/// through [`output::write_file`] (an existing one is replaced only with `force`).
pub fn write(
    path: &Path,
    format: Format,
    take: &Take,
    options: WriteOptions,
    force: bool,
) -> Result<()> {
    if !is_stdio(path) {
        return output::write_file(path, force, |out| format.write(take, out, options));
    }
    let stdout = io::stdout();
    let mut out = BufWriter::with_capacity(1 << 16, stdout.lock());
    format
        .write(take, &mut out, options)
        .and_then(|()| out.flush())
        .context("standard output: cannot write")
}

/// Writes OUT (`-` is standard output) in `format` through `body`, which
/// pushes the frames: a named file atomically, replaced only with `force`.
/// Errors of `body` pass as they are; errors of the writing name OUT.
/// Returns the frames written.
pub fn write_stream(
    path: &Path,
    format: Format,
    options: WriteOptions,
    force: bool,
    body: impl FnOnce(&mut dyn FnMut(&[u8]) -> Result<()>) -> Result<()>,
) -> Result<u64> {
    let target = display_name(path);
    let cannot = |e: io::Error| anyhow!("{target}: cannot write: {e}");
    let run = |out: &mut dyn Write| -> Result<u64> {
        let mut sink = format.sink(out, options).map_err(cannot)?;
        body(&mut |packet: &[u8]| sink.push(packet).map_err(cannot))?;
        sink.finish().map_err(cannot)?;
        Ok(sink.count())
    };
    if is_stdio(path) {
        let stdout = io::stdout();
        let mut out = io::BufWriter::with_capacity(1 << 16, stdout.lock());
        let count = run(&mut out)?;
        out.flush().context("standard output: cannot write")?;
        return Ok(count);
    }
    let mut count = 0;
    output::write_file_with(path, force, |out| {
        count = run(out)?;
        Ok(())
    })?;
    Ok(count)
}

/// True for the `-` path that stands for standard input or output.
pub fn is_stdio(path: &Path) -> bool {
    path.as_os_str() == "-"
}

fn display_name(path: &Path) -> String {
    if is_stdio(path) {
        "<stdio>".to_string()
    } else {
        path.display().to_string()
    }
}

/// [`read`], printing each warning to standard error.
pub fn load(path: &Path, options: &ReadOptions) -> Result<Loaded> {
    let loaded = read(path, options)?;
    for warning in &loaded.warnings {
        eprintln!("warning: {warning}");
    }
    Ok(loaded)
}

/// [`Frames::open`] for the commands: the frames of `path`, read as they are asked for.
pub fn open(path: &Path, options: &ReadOptions) -> Result<Frames> {
    Frames::open(path, options)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::take::tests_support::sample_take;

    /// Every cut and every single-byte change of a file in each format reads as
    /// frames, warnings or an error naming the file: never a panic.
    #[test]
    fn damaged_files_never_panic() {
        let take = sample_take(2);
        for format in [Format::Native, Format::Llv, Format::Json] {
            let mut file = Vec::new();
            format
                .write(&take, &mut file, WriteOptions::default())
                .unwrap();
            let step = (file.len() / 300).max(1);
            for cut in (0..file.len()).step_by(step) {
                if let Err(e) = read_bytes("cut", &file[..cut]) {
                    assert!(e.to_string().starts_with("cut"), "{e}");
                }
            }
            for at in (0..file.len()).step_by(step) {
                for byte in [0u8, b'{', b'=', 0xff] {
                    let mut damaged = file.clone();
                    damaged[at] = byte;
                    if let Err(e) = read_bytes("flip", &damaged) {
                        assert!(e.to_string().starts_with("flip"), "{e}");
                    }
                }
            }
        }
    }
}
