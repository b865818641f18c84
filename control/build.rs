//! Makes the page (`web/`) one file, `index.html` with its style and script
//! written into it, and compresses it with gzip into `OUT_DIR`, where
//! `src/http/assets.rs` embeds it. One file loads in one request: the box
//! serves two HTTP connections, and a browser does not ask twice for a
//! stylesheet or a script a busy server refused.

use std::io::Write;

fn read(file: &str) -> String {
    let path = format!("web/{file}");
    println!("cargo:rerun-if-changed={path}");
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// `page` with `tag` replaced by `with`; the tag must be there once.
fn replace_once(page: &str, tag: &str, with: &str) -> String {
    assert_eq!(page.matches(tag).count(), 1, "web/index.html: {tag}");
    page.replacen(tag, with, 1)
}

fn main() {
    let out = std::env::var("OUT_DIR").expect("cargo sets OUT_DIR");
    let page = read("index.html");
    let page = replace_once(
        &page,
        r#"<link rel="stylesheet" href="/style.css">"#,
        &format!("<style>\n{}</style>", read("style.css")),
    );
    let page = replace_once(
        &page,
        r#"<script src="/app.js"></script>"#,
        &format!("<script>\n{}</script>", read("app.js")),
    );
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    gz.write_all(page.as_bytes()).expect("writing to memory");
    let bytes = gz.finish().expect("writing to memory");
    std::fs::write(format!("{out}/index.html.gz"), bytes)
        .unwrap_or_else(|e| panic!("{out}/index.html.gz: {e}"));
}
