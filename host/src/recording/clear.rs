//! Clear JSON files (FORMATS 3d), LLV-compatible both ways: the writer prints
//! exactly what LLV's `unpack` prints; the reader places blendshapes by name.
//! Both spread the frames over the cores. A file in LLV's exact layout is read
//! by the layout parser of [`super::clear_layout`]; any other, or one with a
//! fault, by serde_json, whose errors name the frame, field and position.
//! The layout reader earns its place: `cargo bench -p llv --bench formats`
//! reads 200 000 frames from memory at 1.5 M frames/s with it and 0.28 M
//! frames/s with serde_json alone (2 busy cores, 2026-12-01).

use std::borrow::Cow;
use std::cell::Cell;
use std::fmt;
use std::io::{self, BufRead, Read, Write};

use anyhow::{bail, Context, Result};
use llv_core::blendshape::{index_of, COUNT, NAMES};
use llv_core::packet::{FaceFrame, Packet, MAX_LEN};
use llv_core::time::{FrameRate, FrameTime};
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;

use memchr::memmem;

use super::clear_layout as layout;
use super::stream::{spool, unspool, CountChanged, Emitter, FrameSink, Input};
use super::NONFINITE_HINT;
use crate::parallel::map_ordered;
use crate::take::Take;

/// One frame object of a clear file (also a line of LLV's legacy format).
/// Unless `ALLOW_NONFINITE`, a number that is not a finite f32 is an error.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClearFrame<'a, const ALLOW_NONFINITE: bool> {
    version: u8,
    #[serde(borrow)]
    device_id: Cow<'a, str>,
    #[serde(borrow)]
    subject_name: Cow<'a, str>,
    frame_time: ClearTime<ALLOW_NONFINITE>,
    blendshape_count: u8,
    blendshapes: Shapes<ALLOW_NONFINITE>,
    #[serde(default, rename = "raw_frame")]
    _raw_frame: Option<IgnoredAny>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ClearTime<const ALLOW_NONFINITE: bool> {
    frame_number: i32,
    sub_frame: SubFrame<ALLOW_NONFINITE>,
    numerator: i32,
    denominator: i32,
}

/// A JSON number as the f32 a packet carries; unless `ALLOW_NONFINITE`, one
/// beyond f32 (such as `1e39`) is an error, at its line and column.
struct Float<const ALLOW_NONFINITE: bool>(f32);

impl<'de, const ALLOW_NONFINITE: bool> Deserialize<'de> for Float<ALLOW_NONFINITE> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let wide = f64::deserialize(d)?;
        let value = wide as f32;
        if !value.is_finite() && !ALLOW_NONFINITE {
            return Err(de::Error::custom(format!(
                "{wide:e} is not a finite f32 ({NONFINITE_HINT})"
            )));
        }
        Ok(Float(value))
    }
}

/// The `sub_frame` field: a [`Float`] whose errors name it.
struct SubFrame<const ALLOW_NONFINITE: bool>(f32);

impl<'de, const ALLOW_NONFINITE: bool> Deserialize<'de> for SubFrame<ALLOW_NONFINITE> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Float::<ALLOW_NONFINITE>::deserialize(d)
            .map(|f| SubFrame(f.0))
            .map_err(|e| de::Error::custom(format!("sub_frame: {e}")))
    }
}

impl<const ALLOW_NONFINITE: bool> ClearFrame<'_, ALLOW_NONFINITE> {
    /// Encodes the frame into `buf`; the error names the field.
    pub fn encode<'b>(&self, buf: &'b mut [u8; MAX_LEN]) -> Result<&'b [u8], String> {
        if usize::from(self.blendshape_count) != COUNT {
            return Err(format!(
                "blendshape_count is {}, expected {COUNT}",
                self.blendshape_count
            ));
        }
        let frame = FaceFrame {
            version: self.version,
            device_id: &self.device_id,
            subject: &self.subject_name,
            time: FrameTime {
                frame_number: self.frame_time.frame_number,
                subframe: self.frame_time.sub_frame.0,
                rate: FrameRate::new(self.frame_time.numerator, self.frame_time.denominator),
            },
            blendshapes: self.blendshapes.0,
        };
        let len = frame.encode(buf).map_err(|e| e.to_string())?;
        Ok(&buf[..len])
    }
}

