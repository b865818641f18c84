//! Builds the take the firmware plays into a take image at compile time
//! (feature `builtin` only).
//!
//! Input: an LLV 1.1+ recording (gzip of: u8 version 6, u32 BE frame count,
//! then per frame a u32 BE length and the raw packet), by default the repo's
//! `examples/dao.gesichter`; set `LLV_BOX_TAKE=/path/to/take.gesichter` to
//! pick another. Frame times come from each packet's own frame time
//! (`llv_core::pacing::FrameClock`); the loop period is the last frame's
//! offset plus one frame. Output: `$OUT_DIR/take.img`, which `src/builtin.rs`
//! includes.

use std::env;
use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};

use flate2::read::GzDecoder;
use llv_core::pacing::FrameClock;
use llv_core::packet::Packet;
use llv_core::take::{image_len, ImageWriter, NAME_LEN};
use llv_core::time::FrameRate;

fn main() {
    if env::var_os("CARGO_FEATURE_BUILTIN").is_none() {
        return;
    }
    println!("cargo:rerun-if-env-changed=LLV_BOX_TAKE");
    let manifest = PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR"));
    let input = env::var_os("LLV_BOX_TAKE")
        .map(PathBuf::from)
        .unwrap_or_else(|| manifest.join("../../examples/dao.gesichter"));
    println!("cargo:rerun-if-changed={}", input.display());

    let packets = read_llv(&input).unwrap_or_else(|e| panic!("{}: {e}", input.display()));
    let image = build_image(&name_of(&input), &packets)
        .unwrap_or_else(|e| panic!("{}: {e}", input.display()));
    let out = PathBuf::from(env::var_os("OUT_DIR").expect("OUT_DIR"));
    fs::write(out.join("take.img"), image).expect("write take.img");
}

/// The packets of an LLV 1.1+ gzip recording.
fn read_llv(path: &Path) -> Result<Vec<Vec<u8>>, String> {
    let file = fs::File::open(path).map_err(|e| e.to_string())?;
    let mut raw = Vec::new();
    GzDecoder::new(file)
        .read_to_end(&mut raw)
        .map_err(|e| format!("not gzip: {e}"))?;
    let mut at = 0usize;
    let mut take = |n: usize| -> Result<&[u8], String> {
        let bytes = raw.get(at..at + n).ok_or("truncated")?;
        at += n;
        Ok(bytes)
    };
    let version = take(1)?[0];
    if version != 6 {
        return Err(format!("LLV version {version}, expected 6"));
    }
    let count = u32::from_be_bytes(take(4)?.try_into().expect("4 bytes"));
    let mut packets = Vec::new();
    for _ in 0..count {
        let len = u32::from_be_bytes(take(4)?.try_into().expect("4 bytes")) as usize;
        packets.push(take(len)?.to_vec());
    }
    Ok(packets)
}

fn name_of(path: &Path) -> String {
    let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("take");
    let mut name = String::new();
    for c in stem.chars() {
        if name.len() + c.len_utf8() > NAME_LEN {
            break;
        }
        name.push(c);
    }
    name
}

/// A take image of every valid face packet, timed by its own frame time.
fn build_image(name: &str, packets: &[Vec<u8>]) -> Result<Vec<u8>, String> {
    let mut frames = Vec::new();
    let mut clock = FrameClock::new(FrameRate::FPS_60);
    for (i, bytes) in packets.iter().enumerate() {
        match Packet::new_checked(bytes) {
            Ok(packet) => {
                let offset = clock.next(&packet.time());
                let time_us = u32::try_from(offset.as_micros())
                    .map_err(|_| format!("frame {i}: take longer than 71 minutes"))?;
                frames.push((time_us, bytes.as_slice()));
            }
            Err(e) => println!("cargo:warning=frame {i} skipped: {e:?}"),
        }
    }
    if frames.is_empty() {
        return Err("no valid face frame".into());
    }
    let period =
        frames.last().map(|f| f.0).unwrap_or(0) as u64 + clock.frame_period().as_micros() as u64;
    let period_us = u32::try_from(period).map_err(|_| "take too long".to_string())?;
    let count = u32::try_from(frames.len()).map_err(|_| "too many frames".to_string())?;
    let mut buf = vec![0u8; image_len(count, frames.iter().map(|f| f.1.len()).sum())];
    let mut writer = ImageWriter::new(&mut buf, name, count).map_err(|e| e.to_string())?;
    for (time_us, packet) in &frames {
        writer.push(*time_us, packet).map_err(|e| e.to_string())?;
    }
    let len = writer.finish(period_us).map_err(|e| e.to_string())?;
    buf.truncate(len);
    Ok(buf)
}
