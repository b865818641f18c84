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
//! | `deflate` | the deflate encoder [`gzip`] runs on each block: zlib's quickest kind, faster |
//! | [`clear_layout`] | clear JSON's exact byte layout as LLV prints it, both directions |
//! | [`pyrepr`] | numbers and strings printed as Python's `json.dumps` prints them |
//!
//! Errors name the file, the line (text formats) or frame index (binary and
//! JSON formats) and the packet field at fault.

pub mod clear;
pub mod clear_layout;
pub mod csv;
mod deflate;
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
    /// The frames the output will hold, when known before they come: LLV
    /// gzip and clear JSON, whose header holds the count, then write it
    /// first and stream their body instead of spooling it. Another count at
    /// the end fails the write with [`stream::CountChanged`].
    pub count: Option<u64>,
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
    let cannot = |e: io::Error| match stream::CountChanged::of(&e) {
        Some(changed) => anyhow::Error::new(changed),
        None => anyhow!("{target}: cannot write: {e}"),
    };
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

/// [`write_stream`] told `count` frames (see [`WriteOptions::count`]): when
/// `body` gives another count, the file is written again by `body` without
/// it (the first attempt leaves nothing). Standard output is never told.
pub fn write_counted(
    path: &Path,
    format: Format,
    options: WriteOptions,
    count: Option<u64>,
    force: bool,
    mut body: impl FnMut(&mut dyn FnMut(&[u8]) -> Result<()>) -> Result<()>,
) -> Result<u64> {
    let count = count.filter(|_| !is_stdio(path));
    if count.is_some() {
        let told = WriteOptions { count, ..options };
        match write_stream(path, format, told, force, &mut body) {
            Err(e) if e.downcast_ref::<stream::CountChanged>().is_some() => {}
            done => return done,
        }
    }
    write_stream(
        path,
        format,
        WriteOptions {
            count: None,
            ..options
        },
        force,
        body,
    )
}

/// The frame count a file's header announces (LLV gzip, clear JSON), read
/// from its first bytes; `None` for other formats, standard input, anything
/// but a regular file (a pipe read here would lose its first bytes), or a
/// header that does not read.
pub fn announced_count(path: &Path) -> Option<u64> {
    if is_stdio(path) || !std::fs::metadata(path).ok()?.is_file() {
        return None;
    }
    let mut head = [0u8; 64];
    let mut file = std::fs::File::open(path).ok()?;
    let got = read_up_to(&mut file, &mut head).ok()?;
    let head = &head[..got];
    if head.starts_with(&[0x1f, 0x8b]) {
        let mut gz = flate2::read::GzDecoder::new(std::fs::File::open(path).ok()?);
        let mut start = [0u8; llv_core::llv_file::HEADER_LEN];
        let got = read_up_to(&mut gz, &mut start).ok()?;
        return llv_core::llv_file::header(&start[..got])
            .ok()
            .map(u64::from);
    }
    clear_layout::parse_file_start(head).map(|(count, _)| count)
}

fn read_up_to(input: &mut dyn Read, buf: &mut [u8]) -> io::Result<usize> {
    let mut got = 0;
    while got < buf.len() {
        match input.read(&mut buf[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(got)
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

    /// A writer told the count writes its header first; told a wrong count,
    /// `write_counted` writes the file again without it.
    #[test]
    fn counts_told_first_are_checked_and_a_wrong_one_is_written_again() {
        let take = sample_take(3);
        let dir = tempfile::tempdir().unwrap();
        for format in [Format::Llv, Format::Json] {
            let mut told = Vec::new();
            let options = WriteOptions {
                count: Some(4),
                ..WriteOptions::default()
            };
            let mut sink = format.sink(&mut told, options).unwrap();
            for p in take.packets() {
                sink.push(p).unwrap();
            }
            let e = sink.finish().unwrap_err();
            assert_eq!(
                stream::CountChanged::of(&e),
                Some(stream::CountChanged {
                    announced: 4,
                    written: 3
                })
            );
            let path = dir.path().join(format!("t.{}", format.describe()));
            let mut attempts = 0;
            let written = write_counted(
                &path,
                format,
                WriteOptions::default(),
                Some(4),
                false,
                |sink| {
                    attempts += 1;
                    take.packets().try_for_each(&mut *sink)
                },
            )
            .unwrap();
            assert_eq!((written, attempts), (3, 2));
            let read = read(&path, &ReadOptions::default()).unwrap();
            assert_eq!(read.take, take);
            assert!(read.warnings.is_empty(), "{:?}", read.warnings);
            assert_eq!(announced_count(&path), Some(3));
            // Told the right count: one attempt, the same bytes as spooled.
            let right = dir.path().join(format!("r.{}", format.describe()));
            let mut attempts = 0;
            write_counted(
                &right,
                format,
                WriteOptions::default(),
                Some(3),
                false,
                |sink| {
                    attempts += 1;
                    take.packets().try_for_each(&mut *sink)
                },
            )
            .unwrap();
            assert_eq!(attempts, 1);
            assert_eq!(
                std::fs::read(&right).unwrap(),
                std::fs::read(&path).unwrap()
            );
        }
    }

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
