//! One connection's state: a [`Session`] turns each decoded request into a
//! response, checks the protocol version and token, owns the connection's
//! upload and calls the take library ([`TakeLibrary`]). Playback and the
//! box's own state go through [`Playback`], which the firmware implements (and
//! tests and `llv serve` implement their own way).
//!
//! Every front door runs its requests through [`Session::handle`]: the binary
//! protocol ([`crate::connection`]) and OSC ([`crate::osc`]) alike, so they
//! cannot disagree.
//!
//! The token authenticates the connection: compared in constant time, and
//! checked again at every request, so a connection loses its rights when the
//! token changes (the connection that changed it keeps them). A refused
//! `Hello` ends the connection ([`Session::verdict`]). While the stored
//! settings are unreadable the box is locked: it answers only `Status`,
//! `List` and `GetSettings` until a factory reset.

use heapless::{String, Vec};
use llv_core::control::{
    bounded, decode, encode, ClockSource, ErrorCode, Fault, LiveStatus, Place, Played, Playing,
    Request, Response, Start, Status, TakeRef, MAX_FAULTS, MAX_FRAME, MAX_RESPONSE, MAX_TAKES,
    PREFIX_LEN, PROTOCOL_VERSION,
};
use llv_core::settings::{Sender, Settings, Target, MAX_TARGETS, TOKEN_LEN};
use llv_core::take::NAME_LEN;
use subtle::ConstantTimeEq;

use crate::library::{detail, Refusal, Take, TakeLibrary};

/// Bytes of a buffer that holds any framed message.
pub const FRAME_BUF: usize = PREFIX_LEN + MAX_FRAME;
/// Bytes of a buffer that holds any framed response.
pub const RESPONSE_BUF: usize = PREFIX_LEN + MAX_RESPONSE;

/// What the session needs from the rest of the box: the player (which plays
/// takes of type `T`, opened by the library) and the box's own state.
pub trait Playback<T> {
    /// Starts playing `take` to `targets` (never empty), `loop_count` times (0: forever),
    /// from `start`, replacing any playback.
    fn play(&mut self, take: T, targets: &[Target], loop_count: u32, start: Start);
    /// Stops playback.
    fn stop(&mut self);
    /// What is playing, if anything.
    fn playing(&self) -> Option<Playing>;
    /// How the last playback went, from its end until the next one starts.
    fn last(&self) -> Option<Played>;
    /// The box's monotonic clock: µs since power-up.
    fn clock_us(&self) -> u64;
    /// What that clock runs from.
    fn clock_source(&self) -> ClockSource;
    /// The box's IPv4 address, once it has one (`llv serve`: the one it
    /// listens on, 0.0.0.0 for every interface).
    fn address(&self) -> Option<[u8; 4]>;
    /// The OSC port it serves on now (UDP and TCP), which a changed
    /// `osc-port` setting replaces only from the next power-up.
    fn osc_port(&self) -> u16;
    /// Faults of the box outside the library (watchdog reset, factory reset, ...).
    fn faults(&self) -> Vec<Fault, MAX_FAULTS>;
    /// Whether the player's read-ahead is short: an erase (which holds the
    /// store for a second or more) should wait for it to fill.
    fn read_ahead_short(&self) -> bool;
    /// Called after new settings were stored (to apply address or subject changes).
    fn settings_changed(&mut self, settings: &Settings);
    /// Who sends the frames: what a target may be (the box cannot reach a
    /// laptop's loopback, `llv serve` can).
    fn sender(&self) -> Sender;
    /// Turns the live relay on (with `settings`' live relay, to its
    /// targets, `idle` opened from the library when the settings name one)
    /// or off; one without a relay refuses.
    fn live(&mut self, on: bool, settings: &Settings, idle: Option<T>) -> Result<(), Refusal> {
        let _ = (on, settings, idle);
        Err(Refusal::new(ErrorCode::Invalid, "no live relay here"))
    }
    /// How the live relay stands, while it runs.
    fn live_status(&self) -> Option<LiveStatus> {
        None
    }
}

/// Turns the live relay on with `settings`' (at power-up: the usable
/// stored ones), as a `Live` request does: refused without targets, the
/// idle take they name opened from `library`.
pub async fn live_on<L: TakeLibrary, D: Playback<L::Take>>(
    library: &mut L,
    device: &mut D,
    settings: &Settings,
) -> Result<(), Refusal> {
    live_targets(settings)?;
    let idle = match &settings.live.idle {
        Some(name) => Some(open_idle(library, name).await?),
        None => None,
    };
    device.live(true, settings, idle)
}

