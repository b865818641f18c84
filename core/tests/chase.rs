//! The chase on invented clocks: it locks after a few contiguous frames,
//! divides arrival jitter, follows a drifting master, locates on a jump,
//! freewheels through a dropout and re-locks, and stops or holds after.

use llv_core::artnet::TimecodeKind;
use llv_core::chase::*;

const K30: TimecodeKind = TimecodeKind::Smpte30;

/// 30 fps timecode: one frame in µs (integer part; the tests keep whole µs).
const FRAME: u64 = 33_333;

/// Feeds frames `from..to` of a 30 fps master that started at timecode
/// `start_tc`, arriving `jitter(i)` µs after their time on a local clock that
/// runs `ppm` fast; ticks the chase each frame. Returns the local time of the last one.
fn feed(
    chase: &mut Chase,
    start_tc: u64,
    from: u64,
    to: u64,
    ppm: i64,
    jitter: impl Fn(u64) -> u64,
) -> u64 {
    let mut local = 0;
    for i in from..to {
        let tc = start_tc + i * FRAME;
        let ideal = i * FRAME;
        local = (ideal as i64 + ideal as i64 * ppm / 1_000_000) as u64 + jitter(i);
        chase.tick(local);
        chase.on_timecode(tc, K30, local);
    }
    local
}

#[test]
fn it_locks_after_four_contiguous_frames() {
    let mut c = Chase::new(ChaseConfig::default());
    assert_eq!(c.state(), ChaseState::Waiting);
    assert_eq!(c.position(0), None);
    feed(&mut c, 1_000_000_000, 0, 3, 0, |_| 0);
    assert_eq!(c.state(), ChaseState::Locking);
    assert_eq!(c.position(3 * FRAME), None);
    let last = feed(&mut c, 1_000_000_000, 3, 4, 0, |_| 0);
    assert_eq!(c.state(), ChaseState::Locked);
    assert_eq!(
        c.position(last + 10_000),
        Some(1_000_000_000 + 3 * FRAME + 10_000)
    );
    // A frame that does not follow the last restarts the count.
    let mut c = Chase::new(ChaseConfig::default());
    feed(&mut c, 0, 0, 3, 0, |_| 0);
    c.on_timecode(50 * FRAME, K30, 3 * FRAME);
    assert_eq!(c.state(), ChaseState::Locking);
}

#[test]
fn arrival_jitter_is_divided_and_a_drifting_master_followed() {
    // ±4 ms of jitter on every frame, a local clock 100 ppm fast, 10 s.
    let jitter = |i: u64| i * 7919 % 8001; // 0..8 ms, pseudo-random
    let mut c = Chase::new(ChaseConfig::default());
    let last = feed(&mut c, 0, 0, 300, 100, jitter);
    assert_eq!(c.state(), ChaseState::Locked);
    assert_eq!(c.locates(), 0, "jitter is no jump");
    // The position tracks the master within a few ms (the mean arrival delay of 4 ms included).
    let expected = 299 * FRAME;
    let error = c.position(last).unwrap() as i64 - expected as i64;
    assert!(error.abs() < 6_000, "error {error} us");
    // Jitter is divided: positions at successive arrivals move by a frame ± less than 1.5 ms.
    let mut c = Chase::new(ChaseConfig::default());
    feed(&mut c, 0, 0, 100, 0, jitter);
    let mut previous = None;
    for i in 100..200 {
        let local = i * FRAME + jitter(i);
        c.on_timecode(i * FRAME, K30, local);
        let at_grid = c.position(i * FRAME + 20_000).unwrap();
        if let Some(p) = previous {
            let step = at_grid as i64 - p as i64;
            assert!((step - FRAME as i64).abs() < 1_500, "step {step}");
        }
        previous = Some(at_grid);
    }
}

#[test]
fn a_jump_past_five_frames_is_a_locate() {
    let mut c = Chase::new(ChaseConfig::default());
    let last = feed(&mut c, 0, 0, 60, 0, |_| 0);
    // The master jumps 10 s ahead.
    let now = last + FRAME;
    c.on_timecode(10_000_000, K30, now);
    assert_eq!(c.locates(), 1);
    assert_eq!(c.position(now), Some(10_000_000));
}

#[test]
fn the_locate_threshold_counts_frames_of_the_incoming_rate() {
    // At every rate, a jump of 5 frames is slewed and one of 6 located.
    for kind in [
        TimecodeKind::Film24,
        TimecodeKind::Ebu25,
        TimecodeKind::DropFrame2997,
        TimecodeKind::Smpte30,
    ] {
        for (jump, locates) in [(5, 0), (6, 1)] {
            let mut c = Chase::new(ChaseConfig::default());
            let mut local = 0;
            for i in 0..60 {
                local = kind.micros(i);
                c.on_timecode(kind.micros(10_000 + i), kind, local);
            }
            let now = local + kind.micros(1);
            c.on_timecode(kind.micros(10_000 + 60 + jump), kind, now);
            assert_eq!(c.locates(), locates, "{kind:?}, a jump of {jump} frames");
        }
    }
}

