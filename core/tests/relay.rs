//! The live relay on the real phone take (`alex_rom_3.csv`, 30 Hz), sent at
//! its recorded timing with ±8 ms of jitter and dropouts of 0.5 s and 5 s,
//! on a simulated clock: pass-through, the exact period with a buffer, the
//! fallback within the timeout and the fade, the return after K frames, the
//! live subject on every frame, no jump beyond the crossfade's step, and
//! datagrams that are not faces counted and never recorded.

use core::net::{IpAddr, Ipv4Addr};

use llv_core::blendshape::{COUNT, NAMES};
use llv_core::packet::{FaceFrame, MAX_LEN, VERSION};
use llv_core::relay::*;
use llv_core::time::{FrameRate, FrameTime};
use proptest::prelude::*;

const PHONE: IpAddr = IpAddr::V4(Ipv4Addr::new(10, 0, 0, 7));
const SUBJECT: &str = "alex";
const DEVICE: &str = "9E8C4C1B-phone";

/// The take's frames: when the phone sent each (µs from the first, from its
/// timecodes) and its values in packet order.
fn phone_take() -> Vec<(u64, FrameTime, [f32; COUNT])> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/fixtures/llf/alex_rom_3.csv"
    );
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let index: Vec<usize> = header[2..]
        .iter()
        .map(|name| NAMES.iter().position(|n| n == name).unwrap())
        .collect();
    let mut first = None;
    lines
        .map(|line| {
            let cells: Vec<&str> = line.split(',').collect();
            let tc: Vec<f64> = cells[0].split(':').map(|p| p.parse().unwrap()).collect();
            let frames = ((tc[0] * 60.0 + tc[1]) * 60.0 + tc[2]) * 60.0 + tc[3];
            let first = *first.get_or_insert(frames);
            let mut values = [0.0; COUNT];
            for (cell, &i) in cells[2..].iter().zip(&index) {
                values[i] = cell.parse().unwrap();
            }
            let time = FrameTime {
                frame_number: frames.floor() as i32,
                subframe: (frames - frames.floor()) as f32,
                rate: FrameRate::FPS_60,
            };
            (((frames - first) / 60.0 * 1e6) as u64, time, values)
        })
        .collect()
}

fn packet(time: FrameTime, values: [f32; COUNT]) -> Vec<u8> {
    let frame = FaceFrame {
        version: VERSION,
        device_id: DEVICE,
        subject: SUBJECT,
        time,
        blendshapes: values,
    };
    let mut out = [0u8; MAX_LEN];
    let n = frame.encode(&mut out).unwrap();
    out[..n].to_vec()
}

/// xorshift64*: the jitter, the same on every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Uniform in -max..=max µs.
    fn jitter(&mut self, max: i64) -> i64 {
        (self.next() % (2 * max as u64 + 1)) as i64 - max
    }
}

/// The first `secs` of the take as they arrive: 10 ms after sending, ±`jitter`
/// µs, none sent during `dropouts` (start and length, s).
fn arrivals(secs: f64, jitter: i64, dropouts: &[(f64, f64)]) -> Vec<(u64, Vec<u8>)> {
    let mut rng = Rng(0x5eed_1234_abcd_0001);
    phone_take()
        .into_iter()
        .filter(|(sent, _, _)| (*sent as f64) < secs * 1e6)
        .filter(|(sent, _, _)| {
            let s = *sent as f64 / 1e6;
            !dropouts.iter().any(|(a, len)| s >= *a && s < a + len)
        })
        .map(|(sent, time, values)| {
            let at = (sent as i64 + 10_000 + rng.jitter(jitter)) as u64;
            (at, packet(time, values))
        })
        .collect()
}

/// Frames `from..` of the take, looping: the idle take.
struct Loop {
    frames: Vec<[f32; COUNT]>,
    at: usize,
}

impl Loop {
    fn of_take(from: usize, len: usize) -> Loop {
        let frames = phone_take()
            .into_iter()
            .skip(from)
            .take(len)
            .map(|(_, _, v)| v)
            .collect();
        Loop { frames, at: 0 }
    }
}

impl Idle for Loop {
    fn next(&mut self, out: &mut [f32; COUNT]) -> bool {
        *out = self.frames[self.at % self.frames.len()];
        self.at += 1;
        true
    }
}

/// Datagrams and when they went.
type Timed = Vec<(u64, Vec<u8>)>;

