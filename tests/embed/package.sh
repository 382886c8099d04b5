#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# ctest embed.package.i686: configure libds ALONE (cmake -S libds), with a
# config option, build and install it; then build the foreign i686 kernel of
# subdir/ against the installed package. Checks: find_package picks
# libds_i386.a for a 32-bit compiler, the option reaches the kernel through
# the package (k.c #errors otherwise), the kernel is ELF32.
# usage: package.sh <work dir> <libds dir> <subdir project dir>
set -euo pipefail
work=$1 libds=$2 proj=$3
rm -rf "$work" && mkdir -p "$work"
fail() { echo "FAIL: $*"; exit 1; }
cmake -S "$libds" -B "$work/libds" -G Ninja -DLIBDS_CONFIG_DEFINITIONS=DS_CONFIG_NETBURST_TABLES=0
cmake --build "$work/libds"
cmake --install "$work/libds" --prefix "$work/prefix" --component libds
grep -q 'DS_CONFIG_NETBURST_TABLES=0' "$work/prefix/lib/pkgconfig/libds-i386.pc" ||
  fail "config option not in libds-i386.pc"
cmake -S "$proj" -B "$work/k" -G Ninja -DLIBDS_PREFIX="$work/prefix" \
  -DCMAKE_C_FLAGS="-m32 -march=i686 -fno-pie -O2"
cmake --build "$work/k" --verbose | tee "$work/k.log"
grep -q "$work/prefix/lib/libds_i386.a" "$work/k.log" || fail "did not link libds_i386.a"
readelf -h "$work/k/mykernel" | grep 'Class:.*ELF32' >/dev/null || fail "not ELF32"
nm "$work/k/mykernel" | grep ' T ds_caps_format$' >/dev/null || fail "libds not linked"
echo "standalone libds, installed, i686 find_package: PASS"
