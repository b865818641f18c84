//! Shared by the QEMU tests of the box with a store (`box_control.rs`,
//! `box_faults.rs`): boot a box on a flash file with its control port
//! forwarded to 127.0.0.1, talk to it, receive what it plays. Every wait is
//! bounded; QEMU is killed on drop.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream, UdpSocket};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::{example, llv, llv_packets};
use llv_core::control::{
    body_len, decode, encode, Request, Response, MAX_FRAME, PREFIX_LEN, PROTOCOL_VERSION,
};
use llv_core::packet::FaceFrame;
use serde_json::Value;

use crate::files::repo_root;
use crate::qemu::{build_firmware, spawn_box, QemuBox as Qemu};

/// Bound for one `llv` command, one control exchange, or one boot.
pub const TIMEOUT: Duration = Duration::from_secs(30);
/// Bound for receiving one take (3 s of playback) after it was asked for.
pub const PLAY_TIMEOUT: Duration = Duration::from_secs(20);

/// The QEMU firmware, built once per test process.
pub fn firmware() -> &'static Path {
    static ELF: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    ELF.get_or_init(|| build_firmware(&repo_root()))
}

/// A free TCP port on 127.0.0.1 (for QEMU's forward of the control port).
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// One control frame of `request`.
pub fn framed(request: &Request<'_>) -> Vec<u8> {
    let mut buf = vec![0u8; PREFIX_LEN + MAX_FRAME];
    encode(request, &mut buf).unwrap().to_vec()
}

/// Sends `frame` and reads one response frame.
pub fn exchange(stream: &mut TcpStream, frame: &[u8]) -> std::io::Result<Response> {
    stream.write_all(frame)?;
    let mut prefix = [0u8; PREFIX_LEN];
    stream.read_exact(&mut prefix)?;
    let mut body = vec![0u8; body_len(prefix)];
    stream.read_exact(&mut body)?;
    decode(&body).map_err(|e| std::io::Error::other(format!("{e:?}")))
}

pub fn hello() -> Vec<u8> {
    framed(&Request::Hello {
        protocol: PROTOCOL_VERSION,
        token: None,
    })
}

/// A control connection that has said Hello.
pub fn connect(port: u16) -> std::io::Result<TcpStream> {
    let mut stream = TcpStream::connect(("127.0.0.1", port))?;
    stream.set_read_timeout(Some(TIMEOUT))?;
    match exchange(&mut stream, &hello())? {
        Response::Hello { .. } => Ok(stream),
        other => Err(std::io::Error::other(format!("Hello answered {other:?}"))),
    }
}

/// A port free on 127.0.0.1 for both UDP and TCP (QEMU forwards OSC on both).
pub fn free_port_both() -> u16 {
    loop {
        let port = free_port();
        if UdpSocket::bind(("127.0.0.1", port)).is_ok() {
            return port;
        }
    }
}

