#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Can this host run the test kernels under KVM? Prints one line and exits 0
# ("kvm: <what>") if yes, 1 ("tcg: <why not>") if not. Used by scripts/run.sh
# and tests/boot/boot.sh; tests/boot/kvmhost_test.sh drives it with fake trees.
#
# /dev/kvm alone is not enough. KVM PVM ("Pagetable-based Virtual Machine",
# module kvm-pvm, for hosts without VT-x/AMD-V, e.g. a cloud VM without nested
# virtualisation) also opens /dev/kvm and lets QEMU start a -cpu host guest,
# but it runs a guest that is not a PVM-aware Linux through KVM's instruction
# emulator, one instruction at a time. Measured on an Intel Xeon 06_CFH VM
# whose /dev/kvm is kvm-pvm (issue 14; trace kvm:kvm_emulate_insn): every
# instruction of both kernels was emulated ("prot32" / "prot64"), INT3 in the
# x86_64 kernel stopped the guest with "KVM internal error. Suberror: 1"
# (x86_emulate_insn has no INT n / INT3 outside real mode), the i386 kernel's
# MOV to CR0 with PG = 1 (32-bit paging) got #GP, GRUB under SeaBIOS printed
# nothing in 40 s and OVMF stopped with an emulation failure in SEC. So KVM is
# used only where the VT-x or AMD-V backend (module kvm_intel or kvm_amd; a
# built-in one also appears in /sys/module, it has parameters) serves it.
#
# environment (for tests): LIBDS_SYSFS (default /sys), LIBDS_DEV_KVM
# (default /dev/kvm), LIBDS_QEMU (default qemu-system-x86_64).
set -uo pipefail
sys=${LIBDS_SYSFS:-/sys} dev=${LIBDS_DEV_KVM:-/dev/kvm} qemu=${LIBDS_QEMU:-qemu-system-x86_64}

if [ ! -e "$dev" ]; then
  echo "tcg: no $dev (no KVM on this host, or not exposed to this container)"; exit 1
fi
if [ ! -r "$dev" ] || [ ! -w "$dev" ]; then
  echo "tcg: $dev is not readable and writable by $(id -un 2>/dev/null || echo this user) (group kvm?)"; exit 1
fi
backend=
for m in kvm_intel kvm_amd; do
  [ -d "$sys/module/$m" ] && { backend=$m; break; }
done
if [ -z "$backend" ]; then
  mods=$(cd "$sys/module" 2>/dev/null && ls -d kvm* 2>/dev/null | tr '\n' ' ')
  mods=${mods% }
  echo "tcg: $dev is served by ${mods:-an unknown module} without kvm_intel or kvm_amd: no VT-x/AMD-V" \
       "(KVM PVM, say), which emulates the test kernels instruction by instruction and cannot" \
       "deliver INT3 or run 32-bit paging (issue 14)"
  exit 1
fi
# QEMU must also start a -cpu host guest: probe one, stopped (-S), and make
# it quit at once through its monitor.
if ! printf 'quit\n' | timeout 20 "$qemu" -machine pc,accel=kvm -cpu host,migratable=no,pmu=on -S \
     -display none -nodefaults -no-user-config -monitor stdio >/dev/null 2>&1; then
  echo "tcg: $qemu could not start a KVM guest with -cpu host,migratable=no,pmu=on"; exit 1
fi
echo "kvm: $dev served by $backend"
