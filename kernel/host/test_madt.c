/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The kernel's MADT parser (kernel/src/madt.c, k/madt.h) on synthetic
 * tables (issue 24): type 0 and type 9 entries, x2APIC IDs 255, 256, 4095
 * and beyond, sparse IDs, duplicates, invalid IDs, disabled and
 * online-capable CPUs, truncated entries, 4096 CPUs. Layouts from ACPI 6.5
 * 5.2.12 (header: "APIC", length @4, local APIC address @36, flags @40,
 * entries from @44), 5.2.12.2 (type 0: length 8, UID @2, APIC ID @3, flags
 * @4) and 5.2.12.12 (type 9: length 16, x2APIC ID @4, flags @8, UID @12);
 * the ignore rules are Linux's (arch/x86/kernel/acpi/boot.c).
 */
#include "check.h"
#include <k/madt.h>

static uint8_t tab[44 + 16 * 5000];
static uint32_t len;

static void put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8), p[2] = (uint8_t)(v >> 16), p[3] = (uint8_t)(v >> 24);
}

static void begin(void)
{
    memset(tab, 0, sizeof tab);
    memcpy(tab, "APIC", 4);
    put32(tab + 36, 0xFEE00000u);
    len = 44;
}

static void lapic(uint8_t uid, uint8_t id, uint32_t flags)
{
    uint8_t *e = tab + len;
    e[0] = 0, e[1] = 8, e[2] = uid, e[3] = id;
    put32(e + 4, flags);
    len += 8;
}

static void x2apic(uint32_t id, uint32_t flags, uint32_t uid)
{
    uint8_t *e = tab + len;
    e[0] = 9, e[1] = 16;
    put32(e + 4, id);
    put32(e + 8, flags);
    put32(e + 12, uid);
    len += 16;
}

static struct k_acpi_cpu out[5000];

/* Parse the table built so far: count, then store; the stored IDs must be @want. */
static struct k_madt_cpus parse(const uint32_t *want, unsigned nwant, const char *what)
{
    struct k_madt_cpus m;
    memset(&m, 0, sizeof m);
    put32(tab + 4, len);
    k_madt_parse(tab, len, &m);
    CHECK(m.ncpus >= nwant, "%s: counting pass %u >= %u", what, m.ncpus, nwant);
    m.cpu = out;
    m.cap = sizeof out / sizeof out[0];
    k_madt_parse(tab, len, &m);
    CHECK_EQ(m.ncpus, nwant, "%s: CPUs stored", what);
    for (unsigned i = 0; i < nwant && i < m.ncpus; i++)
        CHECK_EQ(out[i].apic_id, want[i], "%s: cpu %u", what, i);
    CHECK_EQ(m.lapic_addr, 0xFEE00000u, "%s: local APIC address", what);
    return m;
}

static void test_type0(void)
{
    begin();
    lapic(0, 0, 1);
    lapic(1, 1, 1);
    lapic(2, 2, 0);   /* disabled, not online capable: not usable */
    lapic(3, 3, 2);   /* online capable (ACPI 6.3+) */
    lapic(4, 4, 4);   /* bit 2 only (reserved): not usable */
    lapic(5, 0xFF, 1);/* ID 0xFF: invalid (Linux acpi_parse_lapic) */
    const uint32_t want[] = { 0, 1, 3 };
    struct k_madt_cpus m = parse(want, 3, "type 0");
    CHECK_EQ(m.nlisted, 6, "type 0: every entry listed");
    CHECK_EQ(m.nignored, 1, "type 0: ID 0xFF ignored");
    CHECK_EQ(m.nx2, 0, "type 0: no x2APIC CPU");
    CHECK_EQ(m.max_id, 3, "type 0: highest ID");
    CHECK_EQ(out[2].uid, 3, "type 0: UID of the online-capable CPU");
    CHECK(!out[0].x2apic, "type 0: not x2APIC");
}

/* x2APIC only (as firmware lists a machine with IDs past 254): every ID,
 * 255, 256, 4095 and a sparse 0x10000 included. */
static void test_x2apic_only(void)
{
    begin();
    const uint32_t want[] = { 0, 1, 254, 255, 256, 4095, 0x10000, 7 };
    for (unsigned i = 0; i < 8; i++)
        x2apic(want[i], 1, 100 + i);
    x2apic(0xFFFFFFFFu, 1, 9); /* invalid (Linux acpi_parse_x2apic) */
    x2apic(300, 0, 10);        /* disabled */
    struct k_madt_cpus m = parse(want, 8, "x2APIC only");
    CHECK_EQ(m.nlisted, 10, "x2APIC only: listed");
    CHECK_EQ(m.nignored, 1, "x2APIC only: 0xFFFFFFFF ignored");
    CHECK_EQ(m.nx2, 8, "x2APIC only: x2APIC CPUs");
    CHECK_EQ(m.max_id, 0x10000, "x2APIC only: highest ID");
    CHECK_EQ(out[5].uid, 105, "x2APIC only: UID of ID 4095");
    CHECK(out[3].x2apic, "x2APIC only: ID 255 is from a type-9 entry");
}

