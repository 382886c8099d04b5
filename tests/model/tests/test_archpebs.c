/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The model's architectural PEBS (profiles DSM_PTL_P / DSM_PTL_E,
 * dsm_archpebs.c). Expected values are restated here from the sources, not
 * from the model: CPUID words copied from ../shared/cpuid/
 * GenuineIntel00C06C3_PantherLakeL_01_CPUID.txt (CPU #0 P-core, #4 E-core);
 * MSR numbers, bit positions and group sizes from the Linux series
 * "arch-PEBS enabling for Intel platforms" (msr-index.h, perf_event.h
 * struct arch_pebs_*), written as literals.
 */
#include <stdio.h>
#include <stdlib.h>
#include "check.h"
#include "model_util.h"

#define PHYS  0x00200000ull   /* "physical" address of the buffer in the fake memory */
#define MEMSZ (1u << 18)

static uint8_t membuf[MEMSZ];
static struct fake_mem mem;
static unsigned pmis, pmi_why;

static void on_pmi(void *ctx, uint32_t why)
{
    (void)ctx;
    pmis++;
    pmi_why |= why;
}

static void mk(struct dsm_cpu *c, enum dsm_profile p)
{
    memset(membuf, 0, sizeof(membuf));
    mem.base = PHYS;
    mem.buf = membuf;
    mem.size = MEMSZ;
    mem.reads = mem.writes = mem.faults = 0;
    CHECK_EQ(dsm_init(c, p, &fm_ops, &mem), DSM_OK, "init %d", p);
    dsm_set_pmi(c, on_pmi, NULL);
    pmis = pmi_why = 0;
}

static uint64_t rd(struct dsm_cpu *c, uint32_t msr)
{
    uint64_t v = 0xDEAD;
    CHECK_EQ(dsm_rdmsr(c, msr, &v), DSM_OK, "rdmsr 0x%x", msr);
    return v;
}

static void wr(struct dsm_cpu *c, uint32_t msr, uint64_t v)
{
    CHECK_EQ(dsm_wrmsr(c, msr, v), DSM_OK, "wrmsr 0x%x = 0x%llx", msr, (unsigned long long)v);
}

static void test_cpuid(void)
{
    static const uint32_t p23[6][4] = { { 0x3B, 3, 0, 0 }, { 0x3FF, 0xF, 0, 0 }, { 0, 0, 0, 0 },
                                        { 0x1DFF, 0, 0, 0 }, { 0, 0x60060378, 0, 0 }, { 0x3FF, 3, 0xF, 1 } };
    static const uint32_t e23[6][4] = { { 0x3F, 3, 8, 0 }, { 0xFF, 0x77, 0, 0 }, { 0xFC, 3, 0xFC, 3 },
                                        { 0x1F7F, 0, 0, 0 }, { 0, 0x60060338, 0, 0 }, { 0xFF, 3, 0x77, 1 } };
    for (int e = 0; e < 2; e++) {
        struct dsm_cpu c;
        uint32_t r[4];
        mk(&c, e ? DSM_PTL_E : DSM_PTL_P);
        dsm_cpuid(&c, 0, 0, r);
        CHECK_EQ(r[0], 0x28, "max leaf 28H");
        dsm_cpuid(&c, 1, 0, r);
        CHECK_EQ(r[0], 0x000C06C3, "signature 06_CCH stepping 3");
        dsm_cpuid(&c, 0xA, 0, r);
        CHECK(r[0] == 0x0D300806 && r[1] == 0x280 && r[2] == 7 && r[3] == 0x8603, "0AH words");
        for (uint32_t s = 0; s < 6; s++) {
            dsm_cpuid(&c, 0x23, s, r);
            const uint32_t *w = e ? e23[s] : p23[s];
            CHECK(r[0] == w[0] && r[1] == w[1] && r[2] == w[2] && r[3] == w[3], "%s 23H.%u", e ? "E" : "P", s);
        }
        dsm_cpuid(&c, 0x1A, 0, r);
        CHECK_EQ(r[0] >> 24, e ? 0x20u : 0x40u, "1AH core type");
        dsm_cpuid(&c, 0x80000008u, 0, r);
        CHECK_EQ(r[0] & 0xFF, 0x2E, "MAXPHYADDR 46");
        CHECK_EQ((rd(&c, 0x345) >> 8) & 0xF, 0xF, "PERF_CAPABILITIES.PEBS_FMT = 0xF");
    }
}

static void test_msrs(void)
{
    struct dsm_cpu c;
    uint64_t v;
    mk(&c, DSM_PTL_P);
    wr(&c, 0x3F4, PHYS | 3);
    CHECK_EQ(rd(&c, 0x3F4), PHYS | 3, "BASE read back");
    CHECK_EQ(dsm_wrmsr(&c, 0x3F4, PHYS | 0x10), DSM_GP, "BASE bit 4 reserved");
    CHECK_EQ(dsm_wrmsr(&c, 0x3F4, 1ull << 46), DSM_GP, "BASE beyond MAXPHYADDR 46");
    wr(&c, 0x3F4, (1ull << 46) - 4096);
    const int rsvd[] = { 0, 3, 27, 30, 33, 35, 59, 63 };
    for (unsigned i = 0; i < sizeof(rsvd) / sizeof(rsvd[0]); i++)
        CHECK_EQ(dsm_wrmsr(&c, 0x3F5, 1ull << rsvd[i]), DSM_GP, "INDEX bit %d reserved", rsvd[i]);
    const int ok[] = { 4, 26, 31, 32, 36, 58 };
    for (unsigned i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
        CHECK_EQ(dsm_wrmsr(&c, 0x3F5, 1ull << ok[i]), DSM_OK, "INDEX bit %d writable", ok[i]);
    /* CFG_C: P-core 23H.4 EBX 60060378 -> bits 35-38, 40-41, 49-50, 61-62 */
    wr(&c, 0x1903, (1ull << 63) | (1ull << 62) | (1ull << 61) | (1ull << 49) | (3ull << 40) | (0xFull << 35) | 0xFFFFFFFF);
    CHECK_EQ(dsm_wrmsr(&c, 0x1903, 1ull << 39), DSM_GP, "CFG_C bit 39 not enumerated");
    CHECK_EQ(dsm_wrmsr(&c, 0x1903, 1ull << 32), DSM_GP, "CFG_C bit 32 not enumerated");
    wr(&c, 0x1903 + 4 * 9, 1ull << 63);          /* GP9 exists and is PEBS-capable on P */
    CHECK_EQ(dsm_rdmsr(&c, 0x1903 + 4 * 10, &v), DSM_GP, "no GP10");
    wr(&c, 0x1983 + 4 * 3, 1ull << 63);          /* fixed 3 on P (23H.5 ECX 0xF) */
    CHECK_EQ(dsm_rdmsr(&c, 0x1983 + 4 * 4, &v), DSM_GP, "no fixed 4 on P");
    mk(&c, DSM_PTL_E);
    CHECK_EQ(dsm_wrmsr(&c, 0x1903, 1ull << 38), DSM_GP, "E: METRICS group not enumerated (EBX bit 6)");
    wr(&c, 0x1903, 1ull << 37);
    CHECK_EQ(dsm_rdmsr(&c, 0x1903 + 4 * 8, &v), DSM_GP, "E: no GP8");
    CHECK_EQ(dsm_rdmsr(&c, 0x1983 + 4 * 3, &v), DSM_GP, "E: no fixed 3 (23H.1 EBX 0x77)");
    wr(&c, 0x1983 + 4 * 4, 1ull << 63);          /* fixed 4 on E */
    /* perfmon v6 aliases (Linux MSR_IA32_PMC_V6_*): GP0 CTR 1900H = IA32_A_PMC0, CFG_A 1901H = PERFEVTSEL0 */
    wr(&c, 0x1900, 0xFFFFFFFFFF00ull);
    CHECK_EQ(rd(&c, 0x4C1), 0xFFFFFFFFFF00ull, "1900H writes PMC0 full width");
    wr(&c, 0x1901 + 4 * 2, 0x4300C0);
    CHECK_EQ(rd(&c, 0x188), 0x4300C0, "1909H is PERFEVTSEL2");
    wr(&c, 0x1980 + 4 * 2, 5);
    CHECK_EQ(rd(&c, 0x30B), 5, "1988H is FIXED_CTR2");
    /* GLOBAL_STATUS bit 54 is reset through 390H */
    CHECK_EQ(dsm_wrmsr(&c, 0x390, 1ull << 54), DSM_OK, "STATUS_RESET bit 54");
}

/* GP0 counts INST_RETIRED in user mode from -period with CFG_C @groups. */
static void arm_gp0(struct dsm_cpu *c, uint32_t period, uint64_t groups, unsigned size_code, uint64_t thresh_bytes)
{
    wr(c, 0x3F4, PHYS | size_code);
    wr(c, 0x3F5, (1ull << 32) | (thresh_bytes / 16) << 36);
    wr(c, 0x1903, (1ull << 63) | groups | (uint32_t)(0u - period));
    wr(c, 0x186, 0xC0 | (1u << 16) | (1u << 22));
    wr(c, 0xC1, (0ull - period) & ((1ull << 48) - 1));
    wr(c, 0x38F, 1);
}

static void run(struct dsm_cpu *c, unsigned n, uint64_t ip0)
{
    for (unsigned i = 0; i < n; i++) {
        struct dsm_event e = ev_load(ip0 + 4 * i, 0x5000 + i, 7, 0x1);
        CHECK_EQ(dsm_retire(c, &e), DSM_OK, "retire");
    }
}

static void test_basic_records(void)
{
    struct dsm_cpu c;
    mk(&c, DSM_PTL_P);
    arm_gp0(&c, 10, 0, 1, 8192 - 4096);
    run(&c, 101, 0x401000);
    uint64_t want = dsm_pebs_expected(101, 10);
    CHECK_EQ(want, 10, "101 occurrences, period 10: 10 records");
    CHECK_EQ(c.ap.records, want, "records");
    CHECK_EQ(rd(&c, 0x3F5) & (0x7FFFFFull << 4), want * 64, "write offset = records x (16 + 48)");
    for (unsigned k = 0; k < want; k++) {
        uint64_t h = rd64(&mem, PHYS + 64 * k);
        CHECK_EQ(h & 0xFFFF, 64, "size field");
        CHECK(h & (1ull << 63), "basic");
        CHECK(h & (1ull << 30), "64-bit mode");
        CHECK(!(h & (1ull << 31)), "not continued");
        /* the assist at occurrence 10(k+1)+1 (model: first occurrence after the overflow) */
        CHECK_EQ(rd64(&mem, PHYS + 64 * k + 16), 0x401000 + 4ull * (10 * (k + 1)), "ip record %u", k);
        CHECK_EQ(rd64(&mem, PHYS + 64 * k + 24), 1, "applicable counters: GP0");
    }
    CHECK_EQ(pmis, 0, "below the threshold: no PMI");
}

static void test_groups(void)
{
    struct dsm_cpu c;
    mk(&c, DSM_PTL_P);
    uint64_t g = (1ull << 62) | (1ull << 61) | (1ull << 49) | (1ull << 40) | (1ull << 36) | (1ull << 35);
    arm_gp0(&c, 5, g, 2, 0x3000);
    static const uint64_t xmm[32] = { 0x11, 0x22, [31] = 0x99 };
    for (unsigned i = 0; i < 6; i++) {
        struct dsm_event e = ev_load(0x402000 + 4 * i, 0x7000 + i, 33, 0x2);
        e.xmm = xmm;
        dsm_retire(&c, &e);
    }
    CHECK_EQ(c.ap.records, 1, "one record");
    /* 16 + basic 48 + aux 64 + gprs 160 + xer 16 + xmm 256 + lbr 48 + 8 x 24 + cntr 16 + 1 x 8 (GP0 enabled) */
    uint32_t size = 16 + 48 + 64 + 160 + 16 + 256 + 48 + 8 * 24 + 16 + 8;
    size += 8; /* 824 -> 832: padded to the 16-byte unit of the INDEX write offset */
    uint64_t h = rd64(&mem, PHYS);
    CHECK_EQ(h & 0xFFFF, size, "size %u", size);
    CHECK_EQ(dsm_apebs_record_size(&c, 1), size, "record_size");
    CHECK(h & (1ull << 62) && h & (1ull << 61) && h & (1ull << 49), "AUX, GPR, XMM bits");
    CHECK_EQ((h >> 40) & 3, 1, "LBR field 1 (8 entries)");
    CHECK(((h >> 35) & 0x1F) != 0, "counters field");
    uint64_t a = PHYS + 16 + 48;
    CHECK_EQ(rd64(&mem, a), 0x7005, "aux: data address");
    CHECK_EQ(rd64(&mem, a + 40), 2, "aux: data source");
    a += 64;
    struct dsm_event e5 = ev_plain(0x402000 + 20);
    CHECK_EQ(rd64(&mem, a), e5.regs[DSM_R_FLAGS], "gpr flags");
    CHECK_EQ(rd64(&mem, a + 8), e5.next_ip, "gpr ip: next ip");
    CHECK_EQ(rd64(&mem, a + 16), e5.regs[DSM_R_AX], "gpr ax");
    CHECK_EQ(rd64(&mem, a + 24), e5.regs[DSM_R_CX], "gpr cx (Linux order ax, cx, dx, bx)");
    CHECK_EQ(rd64(&mem, a + 40), e5.regs[DSM_R_BX], "gpr bx");
    CHECK_EQ(rd64(&mem, a + 48), e5.regs[DSM_R_SP], "gpr sp");
    CHECK_EQ(rd64(&mem, a + 72), e5.regs[DSM_R_DI], "gpr di");
    a += 160;
    CHECK_EQ(rd64(&mem, a + 16), 0x11, "xmm0 low");
    CHECK_EQ(rd64(&mem, a + 16 + 8 * 31), 0x99, "xmm15 high");
    a += 272 + 48 + 8 * 24;
    CHECK_EQ(rd32(&mem, a), 1, "counters header: GP0");
}

/* Vector-register group with YMMH (23H.4 EBX bit 18 = CFG_C bit 50 on both
 * cores; Linux vector series: XER header, XMM, then struct arch_pebs_ymmh,
 * 16 registers x 2 qwords = bits 255:128 of YMM0-15). OPMASK/ZMMH/H16ZMM
 * are not enumerated: CFG_C #GP. */
static void test_ymmh(void)
{
    for (int e = 0; e < 2; e++) {
        struct dsm_cpu c;
        mk(&c, e ? DSM_PTL_E : DSM_PTL_P);
        CHECK_EQ(dsm_wrmsr(&c, 0x1903, (1ull << 63) | (1ull << 53)), DSM_GP, "OPMASK not enumerated");
        CHECK_EQ(dsm_wrmsr(&c, 0x1903, (1ull << 63) | (1ull << 54)), DSM_GP, "ZMMH not enumerated");
        CHECK_EQ(dsm_wrmsr(&c, 0x1903, (1ull << 63) | (1ull << 55)), DSM_GP, "H16ZMM not enumerated");
        arm_gp0(&c, 2, (1ull << 49) | (1ull << 50), 1, 4096);
        static const uint64_t xmm[32] = { 0x1111, 0x2222, [30] = 0x3333, [31] = 0x4444 };
        for (unsigned i = 0; i < 3; i++) {
            struct dsm_event ev = ev_load(0x409000 + 4 * i, 0x8000 + i, 9, 0x1);
            ev.xmm = xmm;
            dsm_retire(&c, &ev);
        }
        CHECK_EQ(c.ap.records, 1, "one record");
        uint64_t h = rd64(&mem, PHYS);
        CHECK_EQ(h & 0xFFFF, 16 + 48 + 16 + 256 + 256, "header, basic, XER, XMM, YMMH");
        CHECK(h & (1ull << 49) && h & (1ull << 50) && !(h & (0x7ull << 53)), "XMM and YMMH header bits only");
        uint64_t x = PHYS + 16 + 48;
        CHECK_EQ(rd64(&mem, x), 0x6, "xstate: SSE | AVX");
        CHECK_EQ(rd64(&mem, x + 16), 0x1111, "xmm0 low");
        CHECK_EQ(rd64(&mem, x + 16 + 8 * 31), 0x4444, "xmm15 high");
        CHECK_EQ(rd64(&mem, x + 16 + 256), 0x1111 ^ 0x5A5A5A5A5A5A5A5Aull, "ymmh0 low (model: xmm ^ 5A..)");
        CHECK_EQ(rd64(&mem, x + 16 + 256 + 8 * 30), 0x3333 ^ 0x5A5A5A5A5A5A5A5Aull, "ymmh15 low");
        CHECK_EQ(dsm_apebs_record_size(&c, 1), 16 + 48 + 16 + 512, "record_size");
        /* YMMH alone: XER header then YMMH directly */
        mk(&c, e ? DSM_PTL_E : DSM_PTL_P);
        arm_gp0(&c, 2, 1ull << 50, 1, 4096);
        for (unsigned i = 0; i < 3; i++) {
            struct dsm_event ev = ev_load(0x409000 + 4 * i, 0x8000 + i, 9, 0x1);
            ev.xmm = xmm;
            dsm_retire(&c, &ev);
        }
        h = rd64(&mem, PHYS);
        CHECK_EQ(h & 0xFFFF, 16 + 48 + 16 + 256, "YMMH alone: header, basic, XER, YMMH");
        CHECK_EQ(rd64(&mem, x + 16), 0x1111 ^ 0x5A5A5A5A5A5A5A5Aull, "YMMH right after the XER header");
    }
}

/* INDEX counts the write offset in 16-byte units (Linux union arch_pebs_index
 * wr:23 at bit 4), so a record whose groups end 8 bytes short of a unit
 * (counters group with one value: 16 + 48 + 16 + 8 = 88) is padded to 96,
 * the pad counted in the size field, and the next record starts exactly
 * where the size field says (a reader walking by header size, Linux
 * intel_pmu_drain_arch_pebs). Failed before the pad (size 88, next record
 * at the truncated offset 80). */
static void test_pad16(void)
{
    struct dsm_cpu c;
    mk(&c, DSM_PTL_E);
    arm_gp0(&c, 4, (1ull << 36) | (1ull << 35), 1, 4096); /* counters group: GP0 */
    run(&c, 13, 0x408000);
    CHECK_EQ(c.ap.records, 3, "three records");
    uint64_t at = 0;
    for (unsigned k = 0; k < 3; k++) {
        uint64_t h = rd64(&mem, PHYS + at);
        CHECK_EQ(h & 0xFFFF, 96, "record %u: 88 bytes of groups padded to 96", k);
        CHECK(h & (1ull << 63), "record %u at the offset the previous size gives: basic", k);
        CHECK_EQ(rd64(&mem, PHYS + at + 16), 0x408000 + 4ull * (4 * (k + 1)), "record %u ip", k);
        CHECK_EQ(rd32(&mem, PHYS + at + 64), 1, "record %u counters header: GP0", k);
        CHECK_EQ(rd64(&mem, PHYS + at + 88), 0, "record %u pad is zero", k);
        at += h & 0xFFFF;
    }
    CHECK_EQ(rd(&c, 0x3F5) & (0x7FFFFFull << 4), at, "write offset = sum of the size fields");
    CHECK_EQ(dsm_apebs_record_size(&c, 1), 96, "record_size includes the pad");
}

static void test_fragments(void)
{
    struct dsm_cpu c;
    mk(&c, DSM_PTL_E);
    CHECK_EQ(dsm_apebs_set_fragment(&c, 60), DSM_EINVAL, "fragment max < 64");
    CHECK_EQ(dsm_apebs_set_fragment(&c, 132), DSM_EINVAL, "fragment max not a multiple of 8");
    CHECK_EQ(dsm_apebs_set_fragment(&c, 128), DSM_OK, "fragment max 128");
    arm_gp0(&c, 3, (1ull << 62) | (1ull << 61), 0, 0);
    run(&c, 4, 0x403000);
    CHECK_EQ(c.ap.records, 1, "one record");
    CHECK_EQ(c.ap.fragments, 2, "in two fragments");
    uint64_t h0 = rd64(&mem, PHYS), h1 = rd64(&mem, PHYS + 128);
    CHECK_EQ(h0 & 0xFFFF, 16 + 48 + 64, "first: header, basic, aux");
    CHECK(h0 & (1ull << 31) && h0 & (1ull << 63) && h0 & (1ull << 62) && !(h0 & (1ull << 61)), "first bits");
    CHECK_EQ(h1 & 0xFFFF, 16 + 160, "second: header, gprs");
    CHECK(!(h1 & (1ull << 31)) && !(h1 & (1ull << 63)) && h1 & (1ull << 61), "second bits");
    CHECK_EQ(rd(&c, 0x3F5) & (0x7FFFFFull << 4), 128 + 176, "offset past both");
    CHECK_EQ(pmis, 1, "threshold 0: PMI after the record");
}

static void test_full_and_threshold(void)
{
    struct dsm_cpu c;
    mk(&c, DSM_PTL_P);
    arm_gp0(&c, 1, 0, 0, 4 * 64);  /* 4 KiB buffer: 64 records of 64 bytes; PMI at 4 records */
    run(&c, 6, 0x404000);          /* occurrences 2..6 each assist: 5 records? period 1 -> n-1 */
    CHECK_EQ(c.ap.records, dsm_pebs_expected(6, 1), "records");
    CHECK(rd(&c, 0x38E) & (1ull << 54), "GLOBAL_STATUS bit 54 after reaching the threshold");
    CHECK(pmis >= 1 && (pmi_why & DSM_PMI_PEBS), "PEBS PMI");
    wr(&c, 0x390, 1ull << 54);
    CHECK(!(rd(&c, 0x38E) & (1ull << 54)), "bit 54 acknowledged");
    run(&c, 80, 0x405000);
    uint64_t written = 6 - 1 + 80;
    CHECK_EQ(c.ap.records, 64, "the buffer holds 64");
    CHECK_EQ(c.ap.records + c.ap.dropped_full, written, "records + dropped == assists");
    CHECK(rd(&c, 0x3F5) & (1ull << 31), "FULL");
    CHECK_EQ(rd(&c, 0x3F5) & (0x7FFFFFull << 4), 4096, "offset at the end");
    /* software resets the index (offset 0, FULL 0, EN kept): writing resumes */
    wr(&c, 0x3F5, (1ull << 32) | (uint64_t)(4 * 64 / 16) << 36);
    run(&c, 2, 0x406000);
    CHECK_EQ(c.ap.records, 66, "writing resumes after the reset");
    /* EN = 0: no record */
    wr(&c, 0x3F5, 0);
    uint64_t r0 = c.ap.records;
    run(&c, 5, 0x407000);
    CHECK_EQ(c.ap.records, r0, "EN 0: nothing written");
    CHECK_EQ(c.ap.dropped_off, 5, "counted as dropped");
}

/* The counters CPUID 23H.1 advertises exist (real dumps: P-core EAX 3FFH = 10 GP,
 * EBX FH = 4 fixed; E-core 8 GP): GP8/9 through the v6 MSRs 1900H + 4n, and
 * they count. */
static void test_counter_count(void)
{
    struct dsm_cpu c;
    uint64_t v;
    uint32_t o[4];
    mk(&c, DSM_PTL_P);
    dsm_cpuid(&c, 0x23, 1, o);
    CHECK_EQ(o[0], 0x3FF, "P-core 23H.1 EAX: GP 0-9");
    wr(&c, 0x1900 + 4 * 9 + 1, 0xC0 | (1u << 16) | (1u << 22));   /* GP9 CFG_A: INST_RETIRED.ANY_P, USR, EN */
    wr(&c, 0x1900 + 4 * 9, 0);
    wr(&c, 0x38F, 1ull << 9);
    struct dsm_event e = ev_plain(0x1000);
    dsm_retire(&c, &e);
    dsm_retire(&c, &e);
    CHECK_EQ(rd(&c, 0x1900 + 4 * 9), 2, "GP9 counts");
    CHECK_EQ(dsm_rdmsr(&c, 0x1900 + 4 * 10, &v), DSM_GP, "no GP10");
    CHECK_EQ(dsm_rdmsr(&c, 0x1980 + 4 * 3, &v), DSM_OK, "FX3 (23H.1 EBX bit 3)");
    mk(&c, DSM_PTL_E);
    CHECK_EQ(dsm_rdmsr(&c, 0x1900 + 4 * 7, &v), DSM_OK, "E-core GP7");
    CHECK_EQ(dsm_rdmsr(&c, 0x1900 + 4 * 8, &v), DSM_GP, "E-core has no GP8 (23H.1 EAX FFH)");
}

/* Issue 25 item 14: only counters whose own CFG_C has CNTR_ALLOW (35) are
 * recorded in the counters group (Linux intel_pmu_enable_event_ext sets
 * ARCH_PEBS_CNTR_ALLOW on every member of a PEBS counter group, the counting
 * ones with CFG_C = CNTR_ALLOW alone). GP0 samples with CNTR_GP | CNTR_FIXED
 * and ALLOW; GP1 and fixed 0 count: without ALLOW they are absent, with it
 * present with their values. Metrics (38, P-core) carry slots (fixed 3) and
 * IA32_PERF_METRICS after the counters. */
static void test_cntr_allow(void)
{
    struct dsm_cpu c;
    mk(&c, DSM_PTL_P);
    uint64_t g = (1ull << 37) | (1ull << 36) | (1ull << 35);
    arm_gp0(&c, 4, g, 1, 4096);
    wr(&c, 0x187, 0xC0 | (1u << 16) | (1u << 22));   /* GP1 counts instructions */
    wr(&c, 0x38D, 0x2);                               /* fixed 0: USR */
    wr(&c, 0x38F, 0x100000003ull);
    run(&c, 5, 0x40A000);
    CHECK_EQ(c.ap.records, 1, "one record");
    CHECK_EQ(rd64(&mem, PHYS) & 0xFFFF, 16 + 48 + 16 + 16, "header, basic, counters header + GP0 (+ pad)");
    CHECK_EQ(rd64(&mem, PHYS + 64), 1, "counters: GP0 only (GP1, fixed 0 without CNTR_ALLOW)");
    mk(&c, DSM_PTL_P);
    arm_gp0(&c, 4, g | (1ull << 38), 1, 4096);
    wr(&c, 0x187, 0xC0 | (1u << 16) | (1u << 22));
    wr(&c, 0x1907, 1ull << 35);                      /* GP1 CFG_C: CNTR_ALLOW alone */
    wr(&c, 0x1983, 1ull << 35);                      /* fixed 0 CFG_C: CNTR_ALLOW alone */
    wr(&c, 0x198F, 1ull << 35);                      /* fixed 3 (slots) CFG_C */
    wr(&c, 0x38D, 0x2002);                           /* fixed 0 and fixed 3: USR */
    wr(&c, 0x38F, 0x1000900000003ull);               /* + EN_PERF_METRICS */
    run(&c, 5, 0x40A000);
    CHECK_EQ(c.ap.records, 1, "one record");
    uint64_t a = PHYS + 64;
    CHECK_EQ(rd64(&mem, a), 0x3 | (0x9ull << 32), "counters: GP0, GP1, fixed 0, fixed 3 (all allowed)");
    CHECK_EQ(rd32(&mem, a + 8), 3, "metrics field INTEL_CNTR_METRICS");
    CHECK_EQ(rd64(&mem, a + 24), 5, "GP1: 5 instructions");
    CHECK_EQ(rd64(&mem, a + 32), 5, "fixed 0: 5 instructions");
    CHECK_EQ(rd64(&mem, a + 40), 5, "fixed 3: 5 slots");
    CHECK_EQ(rd64(&mem, a + 48), 5, "metrics: slots");
    CHECK_EQ(rd64(&mem, a + 56), 0xFF, "metrics: IA32_PERF_METRICS Retiring FFH (EN_PERF_METRICS)");
    mk(&c, DSM_PTL_E);
    CHECK_EQ(dsm_wrmsr(&c, 0x1907, 1ull << 35), DSM_OK, "E-core: CNTR_ALLOW alone (23H.4 EBX bit 3)");
    CHECK_EQ(dsm_wrmsr(&c, 0x38F, 1ull << 48), DSM_GP, "E-core: no PERF_METRICS, GLOBAL_CTRL bit 48 reserved");
}

int main(void)
{
    test_cpuid();
    test_msrs();
    test_counter_count();
    test_basic_records();
    test_groups();
    test_pad16();
    test_ymmh();
    test_fragments();
    test_full_and_threshold();
    test_cntr_allow();
    return check_summary();
}
