//! A blocking client for the box's control protocol (`llv_core::control`):
//! connect, say Hello (with the token), then one request and one response at a time.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::mpsc::RecvTimeoutError;
use std::time::Duration;

use anyhow::{bail, Context, Result};
use llv_core::control::{
    body_len, decode, encode, ErrorCode, Place, Request, Response, TakeInfo, MAX_FRAME, PREFIX_LEN,
    PROTOCOL_VERSION,
};
use llv_core::settings::Target;

use crate::address::{resolve, resolve_box};
use crate::args::{CONTROL_PORT, LIVE_LINK_PORT, TOKEN_ENV};

/// How long to wait for the box to accept a connection.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);
/// How long to wait for one answer: a commit reads the whole take back from flash.
const ANSWER_TIMEOUT: Duration = Duration::from_secs(60);

/// An open, accepted control connection.
pub struct BoxClient {
    stream: TcpStream,
    addr: SocketAddr,
    token: Option<String>,
    buf: Vec<u8>,
}

/// How often a connection the box reset before its Hello was answered is tried
/// again: a box whose sockets are all busy drops its oldest idle connection to
/// make room, which takes it a moment.
const RETRIES: u32 = 3;
/// How long a box may take to answer before `llv` says it waits.
const WAIT_NOTICE: Duration = Duration::from_secs(1);
/// The wait before the first retry; it doubles each time.
const RETRY_AFTER: Duration = Duration::from_millis(100);
/// How often a list that changed while its pages were read is read again.
const LIST_TRIES: u32 = 5;

impl BoxClient {
    /// Connects to `addr` (`HOST[:PORT]` or the box's name, port 11113 by
    /// default, see [`resolve_box`]) and says Hello;
    /// tries again (at most [`RETRIES`] times) when the box resets the connection first.
    /// Says on standard error that it waits when the box takes over
    /// [`WAIT_NOTICE`] to answer (a box that is starting up).
    pub fn connect(addr: &str, token: Option<&str>) -> Result<BoxClient> {
        let addr = resolve_box(addr, CONTROL_PORT)?;
        let (answered, waiting) = std::sync::mpsc::channel::<()>();
        let notice = std::thread::spawn(move || {
            if let Err(RecvTimeoutError::Timeout) = waiting.recv_timeout(WAIT_NOTICE) {
                eprintln!(
                    "waiting for the box at {addr} to answer (a box that is starting \
                     answers within about {} s)...",
                    CONNECT_TIMEOUT.as_secs()
                );
            }
        });
        let mut wait = RETRY_AFTER;
        let mut opened = Self::open(addr, token);
        for _ in 0..RETRIES {
            match &opened {
                Err(e) if was_reset(e) => {
                    std::thread::sleep(wait);
                    wait *= 2;
                    opened = Self::open(addr, token);
                }
                _ => break,
            }
        }
        drop(answered);
        let _ = notice.join();
        opened
    }

    /// One connection and its Hello.
    fn open(addr: SocketAddr, token: Option<&str>) -> Result<BoxClient> {
        let stream = TcpStream::connect_timeout(&addr, CONNECT_TIMEOUT)
            .with_context(|| format!("cannot reach the box at {addr}"))?;
        stream.set_read_timeout(Some(ANSWER_TIMEOUT))?;
        stream.set_write_timeout(Some(ANSWER_TIMEOUT))?;
        stream.set_nodelay(true)?;
        let mut client = BoxClient {
            stream,
            addr,
            token: token.map(str::to_string),
            buf: vec![0; PREFIX_LEN + MAX_FRAME],
        };
        let hello = Request::Hello {
            protocol: PROTOCOL_VERSION,
            token,
        };
        match client.exchange(&hello)? {
            Response::Hello { protocol, .. } if protocol == PROTOCOL_VERSION => Ok(client),
            Response::Hello { protocol, .. } => bail!(
                "the box at {addr} speaks control protocol {protocol}, this llv speaks \
                 {PROTOCOL_VERSION}: update llv or the box firmware"
            ),
            Response::Error {
                code: ErrorCode::ProtocolMismatch,
                detail,
            } => bail!(
                "the box at {addr} refused control protocol {PROTOCOL_VERSION} ({detail}): \
                 update llv or the box firmware"
            ),
            Response::Error {
                code: ErrorCode::Unauthorized,
                detail,
            } => bail!(
                "the box at {addr} refused the connection: {detail} (the token comes from \
                 --token, --token-file FILE or the environment's {TOKEN_ENV})"
            ),
            other => bail!("the box at {addr} answered Hello with {other:?}"),
        }
    }

