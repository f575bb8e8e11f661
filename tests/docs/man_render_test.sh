#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `man -l` renders the page with no groff warning, and the text has its NAME and SEE ALSO.
set -uo pipefail
page=${1:?usage: man_render_test.sh PAGE}
warnings=$(LANG=C groff -man -ww -z "$page" 2>&1; LANG=C MANWIDTH=100 man --warnings -l "$page" 2>&1 >/dev/null)
[ -z "$warnings" ] || { echo "FAIL: groff warnings for $page:"; echo "$warnings"; exit 1; }
text=$(LANG=C MANWIDTH=100 man -l "$page" 2>/dev/null)
for section in NAME DESCRIPTION "SEE ALSO"; do
  grep -q "^$section" <<<"$text" || { echo "FAIL: $page has no $section section"; exit 1; }
done
echo "ok: $page renders ($(wc -l <<<"$text") lines)"
