//! The OSC front door (`docs/show-control.md`): show tools (QLab, Companion,
//! Chataigne, lighting desks) drive the box with OSC messages over UDP and
//! TCP. Each message becomes the same [`Request`] the binary protocol sends
//! and goes through the same [`Session::handle`], so the two doors cannot
//! disagree: the token, the locked box and the wrong-token penalties apply
//! to OSC exactly as to `llv`.
//!
//! | address | arguments | request |
//! |---|---|---|
//! | `/llv/connect` | `[token]` | `Hello` |
//! | `/llv/play` | `take [loops]` (0 loops forever; 1 by default) | `Play` to the configured targets |
//! | `/llv/chase` | `take [offset]` (`HH:MM:SS:FF`; the take's own timecode by default) | `Play` following Art-Net timecode |
//! | `/llv/stop` | | `Stop` |
//! | `/llv/status` | | `Status` |
//! | `/llv/takes` | | `List` |
//! | `/llv/subscribe` | `[seconds]` (3600 by default, 0 ends it) | the state pushed on every change and each second |
//!
//! Every message gets one reply `/reply<address>` whose one string argument
//! is JSON `{"address":...,"status":"ok"|"error"|"denied","data":...}`
//! (QLab's convention): over TCP on the same connection, over UDP to the
//! sender and also to the configured reply port ([`UdpDoor`]). Without a
//! token on the box no `/llv/connect` is needed; with one, a client that has
//! not connected is `denied`. A packet that does not parse gets one
//! `/llv/error` reply; replies and pushes themselves (`/reply...`,
//! `/llv/state`, `/llv/error`) are never answered, so two boxes cannot
//! answer each other forever. Of a bundle, the first [`MAX_MESSAGES`]
//! messages run (time tags are not waited for) and the rest are refused in
//! one `/llv/error`.
//!
//! A subscriber gets `/llv/state ,isiiss` (playing 1 or 0, take, frame, loops
//! done, chase state or `off`, the timecode chased or `""`): at once, whenever
//! the take, playing, the loop count or the chase state changes
//! (looked at every [`PUSH_POLL`]), and every [`HEARTBEAT`].

use core::sync::atomic::AtomicBool;

use embassy_futures::select::{select, Either};
use embassy_sync::blocking_mutex::raw::RawMutex;
use embassy_time::{with_deadline, Duration, Instant, Timer};
use embedded_io_async::{Read, Write};
use heapless::String;
use llv_core::artnet::Label;
use llv_core::chase::ChaseState;
use llv_core::control::{
    ErrorCode, FaultCode, Playing, Request, Response, Start, Status, TakeInfo, PROTOCOL_VERSION,
};
use llv_core::osc::{
    size_prefix, Arg, Framing, Message, OscError, Packet, SlipDecoder, SlipEvent, SIZE_PREFIX_LEN,
    SLIP_END, SLIP_ESC, SLIP_ESC_END, SLIP_ESC_ESC,
};
use llv_core::settings::ChaseSpec;
use llv_core::take::NAME_LEN;

use crate::connection::{Control, Ended};
use crate::json::Json;
use crate::library::TakeLibrary;
use crate::session::{Device, Pending, Session, Step, Verdict};

/// Largest OSC packet the door reads (a UDP datagram or one stream frame);
/// a larger one gets an error reply.
pub const MAX_PACKET: usize = 512;
/// Largest reply packet (fits one Ethernet frame over UDP; a list of takes
/// that does not fit says how many more there are).
pub const MAX_REPLY: usize = 1024;
/// Messages of one packet (a bundle) the door runs.
pub const MAX_MESSAGES: usize = 8;
/// UDP clients remembered at once (their sessions and subscriptions).
pub const UDP_CLIENTS: usize = 4;
/// How often a subscriber gets the state when nothing changes.
pub const HEARTBEAT: Duration = Duration::from_secs(1);
/// How often the door looks for a change to push.
pub const PUSH_POLL: Duration = Duration::from_millis(50);
/// A subscription's length without a `seconds` argument.
pub const DEFAULT_SUBSCRIPTION_S: u32 = 3600;
/// The longest subscription.
pub const MAX_SUBSCRIPTION_S: u32 = 86_400;
/// Where the state goes to subscribers.
pub const STATE_ADDRESS: &str = "/llv/state";
/// Where a packet that does not parse, or the rest of a too long bundle, is answered.
pub const ERROR_ADDRESS: &str = "/llv/error";
/// A stream frame must arrive whole within this of its first byte.
pub const FRAME_LIMIT: Duration = Duration::from_secs(5);
/// A TCP connection without input (and without a subscription) is closed after this.
pub const IDLE_LIMIT: Duration = Duration::from_secs(60);

/// The reply's status field.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum ReplyStatus {
    /// Done.
    Ok,
    /// Refused: bad arguments, no such take, ...
    Error,
    /// Not allowed: no token, a wrong token, a locked box.
    Denied,
}

