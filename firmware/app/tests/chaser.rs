//! The box's chase on embassy-time's mock clock: a generator sends Art-Net
//! timecode at 30 fps with arrival jitter; after lock every frame sent is the
//! take's frame for the timecode of its moment within one frame; a 2 s
//! dropout freewheels and re-locks; a jump locates; bad packets are counted
//! and ignored; nothing goes out before the take's place on the timecode.
//! The real phone take (30 Hz numbered at 60 fps) plays every frame once and
//! in order, at its own timecode and through midnight; a hold sends the held
//! frame at the take's rate.

mod common;

use std::cell::RefCell;

use common::*;
use embassy_futures::select::{select3, Either3};
use embassy_time::{Duration, Instant, Timer};
use llv_box::builtin::take;
use llv_box::chase_feed::ChaseFeed;
use llv_box::chaser::chase;
use llv_box::{FrameSource, PlayError};
use llv_core::artnet::{ArtTimeCode, TimecodeKind, TimecodeLabel};
use llv_core::chase::ChaseState;
use llv_core::packet::{FaceFrame, MAX_LEN};
use llv_core::settings::ChaseSpec;
use llv_core::take::TakeTiming;
use llv_core::time::{FrameRate, FrameTime, Timecode};

const STEP: Duration = Duration::from_micros(100);
const LIMIT: Duration = Duration::from_secs(60);
/// One take frame at 60 fps, in µs.
const TAKE_FRAME: u32 = 16_667;
/// 30 fps timecode.
const KIND: TimecodeKind = TimecodeKind::Smpte30;

/// What the master does: timecode from `start` (a frame count at 30 fps),
/// `frames` frames, none sent in `dropout` (master frames), `jump` frames
/// added from master frame `at` on, and datagrams that are not timecode mixed in.
struct Master {
    start: u32,
    frames: u32,
    dropout: Option<(u32, u32)>,
    jump: Option<(u32, u32)>,
    /// How long the test goes on after the last frame.
    linger: Duration,
}

impl Master {
    /// The master's timecode at `t` µs after it started, in µs.
    fn tc_at(&self, t: u64) -> u64 {
        let k = t / KIND.micros(1);
        let jumped = self
            .jump
            .filter(|&(at, _)| k >= u64::from(at))
            .map_or(0, |(_, add)| add);
        KIND.micros(u64::from(self.start + jumped)) + t
    }

    /// Sends the timecode into `timecode`, each frame 0 to 3 ms late, with a
    /// bad packet and a DMX packet every 10 frames.
    async fn run(&self, timecode: &ChaseFeed) {
        let t0 = Instant::now();
        for k in 0..self.frames {
            let jitter = u64::from(k.wrapping_mul(2_654_435_761) >> 20) % 3_000;
            Timer::at(t0 + Duration::from_micros(KIND.micros(u64::from(k)) + jitter)).await;
            if self
                .dropout
                .is_some_and(|(from, to)| (from..to).contains(&k))
            {
                continue;
            }
            let jumped = self
                .jump
                .filter(|&(at, _)| k >= at)
                .map_or(0, |(_, add)| add);
            let tc = ArtTimeCode::from_frame_count(self.start + k + jumped, KIND, 0);
            let mut packet = [0u8; 19];
            tc.emit(&mut packet).unwrap();
            timecode.on_datagram(&packet, Instant::now());
            if k % 10 == 0 {
                let mut bad = packet;
                bad[14] = 30; // frames past the rate
                timecode.on_datagram(&bad, Instant::now());
                let mut dmx = [0u8; 30];
                dmx[..8].copy_from_slice(b"Art-Net\0");
                dmx[8..10].copy_from_slice(&0x5000u16.to_le_bytes());
                timecode.on_datagram(&dmx, Instant::now());
            }
        }
        Timer::after(self.linger).await;
    }
}

/// What a chase did: the frames sent (time, index) and the states it went through.
struct Chased {
    t0: Instant,
    sent: Vec<(Instant, u32)>,
    states: Vec<ChaseState>,
    locates: u32,
    bad_packets: u32,
}

