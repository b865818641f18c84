//! The connection loop over scripted byte streams, on embassy-time's mock
//! clock: framing, refusals, deadlines, wrong-token delays, and what a
//! connection's end leaves behind.

mod common;

use common::{clock, on_mock_clock, store, SharedStore};
use embassy_time::Duration;
use llv_control::mock::{synthetic_image, RecordingPlayback, ScriptedStream};
use llv_control::{
    serve_connection, ConnectionBuffers, Control, Ended, Penalties, TakeLibrary, LIMITS,
};
use llv_core::control::{
    encode, ErrorCode, Request, Response, MAX_FRAME, PREFIX_LEN, PROTOCOL_VERSION,
};
use llv_core::settings::Setting;

fn frame(request: &Request<'_>) -> Vec<u8> {
    let mut buf = vec![0u8; PREFIX_LEN + MAX_FRAME];
    encode(request, &mut buf).unwrap().to_vec()
}

fn hello(token: Option<&str>) -> Vec<u8> {
    frame(&Request::Hello {
        protocol: PROTOCOL_VERSION,
        token,
    })
}

/// Serves one connection over `io` from 10.0.0.9; returns how it ended and the mock time it took.
fn serve(
    store: &SharedStore,
    penalties: &Penalties,
    io: &mut ScriptedStream,
    device: &mut RecordingPlayback,
) -> (Ended, Duration) {
    let control = Control {
        firmware: "test 1",
        library: store,
        penalties,
        limits: LIMITS,
        finish: llv_control::InPlace,
    };
    let mut buffers = ConnectionBuffers::new();
    on_mock_clock(
        serve_connection(io, [10, 0, 0, 9], &control, device, &mut buffers, &()),
        Duration::from_secs(120),
    )
}

fn code(r: &Response) -> Option<ErrorCode> {
    match r {
        Response::Error { code, .. } => Some(*code),
        _ => None,
    }
}

fn set_token(token: &str) -> Vec<u8> {
    let mut changes = heapless::Vec::new();
    changes
        .push(Setting::Token(Some(token.try_into().unwrap())))
        .unwrap();
    frame(&Request::SetSettings { changes })
}

#[test]
fn frames_split_anywhere_are_answered_in_order_and_bad_ones_refused() {
    let _clock = clock();
    let mut input = hello(None);
    input.extend([3, 0, 0xFF, 0xFF, 0xFF]); // does not decode
    input.extend([0xFF, 0xFF]); // 65535 bytes: over MAX_FRAME, skipped
    input.extend(std::iter::repeat_n(0xAB, 0xFFFF));
    input.extend(frame(&Request::Status));
    input.extend([0x00, 0x04, 1, 2, 3]); // cut in the middle of a body
    for step in [1, 7, 4096] {
        let mut io = ScriptedStream::new(input.clone(), step);
        let (ended, _) = serve(
            &store(),
            &Penalties::new(),
            &mut io,
            &mut Default::default(),
        );
        assert_eq!(ended, Ended::Closed, "step {step}");
        let responses = io.responses();
        assert_eq!(responses.len(), 4, "step {step}: {responses:?}");
        assert!(matches!(responses[0], Response::Hello { .. }));
        assert_eq!(code(&responses[1]), Some(ErrorCode::BadRequest));
        assert_eq!(code(&responses[2]), Some(ErrorCode::TooLarge));
        let Response::Status(status) = &responses[3] else {
            panic!("{:?}", responses[3])
        };
        assert_eq!(status.firmware.as_str(), "test 1");
    }
}

#[test]
fn an_unfinished_upload_ends_with_its_connection() {
    let _clock = clock();
    let store = store();
    let image = synthetic_image("cut", 4, 3);
    let header = llv_core::take::TakeHeader::parse(&image).unwrap();
    let mut input = hello(None);
    input.extend(frame(&Request::UploadBegin {
        name: "cut",
        total_len: header.total_len,
        crc32: header.crc32,
        place: llv_core::control::Place::Internal,
    }));
    input.extend(frame(&Request::UploadChunk {
        offset: 0,
        data: &image[..100],
    }));
    let mut io = ScriptedStream::new(input, 64);
    let (ended, _) = serve(&store, &Penalties::new(), &mut io, &mut Default::default());
    assert_eq!(ended, Ended::Closed);
    assert_eq!(io.responses()[1..], [Response::Ok, Response::Ok]);
    // The store's first upload has id 1: it is gone, and nothing was listed.
    let mut store = store.try_lock().unwrap();
    assert!(!store.uploading(1));
    let page = embassy_futures::block_on(store.list_page(0)).unwrap();
    assert_eq!(page.total, 0);
}