/// The live relay needs targets.
fn live_targets(settings: &Settings) -> Result<(), Refusal> {
    if settings.targets.is_empty() {
        return Err(Refusal::new(
            ErrorCode::Invalid,
            "no targets: set targets first",
        ));
    }
    Ok(())
}

/// The live relay's idle take `name`, opened from `library`.
async fn open_idle<L: TakeLibrary>(library: &mut L, name: &str) -> Result<L::Take, Refusal> {
    match library.open(TakeRef::parse(name)).await {
        Ok((take, _)) => Ok(take),
        Err(e) => Err(Refusal::fmt(
            e.code,
            format_args!("idle take: {}", e.detail.as_str()),
        )),
    }
}

/// A request handled as far as it goes without waiting ([`Session::start`]).
#[allow(
    clippy::large_enum_variant,
    reason = "no heap to box into: one step lives at a time, and never across a wait"
)]
pub enum Step<'r> {
    /// Answered.
    Done(Response),
    /// Waits on the library: [`Session::finish`] it.
    Wait(Pending<'r>),
}

/// The part of a request that waits on the library (flash, card or disk work).
#[derive(Debug)]
#[allow(
    clippy::large_enum_variant,
    reason = "no heap to box into: one pending request lives at a time"
)]
pub enum Pending<'r> {
    /// Start an upload.
    Begin {
        /// Take name.
        name: &'r str,
        /// Image length.
        total_len: u32,
        /// Image CRC.
        crc32: u32,
        /// Flash or card.
        place: Place,
    },
    /// Write a chunk of this connection's upload.
    Chunk {
        /// The upload.
        id: u32,
        /// Offset in the image.
        offset: u32,
        /// The bytes.
        data: &'r [u8],
    },
    /// Commit this connection's upload.
    Commit {
        /// The upload.
        id: u32,
    },
    /// Delete a take.
    Delete {
        /// Take name.
        name: &'r str,
    },
    /// Store these settings (checked).
    Save(Settings),
    /// List a page of the takes (the first, for the older `List`).
    List {
        /// Index of the page's first take.
        start: u32,
        /// Answer `Response::Takes` (else `Response::List`).
        paged: bool,
    },
    /// Open the live relay's idle take and turn the relay on.
    Live {
        /// The idle take's name.
        idle: String<NAME_LEN>,
    },
    /// Open a take and play it (the rest of the request checked).
    Play {
        /// Take name.
        name: &'r str,
        /// Where to send frames (never empty).
        targets: heapless::Vec<Target, MAX_TARGETS>,
        /// How many times.
        loop_count: u32,
        /// When the first frame goes out.
        start: Start,
    },
}

/// What the connection does after this response.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Verdict {
    /// Goes on.
    Continue,
    /// Ends: a `Hello` was refused.
    Close,
    /// Ends after a delay that grows with each wrong token from the same source.
    Penalize,
}

/// The state of one control connection.
#[derive(Clone, Debug)]
pub struct Session {
    firmware: &'static str,
    /// The token this connection proved (`Some(None)`: the box had none), if any.
    proved: Option<Option<String<TOKEN_LEN>>>,
    upload: Option<u32>,
    verdict: Verdict,
}

impl Session {
    /// A new connection on a box running firmware version `firmware`.
    pub fn new(firmware: &'static str) -> Self {
        Session {
            firmware,
            proved: None,
            upload: None,
            verdict: Verdict::Continue,
        }
    }

    /// Whether the connection said an accepted `Hello` (and the token has not changed since).
    pub fn is_authenticated<L: TakeLibrary>(&self, library: &L) -> bool {
        self.proved.as_ref().is_some_and(|t| {
            library.locked() || same_token(t.as_deref(), library.settings().token.as_deref())
        })
    }

    /// What the connection does after the last response.
    pub fn verdict(&self) -> Verdict {
        self.verdict
    }

