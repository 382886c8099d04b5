/* SPDX-License-Identifier: BSD-2-Clause */
/* Architectural / Core counters, PEBS enables and the period helper. */
#include "check.h"
#include "fake_pmu.h"
#include "fault_sweep.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* A family-6 CPU: @sig, perfmon leaf 0AH EAX/EDX/ECX, PERF_CAPABILITIES @caps (PDCM if non-zero). */
static void arch_cpu(struct fake_pmu *f, struct ds_cpu *cpu, uint32_t sig, uint32_t a0a, uint32_t d0a,
                     uint32_t c0a, uint64_t caps)
{
    fp_reset(f);
    fp_intel(f, 0xA, sig, (1u << 2) | (caps ? 1u << 15 : 0), 1u << 21);
    fp_cpuid_set(f, 0xA, 0, a0a, 0, c0a, d0a);
    fp_set(f, DS_MSR_IA32_MISC_ENABLE, 1u << 7);
    if (caps)
        fp_set(f, DS_MSR_IA32_PERF_CAPABILITIES, caps);
    unsigned ngp = (a0a >> 8) & 0xFF;
    for (unsigned i = 0; i < 8; i++) {
        if (i < ngp) {
            fp_set(f, 0xC1 + i, 0);
            fp_set(f, 0x186 + i, 0);
            if (caps & (1u << 13))
                fp_set(f, 0x4C1 + i, 0);
        }
        fp_set(f, 0x309 + i, 0);
    }
    fp_set(f, 0x38D, 0);
    fp_set(f, 0x38F, 0);
    fp_set(f, 0x3F1, 0);
    fp_set(f, 0x3F2, 0);
    fp_set(f, 0x3F6, 0);
    CHECK_EQ(fp_identify(f, cpu), DS_OK, "identify");
}

/* Skylake: v4, 4 GP x 48 bits, 3 fixed x 48; PEBS fmt 3, FW_WRITE */
static void skylake(struct fake_pmu *f, struct ds_cpu *cpu, bool fw)
{
    arch_cpu(f, cpu, 0x000506E3, 0x07300404, 0x00000603, 0, 0x1305 | (fw ? 1u << 13 : 0));
}

static void test_period(void)
{
    uint64_t s, r;
    CHECK_EQ(ds_pmc_period_values(48, true, 1, &s, &r), DS_OK, "period 1");
    CHECK(s == 0xFFFFFFFFFFFFull && r == s, "-1 at 48 bits");
    CHECK_EQ(ds_pmc_period_values(48, true, 1ull << 47, &s, &r), DS_OK, "2^47");
    CHECK_EQ(s, 1ull << 47, "start 2^47");
    CHECK_EQ(ds_pmc_period_values(48, true, (1ull << 47) + 1, &s, &r), DS_ERR_PMC_PERIOD_WIDE, "2^47+1");
    CHECK_EQ(ds_pmc_period_values(48, true, 1ull << 48, &s, &r), DS_ERR_PMC_PERIOD_WIDE, "wider than counter");
    CHECK_EQ(ds_pmc_period_values(48, true, 0, &s, &r), DS_ERR_PMC_PERIOD_ZERO, "period 0");
    CHECK_EQ(ds_pmc_period_values(48, false, 1ull << 31, &s, &r), DS_OK, "legacy 2^31");
    CHECK_EQ(s, 0xFFFF80000000ull, "legacy start is the sign-extended 32-bit value");
    CHECK_EQ(ds_pmc_period_values(48, false, (1ull << 31) + 1, &s, &r), DS_ERR_PMC_PERIOD_WIDE, "legacy 2^31+1");
    CHECK_EQ(ds_pmc_period_values(40, true, 100000, &s, &r), DS_OK, "40-bit");
    CHECK_EQ(s, 0xFFFFFE7960ull, "40-bit start");
    CHECK_EQ(ds_pmc_period_values(64, true, 1ull << 63, &s, &r), DS_OK, "64-bit");
    CHECK_EQ(ds_pmc_period_values(7, true, 1, &s, &r), DS_ERR_INVAL, "width 7");
    CHECK_EQ(ds_pmc_period_values(65, true, 1, &s, &r), DS_ERR_INVAL, "width 65");
    CHECK_EQ(ds_pmc_period_values(48, true, 1, NULL, &r), DS_ERR_NULL, "null");
    struct fake_pmu f;
    struct ds_cpu cpu;
    skylake(&f, &cpu, false);
    CHECK_EQ(ds_pmc_gp_period(&cpu, 1ull << 31, &s, &r), DS_OK, "gp period no fw");
    CHECK_EQ(ds_pmc_gp_period(&cpu, 1ull << 32, &s, &r), DS_ERR_PMC_PERIOD_WIDE, "no fw: > 2^31");
    skylake(&f, &cpu, true);
    CHECK_EQ(ds_pmc_gp_period(&cpu, 1ull << 32, &s, &r), DS_OK, "fw: 2^32");
    CHECK_EQ(s, 0xFFFF00000000ull, "fw start");
}

static void test_gp(void)
{
    struct fake_pmu f;
    struct ds_cpu cpu;
    uint64_t ev = DS_EVTSEL(0xC0, 0) | DS_EVTSEL_USR | DS_EVTSEL_OS | DS_EVTSEL_EN | DS_EVTSEL_INT;
    for (int fw = 0; fw < 2; fw++) {
        skylake(&f, &cpu, fw);
        for (unsigned i = 0; i < 5; i++) {
            fp_clear_log(&f);
            int r = ds_pmc_gp_program(&cpu, i, ev, 0xFFFFFFFF0000ull);
            if (i >= 4) {
                CHECK_EQ(r, DS_ERR_PMC_BAD_COUNTER, "PMC%u absent", i);
                CHECK_EQ(f.nlog, 0, "nothing touched");
                continue;
            }
            CHECK_EQ(r, DS_OK, "program PMC%u fw=%d", i, fw);
            CHECK(f.nlog == 3 && f.log[0].msr == 0x186 + i && f.log[0].val == 0, "EVTSEL cleared first");
            CHECK_EQ(f.log[1].msr, fw ? 0x4C1 + i : 0xC1 + i, "counter MSR (A_PMC with FW_WRITE)");
            CHECK_EQ(f.log[1].val, fw ? 0xFFFFFFFF0000ull : 0xFFFF0000ull, "counter value");
            CHECK(f.log[2].msr == 0x186 + i && f.log[2].val == ev, "EVTSEL last");
        }
        fp_clear_log(&f);
        int r = ds_pmc_gp_program(&cpu, 0, ev, 0x7FFF00000000ull);
        CHECK_EQ(r, fw ? DS_OK : DS_ERR_PMC_VALUE_WIDE, "value not sign-extended 32-bit");
        CHECK_EQ(ds_pmc_gp_program(&cpu, 0, ev, 1ull << 48), DS_ERR_PMC_VALUE_WIDE, "wider than 48");
        CHECK_EQ(ds_pmc_gp_write(&cpu, 1, 5), DS_OK, "write");
        uint64_t v;
        fp_set(&f, 0xC2, 0xFFFF123456789ABCull);
        CHECK_EQ(ds_pmc_gp_read(&cpu, 1, &v), DS_OK, "read");
        CHECK_EQ(v, 0x123456789ABCull, "read masked to width");
    }
    fp_clear_log(&f);
    CHECK_EQ(ds_pmc_gp_program(&cpu, 0, 1ull << 35, 0), DS_ERR_PMC_RESERVED, "bit 35");
    CHECK_EQ(ds_pmc_gp_program(&cpu, 0, DS_EVTSEL_ADAPTIVE, 0), DS_ERR_PMC_RESERVED, "adaptive without baseline");
    CHECK_EQ(f.nlog, 0, "rejects touch nothing");
    /* perfmon v2 (Core 2): ANY reserved */
    arch_cpu(&f, &cpu, 0x00010676, 0x07280202, 0x00000503, 0, 0);
    CHECK_EQ(ds_pmc_gp_program(&cpu, 0, DS_EVTSEL_ANY, 0), DS_ERR_PMC_RESERVED, "ANY on v2");
    CHECK_EQ(ds_pmc_gp_program(&cpu, 2, 0, 0), DS_ERR_PMC_BAD_COUNTER, "Core 2 has 2 GP");
    CHECK_EQ(ds_pmc_gp_program(&cpu, 0, DS_EVTSEL_IN_TX, 0), DS_ERR_PMC_RESERVED, "IN_TX on v2");
    /* no perfmon */
    fp_reset(&f);
    fp_intel(&f, 1, 0x000006D8, 0, 1u << 21);
    fp_set(&f, DS_MSR_IA32_MISC_ENABLE, 1u << 7);
    fp_identify(&f, &cpu);
    CHECK_EQ(ds_pmc_gp_program(&cpu, 0, 0, 0), DS_ERR_PMC_NO_ARCH, "no leaf 0AH");
    /* NetBurst */
    fp_reset(&f);
    fp_intel(&f, 2, 0x00000F29, 0, 1u << 21);
    fp_set(&f, DS_MSR_IA32_MISC_ENABLE, 1u << 7);
    fp_identify(&f, &cpu);
    CHECK_EQ(ds_pmc_gp_program(&cpu, 0, 0, 0), DS_ERR_PMC_NETBURST, "netburst");
    CHECK_EQ(ds_pmc_pebs_enable(&cpu, 0, 0), DS_ERR_PMC_NETBURST, "netburst pebs");
    ds_cpu_init(&cpu, &fp_ops, &f);
    CHECK_EQ(ds_pmc_gp_program(&cpu, 0, 0, 0), DS_ERR_NOT_IDENTIFIED, "not identified");
    CHECK_EQ(ds_pmc_gp_program(NULL, 0, 0, 0), DS_ERR_NULL, "null");
    /* pmc.h ds_pmc_pebs_errata_check: DS_ERR_NOT_IDENTIFIED with or without
     * DS_PMC_PEBS_ALLOW_ERRATA (mutant: its guard removed, sample seed 20261127) */
    CHECK_EQ(ds_pmc_pebs_errata_check(&cpu, 0), DS_ERR_NOT_IDENTIFIED, "errata check, not identified");
    CHECK_EQ(ds_pmc_pebs_errata_check(&cpu, DS_PMC_PEBS_ALLOW_ERRATA), DS_ERR_NOT_IDENTIFIED,
             "errata check allowing errata, not identified");
    CHECK_EQ(ds_pmc_pebs_errata_check(NULL, 0), DS_ERR_NULL, "errata check, null");
    CHECK_EQ(f.reads + f.writes, 0, "nothing touched");
}

static void test_fixed_global(void)
{
    struct fake_pmu f;
    struct ds_cpu cpu;
    skylake(&f, &cpu, true);
    fp_set(&f, 0x38D, 0xB0); /* fixed 1 already configured */
    CHECK_EQ(ds_pmc_fixed_program(&cpu, 0, DS_FIXED_OS | DS_FIXED_USR | DS_FIXED_PMI, false, 0x1234), DS_OK, "fixed 0");
    CHECK_EQ(fp_get(&f, 0x38D), 0xBB, "RMW keeps fixed 1");
    CHECK_EQ(fp_get(&f, 0x309), 0x1234, "counter loaded");
    CHECK_EQ(ds_pmc_fixed_program(&cpu, 2, DS_FIXED_ANY | DS_FIXED_OS, false, 0), DS_OK, "fixed 2 ANY on v4");
    CHECK_EQ(fp_get(&f, 0x38D), 0x5BB, "fixed 2 nibble");
    CHECK_EQ(ds_pmc_fixed_program(&cpu, 3, DS_FIXED_OS, false, 0), DS_ERR_PMC_BAD_FIXED, "fixed 3 absent");
    CHECK_EQ(ds_pmc_fixed_program(&cpu, 0, 0x10, false, 0), DS_ERR_PMC_RESERVED, "ctrl > 0xF");
    CHECK_EQ(ds_pmc_fixed_program(&cpu, 0, 1, true, 0), DS_ERR_PMC_RESERVED, "adaptive without baseline");
    CHECK_EQ(ds_pmc_fixed_program(&cpu, 0, 1, false, 1ull << 48), DS_ERR_PMC_VALUE_WIDE, "wide");
    CHECK_EQ(ds_pmc_global_ctrl(&cpu, 0x70000000Full), DS_OK, "global ctrl");
    CHECK_EQ(fp_get(&f, 0x38F), 0x70000000Full, "GLOBAL_CTRL");
    CHECK_EQ(ds_pmc_global_ctrl(&cpu, 1ull << 4), DS_ERR_PMC_RESERVED, "PMC4 absent");
    CHECK_EQ(ds_pmc_global_ctrl(&cpu, 1ull << 35), DS_ERR_PMC_RESERVED, "fixed 3 absent");
    CHECK_EQ(ds_pmc_global_ctrl(&cpu, 1ull << 48), DS_ERR_PMC_RESERVED, "no PERF_METRICS");
    /* v5 with ECX bitmap: fixed 0 and 2, EDX[4:0] = 1 -> fixed 1 absent
     * (SDM: FxCtr[i] supported iff ECX[i] || EDX[4:0] > i) */
    arch_cpu(&f, &cpu, 0x000806C1, 0x07300805, 0x00000601, 0x5, 0x4000 | 0x4000 | (4u << 8) | (1u << 13) | (1u << 15));
    CHECK_EQ(ds_pmc_fixed_program(&cpu, 1, 1, false, 0), DS_ERR_PMC_BAD_FIXED, "v5 bitmap: fixed 1 absent");
    CHECK_EQ(ds_pmc_fixed_program(&cpu, 2, 1, true, 0), DS_OK, "v5 bitmap: fixed 2, adaptive");
    CHECK_EQ(fp_get(&f, 0x38D), (1ull << 8) | (1ull << 40), "adaptive bit 32+4*2");
    CHECK_EQ(ds_pmc_global_ctrl(&cpu, (1ull << 48) | (1ull << 34) | 0xFF), DS_OK, "PERF_METRICS bit with caps");
    /* v1: no global, no fixed */
    arch_cpu(&f, &cpu, 0x000006E8, 0x07280201, 0, 0, 0);
    CHECK_EQ(ds_pmc_global_ctrl(&cpu, 1), DS_ERR_PMC_NO_GLOBAL, "v1 global");
    CHECK_EQ(ds_pmc_fixed_program(&cpu, 0, 1, false, 0), DS_ERR_PMC_BAD_FIXED, "v1 fixed");
}

/* SDM "PEBS Performance Events for Intel Core Microarchitecture" */
static const struct { uint8_t ev, um; } core2_pebs[] = {
    {0xC0, 0x00}, {0xC1, 0xFE}, {0xC5, 0x00}, {0xC7, 0x1F},
    {0xCB, 0x01}, {0xCB, 0x02}, {0xCB, 0x04}, {0xCB, 0x08}, {0xCB, 0x10},
};
static const struct { uint8_t ev, um; } core2_not_pebs[] = {
    {0x3C, 0x00}, {0xC0, 0x01}, {0xC4, 0x00}, {0xC7, 0x01}, {0xCB, 0x20}, {0x2E, 0x41},
};

static void test_core2_pebs(void)
{
    struct fake_pmu f;
    struct ds_cpu cpu;
    static const uint32_t sigs[] = { 0x000006F6, 0x00010661, 0x00010676, 0x000106D1 }; /* 0F 16 17 1D */
    for (size_t s = 0; s < N(sigs); s++) {
        /* Core 2: v2, 2 GP x 40 bits, PERF_CAPABILITIES PEBS fmt 0, LBR fmt 1 */
        arch_cpu(&f, &cpu, sigs[s], 0x07280202, 0x00000503, 0, 0x1 | (1u << 6));
        CHECK_EQ(cpu.caps.pebs_format, 0, "fmt 0");
        for (size_t i = 0; i < N(core2_pebs); i++)
            for (unsigned pmc = 0; pmc < 2; pmc++) {
                uint64_t evt = DS_EVTSEL(core2_pebs[i].ev, core2_pebs[i].um) | DS_EVTSEL_EN | DS_EVTSEL_USR;
                fp_set(&f, 0x3F1, 0);
                fp_clear_log(&f);
                /* 06_0FH needs the errata override (test_merom_errata) */
                int r = ds_pmc_pebs_enable_ex(&cpu, pmc, evt, s == 0 ? DS_PMC_PEBS_ALLOW_ERRATA : 0);
                if (pmc == 0) {
                    CHECK_EQ(r, DS_OK, "PEBS %02x/%02x on PMC0", core2_pebs[i].ev, core2_pebs[i].um);
                    CHECK_EQ(fp_get(&f, 0x3F1), 1, "IA32_PEBS_ENABLE bit 0");
                } else {
                    CHECK_EQ(r, DS_ERR_PMC_PEBS_COUNTER, "PEBS only on PMC0");
                    CHECK_EQ(f.nlog, 0, "nothing touched");
                }
                CHECK_EQ(ds_pmc_pebs_enable(&cpu, 0, evt | DS_EVTSEL_INT), DS_ERR_PMC_PEBS_INT, "INT set");
            }
        for (size_t i = 0; i < N(core2_not_pebs); i++) {
            fp_clear_log(&f);
            CHECK_EQ(ds_pmc_pebs_enable(&cpu, 0, DS_EVTSEL(core2_not_pebs[i].ev, core2_not_pebs[i].um)),
                     DS_ERR_PMC_PEBS_EVENT, "%02x/%02x not PEBS", core2_not_pebs[i].ev, core2_not_pebs[i].um);
            CHECK_EQ(f.nlog, 0, "nothing touched");
        }
        CHECK_EQ(ds_pmc_pebs_enable(&cpu, 2, DS_EVTSEL(0xC0, 0)), DS_ERR_PMC_BAD_COUNTER, "PMC2 absent");
        CHECK_EQ(ds_pmc_pebs_ldlat(&cpu, 0, 100), DS_ERR_PMC_NO_LDLAT, "no load latency on Core 2");
    }
    CHECK_EQ(ds_pmc_core2_pebs_event(0x1C, 0xC0, 0), DS_OK, "Atom INST_RETIRED");
    /* Linux intel_atom_pebs_event_constraints' catch-all row (issue 25 item 8) */
    CHECK_EQ(ds_pmc_core2_pebs_event(0x1C, 0xC1, 0xFE), DS_OK, "Atom X87 (Linux catch-all)");
    CHECK_EQ(ds_pmc_core2_pebs_event(0x1A, 0xC0, 0), DS_ERR_UNSUPPORTED, "Nehalem not fmt 0 model");
    /* PEBS unavailable / no DS */
    fp_set(&f, DS_MSR_IA32_MISC_ENABLE, (1u << 7) | (1u << 12));
    ds_cpu_identify(&cpu);
    CHECK_EQ(ds_pmc_pebs_enable(&cpu, 0, DS_EVTSEL(0xC0, 0)), DS_ERR_PEBS_UNAVAILABLE, "MISC_ENABLE[12]");
}

