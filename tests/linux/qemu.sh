#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# linux.qemu: Debian's stock kernel boots under QEMU TCG (-smp 2) with a
# busybox initramfs holding libds.ko, the msr driver and msrsnap (init.sh).
#  - backend=hw on a CPU model without working DS (TCG): loads, names the
#    reason for each facility, every run skipped with libds's error, no
#    "not ok"; unloads; every MSR of msrsnap's list as before on every CPU;
#  - backend=model: the flows against the reference model inside Linux on
#    both CPUs, every check "ok", dsdump reads the debugfs log (exit 0) and
#    names wl_loop from the module's symbols (ko-symbols.sh); MSRs as before.
# Exit 77 (skip) with the reason when a package is missing.
# Usage: qemu.sh SRC_DIR WORK_DIR DSDUMP [QEMU_CPU [hw]]
#   QEMU_CPU (default Skylake-Client); "hw": the backend=hw part only
#   (linux.qemu_amd: -cpu qemu64, an AMD CPU model: every run "not Intel").
set -u
src=$1 work=$2 dsdump=$3 qcpu=${4:-Skylake-Client} mode=${5:-all}
# shellcheck source=tests/linux/initramfs.sh
. "$src/tests/linux/initramfs.sh"
lx_prereq
[ -x "$dsdump" ] || fail "dsdump not built: $dsdump"
rm -rf "$work" && mkdir -p "$work/root"
lx_module "$work"
r=$work/root
lx_root "$r" "$src/tests/linux/init.sh"
cp "$work/mod/libds.ko" "$r/"
echo "$mode" > "$r/mode"
echo "${LINUX_QEMU_PROFILES:-skylake,icelake,ptl-p,netburst-m4-64,lunarlake/alderlake-p,alderlake-e,ptl-e,lunarlake-e}" > "$r/profiles"
lx_boot "$work" "$qcpu"
# (a marker may follow the console's escape sequences on its line)
sec() { awk -v n="$1" 'index($0, "=== " n " BEGIN ===") {on=1; next} on && /^=== END rc=/ {exit} on' "$work/serial.txt"; }
rc() { awk -v n="$1" 'index($0, "=== " n " BEGIN ===") {on=1; next} on && /^=== END rc=/ {sub(/.*rc=/,""); sub(/ ===.*/,""); print; exit}' "$work/serial.txt"; }
for s in msr-before log-hw kallsyms-hw msr-after-hw log-model kallsyms msr-after-model log-small insmod-badlog dmesg; do sec "$s" > "$work/$s.txt"; done
bad=0
chk() { if eval "$2"; then echo "ok - $1"; else echo "not ok - $1"; bad=1; fi; }
chk "insmod libds.ko (backend=hw) succeeds without working DS" '[ "$(rc insmod-hw)" = 0 ]'
chk "hw: each facility's reason printed on both CPUs" '[ "$(grep -c "facility ds: no" "$work/log-hw.txt")" = 2 ]'
chk "hw: every run skipped with libds's reason, none failed" \
  '[ "$(grep -c "# SKIP DS_ERR" "$work/log-hw.txt")" -ge 8 ] && ! grep -q "^not ok" "$work/log-hw.txt"'
