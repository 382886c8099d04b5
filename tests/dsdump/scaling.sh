#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# ctest dsdump.scaling: dsdump's work must grow linearly with the number of
# runs (it was quadratic: 16,000 runs took 63 s). Work is counted, not timed:
# instructions executed under cachegrind (deterministic), for N and 8N runs.
# Linear code gives a ratio near 8, quadratic code near 64; the bound is 12.
# usage: scaling.sh DSDUMP(unsanitized) MANYRUNS.py WORKDIR
set -euo pipefail
dsdump=$1 gen=$2 work=$3
mkdir -p "$work"
fail=0
ir() { # <runs> : instructions dsdump executes on a log of that many runs
  python3 "$gen" "$1" >"$work/runs$1.log"
  valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file="$work/cg.$1" \
    "$dsdump" "$work/runs$1.log" >"$work/runs$1.out" 2>"$work/runs$1.err" || {
    echo "not ok - dsdump on $1 runs failed: $(grep -m3 'error' "$work/runs$1.err")"; exit 1; }
  awk '/^summary:/ {print $2}' "$work/cg.$1"
}
small=$(ir 250) big=$(ir 2000)
ratio=$(awk -v a="$small" -v b="$big" 'BEGIN {printf "%.2f", b / a}')
echo "instructions: 250 runs $small, 2000 runs $big, ratio $ratio (linear ~8, quadratic ~64; bound 12)"
if awk -v r="$ratio" 'BEGIN {exit !(r < 12)}'; then echo "ok - linear in runs"; else
  echo "not ok - work grows faster than linearly"; fail=1; fi
for k in PEBS BTS LBR; do
  n=$(grep -c "^# $k run r" "$work/runs2000.out" || true)
  if [ "$n" = 2000 ]; then echo "ok - 2000 $k runs listed"; else echo "not ok - $n $k runs listed, want 2000"; fail=1; fi
done
grep -q '^  \[ 0\] 0x4013f0 -> 0x402000  predicted  cycles=1$' "$work/runs2000.out" &&
  grep -q '^# BTS run r1999: 1 branches$' "$work/runs2000.out" ||
  { echo "not ok - per-run BTS/LBR listing content"; fail=1; }
exit $fail
