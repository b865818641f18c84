//! The native recording line: the standard base64 (RFC 4648, padded) of one
//! packet's raw bytes. Encoding and decoding use caller buffers, never the heap.

use core::fmt;

use base64::engine::general_purpose::STANDARD;
use base64::{DecodeError, DecodeSliceError, Engine};

use crate::packet::{MAX_LEN, MIN_LEN};

/// Longest line a valid packet makes: base64 of [`MAX_LEN`] bytes.
pub const MAX_LINE_LEN: usize = MAX_LEN.div_ceil(3) * 4;

/// Why a line did not give a packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum LineError {
    /// A byte that is not in the base64 alphabet, at this column (0-based).
    BadCharacter {
        /// Column of the byte in the line.
        column: usize,
        /// The byte itself.
        byte: u8,
    },
    /// The line's length or `=` padding is not valid base64.
    BadPadding,
    /// The decoded packet would be this many bytes, outside `264..=774`.
    SizeOutOfBounds(usize),
    /// The output buffer is too small for the encoded line (this many bytes).
    BufferTooSmall(usize),
}

impl fmt::Display for LineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            LineError::BadCharacter { column, byte } => {
                write!(f, "column {}: byte 0x{byte:02x} is not base64", column + 1)
            }
            LineError::BadPadding => f.write_str("bad base64 length or padding"),
            LineError::SizeOutOfBounds(n) => {
                write!(f, "decodes to {n} bytes, outside {MIN_LEN}..={MAX_LEN}")
            }
            LineError::BufferTooSmall(n) => write!(f, "output buffer needs {n} bytes"),
        }
    }
}

/// Writes the line for `packet` (without a newline) into `out`; returns it.
pub fn encode<'o>(packet: &[u8], out: &'o mut [u8]) -> Result<&'o str, LineError> {
    let needed = packet.len().div_ceil(3) * 4;
    let n = STANDARD
        .encode_slice(packet, out)
        .map_err(|_| LineError::BufferTooSmall(needed))?;
    let text = out.get(..n).ok_or(LineError::BufferTooSmall(needed))?;
    // base64 output is ASCII.
    core::str::from_utf8(text).map_err(|_| LineError::BufferTooSmall(needed))
}

/// Decodes one line (no line ending) into `out`; returns the packet bytes.
pub fn decode<'o>(line: &[u8], out: &'o mut [u8; MAX_LEN]) -> Result<&'o [u8], LineError> {
    if line.len() % 4 != 0 {
        if let Some(column) = line.iter().position(|b| !is_base64(*b)) {
            return Err(bad_character(line, column));
        }
        return Err(LineError::BadPadding);
    }
    let padding = line.iter().rev().take(2).filter(|b| **b == b'=').count();
    let decoded = (line.len() / 4 * 3).saturating_sub(padding);
    if !(MIN_LEN..=MAX_LEN).contains(&decoded) {
        if let Some(column) = line.iter().position(|b| !is_base64(*b)) {
            return Err(bad_character(line, column));
        }
        return Err(LineError::SizeOutOfBounds(decoded));
    }
    match STANDARD.decode_slice(line, out) {
        Ok(n) => out.get(..n).ok_or(LineError::SizeOutOfBounds(n)),
        Err(DecodeSliceError::DecodeError(DecodeError::InvalidByte(column, byte))) => {
            if byte == b'=' {
                Err(LineError::BadPadding)
            } else {
                Err(LineError::BadCharacter { column, byte })
            }
        }
        Err(DecodeSliceError::DecodeError(_)) => Err(LineError::BadPadding),
        Err(DecodeSliceError::OutputSliceTooSmall) => Err(LineError::SizeOutOfBounds(decoded)),
    }
}

fn is_base64(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'+' || b == b'/' || b == b'='
}

fn bad_character(line: &[u8], column: usize) -> LineError {
    LineError::BadCharacter {
        column,
        byte: line.get(column).copied().unwrap_or_default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn packet(len: usize) -> [u8; MAX_LEN] {
        let mut p = [0u8; MAX_LEN];
        for (i, b) in p.iter_mut().enumerate().take(len) {
            *b = (i * 7) as u8;
        }
        p
    }

    #[test]
    fn round_trip_at_both_bounds() {
        for len in [MIN_LEN, 320, MAX_LEN] {
            let p = packet(len);
            let mut line = [0u8; MAX_LINE_LEN];
            let text = encode(&p[..len], &mut line).unwrap();
            assert_eq!(text.len(), len.div_ceil(3) * 4);
            let mut out = [0u8; MAX_LEN];
            assert_eq!(decode(text.as_bytes(), &mut out).unwrap(), &p[..len]);
        }
        assert_eq!(MAX_LINE_LEN, 1032);
    }

    #[test]
    fn bad_character_names_its_column() {
        let p = packet(320);
        let mut line = [0u8; MAX_LINE_LEN];
        let n = encode(&p[..320], &mut line).unwrap().len();
        line[10] = b'!';
        let mut out = [0u8; MAX_LEN];
        assert_eq!(
            decode(&line[..n], &mut out),
            Err(LineError::BadCharacter {
                column: 10,
                byte: b'!'
            })
        );
    }

    #[test]
    fn bad_padding_and_sizes() {
        let mut out = [0u8; MAX_LEN];
        let p = packet(320);
        let mut line = [0u8; MAX_LINE_LEN];
        let n = encode(&p[..319], &mut line).unwrap().len();
        // 319 bytes end in one '=': drop it.
        assert_eq!(decode(&line[..n - 1], &mut out), Err(LineError::BadPadding));
        // '=' in the middle.
        line[8] = b'=';
        assert_eq!(decode(&line[..n], &mut out), Err(LineError::BadPadding));
        assert_eq!(
            decode(b"AAAA", &mut out),
            Err(LineError::SizeOutOfBounds(3))
        );
        let long = [b'A'; MAX_LINE_LEN + 4];
        assert_eq!(
            decode(&long, &mut out),
            Err(LineError::SizeOutOfBounds(777))
        );
        let mut small = [0u8; 10];
        assert_eq!(
            encode(&p[..320], &mut small),
            Err(LineError::BufferTooSmall(428))
        );
    }
}
