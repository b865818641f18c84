//! Open Sound Control 1.0/1.1, without the heap: what show tools (QLab,
//! Bitfocus Companion, Chataigne, lighting desks) send to the box and read
//! back. Documented in `docs/show-control.md`.
//!
//! - [`Packet::parse`] checks a whole packet (a message or a bundle, bundles
//!   nested at most [`MAX_DEPTH`] deep) once, then hands out zero-copy views:
//!   [`Message`] (address, type tags, [`Arg`]s) and [`Bundle`] (time tag,
//!   elements). Every string is NUL-terminated and every field padded with
//!   zero bytes to a multiple of 4 bytes; a packet that breaks a rule, ends
//!   inside a field or holds bytes after its last argument is an [`OscError`].
//! - Type tags `i f s b T F N`, and `h d` (64-bit integer and double)
//!   tolerated; any other tag is [`OscError::UnsupportedTag`]. A message
//!   without a type tag string (OSC 1.0's oldest senders) has no arguments.
//! - [`encode_message`] and [`BundleWriter`] write into a caller's buffer.
//! - Over TCP, OSC 1.1 frames packets with SLIP (RFC 1055, an `END` byte on
//!   both sides of each packet: [`FrameWriter`], [`SlipDecoder`]) and OSC 1.0
//!   with a big-endian int32 size in front ([`size_prefix_encode`]). The first
//!   byte of a connection tells them apart ([`Framing::detect`]).

use core::fmt;

/// Deepest nesting of bundles [`Packet::parse`] accepts (a message in a
/// bundle in a bundle is depth 2).
pub const MAX_DEPTH: usize = 4;
/// The first 8 bytes of every bundle.
pub const BUNDLE_TAG: &[u8; 8] = b"#bundle\0";
/// The time tag that means "at once".
pub const IMMEDIATELY: u64 = 1;

/// SLIP's frame delimiter.
pub const SLIP_END: u8 = 0xC0;
/// SLIP's escape byte.
pub const SLIP_ESC: u8 = 0xDB;
/// After [`SLIP_ESC`]: an escaped [`SLIP_END`].
pub const SLIP_ESC_END: u8 = 0xDC;
/// After [`SLIP_ESC`]: an escaped [`SLIP_ESC`].
pub const SLIP_ESC_ESC: u8 = 0xDD;
/// Bytes of the OSC 1.0 stream framing's size prefix.
pub const SIZE_PREFIX_LEN: usize = 4;

/// Why bytes are not a valid OSC packet, or do not fit a buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum OscError {
    /// The packet is empty or ends inside a field.
    Truncated,
    /// A string is not NUL-terminated, or a padding byte is not zero.
    Padding,
    /// The address is not a string that starts with `/`.
    Address,
    /// The type tag string does not start with `,`.
    TypeTags,
    /// A type tag this codec does not read (the byte).
    UnsupportedTag(u8),
    /// A string argument is not UTF-8.
    NotUtf8,
    /// A blob or bundle element size that is negative, not a multiple of 4
    /// (elements), or beyond the packet.
    Size,
    /// Bytes after the last argument, or type tags without their arguments.
    Trailing,
    /// Bundles nested deeper than [`MAX_DEPTH`].
    TooDeep,
    /// The output buffer is too small.
    BufferTooSmall,
}

impl fmt::Display for OscError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OscError::Truncated => f.write_str("packet ends inside a field"),
            OscError::Padding => f.write_str("string not NUL-terminated or padding not zero"),
            OscError::Address => f.write_str("address does not start with '/'"),
            OscError::TypeTags => f.write_str("type tags do not start with ','"),
            OscError::UnsupportedTag(t) if t.is_ascii_graphic() => {
                write!(f, "unsupported type tag '{}'", *t as char)
            }
            OscError::UnsupportedTag(t) => write!(f, "unsupported type tag 0x{t:02x}"),
            OscError::NotUtf8 => f.write_str("string argument is not UTF-8"),
            OscError::Size => f.write_str("bad blob or bundle element size"),
            OscError::Trailing => f.write_str("arguments and type tags do not match"),
            OscError::TooDeep => write!(f, "bundles nested over {MAX_DEPTH} deep"),
            OscError::BufferTooSmall => f.write_str("output buffer too small"),
        }
    }
}

