//! A JSON writer into a caller's buffer, for the doors' replies: it places
//! the commas and colons itself (objects and arrays are opened and closed,
//! keys and values written in turn), escapes strings (quotes, backslashes,
//! control characters) and writes numbers in decimal. Writing past the end
//! sets [`Json::overflowed`] instead of failing at each call; [`Json::mark`]
//! and [`Json::reset`] take back a part that did not fit.

use core::fmt::{self, Write as _};

/// How deeply objects and arrays may nest; deeper is counted as overflow.
const MAX_DEPTH: u8 = 32;

/// Writes JSON text into a byte buffer.
pub struct Json<'b> {
    buf: &'b mut [u8],
    len: usize,
    limit: usize,
    overflowed: bool,
    place: Place,
}

/// Where the writer is in the text's structure: what the next value needs
/// before it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Place {
    /// Open objects and arrays.
    depth: u8,
    /// Bit `d - 1`: the container at depth `d` has a member already.
    filled: u32,
    /// A key was just written: its value follows without a comma.
    keyed: bool,
}

/// A place in the text to come back to with [`Json::reset`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mark {
    len: usize,
    place: Place,
}

impl<'b> Json<'b> {
    /// Writes into `buf`, from its start.
    pub fn new(buf: &'b mut [u8]) -> Self {
        let limit = buf.len();
        Json {
            buf,
            len: 0,
            limit,
            overflowed: false,
            place: Place {
                depth: 0,
                filled: 0,
                keyed: false,
            },
        }
    }

    /// Keeps the last `bytes` of the buffer free until [`Json::unreserve`].
    pub fn reserve(&mut self, bytes: usize) {
        self.limit = self.buf.len().saturating_sub(bytes);
    }

    /// Makes the whole buffer usable again.
    pub fn unreserve(&mut self) {
        self.limit = self.buf.len();
    }

    /// Bytes written.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether nothing was written.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Whether something did not fit.
    pub fn overflowed(&self) -> bool {
        self.overflowed
    }

    /// Where the text ends now, and where it stands in its structure.
    pub fn mark(&self) -> Mark {
        Mark {
            len: self.len,
            place: self.place,
        }
    }

    /// Takes back everything after `mark`, and any overflow since.
    pub fn reset(&mut self, mark: Mark) {
        self.len = mark.len.min(self.len);
        self.place = mark.place;
        self.overflowed = false;
    }

    /// Opens an object: `{`.
    pub fn open_object(&mut self) {
        self.open(b'{');
    }

    /// Closes the object opened last: `}`.
    pub fn close_object(&mut self) {
        self.close(b'}');
    }

    /// Opens an array: `[`.
    pub fn open_array(&mut self) {
        self.open(b'[');
    }

    /// Closes the array opened last: `]`.
    pub fn close_array(&mut self) {
        self.close(b']');
    }

    /// Writes an object's key (`"key":`); its value is written next.
    pub fn key(&mut self, key: &str) {
        self.separate();
        self.quoted(key);
        self.bytes(b":");
        self.place.keyed = true;
    }

    /// Writes `text` as a JSON string.
    pub fn string(&mut self, text: &str) {
        self.separate();
        self.quoted(text);
    }

    /// Writes what `args` formats as a JSON string, escaped as it is made.
    pub fn text(&mut self, args: fmt::Arguments<'_>) {
        self.separate();
        self.bytes(b"\"");
        // Escaped never fails: what does not fit marks the overflow.
        let _ = Escaped(self).write_fmt(args);
        self.bytes(b"\"");
    }

    /// Writes an unsigned number.
    pub fn uint(&mut self, mut n: u64) {
        self.separate();
        let mut digits = [0u8; 20];
        let mut at = digits.len();
        loop {
            at -= 1;
            digits[at] = b'0' + (n % 10) as u8;
            n /= 10;
            if n == 0 {
                break;
            }
        }
        self.bytes(&digits[at..]);
    }

    /// Writes `true` or `false`.
    pub fn bool(&mut self, value: bool) {
        self.separate();
        self.bytes(if value { b"true" } else { b"false" });
    }

    /// Writes `null`.
    pub fn null(&mut self) {
        self.separate();
        self.bytes(b"null");
    }

    /// Writes an IPv4 address as a string (`"10.0.2.15"`).
    pub fn ipv4(&mut self, ip: [u8; 4]) {
        self.text(format_args!("{}", core::net::Ipv4Addr::from(ip)));
    }

    /// The text written.
    pub fn as_bytes(&self) -> &[u8] {
        &self.buf[..self.len]
    }

    /// What a value needs before it: nothing after a key or first in its
    /// container, else a comma.
    fn separate(&mut self) {
        if self.place.keyed {
            self.place.keyed = false;
            return;
        }
        let Some(bit) = self.place.depth.checked_sub(1).map(|d| 1u32 << d) else {
            return;
        };
        if self.place.filled & bit != 0 {
            self.bytes(b",");
        }
        self.place.filled |= bit;
    }

