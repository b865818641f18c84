//! The live relay end to end: the real phone take sent as the phone would
//! (its recorded timing, with jitter and dropouts), a running `llv relay`,
//! and what a loopback receiver got from it and when.

use std::collections::HashMap;
use std::io::BufRead;
use std::net::UdpSocket;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use llv_core::packet::FaceFrame;

use crate::files::native_packets;
use crate::phone::phone_take;

/// Checks a relay's counts after the phone sent its take with `dropouts`
/// dropouts: one fallback and one return for each; one more fallback may
/// follow the last return: the phone's end, when the status is read more
/// than the timeout after its last frame (a busy machine).
pub fn assert_switches(live: &serde_json::Value, dropouts: u64) {
    assert_eq!(live["returns"].as_u64(), Some(dropouts), "{live}");
    let fallbacks = live["fallbacks"].as_u64();
    let last_is_fallback = live["switches"]
        .as_array()
        .and_then(|s| s.last())
        .is_some_and(|s| s[0] == true);
    assert!(
        fallbacks == Some(dropouts) || (fallbacks == Some(dropouts + 1) && last_is_fallback),
        "{live}"
    );
}

/// The phone take's first `rows` frames as packets, with when the phone
/// sent each (s from the first, from their frame times), converted by `llv`
/// in `dir`.
pub fn phone_frames(dir: &Path, rows: usize) -> Vec<(f64, Vec<u8>)> {
    let csv = phone_take(dir, "phone.csv", rows, None);
    let lines = dir.join("phone.gesichter-lines");
    crate::llv()
        .arg("convert")
        .arg(&csv)
        .arg(&lines)
        .arg("--force")
        .assert()
        .success();
    let packets = native_packets(&lines);
    let first = FaceFrame::decode(&packets[0]).unwrap().time;
    packets
        .into_iter()
        .map(|p| {
            let t = FaceFrame::decode(&p)
                .unwrap()
                .time
                .seconds_since(&first)
                .unwrap();
            (t, p)
        })
        .collect()
}

/// Gives the calling thread real-time priority (`SCHED_FIFO`) and 1 ns of
/// timer slack where the system allows it, so what the tests send and time
/// is not the busy machine's noise; says whether it got the priority.
pub fn real_time() -> bool {
    let param = libc::sched_param { sched_priority: 1 };
    // SAFETY: plain system calls on the calling thread with valid arguments.
    unsafe {
        libc::prctl(libc::PR_SET_TIMERSLACK, 1 as libc::c_ulong, 0, 0, 0);
        libc::sched_setscheduler(0, libc::SCHED_FIFO, &param) == 0
    }
}

/// Returns at `at`: sleeps, and at real-time priority spins the last 200 µs.
pub fn wait_until(at: Instant, real_time: bool) {
    let spin = if real_time {
        Duration::from_micros(200)
    } else {
        Duration::ZERO
    };
    if let Some(wait) = at
        .checked_duration_since(Instant::now())
        .and_then(|w| w.checked_sub(spin))
    {
        std::thread::sleep(wait);
    }
    while Instant::now() < at {
        std::hint::spin_loop();
    }
}

/// xorshift64*: the same jitter on every run.
pub struct Rng(pub u64);

impl Rng {
    /// Uniform in -max..=max.
    pub fn jitter(&mut self, max: f64) -> f64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        let x = self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11;
        (x as f64 / (1u64 << 53) as f64 * 2.0 - 1.0) * max
    }
}

/// Sends `frames` to `to` as the phone would: each at its time after
/// `start`, ±`jitter` s, none in the `dropouts` (start and length, s, of
/// the take's time); returns each datagram sent and when. Paced at
/// real-time priority where allowed, so the jitter is the one asked for.
pub fn send_as_phone(
    frames: Vec<(f64, Vec<u8>)>,
    to: String,
    start: Instant,
    jitter: f64,
    dropouts: Vec<(f64, f64)>,
) -> JoinHandle<Vec<(Instant, Vec<u8>)>> {
    std::thread::spawn(move || {
        let real_time = real_time();
        let socket = UdpSocket::bind("127.0.0.1:0").unwrap();
        let mut rng = Rng(0x5eed_1234_abcd_0001);
        let mut sent = Vec::new();
        for (t, packet) in frames {
            if dropouts.iter().any(|(a, len)| t >= *a && t < a + len) {
                continue;
            }
            let at = start + Duration::from_secs_f64((t + jitter + rng.jitter(jitter)).max(0.0));
            wait_until(at, real_time);
            socket.send_to(&packet, &to).unwrap();
            sent.push((Instant::now(), packet));
        }
        sent
    })
}

/// What a receiver thread collects: see [`receive`].
pub struct Receiving {
    thread: JoinHandle<Vec<(Instant, Vec<u8>)>>,
    arrivals: mpsc::Receiver<Vec<u8>>,
}