/// The 61 values, placed by name.
struct Shapes<const ALLOW_NONFINITE: bool>([f32; COUNT]);

impl<'de, const ALLOW_NONFINITE: bool> Deserialize<'de> for Shapes<ALLOW_NONFINITE> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_map(ShapesVisitor::<ALLOW_NONFINITE>)
    }
}

struct ShapesVisitor<const ALLOW_NONFINITE: bool>;

impl<'de, const ALLOW_NONFINITE: bool> Visitor<'de> for ShapesVisitor<ALLOW_NONFINITE> {
    type Value = Shapes<ALLOW_NONFINITE>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object of 61 blendshape values by name")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut values = [0.0f32; COUNT];
        let mut seen = [false; COUNT];
        let mut expected = 0;
        while let Some(index) = map.next_key_seed(ShapeName { expected })? {
            expected = index + 1;
            if seen[index] {
                return Err(de::Error::custom(format!(
                    "blendshape \"{}\" appears twice",
                    NAMES[index]
                )));
            }
            seen[index] = true;
            let value = map
                .next_value::<Float<ALLOW_NONFINITE>>()
                .map_err(|e| de::Error::custom(format!("blendshape \"{}\": {e}", NAMES[index])))?;
            values[index] = value.0;
        }
        match seen.iter().position(|s| !s) {
            Some(missing) => Err(de::Error::custom(format!(
                "missing blendshape \"{}\"",
                NAMES[missing]
            ))),
            None => Ok(Shapes(values)),
        }
    }
}

/// Looks a key up by name, trying first the index that usually comes next (files keep packet order).
struct ShapeName {
    expected: usize,
}

impl<'de> DeserializeSeed<'de> for ShapeName {
    type Value = usize;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<usize, D::Error> {
        d.deserialize_str(self)
    }
}

impl Visitor<'_> for ShapeName {
    type Value = usize;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a blendshape name")
    }

    fn visit_str<E: de::Error>(self, name: &str) -> Result<usize, E> {
        if NAMES.get(self.expected) == Some(&name) {
            return Ok(self.expected);
        }
        index_of(name).ok_or_else(|| E::custom(format!("unknown blendshape name \"{name}\"")))
    }
}

/// What the general reader does with each frame: its index and packet.
type EmitFrame<'t> = &'t mut dyn FnMut(usize, &[u8]) -> Result<(), String>;

/// The top-level object: `count` and `frames`, frames handed on as they parse.
struct FileVisitor<'t, const ALLOW_NONFINITE: bool> {
    emit: EmitFrame<'t>,
    current: &'t Cell<Option<usize>>,
}

impl<'de, const ALLOW_NONFINITE: bool> Visitor<'de> for FileVisitor<'_, ALLOW_NONFINITE> {
    type Value = Option<u64>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object with \"count\" and \"frames\"")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Option<u64>, A::Error> {
        let mut count = None;
        let mut frames = false;
        while let Some(key) = map.next_key::<Cow<'de, str>>()? {
            match key.as_ref() {
                "count" => count = Some(map.next_value::<u64>()?),
                "frames" => {
                    map.next_value_seed(FramesSeed::<ALLOW_NONFINITE> {
                        emit: &mut *self.emit,
                        current: self.current,
                    })?;
                    frames = true;
                }
                other => {
                    return Err(de::Error::custom(format!(
                        "unknown key \"{other}\" (expected \"count\" and \"frames\")"
                    )))
                }
            }
        }
        if !frames {
            return Err(de::Error::missing_field("frames"));
        }
        Ok(count)
    }
}

struct FramesSeed<'t, const ALLOW_NONFINITE: bool> {
    emit: EmitFrame<'t>,
    current: &'t Cell<Option<usize>>,
}

