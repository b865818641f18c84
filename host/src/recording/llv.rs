//! LLV 1.1+ recordings (FORMATS 3b): gzip of u8 version (6), u32 BE frame
//! count, then per frame a u32 BE length and the raw packet. The body is
//! gunzipped here, frame by frame, and read with core's [`llv_file`] steps.
//!
//! Memory follows the frames a file really holds: nothing is reserved from
//! the announced frame count, a frame is read into a fixed 774-byte buffer
//! after its length is checked, and the body may not grow past
//! [`MAX_RATIO`] bytes per compressed byte read plus [`SLACK`] (real takes
//! compress 1.6:1, generated debug takes 28:1; a gzip bomb 1000:1). A body
//! that does is an error, and so is a header whose frame count alone would be.

use std::io::{self, BufRead, BufReader, Read, Write};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use anyhow::{bail, Result};
use flate2::bufread::GzDecoder;
use flate2::Crc;
use llv_core::llv_file::{self, frame_len, HEADER_LEN, PREFIX_LEN, VERSION};
use llv_core::packet::{MAX_LEN, MIN_LEN};

use super::gzip::{self, Blocks};
use super::stream::{spool, unspool, CountChanged, Emitter, FrameSink, Input};

/// Most body bytes per gzip byte read.
pub const MAX_RATIO: usize = 64;
/// Body bytes allowed beyond the ratio (so a small file never trips it).
pub const SLACK: usize = 1 << 20;
/// Body bytes inflated at a time.
const INFLATE_BUFFER: usize = 64 << 10;

/// The body bytes a gzip input of `compressed` bytes may give.
fn body_limit(compressed: u64) -> u64 {
    compressed
        .saturating_mul(MAX_RATIO as u64)
        .saturating_add(SLACK as u64)
}

/// Reads an LLV recording. A file cut short (a killed LLV) keeps its complete
/// frames with a warning; a bad frame is an error naming its index and field.
pub fn read(
    name: &str,
    input: &mut Input,
    emit: &mut Emitter,
    warnings: &mut Vec<String>,
) -> Result<()> {
    let mut body = Body {
        name,
        gz: BufReader::with_capacity(INFLATE_BUFFER, GzDecoder::new(&mut input.reader)),
        compressed: input.consumed.clone(),
        offset: 0,
        cut: false,
    };
    let mut head = [0u8; HEADER_LEN];
    let got = body.fill(&mut head)?;
    let count = llv_file::header(&head[..got]).map_err(|e| anyhow::anyhow!("{name}: {e}"))?;
    let least = u64::from(count) * (PREFIX_LEN + MIN_LEN) as u64;
    if let Some(len) = input.len.filter(|len| least > body_limit(*len)) {
        bail!(
            "{name}: header says {count} frames, at least {least} bytes: more than a {len}-byte \
             gzip file may hold ({MAX_RATIO} bytes per compressed byte plus {SLACK}); \
             a damaged or forged file"
        );
    }
    let mut packet = [0u8; MAX_LEN];
    let mut notes = Vec::new();
    let mut read = 0u32;
    for index in 0..count {
        let offset = body.offset;
        let mut prefix = [0u8; PREFIX_LEN];
        let got = body.fill(&mut prefix)?;
        if got < PREFIX_LEN {
            if got > 0 {
                notes.push(format!(
                    "{name}: frame {index}: partial length at the end skipped"
                ));
            }
            notes.push(format!(
                "{name}: header says {count} frames, file holds {index}"
            ));
            break;
        }
        let len = frame_len(prefix, index, offset as usize)
            .map_err(|e| anyhow::anyhow!("{name}: {e}"))?;
        let got = body.fill(&mut packet[..len])?;
        if got < len {
            notes.push(format!(
                "{name}: frame {index}: partial last frame ({got} of {len} bytes) skipped"
            ));
            break;
        }
        if let Err(e) = emit.frame(&packet[..len]) {
            bail!("{name}: frame {index}: {e}");
        }
        read += 1;
    }
    if read == count {
        let after = body.rest()?;
        if after > 0 {
            notes.push(format!(
                "{name}: {after} bytes after the last of {count} frames ignored"
            ));
        }
    }
    if body.cut {
        warnings.push(format!("{name}: gzip stream ends early (file cut off?)"));
    }
    warnings.append(&mut notes);
    Ok(())
}

