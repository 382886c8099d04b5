#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# ko-symbols.sh KO KALLSYMS OUT: an ELF executable of the module's code at
# the address it was loaded at, for dsdump -e. The .ko is linked (ld, no
# code changed) with its .text where /proc/kallsyms (a copy taken while
# the module was loaded, as root) says the module's wl_loop is; the
# module's .text is placed as one piece by the module loader, so every
# .text symbol is then where the kernel has it. Checked: the linked
# wl_loop must equal kallsyms' wl_loop.
set -eu
ko=$1 ksyms=$2 out=$3
ld_at() { ld -m elf_x86_64 -Ttext="$1" -e 0 --unresolved-symbols=ignore-all --no-warn-rwx-segments -o "$out" "$ko"; }
sym() { nm "$out" | awk '$3 == "wl_loop" { print "0x" $1 }'; }
want=$(awk '$3 == "wl_loop" && $4 == "[libds]" { print "0x" $1 }' "$ksyms")
[ -n "$want" ] || { echo "ko-symbols: wl_loop [libds] not in $ksyms (module not loaded, or not root)" >&2; exit 1; }
base=0xffffffffc0000000
ld_at $base
at=$(printf '0x%x' $(( want - ($(sym) - base) )))
ld_at "$at"
[ "$(printf '0x%x' $(sym))" = "$(printf '0x%x' $want)" ] || { echo "ko-symbols: wl_loop not at $want" >&2; exit 1; }
echo "$at"
