//! Frame rates, timecodes and the time-of-day model: labels wrap at 24
//! hours, drop-frame at 29.97 and 59.94, take time runs on through midnight.

use llv_core::time::day::{place, wrapped_add, wrapped_diff};
use llv_core::time::*;
use proptest::prelude::*;

fn at(frame_number: i32, subframe: f32, rate: FrameRate) -> FrameTime {
    FrameTime {
        frame_number,
        subframe,
        rate,
    }
}

const DF30: FrameRate = FrameRate::new(30_000, 1001);
const DF60: FrameRate = FrameRate::new(60_000, 1001);

#[test]
fn rates_parse_including_ntsc() {
    assert_eq!(FrameRate::parse("60"), Some(FrameRate::new(60, 1)));
    assert_eq!(FrameRate::parse("59.94"), Some(DF60));
    assert_eq!(FrameRate::parse("29.97"), Some(DF30));
    assert_eq!(FrameRate::parse("60000/1001"), Some(DF60));
    assert_eq!(FrameRate::parse("0"), None);
    assert_eq!(FrameRate::parse("-5/1"), None);
    assert_eq!(FrameRate::parse("abc"), None);
    assert_eq!(DF60.timecode_base(), Some(60));
    assert_eq!(DF30.timecode_base(), Some(30));
}

#[test]
fn ntsc_rates_are_drop_frame_and_others_are_not() {
    assert!(DF30.is_drop_frame() && DF60.is_drop_frame());
    assert!(FrameRate::new(600_000, 10_010).is_drop_frame());
    for rate in [
        FrameRate::new(24_000, 1001),
        FrameRate::new(30, 1),
        FrameRate::FPS_60,
        FrameRate::new(25, 1),
        FrameRate::new(0, 1),
    ] {
        assert!(!rate.is_drop_frame(), "{rate}");
    }
    assert_eq!(DF30.frames_per_day(), Some(2_589_408));
    assert_eq!(DF60.frames_per_day(), Some(5_178_816));
    assert_eq!(FrameRate::FPS_60.frames_per_day(), Some(5_184_000));
    assert_eq!(DF30.micros_per_day(), Some(86_399_913_600));
    assert_eq!(FrameRate::new(25, 1).micros_per_day(), Some(86_400_000_000));
}

#[test]
fn drop_frame_labels_skip_the_first_frames_of_most_minutes() {
    let label = |rate: FrameRate, count| at(count, 0.0, rate).timecode().unwrap().to_string();
    assert_eq!(label(DF30, 1_799), "00:00:59;29.000");
    assert_eq!(label(DF30, 1_800), "00:01:00;02.000");
    assert_eq!(label(DF30, 17_982), "00:10:00;00.000");
    assert_eq!(label(DF60, 3_599), "00:00:59;59.000");
    assert_eq!(label(DF60, 3_600), "00:01:00;04.000");
    // Read back, `;` or `:`; a dropped label does not exist.
    let frame = |text: &str, rate| Timecode::parse(text).unwrap().to_frame_time(rate);
    assert_eq!(frame("00:01:00;02", DF30).unwrap().frame_number, 1_800);
    assert_eq!(frame("00:01:00:02", DF30).unwrap().frame_number, 1_800);
    assert_eq!(frame("00:01:00;01", DF30), Err(TimecodeError::Dropped));
    assert_eq!(frame("00:10:00;00", DF30).unwrap().frame_number, 17_982);
    assert_eq!(
        frame("00:01:00;02", FrameRate::new(30, 1)),
        Err(TimecodeError::NotDropFrame)
    );
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
        let df = format!("01:02:03;04.{millis:03}");
        assert_eq!(Timecode::parse(&df).unwrap().to_string(), df);
    }
}

#[test]
fn timecode_at_ntsc_rate_counts_labels() {
    let t = Timecode::parse("00:00:01:00")
        .unwrap()
        .to_frame_time(DF60)
        .unwrap();
    assert_eq!(t.frame_number, 60);
    let secs = t.seconds().unwrap();
    assert!((secs - 1.001).abs() < 1e-12);
}

