#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# ctest config.<name>: what one ds/config.h setting removes, and that what it
# removes answers DS_ERR_UNSUPPORTED.
#  1. libds built freestanding for i386 (-m32 -march=i686 -fno-pic) and x86_64
#     (-m64 -fpie), -O2, -Wall -Wextra -Werror, as the installed libraries are
#     built: once with the defaults, once with the setting;
#  2. `size` (text + data, text including .rodata) of the archive must shrink;
#     the figures are printed;
#  3. markers of the disabled facilities (table symbols, table strings, MSR
#     calls from the facility's object) must be present in the default build
#     and absent from this one (so each check can fail);
#  4. tests/config/unsupported.c, built on the host with the setting and the
#     libds sources, calls every disabled entry point (DS_ERR_UNSUPPORTED,
#     outputs cleared, no MSR touched) and checks what stays still works.
# The default archives are built once, by config.default (a ctest fixture),
# into <shared dir>; every other setting compares against them.
# usage: config.sh <shared dir> <libds dir> <tests/config dir> <tests/host dir> <name> [-DDS_CONFIG_X=0 ...]
set -euo pipefail
shared=$1 libds=$2 tdir=$3 hdir=$4 name=$5
shift 5
defs=("$@")
work=$shared/$name
rm -rf "$work" && mkdir -p "$work"
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok - $*"; }
bad() { fail=$((fail + 1)); echo "not ok - $*"; }

