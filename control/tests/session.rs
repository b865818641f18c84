//! The control session over a library in memory, with a recording playback.
//! (The same session over the box's flash store and card: firmware/app/tests/library.rs.)

use embassy_futures::block_on;
use heapless::Vec;
use llv_control::mock::{synthetic_image as image, MemoryLibrary, RecordingPlayback};
use llv_control::session::{FRAME_BUF, RESPONSE_BUF};
use llv_control::{Session, TakeLibrary};
use llv_core::control::{
    decode, encode, Ended, ErrorCode, Request, Response, Start, MAX_FRAME, PREFIX_LEN,
    PROTOCOL_VERSION,
};
use llv_core::settings::{ChaseSpec, Setting, Target};
use llv_core::take::TakeImage;

/// A library and a playback, as one box.
struct TestBox {
    store: MemoryLibrary,
    device: RecordingPlayback,
}

impl TestBox {
    fn new() -> Self {
        TestBox {
            store: {
                let mut library = MemoryLibrary::new();
                library.capacity = 16 * 1024;
                library
            },
            device: RecordingPlayback {
                clock_us: 1_234_567,
                address: Some([10, 0, 2, 15]),
                ..RecordingPlayback::default()
            },
        }
    }

    fn send(&mut self, session: &mut Session, request: Request<'_>) -> Response {
        block_on(session.handle(request, &mut self.store, &mut self.device))
    }

    fn send_raw(&mut self, session: &mut Session, body: &[u8]) -> Response {
        let mut out = [0u8; RESPONSE_BUF];
        let frame =
            block_on(session.handle_frame(body, &mut self.store, &mut self.device, &mut out));
        decode(&frame[PREFIX_LEN..]).unwrap()
    }
}

fn hello(token: Option<&str>) -> Request<'_> {
    Request::Hello {
        protocol: PROTOCOL_VERSION,
        token,
    }
}

fn code(r: &Response) -> Option<ErrorCode> {
    match r {
        Response::Error { code, .. } => Some(*code),
        _ => None,
    }
}

fn upload_requests(b: &mut TestBox, s: &mut Session, image: &[u8]) -> Response {
    let h = llv_core::take::TakeHeader::parse(image).unwrap();
    let r = b.send(
        s,
        Request::UploadBegin {
            name: &h.name,
            total_len: h.total_len,
            crc32: h.crc32,
            place: llv_core::control::Place::Internal,
        },
    );
    assert_eq!(r, Response::Ok);
    for (i, part) in image.chunks(1000).enumerate() {
        let r = b.send(
            s,
            Request::UploadChunk {
                offset: (i * 1000) as u32,
                data: part,
            },
        );
        assert_eq!(r, Response::Ok);
    }
    b.send(s, Request::UploadCommit)
}

#[test]
fn hello_first_and_protocol_mismatch_are_refused_clearly() {
    let mut b = TestBox::new();
    let mut s = Session::new("0.1.0");
    assert_eq!(
        code(&b.send(&mut s, Request::Status)),
        Some(ErrorCode::Unauthorized)
    );
    let r = b.send(
        &mut s,
        Request::Hello {
            protocol: PROTOCOL_VERSION + 1,
            token: None,
        },
    );
    let Response::Error { code, detail } = r else {
        panic!("{r:?}")
    };
    assert_eq!(code, ErrorCode::ProtocolMismatch);
    assert_eq!(
        detail.as_str(),
        format!(
            "box speaks protocol {PROTOCOL_VERSION}, host {}",
            PROTOCOL_VERSION + 1
        )
    );
    assert_eq!(
        code_of_status(&mut b, &mut s),
        Some(ErrorCode::Unauthorized)
    );
    let r = b.send(&mut s, hello(None));
    assert_eq!(
        r,
        Response::Hello {
            protocol: PROTOCOL_VERSION,
            firmware: "0.1.0".try_into().unwrap()
        }
    );
    let Response::Status(st) = b.send(&mut s, Request::Status) else {
        panic!()
    };
    assert_eq!(
        (st.uptime_ms, st.address, st.used_bytes, st.free_bytes),
        (1234, Some([10, 0, 2, 15]), 0, 16 * 1024)
    );
}