/// Chases a take of `n` frames 60 fps apart, at `offset`, while `master` runs.
fn chase_master(n: u32, offset: TimecodeLabel, master: &Master) -> Chased {
    let _clock = clock();
    let timecode = ChaseFeed::new();
    timecode.begin(&ChaseSpec {
        offset: Some(offset),
        ..ChaseSpec::DEFAULT
    });
    let mut src = source(n, TAKE_FRAME);
    let mut sink = Recorder::default();
    let states = RefCell::new(Vec::new());
    let t0 = Instant::now();
    let watch = async {
        loop {
            if let Some(s) = timecode.status() {
                let mut states = states.borrow_mut();
                if states.last() != Some(&s.state) {
                    states.push(s.state);
                }
            }
            Timer::after(Duration::from_millis(1)).await;
        }
    };
    let targets = [target(1)];
    let played = chase(
        &mut src,
        &mut sink,
        &targets,
        &timecode,
        Some(offset),
        |_| (),
    );
    match on_mock_clock(select3(played, master.run(&timecode), watch), STEP, LIMIT) {
        Either3::First(r) => panic!("the chase ended: {r:?}"),
        Either3::Second(()) => {}
        Either3::Third(never) => never,
    }
    let status = timecode.status().unwrap();
    let packets: Vec<Vec<u8>> = (0..n).map(packet).collect();
    Chased {
        t0,
        sent: sink
            .sent
            .iter()
            .map(|s| {
                let i = packets.iter().position(|p| *p == s.bytes).unwrap();
                (s.at, i as u32)
            })
            .collect(),
        states: states.into_inner(),
        locates: status.locates,
        bad_packets: status.bad_packets,
    }
}

/// The frame that should play at `at`: the take's frame for the master's
/// timecode then, `offset_us` being frame 0's place.
fn expected_index(master: &Master, chased: &Chased, at: Instant, offset_us: u64) -> i64 {
    let tc = master.tc_at((at - chased.t0).as_micros());
    (tc as i64 - offset_us as i64).div_euclid(i64::from(TAKE_FRAME))
}

fn label(text: &str) -> TimecodeLabel {
    TimecodeLabel::parse(text).unwrap()
}

#[test]
fn after_lock_every_frame_matches_the_timecode_within_a_frame() {
    // The master starts at 00:59:58:00; the take's frame 0 is at 01:00:00:00.
    let master = Master {
        start: 3598 * 30,
        frames: 300,
        dropout: None,
        jump: None,
        linger: Duration::from_millis(4_500),
    };
    let offset = label("01:00:00:00");
    let chased = chase_master(600, offset, &master);
    let offset_us = offset.micros(KIND);
    assert_eq!(
        chased.states,
        [
            ChaseState::Waiting,
            ChaseState::Locking,
            ChaseState::Locked,
            ChaseState::Freewheel,
            ChaseState::Stopped
        ]
    );
    // Nothing before 01:00:00:00 (2 s in); then frames in order, at their timecode.
    let (first_at, first) = chased.sent[0];
    assert_eq!(first, 0);
    let two_s = (first_at - chased.t0).as_micros();
    assert!((2_000_000..2_004_000).contains(&two_s), "{two_s}");
    for &(at, index) in &chased.sent {
        let want = expected_index(&master, &chased, at, offset_us);
        assert!(
            (i64::from(index) - want).abs() <= 1,
            "frame {index} at {} us, the timecode's is {want}",
            (at - chased.t0).as_micros()
        );
    }
    // Every frame from 0 on, none twice, until the timecode stopped (8 s of
    // it, 6 s of take) plus the freewheel (4 s): the whole 10 s take of 600.
    let indexes: Vec<u32> = chased.sent.iter().map(|s| s.1).collect();
    assert_eq!(indexes, (0..600).collect::<Vec<_>>());
    assert_eq!(chased.locates, 0);
    assert_eq!(chased.bad_packets, 30);
}

#[test]
fn a_dropout_freewheels_and_relocks_and_a_jump_locates() {
    // 30 s of timecode from 00:00:10:00: lost from 5 s to 7 s, and 10 s
    // ahead from 15 s on. Frame 0 of a 60 s take at 00:00:10:00.
    let master = Master {
        start: 300,
        frames: 900,
        dropout: Some((150, 210)),
        jump: Some((450, 300)),
        linger: Duration::from_millis(4_500),
    };
    let offset = label("00:00:10:00");
    let chased = chase_master(3600, offset, &master);
    let offset_us = offset.micros(KIND);
    assert_eq!(
        chased.states,
        [
            ChaseState::Waiting,
            ChaseState::Locking,
            ChaseState::Locked,
            ChaseState::Freewheel,
            ChaseState::Locked,
            ChaseState::Freewheel,
            ChaseState::Stopped
        ]
    );
    assert_eq!(chased.locates, 1);
    let jump_at = chased.t0 + Duration::from_micros(KIND.micros(450));
    let mut seeks = 0;
    for pair in chased.sent.windows(2) {
        let ((_, a), (at, b)) = (pair[0], pair[1]);
        if b != a + 1 {
            seeks += 1;
            // The seek is the jump, seen at the first timecode after it.
            assert!(
                at >= jump_at && at < jump_at + Duration::from_millis(40),
                "{a} -> {b} at {} us; the jump at {} us",
                (at - chased.t0).as_micros(),
                (jump_at - chased.t0).as_micros()
            );
            assert!(b - a > 550, "{a} -> {b}");
        }
    }
    assert_eq!(seeks, 1);
    for &(at, index) in &chased.sent {
        if at >= jump_at && at < jump_at + Duration::from_millis(40) {
            continue;
        }
        let want = expected_index(&master, &chased, at, offset_us);
        assert!(
            (i64::from(index) - want).abs() <= 1,
            "frame {index} at {} us, the timecode's is {want}",
            (at - chased.t0).as_micros()
        );
    }
}