/// The gunzipped body, read in pieces; `offset` counts the body bytes read.
struct Body<'a, R: BufRead> {
    name: &'a str,
    /// Inflated [`INFLATE_BUFFER`] bytes at a time: inflating into a frame's
    /// few hundred bytes took twice the time.
    gz: BufReader<GzDecoder<R>>,
    /// Compressed bytes taken from the source so far.
    compressed: Arc<AtomicU64>,
    offset: u64,
    /// The gzip stream ended before its end (a cut file).
    cut: bool,
}

impl<R: BufRead> Body<'_, R> {
    /// Fills `buf` as far as the body goes; returns how many bytes it got.
    /// Past [`body_limit`] of the gzip bytes read so far, an error.
    fn fill(&mut self, buf: &mut [u8]) -> Result<usize> {
        let mut got = 0;
        while got < buf.len() && !self.cut {
            match self.gz.read(&mut buf[got..]) {
                Ok(0) => break,
                Ok(n) => got += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => self.cut = true,
                Err(e) => bail!("{}: gzip: {e}", self.name),
            }
            let read = self.compressed.load(Ordering::Relaxed);
            let body = self.offset + got as u64;
            if body > body_limit(read) {
                bail!(
                    "{}: gzip: {read} compressed bytes unpacked to {body} bytes, past the \
                     limit of {MAX_RATIO} per compressed byte plus {SLACK}: not a recording \
                     (a gzip bomb?)",
                    self.name
                );
            }
        }
        self.offset += got as u64;
        Ok(got)
    }

    /// Reads the rest of the body and says how many bytes it held.
    fn rest(&mut self) -> Result<u64> {
        let mut chunk = [0u8; 4096];
        let mut total = 0;
        loop {
            let got = self.fill(&mut chunk)?;
            total += got as u64;
            if got < chunk.len() {
                return Ok(total);
            }
        }
    }
}

/// Writes an LLV gzip recording as one gzip member: the body is deflated as
/// it comes, on every core ([`gzip::Blocks`]), into a temporary file until
/// the frame count, which the header at the start of the body carries, is
/// known; then the header is deflated in front of it.
pub struct Sink<'a> {
    body: Option<Deflated<'a>>,
    count: u64,
}

/// Where the deflated body goes.
enum Deflated<'a> {
    /// To a spool, until the count is known.
    Spooled(&'a mut dyn Write, Blocks<io::BufWriter<std::fs::File>>),
    /// Straight to the output, the head with the count told written first.
    Direct {
        blocks: Blocks<&'a mut dyn Write>,
        head_crc: Crc,
        announced: u64,
    },
}

fn head(count: u64) -> [u8; 5] {
    let mut head = [VERSION, 0, 0, 0, 0];
    head[1..].copy_from_slice(&(count as u32).to_be_bytes());
    head
}

impl<'a> Sink<'a> {
    /// A sink writing to `out`. With the frame `count` known, the head is
    /// written first and nothing is spooled; another count at the end is
    /// [`CountChanged`].
    pub fn new(out: &'a mut dyn Write, count: Option<u64>) -> io::Result<Self> {
        let body = match count.filter(|n| *n <= u64::from(u32::MAX)) {
            Some(n) => {
                let head_crc = gzip::start(out, &head(n))?;
                Deflated::Direct {
                    blocks: Blocks::new(out),
                    head_crc,
                    announced: n,
                }
            }
            None => Deflated::Spooled(out, Blocks::new(spool()?)),
        };
        Ok(Sink {
            body: Some(body),
            count: 0,
        })
    }
}

impl FrameSink for Sink<'_> {
    fn push(&mut self, packet: &[u8]) -> io::Result<()> {
        if self.count == u64::from(u32::MAX) {
            return Err(io::Error::other(
                "an LLV recording holds at most 4294967295 frames",
            ));
        }
        self.count += 1;
        let body: &mut dyn Write = match self.body.as_mut().ok_or_else(finished)? {
            Deflated::Spooled(_, blocks) => blocks,
            Deflated::Direct { blocks, .. } => blocks,
        };
        body.write_all(&(packet.len() as u32).to_be_bytes())?;
        body.write_all(packet)
    }

    fn finish(&mut self) -> io::Result<()> {
        match self.body.take().ok_or_else(finished)? {
            Deflated::Spooled(out, blocks) => {
                let (mut spooled, crc) = blocks.finish()?;
                let mut body = unspool(&mut spooled)?;
                gzip::member(out, &head(self.count), &mut body, &crc)?;
                out.flush()
            }
            Deflated::Direct {
                blocks,
                mut head_crc,
                announced,
            } => {
                let (out, crc) = blocks.finish()?;
                if announced != self.count {
                    return Err(CountChanged::error(announced, self.count));
                }
                head_crc.combine(&crc);
                gzip::end(out, &head_crc)?;
                out.flush()
            }
        }
    }

    fn count(&self) -> u64 {
        self.count
    }
}

