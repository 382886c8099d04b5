#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# The main job: install what is missing, configure, build, boot the test
# kernel in QEMU, stream its serial output, exit with the kernel's verdict.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

usage() {
  cat <<EOT
usage: scripts/run.sh [options] [--] [kernel options...]

Installs missing Debian packages (when root), configures and builds in
$here/build, then boots the x86_64 ISO (GRUB, SeaBIOS) in QEMU and streams
the kernel's serial console here. Exit status: 0 if every kernel check
passed, 1 if one failed, 2 if the kernel did not finish (crash, triple
fault, hang past --timeout, QEMU error).

Accelerator: KVM with -cpu host,migratable=no,pmu=on when /dev/kvm is usable and
served by VT-x/AMD-V (scripts/kvm-host.sh; then the report shows your CPU's
real DS/PEBS/BTS/LBR/perfmon as KVM passes them on), else TCG, which emulates
no PMU, DS or LBR (the report then shows none of them).

options:
  --arch i386|x86_64   which kernel (default x86_64)
  --uefi               boot the ISO with OVMF instead of SeaBIOS
  --kernel             boot the ELF directly (qemu -kernel), no GRUB
  --tcg                do not use KVM even if available
  --timeout SECONDS    stop QEMU after this long (default 300)
  --smp N              CPUs of the QEMU machine (default 2; each runs the e2e flows)
  --no-build           do not configure/build (use what is in build/)
  --raw                stream the whole serial log (every DSLOG line) and print
                       dsdump's full report (every table) instead of the summary
  -h, --help           this text

After the boot run.sh prints a one-screen summary read from the log by dsdump
(scripts/run-summary.py): one row per flow (records, lost, hottest symbol,
summed over the model profiles and CPUs), the non-zero losses, the kernel's
check counts, the paths and perf/hotspot commands. It keeps build/run/serial.log
and build/run/perf.data (open it with perf report or hotspot).

kernel options (key=value, passed on the kernel command line; they imply
--kernel, since the ISO's GRUB menu has fixed entries):
  tests=all|g1,g2      test groups (all: every non-explicit group)
  pmi=fixed|nmi        PMI delivery  apic=x2apic|xapic  exit=qemu|halt|reboot
  debugcon=1           mirror the console to port 0xE9
  backend=hw|model|auto  e2e group: DS hardware, reference model (single-stepped
                       workloads), or the functional probe's choice (default)
  profile=p1,p2        model profiles (netburst_m3, netburst_m4_64, core2, atom,
                       nehalem, haswell, skylake, icelake, sapphirerapids,
                       graniterapids, lunarlake, alderlake_p, alderlake_e)
environment: LIBDS_BUILD_DIR (default build/), LIBDS_RUN_DIR (where serial.log and
perf.data go, default build/run)
example: scripts/run.sh -- tests=caps,pmi pmi=nmi
EOT
}

arch=x86_64 uefi=0 direct=0 tcg=0 timeout_s=300 build=1 raw=0 smp=2 kargs=()
while [ $# -gt 0 ]; do
  case $1 in
    --arch) arch=${2:?}; shift 2 ;;
    --uefi) uefi=1; shift ;;
    --kernel) direct=1; shift ;;
    --tcg) tcg=1; shift ;;
    --timeout) timeout_s=${2:?}; shift 2 ;;
    --no-build) build=0; shift ;;
    --raw) raw=1; shift ;;
    --smp) smp=${2:?}; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    --) shift; kargs+=("$@"); break ;;
    -*) echo "run.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    *) kargs+=("$1"); shift ;;
  esac
