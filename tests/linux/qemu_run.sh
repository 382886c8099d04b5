#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# linux.qemu_run_linux: scripts/run-linux.sh itself, inside the guest, as a
# user runs it where libds.ko is already built: Debian's stock kernel under
# QEMU TCG (-cpu Skylake-Client -smp 2), a busybox initramfs (initramfs.sh,
# as linux.qemu) holding libds.ko, the msr driver, run-linux.sh and
# ko-symbols.sh (run by busybox sh and awk), msrsnap and dsdump (gcc
# -static; dsdump's sources as libds/tools/dsdump/CMakeLists.txt lists
# them) and ld and nm with their shared libraries (the module's symbols).
# /init (init_run.sh) runs `run-linux.sh --ko /libds.ko --model` and
# `run-linux.sh --ko /libds.ko`. Checked here:
#  - --model: exit 0, "VERDICT: PASS", dsdump exit 0, MSRs as before;
#  - backend=hw (no working DS under TCG): exit 0, the ds facility's reason
#    for both CPUs on the screen, every run skipped, MSRs as before;
#  - each screen the guest printed equals the verdict this host's
#    run-linux.sh --verdict prints for the same files (the guest's log,
#    kallsyms and MSR snapshots, the same .ko), the output dir aside;
#  - libds is not loaded at the end;
#  - without ld/nm (busybox alone on PATH) the verdict of the same files
#    says so, and dsdump runs without the module's symbols.
# Exit 77 (skip) with the reason when a package is missing.
# Usage: qemu_run.sh SRC_DIR WORK_DIR DSDUMP
set -u
src=$1 work=$2 dsdump=$3
# shellcheck source=tests/linux/initramfs.sh
. "$src/tests/linux/initramfs.sh"
lx_prereq
for l in libelf.a libz.a; do
  [ -n "$(gcc -print-file-name=$l | grep /)" ] || skip "$l missing: no static dsdump for the guest (libelf-dev, zlib1g-dev)"
done
command -v ld >/dev/null && command -v nm >/dev/null || skip "binutils (ld, nm) missing"
[ -x "$dsdump" ] || fail "dsdump not built: $dsdump"
rm -rf "$work" && mkdir -p "$work/root"
lx_module "$work"
r=$work/root
lx_root "$r" "$src/tests/linux/init_run.sh"
mv "$r/msrsnap" "$r/bin/msrsnap"
cp "$work/mod/libds.ko" "$r/"
mkdir -p "$r/libds/scripts" "$r/libds/linux"
cp "$src/scripts/run-linux.sh" "$r/libds/scripts/" && cp "$src/linux/ko-symbols.sh" "$r/libds/linux/"
d=$src/libds/tools/dsdump
srcs=$(awk '/^set\(DSDUMP_SOURCES/ { on = 1; sub(/^set\(DSDUMP_SOURCES/, "") } on { s = s " " $0 } on && /\)/ { exit }
            END { sub(/\).*/, "", s); print s }' "$d/CMakeLists.txt")
(cd "$d" && gcc -static -O2 -D_GNU_SOURCE -I. -o "$r/bin/dsdump" $srcs -lelf -lz) || fail "static dsdump build"
for t in ld nm; do
  b=$(readlink -f "$(command -v $t)")
  cp "$b" "$r/bin/$t"
  for l in $(ldd "$b" | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }'); do
    mkdir -p "$r$(dirname "$l")" && cp -L "$l" "$r$l"
  done
done
bad=0
chk() { if eval "$2"; then echo "ok - $1"; else echo "not ok - $1"; bad=1; fi; }
# On this host, when it runs another kernel, the same --ko is refused before
# anything is loaded or written: its vermagic names another kernel.
if [ "$(id -u)" = 0 ] && [ "$(uname -r)" != "$kver" ]; then
  LDK_RUN_DIR=$work/host-out "$src/scripts/run-linux.sh" --ko "$work/mod/libds.ko" --model >"$work/host-ko.txt" 2>&1; hrc=$?
  chk "host ($(uname -r)): --ko of a module for $kver refused (exit $hrc), nothing written" \
    '[ $hrc = 2 ] && grep -q "was built for kernel $kver, this one is $(uname -r)" "$work/host-ko.txt" && [ ! -e "$work/host-out" ]'