/// Runs the relay over `arrivals` until `end_us` on a simulated clock that
/// jumps to each arrival and each moment the relay is due; returns what it
/// sent and when, and what it said to record.
fn run(
    relay: &mut Relay,
    arrivals: &[(u64, Vec<u8>)],
    idle: &mut dyn Idle,
    end_us: u64,
) -> (Timed, Vec<Vec<u8>>) {
    let mut sent = Vec::new();
    let mut recorded = Vec::new();
    let mut next = arrivals.iter().peekable();
    let mut out = [0u8; MAX_LEN];
    let mut now = 0;
    for _ in 0..10_000_000 {
        let due = relay.next_due().map(|d| d.max(now));
        let arrival = next.peek().map(|(at, _)| *at);
        now = match (due, arrival) {
            (Some(d), Some(a)) if d < a => d,
            (_, Some(a)) => {
                let (at, bytes) = next.next().unwrap();
                if relay.arrive(*at, bytes, PHONE) == Arrived::Face {
                    recorded.push(bytes.clone());
                }
                a
            }
            (Some(d), None) => d,
            (None, None) => break,
        };
        if now > end_us {
            break;
        }
        while let Some(n) = relay.poll(now, idle, &mut out) {
            sent.push((now, out[..n].to_vec()));
        }
    }
    (sent, recorded)
}

fn values(bytes: &[u8]) -> [f32; COUNT] {
    FaceFrame::decode(bytes).unwrap().blendshapes
}

fn p99_at(mut xs: Vec<f64>, percent: usize) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[(xs.len() * percent / 100).min(xs.len() - 1)]
}

fn p99(xs: Vec<f64>) -> f64 {
    p99_at(xs, 99)
}

#[test]
fn without_a_buffer_each_frame_goes_on_at_once_untouched() {
    let input = arrivals(20.0, 8_000, &[]);
    let mut relay = Relay::new(RelayConfig::default(), None, None);
    let end = input.last().unwrap().0;
    let (sent, recorded) = run(&mut relay, &input, &mut NoIdle, end);
    assert_eq!(recorded.len(), input.len());
    assert_eq!(sent.len(), input.len());
    for ((at, bytes), (sent_at, out)) in input.iter().zip(&sent) {
        assert_eq!(at, sent_at, "sent the moment it arrived");
        assert_eq!(bytes, out, "bit-exact");
    }
    assert_eq!(relay.counts().made, 0);
    // The take itself misses one frame at 19.9 s.
    assert_eq!(relay.counts().lost, 1);
    let hz = relay.source_clock().rate_hz();
    assert!((hz - 30.0).abs() < 0.05, "source rate {hz}");
    let jitter = relay.source_clock().jitter_us();
    assert!((2_000..8_000).contains(&jitter), "jitter {jitter} µs");
}

#[test]
fn a_buffer_sends_on_an_exact_period_from_jittered_arrivals() {
    for buffer in [1u8, 3] {
        let input = arrivals(60.0, 8_000, &[]);
        let config = RelayConfig {
            buffer,
            ..RelayConfig::default()
        };
        let mut relay = Relay::new(config, None, None);
        let end = input.last().unwrap().0 + u64::from(buffer + 1) * 33_334;
        let (sent, _) = run(&mut relay, &input, &mut NoIdle, end);
        // The frame the phone never sent leaves its tick empty.
        assert_eq!(relay.counts().lost, 1);
        assert_eq!(relay.counts().underruns, 0, "buffer {buffer}");
        assert_eq!(relay.counts().made, 0);
        // Polled at each tick: none late.
        assert_eq!(relay.counts().late, 0);
        assert_eq!(relay.counts().worst_late_us, 0);
        assert_eq!(sent.len(), input.len());
        let in_gaps: Vec<f64> = input.windows(2).map(|w| (w[1].0 - w[0].0) as f64).collect();
        let out_gaps: Vec<f64> = sent.windows(2).map(|w| (w[1].0 - w[0].0) as f64).collect();
        // Each interval against the output's own median period (the phone's
        // clock is a little off 30 Hz).
        let dev = |gaps: &[f64]| {
            let period = p99_at(gaps.to_vec(), 50);
            p99(gaps[30..].iter().map(|g| (g - period).abs()).collect())
        };
        let period = 1e6 / 30.0;
        assert!(
            dev(&in_gaps) > 7_000.0,
            "the input jitters: {}",
            dev(&in_gaps)
        );
        assert!(
            dev(&out_gaps) < 200.0,
            "buffer {buffer}: p99 {} µs",
            dev(&out_gaps)
        );
        // Latency: `buffer` periods after the line through the arrivals, so
        // within twice the jitter (and a little for the start) of that after
        // each arrival; never before it.
        for ((at, bytes), (sent_at, out)) in input.iter().zip(&sent) {
            assert_eq!(bytes, out);
            assert!(sent_at >= at);
            let late = (sent_at - at) as f64;
            assert!(
                late < f64::from(buffer) * period + 17_000.0,
                "latency {late} µs"
            );
        }
    }
}

