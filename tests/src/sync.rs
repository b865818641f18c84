//! Shared by the QEMU test and benchmark of the box in sync with a show
//! (`box_sync.rs`, `bench/box_sync.rs`): two boxes holding a 60 fps
//! sequence take, an Art-Net timecode master (30 fps, with a dropout, a jump
//! and bad packets), receivers that note when each frame arrives, and the
//! figures: each frame's arrival against the moment the master's timecode
//! reached it, and the skew between two boxes.
#![allow(
    dead_code,
    reason = "the test and the benchmark use parts of these helpers"
)]

use std::net::UdpSocket;
use std::path::Path;
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use llv_core::artnet::{ArtTimeCode, TimecodeKind};
use llv_core::packet::FaceFrame;
use serde_json::Value;

use crate::flash_box::{receiver, QemuBox, TIMEOUT};

/// The master's timecode type.
pub const KIND: TimecodeKind = TimecodeKind::Smpte30;
/// Where the take's first frame sits on the timecode.
pub const OFFSET: &str = "01:00:00:00";
/// The timecode of [`OFFSET`] at 30 fps, in frames.
pub const OFFSET_FRAMES: u32 = 3600 * 30;

/// Writes a sequence take of `seconds_per_shape` x 61 shapes at 60 fps to
/// `dir` and returns its path.
pub fn sequence_take(dir: &Path, seconds_per_shape: &str) -> std::path::PathBuf {
    let path = dir.join("seq.gesichter");
    crate::llv()
        .args([
            "sequence",
            path.to_str().unwrap(),
            "--seconds-per-shape",
            seconds_per_shape,
        ])
        .timeout(TIMEOUT)
        .assert()
        .success();
    path
}

/// Two boxes booted at once on their own flash files, each holding `take` as
/// "seq" and sending to its own receiver (their configured target).
pub struct Pair {
    pub boxes: [QemuBox; 2],
    pub receivers: [UdpSocket; 2],
    /// The take's frame numbers, in order (the sequence skips one per shape):
    /// a frame's index is its place here.
    pub numbers: Vec<i32>,
    /// Each frame's time in the take, from its frame time (frame number and
    /// subframe), in µs.
    pub media_us: Vec<f64>,
}

impl Pair {
    pub fn boot(dir: &Path, take: &Path) -> Pair {
        let flashes = [dir.join("a.bin"), dir.join("b.bin")];
        let boxes = thread::scope(|s| {
            let booting: Vec<_> = flashes
                .iter()
                .map(|f| {
                    s.spawn(move || {
                        let b = QemuBox::boot_with(crate::flash_box::firmware(), f, "erase_ms=0");
                        b.llv(&[
                            "flash",
                            take.to_str().unwrap(),
                            "--box",
                            "{box}",
                            "--name",
                            "seq",
                        ])
                        .success();
                        b
                    })
                })
                .collect();
            let mut booted = booting.into_iter().map(|h| h.join().unwrap());
            [booted.next().unwrap(), booted.next().unwrap()]
        });
        let (ra, ta) = receiver();
        let (rb, tb) = receiver();
        for (b, t) in boxes.iter().zip([&ta, &tb]) {
            b.llv(&["box", "{box}", "config", "targets", t]).success();
        }
        let times: Vec<_> = crate::recording_packets(take)
            .iter()
            .map(|p| FaceFrame::decode(p).unwrap().time)
            .collect();
        Pair {
            boxes,
            receivers: [ra, rb],
            numbers: times.iter().map(|t| t.frame_number).collect(),
            media_us: times
                .iter()
                .map(|t| t.seconds_since(&times[0]).unwrap() * 1e6)
                .collect(),
        }
    }

    /// `llv box A B ARGS...`.
    pub fn llv(&self, args: &[&str]) -> assert_cmd::assert::Assert {
        let mut all = vec![
            "box".to_string(),
            self.boxes[0].addr(),
            self.boxes[1].addr(),
        ];
        all.extend(args.iter().map(|a| a.to_string()));
        crate::llv().args(&all).timeout(TIMEOUT).assert()
    }

    /// Drops what the receivers hold (frames of a playback just stopped).
    pub fn drain(&self) {
        thread::sleep(Duration::from_millis(300));
        let mut buf = [0u8; 2048];
        for r in &self.receivers {
            r.set_nonblocking(true).unwrap();
            while r.recv(&mut buf).is_ok() {}
            r.set_nonblocking(false).unwrap();
        }
    }

    /// Receives on both receivers for `span`: each frame's take index and arrival.
    pub fn receive(&self, span: Duration) -> [Vec<(Instant, u32)>; 2] {
        let until = Instant::now() + span;
        thread::scope(|s| {
            let handles: Vec<_> = self
                .receivers
                .iter()
                .map(|r| s.spawn(move || arrivals(r, &self.numbers, until)))
                .collect();
            let mut got = handles.into_iter().map(|h| h.join().unwrap());
            [got.next().unwrap(), got.next().unwrap()]
        })
    }

    /// Box `i`'s status.
    pub fn status(&self, i: usize) -> Value {
        self.boxes[i].json(&["box", "{box}", "status", "--json"])
    }
}

/// Frames arriving on `socket` until `until`: when, and their index in the
/// take (whose frame numbers are `numbers`, increasing).
pub fn arrivals(socket: &UdpSocket, numbers: &[i32], until: Instant) -> Vec<(Instant, u32)> {
    let mut got = Vec::new();
    let mut buf = [0u8; 2048];
    while Instant::now() < until {
        if let Ok(n) = socket.recv(&mut buf) {
            let at = Instant::now();
            let number = FaceFrame::decode(&buf[..n])
                .expect("a Live Link frame")
                .time
                .frame_number;
            let index = numbers.binary_search(&number).expect("a frame of the take");
            got.push((at, index as u32));
        }
    }
    got
}

