//! `llv serve TAKES_DIR`: a laptop as a box. The box's own protocol code
//! (`llv_control`: the session, the control connection loop, the OSC
//! door, the mDNS answers) runs on `std` threads over a folder of recordings
//! ([`folder`]) and `llv play`'s pacing ([`player`]), so `llv flash`, `llv
//! box`, show tools and `llv discover` meet the same box either way.
//!
//! - Control protocol: TCP `--port` (11113).
//! - OSC: UDP and TCP on `--osc-port` (the settings' OSC port, 11114 by default).
//! - The page and its HTTP API (`docs/http-api.md`): TCP `--http-port`
//!   (a free one by default: the box's 80 needs root on a laptop).
//! - mDNS/DNS-SD: UDP 5353 on every interface, unless `--no-discovery`.
//! - Art-Net timecode, while a take chases it: UDP `--artnet-port` (6454).
//!
//! Port 0 picks free ports; `--json` prints the ports and name on the first
//! line of standard output.
//!
//! The door policy is the box's (`llv_control::slots`): [`SLOTS`] TCP
//! connections over both ports, one kept free for a newcomer. Settings
//! saves are paced as on the box (`llv_control::pace`); the held ones are
//! written when due and at Ctrl-C. A subscriber hears of a change within
//! [`PUSH_POLL`].

pub mod folder;
pub mod io;
pub mod player;

use std::net::{IpAddr, Ipv4Addr, SocketAddr, TcpListener, UdpSocket};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use embassy_futures::select::{select, Either};
use embassy_sync::blocking_mutex::raw::CriticalSectionRawMutex;
use embassy_sync::mutex::Mutex;
use llv_control::http::{serve_http_connection, HttpBuffers};
use llv_control::osc::{
    serve_osc_connection, OscBuffers, ReplySink, UdpDoor, MAX_PACKET, MAX_REPLY,
};
use llv_control::{
    mdns, serve_connection, ConnectionBuffers, Control, Door, DoorKeeper, Limits, Paced, Penalties,
    TakeLibrary, LIMITS,
};
use llv_core::control::CONTROL_PORT;
use llv_core::settings::{check_box_name, Sender};

use folder::Folder;
use io::{block_on, Datagrams, Stream};
use player::Player;

/// What `llv serve` reports as its firmware.
pub const FIRMWARE: &str = concat!("llv-serve ", env!("CARGO_PKG_VERSION"));
/// TCP connections (control and OSC together) served at once.
pub const SLOTS: usize = 16;
/// How often the OSC doors look for a change of state to push.
pub const PUSH_POLL: embassy_time::Duration = embassy_time::Duration::from_millis(2);
/// The box's limits, with pushes looked for every [`PUSH_POLL`].
const SERVE_LIMITS: Limits = Limits {
    push_poll: PUSH_POLL,
    ..LIMITS
};
/// How often the folder is read again for new, changed and removed
/// recordings (and held settings written when due).
const RESCAN_EVERY: Duration = Duration::from_secs(1);

type Library = Mutex<CriticalSectionRawMutex, Paced<Folder>>;
type Keeper = DoorKeeper<CriticalSectionRawMutex, SLOTS>;

/// Arguments of `llv serve`.
#[derive(clap::Args, Debug)]
#[command(after_help = "\
Examples:
  llv serve ~/show/takes                                  # the folder as a box: control 11113, OSC 11114, mDNS
  llv serve ~/show/takes --name stage-left --port 0 --osc-port 0 --json   # free ports, printed as JSON
  llv serve ~/show/takes --bind 127.0.0.1 --no-discovery")]
pub struct ServeArgs {
    /// The folder of recordings to serve as takes (uploads land here).
    pub dir: PathBuf,
    /// TCP control port (`llv flash`, `llv box`); 0 picks a free one.
    #[arg(long, default_value_t = CONTROL_PORT)]
    pub port: u16,
    /// UDP and TCP OSC port (default: the settings', 11114); 0 picks a free one.
    #[arg(long)]
    pub osc_port: Option<u16>,
    /// TCP port of the page and its HTTP API; 0 (the default) picks a free one.
    #[arg(long, default_value_t = 0)]
    pub http_port: u16,
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
    keeper: &'static Keeper,
}