impl ReplyStatus {
    fn as_str(self) -> &'static str {
        match self {
            ReplyStatus::Ok => "ok",
            ReplyStatus::Error => "error",
            ReplyStatus::Denied => "denied",
        }
    }
}

/// How a wrong `/llv/connect` token is paid for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PenaltyMode {
    /// The reply waits the source's penalty, then the connection closes
    /// (TCP: the binary protocol's rule).
    Wait,
    /// The reply goes at once, and the source's tokens are refused unread
    /// until its penalty is over (UDP: one guesser must not hold up the
    /// door that every client shares).
    LockOut,
}

/// What handling one message asks of the caller.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Handled {
    /// The reply's length at the start of the output buffer (0: no reply).
    pub reply: usize,
    /// Wait this long before sending the reply (a wrong token, [`PenaltyMode::Wait`]).
    pub wait: Option<Duration>,
    /// End the connection after the reply (a refused `/llv/connect` over TCP).
    pub close: bool,
}

/// What changed state is: the take playing (empty when stopped) and its loop count.
#[derive(Clone, Debug, PartialEq, Eq)]
struct StateKey {
    take: String<NAME_LEN>,
    playing: bool,
    loops_done: u32,
    chase: Option<ChaseState>,
}

impl StateKey {
    fn of(playing: Option<&Playing>) -> Self {
        match playing {
            Some(p) => StateKey {
                take: p.take.clone(),
                playing: true,
                loops_done: p.loops_done,
                chase: p.chase.map(|c| c.state),
            },
            None => StateKey {
                take: String::new(),
                playing: false,
                loops_done: 0,
                chase: None,
            },
        }
    }
}

/// A client's subscription to the state.
#[derive(Clone, Debug, Default)]
pub struct Subscription {
    until: Option<Instant>,
    last: Option<StateKey>,
    next_beat: Option<Instant>,
}

impl Subscription {
    /// Subscribes for `seconds` from `now` (0 ends the subscription).
    pub fn start(&mut self, now: Instant, seconds: u32) {
        *self = Subscription::default();
        if seconds > 0 {
            self.until = Some(now + Duration::from_secs(u64::from(seconds)));
        }
    }

    /// Whether it runs at `now`.
    pub fn active(&self, now: Instant) -> bool {
        self.until.is_some_and(|until| now < until)
    }

    /// Whether the state `playing` is due to be pushed at `now`: it changed,
    /// or a heartbeat is due. Counts it as pushed.
    pub fn due(&mut self, now: Instant, playing: Option<&Playing>) -> bool {
        if !self.active(now) {
            self.until = None;
            return false;
        }
        let key = StateKey::of(playing);
        let changed = self.last.as_ref() != Some(&key);
        let beat = self.next_beat.is_none_or(|at| now >= at);
        if changed || beat {
            self.last = Some(key);
            self.next_beat = Some(now + HEARTBEAT);
            true
        } else {
            false
        }
    }
}

/// One OSC client: its control session (token proved or not, the box's
/// locked state) and its subscription.
pub struct Client {
    session: Session,
    /// The client's subscription to the state.
    pub subscription: Subscription,
}

impl Client {
    /// A client of a box running `firmware`.
    pub fn new(firmware: &'static str) -> Self {
        Client {
            session: Session::new(firmware),
            subscription: Subscription::default(),
        }
    }
}

/// What a message asks for.
#[allow(
    clippy::large_enum_variant,
    reason = "no heap to box into: one command lives at a time"
)]
enum Command<'a> {
    Request(Request<'a>),
    Subscribe(u32),
}

/// The command of `m`, or why it has none.
fn command<'a>(m: &Message<'a>) -> Result<Command<'a>, &'static str> {
    let mut args = m.args();
    let command = match m.address {
        "/llv/connect" => match args.next() {
            None | Some(Arg::Nil) => Command::Request(Request::Hello {
                protocol: PROTOCOL_VERSION,
                token: None,
            }),
            Some(Arg::Str(token)) => Command::Request(Request::Hello {
                protocol: PROTOCOL_VERSION,
                token: Some(token),
            }),
            Some(_) => return Err("/llv/connect takes the token as a string"),
        },
        "/llv/play" => {
            let Some(Arg::Str(name)) = args.next() else {
                return Err("/llv/play takes a take name (string), then loops (0 = forever)");
            };
            let loop_count = match args.next() {
                None => 1,
                Some(a) => a
                    .as_count()
                    .and_then(|n| u32::try_from(n).ok())
                    .ok_or("/llv/play: loops is a whole number from 0 (forever)")?,
            };
            Command::Request(Request::Play {
                name,
                targets: heapless::Vec::new(),
                loop_count,
                start: Start::Now,
            })
        }
        "/llv/chase" => {
            let Some(Arg::Str(name)) = args.next() else {
                return Err("/llv/chase takes a take name (string), then an offset HH:MM:SS:FF");
            };
            let offset = match args.next() {
                None => None,
                Some(Arg::Str(text)) => {
                    Some(Label::parse(text).ok_or("/llv/chase: the offset is HH:MM:SS:FF")?)
                }
                Some(_) => return Err("/llv/chase: the offset is a string HH:MM:SS:FF"),
            };
            Command::Request(Request::Play {
                name,
                targets: heapless::Vec::new(),
                loop_count: 0,
                start: Start::Chase(ChaseSpec {
                    offset,
                    ..ChaseSpec::DEFAULT
                }),
            })
        }
        "/llv/stop" => Command::Request(Request::Stop),
        "/llv/status" => Command::Request(Request::Status),
        "/llv/takes" => Command::Request(Request::List),
        "/llv/subscribe" => match args.next() {
            None => Command::Subscribe(DEFAULT_SUBSCRIPTION_S),
            Some(a) => Command::Subscribe(
                a.as_count()
                    .and_then(|n| u32::try_from(n).ok())
                    .map(|s| s.min(MAX_SUBSCRIPTION_S))
                    .ok_or("/llv/subscribe: seconds is a whole number (0 ends it)")?,
            ),
        },
        _ => {
            return Err(
                "unknown address: /llv/connect, play, chase, stop, status, takes, subscribe",
            )
        }
    };
    if args.next().is_some() {
        return Err("too many arguments");
    }
    Ok(command)
}

