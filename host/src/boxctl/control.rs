//! `llv box ADDR ...`: ask the box for its state and takes, play, stop, delete, configure.

use std::net::Ipv4Addr;
use std::time::Instant;

use anyhow::{bail, ensure, Result};
use clap::{Args, Subcommand};
use heapless::Vec as BoundedVec;
use llv_core::control::{Place, Request, Response, Start, Status, TakeInfo, TakeRef, Which};
use llv_core::settings::{
    Setting, Settings, Target, HTTP_PORT, MAX_CHANGES, MAX_TARGETS, OSC_PORT,
};
use serde_json::json;

use super::check::CheckArgs;
use super::client::{target, BoxClient};
use super::describe::clock_words;
use super::together;
use crate::args::{ChaseArgs, TokenArgs};
use crate::console::printable;
use crate::playback::chasing::describe;

/// Arguments of `llv box`.
#[derive(Args, Debug)]
#[command(after_help = "\
Examples:
  llv box 192.168.1.50 status
  llv box stage-left list --json                       # a box by its name (mDNS)
  llv box 192.168.1.50 play dao --to 192.168.1.20 --loop
  llv box stage-left stage-right play dao --together   # both start at one instant
  llv box 192.168.1.50 config autoplay dao            # power on and it performs")]
#[command(subcommand_precedence_over_arg = true)]
pub struct BoxArgs {
    /// The box, or several: HOST[:PORT] or its name (NAME or NAME.local,
    /// found by mDNS); control port 11113 by default.
    #[arg(value_name = "ADDR[:PORT]", required = true, num_args = 1..)]
    pub addrs: Vec<String>,
    #[command(flatten)]
    pub token: TokenArgs,
    /// Print the answer as JSON (one line per box when several).
    #[arg(long, global = true)]
    pub json: bool,
    /// What to do.
    #[command(subcommand)]
    pub action: BoxAction,
}

