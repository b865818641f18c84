//! The door rules end to end, against `llv serve` on 127.0.0.1 and the box
//! under QEMU alike: a crowd of control clients (some polling the status,
//! some holding idle sockets), the operator's `llv box ADDR status` beside
//! them, OSC over plain UDP sockets, and how soon a subscriber hears of a
//! change. Every loop is bounded in count and time; every thread stops
//! when its [`Crowd`] is stopped.

use std::io::{Read, Write};
use std::net::{Ipv4Addr, SocketAddr, SocketAddrV4, TcpStream, UdpSocket};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use llv_core::control::{
    body_len, decode, encode, Request, Response, Start, MAX_FRAME, PREFIX_LEN, PROTOCOL_VERSION,
};
use llv_core::osc::{encode_message, Arg, Packet};
use llv_core::settings::Target;
use serde_json::Value;

/// The longest any one exchange of the crowd or the probes waits.
const EXCHANGE: Duration = Duration::from_secs(5);

/// A TCP connection to `to` from `source` (any port of it).
pub fn connect_from(source: Ipv4Addr, to: SocketAddr) -> std::io::Result<TcpStream> {
    use socket2::{Domain, Protocol, Socket, Type};
    let socket = Socket::new(Domain::IPV4, Type::STREAM, Some(Protocol::TCP))?;
    socket.bind(&SocketAddr::from(SocketAddrV4::new(source, 0)).into())?;
    socket.connect_timeout(&to.into(), EXCHANGE)?;
    let stream: TcpStream = socket.into();
    stream.set_read_timeout(Some(EXCHANGE))?;
    stream.set_write_timeout(Some(EXCHANGE))?;
    Ok(stream)
}

/// Sends one control request on `stream` and reads its response.
pub fn call(stream: &mut TcpStream, request: &Request<'_>) -> std::io::Result<Response> {
    let mut buf = vec![0u8; PREFIX_LEN + MAX_FRAME];
    let frame = encode(request, &mut buf).map_err(|e| std::io::Error::other(format!("{e}")))?;
    stream.write_all(frame)?;
    let mut prefix = [0u8; PREFIX_LEN];
    stream.read_exact(&mut prefix)?;
    let mut body = vec![0u8; body_len(prefix)];
    stream.read_exact(&mut body)?;
    decode(&body).map_err(|e| std::io::Error::other(format!("{e:?}")))
}

/// A control connection from `source` whose Hello (without a token) was accepted.
pub fn hello_from(source: Ipv4Addr, to: SocketAddr) -> std::io::Result<TcpStream> {
    let mut stream = connect_from(source, to)?;
    let hello = Request::Hello {
        protocol: PROTOCOL_VERSION,
        token: None,
    };
    match call(&mut stream, &hello)? {
        Response::Hello { .. } => Ok(stream),
        other => Err(std::io::Error::other(format!("Hello answered {other:?}"))),
    }
}

/// What the crowd went through.
#[derive(Debug, Default)]
pub struct CrowdCounts {
    /// Status answers the pollers got.
    pub statuses: AtomicU64,
    /// Connections of the crowd the door closed (to make room).
    pub closed: AtomicU64,
    /// Connections of the crowd refused or reset before their Hello was answered.
    pub refused: AtomicU64,
}

/// Clients that keep the door busy until stopped.
pub struct Crowd {
    stop: Arc<AtomicBool>,
    threads: Vec<JoinHandle<()>>,
    /// What happened to them so far.
    pub counts: Arc<CrowdCounts>,
}

/// Sleeps `d`, or less if `stop` is set meanwhile.
fn nap(stop: &AtomicBool, d: Duration) {
    let end = Instant::now() + d;
    while !stop.load(Ordering::Relaxed) && Instant::now() < end {
        std::thread::sleep(Duration::from_millis(20).min(end - Instant::now()));
    }
}

