/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Boot information parsing: Multiboot2 ("Boot information format"),
 * Multiboot 0.6.96 ("Boot information format"), Xen PVH (struct
 * hvm_start_info). All addresses are below 4 GiB and identity-mapped.
 */
#include <k/boot.h>
#include <stddef.h>

#define MB1_BOOT_MAGIC  0x2BADB002u
#define MB2_BOOT_MAGIC  0x36D76289u
#define PVH_START_MAGIC 0x336EC578u

static inline uint32_t rd32(uintptr_t a) { return *(const volatile uint32_t *)a; }
static inline uint64_t rd64(uintptr_t a) { return (uint64_t)rd32(a) | (uint64_t)rd32(a + 4) << 32; }
static inline uint8_t rd8(uintptr_t a) { return *(const volatile uint8_t *)a; }

/* Multiboot2 "Framebuffer info" tag: addr u64 @8, pitch @16, width @20,
 * height @24, bpp u8 @28, type u8 @29 (1 = RGB direct colour), then for RGB
 * the red/green/blue field positions and mask sizes (u8 each) from @32. */
static void parse_fb(uintptr_t t, struct k_boot_info *o)
{
    uint8_t bpp = rd8(t + 28);
    if (rd8(t + 29) != 1 || (bpp != 32 && bpp != 24 && bpp != 16))
        return;
    uint64_t addr = rd64(t + 8);
    uint32_t pitch = rd32(t + 16), w = rd32(t + 20), h = rd32(t + 24);
    if (!w || !h || pitch < w * (bpp / 8u) || addr + (uint64_t)pitch * h > (1ull << 32))
        return; /* the kernels identity-map the first 4 GiB only */
    o->fb_addr = addr, o->fb_pitch = pitch, o->fb_width = w, o->fb_height = h, o->fb_bpp = bpp;
    o->fb_rpos = rd8(t + 32), o->fb_rsize = rd8(t + 33);
    o->fb_gpos = rd8(t + 34), o->fb_gsize = rd8(t + 35);
    o->fb_bpos = rd8(t + 36), o->fb_bsize = rd8(t + 37);
}

static void parse_mb2(uintptr_t info, struct k_boot_info *o)
{
    uint32_t total = rd32(info);
    bool fb_graphics = false, fb_seen = false;
    uintptr_t end = info + total;
    for (uintptr_t t = info + 8; t + 8 <= end;) {
        uint32_t type = rd32(t), size = rd32(t + 4);
        if (type == 0 || size < 8)
            break;
        switch (type) {
        case 1: /* boot command line */
            o->cmdline = (const char *)(t + 8);
            break;
        case 2: /* boot loader name */
            o->loader = (const char *)(t + 8);
            break;
        case 4: /* basic memory information: mem_upper in KiB above 1 MiB */
            o->mem_kib = rd32(t + 12);
            break;
        case 8: /* framebuffer info; framebuffer_type at +29: 2 = EGA text */
            fb_seen = true;
            fb_graphics = rd8(t + 29) != 2;
            parse_fb(t, o);
            break;
        case 14: /* ACPI old RSDP (copy at +8); a tag 15 wins */
            if (!o->acpi_rsdp) {
                o->acpi_rsdp = t + 8;
                o->acpi_rsdp_src = "multiboot2 ACPI old";
            }
            break;
        case 15: /* ACPI new RSDP (copy at +8) */
            o->acpi_rsdp = t + 8;
            o->acpi_rsdp_src = "multiboot2 ACPI new";
            break;
        case 11: /* EFI 32-bit system table pointer */
        case 12: /* EFI 64-bit system table pointer */
            o->efi = true;
            break;
        }
        t += (size + 7) & ~7u;
    }
    o->vga_text = fb_seen ? !fb_graphics : !o->efi;
}

int k_boot_parse(uint32_t magic, uintptr_t info, struct k_boot_info *o)
{
    o->protocol = "unknown";
    o->cmdline = "";
    o->loader = "";
    o->efi = false;
    o->vga_text = true;
    o->mem_kib = 0;
    o->fb_bpp = 0;
    o->acpi_rsdp = 0;
    o->acpi_rsdp_src = NULL;
    o->info = info;
    o->info_size = magic == MB2_BOOT_MAGIC ? rd32(info) : 128; /* mb1 info is 116 bytes, PVH start info < 128 */
    if (magic == MB2_BOOT_MAGIC) {
        o->protocol = "multiboot2";
        parse_mb2(info, o);
        return 0;
    }
    if (magic == MB1_BOOT_MAGIC) {
        uint32_t flags = rd32(info);
        o->protocol = "multiboot1";
        if (flags & 1)
            o->mem_kib = rd32(info + 8);
        if (flags & (1u << 2))
            o->cmdline = (const char *)(uintptr_t)rd32(info + 16);
        if (flags & (1u << 9))
            o->loader = (const char *)(uintptr_t)rd32(info + 64);
        return 0;
    }
    if (magic == PVH_START_MAGIC && rd32(info) == PVH_START_MAGIC) {
        o->protocol = "pvh";
        uint64_t cl = rd64(info + 24);
        if (cl && cl < (1ull << 32))
            o->cmdline = (const char *)(uintptr_t)cl;
        o->loader = "PVH";
        uint64_t rsdp = rd32(info + 4) >= 1 ? rd64(info + 32) : 0; /* rsdp_paddr, version >= 1 */
        if (rsdp && rsdp < (1ull << 32)) {
            o->acpi_rsdp = (uintptr_t)rsdp;
            o->acpi_rsdp_src = "PVH";
        }
        return 0;
    }
    return -1;
}