/// What `llv box` does.
#[derive(Subcommand, Debug)]
pub enum BoxAction {
    /// Firmware, uptime, address, playback (and its chase) and flash use.
    #[command(after_help = "\
Examples:
  llv box 192.168.1.50 status
  llv box stage-left stage-right status --json")]
    Status,
    /// The stored takes with their frame count, size and CRC.
    #[command(after_help = "\
Examples:
  llv box 192.168.1.50 list
  llv box stage-left list --json")]
    List,
    /// Play a stored take (once, or forever with --loop), now, together with
    /// the other boxes given, or following the show's timecode.
    #[command(after_help = "\
Examples:
  llv box stage-left play dao --loop
  llv box 192.168.1.50 play dao --to 192.168.1.20 --to 192.168.1.21
  llv box stage-left stage-right play dao --together   # same instant on both
  llv box stage-left play dao --chase --offset 01:00:00:00")]
    Play {
        /// Take name: NAME (the flash's copy first), flash:NAME or card:NAME.
        name: String,
        /// Where to send frames, HOST[:PORT] (port 11111 by default); repeatable,
        /// at most 4; none uses the box's configured targets.
        #[arg(long = "to", value_name = "HOST[:PORT]")]
        to: Vec<String>,
        /// Loop until stopped.
        #[arg(long = "loop")]
        forever: bool,
        /// Start every box given at the same instant: their clocks are
        /// measured over the control connection first.
        #[arg(long, conflicts_with = "chase")]
        together: bool,
        /// Follow the show's Art-Net timecode (the box listens on UDP 6454).
        #[arg(long)]
        chase: bool,
        #[command(flatten)]
        chase_args: ChaseArgs,
    },
    /// Stop playback.
    #[command(after_help = "\
Examples:
  llv box 192.168.1.50 stop
  llv box stage-left stage-right stop")]
    Stop,
    /// Turn the live relay on or off now (its settings: `config live-...`).
    #[command(after_help = "\
Examples:
  llv box 192.168.1.50 live on
  llv box 192.168.1.50 config live-buffer 3 live-idle idle live-record on
  llv box stage-left live off")]
    Live {
        /// on or off.
        #[arg(value_parser = ["on", "off"])]
        state: String,
    },
    /// Delete a stored take.
    #[command(after_help = "\
Examples:
  llv box 192.168.1.50 delete dao
  llv box 192.168.1.50 delete card:dao       # the card's, when the flash holds a dao too")]
    Delete {
        /// Take name: NAME, or flash:NAME / card:NAME when both places hold one.
        name: String,
    },
    /// Show the settings, or change them with KEY VALUE pairs.
    ///
    /// Keys: targets HOST[:PORT],...|none; autoplay NAME|none; autoplay-loops N (0 = forever);
    /// subject NAME|none; address IP/PREFIX[,GATEWAY]|dhcp; token TOKEN|none;
    /// name NAME|none (the box's network name, NAME.local); osc-port N|default;
    /// reply-port N|none (replies to OSC also go to this port of the sender);
    /// chase own|HH:MM:SS:FF|off (autoplay follows Art-Net timecode, its first
    /// frame at its own timecode or at this one); chase-stream N;
    /// chase-freewheel SECONDS; chase-hold on|off; live on|off (relay from
    /// power-up); live-port N; live-subject NAME|none; live-from IP|none;
    /// live-buffer N (0-6); live-timeout SECONDS; live-fade SECONDS;
    /// live-return K; live-idle TAKE|none; live-pass-other on|off; live-record on|off.
    /// http-port N|default (the page and HTTP API, from the next power-up).
    #[command(after_help = "\
Examples:
  llv box 192.168.1.50 config                                   # show the settings
  llv box 192.168.1.50 config targets 192.168.1.20,192.168.1.21 autoplay dao
  llv box 192.168.1.50 config address 192.168.1.50/24,192.168.1.1 name stage-left
  llv box stage-left config autoplay dao chase own chase-freewheel 10
  llv box stage-left config token none reply-port 9001")]
    Config {
        /// KEY VALUE pairs.
        #[arg(value_name = "KEY VALUE")]
        pairs: Vec<String>,
    },
    /// The bench check of a box: plays a take to this computer (rate,
    /// lateness), uploads while it plays, asks for a power cycle and checks
    /// the autoplay, reads the clock source and the faults, and prints one
    /// report with pass or fail per item, ready to paste into an issue.
    #[command(after_help = "\
Examples:
  llv box 192.168.1.50 check                      # from the repository's root
  llv box 192.168.1.50 check --seconds 30 --no-reboot > bench-report.md
  llv box 192.168.1.50 check --to 192.168.1.20:11111 --listen 0.0.0.0:11111")]
    Check(CheckArgs),
}

/// Runs `llv box`: the action on each box given, in order.
pub fn run(args: &BoxArgs) -> Result<()> {
    let token = args.token.token()?;
    if let BoxAction::Check(check) = &args.action {
        let [addr] = args.addrs.as_slice() else {
            bail!("check one box at a time");
        };
        return super::check::run(addr, token.as_deref(), check, args.json);
    }
    let mut clients = args
        .addrs
        .iter()
        .map(|a| BoxClient::connect(a, token.as_deref()))
        .collect::<Result<Vec<_>>>()?;
    if let BoxAction::Play {
        name,
        to,
        forever,
        together: true,
        ..
    } = &args.action
    {
        return play_together(&mut clients, name, to, *forever, args.json);
    }
    let several = clients.len() > 1;
    for client in &mut clients {
        if several && !args.json {
            crate::outln!("== {}", client.addr());
        }
        act(client, &args.action, args.json)?;
    }
    Ok(())
}

