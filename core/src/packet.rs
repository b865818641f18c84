//! The Live Link Face ARKit packet (version 6), after smoltcp's `wire` style:
//! [`Packet`] is a checked zero-copy view over a datagram, [`FaceFrame`] the
//! parsed representation that encodes back to the identical bytes, and
//! [`classify`] gives every datagram exactly one [`Datagram`] kind.
//!
//! Wire layout (big-endian): version u8, device id (i32 length + UTF-8),
//! subject (i32 length + UTF-8), frame number i32, subframe f32, rate
//! numerator i32, rate denominator i32, blendshape count u8 (61), 61 x f32.

use core::fmt;

use crate::blendshape::COUNT;
use crate::time::{FrameRate, FrameTime};

/// The only packet version current apps and engines speak.
pub const VERSION: u8 = 6;
/// Smallest face packet the project accepts, in bytes.
pub const MIN_LEN: usize = 264;
/// Largest face packet the project accepts, in bytes: the size of every packet buffer.
pub const MAX_LEN: usize = 774;
/// Bytes of a face packet that are not strings: version, two lengths, frame time, count, values.
pub const FIXED_LEN: usize = 1 + 4 + 4 + FRAME_TIME_LEN + 1 + COUNT * 4;
/// The longest device id plus subject that still fits in [`MAX_LEN`].
pub const MAX_STRINGS_LEN: usize = MAX_LEN - FIXED_LEN;
const FRAME_TIME_LEN: usize = 16;

/// The part of a packet a decode error points at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Field {
    /// The datagram as a whole (its size).
    Size,
    /// The version byte.
    Version,
    /// The device id's length prefix.
    DeviceIdLength,
    /// The device id's bytes.
    DeviceId,
    /// The subject name's length prefix.
    SubjectLength,
    /// The subject name's bytes.
    Subject,
    /// The frame time (frame number, subframe, rate).
    FrameTime,
    /// The blendshape count byte.
    BlendshapeCount,
    /// The blendshape values.
    Blendshapes,
    /// Bytes after the last blendshape.
    Trailing,
}

impl Field {
    fn name(self) -> &'static str {
        match self {
            Field::Size => "size",
            Field::Version => "version",
            Field::DeviceIdLength => "device id length",
            Field::DeviceId => "device id",
            Field::SubjectLength => "subject name length",
            Field::Subject => "subject name",
            Field::FrameTime => "frame time",
            Field::BlendshapeCount => "blendshape count",
            Field::Blendshapes => "blendshapes",
            Field::Trailing => "trailing bytes",
        }
    }
}

/// What is wrong with the field, with the offending value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum ErrorKind {
    /// The datagram is this many bytes, outside `264..=774`.
    SizeOutOfBounds(usize),
    /// The version byte is not 6.
    WrongVersion(u8),
    /// A string length prefix is negative.
    NegativeLength(i32),
    /// A string length prefix is longer than any packet can hold.
    OverlongLength(i32),
    /// A string is not UTF-8; the offending byte.
    InvalidUtf8(u8),
    /// The blendshape count is not 61.
    WrongCount(u8),
    /// The datagram ends inside the field; its length.
    Truncated(usize),
    /// This many bytes follow the last blendshape.
    TrailingBytes(usize),
}

/// A datagram that is not a valid packet: the field, its byte offset and what is wrong.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct DecodeError {
    /// The field at fault.
    pub field: Field,
    /// Byte offset of the fault inside the datagram.
    pub offset: usize,
    /// What is wrong, with the offending value.
    pub kind: ErrorKind,
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at byte {}: ", self.field.name(), self.offset)?;
        match self.kind {
            ErrorKind::SizeOutOfBounds(n) => {
                write!(f, "packet is {n} bytes, outside {MIN_LEN}..={MAX_LEN}")
            }
            ErrorKind::WrongVersion(v) => write!(f, "version {v}, expected {VERSION}"),
            ErrorKind::NegativeLength(n) => write!(f, "negative length {n}"),
            ErrorKind::OverlongLength(n) => {
                write!(f, "length {n} exceeds {MAX_STRINGS_LEN}")
            }
            ErrorKind::InvalidUtf8(b) => write!(f, "invalid UTF-8 byte 0x{b:02x}"),
            ErrorKind::WrongCount(n) => write!(f, "count {n}, expected {COUNT}"),
            ErrorKind::Truncated(n) => write!(f, "datagram ends early ({n} bytes)"),
            ErrorKind::TrailingBytes(n) => write!(f, "{n} unexpected bytes"),
        }
    }
}

