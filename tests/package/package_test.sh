#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The Debian packages: built with the `package` preset and CPack, their fields and files checked,
# their dependencies resolved by apt (simulated), extracted into a fresh root, and the plugin
# loaded from its installed path by a real 2-node Slurm cluster through the packaged snippet.
# Usage: package_test.sh SOURCE_DIR RUN_DIR
set -uo pipefail
src=${1:?usage: package_test.sh SOURCE_DIR RUN_DIR}
run=${2:?}
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../integration/lib/assert.sh
. "$here/../integration/lib/assert.sh"

cd "$src" || exit 1
# The release the build is for (22.05 on Debian 12 in CI; a Debian root's release when run there)
# and the next one.
release=${SWITCHYARD_SLURM_RELEASE:?SWITCHYARD_SLURM_RELEASE is not set}
next="${release%.*}.$(printf '%02d' $((10#${release#*.} + 1)))"
# A build of its own (the package preset, prefix /usr) per Slurm release, incremental after the
# first run. What is tested here is the packages' fields, files, scripts and loading, not the
# optimiser: the build is made at -O0 without debug information (CPack strips it anyway) and
# without _FORTIFY_SOURCE (which needs optimisation), to cut the compile time this test adds to
# CI. SWITCHYARD_PACKAGE_AS_SHIPPED=1 builds it as shipped.
unset CC CXX CFLAGS CXXFLAGS LDFLAGS
pkg=build/package-$release
quick=(-DCMAKE_BUILD_TYPE=Release "-DCMAKE_CXX_FLAGS_RELEASE=-O0 -DNDEBUG -U_FORTIFY_SOURCE"
  "-DCMAKE_C_FLAGS_RELEASE=-O0 -DNDEBUG -U_FORTIFY_SOURCE")
[ "${SWITCHYARD_PACKAGE_AS_SHIPPED:-0}" = 1 ] && quick=(-DCMAKE_BUILD_TYPE=RelWithDebInfo)
{ cmake --preset package -B "$pkg" "${quick[@]}" && cmake --build "$pkg" -j2 && (cd "$pkg" && cpack); } \
  > "$src/$pkg.log" 2>&1 || { echo "FAIL: package build; see $src/$pkg.log"; tail -20 "$src/$pkg.log"; exit 1; }