/// Whether a message is one the door never answers (a reply or a push).
fn unanswered(address: &str) -> bool {
    address.starts_with("/reply") || address == STATE_ADDRESS || address == ERROR_ADDRESS
}

/// Handles one message of `client` from `source`: runs its request through
/// the client's session and writes the reply into `out`.
pub async fn handle_message<M, L, D>(
    m: &Message<'_>,
    client: &mut Client,
    source: [u8; 4],
    mode: PenaltyMode,
    control: &Control<'_, M, L>,
    device: &mut D,
    out: &mut [u8; MAX_REPLY],
) -> Handled
where
    M: RawMutex,
    L: TakeLibrary,
    D: Device<L::Take>,
{
    if unanswered(m.address) {
        return Handled {
            reply: 0,
            wait: None,
            close: false,
        };
    }
    let library = control.library.lock().await;
    // Everything is done without waiting: OSC asks for nothing that waits on
    // the library (uploads, deletes and settings are the binary protocol's),
    // so the door's futures hold no request, response or library work.
    match prepare(m, client, source, mode, control, &*library, device, out) {
        Ok(_) => {
            let mut handled = Handled {
                reply: 0,
                wait: None,
                close: false,
            };
            handled.reply = reply(out, m.address, ReplyStatus::Error, |j| {
                j.string("not over OSC")
            });
            handled
        }
        Err(handled) => handled,
    }
}

/// The part of [`handle_message`] that does not wait: the reply, or (with
/// whether it is a `/llv/connect`) what waits on the library.
#[allow(
    clippy::too_many_arguments,
    reason = "one call site, all of the message's context"
)]
fn prepare<'m, M, L, D>(
    m: &Message<'m>,
    client: &mut Client,
    source: [u8; 4],
    mode: PenaltyMode,
    control: &Control<'_, M, L>,
    library: &L,
    device: &mut D,
    out: &mut [u8; MAX_REPLY],
) -> Result<(bool, Pending<'m>), Handled>
where
    M: RawMutex,
    L: TakeLibrary,
    D: Device<L::Take>,
{
    let mut handled = Handled {
        reply: 0,
        wait: None,
        close: false,
    };
    let command = match command(m) {
        Ok(c) => c,
        Err(why) => {
            handled.reply = reply(out, m.address, ReplyStatus::Error, |j| j.string(why));
            return Err(handled);
        }
    };
    let connect = matches!(command, Command::Request(Request::Hello { .. }));
    if connect && mode == PenaltyMode::LockOut {
        if let Some(left) = control.penalties.lockout(source) {
            handled.reply = reply(out, m.address, ReplyStatus::Denied, |j| {
                j.raw("\"wrong token lately: try again in ");
                j.uint(left.as_millis().div_ceil(1000));
                j.raw(" s\"");
            });
            return Err(handled);
        }
    }
    if !connect && !client.session.is_authenticated(library) {
        // No token on the box: no /llv/connect needed.
        let hello = Request::Hello {
            protocol: PROTOCOL_VERSION,
            token: None,
        };
        if let Step::Done(Response::Error { detail, .. }) =
            client.session.start(hello, library, device)
        {
            handled.reply = reply(out, m.address, ReplyStatus::Denied, |j| {
                j.string(&detail);
                if detail.as_str() == "this box needs a token" {
                    j.reset(j.mark() - 1);
                    j.raw(": send /llv/connect TOKEN first\"");
                }
            });
            return Err(handled);
        }
    }
    let step = match command {
        Command::Request(request) => client.session.start(request, library, device),
        Command::Subscribe(seconds) => {
            client.subscription.start(Instant::now(), seconds);
            handled.reply = reply(out, m.address, ReplyStatus::Ok, |j| {
                j.raw("{\"seconds\":");
                j.uint(u64::from(seconds));
                j.raw("}");
            });
            return Err(handled);
        }
    };
    match step {
        Step::Done(response) => Err(answered(
            m.address, connect, &response, client, source, mode, control, out,
        )),
        Step::Wait(pending) => Ok((connect, pending)),
    }
}

/// The reply to `response`, and what a `/llv/connect`'s verdict asks.
#[allow(
    clippy::too_many_arguments,
    reason = "one call site each, all of the message's context"
)]
fn answered<M: RawMutex, L>(
    address: &str,
    connect: bool,
    response: &Response,
    client: &Client,
    source: [u8; 4],
    mode: PenaltyMode,
    control: &Control<'_, M, L>,
    out: &mut [u8; MAX_REPLY],
) -> Handled {
    let mut handled = Handled {
        reply: 0,
        wait: None,
        close: false,
    };
    if connect {
        match client.session.verdict() {
            Verdict::Continue => {}
            Verdict::Close => handled.close = true,
            Verdict::Penalize => {
                let delay = control.penalties.wrong_token(source);
                if mode == PenaltyMode::Wait {
                    handled.wait = Some(delay);
                    handled.close = true;
                }
            }
        }
    }
    handled.reply = response_reply(out, address, response);
    handled
}

