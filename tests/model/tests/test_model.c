/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The model's own tests: one group per SDM rule of issue 4. Every expected
 * number below is restated from shared/reference/ (not computed from the
 * model's tables), so a wrong constant in the model fails here.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "check.h"
#include "model_util.h"

#define LIN64 0xFFFF800000100000ull  /* canonical high half, like a kernel */
#define LIN32 0x00400000ull
#define MEMSZ (1u << 20)

static uint8_t membuf[MEMSZ];
static struct fake_mem mem;

static struct dsm_cpu *mk(struct dsm_cpu *c, enum dsm_profile p, uint64_t base)
{
    memset(membuf, 0, sizeof(membuf));
    mem.base = base;
    mem.buf = membuf;
    mem.size = MEMSZ;
    mem.reads = mem.writes = mem.faults = 0;
    int e = dsm_init(c, p, &fm_ops, &mem);
    CHECK_EQ(e, DSM_OK, "init %d", p);
    return c;
}

static uint64_t rd(struct dsm_cpu *c, uint32_t msr)
{
    uint64_t v = 0xDEAD;
    int e = dsm_rdmsr(c, msr, &v);
    CHECK_EQ(e, DSM_OK, "rdmsr 0x%x", msr);
    return v;
}

static void wr(struct dsm_cpu *c, uint32_t msr, uint64_t v)
{
    int e = dsm_wrmsr(c, msr, v);
    CHECK_EQ(e, DSM_OK, "wrmsr 0x%x = 0x%llx", msr, (unsigned long long)v);
}

static unsigned pmis;
static uint32_t last_why;
static void on_pmi(void *ctx, uint32_t why)
{
    (void)ctx;
    pmis++;
    last_why = why;
}

/* ---- profiles: CPUID, MISC_ENABLE, PERF_CAPABILITIES, MSR set ------------ */
static void test_profiles(void)
{
    struct dsm_cpu c;
    uint32_t r[4];
    static const struct {
        enum dsm_profile p;
        uint32_t fam, model;
        bool ds, dtes64, pdcm;
        uint32_t ver, ngp, width;
        int pebs_fmt, lbr_fmt;
    } t[] = {
        { DSM_NONE_DS, 6, 0xCF, false, false, false, 0, 0, 0, -1, -1 },
        { DSM_NETBURST_M2, 0xF, 0x02, true, false, false, 0, 0, 0, -1, -1 },
        { DSM_NETBURST_M3, 0xF, 0x03, true, false, false, 0, 0, 0, -1, -1 },
        { DSM_NETBURST_M4_64, 0xF, 0x04, true, true, false, 0, 0, 0, -1, -1 },
        { DSM_CORE2, 6, 0x0F, true, true, true, 2, 2, 40, 0, 1 },
        { DSM_ATOM, 6, 0x1C, true, true, true, 3, 2, 40, 0, 1 },
        { DSM_NEHALEM, 6, 0x1A, true, true, true, 3, 4, 48, 1, 3 },
        { DSM_HASWELL, 6, 0x3C, true, true, true, 3, 4, 48, 2, 4 },
        { DSM_SKYLAKE, 6, 0x5E, true, true, true, 4, 4, 48, 3, 5 },
        { DSM_ICELAKE, 6, 0x7E, true, true, true, 5, 8, 48, 4, 5 },
    };
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        mk(&c, t[i].p, LIN64);
        dsm_cpuid(&c, 0, 0, r);
        CHECK(r[1] == 0x756E6547 && r[3] == 0x49656E69 && r[2] == 0x6C65746E, "GenuineIntel %s", dsm_profile_name(t[i].p));
        dsm_cpuid(&c, 1, 0, r);
        uint32_t fam = (r[0] >> 8) & 0xF, model = ((r[0] >> 4) & 0xF) | (((r[0] >> 16) & 0xF) << 4);
        CHECK_EQ(fam, t[i].fam, "family %s", dsm_profile_name(t[i].p));
        CHECK_EQ(model, t[i].model, "model %s", dsm_profile_name(t[i].p));
        CHECK_EQ((r[3] >> 21) & 1, t[i].ds, "DS bit %s", dsm_profile_name(t[i].p));
        CHECK_EQ((r[2] >> 2) & 1, t[i].dtes64, "DTES64 %s", dsm_profile_name(t[i].p));
        CHECK_EQ((r[2] >> 15) & 1, t[i].pdcm, "PDCM %s", dsm_profile_name(t[i].p));
        dsm_cpuid(&c, 0xA, 0, r);
        CHECK_EQ(r[0] & 0xFF, t[i].ver, "perfmon version %s", dsm_profile_name(t[i].p));
        CHECK_EQ((r[0] >> 8) & 0xFF, t[i].ngp, "gp counters %s", dsm_profile_name(t[i].p));
        CHECK_EQ((r[0] >> 16) & 0xFF, t[i].width, "gp width %s", dsm_profile_name(t[i].p));
        uint64_t misc = rd(&c, 0x1A0);
        if (t[i].p == DSM_NONE_DS) {
            CHECK((misc & (1 << 11)) && (misc & (1 << 12)) && !(misc & (1 << 7)), "no-DS MISC_ENABLE");
        } else {
            CHECK((misc & (1 << 7)) && !(misc & (1 << 11)) && !(misc & (1 << 12)), "MISC_ENABLE %s", dsm_profile_name(t[i].p));
        }
        uint64_t v;
        if (t[i].pdcm) {
            uint64_t caps = rd(&c, 0x345);
            CHECK_EQ((caps >> 8) & 0xF, (unsigned)t[i].pebs_fmt, "pebs fmt %s", dsm_profile_name(t[i].p));
            CHECK_EQ(caps & 0x3F, (unsigned)t[i].lbr_fmt, "lbr fmt %s", dsm_profile_name(t[i].p));
            CHECK_EQ(dsm_wrmsr(&c, 0x345, caps), DSM_GP, "PERF_CAPABILITIES is read-only");
        } else {
            CHECK_EQ(dsm_rdmsr(&c, 0x345, &v), DSM_GP, "no PDCM: 0x345 faults %s", dsm_profile_name(t[i].p));
        }
        CHECK_EQ(dsm_rdmsr(&c, 0x12345, &v), DSM_GP, "unknown MSR faults");
        CHECK_EQ(dsm_wrmsr(&c, 0x12345, 0), DSM_GP, "unknown MSR write faults");
        /* MISC_ENABLE read-only bits stay */
        wr(&c, 0x1A0, 0);
        CHECK_EQ(rd(&c, 0x1A0) & 0x1880, misc & 0x1880, "MISC_ENABLE bits 7/11/12 read-only");
    }
    /* family-specific MSR sets */
    uint64_t v;
    mk(&c, DSM_NETBURST_M3, LIN32);
    CHECK_EQ(dsm_rdmsr(&c, 0xC1, &v), DSM_GP, "no IA32_PMC0 on NetBurst");
    CHECK_EQ(dsm_rdmsr(&c, 0x38F, &v), DSM_GP, "no GLOBAL_CTRL on NetBurst");
    CHECK_EQ(dsm_rdmsr(&c, 0x300, &v), DSM_OK, "BPU_COUNTER0");
    CHECK_EQ(dsm_rdmsr(&c, 0x311, &v), DSM_OK, "IQ_COUNTER5");
    CHECK_EQ(dsm_rdmsr(&c, 0x312, &v), DSM_GP, "no counter 18");
    CHECK_EQ(dsm_rdmsr(&c, 0x371, &v), DSM_OK, "IQ_CCCR5");
    CHECK_EQ(dsm_rdmsr(&c, 0x372, &v), DSM_GP, "no CCCR 18");
    CHECK_EQ(dsm_rdmsr(&c, 0x3BA, &v), DSM_GP, "IQ_ESCR0 absent on model 3");
    CHECK_EQ(dsm_rdmsr(&c, 0x3BF, &v), DSM_GP, "SSU_ESCR1 (unconfirmed) not modelled");
    CHECK_EQ(dsm_rdmsr(&c, 0x3C6, &v), DSM_GP, "0x3C6 is no ESCR");
    CHECK_EQ(dsm_rdmsr(&c, 0x3E1, &v), DSM_OK, "CRU_ESCR5");
    CHECK_EQ(dsm_wrmsr(&c, 0x600, 0x100000000ull), DSM_GP, "32-bit DS_AREA on a non-Intel64 part");
    mk(&c, DSM_NETBURST_M2, LIN32);
    CHECK_EQ(dsm_rdmsr(&c, 0x3BA, &v), DSM_OK, "IQ_ESCR0 on model 2");
    CHECK_EQ(dsm_rdmsr(&c, 0x3BB, &v), DSM_OK, "IQ_ESCR1 on model 2");
    mk(&c, DSM_CORE2, LIN64);
    CHECK_EQ(dsm_rdmsr(&c, 0x300, &v), DSM_GP, "no NetBurst counters on Core 2");
    CHECK_EQ(dsm_rdmsr(&c, 0xC3, &v), DSM_GP, "Core 2 has 2 GP counters");
    CHECK_EQ(dsm_rdmsr(&c, 0x30C, &v), DSM_GP, "Core 2 has 3 fixed counters");
    CHECK_EQ(dsm_rdmsr(&c, 0x391, &v), DSM_GP, "no STATUS_SET before v4");
    CHECK_EQ(dsm_rdmsr(&c, 0x3F2, &v), DSM_GP, "no PEBS_DATA_CFG before fmt 4");
    CHECK_EQ(dsm_rdmsr(&c, 0x3F6, &v), DSM_GP, "no LD_LAT on Core 2");
    CHECK_EQ(dsm_rdmsr(&c, 0x1C8, &v), DSM_GP, "no LBR_SELECT on Core 2");
    CHECK_EQ(dsm_rdmsr(&c, 0x4C1, &v), DSM_GP, "no full-width alias without FW_WRITE");
    mk(&c, DSM_NONE_DS, LIN64);
    CHECK_EQ(dsm_rdmsr(&c, 0x600, &v), DSM_GP, "no DS_AREA without DS");
    CHECK_EQ(dsm_rdmsr(&c, 0x3F1, &v), DSM_GP, "no PEBS_ENABLE without DS");
    mk(&c, DSM_ICELAKE, LIN64);
    CHECK_EQ(dsm_rdmsr(&c, 0x30C, &v), DSM_OK, "Ice Lake fixed counter 3");
    CHECK_EQ(dsm_rdmsr(&c, 0xC8, &v), DSM_OK, "Ice Lake PMC7");
    CHECK_EQ(dsm_rdmsr(&c, 0xC9, &v), DSM_GP, "no PMC8");
    dsm_cpuid(&c, 0xA, 0, r);
    CHECK_EQ(r[2], 0xF, "v5 fixed counter bitmap");
    CHECK_EQ(r[3] & 0x1F, 4, "4 fixed counters");
    CHECK_EQ(dsm_init(NULL, DSM_CORE2, NULL, NULL), DSM_EINVAL, "NULL cpu");
    CHECK_EQ(dsm_init(&c, DSM_PROFILE__COUNT, NULL, NULL), DSM_EINVAL, "bad profile");
    struct dsm_mem_ops half = { fm_read, NULL };
    CHECK_EQ(dsm_init(&c, DSM_CORE2, &half, NULL), DSM_EINVAL, "half a mem ops table");
}

