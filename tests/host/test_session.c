/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Sessions (session.h, issue 16) on fake CPUs: what start programs (expected
 * MSR values typed here from the SDM register layouts, not taken from
 * libds), that teardown leaves every MSR as found (also from non-zero
 * contents), counter constraints and exhaustion, PMI dispatch, describe,
 * and one row per session error code.
 */
#include "check.h"
#include "fake_pmu.h"
#include <ds/lvt.h>
#include "../../libds/src/pebs_int.h" /* ds__pebs_ctrs */

#define N(a) (sizeof(a) / sizeof((a)[0]))

static struct fake_pmu F;
static struct ds_cpu cpu;
static struct ds_session S;
static _Alignas(4096) unsigned char mem[64 * 1024];

/* fp_write plus two hardware behaviours the PMI path relies on: writing
 * GLOBAL_OVF_CTRL clears those GLOBAL_STATUS bits (SDM "IA32_PERF_GLOBAL_
 * OVF_CTRL"), and IA32_A_PMCn writes land in IA32_PMCn (full-width alias). */
static bool freeze_gp; /* DEBUGCTL[12] #GPs (a KVM guest, issue 14) */
static uint32_t wfault; /* writes (only) of this MSR #GP when non-zero */
static int wfail_at; /* > 0: the wfail_at-th write from now #GPs, once (issue 31 sweep) */
static int t_write(void *ctx, uint32_t msr, uint64_t v)
{
    if ((wfault && msr == wfault) || (wfail_at > 0 && --wfail_at == 0)) {
        fp_log(&F, 'w', msr, v);
        return DS_ERR_MSR_FAULT;
    }
    if (freeze_gp && msr == 0x1D9 && (v & (1u << 12))) {
        fp_log(&F, 'w', msr, v);
        return DS_ERR_MSR_FAULT;
    }
    /* IA32_PMCx hold gp_width bits (SDM: writes sign-extend bit 31 to the width) */
    if (msr >= 0xC1 && msr < 0xC9 && cpu.caps.gp_width && cpu.caps.gp_width < 64) {
        if (!cpu.caps.fw_write)
            v = (uint64_t)(int64_t)(int32_t)(uint32_t)v;
        v &= (1ull << cpu.caps.gp_width) - 1;
    }
    int e = fp_write(ctx, msr, v);
    int i;
    if (!e && msr == 0x390 && (i = fp_find(&F, 0x38E)) >= 0)
        F.msrs[i].val &= ~v;
    if (!e && msr >= 0x4C1 && msr < 0x4C9 && (i = fp_find(&F, msr - 0x400)) >= 0)
        F.msrs[i].val = v;
    return e;
}
static const struct ds_msr_ops t_ops = { fp_read, t_write, fp_cpuid };

static void identify(bool ia32e)
{
    CHECK_EQ(ds_cpu_init(&cpu, &t_ops, &F), DS_OK, "cpu init");
    ds_cpu_set_ia32e(&cpu, ia32e);
    CHECK_EQ(ds_cpu_identify(&cpu), DS_OK, "identify");
    fp_clear_log(&F);
}

/* Family 6: signature, leaf 0AH EAX/ECX/EDX, PERF_CAPABILITIES; the PMU MSRs
 * of the SDM for that perfmon version, all zero. */
static void fam6(uint32_t sig, uint32_t a0a, uint32_t c0a, uint32_t d0a, uint64_t caps)
{
    fp_reset(&F);
    fp_intel(&F, 0xA, sig, (1u << 2) | (1u << 4) | (1u << 15), 1u << 21);
    fp_cpuid_set(&F, 0xA, 0, a0a, 0, c0a, d0a);
    fp_set(&F, DS_MSR_IA32_MISC_ENABLE, 1u << 7);
    fp_set(&F, DS_MSR_IA32_PERF_CAPABILITIES, caps);
    for (unsigned i = 0; i < ((a0a >> 8) & 0xFF); i++) {
        fp_set(&F, 0xC1 + i, 0);
        fp_set(&F, 0x186 + i, 0);
        if (caps & (1u << 13))
            fp_set(&F, 0x4C1 + i, 0);
    }
    for (unsigned i = 0; i < 4; i++)
        fp_set(&F, 0x309 + i, 0);
    const uint32_t m[] = { 0x38D, 0x38E, 0x38F, 0x390, 0x3F1, 0x3F2, 0x3F6, 0x600, 0x1D9 };
    for (unsigned i = 0; i < N(m); i++)
        fp_set(&F, m[i], 0);
    identify(true);
}

static void core2(void) { fam6(0x00010676, 0x07280202, 0, 0x00000503, 0xC2); }            /* 06_17H fmt 0 */
static void nehalem(void) { fam6(0x000106A5, 0x07300403, 0, 0x00000603, 0x1C3); }         /* 06_1AH fmt 1 */
static void silvermont(void) { fam6(0x00030678, 0x07280203, 0, 0x00000503, 0x2C4); }      /* 06_37H fmt 2 */
static void skylake(void) { fam6(0x000506E3, 0x07300404, 0, 0x00000603, 0x33C5); }        /* 06_5EH fmt 3 */
static void icelake(void) { fam6(0x000706E5, 0x08300805, 0xF, 0x00000604, 0x64BF); }     /* 06_7EH fmt 4 */
static void sapphire(void) { fam6(0x000806F8, 0x08300805, 0xFF, 0x00000604, 0x65BF); }   /* 06_8FH fmt 5 */

/* NetBurst 0F_02H (SDM ESCR/CCCR MSR tables), DS, 32-bit layout. */
static void netburst(void)
{
    fp_reset(&F);
    fp_intel(&F, 2, 0x00000F29, 0, 1u << 21);
    fp_set(&F, DS_MSR_IA32_MISC_ENABLE, 1u << 7);
    for (unsigned i = 0; i < 18; i++) {
        fp_set(&F, 0x300 + i, 0);
        fp_set(&F, 0x360 + i, 0);
    }
    for (uint32_t m = 0x3A0; m <= 0x3CD; m++)
        fp_set(&F, m, 0);
    fp_set(&F, 0x3E0, 0);
    fp_set(&F, 0x3E1, 0);
    const uint32_t m[] = { 0x3F1, 0x3F2, 0x600, 0x1D9 };
    for (unsigned i = 0; i < N(m); i++)
        fp_set(&F, m[i], 0);
    identify(false);
}

/* Panther Lake P-core: CPUID words of ../shared/cpuid
 * GenuineIntel00C06C3_PantherLakeL_01_CPUID.txt (as test_arch_pebs.c);
 * PERF_CAPABILITIES PEBS_FMT 0xF; perfmon v6 counter MSRs (1900H + 4n). */
static void panther(void)
{
    fp_reset(&F);
    fp_cpuid_set(&F, 0, 0, 0x28, 0x756E6547, 0x6C65746E, 0x49656E69);
    fp_cpuid_set(&F, 1, 0, 0x000C06C3, 0x00800800, 0x7FFAFBFF, 0xBFEBFBFF);
    fp_cpuid_set(&F, 0xA, 0, 0x0D300806, 0x280, 0x7, 0x8603);
    fp_cpuid_set(&F, 0x1A, 0, 0x40000004, 0, 0, 0);
    fp_cpuid_set(&F, 0x23, 0, 0x3B, 3, 0, 0);
    fp_cpuid_set(&F, 0x23, 1, 0x3FF, 0xF, 0, 0);
    fp_cpuid_set(&F, 0x23, 4, 0, 0x60060378, 0, 0);
    fp_cpuid_set(&F, 0x23, 5, 0x3FF, 3, 0xF, 1);
    fp_cpuid_set(&F, 0x80000000u, 0, 0x80000008u, 0, 0, 0);
    fp_cpuid_set(&F, 0x80000008u, 0, 0x0000302E, 0x200, 0, 0);
    fp_set(&F, DS_MSR_IA32_MISC_ENABLE, 1u << 7);
    fp_set(&F, DS_MSR_IA32_PERF_CAPABILITIES, 0xF00 | 0x3F);
    for (unsigned i = 0; i < 10; i++)
        for (unsigned k = 0; k < 4; k++)
            fp_set(&F, 0x1900 + 4 * i + k, 0);
    for (unsigned i = 0; i < 4; i++) {
        fp_set(&F, 0x1980 + 4 * i, 0);
        fp_set(&F, 0x1983 + 4 * i, 0);
    }
    const uint32_t m[] = { 0x38D, 0x38E, 0x38F, 0x390, 0x3F4, 0x3F5, 0x1D9, 0x600 };
    for (unsigned i = 0; i < N(m); i++)
        fp_set(&F, m[i], 0);
    identify(true);
}

/* Lunar Lake 06_BDH P-core: CPUID words of ../shared/cpuid
 * GenuineIntel00B06D1_LunarLake_04_CPUID.txt (leaves 0, 1, 0AH, 23H.0/1/3);
 * IA32_PERF_CAPABILITIES typed from the SDM bit list (Vol. 4 "IA32_PERF_
 * CAPABILITIES"): LBR_FMT 3FH [5:0], PEBS_TRAP [6], PEBS_ARCH_REG [7],
 * PEBS_REC_FMT 6 [11:8], FW_WRITE [13], PEBS_BASELINE [14], PERF_METRICS
 * [15] (@caps_clear removes bits); perfmon v6 counter MSRs (1900H + 4n,
 * fixed 1980H + 4m), IA32_PERF_METRICS 329H. */
static void lunar(uint64_t caps_clear)
{
    fp_reset(&F);
    fp_cpuid_set(&F, 0, 0, 0x23, 0x756E6547, 0x6C65746E, 0x49656E69);
    fp_cpuid_set(&F, 1, 0, 0x000B06D1, 0x00800800, 0x7FFAFBFF, 0xBFEBFBFF);
    fp_cpuid_set(&F, 0xA, 0, 0x0D300806, 0x280, 0x7, 0x8603);
    fp_cpuid_set(&F, 0x23, 0, 0xB, 3, 0, 0);
    fp_cpuid_set(&F, 0x23, 1, 0x3FF, 0xF, 0, 0);
    fp_cpuid_set(&F, 0x23, 3, 0x1DFF, 0, 0, 0);
    fp_set(&F, DS_MSR_IA32_MISC_ENABLE, 1u << 7);
    uint64_t caps = 0x3F | (1u << 6) | (1u << 7) | (6u << 8) | (1u << 13) | (1u << 14) | (1u << 15);
    fp_set(&F, DS_MSR_IA32_PERF_CAPABILITIES, caps & ~caps_clear);
    for (unsigned i = 0; i < 10; i++)
        for (unsigned k = 0; k < 4; k++)
            fp_set(&F, 0x1900 + 4 * i + k, 0);
    for (unsigned i = 0; i < 4; i++)
        fp_set(&F, 0x1980 + 4 * i, 0);
    const uint32_t m[] = { 0x38D, 0x38E, 0x38F, 0x390, 0x3F1, 0x3F2, 0x3F6, 0x600, 0x1D9, 0x329 };
    for (unsigned i = 0; i < N(m); i++)
        fp_set(&F, m[i], 0);
    identify(true);
}

/* --- callbacks ---------------------------------------------------------------- */

static struct {
    unsigned n, req[16];
    uint64_t ip[16], eip[16];
    bool pebs[16], exact[16];
    unsigned br;
    uint64_t br_from;
} got;

static void on_sample(void *arg, const struct ds_session_sample *s)
{
    (void)arg;
    if (got.n < 16) {
        got.req[got.n] = s->req;
        got.ip[got.n] = s->ip;
        got.eip[got.n] = s->eip;
        got.exact[got.n] = s->eip_exact;
        got.pebs[got.n] = s->pebs != NULL;
    }
    got.n++;
}

static void on_branch(void *arg, const struct ds_bts_branch *b)
{
    (void)arg;
    got.br++;
    got.br_from = b->from;
}

static struct ds_session_config cfg_mem(void)
{
    struct ds_session_config c;
    memset(&c, 0, sizeof c);
    c.mem = mem;
    c.bytes = sizeof mem;
    c.on_sample = on_sample;
    c.on_branch = on_branch;
    return c;
}

static int init_default(void)
{
    memset(&S, 0, sizeof S);
    memset(&got, 0, sizeof got);
    struct ds_session_config c = cfg_mem();
    return ds_session_init(&S, &cpu, &c);
}

static struct ds_request raw(uint8_t ev, uint8_t um, uint64_t period, enum ds_sample_mode mode)
{
    struct ds_request r;
    memset(&r, 0, sizeof r);
    r.raw.set = true;
    r.raw.evsel = ev;
    r.raw.umask = um;
    r.raw.nb_metric = -1;
    r.period = period;
    r.mode = mode;
    return r;
}

static int add(struct ds_request r, unsigned *id)
{
    return ds_session_add(&S, &r, id);
}

/* Snapshot of every fake MSR, and the comparison after teardown. */
static struct { uint32_t msr; uint64_t val; } snap[FP_MAX_MSRS];
static int nsnap;
static void take_snap(void)
{
    nsnap = F.nmsrs;
    for (int i = 0; i < F.nmsrs; i++) {
        snap[i].msr = F.msrs[i].msr;
        snap[i].val = F.msrs[i].val;
    }
}
static void check_snap(const char *what)
{
    int diff = 0;
    for (int i = 0; i < nsnap; i++)
        if (F.msrs[i].val != snap[i].val && snap[i].msr != 0x38E && snap[i].msr != 0x390) {
            /* GLOBAL_STATUS / its reset MSR: read-only / write-only, changed by a
             * PMI's acknowledgement, not by the session (session.h) */
            diff++;
            printf("    %s: MSR 0x%x = 0x%llx, was 0x%llx\n", what, snap[i].msr, (unsigned long long)F.msrs[i].val,
                   (unsigned long long)snap[i].val);
        }
    CHECK(diff == 0 && F.nmsrs == nsnap, "%s: every MSR as found after teardown (%d differ)", what, diff);
}

/* Give every writable MSR of the fake a non-zero value (the clearing path). */
static void dirty_all(uint64_t seed)
{
    for (int i = 0; i < F.nmsrs; i++) {
        uint32_t m = F.msrs[i].msr;
        if (m == DS_MSR_IA32_MISC_ENABLE || m == DS_MSR_IA32_PERF_CAPABILITIES || m == 0x38E || m == 0x390)
            continue;
        F.msrs[i].val = (seed ^ (m * 0x9E3779B97F4A7C15ull)) & 0x0000000000F0F0F0ull;
    }
    /* keep the full-width alias consistent with its counter */
    for (uint32_t n = 0; n < 8; n++) {
        int a = fp_find(&F, 0x4C1 + n), p = fp_find(&F, 0xC1 + n);
        if (a >= 0 && p >= 0)
            F.msrs[a].val = F.msrs[p].val;
    }
}

/* --- ds_pmc_pebs_check = the checks of ds_pmc_pebs_enable_ex --------------- */

static void test_pebs_check(void)
{
    void (*cpus[])(void) = { core2, nehalem, silvermont, skylake, icelake, sapphire };
    const uint64_t ev[] = { 0x4300C0, 0x4301C0, 0x4301CD, 0x43003C, 0x5300C0, 0x4300C5 };
    unsigned same = 0, total = 0;
    for (unsigned c = 0; c < N(cpus); c++)
        for (unsigned i = 0; i < 8; i++)
            for (unsigned k = 0; k < N(ev); k++) {
                cpus[c]();
                int chk = ds_pmc_pebs_check(&cpu, i, ev[k]);
                CHECK_EQ(F.nlog, 0, "check touches no MSR");
                int en = ds_pmc_pebs_enable_ex(&cpu, i, ev[k], DS_PMC_PEBS_ALLOW_ERRATA);
                same += chk == en;
                total++;
            }
    CHECK_EQ(same, total, "ds_pmc_pebs_check agrees with ds_pmc_pebs_enable_ex on every counter/event");
    /* SDM 18.6.1.1 / Linux constraints, typed here */
    silvermont();
    CHECK_EQ(ds_pmc_pebs_check(&cpu, 1, 0x4300C0), DS_ERR_PMC_PEBS_PMC0_ONLY, "Silvermont PMC1");
    skylake();
    CHECK_EQ(ds_pmc_pebs_check(&cpu, 0, 0x4301C0), DS_ERR_PMC_PEBS_EVENT_COUNTER, "PREC_DIST on PMC0");
    CHECK_EQ(ds_pmc_pebs_check(&cpu, 1, 0x4301C0), DS_OK, "PREC_DIST on PMC1");
    icelake();
    CHECK_EQ(ds_pmc_pebs_check_fixed(&cpu, 0), DS_OK, "Ice Lake fixed 0 takes PEBS (adaptive)");
    skylake();
    CHECK_EQ(ds_pmc_pebs_check_fixed(&cpu, 0), DS_ERR_PMC_PEBS_NO_FIXED, "Skylake fixed PEBS");
}

/* --- what start programs ---------------------------------------------------- */

static uint64_t area_lin(void) { return (uint64_t)(uintptr_t)mem; }

static void test_skylake_program(void)
{
    skylake();
    CHECK_EQ(init_default(), DS_OK, "init");
    unsigned id = 9;
    CHECK_EQ(add(raw(0xC0, 0x00, 10000, DS_SAMPLE_PRECISE), &id), DS_OK, "INST_RETIRED.ANY_P precise");
    CHECK_EQ(id, 0, "first id");
    CHECK_EQ(F.nlog, 0, "add touches no MSR");
    {
        /* issue 29: before start, the planned buffers (the numbers below:
         * 60 KiB / 0xC8 = 307 records, threshold 303), no MSR access */
        char pb[1024];
        CHECK_EQ(ds_session_describe(&S, pb, sizeof pb), DS_OK, "describe before start");
        CHECK(strstr(pb, "planned PEBS buffer: 307 records of 200 bytes, threshold 303 records") != NULL,
              "the planned PEBS buffer:\n%s", pb);
        CHECK_EQ(F.nlog, 0, "describe touches no MSR");
    }
    CHECK_EQ(ds_session_start(&S), DS_OK, "start");
    /* SDM IA32_PERFEVTSELx: event C0H, umask 0, USR 16, OS 17, EN 22 */
    CHECK_EQ(fp_get(&F, 0x186), 0x004300C0, "EVTSEL0");
    /* 48-bit counter, full-width write: 2^48 - 10000 */
    CHECK_EQ(fp_get(&F, 0xC1), 0xFFFFFFFFD8F0ull, "PMC0 = -period");
    CHECK_EQ(fp_get(&F, 0x3F1), 1, "PEBS_ENABLE = PMC0");
    CHECK_EQ(fp_get(&F, 0x600), area_lin(), "DS_AREA = first page of the region");
    CHECK_EQ(fp_get(&F, 0x38F), 1, "GLOBAL_CTRL = PMC0");
    CHECK_EQ(fp_get(&F, 0x1D9) & (1u << 12), 1u << 12, "DEBUGCTL.FREEZE_PERFMON_ON_PMI (v4: streamlined)");
    const struct ds_area64 *a = (const struct ds_area64 *)(const void *)mem;
    CHECK_EQ(a->pebs_base, area_lin() + 4096, "PEBS buffer in the second page");
    CHECK_EQ(a->pebs_reset[0], 0xFFFFFFFFD8F0ull, "DS reset slot 0 = -period");
    /* 60 KiB / 0xC8 = 307 records; threshold 4 records (PMC0-3) short */
    CHECK_EQ((a->pebs_max - a->pebs_base) / 0xC8, 307, "PEBS records from the bytes given");
    CHECK_EQ((a->pebs_thresh - a->pebs_base) / 0xC8, 303, "threshold = max - 4 PEBS counters");
    char buf[1024];
    CHECK_EQ(ds_session_describe(&S, buf, sizeof buf), DS_OK, "describe");
    CHECK(!strstr(buf, "planned"), "after start: the buffers set up, not the plan:\n%s", buf);
    CHECK(strstr(buf, "PMC0") && strstr(buf, "PEBS format 3") && strstr(buf, "freeze streamlined") &&
              strstr(buf, "307 records") && strstr(buf, "0x4300c0"),
          "describe names counter, format, freeze, buffer, encoding:\n%s", buf);
    CHECK_EQ(ds_session_describe(&S, buf, 20), DS_ERR_BUFSZ, "describe truncated");
    CHECK_EQ(strlen(buf), 19, "truncated text NUL-terminated");
    CHECK_EQ(ds_session_stop(&S), DS_OK, "stop");
    CHECK_EQ(fp_get(&F, 0x38F), 0, "stop: GLOBAL_CTRL 0");
    CHECK_EQ(ds_session_teardown(&S), DS_OK, "teardown");
    CHECK_EQ(fp_get(&F, 0x600), 0, "teardown: DS_AREA back");
}

static void test_core2_counters(void)
{
    core2();
    CHECK_EQ(init_default(), DS_OK, "init");
    unsigned id;
    CHECK_EQ(add(raw(0xC0, 0x00, 1000, DS_SAMPLE_PRECISE), &id), DS_OK, "PEBS on PMC0");
    CHECK_EQ(S.req[0].idx, 0, "PMC0");
    CHECK_EQ(add(raw(0xC0, 0x00, 1000, DS_SAMPLE_PRECISE), &id), DS_ERR_SESSION_NO_COUNTER,
             "Core 2: second PEBS request, PMC0 only");
    CHECK_EQ(add(raw(0x3C, 0x00, 1000, DS_SAMPLE_PRECISE), &id), DS_ERR_SESSION_NOT_PRECISE,
             "Core 2: cycles not a PEBS event (SDM Core PEBS list)");
    CHECK_EQ(add(raw(0xC4, 0x00, 500, DS_SAMPLE_AUTO), &id), DS_OK, "AUTO falls back to overflow");
    CHECK_EQ(S.req[1].how, DS_HOW_OVERFLOW, "overflow");
    CHECK_EQ(S.req[1].idx, 1, "on PMC1");
    CHECK_EQ(add(raw(0xC4, 0x00, 500, DS_SAMPLE_OVERFLOW), &id), DS_ERR_SESSION_NO_COUNTER, "2 GP counters used");
    CHECK_EQ(ds_session_start(&S), DS_OK, "start");
    CHECK_EQ(fp_get(&F, 0x186), 0x004300C0, "EVTSEL0");
    CHECK_EQ(fp_get(&F, 0xC1) & 0xFFFFFFFFull, 0xFFFFFC18ull, "PMC0 low 32 bits = -1000");
    CHECK_EQ(fp_get(&F, 0x187), 0x005300C4, "EVTSEL1 with INT (bit 20)");
    CHECK_EQ(fp_get(&F, 0x3F1), 1, "PEBS_ENABLE PMC0");
    CHECK_EQ(fp_get(&F, 0x38F), 3, "GLOBAL_CTRL PMC0|PMC1");
    CHECK_EQ(fp_get(&F, 0x1D9) & (1u << 12), 1u << 12, "legacy freeze on v2");
    const struct ds_area64 *a = (const struct ds_area64 *)(const void *)mem;
    CHECK(a->pebs_max - a->pebs_base <= 4096, "format 0 PEBS buffer <= 4 KiB");
    CHECK_EQ(ds_session_teardown(&S), DS_OK, "teardown (running: stops first)");
}

/* Merom 06_0FH: PEBS errata (AJ67-69/106, Linux intel_clovertown_quirk)
 * refuse at start, everything restored; pebs_flags accepts them. */
static void test_errata(void)
{
    fam6(0x000006F6, 0x07280202, 0, 0x00000503, 0xC2);
    take_snap();
    CHECK_EQ(init_default(), DS_OK, "init");
    CHECK_EQ(add(raw(0xC0, 0x00, 1000, DS_SAMPLE_PRECISE), NULL), DS_ERR_PMC_PEBS_ERRATUM, "precise: Merom PEBS erratum");
    CHECK_EQ(add(raw(0xC0, 0x00, 1000, DS_SAMPLE_AUTO), NULL), DS_OK, "auto falls back");
    CHECK_EQ(S.req[0].how, DS_HOW_OVERFLOW, "to overflow sampling");
    CHECK_EQ(ds_session_start(&S), DS_OK, "start");
    CHECK_EQ(fp_get(&F, 0x3F1), 0, "no PEBS enabled");
    CHECK_EQ(ds_session_teardown(&S), DS_OK, "teardown");
    check_snap("erratum fallback");
    memset(&S, 0, sizeof S);
    struct ds_session_config c = cfg_mem();
    c.pebs_flags = DS_PMC_PEBS_ALLOW_ERRATA;
    CHECK_EQ(ds_session_init(&S, &cpu, &c), DS_OK, "init accepting errata");
    CHECK_EQ(add(raw(0xC0, 0x00, 1000, DS_SAMPLE_PRECISE), NULL), DS_OK, "add");
    CHECK_EQ(ds_session_start(&S), DS_OK, "start with DS_PMC_PEBS_ALLOW_ERRATA");
    CHECK_EQ(ds_session_teardown(&S), DS_OK, "teardown");
}

static void test_exhaustion(void)
{
    silvermont();
    CHECK_EQ(init_default(), DS_OK, "init");
    CHECK_EQ(add(raw(0xC0, 0x00, 1000, DS_SAMPLE_PRECISE), NULL), DS_OK, "Silvermont PEBS");
    CHECK_EQ(add(raw(0xC0, 0x00, 1000, DS_SAMPLE_PRECISE), NULL), DS_ERR_SESSION_NO_COUNTER,
             "Silvermont: PMC0 only (SDM 18.6.1.1)");
    skylake();
    CHECK_EQ(init_default(), DS_OK, "init");
    for (unsigned i = 0; i < 4; i++) {
        CHECK_EQ(add(raw(0xC4, 0x00, 1000, DS_SAMPLE_PRECISE), NULL), DS_OK, "PEBS %u", i);
        CHECK_EQ(S.req[i].idx, i, "PMC%u", i);
    }
    CHECK_EQ(add(raw(0xC4, 0x00, 1000, DS_SAMPLE_PRECISE), NULL), DS_ERR_SESSION_NO_COUNTER, "5th on PMC0-3");
    /* PREC_DIST only on PMC1 (Linux intel_skl_pebs_event_constraints) */
    CHECK_EQ(init_default(), DS_OK, "init");
    CHECK_EQ(add(raw(0xC0, 0x01, 1000, DS_SAMPLE_PRECISE), NULL), DS_OK, "PREC_DIST");
    CHECK_EQ(S.req[0].idx, 1, "PREC_DIST on PMC1");
    CHECK_EQ(add(raw(0xC0, 0x01, 1000, DS_SAMPLE_PRECISE), NULL), DS_ERR_SESSION_NO_COUNTER, "second PREC_DIST");
    CHECK_EQ(add(raw(0xC0, 0x00, 1000, DS_SAMPLE_PRECISE), NULL), DS_OK, "other event");
    CHECK_EQ(S.req[1].idx, 0, "takes PMC0");
    nehalem();
    CHECK_EQ(init_default(), DS_OK, "init");
    CHECK_EQ(add(raw(0x3C, 0x00, 1000, DS_SAMPLE_PRECISE), NULL), DS_ERR_SESSION_NOT_PRECISE,
             "Nehalem: cycles not in the PEBS list");
    CHECK_EQ(add(raw(0x0B, 0x10, 1000, DS_SAMPLE_PRECISE), NULL), DS_OK, "Nehalem load latency event");
    CHECK_EQ(S.req[0].idx, 3, "PMC3 (perfmon NehalemEP_core.json \"Counter\": \"3\"; issue 25 item 7)");
}

static void test_adaptive(void)
{
    icelake();
    CHECK_EQ(init_default(), DS_OK, "init");
    struct ds_request r = raw(0xD0, 0x81, 5000, DS_SAMPLE_PRECISE); /* MEM_INST_RETIRED.ALL_LOADS */
    r.groups = DS_GROUP_MEM | DS_GROUP_GPRS;
    CHECK_EQ(add(r, NULL), DS_OK, "Ice Lake loads with memory + GPR groups");
    r.groups = DS_GROUP_LBR;
    CHECK_EQ(add(r, NULL), DS_ERR_SESSION_GROUPS, "LBR group without cfg.lbr (LBRs not enabled)");
    CHECK_EQ(ds_session_start(&S), DS_OK, "start");
    /* SDM MSR_PEBS_DATA_CFG: MemInfo bit 0, GPRs bit 1 */
    CHECK_EQ(fp_get(&F, 0x3F2), 0x3, "DATA_CFG");
    CHECK_EQ(fp_get(&F, 0x186), 0x4004381D0ull, "EVTSEL0 with Adaptive_Record (bit 34)");
    const struct ds_area64 *a = (const struct ds_area64 *)(const void *)mem;
    /* basic 32 + meminfo 32 + GPRs 144 = 208 bytes per record */
    CHECK_EQ((a->pebs_max - a->pebs_base) % 208, 0, "record size from DATA_CFG");
    CHECK_EQ(ds_session_teardown(&S), DS_OK, "teardown");
    CHECK_EQ(fp_get(&F, 0x3F2), 0, "DATA_CFG restored");

    sapphire();
    CHECK_EQ(init_default(), DS_OK, "init");
    /* Golden Cove INST_RETIRED C0H takes PEBS on PMC1-7 only (Linux
     * intel_glc_pebs_event_constraints INTEL_FLAGS_EVENT_CONSTRAINT(0xc0, 0xfe)) */
    for (unsigned i = 0; i < 7; i++) {
        CHECK_EQ(add(raw(0xC0, 0x00, 1000 + i, DS_SAMPLE_PRECISE), NULL), DS_OK, "fmt 5: C0H PEBS %u", i);
        CHECK_EQ(S.req[i].idx, i + 1, "C0H request %u on PMC%u (never PMC0)", i, i + 1);
    }
    CHECK_EQ(S.req[6].idx, 7, "PMC7 takes PEBS on format 5 (GP 0-31 rule)");
    CHECK_EQ(add(raw(0xC0, 0x00, 1000, DS_SAMPLE_PRECISE), NULL), DS_ERR_SESSION_NO_COUNTER,
             "eighth C0H: PMC0 is free but not a C0H PEBS counter on Golden Cove");
    /* BR_INST_RETIRED C4H has no glc row: PMC0 takes it */
    CHECK_EQ(add(raw(0xC4, 0x00, 1007, DS_SAMPLE_PRECISE), NULL), DS_OK, "C4H PEBS on PMC0");
    CHECK_EQ(S.req[7].idx, 0, "C4H on PMC0");
    CHECK_EQ(add(raw(0xC4, 0x00, 1000, DS_SAMPLE_PRECISE), NULL), DS_ERR_SESSION_TOO_MANY, "ninth request");
    CHECK_EQ(ds_session_start(&S), DS_OK, "start");
    CHECK_EQ(fp_get(&F, 0x3F1), 0xFF, "PEBS_ENABLE PMC0-7");
    CHECK_EQ(fp_get(&F, 0x38F), 0xFF, "GLOBAL_CTRL");
    CHECK_EQ(fp_get(&F, 0x186) & 0xFFFF, 0x00C4, "EVTSEL0 = C4H/00H");
    CHECK_EQ(fp_get(&F, 0x187) & 0xFFFF, 0x00C0, "EVTSEL1 = C0H/00H");
    CHECK_EQ(a->pebs_reset[7], 0x1000000000000ull - 1006, "reset slot 7 = -period");
    CHECK_EQ(a->pebs_reset[0], 0x1000000000000ull - 1007, "reset slot 0 = -period");
    CHECK_EQ(fp_get(&F, 0x3F2), 0, "no groups: DATA_CFG untouched (basic records)");
    CHECK_EQ(ds_session_teardown(&S), DS_OK, "teardown");
}

static void test_netburst(void)
{
    netburst();
    memset(&S, 0, sizeof S);
    struct ds_session_config c = cfg_mem();
    c.mem_linear = 0x200000; /* the 32-bit DS layout needs addresses below 4 GiB */
    CHECK_EQ(ds_session_init(&S, &cpu, &c), DS_OK, "init");
    struct ds_request r = raw(0, 0, 4000, DS_SAMPLE_PRECISE);
    CHECK_EQ(add(r, NULL), DS_ERR_SESSION_RAW, "NetBurst raw request without nb_event");
    r.raw.nb_event = "replay_event";
    r.raw.nb_mask = "NBOGUS";
    CHECK_EQ(add(r, NULL), DS_ERR_SESSION_NOT_PRECISE, "NetBurst PEBS without a replay metric");
    r.raw.nb_metric = DS_NB_METRIC_1STL_CACHE_LOAD_MISS;
    CHECK_EQ(add(r, NULL), DS_OK, "replay_event PEBS");
    CHECK_EQ(S.req[0].idx, 16, "IQ_COUNTER4 (counter 16: BPU 0-3, MS 4-7, FLAME 8-11, IQ 12-17)");
    CHECK_EQ(add(r, NULL), DS_ERR_SESSION_NO_COUNTER, "one PEBS counter per logical CPU");
    CHECK_EQ(ds_session_start(&S), DS_OK, "start");
    /* SDM: CRU_ESCR2 (0x3CC) event select 09H [30:25], NBOGUS bit 9, T0_OS 3, T0_USR 2 */
    CHECK_EQ(fp_get(&F, 0x3CC), 0x1200020Cu, "CRU_ESCR2 = replay_event NBOGUS");
    CHECK_EQ(fp_get(&F, 0x370) & 0xF000u, 0xB000u, "MSR_IQ_CCCR4 (370H): enable, ESCR select 5");
    CHECK_EQ(fp_get(&F, 0x310), 0x10000000000ull - 4000, "MSR_IQ_COUNTER4 (310H) = 2^40 - period");
    /* SDM replay tagging table: 1stL_cache_load_miss = PEBS_ENABLE bit 0,
     * MATRIX_VERT bit 0; UOP_Tag 24, ENABLE_PEBS_MY_THR 25 */
    CHECK_EQ(fp_get(&F, 0x3F1), 0x3000001u, "MSR_PEBS_ENABLE");
    CHECK_EQ(fp_get(&F, 0x3F2), 1, "MSR_PEBS_MATRIX_VERT");
    CHECK_EQ(fp_get(&F, 0x600), 0x200000, "DS_AREA = mem_linear");
    const struct ds_area32 *a = (const struct ds_area32 *)(const void *)mem;
    CHECK_EQ(a->pebs_reset_lo, (uint32_t)(0x10000000000ull - 4000), "32-bit area reset low");
    CHECK_EQ(a->pebs_reset_hi, 0xFF, "reset bits 39:32");
    CHECK_EQ(ds_session_teardown(&S), DS_OK, "teardown");
    CHECK_EQ(fp_get(&F, 0x370), 0, "CCCR restored");
}

