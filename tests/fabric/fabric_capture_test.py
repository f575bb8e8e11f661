#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""ibsim harness test: generate a fabric, capture real ibnetdiscover output from ibsim, and check
it against the generator's ground truth: numbers of switches, CAs and links, and every cable by
GUID and port (parallel cables included). Given the switchyard binary, also run
`switchyard discover` on the capture and check the classification against the truth: fabric kind,
every host's SU, pod/group and leaf per rail, the topology.conf levels, the -p capture giving the
same map, and dirty (unnamed) HCAs placed by a GUID map.
Usage: fabric_capture_test.py CASE [SWITCHYARD_BINARY]
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
    "dragonfly-plus-8-groups": ["dfp", "--groups", "8", "--leaves", "2", "--spines", "2",
                                "--hosts-per-leaf", "4", "--global-links", "1", "--shuffle", "7"],
    "fat2-1024-hosts": ["fat2", "--leaves", "32", "--hosts-per-leaf", "32", "--spines", "16",
                        "--shuffle", "3"],
    "dragonfly-plus-1024-hosts": ["dfp", "--groups", "8", "--leaves", "4", "--spines", "4",
                                  "--hosts-per-leaf", "32", "--global-links", "2"],
    "rail8-1024-hcas-unnamed": ["rail", "--sus", "4", "--hosts-per-su", "32", "--rails", "8",
                                "--spines", "8", "--unnamed", "24", "--shuffle", "5"],
    "fat3-factory-unnamed": ["fat3", "--pods", "3", "--leaves", "3", "--hosts-per-leaf", "3",
                             "--factory-names", "--unnamed", "5"],
    # Fault injection at 1024 hosts: 5 % of leaf-spine cables and 10 % of global cables pulled.
    "rail4-1024-hosts-pulled-cables": ["rail", "--sus", "32", "--hosts-per-su", "32", "--rails", "4",
                                       "--spines", "8", "--drop-uplinks", "5", "--drop-seed", "11"],
    # Hosts cabled straight into a spine: compute ones are an SU of their own, storage is not.
    "fat2-hosts-on-spine": ["fat2", "--leaves", "4", "--spines", "2", "--hosts-per-leaf", "4",
                            "--spine-hosts", "2", "--spine-storage", "1"],
    "dragonfly-plus-hosts-on-spine": ["dfp", "--groups", "4", "--leaves", "4", "--spines", "2",
                                      "--hosts-per-leaf", "4", "--global-links", "2",
                                      "--spine-hosts", "2", "--spine-storage", "1"],
    "dragonfly-plus-1024-hosts-pulled-cables": ["dfp", "--groups", "8", "--leaves", "4", "--spines", "4",
                                                "--hosts-per-leaf", "32", "--global-links", "4",
                                                "--drop-uplinks", "5", "--drop-global", "10",
                                                "--drop-seed", "12"],
    # Cabling judged against the design at 2, 10 and 25 % of leaf-spine (two parallel cables per
    # pair) and global cables (8 per group pair, 2 per spine place) pulled at random.
    **{f"dragonfly-plus-pulled-{pct}-percent": [
        "dfp", "--groups", "8", "--leaves", "4", "--spines", "4", "--hosts-per-leaf", "4",
        "--global-links", "8", "--parallel", "2", "--drop-uplinks", pct, "--drop-global", pct,
        "--drop-seed", str(20 + int(pct))] for pct in ("2", "10", "25")},
    "rail4-parallel-pulled-10-percent": ["rail", "--sus", "4", "--hosts-per-su", "4", "--rails", "4",
                                         "--spines", "4", "--parallel", "2", "--drop-uplinks", "10",
                                         "--drop-seed", "31"],
}

EXPECTED_KIND = {"fat2": "fat-tree", "rail": "fat-tree", "fat3": "fat-tree-3", "dfp": "dragonfly+"}

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
    for n in truth.get("non_compute", []):
        guid[f"H-{n['host']}-{n['hca']}"] = int(n["guid"], 16)
    return {tuple(sorted([(guid[a], pa), (guid[b], pb)])) for a, pa, b, pb in truth["links"]}