impl Shared {
    fn control(&self) -> Control<'static, CriticalSectionRawMutex, Paced<Folder>> {
        Control {
            firmware: FIRMWARE,
            library: self.library,
            penalties: self.penalties,
            limits: SERVE_LIMITS,
            finish: llv_control::InPlace,
        }
    }
}

/// Runs `llv serve` until Ctrl-C.
pub fn run(args: &ServeArgs) -> Result<()> {
    let folder = Folder::open(&args.dir)?;
    let (settings, bad) = folder.settings().usable(Sender::Laptop);
    if let Some(e) = &bad {
        eprintln!("warning: {}: {e}: ignored", folder::SETTINGS_FILE);
    }
    if let Some(name) = &args.name {
        check_box_name(name).map_err(|e| anyhow::anyhow!("--name {name:?}: {e}"))?;
    }
    let name = args
        .name
        .clone()
        .or_else(|| settings.name.as_ref().map(|n| n.to_string()))
        .unwrap_or_else(host_name);
    let shared = Shared {
        library: Box::leak(Box::new(Mutex::new(Paced::new(folder)))),
        penalties: Box::leak(Box::new(Penalties::new())),
        keeper: Box::leak(Box::new(DoorKeeper::new([None; SLOTS]))),
    };
    let address = (!args.bind.is_unspecified()).then_some(args.bind);
    let control = TcpListener::bind((args.bind, args.port))
        .with_context(|| format!("cannot listen on TCP {}:{}", args.bind, args.port))?;
    let (osc_udp, osc_tcp) = bind_osc(args.bind, args.osc_port.unwrap_or(settings.osc_port()))?;
    let http = TcpListener::bind((args.bind, args.http_port))
        .with_context(|| format!("cannot listen on TCP {}:{}", args.bind, args.http_port))?;
    let ports = (control.local_addr()?.port(), osc_udp.local_addr()?.port());
    let player = Player::new(
        address,
        ports.1,
        &settings,
        args.artnet_port,
        bad,
        &args.dir,
        args.bind,
    );
    if settings.live.enabled {
        let mut library = block_on(shared.library.lock());
        if let Err(e) = block_on(llv_control::live_on(
            &mut *library,
            &mut player.clone(),
            &settings,
        )) {
            eprintln!("warning: live relay: {}", e.detail);
        }
    }
    let http_port = http.local_addr()?.port();
    if args.json {
        crate::outln!(
            "{}",
            serde_json::json!({"control": ports.0, "osc": ports.1, "http": http_port, "name": name})
        );
    }
    eprintln!(
        "serving {} as {name}: control TCP {}, OSC UDP and TCP {}, page http://{}:{http_port}/{}; Ctrl-C stops",
        args.dir.display(),
        ports.0,
        ports.1,
        if args.bind.is_unspecified() { Ipv4Addr::LOCALHOST } else { args.bind },
        if args.no_discovery {
            ""
        } else {
            ", mDNS on 5353"
        }
    );

    let _ = SHARED.set(shared);
    {
        let player = player.clone();
        std::thread::spawn(move || accept(control, Door::Control, player));
    }
    {
        let player = player.clone();
        std::thread::spawn(move || accept(osc_tcp, Door::Osc, player));
    }
    {
        let player = player.clone();
        std::thread::spawn(move || accept(http, Door::Http, player));
    }
    {
        let player = player.clone();
        std::thread::spawn(move || serve_osc_udp(osc_udp, shared, player));
    }
    std::thread::spawn(move || loop {
        std::thread::sleep(RESCAN_EVERY);
        let mut library = block_on(shared.library.lock());
        library.inner.rescan();
        if let Err(e) = block_on(library.flush()) {
            eprintln!("warning: settings not written: {}", e.detail);
        }
    });
    let stop = crate::stop::on_ctrl_c()?;
    let responder = if args.no_discovery {
        None
    } else {
        let socket = mdns_socket().context("mDNS: cannot listen on UDP 5353")?;
        let responder = Responder {
            shared,
            player: player.clone(),
            default_name: name,
            control_port: ports.0,
            osc_port: ports.1,
            http_port,
            bind: address,
        };
        Some(std::thread::spawn(move || responder.run(&socket, stop)))
    };
    while !stop.load(Ordering::Relaxed) {
        std::thread::sleep(Duration::from_millis(100));
    }
    player.stop_now();
    if let Err(e) = block_on(block_on(shared.library.lock()).write_held()) {
        eprintln!("warning: settings not written: {}", e.detail);
    }
    // The responder says goodbye before it ends.
    if let Some(responder) = responder {
        let _ = responder.join();
    }
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

/// Serves each connection of `listener`, through `door`, on a thread of
/// its own, while the door keeper gives it a slot (one is kept free: a
/// newcomer taking the last one closes another; a newcomer from an address
/// holding fewer connections than another waits for one of that address's
/// to close; see `llv_control::slots`); without one it is closed at once.
fn accept(listener: TcpListener, door: Door, player: Player) {
    let Some(shared) = SHARED.get() else { return };
    for stream in listener.incoming().flatten() {
        let source = stream.peer_addr().map_or([0; 4], |a| ipv4_of(&a));
        let mut device = player.clone();
        std::thread::spawn(move || {
            let Some(slot) = block_on(shared.keeper.open(door, source)) else {
                return;
            };
            if let Ok(mut stream) = Stream::new(stream) {
                let seat = shared.keeper.seat(slot);
                let control = shared.control();
                let served = async {
                    match door {
                        Door::Control => {
                            let mut buffers = Box::new(ConnectionBuffers::new());
                            serve_connection(
                                &mut stream,
                                source,
                                &control,
                                &mut device,
                                &mut buffers,
                                &seat,
                            )
                            .await
                        }
                        Door::Http => {
                            let mut buffers = Box::new(HttpBuffers::new());
                            serve_http_connection(
                                &mut stream,
                                source,
                                &control,
                                &mut device,
                                &mut buffers,
                                &seat,
                            )
                            .await
                        }
                        Door::Osc => {
                            let mut buffers = Box::new(OscBuffers::new());
                            serve_osc_connection(
                                &mut stream,
                                source,
                                &control,
                                &mut device,
                                &mut buffers,
                                &seat,
                            )
                            .await
                        }
                    }
                };
                block_on(select(served, shared.keeper.closing(slot)));
            }
            shared.keeper.release(slot);
        });
    }
}

/// What every thread shares, once set at start.
static SHARED: std::sync::OnceLock<Shared> = std::sync::OnceLock::new();

/// Sends OSC replies from the door's UDP socket.
struct Replies<'s>(&'s UdpSocket);

