//! The door's replies: `/reply<address>` with QLab's JSON, `/llv/error` for
//! a packet the door cannot read or run, and the `/llv/state` push.

use heapless::String;
use llv_core::control::{ErrorCode, Playing, Response};
use llv_core::osc::{Arg, OscError};

use super::{ERROR_ADDRESS, MAX_REPLY, STATE_ADDRESS};
use crate::json::Json;
use crate::render::{status_json, takes_json};

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

/// The reply to `response`.
pub(super) fn response_reply(
    out: &mut [u8; MAX_REPLY],
    address: &str,
    response: &Response,
) -> usize {
    match response {
        Response::Error { code, detail } => {
            let status = if *code == ErrorCode::Unauthorized {
                ReplyStatus::Denied
            } else {
                ReplyStatus::Error
            };
            reply(out, address, status, |j| j.string(detail))
        }
        Response::Ok => reply(out, address, ReplyStatus::Ok, |j| j.null()),
        Response::Hello { protocol, firmware } => reply(out, address, ReplyStatus::Ok, |j| {
            j.open_object();
            j.key("protocol");
            j.uint(u64::from(*protocol));
            j.key("firmware");
            j.string(firmware);
            j.close_object();
        }),
        Response::Status(status) => {
            reply(out, address, ReplyStatus::Ok, |j| status_json(j, status))
        }
        Response::List { takes } => reply(out, address, ReplyStatus::Ok, |j| {
            takes_json(j, takes, 0, takes.len() as u32)
        }),
        Response::Takes(page) => reply(out, address, ReplyStatus::Ok, |j| {
            takes_json(j, &page.takes, page.start, page.total)
        }),
        // No OSC address asks for the settings or the clock.
        Response::Settings { .. } | Response::Clock { .. } => {
            reply(out, address, ReplyStatus::Ok, |j| j.null())
        }
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
    j.open_object();
    j.key("address");
    match address {
        Some(a) => j.string(a),
        None => j.null(),
    }
    j.key("status");
    j.string(status.as_str());
    j.key("data");
    let data_at = j.mark();
    data(&mut j);
    if j.overflowed() {
        j.reset(data_at);
        j.string("the reply does not fit one packet");
    }
    j.close_object();
    if j.overflowed() {
        return 0;
    }
    let len = j.len();
    let end = (head + len + 4) & !3;
    out[head + len..end].fill(0);
    end
}

/// Writes the state message `/llv/state ,isiiss` (playing: 1 while frames go
/// out ([`Playing::sending`]: not while a chase waits, locks or has stopped),
/// take, frame, loops done, chase state or `off`, the last timecode chased or
/// `""`) into `out`; returns its length.
pub fn state_message(out: &mut [u8; MAX_REPLY], playing: Option<&Playing>) -> usize {
    let (on, take, frame, loops) = match playing {
        Some(p) => (
            i32::from(p.sending()),
            p.take.as_str(),
            p.frame,
            p.loops_done,
        ),
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
pub(super) fn packet_error(e: OscError, out: &mut [u8; MAX_REPLY]) -> usize {
    let mut text: String<96> = String::new();
    // Cut where the buffer ends.
    let _ = core::fmt::write(&mut text, format_args!("bad OSC packet: {e}"));
    error_reply(out, &text)
}

/// The `/llv/error` reply to the rest of a too long bundle.
pub(super) fn too_many(out: &mut [u8; MAX_REPLY]) -> usize {
    error_reply(
        out,
        "the bundle holds more than 8 messages: the rest were not run",
    )
}