    /// The box's address.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// This computer's end of the connection (the address the box reaches it by).
    pub fn local_addr(&self) -> Result<SocketAddr> {
        Ok(self.stream.local_addr()?)
    }

    /// Sends `request`; an error response becomes an error naming the request.
    /// A request that changes nothing (see [`read_only`]) whose connection the
    /// box closes before answering (to make room for a newcomer) is sent again on a
    /// new connection, at most [`RETRIES`] times.
    pub fn call(&mut self, request: &Request<'_>) -> Result<Response> {
        let mut answer = self.exchange(request);
        let mut wait = RETRY_AFTER;
        for _ in 0..RETRIES {
            match &answer {
                Err(e) if read_only(request) && was_reset(e) => {}
                _ => break,
            }
            std::thread::sleep(wait);
            wait *= 2;
            answer = Self::open(self.addr, self.token.as_deref()).and_then(|fresh| {
                *self = fresh;
                self.exchange(request)
            });
        }
        match answer? {
            Response::Error { code, detail } if detail.is_empty() => {
                bail!("the box refused {}: {code}", name_of(request))
            }
            Response::Error { detail, .. } => {
                bail!("the box refused {}: {detail}", name_of(request))
            }
            response => Ok(response),
        }
    }

    /// Every take the box holds, read a page at a time; read again from the
    /// first page when the list changed meanwhile (a card scanned, an
    /// upload), at most [`LIST_TRIES`] times.
    pub fn list_all(&mut self) -> Result<Vec<TakeInfo>> {
        for _ in 0..LIST_TRIES {
            let mut takes = Vec::new();
            let mut revision = None;
            let whole = loop {
                let start = takes.len() as u32;
                let Response::Takes(page) = self.call(&Request::ListPage { start })? else {
                    bail!("the box answered ListPage with something else");
                };
                if revision.is_some_and(|r| r != page.revision) {
                    break false;
                }
                revision = Some(page.revision);
                if page.takes.is_empty() || page.start != start {
                    break start >= page.total;
                }
                takes.extend(page.takes);
                if takes.len() as u32 >= page.total {
                    break true;
                }
            };
            if whole {
                return Ok(takes);
            }
        }
        bail!("the box's takes kept changing while they were listed ({LIST_TRIES} tries)")
    }

    /// The take `name` on `place` as the box lists it, if it does: read a
    /// page at a time until it shows; a list that changes meanwhile (a card
    /// being scanned) is read on, and read again from the first page when
    /// the take was not seen, at most [`LIST_TRIES`] times.
    pub fn find_listed(&mut self, name: &str, place: Place) -> Result<Option<TakeInfo>> {
        for _ in 0..LIST_TRIES {
            let mut start = 0u32;
            let mut changed = false;
            let mut revision = None;
            loop {
                let Response::Takes(page) = self.call(&Request::ListPage { start })? else {
                    bail!("the box answered ListPage with something else");
                };
                changed |= revision.is_some_and(|r| r != page.revision);
                revision = Some(page.revision);
                if let Some(t) = page
                    .takes
                    .iter()
                    .find(|t| t.name == name && t.place == place)
                {
                    return Ok(Some(t.clone()));
                }
                if page.takes.is_empty() || page.start != start {
                    break;
                }
                start += page.takes.len() as u32;
                if start >= page.total {
                    break;
                }
            }
            if !changed {
                return Ok(None);
            }
        }
        bail!("the box's takes kept changing while they were listed ({LIST_TRIES} tries)")
    }