impl Crowd {
    /// `pollers` clients that connect to `control`, say Hello and ask for
    /// the status every 2 to 3 s (reconnecting at their next poll when
    /// closed), and `idle` sockets to `idle_to` (in turn) that never send,
    /// each opened again `reopen` after it is closed; connections come from
    /// `sources` in turn.
    pub fn start(
        control: SocketAddr,
        pollers: usize,
        idle_to: &[SocketAddr],
        idle: usize,
        reopen: Duration,
        sources: &[Ipv4Addr],
    ) -> Crowd {
        let stop = Arc::new(AtomicBool::new(false));
        let counts = Arc::new(CrowdCounts::default());
        let mut threads = Vec::new();
        for i in 0..pollers {
            let (stop, counts) = (stop.clone(), counts.clone());
            let source = sources[i % sources.len()];
            let period = Duration::from_millis(2000 + 50 * i as u64);
            threads.push(std::thread::spawn(move || {
                nap(&stop, Duration::from_millis(30 * i as u64));
                while !stop.load(Ordering::Relaxed) {
                    match hello_from(source, control) {
                        Ok(mut s) => {
                            while !stop.load(Ordering::Relaxed) {
                                match call(&mut s, &Request::Status) {
                                    Ok(Response::Status(_)) => {
                                        counts.statuses.fetch_add(1, Ordering::Relaxed);
                                    }
                                    _ => {
                                        counts.closed.fetch_add(1, Ordering::Relaxed);
                                        break;
                                    }
                                }
                                nap(&stop, period);
                            }
                        }
                        Err(_) => {
                            counts.refused.fetch_add(1, Ordering::Relaxed);
                        }
                    }
                    nap(&stop, period);
                }
            }));
        }
        for i in 0..idle {
            let (stop, counts) = (stop.clone(), counts.clone());
            let source = sources[i % sources.len()];
            let to = idle_to[i % idle_to.len()];
            threads.push(std::thread::spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    if let Ok(mut s) = connect_from(source, to) {
                        let _ = s.set_read_timeout(Some(Duration::from_millis(100)));
                        let mut buf = [0u8; 64];
                        // Held, never a byte sent, until the door closes it.
                        while !stop.load(Ordering::Relaxed) {
                            match s.read(&mut buf) {
                                Ok(0) => break,
                                Err(e)
                                    if matches!(
                                        e.kind(),
                                        std::io::ErrorKind::WouldBlock
                                            | std::io::ErrorKind::TimedOut
                                    ) => {}
                                _ => break,
                            }
                        }
                        counts.closed.fetch_add(1, Ordering::Relaxed);
                    }
                    nap(&stop, reopen);
                }
            }));
        }
        Crowd {
            stop,
            threads,
            counts,
        }
    }

    /// Stops every client and waits for them.
    pub fn stop(self) -> Arc<CrowdCounts> {
        self.stop.store(true, Ordering::Relaxed);
        for t in self.threads {
            let _ = t.join();
        }
        self.counts
    }
}