static void test_nehalem_icl_pebs(void)
{
    struct fake_pmu f;
    struct ds_cpu cpu;
    /* Nehalem 06_1AH: v3, 4 GP x 48, PEBS fmt 1 */
    arch_cpu(&f, &cpu, 0x000106A5, 0x07300403, 0x00000603, 0, (1u << 8) | 3 | (1u << 6));
    for (unsigned i = 0; i < 4; i++) {
        fp_set(&f, 0x3F1, 0);
        CHECK_EQ(ds_pmc_pebs_enable(&cpu, i, DS_EVTSEL(0xC0, 1)), DS_OK, "NHM PEBS PMC%u", i);
        CHECK_EQ(fp_get(&f, 0x3F1), 1ull << i, "bit %u", i);
        fp_set(&f, 0x3F1, 0);
        /* 0BH/10H counts on PMC3 only (perfmon "Counter": "3"; issue 25 item 7) */
        CHECK_EQ(ds_pmc_pebs_ldlat(&cpu, i, 3), i == 3 ? DS_OK : DS_ERR_PMC_PEBS_EVENT_COUNTER, "ldlat PMC%u", i);
        CHECK_EQ(fp_get(&f, 0x3F1), i == 3 ? (1ull << i) | (1ull << (32 + i)) : 0, "PEBS + LL_EN bits");
        CHECK_EQ(fp_get(&f, 0x3F6), i == 3 ? 3 : 0, "threshold");
    }
    CHECK_EQ(ds_pmc_pebs_ldlat(&cpu, 0, 2), DS_ERR_PMC_LDLAT_RANGE, "threshold 2");
    CHECK_EQ(ds_pmc_pebs_ldlat(&cpu, 0, 0x10000), DS_ERR_PMC_LDLAT_RANGE, "threshold 65536");
    CHECK_EQ(ds_pmc_pebs_ldlat(&cpu, 4, 10), DS_ERR_PMC_PEBS_COUNTER, "ldlat PMC4");
    CHECK_EQ(ds_pmc_pebs_data_cfg(&cpu, 1), DS_ERR_PMC_NO_ADAPTIVE, "no adaptive on fmt 1");
    CHECK_EQ(ds_pmc_pebs_disable(&cpu, 1ull << 35), DS_OK, "disable");
    CHECK_EQ(fp_get(&f, 0x3F1), 1ull << 3, "disabled bits cleared");
    /* Ice Lake 06_7EH: v5, 8 GP x 48, 4 fixed, PEBS fmt 4 + baseline */
    arch_cpu(&f, &cpu, 0x000706E5, 0x07300805, 0x00000604, 0xF, (4u << 8) | 5 | (1u << 13) | (1u << 14));
    CHECK_EQ(ds_pmc_pebs_enable(&cpu, 7, DS_EVTSEL(0xC0, 0) | DS_EVTSEL_ADAPTIVE), DS_OK, "ICL PEBS on PMC7");
    CHECK_EQ(ds_pmc_gp_program(&cpu, 7, DS_EVTSEL(0xC0, 0) | DS_EVTSEL_ADAPTIVE | DS_EVTSEL_EN, 0), DS_OK, "adaptive evtsel");
    CHECK_EQ(ds_pmc_pebs_data_cfg(&cpu, 0xF | (31ull << 24)), DS_OK, "data cfg");
    CHECK_EQ(fp_get(&f, 0x3F2), 0xF | (31ull << 24), "MSR_PEBS_DATA_CFG");
    CHECK_EQ(ds_pmc_pebs_data_cfg(&cpu, 1u << 4), DS_ERR_PMC_RESERVED, "bit 4");
    CHECK_EQ(ds_pmc_pebs_data_cfg(&cpu, 3ull << 24), DS_ERR_PMC_RESERVED, "LBR count without LBR group");
    CHECK_EQ(ds_pmc_pebs_ldlat(&cpu, 0, 2), DS_ERR_PMC_LDLAT_RANGE, "fmt 4 ldlat threshold 2");
    CHECK_EQ(ds_pmc_pebs_enable(&cpu, 8, 0), DS_ERR_PMC_BAD_COUNTER, "PMC8 absent");
    /* Skylake fmt 3: PEBS on PMC0-3 only even with more counters (synthetic 8 GP) */
    arch_cpu(&f, &cpu, 0x000506E3, 0x07300804, 0x00000603, 0, 0x3305);
    CHECK_EQ(ds_pmc_pebs_enable(&cpu, 4, DS_EVTSEL(0xC0, 1)), DS_ERR_PMC_PEBS_COUNTER, "fmt 3: PMC4 no PEBS");
}

/*
 * Lunar Lake 06_BDH, from ../shared/cpuid/GenuineIntel00B06D1_LunarLake_04_CPUID.txt
 * (logical CPU #0 = Lion Cove P-core, #4 = Skymont E-core): leaf 0AH
 * 0D300806/00000280/00000007/00008603 (perfmon v6, 8 GP x 48, 3 fixed + ECX 7),
 * leaf 23H.0 EAX 0B (P) / 0F (E), EBX 3 (UMASK2, EQ), 23H.1 GP 3FF fixed 0F
 * (P) / GP FF fixed 77 (E, non-contiguous). The dump has no MSRs: @caps is
 * IA32_PERF_CAPABILITIES built from the SDM field layout with PEBS_FMT = @fmt.
 */
#define LNL_CAPS(fmt) (((uint64_t)(fmt) << 8) | (1u << 6) | (1u << 7) | (1u << 13) | (1u << 14))
static void lnl_cpu_sig(struct fake_pmu *f, struct ds_cpu *cpu, uint32_t sig, bool ecore, uint64_t caps)
{
    fp_reset(f);
    fp_cpuid_set(f, 0, 0, 0x23, 0x756e6547u, 0x6c65746eu, 0x49656e69u);
    fp_cpuid_set(f, 1, 0, sig, ecore ? 0x40800800 : 0x00800800, 0x7FFAFBFF, 0xBFEBFBFF);
    fp_cpuid_set(f, 7, 0, 0x00000002, 0x239CA7EB, 0x994027AC, 0xFC1CC430);
    fp_cpuid_set(f, 0xA, 0, 0x0D300806, 0x00000280, 0x00000007, 0x00008603);
    fp_cpuid_set(f, 0x1A, 0, ecore ? 0x20000003 : 0x40000003, 0, 0, 0);
    fp_cpuid_set(f, 0x23, 0, ecore ? 0x0F : 0x0B, 3, ecore ? 8 : 0, 0);
    fp_cpuid_set(f, 0x23, 1, ecore ? 0xFF : 0x3FF, ecore ? 0x77 : 0x0F, 0, 0);
    fp_set(f, DS_MSR_IA32_MISC_ENABLE, 1u << 7);
    fp_set(f, DS_MSR_IA32_PERF_CAPABILITIES, caps);
    for (unsigned i = 0; i < 16; i++) {
        if (i < 8) {
            fp_set(f, 0xC1 + i, 0);
            fp_set(f, 0x186 + i, 0);
            fp_set(f, 0x4C1 + i, 0);
            fp_set(f, 0x309 + i, 0);
        }
        for (unsigned k = 0; k < 4; k++) {
            fp_set(f, 0x1900 + 4 * i + k, 0); /* IA32_PMC_GPn_CTR/CFG_A/B/C */
            fp_set(f, 0x1980 + 4 * i + k, 0); /* IA32_FIXED_CTRn and its CFGs */
        }
    }
    fp_set(f, 0x38D, 0);
    fp_set(f, 0x38F, 0);
    fp_set(f, 0x3F1, 0);
    fp_set(f, 0x3F2, 0);
    CHECK_EQ(fp_identify(f, cpu), DS_OK, "identify LNL");
}

static void lnl_cpu(struct fake_pmu *f, struct ds_cpu *cpu, bool ecore, uint64_t caps)
{
    lnl_cpu_sig(f, cpu, 0x000B06D1, ecore, caps);
}

/* Issue 11: PEBS format 6 (Lunar Lake, Arrow Lake-S) was refused outright. */
static void test_fmt6_lunar_lake(void)
{
    struct fake_pmu f;
    struct ds_cpu cpu;
    lnl_cpu(&f, &cpu, false, LNL_CAPS(6) | (1u << 15));
    CHECK_EQ(cpu.caps.pebs_format, 6, "PERF_CAPABILITIES[11:8] = 6");
    for (unsigned i = 0; i < 8; i++) {
        fp_set(&f, 0x3F1, 0);
        CHECK_EQ(ds_pmc_pebs_enable(&cpu, i, DS_EVTSEL(0xC0, 0) | DS_EVTSEL_ADAPTIVE), DS_OK, "fmt 6 PEBS on PMC%u", i);
        CHECK_EQ(fp_get(&f, 0x3F1), 1ull << i, "IA32_PEBS_ENABLE bit %u", i);
    }
    CHECK_EQ(ds_pmc_pebs_disable(&cpu, 1ull << 7), DS_OK, "fmt 6 disable");
    CHECK_EQ(fp_get(&f, 0x3F1), 0, "cleared");
    CHECK_EQ(ds_pmc_fixed_program(&cpu, 0, DS_FIXED_USR, true, 0), DS_OK, "fmt 6 adaptive fixed");
    /* MSR_PEBS_DATA_CFG: counters group bit 4, metrics 5, GP [47:32], fixed [55:48] */
    uint64_t cfg = DS_PEBS_DATA_CFG_CNTRS | DS_PEBS_DATA_CFG_METRICS | (0x3FFull << 32) | (0xFull << 48) | 1;
    CHECK_EQ(ds_pmc_pebs_data_cfg(&cpu, cfg), DS_OK, "fmt 6 counters group, all 10 GP + 4 fixed");
    CHECK_EQ(fp_get(&f, 0x3F2), cfg, "MSR_PEBS_DATA_CFG written");
    CHECK_EQ(ds_pmc_pebs_data_cfg(&cpu, DS_PEBS_DATA_CFG_CNTRS | (0x400ull << 32)), DS_ERR_PMC_RESERVED,
             "GP 10 absent (23H.1 EAX = 3FF)");
    CHECK_EQ(ds_pmc_pebs_data_cfg(&cpu, DS_PEBS_DATA_CFG_CNTRS | (0x10ull << 48)), DS_ERR_PMC_RESERVED,
             "fixed 4 absent on the P-core (23H.1 EBX = 0F)");
    CHECK_EQ(ds_pmc_pebs_data_cfg(&cpu, 1ull << 32), DS_ERR_PMC_RESERVED, "GP mask without CNTRS");
    CHECK_EQ(ds_pmc_pebs_data_cfg(&cpu, 1ull << 6), DS_ERR_PMC_RESERVED, "bit 6 reserved");
    CHECK_EQ(ds_pmc_pebs_data_cfg(&cpu, 1ull << 56), DS_ERR_PMC_RESERVED, "bit 56 reserved");
    /* E-core: fixed counters 0,1,2,4,5,6 (77H), no PERF_METRICS advertised here */
    lnl_cpu(&f, &cpu, true, LNL_CAPS(6));
    CHECK_EQ(ds_pmc_pebs_data_cfg(&cpu, DS_PEBS_DATA_CFG_CNTRS | (0x70ull << 48)), DS_OK, "E-core fixed 4-6");
    CHECK_EQ(ds_pmc_pebs_data_cfg(&cpu, DS_PEBS_DATA_CFG_CNTRS | (0x08ull << 48)), DS_ERR_PMC_RESERVED,
             "E-core fixed 3 absent");
    CHECK_EQ(ds_pmc_pebs_data_cfg(&cpu, DS_PEBS_DATA_CFG_CNTRS | DS_PEBS_DATA_CFG_METRICS), DS_ERR_PMC_RESERVED,
             "metrics without PERF_METRICS");
    /* Format 5: the format-6 bits stay reserved; format 7 is unknown */
    lnl_cpu(&f, &cpu, false, LNL_CAPS(5) | (1u << 15));
    CHECK_EQ(ds_pmc_pebs_data_cfg(&cpu, DS_PEBS_DATA_CFG_CNTRS), DS_ERR_PMC_RESERVED, "fmt 5: no counters group");
    CHECK_EQ(ds_pmc_pebs_enable(&cpu, 0, DS_EVTSEL(0xC0, 0)), DS_OK, "fmt 5 PEBS");
    lnl_cpu(&f, &cpu, false, LNL_CAPS(7));
    CHECK_EQ(ds_pmc_pebs_enable(&cpu, 0, DS_EVTSEL(0xC0, 0)), DS_ERR_PMC_NO_PEBS_FMT, "fmt 7 unknown");
    CHECK_EQ(ds_pmc_pebs_data_cfg(&cpu, 1), DS_ERR_PMC_NO_ADAPTIVE, "fmt 7 not adaptive to libds");
    CHECK_EQ(ds_pmc_gp_program(&cpu, 0, DS_EVTSEL(0xC0, 0) | DS_EVTSEL_ADAPTIVE, 0), DS_ERR_PMC_RESERVED,
             "fmt 7: EVTSEL bit 34 refused");
    /* Arrow Lake 06_C6H (../shared/cpuid ArrowLake 000C0662: leaf 0AH and 23H
     * as Lunar Lake, Lion Cove P-cores 3FFH/0FH, Skymont E-cores FFH/77H) */
    for (int ecore = 0; ecore < 2; ecore++) {
        lnl_cpu_sig(&f, &cpu, 0x000C0662, ecore, LNL_CAPS(6));
        CHECK_EQ(cpu.caps.display_model, 0xC6, "ARL 06_C6H");
        fp_set(&f, 0x3F1, 0);
        CHECK_EQ(ds_pmc_pebs_enable(&cpu, 7, DS_EVTSEL(0xC0, 0) | DS_EVTSEL_ADAPTIVE), DS_OK, "ARL fmt 6 PEBS PMC7");
        CHECK_EQ(fp_get(&f, 0x3F1), 1ull << 7, "ARL PEBS_ENABLE bit 7");
        CHECK_EQ(ds_pmc_pebs_data_cfg(&cpu, DS_PEBS_DATA_CFG_CNTRS | ((ecore ? 0xFFull : 0x3FFull) << 32)), DS_OK,
                 "ARL counters group, every GP");
    }
}

/*
 * Issue 10 item 6: which counters take PEBS, per microarchitecture. Typed
 * from SDM 18.6.1.1 (Silvermont/Airmont: "PEBS ... only IA32_PMC0"), the
 * Goldmont PEBS section, 18.7.1 (Knights Landing) and Linux ds.c
 * (intel_slm_/intel_glm_pebs_event_constraints: all events on mask 0x1;
 * intel_pmu_init uses the slm list for KNL/KNM). Leaf 0AH values of the
 * first three rows are from ../shared/cpuid (Silvermont 30678, Goldmont
 * 506C9, Knights Landing 50671); the others reuse them with the model's
 * signature. PERF_CAPABILITIES (not in the dumps): PEBS format @fmt.
 */
static const struct { uint32_t sig, a0a, d0a; uint8_t fmt; uint32_t pebs_gp; const char *name; } pebs_uarch[] = {
    { 0x00030678, 0x07280203, 0x4503, 2, 0x1, "Silvermont 06_37H" },
    { 0x000506C9, 0x07300404, 0x0603, 3, 0x1, "Goldmont 06_5CH" },
    { 0x00050671, 0x07280203, 0x0503, 2, 0x1, "Knights Landing 06_57H" },
    { 0x000406D8, 0x07280203, 0x4503, 2, 0x1, "Silvermont-D 06_4DH" },
    { 0x000406A0, 0x07280203, 0x4503, 2, 0x1, "Silvermont 06_4AH" },
    { 0x000506A0, 0x07280203, 0x4503, 2, 0x1, "Airmont 06_5AH" },
    { 0x000506D0, 0x07280203, 0x4503, 2, 0x1, "Silvermont 06_5DH" },
    { 0x000406C4, 0x07280203, 0x4503, 2, 0x1, "Airmont 06_4CH" },
    { 0x00070650, 0x07280203, 0x4503, 2, 0x1, "Airmont NP 06_75H" },
    { 0x000506F1, 0x07300404, 0x0603, 3, 0x1, "Goldmont-D 06_5FH" },
    { 0x00080650, 0x07280203, 0x0503, 2, 0x1, "Knights Mill 06_85H" },
    { 0x000706A8, 0x07300404, 0x8603, 3, 0xF, "Goldmont Plus 06_7AH (4 GP, all PEBS)" },
    { 0x000306A9, 0x07300803, 0x0603, 1, 0xF, "Ivy Bridge 06_3AH (8 GP, PEBS on 0-3)" },
    { 0x000306C3, 0x07300803, 0x0603, 2, 0xF, "Haswell 06_3CH (8 GP, PEBS on 0-3)" },
};

static void test_pebs_counter_table(void)
{
    struct fake_pmu f;
    struct ds_cpu cpu;
    for (size_t t = 0; t < N(pebs_uarch); t++) {
        arch_cpu(&f, &cpu, pebs_uarch[t].sig, pebs_uarch[t].a0a, pebs_uarch[t].d0a, 0,
                 ((uint64_t)pebs_uarch[t].fmt << 8) | (1u << 6) | 0x3);
        unsigned ngp = (pebs_uarch[t].a0a >> 8) & 0xFF;
        for (unsigned i = 0; i < ngp; i++) {
            fp_set(&f, 0x3F1, 0);
            fp_clear_log(&f);
            int r = ds_pmc_pebs_enable(&cpu, i, DS_EVTSEL(0xC0, 0) | DS_EVTSEL_EN | DS_EVTSEL_USR);
            if ((pebs_uarch[t].pebs_gp >> i) & 1) {
                CHECK_EQ(r, DS_OK, "%s: PEBS on PMC%u", pebs_uarch[t].name, i);
                CHECK_EQ(fp_get(&f, 0x3F1), 1ull << i, "%s: bit %u", pebs_uarch[t].name, i);
            } else {
                CHECK_EQ(r, pebs_uarch[t].pebs_gp == 1 ? DS_ERR_PMC_PEBS_PMC0_ONLY : DS_ERR_PMC_PEBS_COUNTER,
                         "%s: no PEBS on PMC%u", pebs_uarch[t].name, i);
                CHECK_EQ(f.nlog, 0, "%s: PMC%u refused before any MSR access", pebs_uarch[t].name, i);
            }
        }
        if (pebs_uarch[t].pebs_gp == 1 && pebs_uarch[t].fmt >= 1 && pebs_uarch[t].fmt <= 3)
            CHECK_EQ(ds_pmc_pebs_ldlat(&cpu, 1, 10), DS_ERR_PMC_PEBS_PMC0_ONLY, "%s: ldlat PMC1", pebs_uarch[t].name);
    }
}

/* Fixed-counter PEBS (IA32_PEBS_ENABLE bit 32+m): adaptive PEBS and Goldmont
 * Plus extended PEBS only (SDM "Adaptive PEBS", Goldmont Plus "PEBS
 * extensions"; Linux PMU_FL_PEBS_ALL); on formats 1-3 bit 32+n is LL_EN. */
static void test_pebs_fixed(void)
{
    struct fake_pmu f;
    struct ds_cpu cpu;
    /* Ice Lake 06_7EH: v5, 8 GP, 4 fixed (ECX 0F), fmt 4 + baseline */
    arch_cpu(&f, &cpu, 0x000706E5, 0x07300805, 0x00000604, 0xF, (4u << 8) | 5 | (1u << 13) | (1u << 14));
    for (unsigned m = 0; m < 4; m++) {
        fp_set(&f, 0x3F1, 1);
        CHECK_EQ(ds_pmc_pebs_enable_fixed(&cpu, m), DS_OK, "ICL fixed %u PEBS", m);
        CHECK_EQ(fp_get(&f, 0x3F1), 1 | (1ull << (32 + m)), "bit 32+%u, PMC0 kept", m);
    }
    fp_clear_log(&f);
    CHECK_EQ(ds_pmc_pebs_enable_fixed(&cpu, 4), DS_ERR_PMC_BAD_FIXED, "fixed 4 absent");
    CHECK_EQ(f.nlog, 0, "nothing touched");
    fp_set(&f, 0x38D, DS_FIXED_PMI << 4);
    CHECK_EQ(ds_pmc_pebs_enable_fixed(&cpu, 1), DS_ERR_PMC_PEBS_INT, "fixed 1 with PMI set");
    CHECK_EQ(ds_pmc_pebs_enable_fixed(&cpu, 0), DS_OK, "fixed 0 unaffected by fixed 1's PMI");
    /* Ice Lake without PEBS_BASELINE: no fixed PEBS */
    arch_cpu(&f, &cpu, 0x000706E5, 0x07300805, 0x00000604, 0xF, (4u << 8) | 5);
    CHECK_EQ(ds_pmc_pebs_enable_fixed(&cpu, 0), DS_ERR_PMC_PEBS_NO_FIXED, "fmt 4 without baseline");
    /* Skylake fmt 3: bit 32+n would be load latency */
    skylake(&f, &cpu, true);
    fp_clear_log(&f);
    CHECK_EQ(ds_pmc_pebs_enable_fixed(&cpu, 0), DS_ERR_PMC_PEBS_NO_FIXED, "fmt 3: no fixed PEBS");
    CHECK_EQ(f.nlog, 0, "nothing touched");
    /* Goldmont Plus 06_7AH (dump leaf 0AH 07300404/8603: 3 fixed), fmt 3 */
    arch_cpu(&f, &cpu, 0x000706A8, 0x07300404, 0x00008603, 0, (3u << 8) | 5);
    CHECK_EQ(ds_pmc_pebs_enable_fixed(&cpu, 2), DS_OK, "GLP fixed 2");
    CHECK_EQ(fp_get(&f, 0x3F1), 1ull << 34, "bit 34");
    /* Lunar Lake E-core: fixed 0x77 (non-contiguous) */
    lnl_cpu(&f, &cpu, true, LNL_CAPS(6));
    CHECK_EQ(ds_pmc_pebs_enable_fixed(&cpu, 5), DS_OK, "LNL E-core fixed 5");
    CHECK_EQ(ds_pmc_pebs_enable_fixed(&cpu, 3), DS_ERR_PMC_BAD_FIXED, "LNL E-core fixed 3 absent");
    /* Core 2: perfmon v2 fmt 0 */
    arch_cpu(&f, &cpu, 0x00010676, 0x07280202, 0x00000503, 0, 0x1);
    CHECK_EQ(ds_pmc_pebs_enable_fixed(&cpu, 0), DS_ERR_PMC_PEBS_NO_FIXED, "Core 2");
}

