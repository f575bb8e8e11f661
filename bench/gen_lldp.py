#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Generates the lldpctl outputs of a large rail-optimised Ethernet fabric, as the admin guide
gathers them (`lldpcli -f json show chassis` then `lldpctl -f json`, pretty-printed as lldpctl
prints them, with the fields lldpd 1.0 sends): one file per switch, and with --host-files one
per host too.

Shape: SUs of --hosts-per-su hosts, one leaf per SU and rail (host ports swp1..), pods of
--sus-per-pod SUs with --spines spines each (every leaf cabled to every spine of its pod), and
--cores core switches (every spine cabled to every core).

With --plain, every file is what a plain `lldpctl -f json` prints (no `show chassis` part) under
a name that says nothing: discover names each from its cables.

Usage: gen_lldp.py OUTDIR [--hosts 100000] [--rails 8] [--host-files] [--plain]
"""
import argparse
import os
import zlib


def mac(kind, n):
    return "%02x:%02x:%02x:%02x:%02x:%02x" % (0x02 | kind << 2, (n >> 32) & 0xff, (n >> 24) & 0xff,
                                               (n >> 16) & 0xff, (n >> 8) & 0xff, n & 0xff)


CAPS = {True: ("Bridge", "Router"), False: ("Bridge", "Router", "Wlan", "Station")}
DESCR = {True: "SONiC Software Version: SONiC.202311 - HwSku: Mellanox-SN5600",
         False: "Ubuntu 22.04.4 LTS Linux 5.15.0-105-generic"}


def caps(switch, indent):
    """lldpctl's capability list, at `indent` spaces."""
    pad = " " * indent
    items = [f'{pad}  {{\n{pad}    "type": "{t}",\n{pad}    "enabled": '
             f'{"true" if switch or t == "Station" else "false"}\n{pad}  }}' for t in CAPS[switch]]
    return "[\n" + ",\n".join(items) + f"\n{pad}]"


CAPS_TEXT = {(sw, ind): caps(sw, ind) for sw in (True, False) for ind in (8, 12)}

# lldpctl -f json's layout, two spaces per level, as it prints a neighbour.
RECORD = """    {
      "%(port)s": {
        "via": "LLDP",
        "rid": "1",
        "age": "12 days, 03:14:07",
        "chassis": {
          "%(name)s": {
            "id": {
              "type": "mac",
              "value": "%(mac)s"
            },
            "descr": "%(descr)s",
            "mgmt-ip": "%(ip)s",
            "mgmt-iface": "2",
            "capability": %(caps)s
          }
        },
        "port": {
          "id": {
            "type": "%(pid_type)s",
            "value": "%(pid)s"
          },
          "descr": "%(far_port)s",
          "ttl": "120",
          "mfs": "9216"
        }
      }
    }"""

LOCAL = """{
  "local-chassis": {
    "chassis": {
      "%(name)s": {
        "id": {
          "type": "mac",
          "value": "%(mac)s"
        },
        "descr": "%(descr)s",
        "mgmt-ip": "%(ip)s",
        "mgmt-iface": "2",
        "capability": %(caps)s
      }
    }
  }
}
"""


def ip(name):
    return "10.%d.%d.%d" % tuple(zlib.crc32(name.encode()).to_bytes(4, "big")[1:])


def record(port, far, far_mac, far_switch, far_port, far_port_mac):
    return RECORD % {"port": port, "name": far, "mac": far_mac, "descr": DESCR[far_switch],
                     "ip": ip(far), "caps": CAPS_TEXT[(far_switch, 12)],
                     "pid_type": "ifname" if far_switch else "mac",
                     "pid": far_port if far_switch else far_port_mac, "far_port": far_port}


PLAIN = False  # --plain: no `show chassis` part, file names that say nothing


