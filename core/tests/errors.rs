//! One test per decode error kind: the field, the byte offset and the value.

use llv_core::packet::{
    check_face, classify, Datagram, DecodeError, ErrorKind, FaceFrame, Field, Header, MAX_LEN,
};
use llv_core::time::{FrameRate, FrameTime};

const ID: &str = "DEADC0DE-1337-1337-1337-CAFEBABE";
const SUBJECT: &str = "LLV Default Device";
/// Offsets in a packet with the two strings above.
const ID_LEN_AT: usize = 1;
const SUBJECT_LEN_AT: usize = 5 + ID.len();
const TIME_AT: usize = SUBJECT_LEN_AT + 4 + SUBJECT.len();
const COUNT_AT: usize = TIME_AT + 16;

fn good() -> Vec<u8> {
    let frame = FaceFrame {
        version: 6,
        device_id: ID,
        subject: SUBJECT,
        time: FrameTime {
            frame_number: 42,
            subframe: 0.5,
            rate: FrameRate::FPS_60,
        },
        blendshapes: [0.25; 61],
    };
    let mut buf = [0u8; MAX_LEN];
    let n = frame.encode(&mut buf).unwrap();
    buf[..n].to_vec()
}

fn error(bytes: &[u8]) -> DecodeError {
    match classify(bytes) {
        Datagram::Invalid(e) => e,
        other => panic!("expected invalid, got {other:?}"),
    }
}

#[test]
fn good_packet_is_a_face_frame() {
    let bytes = good();
    assert_eq!(bytes.len(), 320);
    assert!(matches!(classify(&bytes), Datagram::Face(_)));
}

#[test]
fn size_out_of_bounds() {
    let e = error(&[0u8; 100]);
    assert_eq!(
        (e.field, e.offset, e.kind),
        (Field::Size, 0, ErrorKind::SizeOutOfBounds(100))
    );
    let mut big = good();
    big.resize(800, 0);
    let e = error(&big);
    assert_eq!(
        (e.field, e.offset, e.kind),
        (Field::Size, 0, ErrorKind::SizeOutOfBounds(800))
    );
}

#[test]
fn wrong_version() {
    let mut b = good();
    b[0] = 5;
    let e = error(&b);
    assert_eq!(
        (e.field, e.offset, e.kind),
        (Field::Version, 0, ErrorKind::WrongVersion(5))
    );
    assert_eq!(e.to_string(), "version at byte 0: version 5, expected 6");
}

#[test]
fn negative_string_length() {
    let mut b = good();
    b[SUBJECT_LEN_AT..SUBJECT_LEN_AT + 4].copy_from_slice(&(-3i32).to_be_bytes());
    let e = error(&b);
    assert_eq!(
        (e.field, e.offset, e.kind),
        (
            Field::SubjectLength,
            SUBJECT_LEN_AT,
            ErrorKind::NegativeLength(-3)
        )
    );
}

#[test]
fn overlong_string_length() {
    let mut b = good();
    b[ID_LEN_AT..ID_LEN_AT + 4].copy_from_slice(&600i32.to_be_bytes());
    let e = error(&b);
    assert_eq!(
        (e.field, e.offset, e.kind),
        (
            Field::DeviceIdLength,
            ID_LEN_AT,
            ErrorKind::OverlongLength(600)
        )
    );
    assert_eq!(
        e.to_string(),
        "device id length at byte 1: length 600 exceeds 504"
    );
}

#[test]
fn invalid_utf8() {
    let mut b = good();
    b[SUBJECT_LEN_AT + 4 + 3] = 0xff;
    let e = error(&b);
    assert_eq!(
        (e.field, e.offset, e.kind),
        (
            Field::Subject,
            SUBJECT_LEN_AT + 7,
            ErrorKind::InvalidUtf8(0xff)
        )
    );
}

#[test]
fn count_not_61() {
    let mut b = good();
    b[COUNT_AT] = 52;
    let e = error(&b);
    assert_eq!(
        (e.field, e.offset, e.kind),
        (Field::BlendshapeCount, COUNT_AT, ErrorKind::WrongCount(52))
    );
}

#[test]
fn truncated_values() {
    let b = good();
    let e = error(&b[..300]);
    assert_eq!(
        (e.field, e.offset, e.kind),
        (Field::Blendshapes, COUNT_AT + 1, ErrorKind::Truncated(300))
    );
}