static void test_arch_pebs(void)
{
    panther();
    memset(&S, 0, sizeof S);
    struct ds_session_config c = cfg_mem();
    c.mem_phys = 0x100000; /* below MAXPHYADDR 46 (host addresses may not be) */
    CHECK_EQ(ds_session_init(&S, &cpu, &c), DS_OK, "init");
    struct ds_request r = raw(0xC0, 0x00, 20000, DS_SAMPLE_PRECISE);
    r.groups = DS_GROUP_MEM | DS_GROUP_GPRS;
    CHECK_EQ(add(r, NULL), DS_OK, "arch PEBS request");
    CHECK_EQ(S.req[0].how, DS_HOW_APEBS, "architectural PEBS");
    CHECK_EQ(ds_session_start(&S), DS_OK, "start");
    /* perfmon v6: IA32_PMC_GP0_CFG_A 1901H = EVTSEL; CFG_C 1903H: EN 63, AUX 62,
     * GPR 61, reload [31:0] = low half of -period */
    CHECK_EQ(fp_get(&F, 0x1901), 0x004300C0, "GP0 CFG_A");
    CHECK_EQ(fp_get(&F, 0x1903), (1ull << 63) | (1ull << 62) | (1ull << 61) | (uint32_t)(0 - 20000u), "GP0 CFG_C");
    /* IA32_PEBS_BASE = phys | size code: the 64 KiB region = 4 KiB << 4 */
    CHECK_EQ(fp_get(&F, 0x3F4), 0x100000 | 4, "PEBS_BASE");
    CHECK_EQ(fp_get(&F, 0x3F5) & (1ull << 32), 1ull << 32, "PEBS_INDEX.EN");
    CHECK_EQ(fp_get(&F, 0x600), 0, "no DS area on an arch-PEBS CPU");
    CHECK_EQ(fp_get(&F, 0x38F), 1, "GLOBAL_CTRL");
    CHECK_EQ(ds_session_teardown(&S), DS_OK, "teardown");
    CHECK_EQ(fp_get(&F, 0x3F4), 0, "PEBS_BASE back");
}

/* --- format 6 / arch PEBS counters group (DS_GROUP_CNTR, DS_COUNT) ------------ */

static struct ds_request gen(enum ds_event ev, uint64_t period, enum ds_sample_mode mode);
static void put64(unsigned char *p, uint64_t v);

static struct { unsigned n; uint32_t present, gpm, fxm; uint64_t gp[2], fx0, slots, met; } cg;
static void on_sample_cntr(void *arg, const struct ds_session_sample *s)
{
    (void)arg;
    cg.n++;
    if (!s->pebs)
        return;
    cg.present = s->pebs->present;
    cg.gpm = s->pebs->cntr_gp_mask;
    cg.fxm = s->pebs->cntr_fixed_mask;
    cg.gp[0] = s->pebs->cntr_gp[0];
    cg.gp[1] = s->pebs->cntr_gp[1];
    cg.fx0 = s->pebs->cntr_fixed[0];
    cg.slots = s->pebs->topdown_slots;
    cg.met = s->pebs->perf_metrics;
}

/* PEBS C0H on PMC0 with the counters group, C0H counted on PMC1 and
 * instructions on fixed 0 (the kernel's pebs-loop-cntr run). */
static int cntr_requests(uint32_t groups, unsigned id[3])
{
    struct ds_request p = raw(0xC0, 0x00, 10000, DS_SAMPLE_PRECISE), c = raw(0xC0, 0x00, 0, DS_COUNT);
    p.groups = groups;
    int e = add(p, &id[0]);
    if (!e)
        e = add(c, &id[1]);
    if (!e)
        e = add(gen(DS_EVENT_INSTRUCTIONS, 0, DS_COUNT), &id[2]);
    return e;
}

static void test_cntr_fmt6(void)
{
    lunar(0);
    memset(&S, 0, sizeof S);
    memset(&cg, 0, sizeof cg);
    struct ds_session_config c = cfg_mem();
    c.on_sample = on_sample_cntr;
    CHECK_EQ(ds_session_init(&S, &cpu, &c), DS_OK, "init");
    unsigned id[3];
    CHECK_EQ(cntr_requests(DS_GROUP_CNTR | DS_GROUP_METRICS, id), DS_OK, "PEBS + two counting requests");
    CHECK(S.req[id[0]].how == DS_HOW_PEBS && S.req[id[0]].kind == DS_CTR_GP && S.req[id[0]].idx == 0, "PEBS on PMC0");
    CHECK(S.req[id[1]].how == DS_HOW_COUNT && S.req[id[1]].kind == DS_CTR_GP && S.req[id[1]].idx == 1,
          "C0H counted on PMC1 (lowest free)");
    CHECK(S.req[id[2]].kind == DS_CTR_FIXED && S.req[id[2]].idx == 0, "instructions counted on fixed 0");
    take_snap();
    CHECK_EQ(ds_session_start(&S), DS_OK, "start");
    /* Linux asm/perf_event.h: PEBS_DATACFG_CNTR bit 4, _METRICS bit 5, GP
     * mask << 32 (PMC0, PMC1), fixed mask << 48 (fixed 0; fixed 3 is the
     * metrics part) */
    CHECK_EQ(fp_get(&F, 0x3F2), 0x0001000300000030ull, "MSR_PEBS_DATA_CFG");
    /* IA32_PMC_GPn_CFG_A (1901H + 4n): C0H, USR 16, OS 17, EN 22; PMC0
     * Adaptive_Record 34; no INT (20) on either */
    CHECK_EQ(fp_get(&F, 0x1901), 0x4004300C0ull, "GP0 CFG_A (PEBS, adaptive)");
    CHECK_EQ(fp_get(&F, 0x1905), 0x4300C0ull, "GP1 CFG_A (count only)");
    CHECK_EQ(fp_get(&F, 0x1904), 0, "PMC1 counts from 0");
    /* FIXED_CTR_CTRL: 4 bits per counter, OS 0 + USR 1: fixed 0 and fixed 3 (slots), no PMI bit */
    CHECK_EQ(fp_get(&F, 0x38D), 0x3003, "FIXED_CTR_CTRL");
    /* + bit 48 EN_PERF_METRICS (Linux intel_set_masks for INTEL_PMC_IDX_METRIC_BASE) */
    CHECK_EQ(fp_get(&F, 0x38F), 0x1000900000003ull, "GLOBAL_CTRL: PMC0, PMC1, fixed 0, fixed 3, EN_PERF_METRICS");
    CHECK_EQ(fp_get(&F, 0x3F1), 1, "PEBS_ENABLE: PMC0 only");
    /* SDM adaptive record: basic 32 + counters header 16 + 3 values + slots + metrics = 88 */
    struct ds_area64 *ar = (struct ds_area64 *)(void *)mem;
    CHECK_EQ((ar->pebs_max - ar->pebs_base) % 88, 0, "record size 88");
    unsigned char *rec = (unsigned char *)(uintptr_t)ar->pebs_base;
    memset(rec, 0, 88);
    put64(rec, (88ull << 48) | 0x30);
    put64(rec + 0x08, 0x4000);
    put64(rec + 0x10, 1);
    put64(rec + 32, 0x3 | (0x1ull << 32));
    put64(rec + 40, 3);           /* INTEL_CNTR_METRICS */
    put64(rec + 48, 111);
    put64(rec + 56, 222);
    put64(rec + 64, 333);
    put64(rec + 72, 444);
    put64(rec + 80, 0x0807060504030201ull);
    ar->pebs_index = ar->pebs_base + 88;
    fp_set(&F, 0x38E, 1ull << 62);
    CHECK_EQ(ds_session_pmi(&S, 0, NULL), DS_OK, "PMI");
    CHECK_EQ(cg.n, 1, "one sample");
    CHECK((cg.present & DS_SAMPLE_CNTRS) && (cg.present & DS_SAMPLE_METRICS), "counters group decoded");
    CHECK(cg.gpm == 3 && cg.fxm == 1 && cg.gp[0] == 111 && cg.gp[1] == 222 && cg.fx0 == 333, "GP 0, 1, fixed 0 values");
    CHECK(cg.slots == 444 && cg.met == 0x0807060504030201ull, "slots and PERF_METRICS");
    CHECK_EQ(ds_session_teardown(&S), DS_OK, "teardown");
    check_snap("format 6 counters group");

    /* the group without metrics: no fixed 3, DATA_CFG bit 4 and the masks */
    lunar(0);
    CHECK_EQ(init_default(), DS_OK, "init");
    CHECK_EQ(cntr_requests(DS_GROUP_CNTR, id), DS_OK, "counters group without metrics");
    CHECK_EQ(ds_session_start(&S), DS_OK, "start");
    CHECK_EQ(fp_get(&F, 0x3F2), 0x0001000300000010ull, "MSR_PEBS_DATA_CFG without METRICS");
    CHECK_EQ(fp_get(&F, 0x38D), 0x3, "FIXED_CTR_CTRL: fixed 0 only");
    CHECK_EQ(fp_get(&F, 0x38F), 0x100000003ull, "GLOBAL_CTRL without fixed 3");
    CHECK_EQ(ds_session_teardown(&S), DS_OK, "teardown");

    /* boundaries: metrics without PERF_METRICS; format 6 without PEBS_BASELINE;
     * format 4; DS_COUNT with groups; mode one past DS_COUNT */
    lunar(1u << 15);
    CHECK_EQ(init_default(), DS_OK, "init");
    CHECK_EQ(cntr_requests(DS_GROUP_CNTR | DS_GROUP_METRICS, id), DS_ERR_SESSION_NO_METRICS, "no PERF_METRICS");
    CHECK_EQ(cntr_requests(DS_GROUP_CNTR, id), DS_OK, "the group itself is there");
    lunar(1u << 14);
    CHECK_EQ(init_default(), DS_OK, "init");
    CHECK_EQ(cntr_requests(DS_GROUP_CNTR, id), DS_ERR_SESSION_NO_CNTR_GROUP, "format 6 without PEBS_BASELINE");
    icelake();
    CHECK_EQ(init_default(), DS_OK, "init");
    CHECK_EQ(cntr_requests(DS_GROUP_CNTR, id), DS_ERR_SESSION_NO_CNTR_GROUP, "format 4");
    struct ds_request pa = raw(0xC0, 0x00, 1000, DS_SAMPLE_AUTO);
    pa.groups = DS_GROUP_CNTR;
    CHECK_EQ(add(pa, NULL), DS_ERR_SESSION_NO_CNTR_GROUP, "AUTO: the specific error, not overflow's GROUPS");
    struct ds_request r = raw(0xC0, 0, 0, DS_COUNT);
    r.groups = DS_GROUP_CNTR;
    CHECK_EQ(add(r, NULL), DS_ERR_SESSION_GROUPS, "DS_COUNT with groups");
    r.groups = 0;
    r.mode = (enum ds_sample_mode)(DS_COUNT + 1);
    CHECK_EQ(add(r, NULL), DS_ERR_SESSION_BAD_MODE, "mode DS_COUNT + 1");
    r.mode = DS_COUNT;
    CHECK_EQ(add(r, NULL), DS_OK, "DS_COUNT with period 0 on Ice Lake");
    netburst();
    CHECK_EQ(init_default(), DS_OK, "init");
    struct ds_request nb = raw(0, 0, 0, DS_COUNT);
    nb.raw.nb_event = "replay_event";
    nb.raw.nb_mask = "NBOGUS";
    CHECK_EQ(add(nb, NULL), DS_ERR_SESSION_NO_CNTR_GROUP, "NetBurst DS_COUNT: no counters group");

    /* two PEBS requests asking metrics share fixed 3 */
    lunar(0);
    CHECK_EQ(init_default(), DS_OK, "init");
    struct ds_request m = raw(0xC0, 0x00, 1000, DS_SAMPLE_PRECISE);
    m.groups = DS_GROUP_CNTR | DS_GROUP_METRICS;
    CHECK_EQ(add(m, NULL), DS_OK, "first metrics request");
    m.raw.evsel = 0xC4;
    CHECK_EQ(add(m, NULL), DS_OK, "second metrics request (fixed 3 shared)");
    CHECK_EQ(ds_session_start(&S), DS_OK, "start");
    CHECK_EQ(fp_get(&F, 0x3F2), 0x0000000300000030ull, "DATA_CFG: GP mask PMC0|PMC1, no fixed");
    CHECK_EQ(fp_get(&F, 0x38D), 0x3000, "FIXED_CTR_CTRL: fixed 3 only");
    CHECK_EQ(ds_session_teardown(&S), DS_OK, "teardown");
}

/* Architectural PEBS: the PEBS counter's CFG_C selects the groups (Linux
 * ARCH_PEBS_CNTR_ALLOW 35, _GP 36, _FIXED 37, _METRICS 38). */
static void test_cntr_arch(void)
{
    panther();
    memset(&S, 0, sizeof S);
    struct ds_session_config c = cfg_mem();
    c.mem_phys = 0x100000;
    CHECK_EQ(ds_session_init(&S, &cpu, &c), DS_OK, "init");
    unsigned id[3];
    /* metrics need PERF_CAPABILITIES.PERF_METRICS (15) on arch PEBS too:
     * Linux topdown events need intel_cap.perf_metrics */
    CHECK_EQ(cntr_requests(DS_GROUP_CNTR | DS_GROUP_METRICS, id), DS_ERR_SESSION_NO_METRICS,
             "arch PEBS metrics without PERF_METRICS");
    fp_set(&F, DS_MSR_IA32_PERF_CAPABILITIES, 0x8000 | 0xF00 | 0x3F);
    identify(true);
    CHECK_EQ(ds_session_init(&S, &cpu, &c), DS_OK, "init");
    CHECK_EQ(cntr_requests(DS_GROUP_CNTR | DS_GROUP_METRICS, id), DS_OK, "arch PEBS counters group");
    CHECK(S.req[id[1]].idx == 1 && S.req[id[2]].kind == DS_CTR_FIXED && S.req[id[2]].idx == 0, "PMC1, fixed 0");
    take_snap();
    CHECK_EQ(ds_session_start(&S), DS_OK, "start");
    CHECK_EQ(fp_get(&F, 0x1903), (1ull << 63) | (0xFull << 35) | (uint32_t)(0 - 10000u), "GP0 CFG_C");
    /* Linux intel_pmu_enable_event_ext: every member of a PEBS counter group
     * gets ARCH_PEBS_CNTR_ALLOW (35); EN (63) only the precise one */
    CHECK_EQ(fp_get(&F, 0x1907), 1ull << 35, "GP1 CFG_C: CNTR_ALLOW alone (count only)");
    CHECK_EQ(fp_get(&F, 0x1983), 1ull << 35, "fixed 0 CFG_C: CNTR_ALLOW alone (count only)");
    CHECK_EQ(fp_get(&F, 0x198F), 1ull << 35, "fixed 3 CFG_C: CNTR_ALLOW alone (slots)");
    CHECK_EQ(fp_get(&F, 0x198B), 0, "fixed 2 CFG_C untouched (not in the session)");
    CHECK_EQ(fp_get(&F, 0x1905), 0x4300C0ull, "GP1 CFG_A");
    CHECK_EQ(fp_get(&F, 0x38D), 0x3003, "FIXED_CTR_CTRL");
    CHECK_EQ(fp_get(&F, 0x38F), 0x1000900000003ull, "GLOBAL_CTRL (+ 48 EN_PERF_METRICS: Linux intel_set_masks)");
    CHECK_EQ(ds_session_teardown(&S), DS_OK, "teardown");
    check_snap("arch PEBS counters group");
    /* metrics with no fixed counter but slots: CNTR_FIXED stays clear
     * (GLOBAL_CTRL bit 48 is EN_PERF_METRICS, no fixed counter 16) */
    CHECK_EQ(ds_session_init(&S, &cpu, &c), DS_OK, "init");
    struct ds_request pm = raw(0xC0, 0x00, 10000, DS_SAMPLE_PRECISE);
    pm.groups = DS_GROUP_CNTR | DS_GROUP_METRICS;
    CHECK_EQ(add(pm, NULL), DS_OK, "PEBS C0H with counters + metrics, nothing else");
    CHECK_EQ(ds_session_start(&S), DS_OK, "start");
    CHECK_EQ(fp_get(&F, 0x1903), (1ull << 63) | (0xBull << 35) | (uint32_t)(0 - 10000u),
             "GP0 CFG_C: ALLOW, GP, METRICS, no FIXED");
    CHECK_EQ(fp_get(&F, 0x38F), 0x1000800000001ull, "GLOBAL_CTRL: PMC0, fixed 3, EN_PERF_METRICS");
    CHECK_EQ(ds_session_teardown(&S), DS_OK, "teardown");
    /* CPUID.(23H,4):EBX[3] (CNTR_ALLOW) not enumerated: no member could be
     * allowed, no counters group (metrics alone included) */
    for (int k = 0; k < F.nleaves; k++)
        if (F.leaves[k].leaf == 0x23 && F.leaves[k].sub == 4)
            F.leaves[k].r[1] &= ~0x8u;
    identify(true);
    CHECK_EQ(ds_session_init(&S, &cpu, &c), DS_OK, "init");
    CHECK_EQ(cntr_requests(DS_GROUP_CNTR, id), DS_ERR_SESSION_NO_CNTR_GROUP, "no CNTR_ALLOW: no counters group");
    CHECK_EQ(cntr_requests(DS_GROUP_METRICS, id), DS_ERR_SESSION_NO_CNTR_GROUP, "no CNTR_ALLOW: no metrics group");
    for (int k = 0; k < F.nleaves; k++)
        if (F.leaves[k].leaf == 0x23 && F.leaves[k].sub == 4)
            F.leaves[k].r[1] |= 0x8u;
    identify(true);
    /* without a counters group no member is allowed: a second PEBS-only
     * session leaves every CFG_C but the PEBS counter's at 0 */
    CHECK_EQ(ds_session_init(&S, &cpu, &c), DS_OK, "init");
    CHECK_EQ(cntr_requests(0, id), DS_OK, "arch PEBS without a counters group, two counting requests");
    CHECK_EQ(ds_session_start(&S), DS_OK, "start");
    CHECK_EQ(fp_get(&F, 0x1903), (1ull << 63) | (uint32_t)(0 - 10000u), "GP0 CFG_C: EN + reload, no CNTR_ALLOW");
    CHECK_EQ(fp_get(&F, 0x1907), 0, "GP1 CFG_C untouched");
    CHECK_EQ(fp_get(&F, 0x1983), 0, "fixed 0 CFG_C untouched");
    CHECK_EQ(fp_get(&F, 0x38F), 0x100000003ull, "GLOBAL_CTRL: no fixed 3, no bit 48");
    CHECK_EQ(ds_session_teardown(&S), DS_OK, "teardown");
}

/* --- generic events (event.h rows) ------------------------------------------- */

static struct ds_request gen(enum ds_event ev, uint64_t period, enum ds_sample_mode mode)
{
    struct ds_request r;
    memset(&r, 0, sizeof r);
    r.event = ev;
    r.period = period;
    r.mode = mode;
    return r;
}

static void test_generic(void)
{
    /* Skylake: instructions = INST_RETIRED.PREC_DIST C0H/01H, PMC1 only
     * (Linux intel_skl_pebs_event_constraints INTEL_PST_CONSTRAINT(0x1c0, 0x2)) */
    skylake();
    CHECK_EQ(init_default(), DS_OK, "init");
    CHECK_EQ(add(gen(DS_EVENT_INSTRUCTIONS, 10000, DS_SAMPLE_PRECISE), NULL), DS_OK, "Skylake instructions");
    CHECK_EQ(S.req[0].idx, 1, "PREC_DIST on PMC1");
    CHECK_EQ(ds_session_start(&S), DS_OK, "start");
    CHECK_EQ(fp_get(&F, 0x187), 0x004301C0, "EVTSEL1 = C0H/01H OS USR EN");
    CHECK_EQ(fp_get(&F, 0x3F1), 2, "PEBS_ENABLE PMC1");
    char buf[1024];
    ds_session_describe(&S, buf, sizeof buf);
    CHECK(strstr(buf, "uarch skylake") && strstr(buf, "INST_RETIRED.PREC_DIST") && strstr(buf, "PMC1"),
          "describe names the uarch and the event:\n%s", buf);
    CHECK_EQ(ds_session_teardown(&S), DS_OK, "teardown");

    /* Skylake loads with a latency threshold: MEM_TRANS_RETIRED.LOAD_LATENCY
     * CDH/01H, MSR_PEBS_LD_LAT = threshold, PEBS_ENABLE PMCn | LL_EN (32+n) */
    CHECK_EQ(init_default(), DS_OK, "init");
    struct ds_request r = gen(DS_EVENT_LOADS, 1000, DS_SAMPLE_PRECISE);
    r.ldlat = 30;
    CHECK_EQ(add(r, NULL), DS_OK, "loads, latency > 30");
    CHECK_EQ(ds_session_start(&S), DS_OK, "start");
    unsigned n = S.req[0].idx;
    CHECK_EQ(fp_get(&F, 0x186 + n) & 0xFFFF, 0x01CD, "EVTSEL = CDH/01H");
    CHECK_EQ(fp_get(&F, 0x3F6), 30, "MSR_PEBS_LD_LAT");
    CHECK_EQ(fp_get(&F, 0x3F1), (1ull << n) | (1ull << (32 + n)), "PEBS_ENABLE PMCn | LL_EN");
    CHECK_EQ(ds_session_teardown(&S), DS_OK, "teardown");
    CHECK_EQ(fp_get(&F, 0x3F6), 0, "LD_LAT restored");

    /* Ice Lake: instructions on fixed counter 0 with adaptive PEBS (PEBS_ENABLE
     * bit 32, FIXED_CTR_CTRL nibble 0 = OS|USR, DS reset slot 8 + 0) */
    icelake();
    CHECK_EQ(init_default(), DS_OK, "init");
    CHECK_EQ(add(gen(DS_EVENT_INSTRUCTIONS, 5000, DS_SAMPLE_PRECISE), NULL), DS_OK, "Ice Lake instructions");
    CHECK(S.req[0].kind == DS_CTR_FIXED && S.req[0].idx == 0, "fixed counter 0");
    CHECK_EQ(ds_session_start(&S), DS_OK, "start");
    CHECK_EQ(fp_get(&F, 0x38D) & 0xF, 0x3, "FIXED_CTR_CTRL nibble 0 = OS|USR, no PMI");
    CHECK_EQ(fp_get(&F, 0x3F1), 1ull << 32, "PEBS_ENABLE fixed 0");
    CHECK_EQ(fp_get(&F, 0x309), 0x1000000000000ull - 5000, "FIXED_CTR0 = -period (48 bits)");
    CHECK_EQ(fp_get(&F, 0x38F), 1ull << 32, "GLOBAL_CTRL fixed 0");
    const struct ds_area64 *a = (const struct ds_area64 *)(const void *)mem;
    CHECK_EQ(a->pebs_reset[8], 0x1000000000000ull - 5000, "fmt 4 fixed reset slot 8");
    CHECK_EQ(ds_session_teardown(&S), DS_OK, "teardown");
    CHECK_EQ(init_default(), DS_OK, "init");
    r = raw(0xCD, 0x01, 1000, DS_SAMPLE_PRECISE); /* MEM_TRANS_RETIRED.LOAD_LATENCY */
    r.ldlat = 50;
    CHECK_EQ(add(r, NULL), DS_OK, "Ice Lake raw load-latency event (adaptive: the MSR, no LL_EN bit)");
    CHECK_EQ(ds_session_start(&S), DS_OK, "start");
    CHECK_EQ(fp_get(&F, 0x3F6), 50, "MSR_PEBS_LD_LAT");
    CHECK_EQ(fp_get(&F, 0x3F1), 1, "PEBS_ENABLE PMC0 only (Linux: LL_EN only before perfmon v5)");
    CHECK_EQ(ds_session_teardown(&S), DS_OK, "teardown");

    /* Sapphire Rapids-like fmt 5: fixed counter m resets at slot 32 + m */
    sapphire();
    CHECK_EQ(init_default(), DS_OK, "init");
    CHECK_EQ(add(gen(DS_EVENT_INSTRUCTIONS, 5000, DS_SAMPLE_PRECISE), NULL), DS_OK, "SPR instructions");
    CHECK_EQ(ds_session_start(&S), DS_OK, "start");
    CHECK_EQ(a->pebs_reset[32], 0x1000000000000ull - 5000, "fmt 5 fixed reset slot 32");
    CHECK_EQ(ds_session_teardown(&S), DS_OK, "teardown");

    /* No PEBS (PEBS_UNAVAILABLE): instructions by overflow use the
     * architectural INST_RETIRED.ANY_P C0H/00H, not PREC_DIST (PMC1 only) */
    skylake();
    fp_set(&F, DS_MSR_IA32_MISC_ENABLE, (1u << 7) | (1u << 12));
    identify(true);
    CHECK_EQ(init_default(), DS_OK, "init");
    CHECK_EQ(add(gen(DS_EVENT_INSTRUCTIONS, 1000, DS_SAMPLE_AUTO), NULL), DS_OK, "instructions auto, no PEBS");
    CHECK_EQ(S.req[0].evtsel, 0x005300C0, "C0H/00H with INT");
    CHECK_EQ(S.req[0].idx, 3, "on the highest GP counter");

    /* Panther Lake P-core: CPUID.23H.1 EAX lists GP0-9 (leaf 0AH counts 8);
     * GLOBAL_CTRL/STATUS bits 8-9 are those counters (Linux update_pmu_cap
     * cntr_mask64 = 23H.1 EAX), so ds_pmi_init takes them and overflow
     * sampling uses the highest, GP9 (GP7 while pmi.c counted leaf 0AH) */
    panther();
    CHECK_EQ(init_default(), DS_OK, "init");
    CHECK_EQ(add(gen(DS_EVENT_CYCLES, 1000, DS_SAMPLE_AUTO), NULL), DS_OK, "cycles auto");
    CHECK_EQ(S.req[0].idx, 9, "GP9: 23H.1 bit 9, a counter ds_pmi_init accepts");
    CHECK_EQ(ds_session_start(&S), DS_OK, "start");
    /* SDM perfmon v6 MSR aliases: IA32_PMC_GP9_CFG_A = 1901H + 4 * 9 */
    CHECK_EQ(fp_get(&F, 0x1925) & 0x005300FFull, 0x0053003Cull, "GP9 CFG_A: 3CH, USR, OS, INT, EN");
    CHECK_EQ(fp_get(&F, 0x38F) & 0x3FFull, 1ull << 9, "GLOBAL_CTRL bit 9 only among the GP bits");
    CHECK_EQ(ds_session_teardown(&S), DS_OK, "teardown");

    /* Core 2: cycles has no PEBS; AUTO samples it by overflow */
    core2();
    CHECK_EQ(init_default(), DS_OK, "init");
    CHECK_EQ(add(gen(DS_EVENT_CYCLES, 1000, DS_SAMPLE_PRECISE), NULL), DS_ERR_SESSION_NOT_PRECISE, "cycles precise");
    CHECK_EQ(add(gen(DS_EVENT_CYCLES, 1000, DS_SAMPLE_AUTO), NULL), DS_OK, "cycles auto");
    CHECK_EQ(S.req[0].how, DS_HOW_OVERFLOW, "overflow");
    CHECK_EQ(add(gen(DS_EVENT_LOADS, 1000, DS_SAMPLE_AUTO), NULL), DS_OK, "loads auto");
    CHECK_EQ(S.req[1].evtsel & 0xFFFF, 0x01C0, "Core 2 INST_RETIRED.LOADS stays C0H/01H (only PREC_DIST is rewritten)");
    r = gen(DS_EVENT_LOADS, 1000, DS_SAMPLE_AUTO);
    r.ldlat = 30;
    CHECK_EQ(add(r, NULL), DS_ERR_SESSION_NO_LDLAT, "Core 2 has no load latency");

    /* NetBurst: instructions not precise; mispredicted branches are
     * (replay_event + Tagged_mispred_branch: Linux p4.c p4_pebs_bind_map
     * PEBS_ENABLE 0x18000, MATRIX_VERT 0x10; UOP_Tag 24, ENABLE_PEBS_MY_THR 25) */
    netburst();
    memset(&S, 0, sizeof S);
    struct ds_session_config c = cfg_mem();
    c.mem_linear = 0x200000;
    CHECK_EQ(ds_session_init(&S, &cpu, &c), DS_OK, "init");
    CHECK_EQ(add(gen(DS_EVENT_INSTRUCTIONS, 1000, DS_SAMPLE_PRECISE), NULL), DS_ERR_SESSION_NOT_PRECISE,
             "NetBurst instructions precise");
    CHECK_EQ(add(gen(DS_EVENT_BRANCH_MISSES, 1000, DS_SAMPLE_PRECISE), NULL), DS_OK, "NetBurst mispredicts");
    CHECK_EQ(add(gen(DS_EVENT_INSTRUCTIONS, 1000, DS_SAMPLE_AUTO), NULL), DS_OK, "instructions by overflow");
    CHECK_EQ(S.req[1].how, DS_HOW_NB_OVERFLOW, "CCCR.OVF_PMI");
    CHECK_EQ(ds_session_start(&S), DS_OK, "start");
    CHECK_EQ(fp_get(&F, 0x3F1), 0x18000u | (1u << 24) | (1u << 25), "MSR_PEBS_ENABLE Tagged_mispred_branch");
    CHECK_EQ(fp_get(&F, 0x3F2), 0x10, "MSR_PEBS_MATRIX_VERT");
    /* an overflow of the instructions counter: CCCR.OVF (bit 31) set, the
     * counter wrapped; the hook finds it (no GLOBAL_STATUS on NetBurst) */
    uint32_t cccr = S.req[1].nbas.cccr_msr, ctr = S.req[1].nbas.counter_msr;
    memset(&got, 0, sizeof got);
    fp_set(&F, cccr, fp_get(&F, cccr) | (1ull << 31));
    fp_set(&F, ctr, 3);
    CHECK_EQ(ds_session_pmi(&S, 0x777, NULL), DS_OK, "NetBurst counter PMI handled");
    CHECK(got.n == 1 && got.req[0] == 1 && !got.pebs[0] && got.ip[0] == 0x777, "overflow sample to request 1");
    CHECK_EQ(fp_get(&F, cccr) >> 31 & 1, 0, "CCCR.OVF cleared");
    CHECK_EQ(fp_get(&F, ctr), 0x10000000000ull - 1000, "counter reloaded with 2^40 - period");
    CHECK_EQ(ds_session_teardown(&S), DS_OK, "teardown");

    /* loads: front_end_event NBOGUS counts uops the upstream uop_type
     * TAGLOADS tagged (SDM front-end tagging): RAT_ESCR0 (3BCH) = event 02H
     * [30:25], TAGLOADS mask bit 1 (ESCR bit 10), Tag Enable 4, T0_OS 3,
     * T0_USR 2; no counter for it */
    CHECK_EQ(ds_session_init(&S, &cpu, &c), DS_OK, "init");
    CHECK_EQ(add(gen(DS_EVENT_LOADS, 1000, DS_SAMPLE_AUTO), NULL), DS_OK, "NetBurst loads (overflow)");
    CHECK(S.req[0].nb_tagged && S.req[0].nbtag.escr_msr == 0x3BC, "upstream tagging on RAT_ESCR0");
    CHECK_EQ(ds_session_start(&S), DS_OK, "start");
    CHECK_EQ(fp_get(&F, 0x3BC), 0x0400041Cu, "RAT_ESCR0 = uop_type TAGLOADS, Tag Enable");
    CHECK_EQ(ds_session_stop(&S), DS_OK, "stop");
    CHECK_EQ(fp_get(&F, 0x3BC), 0, "tagging off at stop");
    CHECK_EQ(ds_session_teardown(&S), DS_OK, "teardown");
}

/* --- PMI dispatch ------------------------------------------------------------ */

static void put64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static void test_pmi(void)
{
    skylake();
    CHECK_EQ(init_default(), DS_OK, "init");
    unsigned a, b;
    CHECK_EQ(add(raw(0xC4, 0x00, 100, DS_SAMPLE_OVERFLOW), &a), DS_OK, "overflow request");
    CHECK_EQ(add(raw(0xC0, 0x00, 100, DS_SAMPLE_PRECISE), &b), DS_OK, "PEBS request");
    CHECK_EQ(S.req[a].idx, 3, "overflow takes the highest GP counter");
    CHECK_EQ(S.req[b].idx, 0, "PEBS PMC0");
    CHECK_EQ(ds_session_start(&S), DS_OK, "start");
    struct ds_pmi_result res;
    CHECK_EQ(ds_session_pmi(&S, 0x1234, &res), DS_ERR_SESSION_SPURIOUS, "status 0: not ours");
    CHECK_EQ(got.n, 0, "nothing delivered");
    /* one format-3 record (SDM: RIP at 08H, applicable counters at 90H) and
     * GLOBAL_STATUS.OvfBuf (62) + PMC3 overflow (3) */
    struct ds_area64 *ar = (struct ds_area64 *)(void *)mem;
    unsigned char *rec = (unsigned char *)(uintptr_t)ar->pebs_base;
    memset(rec, 0, 0xC8);
    put64(rec + 0x08, 0xFFFF800000001000ull);
    put64(rec + 0x90, 1);
    ar->pebs_index = ar->pebs_base + 0xC8;
    fp_set(&F, 0x38E, (1ull << 62) | (1ull << 3));
    fp_set(&F, 0xC4, 5); /* PMC3 wrapped */
    CHECK_EQ(ds_session_pmi(&S, 0xABCD, &res), DS_OK, "PMI handled");
    CHECK_EQ(got.n, 2, "two samples");
    bool pebs_ok = false, ovf_ok = false;
    for (unsigned i = 0; i < 2; i++) {
        pebs_ok |= got.req[i] == b && got.pebs[i] && got.ip[i] == 0xFFFF800000001000ull;
        ovf_ok |= got.req[i] == a && !got.pebs[i] && got.ip[i] == 0xABCD;
    }
    CHECK(pebs_ok, "PEBS sample to request %u with the record's IP", b);
    CHECK(ovf_ok, "overflow sample to request %u with the interrupted IP", a);
    CHECK_EQ(fp_get(&F, 0xC4), 0x1000000000000ull - 100, "PMC3 reloaded with -period");
    CHECK_EQ(fp_get(&F, 0x38E), 0, "status acknowledged");
    CHECK_EQ(ar->pebs_index, ar->pebs_base, "PEBS index reset by the drain");
    /* the final drain at stop delivers what is below the threshold */
    put64(rec + 0x08, 0x2000);
    ar->pebs_index = ar->pebs_base + 0xC8;
    CHECK_EQ(ds_session_stop(&S), DS_OK, "stop");
    CHECK_EQ(got.n, 3, "stop drained the last record");
    CHECK_EQ(got.ip[2], 0x2000, "its IP");
    CHECK_EQ(ds_session_teardown(&S), DS_OK, "teardown");
    CHECK_EQ(ds_session_pmi(&S, 0, NULL), DS_ERR_SESSION_SPURIOUS, "after teardown: not ours");
    memset(&res, 0xFF, sizeof res);
    CHECK_EQ(ds_session_pmi(&S, 0, &res), DS_ERR_SESSION_SPURIOUS, "after teardown, with a result");
    CHECK(!res.handled && !res.pebs_drained && res.pebs.records == 0, "after teardown: the result is cleared");
}

/* ds_session_sample.eip (issue 29 item 5): the instruction that caused the
 * event where the record has it. Hand-built records per SDM layout
 * (../shared/reference/pebs-records.md): fmt 1 (Nehalem, 0xB0 bytes, RIP
 * 08H = the next instruction, GLOBAL_STATUS 90H), fmt 2 (Silvermont, 0xC0,
 * EventingIP B0H), fmt 3 (Skylake, 0xC8, EventingIP B0H, applicable
 * counters 90H). Linux: real_ip and PERF_EFLAGS_EXACT on fmt >= 2
 * (setup_pebs_fixed_sample_data), the fmt 0/1 IP is not exact without the
 * LBR fixup. Each case with one PEBS and one overflow request (the routed
 * sink) and with the PEBS request alone (the one-request sink). */