    /// Sends `request` and reads the response, whatever it is.
    fn exchange(&mut self, request: &Request<'_>) -> Result<Response> {
        let frame = encode(request, &mut self.buf)
            .map_err(|e| anyhow::anyhow!("cannot encode {}: {e}", name_of(request)))?;
        let addr = self.addr;
        self.stream
            .write_all(frame)
            .with_context(|| format!("sending to the box at {addr}"))?;
        self.read_response()
    }

    /// Reads one framed response.
    fn read_response(&mut self) -> Result<Response> {
        let addr = self.addr;
        let mut prefix = [0u8; PREFIX_LEN];
        self.stream
            .read_exact(&mut prefix)
            .with_context(|| format!("waiting for the box at {addr} to answer"))?;
        let len = body_len(prefix);
        if len > MAX_FRAME {
            bail!("the box at {addr} sent a message of {len} bytes (over {MAX_FRAME})");
        }
        let body = &mut self.buf[..len];
        self.stream
            .read_exact(body)
            .with_context(|| format!("reading the answer of the box at {addr}"))?;
        decode(body).map_err(|e| {
            anyhow::anyhow!(
                "the box at {addr} answered something this llv cannot read ({e}); \
                 is its firmware for another control protocol?"
            )
        })
    }
}

/// Whether `e` is the box resetting or refusing the connection (no listening socket free).
fn was_reset(e: &anyhow::Error) -> bool {
    e.chain()
        .filter_map(|cause| cause.downcast_ref::<std::io::Error>())
        .any(|io| {
            matches!(
                io.kind(),
                std::io::ErrorKind::ConnectionReset
                    | std::io::ErrorKind::ConnectionRefused
                    | std::io::ErrorKind::UnexpectedEof
            )
        })
}

/// Whether `request` changes nothing on the box, so that sending it twice is
/// the same as sending it once.
fn read_only(request: &Request<'_>) -> bool {
    matches!(
        request,
        Request::Status
            | Request::List
            | Request::ListPage { .. }
            | Request::GetSettings
            | Request::Clock
    )
}

fn name_of(request: &Request<'_>) -> &'static str {
    match request {
        Request::Hello { .. } => "Hello",
        Request::Status => "Status",
        Request::List => "List",
        Request::UploadBegin { .. } => "the upload",
        Request::UploadChunk { .. } => "an upload chunk",
        Request::UploadCommit => "the upload's commit",
        Request::Delete { .. } => "Delete",
        Request::Play { .. } => "Play",
        Request::Stop => "Stop",
        Request::GetSettings => "GetSettings",
        Request::SetSettings { .. } => "the settings",
        Request::Clock => "Clock",
        Request::ListPage { .. } => "ListPage",
        Request::Live { .. } => "Live",
    }
}

/// A playback target from `HOST[:PORT]` (IPv4, port 11111 by default).
pub fn target(addr: &str) -> Result<Target> {
    match resolve(addr, LIVE_LINK_PORT)? {
        SocketAddr::V4(v4) => Ok(Target {
            ip: v4.ip().octets(),
            port: v4.port(),
        }),
        v6 => bail!("target {addr} ({v6}): the box sends to IPv4 only"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_are_ipv4_with_the_live_link_port_by_default() {
        assert_eq!(
            target("127.0.0.1").unwrap(),
            Target {
                ip: [127, 0, 0, 1],
                port: 11111
            }
        );
        assert_eq!(target("localhost:9").unwrap().port, 9);
        assert!(target("::1").unwrap_err().to_string().contains("IPv4 only"));
    }
}
