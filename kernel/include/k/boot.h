/* SPDX-License-Identifier: BSD-2-Clause */
/* Boot information from Multiboot2, Multiboot1 or PVH. */
#ifndef K_BOOT_H
#define K_BOOT_H

#include <stdint.h>
#include <stdbool.h>

#define K_BOOT_MAX_RAM 32
#define K_BOOT_MAX_RESV 24
struct k_mem_range {
    uint64_t base, end;       /* [base, end) */
};

struct k_boot_info {
    const char *protocol;     /* "multiboot2", "multiboot1", "pvh" */
    const char *cmdline;      /* "" if none */
    const char *loader;       /* boot loader name, "" if unknown */
    bool efi;                 /* booted from UEFI (EFI system table tag seen) */
    bool vga_text;            /* a VGA text mode is (believed to be) active */
    uint64_t mem_kib;         /* usable RAM above 1 MiB in KiB, 0 if unknown */
    /* Multiboot2 framebuffer info tag (type 8), RGB direct colour only;
     * fb_bpp = 0: none (or EGA text / indexed colour, which this kernel does
     * not draw on). */
    uint64_t fb_addr;
    uint32_t fb_pitch, fb_width, fb_height;
    uint8_t fb_bpp;
    uint8_t fb_rpos, fb_rsize, fb_gpos, fb_gsize, fb_bpos, fb_bsize;
    uintptr_t acpi_rsdp;      /* RSDP given by the loader (mb2 tag 15/14, PVH), 0 if none */
    const char *acpi_rsdp_src;
    uintptr_t info, info_size; /* the loader's information block (mb2: total_size), for overlap checks */
    /* Free RAM (memory map type 1: mb2 tag 6, mb1 mmap, PVH memmap; else
     * 1 MiB + mem_kib) for the boot allocator (k/mem.h), and what in it the
     * loader already used: the information block, modules, strings, the
     * map itself. ram_dropped: RAM entries beyond K_BOOT_MAX_RAM. */
    const char *mem_source;   /* "multiboot2 memory map", ..., "mem_upper", or "none" */
    struct k_mem_range ram[K_BOOT_MAX_RAM];
    unsigned nram, ram_dropped;
    struct k_mem_range resv[K_BOOT_MAX_RESV];
    unsigned nresv;
    bool resv_full;           /* a range was not recorded: the allocator refuses to run */
};

/* Parse the boot information; returns -1 for an unknown magic. */
int k_boot_parse(uint32_t magic, uintptr_t info, struct k_boot_info *out);

#endif