/// An Art-Net timecode master at 30 fps from `start` (a frame count), for
/// `frames` frames; nothing sent for master frames in `dropout`; `jump`
/// frames added from master frame `at` on; every tenth frame followed by a
/// packet with frames past the rate.
#[derive(Clone, Copy, Debug)]
pub struct Master {
    pub start: u32,
    pub frames: u32,
    pub dropout: Option<(u32, u32)>,
    pub jump: Option<(u32, u32)>,
}

impl Master {
    /// Sends to the Art-Net ports `to` on 127.0.0.1 from a thread; returns
    /// when frame 0 leaves, and the thread.
    pub fn start(self, to: Vec<u16>) -> (Instant, JoinHandle<()>) {
        let socket = UdpSocket::bind("127.0.0.1:0").unwrap();
        let t0 = Instant::now() + Duration::from_millis(50);
        let thread = thread::spawn(move || {
            let mut packet = [0u8; 19];
            for k in 0..self.frames {
                let due = t0 + Duration::from_micros(KIND.micros(u64::from(k)));
                thread::sleep(due.saturating_duration_since(Instant::now()));
                if self.dropout.is_some_and(|(a, b)| (a..b).contains(&k)) {
                    continue;
                }
                let count = self.start + k + self.jumped(k);
                ArtTimeCode::from_frame_count(count, KIND, 0)
                    .emit(&mut packet)
                    .unwrap();
                let mut bad = packet;
                bad[14] = 30;
                for port in &to {
                    socket.send_to(&packet, ("127.0.0.1", *port)).unwrap();
                    if k % 10 == 0 {
                        socket.send_to(&bad, ("127.0.0.1", *port)).unwrap();
                    }
                }
            }
        });
        (t0, thread)
    }

    fn jumped(&self, k: u32) -> u32 {
        self.jump
            .filter(|&(at, _)| k >= at)
            .map_or(0, |(_, add)| add)
    }

    /// When (since t0) the master's timecode reaches `media` µs into the
    /// take, its first frame at [`OFFSET_FRAMES`]; `None` if it never does.
    pub fn due(&self, media: f64) -> Option<Duration> {
        let tc = KIND.micros(u64::from(OFFSET_FRAMES)) as f64 + media;
        let start = KIND.micros(u64::from(self.start)) as f64;
        let end = KIND.micros(u64::from(self.frames)) as f64;
        let before = tc - start;
        let (jump_at, added) = self.jump.map_or((f64::MAX, 0.0), |(at, add)| {
            (
                KIND.micros(u64::from(at)) as f64,
                KIND.micros(u64::from(add)) as f64,
            )
        });
        let t = if before < jump_at {
            before
        } else {
            let after = before - added;
            if after < jump_at {
                return None; // skipped by the jump
            }
            after
        };
        (0.0..end)
            .contains(&t)
            .then(|| Duration::from_secs_f64(t / 1e6))
    }
}

/// Each frame's arrival minus the moment the master's timecode reached it
/// (`media_us` gives each frame's time in the take), in ms, for frames that
/// arrived from `from` on (after lock) and are not within `settle` after the jump.
pub fn errors_ms(
    master: &Master,
    t0: Instant,
    media_us: &[f64],
    got: &[(Instant, u32)],
    from: Duration,
    settle: Duration,
) -> Vec<f64> {
    let jump_at = master
        .jump
        .map(|(at, _)| Duration::from_micros(KIND.micros(u64::from(at))));
    got.iter()
        .filter(|(at, _)| *at >= t0 + from)
        .filter(|(at, _)| jump_at.is_none_or(|j| *at < t0 + j || *at >= t0 + j + settle))
        .filter_map(|&(at, index)| {
            let due = master.due(media_us[index as usize])?;
            Some((at.duration_since(t0).as_secs_f64() - due.as_secs_f64()) * 1e3)
        })
        .collect()
}

/// For every frame both boxes sent, the second box's arrival minus the
/// first's, in ms.
pub fn skews_ms(a: &[(Instant, u32)], b: &[(Instant, u32)]) -> Vec<f64> {
    let first_of = |got: &[(Instant, u32)]| {
        let mut seen = std::collections::HashMap::new();
        for &(at, index) in got {
            seen.entry(index).or_insert(at);
        }
        seen
    };
    let (fa, fb) = (first_of(a), first_of(b));
    let mut skews: Vec<f64> = fa
        .iter()
        .filter_map(|(index, at_a)| {
            let at_b = fb.get(index)?;
            Some(if at_b >= at_a {
                at_b.duration_since(*at_a).as_secs_f64() * 1e3
            } else {
                -(at_a.duration_since(*at_b).as_secs_f64() * 1e3)
            })
        })
        .collect();
    skews.sort_by(f64::total_cmp);
    skews
}

/// The value at quantile `q` of `values` by absolute size.
pub fn abs_quantile(values: &[f64], q: f64) -> f64 {
    let mut abs: Vec<f64> = values.iter().map(|v| v.abs()).collect();
    abs.sort_by(f64::total_cmp);
    abs[((abs.len() - 1) as f64 * q).round() as usize]
}

/// The value at quantile `q` of `values`.
pub fn quantile(values: &[f64], q: f64) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    sorted[((sorted.len() - 1) as f64 * q).round() as usize]
}
