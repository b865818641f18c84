//! The page (`control/web/`, made one file and gzip-compressed when the
//! crate is built: `control/build.rs`), served as it is, so the box and
//! `llv serve` serve the same bytes.

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

/// Every file of the page: one, its style and script inside it.
pub static ASSETS: [Asset; 1] = [Asset {
    path: "/",
    content_type: "text/html; charset=utf-8",
    gzip: include_bytes!(concat!(env!("OUT_DIR"), "/index.html.gz")),
}];

/// The file at `path` (`/index.html` is `/`).
pub fn find(path: &str) -> Option<&'static Asset> {
    let path = if path == "/index.html" { "/" } else { path };
    ASSETS.iter().find(|a| a.path == path)
}
