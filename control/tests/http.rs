//! The HTTP door on embassy-time's mock clock, with the mock store and a
//! recording device: every endpoint, the token and its penalty, the
//! settings' errors by field, uploads by the upload contract, the limits
//! (head size, header count, path, `..`, methods, slow heads), the status
//! pushed as events within the push poll of a change, and the door policy
//! with a hundred HTTP connections from one address.

mod common;

use common::{clock, on_mock_clock, store, SharedStore};
use embassy_futures::block_on;
use embassy_futures::select::{select, Either};
use embassy_time::{Duration, Instant, Timer};
use llv_control::http::{serve_http_connection, HttpBuffers};
use llv_control::mock::{synthetic_image, RecordingPlayback, ScriptedStream, SharedPlayback};
use llv_control::slots::Opened;
use llv_control::{Admission, Control, Door, Ended, Penalties, Slots, TakeLibrary, LIMITS};
use llv_core::control::TakeRef;
use llv_core::settings::{Settings, Target};
use serde_json::{json, Value};

/// One response read back: status, headers (lower-case names), body.
#[derive(Debug)]
struct Reply {
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Reply {
    fn json(&self) -> Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&self.body)))
    }

    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// The responses written on a connection.
fn replies(mut out: &[u8]) -> Vec<Reply> {
    let mut replies = Vec::new();
    while let Some(end) = out.windows(4).position(|w| w == b"\r\n\r\n") {
        let head = std::str::from_utf8(&out[..end]).unwrap();
        let mut lines = head.split("\r\n");
        let status = lines.next().unwrap()[9..12].parse().unwrap();
        let headers: Vec<(String, String)> = lines
            .map(|l| {
                let (n, v) = l.split_once(": ").unwrap();
                (n.to_ascii_lowercase(), v.to_string())
            })
            .collect();
        out = &out[end + 4..];
        if status == 100 {
            continue;
        }
        let len = headers
            .iter()
            .find(|(n, _)| n == "content-length")
            .map_or(out.len(), |(_, v)| v.parse().unwrap());
        replies.push(Reply {
            status,
            headers,
            body: out[..len].to_vec(),
        });
        out = &out[len..];
    }
    replies
}

fn control<'a>(
    store: &'a SharedStore,
    penalties: &'a Penalties,
) -> Control<
    'a,
    embassy_sync::blocking_mutex::raw::CriticalSectionRawMutex,
    llv_control::mock::MemoryLibrary,
> {
    Control {
        firmware: "test 1",
        library: store,
        penalties,
        limits: LIMITS,
        finish: llv_control::InPlace,
    }
}

/// A store holding `dao` (3 frames) with a configured target.
fn box_store() -> SharedStore {
    let store = store();
    {
        let mut s = block_on(store.lock());
        s.insert(synthetic_image("dao", 3, 1));
        let settings = Settings {
            targets: [Target {
                ip: [10, 0, 2, 2],
                port: 11111,
            }]
            .into_iter()
            .collect(),
            ..Settings::default()
        };
        block_on(s.save_settings(&settings)).unwrap();
    }
    store
}

/// Serves `input` on one connection (`step` bytes a read); how it ended,
/// the mock time it took, the responses.
fn serve(
    store: &SharedStore,
    penalties: &Penalties,
    input: &[u8],
    step: usize,
    device: &mut RecordingPlayback,
) -> (Ended, Duration, Vec<Reply>) {
    let control = control(store, penalties);
    let mut buffers = Box::new(HttpBuffers::new());
    let mut io = ScriptedStream::new(input.to_vec(), step);
    let (ended, took) = on_mock_clock(
        serve_http_connection(&mut io, [10, 0, 2, 2], &control, device, &mut buffers, &()),
        Duration::from_secs(600),
    );
    (ended, took, replies(&io.output))
}

fn get(path: &str) -> Vec<u8> {
    format!("GET {path} HTTP/1.1\r\nHost: box\r\n\r\n").into_bytes()
}

