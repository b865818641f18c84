//! Printing results to standard output without panicking when it is closed
//! (e.g. `llv info take | head`): a reader that has seen enough ends llv
//! quietly, with status 0, as `head` expects of the programs before it.

use std::fmt;
use std::io::{self, Write};

/// `println!` to standard output through [`line`]: a closed pipe ends the
/// process quietly.
#[macro_export]
macro_rules! outln {
    () => {
        $crate::console::line(::std::format_args!(""))
    };
    ($($arg:tt)*) => {
        $crate::console::line(::std::format_args!($($arg)*))
    };
}

/// Writes `args` and a newline to standard output. Standard output closed
/// (a broken pipe) ends the process at once with status 0; another failure
/// ends it with status 1 and says why.
pub fn line(args: fmt::Arguments<'_>) {
    let mut out = io::stdout().lock();
    let written = out
        .write_fmt(args)
        .and_then(|()| out.write_all(b"\n"))
        .and_then(|()| out.flush());
    match written {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => std::process::exit(0),
        Err(e) => {
            eprintln!("error: standard output: {e}");
            std::process::exit(1);
        }
    }
}

/// Writes `text` to standard output; a closed pipe is not an error.
pub fn print(text: &str) -> io::Result<()> {
    let mut out = io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        other => other,
    }
}

/// Whether `e` comes from standard output being closed (a reader that has
/// seen enough): llv then ends quietly.
pub fn is_closed_pipe(e: &anyhow::Error) -> bool {
    e.chain()
        .filter_map(|c| c.downcast_ref::<io::Error>())
        .any(|e| e.kind() == io::ErrorKind::BrokenPipe)
}

/// `text` with its control characters escaped (`\n`, `\u{1b}`...), safe to
/// print to a terminal: names and subjects come from the network and files.
pub fn printable(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.chars().any(char::is_control) {
        return text.into();
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if c.is_control() {
            out.extend(c.escape_debug());
        } else {
            out.push(c);
        }
    }
    out.into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_are_escaped_and_the_rest_kept() {
        assert_eq!(printable("dao"), "dao");
        assert_eq!(printable("bühne-2"), "bühne-2");
        assert_eq!(
            printable("a\u{1b}[2Jb\nc\td\u{7f}"),
            "a\\u{1b}[2Jb\\nc\\td\\u{7f}"
        );
    }
}