/// One argument of a message.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Arg<'a> {
    /// `i`: 32-bit integer.
    Int(i32),
    /// `f`: 32-bit float.
    Float(f32),
    /// `s`: string.
    Str(&'a str),
    /// `b`: blob.
    Blob(&'a [u8]),
    /// `T`: true (no data).
    True,
    /// `F`: false (no data).
    False,
    /// `N`: nil (no data).
    Nil,
    /// `h`: 64-bit integer (tolerated).
    Long(i64),
    /// `d`: 64-bit float (tolerated).
    Double(f64),
}

impl Arg<'_> {
    /// The type tag of this argument.
    pub fn tag(&self) -> u8 {
        match self {
            Arg::Int(_) => b'i',
            Arg::Float(_) => b'f',
            Arg::Str(_) => b's',
            Arg::Blob(_) => b'b',
            Arg::True => b'T',
            Arg::False => b'F',
            Arg::Nil => b'N',
            Arg::Long(_) => b'h',
            Arg::Double(_) => b'd',
        }
    }

    /// The argument as a whole number, if it is one: an integer, or a float
    /// or double without a fraction (show tools send counts either way).
    pub fn as_count(&self) -> Option<i64> {
        match *self {
            Arg::Int(v) => Some(i64::from(v)),
            Arg::Long(v) => Some(v),
            Arg::Float(v) => whole(f64::from(v)),
            Arg::Double(v) => whole(v),
            _ => None,
        }
    }
}

fn whole(v: f64) -> Option<i64> {
    // `as` saturates; the range check keeps only exact values.
    let n = v as i64;
    (n as f64 == v && v.abs() < 9.0e15).then_some(n)
}

/// A checked OSC packet.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Packet<'a> {
    /// One message.
    Message(Message<'a>),
    /// A bundle of packets.
    Bundle(Bundle<'a>),
}

impl<'a> Packet<'a> {
    /// Checks all of `bytes` as one packet (the contents of a UDP datagram or
    /// of one stream frame).
    pub fn parse(bytes: &'a [u8]) -> Result<Packet<'a>, OscError> {
        Self::parse_at_depth(bytes, 1)
    }

    /// Every message in the packet, in order: the message itself, or the
    /// messages of a bundle and of the bundles in it, depth first.
    pub fn messages(&self) -> Messages<'a> {
        let mut messages = Messages {
            first: None,
            stack: heapless::Vec::new(),
        };
        match *self {
            Packet::Message(m) => messages.first = Some(m),
            // Depth 1 of MAX_DEPTH: there is room.
            Packet::Bundle(b) => {
                let _ = messages.stack.push(b.elements());
            }
        }
        messages
    }

    fn parse_at_depth(bytes: &'a [u8], depth: usize) -> Result<Packet<'a>, OscError> {
        match bytes.first() {
            None => Err(OscError::Truncated),
            Some(b'#') => Bundle::parse_at_depth(bytes, depth).map(Packet::Bundle),
            Some(_) => Message::parse(bytes).map(Packet::Message),
        }
    }
}

/// A checked message: its address and arguments, borrowed from the packet.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Message<'a> {
    /// The address (pattern), e.g. `/llv/play`.
    pub address: &'a str,
    /// The type tags, without the leading `,`.
    tags: &'a [u8],
    /// The argument bytes.
    data: &'a [u8],
}

impl<'a> Message<'a> {
    /// Checks all of `bytes` as one message.
    pub fn parse(bytes: &'a [u8]) -> Result<Message<'a>, OscError> {
        let (address, at) = read_str(bytes, 0).map_err(|e| match e {
            OscError::NotUtf8 => OscError::Address,
            other => other,
        })?;
        if !address.starts_with('/') {
            return Err(OscError::Address);
        }
        if at == bytes.len() {
            // OSC 1.0's oldest senders leave out the type tags: no arguments.
            return Ok(Message {
                address,
                tags: &[],
                data: &[],
            });
        }
        let (tags, at) = read_str(bytes, at).map_err(|e| match e {
            OscError::NotUtf8 => OscError::TypeTags,
            other => other,
        })?;
        let tags = tags
            .as_bytes()
            .strip_prefix(b",")
            .ok_or(OscError::TypeTags)?;
        let data = &bytes[at..];
        let mut offset = 0;
        for &tag in tags {
            let (_, next) = read_arg(tag, data, offset)?;
            offset = next;
        }
        if offset != data.len() {
            return Err(OscError::Trailing);
        }
        Ok(Message {
            address,
            tags,
            data,
        })
    }

    /// The type tags, without the leading `,` (e.g. `"si"`).
    pub fn type_tags(&self) -> &'a str {
        // Checked UTF-8 (as part of the tag string) in `parse`.
        core::str::from_utf8(self.tags).unwrap_or("")
    }

    /// The arguments, in order.
    pub fn args(&self) -> Args<'a> {
        Args {
            tags: self.tags,
            data: self.data,
            offset: 0,
        }
    }
}

