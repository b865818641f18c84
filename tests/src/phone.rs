//! The real phone take for chase tests and benchmarks: `alex_rom_3.csv`
//! (30 Hz capture numbered in 60 fps frames, its frames a few ms off the
//! grid), cut to its first rows and, for midnight, moved to start at another
//! label; which of its frames a datagram is; and each frame's arrival against
//! the moment a show's timecode reached it.

use std::collections::HashMap;
use std::net::UdpSocket;
use std::path::{Path, PathBuf};
use std::time::Instant;

use llv_core::artnet::TimecodeKind;
use llv_core::chase::own_place;
use llv_core::packet::FaceFrame;
use llv_core::take::TakeTiming;
use llv_core::time::day::place;
use llv_core::time::{FrameRate, FrameTime};

use crate::files::{fixture, native_packets};

/// The timecode column of a phone CSV: each row's label in 60 fps frames,
/// fraction included.
fn csv_times(text: &str) -> Vec<f64> {
    text.lines()
        .skip(1)
        .map(|line| {
            let tc = line.split(',').next().unwrap_or_default();
            let parts: Vec<f64> = tc.split(':').map(|p| p.parse().unwrap()).collect();
            ((parts[0] * 60.0 + parts[1]) * 60.0 + parts[2]) * 60.0 + parts[3]
        })
        .collect()
}

/// The first `rows` rows of `alex_rom_3.csv`, written to `dir/name`; with
/// `first` (`HH:MM:SS:FF` at 60 fps) moved so the first frame's label is
/// there, the labels wrapping at midnight.
pub fn phone_take(dir: &Path, name: &str, rows: usize, first: Option<&str>) -> PathBuf {
    let text = std::fs::read_to_string(fixture("llf/alex_rom_3.csv")).unwrap();
    let times = csv_times(&text);
    let shift = first.map_or(0.0, |first| {
        let f: Vec<f64> = first.split(':').map(|p| p.parse().unwrap()).collect();
        ((f[0] * 60.0 + f[1]) * 60.0 + f[2]) * 60.0 + f[3] - times[0].floor()
    });
    let day = 24.0 * 3600.0 * 60.0;
    let label = |t: f64| {
        let t = t.rem_euclid(day);
        let whole = t.floor() as u64;
        let millis = ((t - t.floor()) * 1000.0).round().min(999.0) as u64;
        let s = whole / 60;
        format!(
            "{:02}:{:02}:{:02}:{:02}.{millis:03}",
            s / 3600,
            s / 60 % 60,
            s % 60,
            whole % 60
        )
    };
    let mut lines = text.lines();
    let mut out = vec![lines.next().unwrap().to_string()];
    for (line, t) in lines.zip(&times).take(rows) {
        let (_, rest) = line.split_once(',').unwrap();
        out.push(format!("{},{rest}", label(t + shift)));
    }
    let path = dir.join(name);
    std::fs::write(&path, out.join("\n") + "\n").unwrap();
    path
}

/// A take's frames as `llv` sends them: which frame a datagram is, and
/// where each lies in the take.
pub struct TakeFrames {
    /// Each frame's frame time.
    pub times: Vec<FrameTime>,
    /// Each frame's time in the take (the take image's), µs.
    pub media_us: Vec<f64>,
    by_time: HashMap<(i32, u32), u32>,
}

impl TakeFrames {
    /// The frames of `take` (any format `llv` reads), converted by `llv`
    /// into `dir`.
    pub fn of(take: &Path, dir: &Path) -> TakeFrames {
        let lines = dir.join("frames.gesichter-lines");
        crate::llv()
            .arg("convert")
            .arg(take)
            .arg(&lines)
            .arg("--force")
            .assert()
            .success();
        let times: Vec<FrameTime> = native_packets(&lines)
            .iter()
            .map(|p| FaceFrame::decode(p).unwrap().time)
            .collect();
        let mut timing = TakeTiming::new(FrameRate::FPS_60);
        let media_us = times
            .iter()
            .enumerate()
            .map(|(i, t)| f64::from(timing.next(i as u32, t).unwrap()))
            .collect();
        let by_time = times
            .iter()
            .enumerate()
            .map(|(i, t)| ((t.frame_number, t.subframe.to_bits()), i as u32))
            .collect();
        TakeFrames {
            times,
            media_us,
            by_time,
        }
    }

    /// Which frame `packet` is (`None` for none of this take's).
    pub fn index(&self, packet: &[u8]) -> Option<u32> {
        let t = FaceFrame::decode(packet).ok()?.time;
        self.by_time
            .get(&(t.frame_number, t.subframe.to_bits()))
            .copied()
    }

    /// Where the take's first frame sits, at its own label, on timecode of
    /// type `kind`: µs since its midnight.
    pub fn own_place(&self, kind: TimecodeKind) -> u64 {
        own_place(&self.times[0], kind).unwrap()
    }

    /// The frames that arrived on `socket` until `until`: when, and which.
    pub fn arrivals(&self, socket: &UdpSocket, until: Instant) -> Vec<(Instant, u32)> {
        let mut got = Vec::new();
        let mut buf = [0u8; 2048];
        while Instant::now() < until {
            if let Ok(n) = socket.recv(&mut buf) {
                let at = Instant::now();
                got.push((at, self.index(&buf[..n]).expect("a frame of the take")));
            }
        }
        got
    }

    /// Each arrival's chase error, ms: the master's timecode at the arrival
    /// (`tc0_us` since its midnight at `t0`, running on at 1x) against the
    /// frame's place on it (the take from `offset_us`). Positive: late.
    pub fn errors_ms(
        &self,
        kind: TimecodeKind,
        t0: Instant,
        tc0_us: u64,
        offset_us: u64,
        got: &[(Instant, u32)],
    ) -> Vec<f64> {
        let day = kind.micros_per_day();
        let end = self.media_us.last().copied().unwrap_or(0.0) as u64 + 1_000_000;
        got.iter()
            .filter(|(at, _)| *at >= t0)
            .map(|&(at, index)| {
                let tc = tc0_us + at.duration_since(t0).as_micros() as u64;
                let media = place(tc % day, offset_us, end, day) as f64;
                (media - self.media_us[index as usize]) / 1e3
            })
            .collect()
    }
}
