//! Control messages: round trips, bounds, and no panic on any bytes.

use heapless::{String, Vec};
use llv_core::control::*;
use llv_core::take::NAME_LEN;
use proptest::prelude::*;

fn round_trip_request(req: &Request<'_>) {
    let mut buf = [0u8; PREFIX_LEN + MAX_FRAME];
    let frame = encode(req, &mut buf).unwrap();
    let len = body_len([frame[0], frame[1]]);
    assert_eq!(len + PREFIX_LEN, frame.len());
    let back: Request<'_> = decode(&frame[PREFIX_LEN..]).unwrap();
    assert_eq!(&back, req);
}

fn round_trip_response(resp: &Response) {
    let mut buf = [0u8; PREFIX_LEN + MAX_FRAME];
    let frame = encode(resp, &mut buf).unwrap();
    let back: Response = decode(&frame[PREFIX_LEN..]).unwrap();
    assert_eq!(&back, resp);
}

fn name<const N: usize>(s: &str) -> String<N> {
    bounded(s)
}

fn full_settings() -> Settings {
    let mut targets = Vec::new();
    for i in 0..MAX_TARGETS {
        targets
            .push(Target {
                ip: [255, 255, 255, i as u8],
                port: u16::MAX,
            })
            .unwrap();
    }
    Settings {
        targets,
        autoplay: Some(Autoplay {
            take: name(&"n".repeat(NAME_LEN)),
            loop_count: u32::MAX,
        }),
        subject: Some(name(&"s".repeat(SUBJECT_LEN))),
        address: Some(StaticAddress {
            ip: [10, 0, 0, 2],
            prefix_len: 24,
            gateway: Some([10, 0, 0, 1]),
        }),
        token: Some(name(&"t".repeat(TOKEN_LEN))),
    }
}

#[test]
fn every_request_round_trips() {
    let chunk = [0xA5u8; MAX_CHUNK];
    let mut targets = Vec::new();
    targets
        .push(Target {
            ip: [127, 0, 0, 1],
            port: 11111,
        })
        .unwrap();
    let mut changes = Vec::new();
    let s = full_settings();
    changes.push(Setting::Targets(s.targets.clone())).unwrap();
    changes.push(Setting::Autoplay(s.autoplay.clone())).unwrap();
    changes.push(Setting::Subject(s.subject.clone())).unwrap();
    changes.push(Setting::Address(s.address)).unwrap();
    changes.push(Setting::Token(s.token.clone())).unwrap();
    changes.push(Setting::Token(None)).unwrap();
    for req in [
        Request::Hello {
            protocol: PROTOCOL_VERSION,
            token: Some("secret"),
        },
        Request::Hello {
            protocol: 7,
            token: None,
        },
        Request::Status,
        Request::List,
        Request::UploadBegin {
            name: "dao",
            total_len: 123_456,
            crc32: 0xDEAD_BEEF,
        },
        Request::UploadChunk {
            offset: u32::MAX,
            data: &chunk,
        },
        Request::UploadCommit,
        Request::Delete { name: "dao" },
        Request::Play {
            name: "dao",
            targets,
            loop_count: 0,
        },
        Request::Stop,
        Request::GetSettings,
        Request::SetSettings { changes },
    ] {
        round_trip_request(&req);
    }
}

#[test]
fn every_response_round_trips_within_max_frame() {
    let mut takes = Vec::new();
    for i in 0..MAX_TAKES {
        takes
            .push(TakeInfo {
                name: name(&"x".repeat(NAME_LEN - 1 - i % 2)),
                frame_count: u32::MAX,
                total_len: u32::MAX,
                crc32: u32::MAX,
            })
            .unwrap();
    }
    for resp in [
        Response::Hello {
            protocol: PROTOCOL_VERSION,
            firmware: name("0.1.0"),
        },
        Response::error(ErrorCode::Crc, &"é".repeat(DETAIL_LEN)),
        Response::Ok,
        Response::Status(Status {
            firmware: name(&"f".repeat(FIRMWARE_LEN)),
            uptime_ms: u64::MAX,
            address: Some([10, 0, 2, 15]),
            playing: Some(Playing {
                take: name(&"p".repeat(NAME_LEN)),
                frame: u32::MAX,
                loops_done: u32::MAX,
            }),
            used_bytes: u32::MAX,
            free_bytes: u32::MAX,
        }),
        Response::List { takes },
        Response::Settings {
            settings: full_settings(),
            token_set: true,
        },
    ] {
        round_trip_response(&resp);
    }
}

#[test]
fn hello_and_error_layouts_are_frozen() {
    // Variant 0, protocol 1 as varint, token None: what every future box must read.
    let mut buf = [0u8; 16];
    let frame = encode(
        &Request::Hello {
            protocol: 1,
            token: None,
        },
        &mut buf,
    )
    .unwrap();
    assert_eq!(frame, [3, 0, 0, 1, 0]);
    let frame = encode(&Response::error(ErrorCode::ProtocolMismatch, "v"), &mut buf).unwrap();
    assert_eq!(frame, [4, 0, 1, 0, 1, b'v']);
}

#[test]
fn error_detail_is_cut_at_a_character_boundary() {
    let Response::Error { detail, .. } = Response::error(ErrorCode::Invalid, &"é".repeat(50))
    else {
        panic!("not an error");
    };
    assert_eq!(detail.len(), DETAIL_LEN);
    assert!(detail.chars().all(|c| c == 'é'));
}

#[test]
fn trailing_bytes_and_small_buffers_are_errors() {
    assert_eq!(decode::<Request<'_>>(&[1, 0]), Err(FrameError::Trailing(1)));
    assert_eq!(decode::<Request<'_>>(&[]), Err(FrameError::Decode));
    assert_eq!(decode::<Request<'_>>(&[99]), Err(FrameError::Decode));
    let big = [0u8; MAX_FRAME + 1];
    assert_eq!(
        decode::<Request<'_>>(&big),
        Err(FrameError::TooLarge(MAX_FRAME + 1))
    );
    let mut tiny = [0u8; 3];
    let chunk = [0u8; 10];
    let req = Request::UploadChunk {
        offset: 0,
        data: &chunk,
    };
    assert_eq!(encode(&req, &mut tiny), Err(FrameError::BufferTooSmall));
    let oversized = [0u8; MAX_FRAME];
    let req = Request::UploadChunk {
        offset: 0,
        data: &oversized,
    };
    let mut buf = [0u8; 2 * MAX_FRAME];
    assert_eq!(
        encode(&req, &mut buf),
        Err(FrameError::TooLarge(MAX_FRAME + 1))
    );
}

proptest! {
    #[test]
    fn arbitrary_bytes_never_panic_the_decoder(bytes in proptest::collection::vec(any::<u8>(), 0..2100)) {
        let _ = decode::<Request<'_>>(&bytes);
        let _ = decode::<Response>(&bytes);
        let _ = decode::<Settings>(&bytes);
    }

    #[test]
    fn chunks_round_trip(offset in any::<u32>(), data in proptest::collection::vec(any::<u8>(), 0..=MAX_CHUNK)) {
        round_trip_request(&Request::UploadChunk { offset, data: &data });
    }
}
