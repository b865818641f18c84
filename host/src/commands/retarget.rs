//! `llv retarget`: MetaHuman curves for one take or a folder of takes: the
//! files, the timelines (`--offset`, `--sync`) and the batch; the math is in
//! [`crate::metahuman::retarget`].

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{anyhow, bail, Context, Result};
use indicatif::{ProgressBar, ProgressStyle};
use llv_core::time::{FrameRate, Timecode};

use crate::args::{OutputArgs, ReadArgs};
use crate::metahuman::pose_asset::PoseAsset;
use crate::metahuman::retarget::{Combine, CurveWriter, Frame, Retargeter};
use crate::output::{self, Inputs};
use crate::progress;
use crate::recording::{self, ReadOptions};

/// What a retargeted file is named after its take: `<take>.metahuman.csv`.
pub const OUTPUT_SUFFIX: &str = ".metahuman.csv";

const EXAMPLES: &str = "\
Examples:
  llv retarget take.csv --map mh_arkit_mapping_pose.T3D                 # take.metahuman.csv
  llv retarget take.gesichter --map mh_arkit_mapping_pose.T3D -o curves.csv --combine max
  llv retarget takes/ --map mh_arkit_mapping_pose.T3D --out-dir curves/ --sync tc.csv
  llv retarget take.csv --map mh_arkit_mapping_pose.T3D --offset 01:00:00:00 --all-curves";

/// `llv retarget IN --map mapping.T3D [-o OUT | --out-dir DIR] ...`.
#[derive(clap::Args, Debug)]
#[command(after_help = EXAMPLES)]
pub struct RetargetArgs {
    /// The MetaHuman mapping: Unreal's mh_arkit_mapping_pose PoseAsset exported as T3D.
    #[arg(long, value_name = "T3D")]
    map: PathBuf,
    /// Write all curves of the mapping, not only those a pose drives.
    #[arg(long)]
    all_curves: bool,
    #[command(flatten)]
    takes: TakesArgs,
}

/// What `retarget` and `remap` share: the takes, the outputs, the timeline, reading and writing.
#[derive(clap::Args, Debug)]
pub struct TakesArgs {
    /// A take (Live Link Face CSV or recording) or a folder of takes (searched recursively).
    input: PathBuf,
    /// Output CSV of a single take (default: `<take><suffix>` beside it).
    #[arg(short, long, value_name = "OUT", conflicts_with = "out_dir")]
    output: Option<PathBuf>,
    /// Folder for the outputs (default: beside each take).
    #[arg(long, value_name = "DIR")]
    out_dir: Option<PathBuf>,
    /// How the shapes driving one curve combine.
    #[arg(long, value_enum, default_value_t = Combine::Sum)]
    pub combine: Combine,
    /// Move the timecodes so the first frame starts at TC (HH:MM:SS:FF); subframes are kept.
    #[arg(long, value_name = "TC", conflicts_with = "sync")]
    offset: Option<String>,
    /// Move each take to its start timecode in a `Filename,Timecode` table.
    #[arg(long, value_name = "CSV")]
    sync: Option<PathBuf>,
    #[command(flatten)]
    read: ReadArgs,
    #[command(flatten)]
    out: OutputArgs,
}

/// Reads a take's frames from a CSV take or a recording of any format.
pub fn read_take(path: &Path, options: &ReadOptions) -> Result<Vec<Frame>> {
    let take = recording::load(path, options)?.take;
    Ok(take
        .frames()
        .map(|p| Frame {
            time: p.time(),
            shapes: p.frame().blendshapes,
        })
        .collect())
}

fn has_extension(path: &Path, ext: &str) -> bool {
    path.extension()
        .is_some_and(|e| e.to_string_lossy().eq_ignore_ascii_case(ext))
}

/// Where the timeline of each take starts.
enum Start {
    AsRecorded,
    At(Timecode),
    Sync {
        table: HashMap<String, Timecode>,
        path: PathBuf,
    },
}

