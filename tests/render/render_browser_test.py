#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""`switchyard render` checked in a real headless browser (Debian's chromium).

A 1024-host Dragonfly+ fabric (ibsim, real ibnetdiscover) is discovered, a 256-node job is
planned in 8 stages, two nodes fail their health checks; the SVG must stay under 2 MB, parse
without error in chromium (--dump-dom), and its screenshot must show every stage colour and the
drained marker (pixels counted in the PNG, decoded here with zlib alone).

Usage: render_browser_test.py SWITCHYARD_BIN GEN_FABRIC IBSIM_CAPTURE
"""
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

PALETTE = ["1f77b4", "ff7f0e", "2ca02c", "9467bd", "8c564b", "e377c2", "17becf", "bcbd22"]
DRAINED = "d62728"

failures = 0


def check(ok, what):
    global failures
    print(("ok: " if ok else "FAIL: ") + what)
    if not ok:
        failures += 1


def run(*cmd, **kw):
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=300, **kw)
    if r.returncode != 0:
        print("command failed:", " ".join(cmd), "\n", r.stdout[-2000:], r.stderr[-2000:])
        sys.exit(1)
    return r.stdout


def chromium():
    for name in ("chromium", "chromium-browser"):
        path = shutil.which(name)
        if path:
            return path
    print("FAIL: chromium is not installed (scripts/install-deps installs it)")
    sys.exit(1)


def browser(*args):
    # Root in CI: no sandbox; no GPU here; a private profile so runs do not share state.
    profile = tempfile.mkdtemp(prefix="sy-chromium-")
    try:
        return run(chromium(), "--headless", "--no-sandbox", "--disable-gpu",
                   "--hide-scrollbars", "--user-data-dir=" + profile, *args)
    finally:
        shutil.rmtree(profile, ignore_errors=True)


def png_pixels(path):
    """RGB(A) 8-bit non-interlaced PNG → (width, height, channels, rows of bytes)."""
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, width = 8, b"", 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and colour in (2, 6) and interlace == 0, "unexpected PNG format"
            channels = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride = width * channels
    rows, prev = [], bytearray(stride)
    for y in range(height):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - channels] if i >= channels else 0
            b = prev[i]
            c = prev[i - channels] if i >= channels else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return width, height, channels, rows


def colour_counts(path, wanted):
    width, height, channels, rows = png_pixels(path)
    want = {bytes.fromhex(h): h for h in wanted}
    counts = {h: 0 for h in wanted}
    for row in rows:
        for x in range(0, width * channels, channels):
            h = want.get(row[x:x + 3])
            if h:
                counts[h] += 1
    return counts


def main():
    sy, gen, capture = sys.argv[1:4]
    work = tempfile.mkdtemp(prefix="sy-render-")
    try:
        run(gen, "dfp", "--groups", "8", "--leaves", "4", "--spines", "4", "--hosts-per-leaf",
            "32", "--global-links", "2", "-o", os.path.join(work, "fabric"))
        run(capture, os.path.join(work, "fabric.net"), os.path.join(work, "ib.txt"))
        run(sy, "discover", "--ibnetdiscover", os.path.join(work, "ib.txt"), "-o",
            os.path.join(work, "out"))
        fabric_map = os.path.join(work, "out", "fabric.map")
        hosts = [l.split()[1] for l in open(fabric_map) if l.startswith("host ")]
        check(len(hosts) == 1024, "the fabric has 1024 hosts (got %d)" % len(hosts))
        plan = run(sy, "plan", "--map", fabric_map, "--nodes", ",".join(hosts[:256]),
                   "--stages", "8", "--json")
        open(os.path.join(work, "plan.json"), "w").write(plan)
        health = os.path.join(work, "health")
        os.mkdir(health)
        for node in (hosts[300], hosts[301]):
            json.dump({"node": node, "verdict": "fail", "checks": [
                {"name": "rdma-ports", "status": "fail", "detail": "0 of 1 compute ports usable",
                 "duration_ms": 0.2}]}, open(os.path.join(health, node + ".json"), "w"))
        svg = os.path.join(work, "fabric.svg")
        run(sy, "render", "--map", fabric_map, "--plan", os.path.join(work, "plan.json"),
            "--health", health, "-o", svg)
        size = os.path.getsize(svg)
        check(size < 2 * 1024 * 1024, "the 1024-host SVG is under 2 MB (%d bytes)" % size)

        dom = browser("--dump-dom", "file://" + svg)
        check("parsererror" not in dom and "This page contains the following errors" not in dom,
              "chromium parses the SVG without error")
        check("1024 hosts" in dom, "the title counts 1024 hosts")
        check(dom.count('class="host') == 1024, "every host is a cell (1024 in the DOM)")
        check(dom.count('class="host drained"') == 2, "both failed nodes are marked drained")

        png = os.path.join(work, "fabric.png")
        browser("--screenshot=" + png, "--window-size=2400,1400", "file://" + svg)
        counts = colour_counts(png, PALETTE + [DRAINED])
        for i, h in enumerate(PALETTE):
            check(counts[h] > 500, "stage %d's colour #%s is on screen (%d px)" % (i, h, counts[h]))
        check(counts[DRAINED] > 20, "the drained marker is on screen (%d px)" % counts[DRAINED])
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("%d failed" % failures)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
