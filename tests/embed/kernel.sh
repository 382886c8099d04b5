#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# ctest embed.kernel: install libds from <build> into a temporary prefix,
# configure and build tests/embed/kernel against it as a separate CMake
# project (find_package only), check the ELF and the pkg-config files, boot
# the kernel under QEMU and check its output and exit status.
#
# usage: kernel.sh <libds build dir> <tests/embed dir> <work dir> <C compiler>
#                  [<model dir>]
set -euo pipefail
build=$1 src=$2 work=$3 cc=$4 model=${5:-}
rm -rf "$work" && mkdir -p "$work"
prefix=$work/prefix
export CC=$cc

# --- the README snippet "installed package", shell part (keep in sync) ---
cmake --install "$build" --prefix "$prefix" --component libds
cmake --install "$build" --prefix "$prefix" --component model
cmake -S "$src/kernel" -B "$work/build" -G Ninja -DCMAKE_PREFIX_PATH="$prefix"
cmake --build "$work/build"
# --- end snippet ---

elf=$work/build/embedk.elf
fail() { echo "FAIL: $*"; exit 1; }
# It linked the installed archive, not anything from the source tree.
grep -q "$prefix/lib/libds_x86_64.a" "$work/build/build.ninja" ||
  fail "the kernel did not link $prefix/lib/libds_x86_64.a"
nm "$elf" | grep ' T ds_cpu_identify$' >/dev/null || fail "ds_cpu_identify not linked in"
# The -fpie library left no GOT and no dynamic relocations in the static kernel.
# (ld drops an empty output section, so a .got section means a non-empty GOT.)
readelf -SW "$elf" | grep -E ' \.got(\.plt)? ' >/dev/null && fail "a GOT survived the static link"
readelf -r "$elf" | grep 'There are no relocations' >/dev/null || fail "relocations left in the kernel"

# pkg-config files resolve to the installed headers and archives.
for a in i386 x86_64; do
  flags=$(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --cflags --libs "libds-$a")
  inc=$(sed -n 's/.*-I\([^ ]*\).*/\1/p' <<<"$flags")
  lib=$(sed -n 's/.*-L\([^ ]*\).*/\1/p' <<<"$flags")
  [ -f "$inc/ds/ds.h" ] || fail "libds-$a.pc: no ds/ds.h under $inc"
  [ -f "$lib/libds_$a.a" ] || fail "libds-$a.pc: no libds_$a.a under $lib"
  grep -q -- "-lds_$a" <<<"$flags" || fail "libds-$a.pc: no -lds_$a"
  [ -n "$model" ] || continue
  # the model component (docs/porting.md section 10): its own .pc, requiring libds
  flags=$(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --cflags --libs "libds-model-$a")
  for w in "-lds_model_$a" "-lds_$a"; do
    grep -q -- "$w" <<<"$flags" || fail "libds-model-$a.pc: no $w"
  done
  inc=$(grep -o -- '-I[^ ]*libds-model' <<<"$flags" | cut -c3-)
  [ -f "$inc/dsmodel.h" ] && [ -f "$inc/ds_model_ops.h" ] || fail "libds-model-$a.pc: no model headers under '$inc'"
  [ -f "$prefix/lib/libds_model_$a.a" ] || fail "no libds_model_$a.a"
done
if [ -n "$model" ]; then
  grep -q "$prefix/lib/libds_model_x86_64.a" "$work/build/build.ninja" ||
    fail "the kernel did not link the installed $prefix/lib/libds_model_x86_64.a"
fi

# Boot it: QEMU -kernel finds the PVH note in the ELF64.
set +e
timeout 30 qemu-system-x86_64 -cpu Nehalem -m 128M -kernel "$elf" \
  -display none -serial "file:$work/serial.log" -monitor none -no-reboot \
  -device isa-debug-exit,iobase=0xf4,iosize=0x04
rc=$?
set -e
tr -d '\r' < "$work/serial.log" > "$work/out.log"
cat "$work/out.log"
[ "$rc" -eq 33 ] || fail "QEMU exit status $rc, expected 33 (kernel success code 0x10)"
grep -q '^not ok' "$work/out.log" && fail "a check failed"
grep -Eq '^[0-9]+ passed, 0 failed, [0-9]+ skipped' "$work/out.log" || fail "no summary line"
grep -q '^ok [0-9]* - kernel runs in the top 2 GiB$' "$work/out.log" || fail "not higher half"
grep -q '^ok [0-9]* - ds_cpu_identify$' "$work/out.log" || fail "ds_cpu_identify"
grep -q '^vendor: GenuineIntel' "$work/out.log" || fail "no capability report"
# Once the model and the BTS API are in the tree, the sample must run and pass.
if [ -n "$model" ] && [ -f "$model/src/dsmodel.c" ] && [ -f "$prefix/include/ds/bts.h" ]; then
  grep -q '^ok [0-9]* - BTS sample recorded on the reference model: every branch' "$work/out.log" ||
    fail "no BTS sample recorded on the reference model"
  grep -q '^BTS record 0: from 0xffffffff8' "$work/out.log" || fail "no higher-half BTS record printed"
else
  grep -q '^ok [0-9]* - BTS sample recorded on the reference model # SKIP' "$work/out.log" ||
    fail "neither a BTS sample nor its SKIP"
fi
echo "embed kernel: PASS"
