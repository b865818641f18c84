//! Puts `device.x` (the default handler of each device interrupt) where
//! cortex-m-rt's `link.x` includes it from, as a peripheral access crate does.

use std::env;
use std::fs;
use std::path::PathBuf;

fn main() {
    let out = PathBuf::from(env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    fs::copy("device.x", out.join("device.x")).expect("copy device.x to OUT_DIR");
    println!("cargo:rustc-link-search={}", out.display());
    println!("cargo:rerun-if-changed=device.x");
    println!("cargo:rerun-if-changed=build.rs");
}
