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
ir() { # <runs> [--cpus] : instructions dsdump executes on a log of that many runs
  local t=runs$1${2:-}
  python3 "$gen" "$1" ${2:-} >"$work/$t.log"
  valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file="$work/cg.$t" \
    "$dsdump" "$work/$t.log" >"$work/$t.out" 2>"$work/$t.err" || {
    echo "not ok - dsdump on $1 runs ${2:-} failed: $(grep -m3 'error' "$work/$t.err")"; exit 1; }
  awk '/^summary:/ {print $2}' "$work/cg.$t"
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
# One log per CPU (issue 13, per-CPU blocks): linear in the number of CPUs
# too (filtering every run once per CPU was quadratic: 8000 CPUs took 84 s).
small=$(ir 250 --cpus) big=$(ir 2000 --cpus)
ratio=$(awk -v a="$small" -v b="$big" 'BEGIN {printf "%.2f", b / a}')
echo "instructions: 250 CPUs $small, 2000 CPUs $big, ratio $ratio (linear ~8, quadratic ~64; bound 12)"
if awk -v r="$ratio" 'BEGIN {exit !(r < 12)}'; then echo "ok - linear in CPUs"; else
  echo "not ok - work grows faster than linearly in CPUs"; fail=1; fi
n=$(grep -c '^## CPU ' "$work/runs2000--cpus.out" || true)
if [ "$n" = 2000 ]; then echo "ok - 2000 CPU blocks"; else echo "not ok - $n CPU blocks, want 2000"; fail=1; fi
# Peak memory (issue 27 item 7): each record was kept as a 3,856-byte struct
# (16,000 runs: 277 MiB for an 8.7 MiB log, 311 MiB with --perf-data); packed,
# the peak resident size stays within 2x the log, for one log and for one log
# per CPU.
# With --perf-data the file is streamed: beyond that, dsdump holds per event
# (an attr, its name) no more than the file itself (bound 2x log + perf.data).
for v in "" --cpus --perf-data; do
  python3 "$gen" 16000 ${v/--perf-data/} >"$work/m16k.log"
  out=$(python3 -c '
import os, resource, subprocess, sys
pd = sys.argv[3] == "--perf-data"
opt = ["--perf-data", sys.argv[2] + ".data"] if pd else []
subprocess.run([sys.argv[1]] + opt + [sys.argv[2]], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
size = os.path.getsize(sys.argv[2])
bound = 2 * size + (os.path.getsize(sys.argv[2] + ".data") if pd else 0)
print(peak, size, bound, "ok" if peak <= bound else "not ok")' "$dsdump" "$work/m16k.log" "$v") || out="0 0 0 not ok (dsdump failed)"
  set -- $out
  echo "${*:4} - peak memory on 16,000 runs${v:+ ($v)}: $(( $1 / 1024 )) KiB for a $(( $2 / 1024 )) KiB log (bound $(( $3 / 1024 )) KiB)"
  [ "$4" = ok ] || fail=1
done
exit $fail