impl Start {
    fn for_take(&self, take: &Path) -> Result<Option<Timecode>> {
        match self {
            Start::AsRecorded => Ok(None),
            Start::At(tc) => Ok(Some(*tc)),
            Start::Sync { table, path } => {
                let name = take.file_name().map(|n| n.to_string_lossy());
                let stem = take.file_stem().map(|n| n.to_string_lossy());
                [name, stem.clone()]
                    .into_iter()
                    .flatten()
                    .find_map(|key| table.get(key.as_ref()).copied())
                    .map(Some)
                    .ok_or_else(|| {
                        anyhow!(
                            "{} has no row for take {}",
                            path.display(),
                            stem.unwrap_or_default()
                        )
                    })
            }
        }
    }
}

/// Reads a `Filename,Timecode` table (headers in any case, more columns allowed).
fn read_sync(path: &Path) -> Result<HashMap<String, Timecode>> {
    let mut reader = csv::ReaderBuilder::new()
        .flexible(true)
        .from_path(path)
        .with_context(|| format!("cannot open sync table {}", path.display()))?;
    let at = |what: String| anyhow!("sync table {}: {what}", path.display());
    let headers = reader.headers().map_err(|e| at(e.to_string()))?.clone();
    let column = |name: &str| {
        headers
            .iter()
            .position(|h| h.trim().eq_ignore_ascii_case(name))
            .ok_or_else(|| at(format!("line 1: no {name} column")))
    };
    let (file_col, tc_col) = (column("Filename")?, column("Timecode")?);
    let mut table = HashMap::new();
    for record in reader.records() {
        let record = record.map_err(|e| at(e.to_string()))?;
        let line = record.position().map_or(0, |p| p.line());
        let (Some(name), Some(tc)) = (record.get(file_col), record.get(tc_col)) else {
            bail!(at(format!("line {line}: missing Filename or Timecode")));
        };
        let tc = start_timecode(tc).map_err(|e| at(format!("line {line}: {e}")))?;
        if table.insert(name.trim().to_string(), tc).is_some() {
            bail!(at(format!("line {line}: {name} appears twice")));
        }
    }
    Ok(table)
}

/// A start timecode `HH:MM:SS:FF`: whole frames only, since takes move by whole frames.
fn start_timecode(text: &str) -> Result<Timecode, String> {
    let tc = Timecode::parse(text).map_err(|e| format!("`{text}`: {e}"))?;
    if tc.subframe != 0.0 {
        return Err(format!(
            "`{text}`: a start is whole frames (HH:MM:SS:FF); subframes are kept from the take"
        ));
    }
    Ok(tc)
}

/// Shifts all frames by whole frames so the first one falls on `start`.
#[cfg(test)]
fn shift(frames: &mut [Frame], start: Timecode) -> Result<()> {
    let mut shift = Shift::new(start);
    for (i, f) in frames.iter_mut().enumerate() {
        shift.apply(i, f)?;
    }
    Ok(())
}

/// Moves frames by whole frames so that the first one falls on a start timecode.
pub struct Shift {
    start: Timecode,
    /// The first frame's rate and the move in frames, once the first frame is seen.
    delta: Option<(FrameRate, i64)>,
}

impl Shift {
    /// Moves the first frame to `start`, the others with it.
    pub fn new(start: Timecode) -> Self {
        Shift { start, delta: None }
    }

    /// Moves frame `i` (0-based, in order).
    pub fn apply(&mut self, i: usize, f: &mut Frame) -> Result<()> {
        let (rate, delta) = match self.delta {
            Some(d) => d,
            None => {
                let first = f.time;
                let target = self.start.to_frame_time(first.rate).map_err(|e| {
                    anyhow!("start timecode {}: {e} at rate {}", self.start, first.rate)
                })?;
                let d = (
                    first.rate,
                    i64::from(target.frame_number) - i64::from(first.frame_number),
                );
                *self.delta.insert(d)
            }
        };
        if f.time.rate != rate {
            bail!(
                "frame {}: rate {} differs from the first frame's {}; cannot move the timecode",
                i + 1,
                f.time.rate,
                rate
            );
        }
        f.time.frame_number = i32::try_from(i64::from(f.time.frame_number) + delta)
            .ok()
            .filter(|n| *n >= 0)
            .ok_or_else(|| anyhow!("frame {}: moved before 00:00:00:00 or too far", i + 1))?;
        Ok(())
    }
}

