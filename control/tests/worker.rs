//! Doors that hand their library work to one worker answer exactly as doors
//! that do it themselves; several doors take turns; a door that goes away
//! while its work runs leaves the next door its own answer.

mod common;

use std::future::Future;
use std::pin::pin;
use std::task::{Context, Waker};

use common::{clock, on_mock_clock, store, SharedStore};
use embassy_futures::join::join3;
use embassy_futures::select::{select, Either};
use embassy_sync::blocking_mutex::raw::CriticalSectionRawMutex;
use embassy_time::Duration;
use llv_control::mock::{synthetic_image, RecordingPlayback, ScriptedStream};
use llv_control::session::Step;
use llv_control::{
    serve_connection, ConnectionBuffers, Control, Finish, InPlace, Penalties, Session, TakeLibrary,
    Worker, LIMITS,
};
use llv_core::control::{
    encode, Place, Request, Response, MAX_CHUNK, MAX_FRAME, PREFIX_LEN, PROTOCOL_VERSION,
};
use llv_core::take::TakeHeader;

type Through<'a> = Control<
    'a,
    CriticalSectionRawMutex,
    llv_control::mock::MemoryLibrary,
    &'a Worker<CriticalSectionRawMutex>,
>;

/// Takes in `library`.
fn total(library: &SharedStore) -> u32 {
    let mut library = library.try_lock().unwrap();
    embassy_futures::block_on(library.list_page(0))
        .unwrap()
        .total
}

fn frame(request: &Request<'_>) -> Vec<u8> {
    let mut buf = vec![0u8; PREFIX_LEN + MAX_FRAME];
    encode(request, &mut buf).unwrap().to_vec()
}

/// A connection that says Hello, uploads `image` in chunks, lists the takes
/// and sends a chunk too long for any upload.
fn session_bytes(image: &[u8]) -> Vec<u8> {
    let header = TakeHeader::parse(image).unwrap();
    let mut input = frame(&Request::Hello {
        protocol: PROTOCOL_VERSION,
        token: None,
    });
    input.extend(frame(&Request::UploadBegin {
        name: &header.name,
        total_len: header.total_len,
        crc32: header.crc32,
        place: Place::Internal,
    }));
    for (i, part) in image.chunks(MAX_CHUNK).enumerate() {
        input.extend(frame(&Request::UploadChunk {
            offset: (i * MAX_CHUNK) as u32,
            data: part,
        }));
    }
    input.extend(frame(&Request::UploadCommit));
    input.extend(frame(&Request::ListPage { start: 0 }));
    input.extend(frame(&Request::UploadBegin {
        name: "long",
        total_len: 4000,
        crc32: 0,
        place: Place::Internal,
    }));
    input.extend(frame(&Request::UploadChunk {
        offset: 0,
        data: &[0; 2000],
    }));
    input
}

#[test]
fn doors_through_a_worker_answer_as_doors_that_finish_in_place() {
    let _clock = clock();
    let image = synthetic_image("dao", 12, 5);
    let input = session_bytes(&image);

    // In place.
    let library = store();
    let penalties = Penalties::new();
    let in_place = Control {
        firmware: "test 1",
        library: &library,
        penalties: &penalties,
        limits: LIMITS,
        finish: InPlace,
    };
    let mut io = ScriptedStream::new(input.clone(), 64);
    let mut device = RecordingPlayback::default();
    let mut buffers = ConnectionBuffers::new();
    on_mock_clock(
        serve_connection(
            &mut io,
            [10, 0, 0, 9],
            &in_place,
            &mut device,
            &mut buffers,
            &(),
        ),
        Duration::from_secs(60),
    );
    let expected = io.output.clone();

    // Through a worker, which the same stream's requests reach in turn.
    let library = store();
    let worker = Worker::new();
    let through: Through<'_> = Control {
        firmware: "test 1",
        library: &library,
        penalties: &penalties,
        limits: LIMITS,
        finish: &worker,
    };
    let mut io = ScriptedStream::new(input, 64);
    let mut device = RecordingPlayback::default();
    let mut worker_device = RecordingPlayback::default();
    on_mock_clock(
        async {
            let door = serve_connection(
                &mut io,
                [10, 0, 0, 9],
                &through,
                &mut device,
                &mut buffers,
                &(),
            );
            match select(door, worker.serve(&library, &mut worker_device)).await {
                Either::First(ended) => ended,
                Either::Second(never) => never,
            }
        },
        Duration::from_secs(60),
    );
    assert_eq!(io.output, expected, "the same bytes answered");
    let responses = io.responses();
    assert!(matches!(responses.last(), Some(Response::Error { .. })));
    assert_eq!(total(&library), 1);
}