/// Runs `llv box ADDR status --json` `times` times, a second apart; each
/// must succeed. Returns how long each took.
pub fn operator_statuses(addr: &str, times: usize) -> Vec<Duration> {
    let mut took = Vec::new();
    for i in 0..times {
        let start = Instant::now();
        let out = crate::llv()
            .args(["box", addr, "status", "--json"])
            .timeout(Duration::from_secs(30))
            .output()
            .expect("running llv box status");
        let elapsed = start.elapsed();
        assert!(
            out.status.success(),
            "status {i} of {times} failed after {elapsed:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let status: Value = serde_json::from_slice(&out.stdout).expect("status JSON");
        assert!(status["firmware"].is_string(), "{status}");
        took.push(elapsed);
        std::thread::sleep(Duration::from_secs(1).saturating_sub(elapsed));
    }
    took
}

/// An OSC message's bytes.
pub fn osc(address: &str, args: &[Arg<'_>]) -> Vec<u8> {
    let mut buf = [0u8; 1024];
    let n = encode_message(address, args, &mut buf).expect("a message that fits");
    buf[..n].to_vec()
}

/// A message received: its address and its first argument as a string
/// (replies' JSON), or its arguments as text.
pub fn received(bytes: &[u8]) -> (String, Value) {
    let Ok(Packet::Message(m)) = Packet::parse(bytes) else {
        panic!("not an OSC message: {bytes:02x?}");
    };
    let args: Vec<Value> = m
        .args()
        .map(|a| match a {
            Arg::Str(s) => serde_json::from_str(s).unwrap_or(Value::String(s.to_string())),
            Arg::Int(i) => Value::from(i),
            other => Value::String(format!("{other:?}")),
        })
        .collect();
    let value = match args.as_slice() {
        [one] if m.address.starts_with("/reply") || m.address == "/llv/error" => one.clone(),
        _ => Value::Array(args),
    };
    (m.address.to_string(), value)
}

/// A UDP OSC client on `source`, talking to `to`.
pub struct OscUdp {
    /// Its socket.
    pub socket: UdpSocket,
    to: SocketAddr,
}

impl OscUdp {
    /// A client on a free port of `source`.
    pub fn new(source: Ipv4Addr, to: SocketAddr) -> OscUdp {
        let socket = UdpSocket::bind((source, 0)).expect("a UDP port");
        socket
            .set_read_timeout(Some(Duration::from_millis(50)))
            .unwrap();
        OscUdp { socket, to }
    }

    /// Sends `bytes`, then returns the first message that comes back within `EXCHANGE`.
    pub fn ask_raw(&self, bytes: &[u8]) -> (String, Value) {
        self.socket.send_to(bytes, self.to).expect("send");
        self.next(|_| true)
    }

    /// The reply's status to `address` `args`.
    pub fn status(&self, address: &str, args: &[Arg<'_>]) -> String {
        self.socket
            .send_to(&osc(address, args), self.to)
            .expect("send");
        let (_, reply) = self.next(|(a, _)| a.starts_with("/reply"));
        reply["status"].as_str().unwrap_or("?").to_string()
    }

    /// The next message received for which `wanted` holds, within `EXCHANGE`.
    pub fn next(&self, wanted: impl Fn(&(String, Value)) -> bool) -> (String, Value) {
        let end = Instant::now() + EXCHANGE;
        let mut buf = [0u8; 2048];
        while Instant::now() < end {
            if let Ok(n) = self.socket.recv(&mut buf) {
                let got = received(&buf[..n]);
                if wanted(&got) {
                    return got;
                }
            }
        }
        panic!("nothing wanted arrived within {EXCHANGE:?}");
    }
}

/// How long after each of `plays` plays of `take` to `target`, asked over
/// a control connection to `control`, a subscriber over UDP to `osc` got
/// the `/llv/state` that shows it playing: from the request sent to the
/// state received, so the figure includes the request's way there and the
/// start of the playback. Each play is stopped (and the subscriber told)
/// before the next.
pub fn push_latencies(
    control: SocketAddr,
    osc: SocketAddr,
    take: &str,
    target: Target,
    plays: usize,
) -> Vec<Duration> {
    let subscriber = OscUdp::new(Ipv4Addr::LOCALHOST, osc);
    assert_eq!(subscriber.status("/llv/subscribe", &[Arg::Int(600)]), "ok");
    let mut stream = hello_from(Ipv4Addr::LOCALHOST, control).expect("a control connection");
    let play = Request::Play {
        name: take,
        targets: [target].into_iter().collect(),
        loop_count: 0,
        start: Start::Now,
    };
    let mut took = Vec::new();
    for _ in 0..plays {
        // Drop what came before (heartbeats), then time the change.
        let _ = subscriber.socket.set_nonblocking(true);
        let mut buf = [0u8; 2048];
        while subscriber.socket.recv(&mut buf).is_ok() {}
        let _ = subscriber.socket.set_nonblocking(false);
        let sent = Instant::now();
        assert_eq!(call(&mut stream, &play).unwrap(), Response::Ok);
        subscriber.next(|(a, v)| a == "/llv/state" && v[0] == 1);
        took.push(sent.elapsed());
        assert_eq!(call(&mut stream, &Request::Stop).unwrap(), Response::Ok);
        subscriber.next(|(a, v)| a == "/llv/state" && v[0] == 0);
    }
    took
}

/// The `p`-th percentile (0 to 100) of `durations`.
pub fn percentile(durations: &[Duration], p: usize) -> Duration {
    let mut sorted = durations.to_vec();
    sorted.sort();
    let at = (sorted.len().saturating_sub(1) * p) / 100;
    sorted[at]
}