/// Does `action` on one box.
fn act(client: &mut BoxClient, action: &BoxAction, json: bool) -> Result<()> {
    match action {
        BoxAction::Status => {
            let Response::Status(status) = client.call(&Request::Status)? else {
                bail!("the box answered Status with something else");
            };
            if json {
                crate::outln!("{}", serde_json::to_string(&status)?);
            } else {
                print_status(client, &status);
            }
        }
        BoxAction::List => {
            let takes = client.list_all()?;
            if json {
                crate::outln!("{}", serde_json::to_string(&takes)?);
            } else {
                print_list(&takes);
            }
        }
        BoxAction::Play {
            name,
            to,
            forever,
            chase,
            chase_args,
            ..
        } => {
            let start = if *chase {
                Start::Chase(chase_args.spec()?)
            } else {
                Start::Now
            };
            let place = where_is(client, name, false)?;
            client.call(&play_request(name, to, *forever, start)?)?;
            let take = TakeRef::parse(name).name;
            let from = place.map_or(String::new(), |p| format!(" from the {}", p.as_str()));
            let how = if *chase {
                format!(
                    ", following Art-Net timecode from {}",
                    chase_args.offset_text()
                )
            } else {
                String::new()
            };
            done_at(json, &format!("playing {take}{from}{how}"), place);
        }
        BoxAction::Stop => {
            client.call(&Request::Stop)?;
            done(json, "stopped");
        }
        BoxAction::Live { state } => {
            let on = state == "on";
            client.call(&Request::Live { on })?;
            done(
                json,
                if on {
                    "live relay on"
                } else {
                    "live relay off"
                },
            );
        }
        BoxAction::Delete { name } => {
            let place = where_is(client, name, true)?;
            client.call(&Request::Delete { name })?;
            let take = TakeRef::parse(name).name;
            let from = place.map_or(String::new(), |p| format!(" from the {}", p.as_str()));
            done_at(json, &format!("deleted {take}{from}"), place);
        }
        BoxAction::Config { pairs } => {
            if !pairs.is_empty() {
                let current = settings(client)?.0;
                let changes = parse_changes(pairs, current)?;
                client.call(&Request::SetSettings { changes })?;
                if let Response::Status(status) = client.call(&Request::Status)? {
                    if status.wear.settings_pending {
                        eprintln!(
                            "note: in use now, written to flash within {} s (the box writes \
                             its settings at most that often); a power cut before then loses them",
                            llv_control::pace::SETTINGS_EVERY.as_secs()
                        );
                    }
                }
            }
            let (settings, token_set) = settings(client)?;
            let Response::Status(status) = client.call(&Request::Status)? else {
                bail!("the box answered Status with something else");
            };
            if json {
                let out = json!({
                    "settings": settings,
                    "token_set": token_set,
                    "in_use": {
                        "address": status.address.map(Ipv4Addr::from),
                        "osc_port": status.osc_port,
                    },
                });
                crate::outln!("{}", serde_json::to_string(&out)?);
            } else {
                print_settings(&settings, token_set, &status);
            }
        }
        // `run` checks one box before connecting to any.
        BoxAction::Check(_) => bail!("check one box at a time"),
    }
    Ok(())
}

/// A Play request.
fn play_request<'a>(
    name: &'a str,
    to: &[String],
    forever: bool,
    start: Start,
) -> Result<Request<'a>> {
    ensure!(
        to.len() <= MAX_TARGETS,
        "at most {MAX_TARGETS} --to targets"
    );
    let mut targets = BoundedVec::<Target, MAX_TARGETS>::new();
    for t in to {
        // Cannot overflow: checked above.
        let _ = targets.push(target(t)?);
    }
    Ok(Request::Play {
        name,
        targets,
        loop_count: if forever { 0 } else { 1 },
        start,
    })
}

