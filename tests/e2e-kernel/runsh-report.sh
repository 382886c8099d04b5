#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# ctest run.report (issue 27 item 8): scripts/run.sh's report fits one screen:
# at most 60 lines after the kernel's verdict, with the verdict, a row per flow,
# the paths and the perf/hotspot commands; and the perf commands it prints run.
# usage: runsh-report.sh BUILD   (boots the x86_64 ELF, e2e group, 2 CPUs, TCG)
set -uo pipefail
build=$1
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
out=$(mktemp -d "${TMPDIR:-/tmp}/libds-runsh.XXXXXX")
trap 'rm -rf "$out"' EXIT
fail=0
check() { if eval "$2"; then echo "ok - $1"; else echo "not ok - $1"; fail=1; fi; }
LIBDS_BUILD_DIR=$build LIBDS_RUN_DIR=$out "$here/scripts/run.sh" --no-build --tcg --timeout 240 -- tests=e2e >"$out/run.out" 2>&1
rc=$?
check "run.sh exit 0 (got $rc)" '[ $rc -eq 0 ]'
v=$(grep -n '^# verdict |' "$out/run.out" | tail -1 | cut -d: -f1)
total=$(wc -l <"$out/run.out")
after=$(( total - ${v:-0} ))
check "verdict found, $after lines after it (at most 60)" '[ -n "$v" ] && [ $after -le 60 ]'
tail -n "$after" "$out/run.out" | sed 's/^/  | /'
check "a row per flow" 'grep -Eq "^pebs-loop-fixed +[0-9]+ +[0-9]+" "$out/run.out"'
check "kernel checks line" 'grep -Eq "^kernel checks: [0-9]+ passed, [0-9]+ skipped, 0 failed" "$out/run.out"'
check "run.sh: PASS" 'grep -q "^run.sh: PASS" "$out/run.out"'
if command -v perf >/dev/null; then
  cmd=$(grep -m1 '^  perf script -i' "$out/run.out" | sed 's/^  //')
  top=$(bash -c "$cmd" 2>/dev/null)  # into a variable: no pipe into grep -q under pipefail
  check "the printed perf script command names wl_loop" 'grep -q wl_loop <<<"$top"'
  cmd=$(grep -m1 '^  perf annotate -i' "$out/run.out" | sed 's/ *#.*//; s/^  //')
  check "the printed perf annotate command runs" 'bash -c "$cmd" >/dev/null 2>&1'
else
  echo "# SKIP perf commands: perf not installed"
fi
exit $fail