static void eip_case(void (*cpu_fn)(void), unsigned size, bool has_eip, bool with_ovf, const char *what)
{
    cpu_fn();
    CHECK_EQ(init_default(), DS_OK, "%s: init", what);
    unsigned a = 99, b;
    if (with_ovf)
        CHECK_EQ(add(raw(0xC4, 0x00, 100, DS_SAMPLE_OVERFLOW), &a), DS_OK, "%s: overflow request", what);
    CHECK_EQ(add(raw(0xC0, 0x00, 100, DS_SAMPLE_PRECISE), &b), DS_OK, "%s: PEBS request", what);
    CHECK_EQ(ds_session_start(&S), DS_OK, "%s: start", what);
    struct ds_area64 *ar = (struct ds_area64 *)(void *)mem;
    unsigned char *rec = (unsigned char *)(uintptr_t)ar->pebs_base;
    memset(rec, 0, size);
    put64(rec + 0x08, 0x401008);  /* the instruction after (a 8-byte one at 0x401000) */
    put64(rec + 0x90, 1ull << S.req[b].idx);
    if (has_eip)
        put64(rec + 0xB0, 0x401000);
    ar->pebs_index = ar->pebs_base + size;
    fp_set(&F, 0x38E, (1ull << 62) | (with_ovf ? 1ull << S.req[a].idx : 0));
    if (with_ovf)
        fp_set(&F, 0xC1 + S.req[a].idx, 5);
    struct ds_pmi_result res;
    CHECK_EQ(ds_session_pmi(&S, 0x500123, &res), DS_OK, "%s: PMI", what);
    CHECK_EQ(got.n, with_ovf ? 2u : 1u, "%s: samples", what);
    for (unsigned i = 0; i < got.n && i < 2; i++) {
        if (got.pebs[i]) {
            CHECK_EQ(got.ip[i], 0x401008, "%s: ip is still the record's", what);
            CHECK_EQ(got.eip[i], has_eip ? 0x401000 : 0x401008, "%s: eip", what);
            CHECK_EQ(got.exact[i], has_eip, "%s: eip_exact", what);
        } else {
            CHECK_EQ(got.eip[i], 0x500123, "%s: overflow eip = the interrupted IP", what);
            CHECK(!got.exact[i], "%s: overflow eip not exact (skid)", what);
        }
    }
    CHECK_EQ(ds_session_teardown(&S), DS_OK, "%s: teardown", what);
}

static void test_sample_eip(void)
{
    eip_case(nehalem, 0xB0, false, true, "fmt 1 routed");
    eip_case(nehalem, 0xB0, false, false, "fmt 1 alone");
    eip_case(silvermont, 0xC0, true, true, "fmt 2 routed");
    eip_case(silvermont, 0xC0, true, false, "fmt 2 alone");
    eip_case(skylake, 0xC8, true, true, "fmt 3 routed");
    eip_case(skylake, 0xC8, true, false, "fmt 3 alone");
    /* fmt 4 (Ice Lake), adaptive basic group only (Linux struct pebs_basic:
     * format_group [31:0], format_size [63:48] = 32; IP 08H is the eventing
     * IP, applicable counters 10H, TSC 18H) */
    icelake();
    CHECK_EQ(init_default(), DS_OK, "fmt 4: init");
    unsigned b;
    CHECK_EQ(add(raw(0xC4, 0x00, 100, DS_SAMPLE_PRECISE), &b), DS_OK, "fmt 4: PEBS request");
    CHECK_EQ(ds_session_start(&S), DS_OK, "fmt 4: start");
    struct ds_area64 *ar = (struct ds_area64 *)(void *)mem;
    unsigned char *rec = (unsigned char *)(uintptr_t)ar->pebs_base;
    memset(rec, 0, 32);
    put64(rec + 0x00, 32ull << 48);
    put64(rec + 0x08, 0x402000);
    put64(rec + 0x10, S.req[b].kind == DS_CTR_FIXED ? 1ull << (32 + S.req[b].idx) : 1ull << S.req[b].idx);
    ar->pebs_index = ar->pebs_base + 32;
    fp_set(&F, 0x38E, 1ull << 62);
    struct ds_pmi_result res;
    CHECK_EQ(ds_session_pmi(&S, 0x500123, &res), DS_OK, "fmt 4: PMI");
    CHECK_EQ(got.n, 1, "fmt 4: one sample");
    CHECK(got.pebs[0] && got.ip[0] == 0x402000 && got.eip[0] == 0x402000 && got.exact[0],
          "fmt 4: eip = the basic group's IP, exact (ip 0x%llx eip 0x%llx exact %d)", (unsigned long long)got.ip[0],
          (unsigned long long)got.eip[0], got.exact[0]);
    CHECK_EQ(ds_session_teardown(&S), DS_OK, "fmt 4: teardown");
}

/* Several PEBS requests: each record goes to the request of the counter its
 * applicable-counters field (fmt 3, SDM offset 90H) names. */
static void test_dispatch_multi(void)
{
    skylake();
    CHECK_EQ(init_default(), DS_OK, "init");
    unsigned a, b;
    CHECK_EQ(add(raw(0xC0, 0x00, 100, DS_SAMPLE_PRECISE), &a), DS_OK, "PEBS 1");
    CHECK_EQ(add(raw(0xC4, 0x00, 100, DS_SAMPLE_PRECISE), &b), DS_OK, "PEBS 2");
    CHECK_EQ(S.req[b].idx, 1, "second on PMC1");
    CHECK_EQ(ds_session_start(&S), DS_OK, "start");
    struct ds_area64 *ar = (struct ds_area64 *)(void *)mem;
    unsigned char *rec = (unsigned char *)(uintptr_t)ar->pebs_base;
    memset(rec, 0, 3 * 0xC8);
    put64(rec + 0x08, 0x111);
    put64(rec + 0x90, 2);                /* PMC1 */
    put64(rec + 0xC8 + 0x08, 0x222);
    put64(rec + 0xC8 + 0x90, 1);         /* PMC0 */
    put64(rec + 0x190 + 0x08, 0x333);
    put64(rec + 0x190 + 0x90, 4);        /* PMC2: no request */
    ar->pebs_index = ar->pebs_base + 3 * 0xC8;
    fp_set(&F, 0x38E, 1ull << 62);
    struct ds_pmi_result res;
    CHECK_EQ(ds_session_pmi(&S, 0, &res), DS_OK, "PMI");
    CHECK_EQ(got.n, 2, "two records delivered");
    CHECK(got.req[0] == b && got.ip[0] == 0x111, "PMC1 record -> request %u", b);
    CHECK(got.req[1] == a && got.ip[1] == 0x222, "PMC0 record -> request %u", a);
    CHECK_EQ(res.pebs.lost_rejected, 1, "the PMC2 record is refused, counted");
    CHECK_EQ(ds_session_teardown(&S), DS_OK, "teardown");
}

/* The PMI sink's attribution (ds__pebs_ctrs, pebs_int.h) is
 * ds_pebs_attribute's answer as the routing used it before (issue 29 item
 * 3: *out on success, *out & enabled on an error; arch PEBS: the record's
 * applicable counters & enabled), on every format, for enabled masks with
 * zero, one and several counters (GP and fixed), applicable-counter fields
 * that match none, one, several and other counters. */
static void test_route_attribution(void)
{
    static const enum ds_pebs_fmt fmts[] = {
        DS_PEBS_FMT_NONE, DS_PEBS_FMT_0, DS_PEBS_FMT_1, DS_PEBS_FMT_2, DS_PEBS_FMT_3, DS_PEBS_FMT_4,
        DS_PEBS_FMT_5, DS_PEBS_FMT_6, DS_PEBS_FMT_ARCH, DS_PEBS_FMT_NB32, DS_PEBS_FMT_NB64, (enum ds_pebs_fmt)0x107,
    };
    static const uint64_t ens[] = { 0, 1, 2, 3, 6, 8, 9, 1ull << 32, (1ull << 32) | 1, (1ull << 33) | (1ull << 32),
                                    0x7ull << 32 | 0xF, 1ull << 31 };
    static const uint64_t ctrs[] = { 0, 1, 2, 4, 6, 8, 0xFF, 1ull << 32, (1ull << 32) | 2, 1ull << 31, ~0ull };
    unsigned checked = 0, bad = 0;
    for (size_t f = 0; f < N(fmts); f++)
        for (size_t e = 0; e < N(ens); e++)
            for (size_t c = 0; c < N(ctrs); c++) {
                struct ds_pebs_sample p;
                memset(&p, 0, sizeof p);
                p.fmt = fmts[f];
                p.counters = ctrs[c];
                uint64_t want = 0;
                if (fmts[f] == DS_PEBS_FMT_ARCH)
                    want = ctrs[c] & ens[e];
                else if (ds_pebs_attribute(&p, ens[e], &want) != DS_OK)
                    want &= ens[e];
                uint64_t have = ds__pebs_ctrs(&p, ens[e]);
                checked++;
                if (have != want && bad++ < 5)
                    CHECK(0, "fmt %#x enabled %#llx counters %#llx: %#llx, ds_pebs_attribute says %#llx",
                          (unsigned)fmts[f], (unsigned long long)ens[e], (unsigned long long)ctrs[c],
                          (unsigned long long)have, (unsigned long long)want);
            }
    CHECK_EQ(bad, 0, "every attribution as ds_pebs_attribute's (%u cases)", checked);
}

/* Routing with a fixed-counter PEBS request among others (issue 29 item 3:
 * the sink tests GP bits 31:0 and fixed bits 32 + m as two words): Ice
 * Lake format 4 basic records (Linux struct pebs_basic: format_size
 * [63:48] = 32, IP 08H, applicable counters 10H) naming fixed 0, PMC of
 * the second request, both, and none go to fixed 0's request, the GP
 * one's, both, and nobody (refused, lost_rejected). */
static void test_dispatch_fixed(void)
{
    icelake();
    CHECK_EQ(init_default(), DS_OK, "init");
    unsigned a, b;
    CHECK_EQ(add(gen(DS_EVENT_INSTRUCTIONS, 1000, DS_SAMPLE_PRECISE), &a), DS_OK, "instructions");
    CHECK_EQ(add(gen(DS_EVENT_INSTRUCTIONS, 2000, DS_SAMPLE_PRECISE), &b), DS_OK, "instructions, second");
    CHECK(S.req[a].kind == DS_CTR_FIXED && S.req[a].idx == 0, "first on fixed 0");
    CHECK(S.req[b].kind == DS_CTR_GP, "second on a GP counter (%u)", S.req[b].idx);
    CHECK_EQ(ds_session_start(&S), DS_OK, "start");
    struct ds_area64 *ar = (struct ds_area64 *)(void *)mem;
    unsigned char *rec = (unsigned char *)(uintptr_t)ar->pebs_base;
    const uint64_t fx = 1ull << 32, gp = 1ull << S.req[b].idx;
    const uint64_t ctrs[4] = { fx, gp, fx | gp, 1ull << 33 }; /* fixed 1: no request */
    memset(rec, 0, 4 * 32);
    for (unsigned i = 0; i < 4; i++) {
        put64(rec + i * 32 + 0x00, 32ull << 48);
        put64(rec + i * 32 + 0x08, 0x1000 + i);
        put64(rec + i * 32 + 0x10, ctrs[i]);
    }
    ar->pebs_index = ar->pebs_base + 4 * 32;
    fp_set(&F, 0x38E, 1ull << 62);
    memset(&got, 0, sizeof got);
    struct ds_pmi_result res;
    CHECK_EQ(ds_session_pmi(&S, 0, &res), DS_OK, "PMI");
    CHECK_EQ(got.n, 4, "four samples");
    CHECK(got.req[0] == a && got.ip[0] == 0x1000, "fixed 0 record -> request %u (got %u)", a, got.req[0]);
    CHECK(got.req[1] == b && got.ip[1] == 0x1001, "GP record -> request %u (got %u)", b, got.req[1]);
    CHECK(got.req[2] == a && got.ip[2] == 0x1002, "both: first to request %u (got %u)", a, got.req[2]);
    CHECK(got.req[3] == b && got.ip[3] == 0x1002, "both: then to request %u (got %u)", b, got.req[3]);
    CHECK_EQ(res.pebs.lost_rejected, 1, "the fixed 1 record is refused, counted");
    CHECK_EQ(ds_session_teardown(&S), DS_OK, "teardown");
}

/* Write @n format-3 records (SDM: 0xC8 bytes, RIP at 08H, applicable
 * counters at 90H) from the PEBS base and set the index past them. */
static void put_fmt3(unsigned n, uint64_t ip0, uint64_t ctrs)
{
    struct ds_area64 *ar = (struct ds_area64 *)(void *)mem;
    unsigned char *rec = (unsigned char *)(uintptr_t)ar->pebs_base;
    memset(rec, 0, (size_t)n * 0xC8);
    for (unsigned i = 0; i < n; i++) {
        put64(rec + i * 0xC8 + 0x08, ip0 + i);
        put64(rec + i * 0xC8 + 0x90, ctrs);
    }
    ar->pebs_index = ar->pebs_base + (uint64_t)n * 0xC8;
}

static uint64_t lost_sum(const struct ds_drain_stats *d)
{
    return d->lost_beyond + d->lost_corrupt + d->lost_rejected + d->lost_race;
}

/* Session drain accounting (issue 16): pebs_stats sums every PMI drain,
 * ds_session_drain_now and the final drain of stop; cleared at start.
 * Expected counts: the records this test writes (2 + 1 + 1 + 1). */
static void test_stats(void)
{
    skylake();
    CHECK_EQ(init_default(), DS_OK, "init");
    unsigned a;
    CHECK_EQ(add(raw(0xC0, 0x00, 100, DS_SAMPLE_PRECISE), &a), DS_OK, "PEBS request");
    CHECK_EQ(ds_session_start(&S), DS_OK, "start");
    struct ds_pmi_result res;
    CHECK_EQ(ds_session_pmi(&S, 0, &res), DS_ERR_SESSION_SPURIOUS, "spurious PMI");
    CHECK_EQ(S.pebs_stats.present, 0, "spurious PMI adds nothing");
    put_fmt3(2, 0x1000, 1);
    fp_set(&F, 0x38E, 1ull << 62);
    CHECK_EQ(ds_session_pmi(&S, 0, &res), DS_OK, "PMI 1");
    CHECK_EQ(S.pebs_stats.records, 2, "PMI 1: 2 records");
    put_fmt3(1, 0x2000, 1);
    fp_set(&F, 0x38E, 1ull << 62);
    CHECK_EQ(ds_session_pmi(&S, 0, &res), DS_OK, "PMI 2");
    CHECK_EQ(S.pebs_stats.records, 3, "PMI 2: 3 records in all");
    put_fmt3(1, 0x3000, 1);
    CHECK_EQ(ds_session_drain_now(&S), DS_OK, "drain_now");
    CHECK_EQ(S.pebs_stats.records, 4, "drain_now counted");
    put_fmt3(1, 0x4000, 1);
    CHECK_EQ(ds_session_stop(&S), DS_OK, "stop");
    CHECK_EQ(got.n, 5, "5 samples delivered");
    CHECK_EQ(S.pebs_stats.records, 5, "stop's final drain counted: records == 5");
    CHECK_EQ(S.pebs_stats.present, 5, "present == 5");
    CHECK_EQ(S.pebs_stats.present, S.pebs_stats.records + lost_sum(&S.pebs_stats), "present == records + lost");
    CHECK_EQ(S.bts_stats.present, 0, "no BTS");
    CHECK_EQ(ds_session_teardown(&S), DS_OK, "teardown");
    CHECK_EQ(S.pebs_stats.records, 5, "kept through teardown");

    /* Two PEBS requests (PMC0, PMC1): a PMC2 record is claimed by none. */
    unsigned b;
    CHECK_EQ(init_default(), DS_OK, "init 2");
    CHECK_EQ(add(raw(0xC0, 0x00, 100, DS_SAMPLE_PRECISE), &a), DS_OK, "PEBS 1");
    CHECK_EQ(add(raw(0xC4, 0x00, 100, DS_SAMPLE_PRECISE), &b), DS_OK, "PEBS 2");
    CHECK_EQ(ds_session_start(&S), DS_OK, "start 2");
    put_fmt3(1, 0x5000, 4);              /* PMC2: no request */
    CHECK_EQ(ds_session_drain_now(&S), DS_OK, "drain_now 2");
    put_fmt3(2, 0x6000, 2);              /* PMC1 */
    CHECK_EQ(ds_session_stop(&S), DS_OK, "stop 2");
    CHECK_EQ(S.pebs_stats.lost_rejected, 1, "the refused record: lost_rejected 1");
    CHECK_EQ(S.pebs_stats.records, 2, "2 accepted");
    CHECK_EQ(S.pebs_stats.present, 3, "3 present = 2 records + 1 lost");
    /* the next start clears them (same session, after teardown: READY) */
    CHECK_EQ(ds_session_teardown(&S), DS_OK, "teardown 2");
    CHECK_EQ(ds_session_start(&S), DS_OK, "start 3");
    CHECK_EQ(S.pebs_stats.present, 0, "start clears present");
    CHECK_EQ(S.pebs_stats.records, 0, "start clears records");
    CHECK_EQ(S.pebs_stats.lost_rejected, 0, "start clears lost_rejected");
    CHECK_EQ(ds_session_stop(&S), DS_OK, "stop 3");
    CHECK_EQ(S.pebs_stats.present, 0, "empty buffer: nothing present");
    CHECK_EQ(ds_session_teardown(&S), DS_OK, "teardown 3");
}

static unsigned lbr_calls;
static size_t lbr_n;
static uint64_t lbr_from0;
static void on_lbr(void *arg, const struct ds_lbr_entry *e, size_t n)
{
    (void)arg;
    lbr_calls++;
    lbr_n = n;
    lbr_from0 = n ? e[0].from : 0;
}

/* LBR snapshot at each PMI (Skylake: 32 entries at 680H/6C0H/DC0H, TOS
 * 1C9H; SDM "LBR Stack" for the 06_5EH row): enabled with
 * FREEZE_LBRS_ON_PMI, read while frozen, handed to on_lbr. */
static void test_lbr(void)
{
    skylake();
    for (unsigned i = 0; i < 32; i++) {
        fp_set(&F, 0x680 + i, 0x1000 + i);
        fp_set(&F, 0x6C0 + i, 0x2000 + i);
        fp_set(&F, 0xDC0 + i, 0);
    }
    fp_set(&F, 0x1C9, 5); /* TOS */
    fp_set(&F, 0x1C8, 0);
    take_snap();
    memset(&S, 0, sizeof S);
    memset(&got, 0, sizeof got);
    struct ds_session_config c = cfg_mem();
    c.lbr = true;
    c.on_lbr = on_lbr;
    CHECK_EQ(ds_session_init(&S, &cpu, &c), DS_OK, "init with LBR");
    CHECK_EQ(add(raw(0xC0, 0x00, 100, DS_SAMPLE_PRECISE), NULL), DS_OK, "add");
    CHECK_EQ(ds_session_start(&S), DS_OK, "start");
    /* SDM IA32_DEBUGCTL: LBR bit 0, FREEZE_LBRS_ON_PMI bit 11, FREEZE_PERFMON_ON_PMI bit 12 */
    CHECK_EQ(fp_get(&F, 0x1D9) & 0x1801, 0x1801, "DEBUGCTL LBR | freeze LBRs | freeze perfmon");
    fp_set(&F, 0x38E, (1ull << 62) | (1ull << 58));
    lbr_calls = 0;
    CHECK_EQ(ds_session_pmi(&S, 0, NULL), DS_OK, "PMI");
    CHECK_EQ(lbr_calls, 1, "on_lbr once");
    CHECK_EQ(lbr_n, 32, "the whole stack");
    CHECK_EQ(lbr_from0, 0x1005, "newest first: entry TOS");
    CHECK_EQ(fp_get(&F, 0x38E), 0, "LBR_Frz acknowledged after the snapshot");
    CHECK_EQ(ds_session_stop(&S), DS_OK, "stop");
    CHECK_EQ(fp_get(&F, 0x1D9) & 0x801, 0, "LBR off");
    CHECK_EQ(ds_session_teardown(&S), DS_OK, "teardown");
    check_snap("lbr");
}

static void test_bts(void)
{
    skylake();
    CHECK_EQ(init_default(), DS_OK, "init");
    struct ds_request r;
    memset(&r, 0, sizeof r);
    r.mode = DS_TRACE_BTS_CIRCULAR;
    CHECK_EQ(add(r, NULL), DS_OK, "circular BTS");
    CHECK_EQ(add(r, NULL), DS_ERR_SESSION_BTS_TWICE, "second BTS request");
    CHECK_EQ(add(raw(0xC0, 0, 1000, DS_SAMPLE_PRECISE), NULL), DS_OK, "and PEBS");
    CHECK_EQ(ds_session_start(&S), DS_OK, "start");
    /* SDM IA32_DEBUGCTL: TR 6, BTS 7 (BTINT 8 clear: circular) */
    CHECK_EQ(fp_get(&F, 0x1D9) & 0x1C0, 0xC0, "DEBUGCTL TR|BTS");
    struct ds_area64 *ar = (struct ds_area64 *)(void *)mem;
    CHECK(ar->bts_base >= ar->pebs_max, "BTS part after the PEBS part");
    CHECK(ar->bts_thresh > ar->bts_max, "circular: threshold beyond the maximum");
    unsigned char *b = (unsigned char *)(uintptr_t)ar->bts_base;
    put64(b, 0x4000);
    put64(b + 8, 0x5000);
    ar->bts_index = ar->bts_base + 24;
    CHECK_EQ(ds_session_stop(&S), DS_OK, "stop");
    CHECK_EQ(fp_get(&F, 0x1D9) & 0x1C0, 0, "BTS off");
    CHECK_EQ(got.br, 1, "one branch at stop");
    CHECK_EQ(got.br_from, 0x4000, "its source");
    CHECK_EQ(S.bts_stats.records, 1, "bts_stats: stop's drain counted one branch");
    CHECK_EQ(S.bts_stats.present, S.bts_stats.records + lost_sum(&S.bts_stats), "bts_stats: present == records + lost");
    CHECK_EQ(S.pebs_stats.present, 0, "no PEBS record");
    CHECK_EQ(ds_session_teardown(&S), DS_OK, "teardown");
}

/* --- teardown restores every MSR ---------------------------------------------- */

static void run_restore(void (*prof)(void), const char *name, bool dirty, uint64_t seed)
{
    prof();
    if (dirty)
        dirty_all(seed);
    take_snap();
    memset(&S, 0, sizeof S);
    struct ds_session_config c = cfg_mem();
    if (cpu.caps.netburst)
        c.mem_linear = 0x200000;
    c.mem_phys = 0x100000;
    CHECK_EQ(ds_session_init(&S, &cpu, &c), DS_OK, "%s init", name);
    struct ds_request r = raw(0xC0, 0x00, 3000, DS_SAMPLE_AUTO);
    if (cpu.caps.netburst) {
        r.raw.nb_event = "replay_event";
        r.raw.nb_mask = "NBOGUS";
        r.raw.nb_metric = 0;
    }
    CHECK_EQ(add(r, NULL), DS_OK, "%s sampling request", name);
    if (cpu.caps.netburst) {
        r.raw.nb_event = "instr_retired";
        r.raw.nb_mask = "NBOGUSNTAG";
    }
    CHECK_EQ(add(r, NULL), DS_OK, "%s second request (overflow or PEBS)", name);
    struct ds_request t;
    memset(&t, 0, sizeof t);
    t.mode = DS_TRACE_BTS;
    CHECK_EQ(add(t, NULL), cpu.caps.bts_advertised ? DS_OK : DS_ERR_SESSION_NO_DS, "%s BTS", name);
    CHECK_EQ(ds_session_start(&S), DS_OK, "%s start", name);
    CHECK(F.writes > 0, "%s start wrote MSRs", name);
    CHECK_EQ(ds_session_stop(&S), DS_OK, "%s stop", name);
    CHECK_EQ(ds_session_teardown(&S), DS_OK, "%s teardown", name);
    check_snap(name);
    /* a second cycle from the same session */
    CHECK_EQ(ds_session_start(&S), DS_OK, "%s start again", name);
    CHECK_EQ(ds_session_teardown(&S), DS_OK, "%s teardown again", name);
    check_snap(name);
}

static void test_restore(void)
{
    struct { void (*p)(void); const char *n; } prof[] = {
        { core2, "core2" }, { nehalem, "nehalem" }, { silvermont, "silvermont" }, { skylake, "skylake" },
        { icelake, "icelake" }, { sapphire, "sapphire" }, { netburst, "netburst" }, { panther, "panther" },
    };
    for (unsigned i = 0; i < N(prof); i++) {
        run_restore(prof[i].p, prof[i].n, false, 0);
        run_restore(prof[i].p, prof[i].n, true, 0x5A5A5A5A5A5A5A5Aull + i);
    }
}

/* Auto freeze falls back to none where DEBUGCTL[12] faults; an explicit
 * freeze mode fails and start restores everything. */
static void test_freeze_fault(void)
{
    core2();
    freeze_gp = true;
    take_snap();
    CHECK_EQ(init_default(), DS_OK, "init");
    CHECK_EQ(add(raw(0xC0, 0x00, 1000, DS_SAMPLE_PRECISE), NULL), DS_OK, "add");
    CHECK_EQ(ds_session_start(&S), DS_OK, "auto freeze: start without freezing");
    CHECK_EQ(S.freeze, DS_FREEZE_NONE, "freeze none");
    CHECK_EQ(fp_get(&F, 0x1D9) & (1u << 12), 0, "DEBUGCTL[12] clear");
    CHECK_EQ(fp_get(&F, 0x3F1), 1, "PEBS still enabled");
    CHECK_EQ(ds_session_teardown(&S), DS_OK, "teardown");
    check_snap("freeze fallback");
    memset(&S, 0, sizeof S);
    struct ds_session_config c = cfg_mem();
    c.freeze_set = true;
    c.freeze = DS_FREEZE_LEGACY;
    CHECK_EQ(ds_session_init(&S, &cpu, &c), DS_OK, "init explicit legacy");
    CHECK_EQ(add(raw(0xC0, 0x00, 1000, DS_SAMPLE_PRECISE), NULL), DS_OK, "add");
    CHECK_EQ(ds_session_start(&S), DS_ERR_MSR_FAULT, "explicit legacy freeze: the fault is returned");
    CHECK_EQ(S.state, DS_SESSION_READY, "session READY again");
    check_snap("failed start unwound");
    freeze_gp = false;
}

/* on_pebs (session.h): the drain's sink is the caller's, records arrive
 * as ds_pebs_sample with the caller's arg; a refused record is counted
 * lost_rejected. ds_session_pmi's inline part adds a clean drain's
 * present/records itself and leaves losses and anomalies to
 * ds__session_pmi_rest: both must end in pebs_stats. Expected counts: the
 * records written here; MAX_CHANGED: the SDM DS-area PEBS maximum field
 * (area offset 58H) overwritten, which the drain repairs and reports. */
static struct { unsigned n; uint64_t ip[16]; void *arg; } pt;
static int pebs_take(void *arg, const struct ds_pebs_sample *p)
{
    if (pt.n < 16)
        pt.ip[pt.n] = p->ip;
    pt.n++;
    pt.arg = arg;
    return p->ip == 0xBAD ? 1 : 0;
}

static void test_on_pebs(void)
{
    static int tag;
    struct ds_session_config c = cfg_mem();
    c.on_sample = NULL;
    c.on_branch = NULL;
    c.on_pebs = pebs_take;
    c.arg = &tag;
    skylake();
    memset(&S, 0, sizeof S);
    memset(&pt, 0, sizeof pt);
    CHECK_EQ(ds_session_init(&S, &cpu, &c), DS_OK, "init with on_pebs only");
    CHECK_EQ(add(raw(0xC0, 0x00, 100, DS_SAMPLE_PRECISE), NULL), DS_OK, "PEBS request");
    CHECK_EQ(ds_session_start(&S), DS_OK, "start");
    struct ds_pmi_result res;
    put_fmt3(2, 0x1000, 1);
    fp_set(&F, 0x38E, 1ull << 62);
    CHECK_EQ(ds_session_pmi(&S, 0, &res), DS_OK, "PMI 1");
    CHECK_EQ(pt.n, 2, "on_pebs got both records");
    CHECK(pt.ip[0] == 0x1000 && pt.ip[1] == 0x1001, "in order, the records' IPs");
    CHECK(pt.arg == &tag, "with cfg.arg");
    CHECK_EQ(S.pebs_stats.records, 2, "clean drain: records 2");
    CHECK_EQ(S.pebs_stats.present, 2, "clean drain: present 2");
    /* a refused record: present != records, the out-of-line rest counts it */
    put_fmt3(3, 0x2000, 1);
    put64((unsigned char *)(uintptr_t)((struct ds_area64 *)(void *)mem)->pebs_base + 0xC8 + 0x08, 0xBAD);
    fp_set(&F, 0x38E, 1ull << 62);
    CHECK_EQ(ds_session_pmi(&S, 0, NULL), DS_OK, "PMI 2 (no result given)");
    CHECK_EQ(pt.n, 5, "three more records offered");
    CHECK_EQ(S.pebs_stats.records, 4, "records 2 + 2");
    CHECK_EQ(S.pebs_stats.present, 5, "present 2 + 3");
    CHECK_EQ(S.pebs_stats.lost_rejected, 1, "the refused record: lost_rejected 1");
    /* an anomaly without a loss: the maximum field overwritten */
    struct ds_area64 *ar = (struct ds_area64 *)(void *)mem;
    uint64_t max = ar->pebs_max;
    put_fmt3(1, 0x3000, 1);
    ar->pebs_max = max + 0xC8;
    fp_set(&F, 0x38E, 1ull << 62);
    CHECK_EQ(ds_session_pmi(&S, 0, &res), DS_OK, "PMI 3");
    CHECK(res.pebs.anomalies & DS_DRAIN_MAX_CHANGED, "the drain saw the maximum changed");
    CHECK(S.pebs_stats.anomalies & DS_DRAIN_MAX_CHANGED, "the anomaly reaches pebs_stats");
    CHECK_EQ(S.pebs_stats.records, 5, "records 5");
    CHECK_EQ(ar->pebs_max, max, "maximum repaired");
    CHECK_EQ(ds_session_teardown(&S), DS_OK, "teardown");

    /* on_pebs and on_sample: PEBS records to on_pebs, overflow to on_sample */
    c.on_sample = on_sample;
    memset(&S, 0, sizeof S);
    memset(&pt, 0, sizeof pt);
    memset(&got, 0, sizeof got);
    CHECK_EQ(ds_session_init(&S, &cpu, &c), DS_OK, "init with both");
    CHECK_EQ(add(raw(0xC4, 0x00, 100, DS_SAMPLE_OVERFLOW), NULL), DS_OK, "overflow request");
    CHECK_EQ(add(raw(0xC0, 0x00, 100, DS_SAMPLE_PRECISE), NULL), DS_OK, "PEBS request");
    CHECK_EQ(ds_session_start(&S), DS_OK, "start 2");
    put_fmt3(1, 0x4000, 1);
    fp_set(&F, 0x38E, (1ull << 62) | (1ull << 3));
    fp_set(&F, 0xC4, 5);
    CHECK_EQ(ds_session_pmi(&S, 0xABC, &res), DS_OK, "PMI");
    CHECK(pt.n == 1 && pt.ip[0] == 0x4000, "the PEBS record to on_pebs");
    CHECK(got.n == 1 && !got.pebs[0] && got.ip[0] == 0xABC, "the overflow sample to on_sample");
    CHECK_EQ(ds_session_teardown(&S), DS_OK, "teardown 2");
}

/* --- bad input: one row per session error ----------------------------------- */

struct misuse_row { const char *what; int err; };
static const struct misuse_row misuse[29];

static const struct { const char *what; int err; } bad[] = {
    { "add after start", DS_ERR_SESSION_STATE },
    { "request without event", DS_ERR_SESSION_NO_EVENT },
    { "mode 99", DS_ERR_SESSION_BAD_MODE },
    { "period 0", DS_ERR_SESSION_BAD_PERIOD },
    { "period 2^47 + 1 on a 48-bit counter", DS_ERR_SESSION_BAD_PERIOD },
    { "Core 2: second PEBS request", DS_ERR_SESSION_NO_COUNTER },
    { "Core 2: cycles precise", DS_ERR_SESSION_NOT_PRECISE },
    { "4 KiB + 100 bytes: no room for a PEBS buffer", DS_ERR_SESSION_BUF_SMALL },
    { "Core 2: load latency", DS_ERR_SESSION_NO_LDLAT },
    { "Skylake: XMM group", DS_ERR_SESSION_GROUPS },
    { "second BTS request", DS_ERR_SESSION_BTS_TWICE },
    { "ninth request", DS_ERR_SESSION_TOO_MANY },
    { "PEBS_UNAVAILABLE, precise", DS_ERR_SESSION_NO_DS },
    { "no callbacks", DS_ERR_SESSION_NO_SINK },
    { "bytes without mem", DS_ERR_SESSION_MEM },
    { "lbr without on_lbr", DS_ERR_SESSION_LBR },
    { "rings 4", DS_ERR_SESSION_BAD_RINGS },
    { "family 6 raw without evsel", DS_ERR_SESSION_RAW },
    { "PMI with status 0", DS_ERR_SESSION_SPURIOUS },
    { "start twice", DS_ERR_SESSION_STATE },
    { "stop before start", DS_ERR_SESSION_STATE },
    { "teardown never started", DS_ERR_SESSION_STATE },
    { "overflow request with groups", DS_ERR_SESSION_GROUPS },
    { "Skylake: counters group", DS_ERR_SESSION_NO_CNTR_GROUP },
    { "Lunar Lake without PERF_METRICS: metrics", DS_ERR_SESSION_NO_METRICS },
    { "overflow request, only on_pebs", DS_ERR_SESSION_NO_CALLBACK },
    { "PEBS request, only on_branch", DS_ERR_SESSION_NO_CALLBACK },
    { "BTS request with groups", DS_ERR_SESSION_GROUPS },
    /* DS_ERR_SESSION_SAVE: not reachable (DS_SESSION_MAX_SAVED covers the
     * most a start saves: session_msr.c's _Static_asserts) */
};

