#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Runs the admin guide: every ```sh block of docs/admin-guide.md, in order, in /tmp/sy-guide
(a 16-node Dragonfly+ fabric dump from ibsim and fake node trees, node005 with mlx5_2 down), with
the built switchyard first on PATH. A block must exit 0; the ```output block after it lists lines
that must appear in what it printed (stdout and stderr).

Usage: admin_guide_test.py GUIDE SWITCHYARD_BIN GEN_FABRIC IBSIM_CAPTURE MAKE_NODE_TREES
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

WORK = "/tmp/sy-guide"  # the guide's examples name this directory


def blocks(text):
    """(kind, body, line) of each fenced block."""
    out = []
    for m in re.finditer(r"^```(\w*)\n(.*?)^```$", text, re.S | re.M):
        out.append((m.group(1), m.group(2), text.count("\n", 0, m.start()) + 1))
    return out


def main():
    guide, sy, gen, capture, trees = sys.argv[1:6]
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    bindir = tempfile.mkdtemp(prefix="sy-guide-bin-")
    os.symlink(os.path.abspath(sy), os.path.join(bindir, "switchyard"))
    env = dict(os.environ, PATH=bindir + ":" + os.environ["PATH"], LANG="C", LC_ALL="C")
    for cmd in ([gen, "dfp", "--groups", "2", "--leaves", "2", "--spines", "2", "--hosts-per-leaf",
                 "4", "--global-links", "2", "--host-prefix", "node", "--host-digits", "3",
                 "--shuffle", "11", "-o", os.path.join(bindir, "sim")],
                [capture, os.path.join(bindir, "sim.net"), os.path.join(WORK, "fabric.txt")],
                [trees, os.path.join(WORK, "nodes")] + ["node%03d" % i for i in range(1, 17)] +
                ["--down=node005:mlx5_2"]):
        subprocess.run(cmd, check=True, capture_output=True, timeout=120)

    failures = 0
    found = blocks(open(guide).read())
    runs = 0
    for i, (kind, body, line) in enumerate(found):
        if kind != "sh":
            continue
        runs += 1
        r = subprocess.run(["bash", "-o", "pipefail", "-c", body], cwd=WORK, env=env,
                           capture_output=True, text=True, timeout=120)
        printed = r.stdout + r.stderr
        problems = []
        if r.returncode != 0:
            problems.append("exit %d" % r.returncode)
        if i + 1 < len(found) and found[i + 1][0] == "output":
            for want in found[i + 1][1].splitlines():
                if want.strip() and want not in printed:
                    problems.append("missing output line: " + want)
        if problems:
            failures += 1
            print("FAIL: guide line %d:\n%s\n  %s\n--- printed:\n%s" %
                  (line, body, "\n  ".join(problems), printed))
        else:
            print("ok: guide line %d: %s" % (line, body.strip().splitlines()[-1][:90]))
    shutil.rmtree(bindir, ignore_errors=True)
    if runs < 10:
        print("FAIL: only %d sh blocks found in %s" % (runs, guide))
        failures += 1
    else:
        shutil.rmtree(WORK, ignore_errors=True)
    print("%d blocks run, %d failed" % (runs, failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
