//! Control messages: the bytes of every message (what another implementation
//! must send and read, as docs/control-protocol.md lists them), round trips,
//! bounds, and no panic on any bytes.

use heapless::{String, Vec};
use llv_core::control::*;
use llv_core::settings::*;
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
    assert!(
        frame.len() <= PREFIX_LEN + MAX_RESPONSE,
        "{} bytes",
        frame.len()
    );
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
        name: Some(name(&"b".repeat(BOX_NAME_LEN))),
        osc_port: Some(u16::MAX),
        reply_port: Some(u16::MAX),
        http_port: Some(u16::MAX - 2),
        chase: Some(ChaseSpec {
            offset: Some(llv_core::artnet::TimecodeLabel {
                hours: u8::MAX,
                minutes: u8::MAX,
                seconds: u8::MAX,
                frames: u8::MAX,
            }),
            stream: u8::MAX,
            freewheel_ms: u32::MAX,
            hold: true,
        }),
        live: LiveSpec {
            enabled: true,
            port: u16::MAX,
            subject: Some(name(&"l".repeat(SUBJECT_LEN))),
            from: Some([255; 4]),
            buffer: u8::MAX,
            timeout_ms: u16::MAX,
            fade_ms: u16::MAX,
            return_frames: u8::MAX,
            idle: Some(name(&"i".repeat(NAME_LEN))),
            pass_other: true,
            record: true,
        },
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
    changes.push(Setting::Chase(s.chase)).unwrap();
    changes
        .push(Setting::Live(LiveChange::Subject(s.live.subject.clone())))
        .unwrap();
    changes.push(Setting::HttpPort(s.http_port)).unwrap();
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
            place: Place::Card,
        },
        Request::UploadChunk {
            offset: u32::MAX,
            data: &chunk,
        },
        Request::UploadCommit,
        Request::Delete { name: "dao" },
        Request::Play {
            name: "dao",
            targets: targets.clone(),
            loop_count: 0,
            start: Start::Now,
        },
        Request::Play {
            name: "dao",
            targets: targets.clone(),
            loop_count: u32::MAX,
            start: Start::At(u64::MAX),
        },
        Request::Play {
            name: "dao",
            targets,
            loop_count: 1,
            start: Start::Chase(full_settings().chase.unwrap()),
        },
        Request::Stop,
        Request::GetSettings,
        Request::SetSettings { changes },
        Request::Clock,
        Request::ListPage { start: u32::MAX },
        Request::Live { on: true },
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
                period_us: u32::MAX,
                total_len: u32::MAX,
                crc32: u32::MAX,
                place: Place::Card,
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
                late_frames: u32::MAX,
                max_late_us: u32::MAX,
                read_ahead_low: u32::MAX,
                targets: (0..MAX_TARGETS)
                    .map(|i| TargetCounts {
                        target: Target {
                            ip: [255; 4],
                            port: i as u16,
                        },
                        sent: u32::MAX,
                        dropped: u32::MAX,
                    })
                    .collect(),
                chase: Some(ChaseStatus {
                    state: llv_core::chase::ChaseState::Freewheel,
                    timecode: Some(llv_core::artnet::ArtTimeCode {
                        stream: u8::MAX,
                        hours: 23,
                        minutes: 59,
                        seconds: 59,
                        frames: 29,
                        kind: llv_core::artnet::TimecodeKind::DropFrame2997,
                    }),
                    locates: u32::MAX,
                    timecode_frames: u32::MAX,
                    bad_packets: u32::MAX,
                }),
            }),
            used_bytes: u64::MAX,
            free_bytes: u64::MAX,
            faults: (0..MAX_FAULTS)
                .map(|_| Fault {
                    code: FaultCode::ClockFallback,
                    detail: name(&"d".repeat(DETAIL_LEN)),
                })
                .collect(),
            card: Some(CardStatus {
                scanning: true,
                takes: u32::MAX,
                bad_files: u32::MAX,
                bad: (0..BAD_NAMED)
                    .map(|_| name(&"B".repeat(FILE_NAME_LEN)))
                    .collect(),
            }),
            live: Some(LiveStatus {
                state: u8::MAX,
                rate_mhz: u32::MAX,
                jitter_us: u32::MAX,
                frames_in: u64::MAX,
                lost: u64::MAX,
                not_face: u64::MAX,
                fallbacks: u32::MAX,
                returns: u32::MAX,
                switches: (0..LIVE_SWITCHES).map(|_| (true, u64::MAX)).collect(),
                recorded_bytes: u64::MAX,
            }),
            wear: Wear {
                settings_writes: u32::MAX,
                settings_unchanged: u32::MAX,
                settings_coalesced: u32::MAX,
                settings_pending: true,
                settings_erases: u32::MAX,
                take_erases: u32::MAX,
            },
            last: Some(Played {
                take: name(&"l".repeat(NAME_LEN)),
                frames: u32::MAX,
                late_frames: u32::MAX,
                dropped: u32::MAX,
                ended: Ended::Failed,
            }),
            clock: ClockSource::Host,
            osc_port: u16::MAX,
        }),
        Response::Takes(TakePage {
            start: u32::MAX,
            total: u32::MAX,
            revision: u32::MAX,
            takes: takes.iter().take(PAGE_TAKES).cloned().collect(),
        }),
        Response::List { takes },
        Response::Settings {
            settings: full_settings(),
            token_set: true,
        },
        Response::Clock { now_us: u64::MAX },
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

