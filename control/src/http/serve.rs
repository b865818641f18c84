//! One HTTP connection: requests read within the door's limits, each routed
//! ([`super::route`]) and run through a [`Session`] ([`super::api`]), until
//! the client closes, idles or misbehaves.

use embassy_futures::select::{select, Either};
use embassy_sync::blocking_mutex::raw::RawMutex;
use embassy_time::{with_deadline, Instant, Timer};
use embedded_io_async::{Read, Write};
use llv_core::control::{Request, Response};
use llv_core::take::{TakeHeader, MAX_CHUNK, NAME_LEN};

use super::api::{self, hello, refuse, reply, run, PlayForm, SettingsForm};
use super::request::{Head, HeadError, Input, Method};
use super::response::{code_name, error_json, send, status_of, Extra};
use super::route::{route, Route, RouteError};
use super::{HttpBuffers, OUT_MAX};
use crate::door::{Control, Ended, Seat, READ_AHEAD_POLL};
use crate::library::{Refusal, TakeLibrary};
use crate::osc::Subscription;
use crate::session::{Playback, Session, Verdict};
use crate::worker::Finish;

const JSON: Option<&str> = Some("application/json");

/// What a request left the connection to do.
enum Next {
    /// Read the next request.
    Keep,
    /// Close it.
    End(Ended),
}

/// Serves one HTTP/1.1 connection from `source` until it ends. The first
/// request's first byte must come within [`crate::Limits::hello`] of
/// opening, each request head (and each body chunk) within
/// [`crate::Limits::frame`] of its first byte, and the next request within
/// [`crate::Limits::idle`]; a head over [`super::HEAD_MAX`] bytes or
/// [`super::MAX_HEADERS`] headers, an unknown method, a `..` in the path is
/// answered and the connection closed. Each request is reported to `seat`
/// with whether its token was accepted (the door keeper chooses whom to
/// close by it).
pub async fn serve_http_connection<T, M, L, D, W>(
    io: &mut T,
    source: [u8; 4],
    control: &Control<'_, M, L, W>,
    device: &mut D,
    buffers: &mut HttpBuffers,
    seat: &dyn Seat,
) -> Ended
where
    T: Read + Write,
    M: RawMutex,
    L: TakeLibrary,
    W: Finish<M, L>,
    D: Playback<L::Take>,
{
    let HttpBuffers { head, body, out } = buffers;
    let mut input = Input::new(head);
    let mut first_by = Some(Instant::now() + control.limits.hello);
    loop {
        let idle_until = first_by
            .take()
            .unwrap_or_else(|| Instant::now() + control.limits.idle);
        let head = match input.head(io, idle_until, control.limits.frame).await {
            Ok(head) => head,
            Err(HeadError::Closed) => return Ended::Closed,
            Err(HeadError::Failed) => return Ended::Failed,
            Err(HeadError::TimedOut) => {
                let n = refuse(408, "TimedOut", "request head too slow", None, out).1;
                let _ = send(io, 408, closing(), &out[..n]).await;
                let _ = io.flush().await;
                return Ended::TimedOut;
            }
            Err(HeadError::Refuse(status, why)) => {
                let n = refuse(status, "BadRequest", why, None, out).1;
                let _ = send(io, status, closing(), &out[..n]).await;
                let _ = io.flush().await;
                return Ended::Refused;
            }
        };
        let mut session = Session::new(control.firmware);
        let next = request(
            io,
            &mut input,
            &head,
            &mut session,
            source,
            control,
            device,
            seat,
            body,
            out,
        )
        .await;
        session.close(&mut *control.library.lock().await);
        match next {
            Next::Keep if !head.close => {}
            Next::Keep => {
                let _ = io.flush().await;
                return Ended::Closed;
            }
            Next::End(ended) => {
                let _ = io.flush().await;
                return ended;
            }
        }
    }
}

fn closing() -> Extra<'static> {
    Extra {
        content_type: JSON,
        close: true,
        ..Extra::default()
    }
}

