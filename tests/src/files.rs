//! Where the tests find things: the repository, the bundled examples, the
//! fixtures, and the packets a recording holds.

use std::io::Read;
use std::path::{Path, PathBuf};

/// The repository's root folder.
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The binary the environment variable `var` names, when set: the test
/// command builds llv and the QEMU image before the tests and names them
/// (`LLV_BIN`, `LLV_QEMU_ELF`) so that no test waits on cargo's lock while
/// its checks run beside them.
pub fn prebuilt(var: &str) -> Option<PathBuf> {
    let path = PathBuf::from(std::env::var_os(var)?);
    assert!(path.is_file(), "{var}: no file at {}", path.display());
    Some(path)
}

/// A bundled example take, e.g. `example("dao.gesichter")`.
pub fn example(name: &str) -> PathBuf {
    repo_root().join("examples").join(name)
}

/// A fixture of this crate, e.g. `fixture("llf/alex_rom_3.csv")`.
pub fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(name)
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

/// The raw packets of a native recording (base64 lines), read independently of the code under
/// test; panics on any line that is not complete base64.
pub fn native_packets(path: &Path) -> Vec<Vec<u8>> {
    use base64::Engine;
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| {
            base64::engine::general_purpose::STANDARD
                .decode(l)
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        })
        .collect()
}

/// The raw packets of a recording in either of the formats `llv` writes under
/// a recording name: LLV's gzip (gzip magic) or native base64 lines.
pub fn recording_packets(path: &Path) -> Vec<Vec<u8>> {
    let head = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    if head.starts_with(&[0x1f, 0x8b]) {
        llv_packets(path)
    } else {
        native_packets(path)
    }
}
