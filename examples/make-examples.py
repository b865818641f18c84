#!/usr/bin/env python3
"""Makes the examples the docs use that the project derives or writes itself
(examples/PROVENANCE.md says which): face.glb, dao-legacy.gesichter, take.csv.

    python3 examples/make-examples.py [OUT_DIR]     # default: examples/

Only the standard library; the output is the same bytes on every run (the
tests run it and compare with the files in examples/).
"""

import base64
import json
import struct
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# face.glb: one triangle with five morph targets named as Character Creator
# names them (examples/cc4.json maps them back to ARKit shapes), animated
# over two seconds with linear keys: the jaw opens and closes, both eyes
# blink at one second, the smile rises.
TARGETS = ["Mouth_Open", "Eye_Blink_L", "Eye_Blink_R", "Mouth_Smile_L", "Mouth_Smile_R"]
TIMES = [0.0, 0.5, 1.0, 1.5, 2.0]
WEIGHTS = [
    # Mouth_Open, Eye_Blink_L, Eye_Blink_R, Mouth_Smile_L, Mouth_Smile_R
    [0.0, 0.0, 0.0, 0.0, 0.0],
    [0.75, 0.0, 0.0, 0.25, 0.25],
    [0.5, 1.0, 1.0, 0.5, 0.5],
    [0.0, 0.0, 0.0, 0.75, 0.75],
    [0.0, 0.0, 0.0, 0.5, 0.5],
]
# How many frames of LLV's clear file of dao go into the legacy example.
LEGACY_FRAMES = 15
# How many rows of the phone take go into take.csv (five seconds at 30 Hz).
CSV_ROWS = 150


def f32s(values):
    return b"".join(struct.pack("<f", v) for v in values)


def glb():
    times = f32s(TIMES)
    weights = f32s([w for key in WEIGHTS for w in key])
    positions = f32s([0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0])
    offsets = f32s([0.0, 0.0, 0.01] * 3)
    blob = times + weights + positions + offsets
    views, at = [], 0
    for part in (times, weights, positions, offsets):
        views.append({"buffer": 0, "byteOffset": at, "byteLength": len(part)})
        at += len(part)
    doc = {
        "asset": {"version": "2.0", "generator": "llv examples/make-examples.py"},
        "buffers": [{"byteLength": len(blob)}],
        "bufferViews": views,
        "accessors": [
            {"bufferView": 0, "componentType": 5126, "count": len(TIMES), "type": "SCALAR",
             "min": [TIMES[0]], "max": [TIMES[-1]]},
            {"bufferView": 1, "componentType": 5126, "count": len(TIMES) * len(TARGETS),
             "type": "SCALAR"},
            {"bufferView": 2, "componentType": 5126, "count": 3, "type": "VEC3",
             "min": [0.0, 0.0, 0.0], "max": [1.0, 1.0, 0.0]},
            {"bufferView": 3, "componentType": 5126, "count": 3, "type": "VEC3",
             "min": [0.0, 0.0, 0.01], "max": [0.0, 0.0, 0.01]},
        ],
        "meshes": [{
            "name": "Face",
            "primitives": [{"attributes": {"POSITION": 2},
                            "targets": [{"POSITION": 3} for _ in TARGETS]}],
            "weights": [0.0] * len(TARGETS),
            "extras": {"targetNames": TARGETS},
        }],
        "nodes": [{"mesh": 0, "name": "Face"}],
        "scenes": [{"nodes": [0]}],
        "scene": 0,
        "animations": [{
            "name": "blink-and-talk",
            "channels": [{"sampler": 0, "target": {"node": 0, "path": "weights"}}],
            "samplers": [{"input": 0, "output": 1, "interpolation": "LINEAR"}],
        }],
    }
    text = json.dumps(doc, separators=(",", ":"), sort_keys=True).encode()
    text += b" " * (-len(text) % 4)
    blob += b"\0" * (-len(blob) % 4)
    chunks = struct.pack("<I4s", len(text), b"JSON") + text
    chunks += struct.pack("<I4s", len(blob), b"BIN\0") + blob
    return struct.pack("<4sII", b"glTF", 2, 12 + len(chunks)) + chunks


def legacy():
    """LLV's legacy lines (FORMATS 3c): each frame object of LLV's own clear
    file of dao (tests/fixtures/dao.klare-gesichter), base64'd on a line."""
    clear = json.loads((ROOT / "tests/fixtures/dao.klare-gesichter").read_text())
    lines = []
    for frame in clear["frames"][:LEGACY_FRAMES]:
        text = json.dumps(frame, separators=(",", ":"))
        lines.append(base64.b64encode(text.encode()).decode() + "\n")
    return "".join(lines).encode()


def take_csv():
    """The first rows of the real phone take tests/fixtures/llf/alex_rom_3.csv, unchanged."""
    with open(ROOT / "tests/fixtures/llf/alex_rom_3.csv", "rb") as f:
        return b"".join(next(f) for _ in range(1 + CSV_ROWS))


def main():
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "examples"
    for name, body in (("face.glb", glb()), ("dao-legacy.gesichter", legacy()),
                       ("take.csv", take_csv())):
        (out / name).write_bytes(body)
        print(f"{out / name}: {len(body)} bytes")


if __name__ == "__main__":
    main()