/*
 * Issue 10 item 10: Core 2 06_0FH (Merom, Conroe, Clovertown: every
 * stepping) has PEBS errata AJ67/AJ68/AJ69/AJ106 and Linux
 * (intel_clovertown_quirk) turns PEBS off there; Penryn 06_17H keeps it.
 * CPUID from ../shared/cpuid Merom/Conroe (000006F6, leaf 0AH 07280202) and
 * Penryn (00010676); PERF_CAPABILITIES (not in the dumps): PEBS fmt 0.
 */
static void test_merom_errata(void)
{
    struct fake_pmu f;
    struct ds_cpu cpu;
    static const uint32_t sigs[] = { 0x000006F6, 0x000006F2, 0x000006FB, 0x00010676 };
    for (size_t s = 0; s < N(sigs); s++) {
        bool merom = s < 3;
        arch_cpu(&f, &cpu, sigs[s], 0x07280202, 0, 0, 0x1 | (1u << 6));
        uint64_t evt = DS_EVTSEL(0xC0, 0) | DS_EVTSEL_EN | DS_EVTSEL_USR;
        fp_clear_log(&f);
        CHECK_EQ(ds_pmc_pebs_enable(&cpu, 0, evt), merom ? DS_ERR_PMC_PEBS_ERRATUM : DS_OK, "sig %05x default", sigs[s]);
        CHECK_EQ(fp_get(&f, 0x3F1), merom ? 0 : 1, "sig %05x PEBS_ENABLE", sigs[s]);
        if (merom)
            CHECK_EQ(f.nlog, 0, "refused before any MSR access");
        fp_set(&f, 0x3F1, 0);
        CHECK_EQ(ds_pmc_pebs_enable_ex(&cpu, 0, evt, DS_PMC_PEBS_ALLOW_ERRATA), DS_OK, "sig %05x override", sigs[s]);
        CHECK_EQ(fp_get(&f, 0x3F1), 1, "override sets bit 0");
        CHECK_EQ(ds_pmc_pebs_enable_ex(&cpu, 0, evt, 0x2), DS_ERR_BAD_FLAGS, "unknown flag");
        CHECK_EQ(ds_pmc_pebs_enable_ex(&cpu, 1, evt, DS_PMC_PEBS_ALLOW_ERRATA), DS_ERR_PMC_PEBS_COUNTER,
                 "override does not lift the PMC0 rule");
    }
}

/* A fake whose CPUID(1) loads IA32_BIOS_SIGN_ID[63:32] with the microcode
 * revision, as the SDM's signature procedure describes (write 0, CPUID 1,
 * read); the fake_pmu is first so fp_read/fp_write take the same context. */
struct ucode_fake {
    struct fake_pmu f;
    uint32_t rev;
    int cpuid1_after_zero; /* CPUID(1) calls made while 8BH read 0 */
};
static void uf_cpuid(void *ctx, uint32_t leaf, uint32_t sub, uint32_t out[4])
{
    struct ucode_fake *u = ctx;
    if (leaf == 1 && fp_find(&u->f, 0x8B) >= 0) {
        if (fp_get(&u->f, 0x8B) == 0)
            u->cpuid1_after_zero++;
        fp_set(&u->f, 0x8B, (uint64_t)u->rev << 32);
    }
    fp_cpuid(ctx, leaf, sub, out);
}
static const struct ds_msr_ops uf_ops = { fp_read, fp_write, uf_cpuid };

/*
 * Issue 10 item 11: Sandy Bridge PEBS microcode gate (Linux core.c
 * pebs_ucodes: 06_2AH stepping 7 >= 0x28; 06_2DH stepping 6 >= 0x618,
 * stepping 7 >= 0x70C; other steppings of the two models: broken). Leaf 0AH
 * from ../shared/cpuid SandyBridge (000206A7: 07300803/603).
 */
static void test_snb_ucode(void)
{
    static struct ucode_fake u;
    struct ds_cpu cpu;
    static const struct { uint32_t sig, rev; int want; } rows[] = {
        { 0x000206A7, 0x27, DS_ERR_PMC_PEBS_UCODE }, { 0x000206A7, 0x28, DS_OK },
        { 0x000206A7, 0x29, DS_OK },                  { 0x000206A6, 0xFFFF, DS_ERR_PMC_PEBS_UCODE },
        { 0x000206D6, 0x617, DS_ERR_PMC_PEBS_UCODE }, { 0x000206D6, 0x618, DS_OK },
        { 0x000206D7, 0x70B, DS_ERR_PMC_PEBS_UCODE }, { 0x000206D7, 0x70C, DS_OK },
        { 0x000206D7, 0x618, DS_ERR_PMC_PEBS_UCODE }, { 0x000206D5, 0x70C, DS_ERR_PMC_PEBS_UCODE },
        { 0x000306A9, 0x01, DS_OK }, /* Ivy Bridge 06_3AH: no gate */
    };
    for (size_t i = 0; i < N(rows); i++) {
        arch_cpu(&u.f, &cpu, rows[i].sig, 0x07300803, 0x603, 0, (1u << 8) | 3 | (1u << 6));
        fp_set(&u.f, 0x8B, 0xABCD000000000000ull); /* stale value: must be cleared first */
        u.rev = rows[i].rev;
        u.cpuid1_after_zero = 0;
        CHECK_EQ(ds_cpu_init(&cpu, &uf_ops, &u), DS_OK, "init");
        CHECK_EQ(ds_cpu_identify(&cpu), DS_OK, "identify");
        fp_set(&u.f, 0x8B, 0xABCD000000000000ull);
        u.cpuid1_after_zero = 0;
        fp_clear_log(&u.f);
        int r = ds_pmc_pebs_enable(&cpu, 0, DS_EVTSEL(0xC0, 0));
        CHECK_EQ(r, rows[i].want, "sig %05x ucode %x", rows[i].sig, rows[i].rev);
        bool snb = rows[i].sig >> 4 != 0x306A;
        CHECK_EQ(fp_get(&u.f, 0x3F1), r == DS_OK ? 1 : 0, "sig %05x PEBS_ENABLE", rows[i].sig);
        CHECK_EQ(fp_nwrites(&u.f, 0x8B), snb ? 1 : 0, "sig %05x: 8BH zeroed before CPUID", rows[i].sig);
        CHECK_EQ(u.cpuid1_after_zero, snb ? 1 : 0, "sig %05x: CPUID(1) after the zero write", rows[i].sig);
        fp_set(&u.f, 0x3F1, 0);
        fp_clear_log(&u.f);
        CHECK_EQ(ds_pmc_pebs_enable_ex(&cpu, 0, DS_EVTSEL(0xC0, 0), DS_PMC_PEBS_ALLOW_ERRATA), DS_OK, "override");
        CHECK_EQ(fp_nwrites(&u.f, 0x8B), 0, "override skips the microcode read");
        /* load-latency PEBS enables PEBS too: same gate */
        fp_set(&u.f, 0x3F1, 0);
        fp_clear_log(&u.f);
        CHECK_EQ(ds_pmc_pebs_ldlat(&cpu, 3, 100), rows[i].want, "sig %05x ucode %x ldlat (PMC3: CDH/01H's counter)", rows[i].sig, rows[i].rev);
        if (rows[i].want != DS_OK)
            CHECK(fp_nwrites(&u.f, 0x3F6) == 0 && fp_nwrites(&u.f, 0x3F1) == 0, "ldlat refused: nothing enabled");
    }
    uint32_t rev = 0;
    u.rev = 0x12345678;
    CHECK_EQ(ds_pmc_microcode_rev(&cpu, &rev), DS_OK, "microcode_rev");
    CHECK_EQ(rev, 0x12345678, "upper 32 bits");
    CHECK_EQ(ds_pmc_microcode_rev(&cpu, NULL), DS_ERR_NULL, "null");
    u.f.fault_msr = 0x8B;
    CHECK_EQ(ds_pmc_microcode_rev(&cpu, &rev), DS_ERR_MSR_FAULT, "8BH faults");
    arch_cpu(&u.f, &cpu, 0x000206A7, 0x07300803, 0x603, 0, (1u << 8) | 3 | (1u << 6));
    CHECK_EQ(ds_pmc_pebs_enable(&cpu, 0, DS_EVTSEL(0xC0, 0)), DS_ERR_MSR_FAULT, "no 8BH: fault reported");
}

/*
 * Issue 10 item 11: early Core 2 reports perfmon v2 with CPUID.0AH:EDX = 0
 * (real dumps ../shared/cpuid Merom and Conroe 000006F6: leaf 0AH
 * 07280202-00000000-00000000-00000000) although the three fixed counters
 * exist; Linux intel_pmu_init assumes max(EDX[4:0], 3) on v2-v4 unless the
 * hypervisor bit CPUID.01H:ECX[31] is set.
 */
static void test_core2_fixed_quirk(void)
{
    struct fake_pmu f;
    struct ds_cpu cpu;
    for (int hv = 0; hv < 2; hv++) {
        arch_cpu(&f, &cpu, 0x000006F6, 0x07280202, 0, 0, 0x1);
        if (hv) {
            for (int i = 0; i < f.nleaves; i++)
                if (f.leaves[i].leaf == 1)
                    f.leaves[i].r[2] |= 1u << 31;
            CHECK_EQ(fp_identify(&f, &cpu), DS_OK, "identify (hypervisor)");
        }
        for (unsigned m = 0; m < 4; m++) {
            fp_set(&f, 0x38D, 0);
            int want = (!hv && m < 3) ? DS_OK : DS_ERR_PMC_BAD_FIXED;
            CHECK_EQ(ds_pmc_fixed_program(&cpu, m, DS_FIXED_OS | DS_FIXED_USR, false, 0), want,
                     "hv=%d fixed %u", hv, m);
            if (want == DS_OK)
                CHECK_EQ(fp_get(&f, 0x38D), 3ull << (4 * m), "FIXED_CTR_CTRL nibble %u", m);
        }
        CHECK_EQ(ds_pmc_global_ctrl(&cpu, 0x700000003ull), hv ? DS_ERR_PMC_RESERVED : DS_OK, "hv=%d GLOBAL_CTRL fixed bits", hv);
        CHECK_EQ(ds_pmc_global_ctrl(&cpu, 0x800000000ull), DS_ERR_PMC_RESERVED, "hv=%d fixed 3 bit", hv);
    }
    /* v5 (Ice Lake, ECX bitmap 0x1, EDX 0): the quirk does not apply */
    arch_cpu(&f, &cpu, 0x000706E5, 0x07300805, 0, 0x1, (4u << 8) | 5);
    CHECK_EQ(ds_pmc_fixed_program(&cpu, 1, DS_FIXED_OS, false, 0), DS_ERR_PMC_BAD_FIXED, "v5: bitmap only");
}

/*
 * Issue 10 item 11: Nehalem/Westmere errata AAK100/AAP53/BD53. Expected
 * sequence typed from Linux core.c intel_pmu_nhm_workaround's comment
 * (errata steps 1-5) and its magic events 4300B5H, 4300D2H, 4300B1H,
 * 4300B1H; leaf 0AH of the real Nehalem dump (000106A1: 07300403/603).
 */
static void test_nhm_workaround(void)
{
    struct fake_pmu f;
    struct ds_cpu cpu;
    static const uint32_t sigs[] = { 0x000106A1, 0x000106E5, 0x000206C2, 0x000206F2, 0x00020655 };
    for (size_t k = 0; k < N(sigs); k++) {
        arch_cpu(&f, &cpu, sigs[k], 0x07300403, 0x603, 0, (1u << 8) | 3 | (1u << 6));
        uint64_t sel[4], ctr[4];
        for (unsigned i = 0; i < 4; i++) {
            sel[i] = DS_EVTSEL(0xC0 + i, 1) | DS_EVTSEL_EN | DS_EVTSEL_USR;
            ctr[i] = 0xFFFF80000000ull + 17 * i; /* sign-extended 32-bit values */
            fp_set(&f, 0x186 + i, sel[i]);
            fp_set(&f, 0xC1 + i, ctr[i]);
        }
        fp_set(&f, 0x38F, 0x70000000Full);
        fp_set(&f, 0x3F1, 0x1);
        fp_clear_log(&f);
        CHECK_EQ(ds_pmc_nhm_workaround(&cpu), DS_OK, "sig %05x workaround", sigs[k]);
        /* errata step 1 before the magic events; GLOBAL_CTRL 0 -> 0F -> 0 */
        int ng = 0, first_magic = -1, gctl_f = -1, pebs0 = -1;
        uint64_t gvals[8] = { 0 };
        for (int i = 0; i < f.nlog; i++) {
            if (f.log[i].kind != 'w')
                continue;
            if (f.log[i].msr == 0x38F && ng < 8)
                gvals[ng++] = f.log[i].val;
            if (f.log[i].msr == 0x38F && f.log[i].val == 0xF)
                gctl_f = i;
            if (f.log[i].msr == 0x3F1 && f.log[i].val == 0 && pebs0 < 0)
                pebs0 = i;
            if (f.log[i].msr == 0x186 && f.log[i].val == 0x4300B5 && first_magic < 0)
                first_magic = i;
        }
        CHECK(ng == 4 && gvals[0] == 0 && gvals[1] == 0xF && gvals[2] == 0 && gvals[3] == 0x70000000Full,
              "sig %05x GLOBAL_CTRL writes 0, 0F, 0, restore (%d)", sigs[k], ng);
        CHECK(pebs0 >= 0 && pebs0 < first_magic && first_magic < gctl_f, "PEBS_ENABLE cleared before the magic events");
        /* the magic events were in place when GLOBAL_CTRL = 0FH was written */
        static const uint64_t magic[4] = { 0x4300B5, 0x4300D2, 0x4300B1, 0x4300B1 };
        for (unsigned i = 0; i < 4; i++) {
            uint64_t last_sel = 0, last_ctr = 1;
            for (int j = 0; j < gctl_f; j++) {
                if (f.log[j].kind == 'w' && f.log[j].msr == 0x186 + i)
                    last_sel = f.log[j].val;
                if (f.log[j].kind == 'w' && f.log[j].msr == 0xC1 + i)
                    last_ctr = f.log[j].val;
            }
            CHECK_EQ(last_sel, magic[i], "PERFEVTSEL%u magic at GLOBAL_CTRL=0F", i);
            CHECK_EQ(last_ctr, 0, "PMC%u zero at GLOBAL_CTRL=0F", i);
            CHECK_EQ(fp_get(&f, 0x186 + i), sel[i], "EVTSEL%u restored", i);
            CHECK_EQ(fp_get(&f, 0xC1 + i) | 0xFFFF00000000ull, ctr[i], "PMC%u restored (low 32 sign-extended)", i);
        }
        CHECK_EQ(fp_get(&f, 0x3F1), 1, "PEBS_ENABLE restored");
        CHECK_EQ(fp_get(&f, 0x38F), 0x70000000Full, "GLOBAL_CTRL restored");
    }
    /* a counter value IA32_PMCx cannot take back (no FW_WRITE): refused, nothing written */
    arch_cpu(&f, &cpu, 0x000106A1, 0x07300403, 0x603, 0, (1u << 8) | 3 | (1u << 6));
    fp_set(&f, 0xC3, 0x000100000000ull);
    fp_clear_log(&f);
    CHECK_EQ(ds_pmc_nhm_workaround(&cpu), DS_ERR_PMC_VALUE_WIDE, "unrestorable PMC2");
    CHECK_EQ(f.writes, 0, "nothing written");
    /* not Nehalem/Westmere: nothing touched */
    static const uint32_t others[] = { 0x000206A7, 0x000006F6, 0x000306A9 };
    for (size_t k = 0; k < N(others); k++) {
        arch_cpu(&f, &cpu, others[k], 0x07300403, 0x603, 0, (1u << 8) | 3);
        fp_clear_log(&f);
        CHECK_EQ(ds_pmc_nhm_workaround(&cpu), DS_OK, "sig %05x: not needed", others[k]);
        CHECK_EQ(f.nlog, 0, "sig %05x: no MSR access", others[k]);
    }
}

/*
 * Issue 11 perfmon v6: counters from the CPUID.23H.1 bitmaps (LNL P-core GP
 * 3FFH: ten GP counters, more than leaf 0AH's eight), the aliased MSRs
 * IA32_PMC_GPn_CTR 1900H+4n / CFG_A +1 and fixed 1980H+4m (Linux
 * msr-index.h MSR_IA32_PMC_V6_*, used for every counter on v6), UMASK2
 * [47:40] and EQ [36] only where CPUID.(23H,0):EBX enumerates them. CPUID
 * from ../shared/cpuid Lunar Lake (v6, 23H.0 EBX 3) and Meteor Lake
 * 000A06A4 CPU #0 (v5, leaf 0AH 07300805/7/8603, 23H.0 EAX 0B EBX 0,
 * 23H.1 FF/0F).
 */
