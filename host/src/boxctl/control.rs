//! `llv box ADDR ...`: ask the box for its state and takes, play, stop, delete, configure.

use std::net::Ipv4Addr;
use std::time::Instant;

use anyhow::{bail, ensure, Context, Result};
use clap::{Args, Subcommand};
use heapless::Vec as BoundedVec;
use llv_core::artnet::Label;
use llv_core::control::{bounded, Request, Response, Start, Status, TakeInfo};
use llv_core::settings::{
    check_box_name, Autoplay, ChaseSpec, Setting, Settings, StaticAddress, Target, MAX_CHANGES,
    MAX_FREEWHEEL_MS, MAX_TARGETS, OSC_PORT, SUBJECT_LEN, TOKEN_LEN,
};
use llv_core::take::NAME_LEN;
use serde_json::json;

use super::client::{target, BoxClient};
use super::together;
use crate::args::{ChaseArgs, TokenArgs};
use crate::playback::chasing::describe;

/// Arguments of `llv box`.
#[derive(Args, Debug)]
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
    Status,
    /// The stored takes with their frame count, size and CRC.
    List,
    /// Play a stored take (once, or forever with --loop), now, together with
    /// the other boxes given, or following the show's timecode.
    ///
    /// Examples:
    ///   llv box stage-left play dao --loop
    ///   llv box stage-left stage-right play dao --together   # same instant on both
    ///   llv box stage-left play dao --chase --offset 01:00:00:00
    #[command(verbatim_doc_comment)]
    Play {
        /// Take name.
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
    Stop,
    /// Delete a stored take.
    Delete {
        /// Take name.
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
    /// chase-freewheel SECONDS; chase-hold on|off.
    Config {
        /// KEY VALUE pairs.
        #[arg(value_name = "KEY VALUE")]
        pairs: Vec<String>,
    },
}

/// Runs `llv box`: the action on each box given, in order.
pub fn run(args: &BoxArgs) -> Result<()> {
    let token = args.token.token()?;
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
            println!("== {}", client.addr());
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
                println!("{}", serde_json::to_string(&status)?);
            } else {
                print_status(client, &status);
            }
        }
        BoxAction::List => {
            let Response::List { takes } = client.call(&Request::List)? else {
                bail!("the box answered List with something else");
            };
            if json {
                println!("{}", serde_json::to_string(&takes)?);
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
            client.call(&play_request(name, to, *forever, start)?)?;
            let how = if *chase {
                format!(
                    ", following Art-Net timecode from {}",
                    chase_args.offset_text()
                )
            } else {
                String::new()
            };
            done(json, &format!("playing {name}{how}"));
        }
        BoxAction::Stop => {
            client.call(&Request::Stop)?;
            done(json, "stopped");
        }
        BoxAction::Delete { name } => {
            client.call(&Request::Delete { name })?;
            done(json, &format!("deleted {name}"));
        }
        BoxAction::Config { pairs } => {
            if !pairs.is_empty() {
                let current = settings(client)?.0;
                let changes = parse_changes(pairs, current)?;
                client.call(&Request::SetSettings { changes })?;
            }
            let (settings, token_set) = settings(client)?;
            if json {
                let out = json!({ "settings": settings, "token_set": token_set });
                println!("{}", serde_json::to_string(&out)?);
            } else {
                print_settings(&settings, token_set);
            }
        }
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
        println!(
            "{}",
            json!({ "ok": true, "start_in_us": ahead.as_micros() as u64, "boxes": boxes })
        );
    } else {
        for (client, o) in clients.iter().zip(&offsets) {
            println!(
                "{}: clock measured within {:.2} ms",
                client.addr(),
                o.rtt_us as f64 / 2000.0
            );
        }
        println!(
            "playing {name} on {} boxes together, {:.0} ms from now",
            clients.len(),
            ahead.as_secs_f64() * 1e3
        );
    }
    Ok(())
}

