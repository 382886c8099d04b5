#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# scripts/kvm-host.sh against fake /sys trees and a fake /dev/kvm (TAP).
# The cases are the hosts seen or documented (issue 14): no KVM at all, the
# kvm-pvm host measured on the lent Intel Xeon 06_CFH VM (/dev/kvm present,
# no kvm_intel: every guest instruction emulated, INT3 "KVM internal error"),
# VT-x and AMD-V hosts, and a QEMU that cannot start a KVM guest. Then
# run.sh on the PVM host must say why it does not use KVM (it did before).
# Usage: kvmhost_test.sh [BUILD_DIR]  (run.sh's case needs the built kernel)
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${1:-$here/build}
t=$(mktemp -d "${TMPDIR:-/tmp}/libds-kvmhost.XXXXXX")
trap 'rm -rf "$t"' EXIT
n=0 bad=0
check() { # name expected-rc expected-regex actual-rc actual-output
  n=$((n + 1))
  if [ "$4" = "$2" ] && [[ $5 =~ $3 ]]; then echo "ok $n - $1"
  else echo "not ok $n - $1: rc $4 (want $2), output: $5"; bad=$((bad + 1)); fi
}
host() { # name: a fake /sys with the modules given after it
  local d=$t/$1; shift; mkdir -p "$d/module"
  for m in "$@"; do mkdir -p "$d/module/$m/parameters"; done
  echo "$d"
}
touch "$t/kvm"; chmod 666 "$t/kvm"
run() { LIBDS_SYSFS=$1 LIBDS_DEV_KVM=$2 LIBDS_QEMU=$3 "$here/scripts/kvm-host.sh"; }

out=$(run "$(host none)" "$t/no-such-kvm" true); rc=$?
check "no /dev/kvm: TCG" 1 '^tcg: no .*no-such-kvm' $rc "$out"
out=$(run "$(host pvm kvm kvm_pvm)" "$t/kvm" true); rc=$?
check "kvm-pvm host (kvm, kvm_pvm, no kvm_intel): TCG, naming the modules" 1 \
  '^tcg: .* served by kvm kvm_pvm without kvm_intel or kvm_amd: no VT-x/AMD-V' $rc "$out"
out=$(run "$(host kvmonly kvm)" "$t/kvm" true); rc=$?
check "kvm module alone: TCG" 1 '^tcg: .* served by kvm without kvm_intel' $rc "$out"
out=$(run "$(host vmx kvm kvm_intel)" "$t/kvm" true); rc=$?
check "VT-x host (kvm_intel), QEMU starts: KVM" 0 '^kvm: .* served by kvm_intel$' $rc "$out"
out=$(run "$(host svm kvm kvm_amd)" "$t/kvm" true); rc=$?
check "AMD-V host (kvm_amd), QEMU starts: KVM" 0 '^kvm: .* served by kvm_amd$' $rc "$out"
out=$(run "$(host vmx2 kvm kvm_intel)" "$t/kvm" false); rc=$?
check "VT-x host, QEMU cannot start a KVM guest: TCG" 1 '^tcg: false could not start a KVM guest' $rc "$out"
if [ "$(id -u)" -ne 0 ]; then
  chmod 600 "$t/kvm"; chmod 000 "$t/kvm"
  out=$(run "$(host perm kvm kvm_intel)" "$t/kvm" true); rc=$?
  check "/dev/kvm without rw for this user: TCG" 1 '^tcg: .* not readable and writable' $rc "$out"
  chmod 666 "$t/kvm"
else
  n=$((n + 1)); echo "ok $n - # SKIP /dev/kvm permissions: running as root, which reads and writes any file"
fi

# run.sh on the kvm-pvm host: TCG, with the reason, and the kernel passes.
if [ -f "$build/kernel/libds-x86_64.elf" ]; then
  out=$(LIBDS_SYSFS=$t/pvm LIBDS_DEV_KVM=$t/kvm LIBDS_QEMU=true \
        "$here/scripts/run.sh" --no-build --kernel --timeout 60 -- tests=caps 2>&1); rc=$?
  check "run.sh on the kvm-pvm host: TCG with the reason, PASS" 0 \
    'run.sh: KVM not used \(.*/kvm is served by kvm kvm_pvm without kvm_intel or kvm_amd.*run.sh: PASS' $rc "$out"
else
  n=$((n + 1)); echo "ok $n - # SKIP run.sh case: $build/kernel/libds-x86_64.elf not built"
fi
echo "1..$n"
[ $bad -eq 0 ]