static void test_perfmon_v6(void)
{
    struct fake_pmu f;
    struct ds_cpu cpu;
    uint64_t v;
    lnl_cpu(&f, &cpu, false, LNL_CAPS(6));
    uint64_t ev = DS_EVTSEL(0xC0, 0) | DS_EVTSEL_EN | DS_EVTSEL_USR;
    for (unsigned i = 0; i < 11; i++) {
        fp_clear_log(&f);
        int r = ds_pmc_gp_program(&cpu, i, ev, 0xFFFF00000000ull + i);
        if (i < 10) {
            CHECK_EQ(r, DS_OK, "LNL GP %u", i);
            CHECK(f.nlog == 3 && f.log[0].msr == 0x1901 + 4 * i && f.log[0].val == 0 &&
                  f.log[1].msr == 0x1900 + 4 * i && f.log[1].val == 0xFFFF00000000ull + i &&
                  f.log[2].msr == 0x1901 + 4 * i && f.log[2].val == ev,
                  "GP %u: CFG_A=0, CTR, CFG_A (1900H+4n aliases)", i);
            CHECK_EQ(ds_pmc_gp_read(&cpu, i, &v), DS_OK, "read GP %u", i);
            CHECK_EQ(v, 0xFFFF00000000ull + i, "read back from 1900H+4n");
        } else {
            CHECK_EQ(r, DS_ERR_PMC_BAD_COUNTER, "GP 10 absent (23H.1 EAX 3FF)");
            CHECK_EQ(f.nlog, 0, "nothing touched");
        }
    }
    CHECK_EQ(ds_pmc_gp_write(&cpu, 9, 5), DS_OK, "write GP 9");
    CHECK_EQ(fp_get(&f, 0x1924), 5, "GP 9 counter at 1924H");
    CHECK_EQ(ds_pmc_fixed_program(&cpu, 3, DS_FIXED_OS, false, 7), DS_OK, "fixed 3");
    CHECK_EQ(fp_get(&f, 0x198C), 7, "fixed 3 counter at 198CH");
    CHECK_EQ(ds_pmc_global_ctrl(&cpu, 0x3FF | (0xFull << 32)), DS_OK, "GLOBAL_CTRL all 10 GP + 4 fixed");
    CHECK_EQ(ds_pmc_global_ctrl(&cpu, 1ull << 10), DS_ERR_PMC_RESERVED, "GP 10 bit");
    /* UMASK2 / EQ enumerated: accepted and written */
    uint64_t ev6 = ev | (0x5Aull << DS_EVTSEL_UMASK2_SHIFT) | DS_EVTSEL_EQ;
    CHECK_EQ(ds_pmc_gp_program(&cpu, 8, ev6, 0), DS_OK, "UMASK2 + EQ on LNL");
    CHECK_EQ(fp_get(&f, 0x1921), ev6, "CFG_A(8) holds UMASK2/EQ");
    CHECK_EQ(ds_pmc_gp_program(&cpu, 0, ev | (1ull << 35), 0), DS_ERR_PMC_RESERVED, "bit 35");
    CHECK_EQ(ds_pmc_gp_program(&cpu, 0, ev | (1ull << 37), 0), DS_ERR_PMC_RESERVED, "bit 37");
    CHECK_EQ(ds_pmc_gp_program(&cpu, 0, ev | (1ull << 48), 0), DS_ERR_PMC_RESERVED, "bit 48");
    /* E-core: GP FFH, fixed 77H */
    lnl_cpu(&f, &cpu, true, LNL_CAPS(6));
    CHECK_EQ(ds_pmc_gp_program(&cpu, 8, ev, 0), DS_ERR_PMC_BAD_COUNTER, "E-core GP 8 absent");
    CHECK_EQ(ds_pmc_fixed_program(&cpu, 3, DS_FIXED_OS, false, 0), DS_ERR_PMC_BAD_FIXED, "E-core fixed 3 absent");
    CHECK_EQ(ds_pmc_fixed_program(&cpu, 4, DS_FIXED_OS, false, 9), DS_OK, "E-core fixed 4");
    CHECK_EQ(fp_get(&f, 0x1990), 9, "fixed 4 at 1990H");
    CHECK_EQ(ds_pmc_global_ctrl(&cpu, 0xFF | (0x77ull << 32)), DS_OK, "E-core GLOBAL_CTRL");
    CHECK_EQ(ds_pmc_global_ctrl(&cpu, 1ull << 35), DS_ERR_PMC_RESERVED, "E-core fixed 3 bit");
    /* Meteor Lake: leaf 23H present, UMASK2/EQ not enumerated (EBX 0) */
    fp_reset(&f);
    fp_cpuid_set(&f, 0, 0, 0x23, 0x756e6547u, 0x6c65746eu, 0x49656e69u);
    fp_cpuid_set(&f, 1, 0, 0x000A06A4, 0x20800800, 0x7FFAFBFF, 0xBFEBFBFF);
    fp_cpuid_set(&f, 7, 0, 0x00000002, 0x239C27EB, 0x994007AC, 0xFC18C410);
    fp_cpuid_set(&f, 0xA, 0, 0x07300805, 0, 0x00000007, 0x00008603);
    fp_cpuid_set(&f, 0x1A, 0, 0x40000002, 0, 0, 0);
    fp_cpuid_set(&f, 0x23, 0, 0x0B, 0, 0, 0);
    fp_cpuid_set(&f, 0x23, 1, 0xFF, 0x0F, 0, 0);
    fp_set(&f, DS_MSR_IA32_MISC_ENABLE, 1u << 7);
    fp_set(&f, DS_MSR_IA32_PERF_CAPABILITIES, LNL_CAPS(5));
    for (unsigned i = 0; i < 8; i++) {
        fp_set(&f, 0x186 + i, 0);
        fp_set(&f, 0x4C1 + i, 0);
        fp_set(&f, 0xC1 + i, 0);
    }
    CHECK_EQ(fp_identify(&f, &cpu), DS_OK, "identify MTL");
    CHECK_EQ(ds_pmc_gp_program(&cpu, 0, ev | (1ull << DS_EVTSEL_UMASK2_SHIFT), 0), DS_ERR_PMC_NO_UMASK2, "MTL UMASK2");
    CHECK_EQ(ds_pmc_gp_program(&cpu, 0, ev | DS_EVTSEL_EQ, 0), DS_ERR_PMC_NO_EQ, "MTL EQ");
    fp_clear_log(&f);
    CHECK_EQ(ds_pmc_gp_program(&cpu, 7, ev, 3), DS_OK, "MTL GP 7 (v5: legacy MSRs)");
    CHECK(f.nlog == 3 && f.log[0].msr == 0x18D && f.log[1].msr == 0x4C8, "v5 uses 18DH / 4C8H");
    /* Skylake: no leaf 23H at all */
    skylake(&f, &cpu, true);
    CHECK_EQ(ds_pmc_gp_program(&cpu, 0, ev | (0xFFull << 40), 0), DS_ERR_PMC_NO_UMASK2, "SKL UMASK2");
    CHECK_EQ(ds_pmc_gp_program(&cpu, 0, ev | DS_EVTSEL_EQ, 0), DS_ERR_PMC_NO_EQ, "SKL EQ");
    /* Non-contiguous GP bitmap (synthetic v5 + 23H.1 EAX F5H): PMC1 and PMC3 absent */
    fp_reset(&f);
    fp_cpuid_set(&f, 0, 0, 0x23, 0x756e6547u, 0x6c65746eu, 0x49656e69u);
    fp_cpuid_set(&f, 1, 0, 0x000A06A4, 0, 0x7FFAFBFF, 0xBFEBFBFF);
    fp_cpuid_set(&f, 0xA, 0, 0x07300805, 0, 0x7, 0x8603);
    fp_cpuid_set(&f, 0x23, 0, 0x3, 0, 0, 0);
    fp_cpuid_set(&f, 0x23, 1, 0xF5, 0x7, 0, 0);
    fp_set(&f, DS_MSR_IA32_MISC_ENABLE, 1u << 7);
    fp_set(&f, DS_MSR_IA32_PERF_CAPABILITIES, LNL_CAPS(5));
    for (unsigned i = 0; i < 8; i++) {
        fp_set(&f, 0x186 + i, 0);
        fp_set(&f, 0x4C1 + i, 0);
    }
    fp_set(&f, 0x38F, 0);
    CHECK_EQ(fp_identify(&f, &cpu), DS_OK, "identify bitmap CPU");
    for (unsigned i = 0; i < 8; i++)
        CHECK_EQ(ds_pmc_gp_program(&cpu, i, ev, 0), ((0xF5u >> i) & 1) ? DS_OK : DS_ERR_PMC_BAD_COUNTER,
                 "bitmap F5H: GP %u", i);
    CHECK_EQ(ds_pmc_global_ctrl(&cpu, 0x2), DS_ERR_PMC_RESERVED, "GLOBAL_CTRL bit of absent GP 1");
    CHECK_EQ(ds_pmc_global_ctrl(&cpu, 0xF5), DS_OK, "GLOBAL_CTRL bitmap");
}

/*
 * Issue 10 item 20 / item 6: PEBS events on Nehalem and Westmere (format 1),
 * typed from Linux ds.c intel_nehalem_pebs_event_constraints and
 * intel_westmere_pebs_event_constraints (FLAGS rows: EDGE/INV/CMASK/ANY
 * must be clear). Sandy Bridge onwards Linux allows every event.
 */
#define EVF(ev, um, fl) ((uint64_t)(ev) | ((uint64_t)(um) << 8) | (fl))
static void test_nhm_pebs_events(void)
{
    struct fake_pmu f;
    struct ds_cpu cpu;
    const uint64_t inv_c16 = DS_EVTSEL_INV | (16ull << 24);
    static const struct { uint64_t evtsel; int nhm, wsm; } rows[] = {
        /* MEM_INST_RETIRED.LATENCY_ABOVE_THRESHOLD: PMC3 only, not the PMC1 used here (issue 25 item 7) */
        { EVF(0x0B, 0x10, 0), DS_ERR_PMC_PEBS_EVENT_COUNTER, DS_ERR_PMC_PEBS_EVENT_COUNTER },
        { EVF(0x0B, 0x01, 0), DS_ERR_PMC_PEBS_EVENT, DS_ERR_PMC_PEBS_EVENT },
        { EVF(0x0F, 0x02, 0), DS_OK, DS_OK },                 /* MEM_UNCORE_RETIRED.* */
        { EVF(0x0C, 0x01, 0), DS_OK, DS_OK },                 /* MEM_STORE_RETIRED.DTLB_MISS */
        { EVF(0x0C, 0x02, 0), DS_ERR_PMC_PEBS_EVENT, DS_ERR_PMC_PEBS_EVENT },
        { EVF(0xC0, 0x00, 0), DS_OK, DS_OK },                 /* INST_RETIRED.ANY_P */
        { EVF(0xC0, 0x02, 0), DS_OK, DS_OK },
        { EVF(0xC0, 0x00, inv_c16), DS_OK, DS_OK },           /* cycles:p */
        { EVF(0xC0, 0x01, inv_c16), DS_ERR_PMC_PEBS_EVENT, DS_ERR_PMC_PEBS_EVENT },
        { EVF(0xC0, 0x00, DS_EVTSEL_INV), DS_ERR_PMC_PEBS_EVENT, DS_ERR_PMC_PEBS_EVENT },
        { EVF(0xC2, 0x01, 0), DS_OK, DS_OK },                 /* UOPS_RETIRED.* */
        { EVF(0xC2, 0x01, inv_c16), DS_OK, DS_OK },           /* flags not matched for C2H */
        { EVF(0xC4, 0x00, 0), DS_OK, DS_OK },                 /* BR_INST_RETIRED.* */
        { EVF(0xC4, 0x00, DS_EVTSEL_EDGE), DS_ERR_PMC_PEBS_EVENT, DS_ERR_PMC_PEBS_EVENT },
        { EVF(0xC5, 0x02, 0), DS_OK, DS_OK },                 /* BR_MISP_RETIRED.NEAR_CALL */
        { EVF(0xC5, 0x00, 0), DS_ERR_PMC_PEBS_EVENT, DS_OK }, /* BR_MISP_RETIRED.*: Westmere only */
        { EVF(0xC7, 0x01, 0), DS_OK, DS_OK },                 /* SSEX_UOPS_RETIRED.* */
        { EVF(0xC8, 0x20, 0), DS_OK, DS_OK },                 /* ITLB_MISS_RETIRED */
        { EVF(0xC8, 0x01, 0), DS_ERR_PMC_PEBS_EVENT, DS_ERR_PMC_PEBS_EVENT },
        { EVF(0xCB, 0x01, 0), DS_OK, DS_OK },                 /* MEM_LOAD_RETIRED.* */
        { EVF(0xCB, 0x01, 1ull << 24), DS_ERR_PMC_PEBS_EVENT, DS_ERR_PMC_PEBS_EVENT },
        { EVF(0xF7, 0x01, 0), DS_OK, DS_OK },                 /* FP_ASSIST.* */
        { EVF(0x3C, 0x00, 0), DS_ERR_PMC_PEBS_EVENT, DS_ERR_PMC_PEBS_EVENT }, /* CPU_CLK_UNHALTED */
        { EVF(0xD0, 0x81, 0), DS_ERR_PMC_PEBS_EVENT, DS_ERR_PMC_PEBS_EVENT }, /* a Sandy Bridge+ event */
    };
    static const struct { uint32_t sig; bool wsm; } cpus[] = {
        { 0x000106A1, false }, { 0x000106E5, false }, { 0x000106F0, false }, { 0x000206E6, false },
        { 0x000206C2, true }, { 0x00020655, true }, { 0x000206F2, true },
    };
    for (size_t k = 0; k < N(cpus); k++) {
        arch_cpu(&f, &cpu, cpus[k].sig, 0x07300403, 0x603, 0, (1u << 8) | 3 | (1u << 6));
        for (size_t r = 0; r < N(rows); r++) {
            fp_set(&f, 0x3F1, 0);
            fp_clear_log(&f);
            int want = cpus[k].wsm ? rows[r].wsm : rows[r].nhm;
            CHECK_EQ(ds_pmc_pebs_enable(&cpu, 1, rows[r].evtsel), want, "sig %05x evtsel %llx", cpus[k].sig,
                     (unsigned long long)rows[r].evtsel);
            if (want != DS_OK)
                CHECK_EQ(f.nlog, 0, "refused before any MSR access");
        }
    }
    /* Ivy Bridge (format 1 too) and Haswell: any event */
    arch_cpu(&f, &cpu, 0x000306A9, 0x07300803, 0x603, 0, (1u << 8) | 3 | (1u << 6));
    CHECK_EQ(ds_pmc_pebs_enable(&cpu, 0, EVF(0x24, 0x3F, 0)), DS_OK, "IVB: any event");
    arch_cpu(&f, &cpu, 0x000306C3, 0x07300803, 0x603, 0, (2u << 8) | 3 | (1u << 6));
    CHECK_EQ(ds_pmc_pebs_enable(&cpu, 0, EVF(0x24, 0x3F, 0)), DS_OK, "HSW: any event");
    /* issue 31: but not 3CH, unhalted cycles: perfmon IVB/HSW/SKL
     * *_core.json CPU_CLK_UNHALTED.THREAD_P 3CH/00H and .REF_XCLK 3CH/01H
     * "PEBS": "0"; Linux intel_pebs_aliases_snb/_skl rewrite a precise 003CH
     * rather than enable PEBS on it. Refused with nothing written. */
    static const uint32_t sig[] = { 0x000306A9, 0x000306C3, 0x000506E3 };
    for (unsigned k = 0; k < 3; k++) {
        arch_cpu(&f, &cpu, sig[k], 0x07300803 + (k == 2), 0x603, 0, ((k + 1u) << 8) | 3 | (1u << 6));
        for (unsigned um = 0; um < 2; um++) {
            fp_clear_log(&f);
            CHECK_EQ(ds_pmc_pebs_enable(&cpu, 0, EVF(0x3C, um, 0)), DS_ERR_PMC_PEBS_EVENT, "sig %05x 3CH/%02x", sig[k], um);
            CHECK_EQ(ds_pmc_pebs_check(&cpu, 2, EVF(0x3C, um, 0)), DS_ERR_PMC_PEBS_EVENT, "check: the same");
            CHECK_EQ(f.writes, 0, "nothing written");
        }
    }
}

/*
 * Issue 10 item 6 (per-event constraints): typed from Linux ds.c
 * intel_snb_/intel_ivb_/intel_hsw_/intel_skl_pebs_event_constraints:
 * INST_RETIRED.PREC_DIST 01C0H (and 108001C0H, cycles:ppp) mask 0x2;
 * SNB/IVB MEM_TRANS_RETIRED.LAT_ABOVE_THR 01CDH and PRECISE_STORES 02CDH
 * mask 0x8 (Haswell onwards 01CDH is 0xF). Leaf 0AH of the Sandy Bridge
 * and Haswell dumps; SNB microcode 0x28 so the gate passes.
 */
static void test_pebs_event_counters(void)
{
    static struct ucode_fake u;
    struct ds_cpu cpu;
    const uint64_t inv_c16 = DS_EVTSEL_INV | (16ull << 24);
    static const struct { uint32_t sig; bool snb_ivb; } cpus[] = {
        { 0x000206A7, true }, { 0x000306A9, true }, { 0x000306E4, true },
        { 0x000306C3, false }, { 0x000406F1, false }, { 0x000506E3, false },
    };
    for (size_t k = 0; k < N(cpus); k++) {
        arch_cpu(&u.f, &cpu, cpus[k].sig, 0x07300403, 0x603, 0, (2u << 8) | 3 | (1u << 6));
        u.rev = 0x28;
        CHECK_EQ(ds_cpu_init(&cpu, &uf_ops, &u), DS_OK, "init");
        CHECK_EQ(ds_cpu_identify(&cpu), DS_OK, "identify");
        fp_set(&u.f, 0x8B, 0);
        for (unsigned i = 0; i < 4; i++) {
            fp_set(&u.f, 0x3F1, 0);
            fp_clear_log(&u.f);
            int want = i == 1 ? DS_OK : DS_ERR_PMC_PEBS_EVENT_COUNTER;
            CHECK_EQ(ds_pmc_pebs_enable(&cpu, i, DS_EVTSEL(0xC0, 0x01)), want, "%05x PREC_DIST PMC%u", cpus[k].sig, i);
            if (want)
                CHECK_EQ(fp_nwrites(&u.f, 0x3F1), 0, "refused: PEBS_ENABLE not written");
            CHECK_EQ(ds_pmc_pebs_enable(&cpu, i, DS_EVTSEL(0xC0, 0x01) | inv_c16), want, "%05x cycles:ppp PMC%u",
                     cpus[k].sig, i);
            CHECK_EQ(ds_pmc_pebs_enable(&cpu, i, DS_EVTSEL(0xC0, 0x00)), DS_OK, "%05x INST_RETIRED.ANY_P PMC%u",
                     cpus[k].sig, i);
            int want_cd = (!cpus[k].snb_ivb || i == 3) ? DS_OK : DS_ERR_PMC_PEBS_EVENT_COUNTER;
            /* CDH/01H: PMC3 on Haswell/Broadwell too (perfmon, libpfm4; issue 25 item 7), not Skylake */
            int want_ll = (cpus[k].sig == 0x000506E3 || i == 3) ? DS_OK : DS_ERR_PMC_PEBS_EVENT_COUNTER;
            CHECK_EQ(ds_pmc_pebs_enable(&cpu, i, DS_EVTSEL(0xCD, 0x01)), want_ll, "%05x LAT_ABOVE_THR PMC%u",
                     cpus[k].sig, i);
            CHECK_EQ(ds_pmc_pebs_enable(&cpu, i, DS_EVTSEL(0xCD, 0x02)), want_cd, "%05x PRECISE_STORES PMC%u",
                     cpus[k].sig, i);
        }
    }
    /* Nehalem: C0H any unit mask on any of PMC0-3 (no PREC_DIST rule) */
    arch_cpu(&u.f, &cpu, 0x000106A1, 0x07300403, 0x603, 0, (1u << 8) | 3 | (1u << 6));
    CHECK_EQ(ds_pmc_pebs_enable(&cpu, 0, DS_EVTSEL(0xC0, 0x01)), DS_OK, "NHM C0H/01H on PMC0");
}

/*
 * Issue 16/10: per-event PEBS counter constraints of adaptive PEBS. Expected
 * masks transcribed from Linux arch/x86/events/intel/ds.c:
 *  intel_icl_pebs_event_constraints: 0x01c0 (old INST_RETIRED.PREC_DIST) on
 *    fixed counter 0 only (mask 0x100000000: no GP counter); 0x1cd
 *    INTEL_PLD_CONSTRAINT 0xff; MEM_INST_RETIRED D0H (all unit masks) and
 *    D1H..D4H DATALA 0xf.
 *  intel_glc_pebs_event_constraints (SPR, ADL/RPL P-cores, MTL/GNR):
 *    INTEL_FLAGS_EVENT_CONSTRAINT(0xc0, 0xfe) (INST_RETIRED, any unit mask,
 *    not on PMC0); 0x1cd PLD 0xfe; 0x2cd PSD 0x1; D0H..D4H 0xf.
 *  intel_lnc_pebs_event_constraints (LNL/ARL P-cores): 0x1cd 0x3fc (the
 *    "0x3ff -> 0x3fc" fix), 0x2cd 0x3; D0H..D4H 0xf.
 *  intel_grt_pebs_event_constraints (Gracemont, Skymont via
 *    intel_pmu_init_skt): 0x5d0 0x3 (the "0xf -> 0x3" fix), 0x6d0 0xf.
 *  All three P-core lists: 0x0100 (INST_RETIRED.PREC_DIST pseudo-encoding) on
 *    fixed counter 0 and 0x0400 (SLOTS) on fixed counter 3 only (masks
 *    0x100000000 / 0x800000000: no GP counter).
 * Constraint rows match with EDGE/INV/CMASK/ANY clear only (Linux
 * X86_ALL_EVENT_FLAGS in the constraint mask); other events take the
 * PMU_FL_PEBS_ALL path (any PEBS counter).
 */