/// The arguments of a checked [`Message`].
#[derive(Clone, Debug)]
pub struct Args<'a> {
    tags: &'a [u8],
    data: &'a [u8],
    offset: usize,
}

impl<'a> Iterator for Args<'a> {
    type Item = Arg<'a>;

    fn next(&mut self) -> Option<Arg<'a>> {
        let (&tag, rest) = self.tags.split_first()?;
        self.tags = rest;
        // Checked in `Message::parse`: an error cannot happen; it ends the iteration.
        match read_arg(tag, self.data, self.offset) {
            Ok((arg, next)) => {
                self.offset = next;
                Some(arg)
            }
            Err(_) => {
                self.tags = &[];
                None
            }
        }
    }
}

/// A checked bundle: its time tag and elements, borrowed from the packet.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bundle<'a> {
    /// The NTP time tag ([`IMMEDIATELY`]: at once).
    pub timetag: u64,
    /// The elements: size-prefixed packets.
    content: &'a [u8],
    depth: usize,
}

impl<'a> Bundle<'a> {
    fn parse_at_depth(bytes: &'a [u8], depth: usize) -> Result<Bundle<'a>, OscError> {
        if depth > MAX_DEPTH {
            return Err(OscError::TooDeep);
        }
        if bytes.len() < 16 {
            return Err(OscError::Truncated);
        }
        if &bytes[..8] != BUNDLE_TAG {
            return Err(OscError::Address);
        }
        let timetag = u64::from_be_bytes(array(&bytes[8..16])?);
        let content = &bytes[16..];
        let mut at = 0;
        while at < content.len() {
            let (element, next) = element(content, at)?;
            Packet::parse_at_depth(element, depth + 1)?;
            at = next;
        }
        Ok(Bundle {
            timetag,
            content,
            depth,
        })
    }

    /// The packets in the bundle, in order.
    pub fn elements(&self) -> Elements<'a> {
        Elements {
            content: self.content,
            at: 0,
            depth: self.depth,
        }
    }
}

/// The elements of a checked [`Bundle`].
#[derive(Clone, Debug)]
pub struct Elements<'a> {
    content: &'a [u8],
    at: usize,
    depth: usize,
}

impl<'a> Iterator for Elements<'a> {
    type Item = Packet<'a>;

    fn next(&mut self) -> Option<Packet<'a>> {
        if self.at >= self.content.len() {
            return None;
        }
        // Checked in `Bundle::parse_at_depth`: an error ends the iteration.
        let parsed = element(self.content, self.at)
            .and_then(|(bytes, next)| Ok((Packet::parse_at_depth(bytes, self.depth + 1)?, next)));
        match parsed {
            Ok((packet, next)) => {
                self.at = next;
                Some(packet)
            }
            Err(_) => {
                self.at = self.content.len();
                None
            }
        }
    }
}

/// The messages of a checked [`Packet`], depth first.
#[derive(Clone, Debug)]
pub struct Messages<'a> {
    first: Option<Message<'a>>,
    stack: heapless::Vec<Elements<'a>, MAX_DEPTH>,
}