fn finished() -> io::Error {
    io::Error::other("the LLV file is already complete")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recording::{read_bytes, Format};
    use crate::take::Take;
    use flate2::write::GzEncoder;
    use flate2::Compression;

    fn write(take: &Take, out: &mut dyn Write) -> io::Result<()> {
        Format::Llv.write(take, out, Default::default())
    }
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

    /// The body of `frames` copies of one packet under a header announcing `count`.
    fn repeated(count: u32, frames: usize) -> Vec<u8> {
        let take = sample_take(1);
        let packet = take.packets().next().unwrap();
        let mut raw = vec![VERSION];
        raw.extend_from_slice(&count.to_be_bytes());
        for _ in 0..frames {
            raw.extend_from_slice(&(packet.len() as u32).to_be_bytes());
            raw.extend_from_slice(packet);
        }
        raw
    }

    #[test]
    fn bombs_and_lying_headers_are_refused_early() {
        // Zeros: version 0, seen in the first byte.
        let zeros = gz(&vec![0u8; 8 << 20]);
        let err = read_bytes("zeros.gesichter", &zeros)
            .unwrap_err()
            .to_string();
        assert_eq!(err, "zeros.gesichter: LLV recording version 0, expected 6");
        // A good header, then zeros: frame 0's length.
        let mut raw = vec![VERSION];
        raw.extend_from_slice(&2u32.to_be_bytes());
        raw.resize(8 << 20, 0);
        let err = read_bytes("z.gesichter", &gz(&raw))
            .unwrap_err()
            .to_string();
        assert_eq!(
            err,
            "z.gesichter: frame 0: length at byte 5: 0 bytes, outside 264..=774"
        );
        // Identical valid frames (over 200:1) under a header that may pass:
        // stopped at the ratio limit, long before the end.
        let mut best = GzEncoder::new(Vec::new(), Compression::best());
        best.write_all(&repeated(10_000, 40_000)).unwrap();
        let bomb = best.finish().unwrap();
        assert!(bomb.len() * 100 < 40_000 * 310, "{}", bomb.len());
        let err = read_bytes("bomb.gesichter", &bomb).unwrap_err().to_string();
        assert!(err.starts_with("bomb.gesichter: gzip: "), "{err}");
        assert!(
            err.contains("past the limit of 64 per compressed byte plus 1048576"),
            "{err}"
        );
        // A header claiming 2^32 - 1 frames over three real ones.
        let mut raw = repeated(u32::MAX, 3);
        raw[1..5].copy_from_slice(&u32::MAX.to_be_bytes());
        let err = read_bytes("lie.gesichter", &gz(&raw))
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("lie.gesichter: header says 4294967295 frames, at least 1151051235060 bytes: more than a "),
            "{err}"
        );
    }

    #[test]
    fn generated_takes_compress_well_within_the_limit() {
        // LLV's debug takes compress about 28:1: llv reads its own of 40 000 frames.
        let take = crate::commands::sequence::sequence(&[17], 40_000, -1.0, 1.0).unwrap();
        let mut file = Vec::new();
        write(&take, &mut file).unwrap();
        let ratio = take.packets().map(|p| p.len() + 4).sum::<usize>() / file.len();
        assert!((10..MAX_RATIO / 2).contains(&ratio), "{ratio}");
        assert_eq!(read_bytes("long.gesichter", &file).unwrap().take, take);
    }

    #[test]
    fn garbage_after_gzip_magic_is_an_error_not_a_panic() {
        let err = read_bytes("x", &[0x1f, 0x8b, 1, 2, 3]).unwrap_err();
        assert!(err.to_string().starts_with("x: "), "{err}");
    }
}
