#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The layering of the libraries, checked over #include lines (docs/design.md draws it).

Each unit (a top folder, or a part of one such as slurm/client) may include the public headers
("switchyard/<lib>/..." or "switchyard/<lib>/<part>/...") of the units listed for it below and
nothing else of the project (nor the few headers FORBIDDEN names for it); a quoted include that
climbs out of its unit ("../x.hpp") is refused, so a private header stays private; only plugin/
includes Slurm's headers (<slurm/...>, <spank.h>); nothing below ops/ prints (std::cout,
std::cerr, printf, puts: the use cases and the command decide what is shown). tests/, bench/ and
the fuzz harnesses may use everything.

Usage: check-layering.py [ROOT]        check the tree at ROOT (default: this checkout)
       check-layering.py --self-test   plant one forbidden include of each kind in a copy of
                                       the tree and require each to be refused
"""
import os
import re
import shutil
import sys
import tempfile

# folder -> the libraries its sources may include (its own included).
ALLOWED = {
    "common": {"common"},
    # the models and their readers: the fabric map (what the capabilities read) and the node
    # stand apart; Slurm's files are written from the map; discover reads fabrics into it
    "fabric": {"common", "fabric"},
    "node": {"common", "node"},
    # the Slurm client, in two parts: the files written from the map, and every command line of
    # scontrol, sinfo, squeue, sacct and sacctmgr (reached only by ops/ and plugin/)
    "slurm/files": {"common", "fabric", "slurm/files"},
    "slurm/client": {"common", "fabric", "slurm/files", "slurm/client"},
    # discover/ by reader: the raw graph every reader gives, the ibnetdiscover and LLDP readers
    # (the latter with its own JSON reader, over the node's ports), the classifier, and the
    # NVLink domains put in the map; no reader knows another, the classifier knows none
    "discover/graph": {"common", "discover/graph"},
    "discover/ib": {"common", "fabric", "discover/graph", "discover/ib"},
    "discover/lldp": {"common", "fabric", "node", "discover/graph", "discover/lldp"},
    "discover/classify": {"common", "fabric", "discover/graph", "discover/classify"},
    "discover/nvlink": {"common", "fabric", "node", "discover/nvlink"},
    # the capabilities: each stands on the fabric map and the node alone (never on discover's
    # readers or the Slurm files), and none knows another or the policy file
    "nccl": {"common", "fabric", "node", "nccl"},
    "placement": {"common", "fabric", "node", "placement"},
    "health": {"common", "fabric", "node", "health"},
    # the preflight: pairs, probe readers and the locator, on the map alone (ops/ runs probes)
    "preflight": {"common", "fabric", "preflight"},
    # the loader builds each capability's settings; the command and the plugin wire them
    "policy": {"common", "fabric", "node", "nccl", "placement", "health", "preflight", "policy"},
    # the picture of the fabric: a writer, not a command
    "render": {"common", "fabric", "render"},
    # the use cases, above the capabilities: one runner per command, and with the plugin the
    # only code that reaches the Slurm client
    "ops": {"common", "fabric", "node", "slurm/files", "slurm/client", "discover/graph",
            "discover/ib", "discover/lldp", "discover/classify", "discover/nvlink", "nccl",
            "placement", "health", "preflight", "policy", "render", "ops"},
    # the command: options into a request, one call to ops/, the report printed
    "cli": {"common", "fabric", "node", "nccl", "placement", "health", "preflight", "policy",
            "render", "ops", "cli"},
    # the plugin runs inside slurmstepd and slurmd: no reader of fabric dumps, no Slurm file
    "plugin": {"common", "fabric", "node", "nccl", "placement", "health", "policy", "slurm/client",
               "plugin"},
}
# The units below ops/: they return what they found and never print it.
SILENT = {"common", "fabric", "node", "slurm/files", "slurm/client", "discover/graph",
          "discover/ib", "discover/lldp", "discover/classify", "discover/nvlink", "nccl",
          "placement", "health", "preflight", "policy", "render"}
PRINT = re.compile(r"\bstd::(cout|cerr|clog)\b|(?<![\w:.])(?:std::|::)?(printf|puts|putchar|perror)\s*\(|"
                   r"\bfprintf\s*\(\s*(stdout|stderr)")
SLURM_ALLOWED = {"plugin"}
# Headers of an allowed library that a folder still may not use, and why.
FORBIDDEN = {
    "plugin": {"switchyard/common/input.hpp": "the plugin never maps a file or installs a "
                                              "signal handler (commands' inputs only)"},
}
# plugin/ by module: its folders' headers are reached by name through include paths, so a
# folder may include by name only the headers of the folders listed for it. core/ (the hook
# logic the tests link with a fake SpankApi) includes no Slurm header and no adapter.
PLUGIN_ALLOWED = {
    "core": {"core"},
    "adapters": {"adapters", "core"},
    "front": {"front", "adapters", "core"},
    "step": {"step", "adapters", "core"},
    "gate": {"gate", "adapters", "core"},
}
SOURCES = (".c", ".h", ".cpp", ".hpp")
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^">]+)[">]')
PROJECT = re.compile(r"^switchyard/([a-z_]+)/(?:([a-z_]+)/)?")
SLURM = re.compile(r"^(slurm/|spank\.h$)")


def plugin_headers(root):
    """Header name -> the plugin/ folder that holds it."""
    owner = {}
    for sub in PLUGIN_ALLOWED:
        folder = os.path.join(root, "plugin", sub)
        for name in os.listdir(folder) if os.path.isdir(folder) else []:
            if name.endswith((".h", ".hpp")):
                owner[name] = sub
    return owner


def unit_of_include(m):
    """The unit a project include names: "slurm/client" for switchyard/slurm/client/x.hpp."""
    two = f"{m.group(1)}/{m.group(2)}" if m.group(2) else None
    return two if two in ALLOWED else m.group(1)


def units(root):
    """(unit, its folder) for every unit, a part before its folder's remainder."""
    return [(u, os.path.join(root, *u.split("/"))) for u in sorted(ALLOWED, key=lambda u: -u.count("/"))]