static int run_bad(unsigned i)
{
    struct ds_request r = raw(0xC0, 0, 1000, DS_SAMPLE_PRECISE), z;
    memset(&z, 0, sizeof z);
    struct ds_session_config c = cfg_mem();
    skylake();
    init_default();
    switch (i) {
    case 0: add(r, NULL); ds_session_start(&S); return add(r, NULL);
    case 1: return add(z, NULL);
    case 2: r.mode = (enum ds_sample_mode)99; return add(r, NULL);
    case 3: r.period = 0; return add(r, NULL);
    case 4: r.period = (1ull << 47) + 1; return add(r, NULL);
    case 5: core2(); init_default(); add(r, NULL); return add(r, NULL);
    case 6: core2(); init_default(); return add(raw(0x3C, 0, 1000, DS_SAMPLE_PRECISE), NULL);
    case 7: c.bytes = 4096 + 100; memset(&S, 0, sizeof S); ds_session_init(&S, &cpu, &c); add(r, NULL);
            return ds_session_start(&S);
    case 8: core2(); init_default(); r.ldlat = 30; return add(r, NULL);
    case 9: r.groups = DS_GROUP_XMM; return add(r, NULL);
    case 10: z.mode = DS_TRACE_BTS; add(z, NULL); return add(z, NULL);
    case 11: sapphire(); init_default(); for (int k = 0; k < 8; k++) add(raw(0xC0, 0, 1000, DS_SAMPLE_AUTO), NULL); return add(r, NULL);
    case 12: fp_set(&F, DS_MSR_IA32_MISC_ENABLE, (1u << 7) | (1u << 12)); identify(true); init_default();
             return add(r, NULL);
    case 13: c.on_sample = NULL; c.on_branch = NULL; return ds_session_init(&S, &cpu, &c);
    case 14: c.mem = NULL; return ds_session_init(&S, &cpu, &c);
    case 15: c.lbr = true; return ds_session_init(&S, &cpu, &c);
    case 16: r.rings = 4; return add(r, NULL);
    case 17: r.raw.evsel = 0; return add(r, NULL);
    case 18: add(r, NULL); ds_session_start(&S); return ds_session_pmi(&S, 0, NULL);
    case 19: add(r, NULL); ds_session_start(&S); return ds_session_start(&S);
    case 20: add(r, NULL); return ds_session_stop(&S);
    case 21: add(r, NULL); return ds_session_teardown(&S);
    case 22: r.mode = DS_SAMPLE_OVERFLOW; r.groups = DS_GROUP_MEM; return add(r, NULL);
    case 23: r.groups = DS_GROUP_CNTR; return add(r, NULL);
    case 24: lunar(1u << 15); init_default(); r.groups = DS_GROUP_METRICS; return add(r, NULL);
    case 25: c.on_sample = NULL; c.on_pebs = pebs_take; memset(&S, 0, sizeof S); ds_session_init(&S, &cpu, &c);
             r.mode = DS_SAMPLE_OVERFLOW; return add(r, NULL);
    case 26: c.on_sample = NULL; memset(&S, 0, sizeof S); ds_session_init(&S, &cpu, &c); return add(r, NULL);
    case 27: z.mode = DS_TRACE_BTS; z.groups = DS_GROUP_MEM; return add(z, NULL);
    default: return -1;
    }
}

static void test_bad_table(void)
{
    for (unsigned i = 0; i < N(bad); i++) {
        int e = run_bad(i);
        CHECK_EQ(e, bad[i].err, "bad input '%s' -> %s (got %s)", bad[i].what, ds_errname(bad[i].err), ds_errname(e));
        if (S.started)
            ds_session_teardown(&S);
    }
    /* every session code in err.h has a row here or in misuse[] (SAVE
     * excepted, see above) */
    for (int v = DS_ERR_SESSION_STATE; v <= DS_ERR_SESSION_MEM_RANGE; v++) {
        bool row = v == DS_ERR_SESSION_SAVE;
        for (unsigned i = 0; i < N(bad); i++)
            row |= bad[i].err == v;
        for (unsigned i = 0; i < N(misuse); i++)
            row |= misuse[i].err == v;
        CHECK(row, "error %s has a bad-input row", ds_errname(v));
    }
    CHECK(strcmp(ds_strerror(DS_ERR_SESSION_BUF_SMALL), "buffer too small for one record") == 0, "message");
}

static void test_nulls(void)
{
    struct ds_session_config c = cfg_mem();
    struct ds_request r = raw(0xC0, 0, 1000, DS_SAMPLE_AUTO);
    char b[8];
    skylake();
    CHECK_EQ(ds_session_init(NULL, &cpu, &c), DS_ERR_NULL, "init NULL");
    CHECK_EQ(ds_session_add(NULL, &r, NULL), DS_ERR_NULL, "add NULL");
    CHECK_EQ(ds_session_start(NULL), DS_ERR_NULL, "start NULL");
    CHECK_EQ(ds_session_stop(NULL), DS_ERR_NULL, "stop NULL");
    CHECK_EQ(ds_session_pmi(NULL, 0, NULL), DS_ERR_NULL, "pmi NULL");
    CHECK_EQ(ds__session_pmi_rest(NULL, NULL, DS_OK), DS_ERR_NULL, "pmi rest NULL");
    CHECK_EQ(ds_session_drain_now(NULL), DS_ERR_NULL, "drain NULL");
    CHECK_EQ(ds_session_teardown(NULL), DS_ERR_NULL, "teardown NULL");
    CHECK_EQ(ds_session_describe(NULL, b, sizeof b), DS_ERR_NULL, "describe NULL");
    struct ds_cpu raw_cpu;
    ds_cpu_init(&raw_cpu, &t_ops, &F);
    memset(&S, 0, sizeof S);
    CHECK_EQ(ds_session_init(&S, &raw_cpu, &c), DS_ERR_NOT_IDENTIFIED, "not identified");
}

/* Load latency before the adaptive formats (issue 16 item 5). Perfmon:
 * NHM-EP/events/NehalemEP_core.json MEM_INST_RETIRED.LATENCY_ABOVE_THRESHOLD_*
 * (0BH/10H, "PEBS": "2", "Counter": "3") and HSW/events/haswell_core.json
 * MEM_TRANS_RETIRED.LOAD_LATENCY_GT_* (CDH/01H, "PEBS": "2", "Counter": "3");
 * Linux ds.c INTEL_PLD_CONSTRAINT(0x100b, 0xf) / (0x01cd, 0xf): PEBS on
 * PMC0-3. Both allow precise sampling on PMC3: EVTSEL3, MSR_PEBS_LD_LAT
 * (3F6H) = threshold, PEBS_ENABLE bit 3 | LL_EN bit 35 (SDM "Load Latency
 * Performance Monitoring Facility"). Before: Nehalem refused NOT_PRECISE
 * (the loads row 0BH/01H is not PEBS) and Haswell took PMC0. */
static void test_ldlat_pmc3(void)
{
    static const struct { const char *name; uint32_t sig, caps; uint16_t ev; } P[] = {
        { "Nehalem 06_1AH", 0x000106A5, 0x1C3, 0x100B },
        { "Haswell 06_3CH", 0x000306C3, 0x2C4, 0x01CD },
    };
    for (unsigned k = 0; k < N(P); k++) {
        fam6(P[k].sig, 0x07300403, 0, 0x00000603, P[k].caps);
        CHECK_EQ(init_default(), DS_OK, "%s init", P[k].name);
        struct ds_request r = gen(DS_EVENT_LOADS, 1000, DS_SAMPLE_PRECISE);
        r.ldlat = 40;
        CHECK_EQ(add(r, NULL), DS_OK, "%s loads, latency > 40, PRECISE", P[k].name);
        CHECK(S.req[0].how == DS_HOW_PEBS && S.req[0].kind == DS_CTR_GP && S.req[0].idx == 3, "%s: PEBS on PMC3 (%u)",
              P[k].name, S.req[0].idx);
        CHECK_EQ(ds_session_start(&S), DS_OK, "%s start", P[k].name);
        CHECK_EQ(fp_get(&F, 0x189) & 0xFFFF, P[k].ev, "%s EVTSEL3 event/umask", P[k].name);
        CHECK_EQ(fp_get(&F, 0x3F6), 40, "%s MSR_PEBS_LD_LAT", P[k].name);
        CHECK_EQ(fp_get(&F, 0x3F1), (1ull << 3) | (1ull << 35), "%s PEBS_ENABLE PMC3 | LL_EN 35", P[k].name);
        CHECK_EQ(ds_session_teardown(&S), DS_OK, "%s teardown", P[k].name);
        CHECK_EQ(fp_get(&F, 0x3F1), 0, "%s PEBS_ENABLE restored", P[k].name);
    }
    /* Nehalem loads/stores without a threshold stay refused: Linux
     * intel_nehalem_pebs_event_constraints matches only 0x100b for event
     * 0BH (INTEL_PLD_CONSTRAINT compares event and umask) */
    fam6(0x000106A5, 0x07300403, 0, 0x00000603, 0x1C3);
    CHECK_EQ(init_default(), DS_OK, "init");
    CHECK_EQ(add(gen(DS_EVENT_LOADS, 1000, DS_SAMPLE_PRECISE), NULL), DS_ERR_SESSION_NOT_PRECISE, "Nehalem loads PRECISE");
}

/* Raw INST_RETIRED.PREC_DIST without PEBS (issue 16 item 1, raw side):
 * perfmon skylake_core.json INST_RETIRED.PREC_DIST C0H/01H "Counter": "1"
 * and Linux core.c intel_skl_event_constraints INTEL_UEVENT_CONSTRAINT(0x1c0,
 * 0x2): on PMC1 (EVTSEL1 = 0x005301C0: C0H/01H USR OS INT EN), not on the
 * highest counter where it counts nothing; a second one finds PMC1 taken.
 * Nehalem's C0H/01H is INST_RETIRED.ANY_P (NehalemEP_core.json Counter
 * 0-3): the highest counter, PMC3. Before: Skylake took PMC3. */
static void test_raw_prec_dist_overflow(void)
{
    skylake();
    fp_set(&F, DS_MSR_IA32_MISC_ENABLE, (1u << 7) | (1u << 12));   /* PEBS_UNAVAILABLE */
    identify(true);
    CHECK_EQ(init_default(), DS_OK, "init");
    CHECK_EQ(add(raw(0xC0, 0x01, 1000, DS_SAMPLE_AUTO), NULL), DS_OK, "raw C0H/01H AUTO, no PEBS");
    CHECK(S.req[0].how == DS_HOW_OVERFLOW && S.req[0].kind == DS_CTR_GP && S.req[0].idx == 1, "on PMC1 (%u)",
          S.req[0].idx);
    CHECK_EQ(ds_session_start(&S), DS_OK, "start");
    CHECK_EQ(fp_get(&F, 0x187), 0x005301C0, "EVTSEL1 = C0H/01H USR OS INT EN");
    CHECK_EQ(fp_get(&F, 0x189), 0, "EVTSEL3 untouched");
    CHECK_EQ(ds_session_teardown(&S), DS_OK, "teardown");
    CHECK_EQ(init_default(), DS_OK, "init");
    CHECK_EQ(add(raw(0xC0, 0x01, 1000, DS_SAMPLE_OVERFLOW), NULL), DS_OK, "raw PREC_DIST OVERFLOW");
    CHECK_EQ(S.req[0].idx, 1, "PMC1");
    CHECK_EQ(add(raw(0xC0, 0x01, 1000, DS_SAMPLE_OVERFLOW), NULL), DS_ERR_SESSION_NO_COUNTER, "PMC1 taken");
    CHECK_EQ(add(raw(0xC0, 0x00, 1000, DS_SAMPLE_OVERFLOW), NULL), DS_OK, "ANY_P still finds a counter");
    CHECK_EQ(S.req[1].idx, 3, "ANY_P on the highest, PMC3");
    nehalem();
    CHECK_EQ(init_default(), DS_OK, "init");
    CHECK_EQ(add(raw(0xC0, 0x01, 1000, DS_SAMPLE_OVERFLOW), NULL), DS_OK, "Nehalem raw C0H/01H OVERFLOW");
    CHECK_EQ(S.req[0].idx, 3, "Nehalem C0H/01H is ANY_P: PMC3");
}

/* Overflow sampling takes the highest free GP counter (session.h contract)
 * up to the last one: on an 8-counter perfmon v5 part that is PMC7, whose
 * MSRs are the last legacy pair (SDM: IA32_PMC7 0C8H, IA32_PERFEVTSEL7
 * 18DH; 0C1H+n / 186H+n hold n < 8 only). Then PMC6 .. PMC0. */
static void test_overflow_top_counter(void)
{
    sapphire();
    CHECK_EQ(init_default(), DS_OK, "init");
    for (unsigned k = 0; k < 8; k++) {
        CHECK_EQ(add(raw(0xC4, 0x00, 500, DS_SAMPLE_OVERFLOW), NULL), DS_OK, "overflow %u", k);
        CHECK_EQ(S.req[k].kind, DS_CTR_GP, "overflow %u on a GP counter", k);
        CHECK_EQ(S.req[k].idx, 7 - k, "overflow %u on PMC%u", k, 7 - k);
    }
    CHECK_EQ(add(raw(0xC4, 0x00, 500, DS_SAMPLE_OVERFLOW), NULL), DS_ERR_SESSION_TOO_MANY, "9th: DS_SESSION_MAX_REQ (8) requests");
    CHECK_EQ(ds_session_start(&S), DS_OK, "start");
    /* EVTSEL: event C4H, USR 16, OS 17, INT 20, EN 22 */
    CHECK_EQ(fp_get(&F, 0x18D), 0x005300C4, "IA32_PERFEVTSEL7 (18DH)");
    CHECK_EQ(fp_get(&F, 0x38F) & 0xFF, 0xFF, "GLOBAL_CTRL PMC0-7");
    CHECK_EQ(ds_session_teardown(&S), DS_OK, "teardown");
}

/* NetBurst teardown keeps the requests (READY: startable again), so their
 * ESCR/counter stay claimed: a second PEBS request still finds the one
 * PEBS counter taken (as before the first start), and a restart programs
 * the same CRU_ESCR2 / IQ_CCCR4 again (SDM values as in test_netburst). */
static void test_netburst_teardown_keeps_claims(void)
{
    netburst();
    memset(&S, 0, sizeof S);
    struct ds_session_config c = cfg_mem();
    c.mem_linear = 0x200000;
    CHECK_EQ(ds_session_init(&S, &cpu, &c), DS_OK, "init");
    struct ds_request r = raw(0, 0, 4000, DS_SAMPLE_PRECISE);
    r.raw.nb_event = "replay_event";
    r.raw.nb_mask = "NBOGUS";
    r.raw.nb_metric = DS_NB_METRIC_1STL_CACHE_LOAD_MISS;
    CHECK_EQ(add(r, NULL), DS_OK, "replay_event PEBS");
    CHECK_EQ(ds_session_start(&S), DS_OK, "start");
    CHECK_EQ(ds_session_teardown(&S), DS_OK, "teardown");
    CHECK_EQ(fp_get(&F, 0x3CC), 0, "CRU_ESCR2 restored");
    CHECK_EQ(add(r, NULL), DS_ERR_SESSION_NO_COUNTER, "after teardown: the PEBS counter is still request 0's");
    CHECK_EQ(ds_session_start(&S), DS_OK, "restart");
    CHECK_EQ(fp_get(&F, 0x3CC), 0x1200020Cu, "CRU_ESCR2 = replay_event NBOGUS again");
    CHECK_EQ(fp_get(&F, 0x370) & 0xF000u, 0xB000u, "MSR_IQ_CCCR4 again");
    CHECK_EQ(ds_session_teardown(&S), DS_OK, "teardown 2");
}

/* Privilege filter of a request (SDM IA32_PERFEVTSELx: USR bit 16, OS bit
 * 17; INT 20, EN 22): user only, kernel only and both give exactly those
 * bits, nothing else in the event select (overflow sampling on Skylake's
 * highest counter, PMC3 = EVTSEL 189H). */
static void test_rings_exact(void)
{
    static const struct { unsigned rings; uint64_t evtsel; } rows[] = {
        { DS_RING_USER, 0x005100C4 }, { DS_RING_KERNEL, 0x005200C4 },
        { DS_RING_USER | DS_RING_KERNEL, 0x005300C4 }, { 0, 0x005300C4 },
    };
    for (size_t i = 0; i < N(rows); i++) {
        skylake();
        CHECK_EQ(init_default(), DS_OK, "init");
        struct ds_request r = raw(0xC4, 0x00, 500, DS_SAMPLE_OVERFLOW);
        r.rings = rows[i].rings;
        CHECK_EQ(add(r, NULL), DS_OK, "rings %u", rows[i].rings);
        CHECK_EQ(S.req[0].idx, 3, "PMC3");
        CHECK_EQ(ds_session_start(&S), DS_OK, "start");
        CHECK_EQ(fp_get(&F, 0x189), rows[i].evtsel, "rings %u: EVTSEL3", rows[i].rings);
        CHECK_EQ(ds_session_teardown(&S), DS_OK, "teardown");
    }
}

/* LBR asked for on a CPU without an LBR row (06_09H, a Pentium M model
 * outside the SDM LBR tables): DS_ERR_SESSION_LBR at init, no MSR touched. */
static void test_lbr_no_row(void)
{
    fam6(0x00000695, 0x07280202, 0, 0x00000503, 0);
    memset(&S, 0, sizeof S);
    struct ds_session_config c = cfg_mem();
    c.lbr = true;
    c.on_lbr = on_lbr;
    fp_clear_log(&F);
    CHECK_EQ(ds_session_init(&S, &cpu, &c), DS_ERR_SESSION_LBR, "no LBR row");
    CHECK_EQ(F.writes, 0, "nothing written");
}

/* Architectural PEBS buffer size at the boundary (SDM IA32_PEBS_BASE size
 * code: 4 KiB << code, so 4 KiB is the smallest buffer): a region of exactly
 * 4096 bytes starts with size code 0, 4095 bytes is DS_ERR_SESSION_BUF_SMALL
 * at start with PEBS_BASE untouched. */
static void test_apebs_region_4k(void)
{
    static const struct { size_t bytes; int want; } rows[] = { { 4096, DS_OK }, { 4095, DS_ERR_SESSION_BUF_SMALL } };
    for (size_t i = 0; i < N(rows); i++) {
        panther();
        memset(&S, 0, sizeof S);
        struct ds_session_config c = cfg_mem();
        c.bytes = rows[i].bytes;
        c.mem_phys = 0x100000;
        CHECK_EQ(ds_session_init(&S, &cpu, &c), DS_OK, "init %zu", rows[i].bytes);
        CHECK_EQ(add(raw(0xC0, 0x00, 20000, DS_SAMPLE_PRECISE), NULL), DS_OK, "arch PEBS request");
        CHECK_EQ(ds_session_start(&S), rows[i].want, "start with %zu bytes", rows[i].bytes);
        CHECK_EQ(fp_get(&F, 0x3F4), rows[i].want == DS_OK ? 0x100000ull : 0, "PEBS_BASE, %zu bytes", rows[i].bytes);
        if (rows[i].want == DS_OK)
            CHECK_EQ(ds_session_teardown(&S), DS_OK, "teardown");
    }
}

/* Fixed counters as wide as 64 bits (CPUID.0AH:EDX[12:5] = 64 is a valid
 * width; the SDM bounds it by 64, not 63): a precise INSTRUCTIONS request
 * on Ice Lake's fixed counter 0 starts at -period in all 64 bits; a period
 * of 2^63 + 1 is still refused. */
static void test_fixed_width_64(void)
{
    fam6(0x000706E5, 0x08300805, 0xF, 0x00000804, 0x64BF); /* ICL, 4 fixed x 64 bits */
    CHECK_EQ(cpu.caps.fixed_width, 64, "fixed width 64");
    CHECK_EQ(init_default(), DS_OK, "init");
    CHECK_EQ(add(gen(DS_EVENT_INSTRUCTIONS, 1000, DS_SAMPLE_PRECISE), NULL), DS_OK, "instructions:p");
    CHECK(S.req[0].kind == DS_CTR_FIXED && S.req[0].idx == 0, "on fixed 0");
    CHECK_EQ(S.req[0].start, 0 - 1000ull, "start = -1000 in 64 bits");
    CHECK_EQ(init_default(), DS_OK, "init");
    CHECK_EQ(add(gen(DS_EVENT_INSTRUCTIONS, (1ull << 63) + 1, DS_SAMPLE_PRECISE), NULL), DS_ERR_SESSION_BAD_PERIOD,
             "period 2^63 + 1");
}

static void test_v6_sparse_gp(void);
static void test_v5_ten_gp_overflow(void);
static void test_bts_rings_dscpl(void);
static void test_pebs_counter_errors_only(void);
static void test_netburst_counters_distinct(void);
static void test_add_refusals_exact(void);
static void test_callbacks_per_kind(void);
static void test_restore_after_outside_change(void);
static void test_apebs_counter_choice(void);
static void test_apebs_pdist(void);
static void test_tab25_apebs_event_counters(void);
static void test_describe_no_cpu(void);
static void test_fixed_width_8(void);
static void test_lbr_legacy_unfreeze(void);
static void test_metrics_slots_from_0(void);
static void test_apebs_cntr_fixed_select(void);
static void test_stale_pebs_enable_and_v1(void);
static void test_netburst_ovf_only_its_request(void);

static void test_mut3d_session(void);
static void test_mut3d_session_stop_v1(void);
static void test_mut3d_session_pebs_room(void);
static void test_mut3d_session_apebs_period(void);
static void test_apebs_fixed_taken(void);
static void test_apebs_groups_per_cap(void);
static void test_v1_overflow_width_8(void);
static void test_v1_overflow_legacy_bit31(void);
static void test_gp_bitmap_ends(void);
static void test_ldlat_wraps_to_pmc2(void);
static void test_nb_metric_bound_and_overflow_refusals(void);
static void test_nb_tag_pairing_counter(void);
static void test_nb_teardown_keeps_every_claim(void);
static void test_v1_stop_overflow(void);
static void test_apebs_code_max_and_slm_ldlat(void);
static void test_pebs_part_4g(void);
static void test_freeze_none_clears_stale_bit12(void);
static void test_auto_freeze_needs_pdcm(void);
static void test_bts_room(void);
static void test_blind9907_bts_unavailable_and_fixed_width_65(void);
static void test_start_write_fault_sweep(void);
static void test_misuse_table(void);
static void test_cause_first_bts(void);
static void test_start_probe(void);
static void test_lvt_pc_value(void);
static void test_set_period(void);
static void test_set_period_netburst(void);
static void test_describe_fixed_field(void);
static void test_teardown_retry(void);
static void test_kth_write_fault_sweep(void);
static void test_snb_ucode_before_programming(void);
static void test_arch_lbr_ctl_default(void);
static void test_one_pebs_owns_every_record(void);
static void test_apebs_fixed_per_bit(void);
static void test_count_fixed_per_bit(void);
static void test_ds_pebs_fixed_taken(void);
static void test_v4_lbr_unfreeze_only_frozen(void);
static void test_count_fixed_taken(void);
static void test_count_prec_dist_any_p(void);
int main(void)
{
    test_pebs_check();
    test_skylake_program();
    test_core2_counters();
    test_errata();
    test_exhaustion();
    test_adaptive();
    test_netburst();
    test_arch_pebs();
    test_cntr_fmt6();
    test_cntr_arch();
    test_generic();
    test_ldlat_pmc3();
    test_raw_prec_dist_overflow();
    test_pmi();
    test_dispatch_multi();
    test_route_attribution();
    test_dispatch_fixed();
    test_sample_eip();
    test_stats();
    test_lbr();
    test_bts();
    test_freeze_fault();
    test_restore();
    test_on_pebs();
    test_bad_table();
    test_nulls();
    test_overflow_top_counter();
    test_netburst_teardown_keeps_claims();
    test_rings_exact();
    test_lbr_no_row();
    test_apebs_region_4k();
    test_fixed_width_64();
    test_v6_sparse_gp();
    test_v5_ten_gp_overflow();
    test_bts_rings_dscpl();
    test_pebs_counter_errors_only();
    test_netburst_counters_distinct();
    test_add_refusals_exact();
    test_callbacks_per_kind();
    test_restore_after_outside_change();
    test_apebs_counter_choice();
    test_apebs_pdist();
    test_describe_no_cpu();
    test_fixed_width_8();
    test_lbr_legacy_unfreeze();
    test_metrics_slots_from_0();
    test_apebs_cntr_fixed_select();
    test_stale_pebs_enable_and_v1();
    test_netburst_ovf_only_its_request();
    test_mut3d_session();
    test_mut3d_session_stop_v1();
    test_mut3d_session_pebs_room();
    test_mut3d_session_apebs_period();
    test_apebs_fixed_taken();
    test_apebs_groups_per_cap();
    test_v1_overflow_width_8();
    test_v1_overflow_legacy_bit31();
    test_gp_bitmap_ends();
    test_ldlat_wraps_to_pmc2();
    test_nb_metric_bound_and_overflow_refusals();
    test_nb_tag_pairing_counter();
    test_nb_teardown_keeps_every_claim();
    test_v1_stop_overflow();
    test_apebs_code_max_and_slm_ldlat();
    test_pebs_part_4g();
    test_freeze_none_clears_stale_bit12();
    test_auto_freeze_needs_pdcm();
    test_bts_room();
    test_start_write_fault_sweep();
    test_arch_lbr_ctl_default();
    test_one_pebs_owns_every_record();
    test_apebs_fixed_per_bit();
    test_count_fixed_per_bit();
    test_ds_pebs_fixed_taken();
    test_v4_lbr_unfreeze_only_frozen();
    test_count_fixed_taken();
    test_count_prec_dist_any_p();
    test_blind9907_bts_unavailable_and_fixed_width_65();
    test_misuse_table();
    test_cause_first_bts();
    test_start_probe();
    test_lvt_pc_value();
    test_set_period();
    test_set_period_netburst();
    test_describe_fixed_field();
    test_teardown_retry();
    test_kth_write_fault_sweep();
    test_snb_ucode_before_programming();
    test_tab25_apebs_event_counters();
    return check_summary();
}

/* Change one CPUID register of the fake (leaf, subleaf, register 0-3) and
 * identify again. */
static void cpuid_patch(uint32_t leaf, uint32_t sub, unsigned reg, uint32_t val)
{
    for (int i = 0; i < F.nleaves; i++)
        if (F.leaves[i].leaf == leaf && F.leaves[i].sub == sub)
            F.leaves[i].r[reg] = val;
    identify(true);
}

/*
 * Issue 10 test strength (version gates at their boundary): perfmon v6
 * names its GP counters by the CPUID.(23H,1):EAX bitmap (SDM CPUID leaf
 * 23H; Linux update_pmu_cap cntr_mask64) and addresses every one of them
 * at IA32_PMC_GPn_CFG_A 1901H + 4n, so counters 8 and 9 are usable there.
 * A Lunar Lake whose bitmap holds only GP8 and GP9 (a hypervisor keeping
 * GP0-7): a counting request gets GP8 (the lowest free), an overflow
 * request GP9 (the highest), at 1921H / 1925H.
 */
static void test_v6_sparse_gp(void)
{
    lunar(0);
    cpuid_patch(0x23, 1, 0, 0x300);
    CHECK_EQ(cpu.caps.gp_mask, 0x300, "GP8, GP9 only");
    CHECK_EQ(init_default(), DS_OK, "init");
    CHECK_EQ(add(raw(0xC4, 0x00, 1000, DS_COUNT), NULL), DS_OK, "count on v6 GP8");
    CHECK(S.req[0].kind == DS_CTR_GP && S.req[0].idx == 8, "count: GP8 (got %d/%u)", S.req[0].kind, S.req[0].idx);
    CHECK_EQ(add(raw(0xC4, 0x00, 1000, DS_SAMPLE_OVERFLOW), NULL), DS_OK, "overflow on v6 GP9");
    CHECK(S.req[1].kind == DS_CTR_GP && S.req[1].idx == 9, "overflow: GP9 (got %d/%u)", S.req[1].kind, S.req[1].idx);
    CHECK_EQ(add(raw(0xC4, 0x00, 1000, DS_SAMPLE_OVERFLOW), NULL), DS_ERR_SESSION_NO_COUNTER, "both taken");
    CHECK_EQ(ds_session_start(&S), DS_OK, "start");
    /* EVTSEL C4H: USR 16, OS 17, EN 22; overflow adds INT 20 */
    CHECK_EQ(fp_get(&F, 0x1921), 0x004300C4, "GP8 CFG_A (1921H): counting");
    CHECK_EQ(fp_get(&F, 0x1925), 0x005300C4, "GP9 CFG_A (1925H): overflow");
    CHECK_EQ(fp_get(&F, 0x38F) & 0x3FF, 0x300, "GLOBAL_CTRL GP8, GP9");
    CHECK_EQ(ds_session_teardown(&S), DS_OK, "teardown");
}

/*
 * Before perfmon v6 the GP counters' EVTSELs are IA32_PERFEVTSEL0-7
 * (186H-18DH; 18EH is not an EVTSEL): a v5 part reporting 10 GP counters
 * in CPUID.0AH:EAX[15:8] still samples on PMC7 at most.
 */
static void test_v5_ten_gp_overflow(void)
{
    fam6(0x000806F8, 0x08300A05, 0xFF, 0x00000604, 0x65BF); /* Sapphire Rapids words, 10 GP */
    CHECK_EQ(cpu.caps.gp_counters, 10, "10 GP counters reported");
    CHECK_EQ(init_default(), DS_OK, "init");
    CHECK_EQ(add(raw(0xC4, 0x00, 500, DS_SAMPLE_OVERFLOW), NULL), DS_OK, "overflow");
    CHECK(S.req[0].kind == DS_CTR_GP && S.req[0].idx == 7, "v5: PMC7, not PMC8/9 (got %u)", S.req[0].idx);
    CHECK_EQ(ds_session_start(&S), DS_OK, "start");
    CHECK_EQ(fp_get(&F, 0x18D), 0x005300C4, "IA32_PERFEVTSEL7");
    CHECK_EQ(fp_get(&F, 0x18E), 0, "18EH untouched");
    CHECK_EQ(fp_get(&F, 0x18F), 0, "18FH untouched");
    CHECK_EQ(ds_session_teardown(&S), DS_OK, "teardown");
}

/*
 * BTS limited to one ring needs CPUID.01H:ECX.DS-CPL[4] (SDM IA32_DEBUGCTL
 * BTS_OFF_OS 9 / BTS_OFF_USR 10 "if CPUID.01H:ECX[4] = 1"): refused at
 * ds_session_add with DS_ERR_NO_DSCPL for kernel-only and user-only; both
 * rings (or 0) need nothing. With DS-CPL: kernel-only sets BTS_OFF_USR,
 * user-only BTS_OFF_OS.
 */
static void test_bts_rings_dscpl(void)
{
    static const struct { unsigned rings; int err; uint64_t off; } rows[] = {
        { DS_RING_KERNEL, DS_ERR_NO_DSCPL, 1u << 10 },
        { DS_RING_USER, DS_ERR_NO_DSCPL, 1u << 9 },
        { DS_RING_KERNEL | DS_RING_USER, DS_OK, 0 },
        { 0, DS_OK, 0 },
    };
    struct ds_request r;
    for (unsigned i = 0; i < N(rows); i++) {
        skylake();
        cpuid_patch(1, 0, 2, (1u << 2) | (1u << 15)); /* no DS-CPL */
        CHECK(!cpu.caps.ds_cpl, "DS-CPL clear");
        CHECK_EQ(init_default(), DS_OK, "init");
        memset(&r, 0, sizeof r);
        r.mode = DS_TRACE_BTS_CIRCULAR;
        r.rings = rows[i].rings;
        CHECK_EQ(add(r, NULL), rows[i].err, "no DS-CPL, rings %u", rows[i].rings);
        skylake();
        CHECK_EQ(init_default(), DS_OK, "init");
        CHECK_EQ(add(r, NULL), DS_OK, "DS-CPL, rings %u", rows[i].rings);
        CHECK_EQ(ds_session_start(&S), DS_OK, "start");
        CHECK_EQ(fp_get(&F, 0x1D9) & 0x7C0, 0xC0 | rows[i].off, "rings %u: DEBUGCTL TR|BTS + OFF bits", rows[i].rings);
        CHECK_EQ(ds_session_teardown(&S), DS_OK, "teardown");
    }
}

/*
 * A PEBS request where no counter can take PEBS although the event is
 * precise: session.h/err.h say DS_ERR_SESSION_NO_COUNTER ("no PEBS-capable
 * counter left"), not DS_ERR_SESSION_NOT_PRECISE ("event not precise on
 * this microarchitecture"). A perfmon v6 part with PEBS format 6 but no
 * PEBS_BASELINE takes PEBS on PMC0-3 only (the pre-adaptive rule, Linux
 * INTEL_ALL_EVENT_CONSTRAINT(0, 0xf)); its CPUID.(23H,1) bitmap holds only
 * GP8/GP9.
 */
static void test_pebs_counter_errors_only(void)
{
    lunar(1u << 14);
    cpuid_patch(0x23, 1, 0, 0x300);
    CHECK_EQ(cpu.caps.gp_mask, 0x300, "GP8, GP9 only");
    CHECK_EQ(init_default(), DS_OK, "init");
    CHECK_EQ(add(raw(0xC4, 0x00, 1000, DS_SAMPLE_PRECISE), NULL), DS_ERR_SESSION_NO_COUNTER,
             "precise event, no PEBS-capable counter: NO_COUNTER");
    lunar(1u << 14);
    CHECK_EQ(init_default(), DS_OK, "init");
    CHECK_EQ(add(raw(0xC4, 0x00, 1000, DS_SAMPLE_PRECISE), NULL), DS_OK, "with GP0-9: PEBS");
    CHECK(S.req[0].idx < 4, "on PMC0-3 (got %u)", S.req[0].idx);
}

/*
 * NetBurst: an added request's counter stays allocated for the next one
 * (SDM Vol. 3B NetBurst ESCR/counter tables, netburst.md: MSR_FSB_ESCR0,
 * MSR_PMH_ESCR0 and MSR_BSU_ESCR0 all drive
 * MSR_BPU_COUNTER0/1; their ESCR1s drive MSR_BPU_COUNTER2/3). Three overflow
 * requests on three of those ESCR pairs get three distinct counters of 0-3,
 * each with its CCCR enabled at start.
 */
static void test_netburst_counters_distinct(void)
{
    static const struct { const char *ev, *mask; } rq[] = {
        { "global_power_events", "RUNNING" }, { "page_walk_type", "DTMISS" },
        { "bsq_cache_reference", "RD_2ndL_MISS" },
    };
    netburst();
    memset(&S, 0, sizeof S);
    struct ds_session_config c = cfg_mem();
    c.mem_linear = 0x200000;
    CHECK_EQ(ds_session_init(&S, &cpu, &c), DS_OK, "init");
    unsigned seen = 0;
    for (unsigned i = 0; i < N(rq); i++) {
        struct ds_request r = raw(0, 0, 5000, DS_SAMPLE_OVERFLOW);
        r.raw.nb_event = rq[i].ev;
        r.raw.nb_mask = rq[i].mask;
        CHECK_EQ(add(r, NULL), DS_OK, "NetBurst overflow %s", rq[i].ev);
        CHECK(S.req[i].idx < 4, "%s on BPU_COUNTER0-3 (got %u)", rq[i].ev, S.req[i].idx);
        CHECK(!((seen >> S.req[i].idx) & 1), "%s: counter %u not already taken", rq[i].ev, S.req[i].idx);
        seen |= 1u << S.req[i].idx;
    }
    CHECK_EQ(__builtin_popcount(seen), 3, "three distinct counters");
    CHECK_EQ(ds_session_start(&S), DS_OK, "start");
    for (unsigned i = 0; i < N(rq); i++) /* each counter's CCCR enabled (bit 12) */
        CHECK(fp_get(&F, 0x360 + S.req[i].idx) & (1u << 12), "CCCR%u enabled", S.req[i].idx);
    CHECK_EQ(ds_session_teardown(&S), DS_OK, "teardown");
}