#[test]
fn timecode_errors() {
    assert_eq!(Timecode::parse("1:2:3"), Err(TimecodeError::Syntax));
    assert_eq!(Timecode::parse("aa:00:00:00"), Err(TimecodeError::Syntax));
    assert_eq!(Timecode::parse("00;00:00:00"), Err(TimecodeError::Syntax));
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
    // Labels stop at 23:59:59.
    let late = Timecode::parse("24:00:00:00").unwrap();
    assert_eq!(
        late.to_frame_time(FrameRate::FPS_60),
        Err(TimecodeError::OutOfRange)
    );
}

#[test]
fn seconds_since_is_exact_in_whole_frames_and_goes_through_midnight() {
    let a = at(5375735, 0.0, FrameRate::FPS_60);
    let b = at(5375735 + 216_000, 0.0, FrameRate::FPS_60);
    assert_eq!(b.seconds_since(&a), Some(3600.0));
    // 23:59:59:00 to 00:00:01:00 is 2 s, and back is -2 s.
    let day = 5_184_000;
    let before = at(day - 60, 0.0, FrameRate::FPS_60);
    let after = at(60, 0.0, FrameRate::FPS_60);
    assert_eq!(after.seconds_since(&before), Some(2.0));
    assert_eq!(before.seconds_since(&after), Some(-2.0));
}

#[test]
fn a_frame_time_is_a_time_of_day_in_micros() {
    // 13:13:04:31 at 60 fps, half a frame on.
    let frames = ((13 * 60 + 13) * 60 + 4) * 60 + 31;
    assert_eq!(
        at(frames, 0.5, FrameRate::FPS_60).micros_of_day(),
        Some(((13 * 3600 + 13 * 60 + 4) * 1_000_000) + 516_666 + 8_333)
    );
    // 87 x 30,000 frames at 29.97 drop-frame: a day of labels (2,589,408
    // frames) and 20,592 frames, 687.0864 s.
    assert_eq!(
        at(87 * 30_000, 0.0, DF30).micros_of_day(),
        Some(687_086_400)
    );
    // A frame before the count's zero is the day before.
    assert_eq!(
        at(-1, 0.0, FrameRate::FPS_60)
            .timecode()
            .unwrap()
            .to_string(),
        "23:59:59:59.000"
    );
    assert_eq!(at(1, 0.0, FrameRate::new(0, 1)).micros_of_day(), None);
}

#[test]
fn a_take_through_midnight_runs_on() {
    // A 30 Hz phone take numbered at 60 fps from 23:59:59:56.
    let rate = FrameRate::FPS_60;
    let day = 5_184_000;
    let numbers = [day - 4, day - 2, 0, 2, 4];
    let mut take = TakeTime::new();
    let ns: Vec<i128> = numbers
        .iter()
        .map(|&n| take.next_nanos(&at(n, 0.0, rate)).unwrap())
        .collect();
    assert_eq!(ns, [0, 33_333_333, 66_666_666, 100_000_000, 133_333_333]);
    let labels: Vec<String> = numbers
        .iter()
        .map(|&n| at(n, 0.0, rate).timecode().unwrap().to_string())
        .collect();
    assert_eq!(labels[1], "23:59:59:58.000");
    assert_eq!(labels[2], "00:00:00:00.000");
}

#[test]
fn places_on_a_wrapping_day() {
    let day = 86_400_000_000;
    assert_eq!(wrapped_diff(1_000_000, day - 1_000_000, day), 2_000_000);
    assert_eq!(wrapped_diff(day - 1_000_000, 1_000_000, day), -2_000_000);
    assert_eq!(wrapped_add(day - 1_000_000, 3_000_000, day), 2_000_000);
    // A 10 s take from 23:59:55.
    let start = day - 5_000_000;
    assert_eq!(place(day - 4_000_000, start, 10_000_000, day), 1_000_000);
    assert_eq!(place(3_000_000, start, 10_000_000, day), 8_000_000);
    assert_eq!(place(start - 1, start, 10_000_000, day), -1);
    assert_eq!(place(6_000_000, start, 10_000_000, day), 11_000_000);
}