fi
t0=$(date +%s)
# (450 s: QEMU took 236 s at load 19 on this 2-core host, 74 s at best)
lx_boot "$work" Skylake-Client 450
sec() { awk -v n="$1" 'index($0, "=== " n " BEGIN") {on=1; next} on && /^=== END rc=/ {exit} on' "$work/serial.txt"; }
rc() { awk -v n="$1" 'index($0, "=== " n " BEGIN") {on=1; next} on && /^=== END rc=/ {sub(/.*rc=/,""); sub(/ .*/,""); print; exit}' "$work/serial.txt"; }
# the guest's uptime (s) at the end of section NAME
tend() { awk -v n="$1" 'index($0, "=== " n " BEGIN") {on=1; next} on && /^=== END rc=/ {sub(/.*t=/,""); sub(/ .*/,""); print; exit}' "$work/serial.txt"; }
echo "# QEMU TCG, boot to poweroff: $(($(date +%s) - t0)) s; guest uptime at the end of the --model run $(tend run-model) s, of the backend=hw run $(tend run-hw) s"
for b in model hw; do
  v=$work/$b && mkdir -p "$v"
  sec "run-$b" >"$v/guest.txt"
  echo "--- the guest's console: run-linux.sh --ko /libds.ko$([ $b = model ] && echo ' --model')"
  cat "$v/guest.txt"
  echo "---"
  for f in libds.log libds.kallsyms msr-before.txt msr-after.txt verdict.txt; do sec "$b-$f" >"$v/$f"; done
  chk "$b: run-linux.sh exit 0 in the guest" '[ "$(rc run-$b)" = 0 ]'
  chk "$b: VERDICT: PASS, dsdump exit 0, every MSR as before" \
    'grep -q "^VERDICT: PASS" "$v/guest.txt" && grep -q "^dsdump: exit 0 " "$v/guest.txt" &&
     grep -q "^MSRs as before on every CPU (/dev/cpu/N/msr): yes" "$v/guest.txt" &&
     [ "$(grep -c "^cpu1 " "$v/msr-before.txt")" -gt 0 ]'
  # the host's verdict of the guest's files: the same screen, the dir aside
  "$src/scripts/run-linux.sh" --verdict "$v" "$work/mod/libds.ko" "$dsdump" >"$v/host.txt" 2>&1
  sed "s|$v/|/out/$b/|g" "$v/host.txt" >"$v/host-dir.txt"
  chk "$b: the guest's screen is the host's verdict of its files" \
    'grep -q "^VERDICT: PASS" "$v/host-dir.txt" && grep -v "^run-linux.sh: " "$v/guest.txt" | cmp -s - "$v/host-dir.txt"'
done
chk "model: the flows on the model on both CPUs, with records" \
  'grep -q "^backend: .*backend=model profile=skylake " "$work/model/guest.txt" &&
   grep -q "^  cpu1 netburst-m4-64: [1-9][0-9]* passed, 0 failed" "$work/model/guest.txt" &&
   grep -q "^DSLOG 1 PEBS " "$work/model/libds.log" && grep -q "^DSLOG 1 BTS " "$work/model/libds.log"'
chk "hw: each CPU's ds facility reason on the screen, every flow skipped with libds's error" \
  '[ "$(grep -c "^# cpu[01] native facility ds: no" "$work/hw/guest.txt")" = 2 ] &&
   [ "$(grep -c "^ok .* # SKIP DS_ERR" "$work/hw/libds.log")" -ge 10 ] && ! grep -q "^not ok" "$work/hw/libds.log" &&
   grep -q "^VERDICT: PASS ([0-9]* checks passed, [1-9][0-9]* skipped with a reason)" "$work/hw/guest.txt"'
# Where ld/nm are missing (a box with a prebuilt module and no binutils):
# the verdict of the same --model files with busybox alone on PATH says so,
# dsdump runs without the module's symbols, and it still passes.
mkdir -p "$work/bb" "$work/nold"
for a in sh awk grep sed cmp tee head sort tr dirname cat wc; do ln -sf /bin/busybox "$work/bb/$a"; done
cp "$work/model/libds.log" "$work/model/libds.kallsyms" "$work/model/msr-before.txt" "$work/model/msr-after.txt" "$work/nold/"
PATH=$work/bb /bin/busybox sh "$src/scripts/run-linux.sh" --verdict "$work/nold" "$work/mod/libds.ko" "$dsdump" >"$work/nold.txt" 2>&1
chk "no ld/nm: the verdict says so, dsdump without symbols (exit 0), PASS" \
  'grep -q "no ld/nm (binutils): dsdump without the module.s symbols" "$work/nold.txt" && grep -q "^VERDICT: PASS" "$work/nold.txt" &&
   grep -q "^dsdump: exit 0 " "$work/nold.txt" && grep -q "^    100.00% .* 0xffffffff" "$work/nold.txt" && ! grep -q wl_loop "$work/nold.txt"'
chk "libds not loaded at the end" '! sec lsmod | grep -q "^libds "'
[ $bad = 0 ] || { echo "serial log: $work/serial.log"; exit 1; }
echo "linux.qemu_run_linux: passed (run-linux.sh --ko under busybox sh, Debian $kver under QEMU TCG, -cpu Skylake-Client, 2 CPUs)"
