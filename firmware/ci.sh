#!/usr/bin/env bash
# Firmware CI: format check, release builds of both boards, clippy with
# warnings as errors on every firmware crate, the host tests of the app and
# the take store, and the image sizes. (The session and the card library,
# shared with the host, are tested in the root workspace.) Needs Rust stable with the thumbv7em-none-eabihf target,
# gcc, python3 and mkfs.fat (dosfstools, for the card tests). The QEMU
# end-to-end test lives in the root `tests` crate.
set -euo pipefail
cd "$(dirname "$0")"

if command -v rustup >/dev/null &&
    ! rustup target list --installed | grep -qx thumbv7em-none-eabihf; then
    rustup target add thumbv7em-none-eabihf
fi
host=$(rustc -vV | sed -n 's/^host: //p')

step() { printf '\n== firmware: %s (at %d s)\n' "$*" "$SECONDS"; }

step "cargo fmt --check"
cargo fmt --all -- --check
rustfmt --edition 2021 --check e2e/*.rs bench/*.rs

# One board per cargo invocation: the boards use different executors (see
# Cargo.toml), which must not be feature-unified into one build.
step "build llv-box-qemu (release)"
cargo build --release -p llv-box-qemu
step "build llv-box-nucleo (release)"
cargo build --release -p llv-box-nucleo

# One invocation for the host crates, with the features the host tests use:
# their dependencies are checked once.
step "clippy llv-box, llv-box-store and llv-hal-stm32h7 (host, with tests); the store for the board with defmt"
cargo clippy -p llv-box -p llv-box-store -p llv-hal-stm32h7 --all-targets \
  --features llv-box/builtin --target "$host" -- -D warnings
cargo clippy -p llv-box-store --features defmt -- -D warnings
step "clippy llv-hal-mps2"
cargo clippy --release -p llv-hal-mps2 -- -D warnings
step "clippy llv-box-qemu"
cargo clippy --release -p llv-box-qemu --all-targets -- -D warnings
step "clippy llv-box-nucleo"
cargo clippy --release -p llv-box-nucleo --all-targets -- -D warnings

step "host tests: llv-box, llv-box-store, llv-hal-stm32h7 ($host)"
cargo test -p llv-box -p llv-box-store -p llv-hal-stm32h7 --features llv-box/builtin --target "$host"

step "NUCLEO-H743ZI2 image size (budget: 384 KiB of flash, 256 KiB of static RAM)"
python3 tools/elf_size.py --budget 384 256 target/thumbv7em-none-eabihf/release/llv-box-nucleo
step "QEMU image size"
python3 tools/elf_size.py target/thumbv7em-none-eabihf/release/llv-box-qemu