fn code_of_status(b: &mut TestBox, s: &mut Session) -> Option<ErrorCode> {
    code(&b.send(s, Request::Status))
}

#[test]
fn upload_list_play_delete_through_requests() {
    let mut b = TestBox::new();
    let mut s = Session::new("0.1.0");
    b.send(&mut s, hello(None));
    let img = image("dao", 4, 1);
    assert_eq!(upload_requests(&mut b, &mut s, &img), Response::Ok);
    let Response::List { takes } = b.send(&mut s, Request::List) else {
        panic!()
    };
    assert_eq!(takes.len(), 1);
    assert_eq!(
        takes[0].crc32,
        TakeImage::parse(&img).unwrap().header().crc32
    );

    // No targets given and none configured.
    let r = b.send(
        &mut s,
        Request::Play {
            name: "dao",
            targets: Vec::new(),
            loop_count: 0,
            start: Start::Now,
        },
    );
    assert_eq!(code(&r), Some(ErrorCode::Invalid));
    let target = Target {
        ip: [10, 0, 2, 2],
        port: 11111,
    };
    let mut targets = Vec::new();
    targets.push(target).unwrap();
    let mut changes = Vec::new();
    changes.push(Setting::Targets(targets.clone())).unwrap();
    assert_eq!(
        b.send(&mut s, Request::SetSettings { changes }),
        Response::Ok
    );
    assert_eq!(b.device.applied.as_ref().unwrap().targets, targets);
    assert_eq!(
        b.send(
            &mut s,
            Request::Play {
                name: "dao",
                targets: Vec::new(),
                loop_count: 2,
                start: Start::Now,
            }
        ),
        Response::Ok
    );
    assert_eq!(
        b.device.playing,
        Some(("dao".into(), vec![target], 2, Start::Now))
    );
    let r = b.send(
        &mut s,
        Request::Play {
            name: "nope",
            targets: Vec::new(),
            loop_count: 0,
            start: Start::Now,
        },
    );
    assert_eq!(code(&r), Some(ErrorCode::NotFound));
    // Deleting the playing take stops it first; the status keeps how it went.
    assert_eq!(
        b.send(&mut s, Request::Delete { name: "dao" }),
        Response::Ok
    );
    assert_eq!(b.device.playing, None);
    let Response::Status(status) = b.send(&mut s, Request::Status) else {
        panic!("no status")
    };
    assert_eq!(status.playing, None);
    let last = status.last.expect("the last playback");
    assert_eq!((last.take.as_str(), last.ended), ("dao", Ended::Stopped));
    assert_eq!(
        code(&b.send(&mut s, Request::Delete { name: "dao" })),
        Some(ErrorCode::NotFound)
    );
}

#[test]
fn bad_uploads_map_to_clear_codes() {
    let mut b = TestBox::new();
    let mut s = Session::new("0.1.0");
    b.send(&mut s, hello(None));
    assert_eq!(
        code(&b.send(&mut s, Request::UploadCommit)),
        Some(ErrorCode::UploadOrder)
    );
    let mut img = image("dao", 4, 1);
    let last = img.len() - 1;
    img[last] ^= 0x40;
    assert_eq!(
        code(&upload_requests(&mut b, &mut s, &img)),
        Some(ErrorCode::Crc)
    );
    let r = b.send(
        &mut s,
        Request::UploadBegin {
            name: "big",
            total_len: 1 << 20,
            crc32: 0,
            place: llv_core::control::Place::Internal,
        },
    );
    let Response::Error { code: c, detail } = r else {
        panic!()
    };
    assert_eq!(c, ErrorCode::NoSpace);
    assert_eq!(detail.as_str(), "needs 1048576 bytes, 16384 free");
    // A dropped connection drops its upload; another session cannot continue it.
    let good = image("dao", 4, 1);
    let h = TakeImage::parse(&good).unwrap().header().clone();
    b.send(
        &mut s,
        Request::UploadBegin {
            name: "dao",
            total_len: h.total_len,
            crc32: h.crc32,
            place: llv_core::control::Place::Internal,
        },
    );
    let mut other = Session::new("0.1.0");
    b.send(&mut other, hello(None));
    let r = b.send(
        &mut other,
        Request::UploadChunk {
            offset: 0,
            data: &good[..10],
        },
    );
    assert_eq!(code(&r), Some(ErrorCode::UploadOrder));
    s.close(&mut b.store);
    let Response::List { takes } = b.send(&mut other, Request::List) else {
        panic!()
    };
    assert!(takes.is_empty());
}