def expand_hostlist(expr):
    """Slurm hostlist expansion for the simple forms topology.conf uses: a[01-03,07],b5."""
    out, depth, term = [], 0, ""
    for ch in expr + ",":
        if ch == "," and depth == 0:
            m = re.match(r"^(.*?)\[(.*)\](.*)$", term)
            if not m:
                out.append(term)
            else:
                for part in m.group(2).split(","):
                    lo, _, hi = part.partition("-")
                    for n in range(int(lo), int(hi or lo) + 1):
                        out.append(f"{m.group(1)}{n:0{len(lo)}d}{m.group(3)}")
            term = ""
            continue
        depth += ch == "["
        depth -= ch == "]"
        term += ch
    return out


def discover(binary, capture, outdir, extra=()):
    r = subprocess.run([binary, "discover", "--ibnetdiscover", capture, "-o", outdir, *extra],
                       capture_output=True, text=True)
    if r.returncode != 0:
        print(r.stdout, r.stderr)
        raise SystemExit(f"switchyard discover failed with exit {r.returncode}")
    show = subprocess.run([binary, "fabric", "show", "--map", os.path.join(outdir, "fabric.map"), "--json"],
                          capture_output=True, text=True, check=True)
    return json.loads(show.stdout)


def cable_count(word):
    return 0 if word == "no" else int(word)


