//! `llv edit`: trim, join, retime, mirror, smooth and adjust takes, frame by
//! frame (the operations are in [`crate::edit`]).

use std::path::PathBuf;

use anyhow::{anyhow, bail, Context, Result};
use llv_core::packet::MAX_LEN;
use llv_core::time::{FrameRate, Timecode};

use crate::args::{parse_rate, EditArgs, OutputArgs, ReadArgs};
use crate::edit::join::Join;
use crate::edit::retime::Retime;
use crate::edit::smooth::{Params, Smooth};
use crate::edit::trim::{self, Point, Trim};
use crate::edit::values::{self, Adjust, Clamp, Mirror, Op};
use crate::edit::{Frame, Pipeline};
use crate::output;
use crate::progress;
use crate::recording::write_counted;
use crate::recording::{self, Format, WriteOptions};

const EXAMPLES: &str = "\
The operations run in this order, whatever the order of the flags: join, trim,
retime, mirror, smooth, modifiers, gain, offset, zero, clamp, rename/anonymize.
A value no operation changes keeps its bits; so does every frame no operation
touches.

Examples:
  llv edit take.gesichter cut.gesichter --from 13:13:04:00 --to 13:13:10:00
  llv edit take.gesichter cut.gesichter --from-seconds 2.5 --to-seconds 10
  llv edit take.gesichter head.gesichter --to-frame 600
  llv edit a.gesichter b.gesichter c.gesichter -o show.gesichter --join
  llv edit take.csv take60.gesichter --retime 60
  llv edit take.gesichter tamed.gesichter --gain JawOpen=0.8 --clamp 0..1 --zero TongueOut
  llv edit take.gesichter mod.gesichter --modifiers modifiers.json --offset BrowInnerUp=-0.05
  llv edit take.gesichter mirrored.gesichter --mirror
  llv edit take.gesichter smooth.gesichter --smooth --smooth-min-cutoff 1.5 --smooth-beta 0.3
  llv edit take.gesichter --retime 30 --mirror --dry-run";

/// `llv edit IN... [OUT | -o OUT] [operations]`.
#[derive(clap::Args, Debug)]
#[command(after_help = EXAMPLES)]
pub struct Args {
    /// The take to edit, then OUT; with -o (or --join) every file named is a take.
    #[arg(required = true, value_name = "FILE")]
    files: Vec<PathBuf>,
    /// The file to write (`-` for standard output).
    #[arg(short, long, value_name = "OUT")]
    output: Option<PathBuf>,
    /// Join the takes, one after the other; the time continues from take to take.
    #[arg(long)]
    join: bool,
    /// With --join: keep every frame's own time.
    #[arg(long, requires = "join")]
    keep_time: bool,
    /// Keep frames from this timecode on (HH:MM:SS:FF[.fff], at the take's rate).
    #[arg(long, value_name = "TC", conflicts_with_all = ["from_seconds", "from_frame"])]
    from: Option<String>,
    /// Keep frames before this timecode (the out point is not kept).
    #[arg(long, value_name = "TC", conflicts_with_all = ["to_seconds", "to_frame"])]
    to: Option<String>,
    /// Keep frames from this many seconds after the first frame on.
    #[arg(long, value_name = "S", conflicts_with = "from_frame")]
    from_seconds: Option<f64>,
    /// Keep frames before this many seconds after the first frame.
    #[arg(long, value_name = "S", conflicts_with = "to_frame")]
    to_seconds: Option<f64>,
    /// Keep frames from this frame index on (0-based).
    #[arg(long, value_name = "N")]
    from_frame: Option<u64>,
    /// Keep frames before this frame index (0-based).
    #[arg(long, value_name = "N")]
    to_frame: Option<u64>,
    /// Resample to this rate (60, 30, 59.94, N/D), values interpolated linearly.
    #[arg(long, value_name = "FPS", value_parser = parse_rate)]
    retime: Option<FrameRate>,
    /// Swap left and right shapes; negate head and eye yaw and roll.
    #[arg(long)]
    mirror: bool,
    /// Smooth with the one-euro filter (every shape, or --smooth-shapes).
    #[arg(long)]
    smooth: bool,
    /// One-euro: cutoff in Hz of a value at rest (lower: less jitter, more lag).
    #[arg(long, value_name = "HZ", default_value_t = Params::default().min_cutoff, requires = "smooth")]
    smooth_min_cutoff: f64,
    /// One-euro: how fast the cutoff rises with speed (higher: less lag on fast moves).
    #[arg(long, value_name = "B", default_value_t = Params::default().beta, requires = "smooth")]
    smooth_beta: f64,
    /// One-euro: cutoff in Hz of the speed estimate.
    #[arg(long, value_name = "HZ", default_value_t = Params::default().d_cutoff, requires = "smooth")]
    smooth_d_cutoff: f64,
    /// Smooth only these shapes (comma-separated names).
    #[arg(
        long,
        value_name = "SHAPES",
        value_delimiter = ',',
        requires = "smooth"
    )]
    smooth_shapes: Vec<String>,
    /// LLV's modifiers file: a JSON object of shape name -> multiplier.
    #[arg(long, value_name = "JSON")]
    modifiers: Option<PathBuf>,
    /// Multiply a shape's values, e.g. JawOpen=0.8 (repeatable).
    #[arg(long, value_name = "SHAPE=K")]
    gain: Vec<String>,
    /// Add to a shape's values, e.g. BrowInnerUp=-0.05 (repeatable).
    #[arg(long, value_name = "SHAPE=X", allow_hyphen_values = true)]
    offset: Vec<String>,
    /// Set shapes to 0 (repeatable, or comma-separated).
    #[arg(long, value_name = "SHAPE", value_delimiter = ',')]
    zero: Vec<String>,
    /// Keep values within LO..HI: the 52 ARKit coefficients, or SHAPE=LO..HI one shape
    /// (head and eye angles only so). Repeatable.
    #[arg(long, value_name = "[SHAPE=]LO..HI", allow_hyphen_values = true)]
    clamp: Vec<String>,
    /// Print what would change; write nothing.
    #[arg(long)]
    dry_run: bool,
    /// Output format; by default from OUT's name (.gesichter LLV's gzip, .gesichter-lines
    /// native lines, .klare-gesichter/.json clear JSON, .csv a Live Link Face CSV take).
    #[arg(long, value_enum)]
    format: Option<Format>,
    #[command(flatten)]
    edit: EditArgs,
    #[command(flatten)]
    read: ReadArgs,
    #[command(flatten)]
    out: OutputArgs,
}