/// What every take of a run shares.
struct Job<'a> {
    map: &'a Retargeter,
    /// Every file the run reads (takes, map, sync table): no output may be one.
    inputs: Inputs,
    start: &'a Start,
    read: &'a ReadOptions,
    force: bool,
    /// Show a progress bar per take (a single take; a batch has its own bar).
    progress: bool,
    /// What outputs are named after their take: `<take><suffix>`.
    suffix: &'a str,
    /// What happened to a take, for the summary ("retargeted").
    done: &'a str,
}

/// Retargets one take into `output` (written atomically, replaced only with
/// `--force`), frame by frame; returns its frame count.
fn retarget_take(input: &Path, output: &Path, job: &Job<'_>) -> Result<usize> {
    job.inputs.check(output, job.force)?;
    let mut shift = job.start.for_take(input)?.map(Shift::new);
    let mut frames = recording::open(input, job.read)?;
    if let Some(dir) = output.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    }
    let bar = job
        .progress
        .then(|| progress::reading(&frames, "retargeting"));
    let mut rows = 0;
    let written = output::write_file_with(output, job.force, |out| {
        let cannot = |e: anyhow::Error| anyhow!("{}: cannot write: {e}", output.display());
        let mut writer = CurveWriter::new(out, job.map).map_err(cannot)?;
        while let Some(chunk) = frames.next_chunk()? {
            for packet in chunk.frames() {
                let mut frame = Frame {
                    time: packet.time(),
                    shapes: packet.frame().blendshapes,
                };
                if let Some(shift) = &mut shift {
                    shift
                        .apply(writer.rows(), &mut frame)
                        .with_context(|| input.display().to_string())?;
                }
                writer.frame(&frame).map_err(cannot)?;
            }
            if let Some(bar) = &bar {
                progress::update(bar, &frames);
            }
        }
        rows = writer.rows();
        if rows == 0 {
            bail!("{}: no frames", input.display());
        }
        writer.finish().map_err(cannot)
    });
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    written?;
    frames.print_warnings();
    Ok(rows)
}

/// `<take><suffix>` in `dir`.
fn output_name(take: &Path, dir: &Path, suffix: &str) -> PathBuf {
    let stem = take.file_stem().unwrap_or_default().to_string_lossy();
    dir.join(format!("{stem}{suffix}"))
}

/// Runs `llv retarget`; the exit code is non-zero when any take failed.
pub fn run(args: &RetargetArgs) -> Result<ExitCode> {
    let asset = PoseAsset::load(&args.map)?;
    let map = Retargeter::new(&asset, args.takes.combine, args.all_curves);
    run_curves(&args.takes, &map, &args.map, OUTPUT_SUFFIX, "retargeted")
}

/// Writes the curves of `map` (read from `map_file`) for one take or a folder
/// of takes; outputs are named `<take><suffix>` unless `-o`; `done` says what
/// happened to a take in the batch summary. The exit code is non-zero when
/// any take failed.
pub fn run_curves(
    args: &TakesArgs,
    map: &Retargeter,
    map_file: &Path,
    suffix: &str,
    done: &str,
) -> Result<ExitCode> {
    let start = match (&args.offset, &args.sync) {
        (Some(tc), _) => Start::At(start_timecode(tc).map_err(|e| anyhow!("--offset {e}"))?),
        (None, Some(path)) => Start::Sync {
            table: read_sync(path)?,
            path: path.clone(),
        },
        (None, None) => Start::AsRecorded,
    };
    let read = args.read.options();
    let mut inputs = Inputs::new(&[map_file, &args.input]);
    if let Some(sync) = &args.sync {
        inputs.add(sync);
    }
    let takes = if args.input.is_dir() {
        find_takes(&args.input, args.sync.as_deref(), suffix)?
    } else {
        Vec::new()
    };
    for take in &takes {
        inputs.add(take);
    }
    let job = Job {
        map,
        inputs,
        start: &start,
        read: &read,
        force: args.out.force,
        progress: !args.input.is_dir(),
        suffix,
        done,
    };
    if !args.input.is_dir() {
        let output = match (&args.output, &args.out_dir) {
            (Some(out), _) => out.clone(),
            (None, Some(dir)) => output_name(&args.input, dir, suffix),
            (None, None) => output_name(
                &args.input,
                args.input.parent().unwrap_or(Path::new("")),
                suffix,
            ),
        };
        let frames = retarget_take(&args.input, &output, &job)?;
        crate::outln!(
            "{} -> {}: {frames} frames, {} curves",
            args.input.display(),
            output.display(),
            map.curves().len()
        );
        return Ok(ExitCode::SUCCESS);
    }
    if args.output.is_some() {
        bail!("-o names one output file; for a folder use --out-dir");
    }
    batch(args, &job, takes)
}

