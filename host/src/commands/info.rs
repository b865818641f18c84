//! `llv info`: what a recording holds: format, frame count, timing, rates,
//! subjects, device ids, frame-number gaps and each blendshape's range.

use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::PathBuf;

use anyhow::Result;
use llv_core::blendshape::{COUNT, NAMES};
use llv_core::time::{FrameRate, FrameTime, TakeTime};
use serde_json::json;

use crate::args::{OutputArgs, ReadArgs};
use crate::console;
use crate::plot::{self, PlotOptions};
use crate::recording::{self, Format};
use crate::take::{Gaps, Take};
use crate::timing::Cadence;
use llv_core::packet::Packet;

/// `llv info FILE`.
#[derive(clap::Args, Debug)]
#[command(after_help = "\
Examples:
  llv info examples/dao.gesichter
  llv info --json take1.gesichter
  llv info take.csv --plot                  # and take.png beside the take
  llv info take.csv --plot curves.svg")]
pub struct Args {
    /// Recording to inspect (any format; `-` for standard input).
    file: PathBuf,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
    /// Also write a plot of the ten most active curves (PNG, or SVG by the name;
    /// default `<take>.png` beside the take).
    #[arg(long, value_name = "PNG|SVG", num_args = 0..=1)]
    plot: Option<Option<PathBuf>>,
    #[command(flatten)]
    read: ReadArgs,
    #[command(flatten)]
    out: OutputArgs,
}

/// Figures about a take.
#[derive(Clone, Debug, Default)]
pub struct Stats {
    /// Number of frames.
    pub frames: u64,
    /// Frame times of the first and last frame.
    pub first_last: Option<(FrameTime, FrameTime)>,
    /// Frames per rate.
    pub rates: BTreeMap<(i32, i32), u64>,
    /// Frames per subject.
    pub subjects: BTreeMap<String, u64>,
    /// Frames per device id.
    pub devices: BTreeMap<String, u64>,
    /// Forward jumps of more than one frame number (same rate).
    pub frame_number_gaps: Gaps,
    /// Each frame's take time, seconds from the first frame through
    /// midnight (for the cadence).
    pub times: Vec<f64>,
    /// Gives each frame its take time.
    take_time: TakeTime,
    /// Places where the frame time goes back or stays.
    pub backwards: u64,
    /// Per blendshape, over its finite values.
    pub shapes: Vec<Range>,
    /// Values (blendshapes and subframes) that are NaN or infinite.
    pub nonfinite: u64,
    /// The first of them: frame index (0-based) and field.
    pub first_nonfinite: Option<(u64, &'static str)>,
}

/// One blendshape's finite values: min, max, sum and how many.
#[derive(Clone, Copy, Debug)]
pub struct Range {
    /// Smallest value.
    pub min: f32,
    /// Largest value.
    pub max: f32,
    /// Sum of the values.
    pub sum: f64,
    /// How many values.
    pub count: u64,
}

impl Range {
    /// The mean, when there is a value.
    pub fn mean(&self) -> Option<f64> {
        (self.count > 0).then(|| self.sum / self.count as f64)
    }
}

impl Stats {
    /// Gathers the figures of `take`.
    pub fn of(take: &Take) -> Stats {
        let mut stats = Stats::new();
        for packet in take.frames() {
            stats.add(&packet);
        }
        stats
    }

    /// No frame yet.
    pub fn new() -> Stats {
        let empty = Range {
            min: f32::INFINITY,
            max: f32::NEG_INFINITY,
            sum: 0.0,
            count: 0,
        };
        Stats {
            shapes: vec![empty; COUNT],
            ..Stats::default()
        }
    }