    /// Whether `body` is a chunk of this connection's upload that holds the
    /// library for long (erases a flash block) before it is written.
    pub fn erases_first<L: TakeLibrary>(&self, body: &[u8], library: &L) -> bool {
        match decode::<Request<'_>>(body) {
            Ok(Request::UploadChunk { offset, data }) => {
                self.chunk_erases_first(offset, data.len(), library)
            }
            _ => false,
        }
    }

    /// Whether a chunk of `len` bytes at `offset` of this connection's
    /// upload holds the library for long (erases a flash block) before it is written.
    pub fn chunk_erases_first<L: TakeLibrary>(&self, offset: u32, len: usize, library: &L) -> bool {
        self.upload
            .is_some_and(|id| library.chunk_waits(id, offset, len))
    }

    /// Decodes `body` and handles it as far as it goes without waiting
    /// ([`Session::start`]); a body that does not decode is answered.
    pub fn start_frame<'b, L: TakeLibrary, D: Playback<L::Take>>(
        &mut self,
        body: &'b [u8],
        library: &L,
        device: &mut D,
    ) -> Step<'b> {
        match decode::<Request<'_>>(body) {
            Ok(request) => self.start(request, library, device),
            Err(e) => Step::Done(Response::error(
                ErrorCode::BadRequest,
                &detail(format_args!("{e}")),
            )),
        }
    }

    /// Decodes `body`, handles it and writes the framed response into `out`.
    pub async fn handle_frame<'o, L: TakeLibrary, D: Playback<L::Take>>(
        &mut self,
        body: &[u8],
        library: &mut L,
        device: &mut D,
        out: &'o mut [u8; RESPONSE_BUF],
    ) -> &'o [u8] {
        let response = match self.start_frame(body, library, device) {
            Step::Done(response) => response,
            Step::Wait(pending) => self.finish(pending, library, device).await,
        };
        frame(&response, out)
    }

    /// The framed refusal of a body of `len` bytes (over `MAX_FRAME`, skipped by the caller).
    pub fn refuse_oversized(len: usize, out: &mut [u8; RESPONSE_BUF]) -> &[u8] {
        let text = detail(format_args!("{len} bytes exceeds {MAX_FRAME}"));
        frame(&Response::error(ErrorCode::TooLarge, &text), out)
    }

    /// Ends the connection: drops its unfinished upload.
    pub fn close<L: TakeLibrary>(self, library: &mut L) {
        if let Some(id) = self.upload {
            library.abort_upload(id);
        }
    }

    /// Handles one request ([`Session::start`], then [`Session::finish`] if
    /// it waits on the library).
    pub async fn handle<L: TakeLibrary, D: Playback<L::Take>>(
        &mut self,
        request: Request<'_>,
        library: &mut L,
        device: &mut D,
    ) -> Response {
        let pending = match self.start(request, library, device) {
            Step::Done(response) => return response,
            Step::Wait(pending) => pending,
        };
        self.finish(pending, library, device).await
    }

    /// Handles `request` as far as it can without waiting: every request
    /// but a list, a play, an upload's, a delete and a settings change is
    /// answered here. A
    /// door calls it with the request just decoded and awaits
    /// [`Session::finish`] only for the rest, so no waiting future holds a
    /// whole request or response.
    pub fn start<'r, L: TakeLibrary, D: Playback<L::Take>>(
        &mut self,
        request: Request<'r>,
        library: &L,
        device: &mut D,
    ) -> Step<'r> {
        match self.start_inner(request, library, device) {
            Ok(step) => step,
            Err(Refusal { code, detail }) => Step::Done(Response::Error { code, detail }),
        }
    }

    fn start_inner<'r, L: TakeLibrary, D: Playback<L::Take>>(
        &mut self,
        request: Request<'r>,
        library: &L,
        device: &mut D,
    ) -> Result<Step<'r>, Refusal> {
        self.rights(&request, library)?;
        let done = |r| Ok(Step::Done(r));
        match request {
            Request::Hello { protocol, token } => done(self.hello(protocol, token, library)?),
            Request::Status => {
                let mut faults = device.faults();
                // The library's faults matter most: they go first.
                for (i, f) in library.faults().into_iter().enumerate() {
                    if faults.is_full() {
                        faults.pop();
                    }
                    let _ = faults.insert(i, f);
                }
                done(Response::Status(Status {
                    firmware: bounded(self.firmware),
                    uptime_ms: device.clock_us() / 1000,
                    address: device.address(),
                    playing: device.playing(),
                    used_bytes: library.used_bytes(),
                    free_bytes: library.free_bytes(),
                    faults,
                    card: library.card(),
                    wear: library.wear(),
                    last: device.last(),
                    clock: device.clock_source(),
                    osc_port: device.osc_port(),
                    live: device.live_status(),
                }))
            }
            Request::List => Ok(Step::Wait(Pending::List {
                start: 0,
                paged: false,
            })),
            Request::ListPage { start } => Ok(Step::Wait(Pending::List { start, paged: true })),
            Request::UploadBegin {
                name,
                total_len,
                crc32,
                place,
            } => Ok(Step::Wait(Pending::Begin {
                name,
                total_len,
                crc32,
                place,
            })),
            Request::UploadChunk { offset, data } => {
                let id = self.upload.ok_or_else(no_upload)?;
                Ok(Step::Wait(Pending::Chunk { id, offset, data }))
            }
            Request::UploadCommit => {
                let id = self.upload.ok_or_else(no_upload)?;
                Ok(Step::Wait(Pending::Commit { id }))
            }
            Request::Delete { name } => Ok(Step::Wait(Pending::Delete { name })),
            Request::Play {
                name,
                targets,
                loop_count,
                start,
            } => {
                let targets = if targets.is_empty() {
                    library.settings().targets.clone()
                } else {
                    targets
                };
                if targets.is_empty() {
                    return Err(Refusal::new(
                        ErrorCode::Invalid,
                        "no targets given and none configured",
                    ));
                }
                for t in &targets {
                    t.check(device.sender()).map_err(invalid)?;
                }
                match &start {
                    Start::Chase(chase) => chase.check().map_err(invalid)?,
                    Start::At(at) => {
                        let now = device.clock_us();
                        if *at < now {
                            return Err(Refusal::fmt(
                                ErrorCode::Invalid,
                                format_args!(
                                    "start {} ms in the past (the clock reads {} ms)",
                                    (now - at).div_ceil(1000),
                                    now / 1000
                                ),
                            ));
                        }
                    }
                    Start::Now => {}
                }
                Ok(Step::Wait(Pending::Play {
                    name,
                    targets,
                    loop_count,
                    start,
                }))
            }
            Request::Stop => {
                device.stop();
                done(Response::Ok)
            }
            Request::Clock => done(Response::Clock {
                now_us: device.clock_us(),
            }),
            Request::Live { on: true } => {
                let settings = library.settings();
                live_targets(settings)?;
                match &settings.live.idle {
                    Some(idle) => Ok(Step::Wait(Pending::Live { idle: idle.clone() })),
                    None => {
                        device.live(true, settings, None)?;
                        done(Response::Ok)
                    }
                }
            }
            Request::Live { on: false } => {
                device.live(false, library.settings(), None)?;
                done(Response::Ok)
            }
            Request::GetSettings => {
                let mut settings = library.settings().clone();
                let token_set = settings.token.take().is_some();
                done(Response::Settings {
                    settings,
                    token_set,
                })
            }
            Request::SetSettings { changes } => {
                let mut settings = library.settings().clone();
                for change in &changes {
                    settings.apply(change);
                }
                settings.check(device.sender()).map_err(invalid)?;
                Ok(Step::Wait(Pending::Save(settings)))
            }
        }
    }

    /// Finishes a request that waits on the library.
    pub async fn finish<L: TakeLibrary, D: Playback<L::Take>>(
        &mut self,
        pending: Pending<'_>,
        library: &mut L,
        device: &mut D,
    ) -> Response {
        let done = match pending {
            Pending::List { start, paged } => {
                return match library.list_page(start).await {
                    Ok(page) if paged => Response::Takes(page),
                    Ok(page) => Response::List {
                        takes: page.takes.into_iter().take(MAX_TAKES).collect(),
                    },
                    Err(Refusal { code, detail }) => Response::Error { code, detail },
                };
            }
            Pending::Play {
                name,
                targets,
                loop_count,
                start,
            } => library
                .open(TakeRef::parse(name))
                .await
                .and_then(|(take, _)| {
                    if take.header().plays_too_fast() {
                        return Err(Refusal::fmt(
                            ErrorCode::Invalid,
                            format_args!(
                                "take \"{name}\" loops faster than {} fps",
                                llv_core::take::MAX_FPS
                            ),
                        ));
                    }
                    device.play(take, &targets, loop_count, start);
                    Ok(())
                }),
            Pending::Live { idle } => match open_idle(library, &idle).await {
                Ok(take) => device.live(true, library.settings(), Some(take)),
                Err(e) => Err(e),
            },
            pending => self.finish_write(pending, library, device).await,
        };
        match done {
            Ok(()) => Response::Ok,
            Err(Refusal { code, detail }) => Response::Error { code, detail },
        }
    }

    /// Finishes a request that writes to the library.
    async fn finish_write<L: TakeLibrary, D: Playback<L::Take>>(
        &mut self,
        pending: Pending<'_>,
        library: &mut L,
        device: &mut D,
    ) -> Result<(), Refusal> {
        match &pending {
            Pending::Begin {
                name,
                total_len,
                crc32,
                place,
            } => {
                if let Some(id) = self.upload.take() {
                    library.abort_upload(id);
                }
                let begun = library.begin_upload(name, *total_len, *crc32, *place).await;
                begun.map(|id| self.upload = Some(id))
            }
            Pending::Chunk { id, offset, data } => {
                let written = library.write_chunk(*id, *offset, data).await;
                // A bad image ends the upload.
                if !library.uploading(*id) {
                    self.upload = None;
                }
                written
            }
            Pending::Commit { id } => {
                let committed = library.commit_upload(*id).await;
                // Only a commit before the last chunk leaves the upload open.
                if !library.uploading(*id) {
                    self.upload = None;
                }
                committed.map(|header| {
                    if device.playing().is_some_and(|p| p.take == header.name) {
                        device.stop();
                    }
                })
            }
            Pending::Delete { name } => {
                let take = TakeRef::parse(name);
                if device.playing().is_some_and(|p| p.take == take.name) {
                    device.stop();
                }
                library.delete(take).await.map(|_| ())
            }
            Pending::Save(settings) => library.save_settings(settings).await.map(|()| {
                // This connection proved the old token and chose the new one.
                self.proved = Some(settings.token.clone());
                device.settings_changed(library.settings());
            }),
            Pending::List { .. } | Pending::Play { .. } | Pending::Live { .. } => Ok(()),
        }
    }

    /// Whether this connection may make `request` now (a `Hello` it always may).
    fn rights<L: TakeLibrary>(
        &mut self,
        request: &Request<'_>,
        library: &L,
    ) -> Result<(), Refusal> {
        if matches!(request, Request::Hello { .. }) {
            return Ok(());
        }
        if self.proved.is_none() {
            return Err(Refusal::new(ErrorCode::Unauthorized, "send Hello first"));
        }
        if !self.is_authenticated(library) {
            self.proved = None;
            return Err(Refusal::new(
                ErrorCode::Unauthorized,
                "the token changed: send Hello with the new one",
            ));
        }
        let read_only = matches!(
            request,
            Request::Status | Request::List | Request::ListPage { .. } | Request::GetSettings
        );
        if library.locked() && !read_only {
            return Err(Refusal::new(
                ErrorCode::Unauthorized,
                "stored settings unreadable: box locked, factory reset it (see status)",
            ));
        }
        Ok(())
    }

    fn hello<L: TakeLibrary>(
        &mut self,
        protocol: u16,
        token: Option<&str>,
        library: &L,
    ) -> Result<Response, Refusal> {
        self.proved = None;
        self.verdict = Verdict::Close;
        if protocol != PROTOCOL_VERSION {
            return Err(Refusal::fmt(
                ErrorCode::ProtocolMismatch,
                format_args!("box speaks protocol {PROTOCOL_VERSION}, host {protocol}"),
            ));
        }
        let expected = library.settings().token.as_deref();
        if !library.locked() && !same_token(token, expected) {
            if token.is_none() {
                return Err(Refusal::new(
                    ErrorCode::Unauthorized,
                    "this box needs a token",
                ));
            }
            self.verdict = Verdict::Penalize;
            return Err(Refusal::new(ErrorCode::Unauthorized, "wrong token"));
        }
        self.verdict = Verdict::Continue;
        self.proved = Some(expected.map(bounded));
        Ok(Response::Hello {
            protocol: PROTOCOL_VERSION,
            firmware: bounded(self.firmware),
        })
    }
}

