#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Lint: every C++ file clang-formatted (.clang-format), and hygiene over every tracked file: no
# trailing whitespace, a final newline, nothing over 1 MB outside test data, an SPDX line at the
# top of every source and script, no ';' in a TEST_CASE name, no source file (C++, Lua, Python,
# shell) over 600 lines (split by what the parts do: docs/design.md). One clang-format run and one
# Python pass over the tree (a process per file took a minute).
set -uo pipefail
cd "$(dirname "$0")/.."
status=0
mapfile -t cxx < <(git ls-files '*.cpp' '*.hpp')
if command -v clang-format >/dev/null; then
  # --dry-run -Werror names each file that differs, "file:line:col: error: code should be
  # clang-formatted"; one line per file here.
  bad=$(printf '%s\0' "${cxx[@]}" | xargs -0 -n 64 -P "$(nproc)" clang-format --dry-run -Werror 2>&1 |
        sed -n 's/^\([^:]*\):[0-9]*:[0-9]*: error: code should be clang-formatted.*/\1/p' | sort -u)
  for f in $bad; do echo "not clang-formatted: $f (run: clang-format -i $f)"; status=1; done
else
  echo "clang-format not installed (scripts/install-deps installs it)"; status=1
fi
python3 - <<'PY' || status=1
import re, subprocess, sys
files = subprocess.run(["git", "ls-files", "-z"], capture_output=True, check=True).stdout.decode().split("\0")
data_dirs = ("tests/data/", "tests/fuzz/regress/", "tests/fuzz/corpus/")
golden = re.compile(r"^tests/golden/(.*/expected\.|.*\.expected$|.*/input\.)")
needs_spdx = re.compile(r"(\.(cpp|hpp|py|sh|cmake)$|^scripts/|(^|/)CMakeLists\.txt$)")
source = re.compile(r"\.(c|h|cpp|hpp|lua|py|sh)$")
MAX_LINES = 600
bad = 0
def say(msg):
    global bad
    print(msg)
    bad = 1
for f in filter(None, files):
    try:
        with open(f, "rb") as fh:
            body = fh.read()
    except (FileNotFoundError, IsADirectoryError):
        continue
    if not f.startswith(data_dirs) and not golden.search(f):
        for n, line in enumerate(body.split(b"\n")[:200000], 1):
            if line.endswith((b" ", b"\t")):
                say(f"trailing whitespace: {f}:{n}")
                break
        if body and not body.endswith(b"\n"):
            say(f"no final newline: {f}")
        if len(body) > 1048576:
            say(f"file over 1 MB: {f}")
    lines = body.count(b"\n")
    if source.search(f) and not f.startswith(data_dirs) and lines > MAX_LINES:
        say(f"{f}: {lines} lines, more than {MAX_LINES}: split it by what its parts do")
    if needs_spdx.search(f) and b"SPDX-License-Identifier" not in b"\n".join(body.split(b"\n")[:3]):
        say(f"no SPDX line in the first lines: {f}")
    if f.startswith("tests/") and f.endswith(".cpp"):
        for n, line in enumerate(body.split(b"\n"), 1):
            if re.match(rb'^TEST_CASE\("[^"]*;', line):
                say(f"{f}:{n}: a TEST_CASE name holds ';' (ctest would split it and run nothing): use ',' instead")
sys.exit(bad)
PY
[ $status -eq 0 ] && echo "ok: format and hygiene"
exit $status