/// The reply to `response`.
fn response_reply(out: &mut [u8; MAX_REPLY], address: &str, response: &Response) -> usize {
    match response {
        Response::Error { code, detail } => {
            let status = if *code == ErrorCode::Unauthorized {
                ReplyStatus::Denied
            } else {
                ReplyStatus::Error
            };
            reply(out, address, status, |j| j.string(detail))
        }
        Response::Ok => reply(out, address, ReplyStatus::Ok, |j| j.raw("null")),
        Response::Hello { protocol, firmware } => reply(out, address, ReplyStatus::Ok, |j| {
            j.raw("{\"protocol\":");
            j.uint(u64::from(*protocol));
            j.raw(",\"firmware\":");
            j.string(firmware);
            j.raw("}");
        }),
        Response::Status(status) => {
            reply(out, address, ReplyStatus::Ok, |j| status_json(j, status))
        }
        Response::List { takes } => reply(out, address, ReplyStatus::Ok, |j| takes_json(j, takes)),
        // No OSC address asks for the settings or the clock.
        Response::Settings { .. } | Response::Clock { .. } => {
            reply(out, address, ReplyStatus::Ok, |j| j.raw("null"))
        }
    }
}

/// Writes `,"key":n`.
fn number(j: &mut Json<'_>, key: &str, n: u64) {
    j.raw(",");
    j.key(key);
    j.uint(n);
}

fn status_json(j: &mut Json<'_>, s: &Status) {
    j.raw("{");
    j.key("firmware");
    j.string(&s.firmware);
    number(j, "uptime_ms", s.uptime_ms);
    j.raw(",");
    j.key("address");
    match s.address {
        Some(ip) => j.ipv4(ip),
        None => j.raw("null"),
    }
    j.raw(",");
    j.key("playing");
    match &s.playing {
        Some(p) => {
            j.raw("{");
            j.key("take");
            j.string(&p.take);
            number(j, "frame", u64::from(p.frame));
            number(j, "loops_done", u64::from(p.loops_done));
            number(j, "late_frames", u64::from(p.late_frames));
            if let Some(c) = &p.chase {
                j.raw(",");
                j.key("chase");
                j.string(c.state.name());
                j.raw(",");
                j.key("timecode");
                match &c.timecode {
                    Some(tc) => {
                        let mut text: String<12> = String::new();
                        // 11 characters: fits.
                        let _ = core::fmt::write(&mut text, format_args!("{tc}"));
                        j.string(&text);
                    }
                    None => j.raw("null"),
                }
                number(j, "locates", u64::from(c.locates));
            }
            j.raw("}");
        }
        None => j.raw("null"),
    }
    number(j, "used_bytes", u64::from(s.used_bytes));
    number(j, "free_bytes", u64::from(s.free_bytes));
    j.raw(",");
    j.key("faults");
    j.raw("[");
    for (i, f) in s.faults.iter().enumerate() {
        if i > 0 {
            j.raw(",");
        }
        j.raw("{");
        j.key("code");
        j.string(fault_name(f.code));
        j.raw(",");
        j.key("detail");
        j.string(&f.detail);
        j.raw("}");
    }
    j.raw("]}");
}

