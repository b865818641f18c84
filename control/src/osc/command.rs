//! What an OSC message asks for: its address and arguments as the request
//! the binary protocol would send (or a subscription).

use llv_core::artnet::TimecodeLabel;
use llv_core::control::{Request, Start, PROTOCOL_VERSION};
use llv_core::osc::{Arg, Message};
use llv_core::settings::ChaseSpec;

use super::{DEFAULT_SUBSCRIPTION_S, ERROR_ADDRESS, MAX_SUBSCRIPTION_S, STATE_ADDRESS};

/// What a message asks for.
#[allow(
    clippy::large_enum_variant,
    reason = "no heap to box into: one command lives at a time"
)]
pub(super) enum Command<'a> {
    /// A request of the binary protocol.
    Request(Request<'a>),
    /// A subscription for this many seconds (0 ends it).
    Subscribe(u32),
}

/// The command of `m`, or why it has none.
pub(super) fn command<'a>(m: &Message<'a>) -> Result<Command<'a>, &'static str> {
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
                Some(Arg::Str(text)) => Some(
                    TimecodeLabel::parse(text).ok_or("/llv/chase: the offset is HH:MM:SS:FF")?,
                ),
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
        "/llv/live" => Command::Request(Request::Live {
            on: match args.next() {
                Some(Arg::Str("on")) | Some(Arg::True) => true,
                Some(Arg::Str("off")) | Some(Arg::False) => false,
                Some(a) => match a.as_count() {
                    Some(1) => true,
                    Some(0) => false,
                    _ => return Err("/llv/live: on or off (1 or 0, T or F)"),
                },
                None => return Err("/llv/live: on or off (1 or 0, T or F)"),
            },
        }),
        "/llv/status" => Command::Request(Request::Status),
        "/llv/takes" => Command::Request(Request::ListPage {
            start: match args.next() {
                None => 0,
                Some(a) => a
                    .as_count()
                    .and_then(|n| u32::try_from(n).ok())
                    .ok_or("/llv/takes: start is a whole number (0 for the first page)")?,
            },
        }),
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
pub(super) fn unanswered(address: &str) -> bool {
    address.starts_with("/reply") || address == STATE_ADDRESS || address == ERROR_ADDRESS
}
