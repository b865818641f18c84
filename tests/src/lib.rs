//! Helpers shared by the end-to-end tests in `tests/tests/`.

use std::io::Read;
use std::path::{Path, PathBuf};

/// The repository's root folder.
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// A bundled example take, e.g. `example("dao.gesichter")`.
pub fn example(name: &str) -> PathBuf {
    repo_root().join("examples").join(name)
}

/// The raw packets of an LLV 1.1+ file (gzip: u8 version, u32 BE count, u32 BE length + packet),
/// read independently of the code under test.
pub fn llv_packets(path: &Path) -> Vec<Vec<u8>> {
    let file = std::fs::File::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut raw = Vec::new();
    flate2::read::GzDecoder::new(file)
        .read_to_end(&mut raw)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let word = |at: usize| u32::from_be_bytes([raw[at], raw[at + 1], raw[at + 2], raw[at + 3]]);
    let count = word(1) as usize;
    let mut at = 5;
    let mut packets = Vec::with_capacity(count);
    for _ in 0..count {
        let len = word(at) as usize;
        packets.push(raw[at + 4..at + 4 + len].to_vec());
        at += 4 + len;
    }
    assert_eq!(at, raw.len(), "{}: trailing bytes", path.display());
    packets
}
