#!/usr/bin/env python3
"""OSC command to first frame: how long after a show tool sends
`/llv/play dao` the first frame of the take reaches its target, for the box
under QEMU and for `llv serve` on this machine (osc_latency.sh builds both).

Each round: python-osc sends `/llv/play dao` over UDP (or TCP, SLIP) and the
clock starts; it stops when the first frame arrives at a UDP socket here
(the box's target: 10.0.2.2, which QEMU's user network delivers to
127.0.0.1; `llv serve`'s: 127.0.0.1); then `/llv/stop`, and the socket is
drained. Also the reply time of `/llv/status`. Prints p50, p90 and max in ms.

Everything talks to 127.0.0.1 or QEMU's own network.

Usage: osc_latency.py [--rounds N]
"""
import argparse
import json
import socket
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from pythonosc import tcp_client
from pythonosc.osc_message import OscMessage
from pythonosc.osc_message_builder import OscMessageBuilder

HERE = Path(__file__).resolve().parent
FIRMWARE = HERE.parent
ROOT = FIRMWARE.parent
ELF = FIRMWARE / "target/thumbv7em-none-eabihf/release/llv-box-qemu"
LLV = ROOT / "target/release/llv"
DAO = ROOT / "examples/dao.gesichter"


def free_port(kind=socket.SOCK_STREAM):
    while True:
        with socket.socket(socket.AF_INET, kind) as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        other = socket.SOCK_DGRAM if kind == socket.SOCK_STREAM else socket.SOCK_STREAM
        try:
            with socket.socket(socket.AF_INET, other) as s:
                s.bind(("127.0.0.1", port))
            return port
        except OSError:
            continue


def llv(*args):
    return subprocess.run([LLV, *map(str, args)], check=True, capture_output=True, text=True)


def message(address, *args):
    b = OscMessageBuilder(address=address)
    for a in args:
        b.add_arg(a)
    return b.build().dgram


def measure(osc_port, receiver, rounds, transport):
    """First-frame latencies and status reply times, in ms."""
    firsts, statuses = [], []
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.settimeout(5)
    tcp = None
    if transport == "tcp":
        tcp = tcp_client.SimpleTCPClient("127.0.0.1", osc_port, mode="1.1", timeout=5)

    def send(address, *args):
        if tcp:
            tcp.send_message(address, list(args))
            tcp.receive(timeout=5)
        else:
            sock.sendto(message(address, *args), ("127.0.0.1", osc_port))
            sock.recvfrom(4096)

    for _ in range(rounds):
        receiver.settimeout(0.05)
        try:
            while True:
                receiver.recv(2048)
        except socket.timeout:
            pass
        receiver.settimeout(10)
        t0 = time.perf_counter()
        if tcp:
            tcp.send_message("/llv/play", ["dao", 0])
        else:
            sock.sendto(message("/llv/play", "dao", 0), ("127.0.0.1", osc_port))
        receiver.recv(2048)
        firsts.append((time.perf_counter() - t0) * 1000)
        if tcp:
            tcp.receive(timeout=5)
        else:
            sock.recvfrom(4096)
        t0 = time.perf_counter()
        send("/llv/status")
        statuses.append((time.perf_counter() - t0) * 1000)
        send("/llv/stop")
        time.sleep(0.05)
    if tcp:
        tcp.close()
    return firsts, statuses


def summary(name, values):
    values = sorted(values)
    p = lambda q: values[min(len(values) - 1, int(q * len(values)))]
    return f"{name}: p50 {p(0.5):.1f} ms, p90 {p(0.9):.1f} ms, max {values[-1]:.1f} ms ({len(values)} rounds)"


def box(rounds):
    with tempfile.TemporaryDirectory() as tmp:
        control, osc = free_port(), free_port()
        qemu = subprocess.Popen(
            ["qemu-system-arm", "-M", "mps2-an386", "-nographic", "-monitor", "none",
             "-serial", "none", "-semihosting-config", "enable=on,target=native",
             "-nic", f"user,model=lan9118,hostfwd=tcp:127.0.0.1:{control}-:11113,"
             f"hostfwd=tcp:127.0.0.1:{osc}-:11114,hostfwd=udp:127.0.0.1:{osc}-:11114",
             "-kernel", str(ELF), "-append", f"flash={tmp}/flash.bin erase_ms=0"],
            stdout=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
        try:
            deadline = time.monotonic() + 30
            while subprocess.run([LLV, "box", f"127.0.0.1:{control}", "status"],
                                 capture_output=True).returncode != 0:
                assert time.monotonic() < deadline, "the box did not answer"
                time.sleep(0.2)
            llv("flash", DAO, "--box", f"127.0.0.1:{control}")
            receiver = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            receiver.bind(("127.0.0.1", 0))
            llv("box", f"127.0.0.1:{control}", "config", "targets",
                f"10.0.2.2:{receiver.getsockname()[1]}")
            for transport in ("udp", "tcp"):
                firsts, statuses = measure(osc, receiver, rounds, transport)
                print(summary(f"QEMU box, OSC {transport}, /llv/play to first frame", firsts))
                print(summary(f"QEMU box, OSC {transport}, /llv/status reply", statuses))
        finally:
            qemu.kill()
            qemu.wait()


def serve(rounds):
    with tempfile.TemporaryDirectory() as tmp:
        Path(tmp, "dao.gesichter").write_bytes(DAO.read_bytes())
        proc = subprocess.Popen(
            [LLV, "serve", tmp, "--bind", "127.0.0.1", "--port", "0", "--osc-port", "0",
             "--no-discovery", "--json"],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        try:
            ports = json.loads(proc.stdout.readline())
            receiver = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            receiver.bind(("127.0.0.1", 0))
            llv("box", f"127.0.0.1:{ports['control']}", "config", "targets",
                f"127.0.0.1:{receiver.getsockname()[1]}")
            for transport in ("udp", "tcp"):
                firsts, statuses = measure(ports["osc"], receiver, rounds, transport)
                print(summary(f"llv serve, OSC {transport}, /llv/play to first frame", firsts))
                print(summary(f"llv serve, OSC {transport}, /llv/status reply", statuses))
        finally:
            proc.kill()
            proc.wait()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=30)
    args = parser.parse_args()
    box(args.rounds)
    serve(args.rounds)


if __name__ == "__main__":
    main()