#[test]
fn a_take_at_its_own_timecode_starts_at_its_first_frame_time() {
    let _clock = clock();
    let mut builtin = take().unwrap();
    let mut buf = [0u8; MAX_LEN];
    let first = embassy_futures::block_on(builtin.read_frame(0, &mut buf)).unwrap();
    let own_us = FaceFrame::decode(&buf[..first.len])
        .unwrap()
        .time
        .micros_of_day()
        .unwrap();
    // A master 1 s before the take's own first frame time.
    let start = (own_us.saturating_sub(1_000_000) / KIND.micros(1)) as u32;
    let master = Master {
        start,
        frames: 60,
        dropout: None,
        jump: None,
        linger: Duration::from_millis(200),
    };
    let timecode = ChaseFeed::new();
    timecode.begin(&ChaseSpec::DEFAULT);
    let mut sink = Recorder::default();
    let t0 = Instant::now();
    let targets = [target(1)];
    let played = chase(&mut builtin, &mut sink, &targets, &timecode, None, |_| ());
    match on_mock_clock(
        select3(played, master.run(&timecode), core::future::pending::<()>()),
        STEP,
        LIMIT,
    ) {
        Either3::Second(()) => {}
        _ => panic!("the chase ended"),
    }
    assert_eq!(sink.sent[0].bytes, buf[..first.len]);
    let at = (sink.sent[0].at - t0).as_micros();
    let want = own_us - KIND.micros(u64::from(start));
    assert!(at >= want && at < want + 4_000, "{at} vs {want}");

    // Random bytes carry no frame time: no own timecode to chase.
    let timecode = ChaseFeed::new();
    timecode.begin(&ChaseSpec::DEFAULT);
    let r = on_mock_clock(
        chase(
            &mut source(3, 1000),
            &mut sink,
            &[target(1)],
            &timecode,
            None,
            |_| (),
        ),
        STEP,
        LIMIT,
    );
    assert_eq!(r, Err(PlayError::NoTimecode));
}

/// The first `rows` frames of the real phone take (`alex_rom_3.csv`: 30 Hz
/// numbered in 60 fps frames, a few ms off the grid), its first frame moved
/// to the 60 fps frame `first` of the day (the numbers wrapping at
/// midnight), timed as the take image times them.
fn phone_source(rows: usize, first: Option<i32>) -> VecSource {
    let text = include_str!("../../../tests/fixtures/llf/alex_rom_3.csv");
    let rate = FrameRate::FPS_60;
    let day = rate.frames_per_day().unwrap() as i32;
    let times: Vec<FrameTime> = text
        .lines()
        .skip(1)
        .take(rows)
        .map(|line| {
            let tc = Timecode::parse(line.split(',').next().unwrap()).unwrap();
            tc.to_frame_time(rate).unwrap()
        })
        .collect();
    let shift = first.map_or(0, |f| f - times[0].frame_number);
    let mut timing = TakeTiming::new(rate);
    let frames = times
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let time = FrameTime {
                frame_number: (t.frame_number + shift).rem_euclid(day),
                ..*t
            };
            let frame = FaceFrame {
                version: 6,
                device_id: "E1FCDF84-8D93-5CD8-9A57-D76DD8FB2F52",
                subject: "alex_rom_3",
                time,
                blendshapes: [0.0; 61],
            };
            let mut buf = [0u8; MAX_LEN];
            let len = frame.encode(&mut buf).unwrap();
            (timing.next(i as u32, &time).unwrap(), buf[..len].to_vec())
        })
        .collect();
    VecSource {
        frames,
        period_us: timing.period().unwrap(),
        fail_at: None,
    }
}

