#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# End-to-end kernel test (issue 6): boot one kernel with tests/boot/boot.sh
# (which judges the exit status, the summary and every ok/not ok line, the
# kernel's own record checks included), then check the captured serial log:
#   - a DSLOG HDR per model profile with backend=model (or backend=hw when
#     LIBDS_E2E_BACKEND=hw), and PEBS, BTS and LBR record lines;
#   - dsdump reads the whole log without an error (checksums, RUN/END
#     counts) and, symbolizing with the kernel ELF (-e), names the workload
#     functions: samples in wl_loop and wl_chase, BTS branches
#     wl_loop+off -> wl_loop+off, LBR entries in wl_chase.
# Usage: e2e-kernel.sh --build DIR --arch i386|x86_64 --mode kernel|bios|uefi
#        [--timeout S] [--dsdump PATH] [--keep FILE] [--smp N]
# --smp N (issue 13): N CPUs; -kernel mode runs every group, smp_e2e among
# them (the flows on every CPU at once), prints the whole serial log (ctest
# checks the smp lines in it, e2e.<arch>.kernel.smp2) and every CPU must have
# written its own logs (HDR cpu=).
set -uo pipefail
build= arch=x86_64 mode=kernel timeout_s=60 dsdump= keep= smp=
while [ $# -gt 0 ]; do
  case $1 in
    --build) build=$2; shift 2 ;;
    --arch) arch=$2; shift 2 ;;
    --mode) mode=$2; shift 2 ;;
    --timeout) timeout_s=$2; shift 2 ;;
    --dsdump) dsdump=$2; shift 2 ;;
    --keep) keep=$2; shift 2 ;;
    --smp) smp=$2; shift 2 ;;
    -h|--help) sed -n '3,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "e2e-kernel.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${build:-$here/build}
