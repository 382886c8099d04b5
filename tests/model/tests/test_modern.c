/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The model alone (no libds) on the issue 11 profiles: perfmon v6 aliased MSRs
 * (SDM "Architectural Performance Monitoring Version 6"), PEBS format 6
 * MSR_PEBS_DATA_CFG and the counters group byte layout (Linux ds.c struct
 * pebs_cntr_header), the DS reset slot of fixed counters from format 5 on
 * (32 + m, Linux intel_pmu_pebs_enable), timed PEBS (retire latency in header
 * bits 47:32, Linux struct pebs_basic), Arch LBR depths from CPUID.1CH:EAX.
 */
#include <stdio.h>
#include "check.h"
#include "model_util.h"

#define LIN64 0xFFFF800000200000ull
#define PEBS_BUF 0x1000u
static _Alignas(4096) uint8_t blk[1 << 16];
static struct fake_mem mem;

static void wr(struct dsm_cpu *c, uint32_t msr, uint64_t v)
{
    CHECK_EQ(dsm_wrmsr(c, msr, v), DSM_OK, "wrmsr 0x%X = 0x%llx", msr, (unsigned long long)v);
}

static void mk(struct dsm_cpu *c, enum dsm_profile p)
{
    CHECK_EQ(fm_cpu_init(c, p, &mem, blk, sizeof blk, LIN64), DSM_OK, "init %s", dsm_profile_name(p));
    /* 64-bit DS area at LIN64: PEBS buffer of 16 KiB, threshold at the end */
    ds_setup(&mem, LIN64, true, 0, 0, 0, LIN64 + PEBS_BUF, LIN64 + PEBS_BUF + 0x4000, LIN64 + PEBS_BUF + 0x4000);
    wr(c, 0x600, LIN64);
}

static void test_v6_msrs(void)
{
    struct dsm_cpu c;
    uint64_t v;
    mk(&c, DSM_LUNARLAKE);
    CHECK_EQ(c.ngp, 10, "23H.1 EAX 3FFH: 10 GP counters");
    CHECK_EQ(c.nfixed, 4, "23H.1 EBX FH: 4 fixed counters");
    wr(&c, 0x1900 + 4 * 9, 0x123);                       /* IA32_PMC_GP9_CTR */
    CHECK_EQ(dsm_rdmsr(&c, 0x1900 + 4 * 9, &v), DSM_OK, "GP9 CTR read");
    CHECK_EQ(v, 0x123, "GP9 CTR value");
    wr(&c, 0x1901 + 4 * 9, 0xC0 | (1ull << 16) | (0x5ull << 40) | (1ull << 36)); /* CFG_A: UMASK2, EQ */
    CHECK_EQ(dsm_wrmsr(&c, 0x1901, 1ull << 35), DSM_GP, "CFG_A bit 35 reserved");
    CHECK_EQ(dsm_wrmsr(&c, 0x1900, 1ull << 48), DSM_GP, "CTR beyond 48 bits");
    CHECK_EQ(dsm_rdmsr(&c, 0x1900 + 4 * 10, &v), DSM_GP, "GP10 absent");
    CHECK_EQ(dsm_rdmsr(&c, 0x1902, &v), DSM_GP, "CFG_B not modelled");
    CHECK_EQ(dsm_rdmsr(&c, 0x1903, &v), DSM_GP, "CFG_C not modelled");
    wr(&c, 0x1980 + 4 * 3, 7);                            /* IA32_PMC_FX3_CTR */
    CHECK_EQ(dsm_rdmsr(&c, 0x30C, &v), DSM_OK, "fixed 3 legacy alias");
    CHECK_EQ(v, 7, "fixed 3 through both MSRs");
    CHECK_EQ(dsm_rdmsr(&c, 0x1980 + 4 * 4, &v), DSM_GP, "fixed 4 absent");
    CHECK_EQ(dsm_rdmsr(&c, 0x1981, &v), DSM_GP, "fixed CFG_A hole");
    wr(&c, 0xC1, 5);
    CHECK_EQ(dsm_rdmsr(&c, 0x1900, &v), DSM_OK, "GP0 alias");
    CHECK_EQ(v, 5, "legacy PMC0 and GP0_CTR are one counter");
    CHECK_EQ(dsm_rdmsr(&c, 0xC9, &v), DSM_GP, "0C9H is no PMC even with 10 counters");
    CHECK_EQ(dsm_rdmsr(&c, 0x18E, &v), DSM_GP, "18EH is no EVTSEL");
    CHECK_EQ(dsm_rdmsr(&c, 0x4C9, &v), DSM_GP, "4C9H is no A_PMC");
    wr(&c, 0x38F, 0x3FF | (0xFull << 32));
    CHECK_EQ(dsm_wrmsr(&c, 0x38F, 1ull << 10), DSM_GP, "GLOBAL_CTRL GP10");
    mk(&c, DSM_SAPPHIRERAPIDS);
    CHECK_EQ(dsm_rdmsr(&c, 0x1900, &v), DSM_GP, "no aliases before v6");
    uint32_t out[4];
    dsm_cpuid(&c, 0x23, 0, out);
    CHECK(out[0] == 0 && out[1] == 0, "no leaf 23H on Sapphire Rapids (max leaf 20H)");
}

