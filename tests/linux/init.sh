#!/bin/busybox sh
# SPDX-License-Identifier: BSD-2-Clause
# /init of the linux.qemu initramfs (tests/linux/qemu.sh builds it): the
# msr driver, an MSR snapshot, libds.ko with backend=hw (no working DS
# under QEMU TCG: it must load, say why, unload), the snapshot again, then
# backend=model (the flows against the reference model inside Linux) with
# its log and the module's symbols, the snapshot again (/mode "hw": the
# backend=hw part only). Every section goes
# to the serial console between "=== name BEGIN/END ===" lines.
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mount -t debugfs none /sys/kernel/debug
sec() { echo "=== $1 BEGIN ==="; shift; "$@" 2>&1; echo "=== END rc=$? ==="; }
insmod /msr.ko
sec msr-before /msrsnap
sec insmod-hw insmod /libds.ko
sec kallsyms-hw grep '\[libds\]' /proc/kallsyms
sec log-hw cat /sys/kernel/debug/libds/log
sec rmmod-hw rmmod libds
sec msr-after-hw /msrsnap
if [ "$(cat /mode)" = hw ]; then sec dmesg dmesg; echo "=== DONE ==="; poweroff -f; fi
sec insmod-model insmod /libds.ko backend=model profiles=$(cat /profiles)
sec kallsyms grep '\[libds\]' /proc/kallsyms
sec log-model cat /sys/kernel/debug/libds/log
sec rmmod-model rmmod libds
sec msr-after-model /msrsnap
sec insmod-small insmod /libds.ko backend=model profiles=skylake cpus=1 log_kib=4
sec log-small cat /sys/kernel/debug/libds/log
sec rmmod-small rmmod libds
sec insmod-badlog insmod /libds.ko backend=model log_kib=3
sec dmesg dmesg
echo "=== DONE ==="
poweroff -f