/// The body `message` encodes to.
fn body<T: serde::Serialize>(message: &T) -> std::vec::Vec<u8> {
    let mut buf = [0u8; PREFIX_LEN + MAX_FRAME];
    encode(message, &mut buf).unwrap()[PREFIX_LEN..].to_vec()
}

fn dao_target() -> Vec<Target, MAX_TARGETS> {
    let mut targets = Vec::new();
    targets
        .push(Target {
            ip: [10, 0, 2, 2],
            port: 11111,
        })
        .unwrap();
    targets
}

// postcard: enum variant and lengths as varints (7 bits a byte, low first),
// u16/u32/u64 as varints, u8 and [u8; 4] as bytes, Option as 0 or 1 then the
// value, strings and byte slices as length then bytes, structs as their
// fields in order. 11111 = e7 56; 53000 = 88 9e 03;
// 61000 = c8 dc 03; 0xDEADBEEF = ef fd b6 f5 0d; 3000000 = c0 8d b7 01.

#[test]
fn every_request_has_its_documented_bytes() {
    let golden: [(Request<'_>, &[u8]); 18] = [
        (
            Request::Hello {
                protocol: 3,
                token: Some("s3cret"),
            },
            &[0x00, 0x03, 0x01, 0x06, b's', b'3', b'c', b'r', b'e', b't'],
        ),
        (Request::Status, &[0x01]),
        (Request::List, &[0x02]),
        (
            Request::UploadBegin {
                name: "dao",
                total_len: 61_000,
                crc32: 0xDEAD_BEEF,
                place: Place::Card,
            },
            &[
                0x03, 0x03, b'd', b'a', b'o', 0xc8, 0xdc, 0x03, 0xef, 0xfd, 0xb6, 0xf5, 0x0d, 0x01,
            ],
        ),
        (
            Request::UploadChunk {
                offset: 1024,
                data: &[1, 2, 3],
            },
            &[0x04, 0x80, 0x08, 0x03, 0x01, 0x02, 0x03],
        ),
        (Request::UploadCommit, &[0x05]),
        (
            Request::Delete { name: "dao" },
            &[0x06, 0x03, b'd', b'a', b'o'],
        ),
        (
            Request::Play {
                name: "dao",
                targets: dao_target(),
                loop_count: 0,
                start: Start::Now,
            },
            &[
                0x07, 0x03, b'd', b'a', b'o', 0x01, 10, 0, 2, 2, 0xe7, 0x56,
                0x00, // loop_count 0
                0x00, // Start::Now
            ],
        ),
        (
            Request::Play {
                name: "dao",
                targets: Vec::new(),
                loop_count: 1,
                start: Start::At(1_000_000),
            },
            &[
                0x07, 0x03, b'd', b'a', b'o', 0x00, 0x01, // no targets, loop_count 1
                0x01, 0xc0, 0x84, 0x3d, // Start::At(1 s)
            ],
        ),
        (
            Request::Play {
                name: "dao",
                targets: Vec::new(),
                loop_count: 1,
                start: Start::Chase(ChaseSpec {
                    offset: Some(llv_core::artnet::TimecodeLabel {
                        hours: 1,
                        minutes: 0,
                        seconds: 0,
                        frames: 12,
                    }),
                    stream: 2,
                    freewheel_ms: 4000,
                    hold: true,
                }),
            },
            &[
                0x07, 0x03, b'd', b'a', b'o', 0x00, 0x01, // no targets, loop_count 1
                0x02, 0x01, 1, 0, 0, 12, // Start::Chase, offset 01:00:00:12
                0x02, 0xa0, 0x1f, 0x01, // stream 2, freewheel 4000 ms, hold
            ],
        ),
        (Request::Stop, &[0x08]),
        (Request::GetSettings, &[0x09]),
        (
            Request::SetSettings {
                changes: [
                    Setting::Targets(dao_target()),
                    Setting::Autoplay(Some(Autoplay {
                        take: name("dao"),
                        loop_count: 3,
                    })),
                    Setting::Subject(Some(name("Face"))),
                    Setting::Address(Some(StaticAddress {
                        ip: [10, 0, 2, 15],
                        prefix_len: 24,
                        gateway: Some([10, 0, 2, 2]),
                    })),
                    Setting::Token(None),
                    Setting::Name(Some(name("stage-left"))),
                    Setting::OscPort(Some(53000)),
                    Setting::Chase(None),
                ]
                .into_iter()
                .collect(),
            },
            &[
                0x0a, 0x08, // SetSettings, 8 changes
                0x00, 0x01, 10, 0, 2, 2, 0xe7, 0x56, // Targets
                0x01, 0x01, 0x03, b'd', b'a', b'o', 0x03, // Autoplay
                0x02, 0x01, 0x04, b'F', b'a', b'c', b'e', // Subject
                0x03, 0x01, 10, 0, 2, 15, 24, 0x01, 10, 0, 2, 2, // Address
                0x04, 0x00, // Token(None)
                0x05, 0x01, 0x0a, b's', b't', b'a', b'g', b'e', b'-', b'l', b'e', b'f',
                b't', // Name
                0x06, 0x01, 0x88, 0x9e, 0x03, // OscPort(53000)
                0x08, 0x00, // Chase(None)
            ],
        ),
        (
            Request::SetSettings {
                changes: [Setting::HttpPort(Some(8080)), Setting::HttpPort(None)]
                    .into_iter()
                    .collect(),
            },
            &[
                0x0a, 0x02, // SetSettings, 2 changes
                0x0a, 0x01, 0x90, 0x3f, // HttpPort(8080)
                0x0a, 0x00, // HttpPort(None)
            ],
        ),
        (Request::Clock, &[0x0b]),
        (Request::ListPage { start: 16 }, &[0x0c, 0x10]),
        (Request::Live { on: true }, &[0x0d, 0x01]),
        (Request::Live { on: false }, &[0x0d, 0x00]),
    ];
    for (request, bytes) in &golden {
        assert_eq!(body(request), *bytes, "{request:?}");
        assert_eq!(&decode::<Request<'_>>(bytes).unwrap(), request);
    }
}

#[test]
fn every_response_has_its_documented_bytes() {
    let mut takes = Vec::new();
    takes
        .push(TakeInfo {
            name: name("dao"),
            frame_count: 180,
            period_us: 3_000_000,
            total_len: 61_000,
            crc32: 0xDEAD_BEEF,
            place: Place::Internal,
        })
        .unwrap();
    let status = Status {
        firmware: name("box 1"),
        uptime_ms: 1000,
        address: Some([10, 0, 2, 15]),
        playing: Some(Playing {
            take: name("dao"),
            frame: 5,
            loops_done: 1,
            late_frames: 2,
            max_late_us: 2500,
            read_ahead_low: 140,
            targets: [TargetCounts {
                target: dao_target()[0],
                sent: 300,
                dropped: 2,
            }]
            .into_iter()
            .collect(),
            chase: Some(ChaseStatus {
                state: llv_core::chase::ChaseState::Locked,
                timecode: Some(llv_core::artnet::ArtTimeCode {
                    stream: 0,
                    hours: 10,
                    minutes: 20,
                    seconds: 30,
                    frames: 12,
                    kind: llv_core::artnet::TimecodeKind::Ebu25,
                }),
                locates: 1,
                timecode_frames: 600,
                bad_packets: 3,
            }),
        }),
        used_bytes: 131_072,
        free_bytes: 0,
        faults: [Fault {
            code: FaultCode::WatchdogReset,
            detail: name("wd"),
        }]
        .into_iter()
        .collect(),
        card: Some(CardStatus {
            scanning: true,
            takes: 1000,
            bad_files: 6,
            bad: [name("BAD0.TAK")].into_iter().collect(),
        }),
        wear: Wear {
            settings_writes: 3,
            settings_unchanged: 4000,
            settings_coalesced: 2,
            settings_pending: true,
            settings_erases: 1,
            take_erases: 200,
        },
        last: None,
        clock: ClockSource::Crystal,
        osc_port: 11114,
        live: None,
    };
    let page = TakePage {
        start: 16,
        total: 1004,
        revision: 7,
        takes: takes.clone(),
    };
    // After a playback: nothing plays, the last one's summary is kept.
    let after = Status {
        firmware: name("box 1"),
        uptime_ms: 1000,
        address: Some([10, 0, 2, 15]),
        playing: None,
        used_bytes: 0,
        free_bytes: 0,
        faults: Vec::new(),
        card: None,
        wear: Wear::default(),
        last: Some(Played {
            take: name("dao"),
            frames: 180,
            late_frames: 2,
            dropped: 0,
            ended: Ended::Stopped,
        }),
        clock: ClockSource::Emulated,
        osc_port: 9000,
        live: Some(LiveStatus {
            state: 2,
            rate_mhz: 30_000,
            jitter_us: 5_500,
            frames_in: 315,
            lost: 165,
            not_face: 0,
            fallbacks: 3,
            returns: 2,
            switches: [(true, 4261)].into_iter().collect(),
            recorded_bytes: 131_355,
        }),
    };
    let golden: [(Response, &[u8]); 9] = [
        (
            Response::Hello {
                protocol: 3,
                firmware: name("box 1"),
            },
            &[0x00, 0x03, 0x05, b'b', b'o', b'x', b' ', b'1'],
        ),
        (
            Response::error(ErrorCode::NotFound, "no take"),
            &[0x01, 0x04, 0x07, b'n', b'o', b' ', b't', b'a', b'k', b'e'],
        ),
        (Response::Ok, &[0x02]),
        (
            Response::Status(status),
            &[
                0x03, 0x05, b'b', b'o', b'x', b' ', b'1', // Status, firmware
                0xe8, 0x07, // uptime_ms 1000
                0x01, 10, 0, 2, 15, // address
                0x01, 0x03, b'd', b'a', b'o', 0x05, 0x01, // playing: take, frame, loops_done
                0x02, 0xc4, 0x13, // late_frames 2, max_late_us 2500
                0x8c, 0x01, // read_ahead_low 140
                0x01, 10, 0, 2, 2, 0xe7, 0x56, 0xac, 0x02,
                0x02, // 1 target: sent 300, dropped 2
                0x01, 0x02, // chase: Locked
                0x01, 0x00, 10, 20, 30, 12, 0x01, // timecode 10:20:30:12 EBU, stream 0
                0x01, 0xd8, 0x04, 0x03, // 1 locate, 600 frames, 3 bad packets
                0x80, 0x80, 0x08, 0x00, // used_bytes 131072, free_bytes 0
                0x01, 0x04, 0x02, b'w', b'd', // 1 fault: WatchdogReset, "wd"
                0x01, 0x01, 0xe8, 0x07, 0x06, // card: scanning, 1000 takes, 6 bad files
                0x01, 0x08, b'B', b'A', b'D', b'0', b'.', b'T', b'A', b'K', // "BAD0.TAK"
                0x03, 0xa0, 0x1f, 0x02,
                0x01, // wear: 3 writes, 4000 unchanged, 2 coalesced, pending
                0x01, 0xc8, 0x01, // 1 settings erase, 200 take erases
                0x00, // last: none (protocol 6)
                0x00, // clock: Crystal (protocol 6)
                0xea, 0x56, // osc_port 11114 (protocol 6)
                0x00, // live: none (protocol 6)
            ],
        ),
        (
            Response::Status(after),
            &[
                0x03, 0x05, b'b', b'o', b'x', b' ', b'1', // Status, firmware
                0xe8, 0x07, // uptime_ms 1000
                0x01, 10, 0, 2, 15,   // address
                0x00, // playing: none
                0x00, 0x00, 0x00, // used_bytes, free_bytes, no faults
                0x00, // card: none
                0x00, 0x00, 0x00, 0x00, 0x00, 0x00, // wear: nothing written or erased
                0x01, 0x03, b'd', b'a', b'o', // last: take
                0xb4, 0x01, 0x02, 0x00, 0x01, // 180 frames, 2 late, 0 dropped, Stopped
                0x02, // clock: Emulated
                0xa8, 0x46, // osc_port 9000
                0x01, 0x02, 0xb0, 0xea, 0x01, 0xfc,
                0x2a, // live: fallback, 30 Hz, 5.5 ms jitter
                0xbb, 0x02, 0xa5, 0x01, 0x00, // 315 frames in, 165 lost, 0 not face
                0x03, 0x02, 0x01, 0x01, 0xa5,
                0x21, // 3 fallbacks, 2 returns: to the fallback at 4261 ms
                0x9b, 0x82, 0x08, // 131355 bytes recorded
            ],
        ),
        (
            Response::List { takes },
            &[
                0x04, 0x01, 0x03, b'd', b'a', b'o', 0xb4,
                0x01, // List: 1 take, dao, 180 frames
                0xc0, 0x8d, 0xb7, 0x01, // period 3 s (protocol 6)
                0xc8, 0xdc, 0x03, 0xef, 0xfd, 0xb6, 0xf5, 0x0d, 0x00, // place: Internal
            ],
        ),
        (
            Response::Settings {
                settings: Settings {
                    targets: dao_target(),
                    ..Settings::default()
                },
                token_set: true,
            },
            &[
                0x05, 0x01, 10, 0, 2, 2, 0xe7, 0x56, // Settings: targets
                0x00, 0x00, 0x00, 0x00, // autoplay, subject, address, token
                0x00, 0x00, 0x00, 0x00, // name, osc_port, reply_port, chase
                0x00, 0xe7, 0x56, 0x00,
                0x00, // live: off, port 11111, any subject and address
                0x00, 0xfa, 0x01, 0xac, 0x02,
                0x0a, // buffer 0, timeout 250, fade 300, return 10
                0x00, 0x00, 0x00, // no idle take, pass-other off, record off
                0x00, // http_port
                0x01, // token_set
            ],
        ),
        (
            Response::Clock { now_us: 1_000_000 },
            &[0x06, 0xc0, 0x84, 0x3d],
        ),
        (
            Response::Takes(page),
            &[
                0x07, 0x10, 0xec, 0x07, 0x07, // Takes: start 16, total 1004, revision 7
                0x01, 0x03, b'd', b'a', b'o', 0xb4, 0x01, // 1 take: dao, 180 frames
                0xc0, 0x8d, 0xb7, 0x01, // period 3 s
                0xc8, 0xdc, 0x03, 0xef, 0xfd, 0xb6, 0xf5, 0x0d, 0x00,
            ],
        ),
    ];
    for (response, bytes) in &golden {
        assert_eq!(body(response), *bytes, "{response:?}");
        assert_eq!(&decode::<Response>(bytes).unwrap(), response);
    }
}

#[test]
fn error_and_fault_codes_keep_their_indexes() {
    let codes = [
        ErrorCode::ProtocolMismatch,
        ErrorCode::Unauthorized,
        ErrorCode::BadRequest,
        ErrorCode::TooLarge,
        ErrorCode::NotFound,
        ErrorCode::NoSpace,
        ErrorCode::UploadOrder,
        ErrorCode::BadImage,
        ErrorCode::Crc,
        ErrorCode::Invalid,
        ErrorCode::Flash,
    ];
    for (i, code) in codes.iter().enumerate() {
        assert_eq!(body(code), [i as u8], "{code:?}");
    }
    let faults = [
        FaultCode::StoreUnusable,
        FaultCode::SettingsUnreadable,
        FaultCode::BadStoredSetting,
        FaultCode::FactoryReset,
        FaultCode::WatchdogReset,
        FaultCode::ClockFallback,
        FaultCode::CardRemoved,
        FaultCode::CardUnusable,
    ];
    for (i, code) in faults.iter().enumerate() {
        assert_eq!(body(code), [i as u8], "{code:?}");
    }
}

/// The bytes `docs/control-protocol.md` quotes as examples: each appears in
/// the document as written and is what the codec writes.
#[test]
fn the_documents_examples_are_what_the_codec_writes() {
    let doc = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../docs/control-protocol.md"
    ))
    .expect("docs/control-protocol.md");
    let hex = |bytes: &[u8]| {
        let spaced: std::vec::Vec<std::string::String> =
            bytes.iter().map(|b| format!("{b:02x}")).collect();
        format!("`{}`", spaced.join(" "))
    };
    let mut framed = [0u8; 64];
    let hello = encode(
        &Request::Hello {
            protocol: 1,
            token: None,
        },
        &mut framed,
    )
    .unwrap()
    .to_vec();
    let set = body(&Request::SetSettings {
        changes: [Setting::Targets(dao_target()), Setting::Token(None)]
            .into_iter()
            .collect(),
    });
    let osc_port = body(&Setting::OscPort(Some(53000)));
    let box_name = body(&Setting::Name(Some(name("stage-left"))));
    let error = body(&Response::error(ErrorCode::NotFound, "no take"));
    let mut varints = [0u8; 8];
    let three_hundred = postcard::to_slice(&300u32, &mut varints).unwrap().to_vec();
    let port = postcard::to_slice(&11111u16, &mut varints)
        .unwrap()
        .to_vec();
    for (what, bytes) in [
        ("Hello for protocol 1 without a token", hello),
        ("SetSettings with Targets and Token(None)", set),
        ("OscPort(Some(53000))", osc_port),
        ("Error { NotFound, \"no take\" }", error),
        ("the varint 300", three_hundred),
        ("the varint 11111", port),
    ] {
        let quoted = hex(&bytes);
        assert!(doc.contains(&quoted), "{what}: the codec writes {quoted}");
    }
    // The Status example runs over several lines.
    let status = body(&Response::Status(Status {
        firmware: name("box 1"),
        uptime_ms: 1000,
        address: Some([10, 0, 2, 15]),
        playing: None,
        used_bytes: 0,
        free_bytes: 0,
        faults: Vec::new(),
        card: None,
        wear: Wear::default(),
        last: Some(Played {
            take: name("dao"),
            frames: 180,
            late_frames: 2,
            dropped: 0,
            ended: Ended::Stopped,
        }),
        clock: ClockSource::Emulated,
        osc_port: 9000,
        live: None,
    }));
    let flowed = doc
        .split_whitespace()
        .collect::<std::vec::Vec<_>>()
        .join(" ");
    assert!(
        flowed.contains(&hex(&status)),
        "the Status example: the codec writes {}",
        hex(&status)
    );
    // The name's example quotes its first three bytes and the name after them.
    assert_eq!(box_name[..3], [0x05, 0x01, 0x0a]);
    assert_eq!(&box_name[3..], b"stage-left");
    assert!(doc.contains("`05 01 0a` and the ten bytes of the name"));
}