static void test_data_cfg(void)
{
    struct dsm_cpu c;
    mk(&c, DSM_LUNARLAKE);
    wr(&c, 0x3F2, 0x10 | (0x3FFull << 32) | (0xFull << 48));
    wr(&c, 0x3F2, 0x20);   /* metrics, bit 5: PERF_CAPABILITIES.PERF_METRICS set on the P-core */
    CHECK_EQ(dsm_wrmsr(&c, 0x3F2, 0x10 | (1ull << 42)), DSM_GP, "GP mask bit of absent GP10");
    CHECK_EQ(dsm_wrmsr(&c, 0x3F2, 0x10 | (1ull << 52)), DSM_GP, "fixed mask bit of absent fixed 4");
    CHECK_EQ(dsm_wrmsr(&c, 0x3F2, 1ull << 56), DSM_GP, "bits 63:56 reserved");
    mk(&c, DSM_SAPPHIRERAPIDS);
    CHECK_EQ(dsm_wrmsr(&c, 0x3F2, 0x10), DSM_GP, "format 4: bit 4 reserved");
    CHECK_EQ(dsm_wrmsr(&c, 0x3F2, 1ull << 32), DSM_GP, "format 4: bit 32 reserved");
}

/* Counters group after the basic group: {u32 gp, u32 fixed, u32 metrics,
 * u32 reserved}, then GP values in bit order, then fixed values. */
static void test_counters_group(void)
{
    struct dsm_cpu c;
    mk(&c, DSM_LUNARLAKE);
    uint64_t cfg = 0x10 | (0x201ull << 32) | (0x8ull << 48);      /* GP0, GP9, fixed 3 */
    wr(&c, 0x3F2, cfg);
    CHECK_EQ(dsm_pebs_record_size(&c), 32 + 16 + 3 * 8, "record size with the counters group");
    wr(&c, 0x1900 + 4 * 9, 1000);
    wr(&c, 0x1901 + 4 * 9, 0xC0 | (1ull << 16) | (1ull << 22));  /* GP9 counts instructions */
    wr(&c, 0x1980 + 4 * 3, 50);
    wr(&c, 0x38D, 0x2ull << 12);                                   /* fixed 3: USR */
    wr(&c, 0x1900, 0xFFFFFFFFFFFFull);
    wr(&c, 0x1901, 0xC0 | (1ull << 16) | (1ull << 22) | (1ull << 34));
    wr(&c, 0x3F1, 1);
    wr(&c, 0x38F, 1 | (1ull << 9) | (1ull << 35));
    struct dsm_event e = ev_plain(0x5000);
    dsm_retire(&c, &e);   /* GP0 overflows, arms */
    e = ev_plain(0x5010);
    dsm_retire(&c, &e);   /* assist */
    CHECK_EQ(dsm_stats(&c)->pebs_written, 1, "one record");
    uint64_t r = LIN64 + PEBS_BUF;
    uint64_t hdr = rd64(&mem, r);
    CHECK_EQ(hdr >> 48, 72, "size in the header");
    CHECK_EQ(hdr & 0xFFFFFFFFFFFFull, 0x10, "header bits 47:0: groups only (masks are in the group)");
    CHECK_EQ(rd32(&mem, r + 32), 0x201, "group header: GP mask");
    CHECK_EQ(rd32(&mem, r + 36), 0x8, "group header: fixed mask");
    CHECK_EQ(rd32(&mem, r + 40), 0, "group header: no metrics");
    CHECK_EQ(rd32(&mem, r + 44), 0, "group header: reserved");
    CHECK_EQ(rd64(&mem, r + 48), 0, "GP0: the PEBS counter, between overflow and reload");
    CHECK_EQ(rd64(&mem, r + 56), 1002, "GP9: 1000 + 2 instructions");
    CHECK_EQ(rd64(&mem, r + 64), 52, "fixed 3: 50 + 2 instructions");
}

