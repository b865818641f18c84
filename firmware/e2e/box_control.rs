//! End to end: the box under QEMU with its take store on a flash file
//! (`flash=PATH`, a semihosted NOR flash), driven over its control port
//! (forwarded from 127.0.0.1) by the real `llv` binary.
//!
//! Checks: `llv flash` stores a take that `llv box list` shows with the same
//! CRC; `llv box play` sends every packet byte-identical to a UDP socket of
//! this test; the take is still there after a restart on the same file; a
//! power cut (QEMU killed) in the middle of a second upload leaves the first
//! take intact and no trace of the second; an autoplay take plays at power-up
//! without any command; a subject rename changes only the subject; garbage and
//! oversized frames get error responses and the box goes on serving.
//! Every wait is bounded; QEMU is killed on drop.
//!
//! Needs `qemu-system-arm` and the `thumbv7em-none-eabihf` target (see
//! `box_qemu.rs`). Lives in the root `tests` crate.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream, UdpSocket};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use llv_core::control::{
    body_len, decode, encode, ErrorCode, Request, Response, MAX_FRAME, PREFIX_LEN, PROTOCOL_VERSION,
};
use llv_core::packet::FaceFrame;
use llv_tests::{example, llv, llv_packets};
use serde_json::Value;

#[path = "qemu.rs"]
mod qemu;
use qemu::{build_firmware, repo_root, spawn_box, KillOnDrop};

/// Bound for one `llv` command, one control exchange, or one boot.
const TIMEOUT: Duration = Duration::from_secs(30);
/// Bound for receiving one take (3 s of playback) after it was asked for.
const PLAY_TIMEOUT: Duration = Duration::from_secs(20);

/// The QEMU firmware, built once per test process.
fn firmware() -> &'static Path {
    static ELF: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    ELF.get_or_init(|| build_firmware(&repo_root()))
}

/// A free TCP port on 127.0.0.1 (for QEMU's forward of the control port).
fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// One control frame of `request`.
fn framed(request: &Request<'_>) -> Vec<u8> {
    let mut buf = vec![0u8; PREFIX_LEN + MAX_FRAME];
    encode(request, &mut buf).unwrap().to_vec()
}

/// Sends `frame` and reads one response frame.
fn exchange(stream: &mut TcpStream, frame: &[u8]) -> std::io::Result<Response> {
    stream.write_all(frame)?;
    let mut prefix = [0u8; PREFIX_LEN];
    stream.read_exact(&mut prefix)?;
    let mut body = vec![0u8; body_len(prefix)];
    stream.read_exact(&mut body)?;
    decode(&body).map_err(|e| std::io::Error::other(format!("{e:?}")))
}

fn hello() -> Vec<u8> {
    framed(&Request::Hello {
        protocol: PROTOCOL_VERSION,
        token: None,
    })
}

/// A control connection that has said Hello.
fn connect(port: u16) -> std::io::Result<TcpStream> {
    let mut stream = TcpStream::connect(("127.0.0.1", port))?;
    stream.set_read_timeout(Some(TIMEOUT))?;
    match exchange(&mut stream, &hello())? {
        Response::Hello { .. } => Ok(stream),
        other => Err(std::io::Error::other(format!("Hello answered {other:?}"))),
    }
}

/// The box under QEMU with its flash file.
struct QemuBox {
    _qemu: KillOnDrop,
    port: u16,
}

