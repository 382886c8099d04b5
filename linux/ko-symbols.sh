#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# ko-symbols.sh KO KALLSYMS OUT: an ELF executable of the module's code at
# the address it was loaded at, for dsdump -e. The .ko is linked (ld, no
# code changed) with its .text where /proc/kallsyms (a copy taken while
# the module was loaded, as root) says the module's wl_loop is; the
# module's .text is placed as one piece by the module loader, so every
# .text symbol is then where the kernel has it. Checked: the linked
# wl_loop must equal kallsyms' wl_loop. POSIX sh, ld and nm (run-linux.sh
# runs it under busybox in linux.qemu_run_linux): the 64-bit address
# arithmetic is done in awk on 32-bit halves (sh arithmetic is signed and
# dash refuses 0xffffffffc0000000).
set -eu
ko=$1 ksyms=$2 out=$3
ld_at() { ld -m elf_x86_64 -Ttext="$1" -e 0 --unresolved-symbols=ignore-all --no-warn-rwx-segments -o "$out" "$ko"; }
sym() { nm "$out" | awk '$3 == "wl_loop" { print $1 }'; }
want=$(awk '$3 == "wl_loop" && $4 == "[libds]" { print $1 }' "$ksyms")
[ -n "$want" ] || { echo "ko-symbols: wl_loop [libds] not in $ksyms (module not loaded, or not root)" >&2; exit 1; }
base=ffffffffc0000000
ld_at 0x$base
# at = want - (sym - base), modulo 2^64, on 16-digit hex strings
at=$(awk -v w="$want" -v s="$(sym)" -v b="$base" '
  function h(x,  i, v) { v = 0; x = tolower(x)
    for (i = 1; i <= length(x); i++) v = v * 16 + index("0123456789abcdef", substr(x, i, 1)) - 1; return v }
  function hi(x) { x = sprintf("%16s", x); gsub(/ /, "0", x); return h(substr(x, 1, 8)) }
  function lo(x) { x = sprintf("%16s", x); gsub(/ /, "0", x); return h(substr(x, 9, 8)) }
  function hx(v,  d, r, i) { r = ""; for (i = 0; i < 8; i++) { d = v % 16; r = substr("0123456789abcdef", d + 1, 1) r; v = (v - d) / 16 } return r }
  BEGIN { L = 4294967296
    dl = lo(s) - lo(b); dh = hi(s) - hi(b); if (dl < 0) { dl += L; dh-- }      # d = sym - base
    al = lo(w) - dl; ah = hi(w) - dh; if (al < 0) { al += L; ah-- }            # at = want - d
    ah = (ah % L + L) % L
    print hx(ah) hx(al) }')
ld_at "0x$at"
[ "$(sym)" = "$want" ] || { echo "ko-symbols: wl_loop not at $want" >&2; exit 1; }
echo "0x$at"
