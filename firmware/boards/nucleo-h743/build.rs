//! Linker setup (embassy-stm32 provides memory.x) and the build-time
//! command line: `LLV_BOX_CMDLINE` overrides the keys compiled into the image.

fn main() {
    println!("cargo:rerun-if-env-changed=LLV_BOX_CMDLINE");
    println!("cargo:rustc-link-arg-bins=--nmagic");
    println!("cargo:rustc-link-arg-bins=-Tlink.x");
    println!("cargo:rustc-link-arg-bins=-Tdefmt.x");
}
