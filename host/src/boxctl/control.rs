//! `llv box ADDR ...`: ask the box for its state and takes, play, stop, delete, configure.

use std::net::Ipv4Addr;

use anyhow::{bail, ensure, Context, Result};
use clap::{Args, Subcommand};
use heapless::Vec as BoundedVec;
use llv_core::control::{bounded, Request, Response, Status, TakeInfo};
use llv_core::settings::{
    check_box_name, Autoplay, Setting, Settings, StaticAddress, Target, MAX_CHANGES, MAX_TARGETS,
    OSC_PORT, SUBJECT_LEN, TOKEN_LEN,
};
use llv_core::take::NAME_LEN;
use serde_json::json;

use super::client::{target, BoxClient};
use crate::args::TokenArgs;

/// Arguments of `llv box`.
#[derive(Args, Debug)]
pub struct BoxArgs {
    /// The box: HOST[:PORT] or its name (NAME or NAME.local, found by mDNS); control port 11113 by default.
    #[arg(value_name = "ADDR[:PORT]")]
    pub addr: String,
    #[command(flatten)]
    pub token: TokenArgs,
    /// Print the answer as JSON.
    #[arg(long, global = true)]
    pub json: bool,
    /// What to do.
    #[command(subcommand)]
    pub action: BoxAction,
}

/// What `llv box` does.
#[derive(Subcommand, Debug)]
pub enum BoxAction {
    /// Firmware, uptime, address, playback and flash use.
    Status,
    /// The stored takes with their frame count, size and CRC.
    List,
    /// Play a stored take (once, or forever with --loop).
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
    /// reply-port N|none (replies to OSC also go to this port of the sender).
    Config {
        /// KEY VALUE pairs.
        #[arg(value_name = "KEY VALUE")]
        pairs: Vec<String>,
    },
}

/// Runs `llv box`.
pub fn run(args: &BoxArgs) -> Result<()> {
    let token = args.token.token()?;
    let mut client = BoxClient::connect(&args.addr, token.as_deref())?;
    match &args.action {
        BoxAction::Status => {
            let Response::Status(status) = client.call(&Request::Status)? else {
                bail!("the box answered Status with something else");
            };
            if args.json {
                println!("{}", serde_json::to_string_pretty(&status)?);
            } else {
                print_status(&client, &status);
            }
        }
        BoxAction::List => {
            let Response::List { takes } = client.call(&Request::List)? else {
                bail!("the box answered List with something else");
            };
            if args.json {
                println!("{}", serde_json::to_string_pretty(&takes)?);
            } else {
                print_list(&takes);
            }
        }
        BoxAction::Play { name, to, forever } => {
            ensure!(
                to.len() <= MAX_TARGETS,
                "at most {MAX_TARGETS} --to targets"
            );
            let mut targets = BoundedVec::<Target, MAX_TARGETS>::new();
            for t in to {
                // Cannot overflow: checked above.
                let _ = targets.push(target(t)?);
            }
            let loop_count = if *forever { 0 } else { 1 };
            client.call(&Request::Play {
                name,
                targets,
                loop_count,
            })?;
            done(args.json, &format!("playing {name}"));
        }
        BoxAction::Stop => {
            client.call(&Request::Stop)?;
            done(args.json, "stopped");
        }
        BoxAction::Delete { name } => {
            client.call(&Request::Delete { name })?;
            done(args.json, &format!("deleted {name}"));
        }
        BoxAction::Config { pairs } => {
            if !pairs.is_empty() {
                let current = settings(&mut client)?.0;
                let changes = parse_changes(pairs, current)?;
                client.call(&Request::SetSettings { changes })?;
            }
            let (settings, token_set) = settings(&mut client)?;
            if args.json {
                let out = json!({ "settings": settings, "token_set": token_set });
                println!("{}", serde_json::to_string_pretty(&out)?);
            } else {
                print_settings(&settings, token_set);
            }
        }
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
        pairs.len() % 2 == 0,
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
            other => bail!(
                "unknown setting {other:?}: targets, autoplay, autoplay-loops, subject, address, \
                 token, name, osc-port, reply-port"
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
        Some(p) => {
            println!(
                "playing  {}, frame {}, {} loops done, {} frames late (latest {:.1} ms)",
                p.take,
                p.frame,
                p.loops_done,
                p.late_frames,
                f64::from(p.max_late_us) / 1000.0
            );
            for t in &p.targets {
                println!(
                    "  to {:<21} {} sent, {} dropped",
                    t.target, t.sent, t.dropped
                );
            }
        }
        None => println!("playing  nothing"),
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
