//! The box's log: defmt frames on QEMU's standard output (semihosting),
//! decoded with the image's own table into lines of text.

use std::io::Read;

use defmt_decoder::{DecodeError, Table};

/// Reads defmt from `input` until it ends and hands each decoded line to
/// `line`; `elf` is the image the box runs (its `.defmt` section names every
/// message). An image without defmt passes its output through as text.
pub fn decode(elf: &[u8], mut input: impl Read, mut line: impl FnMut(String)) {
    let table = match Table::parse(elf) {
        Ok(Some(table)) => table,
        Ok(None) => return pass_through(input, line),
        Err(e) => {
            line(format!("(log not decodable: {e}; raw bytes follow)"));
            return pass_through(input, line);
        }
    };
    let recovers = table.encoding().can_recover();
    let mut decoder = table.new_stream_decoder();
    let mut buf = [0u8; 4096];
    loop {
        let n = match input.read(&mut buf) {
            Ok(0) | Err(_) => return,
            Ok(n) => n,
        };
        decoder.received(&buf[..n]);
        loop {
            match decoder.decode() {
                Ok(frame) => line(frame.display(false).to_string()),
                Err(DecodeError::UnexpectedEof) => break,
                Err(DecodeError::Malformed) if recovers => {
                    line("(a log frame did not decode: skipped)".into());
                }
                Err(DecodeError::Malformed) => {
                    line("(the log stopped decoding: a frame was malformed)".into());
                    return;
                }
            }
        }
    }
}

fn pass_through(input: impl Read, mut line: impl FnMut(String)) {
    use std::io::BufRead;
    for l in std::io::BufReader::new(input).lines() {
        match l {
            Ok(l) => line(l),
            Err(_) => return,
        }
    }
}
