//! An HTTP/1.1 request head read from a stream within hard limits, and what
//! the door keeps of it once parsed ([`Head`]): method, path and query,
//! token, body length and whether the connection stays open. The request
//! line and headers are parsed by `httparse`.

use embassy_time::{with_deadline, Instant};
use embedded_io_async::Read;
use heapless::String;
use llv_core::settings::TOKEN_LEN;

use super::{HEAD_MAX, MAX_HEADERS, MAX_PATH};

/// The methods the API knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    /// `GET`.
    Get,
    /// `HEAD`: a `GET` without its body.
    Head,
    /// `POST`.
    Post,
    /// `PUT`.
    Put,
    /// `DELETE`.
    Delete,
}

/// What the door keeps of a request head.
#[derive(Clone, Debug)]
pub struct Head {
    /// The method.
    pub method: Method,
    /// Path and query, as sent (percent-encoded).
    pub target: String<MAX_PATH>,
    /// The token of `Authorization: Bearer TOKEN`, if any (one longer than
    /// any token is kept cut, and is wrong).
    pub token: Option<String<{ TOKEN_LEN + 1 }>>,
    /// The body's length (`Content-Length`, 0 without one).
    pub body_len: u32,
    /// Whether the client closes after this request (`Connection: close`, HTTP/1.0).
    pub close: bool,
    /// Whether it asked for `100 Continue` before its body.
    pub expect_continue: bool,
}

impl Head {
    /// The path, without the query.
    pub fn path(&self) -> &str {
        self.target.split('?').next().unwrap_or("")
    }

    /// The query after `?` (empty without one).
    pub fn query(&self) -> &str {
        self.target.split_once('?').map_or("", |(_, q)| q)
    }
}

/// Why a request head was refused: the status to answer (then close), or
/// nothing to answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HeadError {
    /// The peer closed between requests.
    Closed,
    /// Reading failed, or the peer closed within a head.
    Failed,
    /// No whole head within its deadline (answered 408).
    TimedOut,
    /// Answer this status and reason, then close.
    Refuse(u16, &'static str),
}

/// Bytes read from a connection and not yet used.
pub struct Input<'b> {
    buf: &'b mut [u8; HEAD_MAX],
    at: usize,
    len: usize,
}

impl<'b> Input<'b> {
    /// Reads through `buf`.
    pub fn new(buf: &'b mut [u8; HEAD_MAX]) -> Self {
        Input { buf, at: 0, len: 0 }
    }

    /// Whether bytes are waiting.
    pub fn buffered(&self) -> bool {
        self.at < self.len
    }

    /// Reads the next request head: its first byte by `idle_until`, the
    /// whole head within `head_limit` of that byte, at most [`HEAD_MAX`]
    /// bytes and [`MAX_HEADERS`] headers.
    pub async fn head<T: Read>(
        &mut self,
        io: &mut T,
        idle_until: Instant,
        head_limit: embassy_time::Duration,
    ) -> Result<Head, HeadError> {
        // What is left of the last request moves to the front.
        self.buf.copy_within(self.at..self.len, 0);
        self.len -= self.at;
        self.at = 0;
        if self.len == 0 {
            match with_deadline(idle_until, io.read(&mut self.buf[..])).await {
                Err(_) | Ok(Ok(0)) => return Err(HeadError::Closed),
                Ok(Ok(n)) => self.len = n,
                Ok(Err(_)) => return Err(HeadError::Failed),
            }
        }
        let whole_by = Instant::now() + head_limit;
        loop {
            match parse(&self.buf[..self.len]) {
                Ok(Some((head, used))) => {
                    self.at = used;
                    return Ok(head);
                }
                Ok(None) => {}
                Err(e) => return Err(e),
            }
            if self.len == HEAD_MAX {
                return Err(HeadError::Refuse(431, "request head over 1024 bytes"));
            }
            match with_deadline(whole_by, io.read(&mut self.buf[self.len..])).await {
                Err(_) => return Err(HeadError::TimedOut),
                Ok(Ok(0)) | Ok(Err(_)) => return Err(HeadError::Failed),
                Ok(Ok(n)) => self.len += n,
            }
        }
    }

    /// Reads up to `out.len()` body bytes: first those already read with the head.
    pub async fn read<T: Read>(&mut self, io: &mut T, out: &mut [u8]) -> Result<usize, ()> {
        if self.at < self.len {
            let n = out.len().min(self.len - self.at);
            out[..n].copy_from_slice(&self.buf[self.at..self.at + n]);
            self.at += n;
            return Ok(n);
        }
        match io.read(out).await {
            Ok(0) | Err(_) => Err(()),
            Ok(n) => Ok(n),
        }
    }

    /// Reads exactly `out.len()` body bytes.
    pub async fn read_exact<T: Read>(&mut self, io: &mut T, out: &mut [u8]) -> Result<(), ()> {
        let mut got = 0;
        while got < out.len() {
            got += self.read(io, &mut out[got..]).await?;
        }
        Ok(())
    }
}

/// Parses a head from `bytes`: the head and the bytes it took, `None` while
/// it is not whole yet.
pub fn parse(bytes: &[u8]) -> Result<Option<(Head, usize)>, HeadError> {
    let mut headers = [httparse::EMPTY_HEADER; MAX_HEADERS];
    let mut request = httparse::Request::new(&mut headers);
    let used = match request.parse(bytes) {
        Ok(httparse::Status::Complete(used)) => used,
        Ok(httparse::Status::Partial) => return Ok(None),
        Err(httparse::Error::TooManyHeaders) => {
            return Err(HeadError::Refuse(431, "more than 24 headers"))
        }
        Err(_) => return Err(HeadError::Refuse(400, "not an HTTP/1.1 request")),
    };
    let method = match request.method.unwrap_or("") {
        "GET" => Method::Get,
        "HEAD" => Method::Head,
        "POST" => Method::Post,
        "PUT" => Method::Put,
        "DELETE" => Method::Delete,
        _ => return Err(HeadError::Refuse(501, "method not implemented")),
    };
    let path = request.path.unwrap_or("");
    if !path.starts_with('/') {
        return Err(HeadError::Refuse(400, "the path must start with /"));
    }
    let target = String::try_from(path).map_err(|_| HeadError::Refuse(414, "path too long"))?;
    let mut head = Head {
        method,
        target,
        token: None,
        body_len: 0,
        close: request.version == Some(0),
        expect_continue: false,
    };
    for h in request.headers.iter() {
        let value = core::str::from_utf8(h.value).unwrap_or("").trim();
        let name = h.name;
        if name.eq_ignore_ascii_case("content-length") {
            head.body_len = value
                .parse()
                .map_err(|_| HeadError::Refuse(400, "bad Content-Length"))?;
        } else if name.eq_ignore_ascii_case("transfer-encoding") {
            return Err(HeadError::Refuse(
                501,
                "Transfer-Encoding not implemented: send Content-Length",
            ));
        } else if name.eq_ignore_ascii_case("connection") {
            if value.eq_ignore_ascii_case("close") {
                head.close = true;
            } else if value.eq_ignore_ascii_case("keep-alive") {
                head.close = false;
            }
        } else if name.eq_ignore_ascii_case("expect") {
            head.expect_continue = value.eq_ignore_ascii_case("100-continue");
        } else if name.eq_ignore_ascii_case("authorization") {
            let token = value
                .strip_prefix("Bearer ")
                .ok_or(HeadError::Refuse(400, "Authorization: Bearer TOKEN"))?;
            head.token = Some(token.trim().chars().take(TOKEN_LEN + 1).collect());
        }
    }
    Ok(Some((head, used)))
}