/// Why a frame could not be encoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum EncodeError {
    /// The strings make the packet this many bytes, past [`MAX_LEN`].
    TooLong(usize),
    /// The output buffer holds fewer bytes than the packet needs (this many).
    BufferTooSmall(usize),
}

impl fmt::Display for EncodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EncodeError::TooLong(n) => write!(
                f,
                "device id and subject make a {n}-byte packet, over {MAX_LEN}"
            ),
            EncodeError::BufferTooSmall(n) => write!(f, "output buffer needs {n} bytes"),
        }
    }
}

/// The header every Live Link Face packet starts with (all a no-face packet holds).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Header<'a> {
    /// Packet version (always [`VERSION`] once decoded).
    pub version: u8,
    /// The phone's device id.
    pub device_id: &'a str,
    /// The Live Link subject name.
    pub subject: &'a str,
    /// When the frame was captured.
    pub time: FrameTime,
}

impl<'a> Header<'a> {
    /// Bytes this header takes on the wire.
    pub fn wire_len(&self) -> usize {
        1 + 4 + self.device_id.len() + 4 + self.subject.len() + FRAME_TIME_LEN
    }

    /// Writes the header alone (a no-face packet) into `out`; returns its length.
    pub fn encode(&self, out: &mut [u8]) -> Result<usize, EncodeError> {
        let len = self.wire_len();
        let out = out.get_mut(..len).ok_or(EncodeError::BufferTooSmall(len))?;
        let mut w = Writer { out, at: 0 };
        w.put(&[self.version]);
        w.put_str(self.device_id);
        w.put_str(self.subject);
        w.put(&self.time.frame_number.to_be_bytes());
        w.put(&self.time.subframe.to_bits().to_be_bytes());
        w.put(&self.time.rate.numerator.to_be_bytes());
        w.put(&self.time.rate.denominator.to_be_bytes());
        Ok(w.at)
    }

    /// Parses a header from the start of `bytes`; returns it and the offset after it.
    fn parse(bytes: &'a [u8]) -> Result<(Header<'a>, usize), DecodeError> {
        let mut r = Reader { bytes, at: 0 };
        let version = r.u8(Field::Version)?;
        if version != VERSION {
            return Err(r.error_at(0, Field::Version, ErrorKind::WrongVersion(version)));
        }
        let (device_id, subject) = match r.clone().both_strings() {
            Some((device_id, subject, after)) => {
                r = after;
                (device_id, subject)
            }
            None => (
                r.string(Field::DeviceIdLength, Field::DeviceId)?,
                r.string(Field::SubjectLength, Field::Subject)?,
            ),
        };
        let time_at = r.at;
        let frame_number = r.u32(Field::FrameTime)? as i32;
        let subframe = f32::from_bits(r.u32(Field::FrameTime)?);
        let numerator = r.u32(Field::FrameTime)? as i32;
        let denominator = r.u32(Field::FrameTime)? as i32;
        debug_assert_eq!(r.at, time_at + FRAME_TIME_LEN);
        let time = FrameTime {
            frame_number,
            subframe,
            rate: FrameRate::new(numerator, denominator),
        };
        let header = Header {
            version,
            device_id,
            subject,
            time,
        };
        Ok((header, r.at))
    }
}

/// A checked zero-copy view of a face packet: accessors read the datagram's bytes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Packet<'a> {
    bytes: &'a [u8],
    header: Header<'a>,
    values: &'a [u8],
}

