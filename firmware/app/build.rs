//! Builds the take the firmware plays into a take image at compile time
//! (feature `builtin` only).
//!
//! Input: an LLV 1.1+ recording, by default the repo's `examples/dao.gesichter`;
//! set `LLV_BOX_TAKE=/path/to/take.gesichter` to pick another. It is gunzipped
//! here and read with `llv_core::llv_file`; the image is built by
//! `llv_core::take::build_image`, the same rule as `llv flash` (60 fps is the
//! fallback rate when the first frame's rate is invalid; a bad frame stops the
//! build with its index). Output: `$OUT_DIR/take.img`, which `src/builtin.rs`
//! includes.

use std::env;
use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};

use flate2::read::GzDecoder;
use llv_core::llv_file::Frames;
use llv_core::take::{build_image, image_len, NAME_LEN};
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

    let image = image_of(&input).unwrap_or_else(|e| panic!("{}: {e}", input.display()));
    let out = PathBuf::from(env::var_os("OUT_DIR").expect("OUT_DIR"));
    fs::write(out.join("take.img"), image).expect("write take.img");
}

/// The take image of the LLV 1.1+ recording at `path`.
fn image_of(path: &Path) -> Result<Vec<u8>, String> {
    let file = fs::File::open(path).map_err(|e| e.to_string())?;
    let mut body = Vec::new();
    GzDecoder::new(file)
        .read_to_end(&mut body)
        .map_err(|e| format!("not gzip: {e}"))?;
    let packets = Frames::new(&body)
        .and_then(|frames| {
            frames
                .map(|f| f.map(|f| f.packet))
                .collect::<Result<Vec<_>, _>>()
        })
        .map_err(|e| e.to_string())?;
    let len = u32::try_from(packets.len()).map_err(|_| "too many frames".to_string())?;
    let mut buf = vec![0u8; image_len(len, packets.iter().map(|p| p.len()).sum())];
    let written = build_image(&mut buf, &name_of(path), packets, FrameRate::FPS_60)
        .map_err(|e| e.to_string())?;
    buf.truncate(written);
    Ok(buf)
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