struct ev_mask { uint8_t ev, um; uint32_t gp; };
static void check_masks(struct fake_pmu *f, struct ds_cpu *cpu, const char *nm, unsigned ngp,
                        const struct ev_mask *t, size_t n)
{
    for (size_t k = 0; k < n; k++)
        for (unsigned i = 0; i < ngp; i++) {
            uint64_t sel = DS_EVTSEL(t[k].ev, t[k].um) | DS_EVTSEL_EN | DS_EVTSEL_USR;
            int want = ((t[k].gp >> i) & 1) ? DS_OK : DS_ERR_PMC_PEBS_EVENT_COUNTER;
            CHECK_EQ(ds_pmc_pebs_check(cpu, i, sel), want, "%s %02XH/%02XH PMC%u check", nm, t[k].ev, t[k].um, i);
            fp_set(f, 0x3F1, 0);
            fp_clear_log(f);
            CHECK_EQ(ds_pmc_pebs_enable(cpu, i, sel), want, "%s %02XH/%02XH PMC%u enable", nm, t[k].ev, t[k].um, i);
            CHECK_EQ(fp_get(f, 0x3F1), want ? 0 : 1ull << i, "%s %02XH/%02XH PMC%u PEBS_ENABLE", nm, t[k].ev,
                     t[k].um, i);
            if (want)
                CHECK_EQ(fp_nwrites(f, 0x3F1), 0, "%s refused: PEBS_ENABLE not written", nm);
        }
}

static void spr_cpu(struct fake_pmu *f, struct ds_cpu *cpu)
{
    /* Sapphire Rapids 06_8FH: leaf 0AH of ../shared/cpuid/GenuineIntel00806F8_SapphireRapids_05
     * (08300805 / 8604, ECX 0F); PERF_CAPABILITIES fmt 4 + baseline + FW_WRITE (SDM layout) */
    arch_cpu(f, cpu, 0x000806F8, 0x08300805, 0x00008604, 0xF, (4u << 8) | 5 | (1u << 13) | (1u << 14));
}

static void test_adaptive_event_counters(void)
{
    struct fake_pmu f;
    struct ds_cpu cpu;
    static const struct ev_mask icl[] = {
        { 0xD0, 0x81, 0xF }, { 0xD0, 0x82, 0xF }, { 0xD0, 0x11, 0xF }, { 0xD0, 0x01, 0xF },
        { 0xD1, 0x01, 0xF }, { 0xD4, 0x04, 0xF }, { 0xCF, 0x01, 0xFF }, { 0xD5, 0x01, 0xFF },
        { 0xC0, 0x01, 0x0 }, { 0xC0, 0x00, 0xFF }, { 0xCD, 0x01, 0xFF }, { 0xCD, 0x02, 0xFF },
        { 0x00, 0x01, 0x0 }, { 0x00, 0x04, 0x0 }, { 0x00, 0x03, 0xFF },
    };
    static const struct ev_mask glc[] = {
        { 0xD0, 0x81, 0xF }, { 0xD0, 0x82, 0xF }, { 0xD3, 0x01, 0xF }, { 0xD5, 0x01, 0xFF },
        { 0xCD, 0x01, 0xFE }, { 0xCD, 0x02, 0x1 }, { 0xC0, 0x00, 0xFE }, { 0xC0, 0x01, 0xFE },
        { 0xC0, 0x02, 0xFE }, { 0xC4, 0x00, 0xFF }, { 0x00, 0x01, 0x0 }, { 0x00, 0x04, 0x0 },
    };
    static const struct ev_mask lnc[] = {
        { 0xD0, 0x81, 0xF }, { 0xD2, 0x01, 0xF }, { 0xCD, 0x01, 0x3FC }, { 0xCD, 0x02, 0x3 },
        { 0xC0, 0x00, 0x3FF }, { 0xC4, 0x00, 0x3FF }, { 0x00, 0x01, 0x0 }, { 0x00, 0x04, 0x0 },
    };
    static const struct ev_mask skt[] = {
        { 0xD0, 0x05, 0x3 }, { 0xD0, 0x06, 0xF }, { 0xD0, 0x81, 0xFF }, { 0xD0, 0x82, 0xFF },
        { 0xCD, 0x01, 0xFF }, { 0x00, 0x01, 0xFF },
    };
    arch_cpu(&f, &cpu, 0x000706E5, 0x07300805, 0x00000604, 0xF, (4u << 8) | 5 | (1u << 13) | (1u << 14));
    check_masks(&f, &cpu, "ICL", 8, icl, N(icl));
    /* a flagged encoding matches no constraint row (Linux: PMU_FL_PEBS_ALL) */
    CHECK_EQ(ds_pmc_pebs_check(&cpu, 5, DS_EVTSEL(0xD0, 0x81) | (1ull << DS_EVTSEL_CMASK_SHIFT)), DS_OK,
             "ICL D0H/81H CMASK 1 on PMC5");
    spr_cpu(&f, &cpu);
    check_masks(&f, &cpu, "SPR", 8, glc, N(glc));
    /* C0H with INV + CMASK 16 (cycles:p) is flagged: no glc row, PMC0 allowed */
    CHECK_EQ(ds_pmc_pebs_check(&cpu, 0, DS_EVTSEL(0xC0, 0x00) | DS_EVTSEL_INV | (16ull << DS_EVTSEL_CMASK_SHIFT)),
             DS_OK, "SPR C0H INV CMASK 16 on PMC0");
    lnl_cpu(&f, &cpu, false, LNL_CAPS(6));
    check_masks(&f, &cpu, "LNL P", 10, lnc, N(lnc));
    lnl_cpu(&f, &cpu, true, LNL_CAPS(6));
    check_masks(&f, &cpu, "LNL E", 8, skt, N(skt));
}

/*
 * Load latency with adaptive PEBS (formats 4-6). SDM "Load Latency
 * Performance Monitoring Facility" (Ice Lake and later): MSR_PEBS_LD_LAT
 * 3F6H holds the threshold and IA32_PEBS_ENABLE bit n enables PEBS on the
 * counter counting MEM_TRANS_RETIRED.LOAD_LATENCY; bits 32+ are the fixed
 * counters' PEBS enables there, so no LL_EN bit (Linux intel_pmu_pebs_enable
 * sets bit idx+32 only when x86_pmu.version < 5). Counters: the Linux LL
 * masks of test_adaptive_event_counters (ICL 0x1cd 0xff, GLC 0xfe, LNC
 * 0x3fc, Gracemont/Skymont 0x5d0 0x3).
 */
static void ldlat_counters(struct fake_pmu *f, struct ds_cpu *cpu, const char *nm, unsigned ngp, uint32_t ll)
{
    for (unsigned i = 0; i < ngp; i++) {
        int want = ((ll >> i) & 1) ? DS_OK : DS_ERR_PMC_PEBS_EVENT_COUNTER;
        fp_set(f, 0x3F1, 1ull << 32);   /* fixed counter 0 PEBS already on */
        fp_set(f, 0x3F6, 0);
        fp_clear_log(f);
        CHECK_EQ(ds_pmc_pebs_ldlat(cpu, i, 50), want, "%s ldlat PMC%u", nm, i);
        CHECK_EQ(fp_get(f, 0x3F1), (1ull << 32) | (want ? 0 : 1ull << i), "%s PMC%u: PEBS bit only, no LL_EN", nm, i);
        CHECK_EQ(fp_get(f, 0x3F6), want ? 0 : 50, "%s PMC%u MSR_PEBS_LD_LAT", nm, i);
        if (want)
            CHECK_EQ(f->nlog, 0, "%s PMC%u refused before any MSR access", nm, i);
    }
    CHECK_EQ(ds_pmc_pebs_ldlat(cpu, ngp, 50), DS_ERR_PMC_BAD_COUNTER, "%s ldlat PMC%u absent", nm, ngp);
    CHECK_EQ(ds_pmc_pebs_ldlat(cpu, __builtin_ctz(ll), 2), DS_ERR_PMC_LDLAT_RANGE, "%s threshold 2", nm);
    CHECK_EQ(ds_pmc_pebs_ldlat(cpu, __builtin_ctz(ll), 0x10000), DS_ERR_PMC_LDLAT_RANGE, "%s threshold 65536", nm);
    fp_set(f, 0x3F1, 0);
    CHECK_EQ(ds_pmc_pebs_ldlat(cpu, __builtin_ctz(ll), 3), DS_OK, "%s threshold 3", nm);
    CHECK_EQ(fp_get(f, 0x3F6), 3, "%s MSR_PEBS_LD_LAT 3", nm);
    CHECK_EQ(ds_pmc_pebs_ldlat(cpu, __builtin_ctz(ll), 0xFFFF), DS_OK, "%s threshold 65535", nm);
    CHECK_EQ(fp_get(f, 0x3F6), 0xFFFF, "%s MSR_PEBS_LD_LAT 65535", nm);
}

static void test_adaptive_ldlat(void)
{
    struct fake_pmu f;
    struct ds_cpu cpu;
    arch_cpu(&f, &cpu, 0x000706E5, 0x07300805, 0x00000604, 0xF, (4u << 8) | 5 | (1u << 13) | (1u << 14));
    ldlat_counters(&f, &cpu, "ICL", 8, 0xFF);
    spr_cpu(&f, &cpu);
    ldlat_counters(&f, &cpu, "SPR", 8, 0xFE);
    lnl_cpu(&f, &cpu, false, LNL_CAPS(6));
    fp_set(&f, 0x3F6, 0);
    ldlat_counters(&f, &cpu, "LNL P", 10, 0x3FC);
    lnl_cpu(&f, &cpu, true, LNL_CAPS(6));
    fp_set(&f, 0x3F6, 0);
    ldlat_counters(&f, &cpu, "LNL E", 8, 0x3);
    /* KVM guest on Sapphire Rapids (the model's kvm-spr profile): perfmon v2,
     * 8 GP, the host's PEBS format 4 without PEBS_BASELINE (KVM
     * vmx_get_perf_capabilities "Disallow adaptive PEBS"): PEBS on PMC0-3 (non-adaptive row), 01CDH not
     * on PMC0 (glc 0xfe), and PEBS_ENABLE has no bits 32+ (KVM
     * intel_pmu_refresh): bit n only. */
    arch_cpu(&f, &cpu, 0x000806F8, 0x08300802, 0x00000603, 0, (4u << 8) | 0xC0 | (1u << 13));
    for (unsigned i = 0; i < 8; i++) {
        int want = i == 0 ? DS_ERR_PMC_PEBS_EVENT_COUNTER : i < 4 ? DS_OK : DS_ERR_PMC_PEBS_COUNTER;
        fp_set(&f, 0x3F1, 0);
        fp_set(&f, 0x3F6, 0);
        CHECK_EQ(ds_pmc_pebs_ldlat(&cpu, i, 50), want, "KVM SPR ldlat PMC%u", i);
        CHECK_EQ(fp_get(&f, 0x3F1), want ? 0 : 1ull << i, "KVM SPR PMC%u: PEBS bit only", i);
        CHECK_EQ(ds_pmc_pebs_check(&cpu, i, DS_EVTSEL(0xCD, 0x01)), want, "KVM SPR 01CDH PEBS PMC%u", i);
    }
}

/* Issue 10 test strength (exact boundary): AnyThread (bit 21) exists from
 * perfmon v3 (SDM "Architectural Performance Monitoring Version 3"): v3
 * accepts it, v2 refuses it (test above). */
static void test_any_from_v3(void)
{
    struct fake_pmu f;
    struct ds_cpu cpu;
    arch_cpu(&f, &cpu, 0x000306C3, 0x07300403, 0x00000603, 0, 0); /* Haswell 06_3CH, v3 */
    CHECK_EQ(cpu.caps.perfmon_version, 3, "perfmon v3");
    CHECK_EQ(ds_pmc_gp_program(&cpu, 0, DS_EVTSEL_ANY, 0), DS_OK, "ANY on v3");
}

/* Issue 25 item 6a: CPUID.0AH:EDX[15] (AnyThread deprecation, read by Linux
 * intel_pmu_init from perfmon v5: "if (version >= 5) ... anythread_deprecated
 * = edx.split.anythread_deprecated", which then drops the `any` format
 * attribute) makes EVTSEL bit 21 and FIXED_CTR_CTRL ANY refused with
 * DS_ERR_PMC_ANY_DEPRECATED. Words from the real ICX dump (0AH 08300805H /
 * 0 / 0FH / 8604H: EDX[15] set) and Skylake (07300804H / 603H, v4, bit
 * clear); a v4 EDX with bit 15 set is not read as deprecation (Linux reads
 * it from v5 only), nor a v5 EDX with the bit clear. */
static void test_any_deprecated(void)
{
    static const struct { uint32_t a0a, d0a; int rc; const char *what; } t[] = {
        { 0x08300805, 0x00008604, DS_ERR_PMC_ANY_DEPRECATED, "ICX v5, EDX[15]" },
        { 0x08300805, 0x00000604, DS_OK, "v5, EDX[15] clear" },
        { 0x07300804, 0x00008603, DS_OK, "v4, EDX[15] set: not read" },
        { 0x07300804, 0x00000603, DS_OK, "Skylake v4" },
    };
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        struct fake_pmu f;
        struct ds_cpu cpu;
        arch_cpu(&f, &cpu, 0x000606A6, t[i].a0a, t[i].d0a, (t[i].a0a & 0xFF) >= 5 ? 0xF : 0, 0x64BF);
        CHECK_EQ(cpu.caps.anythread_deprecated, t[i].rc != DS_OK, "%s: caps", t[i].what);
        CHECK_EQ(ds_pmc_gp_program(&cpu, 0, DS_EVTSEL(0x3C, 0) | DS_EVTSEL_ANY, 0), t[i].rc, "%s: GP ANY", t[i].what);
        CHECK_EQ(ds_pmc_gp_program(&cpu, 0, DS_EVTSEL(0x3C, 0), 0), DS_OK, "%s: GP without ANY", t[i].what);
        CHECK_EQ(ds_pmc_fixed_program(&cpu, 1, DS_FIXED_ANY | DS_FIXED_OS, false, 0), t[i].rc, "%s: fixed ANY",
                 t[i].what);
        CHECK_EQ(ds_pmc_fixed_program(&cpu, 1, DS_FIXED_OS, false, 0), DS_OK, "%s: fixed without ANY", t[i].what);
    }
}

/*
 * Nehalem errata workaround step 5 (Linux core.c intel_pmu_nhm_workaround
 * comment: "5) Clear 4 pairs of PERFEVTSELx and PMCx"): after GLOBAL_CTRL
 * 0FH -> 0, each PERFEVTSELx is written 0 before its counter is written
 * back, so the caller's value is restored into a stopped counter and the
 * magic event never counts with the restored value.
 */
static void test_nhm_workaround_clears_evtsel(void)
{
    struct fake_pmu f;
    struct ds_cpu cpu;
    arch_cpu(&f, &cpu, 0x000106A5, 0x07300403, 0x603, 0, (1u << 8) | 3 | (1u << 6)); /* 06_1AH */
    for (unsigned i = 0; i < 4; i++) {
        fp_set(&f, 0x186 + i, DS_EVTSEL(0xC4, 0) | DS_EVTSEL_EN | DS_EVTSEL_OS);
        fp_set(&f, 0xC1 + i, 0xFFFF80000100ull + i);
    }
    fp_set(&f, 0x38F, 0xF);
    fp_clear_log(&f);
    CHECK_EQ(ds_pmc_nhm_workaround(&cpu), DS_OK, "workaround");
    int gctl_f = -1, gctl_0 = -1;
    for (int i = 0; i < f.nlog; i++)
        if (f.log[i].kind == 'w' && f.log[i].msr == 0x38F) {
            if (f.log[i].val == 0xF && gctl_f < 0)
                gctl_f = i;
            else if (gctl_f >= 0 && f.log[i].val == 0 && gctl_0 < 0)
                gctl_0 = i;
        }
    CHECK(gctl_f >= 0 && gctl_0 > gctl_f, "GLOBAL_CTRL 0FH then 0 (%d, %d)", gctl_f, gctl_0);
    for (unsigned c = 0; c < 4; c++) {
        int sel0 = -1, ctr = -1;
        for (int i = gctl_0 + 1; i < f.nlog; i++) {
            if (f.log[i].kind != 'w')
                continue;
            if (f.log[i].msr == 0x186 + c && sel0 < 0)
                sel0 = i;
            if (f.log[i].msr == 0xC1 + c && ctr < 0)
                ctr = i;
        }
        CHECK(sel0 >= 0 && f.log[sel0].val == 0, "PERFEVTSEL%u first written 0 after step 4 (got %#llx)", c,
              sel0 >= 0 ? (unsigned long long)f.log[sel0].val : 0ull);
        CHECK(sel0 >= 0 && ctr > sel0, "PMC%u restored after PERFEVTSEL%u was cleared", c, c);
    }
}

/*
 * IA32_PERF_GLOBAL_CTRL (SDM Vol. 3B "Architectural Performance Monitoring
 * Version 5" / the GLOBAL_CTRL figure): fixed counter m enables at bit 32+m
 * for m up to 15 (bit 47); bit 48 is PERF_METRICS, not a fixed counter.
 * A v5 CPU with CPUID.0AH:ECX = fixed 0-2 and 15: bit 47 is accepted,
 * bit 46 (fixed 14 absent) and bit 48 (no PERF_METRICS) are not.
 */
static void test_global_ctrl_fixed15(void)
{
    struct fake_pmu f;
    struct ds_cpu cpu;
    arch_cpu(&f, &cpu, 0x000A06A4, 0x08300805, 0x00000603, 0x8007, 0);
    CHECK_EQ(cpu.caps.perfmon_version, 5, "perfmon v5");
    CHECK_EQ(ds_pmc_global_ctrl(&cpu, 1ull << 47), DS_OK, "fixed 15 enable bit 47");
    CHECK_EQ(ds_pmc_global_ctrl(&cpu, 0xFF | (0x8007ull << 32)), DS_OK, "all present counters");
    CHECK_EQ(fp_get(&f, 0x38F), 0xFF | (0x8007ull << 32), "GLOBAL_CTRL written");
    CHECK_EQ(ds_pmc_global_ctrl(&cpu, 1ull << 46), DS_ERR_PMC_RESERVED, "fixed 14 absent");
    CHECK_EQ(ds_pmc_global_ctrl(&cpu, 1ull << 48), DS_ERR_PMC_RESERVED, "bit 48 without PERF_METRICS");
    CHECK_EQ(ds_pmc_global_ctrl(&cpu, 1ull << 35), DS_ERR_PMC_RESERVED, "fixed 3 absent");
}

/*
 * MSR fault sweep (fault_sweep.h; every error path of an MSR access, not
 * one chosen case): each pmc.h operation, with each MSR it touches faulting
 * on any access, on reads only and on writes only, answers
 * DS_ERR_MSR_FAULT (the pmc.h contract), never DS_OK from a value it never
 * read, and writes no MSR whose read failed.
 */
