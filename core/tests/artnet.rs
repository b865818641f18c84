//! Art-Net timecode: packet bytes, every refusal, and the frame arithmetic of
//! the four types (drop-frame over a whole day).

use llv_core::artnet::*;
use proptest::prelude::*;

fn tc(hours: u8, minutes: u8, seconds: u8, frames: u8, kind: TimecodeKind) -> ArtTimeCode {
    ArtTimeCode {
        stream: 0,
        hours,
        minutes,
        seconds,
        frames,
        kind,
    }
}

#[test]
fn a_packet_has_its_documented_bytes() {
    let t = ArtTimeCode {
        stream: 2,
        ..tc(10, 20, 30, 12, TimecodeKind::Ebu25)
    };
    let mut buf = [0u8; 32];
    assert_eq!(t.emit(&mut buf), Ok(LEN));
    assert_eq!(
        buf[..LEN],
        [
            b'A', b'r', b't', b'-', b'N', b'e', b't', 0, // id
            0x00, 0x97, // OpTimeCode, little-endian
            0, 14, // protocol 14, big-endian
            0, 2, // filler, stream
            12, 30, 20, 10, // frames, seconds, minutes, hours
            1,  // EBU 25
        ]
    );
    assert_eq!(ArtTimeCode::parse(&buf[..LEN]), Ok(t));
    // Trailing bytes (some senders pad) are ignored.
    assert_eq!(ArtTimeCode::parse(&buf), Ok(t));
}

#[test]
fn bad_packets_say_what_is_wrong() {
    let good = {
        let mut b = [0u8; LEN];
        tc(1, 2, 3, 4, TimecodeKind::Smpte30).emit(&mut b).unwrap();
        b
    };
    let with = |at: usize, value: u8| {
        let mut b = good;
        b[at] = value;
        ArtTimeCode::parse(&b)
    };
    assert_eq!(ArtTimeCode::parse(&good[..18]), Err(ArtError::Short(18)));
    assert_eq!(with(0, b'a'), Err(ArtError::Id));
    assert_eq!(with(9, 0x50), Err(ArtError::OpCode(0x5000)));
    assert_eq!(with(11, 13), Err(ArtError::Version(13)));
    assert_eq!(with(18, 4), Err(ArtError::Kind(4)));
    assert_eq!(with(14, 30), Err(ArtError::Frames(30)));
    assert_eq!(with(15, 60), Err(ArtError::Seconds(60)));
    assert_eq!(with(16, 60), Err(ArtError::Minutes(60)));
    assert_eq!(with(17, 24), Err(ArtError::Hours(24)));
    // Film has 24 frame labels; drop-frame has no ;00 or ;01 at most minutes.
    assert_eq!(
        tc(0, 0, 0, 24, TimecodeKind::Film24).check(),
        Err(ArtError::Frames(24))
    );
    assert_eq!(
        tc(0, 1, 0, 1, TimecodeKind::DropFrame2997).check(),
        Err(ArtError::Frames(1))
    );
    assert_eq!(tc(0, 10, 0, 0, TimecodeKind::DropFrame2997).check(), Ok(()));
    assert_eq!(
        ArtError::Frames(1).to_string(),
        "frame label 1 does not exist at this type and time"
    );
}

#[test]
fn every_frame_of_a_day_round_trips_in_every_type() {
    for kind in [
        TimecodeKind::Film24,
        TimecodeKind::Ebu25,
        TimecodeKind::DropFrame2997,
        TimecodeKind::Smpte30,
    ] {
        let mut previous: Option<ArtTimeCode> = None;
        for count in 0..kind.frames_per_day() {
            let t = ArtTimeCode::from_frame_count(count, kind, 0);
            assert_eq!(t.check(), Ok(()), "{kind:?} {count}: {t}");
            assert_eq!(t.frame_count(), count, "{kind:?} {t}");
            if let Some(p) = previous {
                assert!(
                    (t.hours, t.minutes, t.seconds, t.frames)
                        > (p.hours, p.minutes, p.seconds, p.frames),
                    "{p} then {t}"
                );
            }
            previous = Some(t);
        }
        assert_eq!(
            ArtTimeCode::from_frame_count(kind.frames_per_day(), kind, 0).frame_count(),
            0,
            "a day wraps"
        );
    }
}