/*
 * ds_session_add refuses at add time, with the documented code, what
 * would otherwise fail later or silently (session.h, err.h):
 * - load-latency threshold outside 3..65535 (pmc.h DS_PEBS_LDLAT_MIN/MAX,
 *   SDM MSR_PEBS_LD_LAT [15:0]): DS_ERR_PMC_LDLAT_RANGE, at 2 and 65536,
 *   accepted at 3 and 65535;
 * - a second, different threshold (MSR_PEBS_LD_LAT is one per logical
 *   CPU): DS_ERR_SESSION_NO_LDLAT; the same threshold again is fine;
 * - record groups a format records (formats 1-3 record the memory fields
 *   and the GPRs, SDM PEBS record layouts; format 0 and NetBurst only the
 *   GPRs): DS_GROUP_MEM accepted on Nehalem/Skylake, refused on Core 2;
 * - period 0 of a sampling request, also on NetBurst: BAD_PERIOD;
 * - a counting request on a family-6 part without architectural perfmon
 *   (CPUID.0AH:EAX[7:0] = 0): DS_ERR_NO_PERFMON.
 */
static void test_add_refusals_exact(void)
{
    static const struct { uint32_t ldlat; int err; } ll[] = {
        { 2, DS_ERR_PMC_LDLAT_RANGE }, { 3, DS_OK }, { 0xFFFF, DS_OK }, { 0x10000, DS_ERR_PMC_LDLAT_RANGE },
    };
    for (unsigned i = 0; i < N(ll); i++) {
        skylake();
        CHECK_EQ(init_default(), DS_OK, "init");
        struct ds_request r = gen(DS_EVENT_LOADS, 1000, DS_SAMPLE_PRECISE);
        r.ldlat = ll[i].ldlat;
        CHECK_EQ(add(r, NULL), ll[i].err, "Skylake ldlat %u", ll[i].ldlat);
    }
    icelake();
    CHECK_EQ(init_default(), DS_OK, "init");
    struct ds_request l = gen(DS_EVENT_LOADS, 1000, DS_SAMPLE_PRECISE);
    l.ldlat = 40;
    CHECK_EQ(add(l, NULL), DS_OK, "Ice Lake ldlat 40");
    l.ldlat = 50;
    CHECK_EQ(add(l, NULL), DS_ERR_SESSION_NO_LDLAT, "second threshold 50: one MSR_PEBS_LD_LAT");
    l.ldlat = 40;
    CHECK_EQ(add(l, NULL), DS_OK, "the same threshold 40 again");

    void (*fmts[])(void) = { nehalem, skylake, core2 };
    const int gerr[] = { DS_OK, DS_OK, DS_ERR_SESSION_GROUPS };
    for (unsigned i = 0; i < N(fmts); i++) {
        fmts[i]();
        CHECK_EQ(init_default(), DS_OK, "init");
        struct ds_request r = raw(0xC0, 0x00, 1000, DS_SAMPLE_PRECISE);
        r.groups = DS_GROUP_MEM;
        CHECK_EQ(add(r, NULL), gerr[i], "format %u: DS_GROUP_MEM", cpu.caps.pebs_format);
        r.groups = DS_GROUP_GPRS;
        CHECK_EQ(add(r, NULL), DS_OK, "format %u: DS_GROUP_GPRS", cpu.caps.pebs_format);
    }

    netburst();
    memset(&S, 0, sizeof S);
    struct ds_session_config c = cfg_mem();
    c.mem_linear = 0x200000;
    CHECK_EQ(ds_session_init(&S, &cpu, &c), DS_OK, "NetBurst init");
    struct ds_request nb = raw(0, 0, 0, DS_SAMPLE_OVERFLOW);
    nb.raw.nb_event = "global_power_events";
    nb.raw.nb_mask = "RUNNING";
    CHECK_EQ(add(nb, NULL), DS_ERR_SESSION_BAD_PERIOD, "NetBurst overflow, period 0");
    nb.period = 1;
    CHECK_EQ(add(nb, NULL), DS_OK, "NetBurst overflow, period 1");

    fam6(0x000006F6, 0, 0, 0, 0); /* Core 2 words with CPUID.0AH all 0: no arch perfmon */
    CHECK_EQ(cpu.caps.perfmon_version, 0, "perfmon v0");
    CHECK_EQ(init_default(), DS_OK, "init");
    CHECK_EQ(add(raw(0xC4, 0x00, 1000, DS_COUNT), NULL), DS_ERR_NO_PERFMON, "count without perfmon");
    CHECK_EQ(add(raw(0xC4, 0x00, 1000, DS_SAMPLE_OVERFLOW), NULL), DS_ERR_NO_PERFMON, "overflow without perfmon");
}

static int cb_pebs(void *arg, const struct ds_pebs_sample *p)
{
    (void)arg;
    (void)p;
    return 0;
}

/* Which requests need which callback (session.h: overflow samples need
 * on_sample, PEBS records on_sample or on_pebs; BTS and counting requests
 * deliver nothing through those). */
static void test_callbacks_per_kind(void)
{
    skylake();
    memset(&S, 0, sizeof S);
    struct ds_session_config c;
    memset(&c, 0, sizeof c);
    c.mem = mem;
    c.bytes = sizeof mem;
    c.on_branch = on_branch;
    CHECK_EQ(ds_session_init(&S, &cpu, &c), DS_OK, "init, on_branch only");
    struct ds_request b;
    memset(&b, 0, sizeof b);
    b.mode = DS_TRACE_BTS_CIRCULAR;
    CHECK_EQ(add(b, NULL), DS_OK, "on_branch only: BTS");
    CHECK_EQ(add(raw(0xC4, 0x00, 1000, DS_COUNT), NULL), DS_OK, "on_branch only: counting");
    CHECK_EQ(add(raw(0xC4, 0x00, 1000, DS_SAMPLE_OVERFLOW), NULL), DS_ERR_SESSION_NO_CALLBACK, "on_branch only: overflow");
    CHECK_EQ(add(raw(0xC0, 0x00, 1000, DS_SAMPLE_PRECISE), NULL), DS_ERR_SESSION_NO_CALLBACK, "on_branch only: PEBS");
    memset(&S, 0, sizeof S);
    c.on_branch = NULL;
    c.on_pebs = cb_pebs;
    CHECK_EQ(ds_session_init(&S, &cpu, &c), DS_OK, "init, on_pebs only");
    CHECK_EQ(add(raw(0xC0, 0x00, 1000, DS_SAMPLE_PRECISE), NULL), DS_OK, "on_pebs only: PEBS");
    CHECK_EQ(add(raw(0xC4, 0x00, 1000, DS_SAMPLE_OVERFLOW), NULL), DS_ERR_SESSION_NO_CALLBACK, "on_pebs only: overflow");
}

/*
 * A second start/teardown cycle saves the MSRs afresh (session.h: teardown
 * puts back what start found): after the first teardown the MSRs change
 * (another user of the PMU), and the second teardown must restore those
 * new values, not the first cycle's.
 */
static void test_restore_after_outside_change(void)
{
    skylake();
    CHECK_EQ(init_default(), DS_OK, "init");
    CHECK_EQ(add(raw(0xC0, 0x00, 1000, DS_SAMPLE_PRECISE), NULL), DS_OK, "PEBS");
    CHECK_EQ(add(raw(0xC4, 0x00, 1000, DS_SAMPLE_OVERFLOW), NULL), DS_OK, "overflow");
    CHECK_EQ(ds_session_start(&S), DS_OK, "start 1");
    CHECK_EQ(ds_session_teardown(&S), DS_OK, "teardown 1");
    dirty_all(0x5151);
    take_snap();
    CHECK_EQ(ds_session_start(&S), DS_OK, "start 2");
    CHECK_EQ(ds_session_teardown(&S), DS_OK, "teardown 2");
    check_snap("second cycle after an outside change");
}

/*
 * Architectural PEBS counter choice from CPUID.(23H,5) (SDM CPUID leaf 23H
 * sub-leaf 5: EAX PEBS-capable GP bitmap, ECX fixed bitmap): a fixed-
 * counter event takes fixed counter 0 when that bitmap has it; a GP event
 * takes the lowest GP counter in the bitmap (GP1 when only GP1 is
 * capable); no capable GP counter at all: the event is not precise here.
 */
static void test_apebs_counter_choice(void)
{
    panther();
    memset(&S, 0, sizeof S);
    struct ds_session_config c = cfg_mem();
    c.mem_phys = 0x100000;
    CHECK_EQ(ds_session_init(&S, &cpu, &c), DS_OK, "init");
    CHECK_EQ(add(gen(DS_EVENT_INSTRUCTIONS, 1000, DS_SAMPLE_PRECISE), NULL), DS_OK, "instructions precise");
    CHECK(S.req[0].how == DS_HOW_APEBS && S.req[0].kind == DS_CTR_FIXED && S.req[0].idx == 0,
          "arch PEBS on fixed 0 (%d/%u)", S.req[0].kind, S.req[0].idx);

    panther();
    cpuid_patch(0x23, 5, 0, 0x2); /* only GP1 PEBS-capable */
    memset(&S, 0, sizeof S);
    CHECK_EQ(ds_session_init(&S, &cpu, &c), DS_OK, "init");
    CHECK_EQ(add(raw(0xC4, 0x00, 1000, DS_SAMPLE_PRECISE), NULL), DS_OK, "GP event precise");
    CHECK(S.req[0].kind == DS_CTR_GP && S.req[0].idx == 1, "GP1 (got %u)", S.req[0].idx);

    panther();
    cpuid_patch(0x23, 5, 0, 0);
    memset(&S, 0, sizeof S);
    CHECK_EQ(ds_session_init(&S, &cpu, &c), DS_OK, "init");
    CHECK_EQ(add(raw(0xC4, 0x00, 1000, DS_SAMPLE_PRECISE), NULL), DS_ERR_SESSION_NOT_PRECISE,
             "no PEBS-capable GP counter: not precise");
}

/* Issue 25 item 6c: the most precise request (ds_request.pdist; Linux
 * precise_ip 3, intel_pmu_hw_config: "pebs_mask = precise_ip >= 3 ?
 * pebs_cap.pdists : pebs_cap.counters" as the event's dyn_constraint) takes
 * only the CPUID.(23H,5) PDIST counters: EBX GP 3 (GP0, GP1) and EDX fixed
 * 1 (fixed 0) in the Panther Lake P-core words. Two GP pdist requests get
 * GP0 and GP1, a third has no counter; without pdist it gets GP2. pdist
 * needs DS_SAMPLE_PRECISE and architectural PEBS (DS_ERR_SESSION_PDIST).
 * Before the fix pdist did not exist: the counter choice read 23H.5 EAX/ECX
 * only. */
static void test_apebs_pdist(void)
{
    struct ds_session_config c = cfg_mem();
    c.mem_phys = 0x100000;
    panther();
    memset(&S, 0, sizeof S);
    CHECK_EQ(ds_session_init(&S, &cpu, &c), DS_OK, "init");
    struct ds_request q = raw(0xC4, 0x00, 1000, DS_SAMPLE_PRECISE);
    q.pdist = true;
    CHECK_EQ(add(q, NULL), DS_OK, "pdist 1");
    CHECK_EQ(add(q, NULL), DS_OK, "pdist 2");
    CHECK(S.req[0].kind == DS_CTR_GP && S.req[0].idx == 0, "GP0 (got %u)", S.req[0].idx);
    CHECK(S.req[1].kind == DS_CTR_GP && S.req[1].idx == 1, "GP1 (got %u)", S.req[1].idx);
    CHECK_EQ(add(q, NULL), DS_ERR_SESSION_NO_COUNTER, "pdist 3: GP0/GP1 taken");
    q.pdist = false;
    CHECK_EQ(add(q, NULL), DS_OK, "not pdist");
    CHECK(S.req[2].kind == DS_CTR_GP && S.req[2].idx == 2, "GP2 (got %u)", S.req[2].idx);

    panther();
    cpuid_patch(0x23, 5, 1, 0x4); /* PDIST GP2 only */
    cpuid_patch(0x23, 5, 3, 0);   /* no PDIST fixed counter */
    memset(&S, 0, sizeof S);
    CHECK_EQ(ds_session_init(&S, &cpu, &c), DS_OK, "init");
    struct ds_request g = gen(DS_EVENT_INSTRUCTIONS, 1000, DS_SAMPLE_PRECISE);
    g.pdist = true;
    CHECK_EQ(add(g, NULL), DS_OK, "instructions pdist");
    CHECK(S.req[0].kind == DS_CTR_GP && S.req[0].idx == 2, "fixed 0 not PDIST: GP2 (%d/%u)", S.req[0].kind,
          S.req[0].idx);
    g.pdist = false;
    CHECK_EQ(add(g, NULL), DS_OK, "instructions");
    CHECK(S.req[1].kind == DS_CTR_FIXED && S.req[1].idx == 0, "not pdist: fixed 0");

    panther();
    memset(&S, 0, sizeof S);
    CHECK_EQ(ds_session_init(&S, &cpu, &c), DS_OK, "init");
    q.pdist = true;
    q.mode = DS_SAMPLE_AUTO;
    CHECK_EQ(add(q, NULL), DS_ERR_SESSION_PDIST, "pdist with AUTO");
    q.mode = DS_SAMPLE_OVERFLOW;
    CHECK_EQ(add(q, NULL), DS_ERR_SESSION_PDIST, "pdist with OVERFLOW");
    q.mode = DS_COUNT;
    CHECK_EQ(add(q, NULL), DS_ERR_SESSION_PDIST, "pdist with COUNT");
    CHECK_EQ(S.nreq, 0, "nothing added");

    skylake(); /* DS-area PEBS format 3: no PDIST bitmap to follow */
    memset(&S, 0, sizeof S);
    struct ds_session_config k = cfg_mem();
    CHECK_EQ(ds_session_init(&S, &cpu, &k), DS_OK, "init skylake");
    q.mode = DS_SAMPLE_PRECISE;
    CHECK_EQ(add(q, NULL), DS_ERR_SESSION_PDIST, "pdist without arch PEBS");
}

/* ds_session_describe on a zeroed session (never initialised, no CPU):
 * family and model print as 0 (session.h: describe needs only @s), two
 * hex digits each (ds__sb_hex minimum width 2). */
static void test_describe_no_cpu(void)
{
    static struct ds_session z;
    char txt[1024];
    memset(&z, 0, sizeof z);
    ds_session_describe(&z, txt, sizeof txt);
    CHECK(strstr(txt, "(family 0x00 model 0x00)") != NULL, "no CPU: family/model 0: %s", txt);
}

/*
 * The narrowest fixed counter a session samples on: CPUID.0AH:EDX[12:5] =
 * 8 bits (pmc.h: widths 8..64). The period is at most 2^(w-1) = 128 there
 * (a sampling counter starts at -period with its top bit set); the start
 * value is -period in 8 bits. Width 7 is refused.
 */
static void test_fixed_width_8(void)
{
    fam6(0x000706E5, 0x08300805, 0xF, (8u << 5) | 4, 0x64BF); /* ICL, 4 fixed x 8 bits */
    CHECK_EQ(cpu.caps.fixed_width, 8, "fixed width 8");
    CHECK_EQ(init_default(), DS_OK, "init");
    CHECK_EQ(add(gen(DS_EVENT_INSTRUCTIONS, 128, DS_SAMPLE_PRECISE), NULL), DS_OK, "period 128 on 8 bits");
    CHECK(S.req[0].kind == DS_CTR_FIXED && S.req[0].idx == 0, "on fixed 0");
    CHECK_EQ(S.req[0].start, 0x80, "start = -128 in 8 bits");
    CHECK_EQ(init_default(), DS_OK, "init");
    CHECK_EQ(add(gen(DS_EVENT_INSTRUCTIONS, 129, DS_SAMPLE_PRECISE), NULL), DS_ERR_SESSION_BAD_PERIOD, "period 129");
    fam6(0x000706E5, 0x08300805, 0xF, (7u << 5) | 4, 0x64BF);
    CHECK_EQ(init_default(), DS_OK, "init");
    CHECK(add(gen(DS_EVENT_INSTRUCTIONS, 64, DS_SAMPLE_PRECISE), NULL) != DS_OK || S.req[0].kind != DS_CTR_FIXED,
          "width 7: no fixed-counter sampling");
}

/*
 * Legacy LBR freeze (perfmon v2/v3, reference pmi.md; SDM "Freezing LBR
 * and Performance Counters on PMI"): on a PMI the CPU clears
 * IA32_DEBUGCTL.LBR [0] (and GLOBAL_CTRL); after the snapshot the session
 * turns LBR recording back on. Haswell 06_3CH, perfmon v3 with PDCM: the
 * automatic freeze mode is legacy.
 */
static void test_lbr_legacy_unfreeze(void)
{
    fam6(0x000306C3, 0x07300403, 0, 0x00000603, 0x2C4);
    for (unsigned i = 0; i < 16; i++) {
        fp_set(&F, 0x680 + i, 0x1000 + i);
        fp_set(&F, 0x6C0 + i, 0x2000 + i);
    }
    fp_set(&F, 0x1C9, 3);
    fp_set(&F, 0x1C8, 0);
    memset(&S, 0, sizeof S);
    memset(&got, 0, sizeof got);
    struct ds_session_config c = cfg_mem();
    c.lbr = true;
    c.on_lbr = on_lbr;
    CHECK_EQ(ds_session_init(&S, &cpu, &c), DS_OK, "init with LBR");
    CHECK_EQ(add(raw(0xC0, 0x00, 100, DS_SAMPLE_PRECISE), NULL), DS_OK, "add");
    CHECK_EQ(ds_session_start(&S), DS_OK, "start");
    CHECK_EQ(fp_get(&F, 0x1D9) & 0x1801, 0x1801, "DEBUGCTL LBR | freeze LBRs | freeze perfmon");
    /* the PMI as the CPU leaves it: LBR off, GLOBAL_CTRL 0, OvfBuf */
    fp_set(&F, 0x1D9, fp_get(&F, 0x1D9) & ~1ull);
    uint64_t gctl = fp_get(&F, 0x38F);
    fp_set(&F, 0x38F, 0);
    fp_set(&F, 0x38E, 1ull << 62);
    lbr_calls = 0;
    CHECK_EQ(ds_session_pmi(&S, 0, NULL), DS_OK, "PMI");
    CHECK_EQ(lbr_calls, 1, "on_lbr once");
    CHECK_EQ(fp_get(&F, 0x1D9) & 1, 1, "DEBUGCTL.LBR back on after the snapshot");
    CHECK_EQ(fp_get(&F, 0x38F), gctl, "GLOBAL_CTRL restored (legacy freeze)");
    CHECK_EQ(ds_session_teardown(&S), DS_OK, "teardown");
}

/* DS_GROUP_METRICS counts TOPDOWN.SLOTS on fixed counter 3 from 0
 * (session.h: counting from 0): a stale value there is cleared at start.
 * Lunar Lake (perfmon v6): fixed counter 3 is MSR 198CH (1980H + 4 x 3). */
static void test_metrics_slots_from_0(void)
{
    lunar(0);
    fp_set(&F, 0x198C, 0x123456);
    CHECK_EQ(init_default(), DS_OK, "init");
    struct ds_request r = raw(0xC0, 0x00, 1000, DS_SAMPLE_PRECISE);
    r.groups = DS_GROUP_CNTR | DS_GROUP_METRICS;
    CHECK_EQ(add(r, NULL), DS_OK, "PEBS with the metrics group");
    CHECK_EQ(ds_session_start(&S), DS_OK, "start");
    CHECK_EQ(fp_get(&F, 0x198C), 0, "fixed counter 3 (SLOTS) starts at 0");
    CHECK_EQ(ds_session_teardown(&S), DS_OK, "teardown");
}

/*
 * Arch PEBS counters group selects (CFG_C [38:35], arch_pebs.h; Linux
 * ARCH_PEBS_CNTR_*): CNTR_FIXED exactly when a fixed counter counts in the
 * group (fixed 0 here, no metrics so no SLOTS), CNTR_GP when a GP counter
 * does; reload [31:0] = -period. Without a fixed counter: no CNTR_FIXED
 * and nothing else set.
 */
static void test_apebs_cntr_fixed_select(void)
{
    unsigned id[3];
    panther();
    memset(&S, 0, sizeof S);
    struct ds_session_config c = cfg_mem();
    c.mem_phys = 0x100000;
    CHECK_EQ(ds_session_init(&S, &cpu, &c), DS_OK, "init");
    CHECK_EQ(cntr_requests(DS_GROUP_CNTR, id), DS_OK, "counters group without metrics");
    CHECK(S.req[id[2]].kind == DS_CTR_FIXED && S.req[id[2]].idx == 0, "instructions count on fixed 0");
    CHECK_EQ(ds_session_start(&S), DS_OK, "start");
    CHECK_EQ(fp_get(&F, 0x1903), (1ull << 63) | (0x7ull << 35) | (uint32_t)(0 - 10000u), "GP0 CFG_C: ALLOW|GP|FIXED");
    CHECK_EQ(ds_session_teardown(&S), DS_OK, "teardown");

    panther();
    memset(&S, 0, sizeof S);
    CHECK_EQ(ds_session_init(&S, &cpu, &c), DS_OK, "init");
    struct ds_request p = raw(0xC0, 0x00, 10000, DS_SAMPLE_PRECISE);
    p.groups = DS_GROUP_CNTR;
    CHECK_EQ(add(p, NULL), DS_OK, "PEBS with the counters group");
    CHECK_EQ(add(raw(0xC4, 0x00, 0, DS_COUNT), NULL), DS_OK, "GP counting only");
    CHECK(S.req[1].kind == DS_CTR_GP, "count on a GP counter");
    CHECK_EQ(ds_session_start(&S), DS_OK, "start");
    CHECK_EQ(fp_get(&F, 0x1903), (1ull << 63) | (0x3ull << 35) | (uint32_t)(0 - 10000u), "GP0 CFG_C: ALLOW|GP, no FIXED");
    CHECK_EQ(ds_session_teardown(&S), DS_OK, "teardown");
}

/*
 * Start clears every stale IA32_PEBS_ENABLE bit, PMC0's included, before
 * enabling its own (a left-over enable would make PEBS records for a
 * counter nobody drains): Skylake instructions:p is on PMC1 (PREC_DIST),
 * so after start PEBS_ENABLE holds bit 1 only. Perfmon v1 (Yonah-class
 * 06_0EH: CPUID.0AH:EAX version 1, 2 GP counters, no global MSRs) still
 * takes an overflow request on a GP counter.
 */
static void test_stale_pebs_enable_and_v1(void)
{
    skylake();
    fp_set(&F, 0x3F1, 0x1);
    CHECK_EQ(init_default(), DS_OK, "init");
    CHECK_EQ(add(gen(DS_EVENT_INSTRUCTIONS, 10000, DS_SAMPLE_PRECISE), NULL), DS_OK, "instructions:p");
    CHECK_EQ(S.req[0].idx, 1, "PMC1");
    CHECK_EQ(ds_session_start(&S), DS_OK, "start");
    CHECK_EQ(fp_get(&F, 0x3F1), 0x2, "PEBS_ENABLE: stale PMC0 bit cleared, PMC1 set");
    CHECK_EQ(ds_session_teardown(&S), DS_OK, "teardown");

    fam6(0x000006EC, 0x07280201, 0, 0, 0);
    CHECK_EQ(cpu.caps.perfmon_version, 1, "perfmon v1");
    CHECK_EQ(init_default(), DS_OK, "init");
    CHECK_EQ(add(raw(0xC4, 0x00, 1000, DS_SAMPLE_OVERFLOW), NULL), DS_OK, "v1 overflow request");
    CHECK(S.req[0].kind == DS_CTR_GP && S.req[0].idx < 2, "on PMC0/1 (got %u)", S.req[0].idx);
}

/* A NetBurst counter overflow (CCCR.OVF, bit 31) is delivered to the
 * overflow request on that counter only, not to another request whose
 * index happens to be the same number (the BTS request, index 0). */
static void test_netburst_ovf_only_its_request(void)
{
    netburst();
    memset(&S, 0, sizeof S);
    memset(&got, 0, sizeof got);
    struct ds_session_config c = cfg_mem();
    c.mem_linear = 0x200000;
    CHECK_EQ(ds_session_init(&S, &cpu, &c), DS_OK, "init");
    struct ds_request b;
    memset(&b, 0, sizeof b);
    b.mode = DS_TRACE_BTS_CIRCULAR;
    CHECK_EQ(add(b, NULL), DS_OK, "BTS request 0");
    struct ds_request r = raw(0, 0, 5000, DS_SAMPLE_OVERFLOW);
    r.raw.nb_event = "global_power_events";
    r.raw.nb_mask = "RUNNING";
    CHECK_EQ(add(r, NULL), DS_OK, "overflow request 1");
    CHECK_EQ(S.req[1].idx, S.req[0].idx, "same index number as the BTS request");
    CHECK_EQ(ds_session_start(&S), DS_OK, "start");
    uint32_t cccr = 0x360 + S.req[1].idx;
    fp_set(&F, cccr, fp_get(&F, cccr) | (1ull << 31));
    fp_set(&F, 0x300 + S.req[1].idx, 3);
    CHECK_EQ(ds_session_pmi(&S, 0x888, NULL), DS_OK, "PMI");
    CHECK(got.n == 1 && got.req[0] == 1 && got.ip[0] == 0x888, "one sample, to request 1 (n %u)", got.n);
    CHECK_EQ(ds_session_teardown(&S), DS_OK, "teardown");
}

/*
 * mut3D (issue 10 test strength, own seeds 6001-6004), session.c
 * programming values at their boundaries:
 * - fixed counter with 64-bit width (ICL variant with CPUID.0AH:EDX[12:5]
 *   = 64): start = -period over all 64 bits, an odd period keeps bit 0;
 * - FIXED_CTR_CTRL nibble per ring: bit 0 OS (CPL 0), bit 1 USR (CPL > 0)
 *   (SDM Vol. 3B IA32_FIXED_CTR_CTRL "EN" field): USR only = 2, kernel = 1;
 * - load latency MSR_PEBS_LD_LAT[15:0]: 3 (pmc.h DS_PEBS_LDLAT_MIN, Linux
 *   refuses lower) and 0xFFFF (16-bit field) taken, 2 and 0x10000 refused.
 */
static void test_mut3d_session(void)
{
    fam6(0x000706E5, 0x08300805, 0xF, 0x00000804, 0x64BF); /* ICL, 4 fixed x 64 bits */
    CHECK_EQ(init_default(), DS_OK, "init");
    CHECK_EQ(add(gen(DS_EVENT_INSTRUCTIONS, 1001, DS_SAMPLE_PRECISE), NULL), DS_OK, "instructions:p 1001");
    CHECK(S.req[0].kind == DS_CTR_FIXED && S.req[0].idx == 0, "on fixed 0");
    CHECK_EQ(S.req[0].start, 0 - 1001ull, "start = -1001 in 64 bits (bit 0 set)");
    static const struct { unsigned rings; uint64_t nibble; } rr[] = {
        { DS_RING_USER, 0x2 }, { DS_RING_KERNEL, 0x1 }, { DS_RING_USER | DS_RING_KERNEL, 0x3 },
    };
    for (size_t i = 0; i < N(rr); i++) {
        icelake();
        CHECK_EQ(init_default(), DS_OK, "init");
        struct ds_request r = gen(DS_EVENT_INSTRUCTIONS, 5000, DS_SAMPLE_PRECISE);
        r.rings = rr[i].rings;
        CHECK_EQ(add(r, NULL), DS_OK, "rings %u", rr[i].rings);
        CHECK(S.req[0].kind == DS_CTR_FIXED && S.req[0].idx == 0, "rings %u: fixed 0", rr[i].rings);
        CHECK_EQ(ds_session_start(&S), DS_OK, "start");
        CHECK_EQ(fp_get(&F, 0x38D) & 0xF, rr[i].nibble, "rings %u: FIXED_CTR_CTRL nibble 0", rr[i].rings);
        CHECK_EQ(ds_session_teardown(&S), DS_OK, "teardown");
    }
    /* load latency 2 / 3 / 0xFFFF / 0x10000: test_add_refusals_exact */
}

/*
 * mut3D: the smallest sampling period (1) is taken, 0 refused (a period
 * is a count of events, SDM "Performance Monitoring Counters" reload
 * -period); perfmon v1 (Core Duo 06_0EH: CPUID.0AH:EAX = 07280201H, no
 * IA32_PERF_GLOBAL_CTRL, SDM 20.2.1) stops a DS_COUNT counter by clearing
 * its IA32_PERFEVTSELx.EN (bit 22), as it does a sampling one.
 */
static void test_mut3d_session_stop_v1(void)
{
    skylake();
    CHECK_EQ(init_default(), DS_OK, "init");
    CHECK_EQ(add(raw(0xC4, 0x00, 1, DS_SAMPLE_OVERFLOW), NULL), DS_OK, "period 1 taken");
    CHECK_EQ(add(raw(0xC4, 0x00, 0, DS_SAMPLE_OVERFLOW), NULL), DS_ERR_SESSION_BAD_PERIOD, "period 0 refused");
    fam6(0x000006EC, 0x07280201, 0, 0, 0);
    CHECK_EQ(cpu.caps.perfmon_version, 1, "v1");
    CHECK_EQ(init_default(), DS_OK, "init v1");
    CHECK_EQ(add(raw(0xC4, 0x00, 0, DS_COUNT), NULL), DS_OK, "count on v1");
    unsigned n = S.req[0].idx;
    CHECK_EQ(ds_session_start(&S), DS_OK, "start");
    CHECK((fp_get(&F, 0x186 + n) >> 22) & 1, "EVTSEL%u.EN set while running", n);
    CHECK_EQ(ds_session_stop(&S), DS_OK, "stop");
    CHECK_EQ((fp_get(&F, 0x186 + n) >> 22) & 1, 0, "EVTSEL%u.EN clear after stop", n);
    CHECK_EQ(fp_get(&F, 0x186 + n), 0, "EVTSEL%u cleared whole after stop (event too)", n);
    CHECK_EQ(ds_session_teardown(&S), DS_OK, "teardown");
}

/*
 * mut3D: the smallest PEBS buffer a session takes. Skylake PEBS format 3
 * records are 0xC8 bytes (SDM Table 20-xx "PEBS record format 3"; Linux
 * struct pebs_record_skl), and each of its 4 PEBS-capable GP counters may
 * still write one record after the threshold (area.h margin): one record
 * beyond that margin, 5 records after the 4 KiB DS-area page, is the
 * minimum; one byte less is DS_ERR_SESSION_BUF_SMALL at start.
 */
static void test_mut3d_session_pebs_room(void)
{
    static const struct { size_t bytes; int want; } rows[] = {
        { 4096 + 5 * 0xC8, DS_OK }, { 4096 + 5 * 0xC8 - 1, DS_ERR_SESSION_BUF_SMALL },
    };
    for (size_t i = 0; i < N(rows); i++) {
        skylake();
        struct ds_session_config c = cfg_mem();
        c.bytes = rows[i].bytes;
        memset(&S, 0, sizeof S);
        CHECK_EQ(ds_session_init(&S, &cpu, &c), DS_OK, "init %zu bytes", rows[i].bytes);
        CHECK_EQ(add(raw(0xC4, 0x00, 1000, DS_SAMPLE_PRECISE), NULL), DS_OK, "PEBS request");
        CHECK_EQ(ds_session_start(&S), rows[i].want, "%zu bytes", rows[i].bytes);
        if (rows[i].want == DS_OK)
            CHECK_EQ(ds_session_teardown(&S), DS_OK, "teardown");
    }
}

/*
 * mut3D: arch PEBS reload is IA32_PMC_GPx_CFG_C[31:0] (SDM arch PEBS
 * "reload value", 32 bits; Linux -period & ARCH_PEBS_RELOAD): -period must
 * keep bit 31 set there, so 2^31 is the largest period (the w-1 rule of
 * the fixed path with w = 32), 2^31 + 1 DS_ERR_SESSION_BAD_PERIOD; and a
 * DS_COUNT request with a load latency is refused (DS_ERR_SESSION_NO_LDLAT:
 * MSR_PEBS_LD_LAT only filters PEBS load records, SDM "Load Latency").
 */
static void test_mut3d_session_apebs_period(void)
{
    static const struct { uint64_t period; int want; } rows[] = {
        { 1ull << 31, DS_OK }, { (1ull << 31) + 1, DS_ERR_SESSION_BAD_PERIOD },
    };
    for (size_t i = 0; i < N(rows); i++) {
        panther();
        memset(&S, 0, sizeof S);
        struct ds_session_config c = cfg_mem();
        c.mem_phys = 0x100000;
        CHECK_EQ(ds_session_init(&S, &cpu, &c), DS_OK, "init");
        int e = add(raw(0xC0, 0x00, rows[i].period, DS_SAMPLE_PRECISE), NULL);
        if (!e) {
            CHECK_EQ(S.req[0].how, DS_HOW_APEBS, "architectural PEBS");
            e = ds_session_start(&S);
        }
        CHECK_EQ(e, rows[i].want, "arch PEBS period %#llx", (unsigned long long)rows[i].period);
        if (!e) {
            CHECK_EQ(fp_get(&F, 0x1903) & 0xFFFFFFFFull, 0x80000000ull, "reload = -2^31 in 32 bits");
            CHECK_EQ(ds_session_teardown(&S), DS_OK, "teardown");
        }
    }
    skylake();
    CHECK_EQ(init_default(), DS_OK, "init");
    struct ds_request r = raw(0xC4, 0x00, 0, DS_COUNT);
    r.ldlat = 30;
    CHECK_EQ(add(r, NULL), DS_ERR_SESSION_NO_LDLAT, "DS_COUNT with load latency");
}

/*
 * Architectural PEBS: a fixed counter already taken by one request is not
 * given to the next (SDM: one event per counter). Two precise instruction
 * requests on Panther Lake: the first on fixed counter 0 (CPUID.(23H,5)
 * ECX bit 0), the second on a PEBS-capable GP counter, never fixed 0 again.
 */
static void test_apebs_fixed_taken(void)
{
    panther();
    memset(&S, 0, sizeof S);
    struct ds_session_config c = cfg_mem();
    c.mem_phys = 0x100000;
    CHECK_EQ(ds_session_init(&S, &cpu, &c), DS_OK, "init");
    CHECK_EQ(add(gen(DS_EVENT_INSTRUCTIONS, 1000, DS_SAMPLE_PRECISE), NULL), DS_OK, "first instructions");
    CHECK_EQ(add(gen(DS_EVENT_INSTRUCTIONS, 2000, DS_SAMPLE_PRECISE), NULL), DS_OK, "second instructions");
    CHECK(S.req[0].kind == DS_CTR_FIXED && S.req[0].idx == 0, "first on fixed 0 (%d/%u)", S.req[0].kind,
          S.req[0].idx);
    CHECK(S.req[1].how == DS_HOW_APEBS && S.req[1].kind == DS_CTR_GP, "second on a GP counter (%d/%u)",
          S.req[1].kind, S.req[1].idx);
}

/*
 * mut4A: arch-PEBS record groups follow CPUID.(23H,4):EBX, the supported
 * IA32_PMC_*_CFG_C bits 63:32 (SDM arch PEBS "CFG_C"; Linux
 * intel_pmu_arch_pebs caps: AUX 62 -> memory info, GPR 61, XMM 49, LBR
 * 41:40). Panther Lake's EBX 60060378H with one capability bit cleared at
 * a time: that request's group alone is refused (DS_ERR_SESSION_GROUPS),
 * the others still taken; with AUX and GPR both cleared neither memory nor
 * GPRs. Kills the `: 0` -> `: 1` mutants of session.c groups_ok's arch row
 * (main ed7cc46 :215, a 1 is DS_GROUP_MEM).
 */
