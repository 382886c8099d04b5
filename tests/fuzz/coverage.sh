#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Line coverage of libds/src reached by the libFuzzer target: builds it with
# clang-14 source-based coverage, runs the ctest smoke run's inputs (fixed
# seed) and prints llvm-cov-14's TOTAL line for libds/src.
# usage: tests/fuzz/coverage.sh [runs, default 200000] [work dir]
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
runs=${1:-200000}
w=${2:-/tmp/libds-fuzzcov.${USER:-$(id -un)}}
mkdir -p "$w"
clang-14 -g -O1 -std=gnu11 -fsanitize=fuzzer -fprofile-instr-generate -fcoverage-mapping \
  -DDS_HOSTED=1 -I"$here/libds/include" -I"$here/tests/host" \
  "$here"/libds/src/*.c "$here"/tests/fuzz/fuzz_{main,drain,targets}.c -o "$w/fuzz_cov"
rm -f "$w"/*.profraw
LLVM_PROFILE_FILE="$w/fuzz.profraw" "$w/fuzz_cov" -runs="$runs" -seed=1 -max_len=2048 >"$w/run.log" 2>&1
llvm-profdata-14 merge -o "$w/fuzz.profdata" "$w/fuzz.profraw"
llvm-cov-14 report "$w/fuzz_cov" -instr-profile="$w/fuzz.profdata" "$here"/libds/src/*.c >"$w/report.txt"
cat "$w/report.txt"
