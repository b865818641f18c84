//! Frame rates and timecodes.

use llv_core::time::*;

#[test]
fn rates_parse_including_ntsc() {
    assert_eq!(FrameRate::parse("60"), Some(FrameRate::new(60, 1)));
    assert_eq!(FrameRate::parse("59.94"), Some(FrameRate::new(60000, 1001)));
    assert_eq!(FrameRate::parse("29.97"), Some(FrameRate::new(30000, 1001)));
    assert_eq!(
        FrameRate::parse("60000/1001"),
        Some(FrameRate::new(60000, 1001))
    );
    assert_eq!(FrameRate::parse("0"), None);
    assert_eq!(FrameRate::parse("-5/1"), None);
    assert_eq!(FrameRate::parse("abc"), None);
    assert_eq!(FrameRate::new(60000, 1001).timecode_base(), Some(60));
    assert_eq!(FrameRate::new(30000, 1001).timecode_base(), Some(30));
}

#[test]
fn timecode_parses_and_formats_like_the_app() {
    let tc = Timecode::parse("13:13:04:31.652").unwrap();
    let t = tc.to_frame_time(FrameRate::FPS_60).unwrap();
    assert_eq!(t.frame_number, (13 * 3600 + 13 * 60 + 4) * 60 + 31);
    assert!((t.subframe - 0.652).abs() < 1e-6);
    assert_eq!(t.timecode().unwrap().to_string(), "13:13:04:31.652");
    let plain = Timecode::parse("06:09:20:19").unwrap();
    assert_eq!(plain.subframe, 0.0);
    assert_eq!(plain.to_string(), "06:09:20:19.000");
}

#[test]
fn every_three_decimal_subframe_formats_back_to_its_digits() {
    use std::format;
    for millis in 0..1000 {
        let text = format!("01:02:03:04.{millis:03}");
        assert_eq!(Timecode::parse(&text).unwrap().to_string(), text);
    }
}

#[test]
fn timecode_at_ntsc_rate_counts_sixty_per_second() {
    let rate = FrameRate::new(60000, 1001);
    let t = Timecode::parse("00:00:01:00")
        .unwrap()
        .to_frame_time(rate)
        .unwrap();
    assert_eq!(t.frame_number, 60);
    let secs = t.seconds().unwrap();
    assert!((secs - 1.001).abs() < 1e-12);
}

#[test]
fn timecode_errors() {
    assert_eq!(Timecode::parse("1:2:3"), Err(TimecodeError::Syntax));
    assert_eq!(Timecode::parse("aa:00:00:00"), Err(TimecodeError::Syntax));
    assert_eq!(
        Timecode::parse("00:61:00:00"),
        Err(TimecodeError::OutOfRange)
    );
    let tc = Timecode::parse("00:00:00:60").unwrap();
    assert_eq!(
        tc.to_frame_time(FrameRate::FPS_60),
        Err(TimecodeError::OutOfRange)
    );
    assert_eq!(
        tc.to_frame_time(FrameRate::new(0, 1)),
        Err(TimecodeError::BadRate)
    );
}

#[test]
fn seconds_since_is_exact_in_whole_frames() {
    let a = FrameTime {
        frame_number: 5375735,
        subframe: 0.0,
        rate: FrameRate::FPS_60,
    };
    let b = FrameTime {
        frame_number: 5375735 + 216_000,
        ..a
    };
    assert_eq!(b.seconds_since(&a), Some(3600.0));
}

#[test]
fn a_frame_time_is_a_time_of_day_in_micros() {
    let at = |frame_number, subframe, rate| FrameTime {
        frame_number,
        subframe,
        rate,
    };
    // 13:13:04:31 at 60 fps, half a frame on.
    let frames = ((13 * 60 + 13) * 60 + 4) * 60 + 31;
    assert_eq!(
        at(frames, 0.5, FrameRate::FPS_60).micros_of_day(),
        Some(((13 * 3600 + 13 * 60 + 4) * 1_000_000) + 516_666 + 8_333)
    );
    // 87 x 30,000 frames at 30000/1001 are 87,087 s: a day and 687 s.
    let ntsc = FrameRate::new(30_000, 1001);
    assert_eq!(
        at(87 * 30_000, 0.0, ntsc).micros_of_day(),
        Some(687_000_000)
    );
    assert_eq!(at(-1, 0.0, FrameRate::FPS_60).micros_of_day(), None);
    assert_eq!(at(1, 0.0, FrameRate::new(0, 1)).micros_of_day(), None);
}
