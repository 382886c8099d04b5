#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# libds on the Linux you run (issue 30): build libds.ko for this kernel (or
# take a prebuilt one, --ko), load it (the flows run once on every online
# CPU), collect its log, unload it, check every perfmon/DS/LBR MSR is as
# before, and print the one-screen verdict with dsdump (the module's
# symbols). --vs-perf compares libds's PEBS samples with perf record's on
# the same CPU, event and period. POSIX sh plus awk, grep, sed, cmp, tee
# (busybox is enough: linux.qemu_run_linux runs it as a busybox guest's init).
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
out=${LDK_RUN_DIR:-$here/build/run-linux}
cpuinfo=${LDK_CPUINFO:-/proc/cpuinfo}   # (tests/linux: the refusals on other CPUs' cpuinfo)

usage() {
  cat <<EOT
usage: sudo scripts/run-linux.sh [--ko LIBDS.KO] [--model [PROFILES]] [--vs-perf] [--cpus N]

Builds linux/libds.ko against /lib/modules/\$(uname -r)/build and dsdump,
loads the module (its flows run at load on every online CPU, pinned, with
interrupts off around each run), saves /sys/kernel/debug/libds/log, unloads
it, compares the perfmon/DS/LBR MSRs of every CPU before and after (msr
driver, /dev/cpu/N/msr), and prints the verdict. Files: $out/
(libds.log, dsdump.txt, perf.data, msr-before.txt, msr-after.txt, verdict.txt).

  --model [PROFILES]  backend=model: the flows against libds's reference model
                      (any CPU, no PMU touched); default profiles
                      skylake,icelake,ptl-p,netburst-m4-64
  --cpus N            run on the first N online CPUs only
  --ko LIBDS.KO       a libds.ko already built for the running kernel: no
                      kbuild, no kernel headers needed; dsdump from build/
                      or PATH, msrsnap from PATH (else built with gcc);
                      ld and nm (binutils) give dsdump the module's symbols
  --verdict DIR KO DSDUMP  only print the verdict of a load's files in DIR
                      (libds.log, libds.kallsyms, msr-*.txt; used by linux.qemu)
  --vs-perf           also compare with perf record (needs an Intel PMU with
                      PEBS): libds's PEBS samples of wl_loop against perf's
                      (instructions:kpp, period 47, CPU 0) and the model's
                      prediction, per instruction; prints the agreement
                      figures and the threshold, ready to paste into a report

Prerequisites: root; kernel headers for the running kernel (Debian:
linux-headers-\$(uname -r)); no perf session running; the NMI watchdog off
(sysctl kernel.nmi_watchdog=0); Secure Boot / lockdown may refuse unsigned
modules. Exit status: 0 verdict pass, 1 a check failed, 2 refused / not run.
EOT
}

model=0 profiles=skylake,icelake,ptl-p,netburst-m4-64 vsperf=0 cpus=0 verdict_dir='' prebuilt=''
while [ $# -gt 0 ]; do
  case $1 in
    --model) model=1; if [ $# -gt 1 ] && [ "${2#-}" = "$2" ]; then profiles=$2; shift; fi; shift ;;
    --vs-perf) vsperf=1; shift ;;
    --lib) lib=1; shift ;;   # (sourced by tests/linux/vsperf_math.sh: the functions only)
    --cpus) cpus=${2:?}; shift 2 ;;
    --ko) prebuilt=${2:?}; shift 2 ;;
    --verdict) verdict_dir=${2:?}; verdict_ko=${3:?}; verdict_dsdump=${4:?}; shift 4 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "run-linux.sh: unknown option $1 (--help)" >&2; exit 2 ;;
  esac
done

refuse() { echo "run-linux.sh: refused: $*" >&2; echo "run-linux.sh: nothing was loaded or changed." >&2; exit 2; }

vendor=$(awk -F': ' '/^vendor_id/ { print $2; exit }' "$cpuinfo")
flags=" $(awk -F': ' '/^flags/ { print $2; exit }' "$cpuinfo") "
mname=$(awk -F': ' '/^model name/ { print $2; exit }' "$cpuinfo")
has_flag() { case $flags in *" $1 "*) return 0 ;; esac; return 1; }
intel_pmu() { [ "$vendor" = GenuineIntel ] && has_flag arch_perfmon; }

# --- one load: flows, log, symbols, unload -----------------------------------
# load_once TAG ARGS...: insmod, keep the log and kallsyms in $out/TAG.*, rmmod.
load_once() {
  lo_tag=$1; shift
  insmod "$ko" "$@" 2>"$out/$lo_tag.insmod" || { cat "$out/$lo_tag.insmod"; dmesg | tail -5; return 1; }
  cp /sys/kernel/debug/libds/log "$out/$lo_tag.log" 2>/dev/null ||
    { mount -t debugfs none /sys/kernel/debug 2>/dev/null; cp /sys/kernel/debug/libds/log "$out/$lo_tag.log"; }
  grep '\[libds\]' /proc/kallsyms >"$out/$lo_tag.kallsyms"
  rmmod libds
}

