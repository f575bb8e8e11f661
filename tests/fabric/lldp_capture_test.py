#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""LLDP harness test: a generated Ethernet Clos built for real out of network namespaces (one per
host and per switch, veth pairs as cables, each switch bridging its ports), Debian's lldpd
running in every namespace under its own system name and control socket, every namespace's
lldpctl output gathered (JSON, json0 and keyvalue, as the admin guide gathers them), and
`switchyard discover --lldp` checked against the generator's truth: SUs, each host's leaf per
rail, tiers, topology.conf, and exactly the anomalies the case planted. Then the same from every
system's plain `lldpctl -f json` (no `show chassis`, file names that say nothing): each file
named from its cables alone.

Cases:
  clos          16 hosts x 2 rails, 4 leaves, 2 spines (rail-optimised), clean
  clos-variant  the same with one uplink pulled, one host's rail-1 port on its rail-0 leaf, and
                a management network (one switch, every host's mgmt0) that must be left out
  fabric16      the integration cluster's Dragonfly+ (tests/integration/make-fabric16: 2 groups
                x 2 leaves x 4 hosts node001..node016, numbered in shuffled order), clean; its
                capture, kept with --keep, is tests/data/lldp/fabric16 (the Ethernet cluster)

Usage: lldp_capture_test.py CASE SWITCHYARD_BINARY [--keep DIR]   (as root)
"""
import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from fabric_capture_test import check, expand_hostlist, failures  # noqa: E402

# case -> (gen_fabric.py arguments, the fabric kind discover must find)
CASES = {
    "clos": (["rail", "--sus", "2", "--hosts-per-su", "8", "--rails", "2", "--spines", "2"], "fat-tree"),
    "fabric16": (["dfp", "--groups", "2", "--leaves", "2", "--spines", "2", "--hosts-per-leaf", "4",
                  "--global-links", "2", "--host-prefix", "node", "--host-digits", "3", "--shuffle", "11"],
                 "dragonfly+"),
}
CASES["clos-variant"] = CASES["clos"]
PREFIX = f"sy{os.getpid() % 10000}"
DEAD_FILE = "zz-dead\x1b]0;x\x07host\n.json"
IMPOSTOR_FILE = "0000-copy.json"
MAP_WORDS = {"#", "kind", "tiers", "hcas", "switch", "group", "su", "host", "nvl", "anomaly", "end"}
LLDPD = shutil.which("lldpd") or "/usr/sbin/lldpd"
LLDPCTL = shutil.which("lldpctl") or "/usr/sbin/lldpctl"
LLDPCLI = shutil.which("lldpcli") or "/usr/sbin/lldpcli"


def run(*argv, check_rc=True, **kw):
    r = subprocess.run(argv, capture_output=True, text=True, **kw)
    if check_rc and r.returncode != 0:
        raise SystemExit(f"{' '.join(argv)}: exit {r.returncode}: {r.stderr.strip()}")
    return r


class Lab:
    """Namespaces, links and daemons, all made and removed here."""

    def __init__(self, tmp):
        self.tmp = tmp
        self.ns = {}        # system name -> namespace
        self.daemons = []
        self.links = 0
        self.sees = {}      # system -> {port: the system cabled there}
        self.switches = set()

    def system(self, name, switch):
        ns = f"{PREFIX}-{len(self.ns)}"
        run("ip", "netns", "add", ns)
        run("ip", "-n", ns, "link", "set", "lo", "up")
        if switch:
            self.switches.add(name)
            run("ip", "-n", ns, "link", "add", "br0", "type", "bridge")
            run("ip", "-n", ns, "link", "set", "br0", "up")
        self.ns[name] = ns
        return ns

    def cable(self, a, a_port, b, b_port, switches):
        """A veth pair from a's a_port to b's b_port; switch ends join the bridge."""
        self.sees.setdefault(a, {})[a_port] = b
        self.sees.setdefault(b, {})[b_port] = a
        self.links += 1
        tmp_a, tmp_b = f"{PREFIX}a{self.links}", f"{PREFIX}b{self.links}"
        run("ip", "link", "add", tmp_a, "netns", self.ns[a], "type", "veth", "peer", "name", tmp_b,
            "netns", self.ns[b])
        for sysname, tmpname, port in ((a, tmp_a, a_port), (b, tmp_b, b_port)):
            ns = self.ns[sysname]
            run("ip", "-n", ns, "link", "set", tmpname, "name", port)
            if sysname in switches:
                run("ip", "-n", ns, "link", "set", port, "master", "br0")
            run("ip", "-n", ns, "link", "set", port, "up")

    def sock(self, name):
        return os.path.join(self.tmp, f"{self.ns[name]}.sock")

    def start(self, name):
        # Its own UTS namespace gives lldpd its system name from the first frame on.
        log = open(os.path.join(self.tmp, f"{self.ns[name]}.log"), "w")
        p = subprocess.Popen(
            ["ip", "netns", "exec", self.ns[name], "unshare", "--uts", "sh", "-c",
             f'hostname "$0" && exec {LLDPD} -d -u "$1" -I "$2"', name, self.sock(name),
             "eth*,swp*,mgmt*"],
            stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        self.daemons.append(p)

    def cli(self, name, *args, fmt="json"):
        return run("ip", "netns", "exec", self.ns[name], LLDPCLI, "-u", self.sock(name), "-f", fmt,
                   *args, check_rc=False)

    def close(self):
        for p in self.daemons:
            try:
                os.killpg(p.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
        for p in self.daemons:
            try:
                p.wait(timeout=5)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
        for ns in self.ns.values():
            run("ip", "netns", "del", ns, check_rc=False)


def build(lab, truth, variant):
    """The truth's cables, with the variant's faults; returns the expected host → {port: leaf}
    and the planted faults."""
    switches = {s["name"] for s in truth["switches"]}
    for s in sorted(switches):
        lab.system(s, True)
    for h in sorted(truth["hosts"]):
        lab.system(h, False)
    name_of = {}
    for s in truth["switches"]:
        name_of["S-" + s["name"]] = s["name"]
    for h, rec in truth["hosts"].items():
        for x in rec["hcas"]:
            name_of[f"H-{h}-{x['hca']}"] = h
    leaves = sorted(s["name"] for s in truth["switches"] if s["role"] == "leaf")
    spines = sorted(s["name"] for s in truth["switches"] if s["role"] == "spine")
    moved_host = sorted(truth["hosts"])[2] if variant else None
    pulled = (leaves[0], spines[1]) if variant else None
    expect = {}
    faults = {"pulled": pulled, "moved": moved_host}
    for a, pa, b, pb in truth["links"]:
        na, nb = name_of[a], name_of[b]
        if (na, nb) == pulled or (nb, na) == pulled:
            continue
        ends = []
        for n, node_id, p in ((na, a, pa), (nb, b, pb)):
            if n in switches:
                ends.append((n, f"swp{p}"))
            else:
                rail = int(node_id.rsplit("_", 1)[1])  # H-<host>-mlx5_<rail>
                ends.append((n, f"eth{rail}"))
        if ends[0][0] in switches and ends[1][0] in switches:
            lab.cable(*ends[0], *ends[1], switches)
            continue
        (h, hp), (s, sp) = ends if ends[0][0] not in switches else ends[::-1]
        if h == moved_host and hp == "eth1":
            # Its rail-1 port cabled into its SU's rail-0 leaf (a spare port there).
            su = truth["hosts"][h]["su"]
            s, sp = f"{su}-rail0", "swp40"
        expect.setdefault(h, {})[hp] = s
        lab.cable(h, hp, s, sp, switches)
    if variant:
        lab.system("mgmt-sw1", True)
        for i, h in enumerate(sorted(truth["hosts"])):
            lab.cable(h, "mgmt0", "mgmt-sw1", f"swp{i + 1}", switches | {"mgmt-sw1"})
    return expect, faults


def wait_for_neighbours(lab, deadline_s=90):
    """Until every port of every system sees the system cabled to it."""
    start = time.time()
    while True:
        missing = []
        for h, ports in lab.sees.items():
            r = lab.cli(h, "show", "neighbors", fmt="keyvalue")
            seen = {}
            for line in r.stdout.splitlines():
                key, _, value = line.partition("=")
                parts = key.split(".")
                if len(parts) == 4 and parts[0] == "lldp" and parts[2:] == ["chassis", "name"]:
                    seen[parts[1]] = value
            missing += [(h, p) for p, leaf in ports.items() if seen.get(p) != leaf]
        if not missing:
            print(f"ok: every port sees its far end after {time.time() - start:.1f} s")
            return
        if time.time() - start > deadline_s:
            raise SystemExit(f"lldpd: {len(missing)} ports do not see their far end after "
                             f"{deadline_s} s, e.g. {missing[:3]}")
        time.sleep(1)


def node_neighbours(lab, binary, tmp):
    """`switchyard node` inside the first host's namespace, asking its lldpd: the fake node's
    RoCE HCA (mlx5_4, net device eth1; make-node-trees) names the leaf cabled to eth1, and its
    InfiniBand HCAs name nothing."""
    host = next((h for h in sorted(lab.sees) if "eth1" in lab.sees[h]), None)  # switches: swpN
    if host is None:
        return
    trees = os.path.join(tmp, "node-trees")
    run(sys.executable, os.path.join(HERE, "..", "integration", "make-node-trees"), trees, host)
    r = run("ip", "netns", "exec", lab.ns[host], binary, "node", "--sysfs-root",
            os.path.join(trees, host, "sys"), "--lldpd-socket", lab.sock(host), "--json", check_rc=False)
    check(r.returncode == 0, f"switchyard node in {host}'s namespace: exit {r.returncode} {r.stderr.strip()}")
    if r.returncode != 0:
        return
    got = json.loads(r.stdout)
    seen = {(n["name"], p["port"]): [x["system"] for x in p.get("lldp", [])]
            for n in got["nics"] for p in n["ports"]}
    check(got.get("lldp_note") == "", f"lldpd answered switchyard node ({got.get('lldp_note')})")
    check(seen.get(("mlx5_4", 1)) == [lab.sees[host]["eth1"]],
          f"switchyard node: {host}'s mlx5_4 (eth1) sees {seen.get(('mlx5_4', 1))}, "
          f"cabled to {lab.sees[host]['eth1']}")
    check(all(not v for k, v in seen.items() if k[0] != "mlx5_4"),
          "its InfiniBand HCAs see no LLDP neighbour")


def guide_recipes():
    """The admin guide's LLDP gathering commands, as printed: the shell command srun runs on
    each host, the one clush runs, and the one ssh runs on a switch (after `docker exec lldp`)."""
    with open(os.path.join(HERE, "..", "..", "docs", "admin-guide.md")) as fh:
        guide = fh.read()
    block = guide.split("### Ethernet (RoCE) fabrics")[1].split("```text\n")[1].split("```")[0]
    recipes = {}
    for line in block.replace("\\\n", " ").splitlines():
        if "lldpcli" not in line:
            continue
        words = shlex.split(line)
        if words[0] == "srun":
            recipes["srun"] = words[words.index("-c") + 1]
        elif words[0] == "clush":
            recipes["clush"] = words[-1]
        elif words[0] == "ssh":
            recipes["ssh"] = words[2].removeprefix("docker exec lldp ")
    check(sorted(recipes) == ["clush", "srun", "ssh"],
          f"the admin guide's LLDP block has srun, clush and ssh recipes (found {sorted(recipes)})")
    return recipes


def gather(lab, outdir):
    """Every namespace's output, gathered by the admin guide's own commands as printed (their
    lldpcli run in the namespace, with its lldpd's socket where lldpcli looks by default and the
    system's name as host name): srun's for a third of the hosts, clush's (a file per host, no
    extension) for the rest, the switch one for the leaves. For all three of lldpctl's formats to
    be read for real, the spines and every third system give json0 and keyvalue: the same
    recipe with its -f word changed, as the guide says they may."""
    os.makedirs(outdir)
    recipes = guide_recipes()
    for i, name in enumerate(sorted(lab.ns)):
        fmt = "json0" if "spine" in name else ("keyvalue" if i % 3 == 0 else "json")
        how = "ssh" if name in lab.switches else ("srun" if i % 3 == 1 else "clush")
        recipe = recipes.get(how, "false").replace("lldpcli -f json", f"lldpcli -f {fmt}")
        # The srun recipe writes lldp/<host>.json itself; the others print (clush --outdir and
        # ssh's redirection write the file).
        r = subprocess.run(
            ["ip", "netns", "exec", lab.ns[name], "unshare", "--mount", "--uts", "sh", "-c",
             'mount -t tmpfs tmpfs /run && : > /run/lldpd.socket && '
             'mount --bind "$1" /run/lldpd.socket && hostname "$2" && cd "$3" && exec sh -c "$4"',
             "sh", lab.sock(name), name, os.path.dirname(outdir), recipe],
            capture_output=True, text=True)
        check(r.returncode == 0, f"{how} recipe in {name}: exit {r.returncode} {r.stderr.strip()}")
        if how != "srun":
            out = name if how == "clush" else f"{name}.json"
            with open(os.path.join(outdir, out), "w") as fh:
                fh.write(r.stdout)
    # A copied file, edited to say it is the first host (with the second host's cables), first
    # by name: the first host's own file and its leaves' views must win over it.
    hosts = [n for n in sorted(lab.ns) if n not in lab.switches]
    chassis = lab.cli(hosts[1], "show", "chassis").stdout.replace(f'"{hosts[1]}"', f'"{hosts[0]}"')
    with open(os.path.join(outdir, IMPOSTOR_FILE), "w") as fh:
        fh.write(chassis + lab.cli(hosts[1], "show", "neighbors").stdout)
    # A dead lldpd: its host's gathering wrote an empty file, under a name holding a terminal
    # escape, a BEL and a newline. Reported, by that name made printable; the rest is read.
    open(os.path.join(outdir, DEAD_FILE), "w").close()
    return hosts[0]


def gather_plain(lab, outdir):
    """Every system's plain `lldpctl -f json` (neighbours only, no `show chassis`), with
    lldpd's default port ids (the port's MAC, its name in the description), under file names
    that say nothing: discover must name each file from the cables alone."""
    os.makedirs(outdir)
    for i, name in enumerate(sorted(lab.ns, key=lambda n: lab.ns[n][::-1])):
        r = run("ip", "netns", "exec", lab.ns[name], LLDPCTL, "-u", lab.sock(name), "-f", "json",
                check_rc=False)
        check(r.returncode == 0 and '"lldp"' in r.stdout, f"lldpctl -f json in {name}")
        check("local-chassis" not in r.stdout, f"{name}'s plain file does not name its system")
        with open(os.path.join(outdir, f"capture-{i:03d}.json"), "w") as fh:
            fh.write(r.stdout)


def discover(binary, lldp_dir, outdir):
    r = run(binary, "discover", "--lldp", lldp_dir, "-o", outdir, check_rc=False)
    print(r.stdout, r.stderr)
    if r.returncode != 0:
        raise SystemExit(f"switchyard discover --lldp failed with exit {r.returncode}")
    show = run(binary, "fabric", "show", "--map", os.path.join(outdir, "fabric.map"), "--json")
    return json.loads(show.stdout)


def verify(got, truth, expect, faults, outdir, kind):
    check(got["kind"] == kind, f"fabric kind {got['kind']}, expected {kind}")
    hosts = {h["host"]: h for h in got["hosts"]}
    check(set(hosts) == set(truth["hosts"]), f"{len(hosts)} hosts found, {len(truth['hosts'])} in the truth")
    want_su = {}
    for h, rec in truth["hosts"].items():
        want_su.setdefault(rec["su"], set()).add(h)
    got_su = {}
    for h, rec in hosts.items():
        got_su.setdefault(rec["su"], set()).add(h)
    check({frozenset(v) for v in got_su.values()} == {frozenset(v) for v in want_su.values()},
          "every host's SU equals the truth")
    wrong = [h for h in expect if h in hosts and
             sorted(expect[h].items()) != sorted((x["hca"], x["leaf"]) for x in hosts[h]["leaves"])]
    check(not wrong, f"every host's leaf per port equals the cabling (wrong: {wrong[:3]})")
    tiers = {s["name"]: s["tier"] for s in got["switches"]}
    roles = {s["name"]: s["role"] for s in truth["switches"]}
    check(tiers == {n: 1 if r == "leaf" else 2 for n, r in roles.items()},
          f"leaves are tier 1, spines tier 2, and no other switch is in the map ({sorted(tiers)})")
    kinds = sorted(a["kind"] for a in got["anomalies"])
    want = []
    if faults["pulled"]:
        want += ["lldp-separate-network", "missing-rail", "missing-uplink"]
    claimed = faults.get("impostor")
    if claimed:
        want += ["lldp-duplicate-name", "lldp-empty-file"]
    want = sorted(want)
    check(kinds == want, f"anomalies {kinds}, expected {want}")
    details = [a["detail"] for a in got["anomalies"]]
    check(all(c.isprintable() for d in details for c in d), "every anomaly is printable")
    if claimed:
        dead = DEAD_FILE.replace("\x1b", "\\x1b").replace("\x07", "\\x07").replace("\n", "\\x0a")
        check(any(dead in d for d in details), f"the empty file is named, as {dead}: {details}")
        check(any(IMPOSTOR_FILE + f": says it is '{claimed}', as " in d and "this file is left out" in d
                  for d in details), f"the copy saying it is {claimed} is reported and left out")
    with open(os.path.join(outdir, "fabric.map"), encoding="utf-8") as fh:
        lines = fh.read().splitlines()
    check(all(line.split(" ")[0] in MAP_WORDS for line in lines[1:]),
          "every map line starts with one of its words (no line injected by a name)")
    if faults["pulled"]:
        leaf, spine = faults["pulled"]
        check(any(leaf in d and spine in d for d in details if "uplink" in d or "cable" in d),
              f"the pulled cable {leaf}-{spine} is named")
        h = faults["moved"]
        check(any(d.startswith(h + " ") and truth["hosts"][h]["su"] + "-rail1" in d for d in details),
              f"{h}, whose rail-1 port is on the rail-0 leaf, misses rail {truth['hosts'][h]['su']}-rail1")
        check(any("mgmt-sw1" in d and "left out" in d for d in details),
              "the management switch is reported as a separate network and left out")
    conf = open(os.path.join(outdir, "topology.conf")).read()
    levels = [dict(kv.split("=", 1) for kv in line.split()) for line in conf.splitlines()
              if line.startswith("SwitchName=")]
    node_sets = {frozenset(expand_hostlist(l["Nodes"])) for l in levels if "Nodes" in l}
    check(node_sets == {frozenset(v) for v in want_su.values()}, "topology.conf SU level equals the truth")


def main(argv):
    if len(argv) < 2 or argv[0] not in CASES:
        print(__doc__)
        return 2
    case, binary = argv[0], argv[1]
    keep = argv[3] if len(argv) > 3 and argv[2] == "--keep" else None
    if os.geteuid() != 0:
        print("lldp_capture_test: needs root (network namespaces)")
        return 2
    with tempfile.TemporaryDirectory(prefix="switchyard-lldp-") as tmp:
        # lldpd and lldpcli reach the control sockets as the _lldpd group (lldpcli is setgid).
        os.chmod(tmp, 0o755)
        base = os.path.join(tmp, case)
        gen, kind = CASES[case]
        run(sys.executable, os.path.join(HERE, "gen_fabric.py"), *gen, "-o", base)
        truth = json.load(open(base + ".truth.json"))
        lab = Lab(tmp)
        try:
            expect, faults = build(lab, truth, case == "clos-variant")
            print(f"ok: {len(lab.ns)} namespaces, {lab.links} cables")
            for name in sorted(lab.ns):
                lab.start(name)
            time.sleep(1)
            # lldpd sends every 30 s; every second here, so that no daemon waits long for a
            # neighbour whose first frame came before it listened, and each neighbour held for
            # 60 s (tx-hold), so that none expires on a busy machine before it is gathered.
            for name in sorted(lab.ns):
                for setting in (("tx-hold", "60"), ("tx-interval", "1")):
                    for _ in range(20):
                        if lab.cli(name, "configure", "lldp", *setting).returncode == 0:
                            break
                        time.sleep(0.2)
            wait_for_neighbours(lab)
            faults["impostor"] = gather(lab, os.path.join(tmp, "gather", "lldp"))
            gather_plain(lab, os.path.join(tmp, "gather", "plain"))
            node_neighbours(lab, binary, tmp)
        finally:
            lab.close()
        if keep:
            # The files planted as faults are not part of a capture kept as test data.
            shutil.copytree(os.path.join(tmp, "gather", "lldp"), keep, dirs_exist_ok=True,
                            ignore=shutil.ignore_patterns(IMPOSTOR_FILE, DEAD_FILE))
        got = discover(binary, os.path.join(tmp, "gather", "lldp"), base + "-map")
        verify(got, truth, expect, faults, base + "-map", kind)
        print("-- the same fabric from plain lldpctl files, named from their cables alone")
        got = discover(binary, os.path.join(tmp, "gather", "plain"), base + "-plain")
        verify(got, truth, expect, dict(faults, impostor=None), base + "-plain", kind)
    if failures:
        print(f"{len(failures)} check(s) failed")
        return 1
    print("all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