chk "rmmod (backend=hw)" '[ "$(rc rmmod-hw)" = 0 ]'
chk "msrsnap read every CPU" '[ "$(grep -c "^cpu1 " "$work/msr-before.txt")" -gt 0 ]'
chk "every MSR as before after backend=hw" 'cmp -s "$work/msr-before.txt" "$work/msr-after-hw.txt"'
[ "$mode" = hw ] && chk "hw on $qcpu: an AMD CPU, every run skipped as not Intel" \
  'grep -q "facility vendor: AuthenticAMD" "$work/log-hw.txt" &&
   [ "$(grep -c "# SKIP DS_ERR_NOT_INTEL" "$work/log-hw.txt")" -ge 10 ]'
if [ "$mode" = all ]; then
chk "insmod libds.ko backend=model" '[ "$(rc insmod-model)" = 0 ]'
nok=$(grep -c '^ok ' "$work/log-model.txt"); nnot=$(grep -c '^not ok' "$work/log-model.txt")
chk "model: $nok checks ok, $nnot not ok, on both CPUs, each with its own profiles (a hybrid part's P- and E-cores)" \
  '[ "$nok" -ge 60 ] && [ "$nnot" = 0 ] && grep -q "^ok .* cpu0 skylake" "$work/log-model.txt" &&
   grep -q "^ok .* cpu1 alderlake-e" "$work/log-model.txt" && ! grep -q "^ok .* cpu1 skylake" "$work/log-model.txt"'
chk "model: records from PEBS, arch PEBS, BTS and LBR" \
  'grep -q "DSLOG 1 PEBS .*fmt=3" "$work/log-model.txt" && grep -q "DSLOG 1 PEBS .*fmt=arch" "$work/log-model.txt" &&
   grep -q "DSLOG 1 BTS " "$work/log-model.txt" && grep -q "DSLOG 1 LBR " "$work/log-model.txt"'
chk "model: as the test kernel's: NetBurst replay-tagged loads (fmt=nb64), an adaptive LBR group (fmt=4 lbr0=), the format 6 counters group with the metrics (pebs-loop-cntr gp0 gp1 fixed0 slots, metrics Retiring FFH on lunarlake); the held-PMI run skipped with its reason in each log" \
  'grep -q "DSLOG 1 PEBS run=pebs-chase .*fmt=nb64" "$work/log-model.txt" && grep -q "DSLOG 1 PEBS .*fmt=4 .*lbr0=" "$work/log-model.txt" &&
   grep -Eq "DSLOG 1 PEBS run=pebs-loop-cntr .*fmt=6 .* gp0=0x[0-9a-f]+ gp1=0x[0-9a-f]+ fixed0=0x[0-9a-f]+ slots=0x[0-9a-f]+ metrics=0xff ck=" "$work/log-model.txt" &&
   [ "$(grep -c "held PMI # SKIP LVT PC is Linux" "$work/log-model.txt")" = "$(grep -c "DSLOG 1 HDR" "$work/log-model.txt")" ]'
chk "rmmod (backend=model)" '[ "$(rc rmmod-model)" = 0 ]'
chk "every MSR as before after backend=model" 'cmp -s "$work/msr-before.txt" "$work/msr-after-model.txt"'
chk "log_kib=4: the full log ends with a 'not ok' line that counts the dropped writes (never a quiet loss)" \
  '[ "$(rc rmmod-small)" = 0 ] && grep -Eq "^not ok [0-9]+ - cpu0 log full: [1-9][0-9]* writes dropped \(log_kib=4" "$work/log-small.txt" &&
   [ "$(wc -c < "$work/log-small.txt")" -le 4500 ]'
chk "log_kib=3 refused with the reason (4 to 65536)" \
  '[ "$(rc insmod-badlog)" != 0 ] && grep -q "libds: log_kib=3: use 4 to 65536" "$work/dmesg.txt"'
if "$src/linux/ko-symbols.sh" "$work/mod/libds.ko" "$work/kallsyms.txt" "$work/libds-sym.elf" >/dev/null; then
  "$dsdump" -e "$work/libds-sym.elf" "$work/log-model.txt" >"$work/dsdump.txt" 2>&1; d=$?
else d=99; fi
chk "dsdump reads the log with the module's symbols (exit $d) and names wl_loop" \
  '[ "$d" = 0 ] && grep -q "wl_loop" "$work/dsdump.txt"'
fi
# run-linux.sh's verdict (the part after the unload) on each load's files
for b in hw $([ "$mode" = all ] && echo model); do
  v=$work/verdict-$b && mkdir -p "$v"
  cp "$work/log-$b.txt" "$v/libds.log"
  cp "$work/$([ $b = hw ] && echo kallsyms-hw || echo kallsyms).txt" "$v/libds.kallsyms"
  cp "$work/msr-before.txt" "$v/msr-before.txt" && cp "$work/msr-after-$b.txt" "$v/msr-after.txt"
  "$src/scripts/run-linux.sh" --verdict "$v" "$work/mod/libds.ko" "$dsdump" >"$v/out.txt" 2>&1; vr=$?
  cat "$v/out.txt"
  chk "run-linux.sh's verdict of the backend=$b load: PASS (exit $vr)" '[ $vr = 0 ] && grep -q "^VERDICT: PASS" "$v/out.txt"'
done
[ $bad = 0 ] || { echo "serial log: $work/serial.log"; exit 1; }
echo "linux.qemu: passed (Debian $kver under QEMU TCG, -cpu $qcpu, 2 CPUs, $mode)"
