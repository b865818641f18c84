//! Recorder throughput on loopback: `cargo bench -p llv --bench record`.
//! A sender paces 320-byte frames at rising rates for 2 s each; the recorder
//! (the library's `record`, writing a real file) must keep every one. Prints
//! received / sent per rate and the highest rate with zero loss.

mod common;

use std::fs::File;
use std::io::BufWriter;
use std::net::{SocketAddr, UdpSocket};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use llv::capture::{bind, record, Limit};

const SECONDS: f64 = 2.0;

fn main() {
    let take = common::take(1000);
    let packets: Vec<Vec<u8>> = take.packets().map(<[u8]>::to_vec).collect();
    let dir = tempfile::tempdir().expect("temp dir");
    let mut best = 0;
    for rate in [10_000u64, 20_000, 40_000, 80_000, 160_000, 320_000, 640_000] {
        let (socket, granted) = bind(SocketAddr::from(([127, 0, 0, 1], 0))).expect("bind recorder");
        let addr = socket.local_addr().expect("address");
        let path = dir.path().join(format!("r{rate}.gesichter"));
        let stop = Arc::new(AtomicBool::new(false));
        let stop_recorder = Arc::clone(&stop);
        let recorder = thread::spawn(move || {
            let mut out = BufWriter::with_capacity(1 << 16, File::create(&path).expect("file"));
            record(
                &socket,
                &mut out,
                Limit::default(),
                None,
                &stop_recorder,
                |_| {},
            )
            .expect("record")
        });
        let sending = Instant::now();
        let sent = send(&packets, addr, rate);
        let achieved = sent as f64 / sending.elapsed().as_secs_f64();
        thread::sleep(Duration::from_millis(300));
        stop.store(true, Ordering::SeqCst);
        let counts = recorder.join().expect("recorder");
        let lost = sent - counts.frames;
        println!(
            "record at {rate} packets/s (achieved {achieved:.0}): sent {sent}, recorded {}, lost {lost} (receive buffer {} KiB)",
            counts.frames,
            granted / 1024
        );
        if lost == 0 {
            best = best.max(achieved as u64);
        }
    }
    println!("highest achieved rate with zero loss: {best} packets/s");
}

/// Sends at `rate` per second for SECONDS, in 1 ms batches at absolute deadlines.
fn send(packets: &[Vec<u8>], to: SocketAddr, rate: u64) -> u64 {
    let socket = UdpSocket::bind("127.0.0.1:0").expect("sender");
    let total = (rate as f64 * SECONDS) as u64;
    let start = Instant::now();
    let mut sent = 0u64;
    while sent < total {
        let due = ((start.elapsed().as_secs_f64() * rate as f64) as u64 + 1).min(total);
        while sent < due {
            socket
                .send_to(&packets[sent as usize % packets.len()], to)
                .expect("send");
            sent += 1;
        }
        thread::sleep(Duration::from_micros(500));
    }
    sent
}