# offsets TAG RUN: the sampled instruction of each PEBS record of RUN in
# $out/TAG.log (eventing_ip where the format has it, else ip), as an offset
# from that load's wl_loop (kallsyms), one per line.
offsets() {
  awk -v run="run=$2" -v base="$(awk '$3 == "wl_loop" { print $1; exit }' "$out/$1.kallsyms")" '
    # the low 32 bits only: awk numbers are doubles (53-bit), module code is
    # well within 4 GiB of wl_loop, and the difference is taken mod 2^32
    function hex(s,  i, v, c) { v = 0; s = tolower(s); sub(/^0x/, "", s); if (length(s) > 8) s = substr(s, length(s) - 7)
      for (i = 1; i <= length(s); i++) { c = index("0123456789abcdef", substr(s, i, 1)) - 1; v = v * 16 + c } return v }
    $1 == "DSLOG" && $3 == "PEBS" && $4 == run {
      ip = ""; ev = ""
      for (i = 5; i <= NF; i++) { if ($i ~ /^ip=/) ip = substr($i, 4); if ($i ~ /^eventing_ip=/) ev = substr($i, 13) }
      a = (ev != "" && ev != "0x0" && ev != "0") ? ev : ip
      d = hex(a) - hex(base); if (d < 0) d += 4294967296; print d }' "$out/$1.log"
}

# perf_offsets KALLSYMS: perf script's IPs (stdin, hex, one per line) as
# offsets from KALLSYMS' wl_loop, those below wl_loop_end only (the low 32
# bits, as offsets()), one per line.
perf_offsets() {
  awk -v lo="$(awk '$3 == "wl_loop" { print $1 }' "$1")" -v hi="$(awk '$3 == "wl_loop_end" { print $1 }' "$1")" '
    function hex(s,  i, v) { s = tolower(s); sub(/^0x/, "", s); if (length(s) > 8) s = substr(s, length(s) - 7); v = 0
      for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1; return v }
    BEGIN { l = hex(lo); n = hex(hi) - l; if (n < 0) n += 4294967296 }
    { d = hex($1) - l; if (d < 0) d += 4294967296; if (d < n) print d }'
}

# agreement A B: 1 - total variation distance of the two offset histograms.
agreement() {
  awk 'FNR == 1 { f++ } { n[f]++; c[f, $1]++; k[$1] = 1 }
       END { if (!n[1] || !n[2]) { print "0.000"; exit }   # (no division by 0: busybox awk stops at one)
             d = 0; for (o in k) { p = c[1, o] / n[1]; q = c[2, o] / n[2]; d += (p > q ? p - q : q - p) }
             printf "%.3f\n", 1 - d / 2 }' "$1" "$2"
}

# The verdict of one load's files in $out (libds.log, libds.kallsyms,
# msr-before.txt, msr-after.txt), $ko and $dsdump.
verdict() {
  msr_same=skipped
  [ -s "$out/msr-before.txt" ] && { cmp -s "$out/msr-before.txt" "$out/msr-after.txt" && msr_same=yes || msr_same=NO; }
  if command -v ld >/dev/null && command -v nm >/dev/null; then
    sh "$here/linux/ko-symbols.sh" "$ko" "$out/libds.kallsyms" "$out/libds-sym.elf" >/dev/null &&
      "$dsdump" -e "$out/libds-sym.elf" --perf-data "$out/perf.data" "$out/libds.log" >"$out/dsdump.txt" 2>&1
  else   # (no binutils: the report without the module's symbols, and say so)
    echo "run-linux.sh: no ld/nm (binutils): dsdump without the module's symbols" >&2
    "$dsdump" --perf-data "$out/perf.data" "$out/libds.log" >"$out/dsdump.txt" 2>&1
  fi
  dsrc=$?

  log=$out/libds.log
  nok=$(grep -c '^ok ' "$log"); nskip=$(grep -c '^ok .*# SKIP' "$log"); nbad=$(grep -c '^not ok' "$log")
  {
    echo "$(grep -m1 '^# libds.ko: ' "$log" | sed 's/^# //'), $(grep -c '^DSLOG 1 HDR' "$log") logs"
    echo "backend: $(awk '$3 == "HDR" { for (i = 4; i <= NF; i++) if ($i ~ /^(backend|profile)=/) printf "%s ", $i; print "" }' "$log" | sort -u | tr '\n' ' ')"
    awk '/^# cpu[0-9]+ [^ ]+ facility (ds|pebs|bts|arch-pebs|lbr):/ && !seen[$2 $3 $5]++' "$log" | head -12
    echo "per CPU and profile (passed / failed / skipped):"
    grep -E '^# cpu[0-9]+ [^ ]+: [0-9]+ passed' "$log" | sed 's/^# /  /'
    grep '^not ok' "$log" | head -10
    head -30 "$out/dsdump.txt" | grep -E '^(# PEBS run|    [0-9.]+%)' | head -12
    echo "MSRs as before on every CPU (/dev/cpu/N/msr): $msr_same"
    echo "dsdump: exit $dsrc ($out/dsdump.txt, $out/perf.data)"
    if [ "$nbad" = 0 ] && [ "$dsrc" = 0 ] && [ "$msr_same" != NO ]; then
      echo "VERDICT: PASS ($((nok - nskip)) checks passed, $nskip skipped with a reason)"
    else
      echo "VERDICT: FAIL ($nbad checks failed, dsdump exit $dsrc, MSRs as before: $msr_same)"
    fi
    echo "Send: $out/verdict.txt and $out/libds.log (issue tracker, 'libds on Linux')"
  } | tee "$out/verdict.txt"
  [ "$nbad" = 0 ] && [ "$dsrc" = 0 ] && [ "$msr_same" != NO ]
}