#[test]
fn token_authenticates_the_connection_and_is_never_sent_back() {
    let mut b = TestBox::new();
    let mut s = Session::new("0.1.0");
    b.send(&mut s, hello(None));
    let mut changes = Vec::new();
    changes
        .push(Setting::Token(Some("s3cret".try_into().unwrap())))
        .unwrap();
    assert_eq!(
        b.send(&mut s, Request::SetSettings { changes }),
        Response::Ok
    );
    let Response::Settings {
        settings,
        token_set,
    } = b.send(&mut s, Request::GetSettings)
    else {
        panic!()
    };
    assert!(token_set);
    assert_eq!(settings.token, None);

    let mut s2 = Session::new("0.1.0");
    let Response::Error { code: c, detail } = b.send(&mut s2, hello(None)) else {
        panic!()
    };
    assert_eq!(
        (c, detail.as_str()),
        (ErrorCode::Unauthorized, "this box needs a token")
    );
    assert_eq!(
        code_of_status(&mut b, &mut s2),
        Some(ErrorCode::Unauthorized)
    );
    let Response::Error { detail, .. } = b.send(&mut s2, hello(Some("guess"))) else {
        panic!()
    };
    assert_eq!(detail.as_str(), "wrong token");
    assert_eq!(
        code_of_status(&mut b, &mut s2),
        Some(ErrorCode::Unauthorized)
    );
    assert!(matches!(
        b.send(&mut s2, hello(Some("s3cret"))),
        Response::Hello { .. }
    ));
    assert!(matches!(
        b.send(&mut s2, Request::Status),
        Response::Status(_)
    ));
    // The token was stored.
    assert_eq!(b.store.settings().token.as_deref(), Some("s3cret"));
}

#[test]
fn garbage_and_oversized_frames_get_errors_and_the_session_goes_on() {
    let mut b = TestBox::new();
    let mut s = Session::new("0.1.0");
    let mut buf = [0u8; FRAME_BUF];
    let frame = encode(&hello(None), &mut buf).unwrap().to_vec();
    assert!(matches!(
        b.send_raw(&mut s, &frame[PREFIX_LEN..]),
        Response::Hello { .. }
    ));
    assert_eq!(
        code(&b.send_raw(&mut s, &[0xFF, 0xFF, 0xFF])),
        Some(ErrorCode::BadRequest)
    );
    assert_eq!(
        code(&b.send_raw(&mut s, &[1, 0])),
        Some(ErrorCode::BadRequest)
    );
    let mut out = [0u8; RESPONSE_BUF];
    let refusal = Session::refuse_oversized(MAX_FRAME + 1, &mut out);
    let r: Response = decode(&refusal[PREFIX_LEN..]).unwrap();
    assert_eq!(code(&r), Some(ErrorCode::TooLarge));
    assert!(matches!(b.send_raw(&mut s, &[1]), Response::Status(_)));
}

fn settings_change(change: Setting) -> Request<'static> {
    let mut changes = Vec::new();
    changes.push(change).unwrap();
    Request::SetSettings { changes }
}

