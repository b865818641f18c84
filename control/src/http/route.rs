//! Which part of the API a request's path names ([`Route`]), and the
//! methods each allows.

use super::assets::{self, Asset};
use super::request::Method;

/// What a path names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Route<'p> {
    /// A file of the page.
    Asset(&'static Asset),
    /// `/api/v1/status`.
    Status,
    /// `/api/v1/events`: the status pushed as Server-Sent Events.
    Events,
    /// `/api/v1/takes`: a page of the takes.
    Takes,
    /// `/api/v1/takes/NAME` (the name still percent-encoded).
    Take(&'p str),
    /// `/api/v1/play`.
    Play,
    /// `/api/v1/stop`.
    Stop,
    /// `/api/v1/settings`.
    Settings,
    /// `/api/v1/live/on` (`true`) and `/api/v1/live/off`: the live relay.
    Live(bool),
}

/// Why a path is refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RouteError {
    /// Nothing at that path (404).
    NotFound,
    /// A `.` or `..` segment (400).
    DotSegment,
    /// That method is not allowed there (405); these are.
    Method(&'static str),
}

/// The API's prefix: its version is in its path.
pub const API: &str = "/api/v1/";

/// The route of `method` on `path`.
pub fn route(method: Method, path: &str) -> Result<Route<'_>, RouteError> {
    if path
        .split('/')
        .any(|s| s == ".." || s == "." || s.eq_ignore_ascii_case("%2e%2e"))
    {
        return Err(RouteError::DotSegment);
    }
    let read = matches!(method, Method::Get | Method::Head);
    let (route, allowed) = match path.strip_prefix(API) {
        None => match assets::find(path) {
            Some(asset) => (Route::Asset(asset), read),
            None => return Err(RouteError::NotFound),
        },
        Some("status") => (Route::Status, read),
        Some("events") => (Route::Events, method == Method::Get),
        Some("takes") => (Route::Takes, read),
        Some("play") => (Route::Play, method == Method::Post),
        Some("stop") => (Route::Stop, method == Method::Post),
        Some("settings") => (Route::Settings, read || method == Method::Post),
        Some("live/on") => (Route::Live(true), method == Method::Post),
        Some("live/off") => (Route::Live(false), method == Method::Post),
        Some(rest) => match rest.strip_prefix("takes/") {
            Some(name) if !name.is_empty() && !name.contains('/') => (
                Route::Take(name),
                matches!(method, Method::Put | Method::Delete),
            ),
            _ => return Err(RouteError::NotFound),
        },
    };
    if allowed {
        Ok(route)
    } else {
        Err(RouteError::Method(allows(&route)))
    }
}

/// The methods `route` allows, as an `Allow` header's value.
fn allows(route: &Route<'_>) -> &'static str {
    match route {
        Route::Asset(_) | Route::Status | Route::Takes => "GET, HEAD",
        Route::Events => "GET",
        Route::Play | Route::Stop | Route::Live(_) => "POST",
        Route::Settings => "GET, HEAD, POST",
        Route::Take(_) => "PUT, DELETE",
    }
}
