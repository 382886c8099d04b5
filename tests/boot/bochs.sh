#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# ctest boot.<arch>.bochs_bios: boot an ISO under Bochs 2.7 with the Bochs
# BIOS (BIOS-bochs-latest) and the LGPL VGA BIOS (Debian bochs, bochsbios,
# vgabios), a PC BIOS other than SeaBIOS, and wait for the kernel's verdict.
# The ISO ended in GRUB's heap error there while GRUB set a VBE mode for the
# kernel's framebuffer tag (issue 24); the BIOS menu entries now keep VGA text.
# Bochs runs headless with its "term" display (a curses text screen on a
# pseudo-terminal from script(1)): it cannot show a graphics mode and stops
# with "graphics mode not supported", so the run also proves that GRUB left
# VGA text. Bochs has no isa-debug-exit: the kernel writes port 0xF4 (ignored),
# prints "# verdict: PASS|FAIL; halted" and halts; this script watches COM1
# (a file) for that line, then kills Bochs. Exit 77 (SKIP) with the reason
# where Bochs, its BIOS images, its term display or script(1) are missing.
# usage: bochs.sh ISO ARCH TIMEOUT [CPU_MODEL]   (default corei7_skylake_x)
set -u
iso=$1 arch=$2 tmo=$3 model=${4:-corei7_skylake_x}
skip() { echo "bochs.sh: SKIP: $*"; exit 77; }
fail() { echo "bochs.sh: FAIL: $*"; exit 1; }
command -v bochs >/dev/null || skip "bochs is not installed (scripts/deps.sh installs bochs bochsbios vgabios)"
command -v script >/dev/null || skip "script(1) is missing (bsdutils): Bochs's term display needs a terminal"
bios=/usr/share/bochs/BIOS-bochs-latest
[ -f "$bios" ] || skip "$bios missing (install bochsbios)"
vga=
for v in /usr/share/vgabios/vgabios.bin /usr/share/bochs/VGABIOS-lgpl-latest; do
  [ -f "$v" ] && { vga=$v; break; }
done
[ -n "$vga" ] || skip "no LGPL VGA BIOS (install vgabios)"
compgen -G '/usr/lib/*/bochs/plugins/libbx_term_gui.so' >/dev/null || [ -f /usr/lib/bochs/plugins/libbx_term_gui.so ] ||
  skip "Bochs's term display plugin is missing (install bochs-term)"
[ -f "$iso" ] || fail "ISO $iso not built"

work=$(mktemp -d "${TMPDIR:-/tmp}/libds-bochs.XXXXXX")
bpid=
# Bochs ignores SIGTERM (its debugger catches it) and runs in script(1)'s
# session: kill script and everything under it, by process id.
killtree() { local c; for c in $(pgrep -P "$1"); do killtree "$c"; done; kill -9 "$1" 2>/dev/null; }
cleanup() { [ -n "$bpid" ] && killtree "$bpid"; rm -rf "$work"; }
trap cleanup EXIT
cat >"$work/bochsrc" <<EOF
megs: 256
cpu: model=$model, ips=200000000
romimage: file=$bios
vgaromimage: file=$vga
ata0-master: type=cdrom, path=$iso, status=inserted
boot: cdrom
com1: enabled=1, mode=file, dev=$work/serial.log
display_library: term
log: $work/bochs.log
panic: action=fatal
error: action=report
clock: sync=none
EOF
echo c >"$work/debugger.rc"   # Debian's Bochs has the debugger built in: continue
start=$(date +%s)
TERM=xterm script -qfec "bochs -q -f $work/bochsrc -rc $work/debugger.rc" /dev/null \
  >"$work/screen.out" 2>&1 </dev/null &
bpid=$!
disown $bpid   # no "Killed" message from bash when it ends
verdict='^# verdict: \(PASS\|FAIL\); halted'
banner_s=
for ((i = 0; i < tmo; i++)); do
  [ -z "$banner_s" ] && grep -aq '^libds test kernel' "$work/serial.log" 2>/dev/null && banner_s=$(( $(date +%s) - start ))
  grep -aq "$verdict" "$work/serial.log" 2>/dev/null && break
  kill -0 $bpid 2>/dev/null || break
  sleep 1
done
secs=$(( $(date +%s) - start ))
tr -d '\r' <"$work/serial.log" 2>/dev/null | sed -e 's/\x1b\[[0-9;=?]*[A-Za-z]//g' >"$work/clean.log"
cat "$work/clean.log"
echo "--- Bochs ($model, $(basename "$iso")): kernel banner after ${banner_s:-?}s, ended after ${secs}s"
if ! grep -aq "$verdict" "$work/clean.log"; then
  msg=$(grep -a -A1 'Bochs is exiting with the following message' "$work/screen.out" | tail -1 | tr -d '\r\033')
  grep -aq 'free magic is broken\|out of range pointer' "$work/clean.log" && fail "GRUB heap corrupted before the kernel ran"
  [ -n "$msg" ] && fail "Bochs stopped: $msg"
  kill -0 $bpid 2>/dev/null && fail "hang: no verdict within ${tmo}s"
  fail "Bochs ended before the verdict"
fi
grep -q "^libds test kernel ($arch)" "$work/clean.log" || fail "banner 'libds test kernel ($arch)' missing: wrong kernel"
grep -q '^# boot: multiboot2, .*console: COM1 + VGA text' "$work/clean.log" ||
  fail "the kernel did not get VGA text from GRUB on BIOS"
sum=$(grep -E '^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' "$work/clean.log")
[ "$(printf '%s\n' "$sum" | grep -c .)" -eq 1 ] || fail "expected exactly one summary line"
[[ $sum =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed ]] || fail "bad summary '$sum'"
[ "${BASH_REMATCH[2]}" -eq 0 ] || fail "kernel reported failure: $sum"
[ "${BASH_REMATCH[1]}" -gt 0 ] || fail "no check passed"
grep -aq '^# verdict: PASS; halted' "$work/clean.log" || fail "verdict is not PASS"
echo "bochs.sh: PASS ($arch, Bochs BIOS, $model: $sum, ${secs}s)"
