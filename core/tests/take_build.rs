//! The one take-image builder: the image of valid packets holds them all, in
//! order, timed by their frame times; any bad packet is an error naming it.

use llv_core::packet::{FaceFrame, MAX_LEN};
use llv_core::take::{build_image, image_len, BuildError, TakeError, TakeImage};
use llv_core::time::{FrameRate, FrameTime};
use proptest::prelude::*;

fn packet(frame_number: i32, rate: FrameRate, subject: &str) -> Vec<u8> {
    let frame = FaceFrame {
        version: 6,
        device_id: "dev",
        subject,
        time: FrameTime {
            frame_number,
            subframe: 0.0,
            rate,
        },
        blendshapes: [frame_number as f32; 61],
    };
    let mut buf = [0u8; MAX_LEN];
    let len = frame.encode(&mut buf).unwrap();
    buf[..len].to_vec()
}

fn build(packets: &[Vec<u8>], fallback: FrameRate) -> Result<Vec<u8>, BuildError> {
    let mut buf = vec![0u8; image_len(packets.len() as u32, packets.iter().map(Vec::len).sum())];
    let len = build_image(
        &mut buf,
        "take",
        packets.iter().map(Vec::as_slice),
        fallback,
    )?;
    assert_eq!(len, buf.len());
    Ok(buf)
}

#[test]
fn a_take_through_midnight_is_timed_on_through_it() {
    // A 30 Hz take numbered at 60 fps from 23:59:59:56, and one at 29.97
    // drop-frame from 23:59:59;28.
    let day60 = FrameRate::FPS_60.frames_per_day().unwrap() as i32;
    let df = FrameRate::new(30_000, 1001);
    let day_df = df.frames_per_day().unwrap() as i32;
    let takes = [
        (
            FrameRate::FPS_60,
            vec![day60 - 4, day60 - 2, 0, 2],
            vec![0, 33_333, 66_666, 100_000],
        ),
        (
            df,
            vec![day_df - 2, day_df - 1, 0, 1],
            vec![0, 33_366, 66_733, 100_100],
        ),
    ];
    for (rate, numbers, times) in takes {
        let packets: Vec<_> = numbers.iter().map(|n| packet(*n, rate, "s")).collect();
        let image = build(&packets, rate).unwrap();
        let image = TakeImage::parse(&image).unwrap();
        let got: Vec<u32> = image.frames().map(|(e, _)| e.time_us).collect();
        assert_eq!(got, times, "{rate}");
    }
}

#[test]
fn fallback_is_the_first_frames_rate_when_valid() {
    let at30 = FrameRate::new(30, 1);
    // The take jumps back at frame 2: the clock re-anchors one fallback frame later.
    let takes = [
        (FrameRate::FPS_60, [10, 11, 5], [0, 16_666, 33_333], 49_999),
        (at30, [10, 11, 5], [0, 33_333, 66_666], 99_999),
    ];
    for (rate, numbers, times, period) in takes {
        let packets: Vec<_> = numbers.iter().map(|n| packet(*n, rate, "s")).collect();
        // The caller's fallback only counts when the first rate is invalid.
        let image = build(&packets, FrameRate::new(24, 1)).unwrap();
        let image = TakeImage::parse(&image).unwrap();
        let got: Vec<u32> = image.frames().map(|(e, _)| e.time_us).collect();
        assert_eq!(got, times);
        assert_eq!(image.header().period_us, period);
    }
    let invalid = FrameRate::new(0, 1);
    let packets: Vec<_> = [1, 2].iter().map(|n| packet(*n, invalid, "s")).collect();
    let image = build(&packets, FrameRate::new(25, 1)).unwrap();
    let image = TakeImage::parse(&image).unwrap();
    let got: Vec<u32> = image.frames().map(|(e, _)| e.time_us).collect();
    assert_eq!(got, [0, 40_000]);
    assert_eq!(image.header().period_us, 80_000);
}

#[test]
fn too_long_and_empty_takes_are_refused() {
    // 2^32 µs is 71.6 minutes: frame 1 at 72 minutes is past it.
    let packets = vec![
        packet(0, FrameRate::FPS_60, "s"),
        packet(72 * 60 * 60, FrameRate::FPS_60, "s"),
    ];
    assert_eq!(
        build(&packets, FrameRate::FPS_60),
        Err(BuildError::TooLong { frame: 1 })
    );
    // The last frame fits, but not the loop after it.
    let edge = (u64::from(u32::MAX) * 60 / 1_000_000) as i32;
    let packets = vec![
        packet(0, FrameRate::FPS_60, "s"),
        packet(edge, FrameRate::FPS_60, "s"),
    ];
    assert_eq!(
        build(&packets, FrameRate::FPS_60),
        Err(BuildError::TooLong { frame: 1 })
    );
    assert_eq!(build(&[], FrameRate::FPS_60), Err(BuildError::NoFrames));
    let mut small = [0u8; 10];
    let one = packet(0, FrameRate::FPS_60, "s");
    assert_eq!(
        build_image(&mut small, "x", [one.as_slice()], FrameRate::FPS_60),
        Err(BuildError::Image(TakeError::BufferTooSmall(72)))
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn valid_packets_round_trip_through_the_image(
        steps in proptest::collection::vec(-3i32..5, 1..40),
        subjects in proptest::collection::vec("[a-z]{0,20}", 1..40),
    ) {
        let mut number = 1000;
        let packets: Vec<Vec<u8>> = steps
            .iter()
            .zip(subjects.iter().cycle())
            .map(|(step, subject)| {
                number += step;
                packet(number, FrameRate::FPS_60, subject)
            })
            .collect();
        let image = build(&packets, FrameRate::FPS_60).unwrap();
        let image = TakeImage::parse(&image).unwrap();
        prop_assert_eq!(image.header().frame_count as usize, packets.len());
        let back: Vec<&[u8]> = image.frames().map(|(_, p)| p).collect();
        let expected: Vec<&[u8]> = packets.iter().map(Vec::as_slice).collect();
        prop_assert_eq!(back, expected);
        let last = image.frames().last().unwrap().0.time_us;
        prop_assert_eq!(image.header().period_us, last + 16_666);
    }

    #[test]
    fn a_bad_packet_anywhere_is_named(
        frames in 1usize..30,
        bad in any::<prop::sample::Index>(),
        damage in 0u8..3,
    ) {
        let mut packets: Vec<Vec<u8>> =
            (0..frames as i32).map(|n| packet(n, FrameRate::FPS_60, "s")).collect();
        let bad = bad.index(frames);
        match damage {
            0 => packets[bad][0] = 5,
            1 => {
                packets[bad].pop();
            }
            _ => packets[bad].truncate(100),
        }
        match build(&packets, FrameRate::FPS_60) {
            Err(BuildError::Packet { frame, .. }) => prop_assert_eq!(frame as usize, bad),
            other => prop_assert!(false, "{:?}", other.map(|_| ())),
        }
    }
}
