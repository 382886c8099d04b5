#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Install the Debian packages the build and the tests need, if missing and if root.
set -euo pipefail
pkgs=(cmake ninja-build gcc gcc-multilib libc6-dev-i386 clang-14 lld-14 libfuzzer-14-dev libclang-rt-14-dev
      libelf-dev valgrind make pkg-config qemu-system-x86 grub-pc-bin grub-efi-amd64-bin grub-common xorriso mtools ovmf
      qemu-user python3 binutils linux-perf console-setup-linux
      bochs bochsbios vgabios bochs-term tesseract-ocr
      linux-headers-amd64 linux-image-amd64 busybox-static cpio kmod)  # the last line: libds.ko (tests/linux)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
  echo "deps.sh: missing packages: ${missing[*]}" >&2
  echo "deps.sh: run as root, or: sudo apt-get install ${missing[*]}" >&2
  exit 1
fi
echo "deps.sh: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}"