#[test]
fn a_connection_loses_its_rights_when_another_changes_the_token() {
    let mut b = TestBox::new();
    let (mut first, mut second) = (Session::new("0.1.0"), Session::new("0.1.0"));
    b.send(&mut first, hello(None));
    b.send(&mut second, hello(None));
    let token = Setting::Token(Some("s3cret".try_into().unwrap()));
    assert_eq!(b.send(&mut first, settings_change(token)), Response::Ok);
    // The connection that set the token keeps its rights; the other loses them.
    assert!(matches!(
        b.send(&mut first, Request::Status),
        Response::Status(_)
    ));
    let Response::Error { code: c, detail } = b.send(&mut second, Request::Status) else {
        panic!()
    };
    assert_eq!(c, ErrorCode::Unauthorized);
    assert_eq!(
        detail.as_str(),
        "the token changed: send Hello with the new one"
    );
    assert_eq!(
        code_of_status(&mut b, &mut second),
        Some(ErrorCode::Unauthorized)
    );
    assert!(matches!(
        b.send(&mut second, hello(Some("s3cret"))),
        Response::Hello { .. }
    ));
    assert!(matches!(
        b.send(&mut second, Request::Status),
        Response::Status(_)
    ));
    // A token one byte longer, or a prefix of it, is wrong.
    for guess in ["s3cret!", "s3cre", ""] {
        let mut s = Session::new("0.1.0");
        let r = b.send(&mut s, hello(Some(guess)));
        assert_eq!(code(&r), Some(ErrorCode::Unauthorized), "{guess:?}");
    }
}

#[test]
fn a_bad_setting_is_refused_by_name_and_never_stored() {
    let mut b = TestBox::new();
    let mut s = Session::new("0.1.0");
    b.send(&mut s, hello(None));
    let bad = Setting::Address(Some(llv_core::settings::StaticAddress {
        ip: [10, 0, 2, 15],
        prefix_len: 33,
        gateway: None,
    }));
    let Response::Error { code: c, detail } = b.send(&mut s, settings_change(bad)) else {
        panic!()
    };
    assert_eq!(c, ErrorCode::Invalid);
    assert_eq!(
        detail.as_str(),
        "address 10.0.2.15/33: the prefix is 1 to 32"
    );
    let token = Setting::Token(Some("two words".try_into().unwrap()));
    assert_eq!(
        code(&b.send(&mut s, settings_change(token))),
        Some(ErrorCode::Invalid)
    );
    let mut targets = Vec::new();
    targets
        .push(Target {
            ip: [10, 0, 2, 2],
            port: 0,
        })
        .unwrap();
    let r = b.send(&mut s, settings_change(Setting::Targets(targets)));
    assert_eq!(code(&r), Some(ErrorCode::Invalid));
    // Nothing reached the library or the device.
    assert_eq!(b.device.applied, None);
    assert_eq!(b.store.saves, 0);
    assert_eq!(b.store.settings(), &llv_core::settings::Settings::default());
}

#[test]
fn play_refuses_nonsense() {
    let mut b = TestBox::new();
    let mut s = Session::new("0.1.0");
    b.send(&mut s, hello(None));
    assert_eq!(
        upload_requests(&mut b, &mut s, &image("dao", 4, 1)),
        Response::Ok
    );
    let play = |targets: &[Target]| Request::Play {
        name: "dao",
        targets: targets.iter().copied().collect(),
        loop_count: 0,
        start: Start::Now,
    };
    for t in [
        Target {
            ip: [0; 4],
            port: 11111,
        },
        Target {
            ip: [10, 0, 2, 2],
            port: 0,
        },
    ] {
        let r = b.send(&mut s, play(&[t]));
        assert_eq!(code(&r), Some(ErrorCode::Invalid), "{t:?}");
    }
    // A take that loops 4 frames in 4 µs would flood the network.
    let mut fast = vec![0u8; llv_core::take::image_len(4, 4 * 300)];
    let mut w = llv_core::take::ImageWriter::new(&mut fast, "fast", 4).unwrap();
    for _ in 0..4 {
        w.push(0, &[7; 300]).unwrap();
    }
    w.finish(4).unwrap();
    assert_eq!(upload_requests(&mut b, &mut s, &fast), Response::Ok);
    let r = b.send(
        &mut s,
        Request::Play {
            name: "fast",
            targets: [Target {
                ip: [10, 0, 2, 2],
                port: 11111,
            }]
            .into_iter()
            .collect(),
            loop_count: 0,
            start: Start::Now,
        },
    );
    let Response::Error { code: c, detail } = r else {
        panic!()
    };
    assert_eq!(
        (c, detail.as_str()),
        (
            ErrorCode::Invalid,
            "take \"fast\" loops faster than 240 fps"
        )
    );
    assert_eq!(b.device.playing, None);
}

