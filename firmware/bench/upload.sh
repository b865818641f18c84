#!/usr/bin/env bash
# Prints the upload throughput of `llv flash` to the QEMU box with a store:
# boots the box on a fresh flash file (control port forwarded to
# 127.0.0.1:$PORT), then times RUNS uploads of TAKE (replacing each other) and
# prints bytes per second for each. LLV names the llv binary (default: the
# root workspace's release build, built if missing).
set -euo pipefail
cd "$(dirname "$0")/.."
TAKE=${TAKE:-../examples/debug-all-blendshapes.gesichter}
RUNS=${RUNS:-5}
PORT=${PORT:-17313}
if [ -z "${LLV:-}" ]; then
    (cd .. && cargo build --release -p llv --bin llv)
    LLV=../target/release/llv
fi
cargo build --release -p llv-box-qemu
dir=$(mktemp -d)
qemu-system-arm -M mps2-an386 -nographic -monitor none -serial none \
    -semihosting-config enable=on,target=native \
    -nic "user,model=lan9118,hostfwd=tcp:127.0.0.1:$PORT-:11113" \
    -kernel target/thumbv7em-none-eabihf/release/llv-box-qemu \
    -append "flash=$dir/flash.bin" >/dev/null &
qemu=$!
trap 'kill $qemu; rm -rf "$dir"' EXIT
for _ in $(seq 50); do
    "$LLV" box "127.0.0.1:$PORT" status >/dev/null 2>&1 && break
    sleep 0.2
done
for run in $(seq "$RUNS"); do
    start=$(date +%s.%N)
    bytes=$("$LLV" flash "$TAKE" --box "127.0.0.1:$PORT" --json | sed -n 's/.*"bytes": \([0-9]*\).*/\1/p')
    end=$(date +%s.%N)
    python3 -c "import sys; b, s = int(sys.argv[1]), float(sys.argv[3]) - float(sys.argv[2]); print(f'upload {sys.argv[4]}: {b} bytes in {s:.3f} s = {b / s / 1e6:.2f} MB/s')" "$bytes" "$start" "$end" "$run"
done
