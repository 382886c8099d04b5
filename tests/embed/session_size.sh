#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# ctest embed.session_size (issue 29 item 3): sizeof(struct ds_session) as
# session.h states it ("... is N bytes (i386) / M (x86_64)") is what the
# compiler makes of the installed header on both ABIs, and docs/porting.md
# (sections 9 and 11) and the porting example give the same figures.
# usage: session_size.sh <repo root> <include dir> <cc>
set -euo pipefail
root=$1 inc=$2 cc=$3
fail=0
hdr=$(tr '\n' ' ' < "$root/libds/include/ds/session.h" | sed 's/ \* / /g; s/  */ /g')
read -r n32 n64 < <(printf '%s\n' "$hdr" |
  sed -n 's/.*sizeof(struct ds_session) is \([0-9]*\) bytes (i386) \/ \([0-9]*\) (x86_64).*/\1 \2/p')
[ -n "${n32:-}" ] && [ -n "${n64:-}" ] || { echo "FAIL: session.h states no sizeof(struct ds_session)"; exit 1; }
for v in "i386 -m32 $n32" "x86_64 -m64 $n64"; do
  set -- $v
  if printf '#include <ds/session.h>\n_Static_assert(sizeof(struct ds_session) == %s, "size");\n' "$3" |
     "$cc" "$2" -ffreestanding -fsyntax-only -I"$inc" -x c -; then
    echo "ok $1: sizeof(struct ds_session) == $3"
  else
    real=$(printf '#include <ds/session.h>\nchar (*x)[sizeof(struct ds_session)] = 1;\n' |
           "$cc" "$2" -ffreestanding -fsyntax-only -I"$inc" -x c - 2>&1 | grep -o 'char (\*)\[[0-9]*\]' | head -1)
    echo "FAIL $1: session.h says $3, the compiler: $real"; fail=$((fail + 1))
  fi
done
doc=$(tr '\n' ' ' < "$root/docs/porting.md" | sed 's/  */ /g')
for want in "\`struct ds_session\` is $n32 bytes on i386 and $n64 on x86_64" \
            "**Size of \`struct ds_session\`:** $n32 bytes (i386), $n64 (x86_64)" \
            "i386 $n32, x86_64 $n64 bytes: not on a stack"; do
  case "$doc" in *"$want"*) echo "ok porting.md: $want" ;; *) echo "FAIL porting.md lacks: $want"; fail=$((fail + 1)) ;; esac
done
grep -qF "i386 $n32, x86_64 $n64 bytes: not on a stack" "$root/tests/embed/porting/pmi_kernel.c" ||
  { echo "FAIL pmi_kernel.c: not the session.h figures"; fail=$((fail + 1)); }
[ "$fail" -eq 0 ]
