#!/usr/bin/env python3
"""Figures for the QEMU box: arrival rate and intervals at the host, QEMU's CPU.

Boots firmware/target/thumbv7em-none-eabihf/release/llv-box-qemu (build it
first) with `targets=10.0.2.2:PORT loop=N`, receives on 127.0.0.1:PORT and
prints:
  - frames received, and whether each is byte-identical to the take;
  - arrival rate error in ppm: least-squares slope of arrival times over the
    times the take's own frame times schedule (and the plain first-to-last
    span, which one late first frame skews);
  - p50/p99/max of the intervals between frames one frame apart in the take;
  - QEMU's CPU use during playback: utime+stime from /proc/PID/stat over
    wall time, between the first and the last frame.

Usage: qemu_rate.py [--loops N] [--take examples/dao.gesichter]
"""
import argparse
import gzip
import os
import socket
import struct
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
FIRMWARE = HERE.parent
ROOT = FIRMWARE.parent
ELF = FIRMWARE / "target/thumbv7em-none-eabihf/release/llv-box-qemu"


def read_llv(path):
    raw = gzip.open(path).read()
    assert raw[0] == 6, "LLV version"
    (count,) = struct.unpack_from(">I", raw, 1)
    at, packets = 5, []
    for _ in range(count):
        (n,) = struct.unpack_from(">I", raw, at)
        packets.append(raw[at + 4:at + 4 + n])
        at += 4 + n
    return packets


def frame_seconds(p):
    at = 1
    for _ in range(2):  # device id, subject
        (n,) = struct.unpack_from(">i", p, at)
        at += 4 + n
    number, sub, num, den = struct.unpack_from(">ifii", p, at)
    return (number + sub) * den / num


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def pct(sorted_values, q):
    return sorted_values[min(len(sorted_values) - 1, int(q * len(sorted_values)))]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--loops", type=int, default=4)
    ap.add_argument("--take", default=str(ROOT / "examples/dao.gesichter"))
    args = ap.parse_args()
    packets = read_llv(args.take)
    times = [frame_seconds(p) for p in packets]
    period = times[-1] - times[0] + 1 / 60
    schedule = [k * period + t - times[0] for k in range(args.loops) for t in times]
    expected = packets * args.loops

    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.bind(("127.0.0.1", 0))
    sock.settimeout(0.1)
    port = sock.getsockname()[1]
    qemu = subprocess.Popen(
        ["qemu-system-arm", "-M", "mps2-an386", "-nographic",
         "-semihosting-config", "enable=on,target=native",
         "-nic", "user,model=lan9118", "-kernel", str(ELF),
         "-append", f"targets=10.0.2.2:{port} loop={args.loops}"],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
    arrivals, data = [], []
    cpu_first = cpu_last = None
    deadline = time.monotonic() + 30 + period * args.loops
    try:
        while time.monotonic() < deadline and len(arrivals) < len(expected):
            try:
                d = sock.recv(2048)
            except socket.timeout:
                if qemu.poll() is not None:
                    break
                continue
            now = time.monotonic()
            if not arrivals:
                cpu_first = (cpu_seconds(qemu.pid), now)
            arrivals.append(now)
            data.append(d)
            cpu_last = (cpu_seconds(qemu.pid), now)
        status = qemu.wait(timeout=10)
    finally:
        if qemu.poll() is None:
            qemu.kill()
            qemu.wait()

    n = len(arrivals)
    identical = n == len(expected) and all(a == b for a, b in zip(data, expected))
    print(f"frames: {n}/{len(expected)} received, byte-identical and in order: {identical}, QEMU exit {status}")
    if n < 2:
        sys.exit(1)
    measured = arrivals[-1] - arrivals[0]
    scheduled = schedule[n - 1] - schedule[0]
    span_ppm = (scheduled / measured - 1) * 1e6
    # Least-squares slope of arrival time over scheduled time: one late
    # first or last frame does not skew it the way a first-to-last span does.
    xs, ys = schedule[:n], [a - arrivals[0] for a in arrivals]
    mx, my = sum(xs) / n, sum(ys) / n
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
    fit_ppm = (1 / slope - 1) * 1e6
    print(f"arrival rate error: {fit_ppm:+.0f} ppm (least-squares fit over {n} frames); "
          f"first-to-last span {span_ppm:+.0f} ppm ({measured:.4f} s, scheduled {scheduled:.4f} s)")
    steps = [arrivals[i + 1] - arrivals[i] for i in range(n - 1)
             if abs((schedule[i + 1] - schedule[i]) * 60 - 1) < 0.1]
    steps.sort()
    print(f"intervals (one frame apart, {len(steps)}): p50 {pct(steps, .5) * 1e3:.3f} ms, "
          f"p99 {pct(steps, .99) * 1e3:.3f} ms, max {steps[-1] * 1e3:.3f} ms, "
          f"mean rate {len(steps) / sum(steps):.3f} fps")
    lag = [a - arrivals[0] - (s - schedule[0]) for a, s in zip(arrivals, schedule)]
    median = sorted(lag)[n // 2]
    dev = sorted(abs(x - median) for x in lag)
    print(f"|arrival - schedule - median offset|: p50 {pct(dev, .5) * 1e3:.3f} ms, "
          f"p99 {pct(dev, .99) * 1e3:.3f} ms, max {dev[-1] * 1e3:.3f} ms")
    cpu = (cpu_last[0] - cpu_first[0]) / (cpu_last[1] - cpu_first[1])
    print(f"QEMU CPU during playback: {cpu * 100:.1f} % of one core")
    sys.exit(0 if identical and status == 0 else 1)


if __name__ == "__main__":
    main()
