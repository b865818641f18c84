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
    if !line.len().is_multiple_of(4) {
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