fn done(json: bool, what: &str) {
    if json {
        println!("{}", json!({ "ok": true }));
    } else {
        println!("{what}");
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

/// Turns KEY VALUE pairs into setting changes, checked against the current settings.
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
        let none = value == "none";
        let change = match key {
            "targets" => {
                let mut targets = BoundedVec::new();
                if !none {
                    for t in value.split(',') {
                        targets
                            .push(target(t)?)
                            .map_err(|_| anyhow::anyhow!("at most {MAX_TARGETS} targets"))?;
                    }
                }
                Setting::Targets(targets)
            }
            "autoplay" if none => Setting::Autoplay(None),
            "autoplay" => {
                ensure!(
                    value.len() <= NAME_LEN,
                    "autoplay: take name over {NAME_LEN} bytes"
                );
                let loop_count = current.autoplay.as_ref().map_or(0, |a| a.loop_count);
                Setting::Autoplay(Some(Autoplay {
                    take: bounded(value),
                    loop_count,
                }))
            }
            "autoplay-loops" => {
                let loop_count = value
                    .parse()
                    .with_context(|| format!("autoplay-loops: {value:?} is not a count"))?;
                let take = current
                    .autoplay
                    .as_ref()
                    .map(|a| a.take.clone())
                    .context("autoplay-loops: set autoplay NAME first")?;
                Setting::Autoplay(Some(Autoplay { take, loop_count }))
            }
            "subject" if none => Setting::Subject(None),
            "subject" => {
                ensure!(
                    value.len() <= SUBJECT_LEN,
                    "subject: over {SUBJECT_LEN} bytes"
                );
                Setting::Subject(Some(bounded(value)))
            }
            "address" if value == "dhcp" => Setting::Address(None),
            "address" => Setting::Address(Some(parse_address(value)?)),
            "token" if none => Setting::Token(None),
            "token" => {
                ensure!(
                    !value.is_empty() && value.len() <= TOKEN_LEN,
                    "token: 1..={TOKEN_LEN} bytes"
                );
                Setting::Token(Some(bounded(value)))
            }
            "name" if none => Setting::Name(None),
            "name" => {
                check_box_name(value).map_err(|e| anyhow::anyhow!("{e}"))?;
                Setting::Name(Some(bounded(value)))
            }
            "osc-port" if value == "default" => Setting::OscPort(None),
            "osc-port" => Setting::OscPort(Some(parse_port(key, value)?)),
            "reply-port" if none => Setting::ReplyPort(None),
            "reply-port" => Setting::ReplyPort(Some(parse_port(key, value)?)),
            "chase" if value == "off" => Setting::Chase(None),
            "chase" => {
                let offset = match value {
                    "own" => None,
                    tc => Some(Label::parse(tc).with_context(|| {
                        format!("chase: {tc:?} is not own, off or HH:MM:SS:FF")
                    })?),
                };
                let spec = current.chase.unwrap_or(ChaseSpec::DEFAULT);
                Setting::Chase(Some(ChaseSpec { offset, ..spec }))
            }
            "chase-stream" | "chase-freewheel" | "chase-hold" => {
                let mut spec = current
                    .chase
                    .with_context(|| format!("{key}: set chase own or chase HH:MM:SS:FF first"))?;
                match key {
                    "chase-stream" => {
                        spec.stream = value
                            .parse()
                            .with_context(|| format!("{key}: {value:?} is not 0..=255"))?;
                    }
                    "chase-freewheel" => {
                        let seconds: f64 = value
                            .parse()
                            .ok()
                            .filter(|s| (0.0..=f64::from(MAX_FREEWHEEL_MS) / 1000.0).contains(s))
                            .with_context(|| {
                                format!("{key}: {value:?} is not seconds from 0 to {}", MAX_FREEWHEEL_MS / 1000)
                            })?;
                        spec.freewheel_ms = (seconds * 1000.0).round() as u32;
                    }
                    _ => {
                        spec.hold = match value {
                            "on" => true,
                            "off" => false,
                            _ => bail!("{key}: on or off, not {value:?}"),
                        };
                    }
                }
                Setting::Chase(Some(spec))
            }
            other => bail!(
                "unknown setting {other:?}: targets, autoplay, autoplay-loops, subject, address, \
                 token, name, osc-port, reply-port, chase, chase-stream, chase-freewheel, chase-hold"
            ),
        };
        current.apply(&change);
        changes
            .push(change)
            .map_err(|_| anyhow::anyhow!("at most {MAX_CHANGES} changes at once"))?;
    }
    Ok(changes)
}