/// Whether `given` is the token `expected` (none when the box has none),
/// compared in constant time over the longest token.
fn same_token(given: Option<&str>, expected: Option<&str>) -> bool {
    let pad = |t: Option<&str>| {
        let mut padded = [0u8; TOKEN_LEN + 1];
        if let Some(t) = t {
            let bytes = t.as_bytes();
            let n = bytes.len().min(TOKEN_LEN);
            padded[0] = 1 + n as u8;
            padded[1..1 + n].copy_from_slice(&bytes[..n]);
        }
        padded
    };
    let fits = given.is_none_or(|t| t.len() <= TOKEN_LEN);
    fits && bool::from(pad(given).ct_eq(&pad(expected)))
}

/// An invalid argument, described.
fn invalid(e: impl core::fmt::Display) -> Refusal {
    Refusal::fmt(ErrorCode::Invalid, format_args!("{e}"))
}

fn no_upload() -> Refusal {
    Refusal::new(
        ErrorCode::UploadOrder,
        "no upload in progress on this connection",
    )
}

/// Frames `response` into `out`; every response fits in `MAX_FRAME`.
pub fn frame<'o>(response: &Response, out: &'o mut [u8; RESPONSE_BUF]) -> &'o [u8] {
    match encode(response, out) {
        Ok(frame) => {
            let n = frame.len();
            &out[..n]
        }
        // Unreachable for bounded responses; answer with a minimal error all the same.
        Err(_) => {
            let n = encode(&Response::error(ErrorCode::Flash, ""), out).map_or(0, |f| f.len());
            &out[..n]
        }
    }
}
