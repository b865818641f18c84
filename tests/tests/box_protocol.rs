//! The real `llv flash` / `llv box` against a software box: the box's
//! connection loop (`llv_control::serve_connection`, the one the firmware
//! and `llv serve` run) over a take library in memory, behind a TCP listener
//! on 127.0.0.1. (The same `llv` against the box's own flash store under
//! QEMU: firmware/e2e/box_control.rs.)

use std::io::{Read, Write};
use std::net::{IpAddr, SocketAddr, TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use embassy_futures::block_on;
use embassy_sync::blocking_mutex::raw::CriticalSectionRawMutex;
use embassy_sync::mutex::Mutex as AsyncMutex;
use embedded_io_async::ErrorKind;
use llv_control::mock::{MemoryLibrary, RecordingPlayback, SharedPlayback};
use llv_control::session::FRAME_BUF;
use llv_control::{serve_connection, ConnectionBuffers, Control, Penalties, TakeLibrary, LIMITS};
use llv_core::artnet::TimecodeLabel;
use llv_core::control::{
    body_len, decode, encode, ErrorCode, Place, Request, Response, Start, TakeRef, PREFIX_LEN,
    PROTOCOL_VERSION,
};
use llv_core::settings::{ChaseSpec, Target};
use llv_tests::{example, llv_packets};
use predicates::str::contains;
use serde_json::Value;

type SharedStore = AsyncMutex<CriticalSectionRawMutex, MemoryLibrary>;
/// Connections one software box serves before its thread ends.
const MAX_CONNECTIONS: usize = 64;
const TIMEOUT: Duration = Duration::from_secs(30);

/// A blocking `std` TCP stream as the async byte stream the box serves.
struct Stream(TcpStream);

impl embedded_io_async::ErrorType for Stream {
    type Error = ErrorKind;
}

impl embedded_io_async::Read for Stream {
    async fn read(&mut self, buf: &mut [u8]) -> Result<usize, ErrorKind> {
        self.0.read(buf).map_err(|_| ErrorKind::Other)
    }
}

impl embedded_io_async::Write for Stream {
    async fn write(&mut self, buf: &[u8]) -> Result<usize, ErrorKind> {
        self.0.write(buf).map_err(|_| ErrorKind::Other)
    }

    async fn flush(&mut self) -> Result<(), ErrorKind> {
        self.0.flush().map_err(|_| ErrorKind::Other)
    }
}

/// A software box: its address and its state, for checks after the CLI ran.
struct SoftBox {
    addr: SocketAddr,
    store: Arc<SharedStore>,
    device: Arc<Mutex<RecordingPlayback>>,
}

impl SoftBox {
    fn start() -> SoftBox {
        Self::with_clock(61_000_000)
    }

    /// A box whose clock reads `clock_us`.
    fn with_clock(clock_us: u64) -> SoftBox {
        let store = Arc::new(AsyncMutex::new(MemoryLibrary::new()));
        // It runs on this laptop: 127.0.0.1 is a target it can reach.
        let device = Arc::new(Mutex::new(RecordingPlayback {
            clock_us,
            address: Some([127, 0, 0, 1]),
            laptop: true,
            ..RecordingPlayback::default()
        }));
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let (shared, recorder) = (store.clone(), device.clone());
        std::thread::spawn(move || {
            let penalties = Penalties::new();
            let control = Control {
                firmware: "soft-0.1.0",
                library: &shared,
                penalties: &penalties,
                limits: LIMITS,
                finish: llv_control::InPlace,
            };
            let mut buffers = ConnectionBuffers::new();
            // One connection at a time, in order, like one of the box's listeners.
            for stream in listener.incoming().take(MAX_CONNECTIONS).flatten() {
                stream.set_read_timeout(Some(TIMEOUT)).unwrap();
                let source = match stream.peer_addr().map(|a| a.ip()) {
                    Ok(IpAddr::V4(ip)) => ip.octets(),
                    _ => [0; 4],
                };
                block_on(serve_connection(
                    &mut Stream(stream),
                    source,
                    &control,
                    &mut SharedPlayback(recorder.clone()),
                    &mut buffers,
                    &(),
                ));
            }
        });
        SoftBox {
            addr,
            store,
            device,
        }
    }

    fn llv(&self, args: &[&str]) -> assert_cmd::assert::Assert {
        llv_tests::llv().args(args).timeout(TIMEOUT).assert()
    }

    fn json(&self, args: &[&str]) -> Value {
        let out = self.llv(args).success().get_output().stdout.clone();
        serde_json::from_slice(&out).unwrap()
    }

    fn addr(&self) -> String {
        self.addr.to_string()
    }

    /// What the box plays: take, targets, loop count, start.
    fn playing(&self) -> Option<(String, Vec<Target>, u32, Start)> {
        self.device.lock().unwrap().playing.clone()
    }
}

fn dao() -> String {
    example("dao.gesichter").display().to_string()
}

#[test]
fn flash_lists_the_same_crc_and_the_box_holds_every_packet() {
    let b = SoftBox::start();
    let flashed = b.json(&["flash", &dao(), "--box", &b.addr(), "--json"]);
    assert_eq!(flashed["name"], "dao");
    assert_eq!(flashed["frames"], 180);
    let packets = llv_packets(&example("dao.gesichter"));
    let bytes = 64 + 8 * packets.len() + packets.iter().map(Vec::len).sum::<usize>();
    assert_eq!(flashed["bytes"], bytes);

    let list = b.json(&["box", &b.addr(), "list", "--json"]);
    assert_eq!(list.as_array().unwrap().len(), 1);
    assert_eq!(list[0]["name"], "dao");
    assert_eq!(list[0]["crc32"], flashed["crc32"]);
    assert_eq!(list[0]["frame_count"], 180);
    assert_eq!(list[0]["period_us"], 3_118_589, "the take's length");
    // Its length in seconds and its average rate (180 frames in 3.12 s).
    b.llv(&["box", &b.addr(), "list"])
        .success()
        .stdout(contains("SECONDS      HZ"))
        .stdout(contains("dao"))
        .stdout(contains("      3.12   57.72  "));

    // The stored take plays back the recording's packets, in order, with rising times.
    let (take, place) =
        block_on(async { b.store.lock().await.open(TakeRef::parse("dao")).await }).unwrap();
    assert_eq!(place, Place::Internal);
    let image = llv_core::take::TakeImage::parse(&take.image).unwrap();
    assert_eq!(image.frames().count(), packets.len());
    let mut previous = 0;
    for (i, (packet, (entry, stored))) in packets.iter().zip(image.frames()).enumerate() {
        assert_eq!(stored, &packet[..], "frame {i}");
        assert!(entry.time_us >= previous);
        previous = entry.time_us;
    }
    // The last frame plays at its own frame time after the first (the take has gaps).
    let time = |p: &[u8]| llv_core::packet::Packet::new_checked(p).unwrap().time();
    let span = time(&packets[179])
        .seconds_since(&time(&packets[0]))
        .unwrap();
    assert!(
        (f64::from(previous) - span * 1e6).abs() <= 1.0,
        "{previous} µs vs {span} s"
    );
}

#[test]
fn native_lines_give_the_same_image_as_llv_gzip() {
    let b = SoftBox::start();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("dao-lines.gesichter");
    let mut text = String::from("# native recording\n");
    for p in llv_packets(&example("dao.gesichter")) {
        let mut line = [0u8; llv_core::line::MAX_LINE_LEN];
        text += llv_core::line::encode(&p, &mut line).unwrap();
        text += "\r\n";
    }
    std::fs::write(&path, text).unwrap();
    let gz = b.json(&["flash", &dao(), "--box", &b.addr(), "--json"]);
    let lines = b.json(&[
        "flash",
        path.to_str().unwrap(),
        "--box",
        &b.addr(),
        "--name",
        "dao",
        "--json",
    ]);
    assert_eq!(gz["crc32"], lines["crc32"]);
    // Same name: the second upload replaced the first.
    assert_eq!(
        b.json(&["box", &b.addr(), "list", "--json"])
            .as_array()
            .unwrap()
            .len(),
        1
    );
}

#[test]
fn play_stop_delete_and_status() {
    let b = SoftBox::start();
    b.llv(&["flash", &dao(), "--box", &b.addr(), "--name", "take one"])
        .success();
    b.llv(&[
        "box",
        &b.addr(),
        "play",
        "take one",
        "--to",
        "127.0.0.1:9000",
        "--to",
        "127.0.0.1",
        "--loop",
    ])
    .success();
    let (name, targets, loops, start) = b.playing().unwrap();
    assert_eq!(name, "take one");
    assert_eq!((loops, start), (0, Start::Now));
    assert_eq!(
        targets,
        [
            Target {
                ip: [127, 0, 0, 1],
                port: 9000
            },
            Target {
                ip: [127, 0, 0, 1],
                port: 11111
            }
        ]
    );
    let status = b.json(&["box", &b.addr(), "status", "--json"]);
    assert_eq!(status["playing"]["take"], "take one");
    assert_eq!(status["firmware"], "soft-0.1.0");
    // The one take's image (dao: 180 frames, 59 104 bytes).
    assert_eq!(status["used_bytes"], 59_104);
    b.llv(&["box", &b.addr(), "status"])
        .success()
        .stdout(contains("up 0:01:01"));

    // Without --to and no configured targets the box refuses.
    b.llv(&["box", &b.addr(), "play", "take one"])
        .failure()
        .stderr(contains("no targets given and none configured"));
    // Following timecode, as asked.
    b.llv(&[
        "box",
        &b.addr(),
        "play",
        "take one",
        "--to",
        "127.0.0.1",
        "--chase",
        "--offset",
        "01:00:00:12",
        "--freewheel",
        "2",
        "--hold",
    ])
    .success()
    .stdout(contains("following Art-Net timecode from 01:00:00:12"));
    assert_eq!(
        b.playing().unwrap().3,
        Start::Chase(ChaseSpec {
            offset: TimecodeLabel::parse("01:00:00:12"),
            stream: 0,
            freewheel_ms: 2000,
            hold: true,
        })
    );
    b.llv(&[
        "box",
        &b.addr(),
        "play",
        "take one",
        "--offset",
        "01:00:00:00",
    ])
    .failure()
    .stderr(contains("--chase"));
    b.llv(&["box", &b.addr(), "stop"]).success();
    assert!(b.playing().is_none());
    b.llv(&["box", &b.addr(), "delete", "take one"]).success();
    assert_eq!(
        b.json(&["box", &b.addr(), "list", "--json"]),
        serde_json::json!([])
    );
    b.llv(&["box", &b.addr(), "delete", "take one"])
        .failure()
        .stderr(contains("no take named \"take one\""));
}

#[test]
fn config_round_trips_and_a_token_locks_the_box() {
    let b = SoftBox::start();
    b.llv(&[
        "box",
        &b.addr(),
        "config",
        "targets",
        "127.0.0.1:7000,127.0.0.1",
        "autoplay",
        "dao",
        "autoplay-loops",
        "3",
        "subject",
        "Face",
        "address",
        "10.0.0.2/24,10.0.0.1",
    ])
    .success();
    let c = b.json(&["box", &b.addr(), "config", "--json"]);
    assert_eq!(c["settings"]["autoplay"]["take"], "dao");
    assert_eq!(c["settings"]["autoplay"]["loop_count"], 3);
    assert_eq!(c["settings"]["targets"][1]["port"], 11111);
    assert_eq!(c["settings"]["subject"], "Face");
    assert_eq!(c["settings"]["address"]["prefix_len"], 24);
    assert_eq!(c["token_set"], false);
    b.llv(&["box", &b.addr(), "config", "address", "10.0.0.2"])
        .failure()
        .stderr(contains("not IP/PREFIX"));

    b.llv(&["box", &b.addr(), "config", "token", "s3cret"])
        .success();
    b.llv(&["box", &b.addr(), "status"])
        .failure()
        .stderr(contains("this box needs a token"));
    b.llv(&["flash", &dao(), "--box", &b.addr()])
        .failure()
        .stderr(contains("refused the connection"));
    b.llv(&["box", &b.addr(), "list", "--token", "guess"])
        .failure()
        .stderr(contains("wrong token"));
    let c = b.json(&["box", &b.addr(), "--token", "s3cret", "config", "--json"]);
    assert_eq!(c["token_set"], true);
    assert_eq!(c["settings"]["token"], Value::Null);
    b.llv(&[
        "box",
        &b.addr(),
        "config",
        "token",
        "none",
        "--token",
        "s3cret",
    ])
    .success();
    b.llv(&["box", &b.addr(), "status"]).success();
}

fn exchange(stream: &mut TcpStream, frame: &[u8]) -> Response {
    stream.write_all(frame).unwrap();
    let mut prefix = [0u8; PREFIX_LEN];
    stream.read_exact(&mut prefix).unwrap();
    let mut body = vec![0u8; body_len(prefix)];
    stream.read_exact(&mut body).unwrap();
    decode(&body).unwrap()
}

fn framed(request: &Request<'_>) -> Vec<u8> {
    let mut buf = [0u8; FRAME_BUF];
    encode(request, &mut buf).unwrap().to_vec()
}

fn error_code(r: &Response) -> Option<ErrorCode> {
    match r {
        Response::Error { code, .. } => Some(*code),
        _ => None,
    }
}

#[test]
fn garbage_oversized_and_old_hosts_get_errors_and_the_box_goes_on() {
    let b = SoftBox::start();
    let mut s = TcpStream::connect(b.addr).unwrap();
    s.set_read_timeout(Some(TIMEOUT)).unwrap();
    let old = framed(&Request::Hello {
        protocol: PROTOCOL_VERSION + 1,
        token: None,
    });
    let r = exchange(&mut s, &old);
    assert_eq!(error_code(&r), Some(ErrorCode::ProtocolMismatch), "{r:?}");
    // A refused Hello ends the connection.
    let mut rest = Vec::new();
    assert_eq!(s.read_to_end(&mut rest).unwrap(), 0);
    let mut s = TcpStream::connect(b.addr).unwrap();
    s.set_read_timeout(Some(TIMEOUT)).unwrap();
    let hello = framed(&Request::Hello {
        protocol: PROTOCOL_VERSION,
        token: None,
    });
    assert!(matches!(exchange(&mut s, &hello), Response::Hello { .. }));

    let r = exchange(&mut s, &[3, 0, 0xFF, 0xFF, 0xFF]);
    assert_eq!(error_code(&r), Some(ErrorCode::BadRequest), "{r:?}");
    let mut oversized = vec![0xFF, 0xFF];
    oversized.extend(std::iter::repeat_n(0xAB, 0xFFFF));
    let r = exchange(&mut s, &oversized);
    assert_eq!(error_code(&r), Some(ErrorCode::TooLarge), "{r:?}");
    assert!(matches!(
        exchange(&mut s, &framed(&Request::Status)),
        Response::Status(_)
    ));
    drop(s);
    // A half-sent upload on a dropped connection leaves nothing behind.
    let mut s = TcpStream::connect(b.addr).unwrap();
    s.set_read_timeout(Some(TIMEOUT)).unwrap();
    exchange(&mut s, &hello);
    let image = llv_control::mock::synthetic_image("half", 16, 3);
    let header = llv_core::take::TakeHeader::parse(&image).unwrap();
    let begin = framed(&Request::UploadBegin {
        name: "half",
        total_len: header.total_len,
        crc32: header.crc32,
        place: llv_core::control::Place::Internal,
    });
    assert_eq!(exchange(&mut s, &begin), Response::Ok);
    let chunk = framed(&Request::UploadChunk {
        offset: 0,
        data: &image[..1000],
    });
    assert_eq!(exchange(&mut s, &chunk), Response::Ok);
    drop(s);
    b.llv(&["box", &b.addr(), "status"]).success();
    assert_eq!(
        b.json(&["box", &b.addr(), "list", "--json"]),
        serde_json::json!([])
    );
}

#[test]
fn status_shows_faults_and_how_to_recover() {
    let b = SoftBox::start();
    b.device
        .lock()
        .unwrap()
        .faults
        .push(llv_core::control::Fault {
            code: llv_core::control::FaultCode::WatchdogReset,
            detail: "restarted by the watchdog after a hang".try_into().unwrap(),
        })
        .unwrap();
    b.llv(&["box", &b.addr(), "status"])
        .success()
        .stdout(contains(
            "fault    WatchdogReset: restarted by the watchdog after a hang",
        ));
    let status = b.json(&["box", &b.addr(), "status", "--json"]);
    assert_eq!(status["faults"][0]["code"], "WatchdogReset");
}

#[test]
fn together_starts_every_box_at_one_instant_on_its_own_clock() {
    let (a, b) = (
        SoftBox::with_clock(5_000_000),
        SoftBox::with_clock(900_000_000),
    );
    for sb in [&a, &b] {
        sb.llv(&["flash", &dao(), "--box", &sb.addr(), "--name", "take one"])
            .success();
    }
    let out = a.json(&[
        "box",
        &a.addr(),
        &b.addr(),
        "play",
        "take one",
        "--to",
        "127.0.0.1",
        "--together",
        "--json",
    ]);
    let ahead = out["start_in_us"].as_u64().unwrap();
    assert!(ahead >= 300_000, "{out}");
    // Each clock stands still here: its start is `ahead` past its reading,
    // give or take the round trips.
    let lead = |sb: &SoftBox, clock: u64| match sb.playing().unwrap().3 {
        Start::At(at) => at as i64 - clock as i64,
        other => panic!("{other:?}"),
    };
    let (la, lb) = (lead(&a, 5_000_000), lead(&b, 900_000_000));
    for l in [la, lb] {
        assert!((l - ahead as i64).abs() < 100_000, "{l} vs {ahead}");
    }
    a.llv(&["box", &a.addr(), &b.addr(), "stop"]).success();
    assert!(a.playing().is_none() && b.playing().is_none());
}