def problems(root):
    out = []
    owner = plugin_headers(root)
    seen = set()
    for top, folder in units(root):
        for dirpath, _, files in os.walk(folder):
            for name in sorted(files):
                if not name.endswith(SOURCES):
                    continue
                path = os.path.join(dirpath, name)
                if path in seen:
                    continue  # a part's file, checked under its part
                seen.add(path)
                rel = os.path.relpath(path, root)
                with open(path, encoding="utf-8", errors="replace") as fh:
                    for n, line in enumerate(fh, 1):
                        code = line.split("//", 1)[0]
                        if top in SILENT and PRINT.search(code):
                            out.append(f"{rel}:{n}: prints: {top}/ is below ops/ and never "
                                       f"prints (return it; ops/ or cli/ shows it)")
                        m = INCLUDE.match(line)
                        if not m:
                            continue
                        quote, target = m.groups()
                        lib = PROJECT.match(target)
                        if lib and unit_of_include(lib) not in ALLOWED[top]:
                            out.append(f"{rel}:{n}: includes {target}: {top}/ may use only "
                                       f"{', '.join(sorted(ALLOWED[top]))}")
                        why = FORBIDDEN.get(top, {}).get(target)
                        if why:
                            out.append(f"{rel}:{n}: includes {target}: {why}")
                        sub = rel.split(os.sep)[1] if top == "plugin" and rel.count(os.sep) > 1 else ""
                        if SLURM.match(target) and (top not in SLURM_ALLOWED or sub == "core"):
                            out.append(f"{rel}:{n}: includes Slurm's {target}: only plugin/ "
                                       f"(not its core/) includes Slurm headers")
                        home = owner.get(os.path.basename(target)) if quote == '"' else None
                        if sub in PLUGIN_ALLOWED and home and home not in PLUGIN_ALLOWED[sub]:
                            out.append(f"{rel}:{n}: includes {target} of plugin/{home}/: "
                                       f"plugin/{sub}/ may use only "
                                       f"{', '.join(sorted(PLUGIN_ALLOWED[sub]))}")
                        if quote == '"' and not lib:
                            inside = os.path.normpath(os.path.join(dirpath, target))
                            if not inside.startswith(folder + os.sep):
                                out.append(f"{rel}:{n}: includes {target}, outside {top}/: "
                                           f"use a public header (switchyard/<lib>/...)")
    return out