/// `play --together`: measures every box's clock, then tells each to start
/// when its clock reaches the common instant.
fn play_together(
    clients: &mut [BoxClient],
    name: &str,
    to: &[String],
    forever: bool,
    json: bool,
) -> Result<()> {
    let epoch = Instant::now();
    let offsets = clients
        .iter_mut()
        .map(|c| together::measure(c, epoch))
        .collect::<Result<Vec<_>>>()?;
    let (starts, ahead) = together::starts(&offsets, epoch);
    for (client, start) in clients.iter_mut().zip(starts) {
        client.call(&play_request(name, to, forever, start)?)?;
    }
    if json {
        let boxes: Vec<_> = clients
            .iter()
            .zip(&offsets)
            .map(|(c, o)| json!({"box": c.addr().to_string(), "offset_us": o.offset_us, "rtt_us": o.rtt_us}))
            .collect();
        crate::outln!(
            "{}",
            json!({ "ok": true, "start_in_us": ahead.as_micros() as u64, "boxes": boxes })
        );
    } else {
        for (client, o) in clients.iter().zip(&offsets) {
            crate::outln!(
                "{}: clock measured within {:.2} ms",
                client.addr(),
                o.rtt_us as f64 / 2000.0
            );
        }
        crate::outln!(
            "playing {name} on {} boxes together, {:.0} ms from now",
            clients.len(),
            ahead.as_secs_f64() * 1e3
        );
    }
    Ok(())
}

/// Where the box acts on the take `name` (`NAME`, `flash:NAME` or
/// `card:NAME`): its list read through the box's own rule
/// ([`TakeRef::which`]); `None` when it has no such take (the box then
/// refuses, naming it).
fn where_is(client: &mut BoxClient, name: &str, deleting: bool) -> Result<Option<Place>> {
    let take = TakeRef::parse(name);
    let takes = client.list_all()?;
    let on = |place| {
        takes
            .iter()
            .any(|t| t.name.as_str() == take.name && t.place == place)
    };
    Ok(
        match take.which(on(Place::Internal), on(Place::Card), deleting) {
            Which::At(place) => Some(place),
            Which::Missing | Which::Both => None,
        },
    )
}

/// [`done`] for a command on one take: its place goes into the JSON too.
fn done_at(json: bool, what: &str, place: Option<Place>) {
    if json {
        let place = place.map(Place::as_str);
        crate::outln!("{}", json!({ "ok": true, "place": place }));
    } else {
        crate::outln!("{what}");
    }
}

fn done(json: bool, what: &str) {
    if json {
        crate::outln!("{}", json!({ "ok": true }));
    } else {
        crate::outln!("{what}");
    }
}

fn settings(client: &mut BoxClient) -> Result<(Settings, bool)> {
    match client.call(&Request::GetSettings)? {
        Response::Settings {
            settings,
            token_set,
        } => Ok((settings, token_set)),
        _ => bail!("the box answered GetSettings with something else"),
    }
}

/// Turns KEY VALUE pairs into setting changes (the one grammar,
/// `Setting::parse`), each on top of the ones before. Target hosts may be
/// names: they are looked up first.
fn parse_changes(
    pairs: &[String],
    mut current: Settings,
) -> Result<BoundedVec<Setting, MAX_CHANGES>> {
    ensure!(
        pairs.len().is_multiple_of(2),
        "config takes KEY VALUE pairs; {:?} has no value",
        pairs.last()
    );
    let mut changes = BoundedVec::new();
    for pair in pairs.chunks(2) {
        let (key, value) = (pair[0].as_str(), pair[1].as_str());
        let resolved;
        let value = if key == "targets" && value != "none" {
            let targets = value
                .split(',')
                .filter(|t| !t.is_empty())
                .map(|t| target(t).map(|t| t.to_string()))
                .collect::<Result<Vec<_>>>()?;
            resolved = targets.join(",");
            resolved.as_str()
        } else {
            value
        };
        let change = Setting::parse(key, value, &current).map_err(|e| anyhow::anyhow!("{e}"))?;
        current.apply(&change);
        changes
            .push(change)
            .map_err(|_| anyhow::anyhow!("at most {MAX_CHANGES} changes at once"))?;
    }
    Ok(changes)
}

/// Whether the status is `llv serve`'s (a folder, its own ports) rather than a box's.
fn is_serve(s: &Status) -> bool {
    s.firmware.starts_with("llv-serve")
}

/// The address in use, as words.
fn in_use_address(s: &Status) -> String {
    match s.address {
        Some([0, 0, 0, 0]) => "every interface of this host (0.0.0.0)".into(),
        Some(ip) => Ipv4Addr::from(ip).to_string(),
        None => "none yet".into(),
    }
}

