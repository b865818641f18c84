#!/usr/bin/env bash
# Prints the box's FIGURES: QEMU playback of 4 loops of the built-in take
# (720 frames) measured at the host, and the NUCLEO image's flash and RAM.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -p llv-box-qemu
cargo build --release -p llv-box-nucleo
python3 bench/qemu_rate.py --loops "${LOOPS:-4}"
python3 tools/elf_size.py target/thumbv7em-none-eabihf/release/llv-box-nucleo
