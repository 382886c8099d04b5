# SPDX-License-Identifier: BSD-2-Clause
# Sourced by tests/linux/qemu.sh and qemu_run.sh: the pieces of their QEMU
# boot of Debian's stock kernel with a busybox initramfs. Each lx_* function
# exits 77 (skip) with the reason when a package is missing, 1 on a failure.
#   lx_prereq           kver (newest V with /boot/vmlinuz-V and its headers), msrko
#   lx_module WORK      libds.ko built for kver in WORK/mod (kbuild, linux/Makefile);
#                       LX_KO=FILE (ctest: linux.build's, fixture libds_ko): that
#                       module instead when its vermagic names kver (one kbuild
#                       run of ~11 s CPU for the suite, not four)
#   lx_root ROOT INIT   busybox (static), INIT as /init, msr.ko, msrsnap (gcc -static)
#   lx_boot WORK CPU [S] WORK/root as WORK/initrd.cpio, booted with -cpu CPU -smp 2
#                       (QEMU stopped after S seconds, default 300); the console
#                       without CRs in WORK/serial.txt; a kernel that did not reach
#                       /init is booted once more
# Needs $src (the source tree).
skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }

lx_prereq() {
  command -v qemu-system-x86_64 >/dev/null || skip "qemu-system-x86 not installed"
  command -v cpio >/dev/null || skip "cpio not installed"
  kver=$(ls /lib/modules 2>/dev/null | while read -r v; do
    [ -e "/lib/modules/$v/build/Makefile" ] && [ -e "/boot/vmlinuz-$v" ] && echo "$v"; done | sort -V | tail -1)
  [ -n "$kver" ] || skip "no /boot/vmlinuz-V with /lib/modules/V/build (scripts/deps.sh: linux-image-amd64, linux-headers-amd64)"
  msrko=/lib/modules/$kver/kernel/arch/x86/kernel/msr.ko
  [ -e "$msrko" ] || skip "$msrko missing"
  [ -x /bin/busybox ] && ! ldd /bin/busybox >/dev/null 2>&1 || skip "static /bin/busybox missing (busybox-static)"
}

lx_module() {
  if [ -n "${LX_KO:-}" ] && [ -f "$LX_KO" ] && modinfo -F vermagic "$LX_KO" | grep -q "^$kver "; then
    mkdir -p "$1/mod" && cp "$LX_KO" "$1/mod/libds.ko" && echo "lx_module: $LX_KO (linux.build's, for $kver)" && return
  fi
  make -s -C "$src/linux" KDIR="/lib/modules/$kver/build" LDK_OUT="$1/mod" >"$1/build.log" 2>&1 ||
    { cat "$1/build.log"; fail "module build"; }
}

lx_root() {
  mkdir -p "$1/bin" "$1/proc" "$1/sys" "$1/dev"
  cp /bin/busybox "$1/bin/busybox"
  cp "$2" "$1/init" && chmod +x "$1/init"
  cp "$msrko" "$1/"
  gcc -static -O2 -o "$1/msrsnap" "$src/tests/linux/msrsnap.c" || fail "msrsnap build"
}

lx_boot() {
  (cd "$1/root" && find . | cpio -o -H newc --quiet) > "$1/initrd.cpio" || fail "cpio"
  # A guest whose kernel never reached /init (no "=== " line: nothing of
  # libds ran yet; seen once under a load of 20 on the 2-core CI host, TCG
  # with -smp 2) is booted once more, and the log says so; a guest that
  # stops after /init started is a failure as before.
  for try in 1 2; do
    timeout "${3:-300}" qemu-system-x86_64 -nographic -no-reboot -m 512 -smp 2 -cpu "$2" \
      -kernel "/boot/vmlinuz-$kver" -initrd "$1/initrd.cpio" \
      -append "console=ttyS0 panic=-1 loglevel=4 nmi_watchdog=0" </dev/null >"$1/serial.log" 2>&1
    tr -d '\r' <"$1/serial.log" >"$1/serial.txt"
    grep -q '=== ' "$1/serial.txt" && break
    [ $try = 1 ] && { tail -5 "$1/serial.log"; echo "NOTE: the guest kernel did not reach /init (no libds code ran): booting it again"; }
  done
  grep -q '=== DONE ===$' "$1/serial.txt" || { tail -40 "$1/serial.log"; fail "the guest did not finish"; }
}