impl QemuBox {
    /// Boots the box on `flash` and waits until its control port answers.
    fn boot(flash: &Path) -> QemuBox {
        let port = free_port();
        let mut qemu = spawn_box(
            firmware(),
            &format!(",hostfwd=tcp:127.0.0.1:{port}-:11113"),
            &format!("flash={}", flash.display()),
        );
        let end = Instant::now() + TIMEOUT;
        // QEMU accepts on the forwarded port before the guest listens: only a
        // Hello answered proves the box is up.
        loop {
            if connect(port).is_ok() {
                return QemuBox { _qemu: qemu, port };
            }
            if let Some(status) = qemu.0.try_wait().unwrap() {
                panic!("QEMU exited during boot: {status}");
            }
            assert!(
                Instant::now() < end,
                "the box did not answer within {TIMEOUT:?}"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    fn addr(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    /// Runs `llv` with `args` (where `{box}` stands for the box's address).
    fn llv(&self, args: &[&str]) -> assert_cmd::assert::Assert {
        let addr = self.addr();
        let args: Vec<&str> = args
            .iter()
            .map(|a| if *a == "{box}" { addr.as_str() } else { a })
            .collect();
        llv().args(&args).timeout(TIMEOUT).assert()
    }

    fn json(&self, args: &[&str]) -> Value {
        let out = self.llv(args).success().get_output().stdout.clone();
        serde_json::from_slice(&out).expect("llv printed JSON")
    }
}

/// A UDP receiver on 127.0.0.1 and the target the guest reaches it by.
fn receiver() -> (UdpSocket, String) {
    let socket = UdpSocket::bind("127.0.0.1:0").unwrap();
    socket
        .set_read_timeout(Some(Duration::from_millis(100)))
        .unwrap();
    let target = format!("10.0.2.2:{}", socket.local_addr().unwrap().port());
    (socket, target)
}

/// Up to `count` datagrams, waiting at most `limit` in all.
fn receive(socket: &UdpSocket, count: usize, limit: Duration) -> Vec<Vec<u8>> {
    let end = Instant::now() + limit;
    let mut got = Vec::new();
    let mut buf = [0u8; 2048];
    while got.len() < count && Instant::now() < end {
        match socket.recv(&mut buf) {
            Ok(n) => got.push(buf[..n].to_vec()),
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) => {}
            Err(e) => panic!("recv: {e}"),
        }
    }
    got
}

/// Asserts one datagram per expected packet arrived; names the missing frames if not.
fn assert_count(got: &[Vec<u8>], expected: &[Vec<u8>]) {
    let time = |p: &[u8]| FaceFrame::decode(p).map(|f| f.time.frame_number).ok();
    let got_times: Vec<_> = got.iter().map(|p| time(p)).collect();
    let missing: Vec<usize> = (0..expected.len())
        .filter(|&i| !got_times.contains(&time(&expected[i])))
        .collect();
    assert_eq!(
        got.len(),
        expected.len(),
        "packets received; frames missing (by index): {missing:?}"
    );
}

fn dao() -> String {
    example("dao.gesichter").display().to_string()
}

/// Flashes dao and returns its CRC as `llv flash` reported it.
fn flash_dao(b: &QemuBox) -> Value {
    let flashed = b.json(&["flash", &dao(), "--box", "{box}", "--json"]);
    assert_eq!(flashed["name"], "dao");
    assert_eq!(flashed["frames"], 180);
    flashed["crc32"].clone()
}

/// The box lists exactly `dao` with `crc`.
fn assert_only_dao(b: &QemuBox, crc: &Value) {
    let list = b.json(&["box", "{box}", "list", "--json"]);
    let takes = list.as_array().expect("a list");
    assert_eq!(takes.len(), 1, "{list}");
    assert_eq!(takes[0]["name"], "dao");
    assert_eq!(&takes[0]["crc32"], crc);
    assert_eq!(takes[0]["frame_count"], 180);
}

/// Plays dao once to a fresh receiver and checks every packet, byte-identical.
fn assert_plays_dao(b: &QemuBox) {
    let (socket, target) = receiver();
    b.llv(&["box", "{box}", "play", "dao", "--to", &target])
        .success();
    let expected = llv_packets(&example("dao.gesichter"));
    let got = receive(&socket, expected.len(), PLAY_TIMEOUT);
    assert_count(&got, &expected);
    for (i, (g, e)) in got.iter().zip(&expected).enumerate() {
        assert_eq!(g, e, "frame {i}");
    }
}

#[test]
fn flashed_take_plays_bit_exact_and_survives_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let flash = dir.path().join("flash.bin");
    let b = QemuBox::boot(&flash);
    let crc = flash_dao(&b);
    assert_only_dao(&b, &crc);
    assert_plays_dao(&b);
    let status = b.json(&["box", "{box}", "status", "--json"]);
    assert_eq!(
        status["address"],
        serde_json::json!([10, 0, 2, 15]),
        "{status}"
    );
    drop(b);

    let b = QemuBox::boot(&flash);
    assert_only_dao(&b, &crc);
    assert_plays_dao(&b);
}

#[test]
fn power_cut_during_an_upload_leaves_the_first_take_intact() {
    let dir = tempfile::tempdir().unwrap();
    let flash = dir.path().join("flash.bin");
    let b = QemuBox::boot(&flash);
    let crc = flash_dao(&b);

    // A second upload, cut after 20 KiB of 40: the image bytes do not matter
    // since it never commits.
    let mut s = connect(b.port).unwrap();
    let begin = framed(&Request::UploadBegin {
        name: "cut",
        total_len: 40 * 1024,
        crc32: 0x1234_5678,
    });
    assert_eq!(exchange(&mut s, &begin).unwrap(), Response::Ok);
    for i in 0..20u32 {
        let chunk = framed(&Request::UploadChunk {
            offset: i * 1024,
            data: &[0xA5; 1024],
        });
        assert_eq!(exchange(&mut s, &chunk).unwrap(), Response::Ok, "chunk {i}");
    }
    drop(b); // SIGKILL: the power cut.
    drop(s);

    let b = QemuBox::boot(&flash);
    assert_only_dao(&b, &crc);
    assert_plays_dao(&b);
    // The cut upload's blocks are free again.
    let status = b.json(&["box", "{box}", "status", "--json"]);
    assert_eq!(status["used_bytes"], 61440, "{status}");
}

#[test]
fn autoplay_take_plays_at_power_up() {
    let dir = tempfile::tempdir().unwrap();
    let flash = dir.path().join("flash.bin");
    let b = QemuBox::boot(&flash);
    flash_dao(&b);
    let (socket, target) = receiver();
    b.llv(&[
        "box",
        "{box}",
        "config",
        "targets",
        &target,
        "autoplay",
        "dao",
        "autoplay-loops",
        "1",
        "subject",
        "Renamed",
    ])
    .success();
    drop(b);

    // Receive while the box boots: the take starts before the control port
    // answers, and a socket left unread would overflow its buffer.
    let expected = llv_packets(&example("dao.gesichter"));
    let count = expected.len();
    let receiving = std::thread::spawn(move || receive(&socket, count, TIMEOUT + PLAY_TIMEOUT));
    let _b = QemuBox::boot(&flash);
    let got = receiving.join().unwrap();
    assert_count(&got, &expected);
    for (i, (g, e)) in got.iter().zip(&expected).enumerate() {
        let (g, e) = (FaceFrame::decode(g).unwrap(), FaceFrame::decode(e).unwrap());
        assert_eq!(g.subject, "Renamed", "frame {i}");
        assert_eq!(
            FaceFrame {
                subject: e.subject,
                ..g
            },
            e,
            "frame {i}: only the subject changes"
        );
    }
}

#[test]
fn garbage_and_oversized_frames_leave_the_box_serving() {
    let dir = tempfile::tempdir().unwrap();
    let b = QemuBox::boot(&dir.path().join("flash.bin"));
    let error_code = |r: Response| match r {
        Response::Error { code, .. } => Some(code),
        _ => None,
    };
    let mut s = connect(b.port).unwrap();
    let r = exchange(&mut s, &[3, 0, 0xFF, 0xFF, 0xFF]).unwrap();
    assert_eq!(error_code(r), Some(ErrorCode::BadRequest));
    let mut oversized = vec![0xFF, 0xFF];
    oversized.extend(std::iter::repeat_n(0xAB, 0xFFFF));
    let r = exchange(&mut s, &oversized).unwrap();
    assert_eq!(error_code(r), Some(ErrorCode::TooLarge));
    assert!(matches!(
        exchange(&mut s, &framed(&Request::Status)).unwrap(),
        Response::Status(_)
    ));
    // A connection dropped in the middle of a frame.
    s.write_all(&[0x00, 0x04, 1, 2, 3]).unwrap();
    drop(s);
    let status = b.json(&["box", "{box}", "status", "--json"]);
    assert_eq!(status["firmware"], "llv-box-qemu 0.1.0", "{status}");
}