static void icelake_cpu(struct fake_pmu *f, struct ds_cpu *cpu)
{
    /* Ice Lake 06_7EH: v5, 8 GP, 4 fixed (ECX 0FH), PEBS fmt 4 + baseline, FW_WRITE */
    arch_cpu(f, cpu, 0x000706E5, 0x08300805, 0x00000604, 0xF, 0x64BF);
}
static void skylake_fw(struct fake_pmu *f, struct ds_cpu *cpu) { skylake(f, cpu, true); }
static void nehalem_cpu(struct fake_pmu *f, struct ds_cpu *cpu)
{
    arch_cpu(f, cpu, 0x000106A5, 0x07300403, 0x603, 0, (1u << 8) | 3 | (1u << 6));
}
#define EV_BR (DS_EVTSEL(0xC4, 0x04) | DS_EVTSEL_USR | DS_EVTSEL_OS | DS_EVTSEL_EN)
static int op_gp_program(struct ds_cpu *c) { return ds_pmc_gp_program(c, 1, EV_BR | DS_EVTSEL_INT, 0xFFFFFFFF0000ull); }
static int op_gp_write(struct ds_cpu *c) { return ds_pmc_gp_write(c, 2, 0xFFFF00001234ull); }
static int op_gp_read(struct ds_cpu *c) { uint64_t v; return ds_pmc_gp_read(c, 3, &v); }
static int op_fixed(struct ds_cpu *c) { return ds_pmc_fixed_program(c, 1, 0x3, false, 0); }
static int op_fixed_adaptive(struct ds_cpu *c) { return ds_pmc_fixed_program(c, 0, 0x3, true, 0); }
static int op_global(struct ds_cpu *c) { return ds_pmc_global_ctrl(c, 0x3); }
static int op_pebs(struct ds_cpu *c) { return ds_pmc_pebs_enable(c, 0, EV_BR); }
static int op_pebs_fixed(struct ds_cpu *c) { return ds_pmc_pebs_enable_fixed(c, 0); }
static int op_pebs_disable(struct ds_cpu *c) { return ds_pmc_pebs_disable(c, 1); }
static int op_ldlat(struct ds_cpu *c) { return ds_pmc_pebs_ldlat(c, 0, 3); }
static int op_data_cfg(struct ds_cpu *c) { return ds_pmc_pebs_data_cfg(c, DS_PEBS_DATA_CFG_MEMINFO); }
static int op_nhm(struct ds_cpu *c) { return ds_pmc_nhm_workaround(c); }

/* Sandy Bridge 06_2AH stepping 7 with IA32_BIOS_SIGN_ID (8BH) present. */
static void snb_cpu(struct fake_pmu *f, struct ds_cpu *cpu)
{
    arch_cpu(f, cpu, 0x000206A7, 0x07300803, 0x603, 0, (1u << 8) | 3 | (1u << 6));
    fp_set(f, 0x8B, 0x28ull << 32);
}
static int op_ucode(struct ds_cpu *c) { uint32_t r; return ds_pmc_microcode_rev(c, &r); }

static void test_msr_fault_sweep(void)
{
    fault_sweep("gp_program", skylake_fw, op_gp_program, FS_ANY);
    fault_sweep("gp_program no FW", nehalem_cpu, op_gp_program, FS_ANY);
    fault_sweep("gp_write", skylake_fw, op_gp_write, FS_ANY);
    fault_sweep("gp_read", skylake_fw, op_gp_read, FS_ANY);
    fault_sweep("fixed_program", skylake_fw, op_fixed, FS_ANY);
    fault_sweep("fixed_program adaptive", icelake_cpu, op_fixed_adaptive, FS_ANY);
    fault_sweep("global_ctrl", skylake_fw, op_global, FS_ANY);
    fault_sweep("pebs_enable", skylake_fw, op_pebs, FS_ANY);
    fault_sweep("pebs_enable ICL", icelake_cpu, op_pebs, FS_ANY);
    fault_sweep("pebs_enable_fixed", icelake_cpu, op_pebs_fixed, FS_ANY);
    fault_sweep("pebs_disable", skylake_fw, op_pebs_disable, FS_ANY);
    fault_sweep("pebs_ldlat fmt3", skylake_fw, op_ldlat, FS_ANY);
    fault_sweep("pebs_ldlat fmt4", icelake_cpu, op_ldlat, FS_ANY);
    fault_sweep("pebs_data_cfg", icelake_cpu, op_data_cfg, FS_ANY);
    fault_sweep("nhm_workaround", nehalem_cpu, op_nhm, FS_ANY);
    fault_sweep("gp_program", skylake_fw, op_gp_program, FS_READ);
    fault_sweep("fixed_program", skylake_fw, op_fixed, FS_READ);
    fault_sweep("fixed_program adaptive", icelake_cpu, op_fixed_adaptive, FS_READ);
    fault_sweep("pebs_enable", skylake_fw, op_pebs, FS_READ);
    fault_sweep("pebs_enable ICL", icelake_cpu, op_pebs, FS_READ);
    fault_sweep("pebs_enable_fixed", icelake_cpu, op_pebs_fixed, FS_READ);
    fault_sweep("pebs_disable", skylake_fw, op_pebs_disable, FS_READ);
    fault_sweep("pebs_ldlat fmt3", skylake_fw, op_ldlat, FS_READ);
    fault_sweep("pebs_ldlat fmt4", icelake_cpu, op_ldlat, FS_READ);
    fault_sweep("nhm_workaround", nehalem_cpu, op_nhm, FS_READ);
    fault_sweep("microcode_rev", snb_cpu, op_ucode, FS_READ);
    fault_sweep("microcode_rev", snb_cpu, op_ucode, FS_WRITE);
    fault_sweep("gp_program", skylake_fw, op_gp_program, FS_WRITE);
    fault_sweep("fixed_program", skylake_fw, op_fixed, FS_WRITE);
    fault_sweep("pebs_enable", skylake_fw, op_pebs, FS_WRITE);
    fault_sweep("pebs_ldlat fmt3", skylake_fw, op_ldlat, FS_WRITE);
    fault_sweep("nhm_workaround", nehalem_cpu, op_nhm, FS_WRITE);
}

/* Clearing path: a fixed counter reprogrammed from adaptive to plain loses
 * its adaptive-PEBS bit (IA32_FIXED_CTR_CTRL bit 32 + 4m, reference msr.md;
 * Linux intel_pmu_enable_fixed ICL_FIXED_0_ADAPTIVE << 4 idx), the
 * neighbours keep theirs; ds_pmc_fixed_program stops the counter first
 * (a write with the nibble and the adaptive bit clear). */
static void test_fixed_adaptive_cleared(void)
{
    struct fake_pmu f;
    struct ds_cpu cpu;
    icelake_cpu(&f, &cpu);
    CHECK_EQ(ds_pmc_fixed_program(&cpu, 0, 0x3, true, 0), DS_OK, "fixed 0 adaptive");
    CHECK_EQ(ds_pmc_fixed_program(&cpu, 1, 0x3, true, 0), DS_OK, "fixed 1 adaptive");
    CHECK_EQ(fp_get(&f, 0x38D), 0x33ull | (1ull << 32) | (1ull << 36), "both adaptive");
    fp_clear_log(&f);
    CHECK_EQ(ds_pmc_fixed_program(&cpu, 1, 0x2, false, 0), DS_OK, "fixed 1 plain");
    CHECK_EQ(fp_get(&f, 0x38D), 0x23ull | (1ull << 32), "fixed 1: bit 36 cleared, fixed 0 kept");
    CHECK(f.nlog >= 2 && f.log[1].kind == 'w' && f.log[1].msr == 0x38D && f.log[1].val == (0x03ull | (1ull << 32)),
          "stopped first: nibble and adaptive bit of fixed 1 clear");
}

/* Load latency on PEBS formats 1-3 uses PMC0-3 that exist: with CPUID.0AH
 * reporting 3 GP counters (a VM), PMC3 is refused (index == gp_counters)
 * and nothing is written; PMC2 (the last one) works. */
static void test_ldlat_counter_exists(void)
{
    struct fake_pmu f;
    struct ds_cpu cpu;
    arch_cpu(&f, &cpu, 0x000506E3, 0x07300304, 0x00000603, 0, 0x1305);
    CHECK_EQ(cpu.caps.gp_counters, 3, "3 GP counters");
    fp_clear_log(&f);
    CHECK_EQ(ds_pmc_pebs_ldlat(&cpu, 3, 3), DS_ERR_PMC_PEBS_COUNTER, "PMC3 absent");
    CHECK_EQ(f.writes, 0, "nothing written");
    CHECK_EQ(ds_pmc_pebs_ldlat(&cpu, 2, 3), DS_OK, "PMC2");
    CHECK_EQ(fp_get(&f, 0x3F1), (1ull << 2) | (1ull << 34), "PEBS_ENABLE PMC2 + its load-latency bit 34");
}

/* IN_TX / IN_TXCP (EVTSEL bits 32/33) need perfmon v3 as well as TSX
 * (reference msr.md: Haswell+, Linux HSW_IN_TX; below v3 the bits are
 * reserved): a perfmon v2 CPU whose CPUID.(07H,0):EBX says RTM and HLE (a
 * hypervisor's mix) is refused with nothing written; the same CPUID with
 * perfmon v3 is accepted. */
static void test_in_tx_needs_v3(void)
{
    struct fake_pmu f;
    struct ds_cpu cpu;
    for (unsigned v = 2; v <= 3; v++) {
        fp_reset(&f);
        fp_intel(&f, 0xA, 0x000306C3, (1u << 2), 1u << 21);
        fp_cpuid_set(&f, 7, 0, 0, (1u << 4) | (1u << 11), 0, 0);
        fp_cpuid_set(&f, 0xA, 0, 0x07300400 | v, 0, 0, 0x603);
        fp_set(&f, DS_MSR_IA32_MISC_ENABLE, 1u << 7);
        for (unsigned i = 0; i < 4; i++) {
            fp_set(&f, 0xC1 + i, 0);
            fp_set(&f, 0x186 + i, 0);
        }
        CHECK_EQ(fp_identify(&f, &cpu), DS_OK, "identify v%u", v);
        CHECK_EQ(cpu.caps.perfmon_version, v, "perfmon v%u", v);
        int r = ds_pmc_gp_program(&cpu, 0, DS_EVTSEL(0xC0, 0) | DS_EVTSEL_EN | DS_EVTSEL_IN_TX, 0);
        CHECK_EQ(r, v < 3 ? DS_ERR_PMC_RESERVED : DS_OK, "IN_TX on perfmon v%u with TSX", v);
        if (v < 3)
            CHECK_EQ(f.writes, 0, "v2: nothing written");
    }
}

/* The Nehalem errata sequence programs PMC0-3 (Linux intel_pmu_nhm_workaround
 * writes PERFEVTSEL0-3 / PERFCTR0-3): a Nehalem whose CPUID.0AH reports
 * fewer than 4 GP counters (a VM) is refused with DS_ERR_PMC_BAD_COUNTER
 * before any MSR access. */
static void test_nhm_workaround_needs_4_gp(void)
{
    struct fake_pmu f;
    struct ds_cpu cpu;
    arch_cpu(&f, &cpu, 0x000106A5, 0x07300303, 0x603, 0, (1u << 8) | 3 | (1u << 6));
    CHECK_EQ(cpu.caps.gp_counters, 3, "3 GP counters");
    fp_clear_log(&f);
    CHECK_EQ(ds_pmc_nhm_workaround(&cpu), DS_ERR_PMC_BAD_COUNTER, "3 GP: refused");
    CHECK_EQ(f.nlog, 0, "no MSR access");
}

/*
 * mut3C (issue 10 test strength): exact boundaries of the fixed-counter
 * checks. pmc.h: ds_pmc_fixed_program / ds_pmc_pebs_check_fixed refuse
 * idx > 7 (FIXED_CTR_CTRL has eight 4-bit fields, SDM IA32_FIXED_CTR_CTRL
 * figure; adaptive bit 32+4m, reference msr.md), @ctrl is a 4-bit field
 * (0xF valid); AnyThread (ctrl bit 2) exists from perfmon v3 (SDM
 * "Architectural Performance Monitoring Version 3"); a part that does not
 * report the fixed width takes only 0. Synthetic v5 Ice Lake 06_7EH with
 * CPUID.0AH:ECX = 1FFH (fixed 0-8 present), EDX[4:0] = 8, fmt 4 + baseline.
 */
static void test_fixed_index_boundaries(void)
{
    struct fake_pmu f;
    struct ds_cpu cpu;
    arch_cpu(&f, &cpu, 0x000706E5, 0x07300805, 0x00000608, 0x1FF, (4u << 8) | 5 | (1u << 13) | (1u << 14));
    fp_set(&f, 0x38D, 0);
    CHECK_EQ(ds_pmc_fixed_program(&cpu, 7, 0xF, true, 0x1234), DS_OK, "fixed 7, ctrl 0xF, adaptive");
    CHECK_EQ(fp_get(&f, 0x38D), (0xFull << 28) | (1ull << 60), "FIXED_CTR_CTRL nibble 7 and bit 60");
    CHECK_EQ(fp_get(&f, 0x310), 0x1234, "IA32_FIXED_CTR7 (309H + 7)");
    fp_clear_log(&f);
    CHECK_EQ(ds_pmc_fixed_program(&cpu, 8, 0x3, false, 0), DS_ERR_PMC_BAD_FIXED, "fixed 8 (present in ECX) > 7");
    CHECK_EQ(ds_pmc_fixed_program(&cpu, 32, 0x3, false, 0), DS_ERR_PMC_BAD_FIXED, "fixed 32");
    CHECK_EQ(f.nlog, 0, "refused before any MSR access");
    CHECK_EQ(ds_pmc_pebs_check_fixed(&cpu, 7), DS_OK, "PEBS check fixed 7");
    CHECK_EQ(ds_pmc_pebs_check_fixed(&cpu, 8), DS_ERR_PMC_BAD_FIXED, "PEBS check fixed 8");
    CHECK_EQ(ds_pmc_pebs_check_fixed(&cpu, 32), DS_ERR_PMC_BAD_FIXED, "PEBS check fixed 32");
    fp_set(&f, 0x3F1, 0);
    CHECK_EQ(ds_pmc_pebs_enable_fixed(&cpu, 7), DS_ERR_PMC_PEBS_INT, "fixed 7 PMI (ctrl 0xF) set");
    CHECK_EQ(ds_pmc_fixed_program(&cpu, 7, 0x3, true, 0), DS_OK, "fixed 7 without PMI");
    CHECK_EQ(ds_pmc_pebs_enable_fixed(&cpu, 7), DS_OK, "PEBS on fixed 7");
    CHECK_EQ(fp_get(&f, 0x3F1), 1ull << 39, "IA32_PEBS_ENABLE bit 32+7");
    CHECK_EQ(ds_pmc_fixed_program(&cpu, 0, 0x10, false, 0), DS_ERR_PMC_RESERVED, "ctrl 0x10");
    /* AnyThread at perfmon v3 (Haswell 06_3CH leaf 0AH 07300403/603) accepted, v2 refused */
    arch_cpu(&f, &cpu, 0x000306C3, 0x07300403, 0x00000603, 0, 0);
    CHECK_EQ(ds_pmc_fixed_program(&cpu, 1, DS_FIXED_ANY | DS_FIXED_OS, false, 0), DS_OK, "fixed ANY on v3");
    CHECK_EQ(fp_get(&f, 0x38D), 0x50, "fixed 1 nibble ANY|OS");
    arch_cpu(&f, &cpu, 0x000306C3, 0x07300402, 0x00000603, 0, 0);
    CHECK_EQ(ds_pmc_fixed_program(&cpu, 1, DS_FIXED_ANY | DS_FIXED_OS, false, 0), DS_ERR_PMC_RESERVED, "fixed ANY on v2");
    /* perfmon v4 with EDX = 0 still has the three fixed counters (Linux
     * intel_pmu_init max(EDX[4:0], 3) for v2-v4); v5 trusts ECX/EDX */
    arch_cpu(&f, &cpu, 0x000506E3, 0x07300404, 0, 0, 0);
    CHECK_EQ(ds_pmc_fixed_program(&cpu, 2, DS_FIXED_OS, false, 0), DS_OK, "v4, EDX 0: fixed 2 assumed");
    CHECK_EQ(ds_pmc_fixed_program(&cpu, 3, DS_FIXED_OS, false, 0), DS_ERR_PMC_BAD_FIXED, "v4, EDX 0: fixed 3 absent");
    /* no reported fixed width (EDX 0): only 0 is loadable */
    CHECK_EQ(ds_pmc_fixed_program(&cpu, 0, DS_FIXED_OS, false, 1), DS_ERR_PMC_VALUE_WIDE, "width 0: start 1");
    arch_cpu(&f, &cpu, 0x000706E5, 0x07300805, 0, 0, 0);
    CHECK_EQ(ds_pmc_fixed_program(&cpu, 0, DS_FIXED_OS, false, 0), DS_ERR_PMC_BAD_FIXED, "v5, ECX 0, EDX 0: no fixed");
}

/*
 * mut3C: GP-counter exact boundaries. Before perfmon v6 only IA32_PMC0-7
 * exist (SDM Vol. 4 Table 2-2: 0C1H-0C8H, PERFEVTSEL 186H-18DH; v6 aliases
 * at 1900H+4n), so a v5 part whose CPUID.23H.1 EAX lists GP 8 (1FFH,
 * synthetic) still has no usable PMC8: program refused, GLOBAL_CTRL bit 8
 * reserved, PMC7 usable. A counter index of 32 is refused everywhere; a
 * 64-bit-wide counter (CPUID.0AH:EAX[23:16] = 64) reads back all 64 bits.
 */
static void test_gp_index_boundaries(void)
{
    struct fake_pmu f;
    struct ds_cpu cpu;
    fp_reset(&f);
    fp_cpuid_set(&f, 0, 0, 0x23, 0x756e6547u, 0x6c65746eu, 0x49656e69u);
    fp_cpuid_set(&f, 1, 0, 0x000A06A4, 0, 0x7FFAFBFF, 0xBFEBFBFF);
    fp_cpuid_set(&f, 0xA, 0, 0x07300805, 0, 0x7, 0x8603);
    fp_cpuid_set(&f, 0x23, 0, 0x3, 0, 0, 0);
    fp_cpuid_set(&f, 0x23, 1, 0x1FF, 0x7, 0, 0);
    fp_set(&f, DS_MSR_IA32_MISC_ENABLE, 1u << 7);
    fp_set(&f, DS_MSR_IA32_PERF_CAPABILITIES, LNL_CAPS(5));
    for (unsigned i = 0; i < 9; i++) {
        fp_set(&f, 0x186 + i, 0);
        fp_set(&f, 0x4C1 + i, 0);
        fp_set(&f, 0xC1 + i, 0);
    }
    fp_set(&f, 0x38F, 0);
    CHECK_EQ(fp_identify(&f, &cpu), DS_OK, "identify v5 with 23H.1 GP 1FFH");
    uint64_t ev = DS_EVTSEL(0xC0, 0) | DS_EVTSEL_EN | DS_EVTSEL_USR;
    CHECK_EQ(ds_pmc_gp_program(&cpu, 7, ev, 0), DS_OK, "v5 PMC7");
    fp_clear_log(&f);
    CHECK_EQ(ds_pmc_gp_program(&cpu, 8, ev, 0), DS_ERR_PMC_BAD_COUNTER, "v5 PMC8: no MSR before v6");
    CHECK_EQ(f.nlog, 0, "nothing touched");
    CHECK_EQ(ds_pmc_global_ctrl(&cpu, 0xFF), DS_OK, "GLOBAL_CTRL PMC0-7");
    CHECK_EQ(ds_pmc_global_ctrl(&cpu, 0x100), DS_ERR_PMC_RESERVED, "GLOBAL_CTRL bit 8 on v5");
    uint64_t v;
    CHECK_EQ(ds_pmc_gp_read(&cpu, 8, &v), DS_ERR_PMC_BAD_COUNTER, "read PMC8 on v5");
    CHECK_EQ(ds_pmc_pebs_check(&cpu, 8, ev), DS_ERR_PMC_BAD_COUNTER, "PEBS check PMC8 on v5");
    lnl_cpu(&f, &cpu, false, LNL_CAPS(6));
    CHECK_EQ(ds_pmc_gp_program(&cpu, 32, ev, 0), DS_ERR_PMC_BAD_COUNTER, "GP 32");
    CHECK_EQ(ds_pmc_gp_write(&cpu, 32, 0), DS_ERR_PMC_BAD_COUNTER, "write GP 32");
    CHECK_EQ(ds_pmc_gp_read(&cpu, 32, &v), DS_ERR_PMC_BAD_COUNTER, "read GP 32");
    /* 64-bit counters (synthetic Skylake with EAX[23:16] = 40H) */
    arch_cpu(&f, &cpu, 0x000506E3, 0x07400404, 0x00000603, 0, 0x1305 | (1u << 13));
    CHECK_EQ(cpu.caps.gp_width, 64, "64-bit GP counters");
    fp_set(&f, 0xC1, 0xFFFF123456789ABCull);
    CHECK_EQ(ds_pmc_gp_read(&cpu, 0, &v), DS_OK, "read 64-bit");
    CHECK_EQ(v, 0xFFFF123456789ABCull, "all 64 bits");
    CHECK_EQ(ds_pmc_gp_write(&cpu, 1, ~0ull), DS_OK, "write all ones (FW_WRITE)");
    CHECK_EQ(fp_get(&f, 0x4C2), ~0ull, "IA32_A_PMC1 all ones");
}