impl Receiving {
    /// Waits (at most `limit`) until `packet` has arrived; says whether it did.
    pub fn wait_for(&self, packet: &[u8], limit: Duration) -> bool {
        let deadline = Instant::now() + limit;
        while let Some(left) = deadline.checked_duration_since(Instant::now()) {
            match self.arrivals.recv_timeout(left) {
                Ok(p) if p == packet => return true,
                Ok(_) => {}
                Err(_) => return false,
            }
        }
        false
    }

    /// Everything that arrived, and when, once nothing has come for the quiet span.
    pub fn join(self) -> Vec<(Instant, Vec<u8>)> {
        self.thread.join().expect("the receiver thread")
    }
}

/// Collects what arrives on `socket` until nothing has come for `quiet`
/// (at most `limit` in all): each datagram and when, timed at real-time
/// priority where allowed.
pub fn receive(socket: UdpSocket, quiet: Duration, limit: Duration) -> Receiving {
    let (tx, arrivals) = mpsc::channel();
    let thread = std::thread::spawn(move || {
        real_time();
        socket.set_read_timeout(Some(quiet)).unwrap();
        let started = Instant::now();
        let mut got = Vec::new();
        let mut buf = [0u8; 2048];
        while started.elapsed() < limit {
            match socket.recv(&mut buf) {
                Ok(n) => {
                    let _ = tx.send(buf[..n].to_vec());
                    got.push((Instant::now(), buf[..n].to_vec()));
                }
                Err(_) if got.is_empty() => {}
                Err(_) => break,
            }
        }
        got
    });
    Receiving { thread, arrivals }
}

/// A running `llv relay --listen 0 --bind 127.0.0.1 ARGS`.
pub struct Relaying {
    child: Child,
    /// The port it listens on.
    pub port: u16,
    stderr: JoinHandle<String>,
}

impl Relaying {
    /// Starts it and waits (at most 30 s) until it says where it listens.
    pub fn start(args: &[&str]) -> Relaying {
        let mut child = Command::new(crate::llv_path())
            .args(["relay", "--listen", "0", "--bind", "127.0.0.1"])
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("starting llv relay");
        let stderr = child.stderr.take().expect("piped stderr");
        let (ready_tx, ready_rx) = mpsc::channel();
        let stderr = std::thread::spawn(move || {
            let mut all = String::new();
            for line in std::io::BufReader::new(stderr)
                .lines()
                .map_while(Result::ok)
            {
                let port = line
                    .strip_prefix("listening on 127.0.0.1:")
                    .and_then(|rest| rest.split(',').next())
                    .and_then(|p| p.parse::<u16>().ok());
                if let Some(port) = port {
                    let _ = ready_tx.send(port);
                }
                all.push_str(&line);
                all.push('\n');
            }
            all
        });
        match ready_rx.recv_timeout(Duration::from_secs(30)) {
            Ok(port) => Relaying {
                child,
                port,
                stderr,
            },
            Err(_) => {
                let _ = child.kill();
                let _ = child.wait();
                panic!(
                    "llv relay did not start: {}",
                    stderr.join().unwrap_or_default()
                );
            }
        }
    }

