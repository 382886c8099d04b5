#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Build the host tests (tests/host/test_*.c) and a random-input driver of the
# fuzz target for i386 (-m32 -O2 -static, no sanitizers) and run them:
# natively when the kernel runs 32-bit programs, else under qemu-i386
# (Debian qemu-user). This runs libds's i386 code (32-bit divides, 64-bit
# values split over two registers) that the x86_64 host build never executes.
# Registered in ctest as i386.host (label host); exits 77 (ctest
# SKIP_RETURN_CODE) with the reason when the toolchain cannot build or run
# 32-bit programs; scripts/deps.sh installs gcc-multilib and qemu-user, so on
# CI it runs.
# usage: scripts/test-i386.sh [fuzz inputs, default 100000] [build dir]
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
n=${1:-100000}
b=${2:-$here/build-i386test}
mkdir -p "$b"
cc=${CC:-gcc}
flags=(-m32 -march=i686 -O2 -static -DDS_HOSTED=1 -Wall -Wextra -Werror -I"$here/libds/include" -I"$here/tests/host")
skip() { echo "test-i386.sh: SKIP: $*"; exit 77; }
printf 'int main(void){return 0;}\n' >"$b/probe.c"
"$cc" "${flags[@]}" -o "$b/probe" "$b/probe.c" >"$b/probe.log" 2>&1 ||
  skip "$cc -m32 -static cannot link a program (install gcc-multilib libc6-dev-i386): $(head -n1 "$b/probe.log")"
run=()
if ! "$b/probe" >/dev/null 2>&1; then
  command -v qemu-i386 >/dev/null || skip "this kernel does not run i386 programs and qemu-i386 is missing (install qemu-user)"
  run=(qemu-i386)
fi
# libds once, then one link per program
objs=()
for s in "$here"/libds/src/*.c; do
  o="$b/libds_$(basename "$s" .c).o"
  "$cc" "${flags[@]}" -c -o "$o" "$s"
  objs+=("$o")
done
# test_event reads the real CPUID dumps through libds/tools/cpuid_dump.c
# (SKIP inside the test when ../shared/cpuid is absent).
dumps=$here/../shared/cpuid
[ -d "$dumps" ] || dumps=$here/../../shared/cpuid
"$cc" "${flags[@]}" -I"$here/libds/tools" -c -o "$b/cpuid_dump.o" "$here/libds/tools/cpuid_dump.c"
for t in "$here"/tests/host/test_*.c; do
  # the per-test data paths tests/host/CMakeLists.txt gives (test_err, test_perfmon)
  "$cc" "${flags[@]}" -I"$here/libds/tools" -DDS_CPUID_DUMP_DIR="\"$dumps\"" \
    -DDS_ERR_H_PATH="\"$here/libds/include/ds/err.h\"" -DDS_PERFMON_TSV="\"$here/tests/data/perfmon/events.tsv\"" \
    -o "$b/$(basename "$t" .c)" "$t" \
    "${objs[@]}" "$b/cpuid_dump.o"
done
"$cc" "${flags[@]}" -o "$b/fuzz_drain" "$here"/tests/fuzz/fuzz_{main,drain,targets}.c "$here/tests/i386/fuzz_rand_main.c" "${objs[@]}"
fail=0
for t in "$b"/test_*; do
  [ -x "$t" ] || continue
  out=$(timeout 300 "${run[@]}" "$t" 2>&1) || { fail=1; echo "$out" | grep -v '^ok' | tail -n 20; }
  echo "$(basename "$t"): $(tail -n1 <<<"$out")"
done
timeout 600 "${run[@]}" "$b/fuzz_drain" "$n" || fail=1
[ $fail = 0 ] && echo "i386: all passed" || echo "i386: FAILED"
exit $fail