/* ---- reserved bits fault ------------------------------------------------- */
static void test_reserved_bits(void)
{
    struct dsm_cpu c;
    mk(&c, DSM_CORE2, LIN64);
    CHECK_EQ(dsm_wrmsr(&c, 0x1D9, 1ull << 2), DSM_GP, "DEBUGCTL bit 2 reserved on Core 2");
    CHECK_EQ(dsm_wrmsr(&c, 0x1D9, 1ull << 13), DSM_GP, "DEBUGCTL bit 13 reserved on Core 2");
    CHECK_EQ(dsm_wrmsr(&c, 0x1D9, 0x1FC3), DSM_OK, "DEBUGCTL valid bits");
    CHECK_EQ(dsm_wrmsr(&c, 0x186, 1ull << 32), DSM_GP, "EVTSEL bit 32 reserved before Haswell");
    CHECK_EQ(dsm_wrmsr(&c, 0x186, 1ull << 21), DSM_GP, "AnyThread reserved before v3");
    CHECK_EQ(dsm_wrmsr(&c, 0x3F1, 2), DSM_GP, "Core 2 PEBS only on PMC0");
    CHECK_EQ(dsm_wrmsr(&c, 0x3F1, 1), DSM_OK, "PEBS on PMC0");
    CHECK_EQ(dsm_wrmsr(&c, 0x38F, 1ull << 2), DSM_GP, "GLOBAL_CTRL bit of a missing PMC2");
    CHECK_EQ(dsm_wrmsr(&c, 0x38F, 0x700000003ull), DSM_OK, "GLOBAL_CTRL 2 GP + 3 fixed");
    CHECK_EQ(dsm_wrmsr(&c, 0x38E, 0), DSM_GP, "GLOBAL_STATUS is read-only");
    CHECK_EQ(dsm_wrmsr(&c, 0x390, 1ull << 59), DSM_GP, "CTR_Frz not in v2 OVF_CTRL");
    CHECK_EQ(dsm_wrmsr(&c, 0x38D, 0x4), DSM_GP, "fixed AnyThread reserved before v3");
    CHECK_EQ(dsm_wrmsr(&c, 0x38D, 0xBBB), DSM_OK, "fixed ctrl OS/USR/PMI x3");
    CHECK_EQ(dsm_wrmsr(&c, 0x38D, 0xB000), DSM_GP, "no fixed counter 3");
    CHECK_EQ(dsm_wrmsr(&c, 0x600, 0x0000800000000000ull), DSM_GP, "non-canonical DS_AREA");
    CHECK_EQ(dsm_wrmsr(&c, 0x600, LIN64), DSM_OK, "canonical DS_AREA");
    CHECK_EQ(dsm_wrmsr(&c, 0x30A, 1ull << 40), DSM_GP, "fixed counter wider than 40 bits");
    mk(&c, DSM_NEHALEM, LIN64);
    CHECK_EQ(dsm_wrmsr(&c, 0x3F1, 0xF0000000Full), DSM_OK, "NHM PEBS_EN 3:0 + LL_EN 35:32");
    CHECK_EQ(dsm_wrmsr(&c, 0x3F1, 1ull << 4), DSM_GP, "NHM PEBS bit 4 reserved");
    CHECK_EQ(dsm_wrmsr(&c, 0x3F6, 0x10000), DSM_GP, "LD_LAT bits above 15 reserved");
    CHECK_EQ(dsm_wrmsr(&c, 0x1C8, 0x200), DSM_GP, "LBR_SELECT bit 9 (call stack) is Haswell+");
    CHECK_EQ(dsm_wrmsr(&c, 0x186, 1ull << 32), DSM_GP, "EVTSEL IN_TX is Haswell+");
    mk(&c, DSM_HASWELL, LIN64);
    CHECK_EQ(dsm_wrmsr(&c, 0x186, 3ull << 32), DSM_OK, "Haswell IN_TX/IN_TXCP");
    CHECK_EQ(dsm_wrmsr(&c, 0x186, 1ull << 34), DSM_GP, "adaptive bit is Ice Lake+");
    CHECK_EQ(dsm_wrmsr(&c, 0x1C8, 0x3FF), DSM_OK, "Haswell LBR_SELECT 0x3FF");
    mk(&c, DSM_ICELAKE, LIN64);
    CHECK_EQ(dsm_wrmsr(&c, 0x186, 1ull << 34), DSM_OK, "Ice Lake adaptive bit");
    CHECK_EQ(dsm_wrmsr(&c, 0x3F1, 0xF000000FFull), DSM_OK, "Ice Lake PEBS on 8 GP + 4 fixed");
    CHECK_EQ(dsm_wrmsr(&c, 0x3F2, 0x10), DSM_GP, "DATA_CFG bit 4 reserved");
    CHECK_EQ(dsm_wrmsr(&c, 0x3F2, 0x1F00000Full), DSM_OK, "DATA_CFG 32 LBR entries");
    CHECK_EQ(dsm_wrmsr(&c, 0x38D, 1ull << 32), DSM_OK, "fixed 0 adaptive");
    /* NetBurst */
    mk(&c, DSM_NETBURST_M3, LIN32);
    CHECK_EQ(dsm_wrmsr(&c, 0x36C, 1), DSM_GP, "CCCR 11:0 reserved");
    CHECK_EQ(dsm_wrmsr(&c, 0x36C, 1ull << 28), DSM_GP, "CCCR 29:28 reserved");
    CHECK_EQ(dsm_wrmsr(&c, 0x36C, 1ull << 32), DSM_GP, "CCCR 63:32 reserved");
    CHECK_EQ(dsm_wrmsr(&c, 0x36C, 0xCFFFF000ull), DSM_OK, "CCCR all valid bits");
    CHECK_EQ(dsm_wrmsr(&c, 0x3B8, 1ull << 31), DSM_GP, "ESCR 63:31 reserved");
    CHECK_EQ(dsm_wrmsr(&c, 0x30C, 1ull << 40), DSM_GP, "NetBurst counters are 40 bits");
    CHECK_EQ(dsm_wrmsr(&c, 0x3F1, 1ull << 27), DSM_GP, "NetBurst PEBS_ENABLE bit 27 reserved");
    CHECK_EQ(dsm_wrmsr(&c, 0x3F1, (1ull << 24) | (1ull << 25) | 1), DSM_OK, "UOP_Tag | MY_THR | metric 0");
    CHECK_EQ(dsm_wrmsr(&c, 0x1D9, 1ull << 7), DSM_GP, "DEBUGCTLA bit 7 reserved");
    CHECK_EQ(dsm_wrmsr(&c, 0x1D9, 1ull << 5), DSM_GP, "BTS_OFF_OS needs DS-CPL");
    mk(&c, DSM_NETBURST_M4_64, LIN64);
    CHECK_EQ(dsm_wrmsr(&c, 0x1D9, 0x7F), DSM_OK, "DEBUGCTLA all bits with DS-CPL");
}