#[test]
fn a_box_whose_settings_are_unreadable_answers_only_what_reads() {
    // As a settings record of a newer schema leaves a box (a firmware downgrade).
    let mut b = TestBox::new();
    b.store.locked = true;
    b.store
        .faults
        .push(llv_control::mock::library::fault(
            llv_core::control::FaultCode::SettingsUnreadable,
            "settings schema 9 newer than firmware: locked; upgrade or factory reset",
        ))
        .unwrap();
    let mut s = Session::new("0.1.0");
    // The token is unknown: any Hello is let in, but only to read.
    assert!(matches!(
        b.send(&mut s, hello(Some("any"))),
        Response::Hello { .. }
    ));
    let Response::Status(status) = b.send(&mut s, Request::Status) else {
        panic!()
    };
    assert_eq!(status.faults.len(), 1);
    assert_eq!(
        status.faults[0].code,
        llv_core::control::FaultCode::SettingsUnreadable
    );
    assert_eq!(
        status.faults[0].detail.as_str(),
        "settings schema 9 newer than firmware: locked; upgrade or factory reset"
    );
    assert!(matches!(
        b.send(&mut s, Request::List),
        Response::List { .. }
    ));
    assert!(matches!(
        b.send(&mut s, Request::GetSettings),
        Response::Settings { .. }
    ));
    for request in [
        Request::Stop,
        Request::Delete { name: "x" },
        settings_change(Setting::Token(None)),
    ] {
        let r = b.send(&mut s, request);
        assert_eq!(code(&r), Some(ErrorCode::Unauthorized), "{r:?}");
    }
}

#[test]
fn the_clock_answers_and_starts_reach_the_player() {
    let mut b = TestBox::new();
    let mut s = Session::new("0.1.0");
    b.send(&mut s, hello(None));
    assert_eq!(
        b.send(&mut s, Request::Clock),
        Response::Clock { now_us: 1_234_567 }
    );
    assert_eq!(
        upload_requests(&mut b, &mut s, &image("dao", 4, 1)),
        Response::Ok
    );
    let target = Target {
        ip: [10, 0, 2, 2],
        port: 11111,
    };
    let chase = ChaseSpec {
        offset: llv_core::artnet::TimecodeLabel::parse("01:00:00:00"),
        ..ChaseSpec::DEFAULT
    };
    for start in [
        Start::At(5_000_000),
        Start::At(1_234_567),
        Start::Chase(chase),
    ] {
        let r = b.send(
            &mut s,
            Request::Play {
                name: "dao",
                targets: [target].into_iter().collect(),
                loop_count: 1,
                start,
            },
        );
        assert_eq!(r, Response::Ok);
        assert_eq!(
            b.device.playing,
            Some(("dao".into(), vec![target], 1, start))
        );
    }
    let bad = ChaseSpec {
        freewheel_ms: llv_core::settings::MAX_FREEWHEEL_MS + 1,
        ..ChaseSpec::DEFAULT
    };
    let r = b.send(
        &mut s,
        Request::Play {
            name: "dao",
            targets: [target].into_iter().collect(),
            loop_count: 1,
            start: Start::Chase(bad),
        },
    );
    assert_eq!(code(&r), Some(ErrorCode::Invalid));
}