# --vs-perf: libds's PEBS samples of wl_loop (pebs-loop: instructions, period
# 47, CPU 0, several loads) against perf record's of the same workload run
# without libds (backend=bare) on the same CPU, event and period, and the
# reference model's prediction (backend=model).
vs_perf() {
  loads=${LDK_VS_LOADS:-40} thr=0.80
  : >"$out/vs-libds.txt"
  for i in $(seq 1 "$loads"); do
    load_once "vs$i" cpus=1 || refuse "libds.ko refused to load (reason above)"
    offsets "vs$i" pebs-loop >>"$out/vs-libds.txt"
  done
  load_once vsmodel cpus=1 backend=model profiles=skylake || refuse "backend=model did not load"
  offsets vsmodel pebs-loop >"$out/vs-model.txt"
  perf record -q -e instructions:kpp -c 47 -C 0 -o "$out/vs-perf.data" -- \
    insmod "$ko" backend=bare bare_loops=2000 cpus=1 2>"$out/vs-perf.err" || { cat "$out/vs-perf.err"; refuse "perf record"; }
  grep '\[libds\]' /proc/kallsyms >"$out/vsbare.kallsyms"
  rmmod libds
  perf script -i "$out/vs-perf.data" -F ip 2>/dev/null | perf_offsets "$out/vsbare.kallsyms" >"$out/vs-perf.txt"
  a_perf=$(agreement "$out/vs-libds.txt" "$out/vs-perf.txt")
  a_model=$(agreement "$out/vs-libds.txt" "$out/vs-model.txt")
  {
    echo "libds vs perf: $(uname -r), ${mname:-?}, libds $(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo '?'), $(perf version 2>/dev/null)"
    echo "workload wl_loop(300) in libds.ko on CPU 0; event instructions (libds DS_EVENT_INSTRUCTIONS, PEBS;"
    echo "  perf instructions:kpp), period 47, kernel mode; libds: $loads loads, perf: wl_loop x 2000 without libds"
    grep -m3 '^# session: cpu0 native pebs-loop' "$out/vs1.log"
    echo "samples in wl_loop: libds $(wc -l <"$out/vs-libds.txt"), perf $(wc -l <"$out/vs-perf.txt"), model $(wc -l <"$out/vs-model.txt")"
    echo "offset   libds%   perf%  model%"
    cat "$out/vs-libds.txt" "$out/vs-perf.txt" "$out/vs-model.txt" | sort -n | uniq | while read -r o; do
      printf '+0x%-4x %7.1f %7.1f %7.1f\n' "$o" \
        "$(awk -v o="$o" '$1 == o { c++ } END { print NR ? 100 * c / NR : 0 }' "$out/vs-libds.txt")" \
        "$(awk -v o="$o" '$1 == o { c++ } END { print NR ? 100 * c / NR : 0 }' "$out/vs-perf.txt")" \
        "$(awk -v o="$o" '$1 == o { c++ } END { print NR ? 100 * c / NR : 0 }' "$out/vs-model.txt")"
    done
    echo "agreement (1 - total variation distance) libds vs perf: $a_perf (threshold $thr); libds vs model: $a_model"
    awk -v a="$a_perf" -v t="$thr" 'BEGIN { print (a >= t ? "VS-PERF: AGREE" : "VS-PERF: DISAGREE") }'
  } | tee "$out/vs-perf-verdict.txt"
  awk -v a="$a_perf" -v t="$thr" 'BEGIN { exit !(a >= t) }'
}