#[test]
fn silent_trickling_and_idle_connections_are_closed_on_time() {
    let _clock = clock();
    let ms = |d: Duration| d.as_millis();
    let store = store();
    let penalties = Penalties::new();
    // Connects and says nothing: closed when the Hello is due.
    let mut io = ScriptedStream::new(Vec::new(), 1);
    io.hold = true;
    let (ended, took) = serve(&store, &penalties, &mut io, &mut Default::default());
    assert_eq!((ended, ms(took)), (Ended::TimedOut, ms(LIMITS.hello)));
    // Sends the first byte of a Hello, then nothing: closed at the same deadline.
    let mut io = ScriptedStream::new(hello(None)[..1].to_vec(), 1);
    io.hold = true;
    let (ended, took) = serve(&store, &penalties, &mut io, &mut Default::default());
    assert_eq!((ended, ms(took)), (Ended::TimedOut, ms(LIMITS.hello)));
    assert!(io.responses().is_empty());
    // Says Hello, then half a frame: closed one frame limit later.
    let mut input = hello(None);
    input.extend(&frame(&Request::Status)[..2]);
    let mut io = ScriptedStream::new(input, 64);
    io.hold = true;
    let (ended, took) = serve(&store, &penalties, &mut io, &mut Default::default());
    assert_eq!((ended, ms(took)), (Ended::TimedOut, ms(LIMITS.frame)));
    // Says Hello, then nothing: closed when idle too long.
    let mut io = ScriptedStream::new(hello(None), 64);
    io.hold = true;
    let (ended, took) = serve(&store, &penalties, &mut io, &mut Default::default());
    assert_eq!((ended, ms(took)), (Ended::TimedOut, ms(LIMITS.idle)));
    assert_eq!(io.responses().len(), 1);
}

#[test]
fn a_wrong_token_closes_the_connection_after_a_growing_delay() {
    let _clock = clock();
    let store = store();
    let penalties = Penalties::new();
    let mut input = hello(None);
    input.extend(set_token("s3cret"));
    let mut io = ScriptedStream::new(input, 64);
    serve(&store, &penalties, &mut io, &mut Default::default());
    assert_eq!(io.responses()[1], Response::Ok);

    let mut delays = Vec::new();
    for _ in 0..7 {
        let mut input = hello(Some("guess"));
        input.extend(frame(&Request::Status));
        let mut io = ScriptedStream::new(input, 64);
        let (ended, took) = serve(&store, &penalties, &mut io, &mut Default::default());
        assert_eq!(ended, Ended::Refused);
        let responses = io.responses();
        assert_eq!(
            responses.len(),
            1,
            "nothing after the refusal: {responses:?}"
        );
        let Response::Error { code, detail } = &responses[0] else {
            panic!("{responses:?}")
        };
        assert_eq!(
            (*code, detail.as_str()),
            (ErrorCode::Unauthorized, "wrong token")
        );
        delays.push(took.as_millis());
    }
    assert_eq!(delays, [500, 1000, 2000, 4000, 8000, 16000, 16000]);

    // No token at all is refused at once, and the right one is let in.
    let mut io = ScriptedStream::new(hello(None), 64);
    let (ended, took) = serve(&store, &penalties, &mut io, &mut Default::default());
    assert_eq!((ended, took.as_millis()), (Ended::Refused, 0));
    let mut input = hello(Some("s3cret"));
    input.extend(frame(&Request::Status));
    let mut io = ScriptedStream::new(input, 64);
    let (ended, _) = serve(&store, &penalties, &mut io, &mut Default::default());
    assert_eq!(ended, Ended::Closed);
    assert!(matches!(io.responses()[1], Response::Status(_)));
}

#[test]
fn an_erasing_chunk_waits_for_the_players_read_ahead_at_most_a_second() {
    let _clock = clock();
    let image = synthetic_image("big", 8, 3);
    let header = llv_core::take::TakeHeader::parse(&image).unwrap();
    let mut input = hello(None);
    input.extend(frame(&Request::UploadBegin {
        name: "big",
        total_len: header.total_len,
        crc32: header.crc32,
        place: llv_core::control::Place::Internal,
    }));
    // The library erases before each 200 bytes (as a flash store before each
    // block): before the first chunk and the third, not the second.
    input.extend(frame(&Request::UploadChunk {
        offset: 0,
        data: &image[..100],
    }));
    input.extend(frame(&Request::UploadChunk {
        offset: 100,
        data: &image[100..200],
    }));
    input.extend(frame(&Request::UploadChunk {
        offset: 200,
        data: &image[200..1200],
    }));
    for (short, expected_ms) in [(false, 0), (true, 2000)] {
        let mut io = ScriptedStream::new(input.clone(), 4096);
        let mut device = RecordingPlayback {
            read_ahead_short: short,
            ..RecordingPlayback::default()
        };
        let library = store();
        library.try_lock().unwrap().erase_every = Some(200);
        let (ended, took) = serve(&library, &Penalties::new(), &mut io, &mut device);
        assert_eq!(ended, Ended::Closed);
        assert_eq!(io.responses()[1..], vec![Response::Ok; 4]);
        // Two erasing chunks, each waiting its limit for a read-ahead that stays short.
        assert_eq!(took.as_millis(), expected_ms, "short read-ahead: {short}");
        assert_eq!(LIMITS.read_ahead, Duration::from_secs(1));
    }
}
