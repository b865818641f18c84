//! The chase's playhead on invented clocks: a master sends timecode with
//! arrival jitter, a driver steps the playhead when it asks (a little late,
//! as a real one wakes), and every cue is checked against the master's true
//! timecode. A phone take (30 Hz capture numbered at 60 fps, ±4 ms of
//! jitter) plays every frame once and in order, through midnight too; a
//! locate seeks; a hold sends the held frame at the take's rate; a stop sends
//! nothing; a stalled driver catches up without skipping.

use embassy_futures::block_on;
use llv_core::artnet::TimecodeKind;
use llv_core::chase::*;
use llv_core::time::day::{place, wrapped_add};
use llv_core::time::{FrameRate, FrameTime, TakeTime};

/// A take's frame times in memory.
struct Times {
    times: Vec<u32>,
    end: u32,
}

impl FrameTimes for Times {
    type Error = ();

    fn frame_count(&self) -> u32 {
        self.times.len() as u32
    }

    fn end_us(&self) -> u32 {
        self.end
    }

    async fn time_us(&mut self, index: u32) -> Result<u32, ()> {
        self.times.get(index as usize).copied().ok_or(())
    }
}

/// A phone take: `n` frames captured at 30 Hz with up to ±4 ms of jitter,
/// numbered in 60 fps frames from `first_number` (the numbers wrap at
/// midnight), timed as the take image times them.
fn phone_take(first_number: i64, n: u32) -> (Vec<FrameTime>, Times) {
    let day = i64::from(FrameRate::FPS_60.frames_per_day().unwrap());
    let frames: Vec<FrameTime> = (0..n)
        .map(|i| {
            let jitter = f64::from((i.wrapping_mul(2_654_435_761) >> 16) % 8001) - 4000.0;
            let capture_us = f64::from(i) * 1e6 / 30.0 + jitter + 4000.0;
            let at = capture_us / (1e6 / 60.0);
            FrameTime {
                frame_number: ((first_number + at.floor() as i64) % day) as i32,
                subframe: (at - at.floor()) as f32,
                rate: FrameRate::FPS_60,
            }
        })
        .collect();
    let mut take = TakeTime::new();
    let times: Vec<u32> = frames
        .iter()
        .map(|f| (take.next_nanos(f).unwrap() / 1000) as u32)
        .collect();
    let end = times.last().unwrap() + 16_666;
    (frames, Times { times, end })
}

/// The show's timecode master: `kind` from frame `start` of its day, one
/// frame after another (a frame's arrival 0 to 3 ms late), none sent in
/// `dropout` (master frames), and `jump` frames added from master frame `at` on.
struct Master {
    kind: TimecodeKind,
    start: u32,
    frames: u32,
    dropout: Option<(u32, u32)>,
    jump: Option<(u32, i64)>,
}

impl Master {
    fn arrival(&self, k: u32) -> u64 {
        self.kind.micros(u64::from(k)) + u64::from(k.wrapping_mul(40_503) % 3_000)
    }

    fn jumped(&self, k: u32) -> i64 {
        self.jump
            .filter(|&(at, _)| k >= at)
            .map_or(0, |(_, add)| add)
    }

    /// The master's frame `k`, as µs since its midnight.
    fn tc(&self, k: u32) -> u64 {
        let day = i64::from(self.kind.frames_per_day());
        let count = (i64::from(self.start) + i64::from(k) + self.jumped(k)).rem_euclid(day);
        self.kind.micros(count as u64)
    }

    /// The master's true timecode at local time `t` (its frame `k` is at
    /// local `kind.micros(k)`), µs since its midnight.
    fn truth(&self, t: u64) -> u64 {
        let k = (0..)
            .find(|&k| self.kind.micros(u64::from(k + 1)) > t)
            .unwrap();
        let into = t - self.kind.micros(u64::from(k));
        wrapped_add(self.tc(k), into as i64, self.kind.micros_per_day())
    }
}

/// What a run cued, at which local times.
struct Run {
    cues: Vec<(u64, Cue)>,
}

impl Run {
    fn indexes(&self) -> Vec<u32> {
        self.cues
            .iter()
            .filter(|(_, c)| c.kind != CueKind::Repeat)
            .map(|(_, c)| c.index)
            .collect()
    }
}

/// How late the driver wakes after a wait, µs, by the local time it wakes for.
type Latency = fn(u64) -> u64;

