//! Benchmark: the chase error of the one chase engine in its three homes,
//! side by side: `llv play --chase`, `llv serve` (driven by `llv box ...
//! play --chase`) and the box under QEMU, each chasing the same 30 fps
//! Art-Net master with the real phone take (`alex_rom_3.csv`'s first 60 s:
//! 30 Hz numbered at 60 fps) at its own timecode. Prints, for each, the
//! frames that arrived (of 1800, in order or not) and each frame's arrival
//! against the moment the master's timecode reached it: p50, p99, |p99|, ms.
//! `cargo bench -p llv-tests --bench chase_error` (needs qemu-system-arm).

use std::io::{BufRead, BufReader};
use std::net::UdpSocket;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use llv_core::artnet::TimecodeKind;
use llv_tests::flash_box::{firmware, free_udp_port, receiver, QemuBox, TIMEOUT};
use llv_tests::phone::{phone_take, TakeFrames};
use llv_tests::show::Serve;
use llv_tests::sync::{quantile, Master};
use llv_tests::{interrupt, llv, llv_path};

const KIND: TimecodeKind = TimecodeKind::Smpte30;
/// Frames of the take: 60 s.
const ROWS: usize = 1800;

fn main() {
    let dir = tempfile::tempdir().unwrap();
    let take = phone_take(dir.path(), "phone.csv", ROWS, None);
    let frames = TakeFrames::of(&take, dir.path());
    let start = KIND.rate().count_of((13, 13, 3, 0)).unwrap();
    let master = Master {
        start,
        frames: 64 * 30,
        dropout: None,
        jump: None,
    };

    // llv play --chase.
    let (socket, rx) = local_receiver();
    let tc = free_udp_port();
    let mut child = start_play(&take, tc, &rx);
    report("llv play --chase", &frames, &master, tc, &socket);
    interrupt(&child);
    child.wait().unwrap();

    // llv serve, told to chase by llv box.
    let folder = tempfile::tempdir().unwrap();
    let tc = free_udp_port();
    let serve = Serve::start(
        folder.path(),
        &[
            "--bind",
            "127.0.0.1",
            "--no-discovery",
            "--artnet-port",
            &tc.to_string(),
        ],
    );
    let addr = serve.addr();
    box_command(&[
        "flash",
        take.to_str().unwrap(),
        "--box",
        &addr,
        "--name",
        "phone",
    ]);
    let (socket, rx) = local_receiver();
    box_command(&["box", &addr, "play", "phone", "--chase", "--to", &rx]);
    report("llv serve", &frames, &master, tc, &socket);
    drop(serve);

    // The box under QEMU.
    let b = QemuBox::boot_with(firmware(), &dir.path().join("flash.bin"), "erase_ms=0");
    b.llv(&[
        "flash",
        take.to_str().unwrap(),
        "--box",
        "{box}",
        "--name",
        "phone",
    ])
    .success();
    let (socket, target) = receiver();
    b.llv(&["box", "{box}", "play", "phone", "--chase", "--to", &target])
        .success();
    report("box (QEMU)", &frames, &master, b.artnet, &socket);
}

/// A receiver on 127.0.0.1 and its address.
fn local_receiver() -> (UdpSocket, String) {
    let socket = UdpSocket::bind("127.0.0.1:0").unwrap();
    socket
        .set_read_timeout(Some(Duration::from_millis(100)))
        .unwrap();
    let addr = socket.local_addr().unwrap().to_string();
    (socket, addr)
}

/// `llv play TAKE --chase artnet:PORT --to RX`, once it waits for timecode.
fn start_play(take: &Path, tc: u16, rx: &str) -> Child {
    let mut child = Command::new(llv_path())
        .arg("play")
        .arg(take)
        .args(["--chase", &format!("artnet:{tc}"), "--to", rx])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let waiting = lines
        .by_ref()
        .map_while(Result::ok)
        .any(|l| l == "chase: waiting for timecode");
    assert!(waiting, "llv play never waited for timecode");
    // Keep reading what it says so it never blocks on a full pipe.
    std::thread::spawn(move || lines.map_while(Result::ok).for_each(drop));
    child
}

fn box_command(args: &[&str]) {
    llv().args(args).timeout(TIMEOUT).assert().success();
}

/// Runs `master` to UDP `tc` on 127.0.0.1, receives on `socket`, prints the figures.
fn report(who: &str, frames: &TakeFrames, master: &Master, tc: u16, socket: &UdpSocket) {
    let (t0, generator) = master.start(vec![tc]);
    let end = t0
        + Duration::from_micros(KIND.micros(u64::from(master.frames)))
        + Duration::from_millis(300);
    let got = frames.arrivals(socket, end);
    generator.join().unwrap();
    let offset = frames.own_place(KIND);
    let tc0 = KIND.micros(u64::from(master.start));
    let errors = frames.errors_ms(KIND, t0, tc0, offset, &got);
    let in_order = got.windows(2).all(|w| w[1].1 == w[0].1 + 1);
    let abs: Vec<f64> = errors.iter().map(|e| e.abs()).collect();
    println!(
        "{who}: {} of {ROWS} frames{}; chase error p50 {:+.2} ms, p99 {:+.2} ms, |p99| {:.2} ms",
        got.len(),
        if in_order {
            ", each once and in order"
        } else {
            ", NOT each once in order"
        },
        quantile(&errors, 0.5),
        quantile(&errors, 0.99),
        quantile(&abs, 0.99),
    );
}
