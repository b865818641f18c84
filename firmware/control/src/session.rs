//! One control connection's state: a [`Session`] turns each decoded request
//! into a response, checks the protocol version and token, owns the
//! connection's upload and calls the store. Playback and the box's own state
//! go through [`Device`], which the firmware implements (and tests mock).
//!
//! The token authenticates the connection: compared in constant time, and
//! checked again at every request, so a connection loses its rights when the
//! token changes (the connection that changed it keeps them). A refused
//! `Hello` ends the connection ([`Session::verdict`]). While the stored
//! settings are unreadable the box is locked: it answers only `Status`,
//! `List` and `GetSettings` until a factory reset.

use core::fmt::Write;

use embedded_storage_async::nor_flash::NorFlash;
use heapless::{String, Vec};
use llv_box_store::{Store, StoreError, StoreFault, TakeReader, Unreadable};
use llv_core::control::{
    bounded, decode, encode, ErrorCode, Fault, FaultCode, Playing, Request, Response, Status,
    DETAIL_LEN, MAX_FAULTS, MAX_FRAME, PREFIX_LEN, PROTOCOL_VERSION,
};
use llv_core::settings::{Settings, Target, TOKEN_LEN};
use subtle::ConstantTimeEq;

/// Bytes of a buffer that holds any framed message.
pub const FRAME_BUF: usize = PREFIX_LEN + MAX_FRAME;

/// What the session needs from the rest of the box.
pub trait Device {
    /// Starts playing `take` to `targets` (never empty), `loop_count` times (0: forever),
    /// replacing any playback.
    fn play(&mut self, take: TakeReader, targets: &[Target], loop_count: u32);
    /// Stops playback.
    fn stop(&mut self);
    /// What is playing, if anything.
    fn playing(&self) -> Option<Playing>;
    /// Milliseconds since power-up.
    fn uptime_ms(&self) -> u64;
    /// The box's IPv4 address, once it has one.
    fn address(&self) -> Option<[u8; 4]>;
    /// Faults of the box outside the store (watchdog reset, factory reset, ...).
    fn faults(&self) -> Vec<Fault, MAX_FAULTS>;
    /// Whether the player's read-ahead is short: an erase (which holds the
    /// store for a second or more) should wait for it to fill.
    fn read_ahead_short(&self) -> bool;
    /// Called after new settings were stored (to apply address or subject changes).
    fn settings_changed(&mut self, settings: &Settings);
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
    pub fn is_authenticated<F: NorFlash>(&self, store: &Store<F>) -> bool {
        self.proved.as_ref().is_some_and(|t| {
            locked(store) || same_token(t.as_deref(), store.settings().token.as_deref())
        })
    }

    /// What the connection does after the last response.
    pub fn verdict(&self) -> Verdict {
        self.verdict
    }

    /// Whether `body` is a chunk of this connection's upload that erases a
    /// flash block before it is written.
    pub fn erases_first<F: NorFlash>(&self, body: &[u8], store: &Store<F>) -> bool {
        match (decode::<Request<'_>>(body), self.upload) {
            (Ok(Request::UploadChunk { offset, data }), Some(id)) => {
                store.chunk_erases(id, offset, data.len())
            }
            _ => false,
        }
    }