/*
 * mut3C: TSX gate of IN_TX (SDM CPUID.(EAX=07H,ECX=0):EBX bit 4 HLE, bit 11
 * RTM; pmc.c accepts either): HLE alone, RTM alone accepted; neighbouring
 * bits (3, 5, 10, 12) alone refused. Haswell 06_3CH leaf 0AH 07300403/603.
 */
static void test_in_tx_tsx_bits(void)
{
    static const struct { uint32_t ebx; int want; } rows[] = {
        { 1u << 4, DS_OK }, { 1u << 11, DS_OK },
        { (1u << 3) | (1u << 5) | (1u << 10) | (1u << 12), DS_ERR_PMC_RESERVED }, { 0, DS_ERR_PMC_RESERVED },
    };
    for (size_t k = 0; k < N(rows); k++) {
        struct fake_pmu f;
        struct ds_cpu cpu;
        fp_reset(&f);
        fp_intel(&f, 0xA, 0x000306C3, (1u << 2), 1u << 21);
        fp_cpuid_set(&f, 7, 0, 0, rows[k].ebx, 0, 0);
        fp_cpuid_set(&f, 0xA, 0, 0x07300403, 0, 0, 0x603);
        fp_set(&f, DS_MSR_IA32_MISC_ENABLE, 1u << 7);
        fp_set(&f, 0xC1, 0);
        fp_set(&f, 0x186, 0);
        CHECK_EQ(fp_identify(&f, &cpu), DS_OK, "identify");
        CHECK_EQ(ds_pmc_gp_program(&cpu, 0, DS_EVTSEL(0xC0, 0) | DS_EVTSEL_EN | DS_EVTSEL_IN_TXCP, 0), rows[k].want,
                 "IN_TXCP with CPUID.07H EBX %#x", rows[k].ebx);
    }
}

/*
 * mut3C: ds_pmc_core2_pebs_event's model list, model by model (Linux
 * intel-family.h: Core 2 06_0FH Merom, 06_16H Merom-L, 06_17H Penryn,
 * 06_1DH Dunnington; Atom Bonnell 06_1CH, 06_26H, Saltwell 06_27H,
 * 06_35H, 06_36H; Linux ds.c intel_core2_/intel_atom_pebs_event_
 * constraints) and the neighbouring models that are not format-0 parts
 * (DS_ERR_UNSUPPORTED, pmc.h).
 */
static void test_core2_pebs_models(void)
{
    static const uint8_t core2[] = { 0x0F, 0x16, 0x17, 0x1D };
    static const uint8_t atom[] = { 0x1C, 0x26, 0x27, 0x35, 0x36 };
    static const uint8_t other[] = { 0x0E, 0x10, 0x15, 0x18, 0x1B, 0x1E, 0x25, 0x28, 0x34, 0x37 };
    for (size_t i = 0; i < N(core2); i++) {
        CHECK_EQ(ds_pmc_core2_pebs_event(core2[i], 0xC0, 0x00), DS_OK, "Core 2 %02XH INST_RETIRED", core2[i]);
        CHECK_EQ(ds_pmc_core2_pebs_event(core2[i], 0xC1, 0xFE), DS_OK, "Core 2 %02XH X87_OPS_RETIRED", core2[i]);
        CHECK_EQ(ds_pmc_core2_pebs_event(core2[i], 0xCB, 0x20), DS_ERR_PMC_PEBS_EVENT, "Core 2 %02XH CB/20", core2[i]);
        /* Linux intel_core2_pebs_event_constraints' UEVENT rows match event
         * and umask together: each listed event with another umask, and each
         * listed umask with another event, is no PEBS event (mutant
         * pmc_pebs.c `event == 0xC1 && umask == 0xFE` -> `||`, sample seed 20261127) */
        static const struct { uint8_t ev, um; } pair_not[] = {
            { 0xC1, 0x00 }, { 0xC1, 0xFF }, { 0xC4, 0xFE }, { 0xC5, 0x01 }, { 0xC6, 0x00 },
            { 0xC7, 0x00 }, { 0xC8, 0x1F }, { 0xC0, 0xFE },
        };
        for (size_t k = 0; k < N(pair_not); k++)
            CHECK_EQ(ds_pmc_core2_pebs_event(core2[i], pair_not[k].ev, pair_not[k].um), DS_ERR_PMC_PEBS_EVENT,
                     "Core 2 %02XH %02X/%02X", core2[i], pair_not[k].ev, pair_not[k].um);
        CHECK_EQ(ds_pmc_core2_pebs_event(core2[i], 0xC5, 0x00), DS_OK, "Core 2 %02XH C5/00", core2[i]);
        CHECK_EQ(ds_pmc_core2_pebs_event(core2[i], 0xC7, 0x1F), DS_OK, "Core 2 %02XH C7/1F", core2[i]);
    }
    for (size_t i = 0; i < N(atom); i++) {
        CHECK_EQ(ds_pmc_core2_pebs_event(atom[i], 0xC0, 0x00), DS_OK, "Atom %02XH INST_RETIRED", atom[i]);
        CHECK_EQ(ds_pmc_core2_pebs_event(atom[i], 0xC5, 0x00), DS_OK, "Atom %02XH MISPRED_BRANCH", atom[i]);
        CHECK_EQ(ds_pmc_core2_pebs_event(atom[i], 0xCB, 0x40), DS_OK, "Atom %02XH MEM_LOAD_RETIRED", atom[i]);
        /* every other event too: Linux's INTEL_ALL_EVENT_CONSTRAINT(0, 0x1) (issue 25 item 8) */
        CHECK_EQ(ds_pmc_core2_pebs_event(atom[i], 0xC5, 0x01), DS_OK, "Atom %02XH C5/01", atom[i]);
        CHECK_EQ(ds_pmc_core2_pebs_event(atom[i], 0xC0, 0x01), DS_OK, "Atom %02XH C0/01", atom[i]);
        CHECK_EQ(ds_pmc_core2_pebs_event(atom[i], 0xC1, 0xFE), DS_OK, "Atom %02XH C1/FE", atom[i]);
    }
    for (size_t i = 0; i < N(other); i++)
        CHECK_EQ(ds_pmc_core2_pebs_event(other[i], 0xC0, 0x00), DS_ERR_UNSUPPORTED, "%02XH not format 0", other[i]);
}

/*
 * mut3C: the Sandy Bridge-EP 06_2DH row of the SNB/IVB constraint
 * (Linux ds.c intel_snb_pebs_event_constraints: 01CDH and 02CDH on PMC3
 * only; INST_RETIRED.PREC_DIST on PMC1), microcode 0x70C so the gate of
 * stepping 7 passes; Westmere-EX 06_2FH (format 1, not SNB) is not
 * constrained that way. Load latency on format 3 takes threshold 65535
 * (pmc.h: 3..65535).
 */
static void test_snb_ep_constraints(void)
{
    static struct ucode_fake u;
    struct ds_cpu cpu;
    arch_cpu(&u.f, &cpu, 0x000206D7, 0x07300803, 0x603, 0, (1u << 8) | 3 | (1u << 6));
    u.rev = 0x70C;
    CHECK_EQ(ds_cpu_init(&cpu, &uf_ops, &u), DS_OK, "init");
    CHECK_EQ(ds_cpu_identify(&cpu), DS_OK, "identify SNB-EP");
    fp_set(&u.f, 0x8B, 0);
    for (unsigned i = 0; i < 4; i++) {
        int want = i == 3 ? DS_OK : DS_ERR_PMC_PEBS_EVENT_COUNTER;
        CHECK_EQ(ds_pmc_pebs_check(&cpu, i, DS_EVTSEL(0xCD, 0x01)), want, "SNB-EP 01CDH PMC%u", i);
        CHECK_EQ(ds_pmc_pebs_check(&cpu, i, DS_EVTSEL(0xCD, 0x02)), want, "SNB-EP 02CDH PMC%u", i);
        CHECK_EQ(ds_pmc_pebs_check(&cpu, i, DS_EVTSEL(0xCD, 0x04)), DS_OK, "SNB-EP 04CDH PMC%u", i);
    }
    struct fake_pmu f;
    skylake(&f, &cpu, true);
    fp_set(&f, 0x3F1, 0);
    CHECK_EQ(ds_pmc_pebs_ldlat(&cpu, 0, 0xFFFF), DS_OK, "fmt 3 threshold 65535");
    CHECK_EQ(fp_get(&f, 0x3F6), 0xFFFF, "MSR_PEBS_LD_LAT 65535");
    CHECK_EQ(ds_pmc_pebs_ldlat(&cpu, 0, 0x10000), DS_ERR_PMC_LDLAT_RANGE, "fmt 3 threshold 65536");
    CHECK_EQ(ds_pmc_pebs_ldlat(&cpu, 0, 3), DS_OK, "fmt 3 threshold 3");
}

/*
 * mut3C: format-6 counters group (Linux "perf/x86/intel/ds: Add PEBS format
 * 6": GP [47:32] and fixed [55:48] need PEBS_DATACFG_CNTR, bit 4): a fixed
 * mask alone without the CNTRS bit is refused like a GP mask alone.
 */
static void test_data_cfg6_fixed_needs_cntrs(void)
{
    struct fake_pmu f;
    struct ds_cpu cpu;
    lnl_cpu(&f, &cpu, false, LNL_CAPS(6) | (1u << 15));
    CHECK_EQ(ds_pmc_pebs_data_cfg(&cpu, 1ull << 48), DS_ERR_PMC_RESERVED, "fixed mask without CNTRS");
    CHECK_EQ(ds_pmc_pebs_data_cfg(&cpu, DS_PEBS_DATA_CFG_CNTRS | (1ull << 48)), DS_OK, "fixed 0 with CNTRS");
    CHECK_EQ(ds_pmc_pebs_data_cfg(&cpu, DS_PEBS_DATA_CFG_CNTRS), DS_OK, "CNTRS alone");
}

/*
 * mut3C: the Nehalem workaround needs GLOBAL_CTRL (perfmon v2, pmc.h):
 * a 06_1AH reporting v2 runs it (GLOBAL_CTRL 0, 0FH, 0, restore), v1 is
 * refused before any MSR access.
 */
static void test_nhm_workaround_v2(void)
{
    struct fake_pmu f;
    struct ds_cpu cpu;
    arch_cpu(&f, &cpu, 0x000106A5, 0x07300402, 0x603, 0, (1u << 8) | 3 | (1u << 6));
    fp_set(&f, 0x38F, 0x3);
    CHECK_EQ(ds_pmc_nhm_workaround(&cpu), DS_OK, "v2 Nehalem: workaround runs");
    CHECK_EQ(fp_nwrites(&f, 0x38F), 4, "GLOBAL_CTRL written 4 times");
    CHECK_EQ(fp_get(&f, 0x38F), 0x3, "GLOBAL_CTRL restored");
    arch_cpu(&f, &cpu, 0x000106A5, 0x07300401, 0x603, 0, (1u << 8) | 3 | (1u << 6));
    fp_clear_log(&f);
    CHECK_EQ(ds_pmc_nhm_workaround(&cpu), DS_ERR_PMC_BAD_COUNTER, "v1 Nehalem refused");
    CHECK_EQ(f.nlog, 0, "no MSR access");
}

/*
 * mut3C: the refusals of ds_pmc_microcode_rev (pmc.h: DS_ERR_NULL,
 * DS_ERR_NOT_IDENTIFIED, DS_ERR_NOT_INTEL before any MSR access: 8BH is
 * IA32_BIOS_SIGN_ID on Intel only) and of the PEBS precondition shared by
 * every PEBS call (pmc.h: DS_ERR_NO_DS without CPUID.01H:EDX[21],
 * DS_ERR_PEBS_UNAVAILABLE when IA32_MISC_ENABLE cannot be read).
 */
static void test_ucode_and_pebs_preconditions(void)
{
    struct fake_pmu f;
    struct ds_cpu cpu;
    uint32_t rev = 0x55;
    skylake(&f, &cpu, true);
    fp_set(&f, 0x8B, 0x28ull << 32);
    ds_cpu_init(&cpu, &fp_ops, &f);
    fp_clear_log(&f);
    CHECK_EQ(ds_pmc_microcode_rev(&cpu, &rev), DS_ERR_NOT_IDENTIFIED, "microcode_rev before identify");
    CHECK_EQ(ds_pmc_microcode_rev(NULL, &rev), DS_ERR_NULL, "microcode_rev NULL cpu");
    CHECK(f.nlog == 0 && rev == 0x55, "nothing touched");
    /* AuthenticAMD with the same leaves */
    f.leaves[0].r[1] = 0x68747541u;
    f.leaves[0].r[3] = 0x69746E65u;
    f.leaves[0].r[2] = 0x444D4163u;
    CHECK_EQ(fp_identify(&f, &cpu), DS_OK, "identify AMD");
    CHECK_EQ(ds_pmc_microcode_rev(&cpu, &rev), DS_ERR_NOT_INTEL, "microcode_rev on AMD");
    CHECK(f.nlog == 0 && rev == 0x55, "AMD: nothing touched");
    /* no DS: every PEBS entry point refuses */
    skylake(&f, &cpu, true);
    f.leaves[1].r[3] &= ~(1u << 21);
    CHECK_EQ(fp_identify(&f, &cpu), DS_OK, "identify without DS");
    uint64_t ev = DS_EVTSEL(0xC0, 0) | DS_EVTSEL_EN | DS_EVTSEL_USR;
    CHECK_EQ(ds_pmc_pebs_enable(&cpu, 0, ev), DS_ERR_NO_DS, "PEBS enable without DS");
    CHECK_EQ(ds_pmc_pebs_check(&cpu, 0, ev), DS_ERR_NO_DS, "PEBS check without DS");
    CHECK_EQ(ds_pmc_pebs_ldlat(&cpu, 0, 3), DS_ERR_NO_DS, "ldlat without DS");
    CHECK_EQ(ds_pmc_pebs_disable(&cpu, 1), DS_ERR_NO_DS, "disable without DS");
    CHECK_EQ(f.nlog, 0, "no DS: nothing touched");
    /* IA32_MISC_ENABLE unreadable (absent in the fake: #GP) */
    skylake(&f, &cpu, true);
    f.msrs[fp_find(&f, DS_MSR_IA32_MISC_ENABLE)].msr = 0x1; /* remove 1A0H */
    CHECK_EQ(fp_identify(&f, &cpu), DS_OK, "identify without MISC_ENABLE");
    CHECK(!cpu.caps.has_misc_enable, "MISC_ENABLE not read");
    CHECK_EQ(ds_pmc_pebs_check(&cpu, 0, ev), DS_ERR_PEBS_UNAVAILABLE, "PEBS without MISC_ENABLE");
}

/*
 * mut3C: PEBS format 5 with PEBS_BASELINE (Sapphire Rapids onwards; Linux
 * intel_ds_init case 5: PMU_FL_PEBS_ALL, MAX_PEBS_EVENTS_FMT4 only for
 * format 4) takes PEBS on every GP counter, also above 7 on a v6 part
 * (Lunar Lake P-core CPUID with PEBS_FMT 5: GP 0-9), and on the fixed
 * counters; format 4 stops at GP 7 (Ice Lake, 8 GP).
 */
static void test_fmt5_every_counter(void)
{
    struct fake_pmu f;
    struct ds_cpu cpu;
    lnl_cpu(&f, &cpu, false, LNL_CAPS(5));
    uint64_t ev = DS_EVTSEL(0xC4, 0) | DS_EVTSEL_EN | DS_EVTSEL_USR;
    for (unsigned i = 0; i < 10; i++)
        CHECK_EQ(ds_pmc_pebs_check(&cpu, i, ev), DS_OK, "fmt 5: PEBS on GP %u", i);
    for (unsigned m = 0; m < 4; m++)
        CHECK_EQ(ds_pmc_pebs_check_fixed(&cpu, m), DS_OK, "fmt 5: PEBS on fixed %u", m);
    fp_set(&f, 0x3F1, 0);
    CHECK_EQ(ds_pmc_pebs_enable(&cpu, 9, ev), DS_OK, "fmt 5: enable GP 9");
    CHECK_EQ(fp_get(&f, 0x3F1), 1ull << 9, "PEBS_ENABLE bit 9");
}

/*
 * mut3C: load latency needs a load-latency event the core has (pmc.h
 * DS_ERR_PMC_NO_LDLAT): Tremont 06_9CH (PEBS format 4 + baseline, Linux has
 * no mem-loads alias for it) refuses, with nothing written.
 */
static void test_tremont_no_ldlat(void)
{
    struct fake_pmu f;
    struct ds_cpu cpu;
    arch_cpu(&f, &cpu, 0x000906C0, 0x07300405, 0x00000603, 0x7, (4u << 8) | 5 | (1u << 13) | (1u << 14));
    fp_clear_log(&f);
    CHECK_EQ(ds_pmc_pebs_ldlat(&cpu, 0, 3), DS_ERR_PMC_NO_LDLAT, "Tremont: no load-latency event");
    CHECK_EQ(f.writes, 0, "nothing written");
    CHECK_EQ(ds_pmc_pebs_check(&cpu, 0, DS_EVTSEL(0xC0, 0)), DS_OK, "Tremont PEBS itself works");
}

/*
 * mut3C: the Nehalem workaround saves and restores IA32_PEBS_ENABLE only
 * where PEBS exists (pmc.h MSRs list; SDM: 3F1H is defined with PEBS): a
 * 06_1AH without DS (CPUID.01H:EDX[21] clear, a VM) runs it without any
 * 3F1H access (the fake has no 3F1H: an access would #GP).
 */
static void test_nhm_workaround_no_pebs(void)
{
    struct fake_pmu f;
    struct ds_cpu cpu;
    arch_cpu(&f, &cpu, 0x000106A5, 0x07300403, 0x603, 0, 0);
    f.leaves[1].r[3] &= ~(1u << 21);
    f.msrs[fp_find(&f, 0x3F1)].msr = 0x2; /* remove IA32_PEBS_ENABLE */
    CHECK_EQ(fp_identify(&f, &cpu), DS_OK, "identify without DS");
    CHECK(!cpu.caps.pebs_advertised, "no PEBS");
    CHECK_EQ(ds_pmc_nhm_workaround(&cpu), DS_OK, "workaround without PEBS");
    bool touched = false;
    for (int i = 0; i < f.nlog; i++)
        touched |= f.log[i].msr == 0x3F1;
    CHECK(!touched && f.faults == 0, "IA32_PEBS_ENABLE never accessed");
}

/*
 * mut3C: adaptive PEBS needs both a format 4-6 and PEBS_BASELINE
 * (IA32_PERF_CAPABILITIES bit 14; SDM "Adaptive PEBS"; KVM
 * vmx_get_perf_capabilities clears PEBS_BASELINE to disallow it): format 5
 * without baseline (the KVM Sapphire Rapids guest) and format 3 with the
 * baseline bit set refuse EVTSEL.ADAPTIVE (bit 34), adaptive fixed
 * counters and MSR_PEBS_DATA_CFG.
 */
