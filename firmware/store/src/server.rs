//! One control connection: a [`Session`] turns each decoded request into a
//! response, checks the protocol version and token, owns the connection's upload
//! and calls the store. Playback and the box's own state go through [`Device`],
//! which the firmware implements (and tests fake). Transport wrappers read a
//! `u16` LE length, then call [`Session::handle_frame`] (or
//! [`Session::refuse_oversized`] after skipping a body longer than `MAX_FRAME`),
//! send the frame it returns, and call [`Session::close`] when the connection ends.

use core::fmt::Write;

use embedded_storage_async::nor_flash::NorFlash;
use heapless::String;
use llv_core::control::{
    bounded, decode, encode, ErrorCode, Playing, Request, Response, Settings, Status, Target,
    DETAIL_LEN, MAX_FRAME, PREFIX_LEN, PROTOCOL_VERSION,
};

use crate::reader::TakeReader;
use crate::store::{Store, StoreError};

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
    /// Called after new settings were stored (to apply address or subject changes).
    fn settings_changed(&mut self, settings: &Settings);
}

/// The state of one control connection.
pub struct Session {
    firmware: &'static str,
    authenticated: bool,
    upload: Option<u32>,
}

impl Session {
    /// A new connection on a box running firmware version `firmware`.
    pub fn new(firmware: &'static str) -> Self {
        Session {
            firmware,
            authenticated: false,
            upload: None,
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
    ) -> Result<Response, (ErrorCode, String<DETAIL_LEN>)> {
        match request {
            Request::Hello { protocol, token } => self.hello(protocol, token, store.settings()),
            _ if !self.authenticated => Err((ErrorCode::Unauthorized, bounded("send Hello first"))),
            Request::Status => Ok(Response::Status(Status {
                firmware: bounded(self.firmware),
                uptime_ms: device.uptime_ms(),
                address: device.address(),
                playing: device.playing(),
                used_bytes: store.used_bytes(),
                free_bytes: store.free_bytes(),
            })),
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
                store.save_settings(settings).await.map_err(store_error)?;
                device.settings_changed(store.settings());
                Ok(Response::Ok)
            }
        }
    }

    fn hello(
        &mut self,
        protocol: u16,
        token: Option<&str>,
        settings: &Settings,
    ) -> Result<Response, (ErrorCode, String<DETAIL_LEN>)> {
        self.authenticated = false;
        if protocol != PROTOCOL_VERSION {
            return Err((
                ErrorCode::ProtocolMismatch,
                detail(format_args!(
                    "box speaks protocol {PROTOCOL_VERSION}, host {protocol}"
                )),
            ));
        }
        if let Some(expected) = &settings.token {
            if token != Some(expected.as_str()) {
                let why = if token.is_some() {
                    "wrong token"
                } else {
                    "this box needs a token"
                };
                return Err((ErrorCode::Unauthorized, bounded(why)));
            }
        }
        self.authenticated = true;
        Ok(Response::Hello {
            protocol: PROTOCOL_VERSION,
            firmware: bounded(self.firmware),
        })
    }
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
        StoreError::Flash(_) | StoreError::Layout => ErrorCode::Flash,
        StoreError::NotFound => ErrorCode::NotFound,
        StoreError::Full | StoreError::NoSpace { .. } => ErrorCode::NoSpace,
        StoreError::NoUpload
        | StoreError::Order { .. }
        | StoreError::TooLong
        | StoreError::Incomplete { .. } => ErrorCode::UploadOrder,
        StoreError::Image(llv_core::take::TakeError::Crc { .. }) => ErrorCode::Crc,
        StoreError::Image(_) | StoreError::NameMismatch => ErrorCode::BadImage,
        StoreError::BadName | StoreError::SettingsTooLarge => ErrorCode::Invalid,
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
