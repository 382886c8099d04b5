#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Fail if a freestanding libds archive needs a symbol it does not define
# itself, other than what every kernel link provides. Allowed:
#   _GLOBAL_OFFSET_TABLE_  (i386 PIC code; defined by the linker, not a library)
# usage: scripts/check-undefined.sh libds_x86_64.a [libds_i386.a ...]
set -euo pipefail
status=0
for a in "$@"; do
  defined=$(nm --defined-only "$a" 2>/dev/null | awk 'NF==3 {print $3}' | sort -u)
  undef=$(nm -u "$a" 2>/dev/null | awk 'NF==2 {print $2}' | sort -u)
  missing=$(comm -23 <(echo "$undef") <(echo "$defined") | grep -vx '_GLOBAL_OFFSET_TABLE_' || true)
  if [ -n "$missing" ]; then
    echo "$a: undefined symbols a kernel may not provide:"; echo "$missing"; status=1
  else
    echo "$a: no external symbols needed (a _GLOBAL_OFFSET_TABLE_ reference, if any, is the linker's own)"
  fi
done
exit $status
