//! Pacing: exact offsets over hours, gaps, re-anchoring.

use core::time::Duration;
use llv_core::pacing::*;
use llv_core::time::{FrameRate, FrameTime};

fn t(frame_number: i32, subframe: f32, rate: FrameRate) -> FrameTime {
    FrameTime {
        frame_number,
        subframe,
        rate,
    }
}

#[test]
fn fixed_rate_is_exact_over_hours() {
    let ntsc = FrameRate::new(60000, 1001);
    // Ten hours of 59.94 fps: 2_160_000 frames are exactly 36_036 s.
    assert_eq!(
        fixed_offset(2_160_000, ntsc),
        Some(Duration::from_secs(36_036))
    );
    assert_eq!(
        fixed_offset(2_160_001, ntsc),
        Some(Duration::new(36_036, 16_683_333))
    );
    assert_eq!(
        fixed_offset(1, FrameRate::FPS_60),
        Some(Duration::new(0, 16_666_666))
    );
    assert_eq!(
        fixed_offset(3, FrameRate::FPS_60),
        Some(Duration::from_millis(50))
    );
    assert_eq!(fixed_offset(1, FrameRate::new(0, 1)), None);
}

#[test]
fn frame_times_give_exact_offsets_with_gaps() {
    let r = FrameRate::FPS_60;
    let mut clock = FrameClock::new(r);
    assert_eq!(clock.next(&t(5375735, 0.0, r)), Duration::ZERO);
    assert_eq!(clock.next(&t(5375735 + 60, 0.0, r)), Duration::from_secs(1));
    assert_eq!(
        clock.next(&t(5375735 + 216_000, 0.5, r)).as_nanos(),
        3_600_008_333_333
    );
}

#[test]
fn frame_times_run_on_through_midnight() {
    // 23:59:59:58 and :59 at 60 fps, then 00:00:00:00 and :01.
    let r = FrameRate::FPS_60;
    let day = 24 * 3600 * 60;
    let mut clock = FrameClock::new(r);
    let offsets: Vec<u128> = [day - 2, day - 1, 0, 1]
        .iter()
        .map(|&n| clock.next(&t(n, 0.0, r)).as_nanos())
        .collect();
    assert_eq!(offsets, [0, 16_666_666, 33_333_333, 50_000_000]);
    // 29.97 drop-frame: its day of labels is 2,589,408 frames.
    let df = FrameRate::new(30_000, 1001);
    let mut clock = FrameClock::new(df);
    clock.next(&t(2_589_407, 0.0, df));
    assert_eq!(clock.next(&t(0, 0.0, df)).as_nanos(), 33_366_666);
}

#[test]
fn clock_reanchors_when_time_goes_back() {
    let r = FrameRate::FPS_60;
    let mut clock = FrameClock::new(r);
    assert_eq!(clock.next(&t(100, 0.0, r)), Duration::ZERO);
    assert_eq!(clock.next(&t(102, 0.0, r)).as_nanos(), 33_333_333);
    // A loop of the take: the time restarts.
    let after = clock.next(&t(100, 0.0, r));
    assert_eq!(after.as_nanos(), 33_333_333 + 16_666_666);
    assert_eq!(
        clock.next(&t(101, 0.0, r)).as_nanos(),
        33_333_333 + 16_666_666 * 2
    );
}