/// A free UDP port on 127.0.0.1.
pub fn free_udp_port() -> u16 {
    UdpSocket::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// The box under QEMU with its flash file.
pub struct QemuBox {
    pub qemu: Qemu,
    /// The control port, forwarded to 127.0.0.1.
    pub port: u16,
    /// The OSC port (UDP and TCP), forwarded to 127.0.0.1.
    pub osc: u16,
    /// The mDNS port (UDP 5353), forwarded to 127.0.0.1.
    pub mdns: u16,
    /// The Art-Net timecode port (UDP 6454), forwarded to 127.0.0.1.
    pub artnet: u16,
    /// The HTTP port (TCP 80: the page and its API), forwarded to 127.0.0.1.
    pub http: u16,
    /// The live relay's port (UDP 11111), forwarded to 127.0.0.1.
    pub live: u16,
}

impl QemuBox {
    /// Boots the box on `flash` and waits until its control port answers.
    pub fn boot(flash: &Path) -> QemuBox {
        QemuBox::boot_with(firmware(), flash, "")
    }

    /// Boots `elf` on `flash` with the other command-line words `words`, and
    /// waits until its control port answers. Its OSC, mDNS and Art-Net ports
    /// and HTTP ports are forwarded too. The forwarded port is picked free
    /// just before QEMU starts; should another process take it in between,
    /// QEMU cannot forward it and exits, and the boot is tried again on
    /// another port (at most three times).
    pub fn boot_with(elf: &Path, flash: &Path, words: &str) -> QemuBox {
        for _ in 0..3 {
            let ports = (
                free_port(),
                free_port_both(),
                free_udp_port(),
                free_udp_port(),
                free_port(),
                free_udp_port(),
            );
            if let Some(b) = Self::boot_on(elf, flash, words, ports) {
                return b;
            }
            eprintln!("QEMU exited during boot: trying other ports");
        }
        panic!("QEMU exited during three boots");
    }

    /// Stops this box (a power cut) and boots `elf` on `flash` with `words`
    /// again on the same host ports, as a box power-cycled on a bench comes
    /// back at its address; tries three times should QEMU not get a port
    /// back at once.
    pub fn power_cycle(self, elf: &Path, flash: &Path, words: &str) -> QemuBox {
        self.power_cycle_timed(elf, flash, words).0
    }

    /// [`QemuBox::power_cycle`], and the instant the old QEMU was gone (the
    /// power cut's moment, before the boot that follows).
    pub fn power_cycle_timed(self, elf: &Path, flash: &Path, words: &str) -> (QemuBox, Instant) {
        let ports = (
            self.port,
            self.osc,
            self.mdns,
            self.artnet,
            self.http,
            self.live,
        );
        drop(self);
        let cut = Instant::now();
        for _ in 0..3 {
            if let Some(b) = Self::boot_on(elf, flash, words, ports) {
                return (b, cut);
            }
            std::thread::sleep(Duration::from_millis(500));
        }
        panic!("QEMU did not boot again on its ports three times");
    }

    /// One boot on the host ports `(control, osc, mdns, artnet, http, live)`; `None` if
    /// QEMU exited (it could not forward a port).
    fn boot_on(
        elf: &Path,
        flash: &Path,
        words: &str,
        (port, osc, mdns, artnet, http, live): (u16, u16, u16, u16, u16, u16),
    ) -> Option<QemuBox> {
        let mut qemu = spawn_box(
            elf,
            &format!(
                ",hostfwd=tcp:127.0.0.1:{port}-:11113,hostfwd=tcp:127.0.0.1:{osc}-:11114,\
                 hostfwd=udp:127.0.0.1:{osc}-:11114,hostfwd=udp:127.0.0.1:{mdns}-:5353,\
                 hostfwd=udp:127.0.0.1:{artnet}-:6454,hostfwd=tcp:127.0.0.1:{http}-:80,\
                 hostfwd=udp:127.0.0.1:{live}-:11111"
            ),
            &format!("flash={} {words}", flash.display()),
        );
        let end = Instant::now() + TIMEOUT;
        // QEMU accepts on the forwarded port before the guest listens, and a
        // connection the guest did not answer waits for QEMU's TCP to try
        // again (3 s, then 6 s): so first the box's log says its control
        // port is up, then only a Hello answered proves it.
        loop {
            let listening = qemu
                .wait_for_line(Duration::from_millis(100), |l| l.contains("control port"))
                .is_some();
            if listening && connect(port).is_ok() {
                return Some(QemuBox {
                    qemu,
                    port,
                    osc,
                    mdns,
                    artnet,
                    http,
                    live,
                });
            }
            if let Some(status) = qemu.child().try_wait().unwrap() {
                eprintln!("QEMU exited during boot ({status})");
                return None;
            }
            assert!(
                Instant::now() < end,
                "the box did not answer within {TIMEOUT:?}"
            );
            if listening {
                std::thread::sleep(Duration::from_millis(100));
            }
        }
    }

    pub fn addr(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    /// Runs `llv` with `args` (where `{box}` stands for the box's address).
    pub fn llv(&self, args: &[&str]) -> assert_cmd::assert::Assert {
        let addr = self.addr();
        let args: Vec<&str> = args
            .iter()
            .map(|a| if *a == "{box}" { addr.as_str() } else { a })
            .collect();
        llv().args(&args).timeout(TIMEOUT).assert()
    }

    /// The box's status once `ready` holds, or the last one after `limit`
    /// (a command the box answered reaches its player a moment later).
    pub fn status_when(&self, limit: Duration, ready: impl Fn(&Value) -> bool) -> Value {
        let end = Instant::now() + limit;
        loop {
            let status = self.json(&["box", "{box}", "status", "--json"]);
            if ready(&status) || Instant::now() > end {
                return status;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    pub fn json(&self, args: &[&str]) -> Value {
        let out = self.llv(args).success().get_output().stdout.clone();
        serde_json::from_slice(&out).expect("llv printed JSON")
    }
}

/// A UDP receiver on 127.0.0.1 and the target the guest reaches it by.
pub fn receiver() -> (UdpSocket, String) {
    let socket = UdpSocket::bind("127.0.0.1:0").unwrap();
    socket
        .set_read_timeout(Some(Duration::from_millis(100)))
        .unwrap();
    let target = format!("10.0.2.2:{}", socket.local_addr().unwrap().port());
    (socket, target)
}

/// Up to `count` datagrams, waiting at most `limit` in all.
pub fn receive(socket: &UdpSocket, count: usize, limit: Duration) -> Vec<Vec<u8>> {
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
pub fn assert_count(got: &[Vec<u8>], expected: &[Vec<u8>]) {
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

pub fn dao() -> String {
    example("dao.gesichter").display().to_string()
}

/// Flashes dao and returns its CRC as `llv flash` reported it.
pub fn flash_dao(b: &QemuBox) -> Value {
    let flashed = b.json(&["flash", &dao(), "--box", "{box}", "--json"]);
    assert_eq!(flashed["name"], "dao");
    assert_eq!(flashed["frames"], 180);
    flashed["crc32"].clone()
}

/// The box lists exactly `dao` with `crc`.
pub fn assert_only_dao(b: &QemuBox, crc: &Value) {
    let list = b.json(&["box", "{box}", "list", "--json"]);
    let takes = list.as_array().expect("a list");
    assert_eq!(takes.len(), 1, "{list}");
    assert_eq!(takes[0]["name"], "dao");
    assert_eq!(&takes[0]["crc32"], crc);
    assert_eq!(takes[0]["frame_count"], 180);
}

/// Plays dao once to a fresh receiver and checks every packet, byte-identical.
pub fn assert_plays_dao(b: &QemuBox) {
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
