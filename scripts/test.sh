#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Build everything and run every test (ctest). Usable from any directory.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
case "${1:-}" in
  -h|--help)
    cat <<EOT
usage: scripts/test.sh [--help] [ctest arguments...]
Installs missing Debian packages (when root), configures and builds everything
in build/ (host library and tests, both freestanding libraries, both test
kernels, the ISOs, the model, the tools), and runs every test with ctest.
Labels: host (libds unit tests), model (reference model, libds end to end,
soak), fuzz, boot (QEMU boot matrix), e2e (kernel PEBS/BTS/LBR flows, dsdump
on the log), embed, config, step, dsdump, tools. Extra arguments go to ctest,
e.g. scripts/test.sh -L boot   or   scripts/test.sh -R x86_64.uefi
EOT
    exit 0 ;;
esac
"$here/scripts/deps.sh"
cmake -S "$here" -B "$here/build" -G Ninja
cmake --build "$here/build"
cd "$here/build"
ctest --output-on-failure "$@"