/// The takes as `[{"name":...,"frames":...,"place":...}]`; when they do not all fit one
/// reply, the ones that do, and `"more":N` after the list.
fn takes_json(j: &mut Json<'_>, takes: &[TakeInfo]) {
    // Room for `],"more":16` after the list and the reply's closing `}`.
    j.reserve(16);
    j.raw("[");
    let mut shown = 0;
    for t in takes {
        let mark = j.mark();
        if shown > 0 {
            j.raw(",");
        }
        j.raw("{");
        j.key("name");
        j.string(&t.name);
        number(j, "frames", u64::from(t.frame_count));
        j.raw(",");
        j.key("place");
        j.string(t.place.as_str());
        j.raw("}");
        if j.overflowed() {
            j.reset(mark);
            break;
        }
        shown += 1;
    }
    j.unreserve();
    j.raw("]");
    if shown < takes.len() {
        j.raw(",\"more\":");
        j.uint((takes.len() - shown) as u64);
    }
}

fn fault_name(code: FaultCode) -> &'static str {
    match code {
        FaultCode::StoreUnusable => "StoreUnusable",
        FaultCode::SettingsUnreadable => "SettingsUnreadable",
        FaultCode::BadStoredSetting => "BadStoredSetting",
        FaultCode::FactoryReset => "FactoryReset",
        FaultCode::WatchdogReset => "WatchdogReset",
        FaultCode::ClockFallback => "ClockFallback",
        FaultCode::CardRemoved => "CardRemoved",
        FaultCode::CardUnusable => "CardUnusable",
    }
}

/// Writes the reply `/reply<address> ,s JSON` into `out`; `data` writes the
/// JSON of its `data` field. Returns its length. A reply whose data cannot
/// fit says so in its data instead.
pub fn reply(
    out: &mut [u8; MAX_REPLY],
    address: &str,
    status: ReplyStatus,
    data: impl FnOnce(&mut Json<'_>),
) -> usize {
    json_message(out, &["/reply", address], Some(address), status, data)
}

/// Writes the `/llv/error` message (`"address":null`) about a packet the
/// door cannot read or run.
pub fn error_reply(out: &mut [u8; MAX_REPLY], why: &str) -> usize {
    json_message(out, &[ERROR_ADDRESS], None, ReplyStatus::Error, |j| {
        j.string(why)
    })
}

/// A message at the address `parts` joined whose one string argument is
/// `{"address":...,"status":...,"data":...}`.
fn json_message(
    out: &mut [u8; MAX_REPLY],
    parts: &[&str],
    address: Option<&str>,
    status: ReplyStatus,
    data: impl FnOnce(&mut Json<'_>),
) -> usize {
    let head = |out: &mut [u8]| -> Option<usize> {
        // The address, NUL, padding, then ",s" and its padding.
        let mut at = 0;
        for part in parts {
            out.get_mut(at..at + part.len())?
                .copy_from_slice(part.as_bytes());
            at += part.len();
        }
        let end = (at + 4) & !3;
        out.get_mut(at..end)?.fill(0);
        out.get_mut(end..end + 4)?.copy_from_slice(b",s\0\0");
        Some(end + 4)
    };
    let Some(head) = head(out) else {
        return 0;
    };
    let (_, body) = out.split_at_mut(head);
    let mut j = Json::new(body);
    // Room for the string's NUL and padding.
    j.reserve(4);
    j.raw("{\"address\":");
    match address {
        Some(a) => j.string(a),
        None => j.raw("null"),
    }
    j.raw(",\"status\":");
    j.string(status.as_str());
    j.raw(",\"data\":");
    let data_at = j.mark();
    data(&mut j);
    if j.overflowed() {
        j.reset(data_at);
        j.string("the reply does not fit one packet");
    }
    j.raw("}");
    if j.overflowed() {
        return 0;
    }
    let len = j.len();
    let end = (head + len + 4) & !3;
    out[head + len..end].fill(0);
    end
}

/// Writes the state message `/llv/state ,isiiss` (playing, take, frame, loops
/// done, chase state or `off`, the last timecode chased or `""`) into `out`;
/// returns its length.
pub fn state_message(out: &mut [u8; MAX_REPLY], playing: Option<&Playing>) -> usize {
    let (on, take, frame, loops) = match playing {
        Some(p) => (1, p.take.as_str(), p.frame, p.loops_done),
        None => (0, "", 0, 0),
    };
    let chase = playing.and_then(|p| p.chase);
    let mut timecode: String<16> = String::new();
    if let Some(tc) = chase.and_then(|c| c.timecode) {
        // "HH:MM:SS:FF" always fits.
        let _ = core::fmt::write(&mut timecode, format_args!("{tc}"));
    }
    let chase = chase.map_or("off", |c| c.state.name());
    let args = [
        Arg::Int(on),
        Arg::Str(take),
        Arg::Int(i32::try_from(frame).unwrap_or(i32::MAX)),
        Arg::Int(i32::try_from(loops).unwrap_or(i32::MAX)),
        Arg::Str(chase),
        Arg::Str(&timecode),
    ];
    llv_core::osc::encode_message(STATE_ADDRESS, &args, out).unwrap_or(0)
}

/// Describes a packet the door cannot read.
fn packet_error(e: OscError, out: &mut [u8; MAX_REPLY]) -> usize {
    let mut text: String<96> = String::new();
    // Cut where the buffer ends.
    let _ = core::fmt::write(&mut text, format_args!("bad OSC packet: {e}"));
    error_reply(out, &text)
}

/// Where the UDP door sends.
#[allow(
    async_fn_in_trait,
    reason = "the firmware's executor is single-threaded"
)]
pub trait ReplySink {
    /// Sends `packet` to `ip`:`port`; failures are dropped (a reply is not
    /// worth holding the door for).
    async fn send_to(&mut self, packet: &[u8], ip: [u8; 4], port: u16);
}

