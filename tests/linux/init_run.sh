#!/bin/busybox sh
# SPDX-License-Identifier: BSD-2-Clause
# /init of the linux.qemu_run_linux initramfs (tests/linux/qemu_run.sh builds
# it): scripts/run-linux.sh run as a user runs it on a box where libds.ko
# is already built (--ko), under busybox sh, twice: --model (backend=model,
# its default profiles) and without (backend=hw: no working DS under QEMU
# TCG, every facility's reason). Then each run's files, for the host to
# print the verdict of the same files. Sections go to the serial console
# between "=== name BEGIN/END ===" lines.
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
insmod /msr.ko
sec() { echo "=== $1 BEGIN ==="; shift; "$@" 2>&1; r=$?; echo "=== END rc=$r t=$(cut -d' ' -f1 /proc/uptime) ==="; }
for b in model hw; do
  o=/out/$b
  if [ $b = model ]; then
    sec "run-$b" env LDK_RUN_DIR=$o /libds/scripts/run-linux.sh --ko /libds.ko --model
  else
    sec "run-$b" env LDK_RUN_DIR=$o /libds/scripts/run-linux.sh --ko /libds.ko
  fi
  for f in libds.log libds.kallsyms msr-before.txt msr-after.txt verdict.txt; do sec "$b-$f" cat "$o/$f"; done
done
sec lsmod lsmod
echo "=== DONE ==="
poweroff -f
