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

static void add_ram(struct k_boot_info *o, uint64_t base, uint64_t len)
{
    if (!len)
        return;
    if (o->nram >= K_BOOT_MAX_RAM) {
        o->ram_dropped++;
        return;
    }
    o->ram[o->nram++] = (struct k_mem_range){ base, base + len };
}

static void add_resv(struct k_boot_info *o, uint64_t base, uint64_t len)
{
    if (!len)
        return;
    if (o->nresv >= K_BOOT_MAX_RESV) {
        o->resv_full = true;
        return;
    }
    o->resv[o->nresv++] = (struct k_mem_range){ base, base + len };
}

static void resv_str(struct k_boot_info *o, uintptr_t s)
{
    uintptr_t n = 0;
    while (s && n < 65536 && rd8(s + n))
        n++;
    if (s)
        add_resv(o, s, n + 1);
}

/* Multiboot2 "Memory map" tag: entry_size @8, entries from @16: base_addr
 * u64, length u64, type u32 (1 = available RAM). */
static void parse_mb2_mmap(uintptr_t t, uint32_t size, struct k_boot_info *o)
{
    uint32_t esz = rd32(t + 8);
    if (esz < 24)
        return;
    o->mem_source = "multiboot2 memory map";
    for (uintptr_t e = t + 16; e + esz <= t + size; e += esz)
        if (rd32(e + 16) == 1)
            add_ram(o, rd64(e), rd64(e + 8));
}

/* Multiboot 0.6.96 mmap (flags bit 6): entries of size u32 @0 (not counting
 * itself), base_addr u64 @4, length u64 @12, type u32 @20; modules (bit 3):
 * mods_count @20, mods_addr @24, 16 bytes each (mod_start, mod_end, string). */
static void parse_mb1_mem(uintptr_t info, uint32_t flags, struct k_boot_info *o)
{
    if (flags & (1u << 6)) {
        uintptr_t a = rd32(info + 48), len = rd32(info + 44);
        o->mem_source = "multiboot1 memory map";
        add_resv(o, a, len);
        for (uintptr_t e = a; e + 24 <= a + len; e += rd32(e) + 4)
            if (rd32(e + 20) == 1)
                add_ram(o, rd64(e + 4), rd64(e + 12));
    }
    if (flags & (1u << 3)) {
        uintptr_t m = rd32(info + 24);
        uint32_t n = rd32(info + 20);
        add_resv(o, m, (uint64_t)n * 16);
        for (uint32_t i = 0; i < n && i < 64; i++) {
            add_resv(o, rd32(m + i * 16), rd32(m + i * 16 + 4) - rd32(m + i * 16));
            resv_str(o, rd32(m + i * 16 + 8));
        }
    }
}

/* PVH start info version >= 1: memmap_paddr u64 @40, memmap_entries u32 @48,
 * 24 bytes each (addr u64, size u64, type u32); modlist_paddr u64 @16,
 * nr_modules u32 @12, 32 bytes each (paddr u64, size u64, cmdline u64). */
static void parse_pvh_mem(uintptr_t info, struct k_boot_info *o)
{
    uint64_t mods = rd64(info + 16);
    uint32_t nmods = rd32(info + 12);
    if (mods && mods < (1ull << 32)) {
        add_resv(o, mods, (uint64_t)nmods * 32);
        for (uint32_t i = 0; i < nmods && i < 64; i++)
            add_resv(o, rd64((uintptr_t)mods + i * 32), rd64((uintptr_t)mods + i * 32 + 8));
    }
    if (rd32(info + 4) < 1)
        return;
    uint64_t map = rd64(info + 40);
    uint32_t n = rd32(info + 48);
    if (!map || map >= (1ull << 32))
        return;
    o->mem_source = "PVH memory map";
    add_resv(o, map, (uint64_t)n * 24);
    for (uint32_t i = 0; i < n; i++)
        if (rd32((uintptr_t)map + i * 24 + 16) == 1)
            add_ram(o, rd64((uintptr_t)map + i * 24), rd64((uintptr_t)map + i * 24 + 8));
}

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
        case 6: /* memory map */
            parse_mb2_mmap(t, size, o);
            break;
        case 3: /* module: mod_start @8, mod_end @12 */
            add_resv(o, rd32(t + 8), rd32(t + 12) - rd32(t + 8));
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

static int parse_info(uint32_t magic, uintptr_t info, struct k_boot_info *o);

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
    o->mem_source = "none";
    o->nram = o->ram_dropped = o->nresv = 0;
    o->resv_full = false;
    add_resv(o, info, o->info_size);
    int r = parse_info(magic, info, o);
    if (!o->nram && o->mem_kib) {
        o->mem_source = "mem_upper (no memory map)";
        add_ram(o, 1u << 20, o->mem_kib * 1024);
    }
    return r;
}

static int parse_info(uint32_t magic, uintptr_t info, struct k_boot_info *o)
{
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
        resv_str(o, flags & (1u << 2) ? (uintptr_t)o->cmdline : 0);
        resv_str(o, flags & (1u << 9) ? (uintptr_t)o->loader : 0);
        parse_mb1_mem(info, flags, o);
        return 0;
    }
    if (magic == PVH_START_MAGIC && rd32(info) == PVH_START_MAGIC) {
        o->protocol = "pvh";
        uint64_t cl = rd64(info + 24);
        if (cl && cl < (1ull << 32)) {
            o->cmdline = (const char *)(uintptr_t)cl;
            resv_str(o, (uintptr_t)cl);
        }
        parse_pvh_mem(info, o);
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