/// A UDP client the door remembers.
struct UdpClient {
    ip: [u8; 4],
    port: u16,
    last: Instant,
    client: Client,
}

/// The OSC door over UDP: remembers [`UDP_CLIENTS`] clients (each with its
/// session and subscription; a new client replaces the least recently heard
/// one without a running subscription, else the least recently heard), and
/// replies to the sender and to the configured reply port.
pub struct UdpDoor {
    firmware: &'static str,
    clients: [Option<UdpClient>; UDP_CLIENTS],
}

impl UdpDoor {
    /// A door of a box running `firmware`.
    pub const fn new(firmware: &'static str) -> Self {
        UdpDoor {
            firmware,
            clients: [const { None }; UDP_CLIENTS],
        }
    }

    fn client(&mut self, ip: [u8; 4], port: u16, now: Instant) -> &mut Client {
        let known = self
            .clients
            .iter()
            .position(|c| c.as_ref().is_some_and(|c| c.ip == ip && c.port == port));
        let slot = known.unwrap_or_else(|| {
            self.clients
                .iter()
                .enumerate()
                .min_by_key(|(_, c)| match c {
                    None => (false, None),
                    Some(c) => (c.client.subscription.active(now), Some(c.last)),
                })
                .map_or(0, |(i, _)| i)
        });
        let fresh = known.is_none();
        let firmware = self.firmware;
        let entry = &mut self.clients[slot];
        if fresh {
            *entry = None;
        }
        let c = entry.get_or_insert_with(|| UdpClient {
            ip,
            port,
            last: now,
            client: Client::new(firmware),
        });
        c.last = now;
        &mut c.client
    }

    /// Handles one datagram from `ip`:`port`: every message's reply goes to
    /// the sender and to the reply port; a subscription starts with the state.
    pub async fn handle<M, L, D, S>(
        &mut self,
        datagram: &[u8],
        (ip, port): ([u8; 4], u16),
        control: &Control<'_, M, L>,
        device: &mut D,
        out: &mut [u8; MAX_REPLY],
        sink: &mut S,
    ) where
        M: RawMutex,
        L: TakeLibrary,
        D: Device<L::Take>,
        S: ReplySink,
    {
        let reply_port = control.library.lock().await.settings().reply_port;
        let send = async |sink: &mut S, packet: &[u8]| {
            sink.send_to(packet, ip, port).await;
            if let Some(also) = reply_port.filter(|p| *p != port) {
                sink.send_to(packet, ip, also).await;
            }
        };
        let packet = match Packet::parse(datagram) {
            Ok(packet) => packet,
            Err(e) => {
                let n = packet_error(e, out);
                send(sink, &out[..n]).await;
                return;
            }
        };
        let now = Instant::now();
        let client = self.client(ip, port, now);
        let mut messages = packet.messages();
        for m in messages.by_ref().take(MAX_MESSAGES) {
            let was_subscribed = client.subscription.active(now);
            let handled =
                handle_message(&m, client, ip, PenaltyMode::LockOut, control, device, out).await;
            if handled.reply > 0 {
                send(sink, &out[..handled.reply]).await;
            }
            if !was_subscribed
                && client
                    .subscription
                    .due(Instant::now(), device.playing().as_ref())
            {
                let n = state_message(out, device.playing().as_ref());
                send(sink, &out[..n]).await;
            }
        }
        if messages.next().is_some() {
            let n = too_many(out);
            send(sink, &out[..n]).await;
        }
    }

    /// Pushes the state to every subscriber it is due to (call every [`PUSH_POLL`]).
    pub async fn push<M, L, D, S>(
        &mut self,
        control: &Control<'_, M, L>,
        device: &D,
        out: &mut [u8; MAX_REPLY],
        sink: &mut S,
    ) where
        M: RawMutex,
        L: TakeLibrary,
        D: Device<L::Take>,
        S: ReplySink,
    {
        let now = Instant::now();
        let playing = device.playing();
        if !self
            .clients
            .iter_mut()
            .flatten()
            .any(|c| c.client.subscription.active(now))
        {
            return;
        }
        let reply_port = control.library.lock().await.settings().reply_port;
        let n = state_message(out, playing.as_ref());
        for c in self.clients.iter_mut().flatten() {
            if c.client.subscription.due(now, playing.as_ref()) {
                sink.send_to(&out[..n], c.ip, c.port).await;
                if let Some(also) = reply_port.filter(|p| *p != c.port) {
                    sink.send_to(&out[..n], c.ip, also).await;
                }
            }
        }
    }
}