fn post(path: &str, form: &str) -> Vec<u8> {
    format!(
        "POST {path} HTTP/1.1\r\nHost: box\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: {}\r\n\r\n{form}",
        form.len()
    )
    .into_bytes()
}

#[test]
fn every_endpoint_answers_as_the_session_does() {
    let _clock = clock();
    let store = box_store();
    let penalties = Penalties::new();
    let mut device = RecordingPlayback {
        address: Some([10, 0, 2, 15]),
        ..RecordingPlayback::default()
    };
    let mut input = Vec::new();
    for request in [
        get("/api/v1/status"),
        get("/api/v1/takes"),
        get("/api/v1/settings"),
        post("/api/v1/play", "take=dao&loops=0&targets=10.0.2.9%3A9000"),
        get("/api/v1/status"),
        post("/api/v1/stop", ""),
        post("/api/v1/play", "take=nope"),
        post("/api/v1/play", "loops=2"),
        b"DELETE /api/v1/takes/dao HTTP/1.1\r\n\r\n".to_vec(),
        get("/api/v1/takes?start=0"),
        post("/api/v1/live/on", ""),
        get("/api/v1/status"),
        get("/api/v1/live/on"),
        post("/api/v1/live/off", ""),
        get("/api/v1/status"),
    ] {
        input.extend(request);
    }
    let (ended, _, r) = serve(&store, &penalties, &input, 7, &mut device);
    assert_eq!(ended, Ended::Closed);
    let statuses: Vec<u16> = r.iter().map(|r| r.status).collect();
    assert_eq!(
        statuses,
        [200, 200, 200, 200, 200, 200, 404, 400, 200, 200, 200, 200, 405, 200, 200]
    );
    let status = r[0].json();
    assert_eq!(status["api"], 1);
    assert_eq!(status["protocol"], llv_core::control::PROTOCOL_VERSION);
    assert_eq!(status["status"]["firmware"], "test 1");
    assert_eq!(status["status"]["address"], "10.0.2.15");
    assert_eq!(status["status"]["playing"], Value::Null);
    assert_eq!(
        r[1].json(),
        json!({"takes": [{"name": "dao", "frames": 3, "period_us": 50_001, "place": "flash"}], "total": 1})
    );
    assert_eq!(r[2].json()["targets"], "10.0.2.2:11111");
    assert_eq!(r[2].json()["token_set"], false);
    assert_eq!(r[3].json(), json!({"ok": true}));
    assert_eq!(r[4].json()["status"]["playing"]["take"], "dao");
    assert_eq!(r[6].json()["error"]["code"], "NotFound");
    assert_eq!(r[7].json()["error"]["field"], "take");
    assert_eq!(r[9].json(), json!({"takes": [], "total": 0}));
    // The live relay, on and off, and its state in the status while it runs.
    assert_eq!(r[10].json(), json!({"ok": true}));
    assert_eq!(r[11].json()["status"]["live"]["state"], "waiting");
    assert_eq!(r[13].json(), json!({"ok": true}));
    assert_eq!(r[14].json()["status"]["live"], Value::Null);
    assert_eq!(
        device.last.as_ref().map(|l| l.take.as_str()),
        Some("dao"),
        "stop ended the playback"
    );
}

const FOUR_TARGETS: &str = "targets=192.168.100.201:11111,192.168.100.202:11111,192.168.100.203:11111,192.168.100.204:11111";

