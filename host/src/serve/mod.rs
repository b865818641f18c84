//! `llv serve TAKES_DIR`: a laptop as a box. The box's own protocol code
//! (`llv_control`: the session, the control connection loop, the OSC
//! door, the mDNS answers) runs on `std` threads over a folder of recordings
//! ([`folder`]) and `llv play`'s pacing ([`player`]), so `llv flash`, `llv
//! box`, show tools and `llv discover` meet the same box either way.
//!
//! - Control protocol: TCP `--port` (11113).
//! - OSC: UDP and TCP on `--osc-port` (the settings' OSC port, 11114 by default).
//! - mDNS/DNS-SD: UDP 5353 on every interface, unless `--no-discovery`.
//! - Art-Net timecode, while a take chases it: UDP `--artnet-port` (6454).
//!
//! Port 0 picks free ports; `--json` prints the ports and name on the first
//! line of standard output.

pub mod folder;
pub mod io;
pub mod player;

use std::net::{IpAddr, Ipv4Addr, SocketAddr, TcpListener, UdpSocket};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use embassy_sync::blocking_mutex::raw::CriticalSectionRawMutex;
use embassy_sync::mutex::Mutex;
use llv_control::osc::{
    serve_osc_connection, OscBuffers, ReplySink, UdpDoor, MAX_PACKET, MAX_REPLY, PUSH_POLL,
};
use llv_control::{
    mdns, serve_connection, ConnectionBuffers, Control, Penalties, TakeLibrary, LIMITS,
};
use llv_core::control::CONTROL_PORT;
use llv_core::settings::check_box_name;

use folder::Folder;
use io::{block_on, Stream};
use player::Player;

/// What `llv serve` reports as its firmware.
pub const FIRMWARE: &str = concat!("llv-serve ", env!("CARGO_PKG_VERSION"));
/// Connections (control and OSC over TCP) served at once; more are closed.
const MAX_CONNECTIONS: usize = 16;
/// How often the folder is read again for new, changed and removed recordings.
const RESCAN_EVERY: Duration = Duration::from_secs(1);

type Library = Mutex<CriticalSectionRawMutex, Folder>;

/// Arguments of `llv serve`.
#[derive(clap::Args, Debug)]
pub struct ServeArgs {
    /// The folder of recordings to serve as takes (uploads land here).
    pub dir: PathBuf,
    /// TCP control port (`llv flash`, `llv box`); 0 picks a free one.
    #[arg(long, default_value_t = CONTROL_PORT)]
    pub port: u16,
    /// UDP and TCP OSC port (default: the settings', 11114); 0 picks a free one.
    #[arg(long)]
    pub osc_port: Option<u16>,
    /// IPv4 address to listen on (default: every interface).
    #[arg(long, default_value = "0.0.0.0")]
    pub bind: Ipv4Addr,
    /// Name on the network (NAME.local; default: the settings' name, else the host's).
    #[arg(long)]
    pub name: Option<String>,
    /// UDP port a chasing playback listens for Art-Net timecode on.
    #[arg(long, default_value_t = llv_core::artnet::PORT)]
    pub artnet_port: u16,
    /// Do not answer mDNS (nothing is sent to the network unasked).
    #[arg(long)]
    pub no_discovery: bool,
    /// Print the ports and the name as JSON on the first line of standard output.
    #[arg(long)]
    pub json: bool,
}

/// What every thread shares.
#[derive(Clone, Copy)]
struct Shared {
    library: &'static Library,
    penalties: &'static Penalties,
}

impl Shared {
    fn control(&self) -> Control<'static, CriticalSectionRawMutex, Folder> {
        Control {
            firmware: FIRMWARE,
            library: self.library,
            penalties: self.penalties,
            limits: LIMITS,
        }
    }
}