/// Handles one request whose head was read.
#[allow(
    clippy::too_many_arguments,
    reason = "one call site, all of the connection's context"
)]
async fn request<T, M, L, D, W>(
    io: &mut T,
    input: &mut Input<'_>,
    head: &Head,
    session: &mut Session,
    source: [u8; 4],
    control: &Control<'_, M, L, W>,
    device: &mut D,
    seat: &dyn Seat,
    body: &mut [u8; MAX_CHUNK],
    out: &mut [u8; OUT_MAX],
) -> Next
where
    T: Read + Write,
    M: RawMutex,
    L: TakeLibrary,
    W: Finish<M, L>,
    D: Playback<L::Take>,
{
    let head_only = head.method == Method::Head;
    let json = Extra {
        content_type: JSON,
        head_only,
        ..Extra::default()
    };
    let route = match route(head.method, head.path()) {
        Ok(route) => route,
        Err(e) => {
            let (status, reply, allow) = match e {
                RouteError::NotFound => (
                    404,
                    refuse(404, "NotFound", "nothing at that path", None, out),
                    None,
                ),
                RouteError::DotSegment => (
                    400,
                    refuse(400, "BadRequest", "no . or .. in paths", None, out),
                    None,
                ),
                RouteError::Method(allow) => (
                    405,
                    refuse(405, "BadRequest", "method not allowed here", None, out),
                    Some(allow),
                ),
            };
            let extra = Extra {
                allow,
                close: head.body_len > 0 || e == RouteError::DotSegment,
                ..json
            };
            return finish(io, status, extra, &out[..reply.1]).await;
        }
    };
    if let Route::Asset(asset) = route {
        let extra = Extra {
            content_type: Some(asset.content_type),
            gzip: true,
            close: head.body_len > 0,
            head_only,
            ..Extra::default()
        };
        return finish(io, 200, extra, asset.gzip).await;
    }
    // Every API request proves the token (if the box has one), as a Hello.
    // The refusal is rendered at once: no response is held across a wait.
    let refused = match hello(session, head.token.as_deref(), control, device).await {
        Ok(()) => None,
        Err(refused) => Some(reply(&refused, out)),
    };
    if let Some((status, n)) = refused {
        let penalize = session.verdict() == Verdict::Penalize;
        if penalize {
            Timer::after(control.penalties.wrong_token(source)).await;
        }
        seat.request(false);
        let extra = Extra {
            close: penalize || head.body_len > 0,
            ..json
        };
        return finish(io, status, extra, &out[..n]).await;
    }
    seat.request(true);
    if let Route::Take(raw) = route {
        if head.method == Method::Put {
            let mut name = [0u8; NAME_LEN * 3];
            let name = match api::take_name(raw, &mut name) {
                Ok(name) => name,
                Err(why) => {
                    let n = refuse(400, "Invalid", why, Some("name"), out).1;
                    return finish(
                        io,
                        400,
                        Extra {
                            close: true,
                            ..json
                        },
                        &out[..n],
                    )
                    .await;
                }
            };
            let place = match api::place(head.query()) {
                Ok(place) => place,
                Err(why) => {
                    let n = refuse(400, "Invalid", why, Some("place"), out).1;
                    return finish(
                        io,
                        400,
                        Extra {
                            close: true,
                            ..json
                        },
                        &out[..n],
                    )
                    .await;
                }
            };
            if head.expect_continue
                && io
                    .write_all(b"HTTP/1.1 100 Continue\r\n\r\n")
                    .await
                    .is_err()
            {
                return Next::End(Ended::Failed);
            }
            let uploaded = upload(io, input, head, name, place, session, control, device, body);
            let (status, n) = match uploaded.await {
                Ok(None) => (201, reply(&Response::Ok, out).1),
                Ok(Some(Refusal { code, detail })) => (
                    status_of(code),
                    error_json(out, code_name(code), &detail, None),
                ),
                Err(ended) => return Next::End(ended),
            };
            return finish(io, status, json, &out[..n]).await;
        }
    }
    // The rest take at most a form's body.
    let form = match read_form(io, input, head, control, body).await {
        Ok(form) => form,
        Err(Some((status, why))) => {
            let n = refuse(status, "BadRequest", why, None, out).1;
            return finish(
                io,
                status,
                Extra {
                    close: true,
                    ..json
                },
                &out[..n],
            )
            .await;
        }
        Err(None) => return Next::End(Ended::TimedOut),
    };
    // Each arm renders its reply before the next wait: no response is
    // held in the connection's future.
    let (status, n) = match route {
        Route::Status => answer(session, || Request::Status, control, device, out).await,
        Route::Takes => match api::list_start(head.query()) {
            Ok(start) => {
                let list = || Request::ListPage { start };
                answer(session, list, control, device, out).await
            }
            Err(why) => refuse(400, "Invalid", why, Some("start"), out),
        },
        Route::Stop => answer(session, || Request::Stop, control, device, out).await,
        Route::Live(on) => answer(session, || Request::Live { on }, control, device, out).await,
        Route::Play => match PlayForm::parse([head.query(), form]) {
            Ok(play) => answer(session, || play.request(), control, device, out).await,
            Err((field, why)) => refuse(400, "Invalid", why, Some(field), out),
        },
        Route::Take(raw) => {
            let mut name = [0u8; NAME_LEN * 3];
            match api::take_name(raw, &mut name) {
                Ok(name) => {
                    let delete = || Request::Delete { name };
                    answer(session, delete, control, device, out).await
                }
                Err(why) => refuse(400, "Invalid", why, Some("name"), out),
            }
        }
        Route::Settings if head.method == Method::Post => {
            save_settings(form, session, control, device, out).await
        }
        Route::Settings => answer(session, || Request::GetSettings, control, device, out).await,
        Route::Events => return events(io, session, control, device, seat, out).await,
        Route::Asset(_) => refuse(404, "NotFound", "nothing at that path", None, out),
    };
    finish(io, status, json, &out[..n]).await
}

