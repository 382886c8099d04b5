#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Boot one test kernel in QEMU and judge the run. Used by ctest (label boot)
# and usable by hand:
#   tests/boot/boot.sh --arch x86_64 --mode uefi --build build
# Modes: kernel (qemu -kernel, ELF32 multiboot1 / ELF64 PVH), bios (SeaBIOS,
# ISO), uefi (OVMF, ISO, a fresh copy of OVMF_VARS per run).
# A run passes only if ALL hold:
#   - QEMU exit status is 33 (the kernel wrote K_EXIT_CODE_PASS to
#     isa-debug-exit); 0 = triple fault/reset/shutdown (-no-reboot),
#     1 = QEMU error, 35 = kernel reported failure, 124/137 = hang (timeout);
#   - the banner names the expected architecture (the right kernel booted);
#   - exactly one summary line "N passed, N failed, N skipped", N failed = 0,
#     N passed > 0, and the counts equal the ok / not ok / SKIP lines.
# Every failure prints one line "boot.sh: FAIL: <reason>".
set -uo pipefail

arch=x86_64 mode=kernel build= append= timeout_s=60 expect=pass cpu_opt= smp= machine= elf= mem=256M iso=
usage() { sed -n '3,15p' "$0" | sed 's/^# \{0,1\}//'; cat <<EOT
options: --arch i386|x86_64  --mode kernel|bios|uefi  --build DIR (default: build)
         --append "kernel options" (kernel mode only)  --timeout SECONDS
         --expect pass|crash|unsupported
                               (crash: an unhandled exception must be reported
                                with exit 35 and a failing summary;
                                unsupported: the entry must refuse the CPU with
                                "this CPU cannot run it" and exit 35, no tests)
         --cpu MODEL   QEMU -cpu for this run (overrides LIBDS_QEMU_CPU)
         --smp N       QEMU -smp N (with TCG: multi-threaded, -accel tcg,thread=multi)
         --machine M   QEMU machine type (default pc)
         --mem SIZE    QEMU -m SIZE (default 256M)
         --elf FILE    kernel mode: boot FILE instead of BUILD/kernel/libds-ARCH.elf
         --iso NAME    bios/uefi mode: boot BUILD/NAME.iso instead of BUILD/libds-ARCH.iso
                       (an ISO whose menu passes kernel options, e.g. libds-smp-ARCH)
environment: LIBDS_QEMU_ACCEL=tcg|kvm|auto (default tcg; kvm and auto ask scripts/kvm-host.sh), LIBDS_QEMU_CPU (default: qemu64 / host with kvm)
EOT
}
while [ $# -gt 0 ]; do
  case $1 in
    --arch) arch=$2; shift 2 ;;
    --mode) mode=$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    --append) append=$2; shift 2 ;;
    --timeout) timeout_s=$2; shift 2 ;;
    --elf) elf=$2; shift 2 ;;
    --iso) iso=$2; shift 2 ;;
    --expect) expect=$2; shift 2 ;;
    --cpu) cpu_opt=$2; shift 2 ;;
    --smp) smp=$2; shift 2 ;;
    --machine) machine=$2; shift 2 ;;
    --mem) mem=$2; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "boot.sh: unknown argument $1" >&2; usage >&2; exit 2 ;;
  esac
done
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${build:-$here/build}
case $arch in i386|x86_64) ;; *) echo "boot.sh: bad --arch $arch" >&2; exit 2 ;; esac

fail() { echo "boot.sh: FAIL: $*"; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/libds-boot.XXXXXX")
trap 'rm -rf "$work"' EXIT
log=$work/serial.log
accel=${LIBDS_QEMU_ACCEL:-tcg}
case $accel in
  tcg) ;;
  kvm) # asked for KVM: a host whose KVM cannot run the kernels fails with why
    kvm_why=$("$here/scripts/kvm-host.sh") || fail "LIBDS_QEMU_ACCEL=kvm, but ${kvm_why#tcg: }" ;;
  auto) # KVM where usable, else TCG, saying why
    if kvm_why=$("$here/scripts/kvm-host.sh"); then accel=kvm
    else accel=tcg; echo "boot.sh: LIBDS_QEMU_ACCEL=auto: TCG (${kvm_why#tcg: })"; fi ;;
  *) echo "boot.sh: LIBDS_QEMU_ACCEL must be tcg, kvm or auto" >&2; exit 2 ;;
esac
if [ "$accel" = kvm ]; then cpu=${LIBDS_QEMU_CPU:-host,migratable=no,pmu=on}; else cpu=${LIBDS_QEMU_CPU:-qemu64}; fi
[ -n "$cpu_opt" ] && cpu=$cpu_opt
qemu=(qemu-system-x86_64 -machine "${machine:-pc},accel=$accel" -cpu "$cpu" -m "$mem" -display none -no-reboot
      -serial "file:$log" -monitor none -device isa-debug-exit,iobase=0xf4,iosize=0x04)
if [ -n "$smp" ]; then
  # SMP under TCG: one host thread per vCPU, so the CPUs really run at once.
  if [ "$accel" = tcg ]; then
    qemu=("${qemu[@]/#${machine:-pc},accel=tcg/${machine:-pc}}" -accel tcg,thread=multi)
  fi
  qemu+=(-smp "$smp")