/* Metrics (DATA_CFG bit 5; Linux pebs_update_adaptive_cfg, __setup_pebs_counter_group):
 * the group header's metrics field is INTEL_CNTR_METRICS (3) and two qwords follow
 * the counters: TOPDOWN.SLOTS (fixed counter 3) and IA32_PERF_METRICS (329H).
 * Bit 5 alone still brings the 16-byte header (no counters). The E-core has no
 * PERF_METRICS: bit 5 and 329H #GP. */
static void test_metrics(void)
{
    struct dsm_cpu c;
    uint64_t v;
    mk(&c, DSM_LUNARLAKE);
    wr(&c, 0x329, 0x1122334455667788ull);
    CHECK_EQ(dsm_rdmsr(&c, 0x329, &v), DSM_OK, "IA32_PERF_METRICS readable");
    CHECK_EQ(v, 0x1122334455667788ull, "as written");
    wr(&c, 0x3F2, 0x30 | (0x2ull << 32));                          /* counters GP1 + metrics */
    CHECK_EQ(dsm_pebs_record_size(&c), 32 + 16 + 8 + 16, "size: header, GP1, slots + metrics");
    wr(&c, 0x3F2, 0x20);
    CHECK_EQ(dsm_pebs_record_size(&c), 32 + 16 + 16, "size: bit 5 alone");
    wr(&c, 0x1980 + 4 * 3, 100);
    wr(&c, 0x38D, 0x3ull << 12);                                   /* fixed 3 (slots): OS+USR */
    wr(&c, 0x1900, 0xFFFFFFFFFFFFull);
    wr(&c, 0x1901, 0xC0 | (1ull << 16) | (1ull << 17) | (1ull << 22) | (1ull << 34));
    wr(&c, 0x3F1, 1);
    wr(&c, 0x38F, 1 | (1ull << 35));
    struct dsm_event e = ev_plain(0x5000);
    dsm_retire(&c, &e);
    e = ev_plain(0x5010);
    dsm_retire(&c, &e);
    CHECK_EQ(dsm_stats(&c)->pebs_written, 1, "one record");
    uint64_t r = LIN64 + PEBS_BUF;
    CHECK_EQ(rd64(&mem, r) >> 48, 64, "size in the header");
    CHECK_EQ(rd64(&mem, r) & 0xFFFFFFFFull, 0x20, "groups: bit 5");
    CHECK_EQ(rd32(&mem, r + 32), 0, "no GP mask");
    CHECK_EQ(rd32(&mem, r + 36), 0, "no fixed mask");
    CHECK_EQ(rd32(&mem, r + 40), 3, "metrics field INTEL_CNTR_METRICS");
    CHECK_EQ(rd64(&mem, r + 48), 102, "slots: fixed 3 = 100 + 2 events");
    CHECK_EQ(rd64(&mem, r + 56), 0x1122334455667788ull, "IA32_PERF_METRICS: stale without EN_PERF_METRICS");
    CHECK_EQ(dsm_rdmsr(&c, 0x329, &v), DSM_OK, "IA32_PERF_METRICS readable");
    CHECK_EQ(v, 0x1122334455667788ull, "not updated while GLOBAL_CTRL bit 48 is clear");
    /* issue 25 item 14: with EN_PERF_METRICS (GLOBAL_CTRL bit 48) and slots
     * counting, the model's metrics are every slot retiring: Retiring FFH */
    wr(&c, 0x38F, 1 | (1ull << 35) | (1ull << 48));
    e = ev_plain(0x5020);
    dsm_retire(&c, &e);
    CHECK_EQ(dsm_rdmsr(&c, 0x329, &v), DSM_OK, "IA32_PERF_METRICS readable");
    CHECK_EQ(v, 0xFF, "updated with EN_PERF_METRICS: Retiring FFH, the other metrics 0");
    wr(&c, 0x329, 0x1234);
    wr(&c, 0x38F, 1 | (1ull << 48));               /* bit 48 without fixed 3 counting */
    e = ev_plain(0x5030);
    dsm_retire(&c, &e);
    CHECK_EQ(dsm_rdmsr(&c, 0x329, &v), DSM_OK, "IA32_PERF_METRICS readable");
    CHECK_EQ(v, 0x1234, "not updated while fixed 3 does not count");
    mk(&c, DSM_LUNARLAKE_E);
    CHECK_EQ(dsm_wrmsr(&c, 0x3F2, 0x20), DSM_GP, "E-core: no PERF_METRICS, bit 5 reserved");
    CHECK_EQ(dsm_rdmsr(&c, 0x329, &v), DSM_GP, "E-core: no IA32_PERF_METRICS");
}