done
case $arch in i386|x86_64) ;; *) echo "run.sh: --arch must be i386 or x86_64" >&2; exit 2 ;; esac
if [ ${#kargs[@]} -gt 0 ] && [ $direct -eq 0 ]; then
  echo "run.sh: kernel options given: booting the ELF directly (qemu -kernel)" >&2
  direct=1
fi
if [ $direct -eq 1 ] && [ $uefi -eq 1 ]; then
  echo "run.sh: --uefi boots the ISO, whose GRUB entries take no kernel options; drop --uefi or the options" >&2
  exit 2
fi

if [ $build -eq 1 ]; then
  "$here/scripts/deps.sh"
  cmake -S "$here" -B "${LIBDS_BUILD_DIR:-$here/build}" -G Ninja >/dev/null
  cmake --build "${LIBDS_BUILD_DIR:-$here/build}"
fi
b=${LIBDS_BUILD_DIR:-$here/build}

# What the host's KVM gives a guest PMU (Linux kvm / kvm_intel module
# parameters, perf's view of the host PMU), so a missing facility has a reason.
kvm_facts() {
  local p v
  for p in /sys/module/kvm/parameters/enable_pmu /sys/module/kvm/parameters/enable_mediated_pmu \
           /sys/module/kvm_intel/parameters/ept \
           /sys/module/kvm_intel/parameters/unrestricted_guest; do
    v=$(cat "$p" 2>/dev/null) || v="(absent)"
    echo "run.sh: host $p = $v"
  done
  echo "run.sh: host PMU: $(cat /sys/bus/event_source/devices/cpu/caps/pmu_name 2>/dev/null || echo '?'), LBR depth (caps/branches): $(cat /sys/bus/event_source/devices/cpu/caps/branches 2>/dev/null || echo 'none or unknown')"
  grep -q '^Y\|^1' /sys/module/kvm/parameters/enable_pmu 2>/dev/null ||
    echo "run.sh: note: enable_pmu is not Y: the guest gets no PMU at all"
  grep -q '^Y\|^1' /sys/module/kvm/parameters/enable_mediated_pmu 2>/dev/null &&
    echo "run.sh: note: mediated vPMU: no PEBS and no LBR in the guest"
  echo "run.sh: a KVM guest never has BTS (DEBUGCTL.BTS #GP) nor Arch LBR; legacy PEBS only on PEBS-EPT hosts (ICX, SPR and later)"
}

accel=tcg cpu=qemu64 why="not requested"
# KVM only where VT-x/AMD-V serves /dev/kvm and QEMU starts a -cpu host
# guest: scripts/kvm-host.sh says which, or why not (KVM PVM, for one).
if [ $tcg -eq 0 ]; then
  if why=$("$here/scripts/kvm-host.sh"); then
    accel=kvm cpu=host,migratable=no,pmu=on  # migratable=no: the host's LBR format (as kvm-unit-tests)
  fi
  why=${why#*: }
fi
if [ $accel = tcg ]; then
  echo "run.sh: KVM not used ($why): using TCG (no PMU, DS or LBR emulation; the report will show none)" >&2
else
  echo "run.sh: using KVM with -cpu host,migratable=no,pmu=on ($why)" >&2
  kvm_facts >&2
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/libds-run.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
qemu=(qemu-system-x86_64 -machine pc,accel=$accel -cpu "$cpu" -smp "$smp" -m 256M -display none -no-reboot
      -serial stdio -monitor none -device isa-debug-exit,iobase=0xf4,iosize=0x04)
if [ $direct -eq 1 ]; then
  qemu+=(-kernel "$b/kernel/libds-$arch.elf" -append "${kargs[*]:-}")
else
  qemu+=(-cdrom "$b/libds-$arch.iso")
  if [ $uefi -eq 1 ]; then
    code=/usr/share/OVMF/OVMF_CODE_4M.fd vars=/usr/share/OVMF/OVMF_VARS_4M.fd
    [ -f "$code" ] || { code=/usr/share/OVMF/OVMF_CODE.fd vars=/usr/share/OVMF/OVMF_VARS.fd; }
    cp "$vars" "$tmp/vars.fd"
    qemu+=(-drive "if=pflash,format=raw,readonly=on,file=$code" -drive "if=pflash,format=raw,file=$tmp/vars.fd")
  fi
fi
echo "run.sh: ${qemu[*]}" >&2
out=${LIBDS_RUN_DIR:-$b/run}
mkdir -p "$out"
log=$out/serial.log
set +e
if [ $raw -eq 1 ]; then
  timeout -k 5 "$timeout_s" "${qemu[@]}" | tee "$log"
else # boot messages, group headers, failures and skips as they come; passing
  # checks are counted at the end; the ~1,300 DSLOG record lines go to the summary
  timeout -k 5 "$timeout_s" "${qemu[@]}" | tee "$log" |
    grep --line-buffered -Ev '^DSLOG 1 |^ok [0-9]+ - ([^#]|#[^ ]|# [^S])*$'
fi
rc=${PIPESTATUS[0]}
set -e
case $rc in
  33) verdict="PASS (kernel exit code 0x10)" ret=0 ;;
  35) verdict="FAIL: a kernel check failed (kernel exit code 0x11)" ret=1 ;;
  0) verdict="FAIL: the guest reset or triple-faulted (QEMU exit 0 under -no-reboot)" ret=2 ;;
  124|137) verdict="FAIL: no verdict within ${timeout_s}s (hang)" ret=2 ;;
  *) verdict="FAIL: QEMU exit status $rc" ret=2 ;;
esac
elf=$b/kernel/libds-$arch.elf
dsdump=$b/libds/tools/dsdump/dsdump
echo
echo "==================== summary (dsdump -e $elf $log) ===================="
if [ ! -x "$dsdump" ]; then
  echo "dsdump not built: the records stay in $log"
elif ! grep -q 'DSLOG 1 HDR' "$log"; then
  echo "the kernel logged no records (see the test lines above)"
elif [ $raw -eq 1 ]; then
  "$dsdump" -e "$elf" --perf-data "$out/perf.data" "$log" || true
else # issue 27 item 8: one screen; --raw gives every table
  "$dsdump" -e "$elf" --json --perf-data "$out/perf.data" "$log" >"$tmp/run.json" 2>"$tmp/dsdump.err" || true
  head -5 "$tmp/dsdump.err"
  python3 "$here/scripts/run-summary.py" "$tmp/run.json" "$log" "$out/perf.data"
  grep -q 'DSLOG 1 HDR.*backend=model' "$log" &&
    echo "(backend=model: the records come from the reference model, single-stepping the real workloads)"
fi
echo "run.sh: $verdict" >&2
exit $ret