impl<'a> Iterator for Messages<'a> {
    type Item = Message<'a>;

    fn next(&mut self) -> Option<Message<'a>> {
        if let Some(m) = self.first.take() {
            return Some(m);
        }
        loop {
            let top = self.stack.last_mut()?;
            match top.next() {
                None => {
                    self.stack.pop();
                }
                Some(Packet::Message(m)) => return Some(m),
                Some(Packet::Bundle(b)) => {
                    // Checked: no deeper than MAX_DEPTH; were it full, the bundle is skipped.
                    let _ = self.stack.push(b.elements());
                }
            }
        }
    }
}

/// The bundle element at `at`: its bytes and where the next one starts.
fn element(content: &[u8], at: usize) -> Result<(&[u8], usize), OscError> {
    let size = read_i32(content, at)?;
    let size = usize::try_from(size).map_err(|_| OscError::Size)?;
    let start = at + 4;
    if size == 0 || size % 4 != 0 {
        return Err(OscError::Size);
    }
    let end = start.checked_add(size).ok_or(OscError::Size)?;
    let bytes = content.get(start..end).ok_or(OscError::Size)?;
    Ok((bytes, end))
}

/// `bytes[at..]` as an array of N bytes.
fn array<const N: usize>(bytes: &[u8]) -> Result<[u8; N], OscError> {
    bytes.try_into().map_err(|_| OscError::Truncated)
}

fn read_i32(bytes: &[u8], at: usize) -> Result<i32, OscError> {
    let end = at.checked_add(4).ok_or(OscError::Truncated)?;
    let b = bytes.get(at..end).ok_or(OscError::Truncated)?;
    Ok(i32::from_be_bytes(array(b)?))
}

fn read_u64(bytes: &[u8], at: usize) -> Result<u64, OscError> {
    let end = at.checked_add(8).ok_or(OscError::Truncated)?;
    let b = bytes.get(at..end).ok_or(OscError::Truncated)?;
    Ok(u64::from_be_bytes(array(b)?))
}

/// Rounds `n` up to a multiple of 4.
const fn padded(n: usize) -> usize {
    (n + 3) & !3
}

/// The NUL-terminated, zero-padded string at `at`, and where the next field starts.
fn read_str(bytes: &[u8], at: usize) -> Result<(&str, usize), OscError> {
    let rest = bytes.get(at..).ok_or(OscError::Truncated)?;
    let len = rest
        .iter()
        .position(|&b| b == 0)
        .ok_or(OscError::Truncated)?;
    let end = padded(at + len + 1);
    let pad = bytes.get(at + len..end).ok_or(OscError::Truncated)?;
    if pad.iter().any(|&b| b != 0) {
        return Err(OscError::Padding);
    }
    let text = core::str::from_utf8(&rest[..len]).map_err(|_| OscError::NotUtf8)?;
    Ok((text, end))
}

/// The argument of type `tag` at `at`, and where the next one starts.
fn read_arg(tag: u8, data: &[u8], at: usize) -> Result<(Arg<'_>, usize), OscError> {
    Ok(match tag {
        b'i' => (Arg::Int(read_i32(data, at)?), at + 4),
        b'f' => (
            Arg::Float(f32::from_bits(read_i32(data, at)? as u32)),
            at + 4,
        ),
        b'h' => (Arg::Long(read_u64(data, at)? as i64), at + 8),
        b'd' => (Arg::Double(f64::from_bits(read_u64(data, at)?)), at + 8),
        b's' => {
            let (text, next) = read_str(data, at)?;
            (Arg::Str(text), next)
        }
        b'b' => {
            let len = usize::try_from(read_i32(data, at)?).map_err(|_| OscError::Size)?;
            let start = at + 4;
            let end = start.checked_add(len).ok_or(OscError::Size)?;
            let next = padded(end);
            let blob = data.get(start..end).ok_or(OscError::Size)?;
            let pad = data.get(end..next).ok_or(OscError::Truncated)?;
            if pad.iter().any(|&b| b != 0) {
                return Err(OscError::Padding);
            }
            (Arg::Blob(blob), next)
        }
        b'T' => (Arg::True, at),
        b'F' => (Arg::False, at),
        b'N' => (Arg::Nil, at),
        other => return Err(OscError::UnsupportedTag(other)),
    })
}