ccinc=$(gcc -print-file-name=include)
build() { # <outdir> <arch> <defs...>: freestanding archive <outdir>/libds.a
  local out=$1 arch=$2 m s
  shift 2
  if [ "$arch" = i386 ]; then m=(-m32 -march=i686 -fno-pic); else m=(-m64 -fpie); fi
  mkdir -p "$out"
  for s in "$libds"/src/*.c; do
    gcc -std=gnu11 -O2 "${m[@]}" -ffreestanding -mno-red-zone -mgeneral-regs-only -fno-stack-protector \
        -fno-builtin -nostdinc -isystem "$ccinc" -Wall -Wextra -Werror -I "$libds/include" "$@" \
        -c "$s" -o "$out/$(basename "${s%.c}").o" || return 1
  done
  ar rcs "$out/libds.a" "$out"/*.o
}
textdata() { # <archive>: text + data (Berkeley size: .rodata counts as text)
  size -t "$1" | tail -1 | awk '{ print $1 + $2 }'
}

# What each option removes: markers that must disappear. Kinds:
#   sym:NAME       a symbol (any kind, local included) defined in the archive
#   str:TEXT       a string in the archive's bytes
#   call:OBJ:SYM   object OBJ references SYM (the facility's code calls it)
markers_for() {
  case $1 in
    DS_CONFIG_FORMAT=0) echo "sym:ds__sb_init sym:ds__sb_dec str:perf_caps.pebs_format str:prior~value~NOT~restored" ;;
    DS_CONFIG_NETBURST_TABLES=0) echo "sym:escrs sym:events sym:counters sym:m_tc_deliver_mode str:MSR_IQ_ESCR0 str:tc_deliver_mode str:MSR_MS_COUNTER0" ;;
    DS_CONFIG_NETBURST=0) echo "$(markers_for DS_CONFIG_NETBURST_TABLES=0) sym:metrics str:1stL_cache_load_miss_retired str:NetBurst~(early) call:netburst.o:ds_msr_write call:netburst.o:ds_msr_read" ;;
    DS_CONFIG_LBR=0) echo "sym:models str:Diamond~Rapids str:Knights~Mill call:lbr.o:ds_msr_read call:lbr.o:ds_msr_write" ;;
    DS_CONFIG_PMC=0) echo "call:pmc.o:ds_msr_write call:pmc.o:ds_msr_read call:pmc_pebs.o:ds_msr_write" ;;
    DS_CONFIG_PMI=0) echo "call:pmi.o:ds_msr_read call:pmi.o:ds_msr_write call:pmi.o:ds__pebs_drain_adaptive call:pmi.o:ds__pebs_drain_fixed call:pmi.o:ds__bts_drain_add" ;;
    DS_CONFIG_PEBS=0) echo "sym:ds__pebs_drain_add call:area_setup.o:ds_pebs_format_select call:pmi.o:ds__pebs_drain_adaptive call:pmi.o:ds__pebs_drain_fixed call:pmc_pebs.o:ds_msr_write" ;;
    DS_CONFIG_BTS=0) echo "call:bts.o:ds_msr_write call:bts.o:ds__drain_span call:pmi.o:ds__bts_drain_add call:probe.o:ds_bts_enable" ;;
    DS_CONFIG_AREA=0) echo "call:area_setup.o:ds_linear_canonical sym:ds__drain_span call:area.o:ds_msr_write" ;;
    *) echo "" ;;
  esac
}
has_marker() { # <dir> <marker>; in str: markers '~' stands for a space
  local dir=$1 m=$2 kind rest obj sym
  kind=${m%%:*} rest=${m#*:}
  case $kind in
    # awk reads nm's whole output: with pipefail, an early-exiting grep -q
    # made nm die of SIGPIPE once the archive's symbol list outgrew the pipe
    # buffer, and a present marker read as absent (config.all_off flaked)
    sym) nm "$dir/libds.a" 2>/dev/null |
           awk -v s="$rest" 'NF == 3 && $2 !~ /^[Uw]$/ && $3 == s { f = 1 } END { exit !f }' ;;
    str) grep -aqF "${rest//\~/ }" "$dir/libds.a" ;;
    call)
      obj=${rest%%:*} sym=${rest#*:}
      nm -u "$dir/$obj" 2>/dev/null | awk -v s="$sym" '$NF == s { f = 1 } END { exit !f }' ;;
  esac
}

markers=""
for d in "${defs[@]}"; do
  markers="$markers $(markers_for "${d#-D}")"
done

echo "# config.$name: ${defs[*]:-(defaults)}"
for arch in i386 x86_64; do
  def=$shared/default-$arch
  if [ "$name" = default ]; then
    rm -rf "$def"
    if build "$def" "$arch"; then
      ok "$arch: default build; text+data $(textdata "$def/libds.a") bytes"
    else
      bad "$arch: default build"
    fi
    continue
  fi
  if [ ! -f "$def/libds.a" ]; then
    bad "$arch: default archive missing (run config.default first)"
    continue
  fi
  if build "$work/cfg-$arch" "$arch" "${defs[@]}"; then
    ok "$arch: builds freestanding, -Werror, with ${defs[*]}"
  else
    bad "$arch: builds freestanding, -Werror, with ${defs[*]}"
    continue
  fi
  full=$(textdata "$def/libds.a")
  cut=$(textdata "$work/cfg-$arch/libds.a")
  echo "# size $arch: default text+data $full bytes, $name $cut bytes ($((full - cut)) bytes, $(( (full - cut) * 100 / full ))% less)"
  if [ "$cut" -lt "$full" ]; then
    ok "$arch: text+data shrinks ($full -> $cut)"
  else
    bad "$arch: text+data shrinks ($full -> $cut)"
  fi
  for m in $markers; do
    if ! has_marker "$def" "$m"; then
      bad "$arch: marker $m present in the default build (the check would prove nothing)"
    elif has_marker "$work/cfg-$arch" "$m"; then
      bad "$arch: $m removed"
    else
      ok "$arch: $m removed"
    fi
  done
  # Nothing new is needed from the kernel: same undefined symbols or fewer.
  extra=$(comm -13 <(nm -u "$def/libds.a" | awk '{print $NF}' | sort -u) \
                   <(nm -u "$work/cfg-$arch/libds.a" | awk '{print $NF}' | sort -u) | \
          grep -vxF -f <(nm "$work/cfg-$arch/libds.a" | awk '$2 ~ /^[TDRB]$/ {print $3}' | sort -u) || true)
  if [ -z "$extra" ]; then
    ok "$arch: no new external symbol"
  else
    bad "$arch: new external symbols: $extra"
  fi
done

# The entry points of the disabled facilities, on the host.
if gcc -std=gnu11 -g -O1 -Wall -Wextra -Werror -DDS_HOSTED=1 "${defs[@]}" -I "$libds/include" -I "$hdir" \
       "$tdir/unsupported.c" "$libds"/src/*.c -o "$work/unsupported" 2>"$work/cc.txt"; then
  if "$work/unsupported" >"$work/unsupported.txt" 2>&1; then
    ok "host program: $(tail -1 "$work/unsupported.txt")"
  else
    grep -v '^ok' "$work/unsupported.txt" || true
    bad "host program: $(tail -1 "$work/unsupported.txt")"
  fi
else
  cat "$work/cc.txt"
  bad "host program builds with ${defs[*]}"
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