fn usual_latency(at: u64) -> u64 {
    // 0 to 0.9 ms, as a sleeping thread wakes on a busy machine.
    at.wrapping_mul(7_919) % 900
}

/// Runs the playhead over `times` placed at `offset` on `master`'s
/// timecode, to local time `until`.
fn run(
    master: &Master,
    config: ChaseConfig,
    times: &mut Times,
    offset: u64,
    until: u64,
    latency: Latency,
) -> Run {
    let mut chase = Chase::new(config);
    let mut head = Playhead::new(times);
    let mut cues = Vec::new();
    let mut now = 0u64;
    let mut k = 0u32;
    for _ in 0..5_000_000 {
        if now >= until {
            return Run { cues };
        }
        while k < master.frames && master.arrival(k) <= now {
            if !master.dropout.is_some_and(|(a, b)| (a..b).contains(&k)) {
                chase.tick(master.arrival(k));
                chase.on_timecode(master.tc(k), master.kind, master.arrival(k));
            }
            k += 1;
        }
        chase.tick(now);
        match block_on(head.step(times, &chase, Some(offset), now)).unwrap() {
            Step::Send(cue) => cues.push((now, cue)),
            Step::Wait { until_us } => {
                assert!(until_us > now, "a wait until {until_us} at {now}");
                // It wakes when asked or when timecode arrives, a little late.
                let arrival = (k < master.frames).then(|| master.arrival(k));
                let wake = arrival.map_or(until_us, |a| a.min(until_us));
                now = wake + latency(wake);
            }
        }
    }
    panic!("still running at {now} us");
}

/// Chase error of every next frame (µs): where the master's timecode was when
/// it went out, minus the frame's place on it. 0 is on time; a frame is late
/// by the driver's wake-up and the chase's error.
fn errors(master: &Master, run: &Run, times: &Times, offset: u64) -> Vec<i64> {
    let day = master.kind.micros_per_day();
    run.cues
        .iter()
        .filter(|(_, c)| matches!(c.kind, CueKind::Next { .. }))
        .map(|(at, c)| {
            let media = place(master.truth(*at), offset, u64::from(times.end), day);
            media - i64::from(times.times[c.index as usize])
        })
        .collect()
}

fn percentile(values: &[i64], q: f64) -> i64 {
    let mut v = values.to_vec();
    v.sort_unstable();
    v[((v.len() - 1) as f64 * q) as usize]
}

const K30: TimecodeKind = TimecodeKind::Smpte30;

#[test]
fn a_phone_take_plays_every_frame_once_and_in_order() {
    // 20 s of 30 Hz capture numbered at 60 fps, from 01:00:00:00; timecode of
    // each type from 00:59:58 to 2 s past the take's end.
    for kind in [
        TimecodeKind::Smpte30,
        TimecodeKind::Ebu25,
        TimecodeKind::Film24,
        TimecodeKind::DropFrame2997,
    ] {
        let (frames, mut times) = phone_take(3600 * 60, 600);
        let offset = own_place(&frames[0], kind).unwrap();
        let base = u32::from(kind.base());
        let start = kind.rate().count_of((0, 59, 58, 0)).unwrap();
        let master = Master {
            kind,
            start,
            frames: 24 * base,
            dropout: None,
            jump: None,
        };
        let end = kind.micros(u64::from(24 * base)) + 100_000;
        let run = run(
            &master,
            ChaseConfig::default(),
            &mut times,
            offset,
            end,
            usual_latency,
        );
        assert_eq!(run.indexes(), (0..600).collect::<Vec<_>>(), "{kind:?}");
        assert_eq!(run.cues[0].1.kind, CueKind::Seek, "the first is a start");
        let e = errors(&master, &run, &times, offset);
        let (p50, p99) = (percentile(&e, 0.5), percentile(&e, 0.99));
        // Early by the chase's slewed jitter at most, late by the wake-up.
        assert!(
            e.iter().all(|e| e.abs() < 8_000),
            "{kind:?}: p50 {p50} p99 {p99} us, {:?}",
            (e.iter().min(), e.iter().max())
        );
        assert!(p50.abs() < 3_000, "{kind:?}: p50 {p50} us");
    }
}

