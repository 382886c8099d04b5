#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Build the host tests (tests/host/test_*.c) and a random-input driver of the
# drain fuzz target for i386 (-m32 -O2 -static, no sanitizers) and run them:
# natively when the kernel runs 32-bit programs, else under qemu-i386
# (Debian qemu-user). This runs libds's i386 code (32-bit divides, 64-bit
# values split over two registers) that the x86_64 host build never executes.
# usage: scripts/test-i386.sh [fuzz inputs, default 100000]
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
n=${1:-100000}
b="$here/build-i386test"
mkdir -p "$b"
cc=${CC:-gcc}
flags=(-m32 -march=i686 -O2 -static -DDS_HOSTED=1 -Wall -Wextra -Werror -I"$here/libds/include" -I"$here/tests/host")
srcs=("$here"/libds/src/*.c)
for t in "$here"/tests/host/test_*.c; do
  "$cc" "${flags[@]}" -o "$b/$(basename "$t" .c)" "$t" "${srcs[@]}"
done
"$cc" "${flags[@]}" -o "$b/fuzz_drain" "$here/tests/fuzz/fuzz_drain.c" "$here/tests/i386/fuzz_rand_main.c" "${srcs[@]}"
run=()
if ! "$b/test_err" >/dev/null 2>&1; then
  command -v qemu-i386 >/dev/null || { echo "test-i386.sh: cannot run i386 programs (install qemu-user)" >&2; exit 1; }
  run=(qemu-i386)
fi
fail=0
for t in "$b"/test_*; do
  out=$(timeout 300 "${run[@]}" "$t" 2>&1) || fail=1
  echo "$(basename "$t"): $(tail -n1 <<<"$out")"
done
timeout 600 "${run[@]}" "$b/fuzz_drain" "$n" || fail=1
[ $fail = 0 ] && echo "i386: all passed" || echo "i386: FAILED"
exit $fail