#[test]
fn every_take_lists_a_page_at_a_time_and_the_card_is_in_the_status() {
    let mut b = TestBox::new();
    b.store.capacity = u32::MAX;
    b.store.max_takes = usize::MAX;
    let count = 1003;
    for i in 0..count {
        b.store.insert(image(&format!("cue {i:04}"), 1, i as u8));
    }
    b.store.card = Some(llv_core::control::CardStatus {
        scanning: true,
        takes: 1000,
        bad_files: 6,
        bad: ["BAD0.TAK".try_into().unwrap()].into_iter().collect(),
    });
    let mut s = Session::new("test");
    b.send(&mut s, hello(None));
    // The older List: the first 16.
    let Response::List { takes } = b.send(&mut s, Request::List) else {
        panic!("List");
    };
    assert_eq!(takes.len(), 16);
    let mut names = std::vec::Vec::new();
    let mut revision = None;
    for _ in 0..count {
        let start = names.len() as u32;
        let Response::Takes(page) = b.send(&mut s, Request::ListPage { start }) else {
            panic!("ListPage");
        };
        assert_eq!((page.start, page.total), (start, count as u32));
        assert!(revision.is_none_or(|r| r == page.revision));
        revision = Some(page.revision);
        names.extend(page.takes.iter().map(|t| t.name.to_string()));
        if names.len() == count {
            break;
        }
    }
    let want: std::vec::Vec<String> = (0..count).map(|i| format!("cue {i:04}")).collect();
    assert_eq!(names, want);
    // Past the end: an empty page.
    let Response::Takes(page) = b.send(&mut s, Request::ListPage { start: 5000 }) else {
        panic!("ListPage");
    };
    assert!(page.takes.is_empty());
    // A take added changes the revision.
    b.store.insert(image("late", 1, 9));
    let Response::Takes(page) = b.send(&mut s, Request::ListPage { start: 0 }) else {
        panic!("ListPage");
    };
    assert_ne!(Some(page.revision), revision);
    let Response::Status(status) = b.send(&mut s, Request::Status) else {
        panic!("Status");
    };
    assert_eq!(status.card, b.store.card);
    // The last take plays (opened through the library, as a card take is).
    assert_eq!(
        b.send(
            &mut s,
            Request::Play {
                name: "cue 1002",
                targets: [Target {
                    ip: [10, 0, 2, 2],
                    port: 11111,
                }]
                .into_iter()
                .collect(),
                loop_count: 1,
                start: Start::Now,
            }
        ),
        Response::Ok
    );
}

#[test]
fn a_start_in_the_past_is_refused() {
    // What the review sent: a Play at box time 0, 74 s after power-up.
    let mut b = TestBox::new();
    b.device.clock_us = 74_000_000;
    let mut s = Session::new("0.1.0");
    b.send(&mut s, hello(None));
    assert_eq!(
        upload_requests(&mut b, &mut s, &image("dao", 4, 1)),
        Response::Ok
    );
    let play = |at| Request::Play {
        name: "dao",
        targets: [Target {
            ip: [10, 0, 2, 2],
            port: 11111,
        }]
        .into_iter()
        .collect(),
        loop_count: 0,
        start: Start::At(at),
    };
    let Response::Error { code: c, detail } = b.send(&mut s, play(0)) else {
        panic!()
    };
    assert_eq!(
        (c, detail.as_str()),
        (
            ErrorCode::Invalid,
            "start 74000 ms in the past (the clock reads 74000 ms)"
        )
    );
    assert_eq!(
        code(&b.send(&mut s, play(73_999_999))),
        Some(ErrorCode::Invalid)
    );
    assert_eq!(b.device.playing, None);
    assert_eq!(b.send(&mut s, play(74_000_000)), Response::Ok);
}

