/* SPDX-License-Identifier: BSD-2-Clause */
/* MADT CPU enumeration. See k/acpi.h; ACPI 6.5 sections 5.2.5 (RSDP),
 * 5.2.7/5.2.8 (RSDT/XSDT), 5.2.12 (MADT), 5.2.12.2 (type 0), 5.2.12.12 (type 9). */
#include <k/acpi.h>
#include <k/string.h>
#include <stddef.h>

/* The barrier hides constant low addresses (0x40E) from GCC's -Warray-bounds. */
static inline uint8_t rd8(uintptr_t a)
{
    __asm__("" : "+r"(a));
    return *(const volatile uint8_t *)a;
}
static inline uint32_t rd32(uintptr_t a)
{
    return (uint32_t)rd8(a) | (uint32_t)rd8(a + 1) << 8 | (uint32_t)rd8(a + 2) << 16 | (uint32_t)rd8(a + 3) << 24;
}
static inline uint64_t rd64(uintptr_t a) { return (uint64_t)rd32(a) | (uint64_t)rd32(a + 4) << 32; }

static bool sum_ok(uintptr_t a, uint32_t len)
{
    uint8_t s = 0;
    for (uint32_t i = 0; i < len; i++)
        s = (uint8_t)(s + rd8(a + i));
    return s == 0;
}

static bool sig_is(uintptr_t a, const char *sig, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        if (rd8(a + i) != (uint8_t)sig[i])
            return false;
    return true;
}

/* RSDP: "RSD PTR ", checksum over the first 20 bytes (ACPI 1.0 part). */
static bool rsdp_ok(uintptr_t a) { return sig_is(a, "RSD PTR ", 8) && sum_ok(a, 20); }

static uintptr_t scan(uintptr_t from, uintptr_t len)
{
    for (uintptr_t a = from; a + 20 <= from + len; a += 16)
        if (rsdp_ok(a))
            return a;
    return 0;
}

/* ACPI 5.2.5.1: the EBDA's first KiB (segment at 40:0EH), then the BIOS
 * read-only area 0xE0000-0xFFFFF. */
static uintptr_t bios_search(void)
{
    uintptr_t ebda = (uintptr_t)(rd8(0x40E) | rd8(0x40F) << 8) << 4;
    uintptr_t r = 0;
    if (ebda >= 0x80000 && ebda < 0xA0000)
        r = scan(ebda, 1024);
    return r ? r : scan(0xE0000, 0x20000);
}

static bool table_ok(uint64_t a)
{
    if (!a || a >= (1ull << 32) - 36)
        return false;
    uint32_t len = rd32((uintptr_t)a + 4);
    return len >= 36 && a + len <= (1ull << 32) && sum_ok((uintptr_t)a, len);
}

/* Count, allocate, fill (k/madt.h). */
static int read_madt(uintptr_t t, struct k_acpi_madt_info *o, k_acpi_alloc_fn alloc)
{
    const uint8_t *p = (const uint8_t *)t;
    uint32_t len = rd32(t + 4);
    struct k_madt_cpus m = { 0 };
    k_madt_parse(p, len, &m);
    o->lapic_addr = m.lapic_addr;
    o->nlisted = m.nlisted;
    o->nignored = m.nignored;
    if (!m.ncpus) {
        o->error = "MADT lists no enabled processor";
        return -1;
    }
    m.cap = m.ncpus;
    m.cpu = alloc(m.cap * sizeof(*m.cpu));
    if (!m.cpu) {
        o->error = "no memory for the MADT's CPU list";
        return -1;
    }
    k_madt_parse(p, len, &m);
    o->cpu = m.cpu;
    o->ncpus = m.ncpus;
    o->nx2 = m.nx2;
    o->max_id = m.max_id;
    return 0;
}

int k_acpi_madt(uintptr_t boot_rsdp, const char *boot_src, struct k_acpi_madt_info *o, k_acpi_alloc_fn alloc)
{
    memset(o, 0, sizeof(*o));
    uintptr_t r = 0;
    if (boot_rsdp && rsdp_ok(boot_rsdp)) {
        r = boot_rsdp;
        o->rsdp_source = boot_src;
    } else if ((r = bios_search()) != 0) {
        o->rsdp_source = "BIOS area";
    }
    if (!r) {
        o->error = "no RSDP (no multiboot2 ACPI tag, none in the EBDA or 0xE0000-0xFFFFF)";
        return -1;
    }
    o->rsdp = r;
    o->revision = rd8(r + 15);
    /* ACPI 2.0+: the XSDT (64-bit entries) if its checksum holds, else RSDT. */
    uint64_t xsdt = o->revision >= 2 && sum_ok(r, rd32(r + 20) < 36 ? 36 : rd32(r + 20)) ? rd64(r + 24) : 0;
    bool wide = table_ok(xsdt) && sig_is((uintptr_t)xsdt, "XSDT", 4);
    uint64_t sdt = wide ? xsdt : rd32(r + 16);
    if (!table_ok(sdt) || (!wide && !sig_is((uintptr_t)sdt, "RSDT", 4))) {
        o->error = "RSDT/XSDT missing, above 4 GiB or bad checksum";
        return -1;
    }
    uint32_t n = (rd32((uintptr_t)sdt + 4) - 36) / (wide ? 8 : 4);
    for (uint32_t i = 0; i < n; i++) {
        uintptr_t ea = (uintptr_t)sdt + 36 + i * (wide ? 8 : 4);
        uint64_t t = wide ? rd64(ea) : rd32(ea);
        if (table_ok(t) && sig_is((uintptr_t)t, "APIC", 4))
            return read_madt((uintptr_t)t, o, alloc);
    }
    o->error = "no MADT (\"APIC\") table";
    return -1;
}