impl<'de, const ALLOW_NONFINITE: bool> DeserializeSeed<'de> for FramesSeed<'_, ALLOW_NONFINITE> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de, const ALLOW_NONFINITE: bool> Visitor<'de> for FramesSeed<'_, ALLOW_NONFINITE> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an array of frames")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let mut buf = [0u8; MAX_LEN];
        for index in 0.. {
            self.current.set(Some(index));
            match seq.next_element::<ClearFrame<'de, ALLOW_NONFINITE>>()? {
                Some(frame) => {
                    let packet = frame.encode(&mut buf).map_err(de::Error::custom)?;
                    (self.emit)(index, packet).map_err(de::Error::custom)?;
                }
                None => break,
            }
        }
        self.current.set(None);
        Ok(())
    }
}

/// Frames a worker prints at a time.
const WRITE_CHUNK: usize = 128;
/// Bytes of frames a worker reads at a time.
const READ_PIECE: usize = 1 << 20;
/// Bytes of text the layout reader holds at a time (pieces for every worker).
const READ_BATCH: usize = 8 * READ_PIECE;

/// Reads a clear file frame by frame; errors name the frame index, the field
/// and the JSON position. A number that is not a finite f32 is one, unless
/// `allow_nonfinite`. A file in LLV's exact layout is read in batches of
/// pieces spread over the cores; at the first difference the source is read
/// again from its start by serde_json, which hands on the frames the layout
/// reader has not yet given.
pub fn read(
    name: &str,
    input: &mut Input,
    allow_nonfinite: bool,
    emit: &mut Emitter,
    warnings: &mut Vec<String>,
) -> Result<()> {
    // The layout reader takes finite values only; the general one says where the others are.
    let (count, frames) = match read_layout(&mut input.reader, emit)? {
        Layout::Read { count, frames } => (Some(count), frames),
        Layout::Differs { given } => {
            let mut again = input
                .reopen()
                .with_context(|| format!("{name}: cannot read again"))?;
            if allow_nonfinite {
                read_any_layout::<true>(name, &mut again, given, emit)?
            } else {
                read_any_layout::<false>(name, &mut again, given, emit)?
            }
        }
    };
    if let Some(count) = count.filter(|c| *c != frames as u64) {
        warnings.push(format!(
            "{name}: \"count\" says {count} frames, file holds {frames}"
        ));
    }
    Ok(())
}

/// How far the layout reader got.
enum Layout {
    /// The whole file, in LLV's layout.
    Read { count: u64, frames: usize },
    /// The file differs from the layout after `given` frames were handed on.
    Differs { given: usize },
}

/// Reads a file in LLV's exact layout in batches, each batch's pieces spread over the cores.
fn read_layout(input: &mut dyn BufRead, emit: &mut Emitter) -> Result<Layout> {
    let mut text = Vec::with_capacity(READ_BATCH + READ_PIECE);
    let mut given = 0;
    let differs = |given| Ok(Layout::Differs { given });
    // The start: `{"count": N, "frames": [` after any blanks.
    input.take(256).read_to_end(&mut text)?;
    let blanks = text.iter().take_while(|b| is_space(b)).count();
    let Some((count, start)) = layout::parse_file_start(&text[blanks..]) else {
        return differs(0);
    };
    text.drain(..blanks + start);
    loop {
        let want = READ_BATCH.saturating_sub(text.len()) as u64;
        let got = input.take(want).read_to_end(&mut text)?;
        let end = got == 0 || text.len() < READ_BATCH;
        let frames: &[u8] = if end {
            let trimmed = trim_whitespace(&text);
            match trimmed.strip_suffix(layout::FILE_END) {
                Some(frames) => frames,
                None => return differs(given),
            }
        } else {
            // Up to the last whole frame; the rest waits for the next batch.
            match memmem::rfind(&text, layout::FRAME_BOUNDARY) {
                Some(at) => &text[..at + 1],
                None => return differs(given),
            }
        };
        let taken = frames.len();
        let pieces = split_frames(frames, READ_PIECE);
        let parse = |piece: usize| layout::parse_frames(pieces[piece]);
        let mut failed = false;
        map_ordered(pieces.len(), parse, |piece| match piece {
            Some(take) => {
                given += take.len();
                emit.take(take).map_err(|e| anyhow::anyhow!(e))
            }
            None => {
                failed = true;
                Err(anyhow::anyhow!("differs"))
            }
        })
        .or_else(|e| if failed { Ok(()) } else { Err(e) })?;
        if failed {
            return differs(given);
        }
        if end {
            return Ok(Layout::Read {
                count,
                frames: given,
            });
        }
        text.drain(..taken + layout::FRAME_SEPARATOR.len());
    }
}