    /// Counts one more frame.
    pub fn add(&mut self, packet: &Packet<'_>) {
        let stats = self;
        let time = packet.time();
        stats.frames += 1;
        *stats
            .rates
            .entry((time.rate.numerator, time.rate.denominator))
            .or_default() += 1;
        count(&mut stats.subjects, packet.subject());
        count(&mut stats.devices, packet.device_id());
        let prev = stats.first_last.map(|(_, last)| last);
        if let Some(p) = prev {
            match time.seconds_since(&p) {
                Some(s) if s <= 0.0 => stats.backwards += 1,
                _ => {}
            }
            stats.frame_number_gaps.note(&p, &time);
        }
        let first = stats.first_last.map_or(time, |(f, _)| f);
        stats
            .times
            .push(stats.take_time.next_seconds(&time).unwrap_or(f64::NAN));
        let index = stats.frames - 1;
        if !time.subframe.is_finite() {
            stats.nonfinite += 1;
            stats.first_nonfinite.get_or_insert((index, "sub_frame"));
        }
        for ((slot, value), name) in stats.shapes.iter_mut().zip(packet.blendshapes()).zip(NAMES) {
            if !value.is_finite() {
                stats.nonfinite += 1;
                stats.first_nonfinite.get_or_insert((index, name));
                continue;
            }
            slot.min = slot.min.min(value);
            slot.max = slot.max.max(value);
            slot.sum += f64::from(value);
            slot.count += 1;
        }
        stats.first_last = Some((first, time));
    }

    /// The cadence and the gaps measured against it.
    pub fn cadence(&self) -> Option<Cadence> {
        let times: Vec<f64> = self
            .times
            .iter()
            .copied()
            .filter(|t| t.is_finite())
            .collect();
        Cadence::of(&times)
    }

    /// Seconds from the first frame to the end of the last one, which lasts
    /// one interval of the take's cadence (one frame at its rate for a single frame).
    pub fn duration(&self) -> Option<f64> {
        let (_, last) = self.first_last?;
        let period = match self.cadence() {
            Some(c) => c.interval,
            None => 1.0 / last.rate.fps()?,
        };
        Some(self.span()? + period)
    }

    /// Seconds from the first frame to the last, through midnight.
    fn span(&self) -> Option<f64> {
        self.times.last().copied().filter(|s| s.is_finite())
    }