#[test]
fn a_take_through_midnight_plays_through_it() {
    // The phone take from 23:59:55:00 at 60 fps, 20 s long; timecode from
    // 23:59:53:00 to 00:00:17.
    let day60 = i64::from(FrameRate::FPS_60.frames_per_day().unwrap());
    let (frames, mut times) = phone_take(day60 - 5 * 60, 600);
    assert_eq!(
        frames[0].timecode().unwrap().to_string()[..11],
        *"23:59:55:00"
    );
    assert!(frames[599].timecode().unwrap().hours == 0);
    let offset = own_place(&frames[0], K30).unwrap();
    let master = Master {
        kind: K30,
        start: K30.frames_per_day() - 7 * 30,
        frames: 24 * 30,
        dropout: None,
        jump: None,
    };
    let run = run(
        &master,
        ChaseConfig::default(),
        &mut times,
        offset,
        K30.micros(24 * 30) + 100_000,
        usual_latency,
    );
    assert_eq!(run.indexes(), (0..600).collect::<Vec<_>>());
    let e = errors(&master, &run, &times, offset);
    assert!(e.iter().all(|e| e.abs() < 8_000), "{e:?}");
}

#[test]
fn a_hold_sends_the_held_frame_at_the_takes_rate() {
    // Timecode from 1 s before the take to 3 s into it, then none: 1 s of
    // freewheel, then held.
    let (frames, mut times) = phone_take(3600 * 60, 600);
    let offset = own_place(&frames[0], K30).unwrap();
    let master = Master {
        kind: K30,
        start: K30.rate().count_of((0, 59, 59, 0)).unwrap(),
        frames: 120,
        dropout: None,
        jump: None,
    };
    let config = ChaseConfig {
        freewheel_us: 1_000_000,
        after_freewheel: AfterFreewheel::Hold,
        ..ChaseConfig::default()
    };
    let held_from = K30.micros(119) + 100_000 + 1_000_000;
    let run = run(
        &master,
        config,
        &mut times,
        offset,
        held_from + 3_000_000,
        usual_latency,
    );
    let played = run.indexes();
    assert_eq!(played, (0..played.len() as u32).collect::<Vec<_>>());
    // About 4.1 s of the take went out (3 s locked, 1.1 s freewheeling).
    assert!((118..128).contains(&played.len()), "{}", played.len());
    let repeats: Vec<&(u64, Cue)> = run
        .cues
        .iter()
        .filter(|(_, c)| c.kind == CueKind::Repeat)
        .collect();
    let last = *played.last().unwrap();
    assert!(repeats.iter().all(|(_, c)| c.index == last));
    // Every 33.3 ms (the take's average frame interval) for the 3 s held.
    assert!((85..=91).contains(&repeats.len()), "{}", repeats.len());
    let first_repeat = repeats[0].0;
    assert!(first_repeat >= held_from && first_repeat < held_from + 40_000);
    for pair in repeats.windows(2) {
        let gap = pair[1].0 - pair[0].0;
        assert!((33_000..35_000).contains(&gap), "{gap}");
    }
}

#[test]
fn a_stop_sends_nothing_and_timecode_returning_goes_on() {
    // Timecode 3 s, gone 6 s (freewheel 1 s, then stopped), back for 3 s
    // where it would have been.
    let (frames, mut times) = phone_take(3600 * 60, 600);
    let offset = own_place(&frames[0], K30).unwrap();
    let master = Master {
        kind: K30,
        start: K30.rate().count_of((1, 0, 0, 0)).unwrap(),
        frames: 360,
        dropout: Some((90, 270)),
        jump: None,
    };
    let config = ChaseConfig {
        freewheel_us: 1_000_000,
        ..ChaseConfig::default()
    };
    let run = run(
        &master,
        config,
        &mut times,
        offset,
        K30.micros(360) + 100_000,
        usual_latency,
    );
    let stopped = K30.micros(89) + 1_100_000 + 5_000;
    let back = master.arrival(270);
    assert!(
        run.cues
            .iter()
            .all(|(at, _)| *at < stopped || *at >= master.arrival(273)),
        "a frame went out while stopped"
    );
    // In order throughout; one seek where timecode came back.
    let played = run.indexes();
    assert!(played.windows(2).all(|w| w[1] > w[0]), "{played:?}");
    let seeks: Vec<u64> = run
        .cues
        .iter()
        .filter(|(_, c)| c.kind == CueKind::Seek)
        .map(|(at, _)| *at)
        .collect();
    assert_eq!(seeks.len(), 2, "the start and the return");
    assert!(seeks[1] >= back && seeks[1] < back + 200_000);
}