/// An in or out point from its flags.
fn point(tc: &Option<String>, seconds: Option<f64>, frame: Option<u64>) -> Result<Option<Point>> {
    if let Some(tc) = tc {
        let parsed = Timecode::parse(tc).map_err(|e| anyhow!("timecode `{tc}`: {e}"))?;
        return Ok(Some(Point::Timecode(parsed)));
    }
    if let Some(s) = seconds {
        if !s.is_finite() {
            bail!("{s} is not a number of seconds");
        }
        return Ok(Some(Point::Seconds(s)));
    }
    Ok(frame.map(Point::Index))
}

impl Args {
    /// The takes and OUT (`None` for a dry run without one).
    fn files(&self) -> Result<(Vec<PathBuf>, Option<PathBuf>)> {
        let (inputs, output) = match (&self.output, self.files.len()) {
            (Some(out), _) => (self.files.clone(), Some(out.clone())),
            (None, 1) if self.dry_run => (self.files.clone(), None),
            (None, 1) => bail!("name OUT after the take, or -o OUT (or --dry-run)"),
            (None, n) => (self.files[..n - 1].to_vec(), self.files.last().cloned()),
        };
        if inputs.len() > 1 && !self.join {
            bail!(
                "{} takes given: add --join to join them (or name one take and OUT)",
                inputs.len()
            );
        }
        Ok((inputs, output))
    }

    /// True when every frame read is written (no trim, no retime).
    fn keeps_count(&self) -> bool {
        let trims = [self.from.is_some(), self.to.is_some()]
            .into_iter()
            .chain([self.from_seconds.is_some(), self.to_seconds.is_some()])
            .chain([self.from_frame.is_some(), self.to_frame.is_some()]);
        !trims.into_iter().any(|t| t) && self.retime.is_none()
    }

    /// The stages these flags ask for, in their fixed order.
    fn pipeline(&self) -> Result<Pipeline> {
        let mut pipeline = Pipeline::default();
        let from = point(&self.from, self.from_seconds, self.from_frame)?;
        let to = point(&self.to, self.to_seconds, self.to_frame)?;
        if from.is_some() || to.is_some() {
            trim::check_order(from, to)?;
            pipeline.then(Trim::new(from, to));
        }
        if let Some(rate) = self.retime {
            pipeline.then(Retime::new(rate)?);
        }
        if self.mirror {
            pipeline.then(Mirror::new());
        }
        if self.smooth {
            let params = Params {
                min_cutoff: self.smooth_min_cutoff,
                beta: self.smooth_beta,
                d_cutoff: self.smooth_d_cutoff,
            };
            let shapes = self
                .smooth_shapes
                .iter()
                .map(|s| values::shape(s).context("--smooth-shapes"))
                .collect::<Result<Vec<_>>>()?;
            pipeline.then(Smooth::new(params, &shapes)?);
        }
        let mut ops = Vec::new();
        if let Some(path) = &self.modifiers {
            let file = path.display().to_string();
            for (shape, k) in values::read_modifiers(path)? {
                ops.push(Op::Modifier(shape, k, file.clone()));
            }
        }
        for g in &self.gain {
            let (shape, k) = values::shape_number(g).context("--gain")?;
            ops.push(Op::Gain(shape, k));
        }
        for o in &self.offset {
            let (shape, x) = values::shape_number(o).context("--offset")?;
            ops.push(Op::Offset(shape, x));
        }
        for z in &self.zero {
            ops.push(Op::Zero(values::shape(z).context("--zero")?));
        }
        for c in &self.clamp {
            ops.push(Op::Clamp(Clamp::parse(c).context("--clamp")?));
        }
        if !ops.is_empty() {
            pipeline.then(Adjust::new(ops));
        }
        Ok(pipeline)
    }
}

