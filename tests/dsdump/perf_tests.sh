#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# ctest dsdump.perf: dsdump --perf-data read back by Linux perf (perfcheck.py)
# on logs printed by the kernel's record printer for an ELF64 and an ELF32
# with known symbols, and on the stored logs, malformed ones included (a
# garbled log still gives a valid perf.data of its well-formed records).
# usage: perf_tests.sh DSDUMP GENLOG TESTDIR CC WORKDIR   (exit 77: perf missing)
set -u
dsdump=$1 genlog=$2 dir=$3 cc=$4 work=$5
command -v perf >/dev/null || { echo "SKIP: perf is not installed (scripts/deps.sh installs linux-perf)"; exit 77; }
rm -rf "$work" && mkdir -p "$work"
fail=0
for m in 64 32; do
  elf="$work/sym$m.elf"
  "$cc" -m$m -O1 -fno-pie -no-pie -nostdlib -static -fno-asynchronous-unwind-tables -Wl,--build-id=sha1 \
    -o "$elf" "$dir/sym_fixture.c" || { echo "not ok - build ELF$m fixture"; fail=1; continue; }
  addr() { nm "$elf" | awk -v s="$1" '$3==s {print $1}'; }
  h4=$(printf '%x' $((0x$(addr func_hot) + 4))) c2=$(printf '%x' $((0x$(addr func_cold) + 2)))
  fmt=4; [ $m = 32 ] && fmt=nb32
  "$genlog" $fmt 7@$h4 2@$c2 1@$(addr func_mid) >"$work/sym$m.log"
  echo "# ELF$m, PEBS format $fmt"
  python3 "$dir/perfcheck.py" "$dsdump" "$work/sym$m.log" "$work/sym$m" "$elf" || fail=1
done
for f in good_fmt3 good_adaptive good_multi_crlf good_nb32 good_smp2 good_tsc bad_hex bad_truncated_log; do
  echo "# stored log $f (no ELF)"
  python3 "$dir/perfcheck.py" "$dsdump" "$dir/logs/$f.log" "$work/$f" || fail=1
done
exit $fail
