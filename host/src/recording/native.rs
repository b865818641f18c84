//! The native recording (FORMATS 3a): one base64 packet per line.

use std::io::{self, Write};

use anyhow::Result;
use llv_core::line::{self, MAX_LINE_LEN};
use llv_core::packet::MAX_LEN;

use super::each_line;
use super::stream::{Emitter, FrameSink, Input};
#[cfg(test)]
use crate::take::Take;

/// Reads every line; a bad line is an error naming file, line and field, except an
/// unterminated last line (a killed recording), which becomes a warning and is skipped.
pub fn read(
    name: &str,
    input: &mut Input,
    emit: &mut Emitter,
    warnings: &mut Vec<String>,
) -> Result<()> {
    let mut packet = [0u8; MAX_LEN];
    each_line(name, &mut input.reader, warnings, |text| {
        let decoded = line::decode(text, &mut packet).map_err(|e| e.to_string())?;
        emit.frame(decoded)
    })
}

/// Writes one packet as a line, newline included.
pub fn write_line(packet: &[u8], out: &mut dyn Write) -> io::Result<()> {
    let mut text = [0u8; MAX_LINE_LEN + 1];
    let len = line::encode(packet, &mut text)
        .map_err(|e| io::Error::other(e.to_string()))?
        .len();
    text[len] = b'\n';
    out.write_all(&text[..=len])
}

/// Writes base64 lines, one per frame.
pub struct Sink<'a> {
    out: &'a mut dyn Write,
    count: u64,
}

impl<'a> Sink<'a> {
    /// A sink writing to `out`.
    pub fn new(out: &'a mut dyn Write) -> Self {
        Sink { out, count: 0 }
    }
}

impl FrameSink for Sink<'_> {
    fn push(&mut self, packet: &[u8]) -> io::Result<()> {
        self.count += 1;
        write_line(packet, self.out)
    }

    fn finish(&mut self) -> io::Result<()> {
        self.out.flush()
    }

    fn count(&self) -> u64 {
        self.count
    }
}

/// Writes the take as base64 lines.
#[cfg(test)]
fn write(take: &Take, out: &mut dyn Write) -> io::Result<()> {
    take.packets().try_for_each(|p| write_line(p, out))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recording::read_bytes;
    use crate::take::tests_support::sample_take;
    use crate::take::Take;

    fn native(take: &Take) -> Vec<u8> {
        let mut out = Vec::new();
        write(take, &mut out).unwrap();
        out
    }

    #[test]
    fn round_trips_with_comments_blank_lines_and_crlf() {
        let take = sample_take(3);
        let text = String::from_utf8(native(&take)).unwrap();
        let mixed = format!("# llv take\n\n{}", text.replace('\n', "\r\n"));
        let loaded = read_bytes("t.gesichter", mixed.as_bytes()).unwrap();
        assert_eq!(loaded.take, take);
        assert!(loaded.warnings.is_empty());
    }

    #[test]
    fn bad_line_names_file_line_and_column() {
        let mut text = native(&sample_take(3));
        let second = text.iter().position(|b| *b == b'\n').unwrap() + 1;
        text[second + 4] = b'!';
        let err = read_bytes("take.gesichter", &text).unwrap_err().to_string();
        assert_eq!(
            err,
            "take.gesichter: line 2: column 5: byte 0x21 is not base64"
        );
    }

    #[test]
    fn bad_packet_names_the_field() {
        let take = sample_take(2);
        let mut packet = take.packets().nth(1).unwrap().to_vec();
        // The blendshape count byte follows the header.
        let count_at = packet.len() - 61 * 4 - 1;
        packet[count_at] = 60;
        let mut text = native(&sample_take(1));
        let mut line = [0u8; MAX_LINE_LEN];
        text.extend_from_slice(line::encode(&packet, &mut line).unwrap().as_bytes());
        text.push(b'\n');
        let err = read_bytes("take.gesichter", &text).unwrap_err().to_string();
        assert_eq!(
            err,
            format!(
                "take.gesichter: line 2: blendshape count at byte {count_at}: count 60, expected 61"
            )
        );
    }

    #[test]
    fn partial_last_line_is_a_warning() {
        let mut text = native(&sample_take(3));
        let full = text.len();
        text.truncate(full - 100);
        let loaded = read_bytes("killed.gesichter", &text).unwrap();
        assert_eq!(loaded.take.len(), 2);
        assert_eq!(loaded.warnings.len(), 1);
        assert!(
            loaded.warnings[0].starts_with(
                "killed.gesichter: line 3: partial last line (317 characters, no line end) skipped"
            ),
            "{}",
            loaded.warnings[0]
        );
    }

    #[test]
    fn a_bad_terminated_last_line_is_an_error() {
        let mut text = native(&sample_take(2));
        text.extend_from_slice(b"AAAA\n");
        let err = read_bytes("t.gesichter", &text).unwrap_err().to_string();
        assert_eq!(
            err,
            "t.gesichter: line 3: decodes to 3 bytes, outside 264..=774"
        );
    }
}