static void test_apebs_groups_per_cap(void)
{
    static const struct { uint32_t clear; uint32_t refused; } rows[] = {
        { 1u << 30, DS_GROUP_MEM },                        /* AUX [62] */
        { 1u << 29, DS_GROUP_GPRS },                       /* GPR [61] */
        { 1u << 17, DS_GROUP_XMM },                        /* XMM [49] */
        { 3u << 8, DS_GROUP_LBR },                         /* LBR [41:40] */
        { (1u << 30) | (1u << 29), DS_GROUP_MEM | DS_GROUP_GPRS },
        { (1u << 30) | (1u << 29) | (1u << 17) | (3u << 8), DS_GROUP_ALL },
    };
    static const uint32_t groups[] = { DS_GROUP_MEM, DS_GROUP_GPRS, DS_GROUP_XMM, DS_GROUP_LBR };
    for (size_t i = 0; i < N(rows); i++)
        for (size_t g = 0; g < N(groups); g++) {
            panther();
            cpuid_patch(0x23, 4, 1, 0x60060378u & ~rows[i].clear);
            memset(&S, 0, sizeof S);
            struct ds_session_config c = cfg_mem();
            c.mem_phys = 0x100000;
            CHECK_EQ(ds_session_init(&S, &cpu, &c), DS_OK, "init");
            struct ds_request r = raw(0xC4, 0x00, 1000, DS_SAMPLE_PRECISE);
            r.groups = groups[g];
            int want = (rows[i].refused & groups[g]) ? DS_ERR_SESSION_GROUPS : DS_OK;
            CHECK_EQ(add(r, NULL), want, "caps without %#x: group %#x", rows[i].clear, groups[g]);
        }
}

/*
 * mut4A: perfmon v1 has no IA32_PERF_GLOBAL_STATUS (SDM "Architectural
 * Performance Monitoring Version 1"); a sampling counter loaded with
 * -period has overflowed when its top bit, bit (width - 1) with the width
 * of CPUID.0AH:EAX[23:16], is clear. At the smallest width the session
 * takes, 8 bits (full-width writes, PERF_CAPABILITIES[13]): period 100
 * starts at 9CH; 05H and 7FH (bit 7 clear) are an overflow, one sample,
 * the counter reloaded to 9CH; 80H and A0H (bit 7 set) are not. Kills
 * v1_overflowed's `w < 8` -> `w <= 8` (main ed7cc46 session.c:1127).
 */
static void test_v1_overflow_width_8(void)
{
    static const struct { uint64_t ctr; bool ovf; } rows[] = {
        { 0x05, true }, { 0x7F, true }, { 0x80, false }, { 0xA0, false },
    };
    for (size_t i = 0; i < N(rows); i++) {
        fam6(0x000006EC, 0x07080201, 0, 0, 1u << 13); /* Core Duo v1, 2 GP x 8 bits, FW_WRITE */
        CHECK(cpu.caps.perfmon_version == 1 && cpu.caps.gp_width == 8 && cpu.caps.fw_write, "v1, 8 bits, FW_WRITE");
        CHECK_EQ(init_default(), DS_OK, "init");
        CHECK_EQ(add(raw(0xC4, 0x00, 100, DS_SAMPLE_OVERFLOW), NULL), DS_OK, "overflow request, period 100");
        unsigned n = S.req[0].idx;
        CHECK_EQ(ds_session_start(&S), DS_OK, "start");
        CHECK_EQ(fp_get(&F, 0xC1 + n), 0x9C, "PMC%u = -100 in 8 bits", n);
        fp_set(&F, 0xC1 + n, rows[i].ctr);
        int e = ds_session_pmi(&S, 0x777, NULL);
        CHECK_EQ(got.n, rows[i].ovf ? 1u : 0u, "counter %#llx: samples", (unsigned long long)rows[i].ctr);
        CHECK_EQ(e, rows[i].ovf ? DS_OK : DS_ERR_SESSION_SPURIOUS, "counter %#llx: result", (unsigned long long)rows[i].ctr);
        CHECK_EQ(fp_get(&F, 0xC1 + n), rows[i].ovf ? 0x9C : rows[i].ctr, "counter %#llx: reloaded only on overflow",
                 (unsigned long long)rows[i].ctr);
        if (rows[i].ovf)
            CHECK(got.req[0] == 0 && got.ip[0] == 0x777 && !got.pebs[0], "overflow sample of request 0 at the PMI IP");
        CHECK_EQ(ds_session_teardown(&S), DS_OK, "teardown");
    }
}

/*
 * mut4A: perfmon v1 without full-width writes: a write to IA32_PMCx loads
 * bits 31:0 and sign-extends bit 31 to the counter width (SDM "Full-Width
 * Writes to Performance Counter Registers"), so bit 31 is the top bit of
 * every -period start and the overflow test looks at bit 31 whatever the
 * width. Period 2^31 (the largest: bit 31 must be set) starts at
 * 80000000H, sign-extended to FF80000000H on 40 bits; there bit 30 is
 * clear and bit 32 set, on 32 bits bit 32 is absent: the start itself is
 * no overflow on either width, a wrapped counter (3) is one.
 */
static void test_v1_overflow_legacy_bit31(void)
{
    static const struct { uint32_t eax0a; uint64_t start; } w[] = {
        { 0x07280201, 0xFF80000000ull }, /* Core Duo, 40 bits */
        { 0x07200201, 0x80000000ull },   /* 32 bits */
    };
    for (size_t k = 0; k < N(w); k++)
        for (int wrapped = 0; wrapped < 2; wrapped++) {
            fam6(0x000006EC, w[k].eax0a, 0, 0, 0);
            CHECK(cpu.caps.perfmon_version == 1 && !cpu.caps.fw_write, "v1, legacy writes");
            CHECK_EQ(init_default(), DS_OK, "init");
            CHECK_EQ(add(raw(0xC4, 0x00, 1ull << 31, DS_SAMPLE_OVERFLOW), NULL), DS_OK, "period 2^31");
            unsigned n = S.req[0].idx;
            CHECK_EQ(ds_session_start(&S), DS_OK, "start");
            CHECK_EQ(fp_get(&F, 0xC1 + n), w[k].start, "width %u: PMC%u start", cpu.caps.gp_width, n);
            if (wrapped)
                fp_set(&F, 0xC1 + n, 3);
            int e = ds_session_pmi(&S, 0x555, NULL);
            CHECK_EQ(got.n, (unsigned)wrapped, "width %u, %s: samples", cpu.caps.gp_width, wrapped ? "wrapped" : "at start");
            CHECK_EQ(e, wrapped ? DS_OK : DS_ERR_SESSION_SPURIOUS, "width %u: result", cpu.caps.gp_width);
            CHECK_EQ(fp_get(&F, 0xC1 + n), w[k].start, "width %u: counter at start after the PMI", cpu.caps.gp_width);
            CHECK_EQ(ds_session_teardown(&S), DS_OK, "teardown");
        }
}

/*
 * mut4A: the counter searches cover the whole CPUID.(23H,1):EAX bitmap,
 * bit 0 through bit 31 (SDM CPUID leaf 23H: a 32-bit GP counter bitmap;
 * perfmon v6 addresses GPn at 1900H + 4n for any n). A Lunar Lake whose
 * bitmap holds one counter, GP0 or GP31: a counting request and an
 * overflow request each take that counter (the first), the second one is
 * refused (DS_ERR_SESSION_NO_COUNTER). Panther Lake arch PEBS
 * (CPUID.(23H,5):EAX the PEBS-capable GP counters) alike. Kills the loop
 * bounds of add_count (main ed7cc46 session.c:563 0 -> 1, 32 -> 31),
 * pick_overflow and pick_apebs.
 */
static void test_gp_bitmap_ends(void)
{
    static const uint32_t only[] = { 1u << 0, 1u << 31 };
    for (size_t k = 0; k < N(only); k++) {
        unsigned want = k ? 31u : 0u;
        static const enum ds_sample_mode modes[] = { DS_COUNT, DS_SAMPLE_OVERFLOW };
        for (size_t m = 0; m < N(modes); m++) {
            lunar(0);
            cpuid_patch(0x23, 1, 0, only[k]);
            CHECK_EQ(cpu.caps.gp_mask, only[k], "GP bitmap %#x", only[k]);
            CHECK_EQ(init_default(), DS_OK, "init");
            CHECK_EQ(add(raw(0xC4, 0x00, 1000, modes[m]), NULL), DS_OK, "mode %d on GP%u", modes[m], want);
            CHECK(S.req[0].kind == DS_CTR_GP && S.req[0].idx == want, "mode %d: GP%u (got %d/%u)", modes[m], want,
                  S.req[0].kind, S.req[0].idx);
            CHECK_EQ(add(raw(0xC4, 0x00, 1000, modes[m]), NULL), DS_ERR_SESSION_NO_COUNTER, "mode %d: GP%u taken",
                     modes[m], want);
        }
        panther();
        cpuid_patch(0x23, 1, 0, only[k]);
        cpuid_patch(0x23, 5, 0, only[k]);
        cpuid_patch(0x23, 5, 1, only[k]); /* PDIST GP bitmap inside the GP bitmap */
        memset(&S, 0, sizeof S);
        struct ds_session_config c = cfg_mem();
        c.mem_phys = 0x100000;
        CHECK_EQ(ds_session_init(&S, &cpu, &c), DS_OK, "init");
        CHECK_EQ(add(raw(0xC4, 0x00, 1000, DS_SAMPLE_PRECISE), NULL), DS_OK, "arch PEBS on GP%u", want);
        CHECK(S.req[0].how == DS_HOW_APEBS && S.req[0].kind == DS_CTR_GP && S.req[0].idx == want,
              "arch PEBS: GP%u (got %d/%u)", want, S.req[0].kind, S.req[0].idx);
        CHECK_EQ(add(raw(0xC4, 0x00, 1000, DS_SAMPLE_PRECISE), NULL), DS_ERR_SESSION_NO_COUNTER,
                 "arch PEBS: GP%u taken", want);
    }
}

/*
 * mut4A: the load-latency search starts at PMC3 and wraps around to PMC0,
 * PMC1, PMC2 (Skylake MEM_TRANS_RETIRED.LOAD_LATENCY CDH/01H: any of PMC0-3,
 * perfmon skylake_core.json "Counter": "0,1,2,3", Linux 0xf; Nehalem was the
 * CPU here until issue 25 item 7 put its 0BH/10H on PMC3 only). PMC3
 * taken by an overflow request and PMC0, PMC1 by two PEBS requests: the
 * load-latency request still gets PMC2, the 32nd and last counter of the
 * wrapped search (pick_ds_pebs `k < 32` -> 31 left it out).
 */
static void test_ldlat_wraps_to_pmc2(void)
{
    skylake();
    CHECK_EQ(init_default(), DS_OK, "init");
    CHECK_EQ(add(raw(0xC4, 0x00, 1000, DS_SAMPLE_OVERFLOW), NULL), DS_OK, "overflow");
    CHECK_EQ(S.req[0].idx, 3, "overflow on PMC3, the highest");
    CHECK_EQ(add(raw(0xC4, 0x00, 1000, DS_SAMPLE_PRECISE), NULL), DS_OK, "PEBS 1");
    CHECK_EQ(add(raw(0xC4, 0x00, 1000, DS_SAMPLE_PRECISE), NULL), DS_OK, "PEBS 2");
    CHECK(S.req[1].idx == 0 && S.req[2].idx == 1, "PEBS on PMC0, PMC1 (%u, %u)", S.req[1].idx, S.req[2].idx);
    struct ds_request r = gen(DS_EVENT_LOADS, 1000, DS_SAMPLE_PRECISE);
    r.ldlat = 40;
    CHECK_EQ(add(r, NULL), DS_OK, "loads, latency > 40");
    CHECK(S.req[3].how == DS_HOW_PEBS && S.req[3].kind == DS_CTR_GP && S.req[3].idx == 2, "load latency on PMC2 (%u)",
          S.req[3].idx);
}

/*
 * mut4A: NetBurst PEBS is replay tagging, one of the nine metrics of the
 * SDM replay-tagging table (1stL_cache_load_miss_retired ..
 * split_store_retired, ds/netburst.h DS_NB_METRIC_*): a raw PRECISE
 * request with metric 8 (the last) is taken as NetBurst PEBS, metric 9
 * and -1 are DS_ERR_SESSION_NOT_PRECISE, and AUTO with metric 9 falls
 * back to an overflow PMI (CCCR.OVF_PMI). Overflow sampling has neither
 * a load-latency threshold (MSR_PEBS_LD_LAT filters PEBS load records
 * only, SDM "Load Latency Performance Monitoring Facility") nor record
 * groups: DS_SAMPLE_OVERFLOW with either is refused with that error, on
 * family 6 and NetBurst.
 */
static void test_nb_metric_bound_and_overflow_refusals(void)
{
    CHECK_EQ(DS_NB_METRIC__COUNT, 9, "nine replay-tagging metrics");
    static const struct { int metric; enum ds_sample_mode mode; int err; enum ds_session_how how; } rows[] = {
        { 8, DS_SAMPLE_PRECISE, DS_OK, DS_HOW_NB_PEBS },
        { 9, DS_SAMPLE_PRECISE, DS_ERR_SESSION_NOT_PRECISE, DS_HOW_NONE },
        { -1, DS_SAMPLE_PRECISE, DS_ERR_SESSION_NOT_PRECISE, DS_HOW_NONE },
        { 9, DS_SAMPLE_AUTO, DS_OK, DS_HOW_NB_OVERFLOW },
    };
    for (size_t i = 0; i < N(rows); i++) {
        netburst();
        memset(&S, 0, sizeof S);
        struct ds_session_config c = cfg_mem();
        c.mem_linear = 0x200000;
        CHECK_EQ(ds_session_init(&S, &cpu, &c), DS_OK, "init");
        struct ds_request r = raw(0, 0, 3000, rows[i].mode);
        r.raw.nb_event = "replay_event";
        r.raw.nb_mask = "NBOGUS";
        r.raw.nb_metric = rows[i].metric;
        CHECK_EQ(add(r, NULL), rows[i].err, "metric %d mode %d", rows[i].metric, rows[i].mode);
        if (!rows[i].err)
            CHECK_EQ(S.req[0].how, rows[i].how, "metric %d mode %d: how", rows[i].metric, rows[i].mode);
    }
    for (int nb = 0; nb < 2; nb++) {
        if (nb)
            netburst();
        else
            skylake();
        struct ds_request r = raw(0xC4, 0x00, 3000, DS_SAMPLE_OVERFLOW);
        if (nb) {
            r.raw.nb_event = "replay_event";
            r.raw.nb_mask = "NBOGUS";
        }
        CHECK_EQ(init_default(), DS_OK, "init");
        r.ldlat = 40;
        CHECK_EQ(add(r, NULL), DS_ERR_SESSION_NO_LDLAT, "%s: overflow with a load latency", nb ? "NetBurst" : "Skylake");
        r.ldlat = 0;
        r.groups = DS_GROUP_GPRS;
        CHECK_EQ(add(r, NULL), DS_ERR_SESSION_GROUPS, "%s: overflow with record groups", nb ? "NetBurst" : "Skylake");
        r.groups = 0;
        CHECK_EQ(add(r, NULL), DS_OK, "%s: plain overflow", nb ? "NetBurst" : "Skylake");
    }
}

/*
 * mut4A: front-end tagging on NetBurst (SDM "Tagging Mechanism for
 * Front_end_event"): the upstream uop_type ESCR (MSR_RAT_ESCR0 3BCH with
 * counters 12, 13, 16, or MSR_RAT_ESCR1 3BDH with 14, 15, 17: SDM
 * uop_type ESCR restrictions) is paired with a counter no event of the
 * session uses, the counted front_end_event's own counter included (a
 * CCCR selects one ESCR, SDM CCCR ESCR_Select). instr_retired twice (CRU0
 * on 12, CRU1 on 14) and resource_stall twice (ALF0 on 13, ALF1 on 15)
 * leave 16 and 17: memory loads count front_end_event on 16 (CRU2), so
 * RAT_ESCR0 has no free counter and the tag goes to RAT_ESCR1 (pairing
 * 17). Kills pick_nb_tag's `1u << counter` -> `2u <<` (main ed7cc46
 * session.c:365), which left 16 free for RAT_ESCR0.
 */
static void test_nb_tag_pairing_counter(void)
{
    netburst();
    memset(&S, 0, sizeof S);
    struct ds_session_config c = cfg_mem();
    c.mem_linear = 0x200000;
    CHECK_EQ(ds_session_init(&S, &cpu, &c), DS_OK, "init");
    static const struct { const char *ev, *mask; unsigned ctr; } pre[] = {
        { "instr_retired", "NBOGUSNTAG", 12 }, { "instr_retired", "NBOGUSNTAG", 14 },
        { "resource_stall", "SBFULL", 13 }, { "resource_stall", "SBFULL", 15 },
    };
    for (size_t i = 0; i < N(pre); i++) {
        struct ds_request r = raw(0, 0, 3000, DS_SAMPLE_OVERFLOW);
        r.raw.nb_event = pre[i].ev;
        r.raw.nb_mask = pre[i].mask;
        CHECK_EQ(add(r, NULL), DS_OK, "%s", pre[i].ev);
        CHECK_EQ(S.req[i].idx, pre[i].ctr, "%s on counter %u", pre[i].ev, pre[i].ctr);
    }
    CHECK_EQ(add(gen(DS_EVENT_LOADS, 3000, DS_SAMPLE_OVERFLOW), NULL), DS_OK, "memory loads (front_end_event)");
    CHECK_EQ(S.req[4].idx, 16, "front_end_event on counter 16");
    CHECK_EQ(S.req[4].nbas.escr_msr, 0x3CC, "counted on MSR_CRU_ESCR2");
    CHECK(S.req[4].nb_tagged, "tagged");
    CHECK_EQ(S.req[4].nbtag.escr_msr, 0x3BD, "uop_type tag on MSR_RAT_ESCR1 (RAT_ESCR0's counters all taken)");
    /* describe names counter 16 MSR_IQ_COUNTER4 (SDM: IQ_COUNTER4 310H =
     * counter 16, IQ_COUNTER3 30FH = 15): only on request 4's line */
    char buf[2048];
    CHECK_EQ(ds_session_describe(&S, buf, sizeof buf), DS_OK, "describe");
    const char *l3 = strstr(buf, "req 3:"), *l4 = strstr(buf, "req 4:"), *iq4 = strstr(buf, "(IQ_COUNTER4)");
    CHECK(l3 && l4 && iq4 && iq4 > l4 && !strstr(iq4 + 1, "(IQ_COUNTER4)"), "IQ_COUNTER4 named once, on counter 16:\n%s", buf);
    CHECK(l3 && l4 && iq4 && l3 < l4 && iq4 < strchr(l4, '\n'), "on request 4's line, not request 3's (counter 15)");
}

/*
 * mut4A: teardown keeps the add-time NetBurst claims of every request
 * (session.h: requests stay added for a later start): the counted ESCR,
 * the counter and a front-end tag's ESCR. Memory loads count
 * front_end_event on MSR_CRU_ESCR2 / counter 12, tagged by uop_type on
 * MSR_RAT_ESCR0 (3BCH, SDM uop_type ESCRs RAT_ESCR0/1); instr_retired
 * takes CRU_ESCR0 and counter 13. After a start and teardown, a
 * uop_type request finds RAT_ESCR0 taken (RAT_ESCR1 3BDH, counter 14),
 * a replay_event request CRU_ESCR2 taken (CRU_ESCR3 3CDH) and a
 * resource_stall request (MSR_ALF_ESCR0: counters 12, 13, 16) counters
 * 12 and 13 taken (16).
 */
static void test_nb_teardown_keeps_every_claim(void)
{
    static const struct { const char *ev, *mask; uint32_t escr; unsigned ctr; } after[] = {
        { "uop_type", "TAGLOADS", 0x3BD, 14 },
        { "replay_event", "NBOGUS", 0x3CD, 14 },
        { "resource_stall", "SBFULL", 0x3CA, 16 },
    };
    for (size_t i = 0; i < N(after); i++) {
        netburst();
        memset(&S, 0, sizeof S);
        struct ds_session_config c = cfg_mem();
        c.mem_linear = 0x200000;
        CHECK_EQ(ds_session_init(&S, &cpu, &c), DS_OK, "init");
        CHECK_EQ(add(gen(DS_EVENT_LOADS, 3000, DS_SAMPLE_OVERFLOW), NULL), DS_OK, "memory loads");
        CHECK(S.req[0].nbas.escr_msr == 0x3CC && S.req[0].idx == 12 && S.req[0].nb_tagged &&
              S.req[0].nbtag.escr_msr == 0x3BC, "front_end_event CRU_ESCR2/12, tag RAT_ESCR0");
        struct ds_request r = raw(0, 0, 3000, DS_SAMPLE_OVERFLOW);
        r.raw.nb_event = "instr_retired";
        r.raw.nb_mask = "NBOGUSNTAG";
        CHECK_EQ(add(r, NULL), DS_OK, "instr_retired");
        CHECK(S.req[1].nbas.escr_msr == 0x3B8 && S.req[1].idx == 13, "instr_retired CRU_ESCR0/13");
        CHECK_EQ(ds_session_start(&S), DS_OK, "start");
        CHECK_EQ(ds_session_teardown(&S), DS_OK, "teardown");
        r.raw.nb_event = after[i].ev;
        r.raw.nb_mask = after[i].mask;
        CHECK_EQ(add(r, NULL), DS_OK, "%s after teardown", after[i].ev);
        CHECK(S.req[2].nbas.escr_msr == after[i].escr && S.req[2].idx == after[i].ctr, "%s: ESCR %#x counter %u (got %#x/%u)",
              after[i].ev, after[i].escr, after[i].ctr, S.req[2].nbas.escr_msr, S.req[2].idx);
    }
}

/*
 * mut4A: perfmon v1 has no IA32_PERF_GLOBAL_CTRL (SDM "Architectural
 * Performance Monitoring Version 1"): stop turns an overflow counter off
 * through its IA32_PERFEVTSELx.EN (bit 22), and a BTS request beside it
 * touches no counter (Core Duo 06_0EH words).
 */
static void test_v1_stop_overflow(void)
{
    fam6(0x000006EC, 0x07280201, 0, 0, 0);
    CHECK_EQ(init_default(), DS_OK, "init");
    CHECK_EQ(add(raw(0xC4, 0x00, 1000, DS_SAMPLE_OVERFLOW), NULL), DS_OK, "overflow");
    struct ds_request t;
    memset(&t, 0, sizeof t);
    t.mode = DS_TRACE_BTS_CIRCULAR;
    CHECK_EQ(add(t, NULL), DS_OK, "BTS");
    unsigned n = S.req[0].idx;
    CHECK_EQ(n, 1, "overflow on PMC1, the highest");
    CHECK_EQ(ds_session_start(&S), DS_OK, "start");
    CHECK_EQ(fp_get(&F, 0x186 + n), 0x005300C4, "EVTSEL1 = C4H USR OS INT EN");
    CHECK_EQ(ds_session_stop(&S), DS_OK, "stop");
    CHECK_EQ(fp_get(&F, 0x186 + n), 0, "EVTSEL1 cleared by stop");
    CHECK_EQ(fp_get(&F, 0x186), 0, "EVTSEL0 untouched");
    CHECK_EQ(ds_session_teardown(&S), DS_OK, "teardown");
}

/*
 * mut4A: the arch-PEBS buffer is 4 KiB << size code, code 0..15
 * (IA32_PEBS_BASE size field; SDM arch PEBS, Linux ARCH_PEBS_SIZE_MASK
 * 4 bits): a 256 MiB region (4 KiB << 16) still gets code 15, 128 MiB
 * (the buffer is not touched before the CPU writes it). And Silvermont
 * has no load-latency facility (perfmon Silvermont_core.json lists no
 * LOAD_LATENCY event; Linux intel_slm_pebs_event_constraints has no
 * INTEL_PLD_CONSTRAINT): memory loads with a threshold are
 * DS_ERR_SESSION_NO_LDLAT.
 */
static void test_apebs_code_max_and_slm_ldlat(void)
{
    panther();
    /* The 256 MiB region claimed over mem[] must not cover the session or
     * the ds_cpu (issue 31: DS_ERR_SESSION_MEM_OVERLAP). Statics may lie
     * after mem[] (the -m32 static build puts them there), so this case
     * keeps both on the stack, far from .bss. */
    struct ds_cpu lcpu = cpu;
    struct ds_session ls;
    memset(&ls, 0, sizeof ls);
    struct ds_session_config c = cfg_mem();
    c.mem_phys = 0x100000;
    c.bytes = (size_t)4096 << 16;
    struct ds_request rq = raw(0xC4, 0x00, 1000, DS_SAMPLE_PRECISE);
    CHECK_EQ(ds_session_init(&ls, &lcpu, &c), DS_OK, "init");
    CHECK_EQ(ds_session_add(&ls, &rq, NULL), DS_OK, "arch PEBS");
    CHECK_EQ(ds_session_start(&ls), DS_OK, "start with 256 MiB");
    CHECK_EQ(ls.ap.bytes, 4096ull << 15, "buffer 4 KiB << 15");
    CHECK_EQ(ds_session_teardown(&ls), DS_OK, "teardown");

    silvermont();
    CHECK_EQ(init_default(), DS_OK, "init");
    struct ds_request r = gen(DS_EVENT_LOADS, 1000, DS_SAMPLE_PRECISE);
    r.ldlat = 40;
    CHECK_EQ(add(r, NULL), DS_ERR_SESSION_NO_LDLAT, "Silvermont loads with a latency threshold");
}

/*
 * mut4A: a PEBS part of 4 GiB or more counts as 4 GiB - 1 (session.c
 * div32: a 32-bit division, i386 has no 64-bit one in libds): records =
 * floor((2^32 - 1) / record size). Skylake format 3 records are C8H bytes
 * (SDM PEBS record format 3): 21474836 records from exactly 4 GiB; Ice
 * Lake adaptive records without groups are the 32-byte basic group (SDM
 * "Basic Info Group": format/size, IP, applicable counters, TSC):
 * 7FFFFFFH records, not 2^27. 64-bit hosts only (size_t holds 4 GiB).
 */
static void test_pebs_part_4g(void)
{
    if (sizeof(size_t) < 8)
        return;
    static const struct { void (*prof)(void); uint64_t nrec; } rows[] = {
        { skylake, 21474836u }, { icelake, 0x7FFFFFFu },
    };
    for (size_t i = 0; i < N(rows); i++) {
        rows[i].prof();
        memset(&S, 0, sizeof S);
        struct ds_session_config c = cfg_mem();
        c.bytes = (size_t)(4096 + 0x100000000ull);
        CHECK_EQ(ds_session_init(&S, &cpu, &c), DS_OK, "init");
        CHECK_EQ(add(raw(0xC4, 0x00, 1000, DS_SAMPLE_PRECISE), NULL), DS_OK, "PEBS");
        CHECK_EQ(ds_session_start(&S), DS_OK, "start with a 4 GiB PEBS part");
        CHECK_EQ((uint64_t)S.ctx.pebs.nrec, rows[i].nrec, "records in 4 GiB - 1");
        CHECK_EQ(ds_session_teardown(&S), DS_OK, "teardown");
    }
}

/*
 * mut4A: a session run without freezing clears a stale
 * IA32_DEBUGCTL.FREEZE_PERFMON_ON_PMI (bit 12; SDM "IA32_DEBUGCTL": the
 * PMI would freeze the counters and nobody would unfreeze them) where the
 * bit exists (CPUID.01H:ECX.PDCM[15], perfmon v2+), and teardown puts it
 * back. Skylake words (v4, PDCM), freeze chosen as none, DEBUGCTL 1000H
 * before start.
 */
static void test_freeze_none_clears_stale_bit12(void)
{
    skylake();
    fp_set(&F, 0x1D9, 1u << 12);
    memset(&S, 0, sizeof S);
    memset(&got, 0, sizeof got);
    struct ds_session_config c = cfg_mem();
    c.freeze_set = true;
    c.freeze = DS_FREEZE_NONE;
    CHECK_EQ(ds_session_init(&S, &cpu, &c), DS_OK, "init");
    CHECK_EQ(add(raw(0xC4, 0x00, 1000, DS_SAMPLE_OVERFLOW), NULL), DS_OK, "overflow");
    CHECK_EQ(ds_session_start(&S), DS_OK, "start");
    CHECK_EQ(fp_get(&F, 0x1D9) & (1u << 12), 0, "DEBUGCTL[12] cleared (freeze none)");
    CHECK_EQ(ds_session_teardown(&S), DS_OK, "teardown");
    CHECK_EQ(fp_get(&F, 0x1D9), 1u << 12, "DEBUGCTL restored");
}

/*
 * Both freeze modes set IA32_DEBUGCTL.FREEZE_PERFMON_ON_PMI (bit 12), which
 * exists only "if CPUID.01H:ECX[15] = 1 && CPUID.0AH:EAX[7:0] > 1" (SDM
 * Vol. 4 Table 2-2, IA32_DEBUGCTL; streamlined freeze, SDM Vol. 3B
 * "Freezing Performance Monitoring on PMI", changes how counters unfreeze,
 * not that bit). So a perfmon v4/v5 CPU whose CPUID hides PDCM (a VM may)
 * runs an automatic-freeze session without freezing, DEBUGCTL untouched;
 * before, auto freeze chose streamlined there and start failed with
 * DS_ERR_UNSUPPORTED. An explicit streamlined freeze is still refused, and
 * the failed start leaves every MSR as found. Skylake (v4) and Ice Lake (v5)
 * words with CPUID.01H:ECX.PDCM cleared.
 */
static void test_auto_freeze_needs_pdcm(void)
{
    for (int v5 = 0; v5 <= 1; v5++) {
        if (v5)
            icelake();
        else
            skylake();
        for (int i = 0; i < F.nleaves; i++)
            if (F.leaves[i].leaf == 1)
                F.leaves[i].r[2] &= ~(1u << 15); /* CPUID.01H:ECX.PDCM */
        identify(true);
        CHECK(!cpu.caps.pdcm, "PDCM hidden");
        take_snap();
        memset(&S, 0, sizeof S);
        CHECK_EQ(init_default(), DS_OK, "init");
        CHECK_EQ(add(raw(0xC4, 0x00, 1000, DS_SAMPLE_OVERFLOW), NULL), DS_OK, "overflow");
        CHECK_EQ(ds_session_start(&S), DS_OK, "auto freeze without PDCM: start");
        CHECK_EQ(S.freeze, DS_FREEZE_NONE, "freeze none");
        CHECK_EQ(fp_get(&F, 0x1D9) & (1u << 12), 0, "DEBUGCTL[12] not set");
        CHECK_EQ(ds_session_teardown(&S), DS_OK, "teardown");
        check_snap("no-PDCM auto freeze");
        memset(&S, 0, sizeof S);
        struct ds_session_config c = cfg_mem();
        c.freeze_set = true;
        c.freeze = DS_FREEZE_STREAMLINED;
        CHECK_EQ(ds_session_init(&S, &cpu, &c), DS_OK, "init explicit streamlined");
        CHECK_EQ(add(raw(0xC4, 0x00, 1000, DS_SAMPLE_OVERFLOW), NULL), DS_OK, "overflow");
        CHECK_EQ(ds_session_start(&S), DS_ERR_UNSUPPORTED, "explicit streamlined freeze without PDCM refused");
        CHECK_EQ(S.state, DS_SESSION_READY, "session READY again");
        check_snap("refused freeze unwound");
    }
}

/*
 * The smallest BTS part a session takes, after the 4 KiB DS-area page.
 * 64-bit BTS records are 24 bytes (SDM Vol. 3B "BTS Record Format"). An
 * interrupting BTS buffer needs a threshold of at least one record and
 * DS_THRESH_MARGIN (2) records above it (area.h: 1 <= thresh <= records -
 * margin): 3 records; a circular one (no threshold) needs 1 record. One
 * byte less is DS_ERR_SESSION_BUF_SMALL at start. Hunting seed 9401:
 * session.c `n < margin + 1` -> `<=` survived.
 */
static void test_bts_room(void)
{
    static const struct { enum ds_sample_mode mode; size_t bytes; int want; } rows[] = {
        { DS_TRACE_BTS, 4096 + 3 * 24, DS_OK },
        { DS_TRACE_BTS, 4096 + 3 * 24 - 1, DS_ERR_SESSION_BUF_SMALL },
        { DS_TRACE_BTS_CIRCULAR, 4096 + 24, DS_OK },
        { DS_TRACE_BTS_CIRCULAR, 4096 + 24 - 1, DS_ERR_SESSION_BUF_SMALL },
    };
    for (size_t i = 0; i < N(rows); i++) {
        skylake();
        struct ds_session_config c = cfg_mem();
        c.bytes = rows[i].bytes;
        memset(&S, 0, sizeof S);
        CHECK_EQ(ds_session_init(&S, &cpu, &c), DS_OK, "init %zu bytes", rows[i].bytes);
        struct ds_request r;
        memset(&r, 0, sizeof r);
        r.mode = rows[i].mode;
        CHECK_EQ(add(r, NULL), DS_OK, "BTS request");
        CHECK_EQ(ds_session_start(&S), rows[i].want, "row %zu: %zu bytes", i, rows[i].bytes);
        if (rows[i].want == DS_OK) {
            const struct ds_area64 *a = (const struct ds_area64 *)(const void *)mem;
            CHECK_EQ(a->bts_max - a->bts_base, rows[i].bytes - 4096, "row %zu: the whole part", i);
            CHECK_EQ(ds_session_teardown(&S), DS_OK, "teardown");
        }
    }
}

/*
 * A start whose every step works on a clean CPU, rerun once per MSR it
 * wrote with writes of that one MSR faulting (#GP; reads still work, so the
 * saves pass and the fault lands in the programming steps after them).
 * session.h: start returns DS_ERR_MSR_FAULT for a faulting access, unwinds
 * and leaves the session READY; every MSR is as found (the faulted one was
 * never changed, the others are written back). Freeze is explicit (none):
 * the auto choice's fallback on a DEBUGCTL[12] fault is test_freeze_fault's.
 * Known survivor: program_all `!e && !fam6` -> `||` ran the NetBurst
 * allocator reset over an earlier step's error and started anyway (only
 * on NetBurst, where that reset runs: a DS_AREA write fault).
 */
