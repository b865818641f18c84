#!/usr/bin/env bash
# Prints the box's stage figures under QEMU (see stage.py): late frames with
# and without an upload, the operator's connect time beside idle clients, and
# the watchdog's recovery time. Builds what it needs first.
set -euo pipefail
cd "$(dirname "$0")/.."
(cd .. && cargo build --release -p llv --bin llv)
cargo build --release -p llv-box-qemu
python3 bench/stage.py --runs "${RUNS:-3}"