#[test]
fn loopback_targets_are_the_laptops_and_not_the_boxs() {
    let loopback = Target {
        ip: [127, 0, 0, 1],
        port: 11111,
    };
    for laptop in [false, true] {
        let mut b = TestBox::new();
        b.device.laptop = laptop;
        let mut s = Session::new("0.1.0");
        b.send(&mut s, hello(None));
        assert_eq!(
            upload_requests(&mut b, &mut s, &image("dao", 4, 1)),
            Response::Ok
        );
        let set = b.send(
            &mut s,
            settings_change(Setting::Targets([loopback].into_iter().collect())),
        );
        let play = b.send(
            &mut s,
            Request::Play {
                name: "dao",
                targets: [loopback].into_iter().collect(),
                loop_count: 1,
                start: Start::Now,
            },
        );
        if laptop {
            assert_eq!((&set, &play), (&Response::Ok, &Response::Ok));
        } else {
            for r in [set, play] {
                let Response::Error { code: c, detail } = r else {
                    panic!("{r:?}")
                };
                assert_eq!(c, ErrorCode::Invalid);
                assert_eq!(
                    detail.as_str(),
                    "target 127.0.0.1:11111: 127.x is the box itself; give the laptop's address"
                );
            }
        }
    }
}

#[test]
fn a_chunk_over_the_documented_maximum_is_refused() {
    // What the review sent: 2,000 bytes in one chunk (MAX_CHUNK is 1,024).
    let mut b = TestBox::new();
    let mut s = Session::new("0.1.0");
    b.send(&mut s, hello(None));
    let img = image("dao", 8, 1);
    let h = TakeImage::parse(&img).unwrap().header().clone();
    assert!(img.len() > 2000);
    let begin = Request::UploadBegin {
        name: "dao",
        total_len: h.total_len,
        crc32: h.crc32,
        place: llv_core::control::Place::Internal,
    };
    assert_eq!(b.send(&mut s, begin), Response::Ok);
    let r = b.send(
        &mut s,
        Request::UploadChunk {
            offset: 0,
            data: &img[..2000],
        },
    );
    let Response::Error { code: c, detail } = r else {
        panic!("{r:?}")
    };
    assert_eq!(
        (c, detail.as_str()),
        (ErrorCode::Invalid, "chunk of 2000 bytes: at most 1024")
    );
}

#[test]
fn live_needs_targets_and_opens_its_idle_take_from_the_library() {
    use llv_core::settings::LiveChange;
    let mut b = TestBox::new();
    let mut s = Session::new("0.1.0");
    b.send(&mut s, hello(None));
    assert_eq!(
        upload_requests(&mut b, &mut s, &image("dao", 4, 1)),
        Response::Ok
    );
    let Response::Error { code: c, detail } = b.send(&mut s, Request::Live { on: true }) else {
        panic!("live without targets")
    };
    assert_eq!(
        (c, detail.as_str()),
        (ErrorCode::Invalid, "no targets: set targets first")
    );
    assert_eq!(b.device.live, None);
    let mut targets = Vec::new();
    targets
        .push(Target {
            ip: [10, 0, 2, 2],
            port: 11111,
        })
        .unwrap();
    b.send(&mut s, settings_change(Setting::Targets(targets)));
    assert_eq!(b.send(&mut s, Request::Live { on: true }), Response::Ok);
    assert_eq!(
        (b.device.live, b.device.live_idle.as_deref()),
        (Some((true, 11111)), None)
    );
    // The idle take is opened from the library, as a playback's take is.
    let idle = |name: &str| Setting::Live(LiveChange::Idle(Some(name.try_into().unwrap())));
    assert_eq!(b.send(&mut s, settings_change(idle("dao"))), Response::Ok);
    assert_eq!(b.send(&mut s, Request::Live { on: true }), Response::Ok);
    assert_eq!(b.device.live_idle.as_deref(), Some("dao"));
    assert_eq!(b.send(&mut s, settings_change(idle("gone"))), Response::Ok);
    let Response::Error { code: c, detail } = b.send(&mut s, Request::Live { on: true }) else {
        panic!("an idle take that is not there")
    };
    assert_eq!(c, ErrorCode::NotFound);
    assert!(detail.starts_with("idle take: "), "{detail}");
    assert_eq!(b.send(&mut s, Request::Live { on: false }), Response::Ok);
    assert_eq!(b.device.live, Some((false, 11111)));
}
