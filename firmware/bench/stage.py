#!/usr/bin/env python3
"""Figures for the box on a stage, under QEMU: what flash work, a crowd of
idle connections and a hang cost the show.

Boots firmware/target/thumbv7em-none-eabihf/release/llv-box-qemu on fresh
flash files with the control port forwarded to 127.0.0.1, drives it with the
release `llv` (both built by stage.sh), and prints:

  - late frames: `dao` looping to a UDP socket here; the box's own count of
    frames sent more than 2 ms late (and the latest) over about the same
    span with and without a 1.2 MB upload (debug-all-blendshapes: ten 1.1 s
    erases), and the frames that arrived here;
  - operator connect time: `llv box status` wall time, alone and beside
    six connections that each sent one byte and then nothing;
  - watchdog recovery: from the last frame before an injected hang to the
    first frame of the autoplay after the watchdog's reset.

Usage: stage.py [--runs N]
"""
import argparse
import json
import socket
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
FIRMWARE = HERE.parent
ROOT = FIRMWARE.parent
ELF = FIRMWARE / "target/thumbv7em-none-eabihf/release/llv-box-qemu"
LLV = ROOT / "target/release/llv"
DAO = ROOT / "examples/dao.gesichter"
BIG = ROOT / "examples/debug-all-blendshapes.gesichter"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Box:
    """A QEMU box on `flash` with extra command-line `words`; killed on exit."""

    def __init__(self, elf, flash, words=""):
        self.port = free_port()
        self.qemu = subprocess.Popen(
            ["qemu-system-arm", "-M", "mps2-an386", "-nographic", "-monitor", "none",
             "-serial", "none", "-semihosting-config", "enable=on,target=native",
             "-nic", f"user,model=lan9118,hostfwd=tcp:127.0.0.1:{self.port}-:11113",
             "-kernel", str(elf), "-append", f"flash={flash} {words}"],
            stdout=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
        deadline = time.monotonic() + 30
        while subprocess.run([LLV, "box", self.addr(), "status"],
                             capture_output=True).returncode != 0:
            assert time.monotonic() < deadline, "the box did not answer"
            time.sleep(0.2)

    def addr(self):
        return f"127.0.0.1:{self.port}"

    def llv(self, *args):
        out = subprocess.run([LLV, *args], check=True, capture_output=True, text=True)
        return out.stdout

    def json(self, *args):
        return json.loads(self.llv(*args, "--json"))

    def __enter__(self):
        return self

    def __exit__(self, *_):
        self.qemu.kill()
        self.qemu.wait()


def receiver():
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("127.0.0.1", 0))
    s.settimeout(0.05)
    return s, f"10.0.2.2:{s.getsockname()[1]}"


def drain(sock, seconds):
    """Arrival times of the datagrams that arrive within `seconds`."""
    times, end = [], time.monotonic() + seconds
    while time.monotonic() < end:
        try:
            sock.recv(2048)
            times.append(time.monotonic())
        except socket.timeout:
            pass
    return times


def late_frames(runs):
    for run in range(runs):
        with tempfile.TemporaryDirectory() as d, Box(ELF, f"{d}/flash.bin") as box:
            box.llv("flash", str(DAO), "--box", box.addr())
            for phase in ("quiet", "upload"):
                sock, target = receiver()
                box.llv("box", box.addr(), "play", "dao", "--to", target, "--loop")
                start = time.monotonic()
                if phase == "upload":
                    uploader = subprocess.Popen(
                        [LLV, "flash", str(BIG), "--box", box.addr()],
                        stdout=subprocess.DEVNULL)
                    times = []
                    while uploader.poll() is None:
                        times += drain(sock, 0.5)
                    span = time.monotonic() - start
                else:
                    times = drain(sock, 12.0)
                    span = time.monotonic() - start
                playing = box.json("box", box.addr(), "status")["playing"]
                box.llv("box", box.addr(), "stop")
                print(f"run {run + 1} {phase:6}: {span:5.1f} s, {len(times)} frames here; box: "
                      f"{playing['late_frames']} late > 2 ms, latest {playing['max_late_us'] / 1e3:.1f} ms")
                sock.close()


def connect_time(runs):
    with tempfile.TemporaryDirectory() as d, Box(ELF, f"{d}/flash.bin") as box:
        def timed():
            start = time.monotonic()
            box.llv("box", box.addr(), "status")
            return time.monotonic() - start
        alone = [timed() for _ in range(runs)]
        crowd = []
        for _ in range(runs):
            tricklers = []
            # 20 ms apart: QEMU's user network accepts forwarded connections
            # with a short backlog, and a burst makes the host kernel retry a
            # SYN after 1 s, which is no part of the box.
            for _ in range(6):
                t = socket.create_connection(("127.0.0.1", box.port))
                t.sendall(b"\x03")
                tricklers.append(t)
                time.sleep(0.02)
            crowd.append(timed())
            for t in tricklers:
                t.close()
            time.sleep(0.2)
        for name, xs in (("alone", alone), ("beside 6 trickling clients", crowd)):
            print(f"llv box status {name}: median {statistics.median(xs) * 1e3:.0f} ms, "
                  f"max {max(xs) * 1e3:.0f} ms over {len(xs)}")


def watchdog_recovery(runs):
    gaps = []
    for _ in range(runs):
        with tempfile.TemporaryDirectory() as d:
            flash = f"{d}/flash.bin"
            sock, target = receiver()
            with Box(ELF, flash) as box:
                box.llv("flash", str(DAO), "--box", box.addr())
                box.llv("box", box.addr(), "config", "targets", target, "autoplay", "dao",
                        "autoplay-loops", "0")
            drain(sock, 0.5)
            with Box(ELF, flash, "hang_after_ms=4000"):
                times = drain(sock, 15.0)
            gap = max(b - a for a, b in zip(times, times[1:]))
            gaps.append(gap)
            sock.close()
    print(f"watchdog: last frame before the hang to the first after the restart: "
          + ", ".join(f"{g:.2f} s" for g in gaps))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    late_frames(args.runs)
    connect_time(10 * args.runs)
    watchdog_recovery(args.runs)


if __name__ == "__main__":
    main()