/// Runs `llv serve` until Ctrl-C.
pub fn run(args: &ServeArgs) -> Result<()> {
    let folder = Folder::open(&args.dir)?;
    let settings = folder.settings().clone();
    if let Some(name) = &args.name {
        check_box_name(name).map_err(|e| anyhow::anyhow!("--name {name:?}: {e}"))?;
    }
    let name = args
        .name
        .clone()
        .or_else(|| settings.name.as_ref().map(|n| n.to_string()))
        .unwrap_or_else(host_name);
    let shared = Shared {
        library: Box::leak(Box::new(Mutex::new(folder))),
        penalties: Box::leak(Box::new(Penalties::new())),
    };
    let address = (!args.bind.is_unspecified()).then_some(args.bind);
    let player = Player::new(address, &settings, args.artnet_port);

    let control = TcpListener::bind((args.bind, args.port))
        .with_context(|| format!("cannot listen on TCP {}:{}", args.bind, args.port))?;
    let (osc_udp, osc_tcp) = bind_osc(args.bind, args.osc_port.unwrap_or(settings.osc_port()))?;
    let ports = (control.local_addr()?.port(), osc_udp.local_addr()?.port());
    if args.json {
        println!(
            "{}",
            serde_json::json!({"control": ports.0, "osc": ports.1, "name": name})
        );
    }
    eprintln!(
        "serving {} as {name}: control TCP {}, OSC UDP and TCP {}{}; Ctrl-C stops",
        args.dir.display(),
        ports.0,
        ports.1,
        if args.no_discovery {
            ""
        } else {
            ", mDNS on 5353"
        }
    );

    let connections: &'static AtomicUsize = Box::leak(Box::new(AtomicUsize::new(0)));
    let _ = SHARED.set(shared);
    {
        let player = player.clone();
        std::thread::spawn(move || accept(control, player, connections, serve_control));
    }
    {
        let player = player.clone();
        std::thread::spawn(move || accept(osc_tcp, player, connections, serve_osc));
    }
    {
        let player = player.clone();
        std::thread::spawn(move || serve_osc_udp(osc_udp, shared, player));
    }
    std::thread::spawn(move || loop {
        std::thread::sleep(RESCAN_EVERY);
        block_on(shared.library.lock()).rescan();
    });
    if !args.no_discovery {
        let responder = mdns_socket().context("mDNS: cannot listen on UDP 5353")?;
        let player = player.clone();
        let osc_port = ports.1;
        let control_port = ports.0;
        std::thread::spawn(move || {
            respond(
                responder,
                shared,
                player,
                &name,
                control_port,
                osc_port,
                address,
            )
        });
    }
    let stop = crate::stop::on_ctrl_c()?;
    while !stop.load(Ordering::Relaxed) {
        std::thread::sleep(Duration::from_millis(100));
    }
    player.stop_now();
    eprintln!("stopped");
    Ok(())
}

/// The host's name as a box name: its first label, letters, digits and
/// hyphens only, at most 32 bytes; `llv-serve` if nothing is left.
fn host_name() -> String {
    let raw = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .or_else(|| std::env::var("HOSTNAME").ok())
        .or_else(|| std::env::var("COMPUTERNAME").ok())
        .unwrap_or_default();
    let label: String = raw
        .trim()
        .split('.')
        .next()
        .unwrap_or_default()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .take(32)
        .collect();
    let label = label.trim_matches('-').to_string();
    if check_box_name(&label).is_ok() {
        label
    } else {
        "llv-serve".to_string()
    }
}

/// The OSC sockets: UDP and TCP on the same port (port 0: a free one both take).
fn bind_osc(bind: Ipv4Addr, port: u16) -> Result<(UdpSocket, TcpListener)> {
    for _ in 0..10 {
        let udp = UdpSocket::bind((bind, port))
            .with_context(|| format!("cannot listen on UDP {bind}:{port}"))?;
        let chosen = udp.local_addr()?.port();
        match TcpListener::bind((bind, chosen)) {
            Ok(tcp) => return Ok((udp, tcp)),
            Err(_) if port == 0 => continue,
            Err(e) => bail!("cannot listen on TCP {bind}:{port}: {e}"),
        }
    }
    bail!("no free port for OSC on both UDP and TCP")
}

