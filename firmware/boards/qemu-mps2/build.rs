//! Linker setup: memory.x for the MPS2 board, an empty device.x (the vector
//! table is in src/irq.rs), cortex-m-rt's link.x and defmt.x.

use std::env;
use std::fs;
use std::path::PathBuf;

fn main() {
    let out = PathBuf::from(env::var_os("OUT_DIR").expect("OUT_DIR"));
    fs::copy("memory.x", out.join("memory.x")).expect("copy memory.x");
    fs::write(
        out.join("device.x"),
        "/* interrupts are listed in src/irq.rs */\n",
    )
    .expect("write device.x");
    println!("cargo:rustc-link-search={}", out.display());
    println!("cargo:rerun-if-changed=memory.x");
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rustc-link-arg-bins=--nmagic");
    println!("cargo:rustc-link-arg-bins=-Tlink.x");
    println!("cargo:rustc-link-arg-bins=-Tdefmt.x");
}
