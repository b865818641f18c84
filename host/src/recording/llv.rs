//! LLV 1.1+ recordings (FORMATS 3b): gzip of u8 version (6), u32 BE frame
//! count, then per frame a u32 BE length and the raw packet.

use std::io::{self, Read, Write};

use anyhow::{bail, Result};
use flate2::read::GzDecoder;
use flate2::write::GzEncoder;
use flate2::Compression;

use crate::take::Take;

/// The file version LLV writes and reads.
const VERSION: u8 = 6;

/// Reads an LLV recording. A file cut short (a killed LLV) keeps its complete
/// frames with a warning; a bad frame is an error naming its index and field.
pub fn read(name: &str, bytes: &[u8], warnings: &mut Vec<String>) -> Result<Take> {
    let mut raw = Vec::with_capacity(bytes.len() * 8);
    if let Err(e) = GzDecoder::new(bytes).read_to_end(&mut raw) {
        if e.kind() != io::ErrorKind::UnexpectedEof {
            bail!("{name}: gzip: {e}");
        }
        warnings.push(format!("{name}: gzip stream ends early (file cut off?)"));
    }
    let Some((&version, rest)) = raw.split_first() else {
        bail!("{name}: empty LLV recording (no version byte)");
    };
    if version != VERSION {
        bail!("{name}: LLV recording version {version}, expected {VERSION}");
    }
    let Some((count, mut rest)) = split_u32(rest) else {
        bail!("{name}: LLV recording ends inside its frame count");
    };
    let mut take = Take::with_capacity(count.min(1 << 20) as usize);
    for index in 0..count {
        let Some((len, after)) = split_u32(rest) else {
            if !rest.is_empty() {
                warnings.push(format!(
                    "{name}: frame {index}: partial length at the end skipped"
                ));
            }
            warnings.push(format!(
                "{name}: header says {count} frames, file holds {index}"
            ));
            return Ok(take);
        };
        let Some(packet) = after.get(..len as usize) else {
            warnings.push(format!(
                "{name}: frame {index}: partial last frame ({} of {len} bytes) skipped",
                after.len()
            ));
            return Ok(take);
        };
        if let Err(e) = take.push(packet) {
            bail!("{name}: frame {index}: {e}");
        }
        rest = &after[len as usize..];
    }
    if !rest.is_empty() {
        warnings.push(format!(
            "{name}: {} bytes after the last of {count} frames ignored",
            rest.len()
        ));
    }
    Ok(take)
}

fn split_u32(bytes: &[u8]) -> Option<(u32, &[u8])> {
    let (word, rest) = bytes.split_first_chunk::<4>()?;
    Some((u32::from_be_bytes(*word), rest))
}

/// Writes the take as an LLV gzip recording.
pub fn write(take: &Take, out: &mut dyn Write) -> io::Result<()> {
    let count = u32::try_from(take.len()).map_err(io::Error::other)?;
    let mut gz = GzEncoder::new(out, Compression::default());
    gz.write_all(&[VERSION])?;
    gz.write_all(&count.to_be_bytes())?;
    for packet in take.packets() {
        gz.write_all(&(packet.len() as u32).to_be_bytes())?;
        gz.write_all(packet)?;
    }
    gz.finish()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recording::{read_bytes, Format};
    use crate::take::tests_support::sample_take;

    fn gz(raw: &[u8]) -> Vec<u8> {
        let mut gz = GzEncoder::new(Vec::new(), Compression::fast());
        gz.write_all(raw).unwrap();
        gz.finish().unwrap()
    }

    #[test]
    fn round_trips() {
        let take = sample_take(4);
        let mut file = Vec::new();
        write(&take, &mut file).unwrap();
        let loaded = read_bytes("t.gesichter", &file).unwrap();
        assert_eq!(loaded.format, Format::Llv);
        assert_eq!(loaded.take, take);
        assert!(loaded.warnings.is_empty());
    }

    #[test]
    fn short_file_keeps_complete_frames_with_a_warning() {
        let take = sample_take(3);
        let mut raw = vec![VERSION];
        raw.extend_from_slice(&10u32.to_be_bytes());
        for p in take.packets() {
            raw.extend_from_slice(&(p.len() as u32).to_be_bytes());
            raw.extend_from_slice(p);
        }
        raw.truncate(raw.len() - 7);
        let loaded = read_bytes("cut.gesichter", &gz(&raw)).unwrap();
        assert_eq!(loaded.take.len(), 2);
        assert_eq!(
            loaded.warnings,
            ["cut.gesichter: frame 2: partial last frame (303 of 310 bytes) skipped"]
        );
    }

    #[test]
    fn bad_frame_names_index_and_field() {
        let take = sample_take(2);
        let mut raw = vec![VERSION];
        raw.extend_from_slice(&2u32.to_be_bytes());
        for (i, p) in take.packets().enumerate() {
            let mut p = p.to_vec();
            if i == 1 {
                p[0] = 5;
            }
            raw.extend_from_slice(&(p.len() as u32).to_be_bytes());
            raw.extend_from_slice(&p);
        }
        let err = read_bytes("v5.gesichter", &gz(&raw)).unwrap_err();
        assert_eq!(
            err.to_string(),
            "v5.gesichter: frame 1: version at byte 0: version 5, expected 6"
        );
    }

    #[test]
    fn garbage_after_gzip_magic_is_an_error_not_a_panic() {
        let err = read_bytes("x", &[0x1f, 0x8b, 1, 2, 3]).unwrap_err();
        assert!(err.to_string().starts_with("x: "), "{err}");
    }
}
