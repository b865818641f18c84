#!/usr/bin/env python3
"""An OSC client that is not llv's: python-osc (PyPI) sends the messages and
reads the replies, for the end-to-end tests of the box's OSC door and of
`llv serve`.

    osc_client.py HOST PORT TRANSPORT STEPS_JSON

TRANSPORT: udp, tcp1.1 (SLIP, double END), tcp1.0 (int32 size prefix),
or short1.1 / short1.0 (one TCP connection per message, closed right after
sending it, as Companion's TCP mode does: no reply is read).

STEPS_JSON: a list of steps, each ["/address", arg, ...] (strings, ints and
floats as JSON gives them) or ["wait", SECONDS] (collect whatever arrives).
After each message the client waits (at most 10 s) for one reply.

Prints one JSON line per OSC message received: {"address": ..., "args": [...]},
a string argument holding JSON decoded into "json".
"""

import json
import socket
import sys
import time

from pythonosc import tcp_client
from pythonosc.osc_message import OscMessage
from pythonosc.osc_message_builder import OscMessageBuilder

REPLY_TIMEOUT = 10.0


def build(address, args):
    builder = OscMessageBuilder(address=address)
    for a in args:
        builder.add_arg(a)
    return builder.build()


def show(message):
    out = {"address": message.address, "args": list(message.params)}
    for a in message.params:
        if isinstance(a, str) and a.startswith("{"):
            out["json"] = json.loads(a)
    print(json.dumps(out), flush=True)


def run_udp(host, port, steps):
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)

    def receive(until, count):
        got = 0
        while time.monotonic() < until and (count is None or got < count):
            sock.settimeout(max(0.01, until - time.monotonic()))
            try:
                data, _ = sock.recvfrom(65536)
            except socket.timeout:
                break
            show(OscMessage(data))
            got += 1

    for step in steps:
        if step[0] == "wait":
            receive(time.monotonic() + step[1], None)
            continue
        sock.sendto(build(step[0], step[1:]).dgram, (host, port))
        receive(time.monotonic() + REPLY_TIMEOUT, 1)


def run_tcp(host, port, mode, steps):
    client = tcp_client.SimpleTCPClient(host, port, mode=mode, timeout=REPLY_TIMEOUT)
    for step in steps:
        if step[0] == "wait":
            end = time.monotonic() + step[1]
            while time.monotonic() < end:
                for m in client.receive(timeout=max(0.01, end - time.monotonic())):
                    show(OscMessage(m))
            continue
        client.send_message(step[0], step[1:])
        for m in client.receive(timeout=REPLY_TIMEOUT):
            show(OscMessage(m))
    client.close()


def run_short(host, port, mode, steps):
    for step in steps:
        client = tcp_client.SimpleTCPClient(host, port, mode=mode, timeout=REPLY_TIMEOUT)
        client.send_message(step[0], step[1:])
        client.close()
        # The next message's connection may take the same slot.
        time.sleep(0.05)


def main():
    host, port, transport, steps = sys.argv[1], int(sys.argv[2]), sys.argv[3], json.loads(sys.argv[4])
    if transport == "udp":
        run_udp(host, port, steps)
    elif transport in ("tcp1.1", "tcp1.0"):
        run_tcp(host, port, transport[3:], steps)
    elif transport in ("short1.1", "short1.0"):
        run_short(host, port, transport[5:], steps)
    else:
        sys.exit(f"unknown transport {transport}")


if __name__ == "__main__":
    main()