fn is_space(b: &u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

/// `text` without JSON whitespace around it.
fn trim_whitespace(text: &[u8]) -> &[u8] {
    let start = text.iter().position(|b| !is_space(b)).unwrap_or(text.len());
    let end = text
        .iter()
        .rposition(|b| !is_space(b))
        .map_or(start, |at| at + 1);
    &text[start..end]
}

/// Cuts `frames` into pieces of about `size` bytes between two frames, dropping
/// the separators; a cut in the wrong place only makes a piece fail to parse.
fn split_frames(frames: &[u8], size: usize) -> Vec<&[u8]> {
    let mut pieces = Vec::with_capacity(frames.len() / size + 1);
    let mut rest = frames;
    while rest.len() > size {
        let Some(at) = memmem::find(&rest[size..], layout::FRAME_BOUNDARY) else {
            break;
        };
        let cut = size + at + 1;
        pieces.push(&rest[..cut]);
        rest = &rest[cut + layout::FRAME_SEPARATOR.len()..];
    }
    pieces.push(rest);
    pieces
}

/// Reads a clear file of any JSON layout with serde_json, frame by frame,
/// handing on the frames from index `skip`; returns the count and the frames read.
fn read_any_layout<const ALLOW_NONFINITE: bool>(
    name: &str,
    input: &mut dyn BufRead,
    skip: usize,
    emit: &mut Emitter,
) -> Result<(Option<u64>, usize)> {
    let current = Cell::new(None);
    let mut frames = 0;
    let mut hand_on = |index: usize, packet: &[u8]| {
        frames = index + 1;
        if index >= skip {
            emit.frame_unchecked(packet)
        } else {
            Ok(())
        }
    };
    let mut de = serde_json::Deserializer::from_reader(input);
    let result = de
        .deserialize_map(FileVisitor::<ALLOW_NONFINITE> {
            emit: &mut hand_on,
            current: &current,
        })
        .and_then(|count| de.end().map(|()| count));
    match (result, current.get()) {
        (Ok(count), _) => Ok((count, frames)),
        (Err(e), Some(index)) => bail!("{name}: frame {index}: {e}"),
        (Err(e), None) => bail!("{name}: {e}"),
    }
}

/// Writes clear JSON as LLV's `unpack` does, chunks of frames printed in
/// parallel; the frames go to a temporary file until their count, which the
/// file starts with, is known.
pub struct Sink<'a> {
    out: &'a mut dyn Write,
    /// The body until the count is known; `None` when the count was known
    /// first and the header is written (the body goes straight to `out`).
    body: Option<io::BufWriter<std::fs::File>>,
    announced: Option<u64>,
    pending: Take,
    count: u64,
    retain_raw: bool,
}

fn file_start(count: u64) -> Vec<u8> {
    let mut start = layout::FILE_START.to_vec();
    layout::push_int(&mut start, count);
    start.extend_from_slice(layout::FRAMES_START);
    start
}

impl<'a> Sink<'a> {
    /// A sink writing to `out`; `retain_raw` adds each raw packet. With the
    /// frame `count` known, the header is written first and nothing is
    /// spooled; another count at the end is [`CountChanged`].
    pub fn new(out: &'a mut dyn Write, retain_raw: bool, count: Option<u64>) -> io::Result<Self> {
        let body = match count {
            Some(n) => {
                out.write_all(&file_start(n))?;
                None
            }
            None => Some(spool()?),
        };
        Ok(Sink {
            out,
            body,
            announced: count,
            pending: Take::default(),
            count: 0,
            retain_raw,
        })
    }

