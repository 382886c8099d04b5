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

Accelerator: KVM with -cpu host,pmu=on when /dev/kvm is usable (then the
report shows your CPU's real DS/PEBS/BTS/LBR/perfmon), else TCG, which
emulates no PMU, DS or LBR (the report then shows none of them).

options:
  --arch i386|x86_64   which kernel (default x86_64)
  --uefi               boot the ISO with OVMF instead of SeaBIOS
  --kernel             boot the ELF directly (qemu -kernel), no GRUB
  --tcg                do not use KVM even if available
  --timeout SECONDS    stop QEMU after this long (default 300)
  --no-build           do not configure/build (use what is in build/)
  -h, --help           this text

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
example: scripts/run.sh -- tests=caps,pmi pmi=nmi
EOT
}

arch=x86_64 uefi=0 direct=0 tcg=0 timeout_s=300 build=1 kargs=()
while [ $# -gt 0 ]; do
  case $1 in
    --arch) arch=${2:?}; shift 2 ;;
    --uefi) uefi=1; shift ;;
    --kernel) direct=1; shift ;;
    --tcg) tcg=1; shift ;;
    --timeout) timeout_s=${2:?}; shift 2 ;;
    --no-build) build=0; shift ;;
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
  cmake -S "$here" -B "$here/build" -G Ninja >/dev/null
  cmake --build "$here/build"
fi
b=$here/build

accel=tcg cpu=qemu64
# KVM is usable if a QEMU with accel=kvm and -cpu host initialises: probe
# one, stopped (-S), and make it quit at once through its monitor.
if [ $tcg -eq 0 ] && [ -r /dev/kvm ] && [ -w /dev/kvm ] &&
   printf 'quit\n' | timeout 20 qemu-system-x86_64 -machine pc,accel=kvm -cpu host,pmu=on -S -display none \
     -nodefaults -no-user-config -monitor stdio >/dev/null 2>&1; then
  accel=kvm cpu=host,pmu=on
fi
if [ $accel = tcg ]; then
  why="not requested"
  [ $tcg -eq 1 ] || why="/dev/kvm not usable"
  echo "run.sh: KVM $why: using TCG (no PMU, DS or LBR emulation; the report will show none)" >&2
else
  echo "run.sh: using KVM with -cpu host,pmu=on" >&2
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/libds-run.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
qemu=(qemu-system-x86_64 -machine pc,accel=$accel -cpu "$cpu" -m 256M -display none -no-reboot
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
set +e
timeout -k 5 "$timeout_s" "${qemu[@]}"
rc=$?
set -e
case $rc in
  33) echo "run.sh: PASS (kernel exit code 0x10)" >&2; exit 0 ;;
  35) echo "run.sh: FAIL: a kernel check failed (kernel exit code 0x11)" >&2; exit 1 ;;
  0) echo "run.sh: FAIL: the guest reset or triple-faulted (QEMU exit 0 under -no-reboot)" >&2 ;;
  124|137) echo "run.sh: FAIL: no verdict within ${timeout_s}s (hang)" >&2 ;;
  *) echo "run.sh: FAIL: QEMU exit status $rc" >&2 ;;
esac
exit 2