def self_test(root):
    """Each planted include must be refused, naming its file and line; the tree itself passes."""
    plants = [
        ("common/src/strings.cpp", '#include "switchyard/fabric/fabric_map.hpp"', "fabric"),
        ("fabric/src/fabric_map.cpp", '#include "switchyard/node/node_topology.hpp"', "fabric/"),
        ("node/src/sysfs_reader.cpp", '#include "switchyard/fabric/fabric_map.hpp"', "node/"),
        ("slurm/files/src/slurm_writers.cpp",
         '#include "switchyard/discover/classify/classify.hpp"', "slurm/files/ may use"),
        ("slurm/files/src/slurm_writers.cpp",
         '#include "switchyard/slurm/client/client.hpp"', "slurm/files/ may use"),
        ("slurm/client/src/scontrol.cpp", '#include "switchyard/ops/install.hpp"',
         "slurm/client/ may use"),
        ("discover/classify/src/classify.cpp",
         '#include "switchyard/slurm/files/slurm_writers.hpp"', "discover/classify/ may use"),
        ("cli/audit_cmd.cpp", '#include "switchyard/slurm/client/scontrol.hpp"', "cli/ may use"),
        ("cli/node_cmd.cpp", '#include "switchyard/discover/lldp/lldp.hpp"', "cli/ may use"),
        ("discover/ib/src/ib_reader.cpp", '#include "switchyard/discover/lldp/lldp.hpp"',
         "discover/ib/ may use"),
        ("discover/lldp/src/lldp_parser.cpp",
         '#include "switchyard/discover/classify/classify.hpp"', "discover/lldp/ may use"),
        ("discover/classify/src/guid_map.cpp", '#include "switchyard/discover/lldp/lldp.hpp"',
         "discover/classify/ may use"),
        ("discover/classify/src/classify.cpp", '#include "switchyard/node/node_topology.hpp"',
         "discover/classify/ may use"),
        ("discover/nvlink/src/nvlink_domains.cpp",
         '#include "switchyard/discover/classify/classify.hpp"', "discover/nvlink/ may use"),
        ("node/src/node_json_read.cpp", '#include "switchyard/discover/lldp/lldp.hpp"', "node/"),
        ("discover/lldp/src/lldp_fabric.cpp", '#include "../../ib/src/ibnetdiscover_text.hpp"',
         "outside discover/lldp/"),
        ("cli/plan_cmd.cpp", '#include "switchyard/slurm/files/slurm_writers.hpp"', "cli/ may use"),
        ("health/src/drain.cpp", '#include "switchyard/slurm/client/sinfo.hpp"', "health/ may use"),
        ("placement/src/steer.cpp", '#include "switchyard/ops/steer.hpp"', "placement/ may use"),
        ("policy/src/loaders.cpp", '#include "switchyard/ops/deps.hpp"', "policy/ may use"),
        ("render/src/render_svg.cpp", '#include "switchyard/ops/inputs.hpp"', "render/ may use"),
        ("ops/src/audit.cpp", '#include "../../cli/commands.hpp"', "outside ops/"),
        ("health/src/drain.cpp", 'void f() { std::cerr << "x"; }', "never prints"),
        ("slurm/client/src/client.cpp", 'void f() { std::printf("x"); }', "never prints"),
        ("discover/classify/src/classify.cpp", 'void f() { std::cout << 1; }', "never prints"),
        ("discover/classify/src/classify.cpp", '#include "switchyard/policy/policy.hpp"', "policy"),
        ("nccl/src/rules.cpp", '#include "switchyard/discover/lldp/lldp.hpp"', "nccl/ may use"),
        ("placement/src/planner.cpp", '#include "switchyard/slurm/files/slurm_writers.hpp"',
         "placement/"),
        ("health/src/health.cpp", '#include "switchyard/discover/graph/fabric_graph.hpp"',
         "health/"),
        ("policy/src/loaders.cpp", '#include "switchyard/ops/install_guard.hpp"',
         "policy/"),
        ("plugin/core/hooks.cpp", '#include "switchyard/discover/classify/classify.hpp"',
         "plugin/"),
        ("plugin/core/hooks.cpp", '#include "switchyard/slurm/files/slurm_writers.hpp"', "plugin/"),
        ("plugin/core/hooks.cpp", '#include "switchyard/ops/steer.hpp"', "plugin/"),
        ("nccl/src/rules.cpp", '#include "switchyard/health/health.hpp"', "nccl/ may use only"),
        ("health/src/drain.cpp", '#include "switchyard/policy/policy.hpp"', "health/ may use"),
        ("placement/src/planner.cpp", '#include "switchyard/nccl/rules.hpp"', "placement/"),
        ("placement/src/steer.cpp", "#include <slurm/slurm.h>", "Slurm"),
        ("cli/main.cpp", '#include "../plugin/core/hooks.hpp"', "outside cli/"),
        ("discover/classify/src/classify.cpp",
         '#include "../../../fabric/src/fabric_index_format.hpp"', "outside discover/classify/"),
        ("plugin/step/step_entry.cpp", '#include "switchyard/common/input.hpp"', "maps a file"),
        ("plugin/core/hooks.cpp", "#include <slurm/spank.h>", "Slurm"),
        ("plugin/core/hooks.cpp", '#include "spank_compat.hpp"', "plugin/adapters/"),
    ]
    failed = 0
    for path, line, word in plants:
        with tempfile.TemporaryDirectory(prefix="switchyard-layering-") as tmp:
            for top in {u.split("/")[0] for u in ALLOWED}:
                shutil.copytree(os.path.join(root, top), os.path.join(tmp, top))
            with open(os.path.join(tmp, path), "a") as fh:
                fh.write(line + "\n")
            found = [p for p in problems(tmp) if p.startswith(path + ":") and word in p]
            print(("ok: " if found else "FAIL: ") + f"{line} planted in {path} is refused" +
                  (f": {found[0]}" if found else ""))
            failed += 0 if found else 1
    return failed


def main(argv):
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    if argv and argv[0] == "--self-test":
        failed = self_test(here)
        failed += 1 if problems(here) else 0
        print("self-test passed" if not failed else f"{failed} self-test check(s) failed")
        return 1 if failed else 0
    root = argv[0] if argv else here
    found = problems(root)
    for p in found:
        print(p)
    print(f"layering: {len(found)} forbidden include(s)" if found else "ok: layering")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