/// A byte count as people read it: `36154 bytes (35.3 KiB)`.
fn bytes(n: u64) -> String {
    const UNITS: [&str; 4] = ["KiB", "MiB", "GiB", "TiB"];
    let mut value = n as f64;
    let mut unit = None;
    for u in UNITS {
        if value < 1024.0 {
            break;
        }
        value /= 1024.0;
        unit = Some(u);
    }
    match unit {
        Some(u) => format!("{n} bytes ({value:.1} {u})"),
        None => format!("{n} bytes"),
    }
}

fn print_status(client: &BoxClient, s: &Status) {
    let secs = s.uptime_ms / 1000;
    crate::outln!(
        "box {}, firmware {}, up {}:{:02}:{:02}",
        client.addr(),
        printable(&s.firmware),
        secs / 3600,
        secs / 60 % 60,
        secs % 60
    );
    crate::outln!("address  {}", in_use_address(s));
    crate::outln!("osc      port {} (UDP and TCP)", s.osc_port);
    match &s.playing {
        Some(p) if p.sending() => {
            crate::outln!(
                "playing  {}, frame {}, {} loops done, {} frames late (latest {:.1} ms)",
                printable(&p.take),
                p.frame,
                p.loops_done,
                p.late_frames,
                f64::from(p.max_late_us) / 1000.0
            );
        }
        // A chase that sends nothing now: it waits for, locks to or lost its timecode.
        Some(p) => {
            let why = p.chase.map_or("", |c| describe(c.state));
            crate::outln!(
                "chasing  {}, sending nothing ({why}); it plays when timecode runs, until stopped",
                printable(&p.take)
            );
        }
        None => match &s.last {
            Some(l) => crate::outln!(
                "playing  nothing; the last playback: {}, {} frames sent, {} late, {} dropped, {}",
                printable(&l.take),
                l.frames,
                l.late_frames,
                l.dropped,
                l.ended.name()
            ),
            None => crate::outln!("playing  nothing"),
        },
    }
    if let Some(l) = &s.live {
        let state = ["waiting for the phone", "live", "fallback", "returning"];
        crate::outln!(
            "live     {}: source {:.3} Hz, jitter {:.1} ms, {} frames in, {} lost, {} not face, \
             {} fallbacks, {} returns, {} bytes recorded",
            state.get(usize::from(l.state)).unwrap_or(&"returning"),
            f64::from(l.rate_mhz) / 1000.0,
            f64::from(l.jitter_us) / 1000.0,
            l.frames_in,
            l.lost,
            l.not_face,
            l.fallbacks,
            l.returns,
            l.recorded_bytes
        );
        for (fallback, at_ms) in &l.switches {
            let kind = if *fallback { "fallback" } else { "return" };
            crate::outln!("  {kind} at {:.3} s", *at_ms as f64 / 1000.0);
        }
    }
    if let Some(p) = &s.playing {
        if p.read_ahead_low != u32::MAX {
            crate::outln!(
                "  read-ahead held {} frames at its lowest",
                p.read_ahead_low
            );
        }
        for t in &p.targets {
            crate::outln!(
                "  to {:<21} {} sent, {} dropped",
                t.target,
                t.sent,
                t.dropped
            );
        }
        if let Some(c) = &p.chase {
            let at = c.timecode.map_or("no timecode yet".to_string(), |tc| {
                format!("at {tc} ({})", tc.kind.rate())
            });
            crate::outln!(
                "chase    {} {at}, {} locates, {} timecode frames, {} bad packets ignored",
                c.state.name(),
                c.locates,
                c.timecode_frames,
                c.bad_packets
            );
        }
    }
    crate::outln!(
        "{}    {} used, {} free",
        if is_serve(s) { "folder" } else { "flash " },
        bytes(s.used_bytes),
        bytes(s.free_bytes)
    );
    let w = &s.wear;
    crate::outln!(
        "wear     since power-up: {} settings writes ({} saves unchanged, {} merged){}, \
         {} settings erases, {} take erases",
        w.settings_writes,
        w.settings_unchanged,
        w.settings_coalesced,
        if w.settings_pending {
            "; the last saved settings are not written yet"
        } else {
            ""
        },
        w.settings_erases,
        w.take_erases
    );
    if let Some(c) = &s.card {
        let scanning = if c.scanning { ", scanning" } else { "" };
        crate::outln!("card     {} takes{scanning}", c.takes);
        if c.bad_files > 0 {
            let names: Vec<String> = c.bad.iter().map(|f| format!("LLV/{f}")).collect();
            let more = c.bad_files as usize - names.len();
            let more = if more > 0 {
                format!(" and {more} more")
            } else {
                String::new()
            };
            crate::outln!(
                "  {} files that are not takes: {}{more}",
                c.bad_files,
                names.join(", ")
            );
        }
    }
    crate::outln!("clock    {}", clock_words(s.clock));
    for f in &s.faults {
        crate::outln!("fault    {:?}: {}", f.code, printable(&f.detail));
    }
}