fi
case $mode in
  kernel)
    k=${elf:-$build/kernel/libds-$arch.elf}
    [ -f "$k" ] || fail "kernel $k not built"
    qemu+=(-kernel "$k" -append "$append") ;;
  bios|uefi)
    [ -z "$append" ] || { echo "boot.sh: --append needs --mode kernel" >&2; exit 2; }
    iso=$build/${iso:-libds-$arch}.iso
    [ -f "$iso" ] || fail "ISO $iso not built"
    qemu+=(-cdrom "$iso")
    if [ "$mode" = uefi ]; then
      code= vars=
      for c in /usr/share/OVMF/OVMF_CODE_4M.fd:/usr/share/OVMF/OVMF_VARS_4M.fd \
               /usr/share/OVMF/OVMF_CODE.fd:/usr/share/OVMF/OVMF_VARS.fd; do
        if [ -f "${c%%:*}" ] && [ -f "${c##*:}" ]; then code=${c%%:*}; vars=${c##*:}; break; fi
      done
      [ -n "$code" ] || fail "OVMF not found (install ovmf)"
      cp "$vars" "$work/OVMF_VARS.fd"   # fresh variable store for every run
      qemu+=(-drive "if=pflash,format=raw,readonly=on,file=$code" -drive "if=pflash,format=raw,file=$work/OVMF_VARS.fd")
    fi ;;
  *) echo "boot.sh: bad --mode $mode" >&2; exit 2 ;;
esac

echo "boot.sh: ${qemu[*]}"
timeout -k 5 "$timeout_s" "${qemu[@]}" </dev/null >"$work/qemu.out" 2>&1
rc=$?
# Show the kernel's output (without terminal escape sequences from GRUB/OVMF).
sed -e 's/\x1b\[[0-9;=?]*[A-Za-z]//g' -e 's/\r$//' "$log" 2>/dev/null | tr -d '\r' >"$work/clean.log"
cat "$work/clean.log"
[ -s "$work/qemu.out" ] && { echo "--- qemu stderr/stdout:"; cat "$work/qemu.out"; }
echo "--- QEMU exit status: $rc"

sum_re='^([0-9]+) passed, ([0-9]+) failed, ([0-9]+) skipped$'
nsum=$(grep -Ec "$sum_re" "$work/clean.log")
if [ "$expect" = unsupported ]; then
  case $rc in 124|137) fail "hang: no exit within ${timeout_s}s (exit $rc)" ;; 0) fail "triple fault or reset (exit 0)" ;; esac
  [ "$rc" -eq 35 ] || fail "expected exit 35 from a refused CPU, got $rc"
  grep -q "^libds test kernel ($arch): this CPU cannot run it: .*halted$" "$work/clean.log" ||
    fail "no 'this CPU cannot run it' line from the $arch entry"
  [ "$nsum" -eq 0 ] || fail "tests ran on a CPU the entry should have refused"
  echo "boot.sh: PASS (CPU refused as expected: exit 35)"
  exit 0
fi
case $rc in
  124|137) fail "hang: no exit within ${timeout_s}s (exit $rc)" ;;
  0) [ "$nsum" -eq 0 ] && fail "triple fault or reset: QEMU exited 0 with no summary line"
     fail "triple fault or reset after the summary: QEMU exited 0" ;;
  1) fail "QEMU error (exit 1)" ;;
  33|35) ;;
  *) fail "unexpected QEMU exit status $rc" ;;
esac
grep -q "^libds test kernel ($arch)" "$work/clean.log" || fail "banner 'libds test kernel ($arch)' missing: wrong kernel or no console"
[ "$nsum" -eq 1 ] || fail "expected exactly one summary line, found $nsum"
line=$(grep -E "$sum_re" "$work/clean.log")
[[ $line =~ $sum_re ]]
p=${BASH_REMATCH[1]} f=${BASH_REMATCH[2]} s=${BASH_REMATCH[3]}
lp=$(grep -E '^ok [0-9]+ - ' "$work/clean.log" | grep -vc '# SKIP')
lf=$(grep -Ec '^not ok [0-9]+ - ' "$work/clean.log")
ls=$(grep -E '^ok [0-9]+ - ' "$work/clean.log" | grep -c '# SKIP')
[ "$p $f $s" = "$lp $lf $ls" ] || fail "summary '$line' disagrees with the lines printed ($lp ok, $lf not ok, $ls skipped)"
# The summary must be the kernel's last word before exiting.
tail -n 5 "$work/clean.log" | grep -Eq "$sum_re" || fail "summary line is not at the end of the output"

if [ "$expect" = crash ]; then
  [ "$rc" -eq 35 ] || fail "expected a failing exit (35) after a crash, got $rc"
  grep -q 'unhandled exception' "$work/clean.log" || fail "no exception report"
  [ "$f" -ge 1 ] || fail "crash not counted as a failure"
  echo "boot.sh: PASS (crash reported as expected: exit 35, $f failed)"
  exit 0
fi
[ "$rc" -eq 33 ] || fail "kernel reported failure (exit $rc, $f failed)"
[ "$f" -eq 0 ] || fail "exit 33 but $f failed"
[ "$p" -gt 0 ] || fail "no check passed"
grep -q '^# capability report' "$work/clean.log" || fail "no capability report"
echo "boot.sh: PASS ($arch, $mode: $p passed, $s skipped)"