    fn print_pending(&mut self) -> io::Result<()> {
        let packets: Vec<&[u8]> = self.pending.packets().collect();
        let chunks: Vec<&[&[u8]]> = packets.chunks(WRITE_CHUNK).collect();
        let first = self.count == self.pending.len() as u64;
        let retain = self.retain_raw;
        let print = |chunk: usize| print_frames(chunks[chunk], first && chunk == 0, retain);
        let body: &mut dyn Write = match &mut self.body {
            Some(spool) => spool,
            None => &mut *self.out,
        };
        map_ordered(chunks.len(), print, |text| body.write_all(&text))?;
        self.pending = Take::default();
        Ok(())
    }
}

impl FrameSink for Sink<'_> {
    fn push(&mut self, packet: &[u8]) -> io::Result<()> {
        self.pending
            .push(packet)
            .map_err(|e| io::Error::other(format!("frame {}: {e}", self.count)))?;
        self.count += 1;
        if self.pending.len() >= WRITE_CHUNK * 32 {
            self.print_pending()?;
        }
        Ok(())
    }

    fn finish(&mut self) -> io::Result<()> {
        self.print_pending()?;
        match (&mut self.body, self.announced) {
            (Some(spool), _) => {
                self.out.write_all(&file_start(self.count))?;
                io::copy(&mut unspool(spool)?, self.out)?;
            }
            (None, Some(announced)) if announced != self.count => {
                return Err(CountChanged::error(announced, self.count));
            }
            (None, _) => {}
        }
        self.out.write_all(layout::FILE_END)?;
        self.out.flush()
    }

    fn count(&self) -> u64 {
        self.count
    }
}

