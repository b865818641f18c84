//! Each route of the API run through the connection's [`Session`], as the
//! binary and OSC doors run theirs: the same requests, the same refusals,
//! answered as JSON ([`crate::render`]).

use embassy_sync::blocking_mutex::raw::RawMutex;
use heapless::Vec;
use llv_core::control::{Place, Request, Response, Start, PROTOCOL_VERSION};
use llv_core::settings::{parse_count, parse_targets, KEYS, MAX_CHANGES};
use llv_core::settings::{Setting, Settings};
use llv_core::take::NAME_LEN;

use super::form::{decode, Pairs};
use super::response::{code_name, error_json, status_of};
use super::API_VERSION;
use crate::door::Control;
use crate::json::Json;
use crate::library::TakeLibrary;
use crate::render::{settings_json, status_json, takes_json};
use crate::session::{Playback, Session, Step};
use crate::worker::Finish;

/// A reply: its status and the JSON's length at the start of the output buffer.
pub type Reply = (u16, usize);

/// Runs the request `request` makes (once the library is held: no waiting
/// future holds a whole request, nor a response while the library works)
/// through `session`: what it can answer at once, then what waits on the
/// library (through the door's [`Finish`]).
pub async fn run<'r, M, L, W, D>(
    session: &mut Session,
    request: impl FnOnce() -> Request<'r>,
    control: &Control<'_, M, L, W>,
    device: &mut D,
) -> Response
where
    M: RawMutex,
    L: TakeLibrary,
    W: Finish<M, L>,
    D: Playback<L::Take>,
{
    let library = control.library.lock().await;
    let pending = match session.start(request(), &*library, device) {
        Step::Done(response) => return response,
        Step::Wait(pending) => pending,
    };
    control
        .finish
        .finish(session, pending, library, device)
        .await
}

/// Says `Hello` for the request with its token (`Authorization: Bearer`):
/// `Ok`, or the refusal's detail.
pub async fn hello<M, L, W, D>(
    session: &mut Session,
    token: Option<&str>,
    control: &Control<'_, M, L, W>,
    device: &mut D,
) -> Result<(), Response>
where
    M: RawMutex,
    L: TakeLibrary,
    W: Finish<M, L>,
    D: Playback<L::Take>,
{
    let hello = || Request::Hello {
        protocol: PROTOCOL_VERSION,
        token,
    };
    match run(session, hello, control, device).await {
        Response::Hello { .. } => Ok(()),
        refused => Err(refused),
    }
}

/// The reply to `response`, written into `out`.
pub fn reply(response: &Response, out: &mut [u8]) -> Reply {
    let mut j = Json::new(out);
    let status = match response {
        Response::Error { code, detail } => {
            let n = error_json(out, code_name(*code), detail, None);
            return (status_of(*code), n);
        }
        Response::Status(s) => {
            j.open_object();
            j.key("api");
            j.uint(API_VERSION);
            j.key("protocol");
            j.uint(u64::from(PROTOCOL_VERSION));
            j.key("status");
            status_json(&mut j, s);
            j.close_object();
            200
        }
        Response::Takes(page) => {
            j.open_object();
            j.key("takes");
            takes_json(&mut j, &page.takes, page.start, page.total);
            j.close_object();
            200
        }
        Response::Settings {
            settings,
            token_set,
        } => {
            settings_json(&mut j, settings, *token_set);
            200
        }
        _ => {
            j.open_object();
            j.key("ok");
            j.bool(true);
            j.close_object();
            200
        }
    };
    if j.overflowed() {
        let n = error_json(out, "TooLarge", "reply over the door's buffer", None);
        return (500, n);
    }
    (status, j.len())
}

/// A refusal of the door itself (not the session's), as a reply.
pub fn refuse(status: u16, code: &str, detail: &str, field: Option<&str>, out: &mut [u8]) -> Reply {
    (status, error_json(out, code, detail, field))
}

/// Where `GET /api/v1/takes?start=N` starts its page.
pub fn list_start(query: &str) -> Result<u32, &'static str> {
    let mut start = 0;
    let mut pairs = Pairs::new(query);
    let (mut k, mut v) = ([0u8; 16], [0u8; 16]);
    while let Some(pair) = pairs.next_into(&mut k, &mut v) {
        match pair {
            Ok(("start", n)) => start = n.parse().map_err(|_| "start: a whole number")?,
            Ok(_) => {}
            Err(_) => return Err("bad query"),
        }
    }
    Ok(start)
}

/// What `POST /api/v1/play` asks: `take`, `loops` (1 by default, 0
/// forever), `targets` (the settings' by default; `IPv4[:PORT],...`).
pub struct PlayForm {
    name: [u8; NAME_LEN],
    name_len: usize,
    loops: u32,
    targets: Vec<llv_core::settings::Target, { llv_core::settings::MAX_TARGETS }>,
}

/// Why a form was refused: the field and what is wrong.
pub type FormRefusal = (&'static str, &'static str);

