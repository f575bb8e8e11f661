#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Generates ibsim net files for the fabric shapes Switchyard must classify, with ground truth.

Shapes (see ../shared/reference/fabric.md section 3):
  fat2  2-level fat tree: every leaf to every spine, optionally k parallel cables per pair
  fat3  3-level fat tree: pods of leaves + aggregation switches; agg j of every pod to all
        cores of plane j
  dfp   Dragonfly+: groups of leaves + spines (full leaf-spine mesh), spine-to-spine global
        links between every pair of groups (link k between spine k mod S of both groups)
  rail  rail-optimized: hosts with R HCAs; a scalable unit (SU) has R leaves; HCA r of every SU
        host to leaf r of its SU; every leaf to every spine

Fault injection: --drop-uplinks PCT and --drop-global PCT pull that share of the leaf-to-upper
and group-to-group cables (--drop-seed chooses which); --halve-uplinks PREFIX pulls every second
uplink of the leaves named PREFIX...; the truth lists them under "dropped".
Hosts on a spine: --spine-hosts N compute hosts and --spine-storage N storage servers cabled
straight into a spine (the truth lists the storage servers under "non_compute").

Writes <out>.net (ibnetdiscover format as ibsim 0.10 reads it: every link on both ends) and
<out>.truth.json (hosts, HCA -> leaf/port, SU, pod/group, switch roles, full link list, counts)
and <out>.topology.conf (the topology/tree file a correct discovery must produce).
Deterministic: the same arguments give byte-identical files.
"""
import argparse
import json
import sys

SPEED = "4xHDR"  # ibsim 0.10 knows SDR..HDR; NDR needs ibsim 0.12
MANAGED = "MF0;{name}:MQM8700/U1"
FACTORY = "Quantum Mellanox Technologies"


class Fabric:
    def __init__(self, factory_names):
        self.factory = factory_names
        self.switches = []      # dicts: id, name, role, guid, ports {port: (remote id, remote port)}
        self.cas = []           # dicts: id, host, hca, guid, ports {...}
        self.by_id = {}
        self.links = []         # (id a, port a, id b, port b)
        self.hosts = {}         # host -> truth record

    def switch(self, name, role, **attrs):
        sw = {"id": "S-" + name, "name": name, "role": role,
              "guid": 0x0c42a10300000000 + 0x100 * (len(self.switches) + 1),
              "ports": {}, "next": 1, **attrs}
        self.switches.append(sw)
        self.by_id[sw["id"]] = sw
        return sw

    def ca(self, host, hca):
        ca = {"id": f"H-{host}-{hca}", "host": host, "hca": hca,
              "guid": 0xb8cef60300000000 + 0x10 * (len(self.cas) + 1),
              "ports": {}, "next": 1}
        self.cas.append(ca)
        self.by_id[ca["id"]] = ca
        return ca

    def link(self, a, b):
        pa, pb = a["next"], b["next"]
        a["next"] += 1
        b["next"] += 1
        a["ports"][pa] = (b["id"], pb)
        b["ports"][pb] = (a["id"], pa)
        self.links.append((a["id"], pa, b["id"], pb))
        return pa, pb

    def unlink(self, link):
        """Removes a cable (fault injection): both ports become empty."""
        a, pa, b, pb = link
        del self.by_id[a]["ports"][pa]
        del self.by_id[b]["ports"][pb]
        self.links.remove(link)

    def attach(self, host, hca, leaf, **truth):
        ca = self.ca(host, hca)
        _, leaf_port = self.link(leaf, ca)
        rec = self.hosts.setdefault(host, {"hcas": [], **truth})
        rec["hcas"].append({"hca": hca, "guid": f"0x{ca['guid']:016x}",
                            "leaf": leaf["name"], "leaf_port": leaf_port})

    def desc(self, node):
        if node.get("unnamed"):
            return FACTORY_CA
        if "host" in node:
            return f"{node['host']} {node['hca']}"
        return FACTORY if self.factory else MANAGED.format(name=node["name"])

    def net_text(self):
        out = []
        for sw in self.switches:
            nports = max(36, sw["next"] - 1)
            out += ["vendid=0x2c9", "devid=0xd2f0", f"switchguid=0x{sw['guid']:016x}",
                    f'Switch\t{nports} "{sw["id"]}"\t\t# "{self.desc(sw)}" enhanced port 0 lid 0 lmc 0']
            for p in sorted(sw["ports"]):
                rid, rp = sw["ports"][p]
                out.append(f'[{p}]\t"{rid}"[{rp}]\t\t# "{self.desc(self.by_id[rid])}" lid 0 {SPEED}')
            out.append("")
        for ca in self.cas:
            out += ["vendid=0x2c9", "devid=0x101b", f"caguid=0x{ca['guid']:016x}",
                    f'Ca\t1 "{ca["id"]}"\t\t# "{self.desc(ca)}"']
            rid, rp = ca["ports"][1]
            out.append(f'[1]\t"{rid}"[{rp}]\t\t# lid 0 lmc 0 "{self.desc(self.by_id[rid])}" lid 0 {SPEED}')
            out.append("")
        return "\n".join(out)

    def drop_cables(self, uplink_pct, global_pct, seed):
        """Pulls uplink_pct % of leaf-to-upper cables and global_pct % of the global (group to
        group) cables, chosen with Random(seed); never a leaf's last uplink. Returns the pulled
        cables as {kind, a, b} with switch names."""
        import random
        rng = random.Random(seed)
        role = {sw["id"]: sw for sw in self.switches}
        uplinks = [l for l in self.links if l[0] in role and l[2] in role and
                   "leaf" in (role[l[0]]["role"], role[l[2]]["role"])]
        globals_ = [l for l in self.links if l[0] in role and l[2] in role and
                    role[l[0]].get("group") and role[l[2]].get("group") and
                    role[l[0]]["group"] != role[l[2]]["group"]]
        dropped = []
        for kind, pool, pct in (("uplink", uplinks, uplink_pct), ("global", globals_, global_pct)):
            want = round(len(pool) * pct / 100)
            for link in rng.sample(pool, len(pool)):
                if want == 0:
                    break
                a, b = role[link[0]], role[link[2]]
                leaf = a if a["role"] == "leaf" else b
                if kind == "uplink" and sum(1 for p in leaf["ports"].values() if p[0] in role) <= 1:
                    continue
                self.unlink(link)
                dropped.append({"kind": kind, "a": a["name"], "b": b["name"]})
                want -= 1
        return dropped

    def halve_uplinks(self, prefix):
        """Pulls every second uplink of each leaf whose name starts with prefix (a degraded SU:
        half its uplinks gone). Returns the pulled cables as drop_cables does."""
        role = {sw["id"]: sw for sw in self.switches}
        dropped = []
        for leaf in self.switches:
            if leaf["role"] != "leaf" or not leaf["name"].startswith(prefix):
                continue
            ups = [l for l in self.links if leaf["id"] in (l[0], l[2]) and l[0] in role and
                   l[2] in role and role[l[0]]["role"] != role[l[2]]["role"]]
            for link in ups[1::2]:
                self.unlink(link)
                dropped.append({"kind": "uplink", "a": role[link[0]]["name"],
                                "b": role[link[2]]["name"]})
        return dropped

    def truth(self, shape, params):
        switches = [{"name": s["name"], "guid": f"0x{s['guid']:016x}", "role": s["role"],
                     **{k: s[k] for k in ("pod", "group", "su", "plane", "rail") if k in s}}
                    for s in self.switches]
        return {
            "shape": shape, "params": params, "factory_switch_names": self.factory,
            "counts": {"switches": len(self.switches), "cas": len(self.cas),
                       "hosts": len(self.hosts), "links": len(self.links),
                       "max_switch_ports": max(s["next"] - 1 for s in self.switches)},
            "switches": switches, "hosts": self.hosts,
            "links": [list(link) for link in self.links],
            "dropped": getattr(self, "dropped", []),
            "non_compute": getattr(self, "non_compute", []),
        }


HOST_PREFIX, HOST_DIGITS = "gpu", 4
HOST_NUMBER = {}  # optional permutation of host numbers (--shuffle)
FACTORY_CA = "MT4129 ConnectX7   Mellanox Technologies"


def host_name(i):
    return f"{HOST_PREFIX}{HOST_NUMBER.get(i, i):0{HOST_DIGITS}d}"


def compress(names):
    """Slurm hostlist of names sharing one prefix and width: gpu[0001-0004,0007]."""
    nums = sorted(int(n[len(HOST_PREFIX):]) for n in names)
    runs, start = [], nums[0]
    for a, b in zip(nums, nums[1:] + [None]):
        if b != a + 1:
            runs.append(f"{start:0{HOST_DIGITS}d}" + ("" if a == start else f"-{a:0{HOST_DIGITS}d}"))
            start = b
    return f"{HOST_PREFIX}[{','.join(runs)}]" if len(nums) > 1 else f"{HOST_PREFIX}{runs[0]}"


def slurm_topology(truth):
    """Ground-truth topology.conf for topology/tree: SUs, then pods/groups, then one root."""
    sus, parent = {}, {}
    for host, rec in truth["hosts"].items():
        sus.setdefault(rec["su"], []).append(host)
        parent[rec["su"]] = rec.get("pod") or rec.get("group")
    lines = [f"SwitchName={su} Nodes={compress(hosts)}" for su, hosts in sorted(sus.items())]
    tops = sorted({p for p in parent.values() if p})
    for top in tops:
        lines.append(f"SwitchName={top} Switches={','.join(sorted(s for s in sus if parent[s] == top))}")
    lines.append(f"SwitchName=root Switches={','.join(tops or sorted(sus))}")
    return "\n".join(lines) + "\n"


def build_fat2(f, a):
    spines = [f.switch(f"spine{s + 1:02d}", "spine") for s in range(a.spines)]
    h = 0
    for l in range(a.leaves):
        leaf = f.switch(f"leaf{l + 1:02d}", "leaf", su=f"su{l + 1:02d}")
        for _ in range(a.hosts_per_leaf):
            h += 1
            f.attach(host_name(h), "mlx5_0", leaf, su=f"su{l + 1:02d}")
        for sp in spines:
            for _ in range(a.parallel):
                f.link(leaf, sp)


def leaf_with_hosts(f, name, uppers, hosts_per_leaf, parallel, counter, **truth):
    """A leaf serving hosts_per_leaf new hosts, cabled to every upper switch `parallel` times."""
    su = f"{name}-su{truth.pop('index')}"
    leaf = f.switch(f"{name}-leaf{su.rsplit('su', 1)[1]}", "leaf", su=su, **truth)
    for _ in range(hosts_per_leaf):
        counter[0] += 1
        f.attach(host_name(counter[0]), "mlx5_0", leaf, su=su, **truth)
    for up in uppers:
        for _ in range(parallel):
            f.link(leaf, up)


def build_fat3(f, a):
    cores = [[f.switch(f"core{p + 1}-{c + 1}", "core", plane=p + 1) for c in range(a.cores_per_plane)]
             for p in range(a.aggs)]
    h = [0]
    for pod in range(a.pods):
        pname = f"pod{pod + 1}"
        aggs = [f.switch(f"{pname}-agg{j + 1}", "agg", pod=pname) for j in range(a.aggs)]
        for l in range(a.leaves):
            leaf_with_hosts(f, pname, aggs, a.hosts_per_leaf, a.parallel, h, index=l + 1, pod=pname)
        for j, agg in enumerate(aggs):
            for core in cores[j]:
                f.link(agg, core)


def build_dfp(f, a):
    groups = []
    h = [0]
    for g in range(a.groups):
        gname = f"g{g + 1}"
        spines = [f.switch(f"{gname}-spine{s + 1}", "spine", group=gname) for s in range(a.spines)]
        for l in range(a.leaves):
            leaf_with_hosts(f, gname, spines, a.hosts_per_leaf, a.parallel, h, index=l + 1, group=gname)
        groups.append(spines)
    for x in range(a.groups):
        for y in range(x + 1, a.groups):
            for k in range(a.global_links):
                f.link(groups[x][k % a.spines], groups[y][k % a.spines])


def build_rail(f, a):
    spines = [f.switch(f"spine{s + 1:02d}", "spine") for s in range(a.spines)]
    h = 0
    for u in range(a.sus):
        su = f"su{u + 1:02d}"
        leaves = [f.switch(f"{su}-rail{r}", "leaf", su=su, rail=r) for r in range(a.rails)]
        for _ in range(a.hosts_per_su):
            h += 1
            for r, leaf in enumerate(leaves):
                f.attach(host_name(h), f"mlx5_{r}", leaf, su=su)
        for leaf in leaves:
            for sp in spines:
                for _ in range(a.parallel):
                    f.link(leaf, sp)


def hosts_on_spine(f, compute, storage):
    """Cables `compute` more compute hosts (named like the others, one HCA each) into the first
    spine, and `storage` storage servers (storage01...) into the last spine of the same group:
    hosts a site cables straight into a spine. The compute ones are an SU of their own, named
    after the spine; the storage servers are no compute hosts (truth: "non_compute")."""
    spines = [s for s in f.switches if s["role"] == "spine"]
    first = spines[0]
    same_group = [s for s in spines if s.get("group") == first.get("group")]
    group = {"group": first["group"]} if first.get("group") else {}
    total = len(f.hosts)
    for k in range(compute):
        f.attach(host_name(total + k + 1), "mlx5_0", first, su=first["name"], **group)
    f.non_compute = []
    for k in range(storage):
        ca = f.ca(f"storage{k + 1:02d}", "mlx5_0")
        f.link(same_group[-1], ca)
        f.non_compute.append({"host": ca["host"], "hca": "mlx5_0", "guid": f"0x{ca['guid']:016x}",
                              "spine": same_group[-1]["name"]})


def main(argv):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("shape", choices=["fat2", "fat3", "dfp", "rail"])
    p.add_argument("-o", "--out", required=True, help="output path without extension")
    p.add_argument("--leaves", type=int, default=4, help="leaves (fat2) or leaves per pod/group")
    p.add_argument("--spines", type=int, default=2, help="spines (fat2, rail) or spines per group (dfp)")
    p.add_argument("--hosts-per-leaf", type=int, default=4)
    p.add_argument("--parallel", type=int, default=1, help="parallel cables per leaf-up pair")
    p.add_argument("--pods", type=int, default=2)
    p.add_argument("--aggs", type=int, default=2, help="aggregation switches per pod (= core planes)")
    p.add_argument("--cores-per-plane", type=int, default=2)
    p.add_argument("--groups", type=int, default=4)
    p.add_argument("--global-links", type=int, default=2, help="global cables per group pair")
    p.add_argument("--sus", type=int, default=2)
    p.add_argument("--hosts-per-su", type=int, default=4)
    p.add_argument("--rails", type=int, default=4)
    p.add_argument("--factory-names", action="store_true",
                   help="switches carry the factory description, no names")
    p.add_argument("--shuffle", type=int, default=0, metavar="SEED",
                   help="number hosts in a random (seeded) order, so SUs are not contiguous ranges")
    p.add_argument("--unnamed", type=int, default=0, metavar="N",
                   help="give N HCAs the factory description and write <out>.guidmap naming them")
    p.add_argument("--drop-uplinks", type=float, default=0.0, metavar="PCT",
                   help="pull this %% of leaf-to-upper cables (never a leaf's last)")
    p.add_argument("--drop-global", type=float, default=0.0, metavar="PCT",
                   help="pull this %% of the global cables between groups (dfp)")
    p.add_argument("--drop-seed", type=int, default=1, help="which cables are pulled")
    p.add_argument("--halve-uplinks", default="", metavar="PREFIX",
                   help="pull every second uplink of the leaves named PREFIX... (a degraded SU)")
    p.add_argument("--spine-hosts", type=int, default=0, metavar="N",
                   help="cable N more compute hosts into the first spine (fat2, rail, dfp)")
    p.add_argument("--spine-storage", type=int, default=0, metavar="N",
                   help="cable N storage servers (storage01...) into a spine (fat2, rail, dfp)")
    p.add_argument("--host-prefix", default="gpu", help="host names: PREFIX + zero-padded number")
    p.add_argument("--host-digits", type=int, default=4)
    a = p.parse_args(argv)
    global HOST_PREFIX, HOST_DIGITS
    HOST_PREFIX, HOST_DIGITS = a.host_prefix, a.host_digits
    for k, v in vars(a).items():
        if isinstance(v, int) and not isinstance(v, bool) and v < 1 and k not in ("shuffle", "unnamed", "spine_hosts", "spine_storage"):
            p.error(f"--{k.replace('_', '-')} must be at least 1, got {v}")
    if a.shuffle:
        import random
        total = {"fat2": a.leaves * a.hosts_per_leaf,
                 "fat3": a.pods * a.leaves * a.hosts_per_leaf,
                 "dfp": a.groups * a.leaves * a.hosts_per_leaf,
                 "rail": a.sus * a.hosts_per_su}[a.shape]
        order = list(range(1, total + 1))
        random.Random(a.shuffle).shuffle(order)
        HOST_NUMBER.update({i + 1: n for i, n in enumerate(order)})
    f = Fabric(a.factory_names)
    {"fat2": build_fat2, "fat3": build_fat3, "dfp": build_dfp, "rail": build_rail}[a.shape](f, a)
    if a.spine_hosts or a.spine_storage:
        if a.shape == "fat3":
            p.error("--spine-hosts/--spine-storage: fat3 has aggregation and core switches, no spine")
        hosts_on_spine(f, a.spine_hosts, a.spine_storage)
    if a.drop_uplinks or a.drop_global:
        f.dropped = f.drop_cables(a.drop_uplinks, a.drop_global, a.drop_seed)
    if a.halve_uplinks:
        f.dropped = getattr(f, "dropped", []) + f.halve_uplinks(a.halve_uplinks)
    unnamed = f.cas[:: max(1, len(f.cas) // a.unnamed)][: a.unnamed] if a.unnamed else []
    for ca in unnamed:
        ca["unnamed"] = True
    worst = max(s["next"] - 1 for s in f.switches)
    if worst > 255:
        p.error(f"a switch would need {worst} ports; ibsim allows at most 255")
    params = {k: v for k, v in sorted(vars(a).items()) if k not in ("out", "shape")}
    with open(a.out + ".net", "w") as fh:
        fh.write(f"# Switchyard generated fabric: {a.shape} {json.dumps(params, sort_keys=True)}\n")
        fh.write(f.net_text())
    with open(a.out + ".truth.json", "w") as fh:
        json.dump(f.truth(a.shape, params), fh, indent=1, sort_keys=True)
        fh.write("\n")
    if unnamed:
        with open(a.out + ".guidmap", "w") as fh:
            for ca in unnamed:
                fh.write(f"0x{ca['guid']:016x} {ca['host']} {ca['hca']}\n")
    with open(a.out + ".topology.conf", "w") as fh:
        fh.write(slurm_topology(f.truth(a.shape, params)))
    c = f.truth(a.shape, params)["counts"]
    print(f"{a.out}.net: {c['switches']} switches, {c['cas']} CAs, {c['hosts']} hosts, {c['links']} links")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