impl ReplySink for Replies<'_> {
    async fn send_to(&mut self, packet: &[u8], ip: [u8; 4], port: u16) {
        let _ = self.0.send_to(packet, (Ipv4Addr::from(ip), port));
    }
}

/// The OSC door over UDP: each datagram handled as it comes (whole: one
/// over 512 bytes is answered as the box answers it), the state pushed
/// every [`PUSH_POLL`] on a fixed cadence, however busy the socket.
fn serve_osc_udp(socket: UdpSocket, shared: Shared, mut player: Player) {
    let control = shared.control();
    let Ok(datagrams) = Datagrams::new(&socket) else {
        eprintln!("warning: OSC over UDP: cannot read the socket");
        return;
    };
    let mut door = UdpDoor::new(FIRMWARE);
    let mut out = Box::new([0u8; MAX_REPLY]);
    block_on(async {
        let mut next_push = embassy_time::Instant::now() + PUSH_POLL;
        loop {
            let now = embassy_time::Instant::now();
            if now >= next_push {
                next_push += PUSH_POLL;
                if next_push < now {
                    next_push = now + PUSH_POLL;
                }
                door.push(&control, &player, &mut out, &mut Replies(&socket))
                    .await;
            }
            let received = select(datagrams.next(), embassy_time::Timer::at(next_push)).await;
            if let Either::First((packet, from)) = received {
                let from = (ipv4_of(&from), from.port());
                let len = packet.len();
                door.handle(
                    &packet[..len.min(MAX_PACKET)],
                    len,
                    from,
                    &control,
                    &mut player,
                    &mut out,
                    &mut Replies(&socket),
                )
                .await;
            }
        }
    });
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

/// The mDNS responder of this laptop and what its records say.
struct Responder {
    shared: Shared,
    player: Player,
    default_name: String,
    control_port: u16,
    osc_port: u16,
    http_port: u16,
    bind: Option<Ipv4Addr>,
}

/// What the records say at one moment.
#[derive(Clone, PartialEq, Eq)]
struct Records {
    name: String,
    ipv4: Option<Ipv4Addr>,
    free: u64,
    playing: String,
}

impl Responder {
    /// The records now, as they look from `peer` (the address it reaches this host by).
    fn records(&self, peer: Ipv4Addr) -> Records {
        let (name, free) = {
            let library = block_on(self.shared.library.lock());
            let name = library
                .settings()
                .name
                .as_ref()
                .map_or_else(|| self.default_name.clone(), |n| n.to_string());
            (name, library.free_bytes())
        };
        let playing = llv_control::Playback::<folder::FolderTake>::playing(&self.player)
            .map(|p| p.take.to_string())
            .unwrap_or_default();
        Records {
            name,
            ipv4: self.bind.or_else(|| local_address_toward(peer)),
            free,
            playing,
        }
    }

    fn identity<'r>(&self, r: &'r Records, ipv4: Ipv4Addr) -> mdns::Identity<'r> {
        mdns::Identity {
            name: &r.name,
            firmware: FIRMWARE,
            ipv4: ipv4.octets(),
            control_port: self.control_port,
            osc_port: self.osc_port,
            http_port: Some(self.http_port),
            free_bytes: r.free,
            playing: &r.playing,
        }
    }

    /// Sends `write`'s message about `records` to the mDNS group.
    fn to_group(
        &self,
        socket: &UdpSocket,
        records: &Records,
        write: fn(&mdns::Identity<'_>, &mut [u8]) -> usize,
    ) {
        let Some(ip) = records.ipv4 else { return };
        let mut out = vec![0u8; mdns::MAX_MESSAGE];
        let n = write(&self.identity(records, ip), &mut out);
        if n > 0 {
            let _ = socket.send_to(&out[..n], (Ipv4Addr::from(mdns::GROUP), mdns::PORT));
        }
    }

    /// Answers mDNS queries until `stop`: announces the records twice at
    /// start (RFC 6762, 8.3), again whenever the name changes (after a
    /// goodbye of the old ones), and says goodbye at the end.
    fn run(&self, socket: &UdpSocket, stop: &AtomicBool) {
        let mut query = vec![0u8; mdns::MAX_MESSAGE];
        let mut out = vec![0u8; mdns::MAX_MESSAGE];
        let _ = socket.set_read_timeout(Some(Duration::from_millis(200)));
        let group = Ipv4Addr::from(mdns::GROUP);
        let mut announced: Option<Records> = None;
        let mut second_at = Some(Instant::now() + Duration::from_secs(1));
        while !stop.load(Ordering::Relaxed) {
            let now = self.records(group);
            let renamed = announced.as_ref().is_some_and(|before| {
                before.ipv4.zip(now.ipv4).is_some_and(|(b, a)| {
                    mdns::needs_goodbye(&self.identity(before, b), &self.identity(&now, a))
                })
            });
            if renamed {
                if let Some(before) = &announced {
                    self.to_group(socket, before, mdns::goodbye);
                }
            }
            let again = second_at.is_some_and(|at| Instant::now() >= at);
            if announced.is_none() || renamed || again {
                self.to_group(socket, &now, mdns::announce);
                if again {
                    second_at = None;
                }
                announced = Some(now);
            }
            let Ok((len, SocketAddr::V4(from))) = socket.recv_from(&mut query) else {
                continue;
            };
            let records = self.records(*from.ip());
            let Some(ip) = records.ipv4 else { continue };
            let n = mdns::answer(
                &self.identity(&records, ip),
                &query[..len],
                from.port(),
                &mut out,
            );
            if n > 0 {
                let (to, port) = mdns::reply_to((from.ip().octets(), from.port()));
                let _ = socket.send_to(&out[..n], (Ipv4Addr::from(to), port));
            }
        }
        if let Some(last) = &announced {
            self.to_group(socket, last, mdns::goodbye);
        }
    }
}