    /// Decodes `body`, handles it and writes the framed response into `out`.
    pub async fn handle_frame<'o, F: NorFlash, D: Device>(
        &mut self,
        body: &[u8],
        store: &mut Store<F>,
        device: &mut D,
        out: &'o mut [u8; FRAME_BUF],
    ) -> &'o [u8] {
        let response = match decode::<Request<'_>>(body) {
            Ok(request) => self.handle(request, store, device).await,
            Err(e) => Response::error(ErrorCode::BadRequest, &detail(format_args!("{e}"))),
        };
        frame(&response, out)
    }

    /// The framed refusal of a body of `len` bytes (over `MAX_FRAME`, skipped by the caller).
    pub fn refuse_oversized(len: usize, out: &mut [u8; FRAME_BUF]) -> &[u8] {
        let text = detail(format_args!("{len} bytes exceeds {MAX_FRAME}"));
        frame(&Response::error(ErrorCode::TooLarge, &text), out)
    }

    /// Ends the connection: drops its unfinished upload.
    pub fn close<F: NorFlash>(self, store: &mut Store<F>) {
        if let Some(id) = self.upload {
            store.abort_upload(id);
        }
    }

    /// Handles one request.
    pub async fn handle<F: NorFlash, D: Device>(
        &mut self,
        request: Request<'_>,
        store: &mut Store<F>,
        device: &mut D,
    ) -> Response {
        match self.handle_inner(request, store, device).await {
            Ok(response) => response,
            Err((code, text)) => Response::error(code, &text),
        }
    }

    async fn handle_inner<F: NorFlash, D: Device>(
        &mut self,
        request: Request<'_>,
        store: &mut Store<F>,
        device: &mut D,
    ) -> Result<Response, Refusal> {
        self.rights(&request, store)?;
        match request {
            Request::Hello { protocol, token } => self.hello(protocol, token, store),
            Request::Status => {
                let mut faults = device.faults();
                if let Some(f) = store.fault() {
                    // The store's fault matters most: it goes first.
                    if faults.is_full() {
                        faults.pop();
                    }
                    let _ = faults.insert(0, store_fault(f));
                }
                Ok(Response::Status(Status {
                    firmware: bounded(self.firmware),
                    uptime_ms: device.uptime_ms(),
                    address: device.address(),
                    playing: device.playing(),
                    used_bytes: store.used_bytes(),
                    free_bytes: store.free_bytes(),
                    faults,
                }))
            }
            Request::List => Ok(Response::List {
                takes: store.list(),
            }),
            Request::UploadBegin {
                name,
                total_len,
                crc32,
            } => {
                if let Some(id) = self.upload.take() {
                    store.abort_upload(id);
                }
                let id = store
                    .begin_upload(name, total_len, crc32)
                    .await
                    .map_err(store_error)?;
                self.upload = Some(id);
                Ok(Response::Ok)
            }
            Request::UploadChunk { offset, data } => {
                let id = self.upload.ok_or_else(no_upload)?;
                store
                    .write_chunk(id, offset, data)
                    .await
                    .map_err(store_error)?;
                Ok(Response::Ok)
            }
            Request::UploadCommit => {
                let id = self.upload.ok_or_else(no_upload)?;
                let committed = store.commit_upload(id).await;
                // Only a commit before the last chunk leaves the upload open.
                if !matches!(committed, Err(StoreError::Incomplete { .. })) {
                    self.upload = None;
                }
                let header = committed.map_err(store_error)?;
                if device.playing().is_some_and(|p| p.take == header.name) {
                    device.stop();
                }
                Ok(Response::Ok)
            }
            Request::Delete { name } => {
                if device.playing().is_some_and(|p| p.take == name) {
                    device.stop();
                }
                store.delete(name).await.map_err(|e| take_error(e, name))?;
                Ok(Response::Ok)
            }
            Request::Play {
                name,
                targets,
                loop_count,
            } => {
                let reader = store.reader(name).map_err(|e| take_error(e, name))?;
                if reader.header().plays_too_fast() {
                    return Err((
                        ErrorCode::Invalid,
                        detail(format_args!(
                            "take \"{name}\" loops faster than {} fps",
                            llv_core::take::MAX_FPS
                        )),
                    ));
                }
                let targets = if targets.is_empty() {
                    store.settings().targets.clone()
                } else {
                    targets
                };
                if targets.is_empty() {
                    return Err((
                        ErrorCode::Invalid,
                        bounded("no targets given and none configured"),
                    ));
                }
                for t in &targets {
                    t.check().map_err(invalid)?;
                }
                device.play(reader, &targets, loop_count);
                Ok(Response::Ok)
            }
            Request::Stop => {
                device.stop();
                Ok(Response::Ok)
            }
            Request::GetSettings => {
                let mut settings = store.settings().clone();
                let token_set = settings.token.take().is_some();
                Ok(Response::Settings {
                    settings,
                    token_set,
                })
            }
            Request::SetSettings { changes } => {
                let mut settings = store.settings().clone();
                for change in &changes {
                    settings.apply(change);
                }
                settings.check().map_err(invalid)?;
                let token = settings.token.clone();
                store.save_settings(settings).await.map_err(store_error)?;
                // This connection proved the old token and chose the new one.
                self.proved = Some(token);
                device.settings_changed(store.settings());
                Ok(Response::Ok)
            }
        }
    }

    /// Whether this connection may make `request` now (a `Hello` it always may).
    fn rights<F: NorFlash>(
        &mut self,
        request: &Request<'_>,
        store: &Store<F>,
    ) -> Result<(), Refusal> {
        if matches!(request, Request::Hello { .. }) {
            return Ok(());
        }
        if self.proved.is_none() {
            return Err((ErrorCode::Unauthorized, bounded("send Hello first")));
        }
        if !self.is_authenticated(store) {
            self.proved = None;
            return Err((
                ErrorCode::Unauthorized,
                bounded("the token changed: send Hello with the new one"),
            ));
        }
        let read_only = matches!(
            request,
            Request::Status | Request::List | Request::GetSettings
        );
        if locked(store) && !read_only {
            return Err((
                ErrorCode::Unauthorized,
                bounded("stored settings unreadable: box locked, factory reset it (see status)"),
            ));
        }
        Ok(())
    }

    fn hello<F: NorFlash>(
        &mut self,
        protocol: u16,
        token: Option<&str>,
        store: &Store<F>,
    ) -> Result<Response, Refusal> {
        self.proved = None;
        self.verdict = Verdict::Close;
        if protocol != PROTOCOL_VERSION {
            return Err((
                ErrorCode::ProtocolMismatch,
                detail(format_args!(
                    "box speaks protocol {PROTOCOL_VERSION}, host {protocol}"
                )),
            ));
        }
        let expected = store.settings().token.as_deref();
        if !locked(store) && !same_token(token, expected) {
            if token.is_none() {
                return Err((ErrorCode::Unauthorized, bounded("this box needs a token")));
            }
            self.verdict = Verdict::Penalize;
            return Err((ErrorCode::Unauthorized, bounded("wrong token")));
        }
        self.verdict = Verdict::Continue;
        self.proved = Some(expected.map(bounded));
        Ok(Response::Hello {
            protocol: PROTOCOL_VERSION,
            firmware: bounded(self.firmware),
        })
    }
}

