#!/usr/bin/env bash
# Prints the OSC command to first frame latency of the box under QEMU and of
# `llv serve` (see osc_latency.py). Builds what it needs first; needs
# python-osc (scripts/test-all installs it).
set -euo pipefail
cd "$(dirname "$0")/.."
(cd .. && cargo build --release -p llv --bin llv)
cargo build --release -p llv-box-qemu
python3 bench/osc_latency.py --rounds "${ROUNDS:-30}"