/* ---- counters: width, wrap, overflow status, PMI, gating, fixed --------- */
static void test_counters(void)
{
    struct dsm_cpu c;
    struct dsm_event e = ev_plain(0x401000);
    mk(&c, DSM_CORE2, LIN64);
    dsm_set_pmi(&c, on_pmi, NULL);
    pmis = 0;
    wr(&c, 0xC1, 0xFFFFFFFE);   /* legacy write: sign-extended from bit 31 */
    CHECK_EQ(rd(&c, 0xC1), 0xFFFFFFFFFEull, "40-bit sign extension of a legacy write");
    wr(&c, 0xC1, 0x7FFFFFFF);
    CHECK_EQ(rd(&c, 0xC1), 0x7FFFFFFFull, "positive legacy write");
    wr(&c, 0xC1, 0xFFFFFFFE);
    wr(&c, 0x186, 0xC0 | (1 << 16) | (1 << 22));   /* INST_RETIRED, USR, EN, no INT */
    dsm_retire(&c, &e);
    CHECK_EQ(rd(&c, 0xC1), 0xFFFFFFFFFEull, "GLOBAL_CTRL gates the counter");
    wr(&c, 0x38F, 1);
    dsm_retire(&c, &e);
    CHECK_EQ(rd(&c, 0xC1), 0xFFFFFFFFFFull, "counts when enabled");
    dsm_retire(&c, &e);
    CHECK_EQ(rd(&c, 0xC1), 0, "wraps at 40 bits");
    CHECK_EQ(rd(&c, 0x38E), 1, "overflow sets GLOBAL_STATUS bit 0");
    CHECK_EQ(pmis, 0, "no PMI without INT");
    wr(&c, 0x390, 1);
    CHECK_EQ(rd(&c, 0x38E), 0, "OVF_CTRL clears the bit");
    e.cpl = 0;
    dsm_retire(&c, &e);
    CHECK_EQ(rd(&c, 0xC1), 0, "USR-only counter ignores CPL 0");
    e.cpl = 3;
    wr(&c, 0x186, 0xC0 | (1 << 16) | (1 << 20) | (1 << 22));   /* + INT */
    wr(&c, 0xC1, 0xFFFFFFFF);
    dsm_retire(&c, &e);
    CHECK_EQ(pmis, 1, "PMI on overflow with INT");
    CHECK_EQ(last_why, DSM_PMI_COUNTER, "reason counter");
    CHECK_EQ(dsm_stats(&c)->pmi_counter, 1, "stats pmi_counter");
    /* fixed counters: FIXED_CTR0 = instructions, PMI bit 3 */
    wr(&c, 0x390, 0x700000003ull);
    wr(&c, 0x38D, 0x2 | 0x8);   /* fixed 0: USR + PMI */
    wr(&c, 0x38F, 1ull << 32);
    wr(&c, 0x309, 0xFFFFFFFFFEull);
    dsm_retire(&c, &e);
    dsm_retire(&c, &e);
    CHECK_EQ(rd(&c, 0x309), 0, "fixed counter wraps at 40 bits");
    CHECK_EQ(rd(&c, 0x38E), 1ull << 32, "Ovf_FixedCtr0 is bit 32");
    CHECK_EQ(pmis, 2, "fixed PMI");
    CHECK_EQ(rd(&c, 0xC1), 0, "PMC0 not counting when its GLOBAL_CTRL bit is clear");
    /* branch / mispredict events */
    mk(&c, DSM_HASWELL, LIN64);
    wr(&c, 0x186, 0xC4 | (3 << 16) | (1 << 22));
    wr(&c, 0x187, 0xC5 | (3 << 16) | (1 << 22));
    wr(&c, 0x188, 0x3C | (3 << 16) | (1 << 22));
    wr(&c, 0x38F, 7);
    struct dsm_event b = ev_branch(0x1000, 0x2000, false), m = ev_branch(0x1000, 0x2000, true);
    dsm_retire(&c, &e);
    dsm_retire(&c, &b);
    dsm_retire(&c, &m);
    CHECK_EQ(rd(&c, 0xC1), 2, "branches retired");
    CHECK_EQ(rd(&c, 0xC2), 1, "mispredicts");
    CHECK_EQ(rd(&c, 0xC3), 3, "cycles = 1 per instruction");
    wr(&c, 0x4C1, 0xFFFFFFFFFFFFull);
    CHECK_EQ(rd(&c, 0xC1), 0xFFFFFFFFFFFFull, "full-width write");
    CHECK_EQ(dsm_wrmsr(&c, 0x4C1, 1ull << 48), DSM_GP, "full-width write beyond 48 bits");
}

/* ---- PEBS --------------------------------------------------------------- */
#define AREA 0x0
#define PEBS_BUF 0x1000
static void pebs_setup(struct dsm_cpu *c, uint64_t base, bool ds64, uint32_t recsz, unsigned nrec, unsigned thr_rec,
                       uint64_t reset, unsigned slot)
{
    ds_setup(&mem, base + AREA, ds64, 0, 0, 0, base + PEBS_BUF, base + PEBS_BUF + (uint64_t)nrec * recsz,
             base + PEBS_BUF + (uint64_t)thr_rec * recsz);
    if (ds64)
        wr64(&mem, base + AREA + 0x40 + 8 * slot, reset);
    else
        wr64(&mem, base + AREA + 0x20 + 8 * slot, reset);
    wr(c, 0x600, base + AREA);
}

static void test_pebs_core2(void)
{
    struct dsm_cpu c;
    mk(&c, DSM_CORE2, LIN64);
    dsm_set_pmi(&c, on_pmi, NULL);
    pmis = 0;
    const uint64_t P = 5, mask = 0xFFFFFFFFFFull;
    pebs_setup(&c, LIN64, true, 0x90, 8, 4, (-P) & mask, 0);
    CHECK_EQ(dsm_pebs_record_size(&c), 0x90, "fmt 0 record 144 bytes");
    wr(&c, 0xC1, (uint32_t)-P);
    wr(&c, 0x186, 0xC0 | (1 << 16) | (1 << 22));
    wr(&c, 0x3F1, 1);
    wr(&c, 0x38F, 1);
    unsigned n = 0;
    for (; n < 6 * 3; n++) {
        struct dsm_event e = ev_plain(0x400000 + 16 * n);
        dsm_retire(&c, &e);
    }
    CHECK_EQ(dsm_stats(&c)->pebs_written, 3, "records at occurrences P+1, 2P+1, 3P+1 (18 events, P=5)");
    CHECK_EQ(dsm_pebs_expected(18, P), 3, "helper agrees");
    uint64_t r0 = LIN64 + PEBS_BUF;
    /* first record: the 6th event (index 5) */
    uint64_t ip = 0x400000 + 16 * 5;
    CHECK_EQ(rd64(&mem, r0 + 0x00), 0x202, "RFLAGS at 0");
    CHECK_EQ(rd64(&mem, r0 + 0x08), ip + 4, "RIP at 8 is the next IP (PEBS_TRAP)");
    CHECK_EQ(rd64(&mem, r0 + 0x10), 0x3000 + ip, "RAX at 0x10");
    CHECK_EQ(rd64(&mem, r0 + 0x18), 0x4000 + ip, "RBX at 0x18");
    CHECK_EQ(rd64(&mem, r0 + 0x48), 0xA000 + ip, "RSP at 0x48");
    CHECK_EQ(rd64(&mem, r0 + 0x50), 0xB000 + ip, "R8 at 0x50");
    CHECK_EQ(rd64(&mem, r0 + 0x88), 0x12000 + ip, "R15 at 0x88");
    CHECK_EQ(rd64(&mem, r0 + 0x90 + 0x08), 0x400000 + 16 * 10 + 4, "second record (occurrence 2P+1) follows at +0x90");
    CHECK_EQ(rd64(&mem, LIN64 + 0x28), r0 + 3 * 0x90, "PEBS index advanced by 3 records");
    CHECK_EQ(rd(&c, 0xC1), (-P + 3) & mask, "counter reloaded from reset slot 0, counted, +2 more");
    CHECK_EQ(pmis, 0, "below threshold: no PMI");
    for (; n < 6 * 4; n++) {
        struct dsm_event e = ev_plain(0x400000 + 16 * n);
        dsm_retire(&c, &e);
    }
    CHECK_EQ(pmis, 1, "threshold reached: PMI");
    CHECK_EQ(last_why, DSM_PMI_PEBS, "PEBS threshold reason");
    CHECK(rd(&c, 0x38E) & (1ull << 62), "OvfBuf (bit 62) set");
    for (; n < 6 * 12; n++) {
        struct dsm_event e = ev_plain(0x400000 + 16 * n);
        dsm_retire(&c, &e);
    }
    CHECK_EQ(dsm_stats(&c)->pebs_written, 8, "buffer holds 8 records");
    CHECK_EQ(dsm_stats(&c)->pebs_skipped, dsm_pebs_expected(72, P) - 8, "the rest are skipped (bounds check)");
    CHECK_EQ(rd64(&mem, LIN64 + 0x28), r0 + 8 * 0x90, "index stops at absolute maximum");
    CHECK_EQ(rd64(&mem, r0 + 8 * 0x90), 0, "nothing written past the maximum");
    /* reset the index like a handler; recording resumes */
    wr64(&mem, LIN64 + 0x28, r0);
    for (; n < 6 * 13; n++) {
        struct dsm_event e = ev_plain(0x400000 + 16 * n);
        dsm_retire(&c, &e);
    }
    CHECK_EQ(dsm_stats(&c)->pebs_written, 9, "records again after the handler reset the index");
    /* a pending assist is dropped when software rewrites the counter or clears PEBS */
    wr(&c, 0xC1, 0xFFFFFFFF);
    struct dsm_event e1 = ev_plain(0x480000);
    dsm_retire(&c, &e1);   /* overflow: armed */
    wr(&c, 0x3F1, 0);
    dsm_retire(&c, &e1);
    CHECK_EQ(dsm_stats(&c)->pebs_written, 9, "no assist once PEBS_ENABLE is clear");
    CHECK_EQ(dsm_pebs_record_size(&c), 0x90, "size independent of enable");
    struct dsm_cpu nods;
    dsm_init(&nods, DSM_NONE_DS, NULL, NULL);
    CHECK_EQ(dsm_pebs_record_size(&nods), 0, "no PEBS: size 0");
    /* PEBS record on a PEBS counter needs overflow first; PMC1 cannot PEBS */
    CHECK_EQ(dsm_wrmsr(&c, 0x3F1, 2), DSM_GP, "PMC1 PEBS rejected");
}

static void test_pebs_nehalem_ll(void)
{
    struct dsm_cpu c;
    mk(&c, DSM_NEHALEM, LIN64);
    const uint64_t mask = 0xFFFFFFFFFFFFull;
    pebs_setup(&c, LIN64, true, 0xB0, 16, 16, mask, 3);   /* reset -1: every occurrence */
    wr(&c, 0x3F6, 3);                                    /* threshold: latency > 3 */
    /* LATENCY_ABOVE_THRESHOLD counts on PMC3 only (perfmon NehalemEP_core.json
     * "Counter": "3"); the same event on PMC1 counts nothing */
    wr(&c, 0x187, 0x0B | (0x10 << 8) | (1 << 16) | (1 << 22));
    wr(&c, 0x189, 0x0B | (0x10 << 8) | (1 << 16) | (1 << 22));
    wr(&c, 0xC4, 0xFFFFFFFF);
    wr(&c, 0x3F1, (1ull << 3) | (1ull << 35));          /* PEBS_EN_PMC3 | LL_EN_PMC3 */
    wr(&c, 0x38F, 0xA);
    struct dsm_event fast = ev_load(0x5000, 0xABC000, 2, 0x1);
    struct dsm_event slow = ev_load(0x5010, 0xDEF000, 250, 0xC);
    dsm_retire(&c, &slow);  /* overflow (counter -1 -> 0): arms */
    dsm_retire(&c, &fast);  /* below threshold: not an occurrence */
    dsm_retire(&c, &slow);  /* record */
    CHECK_EQ(dsm_stats(&c)->pebs_written, 1, "one load-latency record");
    CHECK_EQ(c.pmc[1], 0, "PMC1 with the load-latency event counts nothing");
    uint64_t r = LIN64 + PEBS_BUF;
    CHECK_EQ(dsm_pebs_record_size(&c), 0xB0, "fmt 1 record 176 bytes");
    CHECK_EQ(rd64(&mem, r + 0x08), 0x5014, "RIP (trap-like)");
    CHECK(rd64(&mem, r + 0x90) & 8, "0x90 IA32_PERF_GLOBAL_STATUS snapshot shows PMC3");
    CHECK_EQ(rd64(&mem, r + 0x98), 0xDEF000, "0x98 data linear address");
    CHECK_EQ(rd64(&mem, r + 0xA0), 0xC, "0xA0 data source");
    CHECK_EQ(rd64(&mem, r + 0xA8), 250, "0xA8 latency");
    CHECK_EQ(rd64(&mem, LIN64 + 0x28), r + 0xB0, "index advanced by 0xB0");
}