#[test]
fn a_frame_sent_after_its_tick_is_counted_late() {
    let input = arrivals(2.0, 0, &[]);
    let config = RelayConfig {
        buffer: 2,
        ..RelayConfig::default()
    };
    let mut relay = Relay::new(config, None, None);
    let mut out = [0u8; MAX_LEN];
    for (at, bytes) in &input[..10] {
        relay.arrive(*at, bytes, PHONE);
    }
    // Polled 5 ms after the first tick was due: that frame is late, by 5 ms.
    let due = relay.next_due().unwrap();
    assert!(relay.poll(due + 5_000, &mut NoIdle, &mut out).is_some());
    assert_eq!(relay.counts().late, 1);
    assert_eq!(relay.counts().worst_late_us, 5_000);
    // The next on time (1.5 ms after its tick is not late).
    let due = relay.next_due().unwrap();
    assert!(relay.poll(due + 1_500, &mut NoIdle, &mut out).is_some());
    assert_eq!(relay.counts().late, 1);
}

/// Where each dropout's output went: the first made frame, the frame that
/// reached the idle take, the first return frame and the first live frame after.
fn dropout_checks(buffer: u8, idle: bool) {
    let dropouts = [(20.0, 0.5), (40.0, 5.0)];
    let input = arrivals(60.0, 8_000, &dropouts);
    let config = RelayConfig {
        buffer,
        ..RelayConfig::default()
    };
    let mut relay = Relay::new(config, None, None);
    let mut take = Loop::of_take(3000, 300);
    let mut hold = NoIdle;
    let source: &mut dyn Idle = if idle { &mut take } else { &mut hold };
    let (sent, recorded) = run(&mut relay, &input, source, 60_100_000);
    assert_eq!(
        recorded,
        input.iter().map(|(_, b)| b.clone()).collect::<Vec<_>>()
    );
    let counts = relay.counts();
    assert_eq!((counts.fallbacks, counts.returns), (2, 2), "{counts:?}");
    assert_eq!(counts.underruns, 0, "{counts:?}");
    if buffer > 0 {
        // Live frames go on at the period, dropouts or not.
        let index: std::collections::HashMap<&[u8], usize> = input
            .iter()
            .enumerate()
            .map(|(i, (_, p))| (p.as_slice(), i))
            .collect();
        for w in sent.windows(2) {
            if let (Some(a), Some(b)) = (index.get(w[0].1.as_slice()), index.get(w[1].1.as_slice()))
            {
                let gap = (w[1].0 - w[0].0) as f64;
                let (ta, tb) = (
                    FaceFrame::decode(&w[0].1).unwrap().time,
                    FaceFrame::decode(&w[1].1).unwrap().time,
                );
                let expect = tb.frames_since(&ta).unwrap() as f64 / 2.0 * 1e6 / 30.0;
                if b == &(a + 1) && w[0].0 > 1_500_000 {
                    assert!((gap - expect).abs() < 600.0, "live gap {gap} at {}", w[0].0);
                }
            }
        }
    }
    let period = 1e6 / 30.0;
    let (t, f) = (250_000.0, 300_000.0);
    for (i, (start, len)) in dropouts.iter().enumerate() {
        let last_in = input
            .iter()
            .map(|(at, _)| *at)
            .filter(|at| (*at as f64) < (start + 0.05) * 1e6)
            .max()
            .unwrap() as f64;
        let fall = *counts.switches.iter().nth(2 * i).unwrap();
        assert_eq!(fall.kind, SwitchKind::Fallback);
        let reaction = fall.at_us as f64 - last_in;
        let slack = f64::from(buffer) * period + period;
        assert!(
            reaction >= t && reaction <= t + slack,
            "reaction {reaction} µs"
        );
        // The fade ends within T + F (+ the buffer) of the last live frame.
        let made: Vec<&(u64, Vec<u8>)> = sent
            .iter()
            .filter(|(at, _)| *at >= fall.at_us && (*at as f64) < (start + len) * 1e6)
            .collect();
        assert!(!made.is_empty());
        let back = *counts.switches.iter().nth(2 * i + 1).unwrap();
        assert_eq!(back.kind, SwitchKind::Return);
        // The return comes with the K-th frame after the gap.
        let after: Vec<u64> = input
            .iter()
            .map(|(at, _)| *at)
            .filter(|at| *at as f64 > (start + len) * 1e6)
            .collect();
        assert_eq!(back.at_us, after[9], "return after 10 frames");
        // Frames out go on at the rate through the dropout.
        let gaps: Vec<f64> = sent
            .windows(2)
            .filter(|w| w[0].0 as f64 > last_in + t + slack && (w[1].0 as f64) < back.at_us as f64)
            .map(|w| (w[1].0 - w[0].0) as f64)
            .collect();
        assert!(
            gaps.iter().all(|g| (g - period).abs() < 600.0),
            "fallback gaps {gaps:?}"
        );
        if idle {
            // From T + F on, the idle take plays.
            let done = fall.at_us as f64 + f + period;
            let on_idle = made.iter().filter(|(at, _)| *at as f64 > done).count();
            let expect = ((len * 1e6 - t - f - 2.0 * period) / period).max(0.0) as usize;
            assert!(
                on_idle >= expect,
                "{on_idle} frames on the idle take, {expect} expected"
            );
        } else {
            // The hold: every made frame has the last live values.
            let last_values = values(
                &input
                    .iter()
                    .rfind(|(at, _)| *at as f64 == last_in)
                    .unwrap()
                    .1,
            );
            for (at, b) in &made {
                assert_eq!(values(b), last_values, "at {at}, last in {last_in}");
            }
        }
    }
    // Every frame sent is the live source's subject and device.
    for (_, bytes) in &sent {
        let frame = FaceFrame::decode(bytes).unwrap();
        assert_eq!((frame.subject, frame.device_id), (SUBJECT, DEVICE));
    }
    // No value jumps further than the sides themselves move plus the
    // crossfade's step across the take's range.
    let take = phone_take();
    let mut bound = [0f32; COUNT];
    for (i, bound) in bound.iter_mut().enumerate() {
        let (mut lo, mut hi, mut step) = (f32::MAX, f32::MIN, 0f32);
        for w in take.windows(2) {
            step = step.max((w[1].2[i] - w[0].2[i]).abs());
            lo = lo.min(w[0].2[i]);
            hi = hi.max(w[0].2[i]);
        }
        *bound = 2.0 * step + (hi - lo) * (period / f) as f32 * 1.05 + 1e-6;
    }
    for w in sent.windows(2) {
        let (a, b) = (values(&w[0].1), values(&w[1].1));
        for i in 0..COUNT {
            assert!(
                (b[i] - a[i]).abs() <= bound[i],
                "{} jumps by {}",
                NAMES[i],
                b[i] - a[i]
            );
        }
    }
}

