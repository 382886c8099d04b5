#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Compile every libds source (the plain source list) with one kernel flag set,
# -Wall -Wextra -Werror, and check the objects: right ELF class, and no
# undefined symbol beyond what a kernel provides (memcpy, memset, memmove,
# memcmp: compilers may emit calls to them even with -ffreestanding).
#
# usage: flags.sh <workdir> <expected ELF class: ELF32|ELF64> <include dir>
#                 <compiler> [flags...] -- <source.c>...
set -euo pipefail
work=$1 class=$2 inc=$3 cc=$4
shift 4
flags=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do flags+=("$1"); shift; done
shift
[ $# -gt 0 ] || { echo "flags.sh: no sources"; exit 2; }
rm -rf "$work" && mkdir -p "$work"
# What libds needs (as the libds::ds target adds), then the kernel's set.
base=(-std=gnu11 -ffreestanding -mno-red-zone -mgeneral-regs-only -fno-stack-protector
      -Wall -Wextra -Werror -I "$inc")
pass=0 fail=0
for src in "$@"; do
  obj="$work/$(basename "${src%.c}").o"
  echo "+ $cc ${base[*]} ${flags[*]} -c $src"
  if ! "$cc" "${base[@]}" "${flags[@]}" -c "$src" -o "$obj"; then
    echo "FAIL: $src does not compile warning-free"; fail=$((fail + 1)); continue
  fi
  got=$(readelf -h "$obj" | awk '/Class:/ {print $2}')
  if [ "$got" != "$class" ]; then
    echo "FAIL: $obj is $got, expected $class"; fail=$((fail + 1)); continue
  fi
  pass=$((pass + 1))
done
# Together, the objects may leave undefined only what a kernel or its linker
# provides: memcpy/memset/memmove/memcmp and _GLOBAL_OFFSET_TABLE_ (i386 PIC
# code; the static linker defines it).
objs=("$work"/*.o)
nm --defined-only "${objs[@]}" | awk 'NF == 3 {print $3}' | sort -u > "$work/defined"
nm -u "${objs[@]}" | awk 'NF == 2 {print $2}' | sort -u > "$work/undefined"
bad=$(comm -23 "$work/undefined" "$work/defined" |
      grep -vxE 'memcpy|memset|memmove|memcmp|_GLOBAL_OFFSET_TABLE_' || true)
if [ -n "$bad" ]; then
  echo "FAIL: libds needs symbols a kernel does not provide:" $bad; fail=$((fail + 1))
else
  echo "undefined symbols left for the kernel:" $(comm -23 "$work/undefined" "$work/defined")
  pass=$((pass + 1))
fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