/// Runs the request `request` makes and writes its reply into `out`.
async fn answer<'r, M, L, D, W>(
    session: &mut Session,
    request: impl FnOnce() -> Request<'r>,
    control: &Control<'_, M, L, W>,
    device: &mut D,
    out: &mut [u8; OUT_MAX],
) -> api::Reply
where
    M: RawMutex,
    L: TakeLibrary,
    W: Finish<M, L>,
    D: Playback<L::Take>,
{
    let response = run(session, request, control, device).await;
    reply(&response, out)
}

/// `POST /api/v1/settings`: the form's changes by the settings grammar,
/// stored as one `SetSettings`; a refusal names the key at fault.
async fn save_settings<M, L, D, W>(
    form: &str,
    session: &mut Session,
    control: &Control<'_, M, L, W>,
    device: &mut D,
    out: &mut [u8; OUT_MAX],
) -> api::Reply
where
    M: RawMutex,
    L: TakeLibrary,
    W: Finish<M, L>,
    D: Playback<L::Take>,
{
    let current = control.library.lock().await.settings().clone();
    let changes = match SettingsForm::parse(form, &current, out) {
        Ok(changes) => changes,
        Err(reply) => return reply,
    };
    let response = run(session, || changes.request(), control, device).await;
    match &response {
        Response::Error { code, detail } => {
            let field = changes.field(&current, device.sender());
            let n = error_json(out, code_name(*code), detail, field);
            (status_of(*code), n)
        }
        response => reply(response, out),
    }
}

/// Sends the response; the connection goes on unless it closes.
async fn finish<T: Write>(io: &mut T, status: u16, extra: Extra<'_>, body: &[u8]) -> Next {
    if send(io, status, extra, body).await.is_err() {
        return Next::End(Ended::Failed);
    }
    if extra.close {
        Next::End(Ended::Refused)
    } else {
        Next::Keep
    }
}

/// Reads a request's form body (at most [`MAX_CHUNK`] bytes of UTF-8),
/// within [`crate::Limits::frame`]: the body, or the refusal (`None`: too slow).
async fn read_form<'b, T, M, L, W>(
    io: &mut T,
    input: &mut Input<'_>,
    head: &Head,
    control: &Control<'_, M, L, W>,
    body: &'b mut [u8; MAX_CHUNK],
) -> Result<&'b str, Option<(u16, &'static str)>>
where
    T: Read + Write,
    M: RawMutex,
{
    let len = head.body_len as usize;
    if len > MAX_CHUNK {
        return Err(Some((413, "a form of at most 1024 bytes")));
    }
    if head.expect_continue
        && len > 0
        && io
            .write_all(b"HTTP/1.1 100 Continue\r\n\r\n")
            .await
            .is_err()
    {
        return Err(None);
    }
    let by = Instant::now() + control.limits.frame;
    match with_deadline(by, input.read_exact(io, &mut body[..len])).await {
        Ok(Ok(())) => {}
        _ => return Err(None),
    }
    core::str::from_utf8(&body[..len]).map_err(|_| Some((400, "the form is not UTF-8")))
}