if [ "${lib:-0}" = 1 ]; then return 0 2>/dev/null || exit 0; fi

if [ -n "$verdict_dir" ]; then   # (tests/linux/qemu.sh: the files of a load made in the guest)
  out=$verdict_dir ko=$verdict_ko dsdump=$verdict_dsdump
  verdict
  exit $?
fi

# --- prerequisites, all before anything is loaded --------------------------
if [ $vsperf = 1 ]; then
  intel_pmu && has_flag pebs ||
    refuse "--vs-perf needs an Intel PMU with PEBS, and this CPU ($vendor, ${mname:-?}) has none:" \
           "/proc/cpuinfo shows ${vendor:-no vendor}$(has_flag arch_perfmon || echo ", no arch_perfmon")$(has_flag pebs || echo ", no pebs") flag." \
           "Under KVM give the guest a vPMU (-cpu host,pmu=on). No comparison was made."
  command -v perf >/dev/null || refuse "--vs-perf needs perf (Debian: linux-perf)"
fi
[ "$(id -u)" = 0 ] || refuse "loading a module needs root (sudo scripts/run-linux.sh)"
kdir=/lib/modules/$(uname -r)/build
if [ -n "$prebuilt" ]; then   # --ko: built for this kernel? (its vermagic)
  [ -f "$prebuilt" ] || refuse "--ko $prebuilt: no such file"
  vm=$(modinfo -F vermagic "$prebuilt" 2>/dev/null | awk '{ print $1 }')
  [ -z "$vm" ] || [ "$vm" = "$(uname -r)" ] ||
    refuse "--ko $prebuilt was built for kernel $vm, this one is $(uname -r) (build it here: run without --ko)"
else
  [ -e "$kdir/Makefile" ] || refuse "no kernel headers at $kdir (Debian: apt install linux-headers-$(uname -r))"
fi
if [ $model = 0 ] && ! intel_pmu; then
  echo "run-linux.sh: this CPU ($vendor) has no Intel PMU: the hardware flows will skip, each with its reason" \
       "(--model runs them on the reference model)" >&2
fi
if [ $model = 0 ] && [ "$(cat /proc/sys/kernel/nmi_watchdog 2>/dev/null || echo 0)" != 0 ]; then
  refuse "the NMI watchdog owns a counter: sysctl kernel.nmi_watchdog=0 first (and =1 after, if you want it back)"
fi
lsmod | grep -q '^libds ' && refuse "libds is already loaded (rmmod libds)"

# --- build -----------------------------------------------------------------
# (--ko: the module as given; dsdump and msrsnap from the tree's build or PATH)
mkdir -p "$out"
if [ -n "$prebuilt" ]; then
  ko=$prebuilt
else
  make -s -C "$here/linux" KDIR="$kdir" LDK_OUT="$here/build/linux" >"$out/build.log" 2>&1 ||
    { cat "$out/build.log"; refuse "libds.ko did not build (log above)"; }
  ko=$here/build/linux/libds.ko
fi
dsdump=$here/build/libds/tools/dsdump/dsdump
[ -x "$dsdump" ] || [ -z "$prebuilt" ] || ! command -v dsdump >/dev/null || dsdump=$(command -v dsdump)
if [ ! -x "$dsdump" ]; then
  { cmake -S "$here" -B "$here/build" -G Ninja && ninja -C "$here/build" dsdump; } >"$out/dsdump-build.log" 2>&1 ||
    refuse "dsdump did not build (libelf-dev? see $out/dsdump-build.log)"
fi
msrsnap=$out/msrsnap
if [ -n "$prebuilt" ] && command -v msrsnap >/dev/null; then
  msrsnap=$(command -v msrsnap)
else
  gcc -O2 -o "$msrsnap" "$here/tests/linux/msrsnap.c" || refuse "msrsnap did not build"
fi
modprobe msr 2>/dev/null || true

if [ $vsperf = 1 ]; then
  vs_perf
  exit $?
fi

# --- the flows: one load -------------------------------------------------------
"$msrsnap" >"$out/msr-before.txt" 2>/dev/null || echo "(no /dev/cpu/N/msr: the MSR comparison is skipped)" >&2
set -- cpus="$cpus"
[ $model = 1 ] && set -- "$@" backend=model profiles="$profiles"
load_once libds "$@" || refuse "libds.ko refused to load (its reason is above, from the kernel log)"
"$msrsnap" >"$out/msr-after.txt" 2>/dev/null
verdict
