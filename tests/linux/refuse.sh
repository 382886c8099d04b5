#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# linux.run_refuses: scripts/run-linux.sh --vs-perf refuses, exit 2, with a
# message that names what is missing and says nothing was compared, on
# CPUs without an Intel PMU with PEBS -- and does so before building,
# loading or writing anything (so does --ko with a missing module). The
# /proc/cpuinfo texts are minimal transcriptions of the fields run-linux.sh
# reads (vendor_id, model name, flags), not copies of a machine's file: an
# AMD EPYC host (this project's machine), an Intel KVM guest without a vPMU
# (no arch_perfmon), an Intel CPU whose PMU has no PEBS flag.
set -u
src=$1 work=$2
rm -rf "$work" && mkdir -p "$work"
bad=0
cpuinfo() { printf 'processor\t: 0\nvendor_id\t: %s\nmodel name\t: %s\nflags\t\t: %s\n\n' "$1" "$2" "$3"; }
cpuinfo AuthenticAMD "AMD EPYC 7B13 64-Core Processor" "fpu vme de pse tsc msr pae mce cx8 apic sep perfctr_core" >"$work/amd"
cpuinfo GenuineIntel "Intel(R) Xeon(R) Processor" "fpu vme de pse tsc msr pae mce cx8 apic sep hypervisor" >"$work/kvm"
cpuinfo GenuineIntel "Intel(R) Core(TM) i7" "fpu vme de pse tsc msr arch_perfmon bts ds_cpu" >"$work/nopebs"
for c in amd kvm nopebs; do
  LDK_CPUINFO=$work/$c LDK_RUN_DIR=$work/out-$c "$src/scripts/run-linux.sh" --vs-perf >"$work/$c.out" 2>&1
  rc=$?
  if [ $rc = 2 ] && grep -q 'refused: --vs-perf needs an Intel PMU with PEBS' "$work/$c.out" &&
     grep -q 'No comparison was made' "$work/$c.out" && grep -q 'nothing was loaded or changed' "$work/$c.out" &&
     [ ! -e "$work/out-$c" ]; then
    echo "ok - $c: refused (exit 2), nothing written: $(head -1 "$work/$c.out")"
  else
    echo "not ok - $c: exit $rc"; cat "$work/$c.out"; bad=1
  fi
done
grep -q 'no arch_perfmon, no pebs' "$work/kvm.out" || { echo "not ok - kvm: the missing flags are named"; bad=1; }
grep -q 'AuthenticAMD' "$work/amd.out" || { echo "not ok - amd: the vendor is named"; bad=1; }
"$src/scripts/run-linux.sh" --bogus >/dev/null 2>&1; [ $? = 2 ] || { echo "not ok - unknown option: exit 2"; bad=1; }
# --ko: a prebuilt module that is not there is refused before anything is written
LDK_RUN_DIR=$work/out-ko "$src/scripts/run-linux.sh" --ko "$work/no-such.ko" --model >"$work/ko.out" 2>&1; rc=$?
if [ "$(id -u)" != 0 ]; then
  grep -q 'refused: loading a module needs root' "$work/ko.out" && [ $rc = 2 ] || { echo "not ok - --ko as non-root: exit $rc"; bad=1; }
elif [ $rc = 2 ] && grep -q "refused: --ko $work/no-such.ko: no such file" "$work/ko.out" && [ ! -e "$work/out-ko" ]; then
  echo "ok - --ko with a missing file: refused (exit 2), nothing written"
else
  echo "not ok - --ko with a missing file: exit $rc"; cat "$work/ko.out"; bad=1
fi
"$src/scripts/run-linux.sh" --help | grep -q -- '--vs-perf' || { echo "not ok - --help"; bad=1; }
exit $bad
