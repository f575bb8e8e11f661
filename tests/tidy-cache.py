#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""clang-tidy's verdicts, remembered by what was checked (used by check-tidy.sh).

A translation unit's key is the SHA-256 of everything clang-tidy's verdict on it depends on: the
clang-tidy version, .clang-tidy, the unit's compile flags, and the unit as clang's preprocessor
expands it, with its comments (a NOLINT is one) and line markers: every header it includes, the
project's and the system's, and which file each line came from. A key is stored only
after a run in which clang-tidy found nothing, so a unit whose key is stored would be found clean
again; any change to it, to a header it includes or to the checks makes a new key.

  tidy-cache.py pending BUILD_DIR CACHE_DIR REGEX
      prints "KEY<TAB>FILE<TAB>FILE AS A REGEX" for each unit of BUILD_DIR's compile commands
      that matches REGEX and whose key is not in CACHE_DIR (a unit whose key cannot be made is
      always pending, with "-" for its key)
  tidy-cache.py store CACHE_DIR KEY...
      records these keys as clean
  tidy-cache.py --self-test
"""
import hashlib
import json
import os
import re
import shlex
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

PREPROCESSOR = "clang++"
TIDY = "clang-tidy"


def tool_version(tool):
    try:
        return subprocess.run([tool, "--version"], capture_output=True, text=True,
                              timeout=30, check=False).stdout
    except (OSError, subprocess.SubprocessError):
        return ""


def expand_command(entry):
    """The compile command with -E instead of -c and the output to stdout."""
    args = entry.get("arguments") or shlex.split(entry["command"])
    out = [PREPROCESSOR, "-Wno-unknown-warning-option"]
    skip = False
    for a in args[1:]:
        if skip:
            skip = False
            continue
        if a in ("-o", "-MF", "-MT", "-MQ"):
            skip = True
            continue
        if a in ("-c", "-MD", "-MMD") or a.startswith("-W"):
            continue
        out.append(a)
    # -C keeps the comments: a NOLINT is one.
    return out + ["-E", "-C", "-o", "-"], args


def key_of(entry, salt, top):
    expand, args = expand_command(entry)
    try:
        r = subprocess.run(expand, cwd=entry["directory"], capture_output=True, timeout=120,
                           check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    if r.returncode != 0:
        return None
    # The checkout's own path is left out: a clean clone elsewhere has the same keys.
    h = hashlib.sha256(salt)
    h.update("\0".join(args[1:]).replace(top, "@TOP@").encode())
    h.update(b"\0")
    h.update(r.stdout.replace(top.encode(), b"@TOP@"))
    return h.hexdigest()


def pending(build, cache, regex):
    with open(os.path.join(build, "compile_commands.json"), encoding="utf-8") as f:
        entries = json.load(f)
    top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    try:
        with open(os.path.join(top, ".clang-tidy"), "rb") as f:
            config = f.read()
    except OSError:
        config = b""
    salt = (tool_version(TIDY) + tool_version(PREPROCESSOR)).encode() + b"\0" + config + b"\0"
    pattern = re.compile(regex)
    units = {}
    for e in entries:
        path = os.path.join(e["directory"], e["file"])
        if pattern.fullmatch(path) and path not in units:
            units[path] = e
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        keys = list(pool.map(lambda e: key_of(e, salt, top), units.values()))
    for path, key in zip(units, keys):
        if key is None or not os.path.exists(os.path.join(cache, key)):
            print(f"{key or '-'}\t{path}\t^{re.escape(path)}$")


def store(cache, keys):
    os.makedirs(cache, mode=0o755, exist_ok=True)
    for k in keys:
        if re.fullmatch(r"[0-9a-f]{64}", k):
            with open(os.path.join(cache, k), "w", encoding="utf-8"):
                pass


def self_test():
    """A unit's key changes with its code, its comments, a header and its flags, and only so."""
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        def write(name, text):
            with open(os.path.join(d, name), "w", encoding="utf-8") as f:
                f.write(text)

        def key(flags="-std=c++20"):
            entry = {"directory": d, "file": "u.cpp",
                     "command": f"c++ {flags} -I{d} -o u.o -c {d}/u.cpp"}
            return key_of(entry, b"salt", d)

        write("h.hpp", "inline int h() { return 1; }\n")
        write("u.cpp", '#include "h.hpp"\nint f() { return h(); }  // NOLINT\n')
        first = key()
        checks = [("the same unit", first, True)]
        write("u.cpp", '#include "h.hpp"\nint f() { return h(); }\n')
        checks.append(("a NOLINT removed", key(), False))
        write("u.cpp", '#include "h.hpp"\nint f() { return h(); }  // NOLINT\n')
        checks.append(("the unit as it was", key(), True))
        write("h.hpp", "inline int h() { return 2; }\n")
        checks.append(("a header changed", key(), False))
        write("h.hpp", "inline int h() { return 1; }\n")
        checks.append(("other flags", key("-std=c++17"), False))
        bad = [what for what, k, same in checks if k is None or (k == first) != same]
        if first is None or bad:
            print("tidy-cache self-test failed:", ", ".join(bad) or "no key")
            return 1
    print("ok: tidy-cache keys follow the code, comments, headers and flags")
    return 0


def main(argv):
    if len(argv) == 2 and argv[1] == "--self-test":
        return self_test()
    if len(argv) == 5 and argv[1] == "pending":
        pending(argv[2], argv[3], argv[4])
        return 0
    if len(argv) >= 3 and argv[1] == "store":
        store(argv[2], argv[3:])
        return 0
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
