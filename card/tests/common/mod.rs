//! What the card's tests share: card images made by `mkfs.fat`, the
//! `fsck.fat -n` check, mtools on an image, and reading takes back.
#![allow(dead_code, reason = "each test file uses some of these")]

use std::fs::OpenOptions;
use std::io::Write;
use std::path::{Path, PathBuf};

use llv_card::image::ImageFile;
use llv_card::{Card, CardError};
use llv_core::packet::MAX_LEN;

/// Where the partition starts (as SD cards have it: 1 MiB in).
pub const START: u64 = 2048;

/// A card image of `mib` MiB in a temporary file: an MBR whose first
/// partition (type `kind`) is formatted FAT`bits` by `mkfs.fat`.
pub fn card(mib: u64, bits: u8) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("card.img");
    let blocks = mib << 11;
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(true)
        .open(&path)
        .unwrap();
    file.set_len(blocks * 512).unwrap();
    let mut mbr = [0u8; 512];
    mbr[446 + 4] = if bits == 32 { 0x0C } else { 0x06 };
    mbr[446 + 8..446 + 12].copy_from_slice(&(START as u32).to_le_bytes());
    mbr[446 + 12..446 + 16].copy_from_slice(&((blocks - START) as u32).to_le_bytes());
    mbr[510] = 0x55;
    mbr[511] = 0xAA;
    (&file).write_all(&mbr).unwrap();
    let status = std::process::Command::new(mkfs_fat())
        .args(["-F", &bits.to_string(), "--offset", &START.to_string()])
        .arg(&path)
        .stdout(std::process::Stdio::null())
        .status()
        .unwrap();
    assert!(status.success(), "mkfs.fat failed");
    (dir, path)
}

/// A FAT32 card of 64 MiB.
pub fn fat32() -> (tempfile::TempDir, PathBuf) {
    card(64, 32)
}

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

/// Asserts that `fsck.fat -n` finds the volume of the card image at
/// `path` clean (it reads a volume, not a partitioned card: it gets a copy).
pub fn assert_clean(path: &Path) {
    let raw = std::fs::read(path).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let volume = dir.path().join("volume.img");
    std::fs::write(&volume, &raw[START as usize * 512..]).unwrap();
    let out = std::process::Command::new(sbin("fsck.fat"))
        .arg("-n")
        .arg(&volume)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "fsck.fat -n: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

pub fn image_file(path: &Path) -> ImageFile {
    ImageFile::new(
        OpenOptions::new()
            .read(true)
            .write(true)
            .open(path)
            .unwrap(),
    )
    .unwrap()
}

/// Every frame of the card take `name`, read as the player does.
pub async fn frames(
    card: &mut Card<impl llv_card::CardDriver>,
    name: &str,
) -> Result<Vec<Vec<u8>>, CardError> {
    let mut reader = card.reader(name).await?;
    let mut out = Vec::new();
    let mut buf = [0u8; MAX_LEN];
    for i in 0..reader.header().frame_count {
        let entry = card.packet(&mut reader, i, &mut buf).await?;
        out.push(buf[..usize::from(entry.len)].to_vec());
    }
    Ok(out)
}

/// The names of the card's takes, in list order.
pub async fn names(card: &mut Card<impl llv_card::CardDriver>) -> Vec<String> {
    let mut out = Vec::new();
    for i in 0..card.takes().len() {
        out.push(card.header(i).await.unwrap().name.to_string());
    }
    out
}

pub fn mtools(path: &Path, tool: &str, args: &[&str]) {
    let image = format!("{}@@{}", path.display(), START * 512);
    let out = std::process::Command::new(tool)
        .env("MTOOLS_SKIP_CHECK", "1")
        .args(["-i", &image])
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("{tool} (mtools): {e}"));
    assert!(
        out.status.success(),
        "{tool} {args:?}: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}