/// Prints `packets` (all valid face packets), each after a separator but the file's first.
fn print_frames(packets: &[&[u8]], first: bool, retain_raw: bool) -> Vec<u8> {
    let mut text = Vec::with_capacity(packets.len() * 2400);
    let frames = packets.iter().filter_map(|p| Packet::new_checked(p).ok());
    for (index, packet) in frames.enumerate() {
        if index > 0 || !first {
            text.extend_from_slice(layout::FRAME_SEPARATOR);
        }
        layout::push_frame(&mut text, &packet, retain_raw);
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recording::stream::emit_to_take;
    use crate::recording::{read_bytes, Format};
    use crate::take::tests_support::sample_take;

    fn clear(take: &Take, retain: bool) -> String {
        let mut out = Vec::new();
        let options = crate::recording::WriteOptions {
            retain_raw: retain,
            ..Default::default()
        };
        Format::Json.write(take, &mut out, options).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn round_trips_with_and_without_raw_frames() {
        let take = sample_take(5);
        for retain in [false, true] {
            let text = clear(&take, retain);
            let loaded = read_bytes("t.klare-gesichter", text.as_bytes()).unwrap();
            assert_eq!(loaded.format, Format::Json);
            assert_eq!(loaded.take, take);
            assert!(loaded.warnings.is_empty());
            let bom = [b"\xEF\xBB\xBF".as_slice(), text.as_bytes()].concat();
            assert_eq!(read_bytes("bom.json", &bom).unwrap().take, take);
        }
    }

    #[test]
    fn blendshapes_are_placed_by_name() {
        let take = sample_take(1);
        let text = clear(&take, false);
        let swapped = text
            .replacen("\"JawLeft\"", "\"TMP\"", 1)
            .replacen("\"JawRight\"", "\"JawLeft\"", 1)
            .replacen("\"TMP\"", "\"JawRight\"", 1);
        let loaded = read_bytes("t", swapped.as_bytes()).unwrap();
        let frame = loaded.take.frames().next().unwrap();
        let original = take.frames().next().unwrap();
        assert_eq!(frame.blendshape(15), original.blendshape(16));
        assert_eq!(frame.blendshape(16), original.blendshape(15));
    }

    #[test]
    fn missing_and_unknown_names_are_named_with_their_frame() {
        let text = clear(&sample_take(3), false);
        let at = text.rfind("\"JawOpen\"").unwrap();
        let unknown = format!("{}\"JawOpn\"{}", &text[..at], &text[at + 9..]);
        let err = read_bytes("t.json", unknown.as_bytes()).unwrap_err();
        let err = err.to_string();
        assert!(
            err.starts_with("t.json: frame 2: unknown blendshape name \"JawOpn\" at line 1"),
            "{err}"
        );
        let start = text.find("\"MouthClose\"").unwrap();
        let end = start + text[start..].find(", ").unwrap() + 2;
        let dropped = format!("{}{}", &text[..start], &text[end..]);
        let err = read_bytes("t.json", dropped.as_bytes()).unwrap_err();
        let err = err.to_string();
        assert!(
            err.starts_with("t.json: frame 0: missing blendshape \"MouthClose\""),
            "{err}"
        );
    }

    #[test]
    fn bad_fields_are_named() {
        let text = clear(&sample_take(2), false);
        let count = text.replacen("\"blendshape_count\":61", "\"blendshape_count\":60", 2);
        let err = read_bytes("t", count.as_bytes()).unwrap_err().to_string();
        assert!(
            err.starts_with("t: frame 0: blendshape_count is 60, expected 61"),
            "{err}"
        );
        let version = text.replacen(",{\"version\":6", ",{\"version\":7", 1);
        let err = read_bytes("t", version.as_bytes()).unwrap_err().to_string();
        assert!(
            err.starts_with("t: frame 1: version at byte 0: version 7, expected 6"),
            "{err}"
        );
        let string = text.replacen("\"MouthClose\": ", "\"MouthClose\": \"x\", \"Tmp\": ", 1);
        let err = read_bytes("t", string.as_bytes()).unwrap_err().to_string();
        assert!(
            err.starts_with("t: frame 0: blendshape \"MouthClose\": invalid type: string \"x\""),
            "{err}"
        );
        let field = text.replacen("\"sub_frame\"", "\"subframe\"", 1);
        let err = read_bytes("t", field.as_bytes()).unwrap_err().to_string();
        assert!(
            err.starts_with("t: frame 0: unknown field `subframe`"),
            "{err}"
        );
        let cut = &text[..text.len() - 40];
        let err = read_bytes("t", cut.as_bytes()).unwrap_err().to_string();
        assert!(err.starts_with("t: frame 1: EOF while parsing"), "{err}");
    }

    /// The layout reader's take, checked against the general reader's.
    fn fast(text: &str) -> Option<Take> {
        let (layout, take) = emit_to_take(|e| read_layout(&mut text.as_bytes(), e)).unwrap();
        let Layout::Read { count, frames } = layout else {
            return None;
        };
        assert_eq!(frames, take.len());
        let ((general_count, general_frames), general) =
            emit_to_take(|e| read_any_layout::<false>("t", &mut text.as_bytes(), 0, e)).unwrap();
        assert_eq!(
            (Some(count), &take, general_frames),
            (general_count, &general, general.len()),
            "{text}"
        );
        Some(take)
    }

    #[test]
    fn printed_files_take_the_layout_reader_in_pieces() {
        // Over READ_PIECE bytes, so the frames are split between workers.
        let take = sample_take(1500);
        for retain in [false, true] {
            let text = clear(&take, retain);
            assert!(text.len() > 3 * READ_PIECE);
            assert_eq!(fast(&text).as_ref(), Some(&take));
        }
        let fixture = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../tests/fixtures/dao.klare-gesichter"
        );
        let text = std::fs::read_to_string(fixture).unwrap();
        assert_eq!(fast(&text).map(|t| t.len()), Some(180));
        assert_eq!(
            fast("{\"count\": 0, \"frames\": []}\n").map(|t| t.len()),
            Some(0)
        );
    }

    #[test]
    fn a_difference_after_the_first_batch_reads_on_without_doubling_frames() {
        // Over READ_BATCH bytes: the layout reader hands on a batch before it meets the
        // difference in the last frame; the general reader then gives only the rest.
        let take = sample_take(4500);
        let text = clear(&take, false);
        assert!(text.len() > READ_BATCH + READ_PIECE, "{}", text.len());
        let at = text.rfind("{\"version\":6").unwrap();
        let changed = format!("{}{{\"version\": 6{}", &text[..at], &text[at + 12..]);
        let (layout, given) = emit_to_take(|e| read_layout(&mut changed.as_bytes(), e)).unwrap();
        assert!(
            matches!(layout, Layout::Differs { given } if given >= 3000),
            "{}",
            given.len()
        );
        let loaded = read_bytes("t.json", changed.as_bytes()).unwrap();
        assert_eq!(loaded.take, take);
        assert!(loaded.warnings.is_empty(), "{:?}", loaded.warnings);
        // Printed by llv, the whole file takes the layout reader, batch after batch.
        assert_eq!(fast(&text).as_ref(), Some(&take));
    }

    /// `text` with the first value of blendshape `name` spelled `value`.
    fn with_value(text: &str, name: &str, value: &str) -> String {
        let key = format!("\"{name}\": ");
        let start = text.find(&key).unwrap() + key.len();
        let end = start + text[start..].find(',').unwrap();
        format!("{}{value}{}", &text[..start], &text[end..])
    }

    #[test]
    fn layout_reader_gives_up_on_any_difference() {
        let text = clear(&sample_take(2), false);
        let same = [
            text.replacen("\"Test\"", "\"T\\u00e9st\"", 1),
            text.replacen("\"sub_frame\": 0.0", "\"sub_frame\": -0.0", 1),
            text.replacen("\"sub_frame\": 0.0", "\"sub_frame\": 0", 1),
            with_value(&text, "JawOpen", "1E-5"),
            with_value(&text, "JawOpen", "-12.5e+2"),
        ];
        for variant in &same {
            assert!(fast(variant).is_some(), "{variant}");
        }
        let differ = [
            text.replacen("\"numerator\": 60", "\"numerator\": -0", 1),
            with_value(&text, "JawOpen", "01"),
            with_value(&text, "JawOpen", "NaN"),
            with_value(&text, "JawOpen", "1e999"),
            with_value(&text, "JawOpen", "1."),
            with_value(&text, "JawOpen", "+1"),
            with_value(&text, "JawOpen", ".5"),
            with_value(&text, "JawOpen", "1.e5"),
            with_value(&text, "JawOpen", "-inf"),
            with_value(&text, "JawOpen", "1e"),
            with_value(&text, "JawOpen", "-"),
            text.replacen(", \"JawOpen\"", ",\"JawOpen\"", 1),
            text.replacen("\"Test\"", "\"Te\tst\"", 1),
            text.replacen("\"blendshape_count\":61", "\"blendshape_count\":60", 1),
            text.replacen("},{", "}, {", 1),
        ];
        for variant in &differ {
            assert!(fast(variant).is_none(), "{variant}");
        }
    }

    #[test]
    fn values_beyond_f32_are_refused_where_they_stand_unless_allowed() {
        let text = clear(&sample_take(2), false);
        for (variant, at) in [
            (
                with_value(&text, "JawOpen", "1e39"),
                "blendshape \"JawOpen\": 1e39 is not a finite f32",
            ),
            (
                text.replacen("\"sub_frame\": 0.0", "\"sub_frame\": -1e300", 1),
                "sub_frame: -1e300 is not a finite f32",
            ),
        ] {
            let err = read_bytes("t.json", variant.as_bytes())
                .unwrap_err()
                .to_string();
            assert!(err.starts_with("t.json: frame 0: "), "{err}");
            assert!(err.contains(at), "{err}");
            assert!(
                err.contains("(--allow-nonfinite keeps it) at line 1 column "),
                "{err}"
            );
            let options = crate::recording::ReadOptions {
                allow_nonfinite: true,
                ..Default::default()
            };
            let take =
                crate::recording::Frames::from_bytes("t.json", variant.into_bytes(), &options)
                    .unwrap()
                    .collect_take()
                    .unwrap();
            assert_eq!(take.len(), 2);
        }
    }

    #[test]
    fn count_mismatch_is_a_warning() {
        let text = clear(&sample_take(2), false).replacen("\"count\": 2", "\"count\": 3", 1);
        let loaded = read_bytes("t", text.as_bytes()).unwrap();
        assert_eq!(loaded.take.len(), 2);
        assert_eq!(
            loaded.warnings,
            ["t: \"count\" says 3 frames, file holds 2"]
        );
    }
}