    /// The address to send frames to.
    pub fn addr(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    /// Waits (at most `limit`) until it ends by itself (its --duration);
    /// returns what it printed on standard output.
    pub fn wait(mut self, limit: Duration) -> String {
        use std::io::Read;
        let start = Instant::now();
        while self.child.try_wait().unwrap().is_none() {
            assert!(
                start.elapsed() < limit,
                "llv relay did not stop within {limit:?}"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        let status = self.child.wait().unwrap();
        let mut out = String::new();
        self.child
            .stdout
            .take()
            .unwrap()
            .read_to_string(&mut out)
            .unwrap();
        let err = self.stderr.join().unwrap_or_default();
        assert!(status.success(), "llv relay failed: {err}");
        out
    }

    /// Kills it with SIGKILL, as a power cut would.
    pub fn kill(mut self) {
        self.child.kill().unwrap();
        self.child.wait().unwrap();
    }
}

/// Seconds from `a` to `b` (negative when `b` is earlier).
pub fn secs(a: Instant, b: Instant) -> f64 {
    if b >= a {
        (b - a).as_secs_f64()
    } else {
        -(a - b).as_secs_f64()
    }
}

/// The `p`th percentile of `xs`.
pub fn percentile(mut xs: Vec<f64>, p: usize) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[(xs.len() * p / 100).min(xs.len() - 1)]
}

/// A datagram a receiver took, and when.
type Received = (Instant, Vec<u8>);

/// One dropout as the receiver saw it (s).
#[derive(Debug)]
pub struct Dropout {
    /// Its length (s of the take).
    pub len: f64,
    /// From the phone's last frame before it to the first made frame out.
    pub reaction: f64,
    /// From the phone's last frame to the first frame of the idle take out.
    pub idle_after: f64,
    /// From the phone's K-th frame back to the first frame out based on one after the dropout.
    pub return_after: f64,
    /// From that frame to the first untouched live frame out.
    pub fade_back: f64,
}

/// What a relay sent, measured against what the phone sent.
#[derive(Debug)]
pub struct Figures {
    /// p99 deviation of the phone's intervals from their median (s).
    pub in_dev: f64,
    /// p99 deviation of the intervals between consecutive live frames out (s).
    pub out_dev: f64,
    /// Their median deviation (s).
    pub out_typical: f64,
    /// Of those intervals, how many are more than 2 ms off the median, and how many there are.
    pub late: (usize, usize),
    /// Added latency of the untouched live frames: median and p99 (s).
    pub latency: (f64, f64),
    /// Each dropout.
    pub dropouts: Vec<Dropout>,
}

/// Measures `got` (what the receiver took, when) against `sent` (what the
/// phone sent, when), with the `dropouts` (start and length, s of the take)
/// it sent around; `is_idle` tells the idle take's frames; `k` is the
/// return count; intervals count from `settle` s after the first frame.
pub fn measure(
    sent: &[(Instant, Vec<u8>)],
    got: &[(Instant, Vec<u8>)],
    dropouts: &[(f64, f64)],
    is_idle: &dyn Fn(&[u8]) -> bool,
    k: usize,
    settle: f64,
) -> Figures {
    let index: HashMap<&[u8], usize> = sent
        .iter()
        .enumerate()
        .map(|(i, (_, p))| (p.as_slice(), i))
        .collect();
    let times: HashMap<(i32, u32), usize> = sent
        .iter()
        .enumerate()
        .map(|(i, (_, p))| {
            let t = FaceFrame::decode(p).unwrap().time;
            ((t.frame_number, t.subframe.to_bits()), i)
        })
        .collect();
    let based_on = |p: &[u8]| {
        let t = FaceFrame::decode(p).unwrap().time;
        times.get(&(t.frame_number, t.subframe.to_bits())).copied()
    };
    let mut out_gaps = Vec::new();
    for w in got.windows(2) {
        if let (Some(&a), Some(&b)) = (index.get(w[0].1.as_slice()), index.get(w[1].1.as_slice())) {
            if b == a + 1 && secs(sent[0].0, w[0].0) > settle {
                out_gaps.push(secs(w[0].0, w[1].0));
            }
        }
    }
    let latency: Vec<f64> = got
        .iter()
        .filter_map(|(at, p)| index.get(p.as_slice()).map(|&i| secs(sent[i].0, *at)))
        .collect();
    let in_gaps: Vec<f64> = sent
        .windows(2)
        .map(|w| secs(w[0].0, w[1].0))
        .filter(|g| *g < 0.07)
        .collect();
    let dev = |gaps: &[f64], p: usize| {
        let median = percentile(gaps.to_vec(), 50);
        percentile(gaps.iter().map(|g| (g - median).abs()).collect(), p)
    };
    let median = percentile(out_gaps.clone(), 50);
    let late = out_gaps
        .iter()
        .filter(|g| (*g - median).abs() > 0.002)
        .count();
    let first = sent[0].0;
    let dropouts = dropouts
        .iter()
        .map(|(start, len)| {
            let last = sent
                .iter()
                .rposition(|(at, _)| secs(first, *at) < start + 0.05)
                .unwrap();
            let back = last + 1;
            let t_last = sent[last].0;
            let after = |f: &dyn Fn(&Received) -> bool| {
                got.iter()
                    .find(|g| g.0 > t_last && f(g))
                    .expect("a frame out after the dropout")
                    .0
            };
            let made = after(&|(_, p)| !index.contains_key(p.as_slice()));
            let on_idle = after(&|(_, p)| is_idle(p));
            let returned = after(&|(_, p)| based_on(p).is_some_and(|i| i >= back));
            let live_again = after(&|(at, p)| *at > returned && index.contains_key(p.as_slice()));
            Dropout {
                len: *len,
                reaction: secs(t_last, made),
                idle_after: secs(t_last, on_idle),
                return_after: secs(sent[back + k - 1].0, returned),
                fade_back: secs(returned, live_again),
            }
        })
        .collect();
    Figures {
        in_dev: dev(&in_gaps, 99),
        out_dev: dev(&out_gaps, 99),
        out_typical: dev(&out_gaps, 50),
        late: (late, out_gaps.len()),
        latency: (percentile(latency.clone(), 50), percentile(latency, 99)),
        dropouts,
    }
}