/* From format 5 the fixed counters' reset values are at DS slot 32 + m
 * (Linux intel_pmu_pebs_enable, MAX_PEBS_EVENTS + index); format 4: 8 + m. */
static void test_fixed_reset_slot(void)
{
    for (int fmt6 = 0; fmt6 < 2; fmt6++) {
        struct dsm_cpu c;
        mk(&c, fmt6 ? DSM_LUNARLAKE : DSM_SAPPHIRERAPIDS);
        wr64(&mem, LIN64 + 0x40 + 8 * 8, 0xFFFFFFFF0000ull);   /* slot 8 */
        wr64(&mem, LIN64 + 0x40 + 8 * 32, 0xFFFFFFFFF000ull);  /* slot 32 */
        wr(&c, fmt6 ? 0x1980 : 0x309, 0xFFFFFFFFFFFFull);
        wr(&c, 0x38D, 0x2 | (1ull << 32));                     /* fixed 0: USR, adaptive */
        wr(&c, 0x3F1, 1ull << 32);
        wr(&c, 0x38F, 1ull << 32);
        struct dsm_event e = ev_plain(0x6000);
        dsm_retire(&c, &e);
        dsm_retire(&c, &e);
        uint64_t v;
        CHECK_EQ(dsm_stats(&c)->pebs_written, 1, "fixed-counter record (fmt %d)", fmt6 ? 6 : 4);
        CHECK_EQ(dsm_rdmsr(&c, 0x309, &v), DSM_OK, "read fixed 0");
        CHECK_EQ(v, (fmt6 ? 0xFFFFFFFFF000ull : 0xFFFFFFFF0000ull) + 1, "reloaded from slot %d, then counted",
                 fmt6 ? 32 : 8);
        CHECK_EQ(rd64(&mem, LIN64 + PEBS_BUF + 16), 1ull << 32, "applicable counters: fixed 0");
    }
}

static void test_timed_pebs(void)
{
    for (int gnr = 0; gnr < 2; gnr++) {
        struct dsm_cpu c;
        mk(&c, gnr ? DSM_GRANITERAPIDS : DSM_SAPPHIRERAPIDS);
        /* PMC1: Golden/Redwood Cove C0H PEBS on PMC1-7 only ("PEBScounters") */
        wr(&c, 0x4C2, 0xFFFFFFFFFFFFull);
        wr(&c, 0x187, 0xC0 | (1ull << 16) | (1ull << 22));     /* not adaptive: basic group only */
        wr(&c, 0x3F1, 2);
        wr(&c, 0x38F, 2);
        struct dsm_event e = ev_plain(0x7000);
        e.retire_latency = 0xBEEF;
        dsm_retire(&c, &e);
        dsm_retire(&c, &e);
        uint64_t hdr = rd64(&mem, LIN64 + PEBS_BUF);
        CHECK_EQ(hdr, (32ull << 48) | (gnr ? 0xBEEFull << 32 : 0), "%s: header = size | retire latency 47:32",
                 gnr ? "graniterapids" : "sapphirerapids");
    }
}

