//! Writing a response: the status line and headers, then the body; the
//! protocol's responses and refusals as HTTP statuses and JSON.

use core::fmt::Write as _;

use embedded_io_async::Write;
use heapless::String;
use llv_core::control::ErrorCode;

use crate::json::Json;

/// The reason phrase of `status`.
pub fn reason(status: u16) -> &'static str {
    match status {
        100 => "Continue",
        200 => "OK",
        201 => "Created",
        400 => "Bad Request",
        401 => "Unauthorized",
        404 => "Not Found",
        405 => "Method Not Allowed",
        408 => "Request Timeout",
        409 => "Conflict",
        413 => "Content Too Large",
        414 => "URI Too Long",
        422 => "Unprocessable Content",
        431 => "Request Header Fields Too Large",
        500 => "Internal Server Error",
        501 => "Not Implemented",
        503 => "Service Unavailable",
        507 => "Insufficient Storage",
        _ => "",
    }
}

/// The HTTP status of a protocol refusal.
pub fn status_of(code: ErrorCode) -> u16 {
    match code {
        ErrorCode::Unauthorized => 401,
        ErrorCode::NotFound => 404,
        ErrorCode::TooLarge => 413,
        ErrorCode::NoSpace => 507,
        ErrorCode::UploadOrder => 409,
        ErrorCode::BadImage | ErrorCode::Crc => 422,
        ErrorCode::Flash => 500,
        ErrorCode::ProtocolMismatch | ErrorCode::BadRequest | ErrorCode::Invalid => 400,
    }
}

/// A protocol error code's name in JSON.
pub fn code_name(code: ErrorCode) -> &'static str {
    match code {
        ErrorCode::ProtocolMismatch => "ProtocolMismatch",
        ErrorCode::Unauthorized => "Unauthorized",
        ErrorCode::BadRequest => "BadRequest",
        ErrorCode::TooLarge => "TooLarge",
        ErrorCode::NotFound => "NotFound",
        ErrorCode::NoSpace => "NoSpace",
        ErrorCode::UploadOrder => "UploadOrder",
        ErrorCode::BadImage => "BadImage",
        ErrorCode::Crc => "Crc",
        ErrorCode::Invalid => "Invalid",
        ErrorCode::Flash => "Flash",
    }
}

/// Writes `{"error":{"code":...,"detail":...[,"field":...]}}` into `out`; its length.
pub fn error_json(out: &mut [u8], code: &str, detail: &str, field: Option<&str>) -> usize {
    let mut j = Json::new(out);
    j.open_object();
    j.key("error");
    j.open_object();
    j.key("code");
    j.string(code);
    j.key("detail");
    j.string(detail);
    if let Some(field) = field {
        j.key("field");
        j.string(field);
    }
    j.close_object();
    j.close_object();
    j.len()
}

/// What a response's head says besides its status.
#[derive(Clone, Copy, Debug, Default)]
pub struct Extra<'a> {
    /// `Content-Type` (none: no body).
    pub content_type: Option<&'a str>,
    /// The body is gzip-compressed.
    pub gzip: bool,
    /// An `Allow` header (405).
    pub allow: Option<&'a str>,
    /// The connection closes after this response.
    pub close: bool,
    /// Leave out the body (a `HEAD` request).
    pub head_only: bool,
}

/// Writes a whole response: head, then `body`.
pub async fn send<T: Write>(
    io: &mut T,
    status: u16,
    extra: Extra<'_>,
    body: &[u8],
) -> Result<(), ()> {
    let mut head: String<320> = String::new();
    let _ = write!(head, "HTTP/1.1 {status} {}\r\n", reason(status));
    if let Some(t) = extra.content_type {
        let _ = write!(head, "Content-Type: {t}\r\n");
    }
    if extra.gzip {
        let _ = head.push_str("Content-Encoding: gzip\r\n");
    }
    if let Some(allow) = extra.allow {
        let _ = write!(head, "Allow: {allow}\r\n");
    }
    if status == 401 {
        let _ = head.push_str("WWW-Authenticate: Bearer realm=\"llv\"\r\n");
    }
    let _ = write!(
        head,
        "Content-Length: {}\r\nCache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\n{}\r\n",
        body.len(),
        if extra.close { "Connection: close\r\n" } else { "" }
    );
    io.write_all(head.as_bytes()).await.map_err(|_| ())?;
    if !extra.head_only {
        io.write_all(body).await.map_err(|_| ())?;
    }
    Ok(())
}
