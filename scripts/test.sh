#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Build everything and run every test (ctest). Usable from any directory.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
case "${1:-}" in
  -h|--help)
    cat <<EOT
usage: scripts/test.sh [--help] [--quick] [ctest arguments...]
Installs missing Debian packages (when root), configures and builds everything
in build/ (host library and tests, both freestanding libraries, both test
kernels, the ISOs, the model, the tools), and runs every test with ctest.
Labels: host (libds unit tests), model (reference model, libds end to end,
soak), fuzz, boot (QEMU boot matrix), e2e (kernel PEBS/BTS/LBR flows, dsdump
on the log), embed, config, step, dsdump, tools. Extra arguments go to ctest,
e.g. scripts/test.sh -L boot   or   scripts/test.sh -R x86_64.uefi
Tests run in parallel, one per core (set CTEST_PARALLEL_LEVEL to change).

--quick  the edit-test loop (aim: under 90 s on two cores once built): host,
         model, tools, dsdump, the fuzz smoke run and one direct boot per
         kernel. Run the full suite before you push (CI does).
EOT
    exit 0 ;;
esac
quick=()
if [ "${1:-}" = --quick ]; then
  shift
  quick=(-R '^(host|model|tools|dsdump|fuzz)[.]|^boot[.](i386|x86_64)[.]kernel$')
fi
"$here/scripts/deps.sh"
cmake -S "$here" -B "$here/build" -G Ninja
cmake --build "$here/build"
cd "$here/build"
ctest --output-on-failure -j "${CTEST_PARALLEL_LEVEL:-$(nproc)}" "${quick[@]}" "$@"
