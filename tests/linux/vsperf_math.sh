#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# linux.vs_perf_math: the arithmetic of run-linux.sh --vs-perf, which cannot
# run here (no Intel PMU), on hand-made inputs with hand-computed answers:
#  - offsets: the eventing IP where the record has one (eventing_ip=0x0 or
#    absent: the IP), minus that load's wl_loop from kallsyms, only for the
#    named run; the low-32-bit arithmetic across a carry into bit 24;
#  - perf_offsets: perf script's IPs as offsets from wl_loop, only those
#    below wl_loop_end (wl_loop_end itself and below wl_loop: dropped);
#  - agreement: 1 - total variation distance (identical 1.000, disjoint
#    0.000, {8,8,11,14} vs {8,11,11,14}: 1 - (0.25 + 0.25) / 2 = 0.750).
# run-linux.sh is POSIX sh: the same checks under dash, busybox sh (the
# linux.qemu_run_linux guest's shell) and bash, each that is installed.
set -u
src=$1 work=$2
if [ -z "${LDK_SH:-}" ]; then
  rm -rf "$work" && mkdir -p "$work"
  bad=0 n=0
  for s in dash "busybox sh" bash; do
    command -v "${s% *}" >/dev/null || { echo "# $s not installed"; continue; }
    echo "# under $s"; n=$((n + 1))
    LDK_SH=$s $s "$0" "$src" "$work/${s% *}" || bad=1
  done
  [ $n -gt 0 ] || { echo "not ok - no shell to run under"; exit 1; }
  exit $bad
fi
mkdir -p "$work"
set -- --lib
# shellcheck source=/dev/null
. "$src/scripts/run-linux.sh" || { echo "not ok - sourcing run-linux.sh --lib"; exit 1; }
out=$work bad=0
eq() { if [ "$2" = "$3" ]; then echo "ok - $1"; else echo "not ok - $1: got '$2', want '$3'"; bad=1; fi; }
printf 'ffffffffc0fffff0 T wl_loop\t[libds]\nffffffffc1000040 T wl_loop_end\t[libds]\n' >"$work/t.kallsyms"
cat >"$work/t.log" <<'EOT'
# libds.ko: Linux test
DSLOG 1 PEBS run=pebs-loop seq=0 fmt=3 counter=1 ip=0xffffffffc1000010 eventing_ip=0xffffffffc0fffffb ck=0
DSLOG 1 PEBS run=pebs-loop seq=1 fmt=1 counter=1 ip=0xffffffffc1000008 ck=0
DSLOG 1 PEBS run=pebs-loop seq=2 fmt=3 counter=1 ip=0xffffffffc0fffffe eventing_ip=0x0 ck=0
DSLOG 1 PEBS run=pebs-chase seq=0 fmt=3 counter=1 ip=0xffffffffc1000020 eventing_ip=0xffffffffc1000020 ck=0
DSLOG 1 BTS run=pebs-loop seq=0 from=0xffffffffc1000000 to=0xffffffffc1000001 ck=0
EOT
eq "offsets of run pebs-loop: eventing IP, else IP, across the carry" "$(offsets t pebs-loop | tr '\n' ' ')" "11 24 14 "
eq "offsets of run pebs-chase only" "$(offsets t pebs-chase | tr '\n' ' ')" "48 "
printf '8\n8\n11\n14\n' >"$work/a"; printf '8\n11\n11\n14\n' >"$work/b"; printf '20\n21\n' >"$work/c"
eq "agreement of a sample set with itself" "$(agreement "$work/a" "$work/a")" 1.000
eq "agreement of disjoint sets" "$(agreement "$work/a" "$work/c")" 0.000
eq "agreement {8,8,11,14} vs {8,11,11,14}" "$(agreement "$work/a" "$work/b")" 0.750
printf '    ffffffffc0fffff0\n    ffffffffc100003f\n    ffffffffc1000040\n    ffffffffc0ffffef\n  ffffffffc1000001\n' |
  perf_offsets "$work/t.kallsyms" >"$work/p"
eq "perf_offsets: perf's IPs in [wl_loop, wl_loop_end), across the carry" "$(tr '\n' ' ' <"$work/p")" "0 79 17 "
: >"$work/empty"
eq "agreement with no samples" "$(agreement "$work/a" "$work/empty")" 0.000
exit $bad