#[test]
fn dropouts_fall_back_to_the_idle_take_and_return_without_a_buffer() {
    dropout_checks(0, true);
}

#[test]
fn dropouts_fall_back_to_the_idle_take_and_return_with_a_buffer() {
    dropout_checks(3, true);
}

#[test]
fn without_an_idle_take_the_last_frame_is_held_at_the_rate() {
    dropout_checks(0, false);
    dropout_checks(2, false);
}

#[test]
fn other_datagrams_are_counted_passed_on_if_asked_and_never_recorded() {
    let face = arrivals(1.0, 0, &[]);
    let mha = {
        // The app's MetaHuman Animator packet: u16 version, id, time, controls, head pose.
        let mut b = vec![1, 0, 4, 0];
        b.extend_from_slice(b"alex");
        b.extend_from_slice(&[0; 16]);
        b.extend_from_slice(&2u16.to_le_bytes());
        b.extend_from_slice(&[0; 4 + 24]);
        b
    };
    for pass_other in [false, true] {
        let config = RelayConfig {
            pass_other,
            ..RelayConfig::default()
        };
        let mut relay = Relay::new(config, None, None);
        assert_eq!(relay.arrive(0, &face[0].1, PHONE), Arrived::Face);
        let expect = if pass_other {
            Arrived::PassOn
        } else {
            Arrived::Skipped
        };
        for junk in [&mha[..], b"garbage", &face[1].1[..100], &[]] {
            assert_eq!(relay.arrive(1, junk, PHONE), expect);
        }
        assert_eq!(relay.counts().not_face, 4);
        assert_eq!(relay.counts().frames_in, 1);
    }
}

