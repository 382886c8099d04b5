#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# mkiso.sh OUT.iso I386.elf X86_64.elf DEFAULT(i386|x86_64) TIMEOUT [KERNEL OPTIONS] [UEFI WIDTHxHEIGHT]
# Builds a hybrid GRUB image (BIOS i386-pc and UEFI x86_64-efi, El Torito
# and a GPT/MBR hybrid usable on a USB stick) holding both kernels, trimmed
# to the modules it needs, xz-compressed, no locales/fonts/themes.
set -euo pipefail
out=$1 k32=$2 k64=$3 default=$4 timeout=$5 args=${6:-} gfx=${7:-}
case $gfx in ''|[0-9]*x[0-9]*) ;; *) echo "mkiso.sh: bad WIDTHxHEIGHT $gfx" >&2; exit 1 ;; esac
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
for p in i386-pc x86_64-efi; do
  [ -d "/usr/lib/grub/$p" ] || { echo "mkiso.sh: /usr/lib/grub/$p missing (install grub-pc-bin grub-efi-amd64-bin)" >&2; exit 1; }
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/libds-iso.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/root/boot/grub"
cp "$k32" "$tmp/root/boot/libds-i386.elf"
cp "$k64" "$tmp/root/boot/libds-x86_64.elf"
case $default in x86_64) d=0 ;; i386) d=1 ;; *) echo "mkiso.sh: bad default $default" >&2; exit 1 ;; esac
sed -e "s/@TIMEOUT@/$timeout/" -e "s/@DEFAULT@/$d/" -e "s|@ARGS@|$args|" -e "s/@GFX@/$gfx/" "$here/grub.cfg.in" > "$tmp/root/boot/grub/grub.cfg"
# GRUB's EFI image loads every partition-map module at start: keep them
# (tiny) so it does not print "file not found" for each.
mods="normal multiboot2 boot iso9660 fat serial terminal echo configfile test search search_fs_uuid search_label all_video"
mods="$mods part_msdos part_gpt part_acorn part_amiga part_apple part_bsd part_dfly part_dvh part_plan part_sun part_sunpc"
grub-mkrescue -o "$out.tmp" --compress=xz --locales= --fonts= --themes= \
  --install-modules="$mods" \
  "$tmp/root" >"$tmp/log" 2>&1 || { cat "$tmp/log" >&2; exit 1; }
mv "$out.tmp" "$out"
