#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# ctest embed.subdirectory.*: configure the foreign project in <project dir>
# with the kernel flags <flags>; libds comes in through add_subdirectory().
# Checks: it builds and links with -Werror, libds's objects have the ELF class
# the embedder's flags ask for, and carry the embedder's flags plus only
# -ffreestanding -mno-red-zone -mgeneral-regs-only.
# usage: subdir.sh <work dir> <project dir> <libds dir> <ELF32|ELF64> "<flags>"
set -euo pipefail
work=$1 proj=$2 libds=$3 class=$4 flags=$5
rm -rf "$work"
cmake -S "$proj" -B "$work" -G Ninja -DLIBDS_DIR="$libds" -DCMAKE_C_FLAGS="$flags" -DLIBDS_WERROR=ON
cmake --build "$work" --verbose | tee "$work/build.log"
fail() { echo "FAIL: $*"; exit 1; }
objs=$(find "$work/libds/CMakeFiles/ds.dir" -name '*.o')
[ -n "$objs" ] || fail "no libds objects"
for o in $objs; do
  got=$(readelf -h "$o" | awk '/Class:/ {print $2}')
  [ "$got" = "$class" ] || fail "$o is $got, expected $class (embedder flags: $flags)"
done
# The compile lines of libds sources: embedder flags present, nothing we
# promised not to impose.
lines=$(grep -E ' -c [^ ]*libds/src/[a-z_]+\.c' "$work/build.log")
[ -n "$lines" ] || fail "no libds compile lines in the verbose log"
while read -r l; do
  for f in $flags -Werror -ffreestanding -mno-red-zone -mgeneral-regs-only; do
    grep -q -- " $f " <<<"$l " || fail "libds compiled without $f: $l"
  done
  for f in -nostdinc -mcmodel=small -fpie -fPIE -m64 -m32 -O0; do
    grep -q -- " $f " <<<"$l " && ! grep -q -- " $f " <<<" $flags " &&
      fail "libds imposed $f: $l"
  done
done <<<"$lines"
[ -x "$work/mykernel" ] || fail "the foreign kernel did not link"
echo "add_subdirectory($flags): PASS"