#[test]
fn settings_are_set_by_the_grammar_and_refusals_name_the_field() {
    let _clock = clock();
    let store = box_store();
    let penalties = Penalties::new();
    let mut device = RecordingPlayback::default();
    let mut input = Vec::new();
    for form in [
        "address=10.0.0.1%2F33",
        "name=stage-left&address=10.0.0.0%2F24",
        "targets=127.0.0.1",
        "colour=blue",
        "name=stage-left&autoplay=dao&autoplay-loops=0",
        FOUR_TARGETS,
    ] {
        input.extend(post("/api/v1/settings", form));
    }
    input.extend(get("/api/v1/settings"));
    let (_, _, r) = serve(&store, &penalties, &input, 64, &mut device);
    let errors: Vec<(u16, Value, Value)> = r[..4]
        .iter()
        .map(|r| {
            let e = r.json()["error"].clone();
            (r.status, e["field"].clone(), e["detail"].clone())
        })
        .collect();
    assert_eq!(
        errors,
        [
            (
                400,
                json!("address"),
                json!("address: \"10.0.0.1/33\" is not IP/PREFIX[,GATEWAY] or dhcp")
            ),
            (
                400,
                json!("address"),
                json!("address 10.0.0.0/24: its subnet's network or broadcast address")
            ),
            (
                400,
                json!("targets"),
                json!("target 127.0.0.1:11111: 127.x is the box itself; give the laptop's address")
            ),
            (400, Value::Null, errors[3].2.clone()),
        ]
    );
    assert!(errors[3]
        .2
        .as_str()
        .unwrap()
        .starts_with("unknown setting \"colour\""));
    assert_eq!(r[4].json(), json!({"ok": true}));
    assert_eq!(r[5].json(), json!({"ok": true}));
    let settings = r[6].json();
    // Four targets of the longest spelling, whole (87 characters).
    assert_eq!(
        settings["targets"],
        FOUR_TARGETS.strip_prefix("targets=").unwrap()
    );
    assert_eq!(
        (
            &settings["name"],
            &settings["autoplay"],
            &settings["autoplay-loops"]
        ),
        (&json!("stage-left"), &json!("dao"), &json!("0"))
    );
    assert_eq!(
        block_on(store.lock()).settings().name.as_deref(),
        Some("stage-left")
    );
}

#[test]
fn a_take_uploads_through_the_upload_contract_and_bad_images_are_refused() {
    let _clock = clock();
    let store = box_store();
    let penalties = Penalties::new();
    let mut device = RecordingPlayback::default();
    let image = synthetic_image("up", 12, 3);
    let mut input = format!(
        "PUT /api/v1/takes/up?place=flash HTTP/1.1\r\nContent-Length: {}\r\nExpect: 100-continue\r\n\r\n",
        image.len()
    )
    .into_bytes();
    input.extend(&image);
    let mut bad = image.clone();
    bad[200] ^= 0xff;
    input.extend(
        format!(
            "PUT /api/v1/takes/up2 HTTP/1.1\r\nContent-Length: {}\r\n\r\n",
            bad.len()
        )
        .bytes(),
    );
    input.extend(&bad);
    input.extend(get("/api/v1/takes"));
    let (_, _, r) = serve(&store, &penalties, &input, 500, &mut device);
    assert!(image.len() > 2 * llv_core::take::MAX_CHUNK);
    assert_eq!(r[0].status, 201, "{}", String::from_utf8_lossy(&r[0].body));
    assert_eq!(r[1].status, 422, "{}", String::from_utf8_lossy(&r[1].body));
    assert_eq!(
        r[2].status, 200,
        "the refused body was read: the connection goes on"
    );
    let stored = block_on(async { store.lock().await.list_page(0).await }).unwrap();
    let names: Vec<&str> = stored.takes.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["dao", "up"]);
}