#[test]
fn several_doors_take_turns_and_each_gets_its_own_answer() {
    let _clock = clock();
    let library = store();
    let penalties = Penalties::new();
    let worker = Worker::new();
    let control: Through<'_> = Control {
        firmware: "test 1",
        library: &library,
        penalties: &penalties,
        limits: LIMITS,
        finish: &worker,
    };
    let images: Vec<Vec<u8>> = ["one", "two"]
        .iter()
        .enumerate()
        .map(|(i, n)| synthetic_image(n, 8 + i as u32, i as u8))
        .collect();
    let mut a = ScriptedStream::new(session_bytes(&images[0]), 16);
    let mut b = ScriptedStream::new(session_bytes(&images[1]), 7);
    let mut da = RecordingPlayback::default();
    let mut db = RecordingPlayback::default();
    let mut wd = RecordingPlayback::default();
    let (mut ba, mut bb) = (ConnectionBuffers::new(), ConnectionBuffers::new());
    on_mock_clock(
        async {
            let doors = join3(
                serve_connection(&mut a, [10, 0, 0, 1], &control, &mut da, &mut ba, &()),
                serve_connection(&mut b, [10, 0, 0, 2], &control, &mut db, &mut bb, &()),
                async {},
            );
            match select(doors, worker.serve(&library, &mut wd)).await {
                Either::First(_) => {}
                Either::Second(never) => never,
            }
        },
        Duration::from_secs(60),
    );
    for (io, name) in [(&a, "one"), (&b, "two")] {
        let responses = io.responses();
        // Hello, Begin, chunks, Commit: all Ok; then the page.
        let page = responses
            .iter()
            .find_map(|r| match r {
                Response::Takes(page) => Some(page.clone()),
                _ => None,
            })
            .unwrap_or_else(|| panic!("{name}: no page in {responses:?}"));
        assert!(
            page.takes.iter().any(|t| t.name == name),
            "{name}: {page:?}"
        );
    }
    assert_eq!(total(&library), 2);
}

#[test]
fn a_door_gone_while_its_work_runs_leaves_the_next_door_its_own_answer() {
    let _clock = clock();
    let library: SharedStore = store();
    library
        .try_lock()
        .unwrap()
        .insert(synthetic_image("dao", 4, 1));
    let worker = Worker::<CriticalSectionRawMutex>::new();
    let finisher = &worker;
    let mut worker_device = RecordingPlayback::default();
    let mut device = RecordingPlayback::default();
    let noop = Waker::noop();
    let mut cx = Context::from_waker(noop);

    // Door A asks for the list, and goes away once its work is handed over.
    let mut a = Session::new("test");
    let mut b = Session::new("test");
    let hello = Request::Hello {
        protocol: PROTOCOL_VERSION,
        token: None,
    };
    for s in [&mut a, &mut b] {
        let lib = library.try_lock().unwrap();
        assert!(matches!(
            s.start(hello.clone(), &*lib, &mut device),
            Step::Done(Response::Hello { .. })
        ));
    }
    {
        let lib = library.try_lock().unwrap();
        let Step::Wait(pending) = a.start(Request::ListPage { start: 0 }, &*lib, &mut device)
        else {
            panic!("a list waits on the library")
        };
        let mut door_a = pin!(finisher.finish(&mut a, pending, lib, &mut device));
        assert!(door_a.as_mut().poll(&mut cx).is_pending());
    }
    // Door B deletes the take; the worker runs A's list first, then B's delete.
    let lib = library.try_lock().unwrap();
    let Step::Wait(pending) = b.start(Request::Delete { name: "dao" }, &*lib, &mut device) else {
        panic!("a delete waits on the library")
    };
    let (answer, _) = on_mock_clock(
        async {
            let door_b = finisher.finish(&mut b, pending, lib, &mut device);
            match select(door_b, worker.serve(&library, &mut worker_device)).await {
                Either::First(answer) => answer,
                Either::Second(never) => never,
            }
        },
        Duration::from_secs(10),
    );
    assert_eq!(
        answer,
        Response::Ok,
        "B gets its delete's answer, not A's list"
    );
    assert_eq!(total(&library), 0);
}
