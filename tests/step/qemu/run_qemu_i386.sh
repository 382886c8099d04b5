#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# usage: run_qemu_i386.sh QEMU IMAGE
# Boots the step test image (multiboot1, -kernel) under QEMU with COM1 on
# stdout; passes when the guest exits through isa-debug-exit with code 0
# (QEMU status 1) and printed a "N passed, 0 failed" summary.
set -u
qemu=$1 image=$2
out=$(timeout 60 "$qemu" -kernel "$image" -display none -serial stdio -monitor none \
      -device isa-debug-exit,iobase=0xf4,iosize=0x04 -no-reboot -m 32 2>&1)
rc=$?
printf '%s\n' "$out"
if [ "$rc" -ne 1 ]; then
    echo "FAIL: QEMU exit status $rc (1 = guest passed, 3 = guest failed, 124 = timeout)"
    exit 1
fi
printf '%s\n' "$out" | grep -Eq '^[0-9]+ passed, 0 failed' || { echo "FAIL: no clean summary line"; exit 1; }