/* Both kinds: IDs below 255 in type 9 are ignored beside usable type-0
 * CPUs (ACPI 6.5 5.2.12.12; Linux: has_lapic_cpus && apic_id < 0xff),
 * whether they repeat a type-0 ID or not. */
static void test_mixed(void)
{
    begin();
    for (uint8_t i = 0; i < 4; i++)
        lapic(i, i, 1);
    x2apic(2, 1, 2);       /* repeats type 0 ID 2 */
    x2apic(100, 1, 50);    /* below 255, not in type 0: still ignored */
    x2apic(255, 1, 4);
    x2apic(256, 1, 5);
    x2apic(4095, 2, 6);    /* online capable */
    const uint32_t want[] = { 0, 1, 2, 3, 255, 256, 4095 };
    struct k_madt_cpus m = parse(want, 7, "mixed");
    CHECK_EQ(m.nignored, 2, "mixed: two type-9 IDs below 255 ignored");
    CHECK_EQ(m.nx2, 3, "mixed: x2APIC CPUs");
    CHECK_EQ(m.max_id, 4095, "mixed: highest ID");
    /* Without usable type-0 CPUs a type-9 ID below 255 counts. */
    begin();
    lapic(0, 0, 0);        /* disabled: not a usable type-0 CPU */
    lapic(1, 0xFF, 1);     /* invalid: neither */
    x2apic(0, 1, 0);
    x2apic(100, 1, 1);
    const uint32_t want2[] = { 0, 100 };
    m = parse(want2, 2, "mixed, no usable type 0");
    CHECK_EQ(m.nignored, 1, "mixed, no usable type 0: only ID 0xFF ignored");
}

static void test_sparse_and_dups(void)
{
    begin();
    const uint8_t ids[] = { 0, 2, 4, 6, 16, 32, 254 };
    for (unsigned i = 0; i < sizeof ids; i++)
        lapic((uint8_t)i, ids[i], 1);
    lapic(9, 4, 1);        /* listed twice: one CPU */
    const uint32_t want[] = { 0, 2, 4, 6, 16, 32, 254 };
    struct k_madt_cpus m = parse(want, 7, "sparse");
    CHECK_EQ(m.max_id, 254, "sparse: highest ID");
    /* The counting pass cannot see duplicates: an upper bound. */
    struct k_madt_cpus c;
    memset(&c, 0, sizeof c);
    k_madt_parse(tab, len, &c);
    CHECK_EQ(c.ncpus, 8, "sparse: counting pass counts the duplicate");
    /* Storage smaller than the list: only cap stored. */
    memset(&c, 0, sizeof c);
    c.cpu = out;
    c.cap = 3;
    k_madt_parse(tab, len, &c);
    CHECK_EQ(c.ncpus, 3, "sparse: cap 3 stores 3");
}

static void test_truncated(void)
{
    begin();
    lapic(0, 0, 1);
    lapic(1, 1, 1);
    tab[len] = 0, tab[len + 1] = 0; /* length 0: the walk stops */
    len += 8;
    lapic(2, 2, 1);
    const uint32_t want[] = { 0, 1 };
    parse(want, 2, "length-0 entry");
    begin();
    lapic(0, 0, 1);
    x2apic(300, 1, 1);
    len -= 1;              /* the x2APIC entry runs past the table */
    const uint32_t want1[] = { 0 };
    parse(want1, 1, "entry past the end");
    begin();
    lapic(0, 0, 1);
    tab[len] = 0, tab[len + 1] = 6; /* type 0 shorter than 8: skipped */
    len += 6;
    lapic(1, 1, 1);
    const uint32_t want2[] = { 0, 1 };
    parse(want2, 2, "short type-0 entry");
}

static void test_4096(void)
{
    static uint32_t want[4096];
    begin();
    for (uint32_t i = 0; i < 4096; i++) {
        want[i] = i * 2 + 1; /* sparse, odd IDs up to 8191 */
        x2apic(want[i], 1, i);
    }
    struct k_madt_cpus m = parse(want, 4096, "4096 CPUs");
    CHECK_EQ(m.max_id, 8191, "4096 CPUs: highest ID");
}

int main(void)
{
    test_type0();
    test_x2apic_only();
    test_mixed();
    test_sparse_and_dups();
    test_truncated();
    test_4096();
    return check_summary();
}
