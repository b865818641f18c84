//! Playback pacing to a loopback receiver: `cargo bench -p llv --bench pacing`.
//!
//! Plays 661 frames (11 s) at 60 fps and prints the rate error in ppm and the
//! p50 / p99 / max interval between arrivals, taken from the kernel's receive
//! timestamps (`SO_TIMESTAMPNS`), so the receiver's own scheduling does not
//! count. Cases: a quiet machine (the take's frame times, then `--fps 60`), and
//! every core busy with a `yes` process (a laptop running Unreal beside `llv`),
//! at normal priority and, where the process may have it, real-time.
//! Goal: <= 50 ppm; p99 within 0.3 ms of 16.667 ms quiet, <= 17.0 ms busy.
//! Run it as an unprivileged user to see what users get without root:
//! `runuser -u nobody -- target/release/deps/pacing-*` after `--no-run`.

mod common;

use std::net::UdpSocket;
use std::os::fd::AsRawFd;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::AtomicBool;
use std::thread;
use std::time::Duration;

use indicatif::ProgressBar;
use llv::playback::{play, Options};
use llv::take::Take;
use llv_core::time::FrameRate;

const FRAMES: usize = 661;

fn main() {
    let take = common::take(FRAMES);
    let options = |fps, normal_priority| Options {
        fps,
        repeat: Some(1),
        normal_priority,
        ..Options::default()
    };
    run("quiet, frame times", &take, &options(None, false));
    run(
        "quiet, --fps 60",
        &take,
        &options(Some(FrameRate::FPS_60), false),
    );
    let cores = thread::available_parallelism().map_or(2, |n| n.get());
    let busy = Busy::start(cores);
    let label = format!("{cores} cores busy");
    run(
        &format!("{label}, normal priority"),
        &take,
        &options(None, true),
    );
    run(
        &format!("{label}, real-time if allowed"),
        &take,
        &options(None, false),
    );
    drop(busy);
}

/// One `yes > /dev/null` per core, killed on drop.
struct Busy(Vec<Child>);

impl Busy {
    fn start(n: usize) -> Busy {
        Busy(
            (0..n)
                .map(|_| {
                    Command::new("yes")
                        .stdout(Stdio::null())
                        .spawn()
                        .expect("spawn yes")
                })
                .collect(),
        )
    }
}

impl Drop for Busy {
    fn drop(&mut self) {
        for child in &mut self.0 {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// Plays `take` to a loopback receiver and prints the figures.
fn run(label: &str, take: &Take, options: &Options) {
    let receiver = UdpSocket::bind("127.0.0.1:0").expect("bind receiver");
    let target = receiver.local_addr().expect("receiver address");
    receiver
        .set_read_timeout(Some(Duration::from_secs(2)))
        .expect("timeout");
    let on: libc::c_int = 1;
    // SAFETY: setsockopt on a socket this function owns, with a c_int option value.
    let set = unsafe {
        libc::setsockopt(
            receiver.as_raw_fd(),
            libc::SOL_SOCKET,
            libc::SO_TIMESTAMPNS,
            (&on as *const libc::c_int).cast(),
            std::mem::size_of::<libc::c_int>() as libc::socklen_t,
        )
    };
    assert_eq!(set, 0, "SO_TIMESTAMPNS");
    let listener = thread::spawn(move || {
        let mut arrivals = Vec::with_capacity(FRAMES);
        while arrivals.len() < FRAMES {
            match kernel_timestamp(&receiver) {
                Some(t) => arrivals.push(t),
                None => break,
            }
        }
        arrivals
    });
    let stop = AtomicBool::new(false);
    let played = play(take, &[target], options, &stop, &ProgressBar::hidden()).expect("play");
    let arrivals = listener.join().expect("listener");
    report(label, &arrivals);
    println!(
        "  sender ({}): latest send {:.4} ms after its deadline, {} of {} sends more than 1 ms late",
        if played.real_time {
            "real-time priority"
        } else {
            "normal priority"
        },
        played.max_late.as_secs_f64() * 1e3,
        played.late_over_1ms,
        played.frames
    );
}

/// Receives one datagram and returns the kernel's arrival time in seconds
/// (`CLOCK_REALTIME`), or `None` on timeout.
fn kernel_timestamp(socket: &UdpSocket) -> Option<f64> {
    let mut buf = [0u8; 2048];
    let mut control = [0u64; 16];
    let mut iov = libc::iovec {
        iov_base: buf.as_mut_ptr().cast(),
        iov_len: buf.len(),
    };
    // SAFETY: an all-zero msghdr is valid; the pointers set below point to
    // buffers that live until recvmsg returns, with their true lengths.
    let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
    msg.msg_iov = &mut iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control.as_mut_ptr().cast();
    msg.msg_controllen = std::mem::size_of_val(&control);
    // SAFETY: `msg` describes valid buffers (above).
    if unsafe { libc::recvmsg(socket.as_raw_fd(), &mut msg, 0) } < 0 {
        return None;
    }
    // SAFETY: CMSG_* walk the control buffer recvmsg filled, within msg_controllen.
    unsafe {
        let mut cmsg = libc::CMSG_FIRSTHDR(&msg);
        while !cmsg.is_null() {
            if (*cmsg).cmsg_level == libc::SOL_SOCKET && (*cmsg).cmsg_type == libc::SCM_TIMESTAMPNS
            {
                let ts = std::ptr::read_unaligned(libc::CMSG_DATA(cmsg).cast::<libc::timespec>());
                return Some(ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9);
            }
            cmsg = libc::CMSG_NXTHDR(&msg, cmsg);
        }
    }
    panic!("no SCM_TIMESTAMPNS on a datagram")
}

fn report(label: &str, arrivals: &[f64]) {
    let nominal = 1.0 / 60.0;
    let mut intervals: Vec<f64> = arrivals.windows(2).map(|w| w[1] - w[0]).collect();
    let total = arrivals[arrivals.len() - 1] - arrivals[0];
    let mean = total / intervals.len() as f64;
    // Least-squares period: robust to one late first or last arrival.
    let times: Vec<f64> = arrivals.iter().map(|a| a - arrivals[0]).collect();
    let n = times.len() as f64;
    let (mean_i, mean_t) = ((n - 1.0) / 2.0, times.iter().sum::<f64>() / n);
    let (mut num, mut den) = (0.0, 0.0);
    for (i, t) in times.iter().enumerate() {
        num += (i as f64 - mean_i) * (t - mean_t);
        den += (i as f64 - mean_i).powi(2);
    }
    let fitted = num / den;
    intervals.sort_by(f64::total_cmp);
    let ms = |s: f64| s * 1e3;
    println!(
        "pacing {label}: {} frames over {:.3} s; rate error {:+.1} ppm first-to-last, {:+.1} ppm fitted; interval p50 {:.4} ms, p99 {:.4} ms, max {:.4} ms, min {:.4} ms (nominal {:.4} ms)",
        arrivals.len(),
        total,
        (mean - nominal) / nominal * 1e6,
        (fitted - nominal) / nominal * 1e6,
        ms(quantile(&intervals, 0.5)),
        ms(quantile(&intervals, 0.99)),
        ms(intervals[intervals.len() - 1]),
        ms(intervals[0]),
        ms(nominal),
    );
}

/// The value at quantile `q` (0..=1) of sorted `values`.
fn quantile(sorted: &[f64], q: f64) -> f64 {
    sorted[((sorted.len() - 1) as f64 * q).round() as usize]
}
