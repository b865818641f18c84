//! Printing results to standard output without panicking when it is closed
//! (e.g. `llv info take | head`).

use std::io::{self, Write};

/// Writes `text` to standard output; a closed pipe is not an error.
pub fn print(text: &str) -> io::Result<()> {
    let mut out = io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        other => other,
    }
}
