#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# linux.build: libds.ko builds with kbuild against Debian's kernel headers
# (the newest /lib/modules/V/build) with no warning and no error; the
# module carries MODULE_LICENSE "Dual BSD/GPL" and the libds, model,
# records, step and workload objects (compiled from the tree by path).
# Exit 77 (skip) when no kernel headers are installed.
# Usage: build.sh SRC_DIR WORK_DIR
set -u
src=$1 work=$2
kver=$(ls /lib/modules 2>/dev/null | while read -r v; do [ -e "/lib/modules/$v/build/Makefile" ] && echo "$v"; done |
       sort -V | tail -1)
[ -n "$kver" ] || { echo "SKIP: no /lib/modules/V/build (scripts/deps.sh installs linux-headers-amd64)"; exit 77; }
rm -rf "$work"
make -C "$src/linux" KDIR="/lib/modules/$kver/build" LDK_OUT="$work" >"$work.log" 2>&1
rc=$?
cat "$work.log"
[ $rc = 0 ] || { echo "FAIL: make exited $rc"; exit 1; }
if grep -Ei 'warning|error' "$work.log" | grep -v 'Skipping BTF generation'; then
  echo "FAIL: the build printed warnings (above)"; exit 1
fi
ko=$work/libds.ko
modinfo -F license "$ko" | grep -qx 'Dual BSD/GPL' || { echo "FAIL: license: $(modinfo -F license "$ko")"; exit 1; }
for s in ds_session_start ds_cpu_identify dsm_retire dsrec_pebs step_feed wl_loop ldk_flows; do
  nm "$ko" | grep -qw "$s" || { echo "FAIL: $s not in libds.ko"; exit 1; }
done
echo "linux.build: libds.ko for $kver, no warnings"
