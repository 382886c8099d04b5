#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# ctest embed.config: the ds/config.h options.
#  1. every option turned off (with what it needs) compiles every source
#     warning-free, freestanding x86_64 and i686;
#  2. inconsistent settings stop the build (#error);
#  3. a user config header named by DS_CONFIG_HEADER is honoured;
#  4. DS_CONFIG_FORMAT=0: ds_caps_format returns DS_ERR_UNSUPPORTED with an
#     empty string (a host program built from the sources with that option).
# usage: config.sh <work dir> <libds dir>
set -euo pipefail
work=$1 libds=$2
rm -rf "$work" && mkdir -p "$work"
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok - $*"; }
bad() { fail=$((fail + 1)); echo "not ok - $*"; }
cc_all() { # <flags...>: compile every source, freestanding
  local s
  for s in "$libds"/src/*.c; do
    gcc -std=gnu11 -ffreestanding -mno-red-zone -mgeneral-regs-only -fno-stack-protector \
        -Wall -Wextra -Werror -I "$libds/include" "$@" -c "$s" -o "$work/x.o" || return 1
  done
}
for set in "-DDS_CONFIG_FORMAT=0" "-DDS_CONFIG_NETBURST=0" "-DDS_CONFIG_NETBURST_TABLES=0" \
           "-DDS_CONFIG_LBR=0" "-DDS_CONFIG_PMC=0" "-DDS_CONFIG_PMI=0" \
           "-DDS_CONFIG_BTS=0 -DDS_CONFIG_PEBS=0 -DDS_CONFIG_AREA=0" "-DDS_CONFIG_ASSERT=1"; do
  for m in "-m64" "-m32 -march=i686"; do
    # shellcheck disable=SC2086
    if cc_all $m $set; then ok "compiles with $set $m"; else bad "compiles with $set $m"; fi
  done
done
for set in "-DDS_CONFIG_AREA=0" "-DDS_CONFIG_PEBS=2" "-DDS_CONFIG_NETBURST=0 -DDS_CONFIG_NETBURST_TABLES=1"; do
  # shellcheck disable=SC2086
  if cc_all -m64 $set 2>"$work/err.txt"; then
    bad "rejects $set"
  elif grep -q 'libds: ' "$work/err.txt"; then
    ok "rejects $set"
  else
    bad "rejects $set with libds's own #error"; cat "$work/err.txt"
  fi
done
printf '#define DS_CONFIG_PEBS 7\n' > "$work/myconf.h"
if cc_all -m64 "-DDS_CONFIG_HEADER=\"$work/myconf.h\"" 2>/dev/null; then
  bad "DS_CONFIG_HEADER is included (PEBS=7 must be rejected)"
else
  ok "DS_CONFIG_HEADER is included (PEBS=7 rejected)"
fi
cat > "$work/fmt0.c" <<'EOC'
#include <ds/ds.h>
#include <stdio.h>
int main(void)
{
    struct ds_caps caps = {0};
    char buf[64] = "junk";
    int err = ds_caps_format(&caps, buf, sizeof(buf));
    printf("%s '%s'\n", ds_errname(err), buf);
    return !(err == DS_ERR_UNSUPPORTED && buf[0] == '\0');
}
EOC
if gcc -std=gnu11 -Wall -Wextra -Werror -DDS_HOSTED=1 -DDS_CONFIG_FORMAT=0 -I "$libds/include" \
       "$work/fmt0.c" "$libds"/src/*.c -o "$work/fmt0" && "$work/fmt0"; then
  ok "DS_CONFIG_FORMAT=0: ds_caps_format returns DS_ERR_UNSUPPORTED, empty string"
else
  bad "DS_CONFIG_FORMAT=0: ds_caps_format returns DS_ERR_UNSUPPORTED, empty string"
fi
cat > "$work/assert.c" <<'EOC'
#include <stdio.h>
static int fails; static const char *what;
__attribute__((unused)) static void on_fail(const char *e, const char *f, int l) { fails++; what = e; (void)f; (void)l; }
#define DS_CONFIG_ASSERT_FAIL(e, f, l) on_fail(e, f, l)
#include <ds/config.h>
int main(void)
{
    int x = 1;
    DS_ASSERT(x == 1);
    DS_ASSERT(x == 2);
    printf("fails %d (%s)\n", fails, what ? what : "");
#if DS_CONFIG_ASSERT
    return !(fails == 1 && what && what[0] == 'x');
#else
    return fails != 0;
#endif
}
EOC
for a in 0 1; do
  if gcc -std=gnu11 -Wall -Wextra -Werror -DDS_CONFIG_ASSERT=$a -I "$libds/include" "$work/assert.c" \
         -o "$work/assert$a" && "$work/assert$a"; then
    ok "DS_ASSERT with DS_CONFIG_ASSERT=$a"
  else
    bad "DS_ASSERT with DS_CONFIG_ASSERT=$a"
  fi
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
