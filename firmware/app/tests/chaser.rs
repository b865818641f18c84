//! The box's chase on embassy-time's mock clock: a generator sends Art-Net
//! timecode at 30 fps with arrival jitter; after lock every frame sent is the
//! take's frame for the timecode of its moment within one frame; a 2 s
//! dropout freewheels and re-locks; a jump locates; bad packets are counted
//! and ignored; nothing goes out before the take's place on the timecode.

mod common;

use std::cell::RefCell;

use common::*;
use embassy_futures::select::{select3, Either3};
use embassy_time::{Duration, Instant, Timer};
use llv_box::builtin::take;
use llv_box::chase_feed::ChaseFeed;
use llv_box::chaser::chase;
use llv_box::{FrameSource, PlayError};
use llv_core::artnet::{ArtTimeCode, Label, TimecodeKind};
use llv_core::chase::ChaseState;
use llv_core::packet::{FaceFrame, MAX_LEN};
use llv_core::settings::ChaseSpec;

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
fn chase_master(n: u32, offset: Label, master: &Master) -> Chased {
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

fn label(text: &str) -> Label {
    Label::parse(text).unwrap()
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