    /// Mean frames per second from the frame times.
    pub fn mean_rate(&self) -> Option<f64> {
        let span = self.span()?;
        (span > 0.0).then(|| (self.frames - 1) as f64 / span)
    }
}

/// `writeln!` into a String, which cannot fail.
macro_rules! push_line {
    ($out:expr, $($arg:tt)*) => {{
        let _ = writeln!($out, $($arg)*);
    }};
}

fn count(map: &mut BTreeMap<String, u64>, key: &str) {
    match map.get_mut(key) {
        Some(n) => *n += 1,
        None => {
            map.insert(key.to_string(), 1);
        }
    }
}

fn timecode(time: &FrameTime) -> String {
    time.timecode()
        .map_or_else(|| "-".to_string(), |tc| tc.to_string())
}

/// Runs `llv info`.
pub fn run(args: Args) -> Result<()> {
    let plot_to = args.plot.as_ref().map(|plot| {
        plot.clone()
            .unwrap_or_else(|| plot::default_name(&args.file))
    });
    if let Some(out) = &plot_to {
        // Before the report: a plot that cannot be written fails the command at once.
        plot::check(&args.file, out, args.out.force)?;
    }
    let mut frames = recording::open(&args.file, &args.read.options())?;
    let mut stats = Stats::new();
    while let Some(chunk) = frames.next_chunk()? {
        for packet in chunk.frames() {
            stats.add(&packet);
        }
    }
    frames.print_warnings();
    let text = if args.json {
        format!("{}\n", to_json(&args.file, frames.format(), &stats))
    } else {
        text(&args.file, frames.format(), &stats)
    };
    console::print(&text)?;
    if let Some(out) = plot_to {
        let options = PlotOptions {
            shapes: None,
            ..PlotOptions::default()
        };
        plot::plot_file(
            &args.file,
            &args.read.options(),
            &out,
            &options,
            args.out.force,
        )?;
        eprintln!("plot written to {}", out.display());
    }
    Ok(())
}

fn rate_name((n, d): (i32, i32)) -> String {
    FrameRate::new(n, d).to_string()
}

fn to_json(file: &std::path::Path, format: Format, stats: &Stats) -> serde_json::Value {
    let cadence = stats.cadence();
    let shapes: serde_json::Map<String, serde_json::Value> = NAMES
        .iter()
        .zip(&stats.shapes)
        .filter(|_| stats.frames > 0)
        .map(|(name, range)| {
            let value = match range.mean() {
                Some(mean) => json!({"min": range.min, "max": range.max, "mean": mean}),
                None => json!({"min": null, "max": null, "mean": null}),
            };
            (name.to_string(), value)
        })
        .collect();
    json!({
        "file": file.display().to_string(),
        "format": format.describe(),
        "frames": stats.frames,
        "duration_seconds": stats.duration(),
        "mean_fps": stats.mean_rate(),
        "first": stats.first_last.map(|(f, _)| json!({"frame_number": f.frame_number, "timecode": timecode(&f)})),
        "last": stats.first_last.map(|(_, l)| json!({"frame_number": l.frame_number, "timecode": timecode(&l)})),
        "rates": stats.rates.iter().map(|(r, n)| (rate_name(*r), json!(n))).collect::<serde_json::Map<_, _>>(),
        "subjects": stats.subjects,
        "device_ids": stats.devices,
        "cadence_hz": cadence.as_ref().map(Cadence::hz),
        "steady": cadence.as_ref().map(Cadence::is_steady),
        "steady_share": cadence.as_ref().map(|c| c.steady_share),
        "gaps": cadence.as_ref().map_or(0, |c| c.gaps.len()),
        "missing_frames": cadence.as_ref().map_or(0, Cadence::missing),
        "frame_number_gaps": stats.frame_number_gaps.gaps,
        "backward_jumps": stats.backwards,
        "nonfinite_values": stats.nonfinite,
        "first_nonfinite": stats.first_nonfinite.map(|(frame, field)| json!({"frame": frame, "field": field})),
        "blendshapes": shapes,
    })
}

fn text(file: &std::path::Path, format: Format, stats: &Stats) -> String {
    let mut out = String::new();
    let list = |map: &BTreeMap<String, u64>| {
        map.iter()
            .map(|(k, n)| format!("{k:?} ({n})"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    push_line!(out, "file       {}", file.display());
    push_line!(out, "format     {}", format.describe());
    push_line!(out, "frames     {}", stats.frames);
    if let Some((first, last)) = stats.first_last {
        push_line!(
            out,
            "time       frame {} ({}) to {} ({})",
            first.frame_number,
            timecode(&first),
            last.frame_number,
            timecode(&last)
        );
    }
    if let Some(d) = stats.duration() {
        push_line!(out, "duration   {d:.3} s");
    }
    // "fps" is the timecode's rate (what frame numbers count at), "Hz" how
    // often frames come (the cadence): a phone take is 60 fps and 30 Hz.
    let rates: Vec<String> = stats
        .rates
        .iter()
        .map(|(r, n)| {
            let df = if FrameRate::new(r.0, r.1).is_drop_frame() {
                " drop-frame"
            } else {
                ""
            };
            format!("{} fps{df} ({n} frames)", rate_name(*r))
        })
        .collect();
    push_line!(out, "timecode   {}", rates.join(", "));
    if let Some(r) = stats.mean_rate() {
        push_line!(
            out,
            "mean       {r:.3} Hz (frames over the span of their times)"
        );
    }
    push_line!(out, "subjects   {}", list(&stats.subjects));
    push_line!(out, "device ids {}", list(&stats.devices));
    let cadence = stats.cadence();
    if let Some(c) = &cadence {
        let steady = if c.is_steady() { "steady" } else { "uneven" };
        let per_frame = stats
            .first_last
            .and_then(|(f, _)| f.rate.fps())
            .map(|fps| (c.interval * fps, fps))
            .filter(|(n, _)| (n - n.round()).abs() < 0.1 && n.round() >= 1.0)
            .map_or(String::new(), |(n, _)| {
                let rate = stats
                    .first_last
                    .map_or(String::new(), |(f, _)| f.rate.to_string());
                match n.round() as u64 {
                    1 => format!("; a frame every timecode frame at {rate} fps"),
                    n => format!("; a frame every {n} timecode frames at {rate} fps"),
                }
            });
        push_line!(
            out,
            "cadence    {:.3} Hz, {steady} ({:.1}% of intervals within 25% of {:.3} ms{per_frame})",
            c.hz(),
            c.steady_share * 100.0,
            c.interval * 1000.0
        );
    }
    push_line!(
        out,
        "gaps       {} ({} frames missing at the cadence), {} backward jumps",
        cadence.as_ref().map_or(0, |c| c.gaps.len()),
        cadence.as_ref().map_or(0, Cadence::missing),
        stats.backwards
    );
    if let Some((frame, field)) = stats.first_nonfinite {
        push_line!(
            out,
            "non-finite {} values (NaN or infinite), the first in frame {frame} ({field}); \
             left out of the ranges below",
            stats.nonfinite
        );
    }
    if stats.frames == 0 {
        return out;
    }
    push_line!(
        out,
        "{:<20} {:>12} {:>12} {:>12}",
        "blendshape",
        "min",
        "max",
        "mean"
    );
    for (name, range) in NAMES.iter().zip(&stats.shapes) {
        match range.mean() {
            Some(mean) => push_line!(
                out,
                "{name:<20} {:>12.6} {:>12.6} {mean:>12.6}",
                range.min,
                range.max
            ),
            None => push_line!(out, "{name:<20} {:>12} {:>12} {:>12}", "-", "-", "-"),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recording::{read, ReadOptions};

    #[test]
    fn nonfinite_values_are_counted_and_kept_out_of_the_ranges() {
        let dir = tempfile::tempdir().unwrap();
        let csv = dir.path().join("t.csv");
        let mut csv_text = crate::recording::csv::HEADER.to_string();
        for (tc, jaw) in [
            ("00:00:00:01.000", "0.5"),
            ("00:00:00:02.000", "NaN"),
            ("00:00:00:03.000", "inf"),
        ] {
            csv_text.push_str(&format!("\n{tc},61"));
            for name in crate::recording::csv::HEADER.split(',').skip(2) {
                csv_text.push(',');
                csv_text.push_str(if name == "JawOpen" { jaw } else { "0.25" });
            }
        }
        std::fs::write(&csv, csv_text + "\n").unwrap();
        let options = ReadOptions {
            allow_nonfinite: true,
            ..ReadOptions::default()
        };
        let stats = Stats::of(&read(&csv, &options).unwrap().take);
        assert_eq!(stats.nonfinite, 2);
        assert_eq!(stats.first_nonfinite, Some((1, "JawOpen")));
        let jaw = stats.shapes[llv_core::blendshape::index_of("JawOpen").unwrap()];
        assert_eq!(
            (jaw.min, jaw.max, jaw.count, jaw.mean()),
            (0.5, 0.5, 1, Some(0.5))
        );
        let shown = text(&csv, Format::Csv, &stats);
        assert!(
            shown.contains("non-finite 2 values (NaN or infinite), the first in frame 1 (JawOpen)"),
            "{shown}"
        );
        let jaw_line = shown.lines().find(|l| l.starts_with("JawOpen ")).unwrap();
        assert_eq!(
            jaw_line.split_whitespace().collect::<Vec<_>>(),
            ["JawOpen", "0.500000", "0.500000", "0.500000"]
        );
        let json = to_json(&csv, Format::Csv, &stats);
        assert_eq!(json["nonfinite_values"], 2);
        assert_eq!(json["first_nonfinite"]["field"], "JawOpen");
    }
}