static void test_arch_lbr_depth(void)
{
    static const enum dsm_profile ps[] = { DSM_SAPPHIRERAPIDS, DSM_ALDERLAKE_E, DSM_LUNARLAKE, DSM_LUNARLAKE_E };
    for (size_t i = 0; i < sizeof ps / sizeof ps[0]; i++) {
        struct dsm_cpu c;
        uint64_t v;
        const char *n = dsm_profile_name(ps[i]);
        mk(&c, ps[i]);
        CHECK_EQ(dsm_rdmsr(&c, 0x14CF, &v), DSM_OK, "IA32_LBR_DEPTH %s", n);
        CHECK_EQ(v, 32, "reset depth = deepest of 1CH EAX 0BH %s", n);
        CHECK_EQ(dsm_wrmsr(&c, 0x14CF, 24), DSM_GP, "depth 24 not in 1CH EAX 0BH %s", n);
        wr(&c, 0x14CF, 16);
        CHECK_EQ(dsm_rdmsr(&c, 0x1500 + 16, &v), DSM_GP, "entry 16 beyond depth 16 %s", n);
        wr(&c, 0x14CF, 8);
        CHECK_EQ(dsm_rdmsr(&c, 0x1DB, &v), DSM_GP, "no legacy LBR MSRs %s", n);
        CHECK_EQ(dsm_rdmsr(&c, 0x1C8, &v), DSM_GP, "no LBR_SELECT %s", n);
    }
}

/* Lunar Lake E-core (Skymont): CPUID 23H.1 EBX 77H in the real dump, fixed
 * counters 0-2 and 4-6, no fixed 3: every way to reach fixed 3 faults, fixed 4
 * works (the counters below 7 are not a contiguous count any more). */
static void test_fixed_holes(void)
{
    struct dsm_cpu c;
    uint64_t v;
    mk(&c, DSM_LUNARLAKE_E);
    CHECK_EQ(dsm_rdmsr(&c, 0x309 + 3, &v), DSM_GP, "IA32_FIXED_CTR3 (30CH) absent");
    CHECK_EQ(dsm_rdmsr(&c, 0x1980 + 4 * 3, &v), DSM_GP, "IA32_PMC_FX3_CTR (198CH) absent");
    CHECK_EQ(dsm_wrmsr(&c, 0x38F, 1ull << 35), DSM_GP, "GLOBAL_CTRL bit 35 (fixed 3) reserved");
    CHECK_EQ(dsm_wrmsr(&c, 0x38D, 0x3ull << 12), DSM_GP, "FIXED_CTR_CTRL nibble 3 reserved");
    CHECK_EQ(dsm_wrmsr(&c, 0x3F1, 1ull << 35), DSM_GP, "PEBS_ENABLE bit 35 (fixed 3) reserved");
    CHECK_EQ(dsm_wrmsr(&c, 0x3F2, 0x10ull | (0x8ull << 48)), DSM_GP, "DATA_CFG fixed mask bit 3 reserved");
    wr(&c, 0x309 + 4, 5);
    CHECK_EQ(dsm_rdmsr(&c, 0x1980 + 4 * 4, &v), DSM_OK, "IA32_PMC_FX4_CTR present");
    CHECK_EQ(v, 5, "fixed 4 aliased at 1990H");
    wr(&c, 0x38F, 0xFFull | (0x77ull << 32));
    wr(&c, 0x38D, 0x3ull << 16);
    wr(&c, 0x3F2, 0x10ull | (0xFFull << 32) | (0x77ull << 48));
    mk(&c, DSM_LUNARLAKE);   /* P-core: 23H.1 EBX FH, fixed 0-3 */
    CHECK_EQ(dsm_rdmsr(&c, 0x309 + 3, &v), DSM_OK, "P-core fixed 3 present");
    CHECK_EQ(dsm_rdmsr(&c, 0x309 + 4, &v), DSM_GP, "P-core fixed 4 absent");
}

int main(void)
{
    test_fixed_holes();
    test_v6_msrs();
    test_data_cfg();
    test_counters_group();
    test_metrics();
    test_fixed_reset_slot();
    test_timed_pebs();
    test_arch_lbr_depth();
    return check_summary();
}