static void test_pebs_haswell_skylake(void)
{
    struct dsm_cpu c;
    mk(&c, DSM_HASWELL, LIN64);
    pebs_setup(&c, LIN64, true, 0xC0, 16, 16, 0xFFFFFFFFFFFFull, 2);
    wr(&c, 0x188, 0xC4 | (1 << 16) | (1 << 22));
    wr(&c, 0x4C3, 0xFFFFFFFFFFFFull);
    wr(&c, 0x3F1, 4);
    wr(&c, 0x38F, 4);
    struct dsm_event b = ev_branch(0x7000, 0x9000, false);
    dsm_retire(&c, &b);
    b.ip = 0x7100;
    dsm_retire(&c, &b);
    uint64_t r = LIN64 + PEBS_BUF;
    CHECK_EQ(dsm_stats(&c)->pebs_written, 1, "hsw record");
    CHECK_EQ(rd64(&mem, r + 0xB0), 0x7100, "fmt 2 EventingIP at 0xB0");
    CHECK_EQ(rd64(&mem, r + 0x08), 0x9000, "RIP is the branch target (next IP)");
    CHECK_EQ(rd64(&mem, LIN64 + 0x28), r + 0xC0, "fmt 2 record 0xC0");

    mk(&c, DSM_SKYLAKE, LIN64);
    pebs_setup(&c, LIN64, true, 0xC8, 16, 16, 0xFFFFFFFFFFFFull, 0);
    wr64(&mem, LIN64 + 0x40 + 8 * 3, 0xFFFFFFFFFFFFull);
    wr(&c, 0x186, 0xC0 | (1 << 16) | (1 << 22));
    wr(&c, 0x189, 0xC0 | (1 << 16) | (1 << 22));
    wr(&c, 0x4C1, 0xFFFFFFFFFFFFull);
    wr(&c, 0x4C4, 0xFFFFFFFFFFFFull);
    wr(&c, 0x3F1, 9);
    wr(&c, 0x38F, 9);
    struct dsm_event e = ev_plain(0x8000);
    dsm_retire(&c, &e);
    e.ip = 0x8004;
    e.tsc = 0x123456789ull;
    dsm_retire(&c, &e);
    r = LIN64 + PEBS_BUF;
    CHECK_EQ(dsm_stats(&c)->pebs_written, 1, "one record for both counters");
    CHECK_EQ(rd64(&mem, r + 0x90), 9, "fmt 3: applicable counters PMC0|PMC3 at 0x90");
    CHECK_EQ(rd64(&mem, r + 0xB0), 0x8004, "EventingIP");
    CHECK_EQ(rd64(&mem, r + 0xC0), 0x123456789ull, "fmt 3 TSC at 0xC0");
    CHECK_EQ(rd64(&mem, LIN64 + 0x28), r + 0xC8, "fmt 3 record 0xC8");
}

static void test_pebs_icelake_adaptive(void)
{
    struct dsm_cpu c;
    mk(&c, DSM_ICELAKE, LIN64);
    pebs_setup(&c, LIN64, true, 0x800, 8, 8, 0xFFFFFFFFFFFFull, 0);
    wr64(&mem, LIN64 + 0x40 + 8 * 8, 0xFFFFFFFFFFFFull);   /* fixed 0 reset slot: 0x80 */
    /* LBR on so the LBR group has content */
    wr(&c, 0x1D9, 1);
    struct dsm_event b1 = ev_branch(0x100, 0x200, false), b2 = ev_branch(0x300, 0x400, true);
    dsm_retire(&c, &b1);
    dsm_retire(&c, &b2);
    wr(&c, 0x3F2, 0xF | (1u << 24));   /* meminfo, GPR, XMM, LBR x2 */
    wr(&c, 0x186, 0xD0 | (0x81 << 8) | (1 << 16) | (1 << 22) | (1ull << 34));
    wr(&c, 0x4C1, 0xFFFFFFFFFFFFull);
    wr(&c, 0x3F1, 1);
    wr(&c, 0x38F, 1);
    uint64_t xmm[32];
    for (int i = 0; i < 32; i++)
        xmm[i] = 0x5500 + i;
    struct dsm_event l = ev_load(0x9000, 0xCAFE0, 40, 0x3);
    l.xmm = xmm;
    l.tsc = 777;
    dsm_retire(&c, &l);
    l.ip = 0x9010;
    l.next_ip = 0x9014;
    dsm_retire(&c, &l);
    uint64_t r = LIN64 + PEBS_BUF;
    uint32_t size = 32 + 32 + 144 + 256 + 2 * 24;
    CHECK_EQ(dsm_stats(&c)->pebs_written, 1, "adaptive record written");
    CHECK_EQ(dsm_pebs_record_size(&c), size, "size from DATA_CFG");
    uint64_t hdr = rd64(&mem, r);
    CHECK_EQ(hdr >> 48, size, "header bits 63:48 = record size");
    CHECK_EQ(hdr & 0xFFFFFFFFFFFFull, 0x100000F, "header echoes DATA_CFG");
    CHECK_EQ(rd64(&mem, r + 8), 0x9010, "basic IP");
    CHECK_EQ(rd64(&mem, r + 16), 1, "applicable counters");
    CHECK_EQ(rd64(&mem, r + 24), 777, "basic TSC");
    CHECK_EQ(rd64(&mem, r + 32), 0xCAFE0, "meminfo address");
    CHECK_EQ(rd64(&mem, r + 40), 0x3, "meminfo data source");
    uint64_t g = r + 64;
    CHECK_EQ(rd64(&mem, g + 0x00), 0x202, "GPR RFLAGS");
    CHECK_EQ(rd64(&mem, g + 0x08), 0x9014, "GPR RIP");
    CHECK_EQ(rd64(&mem, g + 0x10), 0x3000 + 0x9000, "GPR RAX");
    CHECK_EQ(rd64(&mem, g + 0x18), 0x5000 + 0x9000, "GPR RCX second (adaptive order)");
    CHECK_EQ(rd64(&mem, g + 0x20), 0x6000 + 0x9000, "GPR RDX");
    CHECK_EQ(rd64(&mem, g + 0x28), 0x4000 + 0x9000, "GPR RBX after RDX");
    CHECK_EQ(rd64(&mem, g + 0x30), 0xA000 + 0x9000, "GPR RSP");
    CHECK_EQ(rd64(&mem, g + 0x38), 0x9000 + 0x9000, "GPR RBP");
    CHECK_EQ(rd64(&mem, g + 0x88), 0x12000 + 0x9000, "GPR R15");
    uint64_t x = g + 144;
    CHECK_EQ(rd64(&mem, x), 0x5500, "XMM0 low");
    CHECK_EQ(rd64(&mem, x + 248), 0x5500 + 31, "XMM15 high");
    uint64_t lb = x + 256;
    CHECK_EQ(rd64(&mem, lb + 0), 0x300, "LBR group entry 0 newest FROM");
    CHECK_EQ(rd64(&mem, lb + 8), 0x400, "LBR TO");
    CHECK_EQ(rd64(&mem, lb + 16) >> 63, 1, "LBR INFO mispredict");
    CHECK_EQ(rd64(&mem, lb + 24), 0x100, "entry 1 older FROM");
    /* without the adaptive bit: basic group only */
    wr(&c, 0x186, 0xD0 | (0x81 << 8) | (1 << 16) | (1 << 22));
    wr(&c, 0x4C1, 0xFFFFFFFFFFFFull);
    dsm_retire(&c, &l);
    dsm_retire(&c, &l);
    uint64_t r2 = r + size;
    CHECK_EQ(rd64(&mem, r2) >> 48, 32, "non-adaptive counter: basic record (32 bytes)");
    /* fixed counter PEBS with reset slot 8 (DS offset 0x80) */
    wr(&c, 0x186, 0);
    wr(&c, 0x3F1, 1ull << 32);
    wr(&c, 0x38D, 0x2);
    wr(&c, 0x38F, 1ull << 32);
    wr(&c, 0x309, 0xFFFFFFFFFFFFull);
    wr64(&mem, LIN64 + 0x80, 0xFFFFFFFFFF00ull);
    uint64_t before = dsm_stats(&c)->pebs_written;
    uint64_t fr = rd64(&mem, LIN64 + 0x28);
    struct dsm_event e = ev_plain(0xA000);
    dsm_retire(&c, &e);
    dsm_retire(&c, &e);
    CHECK_EQ(dsm_stats(&c)->pebs_written, before + 1, "fixed counter 0 PEBS");
    CHECK_EQ(rd64(&mem, fr + 16), 1ull << 32, "applicable = fixed 0 (bit 32)");
    CHECK_EQ(rd(&c, 0x309), 0xFFFFFFFFFF01ull, "fixed reloaded from slot 8 (0x80) and counted");
}