#[test]
fn the_first_subject_or_the_filtered_one_is_the_source() {
    let input = arrivals(1.0, 0, &[]);
    let mut other = FaceFrame::decode(&input[1].1).unwrap();
    other.subject = "someone";
    let mut buf = [0u8; MAX_LEN];
    let n = other.encode(&mut buf).unwrap();
    let mut relay = Relay::new(RelayConfig::default(), None, None);
    assert_eq!(relay.arrive(0, &input[0].1, PHONE), Arrived::Face);
    assert_eq!(relay.arrive(1, &buf[..n], PHONE), Arrived::Skipped);
    let mut relay = Relay::new(RelayConfig::default(), Some("someone"), None);
    assert_eq!(relay.arrive(0, &input[0].1, PHONE), Arrived::Skipped);
    assert_eq!(relay.arrive(1, &buf[..n], PHONE), Arrived::Face);
    let stranger = IpAddr::V4(Ipv4Addr::new(10, 0, 0, 8));
    let mut relay = Relay::new(RelayConfig::default(), None, Some(PHONE));
    assert_eq!(relay.arrive(0, &input[0].1, stranger), Arrived::Skipped);
    assert_eq!(relay.counts().other_source, 1);
}

/// A constant idle take.
struct Constant([f32; COUNT]);

impl Idle for Constant {
    fn next(&mut self, out: &mut [f32; COUNT]) -> bool {
        *out = self.0;
        true
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// Anything at all, at any time: no panic, and nothing but face frames
    /// is ever to be recorded.
    #[test]
    fn any_datagrams_never_panic(
        datagrams in prop::collection::vec((0u64..2_000_000, prop::collection::vec(any::<u8>(), 0..800)), 0..40),
        buffer in 0u8..8,
        timeout_ms in 0u16..400,
        fade_ms in 0u16..400,
        return_frames in 0u8..12,
        pass_other: bool,
    ) {
        let config = RelayConfig { buffer, timeout_ms, fade_ms, return_frames, pass_other };
        let mut relay = Relay::new(config, None, None);
        let mut out = [0u8; MAX_LEN];
        let mut datagrams = datagrams;
        datagrams.sort_by_key(|d| d.0);
        for (at, bytes) in &datagrams {
            if relay.arrive(*at, bytes, PHONE) == Arrived::Face {
                prop_assert!(FaceFrame::decode(bytes).is_ok());
            }
            let mut n = 0;
            while relay.poll(*at, &mut NoIdle, &mut out).is_some() && n < 100 { n += 1; }
        }
        for t in 0..200u64 {
            let _ = relay.poll(2_000_000 + t * 10_000, &mut NoIdle, &mut out);
        }
    }

    /// Live frames of one constant value, an idle take of another, arrivals
    /// with jitter and dropouts of any length: no step between frames sent is
    /// larger than the crossfade's step over their interval.
    #[test]
    fn no_jump_beyond_the_crossfade_step(
        live in -1.0f32..1.0,
        idle in -1.0f32..1.0,
        buffer in 0u8..4,
        fade_ms in 50u16..600,
        jitter in 0i64..9_000,
        gaps in prop::collection::vec((0u64..300, 1u64..200), 0..4),
        seed: u64,
    ) {
        let time = |i: u64| FrameTime { frame_number: 2 * i as i32, subframe: 0.0, rate: FrameRate::FPS_60 };
        let mut rng = Rng(seed | 1);
        let input: Vec<(u64, Vec<u8>)> = (0..400u64)
            .filter(|i| !gaps.iter().any(|(a, len)| *i >= *a && *i < a + len))
            .map(|i| ((i * 33_333 + 10_000) as i64 + rng.jitter(jitter)) as u64)
            .zip(0u64..)
            .map(|(at, i)| (at, packet(time(i), [live; COUNT])))
            .collect();
        let mut input = input;
        input.sort_by_key(|a| a.0);
        let config = RelayConfig { buffer, fade_ms, ..RelayConfig::default() };
        let mut relay = Relay::new(config, None, None);
        let (sent, _) = run(&mut relay, &input, &mut Constant([idle; COUNT]), 20_000_000);
        let span = (live - idle).abs();
        for w in sent.windows(2) {
            let dt = (w[1].0 - w[0].0) as f32;
            let step = span * (dt / (f32::from(fade_ms) * 1000.0)).min(1.0);
            let jump = (values(&w[1].1)[0] - values(&w[0].1)[0]).abs();
            prop_assert!(jump <= step + 1e-5, "jump {} > step {} over {} µs", jump, step, dt);
        }
    }
}

/// The engine is one static on the box, whose RAM budget for the relay is
/// 8 KiB: its buffer of whole packets is most of it.
#[test]
fn the_engine_fits_the_box_budget() {
    let size = std::mem::size_of::<Relay>();
    eprintln!("Relay: {size} bytes");
    assert!(size <= 8 * 1024, "{size} bytes");
}