fn print_list(takes: &[TakeInfo]) {
    if takes.is_empty() {
        crate::outln!("no takes stored");
        return;
    }
    crate::outln!(
        "{:<32}  {:<5}  {:>8}  {:>9}  {:>6}  {:>10}  CRC32",
        "NAME",
        "PLACE",
        "FRAMES",
        "SECONDS",
        "HZ",
        "BYTES"
    );
    for t in takes {
        let seconds = f64::from(t.period_us) / 1e6;
        crate::outln!(
            "{:<32}  {:<5}  {:>8}  {:>9.2}  {:>6}  {:>10}  {:08x}",
            printable(&t.name),
            t.place.as_str(),
            t.frame_count,
            seconds,
            average_rate(t.frame_count, seconds),
            t.total_len,
            t.crc32
        );
    }
}

/// Frames a second on average (a phone take's cadence, 30 Hz, though its
/// frames are numbered at 60 fps), or `-` for a take of no length.
fn average_rate(frames: u32, seconds: f64) -> String {
    if seconds > 0.0 {
        format!("{:.2}", f64::from(frames) / seconds)
    } else {
        "-".into()
    }
}

/// The settings, and beside them what is in use now where that differs
/// (`llv serve` listens where its command line says; a changed address or
/// OSC port applies from the next power-up).
fn print_settings(s: &Settings, token_set: bool, now: &Status) {
    let targets: Vec<String> = s.targets.iter().map(Target::to_string).collect();
    crate::outln!(
        "targets   {}",
        if targets.is_empty() {
            "none".into()
        } else {
            targets.join(", ")
        }
    );
    match &s.autoplay {
        Some(a) if a.loop_count == 0 => {
            crate::outln!("autoplay  {} (loops forever)", printable(&a.take))
        }
        Some(a) => crate::outln!("autoplay  {} ({} times)", printable(&a.take), a.loop_count),
        None => crate::outln!("autoplay  none"),
    }
    crate::outln!(
        "subject   {}",
        printable(s.subject.as_deref().unwrap_or("none"))
    );
    match &s.address {
        Some(a) => {
            let gw = a
                .gateway
                .map(|g| format!(" via {}", Ipv4Addr::from(g)))
                .unwrap_or_default();
            crate::outln!("address   {}/{}{gw}", Ipv4Addr::from(a.ip), a.prefix_len);
        }
        None => crate::outln!("address   dhcp"),
    }
    if is_serve(now) {
        crate::outln!(
            "          (llv serve keeps no address of its own: it listens on {})",
            in_use_address(now)
        );
    } else if s.address.is_none_or(|a| now.address != Some(a.ip)) {
        crate::outln!("          (in use now: {})", in_use_address(now));
    }
    crate::outln!("token     {}", if token_set { "set" } else { "none" });
    match &s.name {
        Some(name) => crate::outln!("name      {}", printable(name)),
        None => crate::outln!("name      the board's default"),
    }
    let osc_port = s.osc_port.unwrap_or(OSC_PORT);
    match s.osc_port {
        Some(p) => crate::outln!("osc-port  {p} (UDP and TCP)"),
        None => crate::outln!("osc-port  {OSC_PORT} (UDP and TCP, the default)"),
    }
    if now.osc_port != osc_port {
        crate::outln!(
            "          (in use now: {}; {})",
            now.osc_port,
            if is_serve(now) {
                "llv serve --osc-port says"
            } else {
                "the setting applies from the next power-up"
            }
        );
    }
    match s.reply_port {
        Some(p) => crate::outln!("reply-port {p} (replies also go there)"),
        None => crate::outln!("reply-port none (replies go to the sender's port)"),
    }
    match &s.chase {
        Some(c) => crate::outln!(
            "chase     autoplay follows Art-Net timecode stream {}, first frame at {}, freewheel {} s, then {}",
            c.stream,
            c.offset.map_or("its own timecode".to_string(), |l| format!(
                "{:02}:{:02}:{:02}:{:02}",
                l.hours, l.minutes, l.seconds, l.frames
            )),
            f64::from(c.freewheel_ms) / 1000.0,
            if c.hold { "hold" } else { "stop" }
        ),
        None => crate::outln!("chase     off (autoplay starts at power-up)"),
    }
    let l = &s.live;
    crate::outln!(
        "live      {} on UDP {}, subject {}, from {}, buffer {} frames, fallback after {} s, fade {} s, \
         return after {} frames, idle take {}, other datagrams {}, recording {}",
        if l.enabled { "relays from power-up" } else { "off" },
        l.port,
        printable(l.subject.as_deref().unwrap_or("any (the first heard)")),
        l.from.map_or("any".to_string(), |ip| Ipv4Addr::from(ip).to_string()),
        l.buffer,
        f64::from(l.timeout_ms) / 1000.0,
        f64::from(l.fade_ms) / 1000.0,
        l.return_frames,
        printable(l.idle.as_deref().unwrap_or("none (hold the last frame)")),
        if l.pass_other { "passed on" } else { "dropped" },
        if l.record { "on" } else { "off" }
    );
    match s.http_port {
        Some(p) => crate::outln!("http-port {p} (the page and HTTP API, from the next power-up)"),
        None => crate::outln!(
            "http-port {HTTP_PORT} (the page and HTTP API, the default; llv serve: --http-port)"
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(p: &[&str]) -> Vec<String> {
        p.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn config_pairs_become_changes_through_the_one_grammar() {
        let changes = parse_changes(
            &pairs(&[
                "autoplay",
                "dao",
                "autoplay-loops",
                "2",
                "address",
                "dhcp",
                "token",
                "none",
                "targets",
                "localhost:9000,10.0.2.2",
            ]),
            Settings::default(),
        )
        .unwrap();
        let mut s = Settings::default();
        for c in &changes {
            s.apply(c);
        }
        assert_eq!(s.autoplay.unwrap().loop_count, 2);
        assert_eq!(changes.len(), 5);
        assert_eq!(
            s.targets.iter().map(Target::to_string).collect::<Vec<_>>(),
            ["127.0.0.1:9000", "10.0.2.2:11111"]
        );
        let err = |p: &[&str]| {
            parse_changes(&pairs(p), Settings::default())
                .unwrap_err()
                .to_string()
        };
        assert!(err(&["autoplay-loops", "2"]).contains("set autoplay NAME first"));
        assert!(err(&["volume", "3"]).contains("unknown setting"));
        assert!(err(&["subject"]).contains("KEY VALUE pairs"));
        assert!(err(&["address", "10.0.0.2/33"]).contains("IP/PREFIX"));
        assert!(err(&["name", "stage left"]).contains("letters, digits"));
        assert!(err(&["osc-port", "0"]).contains("not a port"));
        assert!(err(&["targets", "::1"]).contains("IPv4 only"));
    }
}