#[test]
fn drop_frame_keeps_wall_time() {
    let df = TimecodeKind::DropFrame2997;
    // 00:01:00;02 is the 1,800th frame: 00:00:59;29 then the two dropped labels.
    assert_eq!(tc(0, 0, 59, 29, df).frame_count(), 1_799);
    assert_eq!(tc(0, 1, 0, 2, df).frame_count(), 1_800);
    assert_eq!(tc(0, 10, 0, 0, df).frame_count(), 17_982);
    // An hour of drop-frame labels is 3,600 s of real time within a frame
    // (3.6 ms): 107,892 frames at 30000/1001.
    let hour = tc(1, 0, 0, 0, df);
    assert_eq!(hour.frame_count(), 107_892);
    assert_eq!(hour.micros(), 3_599_996_400);
    assert_eq!(hour.to_string(), "01:00:00;00");
    assert_eq!(
        tc(1, 0, 0, 0, TimecodeKind::Smpte30).micros(),
        3_600_000_000
    );
    assert_eq!(TimecodeKind::for_rate(df.rate()), Some(df));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(5000))]
    #[test]
    fn any_bytes_parse_or_refuse_without_panic(bytes in proptest::collection::vec(any::<u8>(), 0..40)) {
        let _ = ArtTimeCode::parse(&bytes);
    }

    #[test]
    fn a_valid_packet_with_any_fields_parses_back_or_is_refused(fields in any::<[u8; 6]>()) {
        let mut b = [0u8; LEN];
        tc(0, 0, 0, 0, TimecodeKind::Film24).emit(&mut b).unwrap();
        b[13..19].copy_from_slice(&fields);
        if let Ok(t) = ArtTimeCode::parse(&b) {
            let mut again = [0u8; LEN];
            prop_assert_eq!(t.emit(&mut again), Ok(LEN));
            prop_assert_eq!(again, b);
        }
    }
}

#[test]
fn a_label_is_read_at_the_chased_rate() {
    let label = |hours, minutes, seconds, frames| TimecodeLabel {
        hours,
        minutes,
        seconds,
        frames,
    };
    assert_eq!(label(0, 0, 1, 15).micros(TimecodeKind::Smpte30), 1_500_000);
    assert_eq!(
        label(1, 0, 0, 12).micros(TimecodeKind::Ebu25),
        3_600_480_000
    );
    // A drop-frame hour is 107,892 real frames: 3,599.9964 s.
    assert_eq!(
        label(1, 0, 0, 0).micros(TimecodeKind::DropFrame2997),
        TimecodeKind::DropFrame2997.micros(107_892)
    );
    // Labels the rate lacks count their frames on from the second.
    assert_eq!(label(0, 0, 1, 27).micros(TimecodeKind::Ebu25), 2_080_000);
    assert!(label(23, 59, 59, 29).is_valid());
    assert!(!label(0, 0, 0, 30).is_valid());
    assert!(!label(24, 0, 0, 0).is_valid());
}

#[test]
fn labels_are_read_from_what_people_write() {
    let l = TimecodeLabel::parse("01:02:03:04").unwrap();
    assert_eq!((l.hours, l.minutes, l.seconds, l.frames), (1, 2, 3, 4));
    assert_eq!(TimecodeLabel::parse("00:59:59;28").unwrap().frames, 28);
    assert_eq!(TimecodeLabel::parse("10:00:00.00").unwrap().hours, 10);
    for bad in [
        "",
        "1:02:03:04",
        "01:02:03",
        "01:02:03:04:05",
        "24:00:00:00",
        "00:60:00:00",
        "00:00:00:30",
        "0a:00:00:00",
        "00-00-00-00",
        "00:00:00:0é",
    ] {
        assert_eq!(TimecodeLabel::parse(bad), None, "{bad:?}");
    }
}

proptest! {
    #[test]
    fn any_text_parses_or_not_without_panic(text in ".{0,16}") {
        let _ = TimecodeLabel::parse(&text);
    }
}
