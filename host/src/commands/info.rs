//! `llv info`: what a recording holds: format, frame count, timing, rates,
//! subjects, device ids, frame-number gaps and each blendshape's range.

use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::PathBuf;

use anyhow::Result;
use llv_core::blendshape::{COUNT, NAMES};
use llv_core::time::{FrameRate, FrameTime};
use serde_json::json;

use crate::console;
use crate::recording::{self, Format};
use crate::take::{Gaps, Take};

/// `llv info FILE`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Recording to inspect (any format; `-` for standard input).
    file: PathBuf,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
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
    pub gaps: Gaps,
    /// Places where the frame time goes back or stays.
    pub backwards: u64,
    /// Per blendshape: min, max, sum.
    pub shapes: Vec<(f32, f32, f64)>,
}

impl Stats {
    /// Gathers the figures of `take`.
    pub fn of(take: &Take) -> Stats {
        let mut stats = Stats {
            shapes: vec![(f32::INFINITY, f32::NEG_INFINITY, 0.0); COUNT],
            ..Stats::default()
        };
        let mut prev: Option<FrameTime> = None;
        for packet in take.frames() {
            let time = packet.time();
            stats.frames += 1;
            *stats
                .rates
                .entry((time.rate.numerator, time.rate.denominator))
                .or_default() += 1;
            count(&mut stats.subjects, packet.subject());
            count(&mut stats.devices, packet.device_id());
            if let Some(p) = prev {
                match time.seconds_since(&p) {
                    Some(s) if s <= 0.0 => stats.backwards += 1,
                    _ => {}
                }
                stats.gaps.note(&p, &time);
            }
            prev = Some(time);
            for (slot, value) in stats.shapes.iter_mut().zip(packet.blendshapes()) {
                slot.0 = slot.0.min(value);
                slot.1 = slot.1.max(value);
                slot.2 += f64::from(value);
            }
            stats.first_last = Some((stats.first_last.map_or(time, |(f, _)| f), time));
        }
        stats
    }

    /// Seconds from the first frame to the end of the last one.
    pub fn duration(&self) -> Option<f64> {
        let (first, last) = self.first_last?;
        let period = 1.0 / last.rate.fps()?;
        Some(last.seconds_since(&first)? + period)
    }

    /// Mean frames per second from the frame times.
    pub fn mean_rate(&self) -> Option<f64> {
        let (first, last) = self.first_last?;
        let span = last.seconds_since(&first)?;
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
    let loaded = recording::load(&args.file)?;
    let stats = Stats::of(&loaded.take);
    let text = if args.json {
        format!("{}\n", to_json(&args.file, loaded.format, &stats))
    } else {
        text(&args.file, loaded.format, &stats)
    };
    console::print(&text)?;
    Ok(())
}

fn rate_name((n, d): (i32, i32)) -> String {
    FrameRate::new(n, d).to_string()
}

fn to_json(file: &std::path::Path, format: Format, stats: &Stats) -> serde_json::Value {
    let frames = stats.frames.max(1) as f64;
    let shapes: serde_json::Map<String, serde_json::Value> = NAMES
        .iter()
        .zip(&stats.shapes)
        .filter(|_| stats.frames > 0)
        .map(|(name, (min, max, sum))| {
            (
                name.to_string(),
                json!({"min": min, "max": max, "mean": sum / frames}),
            )
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
        "gaps": stats.gaps.gaps,
        "missing_frames": stats.gaps.missing,
        "backward_jumps": stats.backwards,
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
    let rates: Vec<String> = stats
        .rates
        .iter()
        .map(|(r, n)| format!("{} fps ({n})", rate_name(*r)))
        .collect();
    push_line!(out, "rates      {}", rates.join(", "));
    if let Some(r) = stats.mean_rate() {
        push_line!(out, "mean rate  {r:.3} fps (from frame times)");
    }
    push_line!(out, "subjects   {}", list(&stats.subjects));
    push_line!(out, "device ids {}", list(&stats.devices));
    push_line!(
        out,
        "gaps       {} ({} frames missing), {} backward jumps",
        stats.gaps.gaps,
        stats.gaps.missing,
        stats.backwards
    );
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
    for (name, (min, max, sum)) in NAMES.iter().zip(&stats.shapes) {
        push_line!(
            out,
            "{name:<20} {min:>12.6} {max:>12.6} {:>12.6}",
            sum / stats.frames as f64
        );
    }
    out
}