/// Whether the stored settings are unreadable, so the token is unknown.
fn locked<F: NorFlash>(store: &Store<F>) -> bool {
    matches!(store.fault(), Some(StoreFault::Settings(_)))
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

/// What Status says of a store fault.
fn store_fault(fault: StoreFault) -> Fault {
    let (code, detail) = match fault {
        StoreFault::Layout => (
            FaultCode::StoreUnusable,
            bounded("no usable flash for the take store (see the log): no takes, default settings"),
        ),
        StoreFault::Settings(Unreadable::Newer(v)) => (
            FaultCode::SettingsUnreadable,
            detail(format_args!(
                "settings schema {v} newer than firmware: locked; upgrade or factory reset"
            )),
        ),
        StoreFault::Settings(Unreadable::Damaged(v)) => (
            FaultCode::SettingsUnreadable,
            detail(format_args!(
                "settings record (schema {v}) damaged: locked; factory reset"
            )),
        ),
    };
    Fault { code, detail }
}

/// An invalid argument, described.
fn invalid(e: impl core::fmt::Display) -> Refusal {
    (ErrorCode::Invalid, detail(format_args!("{e}")))
}

type Refusal = (ErrorCode, String<DETAIL_LEN>);

fn no_upload() -> Refusal {
    (
        ErrorCode::UploadOrder,
        bounded("no upload in progress on this connection"),
    )
}

fn store_error<E: core::fmt::Debug>(e: StoreError<E>) -> Refusal {
    let code = match e {
        StoreError::Flash(_) => ErrorCode::Flash,
        StoreError::NotFound => ErrorCode::NotFound,
        StoreError::Full | StoreError::NoSpace { .. } => ErrorCode::NoSpace,
        StoreError::NoUpload
        | StoreError::Busy { .. }
        | StoreError::Order { .. }
        | StoreError::TooLong
        | StoreError::Incomplete { .. } => ErrorCode::UploadOrder,
        StoreError::Image(llv_core::take::TakeError::Crc { .. }) => ErrorCode::Crc,
        StoreError::Image(_) | StoreError::NameMismatch => ErrorCode::BadImage,
        StoreError::BadName | StoreError::SettingsTooLarge => ErrorCode::Invalid,
        StoreError::InnerRecord { .. } => ErrorCode::BadImage,
        StoreError::SettingsLocked => ErrorCode::Unauthorized,
        StoreError::Unusable => ErrorCode::Flash,
    };
    (code, detail(format_args!("{e}")))
}

/// Like [`store_error`], naming the take when it is missing.
fn take_error<E: core::fmt::Debug>(e: StoreError<E>, name: &str) -> Refusal {
    match e {
        StoreError::NotFound => (
            ErrorCode::NotFound,
            detail(format_args!("no take named \"{name}\"")),
        ),
        other => store_error(other),
    }
}

/// Formats a detail, cut to [`DETAIL_LEN`] bytes.
fn detail(args: core::fmt::Arguments<'_>) -> String<DETAIL_LEN> {
    let mut long: String<{ 2 * DETAIL_LEN }> = String::new();
    // A too-long text is cut where the buffer ends.
    let _ = long.write_fmt(args);
    bounded(&long)
}

/// Frames `response` into `out`; every response fits in `MAX_FRAME`.
fn frame<'o>(response: &Response, out: &'o mut [u8; FRAME_BUF]) -> &'o [u8] {
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
