//! `key=value&...` pairs of a query string or an
//! `application/x-www-form-urlencoded` body, percent-decoded.

/// The pairs of `text`, each decoded into the caller's buffers.
pub struct Pairs<'t> {
    rest: &'t str,
}

/// Why a pair did not decode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FormError {
    /// A `%` not followed by two hex digits, or bytes that are not UTF-8.
    Encoding,
    /// A key or value longer than its buffer.
    TooLong,
}

impl<'t> Pairs<'t> {
    /// The pairs of `text`.
    pub fn new(text: &'t str) -> Self {
        Pairs { rest: text }
    }

    /// The next pair, decoded into `key` and `value`.
    pub fn next_into<'k, 'v>(
        &mut self,
        key: &'k mut [u8],
        value: &'v mut [u8],
    ) -> Option<Result<(&'k str, &'v str), FormError>> {
        loop {
            if self.rest.is_empty() {
                return None;
            }
            let (pair, rest) = self.rest.split_once('&').unwrap_or((self.rest, ""));
            self.rest = rest;
            if pair.is_empty() {
                continue;
            }
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            return Some(decode(k, key).and_then(|k| Ok((k, decode(v, value)?))));
        }
    }
}

/// `text` percent-decoded (`+` is a space) into `out`.
pub fn decode<'o>(text: &str, out: &'o mut [u8]) -> Result<&'o str, FormError> {
    let bytes = text.as_bytes();
    let (mut i, mut n) = (0, 0);
    while i < bytes.len() {
        let b = match bytes[i] {
            b'+' => b' ',
            b'%' => {
                let hex = bytes
                    .get(i + 1..i + 3)
                    .and_then(|h| core::str::from_utf8(h).ok())
                    .and_then(|h| u8::from_str_radix(h, 16).ok())
                    .ok_or(FormError::Encoding)?;
                i += 2;
                hex
            }
            b => b,
        };
        *out.get_mut(n).ok_or(FormError::TooLong)? = b;
        n += 1;
        i += 1;
    }
    core::str::from_utf8(&out[..n]).map_err(|_| FormError::Encoding)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_are_decoded_and_bad_ones_named() {
        let mut pairs = Pairs::new("take=a%20b&&loops=0&targets=10.0.0.2%3A11111&x");
        let (mut k, mut v) = ([0u8; 16], [0u8; 32]);
        assert_eq!(pairs.next_into(&mut k, &mut v), Some(Ok(("take", "a b"))));
        assert_eq!(pairs.next_into(&mut k, &mut v), Some(Ok(("loops", "0"))));
        assert_eq!(
            pairs.next_into(&mut k, &mut v),
            Some(Ok(("targets", "10.0.0.2:11111")))
        );
        assert_eq!(pairs.next_into(&mut k, &mut v), Some(Ok(("x", ""))));
        assert_eq!(pairs.next_into(&mut k, &mut v), None);
        assert_eq!(decode("%zz", &mut v), Err(FormError::Encoding));
        assert_eq!(decode("%ff", &mut v), Err(FormError::Encoding));
        assert_eq!(decode("abc", &mut [0u8; 2]), Err(FormError::TooLong));
    }
}
