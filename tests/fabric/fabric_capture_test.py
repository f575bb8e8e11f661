#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""ibsim harness test: generate a fabric, capture real ibnetdiscover output from ibsim, and check
it against the generator's ground truth: numbers of switches, CAs and links, and every cable by
GUID and port (parallel cables included). Usage: fabric_capture_test.py CASE
"""
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))

CASES = {
    "fat2": ["fat2"],
    "fat3-pods-factory-names": ["fat3", "--pods", "2", "--leaves", "4", "--hosts-per-leaf", "4",
                                "--aggs", "2", "--cores-per-plane", "2", "--factory-names"],
    "dragonfly-plus": ["dfp", "--groups", "4", "--leaves", "2", "--spines", "2",
                       "--hosts-per-leaf", "4", "--global-links", "2"],
    "rail2-parallel": ["rail", "--sus", "2", "--hosts-per-su", "6", "--rails", "2",
                       "--spines", "2", "--parallel", "2"],
    "rail4": ["rail", "--sus", "2", "--hosts-per-su", "4", "--rails", "4", "--spines", "4"],
    "rail8": ["rail", "--sus", "2", "--hosts-per-su", "4", "--rails", "8", "--spines", "4"],
    "fat2-parallel": ["fat2", "--leaves", "6", "--hosts-per-leaf", "2", "--parallel", "2"],
}

RECORD = re.compile(r'^(Switch|Ca|Rt)\s+(\d+)\s+"([SHR])-([0-9a-f]+)"')
PORT = re.compile(r'^\[(\d+)\](?:\([0-9a-f]+\))?\s+"([SHR])-([0-9a-f]+)"\[(\d+)\]')
PLIST = re.compile(r'^(CA|SW)\s+\d+\s+(\d+)\s+0x([0-9a-f]+)\s+\d+x\s+\w+\s+-\s+(CA|SW)\s+\d+\s+(\d+)\s+0x([0-9a-f]+)')

failures = []


def check(cond, what):
    print(("ok: " if cond else "FAIL: ") + what)
    if not cond:
        failures.append(what)


def parse_default(text):
    counts = {"Switch": 0, "Ca": 0, "Rt": 0}
    cables = set()
    lines = 0
    node = None
    for line in text.splitlines():
        m = RECORD.match(line)
        if m:
            counts[m.group(1)] += 1
            node = int(m.group(4), 16)
            continue
        m = PORT.match(line)
        if m:
            lines += 1
            a = (node, int(m.group(1)))
            b = (int(m.group(3), 16), int(m.group(4)))
            cables.add(tuple(sorted([a, b])))
    return counts, cables, lines


def parse_portlist(text):
    cables = set()
    for line in text.splitlines():
        m = PLIST.match(line)
        if m:
            # A CA's GUID here is its port GUID (node GUID + port in ibsim): map back to the node.
            ga = int(m.group(3), 16) - (1 if m.group(1) == "CA" else 0)
            gb = int(m.group(6), 16) - (1 if m.group(4) == "CA" else 0)
            cables.add(tuple(sorted([(ga, int(m.group(2))), (gb, int(m.group(5)))])))
    return cables


def truth_cables(truth):
    guid = {"S-" + s["name"]: int(s["guid"], 16) for s in truth["switches"]}
    for host, rec in truth["hosts"].items():
        for h in rec["hcas"]:
            guid[f"H-{host}-{h['hca']}"] = int(h["guid"], 16)
    return {tuple(sorted([(guid[a], pa), (guid[b], pb)])) for a, pa, b, pb in truth["links"]}


def main(case):
    if case not in CASES:
        print(f"unknown case '{case}'; cases: {', '.join(CASES)}")
        return 2
    with tempfile.TemporaryDirectory(prefix="switchyard-fabric-") as tmp:
        base = os.path.join(tmp, case)
        subprocess.run([sys.executable, os.path.join(HERE, "gen_fabric.py"), *CASES[case], "-o", base],
                       check=True)
        truth = json.load(open(base + ".truth.json"))
        want = truth["counts"]
        capture = os.path.join(HERE, "ibsim-capture")
        subprocess.run([capture, base + ".net", base + ".out"], check=True)
        subprocess.run([capture, base + ".net", base + ".p.out", "-p"], check=True)
        counts, cables, port_lines = parse_default(open(base + ".out").read())
        check(counts["Switch"] == want["switches"], f"{counts['Switch']} switches, expected {want['switches']}")
        check(counts["Ca"] == want["cas"], f"{counts['Ca']} CAs, expected {want['cas']}")
        check(len(cables) == want["links"], f"{len(cables)} links, expected {want['links']}")
        check(port_lines == 2 * want["links"], f"every link seen from both ends ({port_lines} port lines)")
        expected = truth_cables(truth)
        check(cables == expected, f"every cable matches the truth by GUID and port "
                                  f"(missing {len(expected - cables)}, extra {len(cables - expected)})")
        plist = parse_portlist(open(base + ".p.out").read())
        check(plist == expected, f"'ibnetdiscover -p' shows the same {len(plist)} cables")
        if truth["factory_switch_names"]:
            text = open(base + ".out").read()
            check("MF0;" not in text, "switches carry only factory descriptions")
    if failures:
        print(f"{len(failures)} check(s) failed")
        return 1
    print("all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else ""))