/* ---- NetBurst: ESCR/CCCR pairing, PEBS on IQ_COUNTER4 only ------------- */
static void test_netburst(void)
{
    struct dsm_cpu c;
    mk(&c, DSM_NETBURST_M3, LIN32);
    dsm_set_pmi(&c, on_pmi, NULL);
    pmis = 0;
    struct dsm_event b = ev_branch(0x1000, 0x2000, false), p = ev_plain(0x1100);
    /* worked example (reference netburst.md): branch_retired on counter 12 */
    wr(&c, 0x3CC, 0x0C001E0C);
    wr(&c, 0x30C, 0xFFFFFFFFFEull);
    wr(&c, 0x36C, 0x0403B000);
    dsm_retire(&c, &p);
    dsm_retire(&c, &b);
    CHECK_EQ(rd(&c, 0x30C), 0xFFFFFFFFFFull, "branch_retired counts branches only");
    dsm_retire(&c, &b);
    CHECK_EQ(rd(&c, 0x30C), 0, "40-bit wrap");
    CHECK(rd(&c, 0x36C) & (1ull << 31), "CCCR OVF set");
    CHECK_EQ(pmis, 1, "OVF_PMI_T0 raises a PMI");
    dsm_retire(&c, &b);
    CHECK(rd(&c, 0x36C) & (1ull << 31), "OVF is sticky");
    wr(&c, 0x36C, 0x0403B000);
    CHECK(!(rd(&c, 0x36C) & (1ull << 31)), "software clears OVF");
    /* wrong ESCR select: select 4 picks CRU_ESCR0 (instr_retired not set) */
    wr(&c, 0x30C, 0);
    wr(&c, 0x36C, 0x00039000);   /* enable, select 4, any thread */
    dsm_retire(&c, &b);
    CHECK_EQ(rd(&c, 0x30C), 0, "CCCR select mismatched with the ESCR: no count");
    /* CRU_ESCR3 drives 14/15/17 only: counter 12 with select 5 reads CRU_ESCR2 */
    wr(&c, 0x3CC, 0);
    wr(&c, 0x3CD, 0x0C001E0C);
    wr(&c, 0x36C, 0x0003B000);
    dsm_retire(&c, &b);
    CHECK_EQ(rd(&c, 0x30C), 0, "an odd ESCR does not drive counter 12");
    wr(&c, 0x36E, 0x0003B000);   /* counter 14 select 5 = CRU_ESCR3 */
    dsm_retire(&c, &b);
    CHECK_EQ(rd(&c, 0x30E), 1, "CRU_ESCR3 drives counter 14");
    /* a BPU counter cannot use CRU_ESCR2 (select 5 there is IX_ESCR0) */
    wr(&c, 0x360, 0x0003B000);
    dsm_retire(&c, &b);
    CHECK_EQ(rd(&c, 0x300), 0, "counter 0 select 5 is IX_ESCR0: nothing");
    /* active-thread 00 counts nothing */
    wr(&c, 0x36E, 0x0000B000);
    dsm_retire(&c, &b);
    CHECK_EQ(rd(&c, 0x30E), 2, "active thread 00: no count");
    /* instr_retired NBOGUSNTAG on CRU_ESCR0, counters 12/13/16, T0_USR */
    wr(&c, 0x3B8, (0x02ull << 25) | (1ull << 9) | (1 << 2));
    wr(&c, 0x36D, 0x00039000);   /* counter 13 select 4 */
    dsm_retire(&c, &p);
    dsm_retire(&c, &b);
    CHECK_EQ(rd(&c, 0x30D), 2, "instr_retired counts every instruction");
    p.cpl = 0;
    dsm_retire(&c, &p);
    CHECK_EQ(rd(&c, 0x30D), 2, "T0_USR only: CPL 0 not counted");
    p.cpl = 3;

    /* PEBS: front_end_event tagging loads via uop_type on RAT_ESCR0 */
    mk(&c, DSM_NETBURST_M3, LIN32);
    pmis = 0;
    dsm_set_pmi(&c, on_pmi, NULL);
    pebs_setup(&c, LIN32, false, 40, 4, 2, 0xFFFFFFFFFFull, 0);
    CHECK_EQ(dsm_pebs_record_size(&c), 40, "32-bit NetBurst PEBS record 40 bytes");
    wr(&c, 0x3BC, (0x02ull << 25) | (1ull << (9 + 1)) | (1 << 4) | (1 << 2));  /* uop_type TAGLOADS, tag enable */
    wr(&c, 0x3CC, (0x08ull << 25) | (1ull << 9) | (1 << 2));                   /* front_end_event NBOGUS */
    wr(&c, 0x3F1, 1ull << 25);
    /* on counter 12: counts, never records */
    wr(&c, 0x30C, 0xFFFFFFFFFFull);
    wr(&c, 0x36C, 0x0003B000);
    struct dsm_event l = ev_load(0x3000, 0x8000, 5, 1);
    for (int i = 0; i < 4; i++)
        dsm_retire(&c, &l);
    CHECK_EQ(rd(&c, 0x30C), 3, "front_end_event counts tagged loads on counter 12");
    CHECK_EQ(dsm_stats(&c)->pebs_written, 0, "PEBS refused on counter 12");
    dsm_retire(&c, &p);
    CHECK_EQ(rd(&c, 0x30C), 3, "untagged instruction not counted");
    /* on counter 16 (IQ_COUNTER4): records */
    wr(&c, 0x36C, 0);
    wr(&c, 0x310, 0xFFFFFFFFFFull);
    wr(&c, 0x370, 0x0003B000);
    dsm_retire(&c, &l);  /* overflow: arm */
    CHECK(rd(&c, 0x370) & (1ull << 31), "IQ_CCCR4 OVF");
    l.ip = 0x3010;
    l.next_ip = 0x3018;
    dsm_retire(&c, &l);  /* record */
    CHECK_EQ(dsm_stats(&c)->pebs_written, 1, "PEBS via IQ_COUNTER4");
    uint64_t r = LIN32 + PEBS_BUF;
    CHECK_EQ(rd32(&mem, r + 0x00), 0x202, "EFLAGS at 0");
    CHECK_EQ(rd32(&mem, r + 0x04), 0x3018, "EIP (next) at 4");
    CHECK_EQ(rd32(&mem, r + 0x08), 0x3000 + 0x3000, "EAX at 8");
    CHECK_EQ(rd32(&mem, r + 0x24), 0xA000 + 0x3000, "ESP at 0x24");
    CHECK_EQ(rd32(&mem, LIN32 + 0x14), r + 40, "32-bit PEBS index at 0x14 advanced by 40");
    CHECK_EQ(rd(&c, 0x310), 0, "reloaded from 0x20 (-1) and counted: overflow again");
    dsm_retire(&c, &l);
    CHECK_EQ(pmis, 1, "threshold (2 records) PMI");
    CHECK_EQ(last_why, DSM_PMI_PEBS, "PEBS reason");
    wr(&c, 0x3F1, 0);
    wr(&c, 0x310, 0xFFFFFFFFFFull);
    dsm_retire(&c, &l);
    dsm_retire(&c, &l);
    CHECK_EQ(dsm_stats(&c)->pebs_written, 2, "no PEBS without PEBS_ENABLE bit 25");
    /* replay tagging: 1stL_cache_load_miss_retired on replay_event, 64-bit record */
    mk(&c, DSM_NETBURST_M4_64, LIN64);
    pebs_setup(&c, LIN64, true, 144, 4, 4, 0xFFFFFFFFFFull, 0);
    CHECK_EQ(dsm_pebs_record_size(&c), 144, "64-bit NetBurst PEBS record 144 bytes");
    wr(&c, 0x3CC, (0x09ull << 25) | (1ull << 9) | (1 << 2));   /* replay_event NBOGUS */
    wr(&c, 0x3F2, 1);
    wr(&c, 0x3F1, (1ull << 24) | (1ull << 25) | 1);
    wr(&c, 0x310, 0xFFFFFFFFFFull);
    wr(&c, 0x370, 0x0003B000);
    struct dsm_event hit = ev_load(0x6000, 0x100, 3, 1), miss = ev_load(0x6100, 0x200, 30, 3);
    dsm_retire(&c, &hit);
    CHECK_EQ(rd(&c, 0x310), 0xFFFFFFFFFFull, "L1 hit not tagged");
    dsm_retire(&c, &miss);
    dsm_retire(&c, &miss);
    CHECK_EQ(dsm_stats(&c)->pebs_written, 1, "replay-tagged L1 miss records");
    CHECK_EQ(rd64(&mem, LIN64 + PEBS_BUF + 8), 0x6104, "64-bit NetBurst record RIP at 8");
    CHECK_EQ(rd64(&mem, LIN64 + 0x28), LIN64 + PEBS_BUF + 144, "index +144");
    /* Tagged_mispred_branch: MSR_PEBS_ENABLE bits 15 and 16, MATRIX_VERT bit 4
     * (reference netburst.md "Replay-tagging metrics"; Linux p4 0x18000 / 0x10) */
    mk(&c, DSM_NETBURST_M4_64, LIN64);
    pebs_setup(&c, LIN64, true, 144, 4, 4, 0xFFFFFFFFFFull, 0);
    wr(&c, 0x3CC, (0x09ull << 25) | (1ull << 9) | (1 << 2));   /* replay_event NBOGUS */
    wr(&c, 0x3F2, 0x10);
    CHECK_EQ(dsm_wrmsr(&c, 0x3F1, (1ull << 24) | (1ull << 25) | 0x18000), DSM_OK, "PEBS_ENABLE bits 15, 16 valid");
    wr(&c, 0x310, 0xFFFFFFFFFFull);
    wr(&c, 0x370, 0x0003B000);
    struct dsm_event good = ev_branch(0x7000, 0x7100, false), bad = ev_branch(0x7200, 0x7300, true);
    dsm_retire(&c, &good);
    CHECK_EQ(rd(&c, 0x310), 0xFFFFFFFFFFull, "predicted branch not tagged");
    dsm_retire(&c, &bad);
    dsm_retire(&c, &bad);
    CHECK_EQ(dsm_stats(&c)->pebs_written, 1, "replay-tagged mispredicted branch records");
    /* global_power_events (event select 13H, RUNNING bit 0) on FSB_ESCR0, counter 0
     * (CCCR select 6): the cycles of NetBurst, one per instruction in the model */
    mk(&c, DSM_NETBURST_M4_64, LIN64);
    wr(&c, 0x3A2, (0x13ull << 25) | (1ull << 9) | (1 << 2));   /* T0_USR */
    wr(&c, 0x360, (1u << 12) | (6u << 13) | (3u << 16));
    struct dsm_event pl = ev_plain(0x8000);
    for (int k = 0; k < 5; k++)
        dsm_retire(&c, &pl);
    CHECK_EQ(rd(&c, 0x300), 5, "global_power_events RUNNING counts 5 cycles");
    wr(&c, 0x3A2, (0x13ull << 25) | (1ull << 10) | (1 << 2));  /* mask bit 1: nothing */
    dsm_retire(&c, &pl);
    CHECK_EQ(rd(&c, 0x300), 5, "global_power_events without RUNNING counts nothing");
}