#[test]
fn a_take_is_named_with_or_without_its_place() {
    let dao = TakeRef::parse("dao");
    assert_eq!((dao.name, dao.place), ("dao", None));
    let card = TakeRef::parse("card:dao");
    assert_eq!((card.name, card.place), ("dao", Some(Place::Card)));
    let flash = TakeRef::parse("flash:dao");
    assert_eq!((flash.name, flash.place), ("dao", Some(Place::Internal)));
    // Only the two places qualify; another colon is part of the name.
    assert_eq!(TakeRef::parse("act:1").name, "act:1");
    assert_eq!(TakeRef::parse("card:x:y").name, "x:y");
    assert_eq!(card.to_string(), "card:dao");
    assert_eq!(dao.to_string(), "dao");
    // Both places hold one: played from the flash, a delete must choose.
    assert_eq!(dao.which(true, true, false), Which::At(Place::Internal));
    assert_eq!(dao.which(true, true, true), Which::Both);
    assert_eq!(card.which(true, true, true), Which::At(Place::Card));
    assert_eq!(flash.which(true, true, true), Which::At(Place::Internal));
    // One place holds it: an unqualified name finds it there.
    assert_eq!(dao.which(false, true, true), Which::At(Place::Card));
    assert_eq!(dao.which(true, false, true), Which::At(Place::Internal));
    // The place named does not hold it.
    assert_eq!(card.which(true, false, false), Which::Missing);
    assert_eq!(flash.which(false, true, false), Which::Missing);
    assert_eq!(dao.which(false, false, false), Which::Missing);
}
