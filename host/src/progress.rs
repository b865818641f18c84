//! Progress of long work on standard error (indicatif draws only on a terminal).

use indicatif::{ProgressBar, ProgressStyle};

use crate::recording::Frames;

/// A bar over the bytes of `frames`' source, or a spinner counting frames
/// when its length is unknown (standard input); `what` says what is done.
pub fn reading(frames: &Frames, what: &str) -> ProgressBar {
    let bar = match frames.position().1 {
        Some(len) => ProgressBar::new(len).with_style(
            ProgressStyle::with_template("{msg} [{bar:40}] {bytes}/{total_bytes} {eta}")
                .expect("valid template")
                .progress_chars("=> "),
        ),
        None => ProgressBar::new_spinner().with_style(
            ProgressStyle::with_template("{spinner} {msg} {bytes}").expect("valid template"),
        ),
    };
    bar.set_message(format!("{what} {}", frames.name()));
    bar
}

/// Moves `bar` to where `frames` has read.
pub fn update(bar: &ProgressBar, frames: &Frames) {
    bar.set_position(frames.position().0);
}