/// Appends bytes to a caller's buffer.
struct Out<'o> {
    buf: &'o mut [u8],
    len: usize,
}

impl Out<'_> {
    fn put(&mut self, bytes: &[u8]) -> Result<(), OscError> {
        let end = self.len + bytes.len();
        self.buf
            .get_mut(self.len..end)
            .ok_or(OscError::BufferTooSmall)?
            .copy_from_slice(bytes);
        self.len = end;
        Ok(())
    }

    /// Zero bytes up to the next multiple of 4.
    fn pad(&mut self) -> Result<(), OscError> {
        let end = padded(self.len);
        self.buf
            .get_mut(self.len..end)
            .ok_or(OscError::BufferTooSmall)?
            .fill(0);
        self.len = end;
        Ok(())
    }

    /// A string (without NUL inside), its NUL and padding.
    fn put_str(&mut self, text: &str) -> Result<(), OscError> {
        if text.bytes().any(|b| b == 0) {
            return Err(OscError::Padding);
        }
        self.put(text.as_bytes())?;
        self.put(&[0])?;
        self.pad()
    }
}

/// Writes a message with `address` (starting with `/`) and `args` into `out`;
/// returns its length. Strings must not hold NUL bytes.
pub fn encode_message(address: &str, args: &[Arg<'_>], out: &mut [u8]) -> Result<usize, OscError> {
    let mut out = Out { buf: out, len: 0 };
    write_message(&mut out, address, args)?;
    Ok(out.len)
}

fn write_message(out: &mut Out<'_>, address: &str, args: &[Arg<'_>]) -> Result<(), OscError> {
    if !address.starts_with('/') {
        return Err(OscError::Address);
    }
    out.put_str(address)?;
    out.put(b",")?;
    for arg in args {
        out.put(&[arg.tag()])?;
    }
    out.put(&[0])?;
    out.pad()?;
    for arg in args {
        match *arg {
            Arg::Int(v) => out.put(&v.to_be_bytes())?,
            Arg::Float(v) => out.put(&v.to_bits().to_be_bytes())?,
            Arg::Long(v) => out.put(&v.to_be_bytes())?,
            Arg::Double(v) => out.put(&v.to_bits().to_be_bytes())?,
            Arg::Str(s) => out.put_str(s)?,
            Arg::Blob(b) => {
                let len = i32::try_from(b.len()).map_err(|_| OscError::Size)?;
                out.put(&len.to_be_bytes())?;
                out.put(b)?;
                out.pad()?;
            }
            Arg::True | Arg::False | Arg::Nil => {}
        }
    }
    Ok(())
}

/// Writes a bundle into a caller's buffer, one element at a time.
pub struct BundleWriter<'o> {
    out: Out<'o>,
}

impl<'o> BundleWriter<'o> {
    /// Starts a bundle with time tag `timetag` in `out`.
    pub fn new(out: &'o mut [u8], timetag: u64) -> Result<Self, OscError> {
        let mut out = Out { buf: out, len: 0 };
        out.put(BUNDLE_TAG)?;
        out.put(&timetag.to_be_bytes())?;
        Ok(BundleWriter { out })
    }