#[test]
fn it_chases_through_midnight_without_a_locate() {
    // 30 fps from 23:59:58:00 to 00:00:02:00, the position wrapping with it.
    let day = K30.micros_per_day();
    let start = K30.frames_per_day() - 60;
    let mut c = Chase::new(ChaseConfig::default());
    let mut local = 0;
    for i in 0..120u32 {
        local = K30.micros(u64::from(i));
        c.tick(local);
        let count = (start + i) % K30.frames_per_day();
        c.on_timecode(K30.micros(u64::from(count)), K30, local);
    }
    assert_eq!(c.state(), ChaseState::Locked);
    assert_eq!(c.locates(), 0);
    // 00:00:01:29 now; 100 ms on it is 00:00:02:02 and a bit.
    let at = c.position(local + 100_000).unwrap();
    assert!(at < 2_200_000, "{at}");
    // 23:59:59:00 was about 2.97 s ago.
    let before = c.local_time_of(day - 1_000_000).unwrap();
    assert!(
        local - before > 2_900_000 && local - before < 3_100_000,
        "{}",
        local - before
    );
}

#[test]
fn a_two_second_dropout_freewheels_and_relocks() {
    let mut c = Chase::new(ChaseConfig::default());
    let last = feed(&mut c, 0, 0, 60, 0, |_| 0);
    c.tick(last + 50_000);
    assert_eq!(c.state(), ChaseState::Locked);
    c.tick(last + 150_000);
    assert_eq!(c.state(), ChaseState::Freewheel);
    // The position runs on through the dropout.
    assert_eq!(c.position(last + 2_000_000), Some(59 * FRAME + 2_000_000));
    c.tick(last + 2_000_000);
    assert_eq!(c.state(), ChaseState::Freewheel);
    // Timecode returns where it should be: locked again at once, no locate.
    feed(&mut c, 0, 120, 125, 0, |_| 0);
    assert_eq!(c.state(), ChaseState::Locked);
    assert_eq!(c.locates(), 0);
}

#[test]
fn freewheel_runs_out_into_stop_or_hold() {
    for (after, state) in [
        (AfterFreewheel::Stop, ChaseState::Stopped),
        (AfterFreewheel::Hold, ChaseState::Held),
    ] {
        let config = ChaseConfig {
            after_freewheel: after,
            ..ChaseConfig::default()
        };
        let mut c = Chase::new(config);
        let last = feed(&mut c, 0, 0, 60, 0, |_| 0);
        c.tick(last + 200_000);
        let end = last + config.lost_after_us + config.freewheel_us + 1;
        c.tick(end);
        assert_eq!(c.state(), state);
        match state {
            ChaseState::Held => {
                let held = c.position(end);
                assert_eq!(held, Some(59 * FRAME + (end - last)));
                assert_eq!(c.position(end + 5_000_000), held, "frozen");
            }
            _ => assert_eq!(c.position(end), None),
        }
        // It locks again when timecode comes back (after four frames).
        feed(&mut c, 0, 1000, 1004, 0, |_| 0);
        assert_eq!(c.state(), ChaseState::Locked);
    }
}

#[test]
fn the_local_time_of_a_position_inverts_it() {
    let mut c = Chase::new(ChaseConfig::default());
    assert_eq!(c.local_time_of(0), None);
    let last = feed(&mut c, 5_000_000, 0, 10, 0, |_| 0);
    let tc = c.position(last).unwrap() + 40_000;
    assert_eq!(c.local_time_of(tc), Some(last + 40_000));
}

#[test]
fn a_follower_chases_its_stream_and_counts_the_rest() {
    use llv_core::artnet::{ArtTimeCode, TimecodeKind};
    let mut f = Follower::new(ChaseConfig::default(), 1);
    let packet = |count: u32, stream: u8| {
        let mut out = [0u8; 19];
        ArtTimeCode::from_frame_count(count, TimecodeKind::Smpte30, stream)
            .emit(&mut out)
            .unwrap();
        out
    };
    let mut poll = *b"Art-Net\0\x00\x20\x00\x0e\x00\x00";
    for i in 0..4u32 {
        let now = u64::from(i) * 33_333;
        f.on_datagram(&packet(1000 + i, 1), now);
        f.on_datagram(&packet(5000 + i, 0), now);
        f.on_datagram(&poll, now);
    }
    let mut bad_frames = packet(1004, 1);
    bad_frames[14] = 30;
    f.on_datagram(&bad_frames, 133_333);
    f.on_datagram(b"hello", 133_333);
    poll[0] = b'a';
    f.on_datagram(&poll, 133_333);
    assert_eq!(f.chase_at(133_333).state(), ChaseState::Locked);
    let status = f.status();
    assert_eq!(status.timecode_frames, 4);
    assert_eq!(status.bad_packets, 3);
    assert_eq!(status.timecode.unwrap().frame_count(), 1003);
    assert_eq!((f.other_stream(), f.other_ops()), (4, 4));
}
