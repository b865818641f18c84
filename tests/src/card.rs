//! Shared by the QEMU test and benchmark of the box's microSD card
//! (`box_card.rs`, `bench/box_card.rs`) and the `llv card` tests: a FAT32
//! card image (an MBR and `mkfs.fat`) holding a 30-minute sequence take and
//! short ones written by `llv card write`, large sparse cards in 1 GiB
//! parts, a card of many takes, the box booted on one with read stalls, the
//! frames it plays with their arrival times, and `fsck.fat -n` on the card.

use std::io::Write;
use std::net::UdpSocket;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use llv_core::packet::FaceFrame;
use serde_json::Value;

use crate::flash_box::{firmware, QemuBox, TIMEOUT};

/// The card's size: room for the long take (about 36 MB) and more.
pub const CARD_MIB: u64 = 128;
/// The long take: 61 shapes of 29.5 s at 60 fps, 107 970 frames, 30 minutes.
pub const LONG_SECONDS_PER_SHAPE: &str = "29.5";
/// Read stalls injected by the QEMU board: this long...
pub const STALL_MS: u32 = 100;
/// ...every this long.
pub const STALL_EVERY_MS: u32 = 3000;
/// How long the box may take to scan the card (it CRC-checks every take
/// once; the long take is 36 MB read through semihosting, under stalls).
pub const SCAN_TIMEOUT: Duration = Duration::from_secs(120);

/// `mkfs.fat` (dosfstools; often in /usr/sbin, off a user's PATH).
pub fn mkfs_fat() -> PathBuf {
    sbin("mkfs.fat")
}

/// A dosfstools tool, found in /usr/sbin or /sbin too.
pub fn sbin(tool: &str) -> PathBuf {
    ["/usr/sbin", "/sbin", "/usr/bin"]
        .iter()
        .map(|d| Path::new(d).join(tool))
        .find(|p| p.exists())
        .unwrap_or_else(|| PathBuf::from(tool))
}

