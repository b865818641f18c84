//! Readers and writers stream: on a take of 300,000 frames, `convert`,
//! `unpack`, `pack`, `edit` and `retarget` each stay under 64 MiB of peak
//! memory (read from the kernel: `wait4`'s `ru_maxrss` of that one process),
//! and what they write is complete. Held whole, the take's packets alone
//! would be 96 MB, so a command that does not stream fails here. The
//! benchmark runs the same on a million frames:
//! `LLV_MEMORY_FRAMES=1000000 cargo nextest run -p llv-tests --test cli_memory`.
//!
//! The test itself never holds a big file in memory: `Command` starts the
//! child with `posix_spawn` (a vfork sharing this process's memory until the
//! exec), and Linux counts the memory high-water mark of this process into
//! the child's `ru_maxrss` at the exec.

use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::Path;

use base64::Engine;
use llv_tests::{example, fixture, llv_measured, llv_packets};

/// Peak memory any of these runs may reach.
const LIMIT_KIB: i64 = 64 * 1024;
/// Frames in the take: `LLV_MEMORY_FRAMES`, else 300,000.
fn frames() -> usize {
    std::env::var("LLV_MEMORY_FRAMES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(300_000)
}

/// The frame-number offset of a packet: after version, id and subject.
fn frame_number_at(packet: &[u8]) -> usize {
    let id = i32::from_be_bytes(packet[1..5].try_into().unwrap()) as usize;
    let at = 5 + id;
    let subject = i32::from_be_bytes(packet[at..at + 4].try_into().unwrap()) as usize;
    at + 4 + subject
}

/// Writes [`frames`] frames of the real capture, over and over, numbered on
/// from its first frame, as native lines (written here, not by llv).
fn write_take(path: &Path) -> u32 {
    let packets = llv_packets(&example("dao.gesichter"));
    let at = frame_number_at(&packets[0]);
    let first = u32::from_be_bytes(packets[0][at..at + 4].try_into().unwrap());
    let mut out = BufWriter::with_capacity(1 << 20, File::create(path).unwrap());
    let mut line = String::with_capacity(512);
    for i in 0..frames() {
        let mut packet = packets[i % packets.len()].clone();
        packet[at..at + 4].copy_from_slice(&(first + i as u32).to_be_bytes());
        line.clear();
        base64::engine::general_purpose::STANDARD.encode_string(&packet, &mut line);
        line.push('\n');
        out.write_all(line.as_bytes()).unwrap();
    }
    out.flush().unwrap();
    first
}

/// True when the two files hold the same bytes (read in pieces).
fn same_bytes(a: &Path, b: &Path) -> bool {
    let (mut a, mut b) = (
        BufReader::new(File::open(a).unwrap()),
        BufReader::new(File::open(b).unwrap()),
    );
    let (mut x, mut y) = (vec![0u8; 1 << 16], vec![0u8; 1 << 16]);
    loop {
        let n = a.read(&mut x).unwrap();
        let mut got = 0;
        while got < n {
            let m = b.read(&mut y[got..n]).unwrap();
            if m == 0 {
                return false;
            }
            got += m;
        }
        if n == 0 {
            return b.read(&mut y).unwrap() == 0;
        }
        if x[..n] != y[..n] {
            return false;
        }
    }
}

/// The lines of a file, counted in pieces.
fn count_lines(path: &Path) -> usize {
    let mut file = BufReader::new(File::open(path).unwrap());
    let mut piece = vec![0u8; 1 << 16];
    let mut lines = 0;
    loop {
        let n = file.read(&mut piece).unwrap();
        if n == 0 {
            return lines;
        }
        lines += piece[..n].iter().filter(|b| **b == b'\n').count();
    }
}

/// The last line of a text file.
fn last_line(path: &Path) -> String {
    let mut file = File::open(path).unwrap();
    let len = file.metadata().unwrap().len();
    file.seek(SeekFrom::Start(len.saturating_sub(8192)))
        .unwrap();
    let mut tail = String::new();
    file.read_to_string(&mut tail).unwrap();
    tail.trim_end().lines().last().unwrap().to_string()
}

/// Runs `llv ARGS`, expects success and a peak under the limit; returns the peak in MiB.
fn measured(what: &str, args: &[&std::ffi::OsStr]) -> f64 {
    let start = std::time::Instant::now();
    let run = llv_measured(args);
    let mib = run.peak_kib as f64 / 1024.0;
    eprintln!(
        "{what}: peak RSS {mib:.1} MiB, {:.1} s (a debug build on a shared machine)",
        start.elapsed().as_secs_f64()
    );
    assert_eq!(run.code, Some(0), "{what}: {}", run.stderr);
    assert!(
        run.peak_kib < LIMIT_KIB,
        "{what}: peak RSS {} KiB",
        run.peak_kib
    );
    mib
}

#[test]
fn a_million_frames_stream_through_every_converter_in_little_memory() {
    let dir = tempfile::tempdir().unwrap();
    let p = |name: &str| dir.path().join(name);
    let lines = p("big.gesichter-lines");
    let first = write_take(&lines);
    let os = |s: &'static str| std::ffi::OsStr::new(s);

    measured(
        "convert (native lines -> LLV gzip)",
        &[
            os("convert"),
            lines.as_os_str(),
            p("big.gesichter").as_os_str(),
        ],
    );
    measured(
        "unpack (LLV gzip -> clear JSON)",
        &[
            os("unpack"),
            p("big.gesichter").as_os_str(),
            p("big.json").as_os_str(),
        ],
    );
    measured(
        "pack (clear JSON -> native lines)",
        &[
            os("pack"),
            p("big.json").as_os_str(),
            p("back.gesichter-lines").as_os_str(),
        ],
    );
    // Unpacked and packed again: the same file, byte for byte.
    assert!(same_bytes(&lines, &p("back.gesichter-lines")));
    std::fs::remove_file(p("big.json")).unwrap();
    std::fs::remove_file(p("back.gesichter-lines")).unwrap();

    measured(
        "edit (--retime 30 --mirror --gain --smooth)",
        &[
            os("edit"),
            p("big.gesichter").as_os_str(),
            p("edited.gesichter-lines").as_os_str(),
            os("--retime"),
            os("30"),
            os("--mirror"),
            os("--gain"),
            os("JawOpen=0.5"),
            os("--smooth"),
        ],
    );
    // Half the frames at half the rate (give or take one: the capture's subframes vary).
    let count = count_lines(&p("edited.gesichter-lines"));
    assert!(count.abs_diff(frames() / 2) <= 1, "{count}");
    std::fs::remove_file(p("edited.gesichter-lines")).unwrap();

    let curves = p("big.metahuman.csv");
    measured(
        "retarget (LLV gzip -> 159 MetaHuman curves)",
        &[
            os("retarget"),
            p("big.gesichter").as_os_str(),
            os("--map"),
            fixture("mapping/mh_arkit_mapping_pose.T3D").as_os_str(),
            os("-o"),
            curves.as_os_str(),
        ],
    );
    // The last row is the last frame's (its label wraps at 24 hours, as
    // time of day does: 60 fps, 5,184,000 frames a day).
    let last = (first as usize + frames() - 1) % 5_184_000;
    let tc = format!(
        "{:02}:{:02}:{:02}:{:02}.",
        last / 216_000,
        last / 3600 % 60,
        last / 60 % 60,
        last % 60
    );
    assert!(last_line(&curves).starts_with(&tc), "{tc}");
}
