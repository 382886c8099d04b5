#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# ctest boot.<arch>.screen_<uefi|bios>: boot build/libds-screen-<arch>.iso
# (the kernel ends with exit=halt, the verdict on screen) with a display
# device, wait for the verdict on serial, then read the screen through the
# QEMU monitor: a screendump of the framebuffer when the kernel drew on one
# (GRUB gives one on OVMF; on BIOS the menu keeps VGA text), else the VGA
# text buffer, and check the verdict there (screencheck.py).
# With --ocr (boot.<arch>.screen_ocr_*, issue 24): a screendump in either
# case, read by OCR (screenocr.py, tesseract; exit 77 without it): PASS/FAIL,
# the CPU line and the per-group counts from the picture; first, from the
# same boot, a framebuffer screendump is matched pixel-exact (screencheck.py
# fb, the same picture) or the VGA text buffer cell by cell (screencheck.py
# text), so no second boot for those; --size WxH: the
# framebuffer must have that size (the ISO's menu asked GRUB for that GOP
# mode), with or without --ocr.
# usage: screen.sh BUILD ARCH uefi|bios TIMEOUT FONT [--iso NAME] [--ocr] [--size WxH]
set -u
build=$1 arch=$2 mode=$3 tmo=$4 font=$5
iso=$build/libds-screen-$arch.iso ocr= size=
shift 5
while [ $# -gt 0 ]; do
  case $1 in
    --iso) iso=$build/$2.iso; shift 2 ;;
    --ocr) ocr=1; shift ;;
    --size) size=$2; shift 2 ;;
    *) echo "screen.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
notess="screen.sh: SKIP: tesseract is not installed (scripts/deps.sh installs tesseract-ocr)"
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/libds-screen.XXXXXX")
trap 'kill $qpid 2>/dev/null; rm -rf "$work"' EXIT
qemu=(qemu-system-x86_64 -machine pc,accel=tcg -m 256M -display none -vga std -no-reboot
      -serial "file:$work/serial.log" -monitor "unix:$work/mon.sock,server,nowait"
      -cdrom "$iso")
if [ "$mode" = uefi ]; then
  code=/usr/share/OVMF/OVMF_CODE_4M.fd vars=/usr/share/OVMF/OVMF_VARS_4M.fd
  [ -f "$code" ] || code=/usr/share/OVMF/OVMF_CODE.fd vars=/usr/share/OVMF/OVMF_VARS.fd
  cp "$vars" "$work/vars.fd"
  qemu+=(-drive "if=pflash,format=raw,readonly=on,file=$code" -drive "if=pflash,format=raw,file=$work/vars.fd")
fi
"${qemu[@]}" & qpid=$!
monitor() { # <command>: one HMP command, its output (read up to the next prompt)
  python3 - "$work/mon.sock" "$1" <<'PY'
import socket, sys, time
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1])
def until_prompt(t):
    # HMP ends every answer with the "(qemu) " prompt: read up to it, at most t
    # seconds (a fixed 3 s wait plus a 5 s recv timeout made each call 10 s).
    out, end = b'', time.time() + t
    while not out.endswith(b'(qemu) ') and time.time() < end:
        s.settimeout(max(0.05, end - time.time()))
        try:
            d = s.recv(65536)
        except socket.timeout:
            break
        if not d:
            break
        out += d
    return out
until_prompt(10)  # the banner
s.sendall(sys.argv[2].encode() + b'\n')
sys.stdout.write(until_prompt(30).decode('latin-1'))
PY
}
for ((i = 0; i < tmo; i++)); do
  grep -aq '^# verdict: \(PASS\|FAIL\); halted' "$work/serial.log" 2>/dev/null && break
  kill -0 $qpid 2>/dev/null || { echo "FAIL: QEMU ended before the verdict"; tail -5 "$work/serial.log"; exit 1; }
  sleep 1
done
grep -aq '^# verdict: \(PASS\|FAIL\); halted' "$work/serial.log" || { echo "FAIL: no verdict within ${tmo}s"; exit 1; }
grep -a '^# verdict | \|^# framebuffer\|^# boot:' "$work/serial.log"
sleep 1 # the kernel draws the screen before the serial line above; let QEMU refresh
if [ -n "$size" ] && ! grep -aq "^# framebuffer: $size," "$work/serial.log"; then
  echo "FAIL: the kernel did not get the $size framebuffer the menu asked for"; exit 1
fi
if [ -n "$ocr" ]; then
  if ! grep -aq '^# framebuffer: ' "$work/serial.log"; then
    monitor "xp /2000xh 0xb8000" >"$work/vga.txt"
    python3 "$here/screencheck.py" text "$work/serial.log" "$work/vga.txt" || exit 1
  fi
  monitor "screendump $work/screen.ppm" >/dev/null
  [ -s "$work/screen.ppm" ] || { echo "FAIL: screendump wrote nothing"; exit 1; }
  [ -n "${SCREEN_KEEP:-}" ] && cp "$work/screen.ppm" "$SCREEN_KEEP"
  if grep -aq '^# framebuffer: ' "$work/serial.log"; then
    python3 "$here/screencheck.py" fb "$work/serial.log" "$work/screen.ppm" "$font" || exit 1
  fi
  command -v tesseract >/dev/null || { echo "$notess (the pixel-exact or cell-by-cell check above ran)"; exit 77; }
  python3 "$here/screenocr.py" "$work/serial.log" "$work/screen.ppm" $size
elif grep -aq '^# framebuffer: ' "$work/serial.log"; then
  monitor "screendump $work/screen.ppm" >/dev/null
  [ -s "$work/screen.ppm" ] || { echo "FAIL: screendump wrote nothing"; exit 1; }
  python3 "$here/screencheck.py" fb "$work/serial.log" "$work/screen.ppm" "$font"
else
  monitor "xp /2000xh 0xb8000" >"$work/vga.txt"
  [ -n "${SCREEN_KEEP:-}" ] && cp "$work/vga.txt" "$SCREEN_KEEP"
  python3 "$here/screencheck.py" text "$work/serial.log" "$work/vga.txt"
fi