def write(outdir, name, name_mac, switch, records):
    file_name = f"capture-{zlib.crc32(name.encode()):08x}" if PLAIN else name
    with open(os.path.join(outdir, file_name + ".json"), "w") as fh:
        if not PLAIN:
            fh.write(LOCAL % {"name": name, "mac": name_mac, "descr": DESCR[switch],
                              "ip": ip(name), "caps": CAPS_TEXT[(switch, 8)]})
        fh.write('{\n  "lldp": {\n    "interface": [\n')
        fh.write(",\n".join(records))
        fh.write("\n    ]\n  }\n}\n")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("outdir")
    p.add_argument("--hosts", type=int, default=100000)
    p.add_argument("--rails", type=int, default=8)
    p.add_argument("--hosts-per-su", type=int, default=32)
    p.add_argument("--sus-per-pod", type=int, default=16)
    p.add_argument("--spines", type=int, default=8, help="spines per pod")
    p.add_argument("--cores", type=int, default=8)
    p.add_argument("--host-files", action="store_true", help="a file per host too")
    p.add_argument("--plain", action="store_true",
                   help="plain `lldpctl -f json` files: no `show chassis`, named capture-<crc>")
    a = p.parse_args()
    global PLAIN
    PLAIN = a.plain
    os.makedirs(a.outdir, exist_ok=True)
    sus = (a.hosts + a.hosts_per_su - 1) // a.hosts_per_su
    pods = (sus + a.sus_per_pod - 1) // a.sus_per_pod
    host_mac = lambda h: mac(0, h)
    port_mac = lambda h, r: mac(1, h * 16 + r)
    sw_mac = {}

    def sw(name):
        return sw_mac.setdefault(name, mac(2, len(sw_mac) + 1))

    leaf = lambda su, r: f"leaf-su{su:05d}-r{r}"
    spine = lambda pod, s: f"spine-p{pod:04d}-{s}"
    core = lambda c: f"core-{c:02d}"
    host = lambda h: f"gpu{h:06d}"
    nic = lambda r: f"ens{r + 1}np0"
    host_records = {}
    for su in range(sus):
        pod = su // a.sus_per_pod
        first = su * a.hosts_per_su
        members = range(first, min(first + a.hosts_per_su, a.hosts))
        for r in range(a.rails):
            name = leaf(su, r)
            recs = []
            for i, h in enumerate(members):
                recs.append(record(f"swp{i + 1}", host(h), host_mac(h), False, nic(r),
                                   port_mac(h, r)))
                if a.host_files:
                    host_records.setdefault(h, []).append(
                        record(nic(r), name, sw(name), True, f"swp{i + 1}", None))
            for s in range(a.spines):
                recs.append(record(f"swp{a.hosts_per_su + 1 + s}", spine(pod, s), sw(spine(pod, s)),
                                   True, f"swp{su % a.sus_per_pod * a.rails + r + 1}", None))
            write(a.outdir, name, sw(name), True, recs)
    for pod in range(pods):
        pod_sus = range(pod * a.sus_per_pod, min((pod + 1) * a.sus_per_pod, sus))
        for s in range(a.spines):
            name = spine(pod, s)
            recs = [record(f"swp{su % a.sus_per_pod * a.rails + r + 1}", leaf(su, r), sw(leaf(su, r)),
                           True, f"swp{a.hosts_per_su + 1 + s}", None)
                    for su in pod_sus for r in range(a.rails)]
            base = a.sus_per_pod * a.rails
            recs += [record(f"swp{base + c + 1}", core(c), sw(core(c)), True,
                            f"swp{pod * a.spines + s + 1}", None) for c in range(a.cores)]
            write(a.outdir, name, sw(name), True, recs)
    for c in range(a.cores):
        recs = [record(f"swp{pod * a.spines + s + 1}", spine(pod, s), sw(spine(pod, s)), True,
                       f"swp{a.sus_per_pod * a.rails + c + 1}", None)
                for pod in range(pods) for s in range(a.spines)]
        write(a.outdir, core(c), sw(core(c)), True, recs)
    for h, recs in host_records.items():
        write(a.outdir, host(h), host_mac(h), False, recs)
    files = len(os.listdir(a.outdir))
    size = sum(os.path.getsize(os.path.join(a.outdir, f)) for f in os.listdir(a.outdir))
    print(f"{a.outdir}: {a.hosts} hosts x {a.rails} rails, {sus} SUs in {pods} pods, "
          f"{files} files, {size // 1000000} MB")


if __name__ == "__main__":
    main()