static int sweep_start(int prof)
{
    if (prof == 3)
        netburst();
    else if (prof == 2)
        icelake();
    else
        skylake();
    take_snap();
    memset(&S, 0, sizeof S);
    memset(&got, 0, sizeof got);
    struct ds_session_config c = cfg_mem();
    c.freeze_set = true;
    c.freeze = DS_FREEZE_NONE;
    c.lbr = prof == 1;
    c.on_lbr = on_lbr;
    if (prof == 3)
        c.mem_linear = 0x200000; /* the 32-bit DS layout needs addresses below 4 GiB */
    CHECK_EQ(ds_session_init(&S, &cpu, &c), DS_OK, "sweep init");
    if (prof == 3) { /* NetBurst replay_event PEBS (as test_netburst) */
        struct ds_request r = raw(0, 0, 4000, DS_SAMPLE_PRECISE);
        r.raw.nb_event = "replay_event";
        r.raw.nb_mask = "NBOGUS";
        r.raw.nb_metric = DS_NB_METRIC_1STL_CACHE_LOAD_MISS;
        CHECK_EQ(add(r, NULL), DS_OK, "sweep NetBurst PEBS");
        fp_clear_log(&F);
        return ds_session_start(&S);
    }
    struct ds_request p = raw(0xD0, 0x81, 1000, DS_SAMPLE_PRECISE); /* MEM_INST_RETIRED.ALL_LOADS */
    if (prof == 2)
        p.groups = DS_GROUP_MEM; /* Ice Lake adaptive PEBS: MSR_PEBS_DATA_CFG */
    CHECK_EQ(add(p, NULL), DS_OK, "sweep PEBS");
    CHECK_EQ(add(raw(0x3C, 0x00, 5000, DS_SAMPLE_OVERFLOW), NULL), DS_OK, "sweep overflow");
    struct ds_request b;
    memset(&b, 0, sizeof b);
    b.mode = DS_TRACE_BTS;
    CHECK_EQ(add(b, NULL), DS_OK, "sweep BTS");
    fp_clear_log(&F);
    return ds_session_start(&S);
}
static void test_start_write_fault_sweep(void)
{
    /* 0, 1: Skylake, LBR off/on; 2: Ice Lake adaptive (its fake has no
     * LBRs); 3: NetBurst PEBS */
    for (int prof = 0; prof <= 3; prof++) {
        static uint32_t seen[256];
        unsigned ns = 0;
        wfault = 0;
        CHECK_EQ(sweep_start(prof), DS_OK, "clean start (profile %d)", prof);
        for (int i = 0; i < F.nlog; i++) {
            if (F.log[i].kind != 'w')
                continue;
            unsigned j = 0;
            while (j < ns && seen[j] != F.log[i].msr)
                j++;
            if (j == ns && ns < N(seen))
                seen[ns++] = F.log[i].msr;
        }
        CHECK_EQ(ds_session_teardown(&S), DS_OK, "clean teardown");
        CHECK(ns >= 4, "start wrote %u MSRs", ns);
        for (unsigned k = 0; k < ns; k++) {
            wfault = seen[k];
            int e = sweep_start(prof);
            CHECK_EQ(e, DS_ERR_MSR_FAULT, "profile %d: writes of MSR 0x%x fault: start says so", prof, seen[k]);
            /* every write of that MSR faults, its restore too when it was
             * saved: kept for teardown (issue 31), READY once restored */
            bool kept = S.state == DS_SESSION_STOPPED && ds_session_unrestored(&S) > 0;
            CHECK(kept || (S.state == DS_SESSION_READY && ds_session_unrestored(&S) == 0),
                  "profile %d: 0x%x: READY again, or STOPPED with MSRs to restore", prof, seen[k]);
            wfault = 0;
            if (e == DS_OK)
                (void)ds_session_teardown(&S);
            if (kept)
                CHECK_EQ(ds_session_teardown(&S), DS_OK, "profile %d: 0x%x: teardown restores the rest", prof, seen[k]);
            CHECK(S.state == DS_SESSION_READY && ds_session_unrestored(&S) == 0, "profile %d: 0x%x: READY", prof, seen[k]);
            check_snap("write fault unwound");
        }
    }
    wfault = 0;
}

/*
 * cfg.lbr on an Arch LBR CPU (Lunar Lake, CPUID.(07H,0):EDX[19]; leaf 1CH
 * EAX 80H = depth 64, EBX 7 = CPL, branch and call-stack filtering) takes
 * the default IA32_LBR_CTL: SDM Vol. 3B "IA32_LBR_CTL": LBREn [0], OS [1],
 * USR [2], the branch types JCC .. OTHER_BRANCH [22:16], no call-stack [3]:
 * 0x7F0007; IA32_LBR_DEPTH = 64; both restored by teardown. Known
 * survivor: session.c's ds_lbr_config arch_ctl 0 -> 1 (LBREn alone).
 */
static void test_arch_lbr_ctl_default(void)
{
    lunar(0);
    fp_cpuid_set(&F, 7, 0, 0, 0, 0, 1u << 19);
    fp_cpuid_set(&F, 0x1C, 0, 0x80, 0x7, 0x7, 0);
    fp_set(&F, 0x14CE, 0);
    fp_set(&F, 0x14CF, 0);
    for (unsigned i = 0; i < 64; i++) {
        fp_set(&F, 0x1500 + i, 0);
        fp_set(&F, 0x1600 + i, 0);
        fp_set(&F, 0x1200 + i, 0);
    }
    identify(true);
    CHECK(cpu.caps.arch_lbr, "Arch LBR enumerated");
    take_snap();
    memset(&S, 0, sizeof S);
    memset(&got, 0, sizeof got);
    struct ds_session_config c = cfg_mem();
    c.lbr = true;
    c.on_lbr = on_lbr;
    CHECK_EQ(ds_session_init(&S, &cpu, &c), DS_OK, "init with Arch LBR");
    CHECK_EQ(add(raw(0xC0, 0x00, 1000, DS_SAMPLE_PRECISE), NULL), DS_OK, "add");
    CHECK_EQ(ds_session_start(&S), DS_OK, "start");
    CHECK_EQ(fp_get(&F, 0x14CE), 0x7F0007, "IA32_LBR_CTL: LBREn | OS | USR | every branch type");
    CHECK_EQ(fp_get(&F, 0x14CF), 64, "IA32_LBR_DEPTH: the deepest of leaf 1CH");
    CHECK_EQ(ds_session_teardown(&S), DS_OK, "teardown");
    check_snap("Arch LBR session");
}

/*
 * One PEBS request: every record is its own, whatever the record's
 * applicable-counters field says (0, or the bit of a counter no request
 * has). Linux ds.c intel_pmu_drain_pebs_nhm: with a single PEBS event
 * enabled a record whose status (masked by pebs_enabled) is 0 "is for that
 * event" (status can be 0 when PEBS races the GLOBAL_STATUS clear). With
 * two requests such a record is refused (test_stats). Hunting seed 9112:
 * plan's `npebs = 0` -> 1 (the single-request path never taken) survived.
 */
static void test_one_pebs_owns_every_record(void)
{
    skylake();
    CHECK_EQ(init_default(), DS_OK, "init");
    unsigned a;
    CHECK_EQ(add(raw(0xC0, 0x00, 100, DS_SAMPLE_PRECISE), &a), DS_OK, "the one PEBS request");
    CHECK_EQ(add(raw(0x3C, 0x00, 5000, DS_SAMPLE_OVERFLOW), NULL), DS_OK, "an overflow request beside it");
    CHECK_EQ(ds_session_start(&S), DS_OK, "start");
    put_fmt3(1, 0x7000, 0); /* applicable counters 0 */
    CHECK_EQ(ds_session_drain_now(&S), DS_OK, "drain_now 1");
    put_fmt3(1, 0x7100, 1ull << 5); /* PMC5's bit: no request, not even a counter here */
    CHECK_EQ(ds_session_drain_now(&S), DS_OK, "drain_now 2");
    CHECK_EQ(got.n, 2, "both records delivered");
    CHECK_EQ(got.req[0], a, "record 1 to the PEBS request");
    CHECK_EQ(got.req[1], a, "record 2 to the PEBS request");
    CHECK_EQ(got.ip[0], 0x7000, "record 1 ip");
    CHECK_EQ(got.ip[1], 0x7100, "record 2 ip");
    CHECK_EQ(S.pebs_stats.lost_rejected, 0, "nothing refused");
    CHECK_EQ(S.pebs_stats.records, 2, "2 records");
    CHECK_EQ(ds_session_teardown(&S), DS_OK, "teardown");
}

/*
 * Arch PEBS on fixed counter 0 (INST_RETIRED.ANY) exactly when
 * CPUID.(23H,5):ECX bit 0 says fixed 0 can do arch PEBS (SDM CPUID leaf
 * 23H sub-leaf 5: ECX = fixed counters supporting arch PEBS): ECX 1 ->
 * fixed 0; ECX 0EH (fixed 1-3, not 0) -> a GP counter. Hunting seed 9112:
 * pick_apebs `(fixed_mask >> fixed) & 1` -> `& 2` (the neighbour's bit)
 * survived, Panther Lake's ECX 0FH has both.
 */
static void test_apebs_fixed_per_bit(void)
{
    static const struct { uint32_t ecx; bool fixed; } rows[] = { { 0x1, true }, { 0xE, false } };
    for (size_t i = 0; i < N(rows); i++) {
        panther();
        cpuid_patch(0x23, 5, 2, rows[i].ecx);
        memset(&S, 0, sizeof S);
        struct ds_session_config c = cfg_mem();
        c.mem_phys = 0x100000;
        CHECK_EQ(ds_session_init(&S, &cpu, &c), DS_OK, "init");
        CHECK_EQ(add(gen(DS_EVENT_INSTRUCTIONS, 1000, DS_SAMPLE_PRECISE), NULL), DS_OK, "instructions");
        CHECK_EQ(S.req[0].how, DS_HOW_APEBS, "23H.5 ECX 0x%x: arch PEBS", rows[i].ecx);
        CHECK_EQ(S.req[0].kind, rows[i].fixed ? DS_CTR_FIXED : DS_CTR_GP, "23H.5 ECX 0x%x: fixed %d", rows[i].ecx,
                 rows[i].fixed);
        CHECK_EQ(S.req[0].idx, 0, "23H.5 ECX 0x%x: counter 0 of its kind", rows[i].ecx);
    }
}

/*
 * The same per-bit rule for a counting request (DS_COUNT): instructions on
 * fixed counter 0 exactly when it exists. Perfmon v5 (SDM CPUID.0AH:
 * fixed counter i is supported iff ECX[i] or EDX[4:0] > i): ECX 1, EDX[4:0]
 * 0 -> fixed 0; ECX 2 (fixed 1 only) -> a GP counter. The class of
 * pick_apebs `& 1` -> `& 2` in add_count.
 */
static void test_count_fixed_per_bit(void)
{
    static const struct { uint32_t ecx; bool fixed; } rows[] = { { 0x1, true }, { 0x2, false } };
    for (size_t i = 0; i < N(rows); i++) {
        fam6(0x000706E5, 0x08300805, rows[i].ecx, 0x00000600, 0x64BF); /* icelake() with ECX, EDX[4:0] 0 */
        CHECK_EQ(cpu.caps.fixed_mask, rows[i].ecx, "fixed_mask = ECX 0x%x", rows[i].ecx);
        CHECK_EQ(init_default(), DS_OK, "init");
        CHECK_EQ(add(gen(DS_EVENT_INSTRUCTIONS, 0, DS_COUNT), NULL), DS_OK, "count instructions");
        CHECK_EQ(S.req[0].kind, rows[i].fixed ? DS_CTR_FIXED : DS_CTR_GP, "0AH ECX 0x%x: fixed %d", rows[i].ecx,
                 rows[i].fixed);
        CHECK_EQ(S.req[0].idx, 0, "0AH ECX 0x%x: counter 0 of its kind", rows[i].ecx);
    }
}

/*
 * DS-area PEBS on fixed 0 (Ice Lake adaptive PEBS: SDM "PEBS on fixed
 * counters" needs format 4+ with baseline) serves one request: a second
 * precise instructions request gets a GP counter, and a third a GP counter
 * other than the second's. The DS-PEBS twin of test_apebs_fixed_taken:
 * pick_ds_pebs `!((ufx >> fixed) & 1)` -> `& 2` gave fixed 0 twice.
 */
static void test_ds_pebs_fixed_taken(void)
{
    icelake();
    CHECK_EQ(init_default(), DS_OK, "init");
    for (int k = 0; k < 3; k++)
        CHECK_EQ(add(gen(DS_EVENT_INSTRUCTIONS, 1000 + 1000 * (uint64_t)k, DS_SAMPLE_PRECISE), NULL), DS_OK,
                 "instructions %d", k);
    CHECK_EQ(S.req[0].how, DS_HOW_PEBS, "first: PEBS");
    CHECK(S.req[0].kind == DS_CTR_FIXED && S.req[0].idx == 0, "first on fixed 0 (%d/%u)", S.req[0].kind,
          S.req[0].idx);
    CHECK(S.req[1].how == DS_HOW_PEBS && S.req[1].kind == DS_CTR_GP, "second PEBS on a GP counter (%d/%u)",
          S.req[1].kind, S.req[1].idx);
    CHECK(S.req[2].how == DS_HOW_PEBS && S.req[2].kind == DS_CTR_GP && S.req[2].idx != S.req[1].idx,
          "third on another GP counter (%d/%u)", S.req[2].kind, S.req[2].idx);
    CHECK_EQ(ds_session_start(&S), DS_OK, "start");
    /* SDM IA32_PEBS_ENABLE: PMCn bit n, fixed counter m bit 32 + m */
    CHECK_EQ(fp_get(&F, 0x3F1), (1ull << 32) | (1ull << S.req[1].idx) | (1ull << S.req[2].idx),
             "PEBS_ENABLE: fixed 0 and the two GP counters");
    CHECK_EQ(ds_session_teardown(&S), DS_OK, "teardown");
}

/*
 * Perfmon v4 (Skylake) with LBR and the freeze: a handled PMI whose
 * GLOBAL_STATUS lacks LBR_Frz (58) acknowledges what it had and does not
 * write LBR_Frz to IA32_PERF_GLOBAL_STATUS_RESET (390H); with LBR_Frz set
 * it does (SDM "Freezing LBR and Performance Counters on PMI": v4 records
 * the freeze in status bit 58; Linux intel_pmu_handle_irq acknowledges the
 * status bits it read). Before v4 there is no such bit (the CPU clears
 * DEBUGCTL.LBR: test_lbr_legacy_unfreeze). Hunting seed 9113: lbr_after's
 * `perfmon_version < 4` -> `<= 4` (an unfreeze on every v4 PMI) survived.
 */
static bool wrote_390_bit58(void)
{
    for (int i = 0; i < F.nlog; i++)
        if (F.log[i].kind == 'w' && F.log[i].msr == 0x390 && (F.log[i].val & (1ull << 58)))
            return true;
    return false;
}
static void test_v4_lbr_unfreeze_only_frozen(void)
{
    skylake();
    for (unsigned i = 0; i < 32; i++) {
        fp_set(&F, 0x680 + i, 0);
        fp_set(&F, 0x6C0 + i, 0);
        fp_set(&F, 0xDC0 + i, 0);
    }
    fp_set(&F, 0x1C9, 0);
    fp_set(&F, 0x1C8, 0);
    memset(&S, 0, sizeof S);
    memset(&got, 0, sizeof got);
    struct ds_session_config c = cfg_mem();
    c.lbr = true;
    c.on_lbr = on_lbr;
    CHECK_EQ(ds_session_init(&S, &cpu, &c), DS_OK, "init with LBR");
    CHECK_EQ(add(raw(0xC0, 0x00, 100, DS_SAMPLE_PRECISE), NULL), DS_OK, "add");
    CHECK_EQ(ds_session_start(&S), DS_OK, "start");
    CHECK(S.freeze != DS_FREEZE_NONE, "a freeze (auto on v4)");
    fp_set(&F, 0x38E, 1ull << 62); /* OvfBuffer, no LBR_Frz */
    fp_clear_log(&F);
    CHECK_EQ(ds_session_pmi(&S, 0, NULL), DS_OK, "PMI without LBR_Frz");
    CHECK(!wrote_390_bit58(), "no LBR_Frz written to STATUS_RESET");
    fp_set(&F, 0x38E, (1ull << 62) | (1ull << 58));
    fp_clear_log(&F);
    CHECK_EQ(ds_session_pmi(&S, 0, NULL), DS_OK, "PMI with LBR_Frz");
    CHECK(wrote_390_bit58(), "LBR_Frz reset");
    CHECK_EQ(ds_session_teardown(&S), DS_OK, "teardown");
}

/*
 * Two DS_COUNT instructions requests (Ice Lake): fixed 0 counts for one
 * only, the second gets a GP counter; cycles still take fixed 1 (SDM
 * fixed counters: 0 INST_RETIRED.ANY, 1 CPU_CLK_UNHALTED.CORE). Kills
 * add_count `!((ufx >> fixed) & 1)` -> `& 2` (fixed 0 given twice).
 */
static void test_count_fixed_taken(void)
{
    icelake();
    CHECK_EQ(init_default(), DS_OK, "init");
    CHECK_EQ(add(gen(DS_EVENT_INSTRUCTIONS, 0, DS_COUNT), NULL), DS_OK, "count instructions 1");
    CHECK_EQ(add(gen(DS_EVENT_INSTRUCTIONS, 0, DS_COUNT), NULL), DS_OK, "count instructions 2");
    CHECK_EQ(add(gen(DS_EVENT_CYCLES, 0, DS_COUNT), NULL), DS_OK, "count cycles");
    CHECK(S.req[0].kind == DS_CTR_FIXED && S.req[0].idx == 0, "first on fixed 0 (%d/%u)", S.req[0].kind, S.req[0].idx);
    CHECK_EQ(S.req[1].kind, DS_CTR_GP, "second on a GP counter");
    CHECK(S.req[2].kind == DS_CTR_FIXED && S.req[2].idx == 1, "cycles on fixed 1 (%d/%u)", S.req[2].kind, S.req[2].idx);
}

/*
 * Skylake's instructions row is INST_RETIRED.PREC_DIST C0H/01H, PMC1 only
 * (Linux ds.c INTEL_PST_CONSTRAINT(0x01c0, 0x2)). A second DS_COUNT
 * instructions request (fixed 0 taken) counts INST_RETIRED.ANY_P C0H/00H,
 * the same instructions, on PMC0, the first free GP counter. Resample of
 * seed 9112: add_count's `== 0x01C0` -> `!=` (PMC1 with PREC_DIST) survived.
 */
static void test_count_prec_dist_any_p(void)
{
    skylake();
    CHECK_EQ(init_default(), DS_OK, "init");
    CHECK_EQ(add(gen(DS_EVENT_INSTRUCTIONS, 0, DS_COUNT), NULL), DS_OK, "count instructions 1");
    CHECK_EQ(add(gen(DS_EVENT_INSTRUCTIONS, 0, DS_COUNT), NULL), DS_OK, "count instructions 2");
    CHECK(S.req[0].kind == DS_CTR_FIXED && S.req[0].idx == 0, "first on fixed 0 (%d/%u)", S.req[0].kind, S.req[0].idx);
    CHECK(S.req[1].kind == DS_CTR_GP && S.req[1].idx == 0, "second on PMC0 (%d/%u)", S.req[1].kind, S.req[1].idx);
    CHECK_EQ(S.req[1].evtsel & 0xFFFF, 0x00C0, "second counts INST_RETIRED.ANY_P C0H/00H");
}

/*
 * Blind seed 9907 survivors. (1) A CPU with DS whose IA32_MISC_ENABLE
 * sets BTS_UNAVAILABLE (bit 11, SDM Vol. 4 Table 2-2) has a DS layout but
 * no BTS: a BTS request is DS_ERR_SESSION_NO_DS (add_bts `||` -> `&&`
 * survived: every earlier no-BTS profile had no DS at all). (2) A fixed
 * counter width of 65 (CPUID.0AH:EDX[12:5] is 8 bits; the SDM bounds
 * counter widths by 64; pmc.h widths 8..64) takes no fixed-counter
 * sampling, as width 7 does (test_fixed_width_8): `w > 64` -> `> 65`
 * survived.
 */
static void test_blind9907_bts_unavailable_and_fixed_width_65(void)
{
    skylake();
    fp_set(&F, DS_MSR_IA32_MISC_ENABLE, (1u << 7) | (1u << 11));
    identify(true);
    CHECK(cpu.caps.ds && !cpu.caps.bts_advertised && cpu.caps.pebs_advertised, "DS and PEBS, BTS unavailable");
    CHECK_EQ(init_default(), DS_OK, "init");
    struct ds_request t;
    memset(&t, 0, sizeof t);
    t.mode = DS_TRACE_BTS;
    CHECK_EQ(add(t, NULL), DS_ERR_SESSION_NO_DS, "BTS with BTS_UNAVAILABLE");
    t.mode = DS_TRACE_BTS_CIRCULAR;
    CHECK_EQ(add(t, NULL), DS_ERR_SESSION_NO_DS, "circular BTS with BTS_UNAVAILABLE");
    CHECK_EQ(add(raw(0xC4, 0x00, 1000, DS_SAMPLE_PRECISE), NULL), DS_OK, "PEBS still taken");
    fam6(0x000706E5, 0x08300805, 0xF, (65u << 5) | 4, 0x64BF); /* ICL, 4 fixed x 65 bits */
    CHECK_EQ(cpu.caps.fixed_width, 65, "fixed width 65 as CPUID says");
    CHECK_EQ(init_default(), DS_OK, "init");
    CHECK(add(gen(DS_EVENT_INSTRUCTIONS, 64, DS_SAMPLE_PRECISE), NULL) != DS_OK || S.req[0].kind != DS_CTR_FIXED,
          "width 65: no fixed-counter sampling");
}

/*
 * Issue 31: misuse refused, each with its specific error, before any MSR
 * is written (most before any is read). Expected codes: session.h / err.h
 * contracts; the facts behind them: SDM Vol. 3B "DS Save Area" (64-bit
 * linear addresses, canonical), Vol. 2A CPUID 80000008H:EAX[15:8] (linear
 * width), Vol. 3B freeze modes (perfmon v2 FREEZE_PERFMON_ON_PMI, v4
 * streamlined), perfmon *_core.json 3CH "PEBS": "0" (pmc.c).
 */
static const struct misuse_row misuse[29] = {
    { "region = the struct ds_session", DS_ERR_SESSION_MEM_OVERLAP },
    { "region = the struct ds_cpu", DS_ERR_SESSION_MEM_OVERLAP },
    { "region over the last 8 bytes of the session", DS_ERR_SESSION_MEM_OVERLAP },
    { "bytes = SIZE_MAX over a 64 KiB array", DS_ERR_SESSION_MEM_RANGE },
    { "mem_linear + bytes wraps 2^64", DS_ERR_SESSION_MEM_RANGE },
    { "mem_phys + bytes wraps 2^64", DS_ERR_SESSION_MEM_RANGE },
    { "linear range past 2^47 (48-bit width)", DS_ERR_SESSION_MEM_RANGE },
    { "non-canonical mem_linear", DS_ERR_SESSION_MEM_RANGE },
    { "init on a stopped session", DS_ERR_SESSION_STATE },
    { "freeze mode 9", DS_ERR_PMI_FREEZE_MODE },
    { "freeze mode 3 on Skylake", DS_ERR_PMI_FREEZE_MODE },
    { "streamlined freeze on Core 2 (v2)", DS_ERR_PMI_FREEZE_MODE },
    { "legacy freeze on NetBurst", DS_ERR_PMI_FREEZE_MODE },
    { "pebs_flags bit 1", DS_ERR_BAD_FLAGS },
    { "start: 4 KiB + 100 bytes", DS_ERR_SESSION_BUF_SMALL },
    { "start: arch PEBS physical address off 4 KiB", DS_ERR_APEBS_BASE_ALIGN },
    { "start: arch PEBS physical range at MAXPHYADDR", DS_ERR_APEBS_PHYS_ADDR },
    { "start: 32-bit DS layout, PEBS buffer across 4 GiB", DS_ERR_BUF_ADDR },
    { "Skylake: raw 3CH precise", DS_ERR_SESSION_NOT_PRECISE },
    { "Skylake: raw nb_metric 5", DS_ERR_SESSION_RAW },
    { "Skylake: raw with nb_mask", DS_ERR_SESSION_RAW },
    { "start: arch PEBS part under 4 KiB", DS_ERR_SESSION_BUF_SMALL },
    { "start: interrupt BTS with one record after the DS area page", DS_ERR_SESSION_BUF_SMALL },
    { "start: 32-bit DS layout, DS area at 4 GiB", DS_ERR_AREA_ADDR },
    { "qemu32: init (no DS, perfmon v0)", DS_ERR_SESSION_NO_PMU },
    { "Pentium M-like (DS, no leaf 0AH): generic precise add", DS_ERR_SESSION_NO_DS },
    { "Pentium M-like: generic overflow add", DS_ERR_NO_PERFMON },
    { "Pentium M-like: generic count add", DS_ERR_NO_PERFMON },
    { "Skylake without DS: generic precise add", DS_ERR_SESSION_NO_DS },
};

/* QEMU's default qemu32 (target/i386/cpu.c "qemu32": GenuineIntel, level 4,
 * family 6 model 6 stepping 3, PPRO_FEATURES: no DS, no leaf 0AH), and a
 * Pentium M-like part (06_0DH: DS and BTS, PEBS_UNAVAILABLE, no leaf 0AH;
 * MISC_ENABLE[7] set) whose uarch the event tables do not know. */
static void qemu32(void)
{
    fp_reset(&F);
    fp_intel(&F, 4, 0x00000663, 1u, 0x0783FBFDu);
    fp_set(&F, DS_MSR_IA32_MISC_ENABLE, 1);
    identify(false);
}

static void pentium_m(void)
{
    fp_reset(&F);
    fp_intel(&F, 2, 0x000006D8, 0, 0x0783FBFDu | (1u << 21));
    fp_set(&F, DS_MSR_IA32_MISC_ENABLE, (1u << 7) | (1u << 12));
    fp_set(&F, 0x1D9, 0);
    identify(false);
}

/* Skylake with CPUID.01H:EDX[21] (DS) hidden, as a hypervisor may. */
static void skylake_no_ds(void)
{
    skylake();
    for (int i = 0; i < F.nleaves; i++)
        if (F.leaves[i].leaf == 1)
            F.leaves[i].r[3] &= ~(1u << 21);
    identify(true);
}

static struct ds_request generic(enum ds_event ev, enum ds_sample_mode mode)
{
    struct ds_request r;
    memset(&r, 0, sizeof r);
    r.event = ev;
    r.period = 1000;
    r.mode = mode;
    return r;
}

/* describe on Ice Lake: precise instructions on fixed counter 0 names its
 * IA32_FIXED_CTR_CTRL field (SDM: OS bit 0, USR bit 1: both rings 0x3),
 * not an EVTSEL a fixed counter does not have (issue 29). */
static void test_describe_fixed_field(void)
{
    icelake();
    CHECK_EQ(init_default(), DS_OK, "init");
    CHECK_EQ(add(generic(DS_EVENT_INSTRUCTIONS, DS_SAMPLE_PRECISE), NULL), DS_OK, "instructions precise");
    CHECK(S.req[0].kind == DS_CTR_FIXED && S.req[0].idx == 0, "on FIXED0");
    char buf[1024];
    CHECK_EQ(ds_session_describe(&S, buf, sizeof buf), DS_OK, "describe");
    CHECK(strstr(buf, " fixed_ctr_ctrl 0x3 on FIXED0, PEBS") != NULL, "the FIXED_CTR_CTRL field:\n%s", buf);
    CHECK(!strstr(buf, "evtsel"), "no EVTSEL for a fixed counter:\n%s", buf);
    struct ds_request r = generic(DS_EVENT_INSTRUCTIONS, DS_SAMPLE_PRECISE);
    r.rings = DS_RING_USER;
    CHECK_EQ(init_default(), DS_OK, "init");
    CHECK_EQ(add(r, NULL), DS_OK, "user-only instructions");
    CHECK_EQ(ds_session_describe(&S, buf, sizeof buf), DS_OK, "describe");
    CHECK(strstr(buf, " fixed_ctr_ctrl 0x2 on FIXED0") != NULL, "USR only: 0x2:\n%s", buf);
    /* planned BTS before start: 64-bit records of 24 bytes (SDM BTS record
     * format) in the region after the DS area page; circular: no threshold */
    skylake();
    CHECK_EQ(init_default(), DS_OK, "init");
    memset(&r, 0, sizeof r);
    r.mode = DS_TRACE_BTS_CIRCULAR;
    CHECK_EQ(add(r, NULL), DS_OK, "BTS circular");
    char want[128];
    snprintf(want, sizeof want, "planned BTS buffer: %u records, threshold 0 (circular)\n",
             (unsigned)((sizeof mem - 4096) / 24));
    CHECK_EQ(ds_session_describe(&S, buf, sizeof buf), DS_OK, "describe");
    CHECK(strstr(buf, want) != NULL, "want '%s':\n%s", want, buf);
    /* a region start would refuse: said before start */
    struct ds_session_config c = cfg_mem();
    c.bytes = 4096 + 100;
    memset(&S, 0, sizeof S);
    CHECK_EQ(ds_session_init(&S, &cpu, &c), DS_OK, "init, 4 KiB + 100");
    CHECK_EQ(add(raw(0xC0, 0x00, 1000, DS_SAMPLE_PRECISE), NULL), DS_OK, "PEBS");
    CHECK_EQ(ds_session_describe(&S, buf, sizeof buf), DS_OK, "describe");
    CHECK(strstr(buf, "planned buffers: none, start would fail: ") != NULL, "the refusal named:\n%s", buf);
    CHECK_EQ(ds_session_start(&S), DS_ERR_SESSION_BUF_SMALL, "and start refuses it");
}

/* Index of the first logged write to @msr from @from on, or -1. */
static int write_at(uint32_t msr, int from)
{
    for (int i = from; i < F.nlog; i++)
        if (F.log[i].kind == 'w' && F.log[i].msr == msr)
            return i;
    return -1;
}

/* ds_session_set_period (issue 29 item 6), Linux perf_event_period's
 * order on a running counter: GLOBAL_CTRL bit off, counter = -period
 * (48-bit full width: 2^48 - period), DS reset slot = -period, GLOBAL_CTRL
 * back; the PMI then reloads the new value. Validation as add. */
static void test_set_period(void)
{
    skylake();
    CHECK_EQ(init_default(), DS_OK, "init");
    unsigned a, b, c;
    CHECK_EQ(add(raw(0xC4, 0x00, 100, DS_SAMPLE_OVERFLOW), &a), DS_OK, "overflow request (PMC3)");
    CHECK_EQ(add(raw(0xC0, 0x00, 100, DS_SAMPLE_PRECISE), &b), DS_OK, "PEBS request (PMC0)");
    CHECK_EQ(add(raw(0xC0, 0x00, 0, DS_COUNT), &c), DS_OK, "count request");
    CHECK_EQ(ds_session_set_period(&S, a, 300), DS_OK, "READY: kept for start");
    CHECK_EQ(ds_session_start(&S), DS_OK, "start");
    CHECK_EQ(fp_get(&F, 0xC4), 0x1000000000000ull - 300, "start used the new period");
    fp_clear_log(&F);
    CHECK_EQ(ds_session_set_period(&S, a, 500), DS_OK, "running overflow request");
    /* full-width write (PERF_CAPABILITIES.FW_WRITE): IA32_A_PMC3 4C4H */
    int off = write_at(0x38F, 0), w = write_at(0x4C4, 0), on = write_at(0x38F, off + 1);
    CHECK(off >= 0 && w > off && on > w, "GLOBAL_CTRL off, PMC3, GLOBAL_CTRL on (%d %d %d)", off, w, on);
    CHECK_EQ(off >= 0 ? F.log[off].val : 0, 0x3, "PMC3's bit cleared, PMC0 and the count's PMC1 still enabled");
    CHECK_EQ(fp_get(&F, 0xC4), 0x1000000000000ull - 500, "PMC3 = -500");
    CHECK_EQ(fp_get(&F, 0x38F), 0xB, "GLOBAL_CTRL back to PMC0|PMC1|PMC3");
    fp_set(&F, 0x38E, 1ull << 3);
    fp_set(&F, 0xC4, 5);
    struct ds_pmi_result res;
    CHECK_EQ(ds_session_pmi(&S, 0x10, &res), DS_OK, "PMI");
    CHECK_EQ(fp_get(&F, 0xC4), 0x1000000000000ull - 500, "the PMI reloads -500");
    CHECK_EQ(ds_session_set_period(&S, b, 2000), DS_OK, "running PEBS request");
    const struct ds_area64 *ar = (const struct ds_area64 *)(const void *)mem;
    CHECK_EQ(fp_get(&F, 0xC1), 0x1000000000000ull - 2000, "PMC0 = -2000");
    CHECK_EQ(ar->pebs_reset[0], 0x1000000000000ull - 2000, "DS reset slot 0 = -2000");
    /* refusals: nothing changes */
    fp_clear_log(&F);
    CHECK_EQ(ds_session_set_period(&S, b, 0), DS_ERR_SESSION_BAD_PERIOD, "period 0");
    CHECK_EQ(ds_session_set_period(&S, b, 1ull << 48), DS_ERR_SESSION_BAD_PERIOD, "beyond the 48-bit counter");
    CHECK_EQ(ds_session_set_period(&S, c, 100), DS_ERR_SESSION_NO_PERIOD, "DS_COUNT has no period");
    CHECK_EQ(ds_session_set_period(&S, 3, 100), DS_ERR_SESSION_BAD_REQ, "id 3: not added");
    CHECK_EQ(ds_session_set_period(&S, ~0u, 100), DS_ERR_SESSION_BAD_REQ, "id ~0");
    CHECK_EQ(ds_session_set_period(NULL, 0, 100), DS_ERR_NULL, "NULL");
    CHECK_EQ(F.nlog, 0, "refusals touch no MSR");
    CHECK_EQ(S.req[b].rq.period, 2000, "period unchanged by the refusals");
    CHECK_EQ(ds_session_teardown(&S), DS_OK, "teardown");
    struct ds_session z;
    memset(&z, 0, sizeof z);
    CHECK_EQ(ds_session_set_period(&z, 0, 100), DS_ERR_SESSION_STATE, "never initialised");
    /* BTS */
    CHECK_EQ(init_default(), DS_OK, "init");
    struct ds_request r;
    memset(&r, 0, sizeof r);
    r.mode = DS_TRACE_BTS;
    CHECK_EQ(add(r, &a), DS_OK, "BTS");
    CHECK_EQ(ds_session_set_period(&S, a, 100), DS_ERR_SESSION_NO_PERIOD, "BTS has no period");
    /* Ice Lake fixed counter 0 (PEBS): FIXED_CTR0 = -period; arch PEBS
     * limit 2^31 checked on Panther Lake */
    icelake();
    CHECK_EQ(init_default(), DS_OK, "init");
    CHECK_EQ(add(generic(DS_EVENT_INSTRUCTIONS, DS_SAMPLE_PRECISE), &a), DS_OK, "instructions on FIXED0");
    CHECK_EQ(ds_session_start(&S), DS_OK, "start");
    CHECK_EQ(ds_session_set_period(&S, a, 4000), DS_OK, "fixed counter");
    CHECK_EQ(fp_get(&F, 0x309), 0x1000000000000ull - 4000, "FIXED_CTR0 = -4000");
    CHECK_EQ(fp_get(&F, 0x38F), 1ull << 32, "GLOBAL_CTRL back to FIXED0");
    CHECK_EQ(ds_session_teardown(&S), DS_OK, "teardown");
    panther();
    CHECK_EQ(init_default(), DS_OK, "init");
    CHECK_EQ(add(raw(0xC0, 0x00, 100, DS_SAMPLE_PRECISE), &a), DS_OK, "arch PEBS request");
    CHECK_EQ(ds_session_set_period(&S, a, (1ull << 31) + 1), DS_ERR_SESSION_BAD_PERIOD, "arch PEBS: above 2^31");
    CHECK_EQ(ds_session_set_period(&S, a, 1ull << 31), DS_OK, "arch PEBS: 2^31");
}