/// What a run did: frames read and written, a line per operation.
#[derive(Debug)]
pub struct Summary {
    /// Frames read from all takes.
    pub read: u64,
    /// Frames written (or that would be).
    pub written: u64,
    /// One line per operation.
    pub lines: Vec<String>,
}

/// Runs `llv edit`.
pub fn run(args: Args) -> Result<()> {
    let (inputs, output) = args.files()?;
    let format = match &output {
        None => Format::Native,
        Some(out) => Format::for_output(out, args.format, "--format")?,
    };
    let target = output.as_deref().filter(|_| !args.dry_run);
    if let Some(out) = target.filter(|o| !recording::is_stdio(o)) {
        let mut files: Vec<&std::path::Path> = inputs.iter().map(PathBuf::as_path).collect();
        files.extend(args.modifiers.as_deref());
        output::check(out, &files, args.out.force)?;
    }
    let mut pipeline = args.pipeline()?;
    let summary = match target {
        Some(out) => {
            // Edits that keep every frame write as many frames as the takes'
            // headers announce: LLV gzip and clear JSON then write theirs first.
            let count = if args.keeps_count() {
                inputs
                    .iter()
                    .map(|i| recording::announced_count(i))
                    .sum::<Option<u64>>()
            } else {
                None
            };
            let mut summary = None;
            let mut first = true;
            write_counted(
                out,
                format,
                WriteOptions::default(),
                count,
                args.out.force,
                |sink| {
                    if !std::mem::take(&mut first) {
                        pipeline = args.pipeline()?;
                    }
                    summary = Some(edit(&args, &inputs, &mut pipeline, sink)?);
                    Ok(())
                },
            )?;
            summary.expect("the edit ran")
        }
        None => edit(&args, &inputs, &mut pipeline, &mut |_| Ok(()))?,
    };
    let lines = summary.lines.join("\n");
    if args.dry_run {
        crate::outln!("dry run: nothing written");
        if !lines.is_empty() {
            crate::outln!("{lines}");
        }
        match &output {
            Some(out) => crate::outln!(
                "would write {} frames (of {} read) to {} as {}",
                summary.written,
                summary.read,
                out.display(),
                format.describe()
            ),
            None => crate::outln!(
                "would write {} frames (of {} read)",
                summary.written,
                summary.read
            ),
        }
    } else if let Some(out) = output.filter(|o| !recording::is_stdio(o)) {
        if !lines.is_empty() {
            eprintln!("{lines}");
        }
        eprintln!(
            "wrote {} frames (of {} read) to {} as {}",
            summary.written,
            summary.read,
            out.display(),
            format.describe()
        );
    }
    Ok(())
}

/// Reads every take, runs the pipeline and hands each packet to `sink`.
fn edit(
    args: &Args,
    inputs: &[PathBuf],
    pipeline: &mut Pipeline,
    sink: &mut dyn FnMut(&[u8]) -> Result<()>,
) -> Result<Summary> {
    let rename = args.edit.edit();
    let mut join = args.join.then(|| Join::new(args.keep_time));
    let mut buf = [0u8; MAX_LEN];
    let mut written = 0u64;
    let mut read = 0u64;
    let mut out = |frame: Frame| -> Result<()> {
        let packet = frame.encode(&mut buf)?;
        let mut renamed = [0u8; MAX_LEN];
        let packet = rename.apply(packet, &mut renamed)?;
        written += 1;
        sink(packet)
    };
    for input in inputs {
        let mut frames = recording::open(input, &args.read.options())?;
        let name = frames.name().to_string();
        if let Some(join) = &mut join {
            join.start(&name);
        }
        let bar = progress::reading(&frames, "editing");
        let mut index = 0u64;
        while let Some(chunk) = frames.next_chunk()? {
            for packet in chunk.packets() {
                let mut frame =
                    Frame::decode(packet).map_err(|e| anyhow!("{name}: frame {index}: {e}"))?;
                index += 1;
                read += 1;
                if let Some(join) = &mut join {
                    frame = join.frame(frame)?;
                }
                pipeline.push(frame, &mut out)?;
            }
            progress::update(&bar, &frames);
        }
        bar.finish_and_clear();
        frames.print_warnings();
    }
    pipeline.finish(&mut out)?;
    let mut lines: Vec<String> = join.iter().map(Join::report).collect();
    lines.extend(pipeline.report());
    Ok(Summary {
        read,
        written,
        lines,
    })
}
