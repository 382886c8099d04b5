/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * CPU enumeration from the Intel MultiProcessor Specification 1.4 tables,
 * the fallback where there is no ACPI MADT: the MP Floating Pointer
 * Structure ("_MP_", 16-byte aligned, in the EBDA's first KiB, the last KiB
 * of base memory, or 0xF0000-0xFFFFF; MP spec 4.1), its MP Configuration
 * Table ("PCMP"; 4.2) and the table's Processor Entries (type 0, 20 bytes:
 * local APIC ID, flags bit 0 EN, bit 1 BP; 4.3.1). A "default
 * configuration" (feature byte 1 != 0, no table) is reported, not used.
 */
#include <k/acpi.h>
#include <k/string.h>

static inline uint8_t rd8(uintptr_t a)
{
    __asm__("" : "+r"(a)); /* constant low addresses: see acpi.c */
    return *(const volatile uint8_t *)a;
}
static inline uint16_t rd16(uintptr_t a) { return (uint16_t)(rd8(a) | rd8(a + 1) << 8); }
static inline uint32_t rd32(uintptr_t a) { return (uint32_t)rd16(a) | (uint32_t)rd16(a + 2) << 16; }

static bool sum_ok(uintptr_t a, uint32_t len)
{
    uint8_t s = 0;
    for (uint32_t i = 0; i < len; i++)
        s = (uint8_t)(s + rd8(a + i));
    return s == 0;
}

static uintptr_t scan(uintptr_t from, uintptr_t len)
{
    for (uintptr_t a = from; a + 16 <= from + len; a += 16)
        if (rd8(a) == '_' && rd8(a + 1) == 'M' && rd8(a + 2) == 'P' && rd8(a + 3) == '_' && rd8(a + 8) == 1 &&
            sum_ok(a, 16))
            return a;
    return 0;
}

static uintptr_t find_fps(void)
{
    uintptr_t ebda = (uintptr_t)rd16(0x40E) << 4, base_kib = rd16(0x413), r = 0;
    if (ebda >= 0x80000 && ebda < 0xA0000)
        r = scan(ebda, 1024);
    if (!r && base_kib >= 512 && base_kib <= 640)
        r = scan(base_kib * 1024 - 1024, 1024);
    return r ? r : scan(0xF0000, 0x10000);
}

/* Processor entries (type 0) of the table at @t: counted (o->cpu NULL)
 * or stored. */
static void walk(uintptr_t t, struct k_acpi_madt_info *o)
{
    uint16_t n = rd16(t + 34), len = rd16(t + 4);
    uintptr_t e = t + 44, end = t + len;
    o->ncpus = o->nlisted = 0;
    for (uint16_t i = 0; i < n && e < end; i++) {
        uint8_t type = rd8(e);
        if (type == 0 && e + 20 <= end) {
            o->nlisted++;
            if (rd8(e + 3) & 1) { /* EN */
                if (o->cpu)
                    o->cpu[o->ncpus] = (struct k_acpi_cpu){ .apic_id = rd8(e + 1), .uid = o->ncpus, .x2apic = false };
                if (rd8(e + 1) > o->max_id)
                    o->max_id = rd8(e + 1);
                o->ncpus++;
            }
            e += 20;
        } else if (type >= 1 && type <= 4) {
            e += 8;
        } else {
            break; /* unknown entry: its length is unknown */
        }
    }
}

int k_mptable_cpus(struct k_acpi_madt_info *o, k_acpi_alloc_fn alloc)
{
    memset(o, 0, sizeof(*o));
    uintptr_t f = find_fps();
    if (!f) {
        o->error = "no MP floating pointer structure";
        return -1;
    }
    o->rsdp_source = "MP table";
    o->rsdp = f;
    o->revision = rd8(f + 9);
    uint32_t t = rd32(f + 4);
    if (!t || rd8(f + 11)) {
        o->error = "MP default configuration (no configuration table): not supported";
        return -1;
    }
    uint16_t len = rd16(t + 4);
    if (rd32(t) != 0x504D4350u /* "PCMP" */ || len < 44 || !sum_ok(t, len)) {
        o->error = "MP configuration table: bad signature, length or checksum";
        return -1;
    }
    o->lapic_addr = rd32(t + 36);
    walk(t, o);
    if (o->ncpus) {
        o->cpu = alloc(o->ncpus * sizeof(*o->cpu));
        if (!o->cpu) {
            o->error = "no memory for the MP table's CPU list";
            return -1;
        }
        walk(t, o);
    }
    if (!o->ncpus)
        o->error = "MP configuration table lists no enabled processor";
    return o->ncpus ? 0 : -1;
}