impl<'a> Packet<'a> {
    /// Checks `bytes` as a complete face packet.
    pub fn new_checked(bytes: &'a [u8]) -> Result<Packet<'a>, DecodeError> {
        match classify(bytes) {
            Datagram::Face(packet) => Ok(packet),
            Datagram::Invalid(e) => Err(e),
            Datagram::NoFace(header) => Err(face_error(bytes, header)),
            Datagram::MetaHumanAnimator(_) => Err(DecodeError {
                field: Field::Version,
                offset: 0,
                kind: ErrorKind::WrongVersion(bytes.first().copied().unwrap_or(0)),
            }),
        }
    }

    /// The datagram's bytes.
    pub fn as_bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// The header: version, device id, subject and frame time.
    pub fn header(&self) -> &Header<'a> {
        &self.header
    }

    /// The phone's device id.
    pub fn device_id(&self) -> &'a str {
        self.header.device_id
    }

    /// The Live Link subject name.
    pub fn subject(&self) -> &'a str {
        self.header.subject
    }

    /// When the frame was captured.
    pub fn time(&self) -> FrameTime {
        self.header.time
    }

    /// Blendshape `index` in packet order, or `None` past 60.
    pub fn blendshape(&self, index: usize) -> Option<f32> {
        let at = index.checked_mul(4)?;
        let b = self.values.get(at..at + 4)?;
        Some(f32::from_bits(u32::from_be_bytes([b[0], b[1], b[2], b[3]])))
    }

    /// All 61 blendshape values in packet order.
    pub fn blendshapes(&self) -> impl Iterator<Item = f32> + 'a {
        self.values
            .chunks_exact(4)
            .map(|b| f32::from_bits(u32::from_be_bytes([b[0], b[1], b[2], b[3]])))
    }

    /// The parsed representation.
    pub fn frame(&self) -> FaceFrame<'a> {
        // Built in place: the values go straight into the returned frame.
        let mut frame = FaceFrame {
            version: self.header.version,
            device_id: self.header.device_id,
            subject: self.header.subject,
            time: self.header.time,
            blendshapes: [0.0f32; COUNT],
        };
        for (slot, b) in frame
            .blendshapes
            .iter_mut()
            .zip(self.values.chunks_exact(4))
        {
            *slot = f32::from_bits(u32::from_be_bytes([b[0], b[1], b[2], b[3]]));
        }
        frame
    }
}

/// A parsed face frame; [`FaceFrame::encode`] writes the packet back bit-exact.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FaceFrame<'a> {
    /// Packet version (write [`VERSION`]).
    pub version: u8,
    /// The phone's device id.
    pub device_id: &'a str,
    /// The Live Link subject name.
    pub subject: &'a str,
    /// When the frame was captured.
    pub time: FrameTime,
    /// The 61 values in packet order (see [`crate::blendshape::NAMES`]).
    pub blendshapes: [f32; COUNT],
}

impl<'a> FaceFrame<'a> {
    /// Decodes a face packet (any other datagram is an error).
    pub fn decode(bytes: &'a [u8]) -> Result<FaceFrame<'a>, DecodeError> {
        Packet::new_checked(bytes).map(|p| p.frame())
    }

    /// The header part of this frame.
    pub fn header(&self) -> Header<'a> {
        Header {
            version: self.version,
            device_id: self.device_id,
            subject: self.subject,
            time: self.time,
        }
    }

    /// Bytes this frame takes on the wire.
    pub fn wire_len(&self) -> usize {
        self.header().wire_len() + 1 + COUNT * 4
    }

    /// Encodes into `out` (at most [`MAX_LEN`] bytes are needed); returns the length.
    pub fn encode(&self, out: &mut [u8]) -> Result<usize, EncodeError> {
        let len = self.wire_len();
        if len > MAX_LEN {
            return Err(EncodeError::TooLong(len));
        }
        let at = self.header().encode(out)?;
        let (count, values) = out
            .get_mut(at..len)
            .and_then(|rest| rest.split_first_mut())
            .ok_or(EncodeError::BufferTooSmall(len))?;
        *count = COUNT as u8;
        for (slot, v) in values.chunks_exact_mut(4).zip(&self.blendshapes) {
            slot.copy_from_slice(&v.to_bits().to_be_bytes());
        }
        Ok(len)
    }
}

