#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# ctest embed.snippets: every line of every code block in README.md's
# "Using libds in your kernel" section and in docs/porting.md sections 1, 9
# (sessions: tests/embed/porting/pmi_kernel.c) and 10 (the model) must
# appear verbatim in the test files that exercise it, so the documented
# snippets are the tested ones.
# usage: snippets.sh <repo root>
set -euo pipefail
root=$1
tests=("$root/tests/embed/kernel.sh" "$root/tests/embed/kernel/CMakeLists.txt"
       "$root/tests/embed/subdir/CMakeLists.txt" "$root/tests/embed/make/Makefile"
       "$root/tests/embed/kernel/sample.c" "$root/tests/embed/porting/pmi_kernel.c"
       "$root/model/CMakeLists.txt" "$root/tests/model/tests/e2e_model_mem.c")
extract() { # <file> <start heading regex> : code lines of that section
  awk -v start="$2" '
    $0 ~ start { insec = 1; next }
    insec && !code && /^##? / { insec = 0 }
    insec && /^```/ { code = !code; if (code) nblk++; next }
    insec && code && NF { print }
    END { if (nblk < 4) { print "too few code blocks: " nblk > "/dev/stderr"; exit 1 } }' "$1"
}
fail=0 n=0
check() { # <doc> <heading>
  local lines
  lines=$(extract "$1" "$2") || { echo "FAIL: $1: section '$2' missing or short"; fail=$((fail + 1)); return; }
  while IFS= read -r line; do
    n=$((n + 1))
    if ! grep -qxF -- "$line" "${tests[@]}"; then
      echo "FAIL: $1: snippet line not in any test file: $line"; fail=$((fail + 1))
    fi
  done <<<"$lines"
}
# Every compile line of a documented snippet passes the flags the text says
# libds needs (README and porting.md: "-ffreestanding -mno-red-zone
# -mgeneral-regs-only"); the plain-Make snippet once lacked -ffreestanding.
flags() { # <doc> <heading>
  local line f
  while IFS= read -r line; do
    case "$line" in *'$(CC)'*' -c '*) ;; *) continue ;; esac
    n=$((n + 1))
    for f in -ffreestanding -mno-red-zone -mgeneral-regs-only; do
      case " $line " in *" $f "*) ;; *) echo "FAIL: $1: compile line lacks $f: $line"; fail=$((fail + 1)) ;; esac
    done
  done < <(extract "$1" "$2")
}
check "$root/README.md" '^## Using libds in your kernel'
check "$root/docs/porting.md" '^## 1\. Getting libds into your build'
check "$root/docs/porting.md" '^## 9\. Sessions in your kernel'
check "$root/docs/porting.md" '^## 10\. The reference model as an emulated Intel PMU'
flags "$root/README.md" '^## Using libds in your kernel'
flags "$root/docs/porting.md" '^## 1\. Getting libds into your build'
flags "$root/docs/porting.md" '^## 10\. The reference model as an emulated Intel PMU'
# The porting example is what porters copy (issue 29): the LVT PC entry's
# value, mask, xAPIC offset and x2APIC MSR come from the installed ds/lvt.h,
# in pmi_kernel.c and in porting.md section 9's blocks alike; neither
# defines LVT values of its own (pmi_kernel.c once had LVT_PC_XAPIC,
# LVT_PC_X2APIC, LVT_MASKED and LVT_DM_NMI).
ex="$root/tests/embed/porting/pmi_kernel.c"
sec9=$(extract "$root/docs/porting.md" '^## 9\. Sessions in your kernel' || true)
for src in "$ex" "porting.md section 9"; do
  if [ "$src" = "$ex" ]; then text=$(cat "$ex"); else text=$sec9; fi
  n=$((n + 1))
  own=$(printf '%s\n' "$text" | grep -E '#define +[A-Z0-9_]*LVT|(^|[^A-Za-z0-9_])LVT_[A-Z0-9_]+' || true)
  [ -z "$own" ] || { echo "FAIL: $src: LVT values of its own, not ds/lvt.h's: $own"; fail=$((fail + 1)); }
  for sym in ds_lvt_pc_value DS_LVT_PC_MASKED DS_LVT_PC_XAPIC_OFFSET DS_MSR_IA32_X2APIC_LVT_PMI; do
    n=$((n + 1))
    case "$text" in *"$sym"*) ;; *) echo "FAIL: $src: does not use $sym (ds/lvt.h)"; fail=$((fail + 1)) ;; esac
  done
done
# README "### Kernel options": one row per option (three conflicting
# profile= rows once), and the profile= row names every profile the kernel
# accepts (kernel/e2e/e2e.c profiles[]) and both default lists exactly.
opts() { awk '/^### Kernel options/ { t = 1; next } t && /^#/ { t = 0 } t && /^\| `/' "$root/README.md"; }
dups=$(opts | cut -d'|' -f2 | sort | uniq -d)
n=$((n + 1))
[ -z "$dups" ] || { echo "FAIL: README kernel options: rows repeated:$dups"; fail=$((fail + 1)); }
prow=$(opts | grep '^| `profile=')
# (kernel/e2e/profile.c since the e2e.c split: this check read e2e.c, which
# then had no profile, and passed on nothing; its sed also kept one name of
# each line with two; the counts below refuse that)
e2e="$root/kernel/e2e/profile.c"
np=0 nd=0
for p in $(grep -o '{"[a-z0-9_]*", DSM_[A-Z0-9_]*}' "$e2e" | cut -d'"' -f2 | sort -u); do
  n=$((n + 1)) np=$((np + 1))
  case "$prow" in *"\`$p\`"*) ;; *) echo "FAIL: README profile= row lacks $p (profile.c profiles[])"; fail=$((fail + 1)) ;; esac
done
while IFS= read -r d; do
  n=$((n + 1)) nd=$((nd + 1))
  list=$(printf '%s' "$d" | grep -o '"[a-z0-9_]*"' | tr -d '"' | paste -sd, -)
  case "$prow" in *": $list;"*|*": $list)"*) ;; *) echo "FAIL: README profile= row lacks the default list $list"; fail=$((fail + 1)) ;; esac
done < <(awk '/default_profiles\[\] = \{/ { d = 1; l = "" } d { l = l $0 } d && /\};/ { print l; d = 0 }' "$e2e")
n=$((n + 1))
[ "$np" -ge 18 ] && [ "$nd" -eq 2 ] ||
  { echo "FAIL: $e2e: $np profiles and $nd default lists found (want the profiles[] table and 2 lists)"; fail=$((fail + 1)); }
# Every public header is named in porting.md's list and design.md's Layout
# (both once omitted session.h, event.h and arch_pebs.h).
for h in "$root"/libds/include/ds/*.h; do
  h=$(basename "$h")
  for doc in "$root/docs/porting.md:^What is in libds" "$root/docs/design.md:^## Layout"; do
    n=$((n + 1))
    # grep reads to the end (not -q): an early exit would kill awk with
    # SIGPIPE once the paragraph outgrows awk's 4 KiB buffer (pipefail).
    awk -v start="${doc#*:}" '$0 ~ start { p = 1 } p && /^$/ { exit } p' "${doc%%:*}" | grep -F "\`$h\`" >/dev/null ||
      { echo "FAIL: ${doc%%:*}: header list lacks $h"; fail=$((fail + 1)); }
  done
done
echo "$n lines checked, $fail failed"
[ "$fail" -eq 0 ]
