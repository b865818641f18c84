//! The `llv` binary itself, as cargo builds it for this package: it names
//! its version (the one scripts and bug reports quote). The command line's
//! behaviour end to end is tested in the root `tests` crate, which runs this
//! same binary (`LLV_BIN` in the test command).

use std::process::Command;

#[test]
fn llv_names_its_version() {
    let out = Command::new(env!("CARGO_BIN_EXE_llv"))
        .arg("--version")
        .output()
        .expect("running llv");
    assert!(out.status.success(), "{out:?}");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        format!("llv {}", env!("CARGO_PKG_VERSION"))
    );
}
