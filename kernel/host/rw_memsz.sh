#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Issue 24: each kernel's writable PT_LOAD segment (.data + .bss) takes at
# most 1 MiB in memory: per-CPU state comes from free RAM at boot (k/smp.h
# K_PERCPU, k/mem.h), not from arrays sized by a CPU maximum.
# usage: rw_memsz.sh LIMIT_BYTES KERNEL.elf...
limit=$1; shift
rc=0
for k in "$@"; do
  [ -f "$k" ] || { echo "FAIL: $k not built"; rc=1; continue; }
  # readelf -lW: Type Offset VirtAddr PhysAddr FileSiz MemSiz Flg Align
  segs=$(readelf -lW "$k" | awk '$1 == "LOAD" && $7 ~ /W/ { print $6 }')
  [ -n "$segs" ] || { echo "FAIL: $k: no writable LOAD segment"; rc=1; continue; }
  for m in $segs; do
    if [ $((m)) -le "$limit" ]; then
      echo "ok: $k: RW segment memsz $m ($(( m / 1024 )) KiB) <= $limit"
    else
      echo "FAIL: $k: RW segment memsz $m ($(( m / 1024 )) KiB) > $limit"; rc=1
    fi
  done
done
exit $rc
