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
# 64n: linked -z noseparate-code, so the executable PT_LOAD is program header 0
# (the others have a read-only PT_LOAD first)
for v in 64 32 64n; do
  m=${v%n} extra=()
  [ "$v" = 64n ] && extra=("-Wl,-z,noseparate-code")
  elf="$work/sym$v.elf"
  "$cc" -m$m -O1 -fno-pie -no-pie -nostdlib -static -fno-asynchronous-unwind-tables -Wl,--build-id=sha1 \
    "${extra[@]}" -o "$elf" "$dir/sym_fixture.c" || { echo "not ok - build ELF$v fixture"; fail=1; continue; }
  addr() { nm "$elf" | awk -v s="$1" '$3==s {print $1}'; }
  h4=$(printf '%x' $((0x$(addr func_hot) + 4))) c2=$(printf '%x' $((0x$(addr func_cold) + 2)))
  fmt=4; [ $m = 32 ] && fmt=nb32
  "$genlog" $fmt 7@$h4 2@$c2 1@$(addr func_mid) >"$work/sym$v.log"
  echo "# ELF$v, PEBS format $fmt"
  python3 "$dir/perfcheck.py" "$dsdump" "$work/sym$v.log" "$work/sym$v" "$elf" || fail=1
done
# The MMAP record's file name is padded to 8 bytes with at least one NUL
# (perf's PERF_ALIGN(strlen + 1, sizeof(u64))): the ELF under paths of every
# length mod 8, each named whole by perf script's MMAP line.
if [ -f "$work/sym64.elf" ]; then
  echo "# MMAP file name, every path length mod 8"
  mkdir -p "$work/len"
  for k in 0 1 2 3 4 5 6 7; do
    p="$work/len/e$(printf '%*s' $k '' | tr ' ' x).elf"
    cp "$work/sym64.elf" "$p"
    "$dsdump" --perf-data "$work/len/k$k.data" -e "$p" "$work/sym64.log" >/dev/null 2>&1
    real=$(realpath "$p")
    if perf script --show-mmap-events -i "$work/len/k$k.data" 2>/dev/null | grep -q "PERF_RECORD_MMAP .*: x $real\$"; then
      echo "ok - MMAP names $real (length $((${#real} % 8)) mod 8)"
    else
      echo "not ok - MMAP names $real (length $((${#real} % 8)) mod 8)"; fail=1
    fi
  done
fi
for f in good_fmt3 good_adaptive good_multi_crlf good_nb32 good_smp2 good_tsc bad_hex bad_truncated_log; do
  echo "# stored log $f (no ELF)"
  python3 "$dir/perfcheck.py" "$dsdump" "$dir/logs/$f.log" "$work/$f" || fail=1
done
exit $fail
