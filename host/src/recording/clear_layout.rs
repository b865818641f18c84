//! The exact byte layout of a clear JSON file as LLV's `unpack` prints it, in
//! one place for both directions: [`push_frame`] prints a frame in it, and
//! [`parse_frames`] reads frames that follow it to the byte. The parser gives
//! up (`None`) at the first difference; the caller then reads the file with
//! the general JSON reader, which accepts any layout and names the fault.

use std::borrow::Cow;
use std::sync::LazyLock;

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use llv_core::blendshape::{COUNT, NAMES};
use llv_core::packet::{FaceFrame, Packet, MAX_LEN};
use llv_core::time::{FrameRate, FrameTime};

use super::pyrepr::{push_float, push_string};
use crate::take::Take;

/// Printed before the frame count.
pub const FILE_START: &[u8] = b"{\"count\": ";
/// Printed between the frame count and the first frame.
pub const FRAMES_START: &[u8] = b", \"frames\": [";
/// Printed after the last frame.
pub const FILE_END: &[u8] = b"]}";
/// Printed between two frames.
pub const FRAME_SEPARATOR: &[u8] = b",";

const VERSION: &[u8] = b"{\"version\":";
const DEVICE_ID: &[u8] = b", \"device_id\":";
const SUBJECT: &[u8] = b", \"subject_name\":";
const FRAME_NUMBER: &[u8] = b", \"frame_time\":{\"frame_number\": ";
const SUB_FRAME: &[u8] = b", \"sub_frame\": ";
const NUMERATOR: &[u8] = b", \"numerator\": ";
const DENOMINATOR: &[u8] = b", \"denominator\": ";
const BLENDSHAPES: &[u8] = b"}, \"blendshape_count\":61, \"blendshapes\": {";
const BLENDSHAPES_END: &[u8] = b"}";
const RAW_SIZE: &[u8] = b", \"raw_frame\": { \"size\": ";
const RAW_DATA: &[u8] = b", \"data\": \"";
const RAW_END: &[u8] = b"\" }";
const FRAME_END: &[u8] = b"}";

/// Where one frame ends and the next starts: a place to split a file's frames.
pub const FRAME_BOUNDARY: &[u8] = b"},{\"version\":";

/// `"Name": ` for each blendshape, after `, ` from the second on.
static KEYS: LazyLock<[String; COUNT]> = LazyLock::new(|| {
    std::array::from_fn(|i| {
        let separator = if i == 0 { "" } else { ", " };
        format!("{separator}\"{}\": ", NAMES[i])
    })
});

/// Appends one frame object; `retain_raw` adds the raw packet as `"raw_frame"`.
pub fn push_frame(buf: &mut Vec<u8>, packet: &Packet<'_>, retain_raw: bool) {
    let header = packet.header();
    let time = header.time;
    buf.extend_from_slice(VERSION);
    push_int(buf, header.version);
    buf.extend_from_slice(DEVICE_ID);
    push_string(buf, header.device_id);
    buf.extend_from_slice(SUBJECT);
    push_string(buf, header.subject);
    buf.extend_from_slice(FRAME_NUMBER);
    push_int(buf, time.frame_number);
    buf.extend_from_slice(SUB_FRAME);
    push_float(buf, f64::from(time.subframe));
    buf.extend_from_slice(NUMERATOR);
    push_int(buf, time.rate.numerator);
    buf.extend_from_slice(DENOMINATOR);
    push_int(buf, time.rate.denominator);
    buf.extend_from_slice(BLENDSHAPES);
    for (key, value) in KEYS.iter().zip(packet.blendshapes()) {
        buf.extend_from_slice(key.as_bytes());
        push_float(buf, f64::from(value));
    }
    buf.extend_from_slice(BLENDSHAPES_END);
    if retain_raw {
        let raw = packet.as_bytes();
        buf.extend_from_slice(RAW_SIZE);
        push_int(buf, raw.len());
        buf.extend_from_slice(RAW_DATA);
        buf.extend_from_slice(STANDARD.encode(raw).as_bytes());
        buf.extend_from_slice(RAW_END);
    }
    buf.extend_from_slice(FRAME_END);
}

/// Appends an integer in decimal.
pub fn push_int(buf: &mut Vec<u8>, value: impl itoa::Integer) {
    buf.extend_from_slice(itoa::Buffer::new().format(value).as_bytes());
}

/// Reads `text`, frames joined by [`FRAME_SEPARATOR`], into a take; `None` at
/// any difference from the layout or any frame that does not encode.
pub fn parse_frames(text: &[u8]) -> Option<Take> {
    let mut take = Take::with_capacity(text.len() / 2300);
    let mut cursor = Cursor { text, at: 0 };
    let mut packet = [0u8; MAX_LEN];
    while cursor.at < text.len() {
        if cursor.at > 0 {
            cursor.literal(FRAME_SEPARATOR)?;
        }
        let len = cursor.frame(&mut packet)?;
        take.push(&packet[..len]).ok()?;
    }
    Some(take)
}