static void test_adaptive_needs_format_and_baseline(void)
{
    static const struct { uint64_t caps; const char *what; } rows[] = {
        { (5u << 8) | 0xC0 | (1u << 13), "fmt 5 without PEBS_BASELINE" },
        { (3u << 8) | 0x5 | (1u << 13) | (1u << 14), "fmt 3 with PEBS_BASELINE" },
    };
    for (size_t k = 0; k < N(rows); k++) {
        struct fake_pmu f;
        struct ds_cpu cpu;
        arch_cpu(&f, &cpu, 0x000806F8, 0x08300805, 0x00000603, 0x7, rows[k].caps);
        fp_clear_log(&f);
        CHECK_EQ(ds_pmc_gp_program(&cpu, 0, DS_EVTSEL(0xC0, 0) | DS_EVTSEL_EN | DS_EVTSEL_ADAPTIVE, 0),
                 DS_ERR_PMC_RESERVED, "%s: EVTSEL.ADAPTIVE", rows[k].what);
        CHECK_EQ(ds_pmc_fixed_program(&cpu, 0, 0x3, true, 0), DS_ERR_PMC_RESERVED, "%s: adaptive fixed", rows[k].what);
        CHECK_EQ(ds_pmc_pebs_data_cfg(&cpu, DS_PEBS_DATA_CFG_MEMINFO), DS_ERR_PMC_NO_ADAPTIVE, "%s: DATA_CFG",
                 rows[k].what);
        CHECK_EQ(f.writes, 0, "%s: nothing written", rows[k].what);
    }
}

/*
 * mut3C: the adaptive-PEBS constraint rows match exactly their event and
 * unit mask. Linux ds.c intel_icl_/intel_glc_/intel_lnc_/intel_grt_
 * pebs_event_constraints list only 0100H, 0400H, C0H (GLC any unit mask,
 * ICL 01C0H), 01CDH, 02CDH, D0H-D4H (P-cores) and 05D0H, 06D0H (E-cores);
 * every neighbouring event code or unit mask below has no row there and
 * takes PEBS on any counter (PMU_FL_PEBS_ALL).
 */
static void test_adaptive_constraint_neighbours(void)
{
    struct fake_pmu f;
    struct ds_cpu cpu;
    static const struct ev_mask icl[] = {
        { 0xBF, 0x01, 0xFF }, { 0xC1, 0x01, 0xFF }, { 0xC0, 0x02, 0xFF }, { 0x00, 0x00, 0xFF },
        { 0x00, 0x02, 0xFF }, { 0x00, 0x05, 0xFF }, { 0x01, 0x01, 0xFF }, { 0x01, 0x04, 0xFF },
    };
    static const struct ev_mask glc[] = {
        { 0xBF, 0x00, 0xFF }, { 0xC1, 0x00, 0xFF }, { 0xCC, 0x01, 0xFF }, { 0xCE, 0x01, 0xFF },
        { 0xCC, 0x02, 0xFF }, { 0xCE, 0x02, 0xFF }, { 0xCD, 0x00, 0xFF }, { 0xCD, 0x03, 0xFF },
        { 0xCF, 0x81, 0xFF }, { 0xD5, 0x01, 0xFF },
    };
    static const struct ev_mask lnc[] = {
        { 0xCC, 0x01, 0x3FF }, { 0xCE, 0x01, 0x3FF }, { 0xCC, 0x02, 0x3FF }, { 0xCE, 0x02, 0x3FF },
        { 0xCD, 0x00, 0x3FF }, { 0xCD, 0x03, 0x3FF }, { 0xC0, 0x01, 0x3FF },
    };
    static const struct ev_mask grt[] = {
        { 0xCF, 0x05, 0xFF }, { 0xD1, 0x05, 0xFF }, { 0xCF, 0x06, 0xFF }, { 0xD1, 0x06, 0xFF },
        { 0xD0, 0x04, 0xFF }, { 0xD0, 0x07, 0xFF }, { 0xD4, 0x01, 0xFF }, { 0xC0, 0x00, 0xFF },
    };
    arch_cpu(&f, &cpu, 0x000706E5, 0x07300805, 0x00000604, 0xF, (4u << 8) | 5 | (1u << 13) | (1u << 14));
    check_masks(&f, &cpu, "ICL neighbours", 8, icl, N(icl));
    spr_cpu(&f, &cpu);
    check_masks(&f, &cpu, "SPR neighbours", 8, glc, N(glc));
    lnl_cpu(&f, &cpu, false, LNL_CAPS(6));
    check_masks(&f, &cpu, "LNL P neighbours", 10, lnc, N(lnc));
    lnl_cpu(&f, &cpu, true, LNL_CAPS(6));
    check_masks(&f, &cpu, "LNL E neighbours", 8, grt, N(grt));
}

/*
 * mut3C: rows of the PEBS counter table at their format edges. PEBS_BASELINE
 * with format 3 (set in the capability word, not adaptive: SDM "Adaptive
 * PEBS" needs format 4+) keeps the format-1..3 rule, PMC0-3 and no fixed
 * counter. The Ice Lake INTEL_PLD_CONSTRAINT(0x1cd, 0xff) of Linux ds.c
 * intel_icl_pebs_event_constraints restricts MEM_TRANS_RETIRED.LOAD_LATENCY
 * to PMC0-7 even where more counters take PEBS (synthetic 06_7EH with
 * perfmon v6, CPUID.23H GP 3FFH, format 5 + baseline), and only that event.
 */
static void test_pebs_rule_format_edges(void)
{
    struct fake_pmu f;
    struct ds_cpu cpu;
    arch_cpu(&f, &cpu, 0x000806F8, 0x08300805, 0x00000603, 0x7, (3u << 8) | 0x5 | (1u << 13) | (1u << 14));
    uint64_t ev = DS_EVTSEL(0xC4, 0) | DS_EVTSEL_EN | DS_EVTSEL_USR;
    CHECK_EQ(ds_pmc_pebs_check(&cpu, 3, ev), DS_OK, "fmt 3 + baseline: PMC3");
    CHECK_EQ(ds_pmc_pebs_check(&cpu, 4, ev), DS_ERR_PMC_PEBS_COUNTER, "fmt 3 + baseline: PMC4");
    CHECK_EQ(ds_pmc_pebs_check_fixed(&cpu, 0), DS_ERR_PMC_PEBS_NO_FIXED, "fmt 3 + baseline: no fixed PEBS");
    lnl_cpu_sig(&f, &cpu, 0x000706E5, false, LNL_CAPS(5));
    CHECK_EQ(cpu.caps.display_model, 0x7E, "06_7EH");
    static const struct { uint8_t ev, um; } free_ev[] = { { 0xCC, 0x01 }, { 0xCE, 0x01 }, { 0xCD, 0x00 }, { 0xCD, 0x02 } };
    for (unsigned i = 0; i < 10; i++) {
        CHECK_EQ(ds_pmc_pebs_check(&cpu, i, DS_EVTSEL(0xCD, 0x01)), i < 8 ? DS_OK : DS_ERR_PMC_PEBS_EVENT_COUNTER,
                 "ICL 01CDH PMC%u", i);
        for (size_t k = 0; k < N(free_ev); k++)
            CHECK_EQ(ds_pmc_pebs_check(&cpu, i, DS_EVTSEL(free_ev[k].ev, free_ev[k].um)), DS_OK, "ICL %02XH/%02XH PMC%u",
                     free_ev[k].ev, free_ev[k].um, i);
    }
}

/*
 * A counter write that faults after PERFEVTSELx was cleared leaves the
 * counter disabled: PERFEVTSELx reads 0 (not the stale selector, not any
 * other value), so no half-programmed counter runs (SDM Vol. 3B 18.2.1:
 * EN bit 22 starts counting; a zero selector counts nothing).
 */
static void test_gp_program_fault_clears_evtsel(void)
{
    struct fake_pmu f;
    struct ds_cpu cpu;
    skylake(&f, &cpu, false);
    fp_set(&f, DS_MSR_IA32_PERFEVTSEL0, 0x43003C);
    f.fault_msr = DS_MSR_IA32_PMC0;
    CHECK_EQ(ds_pmc_gp_program(&cpu, 0, 0x4300C0, 0xFFFFFFFF0000ull), DS_ERR_MSR_FAULT, "PMC0 write faults");
    CHECK_EQ(fp_get(&f, DS_MSR_IA32_PERFEVTSEL0), 0, "PERFEVTSEL0 left 0 after the fault");
}

/*
 * Issue 25 items 7 and 12: the load-latency event of PEBS formats 1-3 and
 * its counters, from perfmon "Counter" (NehalemEP_core.json /
 * WestmereEP-SP_core.json 0BH/10H "3"; sandybridge/ivybridge/haswell/
 * broadwell_core.json CDH/01H "3"; skylake_core.json "0,1,2,3") and libpfm4
 * intel_hsw_events.h / intel_bdw_events.h cntmsk 0x8. ds_pmc_pebs_ldlat on
 * another counter is DS_ERR_PMC_PEBS_EVENT_COUNTER with nothing written (it
 * used to enable PEBS + LL_EN on any PMC0-3); ds_pmc_pebs_check likewise
 * for the event itself. Ivy Bridge 06_3AH (no microcode gate) stands in for
 * Sandy/Ivy Bridge.
 */
static void test_tab25_event_counters_errors(void)
{
    struct fake_pmu f;
    struct ds_cpu cpu;
    uint32_t m = 0x55;
    memset(&cpu, 0, sizeof cpu);
    CHECK_EQ(ds_pmc_pebs_event_counters(&cpu, DS_EVTSEL(0xCD, 1), &m), DS_ERR_NOT_IDENTIFIED, "not identified");
    CHECK_EQ(m, 0, "out cleared");
    CHECK_EQ(ds_pmc_pebs_event_counters(NULL, 0, &m), DS_ERR_NULL, "NULL cpu");
    CHECK_EQ(ds_pmc_pebs_event_counters(&cpu, 0, NULL), DS_ERR_NULL, "NULL out");
    /* an AMD CPU (AuthenticAMD): not Intel */
    fp_reset(&f);
    fp_cpuid_set(&f, 0, 0, 0xD, 0x68747541u, 0x444D4163u, 0x69746E65u);
    fp_cpuid_set(&f, 1, 0, 0x00A60F12, 0, 0, 0);
    fp_identify(&f, &cpu);
    m = 0x55;
    CHECK_EQ(ds_pmc_pebs_event_counters(&cpu, DS_EVTSEL(0xCD, 1), &m), DS_ERR_NOT_INTEL, "AMD");
    CHECK_EQ(m, 0, "out cleared on AMD");
}

static void test_tab25_fmt13_ldlat_counters(void)
{
    static const struct {
        const char *nm;
        uint32_t sig;
        uint8_t fmt, ev, um, gp;
    } rows[] = {
        { "Nehalem 06_1AH", 0x000106A5, 1, 0x0B, 0x10, 0x8 },
        { "Westmere 06_2CH", 0x000206C2, 1, 0x0B, 0x10, 0x8 },
        { "Ivy Bridge 06_3AH", 0x000306A9, 1, 0xCD, 0x01, 0x8 },
        { "Haswell 06_3CH", 0x000306C3, 2, 0xCD, 0x01, 0x8 },
        { "Broadwell 06_3DH", 0x000306D4, 2, 0xCD, 0x01, 0x8 },
        { "Broadwell-X 06_4FH", 0x000406F1, 2, 0xCD, 0x01, 0x8 },
        { "Skylake 06_5EH", 0x000506E3, 3, 0xCD, 0x01, 0xF },
    };
    for (size_t k = 0; k < sizeof rows / sizeof rows[0]; k++) {
        struct fake_pmu f;
        struct ds_cpu cpu;
        arch_cpu(&f, &cpu, rows[k].sig, 0x07300403, 0x00000603, 0, ((uint64_t)rows[k].fmt << 8) | 3);
        uint64_t ll = DS_EVTSEL(rows[k].ev, rows[k].um);
        uint32_t got = 0;
        CHECK_EQ(ds_pmc_pebs_event_counters(&cpu, ll, &got), DS_OK, "%s counters", rows[k].nm);
        CHECK_EQ(got, rows[k].gp, "%s load-latency event counters", rows[k].nm);
        CHECK_EQ(ds_pmc_pebs_event_counters(&cpu, DS_EVTSEL(0xC0, 0x01), &got), DS_OK, "%s PREC_DIST", rows[k].nm);
        CHECK_EQ(got, rows[k].ev == 0x0B ? 0xFFFFFFFFu : 0x2u, "%s C0H/01H: PMC1 from Sandy Bridge (Linux 0x01c0 0x2)",
                 rows[k].nm);
        CHECK_EQ(ds_pmc_pebs_event_counters(&cpu, DS_EVTSEL(0xC4, 0x04), &got), DS_OK, "%s C4H/04H", rows[k].nm);
        CHECK_EQ(got, 0xFFFFFFFFu, "%s C4H/04H: no event row", rows[k].nm);
        for (unsigned i = 0; i < 4; i++) {
            int want = ((rows[k].gp >> i) & 1) ? DS_OK : DS_ERR_PMC_PEBS_EVENT_COUNTER;
            fp_set(&f, 0x3F1, 0);
            fp_set(&f, 0x3F6, 0);
            fp_clear_log(&f);
            CHECK_EQ(ds_pmc_pebs_ldlat(&cpu, i, 50), want, "%s ldlat PMC%u", rows[k].nm, i);
            CHECK_EQ(fp_get(&f, 0x3F1), want ? 0 : (1ull << i) | (1ull << (32 + i)), "%s PMC%u PEBS_ENABLE", rows[k].nm, i);
            CHECK_EQ(fp_get(&f, 0x3F6), want ? 0 : 50, "%s PMC%u LD_LAT", rows[k].nm, i);
            CHECK_EQ(ds_pmc_pebs_check(&cpu, i, ll), want, "%s %02X/%02X PEBS on PMC%u", rows[k].nm, rows[k].ev, rows[k].um, i);
            /* the event with a flag is not Linux's PLD row: the counter table decides */
            CHECK_EQ(ds_pmc_pebs_check(&cpu, i, ll | (1ull << DS_EVTSEL_CMASK_SHIFT)),
                     rows[k].fmt == 1 && rows[k].ev == 0x0B ? DS_ERR_PMC_PEBS_EVENT : DS_OK,
                     "%s ldlat event with CMASK 1 on PMC%u", rows[k].nm, i);
        }
    }
}

/*
 * Issue 25 item 8: Bonnell PEBS events. Linux ds.c
 * intel_atom_pebs_event_constraints ends with INTEL_ALL_EVENT_CONSTRAINT(0,
 * 0x1) ("Allow all events as PEBS with no flags"), and perfmon
 * bonnell_core.json marks X87_COMP_OPS_EXE.ANY.AR 10H/81H, .FXCH.AR 10H/82H,
 * ITLB.MISSES 82H/02H, SIMD_UOPS_EXEC.AR B0H/80H PEBS 2: accepted on PMC0
 * (they were DS_ERR_PMC_PEBS_EVENT). With EDGE/INV/CMASK/ANY only the
 * cycles:p alias C0H/00H INV CMASK 16 (Linux 0x108000c0) is accepted; PMC1
 * stays refused (Linux counter mask 0x1).
 */
static void test_tab25_bonnell_pebs_events(void)
{
    struct fake_pmu f;
    struct ds_cpu cpu;
    /* Atom 06_1CH: v3, 2 GP x 40, PEBS fmt 0 (the Atom dump's 0AH: 07280203/503) */
    arch_cpu(&f, &cpu, 0x000106C2, 0x07280203, 0x00000503, 0, 0);
    static const uint8_t ev[][2] = { { 0x10, 0x81 }, { 0x10, 0x82 }, { 0x82, 0x02 }, { 0xB0, 0x80 },
                                     { 0xC0, 0x00 }, { 0xC5, 0x00 }, { 0xCB, 0x04 }, { 0x3C, 0x00 } };
    for (size_t i = 0; i < sizeof ev / sizeof ev[0]; i++) {
        uint64_t e = DS_EVTSEL(ev[i][0], ev[i][1]);
        fp_set(&f, 0x3F1, 0);
        CHECK_EQ(ds_pmc_pebs_enable(&cpu, 0, e), DS_OK, "Bonnell %02X/%02X PEBS on PMC0", ev[i][0], ev[i][1]);
        CHECK_EQ(fp_get(&f, 0x3F1), 1, "PEBS_ENABLE bit 0");
        CHECK_EQ(ds_pmc_pebs_check(&cpu, 1, e), DS_ERR_PMC_PEBS_COUNTER, "%02X/%02X PMC1", ev[i][0], ev[i][1]);
        CHECK_EQ(ds_pmc_pebs_check(&cpu, 0, e | DS_EVTSEL_INV), DS_ERR_PMC_PEBS_EVENT, "%02X/%02X INV", ev[i][0], ev[i][1]);
        CHECK_EQ(ds_pmc_pebs_check(&cpu, 0, e | DS_EVTSEL_EDGE), DS_ERR_PMC_PEBS_EVENT, "%02X/%02X EDGE", ev[i][0], ev[i][1]);
        CHECK_EQ(ds_pmc_pebs_check(&cpu, 0, e | (1ull << DS_EVTSEL_CMASK_SHIFT)), DS_ERR_PMC_PEBS_EVENT,
                 "%02X/%02X CMASK 1", ev[i][0], ev[i][1]);
    }
    uint64_t cyc = DS_EVTSEL(0xC0, 0) | DS_EVTSEL_INV | (16ull << DS_EVTSEL_CMASK_SHIFT);
    CHECK_EQ(ds_pmc_pebs_check(&cpu, 0, cyc), DS_OK, "cycles:p alias");
    CHECK_EQ(ds_pmc_pebs_check(&cpu, 0, cyc + (1ull << DS_EVTSEL_CMASK_SHIFT)), DS_ERR_PMC_PEBS_EVENT, "INV CMASK 17");
    CHECK_EQ(ds_pmc_pebs_check(&cpu, 0, DS_EVTSEL(0xC5, 0) | DS_EVTSEL_INV | (16ull << DS_EVTSEL_CMASK_SHIFT)),
             DS_ERR_PMC_PEBS_EVENT, "C5H INV CMASK 16 is not the alias");
    CHECK_EQ(ds_pmc_pebs_check(&cpu, 0, DS_EVTSEL(0xC0, 0) | DS_EVTSEL_ANY), DS_ERR_PMC_PEBS_EVENT, "ANY");
}

int main(void)
{
    test_period();
    test_gp();
    test_fixed_global();
    test_core2_pebs();
    test_nehalem_icl_pebs();
    test_fmt6_lunar_lake();
    test_pebs_counter_table();
    test_pebs_fixed();
    test_merom_errata();
    test_snb_ucode();
    test_core2_fixed_quirk();
    test_nhm_workaround();
    test_perfmon_v6();
    test_nhm_pebs_events();
    test_pebs_event_counters();
    test_adaptive_event_counters();
    test_adaptive_ldlat();
    test_any_from_v3();
    test_any_deprecated();
    test_nhm_workaround_clears_evtsel();
    test_global_ctrl_fixed15();
    test_msr_fault_sweep();
    test_fixed_adaptive_cleared();
    test_ldlat_counter_exists();
    test_in_tx_needs_v3();
    test_nhm_workaround_needs_4_gp();
    test_fixed_index_boundaries();
    test_gp_index_boundaries();
    test_in_tx_tsx_bits();
    test_core2_pebs_models();
    test_snb_ep_constraints();
    test_data_cfg6_fixed_needs_cntrs();
    test_nhm_workaround_v2();
    test_ucode_and_pebs_preconditions();
    test_fmt5_every_counter();
    test_tremont_no_ldlat();
    test_nhm_workaround_no_pebs();
    test_adaptive_needs_format_and_baseline();
    test_adaptive_constraint_neighbours();
    test_pebs_rule_format_edges();
    test_gp_program_fault_clears_evtsel();
    test_tab25_fmt13_ldlat_counters();
    test_tab25_event_counters_errors();
    test_tab25_bonnell_pebs_events();
    return check_summary();
}