/// Chases `src` at its own timecode under `spec` while `master` runs; the
/// frames sent (when, which) and the chase's last state.
fn chase_own(
    mut src: VecSource,
    spec: ChaseSpec,
    master: &Master,
) -> (Instant, Vec<(Instant, u32)>) {
    let _clock = clock();
    let timecode = ChaseFeed::new();
    timecode.begin(&spec);
    let packets: Vec<Vec<u8>> = src.frames.iter().map(|f| f.1.clone()).collect();
    let mut sink = Recorder::default();
    let targets = [target(1)];
    let t0 = Instant::now();
    let played = chase(&mut src, &mut sink, &targets, &timecode, None, |_| ());
    match on_mock_clock(
        select3(played, master.run(&timecode), core::future::pending::<()>()),
        STEP,
        LIMIT,
    ) {
        Either3::Second(()) => {}
        _ => panic!("the chase ended"),
    }
    let sent = sink
        .sent
        .iter()
        .map(|s| {
            (
                s.at,
                packets.iter().position(|p| *p == s.bytes).unwrap() as u32,
            )
        })
        .collect();
    (t0, sent)
}

/// The 30 fps frame count of `h:m:s:00`.
fn count(h: u8, m: u8, s: u8) -> u32 {
    KIND.rate().count_of((h, m, s, 0)).unwrap()
}

#[test]
fn a_phone_take_plays_every_frame_once_and_in_order() {
    // 300 frames (10 s) from 13:13:04:31.652 at their own timecode; timecode
    // from 13:13:03:00 for 13 s.
    let master = Master {
        start: count(13, 13, 3),
        frames: 13 * 30,
        dropout: None,
        jump: None,
        linger: Duration::from_millis(200),
    };
    let (_, sent) = chase_own(phone_source(300, None), ChaseSpec::DEFAULT, &master);
    let indexes: Vec<u32> = sent.iter().map(|s| s.1).collect();
    assert_eq!(indexes, (0..300).collect::<Vec<_>>());
}

#[test]
fn a_take_through_midnight_is_chased_through_it() {
    // The phone take from 23:59:55:00 (60 fps frame 5,183,700); timecode
    // from 23:59:54:00 to 00:00:07:00.
    let master = Master {
        start: count(23, 59, 54),
        frames: 13 * 30,
        dropout: None,
        jump: None,
        linger: Duration::from_millis(200),
    };
    let first = FrameRate::FPS_60.count_of((23, 59, 55, 0)).unwrap() as i32;
    let (t0, sent) = chase_own(phone_source(300, Some(first)), ChaseSpec::DEFAULT, &master);
    let indexes: Vec<u32> = sent.iter().map(|s| s.1).collect();
    assert_eq!(indexes, (0..300).collect::<Vec<_>>());
    // Frame 0 at 23:59:55:00.652 (its subframe is 10.9 ms), 1 s in; the last
    // at about 00:00:05, 11 s in.
    let (first_at, last_at) = (sent[0].0 - t0, sent[299].0 - t0);
    assert!(
        (1_010..1_016).contains(&first_at.as_millis()),
        "{first_at:?}"
    );
    assert!(
        (10_900..11_100).contains(&last_at.as_millis()),
        "{last_at:?}"
    );
}

#[test]
fn a_hold_keeps_sending_the_held_frame_at_the_takes_rate() {
    // Timecode from 13:13:03:00 for 4 s, then none: 0.5 s of freewheel, then
    // held for the 2 s the test lingers.
    let master = Master {
        start: count(13, 13, 3),
        frames: 4 * 30,
        dropout: None,
        jump: None,
        linger: Duration::from_secs(2),
    };
    let spec = ChaseSpec {
        freewheel_ms: 500,
        hold: true,
        ..ChaseSpec::DEFAULT
    };
    let (t0, sent) = chase_own(phone_source(300, None), spec, &master);
    let played = sent.windows(2).take_while(|w| w[1].1 == w[0].1 + 1).count() + 1;
    let (held_at, last) = sent[played - 1];
    let during = &sent[played..];
    assert!(during.iter().all(|s| s.1 == last));
    // Held from 4.6 s (the last timecode, 100 ms to call it lost, 500 ms of
    // freewheel) to 6 s: the frame again every 33.3 ms, the take's rate.
    let held_from = (held_at - t0).as_millis();
    assert!((4_550..4_650).contains(&held_from), "{held_from}");
    assert!((38..=44).contains(&during.len()), "{}", during.len());
    for pair in during.windows(2) {
        let gap = (pair[1].0 - pair[0].0).as_micros();
        assert!((33_000..34_000).contains(&gap), "{gap}");
    }
}