fn ipv4_of(addr: &SocketAddr) -> [u8; 4] {
    match addr.ip() {
        IpAddr::V4(ip) => ip.octets(),
        IpAddr::V6(ip) => ip.to_ipv4_mapped().map_or([0; 4], |ip| ip.octets()),
    }
}

/// Holds a connection slot while it lives.
struct Slot(&'static AtomicUsize);

impl Slot {
    fn take(count: &'static AtomicUsize) -> Option<Slot> {
        let taken = count.fetch_add(1, Ordering::SeqCst);
        if taken >= MAX_CONNECTIONS {
            count.fetch_sub(1, Ordering::SeqCst);
            return None;
        }
        Some(Slot(count))
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Serves each connection of `listener` on a thread of its own (at most
/// [`MAX_CONNECTIONS`] at once, counted in `connections`) with `serve`.
fn accept(
    listener: TcpListener,
    player: Player,
    connections: &'static AtomicUsize,
    serve: fn(&mut Stream, [u8; 4], &mut Player),
) {
    for stream in listener.incoming().flatten() {
        let Some(slot) = Slot::take(connections) else {
            continue;
        };
        let mut device = player.clone();
        std::thread::spawn(move || {
            let _slot = slot;
            let source = stream.peer_addr().map_or([0; 4], |a| ipv4_of(&a));
            if let Ok(mut stream) = Stream::new(stream) {
                serve(&mut stream, source, &mut device);
            }
        });
    }
}

/// What every thread shares, once set at start.
static SHARED: std::sync::OnceLock<Shared> = std::sync::OnceLock::new();

/// A control protocol connection.
fn serve_control(stream: &mut Stream, source: [u8; 4], device: &mut Player) {
    let Some(shared) = SHARED.get() else { return };
    let mut buffers = Box::new(ConnectionBuffers::new());
    block_on(serve_connection(
        stream,
        source,
        &shared.control(),
        device,
        &mut buffers,
        &AtomicBool::new(false),
    ));
}

/// An OSC connection.
fn serve_osc(stream: &mut Stream, source: [u8; 4], device: &mut Player) {
    let Some(shared) = SHARED.get() else { return };
    let mut buffers = Box::new(OscBuffers::new());
    block_on(serve_osc_connection(
        stream,
        source,
        &shared.control(),
        device,
        &mut buffers,
        &AtomicBool::new(false),
    ));
}

/// Sends OSC replies from the door's UDP socket.
struct Sender<'s>(&'s UdpSocket);

impl ReplySink for Sender<'_> {
    async fn send_to(&mut self, packet: &[u8], ip: [u8; 4], port: u16) {
        let _ = self.0.send_to(packet, (Ipv4Addr::from(ip), port));
    }
}

fn serve_osc_udp(socket: UdpSocket, shared: Shared, mut player: Player) {
    let control = shared.control();
    let poll = Duration::from_millis(PUSH_POLL.as_millis());
    let _ = socket.set_read_timeout(Some(poll));
    let mut door = UdpDoor::new(FIRMWARE);
    let mut packet = vec![0u8; MAX_PACKET + 1];
    let mut out = Box::new([0u8; MAX_REPLY]);
    let mut next_push = Instant::now();
    loop {
        match socket.recv_from(&mut packet) {
            Ok((n, from)) if n <= MAX_PACKET => {
                let from = (ipv4_of(&from), from.port());
                block_on(door.handle(
                    &packet[..n],
                    from,
                    &control,
                    &mut player,
                    &mut out,
                    &mut Sender(&socket),
                ));
            }
            Ok((_, from)) => {
                let n = llv_control::osc::error_reply(&mut out, "packet over 512 bytes");
                let _ = socket.send_to(&out[..n], from);
            }
            Err(_) => {}
        }
        if Instant::now() >= next_push {
            next_push = Instant::now() + poll;
            block_on(door.push(&control, &player, &mut out, &mut Sender(&socket)));
        }
    }
}

/// UDP 5353 on every interface, in the mDNS group, shared with other
/// responders on this host.
fn mdns_socket() -> std::io::Result<UdpSocket> {
    use socket2::{Domain, Protocol, Socket, Type};
    let socket = Socket::new(Domain::IPV4, Type::DGRAM, Some(Protocol::UDP))?;
    socket.set_reuse_address(true)?;
    #[cfg(unix)]
    socket.set_reuse_port(true)?;
    socket.bind(&SocketAddr::from((Ipv4Addr::UNSPECIFIED, mdns::PORT)).into())?;
    socket.join_multicast_v4(&Ipv4Addr::from(mdns::GROUP), &Ipv4Addr::UNSPECIFIED)?;
    socket.set_multicast_ttl_v4(255)?;
    socket.set_multicast_loop_v4(true)?;
    Ok(socket.into())
}

/// The local address this host reaches `peer` from (no packet is sent).
fn local_address_toward(peer: Ipv4Addr) -> Option<Ipv4Addr> {
    let probe = UdpSocket::bind((Ipv4Addr::UNSPECIFIED, 0)).ok()?;
    probe.connect((peer, 9)).ok()?;
    match probe.local_addr().ok()?.ip() {
        IpAddr::V4(ip) if !ip.is_unspecified() => Some(ip),
        _ => None,
    }
}

/// Answers mDNS queries for this laptop, announcing it first.
fn respond(
    socket: UdpSocket,
    shared: Shared,
    player: Player,
    default_name: &str,
    control_port: u16,
    osc_port: u16,
    bind: Option<Ipv4Addr>,
) {
    let mut query = vec![0u8; mdns::MAX_MESSAGE];
    let mut out = vec![0u8; mdns::MAX_MESSAGE];
    let _ = socket.set_read_timeout(Some(Duration::from_secs(1)));
    let mut announced = 0;
    loop {
        let received = socket.recv_from(&mut query);
        let (name, free) = {
            let library = block_on(shared.library.lock());
            let name = library
                .settings()
                .name
                .as_ref()
                .map_or_else(|| default_name.to_string(), |n| n.to_string());
            (name, library.free_bytes())
        };
        let playing = llv_control::Playback::<folder::FolderTake>::playing(&player)
            .map(|p| p.take.to_string())
            .unwrap_or_default();
        let identity = |ipv4: Ipv4Addr| mdns::Identity {
            name: &name,
            firmware: FIRMWARE,
            ipv4: ipv4.octets(),
            control_port,
            osc_port,
            free_bytes: free,
            playing: &playing,
        };
        // Two announcements, a second apart, at start (RFC 6762, 8.3).
        if announced < 2 {
            announced += 1;
            if let Some(ip) = bind.or_else(|| local_address_toward(Ipv4Addr::from(mdns::GROUP))) {
                let n = mdns::announce(&identity(ip), &mut out);
                let _ = socket.send_to(&out[..n], (Ipv4Addr::from(mdns::GROUP), mdns::PORT));
            }
        }
        let Ok((len, from)) = received else {
            continue;
        };
        let SocketAddr::V4(from) = from else {
            continue;
        };
        let Some(ip) = bind.or_else(|| local_address_toward(*from.ip())) else {
            continue;
        };
        let n = mdns::answer(&identity(ip), &query[..len], from.port(), &mut out);
        if n > 0 {
            let (to, port) = mdns::reply_to((from.ip().octets(), from.port()));
            let _ = socket.send_to(&out[..n], (Ipv4Addr::from(to), port));
        }
    }
}