#[test]
fn a_token_is_asked_for_and_a_wrong_one_waits_its_penalty_then_closes() {
    let _clock = clock();
    let store = box_store();
    {
        let mut s = block_on(store.lock());
        let mut settings = s.settings().clone();
        settings.token = Some("sesame".try_into().unwrap());
        block_on(s.save_settings(&settings)).unwrap();
    }
    let penalties = Penalties::new();
    let mut device = RecordingPlayback::default();
    let mut input = get("/api/v1/status");
    input.extend(b"GET /api/v1/status HTTP/1.1\r\nAuthorization: Bearer sesame\r\n\r\n");
    input.extend(b"GET / HTTP/1.1\r\n\r\n");
    let (_, _, r) = serve(&store, &penalties, &input, 64, &mut device);
    assert_eq!(r[0].status, 401);
    assert_eq!(r[0].json()["error"]["detail"], "this box needs a token");
    assert_eq!(r[1].status, 200);
    assert_eq!(r[2].status, 200, "the page itself needs no token");
    assert_eq!(r[2].header("content-encoding"), Some("gzip"));

    let wrong =
        b"GET /api/v1/status HTTP/1.1\r\nAuthorization: Bearer guess\r\n\r\nGET / HTTP/1.1\r\n\r\n";
    let (ended, took, r) = serve(&store, &penalties, wrong, 64, &mut device);
    assert_eq!((ended, r.len(), r[0].status), (Ended::Refused, 1, 401));
    assert!(took >= llv_control::penalty::FIRST_DELAY, "{took:?}");
    let (_, took_again, _) = serve(&store, &penalties, wrong, 64, &mut device);
    assert!(took_again >= took * 2, "{took:?} then {took_again:?}");
}

#[test]
fn bad_http_gets_an_error_and_a_closed_connection() {
    let _clock = clock();
    let store = box_store();
    let penalties = Penalties::new();
    let mut device = RecordingPlayback::default();
    let many_headers: String = (0..30).map(|i| format!("X-{i}: y\r\n")).collect();
    let long_path = format!("/{}", "a".repeat(300));
    let cases: Vec<(Vec<u8>, u16)> = vec![
        (
            format!("GET / HTTP/1.1\r\nX: {}\r\n\r\n", "y".repeat(1 << 20)).into_bytes(),
            431,
        ),
        (
            format!("GET / HTTP/1.1\r\n{many_headers}\r\n").into_bytes(),
            431,
        ),
        (
            format!("GET {long_path} HTTP/1.1\r\n\r\n").into_bytes(),
            414,
        ),
        (
            b"GET /api/v1/../../etc/passwd HTTP/1.1\r\n\r\n".to_vec(),
            400,
        ),
        (b"BREW /pot HTTP/1.1\r\n\r\n".to_vec(), 501),
        (
            b"POST /api/v1/play HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n".to_vec(),
            501,
        ),
        (
            b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03\r\n\r\n".to_vec(),
            400,
        ),
    ];
    for (input, expected) in cases {
        let (ended, _, r) = serve(&store, &penalties, &input, 1500, &mut device);
        assert_eq!(
            (ended, r.len(), r[0].status),
            (Ended::Refused, 1, expected),
            "{}",
            String::from_utf8_lossy(&input[..input.len().min(60)])
        );
        assert_eq!(r[0].header("connection"), Some("close"));
    }
    let (_, _, r) = serve(
        &store,
        &penalties,
        b"DELETE /api/v1/status HTTP/1.1\r\n\r\n",
        64,
        &mut device,
    );
    assert_eq!(
        (r[0].status, r[0].header("allow")),
        (405, Some("GET, HEAD"))
    );
    let (_, _, r) = serve(&store, &penalties, &get("/nothing"), 64, &mut device);
    assert_eq!(r[0].status, 404);
}

#[test]
fn a_slow_head_is_timed_out_on_the_doors_clock() {
    let _clock = clock();
    let store = box_store();
    let penalties = Penalties::new();
    let mut device = RecordingPlayback::default();
    let control = control(&store, &penalties);
    let mut buffers = Box::new(HttpBuffers::new());
    // A byte now and then: the head never ends.
    let mut io = ScriptedStream::new(b"GET / HTTP/1.1\r\nX-Slow: ".to_vec(), 1);
    io.hold = true;
    let (ended, took) = on_mock_clock(
        serve_http_connection(
            &mut io,
            [10, 0, 2, 2],
            &control,
            &mut device,
            &mut buffers,
            &(),
        ),
        Duration::from_secs(60),
    );
    assert_eq!(ended, Ended::TimedOut);
    assert!(took <= LIMITS.frame + Duration::from_millis(5), "{took:?}");
    assert_eq!(replies(&io.output)[0].status, 408);
    // Nothing at all after opening: closed after the hello limit.
    let mut io = ScriptedStream::new(Vec::new(), 1);
    io.hold = true;
    let (ended, took) = on_mock_clock(
        serve_http_connection(
            &mut io,
            [10, 0, 2, 2],
            &control,
            &mut device,
            &mut buffers,
            &(),
        ),
        Duration::from_secs(60),
    );
    assert_eq!(ended, Ended::Closed);
    assert!(took <= LIMITS.hello + Duration::from_millis(5), "{took:?}");
}