/* ds_session_set_period on NetBurst (issue 29), Linux p4.c's order for
 * perf_event_period: p4_pmu_disable_event (CCCR without Enable bit 12 and
 * OVF bit 31), p4_pmu_set_period (the counter = 2^40 - period, written
 * twice: erratum N15), the PEBS counter's DS reset slot, then the CCCR with
 * Enable (__p4_pmu_enable_event). IQ_COUNTER4 310H / IQ_CCCR4 370H (SDM
 * NetBurst counter table); the 32-bit DS area's reset slot. Stopped: no
 * MSR written, the next start takes the period. */
static void test_set_period_netburst(void)
{
    netburst();
    memset(&S, 0, sizeof S);
    memset(&got, 0, sizeof got);
    struct ds_session_config c = cfg_mem();
    c.mem_linear = 0x200000;
    CHECK_EQ(ds_session_init(&S, &cpu, &c), DS_OK, "init");
    struct ds_request r = raw(0, 0, 4000, DS_SAMPLE_PRECISE);
    r.raw.nb_event = "replay_event";
    r.raw.nb_mask = "NBOGUS";
    r.raw.nb_metric = DS_NB_METRIC_1STL_CACHE_LOAD_MISS;
    unsigned pb, ov;
    CHECK_EQ(add(r, &pb), DS_OK, "replay_event PEBS (IQ_COUNTER4)");
    CHECK_EQ(add(gen(DS_EVENT_INSTRUCTIONS, 1000, DS_SAMPLE_AUTO), &ov), DS_OK, "instructions by overflow");
    CHECK_EQ(ds_session_start(&S), DS_OK, "start");
    uint64_t cccr_on = fp_get(&F, 0x370);
    CHECK_EQ(cccr_on & (1u << 12), 1u << 12, "IQ_CCCR4 enabled");
    fp_set(&F, 0x370, cccr_on | (1ull << 31)); /* an overflow latched */
    fp_clear_log(&F);
    CHECK_EQ(ds_session_set_period(&S, pb, 3000), DS_OK, "running NetBurst PEBS request");
    CHECK_EQ(F.nlog, 4, "CCCR, counter twice, CCCR: %d writes", F.nlog);
    const uint32_t order[] = { 0x370, 0x310, 0x310, 0x370 };
    for (int i = 0; i < 4 && i < F.nlog; i++)
        CHECK(F.log[i].kind == 'w' && F.log[i].msr == order[i], "write %d: 0x%X (got %c 0x%X)", i, order[i],
              F.log[i].kind, F.log[i].msr);
    if (F.nlog == 4) {
        CHECK_EQ(F.log[0].val, cccr_on & ~(1ull << 12), "stop: CCCR without Enable, OVF cleared");
        CHECK_EQ(F.log[1].val, 0x10000000000ull - 3000, "counter = 2^40 - 3000");
        CHECK_EQ(F.log[2].val, 0x10000000000ull - 3000, "written twice (erratum N15)");
        CHECK_EQ(F.log[3].val, cccr_on, "restart: the CCCR start wrote");
    }
    const struct ds_area32 *a = (const struct ds_area32 *)(const void *)mem;
    CHECK_EQ(a->pebs_reset_lo, (uint32_t)(0x10000000000ull - 3000), "DS reset slot low = 2^40 - 3000");
    CHECK_EQ(a->pebs_reset_hi, 0xFF, "reset bits 39:32");
    /* the overflow request: its counter, and the PMI reloads the new period */
    uint32_t cccr = S.req[ov].nbas.cccr_msr, ctr = S.req[ov].nbas.counter_msr;
    CHECK_EQ(ds_session_set_period(&S, ov, 700), DS_OK, "running NetBurst overflow request");
    CHECK_EQ(fp_get(&F, ctr), 0x10000000000ull - 700, "counter = 2^40 - 700");
    CHECK_EQ(fp_get(&F, cccr) & (1u << 12), 1u << 12, "its CCCR enabled again");
    fp_set(&F, cccr, fp_get(&F, cccr) | (1ull << 31));
    fp_set(&F, ctr, 3);
    CHECK_EQ(ds_session_pmi(&S, 0x777, NULL), DS_OK, "PMI");
    CHECK_EQ(fp_get(&F, ctr), 0x10000000000ull - 700, "the PMI reloads 2^40 - 700");
    /* refusals touch nothing */
    fp_clear_log(&F);
    CHECK_EQ(ds_session_set_period(&S, pb, 0), DS_ERR_SESSION_BAD_PERIOD, "period 0");
    CHECK_EQ(ds_session_set_period(&S, pb, (1ull << 39) + 1), DS_ERR_SESSION_BAD_PERIOD, "above 2^39 (ds_nb_period)");
    CHECK_EQ(F.nlog, 0, "refusals touch no MSR");
    CHECK_EQ(ds_session_set_period(&S, pb, 1ull << 39), DS_OK, "2^39");
    CHECK_EQ(fp_get(&F, 0x310), 0x8000000000ull, "counter = 2^40 - 2^39");
    /* stopped: kept for the next start, no MSR written */
    CHECK_EQ(ds_session_stop(&S), DS_OK, "stop");
    fp_clear_log(&F);
    CHECK_EQ(ds_session_set_period(&S, pb, 5000), DS_OK, "stopped");
    CHECK_EQ(F.nlog, 0, "stopped: no MSR access");
    CHECK_EQ(ds_session_teardown(&S), DS_OK, "teardown");
    CHECK_EQ(ds_session_start(&S), DS_OK, "start again");
    CHECK_EQ(fp_get(&F, 0x310), 0x10000000000ull - 5000, "start used the stopped session's new period");
    CHECK_EQ(a->pebs_reset_lo, (uint32_t)(0x10000000000ull - 5000), "and its DS reset slot");
    CHECK_EQ(ds_session_teardown(&S), DS_OK, "teardown");
}

/* ds_lvt_pc_value (lvt.h, issue 29): the SDM LVT layout (vector 7:0,
 * delivery mode 10:8 with NMI 100b, mask 16; reset 0x00010000) and Linux's
 * NMI value 0x400 (APIC_DM_NMI), typed here from the SDM figure. */
static void test_lvt_pc_value(void)
{
    uint32_t v = 0;
    CHECK_EQ(ds_lvt_pc_value(true, 0, false, &v), DS_OK, "NMI");
    CHECK_EQ(v, 0x400, "NMI unmasked = Linux's APIC_DM_NMI");
    CHECK_EQ(ds_lvt_pc_value(true, 0, true, &v), DS_OK, "NMI masked");
    CHECK_EQ(v, 0x10400, "NMI masked");
    CHECK_EQ(ds_lvt_pc_value(false, 0xF0, false, &v), DS_OK, "fixed 0xF0");
    CHECK_EQ(v, 0xF0, "fixed, vector in 7:0");
    CHECK_EQ(ds_lvt_pc_value(false, 32, true, &v), DS_OK, "fixed 32 masked");
    CHECK_EQ(v, 0x10020, "vector 32 masked");
    CHECK_EQ(ds_lvt_pc_value(false, 255, false, &v), DS_OK, "fixed 255");
    CHECK_EQ(v, 0xFF, "vector 255");
    CHECK_EQ(ds_lvt_pc_value(false, 31, false, &v), DS_ERR_PMI_LVT_VECTOR, "vector 31: an exception");
    CHECK_EQ(v, 0x10000, "refused: the masked reset value");
    CHECK_EQ(ds_lvt_pc_value(false, 256, false, &v), DS_ERR_PMI_LVT_VECTOR, "vector 256");
    CHECK_EQ(ds_lvt_pc_value(true, 2, false, &v), DS_ERR_PMI_LVT_VECTOR, "NMI with a vector");
    CHECK_EQ(ds_lvt_pc_value(true, 0, false, NULL), DS_ERR_NULL, "NULL");
    CHECK_EQ(DS_LVT_PC_XAPIC_OFFSET, 0x340, "xAPIC offset");
    CHECK_EQ(DS_MSR_IA32_X2APIC_LVT_PMI, 0x834, "x2APIC MSR");
}

/* cfg.probe (issue 29 item 6): on a PMU that accepts writes and drops them
 * (QEMU TCG), start fails with DS_ERR_NOT_WORKING and leaves nothing to
 * restore; without the flag the same start succeeds (and would sample
 * nothing); on a working PMU the probe passes. */
static void test_start_probe(void)
{
    struct ds_session_config c = cfg_mem();
    c.probe = true;
    skylake();
    memset(&S, 0, sizeof S);
    CHECK_EQ(ds_session_init(&S, &cpu, &c), DS_OK, "init");
    CHECK_EQ(add(raw(0xC0, 0x00, 1000, DS_SAMPLE_PRECISE), NULL), DS_OK, "PEBS request");
    CHECK_EQ(ds_session_start(&S), DS_OK, "working PMU: the probe passes");
    CHECK_EQ(ds_session_teardown(&S), DS_OK, "teardown");
    F.drop_writes = 1;
    CHECK_EQ(ds_session_start(&S), DS_ERR_NOT_WORKING, "writes dropped: inert");
    CHECK(S.state == DS_SESSION_READY && ds_session_unrestored(&S) == 0, "not started, nothing to restore");
    memset(&S, 0, sizeof S);
    c.probe = false;
    CHECK_EQ(ds_session_init(&S, &cpu, &c), DS_OK, "init without probe");
    CHECK_EQ(add(raw(0xC4, 0x00, 1000, DS_SAMPLE_OVERFLOW), NULL), DS_OK, "overflow request");
    CHECK_EQ(ds_session_start(&S), DS_OK, "without the probe the inert PMU starts");
    CHECK_EQ(ds_session_teardown(&S), DS_OK, "teardown");
    memset(&S, 0, sizeof S);
    c.probe = true;
    CHECK_EQ(ds_session_init(&S, &cpu, &c), DS_OK, "init");
    CHECK_EQ(add(raw(0xC4, 0x00, 1000, DS_SAMPLE_OVERFLOW), NULL), DS_OK, "overflow request (counter only)");
    CHECK_EQ(ds_session_start(&S), DS_ERR_NOT_WORKING, "overflow only: the counter is inert");
    F.drop_writes = 0;
}

/* The cause-first checks refuse only what the CPU lacks: the Pentium
 * M-like part (DS, BTS, no perfmon) still takes its BTS request. */
static void test_cause_first_bts(void)
{
    struct ds_session_config c = cfg_mem();
    pentium_m();
    memset(&S, 0, sizeof S);
    CHECK_EQ(ds_session_init(&S, &cpu, &c), DS_OK, "Pentium M-like: init (BTS possible)");
    struct ds_request r;
    memset(&r, 0, sizeof r);
    r.mode = DS_TRACE_BTS;
    CHECK_EQ(add(r, NULL), DS_OK, "Pentium M-like: BTS request");
}

/* Run row @i; the refused call is the last, after fp_clear_log. */
static int run_misuse(unsigned i)
{
    struct ds_request r = raw(0xC0, 0, 1000, DS_SAMPLE_PRECISE);
    struct ds_session_config c = cfg_mem();
    skylake();
    memset(&S, 0, sizeof S);
    fp_clear_log(&F);
    switch (i) {
    case 0: c.mem = &S; c.bytes = sizeof S; break;
    case 1: c.mem = &cpu; c.bytes = sizeof cpu; break;
    case 2: c.mem = (unsigned char *)&S + sizeof S - 8; c.bytes = 4096; break;
    case 3: c.bytes = SIZE_MAX; break;
    case 4: c.mem_linear = 0xFFFFFFFFFFFF8000ull; break;
    case 5: c.mem_phys = 0xFFFFFFFFFFFF8000ull; break;
    case 6: c.mem_linear = 0x00007FFFFFFF8000ull; break;
    case 7: c.mem_linear = 0x0000900000000000ull; break;
    case 8:
        ds_session_init(&S, &cpu, &c);
        add(r, NULL);
        ds_session_start(&S);
        ds_session_stop(&S);
        fp_clear_log(&F);
        return ds_session_init(&S, &cpu, &c);
    case 9: c.freeze_set = true; c.freeze = (enum ds_freeze_mode)9; break;
    case 10: c.freeze_set = true; c.freeze = (enum ds_freeze_mode)3; break;
    case 11: core2(); c.freeze_set = true; c.freeze = DS_FREEZE_STREAMLINED; break;
    case 12: netburst(); c.freeze_set = true; c.freeze = DS_FREEZE_LEGACY; break;
    case 13: c.pebs_flags = 0x2; break;
    case 14: case 15: case 16: case 17:
        if (i == 14)
            c.bytes = 4096 + 100;
        if (i == 15 || i == 16)
            panther();
        c.mem_phys = i == 15 ? 0x100800 : i == 16 ? 1ull << 46 : 0;
        if (i == 17) {
            netburst();
            c.mem_linear = 0xFFFF8000u;
            r = raw(0, 0, 4000, DS_SAMPLE_PRECISE);
            r.raw.nb_event = "replay_event";
            r.raw.nb_mask = "NBOGUS";
            r.raw.nb_metric = DS_NB_METRIC_1STL_CACHE_LOAD_MISS;
        }
        if (ds_session_init(&S, &cpu, &c) != DS_OK || add(r, NULL) != DS_OK)
            return -2;
        fp_clear_log(&F);
        return ds_session_start(&S);
    case 18: r.raw.evsel = 0x3C; break;
    case 19: r.raw.nb_metric = 5; break;
    case 20: r.raw.nb_mask = "NBOGUS"; break;
    case 21: case 22: case 23:
        if (i == 21)
            panther(); /* arch PEBS: no DS area page */
        c.bytes = i == 21 ? 4095 : 4096 + 24; /* arch PEBS: under a page; BTS: one 24-byte record */
        c.mem_phys = 0x100000;
        if (i == 23) {
            netburst();
            c.bytes = sizeof mem;
            c.mem_linear = 0x100000000ull; /* the SDM's 32-bit DS area: below 4 GiB */
        }
        if (i >= 22) {
            memset(&r, 0, sizeof r);
            r.mode = DS_TRACE_BTS;
        }
        if (ds_session_init(&S, &cpu, &c) != DS_OK || add(r, NULL) != DS_OK)
            return -2;
        fp_clear_log(&F);
        return ds_session_start(&S);
    case 24: qemu32(); break;
    case 25: case 26: case 27: case 28:
        i == 28 ? skylake_no_ds() : pentium_m();
        r = generic(DS_EVENT_INSTRUCTIONS, i == 26 ? DS_SAMPLE_OVERFLOW : i == 27 ? DS_COUNT : DS_SAMPLE_PRECISE);
        if (ds_session_init(&S, &cpu, &c) != DS_OK)
            return -2;
        fp_clear_log(&F);
        return add(r, NULL);
    default: return -1;
    }
    int e = ds_session_init(&S, &cpu, &c);
    if (i < 18 || i > 20 || e)
        return e;
    fp_clear_log(&F);
    return add(r, NULL);
}

static void test_misuse_table(void)
{
    for (unsigned i = 0; i < N(misuse); i++) {
        int e = run_misuse(i);
        CHECK_EQ(e, misuse[i].err, "misuse '%s' -> %s (got %s)", misuse[i].what, ds_errname(misuse[i].err),
                 ds_errname(e));
        CHECK(F.writes == 0 && F.reads == 0, "misuse '%s': %u reads, %u writes before the refusal",
              misuse[i].what, F.reads, F.writes);
        if (S.started) {
            /* the stopped session keeps its restore duty */
            CHECK_EQ(ds_session_teardown(&S), DS_OK, "misuse '%s': teardown still possible", misuse[i].what);
        }
    }
    /* the boundaries: the last 48-bit canonical byte, and 57-bit width */
    struct ds_session_config c = cfg_mem();
    skylake();
    memset(&S, 0, sizeof S);
    c.mem_linear = 0x00007FFFFFFF0000ull;
    CHECK_EQ(ds_session_init(&S, &cpu, &c), DS_OK, "64 KiB ending at 2^47 - 1");
    panther();
    memset(&S, 0, sizeof S);
    c.mem_linear = 0x00007FFFFFFF8000ull;
    CHECK_EQ(ds_session_init(&S, &cpu, &c), DS_ERR_SESSION_MEM_RANGE, "panther: 48-bit linear width");
    cpuid_patch(0x80000008u, 0, 0, 0x392E); /* linear width 57 */
    memset(&S, 0, sizeof S);
    CHECK_EQ(ds_session_init(&S, &cpu, &c), DS_OK, "panther with a 57-bit linear width");
    c.mem_linear = 0x00FFFFFFFFFF8000ull;
    memset(&S, 0, sizeof S);
    CHECK_EQ(ds_session_init(&S, &cpu, &c), DS_ERR_SESSION_MEM_RANGE, "past 2^56 at 57 bits");
    /* the host pointer's own range, with a valid mem_linear beside it: a
     * region whose last byte is the top of the address space is accepted
     * (init never touches it), one byte more wraps to address 0 (mutant
     * session.c region_ok `m + c->bytes - 1 < m` -> `- 2`, seed 20261128) */
    skylake();
    c = cfg_mem();
    c.mem = (void *)(UINTPTR_MAX - 4095);
    c.mem_linear = 0x0000000010000000ull;
    c.bytes = 4096;
    memset(&S, 0, sizeof S);
    CHECK_EQ(ds_session_init(&S, &cpu, &c), DS_OK, "host region ending at the top of the address space");
    c.bytes = 4097;
    memset(&S, 0, sizeof S);
    CHECK_EQ(ds_session_init(&S, &cpu, &c), DS_ERR_SESSION_MEM_RANGE, "host region wrapping to address 0");
    /* overlap boundaries: a region ending where the session starts, or
     * starting where it ends, is not over it (init only: never carved) */
    skylake();
    static struct ds_session S2;
    c = cfg_mem();
    c.mem = (void *)((uintptr_t)&S2 - 4096);
    c.bytes = 4096;
    CHECK_EQ(ds_session_init(&S2, &cpu, &c), DS_OK, "region ending at the session");
    memset(&S2, 0, sizeof S2);
    c.mem = (void *)((uintptr_t)&S2 + sizeof S2);
    CHECK_EQ(ds_session_init(&S2, &cpu, &c), DS_OK, "region starting after the session");
    memset(&S2, 0, sizeof S2);
    c.mem = (void *)((uintptr_t)&S2 - 4096);
    c.bytes = 4097;
    CHECK_EQ(ds_session_init(&S2, &cpu, &c), DS_ERR_SESSION_MEM_OVERLAP, "one byte over the session");
    memset(&S2, 0, sizeof S2);
    c.mem = (void *)((uintptr_t)&cpu + sizeof cpu - 1);
    c.bytes = 4096;
    CHECK_EQ(ds_session_init(&S2, &cpu, &c), DS_ERR_SESSION_MEM_OVERLAP, "the last byte of the ds_cpu");
    /* family 6 raw: nb_metric 0 (a zeroed request) and -1 taken, 1 not */
    for (int nm = -2; nm <= 1; nm++) {
        CHECK_EQ(init_default(), DS_OK, "init");
        struct ds_request r = raw(0xC0, 0, 1000, DS_SAMPLE_AUTO);
        r.raw.nb_metric = nm;
        CHECK_EQ(add(r, NULL), nm == 0 || nm == -1 ? DS_OK : DS_ERR_SESSION_RAW, "Skylake raw nb_metric %d", nm);
    }
    /* every session code has a row here or in test_bad_table's loop range */
    CHECK(strcmp(ds_errname(DS_ERR_SESSION_MEM_RANGE), "DS_ERR_SESSION_MEM_RANGE") == 0, "MEM_RANGE named");
    CHECK(strcmp(ds_errname(DS_ERR_SESSION_MEM_OVERLAP), "DS_ERR_SESSION_MEM_OVERLAP") == 0, "MEM_OVERLAP named");
}

/*
 * Issue 31: a write-back that fails in teardown is kept, and teardown may
 * be called again until every MSR is as before init (from non-zero
 * values); the count is ds_session_unrestored. Skylake PEBS + overflow +
 * BTS; the k-th teardown write faults once, for every k.
 */
static void test_teardown_retry(void)
{
    int kept = 0;
    for (int k = 1;; k++) {
        skylake();
        dirty_all(0x3C3C3C3C3C3C3C3Cull + (uint64_t)k);
        take_snap();
        CHECK_EQ(init_default(), DS_OK, "init");
        CHECK_EQ(add(raw(0xC4, 0x00, 1000, DS_SAMPLE_PRECISE), NULL), DS_OK, "PEBS");
        CHECK_EQ(add(raw(0x3C, 0x00, 5000, DS_SAMPLE_OVERFLOW), NULL), DS_OK, "overflow");
        CHECK_EQ(ds_session_start(&S), DS_OK, "start");
        CHECK_EQ(ds_session_stop(&S), DS_OK, "stop");
        unsigned saved = ds_session_unrestored(&S);
        CHECK(saved >= 8, "start saved %u MSRs", saved);
        fp_clear_log(&F);
        wfail_at = k;
        int e = ds_session_teardown(&S);
        bool hit = wfail_at == 0;
        wfail_at = 0;
        if (!hit) {
            CHECK_EQ(e, DS_OK, "k %d past the last write: clean teardown", k);
            CHECK(k > 8, "teardown wrote %d MSRs", k - 1);
            CHECK(kept >= 8, "%d restore writes faulted and were retried", kept);
            check_snap("teardown retry: clean");
            break;
        }
        CHECK_EQ(e, DS_ERR_MSR_FAULT, "k %d: the fault is reported", k);
        if (ds_session_unrestored(&S) == 0) {
            /* a building block's own write (DS_AREA uninstall), written
             * again by the restore: nothing left */
            CHECK_EQ(S.state, DS_SESSION_READY, "k %d: READY", k);
            check_snap("teardown: a cleanup write faulted");
            continue;
        }
        kept++;
        CHECK_EQ(ds_session_unrestored(&S), 1, "k %d: one MSR still to restore", k);
        CHECK_EQ(S.state, DS_SESSION_STOPPED, "k %d: not READY", k);
        CHECK_EQ(ds_session_init(&S, &cpu, &S.cfg), DS_ERR_SESSION_STATE, "k %d: init refused", k);
        CHECK_EQ(ds_session_start(&S), DS_ERR_SESSION_STATE, "k %d: start refused", k);
        fp_clear_log(&F);
        CHECK_EQ(ds_session_teardown(&S), DS_OK, "k %d: teardown again", k);
        CHECK(F.writes == 1 && F.nlog > 0, "k %d: the one MSR written (%u writes)", k, F.writes);
        CHECK(ds_session_unrestored(&S) == 0 && S.state == DS_SESSION_READY, "k %d: READY", k);
        check_snap("teardown retried");
        CHECK_EQ(ds_session_teardown(&S), DS_ERR_SESSION_STATE, "k %d: a third teardown has nothing to do", k);
    }
}

/*
 * Issue 31 fault sweep: on every session profile of this file (and
 * Skylake with the LBR snapshot), from
 * non-zero MSR values, the k-th MSR write of start, of stop or of
 * teardown faults (once), for every k; teardown is then called until
 * ds_session_unrestored says 0, and every MSR must equal its value before
 * init (GLOBAL_STATUS and its reset MSR excepted, check_snap).
 */
enum { PH_START, PH_STOP, PH_TEARDOWN };

static int sweep_setup(unsigned prof)
{
    void (*const profs[])(void) = { core2, nehalem, silvermont, skylake, icelake, sapphire, netburst, panther };
    if (prof < N(profs))
        profs[prof]();
    else if (prof == 8)
        lunar(0);
    else {
        skylake(); /* 9: with the LBR snapshot (DEBUGCTL LBR/freeze bits; stack as test_lbr) */
        for (unsigned i = 0; i < 32; i++) {
            fp_set(&F, 0x680 + i, 0x1000 + i);
            fp_set(&F, 0x6C0 + i, 0x2000 + i);
            fp_set(&F, 0xDC0 + i, 0);
        }
        fp_set(&F, 0x1C9, 5);
        fp_set(&F, 0x1C8, 0);
    }
    dirty_all(0xA5A5A5A5A5A5A5A5ull ^ prof);
    take_snap();
    memset(&S, 0, sizeof S);
    memset(&got, 0, sizeof got);
    struct ds_session_config c = cfg_mem();
    if (cpu.caps.netburst)
        c.mem_linear = 0x200000;
    c.mem_phys = 0x100000;
    c.lbr = prof == 9;
    c.on_lbr = on_lbr;
    if (ds_session_init(&S, &cpu, &c) != DS_OK)
        return -1;
    struct ds_request r = raw(0xC0, 0x00, 3000, DS_SAMPLE_AUTO);
    if (cpu.caps.netburst) {
        r.raw.nb_event = "replay_event";
        r.raw.nb_mask = "NBOGUS";
        r.raw.nb_metric = 0;
    }
    if (add(r, NULL) != DS_OK)
        return -2;
    if (cpu.caps.netburst) {
        r.raw.nb_event = "instr_retired";
        r.raw.nb_mask = "NBOGUSNTAG";
    } else
        r = raw(0x3C, 0x00, 5000, DS_SAMPLE_OVERFLOW);
    if (add(r, NULL) != DS_OK)
        return -3;
    struct ds_request t;
    memset(&t, 0, sizeof t);
    t.mode = DS_TRACE_BTS;
    if (cpu.caps.bts_advertised && add(t, NULL) != DS_OK)
        return -4;
    return DS_OK;
}

/* One run; @k 0 = no fault. Returns whether the k-th write was reached. */
static bool sweep_run(unsigned prof, int phase, int k, int *writes)
{
    CHECK_EQ(sweep_setup(prof), DS_OK, "profile %u setup", prof);
    bool hit = false;
    fp_clear_log(&F);
    wfail_at = phase == PH_START ? k : 0;
    int e = ds_session_start(&S);
    if (phase == PH_START) {
        *writes = (int)F.writes;
        hit = k > 0 && wfail_at == 0;
    }
    if (e == DS_OK) {
        fp_clear_log(&F);
        wfail_at = phase == PH_STOP ? k : 0;
        (void)ds_session_stop(&S);
        if (phase == PH_STOP) {
            *writes = (int)F.writes;
            hit = k > 0 && wfail_at == 0;
        }
        fp_clear_log(&F);
        wfail_at = phase == PH_TEARDOWN ? k : 0;
        (void)ds_session_teardown(&S);
        if (phase == PH_TEARDOWN) {
            *writes = (int)F.writes;
            hit = k > 0 && wfail_at == 0;
        }
    } else
        CHECK(k > 0 && phase == PH_START, "profile %u: start fails only with a fault (%s)", prof, ds_errname(e));
    wfail_at = 0;
    for (int n = 0; n < 3 && ds_session_unrestored(&S) > 0; n++)
        (void)ds_session_teardown(&S);
    CHECK(ds_session_unrestored(&S) == 0 && S.state == DS_SESSION_READY && !S.started,
          "profile %u phase %d k %d: torn down (%u left)", prof, phase, k, ds_session_unrestored(&S));
    char what[64];
    snprintf(what, sizeof what, "profile %u phase %d write %d faults", prof, phase, k);
    check_snap(what);
    return hit;
}

static void test_kth_write_fault_sweep(void)
{
    for (unsigned prof = 0; prof <= 9; prof++)
        for (int phase = PH_START; phase <= PH_TEARDOWN; phase++) {
            int clean = 0, w = 0;
            (void)sweep_run(prof, phase, 0, &clean);
            CHECK(clean > 0, "profile %u phase %d writes MSRs (%d)", prof, phase, clean);
            int k = 1;
            while (k <= clean + 1 && sweep_run(prof, phase, k, &w))
                k++;
            CHECK_EQ(k, clean + 1, "profile %u phase %d: every one of its %d writes faulted once", prof, phase, clean);
        }
}

/*
 * Issue 31: the Sandy Bridge microcode gate (Linux pebs_ucodes: 06_2AH
 * stepping 7 needs revision >= 0x28) refuses a PEBS session at start
 * before any PMU MSR: the only access is the SDM revision read (write 0 to
 * IA32_BIOS_SIGN_ID 8BH, CPUID(1), read 8BH; this fake's revision stays
 * 0). Before, start programmed the counters and refused in
 * ds_pmc_pebs_enable_ex. DS_PMC_PEBS_ALLOW_ERRATA skips the read.
 */
static void test_snb_ucode_before_programming(void)
{
    fam6(0x000206A7, 0x07300803, 0, 0x00000603, 0x1C3); /* 06_2AH stepping 7, PEBS format 1 */
    fp_set(&F, 0x8B, 0);
    take_snap();
    CHECK_EQ(init_default(), DS_OK, "init");
    CHECK_EQ(add(raw(0xC0, 0x00, 1000, DS_SAMPLE_PRECISE), NULL), DS_OK, "add PEBS");
    fp_clear_log(&F);
    CHECK_EQ(ds_session_start(&S), DS_ERR_PMC_PEBS_UCODE, "old microcode refused");
    CHECK(F.writes == 1 && fp_nwrites(&F, 0x8B) == 1, "only IA32_BIOS_SIGN_ID written (%u writes)", F.writes);
    CHECK(S.state == DS_SESSION_READY && ds_session_unrestored(&S) == 0, "READY, nothing to restore");
    check_snap("microcode refusal");
    memset(&S, 0, sizeof S);
    struct ds_session_config c = cfg_mem();
    c.pebs_flags = DS_PMC_PEBS_ALLOW_ERRATA;
    CHECK_EQ(ds_session_init(&S, &cpu, &c), DS_OK, "init accepting errata");
    CHECK_EQ(add(raw(0xC0, 0x00, 1000, DS_SAMPLE_PRECISE), NULL), DS_OK, "add");
    fp_clear_log(&F);
    CHECK_EQ(ds_session_start(&S), DS_OK, "start with DS_PMC_PEBS_ALLOW_ERRATA");
    CHECK_EQ(fp_nwrites(&F, 0x8B), 0, "no microcode read");
    CHECK_EQ(ds_session_teardown(&S), DS_OK, "teardown");
    check_snap("errata accepted");
}

/*
 * Issue 25 item 11: architectural PEBS picks a counter the event may use.
 * Panther Lake Cougar Cove (perfmon pantherlake_cougarcove_core.json V1.07
 * "PEBScounters"; Linux intel_pmu_init "pantherlake_hybrid" -> lnl_common ->
 * intel_lnc_pebs_event_constraints): MEM_INST_RETIRED.ALL_LOADS/ALL_STORES
 * D0H/81H, 82H on PMC0-3, MEM_TRANS_RETIRED.LOAD_LATENCY CDH/01H on PMC2-9.
 * Nova Lake Coyote Cove (novalake_coyotecove_core.json V1.00): D0H on PMC0-3,
 * CDH/01H on PMC2-7. Before the fix the session took the first
 * CPUID.(23H,5) counter whatever the event.
 */
static void tab25_apebs_pick(uint8_t ev, uint8_t um, uint32_t gp23, int want, unsigned idx, const char *what)
{
    struct ds_session_config c = cfg_mem();
    c.mem_phys = 0x100000;
    cpuid_patch(0x23, 5, 0, gp23);
    memset(&S, 0, sizeof S);
    CHECK_EQ(ds_session_init(&S, &cpu, &c), DS_OK, "%s: init", what);
    CHECK_EQ(add(raw(ev, um, 1000, DS_SAMPLE_PRECISE), NULL), want, "%s: add", what);
    if (want == DS_OK)
        CHECK(S.req[0].kind == DS_CTR_GP && S.req[0].idx == idx, "%s: PMC%u (got %u)", what, idx, S.req[0].idx);
}

static void test_tab25_apebs_event_counters(void)
{
    uint32_t m = 0;
    panther();
    CHECK_EQ(ds_pmc_pebs_event_counters(&cpu, DS_EVTSEL(0xD0, 0x81), &m), DS_OK, "PTL loads");
    CHECK_EQ(m, 0xF, "Cougar Cove D0H/81H PMC0-3");
    CHECK_EQ(ds_pmc_pebs_event_counters(&cpu, DS_EVTSEL(0xD0, 0x82), &m), DS_OK, "PTL stores");
    CHECK_EQ(m, 0xF, "Cougar Cove D0H/82H PMC0-3");
    CHECK_EQ(ds_pmc_pebs_event_counters(&cpu, DS_EVTSEL(0xCD, 0x01), &m), DS_OK, "PTL ldlat");
    CHECK_EQ(m, 0x3FC, "Cougar Cove CDH/01H PMC2-9");
    CHECK_EQ(ds_pmc_pebs_event_counters(&cpu, DS_EVTSEL(0xC4, 0x00), &m), DS_OK, "PTL branches");
    CHECK_EQ(m, 0xFFFFFFFFu, "Cougar Cove C4H/00H: no event constraint (PEBScounters 0-9)");
    CHECK_EQ(ds_pmc_pebs_event_counters(NULL, 0, &m), DS_ERR_NULL, "NULL cpu");
    CHECK_EQ(ds_pmc_pebs_event_counters(&cpu, 0, NULL), DS_ERR_NULL, "NULL out");
    tab25_apebs_pick(0xCD, 0x01, 0x3FF, DS_OK, 2, "PTL CDH/01H");
    panther();
    tab25_apebs_pick(0xD0, 0x81, 0x3F8, DS_OK, 3, "PTL D0H/81H with PMC0-2 not PEBS-capable");
    panther();
    tab25_apebs_pick(0xD0, 0x82, 0x3F0, DS_ERR_PMC_PEBS_EVENT_COUNTER, 0, "PTL D0H/82H, PEBS only on PMC4-9");
    panther();
    tab25_apebs_pick(0xCD, 0x01, 0x3, DS_ERR_PMC_PEBS_EVENT_COUNTER, 0, "PTL CDH/01H, PEBS only on PMC0-1");
    /* Nova Lake 12_01H Coyote Cove: DisplayFamily 18 = 0FH + extended 3, native model 5 */
    panther();
    cpuid_patch(0x1, 0, 0, 0x00300F10);
    cpuid_patch(0x1A, 0, 0, 0x40000005);
    enum ds_uarch u;
    CHECK_EQ(ds_uarch_of(&cpu, &u), DS_OK, "uarch");
    CHECK_EQ(u, DS_UARCH_COYOTECOVE, "Coyote Cove");
    CHECK_EQ(ds_pmc_pebs_event_counters(&cpu, DS_EVTSEL(0xCD, 0x01), &m), DS_OK, "NVL ldlat");
    CHECK_EQ(m, 0xFC, "Coyote Cove CDH/01H PMC2-7");
    CHECK_EQ(ds_pmc_pebs_event_counters(&cpu, DS_EVTSEL(0xD0, 0x81), &m), DS_OK, "NVL loads");
    CHECK_EQ(m, 0xF, "Coyote Cove D0H/81H PMC0-3");
    tab25_apebs_pick(0xCD, 0x01, 0x300, DS_ERR_PMC_PEBS_EVENT_COUNTER, 0, "NVL CDH/01H, PEBS only on PMC8-9");
    cpuid_patch(0x1, 0, 0, 0x00300F10);
    cpuid_patch(0x1A, 0, 0, 0x40000005);
    tab25_apebs_pick(0xCD, 0x01, 0x3C0, DS_OK, 6, "NVL CDH/01H on PMC6-9");
}