dsdump=${dsdump:-$build/libds/tools/dsdump/dsdump}
elf=$build/kernel/libds-$arch.elf
fail() { echo "e2e-kernel.sh: FAIL: $*"; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/libds-e2e.XXXXXX")
trap 'rm -rf "$work"' EXIT
log=$work/boot.out

args=(--build "$build" --arch "$arch" --mode "$mode" --timeout "$timeout_s")
# -kernel mode: run only the e2e group (boot.<arch>.kernel runs everything);
# with --smp every group (the -smp boot of every group is this one).
if [ -n "$smp" ]; then
  args+=(--smp "$smp")
else
  [ "$mode" = kernel ] && args+=(--append "tests=e2e")
fi
start=$(date +%s.%N)
"$here/tests/boot/boot.sh" "${args[@]}" >"$log" 2>&1
rc=$?
end=$(date +%s.%N)
[ -n "$keep" ] && cp "$log" "$keep"
if [ -n "$smp" ] && [ "$mode" = kernel ]; then
  cat "$log"
else
  grep -E '^(not ok|boot\.sh:|# e2e|DSLOG 1 (HDR|RUN|END))' "$log" | grep -v '^boot.sh: qemu' | head -80
fi
echo "e2e-kernel.sh: boot took $(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }') s"
[ $rc -eq 0 ] || fail "boot.sh failed (exit $rc): $(grep 'boot.sh: FAIL' "$log")"

backend=${LIBDS_E2E_BACKEND:-model}
nhdr=$(grep -c "DSLOG 1 HDR arch=$arch backend=$backend " "$log")
[ "$nhdr" -ge 1 ] || fail "no DSLOG HDR line with arch=$arch backend=$backend"
if [ "$backend" = model ]; then
  grep -q "backend=model why=" "$log" || fail "the model backend is not announced with its reason"
  [ "$nhdr" -ge 3 ] || fail "expected a log per default model profile, found $nhdr"
fi
for t in PEBS BTS LBR RUN END; do
  n=$(grep -c "DSLOG 1 $t " "$log")
  [ "$n" -ge 1 ] || fail "no DSLOG $t lines"
  echo "e2e-kernel.sh: $n DSLOG $t lines"
done
grep -q "DSLOG 1 PEBS .*fmt=nb" "$log" || fail "no NetBurst PEBS record (fmt=nb32/nb64)"
[ "$arch" = i386 ] && { grep -q "fmt=nb32" "$log" || fail "i386: no 32-bit DS layout NetBurst record"; }
grep -q "DSLOG 1 PEBS .*fmt=4 .*lbr0=" "$log" || fail "no adaptive PEBS record with an LBR group"
if [ "$backend" = model ]; then
  grep -q "DSLOG 1 PEBS .*fmt=arch .*frags=" "$log" || fail "no architectural PEBS record (fmt=arch, profile panther_lake_p)"
  if [ "$arch" = x86_64 ]; then   # lunarlake (PEBS format 6) is a default x86_64 profile
    grep -Eq "DSLOG 1 PEBS run=pebs-loop-cntr .*fmt=6 .* gp0=0x[0-9a-f]+ gp1=0x[0-9a-f]+ fixed0=0x[0-9a-f]+ slots=0x[0-9a-f]+ metrics=0xff ck=" "$log" ||
      fail "no format 6 record with the counters group and metrics (gp0, gp1, fixed0, slots, metrics Retiring FFH: EN_PERF_METRICS set; profile lunarlake)"
  fi
fi

if [ -n "$smp" ] && [ "$mode" = kernel ]; then
  # Every CPU (APIC IDs 0..N-1 under QEMU) wrote as many logs as the BSP.
  n0=$(grep -c "DSLOG 1 HDR .* cpu=0 " "$log")
  for ((c = 1; c < smp; c++)); do
    nc=$(grep -c "DSLOG 1 HDR .* cpu=$c " "$log")
    [ "$nc" -eq "$n0" ] || fail "cpu $c wrote $nc logs, cpu 0 wrote $n0"
  done
  echo "e2e-kernel.sh: $smp CPUs, $n0 logs each"
fi
# Each log states the TSC frequency (issue 27: QEMU has CPUID 15H or a PIT to measure against).
nhdr_all=$(grep -c "DSLOG 1 HDR " "$log")
ntsc=$(grep -cE "DSLOG 1 HDR .* tsc_khz=[1-9][0-9]* " "$log")
[ "$ntsc" -eq "$nhdr_all" ] || fail "$ntsc of $nhdr_all DSLOG HDR lines state tsc_khz="
echo "e2e-kernel.sh: every HDR states tsc_khz= ($(grep -oE 'tsc_khz=[0-9]+' "$log" | sort -u | head -3 | tr '\n' ' '))"
[ -x "$dsdump" ] || fail "dsdump not built ($dsdump)"
"$dsdump" --limit 4 -e "$elf" "$log" >"$work/dump.txt" 2>"$work/dump.err"
drc=$?
cat "$work/dump.err"
[ $drc -eq 0 ] || fail "dsdump reported errors in the log (exit $drc)"
sym() { grep -Eq "$1" "$work/dump.txt" || fail "dsdump output lacks: $2"; }
sym '^ +100\.00% +[0-9]+ +wl_loop ' "a sample table naming wl_loop"
sym '^ +100\.00% +[0-9]+ +wl_chase ' "a sample table naming wl_chase"
sym 'wl_loop\+0x[0-9a-f]+ -> wl_loop\+0x[0-9a-f]+' "BTS branches wl_loop+off -> wl_loop+off"
sym 'wl_calls\+0x[0-9a-f]+ -> wl_calls\+0x[0-9a-f]+' "BTS branches inside wl_calls (circular run)"
grep -q "DSLOG 1 RUN name=lbr-calls " "$log" && sym '^ +\[ *0\] wl_calls\+0x[0-9a-f]+ -> wl_calls\+0x[0-9a-f]+' "an LBR stack of wl_calls"
if [ "$backend" = model ] && [ "$arch" = x86_64 ]; then
  sym '^# counters group \(PEBS format 6\) in [1-9][0-9]* of [1-9][0-9]* records' "the format 6 counters group summary"
fi
sym '^ +\[ *0\] wl_chase\+0x[0-9a-f]+ -> wl_chase\+0x[0-9a-f]+' "an LBR stack of wl_chase"
if grep -Eq '^ +[0-9.]+% +[0-9]+ +(\?|0x)' "$work/dump.txt"; then
  fail "samples outside any symbol"
fi
"$dsdump" --json -e "$elf" "$log" >"$work/dump.json" || fail "dsdump --json failed"
if [ -n "$smp" ] && [ "$mode" = kernel ]; then
  for ((c = 0; c < smp; c++)); do
    grep -Eq "^ \{\"log\":[0-9]+,\"name\":\"[^\"]+\",\"cpu\":$c," "$work/dump.json" ||
      fail "dsdump --json: no run attributed to cpu $c"
  done
fi
if [ -n "$smp" ] && [ "$mode" = kernel ] && [ "$backend" = model ]; then
  # The CPUs ran the same profiles on the deterministic model at the same
  # time: each CPU's records (dsdump's per-CPU sums) must equal cpu 0's,
  # and none lost; a record landing in another CPU's log breaks this.
  python3 - "$work/dump.json" "$smp" <<'PY' || fail "dsdump --json: the CPUs' records differ (cross-CPU attribution or loss)"
import json, sys
d = json.load(open(sys.argv[1])); n = int(sys.argv[2])
c = {x['cpu']: x for x in d['cpus']}
key = lambda x: (len(x['logs']), x['runs'], x['pebs_records'], x['bts_records'], x['lbr_records'])
assert sorted(c) == list(range(n)), sorted(c)
for i in range(n):
    assert key(c[i]) == key(c[0]), (i, key(c[i]), key(c[0]))
    assert c[i]['lost'] == {'pebs': 0, 'bts': 0, 'lbr': 0}, (i, c[i]['lost'])
print('e2e-kernel.sh: every CPU: %d logs, %d runs, %d PEBS, %d BTS, %d LBR records, none lost' % key(c[0]))
PY
fi
grep -q '"wl_loop"' "$work/dump.json" || fail "dsdump --json does not name wl_loop"
# perf.data of this log, read back by Linux perf (report/script/annotate).
python3 "$here/tests/dsdump/perfcheck.py" "$dsdump" "$log" "$work/perf" "$elf" >"$work/perf.out" 2>&1
prc=$?
grep -v '^ok' "$work/perf.out"
case $prc in
  0) ;;
  77) echo "e2e-kernel.sh: note: perf not installed, perf.data not checked" ;;
  *) fail "dsdump --perf-data: perf does not read back what dsdump reports" ;;
esac
echo "e2e-kernel.sh: PASS ($arch, $mode, backend=$backend)"