/// Any valid rate: whole rates from 1 to 240, NTSC rates, and odd fractions.
fn any_rate() -> impl Strategy<Value = FrameRate> {
    prop_oneof![
        (1i32..=240).prop_map(|n| FrameRate::new(n, 1)),
        prop::sample::select(vec![24_000, 30_000, 48_000, 60_000, 120_000])
            .prop_map(|n| FrameRate::new(n, 1001)),
        (1i32..=240_000, 1i32..=1001).prop_map(|(n, d)| FrameRate::new(n, d)),
    ]
    // A packet's frame number is an i32: a day of labels and a day more must fit it.
    .prop_filter("a day of labels that fits", |r| {
        r.frames_per_day().is_some_and(|d| d < i32::MAX as u32 / 2)
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    #[test]
    fn every_label_reads_back_to_its_frame(rate in any_rate(), at_day in 0.0f64..1.0) {
        let day = rate.frames_per_day().unwrap();
        let count = ((f64::from(day) * at_day) as u32).min(day - 1);
        let time = at(count as i32, 0.25, rate);
        let tc = time.timecode().unwrap();
        prop_assert!(tc.hours < 24);
        prop_assert_eq!(tc.drop_frame, rate.is_drop_frame());
        let text = tc.to_string();
        let back = Timecode::parse(&text).unwrap().to_frame_time(rate).unwrap();
        prop_assert_eq!(back.frame_number, count as i32, "{}", text);
        // A count past the day, or below zero, wraps to the same label.
        let wrapped = at((count + day) as i32, 0.25, rate).timecode().unwrap();
        prop_assert_eq!(wrapped, tc);
    }

    #[test]
    fn any_take_runs_on_through_midnight(
        rate in any_rate(),
        before_midnight in 0.0f64..120.0,
        steps in proptest::collection::vec((1i64..5, 0.0f32..0.9), 1..200),
    ) {
        // A take that starts up to two minutes before midnight, its frames
        // 1 to 4 timecode frames apart, each with a subframe.
        let day = i64::from(rate.frames_per_day().unwrap());
        let fps = rate.fps().unwrap();
        let start = day - ((before_midnight * fps) as i64).min(day - 1) - 1;
        let mut count = start;
        let mut take = TakeTime::new();
        let first = at(start as i32, 0.0, rate);
        prop_assert_eq!(take.next_nanos(&first), Some(0));
        let first_of_day = first.micros_of_day().unwrap();
        let day_us = rate.micros_per_day().unwrap();
        let mut previous = 0i128;
        let mut total = 0i64;
        for (step, sub) in steps {
            count += step;
            total += step;
            // The frame number the phone writes wraps at the day of labels.
            let time = at((count % day) as i32, sub, rate);
            let ns = take.next_nanos(&time).unwrap();
            prop_assert!(ns > previous, "{} after {}", ns, previous);
            previous = ns;
            let exact = (total as f64 + f64::from(sub)) / fps * 1e9;
            prop_assert!((ns as f64 - exact).abs() < 2.0 + exact * 1e-12, "{} vs {}", ns, exact);
            prop_assert!(time.timecode().unwrap().hours < 24);
            // Placed on its own time of day, the frame is found at its take time.
            let placed = place(time.micros_of_day().unwrap(), first_of_day, day_us / 2, day_us);
            // (Both times of day and the day are whole µs, floored: a few µs apart.)
            prop_assert!((placed as i128 * 1000 - ns).abs() < 5_000, "{} vs {}", placed, ns);
        }
    }

    #[test]
    fn a_place_inside_the_span_is_found_again(
        start in 0u64..86_400_000_000,
        len in 1u64..86_400_000_000,
        into in 0.0f64..1.0,
    ) {
        let day = 86_400_000_000;
        let t = ((len as f64 * into) as u64).min(len - 1);
        prop_assert_eq!(place(wrapped_add(start, t as i64, day), start, len, day), t as i64);
        let back = wrapped_diff(wrapped_add(start, t as i64, day), start, day);
        prop_assert!(back == t as i64 || back == t as i64 - day as i64);
    }
}
