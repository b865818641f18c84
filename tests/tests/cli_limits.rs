//! Bad LLV gzip files get a clear error with memory bounded by what they really
//! hold: a 1 MB gzip bomb, a body of identical frames and a header that claims
//! billions of frames. Each `llv info` runs alone and its peak memory is read
//! from the kernel (`wait4`'s `ru_maxrss` of that one process).

use std::io::Write;

use flate2::write::GzEncoder;
use flate2::Compression;
use llv_tests::{example, llv_measured, llv_packets};

/// Peak memory any of these runs may reach.
const LIMIT_KIB: i64 = 64 * 1024;

/// Runs `llv info FILE`; returns its exit code, standard error and peak RSS in KiB.
fn info_measured(file: &std::path::Path) -> (Option<i32>, String, i64) {
    let run = llv_measured(&[std::ffi::OsStr::new("info"), file.as_os_str()]);
    (run.code, run.stderr, run.peak_kib)
}

fn gzip(level: u32, parts: impl IntoIterator<Item = Vec<u8>>) -> Vec<u8> {
    let mut gz = GzEncoder::new(Vec::new(), Compression::new(level));
    for part in parts {
        gz.write_all(&part).unwrap();
    }
    gz.finish().unwrap()
}

/// About 1 MB of gzip: `head` then zeros (a GiB of them).
fn zeros_bomb(head: &[u8]) -> Vec<u8> {
    let mut gz = GzEncoder::new(Vec::new(), Compression::default());
    gz.write_all(head).unwrap();
    let zeros = vec![0u8; 1 << 20];
    // Bounded: 1024 MiB of zeros at most.
    for _ in 0..1024 {
        if gz.get_ref().len() >= 1_000_000 {
            break;
        }
        gz.write_all(&zeros).unwrap();
    }
    gz.finish().unwrap()
}

/// The LLV body head: version 6 and a frame count.
fn head(count: u32) -> Vec<u8> {
    let mut head = vec![6];
    head.extend_from_slice(&count.to_be_bytes());
    head
}

#[test]
fn bombs_and_lying_headers_get_clear_errors_in_little_memory() {
    let dir = tempfile::tempdir().unwrap();
    let packet = llv_packets(&example("dao.gesichter")).remove(0);
    let frame = [(packet.len() as u32).to_be_bytes().to_vec(), packet].concat();
    // 700 000 identical frames (224 MB, over 200:1) under a count the header check lets pass.
    let identical = gzip(
        9,
        std::iter::once(head(100_000)).chain((0..700).map(|_| frame.repeat(1000))),
    );
    let mut three = head(u32::MAX);
    three.extend(frame.repeat(3));
    let cases = [
        (
            "zeros",
            zeros_bomb(&[]),
            "LLV recording version 0, expected 6".to_string(),
        ),
        (
            "header-then-zeros",
            zeros_bomb(&head(2)),
            "frame 0: length at byte 5: 0 bytes, outside 264..=774".to_string(),
        ),
        (
            "identical-frames",
            identical,
            "past the limit of 64 per compressed byte plus 1048576: not a recording (a gzip bomb?)"
                .to_string(),
        ),
        (
            "lying-header",
            gzip(6, [three]),
            "header says 4294967295 frames, at least 1151051235060 bytes: more than a".to_string(),
        ),
    ];
    for (name, bytes, expected) in cases {
        let path = dir.path().join(format!("{name}.gesichter"));
        std::fs::write(&path, &bytes).unwrap();
        let (code, stderr, peak_kib) = info_measured(&path);
        eprintln!(
            "{name}: {} bytes of gzip, peak RSS {:.1} MiB",
            bytes.len(),
            peak_kib as f64 / 1024.0
        );
        assert_eq!(code, Some(1), "{name}: {stderr}");
        let prefix = format!("error: {}: ", path.display());
        assert!(
            stderr.starts_with(&prefix) && stderr.contains(&expected),
            "{name}: {stderr}"
        );
        assert!(peak_kib < LIMIT_KIB, "{name}: peak RSS {peak_kib} KiB");
    }
}