#[test]
fn truncated_string() {
    // A subject that claims more bytes than the datagram holds.
    let mut b = good();
    b[SUBJECT_LEN_AT..SUBJECT_LEN_AT + 4].copy_from_slice(&400i32.to_be_bytes());
    let e = error(&b);
    assert_eq!(
        (e.field, e.offset, e.kind),
        (
            Field::Subject,
            SUBJECT_LEN_AT + 4,
            ErrorKind::Truncated(320)
        )
    );
}

#[test]
fn trailing_bytes() {
    let mut b = good();
    b.extend_from_slice(&[1, 2, 3]);
    let e = error(&b);
    assert_eq!(
        (e.field, e.offset, e.kind),
        (Field::Trailing, 320, ErrorKind::TrailingBytes(3))
    );
}

#[test]
fn no_face_header_is_classified_with_its_header() {
    let header = Header {
        version: 6,
        device_id: "0A1B2C3D-4E5F-6071-8293-A4B5C6D7E8F9",
        subject: "iPhoneSubject",
        time: FrameTime {
            frame_number: 7,
            subframe: 0.0,
            rate: FrameRate::FPS_60,
        },
    };
    let mut buf = [0u8; MAX_LEN];
    let n = header.encode(&mut buf).unwrap();
    assert_eq!(
        n, 74,
        "FORMATS.md: 74 bytes with a 36-char id and a 13-char subject"
    );
    assert_eq!(classify(&buf[..n]), Datagram::NoFace(header));
    // The face decoder says why it is not a frame.
    let e = FaceFrame::decode(&buf[..n]).unwrap_err();
    assert_eq!(e.kind, ErrorKind::SizeOutOfBounds(74));
}

#[test]
fn metahuman_animator_packet_is_recognised() {
    let mut b = Vec::new();
    b.extend_from_slice(&1u16.to_le_bytes());
    b.extend_from_slice(&(6u16).to_le_bytes());
    b.extend_from_slice(b"iPhone");
    b.extend_from_slice(&[0u8; 16]);
    b.extend_from_slice(&(3u16).to_le_bytes());
    b.extend_from_slice(&[0u8; 6]);
    b.extend_from_slice(&[0u8; 24]);
    match classify(&b) {
        Datagram::MetaHumanAnimator(m) => {
            assert_eq!((m.version, m.subject, m.controls), (1, "iPhone", 3));
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn encoder_refuses_strings_past_774_bytes() {
    let long = "x".repeat(300);
    let frame = FaceFrame {
        version: 6,
        device_id: &long,
        subject: &long,
        time: FrameTime {
            frame_number: 0,
            subframe: 0.0,
            rate: FrameRate::FPS_60,
        },
        blendshapes: [0.0; 61],
    };
    let mut buf = [0u8; MAX_LEN];
    assert_eq!(
        frame.encode(&mut buf),
        Err(llv_core::packet::EncodeError::TooLong(870))
    );
    let fits = FaceFrame {
        device_id: &long[..252],
        subject: &long[..252],
        ..frame
    };
    assert_eq!(fits.encode(&mut buf), Ok(774));
    assert!(matches!(classify(&buf), Datagram::Face(_)));
}

#[test]
fn check_face_accepts_frames_only_and_names_the_field() {
    assert_eq!(check_face(&good()), Ok(()));
    let mut short = good();
    short.truncate(300);
    let e = check_face(&short).unwrap_err();
    assert_eq!(
        (e.field, e.kind),
        (Field::Blendshapes, ErrorKind::Truncated(300))
    );
    // A no-face header is a valid datagram but not a frame a take holds.
    let frame = good();
    let mut buf = [0u8; MAX_LEN];
    let n = FaceFrame::decode(&frame)
        .unwrap()
        .header()
        .encode(&mut buf)
        .unwrap();
    let e = check_face(&buf[..n]).unwrap_err();
    assert_eq!(
        (e.field, e.kind),
        (Field::Size, ErrorKind::SizeOutOfBounds(n))
    );
    assert_eq!(
        check_face(&[]).unwrap_err().kind,
        ErrorKind::SizeOutOfBounds(0)
    );
}