/// What arrived on the Live Link port: exactly one of these per datagram.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Datagram<'a> {
    /// A valid face frame.
    Face(Packet<'a>),
    /// A header-only packet: the phone tracks no face.
    NoFace(Header<'a>),
    /// A packet of the app's MetaHuman Animator mode (switch the app to ARKit).
    MetaHumanAnimator(MetaHumanAnimator<'a>),
    /// Not a valid packet.
    Invalid(DecodeError),
}

/// What the recorder keeps of a MetaHuman Animator datagram.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MetaHumanAnimator<'a> {
    /// The little-endian protocol version.
    pub version: u16,
    /// The subject id it names.
    pub subject: &'a str,
    /// How many control values it carries.
    pub controls: u16,
}

/// Checks that `bytes` is a valid face frame, as a take holds only those; the
/// error names the field (a no-face header or a MetaHuman Animator packet
/// included). The same rule as [`Packet::new_checked`], without the view.
pub fn check_face(bytes: &[u8]) -> Result<(), DecodeError> {
    Packet::new_checked(bytes).map(|_| ())
}

/// Classifies any datagram: face frame, no-face header, MetaHuman Animator, or invalid.
pub fn classify(bytes: &[u8]) -> Datagram<'_> {
    let (header, end) = match Header::parse(bytes) {
        Ok(parsed) => parsed,
        Err(e) => {
            if let Some(mha) = metahuman_animator(bytes) {
                return Datagram::MetaHumanAnimator(mha);
            }
            if !(MIN_LEN..=MAX_LEN).contains(&bytes.len()) {
                return Datagram::Invalid(size_error(bytes.len()));
            }
            return Datagram::Invalid(e);
        }
    };
    if end == bytes.len() {
        return Datagram::NoFace(header);
    }
    if !(MIN_LEN..=MAX_LEN).contains(&bytes.len()) {
        return Datagram::Invalid(size_error(bytes.len()));
    }
    let mut r = Reader { bytes, at: end };
    let count = match r.u8(Field::BlendshapeCount) {
        Ok(c) => c,
        Err(e) => return Datagram::Invalid(e),
    };
    if usize::from(count) != COUNT {
        return Datagram::Invalid(r.error_at(
            end,
            Field::BlendshapeCount,
            ErrorKind::WrongCount(count),
        ));
    }
    let values = match r.take(COUNT * 4, Field::Blendshapes) {
        Ok(v) => v,
        Err(e) => return Datagram::Invalid(e),
    };
    if r.at != bytes.len() {
        let extra = bytes.len() - r.at;
        return Datagram::Invalid(r.error_at(
            r.at,
            Field::Trailing,
            ErrorKind::TrailingBytes(extra),
        ));
    }
    Datagram::Face(Packet {
        bytes,
        header,
        values,
    })
}

fn size_error(len: usize) -> DecodeError {
    DecodeError {
        field: Field::Size,
        offset: 0,
        kind: ErrorKind::SizeOutOfBounds(len),
    }
}

/// The error a face decoder reports for a header-only datagram.
fn face_error(bytes: &[u8], header: Header<'_>) -> DecodeError {
    if bytes.len() < MIN_LEN {
        return size_error(bytes.len());
    }
    DecodeError {
        field: Field::BlendshapeCount,
        offset: header.wire_len(),
        kind: ErrorKind::Truncated(bytes.len()),
    }
}