/// Uploads the request's body, a take image, as take `name` through the
/// upload contract (`Begin`, chunks of [`MAX_CHUNK`], `Commit`): the
/// response, or how the connection ended (a body too slow or cut).
#[allow(
    clippy::too_many_arguments,
    reason = "one call site, all of the connection's context"
)]
async fn upload<T, M, L, D, W>(
    io: &mut T,
    input: &mut Input<'_>,
    head: &Head,
    name: &str,
    place: llv_core::control::Place,
    session: &mut Session,
    control: &Control<'_, M, L, W>,
    device: &mut D,
    body: &mut [u8; MAX_CHUNK],
) -> Result<Option<Refusal>, Ended>
where
    T: Read + Write,
    M: RawMutex,
    L: TakeLibrary,
    W: Finish<M, L>,
    D: Playback<L::Take>,
{
    let total = head.body_len;
    let mut offset = 0u32;
    let mut len = (total as usize).min(MAX_CHUNK);
    let by = || Instant::now() + control.limits.frame;
    match with_deadline(by(), input.read_exact(io, &mut body[..len])).await {
        Ok(Ok(())) => {}
        Ok(Err(())) => return Err(Ended::Closed),
        Err(_) => return Err(Ended::TimedOut),
    }
    // The announcement carries the header's CRC; a header that does not
    // parse is refused by the contract at the first chunk.
    let crc32 = TakeHeader::parse(&body[..len]).map_or(0, |h| h.crc32);
    let begin = || Request::UploadBegin {
        name,
        total_len: total,
        crc32,
        place,
    };
    let mut refused = refusal(run(session, begin, control, device).await);
    while refused.is_none() {
        if session.chunk_erases_first(offset, len, &*control.library.lock().await) {
            // Back-to-back erases would starve the player's read-ahead.
            let until = Instant::now() + control.limits.read_ahead;
            while device.read_ahead_short() && Instant::now() < until {
                Timer::after(READ_AHEAD_POLL).await;
            }
        }
        let chunk = || Request::UploadChunk {
            offset,
            data: &body[..len],
        };
        refused = refusal(run(session, chunk, control, device).await);
        offset += len as u32;
        if refused.is_some() || offset >= total {
            break;
        }
        len = ((total - offset) as usize).min(MAX_CHUNK);
        match with_deadline(by(), input.read_exact(io, &mut body[..len])).await {
            Ok(Ok(())) => {}
            Ok(Err(())) => return Err(Ended::Closed),
            Err(_) => return Err(Ended::TimedOut),
        }
    }
    if refused.is_none() {
        refused = refusal(run(session, || Request::UploadCommit, control, device).await);
        return Ok(refused);
    }
    // Refused: the rest of the body is read and dropped, so the refusal reaches the client.
    while offset < total {
        len = ((total - offset) as usize).min(MAX_CHUNK);
        match with_deadline(by(), input.read_exact(io, &mut body[..len])).await {
            Ok(Ok(())) => offset += len as u32,
            _ => return Err(Ended::Refused),
        }
    }
    Ok(refused)
}

/// The refusal a response carries (an upload's steps answer `Ok` or one).
fn refusal(response: Response) -> Option<Refusal> {
    match response {
        Response::Error { code, detail } => Some(Refusal { code, detail }),
        _ => None,
    }
}

/// `GET /api/v1/events`: the status (as `GET /api/v1/status` answers it)
/// as Server-Sent Events: at once, within [`crate::Limits::push_poll`] of a
/// change of what plays (the take, playing or not, its loops, the chase
/// state), every [`PROGRESS`] while a take plays and every second otherwise
/// (the store, faults, the last playback), until the client goes or its
/// token stops being the box's.
async fn events<T, M, L, D, W>(
    io: &mut T,
    session: &mut Session,
    control: &Control<'_, M, L, W>,
    device: &mut D,
    seat: &dyn Seat,
    out: &mut [u8; OUT_MAX],
) -> Next
where
    T: Read + Write,
    M: RawMutex,
    L: TakeLibrary,
    W: Finish<M, L>,
    D: Playback<L::Take>,
{
    let head = b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-store\r\nConnection: close\r\n\r\nretry: 1000\n\n";
    if io.write_all(head).await.is_err() {
        return Next::End(Ended::Failed);
    }
    let mut subscription = Subscription::default();
    subscription.start(Instant::now(), crate::osc::MAX_SUBSCRIPTION_S);
    let mut progress_at = Instant::now();
    let mut scratch = [0u8; 16];
    loop {
        // What plays is looked at every push poll without the library (as
        // the OSC door does); the whole status, which takes the library's
        // lock, only when due.
        let now = Instant::now();
        let playing = device.playing();
        let progress = playing.is_some() && now >= progress_at;
        let due = subscription.due(now, playing.as_ref()) || progress;
        let (ended, n) = if due {
            progress_at = now + PROGRESS;
            // Rendered at once: no status is held across the sending.
            let response = run(session, || Request::Status, control, device).await;
            match &response {
                Response::Status(_) => (false, reply(&response, out).1),
                // The token changed: the last event says so, and the stream ends.
                _ => (true, reply(&response, out).1),
            }
        } else {
            (false, 0)
        };
        if due {
            let sent = async {
                io.write_all(if ended {
                    b"event: refused\ndata: "
                } else {
                    b"data: "
                })
                .await?;
                io.write_all(&out[..n]).await?;
                io.write_all(b"\n\n").await
            };
            if sent.await.is_err() {
                return Next::End(Ended::Failed);
            }
            seat.request(!ended);
        }
        if ended {
            return Next::End(Ended::Refused);
        }
        match select(
            io.read(&mut scratch),
            Timer::after(control.limits.push_poll),
        )
        .await
        {
            Either::First(Ok(0)) | Either::First(Err(_)) => return Next::End(Ended::Closed),
            Either::First(Ok(_)) | Either::Second(()) => {}
        }
    }
}

/// How often a stream of events carries the progress of what plays.
pub const PROGRESS: embassy_time::Duration = embassy_time::Duration::from_millis(250);
