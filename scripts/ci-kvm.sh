#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Run the libds test kernel in a CI job (issue 27 item 9): boot it under KVM
# with -cpu host where scripts/kvm-host.sh says KVM is usable, else under TCG
# (scripts/run.sh --tcg), write the kernel's checks as JUnit XML (dsdump
# --junit) and exit with the kernel's verdict.
# usage: scripts/ci-kvm.sh [--junit FILE] [run.sh options...]
#   --junit FILE   where the JUnit XML goes (default build/run/junit.xml)
# Environment as run.sh: LIBDS_BUILD_DIR, LIBDS_RUN_DIR.
# Exit status: run.sh's: 0 every check passed, 1 a check failed, 2 the kernel
# did not finish; 2 also when no JUnit file could be written.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
junit=${LIBDS_RUN_DIR:-${LIBDS_BUILD_DIR:-$here/build}/run}/junit.xml
args=()
while [ $# -gt 0 ]; do
  case $1 in
    --junit) junit=${2:?}; shift 2 ;;
    -h|--help) sed -n '3,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) args+=("$1"); shift ;;
  esac
done
if why=$("$here/scripts/kvm-host.sh"); then
  echo "ci-kvm.sh: KVM: $why"
else
  echo "ci-kvm.sh: no KVM ($why): TCG, the reference model's records"
  args=(--tcg "${args[@]}")
fi
"$here/scripts/run.sh" "${args[@]}"
rc=$?
b=${LIBDS_BUILD_DIR:-$here/build}  # as run.sh
log=${LIBDS_RUN_DIR:-$b/run}/serial.log
dsdump=$b/libds/tools/dsdump/dsdump
rm -f "$junit"
[ -s "$log" ] && "$dsdump" --junit "$junit" "$log" >/dev/null 2>&1  # exit 1 (log errors) still writes it
if [ ! -s "$junit" ]; then
  echo "ci-kvm.sh: no JUnit written (no serial log or dsdump missing)" >&2
  exit 2
fi
echo "ci-kvm.sh: JUnit: $junit (exit $rc)"
exit $rc
