//! The runner's command line: a missing image or a stray argument is
//! refused with exit code 2 and the usage, before QEMU starts. (Booting the
//! box is tested by the root `tests` crate and the firmware README's
//! walk-through, which run this same binary.)

use std::process::{Command, Output};

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_llv-qemu-box"))
        .args(args)
        .output()
        .expect("running llv-qemu-box")
}

#[test]
fn no_image_is_refused_with_the_usage() {
    let out = run(&["-append", "loop=2"]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("which image?") && err.contains("-append"),
        "{err}"
    );
}

#[test]
fn a_stray_argument_is_named() {
    let out = run(&["box.elf", "extra"]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("unexpected \"extra\""), "{err}");
}