/// A UDP/TCP port other than 0.
fn parse_port(key: &str, value: &str) -> Result<u16> {
    match value.parse::<u16>() {
        Ok(port) if port != 0 => Ok(port),
        _ => bail!("{key}: {value:?} is not a port (1..=65535)"),
    }
}

/// `IP/PREFIX[,GATEWAY]`.
fn parse_address(value: &str) -> Result<StaticAddress> {
    let bad = || format!("address: {value:?} is not IP/PREFIX[,GATEWAY] or dhcp");
    let (net, gateway) = match value.split_once(',') {
        Some((net, gw)) => (
            net,
            Some(gw.parse::<Ipv4Addr>().with_context(bad)?.octets()),
        ),
        None => (value, None),
    };
    let (ip, prefix) = net.split_once('/').with_context(bad)?;
    let prefix_len: u8 = prefix.parse().with_context(bad)?;
    ensure!(prefix_len <= 32, bad());
    Ok(StaticAddress {
        ip: ip.parse::<Ipv4Addr>().with_context(bad)?.octets(),
        prefix_len,
        gateway,
    })
}

fn print_status(client: &BoxClient, s: &Status) {
    let secs = s.uptime_ms / 1000;
    println!(
        "box {}, firmware {}, up {}:{:02}:{:02}",
        client.addr(),
        s.firmware,
        secs / 3600,
        secs / 60 % 60,
        secs % 60
    );
    match s.address {
        Some(ip) => println!("address  {}", Ipv4Addr::from(ip)),
        None => println!("address  none yet"),
    }
    match &s.playing {
        Some(p) if p.sending() => {
            println!(
                "playing  {}, frame {}, {} loops done, {} frames late (latest {:.1} ms)",
                p.take,
                p.frame,
                p.loops_done,
                p.late_frames,
                f64::from(p.max_late_us) / 1000.0
            );
        }
        // A chase that sends nothing now: it waits for, locks to or lost its timecode.
        Some(p) => {
            let why = p.chase.map_or("", |c| describe(c.state));
            println!(
                "chasing  {}, sending nothing ({why}); it plays when timecode runs, until stopped",
                p.take
            );
        }
        None => match &s.last {
            Some(l) => println!(
                "playing  nothing; the last playback: {}, {} frames sent, {} late, {} dropped, {}",
                l.take,
                l.frames,
                l.late_frames,
                l.dropped,
                l.ended.name()
            ),
            None => println!("playing  nothing"),
        },
    }
    if let Some(p) = &s.playing {
        if p.read_ahead_low != u32::MAX {
            println!(
                "  read-ahead held {} frames at its lowest",
                p.read_ahead_low
            );
        }
        for t in &p.targets {
            println!(
                "  to {:<21} {} sent, {} dropped",
                t.target, t.sent, t.dropped
            );
        }
        if let Some(c) = &p.chase {
            let at = c.timecode.map_or("no timecode yet".to_string(), |tc| {
                format!("at {tc} ({})", tc.kind.rate())
            });
            println!(
                "chase    {} {at}, {} locates, {} timecode frames, {} bad packets ignored",
                c.state.name(),
                c.locates,
                c.timecode_frames,
                c.bad_packets
            );
        }
    }
    println!(
        "flash    {} bytes used, {} free",
        s.used_bytes, s.free_bytes
    );
    for f in &s.faults {
        println!("fault    {:?}: {}", f.code, f.detail);
    }
}

fn print_list(takes: &[TakeInfo]) {
    if takes.is_empty() {
        println!("no takes stored");
        return;
    }
    println!(
        "{:<32}  {:<5}  {:>8}  {:>10}  CRC32",
        "NAME", "PLACE", "FRAMES", "BYTES"
    );
    for t in takes {
        println!(
            "{:<32}  {:<5}  {:>8}  {:>10}  {:08x}",
            t.name,
            t.place.as_str(),
            t.frame_count,
            t.total_len,
            t.crc32
        );
    }
}