/// Reads the count between [`FILE_START`] and [`FRAMES_START`]; returns it and
/// the offset of the first frame.
pub fn parse_file_start(text: &[u8]) -> Option<(u64, usize)> {
    let mut cursor = Cursor { text, at: 0 };
    cursor.literal(FILE_START)?;
    let count = cursor.int()?;
    cursor.literal(FRAMES_START)?;
    Some((count, cursor.at))
}

/// A read position in text that should follow the layout.
struct Cursor<'a> {
    text: &'a [u8],
    at: usize,
}

impl<'a> Cursor<'a> {
    fn rest(&self) -> &'a [u8] {
        &self.text[self.at..]
    }

    /// One frame object, fields in the printed order, encoded into `packet`; returns its length.
    fn frame(&mut self, packet: &mut [u8; MAX_LEN]) -> Option<usize> {
        self.literal(VERSION)?;
        let version = self.int()?;
        self.literal(DEVICE_ID)?;
        let device_id = self.string()?;
        self.literal(SUBJECT)?;
        let subject = self.string()?;
        self.literal(FRAME_NUMBER)?;
        let frame_number = self.int()?;
        self.literal(SUB_FRAME)?;
        let subframe = self.float()?;
        self.literal(NUMERATOR)?;
        let numerator = self.int()?;
        self.literal(DENOMINATOR)?;
        let denominator = self.int()?;
        self.literal(BLENDSHAPES)?;
        let mut blendshapes = [0.0f32; COUNT];
        for (key, value) in KEYS.iter().zip(&mut blendshapes) {
            self.literal(key.as_bytes())?;
            *value = self.float()?;
        }
        self.literal(BLENDSHAPES_END)?;
        if self.literal(RAW_SIZE).is_some() {
            self.int::<u32>()?;
            self.literal(RAW_DATA)?;
            self.base64();
            self.literal(RAW_END)?;
        }
        self.literal(FRAME_END)?;
        let frame = FaceFrame {
            version,
            device_id: &device_id,
            subject: &subject,
            time: FrameTime {
                frame_number,
                subframe,
                rate: FrameRate::new(numerator, denominator),
            },
            blendshapes,
        };
        frame.encode(packet).ok()
    }

    fn literal(&mut self, expected: &[u8]) -> Option<()> {
        self.rest()
            .starts_with(expected)
            .then(|| self.at += expected.len())
    }

    /// An integer in JSON's grammar that fits `T` (not `-0`, which JSON readers take as a float).
    fn int<T: TryFrom<i64>>(&mut self) -> Option<T> {
        let text = self.rest();
        let negative = text.first() == Some(&b'-');
        let unsigned = &text[usize::from(negative)..];
        let len = digits(unsigned);
        let digits = &unsigned[..len];
        if len == 0 || len > 18 || (len > 1 && digits[0] == b'0') || (negative && digits == b"0") {
            return None;
        }
        let value = digits
            .iter()
            .fold(0i64, |value, digit| value * 10 + i64::from(digit - b'0'));
        self.at += usize::from(negative) + len;
        T::try_from(if negative { -value } else { value }).ok()
    }

    /// A number in JSON's grammar, rounded to f64 and then to f32 as the
    /// general reader does; `None` unless that f32 is finite.
    fn float(&mut self) -> Option<f32> {
        let text = self.rest();
        let (value, len): (f64, usize) = fast_float2::parse_partial(text).ok()?;
        let value = value as f32;
        if !is_json_number(&text[..len]) || !value.is_finite() {
            return None;
        }
        self.at += len;
        Some(value)
    }

    /// A JSON string: borrowed when it holds no escape, else decoded by serde_json.
    fn string(&mut self) -> Option<Cow<'a, str>> {
        let text = self.rest();
        let body = text.strip_prefix(b"\"")?;
        let end = memchr::memchr2(b'"', b'\\', body)?;
        if body[end] == b'"' && body[..end].iter().all(|b| *b >= 0x20) {
            self.at += end + 2;
            return std::str::from_utf8(&body[..end]).ok().map(Cow::Borrowed);
        }
        let mut stream = serde_json::Deserializer::from_slice(text).into_iter::<String>();
        let value = stream.next()?.ok()?;
        self.at += stream.byte_offset();
        Some(Cow::Owned(value))
    }

    /// Skips the base64 text of a raw frame (not decoded: readers ignore it).
    fn base64(&mut self) {
        self.at += self
            .rest()
            .iter()
            .take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'='))
            .count();
    }
}

/// Whether a number fast-float2 read is one in JSON's grammar,
/// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`: fast-float2 also
/// reads `+1`, `.5`, `1.`, `1.e5`, `01`, `inf` and `nan` (an `e` without digits it leaves unread).
fn is_json_number(token: &[u8]) -> bool {
    let unsigned = token.strip_prefix(b"-").unwrap_or(token);
    let int = digits(unsigned);
    let fraction_ok =
        unsigned.get(int) != Some(&b'.') || unsigned.get(int + 1).is_some_and(u8::is_ascii_digit);
    int > 0 && (int == 1 || unsigned[0] != b'0') && fraction_ok
}

/// How many ASCII digits `text` starts with.
fn digits(text: &[u8]) -> usize {
    text.iter()
        .position(|b| !b.is_ascii_digit())
        .unwrap_or(text.len())
}
