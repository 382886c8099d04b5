#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# ctest embed.make: build an i686 kernel with Make from the plain source list
# (the README snippet), and check that the snippet's wildcard names exactly
# the files of LIBDS_SOURCES (libds/sources.cmake).
# usage: make.sh <work dir> <Makefile dir> <repo root> <LIBDS_SOURCES...>
set -euo pipefail
work=$1 mk=$2 root=$3
shift 3
rm -rf "$work" && mkdir -p "$work"
fail() { echo "FAIL: $*"; exit 1; }
want=$(printf '%s\n' "$@" | sort | tr '\n' ' ')
got=$(make -s -C "$mk" LIBDS="$root/libds" O="$work" print-srcs | tr ' ' '\n' | sed '/^$/d' | sort | tr '\n' ' ')
[ "$want" = "$got" ] || fail "src/*.c is not LIBDS_SOURCES: wildcard '$got' vs list '$want'"
# O empty (make O= or no O at all): the snippet's objects go to ./libds/, not
# to /libds/ at the file-system root (it wrote $(O)/libds/ once).
for o in "O=" ""; do
  objs=$(make -s -C "$mk" LIBDS="$root/libds" $o print-objs)
  [ -n "$objs" ] || fail "no objects listed with '$o'"
  for f in $objs; do
    case "$f" in ./libds/*.o) ;; *) fail "with '${o:-no O}' an object goes to $f, not ./libds/" ;; esac
  done
done
# -MD lists every header each object read: libds must not see the host's C
# library headers (a kernel without -ffreestanding in its own CFLAGS, as xv6,
# pulled in /usr/include/stdint.h through gcc's stdint.h before the snippet
# passed the flag itself).
# The model's list (porting.md section 10): the snippet's wildcard + adapter
# names exactly model/sources.cmake's DSMODEL_KERNEL_SOURCES.
want=$(sed -n 's|^ *${CMAKE_CURRENT_LIST_DIR}/\(.*\.c\)$|'"$root"'/model/\1|p' "$root/model/sources.cmake" | sort | tr '\n' ' ')
got=$(make -s -C "$mk" LIBDS="$root/libds" LIBDS_MODEL="$root/model" print-model-srcs | tr ' ' '\n' | sed '/^$/d' | sort | tr '\n' ' ')
[ -n "$want" ] && [ "$want" = "$got" ] || fail "model sources: snippet '$got' vs model/sources.cmake '$want'"
make -C "$mk" LIBDS="$root/libds" LIBDS_MODEL="$root/model" O="$work" CC="${CC:-gcc} -MD" "$work/kernel.elf"
ls "$work"/libds/*.d >/dev/null || fail "no dependency files written"
if grep -l '/usr/include/' "$work"/libds/*.d; then
  grep -ho '/usr/include/[^ ]*' "$work"/libds/*.d | sort -u | head -5
  fail "libds objects above read host C library headers (snippet lacks -ffreestanding?)"
fi
readelf -h "$work/kernel.elf" | grep 'Class:.*ELF32' >/dev/null || fail "not an ELF32 kernel"
nm "$work/kernel.elf" | grep ' T ds_cpu_identify$' >/dev/null || fail "libds not linked"
for sym in dsm_init dsm_retire ds_model_cpu_init ds_model_mem_init; do
  nm "$work/kernel.elf" | grep " T $sym\$" >/dev/null || fail "model: $sym not linked"
done
echo "make from the source list: PASS"
