//! The HTTP door (`docs/http-api.md`): the page (`control/web/`, served
//! gzip-compressed) and the JSON API under `/api/v1/`, over HTTP/1.1 on any
//! async stream. Each API request becomes the same [`llv_core::control::Request`]
//! the binary protocol sends and runs through the same
//! [`crate::Session`], so the doors cannot disagree: the token (`Authorization:
//! Bearer`), its penalties, the locked box, the settings' rule and the
//! upload contract apply to HTTP exactly as to `llv`. The status is pushed
//! as Server-Sent Events. The box and `llv serve` run [`serve_http_connection`].
//!
//! Request heads are parsed by `httparse` (no_std, no alloc); the server
//! loop is this crate's own, so the door keeper, the session and the
//! door's clock are the other doors'.
//!
//! | module | what it holds |
//! |---|---|
//! | [`request`] | reading a request head within the limits, and what is kept of it |
//! | [`form`] | `key=value&...` of a query or a form body, percent-decoded |
//! | [`route`] | which part of the API a path names, the methods it allows |
//! | [`api`] | each route as the session's request, its reply as JSON |
//! | [`response`] | writing a response; refusals as HTTP statuses |
//! | [`serve`] | one connection: requests until it ends; uploads; the event stream |
//! | [`assets`] | the page's files, gzip-compressed at build time |

pub mod api;
pub mod assets;
pub mod form;
pub mod request;
pub mod response;
pub mod route;
pub mod serve;

use llv_core::take::MAX_CHUNK;

pub use serve::serve_http_connection;

/// The API's version, in its paths (`/api/v1/`) and in the status.
pub const API_VERSION: u64 = 1;
/// Largest request head (request line and headers): a browser's are 500
/// to 800 bytes.
pub const HEAD_MAX: usize = 1024;
/// Most headers of a request.
pub const MAX_HEADERS: usize = 24;
/// Longest path with its query.
pub const MAX_PATH: usize = 256;
/// Largest reply body (the status, the settings; a page of takes says
/// where the next starts when more follow).
pub const OUT_MAX: usize = 1024;

/// Memory for one HTTP connection: the request head, a body chunk, the reply.
pub struct HttpBuffers {
    head: [u8; HEAD_MAX],
    body: [u8; MAX_CHUNK],
    out: [u8; OUT_MAX],
}

impl HttpBuffers {
    /// Zeroed buffers.
    pub const fn new() -> Self {
        HttpBuffers {
            head: [0; HEAD_MAX],
            body: [0; MAX_CHUNK],
            out: [0; OUT_MAX],
        }
    }
}

impl Default for HttpBuffers {
    fn default() -> Self {
        Self::new()
    }
}