cli=$src/$pkg/switchyard_0.1.0_amd64.deb
plugin=$src/$pkg/slurm-spank-switchyard_0.1.0_amd64.deb
[ -f "$cli" ] && [ -f "$plugin" ] || { echo "FAIL: cpack did not write both packages"; ls "$src/$pkg"/*.deb; exit 1; }
echo "ok: built $(basename "$cli") and $(basename "$plugin")"

out=$(dpkg-deb -f "$plugin" Depends)
expect_contains "$out" "slurm-wlm-basic-plugins (>= $release), slurm-wlm-basic-plugins (<< $next)" \
  "the plugin depends on the Slurm release it was built for ($release)"
expect_contains "$out" "switchyard (= 0.1.0)" "and on the CLI of the same version"
expect_contains "$out" "libyaml-cpp0." "shared-library dependencies come from dpkg-shlibdeps"
files=$(dpkg-deb -c "$plugin"; dpkg-deb -c "$cli")
for f in ./usr/lib/x86_64-linux-gnu/slurm-wlm/spank_switchyard.so ./usr/lib/x86_64-linux-gnu/slurm-wlm/switchyard_step.so \
         ./usr/lib/x86_64-linux-gnu/slurm-wlm/spank_switchyard_gate.so \
         ./usr/share/switchyard/plugstack.conf.d/switchyard.conf \
         ./usr/bin/switchyard ./usr/share/man/man1/switchyard.1.gz ./usr/share/man/man5/switchyard.yaml.5.gz \
         ./usr/share/man/man8/spank_switchyard.8.gz ./usr/share/doc/switchyard/examples/switchyard.yaml \
         ./usr/share/doc/switchyard/examples/job_submit.lua ./usr/share/switchyard/healthcheck ./usr/share/doc/switchyard/admin-guide.md \
         ./usr/share/switchyard/switchyard-refresh ./lib/systemd/system/switchyard-refresh.service \
         ./lib/systemd/system/switchyard-refresh.timer ./usr/share/doc/switchyard/examples/switchyard-refresh.default \
         ./var/cache/switchyard/ ./var/lib/switchyard/; do
  expect_contains "$files" "$f" "packaged: $f"
done
expect_eq "$(awk '$6 == "./var/lib/switchyard/" {print $1, $2}' <<<"$files")" "drwx------ root/root" \
  "the state directory is root's alone"
if command -v systemd-analyze >/dev/null; then  # the units as systemd reads them
  units=$(mktemp -d /tmp/switchyard-units.XXXXXX)
  dpkg-deb -x "$cli" "$units"
  run_capture systemd-analyze verify --man=no \
    "$units/lib/systemd/system/switchyard-refresh.service" "$units/lib/systemd/system/switchyard-refresh.timer"
  expect_eq "$(grep -v -e 'switchyard-refresh is not executable' <<<"$out$err" | grep -c .)" 0 \
    "systemd-analyze verify finds nothing wrong with the units: $out $err"
  rm -rf "$units"
fi
run_capture apt-get -s install "$cli" "$plugin"
expect_rc 0 "apt resolves the packages' dependencies on this Debian ($(cat /etc/debian_version))"

root=$(mktemp -d /tmp/switchyard-pkgroot.XXXXXX)
chmod 755 "$root"
trap '"$src"/tests/integration/slurm-cluster down "$run" >/dev/null 2>&1; rm -rf "$root"' EXIT
dpkg-deb -x "$cli" "$root" && dpkg-deb -x "$plugin" "$root"
run_capture "$root/usr/bin/switchyard" --version
expect_rc 0 "the installed CLI runs"
expect_contains "$out" "0.1.0" "and reports its version"
for page in man1/switchyard.1.gz man5/switchyard.yaml.5.gz man8/spank_switchyard.8.gz; do
  run_capture env MANWIDTH=100 man -l "$root/usr/share/man/$page"
  expect_contains "$out" "SEE ALSO" "man -l renders the installed $page"
done

# The packaged snippet names the packaged plugin path; here that path lives under the fresh root.
snippet=$root/usr/share/switchyard/plugstack.conf.d/switchyard.conf
line=$(grep -v '^#' "$snippet" | grep .)
expect_contains "$line" "required /usr/lib/x86_64-linux-gnu/slurm-wlm/spank_switchyard.so" "the snippet loads the installed plugin"
so=$root/usr/lib/x86_64-linux-gnu/slurm-wlm/spank_switchyard.so
args=$(sed 's/^required [^ ]* //' <<<"$line" | sed 's|config=/etc/slurm/switchyard.yaml||')
printf 'version: 1\n' > "$root/switchyard.yaml"
"$src"/tests/integration/slurm-cluster up "$run" "$so" --nodes 2 --port-base 17600 -- config="$root/switchyard.yaml" $args \
  > "$root/cluster.log" 2>&1 || { echo "FAIL: cluster with the packaged plugin did not start"; cat "$root/cluster.log"; exit 1; }
use_cluster "$run"
expect_contains "$(cat "$run/etc/plugstack.conf")" "$so" "slurm loads the plugin from the installed path"
expect_contains "$(cat "$run"/log/slurmd-node001.log)" "switchyard 0.1.0 loaded (built for Slurm $release)" \
  "slurmd logs the packaged build and its Slurm release"
run_capture srun --help
expect_contains "$out" "--pipeline-stages" "srun lists the packaged plugin's options"
run_capture srun -N2 --pipeline-stages=2 bash -c 'echo "$SWITCHYARD_STAGES $SWITCHYARD_VERSION"'
expect_rc 0 "a job runs with the packaged plugin"
expect_eq "$(sort -u <<<"$out")" "2 0.1.0" "each task got the stage count and the plugin's version"
finish