#[test]
fn the_status_is_pushed_within_the_push_poll_of_a_change() {
    let _clock = clock();
    let store = box_store();
    let penalties = Penalties::new();
    let control = control(&store, &penalties);
    let device = SharedPlayback::default();
    let mut served = device.clone();
    let mut buffers = Box::new(HttpBuffers::new());
    let mut io = ScriptedStream::new(get("/api/v1/events"), 64);
    io.hold = true;
    let started = Instant::now();
    let changed_at = started + Duration::from_millis(1500);
    let script = async {
        Timer::at(changed_at).await;
        let take = block_on(async { store.lock().await.open(TakeRef::parse("dao")).await })
            .unwrap()
            .0;
        llv_control::Playback::play(
            &mut *device.lock(),
            take,
            &[Target {
                ip: [10, 0, 2, 2],
                port: 11111,
            }],
            1,
            llv_core::control::Start::Now,
        );
        // The push poll and a few milliseconds to send.
        Timer::after(LIMITS.push_poll + Duration::from_millis(5)).await;
    };
    let serving = serve_http_connection(
        &mut io,
        [10, 0, 2, 2],
        &control,
        &mut served,
        &mut buffers,
        &(),
    );
    let (done, _) = on_mock_clock(select(serving, script), Duration::from_secs(10));
    assert!(matches!(done, Either::Second(())));
    let text = String::from_utf8(io.output.clone()).unwrap();
    assert!(text.starts_with("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"));
    let events: Vec<Value> = text
        .split("\n\n")
        .filter_map(|e| e.strip_prefix("data: "))
        .map(|d| serde_json::from_str(d).unwrap())
        .collect();
    // Idle: at once, then every second; playing: within the push poll.
    let idle = events
        .iter()
        .filter(|e| e["status"]["playing"].is_null())
        .count();
    assert_eq!(idle, 2, "{text}");
    let first_playing = events
        .iter()
        .find(|e| !e["status"]["playing"].is_null())
        .expect("the play was pushed");
    assert_eq!(first_playing["status"]["playing"]["take"], "dao");
}

#[test]
fn a_hundred_http_connections_from_one_address_never_keep_the_operator_out() {
    // The box's HTTP sockets: the door policy keeps one free and closes the
    // flooding address's own connections first.
    const N: usize = 4;
    let mut slots = Slots::<N>::new([Some(Door::Http); N]);
    let flood = [10, 0, 2, 66];
    let operator = [10, 0, 2, 2];
    let t0 = Instant::from_millis(0);
    let mut held = Vec::new();
    for i in 0..100u64 {
        match slots.open(Door::Http, flood, t0 + Duration::from_millis(i * 10)) {
            Admission::Opened(Opened { slot, close }) => {
                held.push(slot);
                if let Some(closed) = close {
                    slots.release(closed);
                }
            }
            Admission::Wait { slot } => {
                slots.release(slot);
                let _ = slots.claim(slot, Door::Http, flood, t0 + Duration::from_millis(i * 10));
            }
            Admission::Refused => {}
        }
    }
    let at = t0 + Duration::from_millis(1005);
    match slots.open(Door::Http, operator, at) {
        Admission::Opened(_) => {}
        Admission::Wait { slot } => {
            slots.release(slot);
            assert!(slots.claim(slot, Door::Http, operator, at).is_some());
        }
        Admission::Refused => panic!("the operator was refused"),
    }
}