impl PlayForm {
    /// The form of `texts` (the query, then the body).
    pub fn parse(texts: [&str; 2]) -> Result<PlayForm, FormRefusal> {
        let mut form = PlayForm {
            name: [0; NAME_LEN],
            name_len: 0,
            loops: 1,
            targets: Vec::new(),
        };
        let mut named = false;
        for text in texts {
            let mut pairs = Pairs::new(text);
            let (mut k, mut v) = ([0u8; 16], [0u8; 128]);
            while let Some(pair) = pairs.next_into(&mut k, &mut v) {
                let (key, value) = pair.map_err(|_| ("form", "not percent-encoded UTF-8"))?;
                match key {
                    "take" => {
                        let bytes = value.as_bytes();
                        if bytes.is_empty() || bytes.len() > NAME_LEN {
                            return Err(("take", "a take name of 1 to 32 bytes"));
                        }
                        form.name[..bytes.len()].copy_from_slice(bytes);
                        form.name_len = bytes.len();
                        named = true;
                    }
                    "loops" => {
                        form.loops = parse_count(value)
                            .ok_or(("loops", "a whole number (0 or forever: loop)"))?
                    }
                    "targets" if value.is_empty() => {}
                    "targets" => {
                        form.targets = parse_targets(value)
                            .map_err(|_| ("targets", "IPv4[:PORT],... (at most 4)"))?
                    }
                    _ => return Err(("form", "play takes take, loops and targets")),
                }
            }
        }
        if !named {
            return Err(("take", "which take: take=NAME"));
        }
        Ok(form)
    }

    /// The request it makes.
    pub fn request(&self) -> Request<'_> {
        Request::Play {
            name: core::str::from_utf8(&self.name[..self.name_len]).unwrap_or(""),
            targets: self.targets.clone(),
            loop_count: self.loops,
            start: Start::Now,
        }
    }
}

/// The settings a form (`KEY=VALUE&...`, the settings grammar's keys) sets,
/// with the key of each change.
pub struct SettingsForm {
    changes: Vec<Setting, MAX_CHANGES>,
    keys: Vec<&'static str, MAX_CHANGES>,
}

impl SettingsForm {
    /// The changes of `text` from the settings `current`; a key or value the
    /// grammar refuses is named with the grammar's text, written into `out`.
    pub fn parse(text: &str, current: &Settings, out: &mut [u8]) -> Result<SettingsForm, Reply> {
        let mut form = SettingsForm {
            changes: Vec::new(),
            keys: Vec::new(),
        };
        let mut settings = current.clone();
        let mut pairs = Pairs::new(text);
        let (mut k, mut v) = ([0u8; 32], [0u8; 128]);
        while let Some(pair) = pairs.next_into(&mut k, &mut v) {
            let Ok((key, value)) = pair else {
                return Err(refuse(
                    400,
                    "BadRequest",
                    "not percent-encoded UTF-8",
                    None,
                    out,
                ));
            };
            let change = match Setting::parse(key, value, &settings) {
                Ok(change) => change,
                Err(e) => {
                    let mut detail: heapless::String<160> = heapless::String::new();
                    let _ = core::fmt::write(&mut detail, format_args!("{e}"));
                    let field = KEYS.iter().find(|k| **k == key).copied();
                    return Err(refuse(400, "Invalid", &detail, field, out));
                }
            };
            settings.apply(&change);
            let key = KEYS.iter().find(|k| **k == key).copied().unwrap_or("");
            if form.changes.push(change).is_err() || form.keys.push(key).is_err() {
                return Err(refuse(
                    400,
                    "TooLarge",
                    "too many settings at once",
                    None,
                    out,
                ));
            }
        }
        Ok(form)
    }

    /// The request it makes.
    pub fn request(&self) -> Request<'static> {
        Request::SetSettings {
            changes: self.changes.clone(),
        }
    }

    /// The key whose change the settings' own check refuses (by
    /// [`Settings::check`], the one rule): the first change that, applied
    /// alone to `current`, fails it.
    pub fn field(
        &self,
        current: &Settings,
        sender: llv_core::settings::Sender,
    ) -> Option<&'static str> {
        let mut settings = current.clone();
        for (change, key) in self.changes.iter().zip(&self.keys) {
            settings.apply(change);
            if settings.check(sender).is_err() {
                return Some(key);
            }
        }
        None
    }
}

/// The name of `/api/v1/takes/NAME`, decoded into `buf`.
pub fn take_name<'b>(raw: &str, buf: &'b mut [u8; NAME_LEN * 3]) -> Result<&'b str, &'static str> {
    let name = decode(raw, buf).map_err(|_| "the take name is not percent-encoded UTF-8")?;
    if name.is_empty() || name.len() > NAME_LEN || name == "." || name == ".." {
        return Err("a take name of 1 to 32 bytes");
    }
    Ok(name)
}

/// The place of `?place=flash|card` (flash by default).
pub fn place(query: &str) -> Result<Place, &'static str> {
    let mut pairs = Pairs::new(query);
    let (mut k, mut v) = ([0u8; 16], [0u8; 16]);
    let mut place = Place::Internal;
    while let Some(pair) = pairs.next_into(&mut k, &mut v) {
        match pair {
            Ok(("place", "flash")) => place = Place::Internal,
            Ok(("place", "card")) => place = Place::Card,
            Ok(("place", _)) => return Err("place: flash or card"),
            Ok(_) => {}
            Err(_) => return Err("bad query"),
        }
    }
    Ok(place)
}