    /// Appends a message.
    pub fn message(&mut self, address: &str, args: &[Arg<'_>]) -> Result<(), OscError> {
        let size_at = self.out.len;
        self.out.put(&[0; 4])?;
        write_message(&mut self.out, address, args)?;
        self.close_element(size_at)
    }

    /// Appends an already encoded packet (a message or a bundle).
    pub fn packet(&mut self, packet: &[u8]) -> Result<(), OscError> {
        if packet.is_empty() || !packet.len().is_multiple_of(4) {
            return Err(OscError::Size);
        }
        let size_at = self.out.len;
        self.out.put(&[0; 4])?;
        self.out.put(packet)?;
        self.close_element(size_at)
    }

    fn close_element(&mut self, size_at: usize) -> Result<(), OscError> {
        let size = i32::try_from(self.out.len - size_at - 4).map_err(|_| OscError::Size)?;
        self.out.buf[size_at..size_at + 4].copy_from_slice(&size.to_be_bytes());
        Ok(())
    }

    /// The bundle's length in bytes.
    pub fn finish(self) -> usize {
        self.out.len
    }
}

/// How OSC packets travel over a TCP stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Framing {
    /// OSC 1.1: SLIP, an `END` byte before and after each packet.
    Slip,
    /// OSC 1.0: each packet after its size as a big-endian int32.
    SizePrefix,
}

impl Framing {
    /// The framing of a stream whose first byte is `first`: `END` (or the
    /// `/` or `#` of a packet sent with an `END` after it only) is SLIP; a
    /// zero is the top byte of a size under 16 MiB. Anything else is neither.
    pub fn detect(first: u8) -> Option<Framing> {
        match first {
            SLIP_END | b'/' | b'#' => Some(Framing::Slip),
            0 => Some(Framing::SizePrefix),
            _ => None,
        }
    }

    /// Writes `packet` framed this way into `out`; returns the frame's length.
    pub fn encode(self, packet: &[u8], out: &mut [u8]) -> Result<usize, OscError> {
        if self == Framing::SizePrefix && i32::try_from(packet.len()).is_err() {
            return Err(OscError::Size);
        }
        let mut frame = FrameWriter::new(self, packet);
        let mut len = 0;
        while !frame.is_done() {
            let rest = out.get_mut(len..).ok_or(OscError::BufferTooSmall)?;
            match frame.next_chunk(rest) {
                0 => return Err(OscError::BufferTooSmall),
                n => len += n,
            }
        }
        Ok(len)
    }
}

/// Writes `packet` as a SLIP frame (`END`, the escaped bytes, `END`) into
/// `out`; returns the frame's length.
pub fn slip_encode(packet: &[u8], out: &mut [u8]) -> Result<usize, OscError> {
    Framing::Slip.encode(packet, out)
}

/// Writes `packet` after its big-endian int32 size into `out`; returns the frame's length.
pub fn size_prefix_encode(packet: &[u8], out: &mut [u8]) -> Result<usize, OscError> {
    Framing::SizePrefix.encode(packet, out)
}

/// Frames one packet piece by piece into a small buffer, for a stream
/// written in chunks (the box's TCP door writes 64 bytes at a time).
#[derive(Clone, Debug)]
pub struct FrameWriter<'p> {
    framing: Framing,
    packet: &'p [u8],
    /// Frame bytes written so far, counted in the frame: the SLIP `END` or
    /// the size prefix first, then the packet.
    at: usize,
    done: bool,
}

impl<'p> FrameWriter<'p> {
    /// A frame of `packet` in `framing`.
    pub fn new(framing: Framing, packet: &'p [u8]) -> Self {
        FrameWriter {
            framing,
            packet,
            at: 0,
            done: false,
        }
    }

    /// Whether the whole frame was written.
    pub fn is_done(&self) -> bool {
        self.done
    }

    /// Writes the frame's next bytes into `out`; returns how many (0 when
    /// the frame is done, or `out` cannot take the next piece: a SLIP escape
    /// needs two bytes, a size prefix four).
    pub fn next_chunk(&mut self, out: &mut [u8]) -> usize {
        match self.framing {
            Framing::Slip => self.slip(out),
            Framing::SizePrefix => self.size_prefixed(out),
        }
    }

    fn slip(&mut self, out: &mut [u8]) -> usize {
        let mut n = 0;
        // Frame position 0 is the leading END, 1..=len the packet, len + 1 the END after it.
        while !self.done {
            let piece: &[u8] = match self.at.checked_sub(1) {
                None => &[SLIP_END],
                Some(i) => match self.packet.get(i) {
                    Some(&SLIP_END) => &[SLIP_ESC, SLIP_ESC_END],
                    Some(&SLIP_ESC) => &[SLIP_ESC, SLIP_ESC_ESC],
                    Some(b) => core::slice::from_ref(b),
                    None => &[SLIP_END],
                },
            };
            let Some(dst) = out.get_mut(n..n + piece.len()) else {
                break;
            };
            dst.copy_from_slice(piece);
            n += piece.len();
            self.at += 1;
            self.done = self.at > self.packet.len() + 1;
        }
        n
    }