/// Every take in the folder `args.input`: a log line each, a summary, no stop
/// on failure. Takes whose outputs would be one file (`A.csv` and
/// `A.gesichter` both give `A.metahuman.csv`; names compared ignoring case, as
/// some file systems do) all fail, naming each other, before anything is written.
fn batch(args: &TakesArgs, job: &Job<'_>, takes: Vec<PathBuf>) -> Result<ExitCode> {
    if takes.is_empty() {
        bail!(
            "{}: no takes (*.csv, *.gesichter) in this folder",
            args.input.display()
        );
    }
    let outputs: Vec<PathBuf> = takes
        .iter()
        .map(|take| {
            let relative = take.strip_prefix(&args.input).unwrap_or(take);
            let dir = match &args.out_dir {
                Some(out) => out.join(relative.parent().unwrap_or(Path::new(""))),
                None => take.parent().unwrap_or(Path::new("")).to_path_buf(),
            };
            output_name(take, &dir, job.suffix)
        })
        .collect();
    let mut by_output: HashMap<String, Vec<usize>> = HashMap::new();
    for (i, output) in outputs.iter().enumerate() {
        let key = output.to_string_lossy().to_lowercase();
        by_output.entry(key).or_default().push(i);
    }
    let bar = ProgressBar::new(takes.len() as u64).with_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} takes {wide_msg}")
            .expect("valid template"),
    );
    let (mut frames, mut failed) = (0usize, Vec::new());
    for (i, (take, output)) in takes.iter().zip(&outputs).enumerate() {
        let relative = take.strip_prefix(&args.input).unwrap_or(take);
        bar.set_message(relative.display().to_string());
        let key = output.to_string_lossy().to_lowercase();
        let others: Vec<String> = by_output[&key]
            .iter()
            .filter(|&&j| j != i)
            .map(|&j| takes[j].display().to_string())
            .collect();
        let result = if others.is_empty() {
            retarget_take(take, output, job)
        } else {
            Err(anyhow!(
                "{} would also be the output of {}: rename one of these takes",
                output.display(),
                others.join(", ")
            ))
        };
        match result {
            Ok(n) => {
                frames += n;
                bar.suspend(|| {
                    crate::outln!(
                        "ok     {} -> {} ({n} frames)",
                        take.display(),
                        output.display()
                    )
                });
            }
            Err(e) => {
                let name = take.display().to_string();
                let why = format!("{e:#}");
                let why = why.strip_prefix(&format!("{name}: ")).unwrap_or(&why);
                bar.suspend(|| eprintln!("FAILED {name}: {why}"));
                failed.push(relative.display().to_string());
            }
        }
        bar.inc(1);
    }
    bar.finish_and_clear();
    crate::outln!(
        "{} of {} takes {} ({frames} frames, {} curves each); {} failed{}",
        takes.len() - failed.len(),
        takes.len(),
        job.done,
        job.map.curves().len(),
        failed.len(),
        if failed.is_empty() {
            String::new()
        } else {
            format!(": {}", failed.join(", "))
        }
    );
    Ok(if failed.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// The takes under `dir`, sorted: `*.csv` and `*.gesichter`, but not our
/// own outputs (`*.metahuman.csv`, `*<suffix>`) nor the sync table.
fn find_takes(dir: &Path, sync: Option<&Path>, suffix: &str) -> Result<Vec<PathBuf>> {
    let suffix = suffix.to_ascii_lowercase();
    let sync = sync.and_then(|s| s.canonicalize().ok());
    let mut takes = Vec::new();
    for entry in walkdir::WalkDir::new(dir).sort_by_file_name() {
        let entry = entry.with_context(|| format!("cannot list {}", dir.display()))?;
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().to_ascii_lowercase();
        let is_take = entry.file_type().is_file()
            && (has_extension(path, "csv")
                || has_extension(path, "gesichter")
                || has_extension(path, "gesichter-lines"))
            && !name.ends_with(OUTPUT_SUFFIX)
            && !name.ends_with(&suffix)
            && (sync.is_none() || path.canonicalize().ok() != sync);
        if is_take {
            takes.push(path.to_path_buf());
        }
    }
    Ok(takes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use llv_core::blendshape::COUNT;
    use llv_core::packet::{FaceFrame, MAX_LEN};
    use llv_core::time::{FrameRate, FrameTime};
    use std::io::Write;

    fn frame(frame_number: i32, subframe: f32) -> Frame {
        Frame {
            time: FrameTime {
                frame_number,
                subframe,
                rate: FrameRate::FPS_60,
            },
            shapes: [0.0; COUNT],
        }
    }

    #[test]
    fn shift_moves_whole_frames_and_keeps_subframes() {
        let mut frames = vec![frame(1000, 0.652), frame(1002, 0.651)];
        shift(&mut frames, Timecode::parse("00:00:01:00").unwrap()).unwrap();
        assert_eq!(frames[0].time.frame_number, 60);
        assert_eq!(frames[1].time.frame_number, 62);
        assert_eq!(frames[1].time.subframe, 0.651);
        let mut early = vec![frame(10, 0.0), frame(5, 0.0)];
        let e = shift(&mut early, Timecode::parse("00:00:00:00").unwrap()).unwrap_err();
        assert!(e.to_string().contains("frame 2: moved before"), "{e}");
    }

    #[test]
    fn sync_table_matches_file_name_or_stem() {
        let dir = tempfile::tempdir().unwrap();
        let tc = dir.path().join("tc.csv");
        std::fs::write(
            &tc,
            "Filename,Timecode\nalex_rom_3,06:09:20:19\nb.csv,01:00:00:00\n",
        )
        .unwrap();
        let start = Start::Sync {
            table: read_sync(&tc).unwrap(),
            path: tc.clone(),
        };
        let at = start
            .for_take(Path::new("x/alex_rom_3.csv"))
            .unwrap()
            .unwrap();
        assert_eq!(at.to_string(), "06:09:20:19.000");
        assert!(start.for_take(Path::new("b.csv")).unwrap().is_some());
        let e = start.for_take(Path::new("c.csv")).unwrap_err().to_string();
        assert!(e.ends_with("has no row for take c"), "{e}");
        std::fs::write(&tc, "Filename,Timecode\nx,99:99\n").unwrap();
        let e = read_sync(&tc).unwrap_err().to_string();
        assert!(e.contains("line 2: `99:99`"), "{e}");
        std::fs::write(&tc, "Filename,Timecode\nx,01:00:00:00.5\n").unwrap();
        let e = read_sync(&tc).unwrap_err().to_string();
        assert!(
            e.contains("line 2: `01:00:00:00.5`: a start is whole frames"),
            "{e}"
        );
    }

    #[test]
    fn reads_native_lines_and_llv_gzip() {
        let mut f = frame(7, 0.25);
        f.shapes[3] = 0.5;
        let face = FaceFrame {
            version: 6,
            device_id: "dev",
            subject: "sub",
            time: f.time,
            blendshapes: f.shapes,
        };
        let mut buf = [0u8; MAX_LEN];
        let n = face.encode(&mut buf).unwrap();
        let packet = &buf[..n];
        let dir = tempfile::tempdir().unwrap();

        let mut line = [0u8; llv_core::line::MAX_LINE_LEN];
        let text = llv_core::line::encode(packet, &mut line).unwrap();
        let native = dir.path().join("n.gesichter");
        std::fs::write(&native, format!("# header\n{text}\r\n\n{text}\n")).unwrap();
        let frames = read_take(&native, &ReadOptions::default()).unwrap();
        assert_eq!(frames, vec![f, f]);

        let mut raw = vec![6u8];
        raw.extend(1u32.to_be_bytes());
        raw.extend((n as u32).to_be_bytes());
        raw.extend(packet);
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        gz.write_all(&raw).unwrap();
        let llv = dir.path().join("l.gesichter");
        std::fs::write(&llv, gz.finish().unwrap()).unwrap();
        assert_eq!(read_take(&llv, &ReadOptions::default()).unwrap(), vec![f]);

        std::fs::write(&native, format!("{text}\nnot base64!\n")).unwrap();
        let e = read_take(&native, &ReadOptions::default())
            .unwrap_err()
            .to_string();
        assert!(e.contains("line 2: column"), "{e}");
    }
}