/* ---- BTS ---------------------------------------------------------------- */
static void test_bts(void)
{
    struct dsm_cpu c;
    mk(&c, DSM_SKYLAKE, LIN64);
    dsm_set_pmi(&c, on_pmi, NULL);
    pmis = 0;
    uint64_t bb = LIN64 + 0x2000;
    ds_setup(&mem, LIN64, true, bb, bb + 4 * 24, bb + 3 * 24, 0, 0, 0);
    wr(&c, 0x600, LIN64);
    wr(&c, 0x1D9, (1 << 6) | (1 << 7) | (1 << 8));   /* TR | BTS | BTINT */
    struct dsm_event b = ev_branch(0x1000, 0x2000, false), p = ev_plain(0x1010);
    dsm_retire(&c, &p);
    CHECK_EQ(dsm_stats(&c)->bts_written, 0, "no record for a non-branch");
    for (int i = 0; i < 3; i++) {
        b.ip = 0x1000 + i;
        b.br_to = 0x2000 + i;
        dsm_retire(&c, &b);
    }
    CHECK_EQ(rd64(&mem, bb + 0), 0x1000, "BTS from at 0");
    CHECK_EQ(rd64(&mem, bb + 8), 0x2000, "BTS to at 8");
    CHECK_EQ(rd64(&mem, bb + 16), 0, "no predicted flag on Core microarchitectures");
    CHECK_EQ(rd64(&mem, bb + 24), 0x1001, "second record at +24");
    CHECK_EQ(rd64(&mem, LIN64 + 8), bb + 72, "BTS index advanced");
    CHECK_EQ(pmis, 1, "BTINT: PMI at threshold");
    CHECK_EQ(last_why, DSM_PMI_BTS, "BTS reason");
    dsm_retire(&c, &b);
    dsm_retire(&c, &b);
    CHECK_EQ(dsm_stats(&c)->bts_written, 4, "BTINT=1: stops at the maximum");
    CHECK_EQ(dsm_stats(&c)->bts_skipped, 1, "and skips");
    /* circular */
    ds_setup(&mem, LIN64, true, bb, bb + 4 * 24, bb + 3 * 24, 0, 0, 0);
    wr(&c, 0x1D9, (1 << 6) | (1 << 7));
    pmis = 0;
    for (int i = 0; i < 6; i++) {
        b.ip = 0x5000 + i;
        dsm_retire(&c, &b);
    }
    CHECK_EQ(pmis, 0, "BTINT=0: never a PMI");
    CHECK_EQ(rd64(&mem, bb + 0), 0x5004, "wrapped: record 5 overwrote slot 0");
    CHECK_EQ(rd64(&mem, bb + 24), 0x5005, "record 6 in slot 1");
    CHECK_EQ(rd64(&mem, bb + 48), 0x5002, "slot 2 still record 3");
    CHECK_EQ(rd64(&mem, LIN64 + 8), bb + 48, "index after wrap");
    /* CPL filters */
    uint64_t w = dsm_stats(&c)->bts_written;
    wr(&c, 0x1D9, (1 << 6) | (1 << 7) | (1 << 10));   /* BTS_OFF_USR */
    dsm_retire(&c, &b);
    CHECK_EQ(dsm_stats(&c)->bts_written, w, "BTS_OFF_USR skips CPL 3");
    b.cpl = 0;
    dsm_retire(&c, &b);
    CHECK_EQ(dsm_stats(&c)->bts_written, w + 1, "CPL 0 recorded");
    wr(&c, 0x1D9, (1 << 6) | (1 << 7) | (1 << 9));    /* BTS_OFF_OS */
    dsm_retire(&c, &b);
    CHECK_EQ(dsm_stats(&c)->bts_written, w + 1, "BTS_OFF_OS skips CPL 0");
    wr(&c, 0x1D9, 1 << 7);
    b.cpl = 3;
    dsm_retire(&c, &b);
    CHECK_EQ(dsm_stats(&c)->bts_written, w + 1, "BTS without TR records nothing");
    /* NetBurst: DEBUGCTLA TR=2, BTS=3, 32-bit 12-byte record with predicted bit */
    mk(&c, DSM_NETBURST_M2, LIN32);
    bb = LIN32 + 0x2000;
    ds_setup(&mem, LIN32, false, bb, bb + 10 * 12, bb + 10 * 12, 0, 0, 0);
    wr(&c, 0x600, LIN32);
    CHECK_EQ(dsm_bts_record_size(&c), 12, "32-bit BTS record");
    CHECK_EQ(dsm_wrmsr(&c, 0x1D9, 1 << 6), DSM_GP, "BTS_OFF_USR without DS-CPL faults");
    wr(&c, 0x1D9, (1 << 2) | (1 << 3));
    b = ev_branch(0x11223344, 0x55667788, false);
    dsm_retire(&c, &b);
    CHECK_EQ(rd32(&mem, bb), 0x11223344, "32-bit from");
    CHECK_EQ(rd32(&mem, bb + 4), 0x55667788, "32-bit to");
    CHECK_EQ(rd32(&mem, bb + 8), 0x10, "predicted bit 4");
    CHECK_EQ(rd32(&mem, LIN32 + 4), bb + 12, "32-bit BTS index at 4");
}

/* ---- LBR ---------------------------------------------------------------- */
static void test_lbr_rows(void)
{
    size_t n;
    const struct dsm_lbr_row *rows = dsm_lbr_rows(&n);
    CHECK(n >= 60, "every row of the reference table (%zu)", n);
    struct dsm_cpu c;
    for (size_t i = 0; i < n; i++) {
        const struct dsm_lbr_row *r = &rows[i];
        mk(&c, dsm_profile_for_row(r), LIN64);
        CHECK_EQ(dsm_set_lbr_row(&c, r), DSM_OK, "row %02X_%02XH", r->family, r->model);
        uint32_t id[4];
        dsm_cpuid(&c, 1, 0, id);
        uint32_t fam = (id[0] >> 8) & 0xF, mod = ((id[0] >> 4) & 0xF) | (((id[0] >> 16) & 0xF) << 4);
        CHECK(fam == r->family && mod == r->model, "signature of row %02X_%02XH", r->family, r->model);
        uint32_t depth = r->depth;
        if (r->arch) {
            dsm_cpuid(&c, 7, 0, id);
            CHECK(id[3] & (1u << 19), "Arch LBR CPUID bit");
            dsm_cpuid(&c, 0x1C, 0, id);
            depth = 8 * (32 - (uint32_t)__builtin_clz(id[0] & 0xFF));
            CHECK_EQ(depth, 32, "Arch LBR depth from CPUID.1CH");
            wr(&c, 0x14CF, depth);
            wr(&c, 0x14CE, 0x7F0007);   /* LBREn | OS | USR | all branch types */
        } else {
            wr(&c, 0x1D9, 1);
        }
        unsigned nb = depth + 3;
        for (unsigned k = 0; k < nb; k++) {
            struct dsm_event b = ev_branch(0x10000 + 0x10 * k, 0x20000 + 0x10 * k, false);
            dsm_retire(&c, &b);
        }
        uint64_t v;
        if (r->arch) {
            CHECK_EQ(rd(&c, 0x1500), 0x10000 + 0x10 * (nb - 1), "Arch LBR entry 0 newest");
            CHECK_EQ(rd(&c, 0x1600 + depth - 1), 0x20000 + 0x10 * (nb - depth), "Arch LBR oldest");
            CHECK_EQ(dsm_rdmsr(&c, 0x1C9, &v), DSM_GP, "no TOS with Arch LBR");
            continue;
        }
        uint32_t tos_msr = r->family == 0x0F ? 0x1DA : 0x1C9;
        CHECK_EQ(r->tos, tos_msr, "TOS MSR %02X_%02XH", r->family, r->model);
        uint64_t tos = rd(&c, tos_msr);
        CHECK(tos < depth, "TOS in range");
        CHECK_EQ(tos, (nb) % depth, "TOS rotated nb times %02X_%02XH", r->family, r->model);
        for (unsigned k = 0; k < depth; k++) {
            uint32_t slot = (uint32_t)((tos - k) & (depth - 1));
            uint64_t efrom = 0x10000 + 0x10 * (nb - 1 - k), eto = 0x20000 + 0x10 * (nb - 1 - k);
            if (r->to == r->from) {
                v = rd(&c, r->from + slot);
                CHECK(((uint32_t)v) == efrom && (v >> 32) == eto, "packed entry %u %02X_%02XH", k, r->family, r->model);
            } else {
                CHECK_EQ(rd(&c, r->from + slot), efrom, "FROM entry %u %02X_%02XH", k, r->family, r->model);
                uint64_t to = rd(&c, r->to + slot);
                if (r->fmt == 6)
                    to &= 0xFFFFFFFFFFFFull;
                CHECK_EQ(to, eto, "TO entry %u %02X_%02XH", k, r->family, r->model);
            }
        }
        CHECK_EQ(dsm_rdmsr(&c, r->from + depth, &v), DSM_GP, "FROM beyond depth %02X_%02XH", r->family, r->model);
        CHECK_EQ(dsm_wrmsr(&c, tos_msr, depth), DSM_GP, "TOS >= depth faults");
        if (r->info)
            CHECK_EQ(dsm_rdmsr(&c, r->info, &v), DSM_OK, "LBR_INFO present");
        else
            CHECK_EQ(dsm_rdmsr(&c, 0xDC0, &v), DSM_GP, "no LBR_INFO %02X_%02XH", r->family, r->model);
    }
    /* explicit rows from SDM Table 17-4 */
    mk(&c, DSM_CORE2, LIN64);
    CHECK_EQ(c.lbr.depth, 4, "06_0FH 4 entries");
    CHECK_EQ(c.lbr.from, 0x40, "Core 2 FROM 0x40");
    CHECK_EQ(c.lbr.to, 0x60, "Core 2 TO 0x60");
    mk(&c, DSM_ATOM, LIN64);
    CHECK_EQ(c.lbr.depth, 8, "06_1CH 8 entries");
    mk(&c, DSM_NEHALEM, LIN64);
    CHECK(c.lbr.depth == 16 && c.lbr.from == 0x680 && c.lbr.to == 0x6C0, "Nehalem 16 at 0x680/0x6C0");
    mk(&c, DSM_SKYLAKE, LIN64);
    CHECK(c.lbr.depth == 32 && c.lbr.info == 0xDC0, "Skylake 32 + LBR_INFO 0xDC0");
    mk(&c, DSM_NETBURST_M2, LIN32);
    CHECK(c.lbr.depth == 4 && c.lbr.from == 0x1DB && c.lbr.tos == 0x1DA, "NetBurst early 0x1DB packed, TOS 0x1DA");
    mk(&c, DSM_NETBURST_M3, LIN32);
    CHECK(c.lbr.depth == 16 && c.lbr.from == 0x680 && c.lbr.tos == 0x1DA, "NetBurst model 3 16 at 0x680");
    CHECK_EQ(dsm_set_lbr_row(&c, &rows[8]), DSM_EINVAL, "family 06 row on a NetBurst profile");
    /* Arch LBR: depth write clears, reserved LBR_CTL bits, depth values */
    const struct dsm_lbr_row *arch = NULL;
    for (size_t i = 0; i < n; i++)
        if (rows[i].arch)
            arch = &rows[i];
    CHECK(arch != NULL, "an Arch LBR row exists");
    mk(&c, DSM_ICELAKE, LIN64);
    CHECK_EQ(dsm_set_lbr_row(&c, arch), DSM_OK, "Arch LBR row");
    CHECK_EQ(dsm_wrmsr(&c, 0x14CE, 1ull << 4), DSM_GP, "LBR_CTL bit 4 reserved");
    CHECK_EQ(dsm_wrmsr(&c, 0x14CF, 12), DSM_GP, "depth must be a multiple of 8");
    CHECK_EQ(dsm_wrmsr(&c, 0x14CF, 40), DSM_GP, "depth above CPUID maximum");
    wr(&c, 0x14CF, 8);
    wr(&c, 0x14CE, 0x7F0007);
    struct dsm_event ab = ev_branch(0x111, 0x222, true);
    dsm_retire(&c, &ab);
    CHECK_EQ(rd(&c, 0x1500), 0x111, "Arch LBR FROM");
    CHECK_EQ(rd(&c, 0x1200) >> 63, 1, "Arch LBR INFO mispredict");
    CHECK_EQ((rd(&c, 0x1200) >> 56) & 0xF, 2, "branch type 2 = near relative jump");
    uint64_t v8;
    CHECK_EQ(dsm_rdmsr(&c, 0x1508, &v8), DSM_GP, "entry 8 beyond depth 8");
    wr(&c, 0x14CF, 16);
    CHECK_EQ(rd(&c, 0x1500), 0, "writing the depth clears the entries");
    wr(&c, 0x14CE, 0x7F0005);   /* OS off */
    ab.cpl = 0;
    dsm_retire(&c, &ab);
    CHECK_EQ(rd(&c, 0x1500), 0, "CPL 0 filtered by LBR_CTL.OS = 0");
    struct dsm_lbr_row fake = rows[0];
    CHECK_EQ(dsm_set_lbr_row(&c, &fake), DSM_EINVAL, "row not from the table");
}

