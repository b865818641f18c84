//! Compresses the page's files (`web/`) with gzip into `OUT_DIR`, where
//! `src/http/assets.rs` embeds them.

use std::io::Write;

fn main() {
    let out = std::env::var("OUT_DIR").expect("cargo sets OUT_DIR");
    for file in ["index.html", "app.js", "style.css"] {
        let path = format!("web/{file}");
        println!("cargo:rerun-if-changed={path}");
        let text = std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        gz.write_all(&text).expect("writing to memory");
        let bytes = gz.finish().expect("writing to memory");
        std::fs::write(format!("{out}/{file}.gz"), bytes)
            .unwrap_or_else(|e| panic!("{out}/{file}.gz: {e}"));
    }
}
