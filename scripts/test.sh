#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Build everything and run every test (ctest). Usable from any directory.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
case "${1:-}" in
  -h|--help)
    cat <<EOT
usage: scripts/test.sh [--help]
Installs missing Debian packages (when root), configures and builds everything
in build/, and runs every test with ctest.
EOT
    exit 0 ;;
esac
"$here/scripts/deps.sh"
cmake -S "$here" -B "$here/build" -G Ninja
cmake --build "$here/build"
cd "$here/build"
ctest --output-on-failure