static void test_lbr_formats_freeze(void)
{
    struct dsm_cpu c;
    /* fmt 3 (Nehalem): FROM bit 63 = mispredicted */
    mk(&c, DSM_NEHALEM, LIN64);
    wr(&c, 0x1D9, 1);
    struct dsm_event b = ev_branch(0x7FFF12345678ull, 0x1000, true);
    dsm_retire(&c, &b);
    uint64_t f = rd(&c, 0x680 + (uint32_t)rd(&c, 0x1C9));
    CHECK_EQ(f >> 63, 1, "fmt 3 mispredict bit");
    CHECK_EQ((uint64_t)((int64_t)(f << 1) >> 1), 0x7FFF12345678ull, "fmt 3 address decode");
    /* LBR_SELECT: suppress JCC and CPL 0 */
    wr(&c, 0x1C8, (1 << 2) | 1);
    uint64_t tos = rd(&c, 0x1C9);
    b.br_kind = DSM_BR_JCC;
    dsm_retire(&c, &b);
    b.br_kind = DSM_BR_NEAR_RET;
    b.cpl = 0;
    dsm_retire(&c, &b);
    CHECK_EQ(rd(&c, 0x1C9), tos, "LBR_SELECT filtered both");
    b.cpl = 3;
    dsm_retire(&c, &b);
    CHECK_EQ(rd(&c, 0x1C9), (tos + 1) & 15, "NEAR_RET at CPL 3 recorded");
    /* fmt 4 (Haswell): bits 62:61 TSX, address sign-extended from bit 60 */
    mk(&c, DSM_HASWELL, LIN64);
    wr(&c, 0x1D9, 1);
    b = ev_branch(0xFFFFFFFF81000000ull, 0x1000, true);
    dsm_retire(&c, &b);
    f = rd(&c, 0x680 + (uint32_t)rd(&c, 0x1C9));
    CHECK_EQ(f >> 61, 4, "fmt 4: mispred 1, IN_TX 0, ABORT 0");
    CHECK_EQ((uint64_t)((int64_t)(f << 3) >> 3), 0xFFFFFFFF81000000ull, "fmt 4 decode");
    /* fmt 5 (Skylake): LBR_INFO mispredict + cycles; legacy freeze on v3 */
    mk(&c, DSM_SKYLAKE, LIN64);
    wr(&c, 0x1D9, 1);
    struct dsm_event p = ev_plain(0x10);
    b = ev_branch(0x1000, 0x2000, false);
    dsm_retire(&c, &b);
    dsm_retire(&c, &p);
    dsm_retire(&c, &p);
    b.flags |= DSM_EV_MISPRED;
    dsm_retire(&c, &b);
    uint32_t t = (uint32_t)rd(&c, 0x1C9);
    uint64_t info = rd(&c, 0xDC0 + t);
    CHECK_EQ(info >> 63, 1, "LBR_INFO mispredict");
    CHECK_EQ(info & 0xFFFF, 3, "LBR_INFO cycles since the previous branch (1/instruction)");
    CHECK_EQ(rd(&c, 0xDC0 + ((t - 1) & 31)) >> 63, 0, "older entry predicted");
    /* FREEZE_LBRS_ON_PMI, v4: LBR_Frz, ack unfreezes */
    wr(&c, 0x1D9, 1 | (1 << 11));
    wr(&c, 0x186, 0xC0 | (1 << 16) | (1 << 20) | (1 << 22));
    wr(&c, 0x4C1, 0xFFFFFFFFFFFFull);
    wr(&c, 0x38F, 1);
    dsm_retire(&c, &p);   /* overflow + PMI */
    CHECK(rd(&c, 0x38E) & (1ull << 58), "v4: LBR_Frz set");
    CHECK_EQ(rd(&c, 0x1D9) & 1, 1, "v4: DEBUGCTL.LBR untouched");
    t = (uint32_t)rd(&c, 0x1C9);
    dsm_retire(&c, &b);
    CHECK_EQ(rd(&c, 0x1C9), t, "frozen LBR records nothing");
    wr(&c, 0x390, rd(&c, 0x38E));
    dsm_retire(&c, &b);
    CHECK_EQ(rd(&c, 0x1C9), (t + 1) & 31, "ack through STATUS_RESET unfreezes LBR");
    /* legacy (Haswell v3): FREEZE_LBRS_ON_PMI clears DEBUGCTL.LBR */
    mk(&c, DSM_HASWELL, LIN64);
    wr(&c, 0x1D9, 1 | (1 << 11));
    wr(&c, 0x186, 0xC0 | (1 << 16) | (1 << 20) | (1 << 22));
    wr(&c, 0x4C1, 0xFFFFFFFFFFFFull);
    wr(&c, 0x38F, 1);
    dsm_retire(&c, &p);
    CHECK_EQ(rd(&c, 0x1D9) & 1, 0, "legacy: DEBUGCTL.LBR cleared on PMI");
    CHECK(!(rd(&c, 0x38E) & (1ull << 58)), "legacy: no LBR_Frz");
    t = (uint32_t)rd(&c, 0x1C9);
    dsm_retire(&c, &b);
    CHECK_EQ(rd(&c, 0x1C9), t, "LBR off after freeze");
}

/* ---- freeze on PMI: legacy vs streamlined (SDM Table 17-3) -------------- */
static void test_freeze(void)
{
    struct dsm_cpu c;
    struct dsm_event p = ev_plain(0x10);
    mk(&c, DSM_NEHALEM, LIN64);
    wr(&c, 0x1D9, 1 << 12);
    wr(&c, 0x186, 0xC0 | (1 << 16) | (1 << 20) | (1 << 22));
    wr(&c, 0x187, 0xC0 | (1 << 16) | (1 << 22));
    wr(&c, 0xC1, 0xFFFFFFFF);
    wr(&c, 0x38F, 3);
    dsm_retire(&c, &p);
    CHECK_EQ(rd(&c, 0x38F), 0, "legacy freeze clears GLOBAL_CTRL");
    CHECK_EQ(rd(&c, 0x38E), 1, "status kept");
    uint64_t pmc1 = rd(&c, 0xC2);
    dsm_retire(&c, &p);
    CHECK_EQ(rd(&c, 0xC2), pmc1, "frozen");
    wr(&c, 0x390, 1);
    dsm_retire(&c, &p);
    CHECK_EQ(rd(&c, 0xC2), pmc1, "ack alone does not unfreeze on v3");
    wr(&c, 0x38F, 3);
    dsm_retire(&c, &p);
    CHECK_EQ(rd(&c, 0xC2), pmc1 + 1, "rewriting GLOBAL_CTRL resumes");

    mk(&c, DSM_SKYLAKE, LIN64);
    wr(&c, 0x1D9, 1 << 12);
    wr(&c, 0x186, 0xC0 | (1 << 16) | (1 << 20) | (1 << 22));
    wr(&c, 0x187, 0xC0 | (1 << 16) | (1 << 22));
    wr(&c, 0x4C1, 0xFFFFFFFFFFFFull);
    wr(&c, 0x38F, 3);
    dsm_retire(&c, &p);
    CHECK_EQ(rd(&c, 0x38F), 3, "v4: GLOBAL_CTRL untouched");
    CHECK_EQ(rd(&c, 0x38E), (1ull << 59) | 1, "v4: CTR_Frz | Ovf_PMC0");
    pmc1 = rd(&c, 0xC2);
    dsm_retire(&c, &p);
    CHECK_EQ(rd(&c, 0xC2), pmc1, "v4: frozen");
    wr(&c, 0x390, (1ull << 59) | 1);
    CHECK_EQ(rd(&c, 0x38E), 0, "STATUS_RESET clears");
    dsm_retire(&c, &p);
    CHECK_EQ(rd(&c, 0xC2), pmc1 + 1, "v4: the ack unfreezes");
    wr(&c, 0x391, 1ull << 59);
    CHECK_EQ(rd(&c, 0x38E), 1ull << 59, "STATUS_SET sets");
    CHECK_EQ(dsm_wrmsr(&c, 0x391, 1ull << 63), DSM_GP, "STATUS_SET has no bit 63");
}