    fn size_prefixed(&mut self, out: &mut [u8]) -> usize {
        if self.done {
            return 0;
        }
        if self.at == 0 {
            let Ok(size) = i32::try_from(self.packet.len()) else {
                // Not a frame OSC 1.0 can carry: nothing to write.
                self.done = true;
                return 0;
            };
            let Some(dst) = out.get_mut(..SIZE_PREFIX_LEN) else {
                return 0;
            };
            dst.copy_from_slice(&size.to_be_bytes());
            self.at = SIZE_PREFIX_LEN;
            self.done = self.packet.is_empty();
            return SIZE_PREFIX_LEN;
        }
        let rest = self.packet.get(self.at - SIZE_PREFIX_LEN..).unwrap_or(&[]);
        let n = rest.len().min(out.len());
        out[..n].copy_from_slice(&rest[..n]);
        self.at += n;
        self.done = self.at - SIZE_PREFIX_LEN >= self.packet.len();
        n
    }
}

/// The packet size an OSC 1.0 stream announces; `None` for a negative size.
pub fn size_prefix(prefix: [u8; SIZE_PREFIX_LEN]) -> Option<usize> {
    usize::try_from(i32::from_be_bytes(prefix)).ok()
}

/// What one byte fed to a [`SlipDecoder`] completed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum SlipEvent {
    /// Nothing yet.
    Pending,
    /// A packet of this many bytes is at the start of the buffer.
    Frame(usize),
    /// A frame longer than the buffer ended (its bytes were dropped).
    Overflow,
    /// A frame with an escape byte followed by neither `ESC_END` nor `ESC_ESC` ended.
    BadEscape,
}

/// Unframes SLIP byte by byte into a caller's buffer. Empty frames (the
/// double `END` between packets) are skipped.
#[derive(Clone, Copy, Debug, Default)]
pub struct SlipDecoder {
    len: usize,
    escaped: bool,
    overflow: bool,
    bad_escape: bool,
}

impl SlipDecoder {
    /// Between frames.
    pub const fn new() -> Self {
        SlipDecoder {
            len: 0,
            escaped: false,
            overflow: false,
            bad_escape: false,
        }
    }

    /// Feeds one byte; `buf` must be the same buffer for every byte of a
    /// frame. After [`SlipEvent::Frame`] the packet is `buf[..n]` until the
    /// next byte is fed.
    pub fn push(&mut self, byte: u8, buf: &mut [u8]) -> SlipEvent {
        if byte == SLIP_END {
            let (len, overflow, bad) = (self.len, self.overflow, self.bad_escape || self.escaped);
            *self = SlipDecoder::new();
            return match (len, overflow, bad) {
                (_, true, _) => SlipEvent::Overflow,
                (_, _, true) => SlipEvent::BadEscape,
                (0, _, _) => SlipEvent::Pending,
                (n, _, _) => SlipEvent::Frame(n),
            };
        }
        let byte = if self.escaped {
            self.escaped = false;
            match byte {
                SLIP_ESC_END => SLIP_END,
                SLIP_ESC_ESC => SLIP_ESC,
                other => {
                    self.bad_escape = true;
                    other
                }
            }
        } else if byte == SLIP_ESC {
            self.escaped = true;
            return SlipEvent::Pending;
        } else {
            byte
        };
        match buf.get_mut(self.len) {
            Some(slot) if !self.overflow => {
                *slot = byte;
                self.len += 1;
            }
            _ => self.overflow = true,
        }
        SlipEvent::Pending
    }

    /// Whether a frame has begun (bytes since the last `END`).
    pub fn in_frame(&self) -> bool {
        self.len > 0 || self.escaped || self.overflow
    }
}
