//! The page's files (`control/web/`), gzip-compressed when the crate is
//! built (`control/build.rs`) and served as they are, so the box and `llv
//! serve` serve the same bytes.

/// One file of the page.
#[derive(Debug, PartialEq, Eq)]
pub struct Asset {
    /// Its path on the server.
    pub path: &'static str,
    /// Its `Content-Type`.
    pub content_type: &'static str,
    /// Its bytes, gzip-compressed.
    pub gzip: &'static [u8],
}

/// Every file of the page.
pub static ASSETS: [Asset; 3] = [
    Asset {
        path: "/",
        content_type: "text/html; charset=utf-8",
        gzip: include_bytes!(concat!(env!("OUT_DIR"), "/index.html.gz")),
    },
    Asset {
        path: "/app.js",
        content_type: "text/javascript; charset=utf-8",
        gzip: include_bytes!(concat!(env!("OUT_DIR"), "/app.js.gz")),
    },
    Asset {
        path: "/style.css",
        content_type: "text/css; charset=utf-8",
        gzip: include_bytes!(concat!(env!("OUT_DIR"), "/style.css.gz")),
    },
];

/// The file at `path` (`/index.html` is `/`).
pub fn find(path: &str) -> Option<&'static Asset> {
    let path = if path == "/index.html" { "/" } else { path };
    ASSETS.iter().find(|a| a.path == path)
}