#[test]
fn a_jump_locates_and_seeks_there() {
    // 10 s ahead at master frame 150, 15 s back at frame 300.
    let (frames, mut times) = phone_take(3600 * 60, 1200);
    let offset = own_place(&frames[0], K30).unwrap();
    let master = Master {
        kind: K30,
        start: K30.rate().count_of((1, 0, 0, 0)).unwrap(),
        frames: 450,
        dropout: None,
        jump: Some((150, 300)),
    };
    let mut master = master;
    let run1 = run(
        &master,
        ChaseConfig::default(),
        &mut times,
        offset,
        K30.micros(450),
        usual_latency,
    );
    let seeks: Vec<(u64, u32)> = run1
        .cues
        .iter()
        .filter(|(_, c)| c.kind == CueKind::Seek)
        .map(|(at, c)| (*at, c.index))
        .collect();
    assert_eq!(seeks.len(), 2, "{seeks:?}");
    // The seek goes to where the timecode is then, within a frame of the take.
    let (at, index) = seeks[1];
    let media = place(master.truth(at), offset, 40_000_000, K30.micros_per_day());
    let want = times.times.partition_point(|t| i64::from(*t) <= media) - 1;
    assert!(index.abs_diff(want as u32) <= 1, "{index} vs {want}");
    // Backwards: a seek back.
    master.jump = Some((150, -150));
    let (_, mut times) = phone_take(3600 * 60, 1200);
    let run2 = run(
        &master,
        ChaseConfig::default(),
        &mut times,
        offset,
        K30.micros(450),
        usual_latency,
    );
    let played = run2.indexes();
    let backs = played.windows(2).filter(|w| w[1] <= w[0]).count();
    assert_eq!(backs, 1, "one step back, at the locate");
}

#[test]
fn a_stalled_driver_catches_up_without_skipping_until_a_second_behind() {
    let (frames, mut times) = phone_take(3600 * 60, 600);
    let offset = own_place(&frames[0], K30).unwrap();
    let master = Master {
        kind: K30,
        start: K30.rate().count_of((0, 59, 59, 0)).unwrap(),
        frames: 630,
        dropout: None,
        jump: None,
    };
    // One wake-up 300 ms late at 5 s: a burst, nothing skipped.
    fn stall_300ms(at: u64) -> u64 {
        if (5_000_000..5_040_000).contains(&at) {
            300_000
        } else {
            usual_latency(at)
        }
    }
    let short = run(
        &master,
        ChaseConfig::default(),
        &mut times,
        offset,
        K30.micros(630),
        stall_300ms,
    );
    let played = short.indexes();
    assert_eq!(played, (0..played.len() as u32).collect::<Vec<_>>());
    // One 2 s late: past a second behind, it skips to the timecode.
    fn stall_2s(at: u64) -> u64 {
        if (5_000_000..5_040_000).contains(&at) {
            2_000_000
        } else {
            usual_latency(at)
        }
    }
    let long = run(
        &master,
        ChaseConfig::default(),
        &mut times,
        offset,
        K30.micros(630),
        stall_2s,
    );
    let seeks = long
        .cues
        .iter()
        .filter(|(_, c)| c.kind == CueKind::Seek)
        .count();
    assert_eq!(seeks, 2, "the start and the skip");
}

#[test]
fn before_its_place_and_after_its_end_a_take_sends_nothing() {
    let (frames, mut times) = phone_take(3600 * 60, 30);
    let offset = own_place(&frames[0], K30).unwrap();
    let master = Master {
        kind: K30,
        start: K30.rate().count_of((0, 59, 59, 0)).unwrap(),
        frames: 120,
        dropout: None,
        jump: None,
    };
    let run = run(
        &master,
        ChaseConfig::default(),
        &mut times,
        offset,
        K30.micros(120),
        usual_latency,
    );
    assert_eq!(run.indexes(), (0..30).collect::<Vec<_>>());
    let first = run.cues[0].0;
    // 01:00:00:00 is 1 s in; the take (1 s) is over at 2 s.
    assert!((1_000_000..1_006_000).contains(&first), "{first}");
    assert!(run.cues.last().unwrap().0 < 2_000_000);
}