/* ---- statistics --------------------------------------------------------- */
static void test_stats(void)
{
    struct dsm_cpu c;
    mk(&c, DSM_SKYLAKE, LIN64);
    dsm_stats_reset(&c);
    uint64_t v;
    dsm_rdmsr(&c, 0x38E, &v);
    dsm_rdmsr(&c, 0x38E, &v);
    dsm_wrmsr(&c, 0x390, 0);
    dsm_wrmsr(&c, 0x12345, 0);
    uint32_t r, w, f;
    dsm_msr_count(&c, 0x38E, &r, &w, &f);
    CHECK(r == 2 && w == 0 && f == 0, "per-MSR reads");
    dsm_msr_count(&c, 0x390, &r, &w, &f);
    CHECK(r == 0 && w == 1 && f == 0, "per-MSR writes");
    dsm_msr_count(&c, 0x12345, &r, &w, &f);
    CHECK(w == 1 && f == 1, "per-MSR faults");
    const struct dsm_stats *s = dsm_stats(&c);
    CHECK(s->rdmsr == 2 && s->wrmsr == 2 && s->wrmsr_gp == 1 && s->rdmsr_gp == 0, "per-kind totals");
    CHECK_EQ(dsm_rdmsr(&c, 0x38E, NULL), DSM_EINVAL, "NULL out");
    CHECK_EQ(dsm_retire(&c, NULL), DSM_EINVAL, "NULL event");
    struct dsm_event e = ev_plain(0);
    e.cpl = 4;
    CHECK_EQ(dsm_retire(&c, &e), DSM_EINVAL, "cpl 4");
}

/* ---- 32-bit DS layout, IA-32e selection, memory faults ------------------ */
static void test_layouts(void)
{
    struct dsm_cpu c;
    mk(&c, DSM_NETBURST_M4_64, LIN64);
    CHECK(dsm_ds64(&c), "DTES64: 64-bit layout");
    CHECK_EQ(dsm_set_ia32e(&c, false), DSM_OK, "leave IA-32e");
    CHECK(dsm_ds64(&c), "DTES64: 64-bit layout in every mode");
    mk(&c, DSM_NETBURST_M3, LIN32);
    CHECK(!dsm_ds64(&c), "no DTES64, not IA-32e: 32-bit layout");
    CHECK_EQ(dsm_set_ia32e(&c, true), DSM_EINVAL, "no IA-32e on a 32-bit part");
    CHECK_EQ(dsm_bts_record_size(&c), 12, "12-byte BTS");
    /* DS area pointing at unmapped memory: record skipped, counted */
    mk(&c, DSM_SKYLAKE, LIN64);
    wr(&c, 0x600, 0x1000);   /* not mapped by the fake memory */
    wr(&c, 0x1D9, (1 << 6) | (1 << 7));
    struct dsm_event b = ev_branch(1, 2, false);
    dsm_retire(&c, &b);
    CHECK_EQ(dsm_stats(&c)->bts_skipped, 1, "unmapped DS area: skipped");
    CHECK(dsm_stats(&c)->mem_faults >= 1, "memory fault counted");
}

/* ---- throughput + conservation: a handler drains at every PMI ------------ */
struct drain_ctx {
    struct dsm_cpu *c;
    uint64_t drained_pebs, drained_bts;
};

static void drain_pmi(void *ctx, uint32_t why)
{
    struct drain_ctx *d = ctx;
    uint64_t area = LIN64;
    if (why & DSM_PMI_PEBS) {
        uint64_t base = rd64(&mem, area + 0x20), idx = rd64(&mem, area + 0x28);
        d->drained_pebs += (idx - base) / 0xC8;
        wr64(&mem, area + 0x28, base);
        uint64_t st;
        dsm_rdmsr(d->c, 0x38E, &st);
        dsm_wrmsr(d->c, 0x390, st);
    }
    if (why & DSM_PMI_BTS) {
        uint64_t base = rd64(&mem, area + 0x00), idx = rd64(&mem, area + 0x08);
        d->drained_bts += (idx - base) / 24;
        wr64(&mem, area + 0x08, base);
    }
}

static void test_throughput(void)
{
    struct dsm_cpu c;
    mk(&c, DSM_SKYLAKE, LIN64);
    struct drain_ctx d = { &c, 0, 0 };
    dsm_set_pmi(&c, drain_pmi, &d);
    const uint64_t P = 97, mask = 0xFFFFFFFFFFFFull;
    uint64_t bb = LIN64 + 0x40000;
    /* PEBS: 64 records, threshold after 60; BTS: 256 records, threshold 250 */
    ds_setup(&mem, LIN64, true, bb, bb + 256 * 24, bb + 250 * 24, LIN64 + PEBS_BUF,
             LIN64 + PEBS_BUF + 64 * 0xC8, LIN64 + PEBS_BUF + 60 * 0xC8);
    wr64(&mem, LIN64 + 0x40, (-P) & mask);
    wr(&c, 0x600, LIN64);
    wr(&c, 0x186, 0xC0 | (1 << 16) | (1 << 22));
    wr(&c, 0x4C1, (-P) & mask);
    wr(&c, 0x3F1, 1);
    wr(&c, 0x38F, 1);
    wr(&c, 0x1D9, 1 | (1 << 6) | (1 << 7) | (1 << 8));
    const uint64_t N = 2000000;
    uint64_t branches = 0;
    struct dsm_event e = ev_plain(0x400000);
    clock_t t0 = clock();
    for (uint64_t i = 0; i < N; i++) {
        e.ip = 0x400000 + (i & 0xFFF) * 4;
        bool br = (i % 7) == 3;
        e.flags = br ? (DSM_EV_BRANCH | DSM_EV_TAKEN) : 0;
        e.br_to = e.ip + 0x40;
        branches += br;
        dsm_retire(&c, &e);
    }
    double secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
    const struct dsm_stats *s = dsm_stats(&c);
    uint64_t left_pebs = (rd64(&mem, LIN64 + 0x28) - rd64(&mem, LIN64 + 0x20)) / 0xC8;
    uint64_t left_bts = (rd64(&mem, LIN64 + 0x08) - rd64(&mem, LIN64 + 0x00)) / 24;
    CHECK_EQ(s->pebs_written + s->pebs_skipped, dsm_pebs_expected(N, P), "every PEBS assist accounted");
    CHECK_EQ(s->pebs_skipped, 0, "draining at the threshold loses nothing");
    CHECK_EQ(d.drained_pebs + left_pebs, s->pebs_written, "drained + left = written (PEBS)");
    CHECK_EQ(s->bts_written, branches, "one BTS record per taken branch");
    CHECK_EQ(d.drained_bts + left_bts, s->bts_written, "drained + left = written (BTS)");
    CHECK_EQ(s->lbr_written, branches, "one LBR entry per taken branch");
    printf("# throughput: %llu events in %.3f s (%.1f M events/s, sanitizers %s)\n", (unsigned long long)N, secs,
           secs > 0 ? N / secs / 1e6 : 0.0,
#if defined(__SANITIZE_ADDRESS__)
           "on"
#else
           "off"
#endif
    );
}

/* identity memory ops (what the kernel uses): linear address == pointer */
static void test_identity_ops(void)
{
    static _Alignas(64) uint8_t buf[4096];
    memset(buf, 0, sizeof(buf));
    struct dsm_cpu c;
    CHECK_EQ(dsm_init(&c, DSM_SKYLAKE, &dsm_identity_mem_ops, NULL), DSM_OK, "init identity");
    uint64_t area = (uint64_t)(uintptr_t)buf, bb = area + 0x100;
    uint64_t f[8] = { bb, bb, bb + 10 * 24, bb + 8 * 24, 0, 0, 0, 0 };
    memcpy(buf, f, sizeof(f));
    wr(&c, 0x600, area);
    wr(&c, 0x1D9, (1 << 6) | (1 << 7));
    struct dsm_event b = ev_branch(0x1234, 0x5678, false);
    dsm_retire(&c, &b);
    uint64_t rec[3], idx;
    memcpy(rec, buf + 0x100, sizeof(rec));
    memcpy(&idx, buf + 8, 8);
    CHECK(rec[0] == 0x1234 && rec[1] == 0x5678, "identity ops: BTS record in host memory");
    CHECK_EQ(idx, bb + 24, "identity ops: index written");
    uint8_t x[4];
    CHECK_EQ(dsm_identity_mem_ops.read(NULL, ~0ull - 1, x, 4), -1, "wrapping range refused");
    CHECK_EQ(dsm_identity_mem_ops.write(NULL, ~0ull, x, 2), -1, "wrapping range refused (write)");
}

int main(void)
{
    test_profiles();
    test_reserved_bits();
    test_counters();
    test_pebs_core2();
    test_pebs_nehalem_ll();
    test_pebs_haswell_skylake();
    test_pebs_icelake_adaptive();
    test_netburst();
    test_bts();
    test_lbr_rows();
    test_lbr_formats_freeze();
    test_freeze();
    test_stats();
    test_layouts();
    test_throughput();
    test_identity_ops();
    return check_summary();
}
