//! Property tests: valid packets round-trip bit-exact; any bytes classify
//! without panic, and whatever classifies as a face re-encodes to the same bytes.

use llv_core::line;
use llv_core::packet::{classify, Datagram, FaceFrame, MAX_LEN, MIN_LEN};
use llv_core::take::TakeImage;
use llv_core::time::{FrameRate, FrameTime};
use proptest::prelude::*;

fn any_frame_parts() -> impl Strategy<Value = (String, String, i32, u32, i32, i32, Vec<u32>)> {
    (
        "\\PC{0,40}",
        "\\PC{0,40}",
        any::<i32>(),
        any::<u32>(),
        any::<i32>(),
        any::<i32>(),
        proptest::collection::vec(any::<u32>(), 61),
    )
}

/// As the fuzz target checks: a face decodes and re-encodes to the identical
/// bytes; an invalid datagram's error points inside it and prints.
fn check_classification(bytes: &[u8]) -> Result<(), TestCaseError> {
    match classify(bytes) {
        Datagram::Face(_) => {
            let frame = FaceFrame::decode(bytes).map_err(|e| TestCaseError::fail(e.to_string()))?;
            let mut out = [0u8; MAX_LEN];
            let len = frame
                .encode(&mut out)
                .map_err(|e| TestCaseError::fail(e.to_string()))?;
            prop_assert_eq!(&out[..len], bytes);
        }
        Datagram::Invalid(e) => {
            prop_assert!(e.offset <= bytes.len());
            prop_assert!(!e.to_string().is_empty());
        }
        Datagram::NoFace(_) | Datagram::MetaHumanAnimator(_) => {}
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn valid_packets_round_trip((id, subject, n, sub, num, den, bits) in any_frame_parts()) {
        let mut blendshapes = [0.0f32; 61];
        for (slot, b) in blendshapes.iter_mut().zip(&bits) {
            // Any bit pattern, NaN payloads and -0.0 included.
            *slot = f32::from_bits(*b);
        }
        let frame = FaceFrame {
            version: 6,
            device_id: &id,
            subject: &subject,
            time: FrameTime { frame_number: n, subframe: f32::from_bits(sub), rate: FrameRate::new(num, den) },
            blendshapes,
        };
        let mut buf = [0u8; MAX_LEN];
        let len = frame.encode(&mut buf).unwrap();
        prop_assert!((MIN_LEN..=MAX_LEN).contains(&len));
        let Datagram::Face(packet) = classify(&buf[..len]) else {
            return Err(TestCaseError::fail("not a face frame"));
        };
        let back = packet.frame();
        let mut again = [0u8; MAX_LEN];
        let len2 = back.encode(&mut again).unwrap();
        prop_assert_eq!(&buf[..len], &again[..len2]);
        for (a, b) in back.blendshapes.iter().zip(&bits) {
            prop_assert_eq!(a.to_bits(), *b);
        }
        let mut text = [0u8; line::MAX_LINE_LEN];
        let encoded = line::encode(&buf[..len], &mut text).unwrap();
        let mut decoded = [0u8; MAX_LEN];
        prop_assert_eq!(line::decode(encoded.as_bytes(), &mut decoded).unwrap(), &buf[..len]);
    }

    #[test]
    fn any_bytes_classify_and_faces_reencode(bytes in proptest::collection::vec(any::<u8>(), 0..900)) {
        check_classification(&bytes)?;
    }

    #[test]
    fn mutated_packets_classify_and_faces_reencode(
        (id, subject, n, sub, num, den, bits) in any_frame_parts(),
        flips in proptest::collection::vec((0usize..MAX_LEN, any::<u8>()), 1..8),
        cut in 0usize..MAX_LEN,
    ) {
        let mut blendshapes = [0.0f32; 61];
        for (slot, b) in blendshapes.iter_mut().zip(&bits) {
            *slot = f32::from_bits(*b);
        }
        let frame = FaceFrame {
            version: 6, device_id: &id, subject: &subject,
            time: FrameTime { frame_number: n, subframe: f32::from_bits(sub), rate: FrameRate::new(num, den) },
            blendshapes,
        };
        let mut buf = [0u8; MAX_LEN];
        let len = frame.encode(&mut buf).unwrap();
        for (at, v) in flips {
            buf[at % len] = v;
        }
        check_classification(&buf[..len])?;
        check_classification(&buf[..cut.min(len)])?;
    }

    #[test]
    fn any_line_decodes_without_panic(text in "[A-Za-z0-9+/=!\\-]{0,1100}") {
        let mut out = [0u8; MAX_LEN];
        if let Ok(p) = line::decode(text.as_bytes(), &mut out) {
            prop_assert!((MIN_LEN..=MAX_LEN).contains(&p.len()));
        }
    }

    #[test]
    fn any_bytes_never_panic_the_take_reader(bytes in proptest::collection::vec(any::<u8>(), 0..2000)) {
        let _ = TakeImage::parse(&bytes);
        let mut image = bytes.clone();
        if image.len() >= 8 {
            image[..8].copy_from_slice(b"LLVTAKE\0");
        }
        let _ = TakeImage::parse(&image);
    }
}