def check_pulled_cables(got, truth, leaf_name):
    """Judged against the generator's design, not the damage: every leaf-spine pair that lost
    all its cables is a missing-uplink, every one that lost some is an uneven-uplinks with the
    count left; every spine pair that lost global cables is a missing-global-cable with the count
    left, and every group pair short of global cables a thin-global-links with its count, most
    lost first. Nothing else is reported."""
    dropped = truth["dropped"]
    parallel = truth["params"]["parallel"]
    lost = {}
    for d in dropped:
        if d["kind"] == "uplink":
            a, b = (d["a"], d["b"]) if truth_role(truth, d["a"]) == "leaf" else (d["b"], d["a"])
            key = (leaf_name(a), leaf_name(b))
            lost[key] = lost.get(key, 0) + 1
    want_missing = {k for k, n in lost.items() if n == parallel}
    want_uneven = {(k, parallel - n) for k, n in lost.items() if n < parallel}
    missing, uneven = set(), set()
    for a in got["anomalies"]:
        m = re.match(r"^'([^']+)' has no cable to '([^']+)'", a["detail"])
        if a["kind"] == "missing-uplink" and m:
            missing.add((m.group(1), m.group(2)))
        m = re.match(r"^'([^']+)' to '([^']+)': (no|\d+) cables?, ", a["detail"])
        if a["kind"] == "uneven-uplinks" and m:
            uneven.add(((m.group(1), m.group(2)), cable_count(m.group(3))))
    check(missing == want_missing,
          f"every leaf-spine pair that lost all its cables is reported, and only those "
          f"({len(want_missing)} pairs, {len(missing)} reported, {len(want_missing - missing)} "
          f"missed, {len(missing - want_missing)} extra)")
    check(uneven == want_uneven,
          f"every leaf-spine pair that lost some of its {parallel} cables is reported with the "
          f"count left, and only those ({len(want_uneven)} pairs, {len(uneven)} reported, "
          f"{len(want_uneven - uneven)} missed, {len(uneven - want_uneven)} extra)")
    pulled_global = [d for d in dropped if d["kind"] == "global"]
    if not pulled_global:
        return
    group_of = {s["name"]: s.get("group") for s in truth["switches"]}
    per_pair = truth["params"]["global_links"]
    spines = truth["params"]["spines"]
    # Spine k of one group to spine k of the other, global_links // spines cables each (plus
    # one for the first global_links % spines places).
    design = {k: per_pair // spines + (1 if k < per_pair % spines else 0) for k in range(spines)}
    spine_lost, short = {}, {}
    for d in pulled_global:
        key = tuple(sorted((d["a"], d["b"])))
        spine_lost[key] = spine_lost.get(key, 0) + 1
        pair = tuple(sorted((group_of[d["a"]], group_of[d["b"]])))
        short[pair] = short.get(pair, per_pair) - 1
    spine_place = lambda name: int(name.rsplit("spine", 1)[1]) - 1
    want_cables = {(k, design[spine_place(k[0])] - n) for k, n in spine_lost.items()}
    cables, reported, order = set(), {}, []
    for a in got["anomalies"]:
        m = re.match(r"^'([^']+)' has (no|\d+) cables? to '([^']+)' \((\d+) expected", a["detail"])
        if a["kind"] == "missing-global-cable" and m:
            cables.add((tuple(sorted((m.group(1), m.group(3)))), cable_count(m.group(2))))
            check(int(m.group(4)) == design[spine_place(m.group(1))],
                  f"{m.group(1)} to {m.group(3)}: {m.group(4)} cables expected, as designed")
        m = re.match(r"^groups (\S+) and (\S+): (\d+) global cable\(s\), (\d+) short of the (\d+)",
                     a["detail"])
        if a["kind"] == "thin-global-links" and m:
            reported[tuple(sorted((m.group(1), m.group(2))))] = int(m.group(3))
            order.append(int(m.group(4)))
            check(int(m.group(5)) == per_pair, f"a group pair's design is {m.group(5)} cables, "
                                               f"expected {per_pair}")
    check(cables == want_cables,
          f"every absent global cable is named by its two spines with the count left, and only "
          f"those ({len(pulled_global)} pulled over {len(want_cables)} spine pairs; "
          f"{len(cables)} reported, {len(want_cables - cables)} missed, "
          f"{len(cables - want_cables)} extra)")
    check(reported == short, f"every group pair short of global cables is reported with its count "
                             f"({len(pulled_global)} cables pulled over {len(short)} pairs; "
                             f"reported {len(reported)} pairs)")
    check(order == sorted(order, reverse=True),
          f"group pairs are listed most cables lost first ({order[:5]}...)")


def truth_role(truth, name):
    return next(s["role"] for s in truth["switches"] if s["name"] == name)


def check_classification(binary, truth, base, shape):
    factory = truth["factory_switch_names"]
    guid_of = {s["name"]: s["guid"] for s in truth["switches"]}
    leaf_name = (lambda n: "sw-" + guid_of[n][2:]) if factory else (lambda n: n)
    unnamed = os.path.exists(base + ".guidmap")
    got = discover(binary, base + ".out", base + "-map", ["--guid-map", base + ".guidmap"] if unnamed else [])
    check(got["kind"] == EXPECTED_KIND[shape], f"fabric kind {got['kind']}, expected {EXPECTED_KIND[shape]}")
    hosts = {h["host"]: h for h in got["hosts"]}
    check(set(hosts) == set(truth["hosts"]), f"{len(hosts)} hosts found, {len(truth['hosts'])} in the truth")
    su_part = lambda key: {frozenset(h for h in hosts if hosts[h][key] == v) for v in {x[key] for x in hosts.values()}}
    want_su = {}
    want_group = {}
    for h, rec in truth["hosts"].items():
        want_su.setdefault(rec["su"], set()).add(h)
        want_group.setdefault(rec.get("pod") or rec.get("group") or "all", set()).add(h)
    check(su_part("su") == {frozenset(v) for v in want_su.values()}, "every host's SU equals the truth")
    check(su_part("group") == {frozenset(v) for v in want_group.values()},
          f"every host's pod/group equals the truth ({len(want_group)} groups)")
    bad_rails = [h for h, rec in truth["hosts"].items() if h in hosts and
                 sorted((x["hca"], leaf_name(x["leaf"])) for x in rec["hcas"]) !=
                 sorted((x["hca"], x["leaf"]) for x in hosts[h]["leaves"])]
    check(not bad_rails, f"every host's leaf per rail equals the truth (wrong: {bad_rails[:3]})")
    kinds = sorted({a["kind"] for a in got["anomalies"]})
    dropped = truth.get("dropped", [])
    want_kinds = set(["resolved-by-guid-map"] if unnamed else [])
    lost = {}
    for d in dropped:
        if d["kind"] == "uplink":
            lost[frozenset((d["a"], d["b"]))] = lost.get(frozenset((d["a"], d["b"])), 0) + 1
    parallel = truth["params"].get("parallel", 1)
    want_kinds |= {"missing-uplink" if n == parallel else "uneven-uplinks" for n in lost.values()}
    want_kinds |= {"missing-global-cable" for d in dropped if d["kind"] == "global"}
    want_kinds |= {"thin-global-links" for d in dropped if d["kind"] == "global"}
    on_spine = [h for h, rec in truth["hosts"].items() if rec["su"] == rec["hcas"][0]["leaf"]]
    non_compute = truth.get("non_compute", [])
    if on_spine or non_compute:
        want_kinds.add("host-on-spine")
        said = [a["detail"] for a in got["anomalies"] if a["kind"] == "host-on-spine"]
        check(len(said) == len(on_spine) + len(non_compute),
              f"{len(said)} host-on-spine reports, expected {len(on_spine) + len(non_compute)}")
        for h in on_spine:
            check(any(d.startswith(h + " ") and "an SU of its own" in d for d in said),
                  f"{h} on a spine is reported as a compute host in an SU of its own")
        for n in non_compute:
            check(any(d.startswith(n["host"] + " ") and f"'{n['spine']}'" in d and
                      "left out of placement" in d for d in said),
                  f"{n['host']} on {n['spine']} is reported and left out")
        tiers = {s["name"]: s["tier"] for s in got["switches"]}
        check(all(tiers[s["name"]] == (1 if s["role"] == "leaf" else 2) for s in truth["switches"]),
              "the hosts on a spine leave the tiers as the switch graph gives them")
    check(kinds == sorted(want_kinds), f"anomalies: {kinds}, expected {sorted(want_kinds)}")
    if dropped:
        check_pulled_cables(got, truth, leaf_name)
        # The admin's design, given, judges the same cables.
        with open(base + ".cabling", "w") as fh:
            fh.write(f"# the generator's design\nleaf-spine-cables {truth['params']['parallel']}\n")
            if shape == "dfp":
                fh.write(f"global-cables {truth['params']['global_links']}\n")
        print("with --expect-cabling:")
        given = discover(binary, base + ".out", base + "-map-expect",
                         ["--expect-cabling", base + ".cabling"] +
                         (["--guid-map", base + ".guidmap"] if unnamed else []))
        check_pulled_cables(given, truth, leaf_name)
    # topology.conf: the SU level holds exactly the truth's SUs, and one root.
    conf = open(os.path.join(base + "-map", "topology.conf")).read()
    levels = [dict(kv.split("=", 1) for kv in line.split()) for line in conf.splitlines()
              if line.startswith("SwitchName=")]
    node_sets = {frozenset(expand_hostlist(l["Nodes"])) for l in levels if "Nodes" in l}
    check(node_sets == {frozenset(v) for v in want_su.values()}, "topology.conf SU level equals the truth")
    check(sum(1 for l in levels if l["SwitchName"] == "root") == 1, "topology.conf has one root")
    # The -p capture classifies to the same map.
    got_p = discover(binary, base + ".p.out", base + "-map-p", ["--guid-map", base + ".guidmap"] if unnamed else [])
    for key in ("kind", "hosts", "sus", "groups", "switches"):
        check(got_p[key] == got[key], f"'ibnetdiscover -p' capture gives the same {key}")
    if unnamed:
        n = sum(1 for _ in open(base + ".guidmap"))
        bare = discover(binary, base + ".out", base + "-map-bare")
        count = sum(1 for a in bare["anomalies"] if a["kind"] == "unnamed-hca")
        check(count == n, f"without the GUID map the {n} unnamed HCAs are reported ({count})")


def main(case, binary):
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
        if binary:
            check_classification(binary, truth, base, CASES[case][0])
    if failures:
        print(f"{len(failures)} check(s) failed")
        return 1
    print("all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "", sys.argv[2] if len(sys.argv) > 2 else ""))