/// Recognises the app's MetaHuman Animator packet by its exact little-endian
/// structure: u16 version, u16 id length + id, 16-byte frame time, u16 control
/// count + that many u16, 6 f32 head pose.
fn metahuman_animator(bytes: &[u8]) -> Option<MetaHumanAnimator<'_>> {
    let le16 = |at: usize| -> Option<u16> {
        let b = bytes.get(at..at.checked_add(2)?)?;
        Some(u16::from_le_bytes([b[0], b[1]]))
    };
    let version = le16(0)?;
    let id_len = usize::from(le16(2)?);
    let subject = core::str::from_utf8(bytes.get(4..4 + id_len)?).ok()?;
    let count_at = 4 + id_len + FRAME_TIME_LEN;
    let controls = le16(count_at)?;
    let expected = count_at + 2 + usize::from(controls) * 2 + 6 * 4;
    (expected == bytes.len() && version != 0).then_some(MetaHumanAnimator {
        version,
        subject,
        controls,
    })
}

#[derive(Clone)]
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn error_at(&self, offset: usize, field: Field, kind: ErrorKind) -> DecodeError {
        DecodeError {
            field,
            offset,
            kind,
        }
    }

    fn take(&mut self, n: usize, field: Field) -> Result<&'a [u8], DecodeError> {
        let end = self.at.checked_add(n);
        match end.and_then(|end| self.bytes.get(self.at..end)) {
            Some(slice) => {
                self.at += n;
                Ok(slice)
            }
            None => Err(self.error_at(self.at, field, ErrorKind::Truncated(self.bytes.len()))),
        }
    }

    fn u8(&mut self, field: Field) -> Result<u8, DecodeError> {
        Ok(self.take(1, field)?.first().copied().unwrap_or_default())
    }

    fn u32(&mut self, field: Field) -> Result<u32, DecodeError> {
        let b = self.take(4, field)?;
        let mut word = [0u8; 4];
        word.copy_from_slice(b);
        Ok(u32::from_be_bytes(word))
    }

    /// The fast path for device id and subject: one UTF-8 check over both strings
    /// and the length between them. `None` on anything unusual; [`Reader::string`]
    /// then finds the precise error.
    fn both_strings(mut self) -> Option<(&'a str, &'a str, Reader<'a>)> {
        let start = self.at + 4;
        let id_len = self.raw_string()?;
        let subject_len = self.raw_string()?;
        let region = core::str::from_utf8(self.bytes.get(start..self.at)?).ok()?;
        let device_id = region.get(..id_len)?;
        let subject = region.get(region.len() - subject_len..)?;
        Some((device_id, subject, self))
    }

    /// Skips a length-prefixed string whose length is in bounds; returns its length.
    fn raw_string(&mut self) -> Option<usize> {
        let len = usize::try_from(self.u32(Field::Trailing).ok()?).ok()?;
        (len <= MAX_STRINGS_LEN).then_some(())?;
        self.take(len, Field::Trailing).ok().map(<[u8]>::len)
    }

    fn string(&mut self, len_field: Field, field: Field) -> Result<&'a str, DecodeError> {
        let len_at = self.at;
        let len = self.u32(len_field)? as i32;
        if len < 0 {
            return Err(self.error_at(len_at, len_field, ErrorKind::NegativeLength(len)));
        }
        if len as usize > MAX_STRINGS_LEN {
            return Err(self.error_at(len_at, len_field, ErrorKind::OverlongLength(len)));
        }
        let start = self.at;
        let raw = self.take(len as usize, field)?;
        core::str::from_utf8(raw).map_err(|e| {
            let bad = start + e.valid_up_to();
            let byte = raw.get(e.valid_up_to()).copied().unwrap_or_default();
            self.error_at(bad, field, ErrorKind::InvalidUtf8(byte))
        })
    }
}

struct Writer<'a> {
    out: &'a mut [u8],
    at: usize,
}

impl Writer<'_> {
    /// Callers size `out` exactly from `wire_len`, so every put fits.
    fn put(&mut self, bytes: &[u8]) {
        if let Some(slot) = self.out.get_mut(self.at..self.at + bytes.len()) {
            slot.copy_from_slice(bytes);
        }
        self.at += bytes.len();
    }

    fn put_str(&mut self, s: &str) {
        self.put(&(s.len() as u32).to_be_bytes());
        self.put(s.as_bytes());
    }
}