fn print_settings(s: &Settings, token_set: bool) {
    let targets: Vec<String> = s.targets.iter().map(Target::to_string).collect();
    println!(
        "targets   {}",
        if targets.is_empty() {
            "none".into()
        } else {
            targets.join(", ")
        }
    );
    match &s.autoplay {
        Some(a) if a.loop_count == 0 => println!("autoplay  {} (loops forever)", a.take),
        Some(a) => println!("autoplay  {} ({} times)", a.take, a.loop_count),
        None => println!("autoplay  none"),
    }
    println!("subject   {}", s.subject.as_deref().unwrap_or("none"));
    match &s.address {
        Some(a) => {
            let gw = a
                .gateway
                .map(|g| format!(" via {}", Ipv4Addr::from(g)))
                .unwrap_or_default();
            println!("address   {}/{}{gw}", Ipv4Addr::from(a.ip), a.prefix_len);
        }
        None => println!("address   dhcp"),
    }
    println!("token     {}", if token_set { "set" } else { "none" });
    match &s.name {
        Some(name) => println!("name      {name}"),
        None => println!("name      the board's default"),
    }
    match s.osc_port {
        Some(p) => println!("osc-port  {p} (UDP and TCP)"),
        None => println!("osc-port  {OSC_PORT} (UDP and TCP, the default)"),
    }
    match s.reply_port {
        Some(p) => println!("reply-port {p} (replies also go there)"),
        None => println!("reply-port none (replies go to the sender's port)"),
    }
    match &s.chase {
        Some(c) => println!(
            "chase     autoplay follows Art-Net timecode stream {}, first frame at {}, freewheel {} s, then {}",
            c.stream,
            c.offset.map_or("its own timecode".to_string(), |l| format!(
                "{:02}:{:02}:{:02}:{:02}",
                l.hours, l.minutes, l.seconds, l.frames
            )),
            f64::from(c.freewheel_ms) / 1000.0,
            if c.hold { "hold" } else { "stop" }
        ),
        None => println!("chase     off (autoplay starts at power-up)"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(p: &[&str]) -> Vec<String> {
        p.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn config_pairs_become_changes() {
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
            ]),
            Settings::default(),
        )
        .unwrap();
        let mut s = Settings::default();
        for c in &changes {
            s.apply(c);
        }
        assert_eq!(s.autoplay.unwrap().loop_count, 2);
        assert_eq!(changes.len(), 4);
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
        assert!(err(&["reply-port", "70000"]).contains("not a port"));
        let changes = parse_changes(
            &pairs(&[
                "name",
                "stage-left",
                "osc-port",
                "53000",
                "reply-port",
                "53001",
            ]),
            Settings::default(),
        )
        .unwrap();
        assert_eq!(
            changes.as_slice(),
            [
                Setting::Name(Some(bounded("stage-left"))),
                Setting::OscPort(Some(53000)),
                Setting::ReplyPort(Some(53001))
            ]
        );
        let changes = parse_changes(
            &pairs(&[
                "chase",
                "01:00:00:12",
                "chase-stream",
                "2",
                "chase-freewheel",
                "2.5",
                "chase-hold",
                "on",
            ]),
            Settings::default(),
        )
        .unwrap();
        assert_eq!(
            changes.last(),
            Some(&Setting::Chase(Some(ChaseSpec {
                offset: Label::parse("01:00:00:12"),
                stream: 2,
                freewheel_ms: 2500,
                hold: true,
            })))
        );
        assert!(err(&["chase-hold", "on"]).contains("set chase own"));
        assert!(err(&["chase", "1:00"]).contains("not own, off or HH:MM:SS:FF"));
        assert!(
            err(&["chase", "own", "chase-freewheel", "4000"]).contains("seconds from 0 to 3600")
        );
        assert_eq!(
            parse_changes(&pairs(&["chase", "off"]), Settings::default()).unwrap()[0],
            Setting::Chase(None)
        );
        assert_eq!(
            parse_address("10.0.0.2/24,10.0.0.1").unwrap(),
            StaticAddress {
                ip: [10, 0, 0, 2],
                prefix_len: 24,
                gateway: Some([10, 0, 0, 1])
            }
        );
    }
}