/// Asserts that `fsck.fat -n` finds the volume of the card image at `card`
/// (its first MBR partition) clean. `fsck.fat` reads a volume, not a
/// partitioned card: it gets a copy of the partition beside the image,
/// holes kept, so a sparse 32 GiB image copies in a moment.
pub fn assert_clean(card: &Path) {
    let volume = card.with_extension("volume");
    copy_volume(card, &volume);
    let out = std::process::Command::new(sbin("fsck.fat"))
        .arg("-n")
        .arg(&volume)
        .output()
        .expect("fsck.fat (dosfstools) runs");
    let _ = std::fs::remove_file(&volume);
    assert!(
        out.status.success(),
        "fsck.fat -n {}: {}{}",
        card.display(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Copies the first MBR partition of the card image `card` to `to`.
fn copy_volume(card: &Path, to: &Path) {
    use std::os::unix::fs::FileExt;
    let src = std::fs::File::open(card).unwrap();
    let mut mbr = [0u8; 512];
    src.read_exact_at(&mut mbr, 0).unwrap();
    let word = |i: usize| u64::from(u32::from_le_bytes(mbr[i..i + 4].try_into().unwrap()));
    let (start, len) = (word(454) * 512, word(458) * 512);
    let dst = std::fs::File::create(to).unwrap();
    dst.set_len(len).unwrap();
    copy_data(&src, start, len, &dst, 0);
}

/// Bytes of each part of a card given to QEMU in parts
/// (`llv_hal_mps2::file_card::PART`).
pub const PART: u64 = 1 << 30;

/// Splits the card image `card` into the parts `card.0`, `card.1`, ...
/// of [`PART`] bytes the QEMU board reads a large card from; returns how
/// many.
pub fn split_card(card: &Path) -> u32 {
    let src = std::fs::File::open(card).unwrap();
    let len = src.metadata().unwrap().len();
    let parts = len.div_ceil(PART);
    for n in 0..parts {
        let size = PART.min(len - n * PART);
        let dst = std::fs::File::create(part_path(card, n)).unwrap();
        dst.set_len(size).unwrap();
        copy_data(&src, n * PART, size, &dst, 0);
    }
    parts as u32
}

/// Puts the parts [`split_card`] made back into the image `card`.
pub fn join_card(card: &Path, parts: u32) {
    let dst = std::fs::OpenOptions::new().write(true).open(card).unwrap();
    for n in 0..u64::from(parts) {
        let src = std::fs::File::open(part_path(card, n)).unwrap();
        let size = src.metadata().unwrap().len();
        copy_data(&src, 0, size, &dst, n * PART);
    }
}

fn part_path(card: &Path, n: u64) -> PathBuf {
    PathBuf::from(format!("{}.{n}", card.display()))
}

/// Copies `len` bytes at `from` of `src` to `to` of `dst`, only the parts
/// that hold data (found with `SEEK_DATA`/`SEEK_HOLE`): a hole of `src`
/// leaves `dst` as it is there.
fn copy_data(src: &std::fs::File, from: u64, len: u64, dst: &std::fs::File, to: u64) {
    use std::os::fd::AsRawFd;
    use std::os::unix::fs::FileExt;
    let (fd, start, end) = (src.as_raw_fd(), from, from + len);
    let mut pos = start;
    let mut buf = vec![0u8; 1 << 20];
    while pos < end {
        // SAFETY: lseek on the open descriptor `src` owns; no memory is passed.
        let data = unsafe { libc::lseek(fd, pos as libc::off_t, libc::SEEK_DATA) };
        let Ok(data) = u64::try_from(data) else {
            break; // ENXIO: only a hole is left
        };
        // SAFETY: as above.
        let hole = unsafe { libc::lseek(fd, data as libc::off_t, libc::SEEK_HOLE) };
        let hole = u64::try_from(hole).unwrap_or(end).min(end);
        let mut at = data.min(end);
        while at < hole {
            let n = ((hole - at) as usize).min(buf.len());
            src.read_exact_at(&mut buf[..n], at).unwrap();
            dst.write_all_at(&buf[..n], at - start + to).unwrap();
            at += n as u64;
        }
        pos = hole.max(pos + 1);
    }
}

/// A blank card image of [`CARD_MIB`] MiB at `path` (sparse): an MBR whose
/// one partition (FAT32 LBA, from 1 MiB as on SD cards) `mkfs.fat` formats.
pub fn blank_card(path: &Path) {
    let blocks = CARD_MIB << 11;
    let start = 2048u32;
    let mut file = std::fs::File::create(path).unwrap();
    file.set_len(blocks * 512).unwrap();
    let mut mbr = [0u8; 512];
    mbr[446 + 4] = 0x0C;
    mbr[446 + 8..446 + 12].copy_from_slice(&start.to_le_bytes());
    mbr[446 + 12..446 + 16].copy_from_slice(&((blocks as u32) - start).to_le_bytes());
    mbr[510] = 0x55;
    mbr[511] = 0xAA;
    file.write_all(&mbr).unwrap();
    drop(file);
    let status = std::process::Command::new(mkfs_fat())
        .args(["-F", "32", "--offset", &start.to_string()])
        .arg(path)
        .stdout(std::process::Stdio::null())
        .status()
        .expect("mkfs.fat (dosfstools) runs");
    assert!(status.success(), "mkfs.fat failed");
}

/// Writes a sequence take to `path` (`llv sequence`).
pub fn sequence(path: &Path, seconds_per_shape: &str) {
    crate::llv()
        .args(["sequence", path.to_str().unwrap(), "--seconds-per-shape"])
        .arg(seconds_per_shape)
        .timeout(TIMEOUT)
        .assert()
        .success();
}

/// Writes `takes` to the card image `card` (`llv card write`).
pub fn card_write(card: &Path, takes: &[&Path]) {
    crate::llv()
        .args(["card", "write"])
        .arg(card)
        .args(takes)
        .timeout(TIMEOUT)
        .assert()
        .success();
}

/// A card image in `dir` holding "long" (30 minutes), "dao" and "short"
/// (a few seconds); returns its path and the long take's recording.
pub fn show_card(dir: &Path) -> (PathBuf, PathBuf) {
    let card = dir.join("card.img");
    blank_card(&card);
    let long = dir.join("long.gesichter");
    sequence(&long, LONG_SECONDS_PER_SHAPE);
    let short = dir.join("short.gesichter");
    sequence(&short, "0.05");
    card_write(&card, &[&long, &crate::example("dao.gesichter"), &short]);
    (card, long)
}

/// Boots the box on a fresh flash file in `dir` with the card `card`,
/// stalled [`STALL_MS`] every [`STALL_EVERY_MS`], plus `words`.
pub fn boot_on_card(dir: &Path, card: &Path, words: &str) -> QemuBox {
    QemuBox::boot_with(
        firmware(),
        &dir.join("flash.bin"),
        &format!(
            "card={} card_stall_ms={STALL_MS} card_stall_every_ms={STALL_EVERY_MS} {words}",
            card.display()
        ),
    )
}

/// The box's takes, as `llv box list --json` gives them.
pub fn list(b: &QemuBox) -> Vec<Value> {
    b.json(&["box", "{box}", "list", "--json"])
        .as_array()
        .expect("a list")
        .clone()
}

/// Waits until the box's card is mounted and scanned through (`card.scanning`
/// in its status); returns the status.
pub fn wait_scanned(b: &QemuBox, limit: Duration) -> Value {
    let end = Instant::now() + limit;
    loop {
        let status = b.json(&["box", "{box}", "status", "--json"]);
        let card = &status["card"];
        let mounted = status["faults"]
            .as_array()
            .is_some_and(|f| f.iter().all(|f| f["code"] != "CardRemoved"));
        if card["scanning"] == false && mounted && card["takes"].as_u64() > Some(0) {
            return status;
        }
        assert!(
            Instant::now() < end,
            "the card was not scanned within {limit:?}: {status}"
        );
        std::thread::sleep(Duration::from_millis(250));
    }
}

/// A card image at `path` of `bytes` (sparse), formatted by `llv card format`.
pub fn formatted_card(path: &Path, bytes: u64) {
    std::fs::File::create(path).unwrap().set_len(bytes).unwrap();
    crate::llv()
        .args(["card", "format"])
        .arg(path)
        .timeout(TIMEOUT)
        .assert()
        .success();
}

/// Writes `count` takes named `cue 0000`, `cue 0001`, ... (a few frames of
/// `packets` each) to the card image `card` through the card library, as
/// `llv card write` does.
pub fn write_cues(card: &Path, count: usize, packets: &[Vec<u8>]) {
    use llv_card::image::{on_image, ImageFile};
    let file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(card)
        .unwrap();
    on_image(
        ImageFile::new(file).unwrap(),
        llv_card::Mode::Write,
        |_| {},
        async |c| {
            for i in 0..count {
                let some: Vec<Vec<u8>> = packets.iter().cycle().skip(i).take(3).cloned().collect();
                let image = cue_image(&format!("cue {i:04}"), &some);
                let h = llv_core::take::TakeHeader::parse(&image).unwrap();
                let id = c.begin_upload(&h.name, h.total_len, h.crc32).await.unwrap();
                for (k, chunk) in image.chunks(1024).enumerate() {
                    c.write_chunk(id, (k * 1024) as u32, chunk).await.unwrap();
                }
                c.commit_upload(id).await.unwrap();
            }
        },
    );
}

/// A take image named `name` of `packets`, 1/60 s apart.
pub fn cue_image(name: &str, packets: &[Vec<u8>]) -> Vec<u8> {
    let frames = packets.len() as u32;
    let bytes = packets.iter().map(Vec::len).sum();
    let mut image = vec![0u8; llv_core::take::image_len(frames, bytes)];
    let mut w = llv_core::take::ImageWriter::new(&mut image, name, frames).unwrap();
    for (i, p) in packets.iter().enumerate() {
        w.push(i as u32 * 16_667, p).unwrap();
    }
    let len = w.finish(frames * 16_667).unwrap();
    image.truncate(len);
    image
}

/// Waits until the box lists `count` card takes (its scan is done).
pub fn wait_listed(b: &QemuBox, count: usize, limit: Duration) -> Vec<Value> {
    let end = Instant::now() + limit;
    loop {
        let takes = list(b);
        if takes.iter().filter(|t| t["place"] == "Card").count() >= count {
            return takes;
        }
        assert!(
            Instant::now() < end,
            "the card's takes did not list within {limit:?}: {takes:?}"
        );
        std::thread::sleep(Duration::from_millis(250));
    }
}

/// A received frame: when, and its bytes.
pub struct Arrival {
    pub at: Instant,
    pub bytes: Vec<u8>,
}

/// Every datagram `socket` gets until `until`.
pub fn arrivals(socket: &UdpSocket, until: Instant) -> Vec<Arrival> {
    let mut got = Vec::new();
    let mut buf = [0u8; 2048];
    while Instant::now() < until {
        if let Ok(n) = socket.recv(&mut buf) {
            got.push(Arrival {
                at: Instant::now(),
                bytes: buf[..n].to_vec(),
            });
        }
    }
    got
}

/// A frame's time in its take, from its frame time, in µs.
pub fn media_us(packet: &[u8]) -> f64 {
    let f = FaceFrame::decode(packet).expect("a Live Link frame");
    f.time.seconds().expect("a valid frame rate") * 1e6
}

/// Where the received frames start in `expected` (by bytes), asserting they
/// are `expected[k..]` in order, byte for byte, none missing.
pub fn assert_stretch(got: &[Arrival], expected: &[Vec<u8>]) -> usize {
    assert!(!got.is_empty(), "no frames arrived");
    let k = expected
        .iter()
        .position(|e| *e == got[0].bytes)
        .expect("the first frame is one of the take's");
    for (j, a) in got.iter().enumerate() {
        assert!(k + j < expected.len(), "more frames than the take has");
        assert!(
            a.bytes == expected[k + j],
            "frame {} (the {j}th received) differs or is out of order",
            k + j
        );
    }
    k
}

/// Checks that every frame of `got` is a frame of the take `expected`,
/// byte for byte; returns the first one's index and how many times the
/// frames did not follow on from the one before (a chase's locates, either
/// way, and frames lost on the way).
pub fn assert_in_order(got: &[Arrival], expected: &[Vec<u8>]) -> (usize, usize) {
    assert!(!got.is_empty(), "no frames arrived");
    let find = |bytes: &[u8]| expected.iter().position(|e| e == bytes);
    let mut at = find(&got[0].bytes).expect("the first frame is one of the take's");
    let first = at;
    let mut jumps = 0;
    for (j, a) in got.iter().enumerate().skip(1) {
        if expected.get(at + 1).is_some_and(|e| *e == a.bytes) {
            at += 1;
            continue;
        }
        at = find(&a.bytes)
            .unwrap_or_else(|| panic!("the {j}th frame received is not a frame of the take"));
        jumps += 1;
    }
    (first, jumps)
}

/// Each frame's lateness in ms: its arrival against the schedule that the
/// earliest frame (relative to its time in the take) sets; the first is the
/// reference, so every value is >= 0.
pub fn lateness_ms(got: &[Arrival]) -> Vec<f64> {
    let Some(first) = got.first() else {
        return Vec::new();
    };
    let offsets: Vec<f64> = got
        .iter()
        .map(|a| {
            a.at.duration_since(first.at).as_secs_f64() * 1e3
                - (media_us(&a.bytes) - media_us(&first.bytes)) / 1e3
        })
        .collect();
    let min = offsets.iter().copied().fold(f64::INFINITY, f64::min);
    offsets.iter().map(|o| o - min).collect()
}

/// The largest gap between two frames received one after the other, in ms.
pub fn worst_gap_ms(got: &[Arrival]) -> f64 {
    got.windows(2)
        .map(|w| w[1].at.duration_since(w[0].at).as_secs_f64() * 1e3)
        .fold(0.0, f64::max)
}
