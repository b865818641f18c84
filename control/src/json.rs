//! A JSON writer into a caller's buffer, for the OSC door's replies: strings
//! escaped (quotes, backslashes, control characters), numbers in decimal.
//! Writing past the end sets [`Json::overflowed`] instead of failing at each
//! call; [`Json::mark`] and [`Json::reset`] take back a part that did not fit.

/// Writes JSON text into a byte buffer.
pub struct Json<'b> {
    buf: &'b mut [u8],
    len: usize,
    limit: usize,
    overflowed: bool,
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

    /// Where the text ends now.
    pub fn mark(&self) -> usize {
        self.len
    }

    /// Takes back everything after `mark`, and any overflow since.
    pub fn reset(&mut self, mark: usize) {
        self.len = mark.min(self.len);
        self.overflowed = false;
    }

    /// Appends raw JSON text (punctuation, literals).
    pub fn raw(&mut self, text: &str) {
        self.bytes(text.as_bytes());
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

    /// Appends `text` as a JSON string.
    pub fn string(&mut self, text: &str) {
        self.raw("\"");
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
        self.raw("\"");
    }

    /// Appends `"key":`.
    pub fn key(&mut self, key: &str) {
        self.string(key);
        self.raw(":");
    }

    /// Appends an unsigned number.
    pub fn uint(&mut self, mut n: u64) {
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

    /// Appends an IPv4 address as a string (`"10.0.2.15"`).
    pub fn ipv4(&mut self, ip: [u8; 4]) {
        self.raw("\"");
        for (i, octet) in ip.iter().enumerate() {
            if i > 0 {
                self.raw(".");
            }
            self.uint(u64::from(*octet));
        }
        self.raw("\"");
    }

    /// The text written.
    pub fn as_bytes(&self) -> &[u8] {
        &self.buf[..self.len]
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
            text(|j| {
                j.raw("[");
                j.uint(0);
                j.raw(",");
                j.uint(u64::MAX);
                j.raw(",");
                j.ipv4([10, 0, 2, 15]);
                j.raw("]");
            }),
            r#"[0,18446744073709551615,"10.0.2.15"]"#
        );
    }

    #[test]
    fn what_does_not_fit_is_marked_and_can_be_taken_back() {
        let mut buf = [0u8; 8];
        let mut j = Json::new(&mut buf);
        j.raw("[1");
        let mark = j.mark();
        j.raw(",\"long\"");
        assert!(j.overflowed());
        j.reset(mark);
        j.reserve(1);
        j.raw(",234");
        j.unreserve();
        j.raw("]");
        assert_eq!(j.as_bytes(), b"[1,234]");
        assert!(!j.overflowed());
        assert!(!j.is_empty() && j.len() == 7);
    }
}