    fn open(&mut self, bracket: u8) {
        self.separate();
        if self.place.depth >= MAX_DEPTH {
            self.overflowed = true;
            return;
        }
        self.bytes(&[bracket]);
        self.place.depth += 1;
        self.place.filled &= !(1u32 << (self.place.depth - 1));
    }

    fn close(&mut self, bracket: u8) {
        self.place.keyed = false;
        self.place.depth = self.place.depth.saturating_sub(1);
        self.bytes(&[bracket]);
    }

    /// `text` in quotes, escaped.
    fn quoted(&mut self, text: &str) {
        self.bytes(b"\"");
        self.escaped(text);
        self.bytes(b"\"");
    }

    /// `text` escaped for the inside of a JSON string.
    fn escaped(&mut self, text: &str) {
        let mut start = 0;
        for (i, b) in text.bytes().enumerate() {
            let escape: &[u8] = match b {
                b'"' => b"\\\"",
                b'\\' => b"\\\\",
                b'\n' => b"\\n",
                b'\r' => b"\\r",
                b'\t' => b"\\t",
                0..=0x1f | 0x7f => b"",
                _ => continue,
            };
            self.bytes(&text.as_bytes()[start..i]);
            if escape.is_empty() {
                const HEX: &[u8; 16] = b"0123456789abcdef";
                self.bytes(&[
                    b'\\',
                    b'u',
                    b'0',
                    b'0',
                    HEX[usize::from(b >> 4)],
                    HEX[usize::from(b & 15)],
                ]);
            } else {
                self.bytes(escape);
            }
            start = i + 1;
        }
        self.bytes(&text.as_bytes()[start..]);
    }

    fn bytes(&mut self, bytes: &[u8]) {
        let end = self.len + bytes.len();
        if self.overflowed || end > self.limit {
            self.overflowed = true;
            return;
        }
        self.buf[self.len..end].copy_from_slice(bytes);
        self.len = end;
    }
}

/// Formatted text escaped into a string being written.
struct Escaped<'j, 'b>(&'j mut Json<'b>);

impl fmt::Write for Escaped<'_, '_> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.0.escaped(s);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;

    fn text(f: impl FnOnce(&mut Json<'_>)) -> std::string::String {
        let mut buf = [0u8; 128];
        let mut j = Json::new(&mut buf);
        f(&mut j);
        assert!(!j.overflowed());
        std::string::String::from_utf8(j.as_bytes().to_vec()).unwrap()
    }

    #[test]
    fn strings_are_escaped_and_numbers_written_whole() {
        assert_eq!(
            text(|j| j.string("a\"b\\c\n\u{1}é\u{7f}")),
            r#""a\"b\\c\n\u0001é\u007f""#
        );
        assert_eq!(
            text(|j| j.text(format_args!("{}\"{}", 1, "\t"))),
            r#""1\"\t""#
        );
        assert_eq!(
            text(|j| {
                j.open_array();
                j.uint(0);
                j.uint(u64::MAX);
                j.ipv4([10, 0, 2, 15]);
                j.close_array();
            }),
            r#"[0,18446744073709551615,"10.0.2.15"]"#
        );
    }

    #[test]
    fn commas_and_colons_are_placed_by_the_writer() {
        assert_eq!(
            text(|j| {
                j.open_object();
                j.key("a");
                j.open_array();
                j.open_object();
                j.close_object();
                j.open_array();
                j.close_array();
                j.null();
                j.close_array();
                j.key("b");
                j.open_object();
                j.key("c");
                j.bool(true);
                j.key("d");
                j.bool(false);
                j.close_object();
                j.key("e");
                j.uint(1);
                j.close_object();
            }),
            r#"{"a":[{},[],null],"b":{"c":true,"d":false},"e":1}"#
        );
    }

    #[test]
    fn nesting_past_the_limit_overflows_and_never_panics() {
        let mut buf = [0u8; 128];
        let mut j = Json::new(&mut buf);
        for _ in 0..40 {
            j.open_array();
        }
        assert!(j.overflowed());
        for _ in 0..40 {
            j.close_array();
        }
    }

    #[test]
    fn what_does_not_fit_is_marked_and_can_be_taken_back() {
        let mut buf = [0u8; 8];
        let mut j = Json::new(&mut buf);
        j.open_array();
        j.uint(1);
        let mark = j.mark();
        j.string("long");
        assert!(j.overflowed());
        j.reset(mark);
        j.reserve(1);
        j.uint(234);
        j.unreserve();
        j.close_array();
        assert_eq!(j.as_bytes(), b"[1,234]");
        assert!(!j.overflowed());
        assert!(!j.is_empty() && j.len() == 7);
    }
}