/// The `/llv/error` reply to the rest of a too long bundle.
fn too_many(out: &mut [u8; MAX_REPLY]) -> usize {
    error_reply(
        out,
        "the bundle holds more than 8 messages: the rest were not run",
    )
}

/// Memory for one OSC stream connection: the packet being read and the reply.
pub struct OscBuffers {
    packet: [u8; MAX_PACKET],
    out: [u8; MAX_REPLY],
}

impl OscBuffers {
    /// Zeroed buffers.
    pub const fn new() -> Self {
        OscBuffers {
            packet: [0; MAX_PACKET],
            out: [0; MAX_REPLY],
        }
    }
}

impl Default for OscBuffers {
    fn default() -> Self {
        Self::new()
    }
}

/// What reading one stream frame gave.
enum Frame {
    /// A packet of this many bytes at the start of the packet buffer.
    Packet(usize),
    /// A frame that is no packet, and why.
    Bad(&'static str),
    /// No packet yet (only the ENDs between SLIP frames, or an empty packet).
    Nothing,
}

/// Reads up to `buf.len()` bytes, or reports `Closed` / `Failed`.
async fn read_some<T: Read>(io: &mut T, buf: &mut [u8]) -> Result<usize, Ended> {
    match io.read(buf).await {
        Ok(0) => Err(Ended::Closed),
        Ok(n) => Ok(n),
        Err(_) => Err(Ended::Failed),
    }
}

/// Writes `packet` to `io` in `framing`.
async fn send_framed<T: Write>(io: &mut T, framing: Framing, packet: &[u8]) -> Result<(), Ended> {
    let failed = |_| Ended::Failed;
    match framing {
        Framing::SizePrefix => {
            let size = (packet.len() as u32).to_be_bytes();
            io.write_all(&size).await.map_err(failed)?;
            io.write_all(packet).await.map_err(failed)
        }
        Framing::Slip => {
            let mut chunk = [0u8; 64];
            let mut n = 0;
            chunk[n] = SLIP_END;
            n += 1;
            for &b in packet {
                if n + 2 > chunk.len() {
                    io.write_all(&chunk[..n]).await.map_err(failed)?;
                    n = 0;
                }
                match b {
                    SLIP_END => {
                        chunk[n..n + 2].copy_from_slice(&[SLIP_ESC, SLIP_ESC_END]);
                        n += 2;
                    }
                    SLIP_ESC => {
                        chunk[n..n + 2].copy_from_slice(&[SLIP_ESC, SLIP_ESC_ESC]);
                        n += 2;
                    }
                    b => {
                        chunk[n] = b;
                        n += 1;
                    }
                }
            }
            if n + 1 > chunk.len() {
                io.write_all(&chunk[..n]).await.map_err(failed)?;
                n = 0;
            }
            chunk[n] = SLIP_END;
            io.write_all(&chunk[..n + 1]).await.map_err(failed)
        }
    }
}

/// Serves one OSC stream connection (OSC over TCP) from `source` until it
/// ends: the first byte tells the framing (SLIP or size prefix, see
/// [`Framing::detect`]; anything else ends the connection), then each
/// packet's messages are handled as over UDP and answered on the
/// connection. A frame must arrive whole within [`FRAME_LIMIT`]; a
/// connection without input or a running subscription for [`IDLE_LIMIT`]
/// is closed; a connection that sent one message and closed still gets its
/// message run. `authenticated` follows whether the connection proved the
/// token (for a listener choosing whom to drop).
pub async fn serve_osc_connection<T, M, L, D>(
    io: &mut T,
    source: [u8; 4],
    control: &Control<'_, M, L>,
    device: &mut D,
    buffers: &mut OscBuffers,
    authenticated: &AtomicBool,
) -> Ended
where
    T: Read + Write,
    M: RawMutex,
    L: TakeLibrary,
    D: Device<L::Take>,
{
    let mut client = Client::new(control.firmware);
    let OscBuffers { packet, out } = buffers;
    let mut chunk = [0u8; 64];
    let (mut at, mut len) = (0usize, 0usize);
    let mut framing = None;
    let mut slip = SlipDecoder::new();
    let mut idle_since = Instant::now();
    let ended = 'conn: loop {
        // Between packets: wait for input, pushing the state meanwhile.
        if at == len {
            let now = Instant::now();
            if !client.subscription.active(now)
                && now.saturating_duration_since(idle_since) > IDLE_LIMIT
            {
                break Ended::TimedOut;
            }
            match select(io.read(&mut chunk), Timer::after(PUSH_POLL)).await {
                Either::First(Ok(0)) => break Ended::Closed,
                Either::First(Ok(n)) => {
                    (at, len) = (0, n);
                    idle_since = Instant::now();
                }
                Either::First(Err(_)) => break Ended::Failed,
                Either::Second(()) => {
                    let playing = device.playing();
                    if client.subscription.due(Instant::now(), playing.as_ref()) {
                        let n = state_message(out, playing.as_ref());
                        if let Err(e) =
                            send_framed(io, framing.unwrap_or(Framing::Slip), &out[..n]).await
                        {
                            break e;
                        }
                    }
                    continue;
                }
            }
        }
        let framing = match framing {
            Some(f) => f,
            None => match Framing::detect(chunk[at]) {
                Some(f) => *framing.insert(f),
                None => break Ended::Refused,
            },
        };
        // Read one packet whole, within FRAME_LIMIT of its first byte.
        let whole_by = Instant::now() + FRAME_LIMIT;
        let frame = with_deadline(whole_by, async {
            match framing {
                Framing::Slip => loop {
                    while at < len {
                        let b = chunk[at];
                        at += 1;
                        match slip.push(b, packet) {
                            SlipEvent::Pending => {}
                            SlipEvent::Frame(n) => return Ok(Frame::Packet(n)),
                            SlipEvent::Overflow => return Ok(Frame::Bad("packet over 512 bytes")),
                            SlipEvent::BadEscape => return Ok(Frame::Bad("bad SLIP escape")),
                        }
                    }
                    if !slip.in_frame() {
                        // Only ENDs so far: not a packet yet, nothing to time.
                        return Ok(Frame::Nothing);
                    }
                    len = read_some(io, &mut chunk).await?;
                    at = 0;
                },
                Framing::SizePrefix => {
                    let mut prefix = [0u8; SIZE_PREFIX_LEN];
                    let mut got = 0;
                    while got < SIZE_PREFIX_LEN {
                        if at == len {
                            len = read_some(io, &mut chunk).await?;
                            at = 0;
                        }
                        let n = (SIZE_PREFIX_LEN - got).min(len - at);
                        prefix[got..got + n].copy_from_slice(&chunk[at..at + n]);
                        (got, at) = (got + n, at + n);
                    }
                    let size = size_prefix(prefix).ok_or(Ended::Refused)?;
                    let mut got = 0;
                    while got < size {
                        if at == len {
                            len = read_some(io, &mut chunk).await?;
                            at = 0;
                        }
                        let n = (size - got).min(len - at);
                        if let Some(dst) = packet.get_mut(got..got + n) {
                            dst.copy_from_slice(&chunk[at..at + n]);
                        }
                        (got, at) = (got + n, at + n);
                    }
                    Ok(match size {
                        0 => Frame::Nothing,
                        n if n > MAX_PACKET => Frame::Bad("packet over 512 bytes"),
                        n => Frame::Packet(n),
                    })
                }
            }
        })
        .await;
        let size = match frame {
            Err(_) => break Ended::TimedOut,
            Ok(Err(e)) => break e,
            Ok(Ok(Frame::Nothing)) => continue,
            Ok(Ok(Frame::Bad(why))) => {
                let n = error_reply(out, why);
                if let Err(e) = send_framed(io, framing, &out[..n]).await {
                    break e;
                }
                continue;
            }
            Ok(Ok(Frame::Packet(size))) => size,
        };
        let parsed = match Packet::parse(&packet[..size]) {
            Ok(p) => p,
            Err(e) => {
                let n = packet_error(e, out);
                if let Err(e) = send_framed(io, framing, &out[..n]).await {
                    break e;
                }
                continue;
            }
        };
        let mut messages = parsed.messages();
        for m in messages.by_ref().take(MAX_MESSAGES) {
            let was_subscribed = client.subscription.active(Instant::now());
            let handled = handle_message(
                &m,
                &mut client,
                source,
                PenaltyMode::Wait,
                control,
                device,
                out,
            )
            .await;
            authenticated.store(
                client
                    .session
                    .is_authenticated(&*control.library.lock().await),
                core::sync::atomic::Ordering::Relaxed,
            );
            if let Some(wait) = handled.wait {
                Timer::after(wait).await;
            }
            if handled.reply > 0 {
                if let Err(e) = send_framed(io, framing, &out[..handled.reply]).await {
                    break 'conn e;
                }
            }
            if handled.close {
                let _ = io.flush().await;
                break 'conn Ended::Refused;
            }
            let playing = device.playing();
            if !was_subscribed && client.subscription.due(Instant::now(), playing.as_ref()) {
                let n = state_message(out, playing.as_ref());
                if let Err(e) = send_framed(io, framing, &out[..n]).await {
                    break 'conn e;
                }
            }
        }
        if messages.next().is_some() {
            let n = too_many(out);
            if let Err(e) = send_framed(io, framing, &out[..n]).await {
                break e;
            }
        }
    };
    authenticated.store(false, core::sync::atomic::Ordering::Relaxed);
    // A connection that sent its message and closed still gets it answered
    // above; what is left unsent (a reply to a closed peer) is dropped.
    let _ = io.flush().await;
    ended
}
