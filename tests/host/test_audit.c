/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Regression tests for the defects found by the independent audit
 * (docs/audit.md). Each test names the SDM rule it checks and fails on the
 * code as it was before the matching fix.
 */
#include "check.h"
#include "ds_env.h"
#include <ds/ds.h>

/*
 * SDM Vol. 3B "Architectural Performance Monitoring Version 5": fixed
 * counter i is supported iff CPUID.0AH:ECX[i] || EDX[4:0] > i. A v5 CPU
 * whose ECX bitmap is 0 (or sparse) still has the EDX[4:0] counters; the
 * mask libds derives (ack mask, reset slots) must include them.
 */
static void test_v5_fixed_mask(void)
{
    static struct env e;
    fake_icelake(&e.f);
    /* replace leaf 0AH: v5, 8 GP x 48 bit, ECX = 0, EDX = 3 fixed x 48 bit */
    for (int i = 0; i < e.f.nleaves; i++)
        if (e.f.leaves[i].leaf == 0xA) {
            e.f.leaves[i].r[2] = 0;
            e.f.leaves[i].r[3] = 0x603;
        }
    env_identify(&e, 1);
    CHECK_EQ(e.cpu.caps.fixed_counters, 3, "EDX[4:0] = 3");
    CHECK_EQ(e.cpu.caps.fixed_mask, 0x7, "v5, ECX = 0: fixed 0..2 from EDX[4:0]");
    uint64_t m = ds_pmi_ack_mask(&e.cpu.caps);
    CHECK_EQ((m >> 32) & 0xFF, 0x7, "fixed 0..2 overflow bits ackable");
    /* the fixed-counter PEBS reset slot (fmt 4: 8 + m) is accepted */
    CHECK_EQ(ds_area_setup(&e.ctx, &e.cpu, &e.cfg), DS_OK, "setup");
    CHECK_EQ(ds_area_set_reset(&e.ctx, DS_CTR_FIXED, 0, 0xFFFFFFF0000ull), DS_OK, "fixed 0 reset slot");
    CHECK_EQ(e.area.a64.pebs_reset[8], 0xFFFFFFF0000ull, "slot 8");

    /* sparse bitmap: ECX = bit 3 only, EDX[4:0] = 3 -> fixed 0..3 */
    for (int i = 0; i < e.f.nleaves; i++)
        if (e.f.leaves[i].leaf == 0xA)
            e.f.leaves[i].r[2] = 0x8;
    env_identify(&e, 1);
    CHECK_EQ(e.cpu.caps.fixed_mask, 0xF, "ECX[3] | EDX[4:0] = 3");
    CHECK_EQ(e.cpu.caps.fixed_counters, 4, "fls(ECX) = 4");
}

/*
 * IA32_PERFEVTSELx bits 32 (IN_TX) and 33 (IN_TXCP) exist only on parts
 * with TSX (Haswell+; reference msr.md, Linux HSW_IN_TX). Perfmon v3 alone
 * (Nehalem, Westmere, Sandy/Ivy Bridge) has them reserved: WRMSR would #GP.
 * libds must refuse them unless CPUID.(EAX=07H,ECX=0):EBX reports HLE (4)
 * or RTM (11), and must not write anything.
 */
static void test_in_tx_needs_tsx(void)
{
    static struct env e;
    fake_haswell(&e.f); /* v3, no leaf 7 entry: no HLE/RTM (a Sandy Bridge-like PMU) */
    env_identify(&e, 1);
    unsigned w = e.f.writes;
    CHECK_EQ(ds_pmc_gp_program(&e.cpu, 0, DS_EVTSEL(0xC0, 0) | DS_EVTSEL_EN | DS_EVTSEL_IN_TX, 0),
             DS_ERR_PMC_RESERVED, "IN_TX without TSX");
    CHECK_EQ(ds_pmc_gp_program(&e.cpu, 0, DS_EVTSEL(0xC0, 0) | DS_EVTSEL_EN | DS_EVTSEL_IN_TXCP, 0),
             DS_ERR_PMC_RESERVED, "IN_TXCP without TSX");
    CHECK_EQ(e.f.writes, w, "nothing written");
    /* with RTM advertised the bits are accepted */
    fake_set_cpuid(&e.f, 7, 0, 0, 1u << 11, 0, 0);
    env_identify(&e, 1);
    CHECK_EQ(ds_pmc_gp_program(&e.cpu, 0, DS_EVTSEL(0xC0, 0) | DS_EVTSEL_EN | DS_EVTSEL_IN_TX, 0),
             DS_OK, "IN_TX with RTM");
    fake_haswell(&e.f);
    fake_set_cpuid(&e.f, 7, 0, 0, 1u << 4, 0, 0);
    env_identify(&e, 1);
    CHECK_EQ(ds_pmc_gp_program(&e.cpu, 0, DS_EVTSEL(0xC0, 0) | DS_EVTSEL_EN | DS_EVTSEL_IN_TXCP, 0),
             DS_OK, "IN_TXCP with HLE");
}

/*
 * IA32_PERF_GLOBAL_STATUS_RESET / OVF_CTRL (0x390): bit 48 exists only with
 * PERF_CAPABILITIES.PERF_METRICS[15], bit 55 only with Intel PT
 * (CPUID.07H:EBX[25]), bit 60 only with SGX (CPUID.07H:EBX[2]); fixed
 * counter bits are 32..47 (reference msr.md section 5). Writing 1 to a
 * reserved bit raises #GP, so the ack mask must leave them out where the
 * feature is absent, whatever status value a caller passes to ds_pmi_ack.
 */
static void test_ack_mask_reserved(void)
{
    static struct env e;
    struct ds_pmi pmi;
    struct ds_pmi_config cfg;
    const uint64_t b48 = 1ull << 48, b55 = 1ull << 55, b60 = 1ull << 60;

    fake_skylake_pmu(&e.f); /* v4, no PERF_METRICS, no leaf 7: no PT, no SGX */
    env_identify(&e, 1);
    uint64_t m = ds_pmi_ack_mask(&e.cpu.caps);
    CHECK_EQ(m & (b48 | b55 | b60), 0, "Skylake: 48/55/60 not ackable");
    CHECK(m & (1ull << 58) && m & (1ull << 59), "v4: LBR_Frz, CTR_Frz ackable");
    memset(&cfg, 0, sizeof(cfg));
    CHECK_EQ(ds_pmi_init(&pmi, &e.cpu, NULL, &cfg), DS_OK, "init");
    e.f.nlog = 0;
    CHECK_EQ(ds_pmi_ack(&pmi, ~0ull, NULL), DS_OK, "ack all");
    uint64_t v = 0;
    CHECK_EQ(fake_writes_to(&e.f, DS_MSR_IA32_PERF_GLOBAL_STATUS_RESET, &v), 1, "one write");
    CHECK_EQ(v & (b48 | b55 | b60), 0, "no reserved bit written");
    CHECK_EQ(v, 0xF | (0x7ull << 32) | (1ull << 58) | (1ull << 59) | (1ull << 61) | (1ull << 62) | (1ull << 63),
             "exact ack value");

    /* with PT and SGX in CPUID.07H:EBX, ds_pmi_init adds 55 and 60 */
    fake_set_cpuid(&e.f, 7, 0, 0, (1u << 25) | (1u << 2), 0, 0);
    env_identify(&e, 1);
    CHECK_EQ(ds_pmi_init(&pmi, &e.cpu, NULL, &cfg), DS_OK, "init PT/SGX");
    CHECK_EQ(pmi.ack_mask & (b55 | b60), b55 | b60, "PT: 55, SGX: 60 ackable");
    CHECK_EQ(pmi.ack_mask & b48, 0, "still no PERF_METRICS");

    /* v3 with PT (Broadwell-like): bit 55 of OVF_CTRL is not confirmed there: not acked */
    fake_haswell(&e.f);
    fake_set_cpuid(&e.f, 7, 0, 0, 1u << 25, 0, 0);
    env_identify(&e, 1);
    cfg.freeze = DS_FREEZE_NONE;
    CHECK_EQ(ds_pmi_init(&pmi, &e.cpu, NULL, &cfg), DS_OK, "init v3");
    CHECK_EQ(pmi.ack_mask & (b55 | b60 | b48), 0, "v3: no 48/55/60");

    /* v5 part whose ECX bitmap names a 17th fixed counter: no bit spills into 48 */
    fake_icelake(&e.f); /* PERF_CAPABILITIES without PERF_METRICS */
    for (int i = 0; i < e.f.nleaves; i++)
        if (e.f.leaves[i].leaf == 0xA)
            e.f.leaves[i].r[2] = 0x1000F;
    env_identify(&e, 1);
    CHECK_EQ(ds_pmi_ack_mask(&e.cpu.caps) & (0xFFFFull << 48), (1ull << 61) | (1ull << 62) | (1ull << 63) |
             (1ull << 58) | (1ull << 59), "fixed bits stay in 47:32");
    cfg.global_ctrl = b48;
    CHECK_EQ(ds_pmi_init(&pmi, &e.cpu, NULL, &cfg), DS_ERR_PMI_CTRL_MASK, "GLOBAL_CTRL bit 48 without PERF_METRICS");
}

/*
 * Every public function validates its pointers (COMMON rules): ds_cpuid()
 * with out == NULL must return without touching memory or the backend.
 */
static int cpuid_calls;
static void counting_cpuid(void *ctx, uint32_t leaf, uint32_t sub, uint32_t out[4])
{
    cpuid_calls++;
    fake_cpuid(ctx, leaf, sub, out);
}

static void test_cpuid_null_out(void)
{
    static struct fake_cpu f;
    static const struct ds_msr_ops ops = { fake_read, fake_write, counting_cpuid };
    struct ds_cpu cpu;
    fake_skylake(&f);
    CHECK_EQ(ds_cpu_init(&cpu, &ops, &f), DS_OK, "init");
    cpuid_calls = 0;
    ds_cpuid(&cpu, 0, 0, NULL); /* crashed (NULL store) before the fix */
    CHECK_EQ(cpuid_calls, 0, "backend not called with a NULL out");
    uint32_t r[4] = { 1, 2, 3, 4 };
    ds_cpuid(&cpu, 0, 0, r);
    CHECK_EQ(r[1], FAKE_INTEL_EBX, "normal call still works");
}

/*
 * Arch LBR: IA32_LBR_CTL bits 2:1 (OS/USR) need CPUID.(EAX=1CH,ECX=0):EBX[0]
 * (CPL filtering), bits 22:16 (branch types) EBX[1] (branch filtering), bit
 * 3 (call stack) EBX[2] (reference msr.md "IA32_LBR_CTL", Linux lbr.c masks
 * lbr_ctl_mask the same way). Without them those bits are reserved: libds
 * must not write them, neither from an explicit arch_ctl nor by default.
 */
static void test_arch_lbr_ctl_features(void)
{
    static struct fake_cpu f;
    struct ds_cpu cpu;
    const struct ds_lbr_model *m;
    memset(&f, 0, sizeof(f));
    fake_set_cpuid(&f, 0, 0, 0x1C, FAKE_INTEL_EBX, FAKE_INTEL_ECX, FAKE_INTEL_EDX);
    fake_set_cpuid(&f, 1, 0, 0x000906A3, 0, 1u << 15, (1u << 5) | (1u << 21)); /* 06_9AH */
    fake_set_cpuid(&f, 0xA, 0, 0x07300805, 0, 0xF, 0x604);
    fake_set_cpuid(&f, 7, 0, 0, 0, 0, 1u << 19); /* Arch LBR enumerated (CPUID.(07H,0):EDX[19]) */
    fake_set_cpuid(&f, 0x1C, 0, 0x80, 0 /* no CPL, branch, call-stack filtering */, 0, 0);
    fake_set_msr(&f, DS_MSR_IA32_MISC_ENABLE, 1u << 7);
    fake_set_msr(&f, DS_MSR_IA32_PERF_CAPABILITIES, 0x3F);
    fake_set_msr(&f, DS_MSR_IA32_DEBUGCTL, 0);
    fake_set_msr(&f, DS_MSR_IA32_LBR_DEPTH, 0);
    fake_set_msr(&f, DS_MSR_IA32_LBR_CTL, 0);
    ds_cpu_init(&cpu, &fake_ops, &f);
    ds_cpu_identify(&cpu);
    CHECK_EQ(ds_lbr_lookup(6, 0x9A, &m), DS_OK, "lookup");
    struct ds_lbr_config c = { .arch_ctl = DS_LBR_CTL_LBREN | DS_LBR_CTL_OS };
    f.nlog = 0;
    CHECK_EQ(ds_lbr_enable(&cpu, m, &c), DS_ERR_LBR_BAD_SELECT, "OS without CPL filtering");
    c.arch_ctl = DS_LBR_CTL_LBREN | (1ull << 16);
    CHECK_EQ(ds_lbr_enable(&cpu, m, &c), DS_ERR_LBR_BAD_SELECT, "JCC without branch filtering");
    c.arch_ctl = DS_LBR_CTL_LBREN | DS_LBR_CTL_CALL_STACK;
    CHECK_EQ(ds_lbr_enable(&cpu, m, &c), DS_ERR_LBR_BAD_SELECT, "call stack unsupported");
    CHECK_EQ(f.nlog, 0, "nothing written on the refusals");
    CHECK_EQ(ds_lbr_enable(&cpu, m, NULL), DS_OK, "default");
    CHECK_EQ(fake_get_msr(&f, DS_MSR_IA32_LBR_CTL), DS_LBR_CTL_LBREN, "default: only LBREn");
    /* all three supported: the full default */
    for (int i = 0; i < f.nleaves; i++)
        if (f.leaves[i].leaf == 0x1C)
            f.leaves[i].r[1] = 0x7;
    ds_cpu_identify(&cpu); /* leaf 1CH is read at identification */
    CHECK_EQ(ds_lbr_enable(&cpu, m, NULL), DS_OK, "default, filters supported");
    CHECK_EQ(fake_get_msr(&f, DS_MSR_IA32_LBR_CTL), 0x7F0007, "LBREn|OS|USR|all branch types");
    c.arch_ctl = DS_LBR_CTL_LBREN | DS_LBR_CTL_CALL_STACK | DS_LBR_CTL_OS;
    CHECK_EQ(ds_lbr_enable(&cpu, m, &c), DS_OK, "call stack supported");
}

/* Ice Lake-like CPU reporting @gp general-purpose counters in CPUID.0AH:EAX[15:8]. */
static void icelake_with_gp(struct env *e, unsigned gp)
{
    fake_icelake(&e->f);
    for (int i = 0; i < e->f.nleaves; i++)
        if (e->f.leaves[i].leaf == 0xA)
            e->f.leaves[i].r[0] = (e->f.leaves[i].r[0] & ~0xFF00u) | (gp << 8);
    fake_add_pmu_msrs(&e->f, gp > 8 ? 8 : gp, 4);
    env_identify(e, 1);
}

/*
 * PEBS format 4 has counter-reset slots for GP counters 0..7 only (fixed
 * counter m at 8 + m), format 5 for 0..31 (fixed at 32 + m); in
 * IA32_PEBS_ENABLE bit 32 + m is fixed counter m (reference ds-area.md,
 * msr.md "IA32_PEBS_ENABLE layouts"). A GP counter beyond the format's
 * range must be refused: fmt 4 GP 8 would reload from fixed 0's slot, and
 * GP n >= 32 would set a fixed-counter enable (n >= 64: shift UB).
 */
static void test_pebs_enable_gp_range(void)
{
    static struct env e;
    icelake_with_gp(&e, 12); /* fmt 4 + baseline, 12 GP counters advertised */
    CHECK_EQ(e.cpu.caps.gp_counters, 12, "12 GP");
    unsigned w = e.f.writes;
    /* refused (DS_ERR_PMC_PEBS_COUNTER; since the GP MSR-range fix the
     * counter check, DS_ERR_PMC_BAD_COUNTER, refuses it first) */
    int rc = ds_pmc_pebs_enable(&e.cpu, 8, DS_EVTSEL(0xC0, 0) | DS_EVTSEL_EN);
    CHECK(rc == DS_ERR_PMC_PEBS_COUNTER || rc == DS_ERR_PMC_BAD_COUNTER, "fmt 4: GP 8 has no reset slot (%d)", rc);
    CHECK_EQ(e.f.writes, w, "nothing written");
    CHECK_EQ(ds_pmc_pebs_enable(&e.cpu, 7, DS_EVTSEL(0xC0, 0) | DS_EVTSEL_EN), DS_OK, "fmt 4: GP 7");
    icelake_with_gp(&e, 40);
    fake_set_msr(&e.f, DS_MSR_IA32_PERF_CAPABILITIES, 0x4000 | 0x2000 | 0x500 | 0x80 | 0x3F); /* fmt 5 */
    env_identify(&e, 1);
    fake_set_msr(&e.f, DS_MSR_IA32_PEBS_ENABLE, 0);
    rc = ds_pmc_pebs_enable(&e.cpu, 35, DS_EVTSEL(0xC0, 0) | DS_EVTSEL_EN);
    CHECK(rc == DS_ERR_PMC_PEBS_COUNTER || rc == DS_ERR_PMC_BAD_COUNTER, "fmt 5: GP 35 = fixed 3's enable bit (%d)", rc);
    CHECK_EQ(fake_get_msr(&e.f, DS_MSR_IA32_PEBS_ENABLE), 0, "PEBS_ENABLE untouched");
}

/*
 * The architectural MSR table defines IA32_PMC0..7 (0xC1..0xC8),
 * IA32_PERFEVTSEL0..7 (0x186..0x18D) and IA32_A_PMC0..7 (0x4C1..0x4C8)
 * only; 0xC1 + 8 etc. are other or undefined MSRs. A CPUID.0AH:EAX[15:8]
 * above 8 (hypervisors, future parts whose extra counters live elsewhere)
 * must not make libds program MSR 0x18E / 0xC9.
 */
static void test_gp_counter_msr_range(void)
{
    static struct env e;
    uint64_t v;
    icelake_with_gp(&e, 12);
    fake_set_msr(&e.f, 0xC9, 0);
    fake_set_msr(&e.f, 0x18E, 0);
    fake_set_msr(&e.f, 0x4C9, 0);
    e.f.nlog = 0;
    CHECK_EQ(ds_pmc_gp_program(&e.cpu, 8, DS_EVTSEL(0xC0, 0) | DS_EVTSEL_EN, 0), DS_ERR_PMC_BAD_COUNTER,
             "GP 8 not at 0x186 + 8");
    CHECK_EQ(ds_pmc_gp_write(&e.cpu, 8, 0), DS_ERR_PMC_BAD_COUNTER, "write GP 8");
    CHECK_EQ(ds_pmc_gp_read(&e.cpu, 8, &v), DS_ERR_PMC_BAD_COUNTER, "read GP 8");
    CHECK_EQ(e.f.nlog, 0, "no MSR written");
    CHECK_EQ(ds_pmc_gp_program(&e.cpu, 7, DS_EVTSEL(0xC0, 0) | DS_EVTSEL_EN, 0), DS_OK, "GP 7");
}

/*
 * IA32_DEBUGCTL bits 11 (FREEZE_LBRS_ON_PMI) and 12 (FREEZE_PERFMON_ON_PMI)
 * exist only "if CPUID.01H:ECX[15] = 1 && CPUID.0AH:EAX[7:0] > 1" (SDM MSR
 * table as transcribed by EDK2 ArchitecturalMsr.h and ia32-doc). Core 2
 * Merom (06_0FH, perfmon v2) has no PDCM; Pentium M / Yonah have no v2:
 * setting either bit there writes a reserved bit (#GP).
 */
static void test_debugctl_freeze_bits_need_pdcm_v2(void)
{
    static struct env e;
    struct ds_pmi pmi;
    struct ds_pmi_config cfg;
    const struct ds_lbr_model *m;

    fake_core2(&e.f); /* 06_17H, v2 */
    for (int i = 0; i < e.f.nleaves; i++)
        if (e.f.leaves[i].leaf == 1)
            e.f.leaves[i].r[0] = 0x000006F6, e.f.leaves[i].r[2] &= ~(1u << 15); /* Merom 06_0FH, no PDCM */
    env_identify(&e, 1);
    CHECK(!e.cpu.caps.pdcm && e.cpu.caps.perfmon_version == 2, "v2 without PDCM");
    memset(&cfg, 0, sizeof(cfg));
    cfg.freeze = DS_FREEZE_LEGACY;
    CHECK_EQ(ds_pmi_init(&pmi, &e.cpu, NULL, &cfg), DS_OK, "init (legacy handler steps are harmless)");
    e.f.nlog = 0;
    CHECK_EQ(ds_pmi_set_freeze(&pmi), DS_ERR_UNSUPPORTED, "no FREEZE_PERFMON_ON_PMI without PDCM");
    CHECK_EQ(fake_get_msr(&e.f, DS_MSR_IA32_DEBUGCTL) & (1ull << 12), 0, "bit 12 not set");
    CHECK_EQ(e.f.nlog, 0, "nothing written");
    CHECK_EQ(ds_lbr_lookup(6, 0x0F, &m), DS_OK, "Merom row");
    struct ds_lbr_config fr = { .freeze_on_pmi = true };
    CHECK_EQ(ds_lbr_enable(&e.cpu, m, &fr), DS_ERR_LBR_NO_FREEZE, "no FREEZE_LBRS_ON_PMI without PDCM");
    CHECK_EQ(fake_get_msr(&e.f, DS_MSR_IA32_DEBUGCTL) & (1ull << 11), 0, "bit 11 not set");
    CHECK_EQ(ds_lbr_enable(&e.cpu, m, NULL), DS_OK, "plain LBR enable still fine");

    /* with PDCM and v2 both bits are allowed */
    fake_core2(&e.f);
    env_identify(&e, 1);
    CHECK_EQ(ds_pmi_init(&pmi, &e.cpu, NULL, &cfg), DS_OK, "init");
    CHECK_EQ(ds_pmi_set_freeze(&pmi), DS_OK, "Penryn: freeze perfmon");
    CHECK_EQ(fake_get_msr(&e.f, DS_MSR_IA32_DEBUGCTL) & (1ull << 12), 1ull << 12, "bit 12 set");
    CHECK_EQ(ds_lbr_lookup(6, 0x17, &m), DS_OK, "Penryn row");
    CHECK_EQ(ds_lbr_enable(&e.cpu, m, &fr), DS_OK, "Penryn: freeze LBRs");
}

/*
 * Issue 10 test strength: a backend may leave functions out (msr.h): no
 * cpuid -> ds_cpuid() gives all 0 on a host build (no CPUID executed), no
 * read / no write -> that access faults, and the functions present are
 * still used.
 */
static void test_backend_partial_ops(void)
{
    static struct fake_cpu f;
    static const struct ds_msr_ops no_cpuid = { fake_read, fake_write, NULL };
    static const struct ds_msr_ops no_rw = { NULL, NULL, fake_cpuid };
    struct ds_cpu cpu;
    fake_skylake(&f);
    fake_set_msr(&f, DS_MSR_IA32_DEBUGCTL, 0x41);
    CHECK_EQ(ds_cpu_init(&cpu, &no_cpuid, &f), DS_OK, "init without cpuid");
    uint32_t r[4] = { 1, 2, 3, 4 };
    ds_cpuid(&cpu, 0, 0, r);
    CHECK(r[0] == 0 && r[1] == 0 && r[2] == 0 && r[3] == 0, "no cpuid function: all 0 on a host build");
    uint64_t v = 0;
    CHECK_EQ(ds_msr_read(&cpu, DS_MSR_IA32_DEBUGCTL, &v), DS_OK, "read still works");
    CHECK_EQ(v, 0x41, "read value");
    CHECK_EQ(ds_msr_write(&cpu, DS_MSR_IA32_DEBUGCTL, 0x1), DS_OK, "write still works");
    CHECK_EQ(fake_get_msr(&f, DS_MSR_IA32_DEBUGCTL), 0x1, "written");
    CHECK_EQ(ds_cpu_init(&cpu, &no_rw, &f), DS_OK, "init without read/write");
    v = 0x99;
    CHECK_EQ(ds_msr_read(&cpu, DS_MSR_IA32_DEBUGCTL, &v), DS_ERR_MSR_FAULT, "no read function: fault");
    CHECK_EQ(v, 0x99, "out not written on a fault");
    CHECK_EQ(ds_msr_write(&cpu, DS_MSR_IA32_DEBUGCTL, 0x2), DS_ERR_MSR_FAULT, "no write function: fault");
    CHECK_EQ(fake_get_msr(&f, DS_MSR_IA32_DEBUGCTL), 0x1, "nothing written");
    ds_cpuid(&cpu, 0, 0, r);
    CHECK_EQ(r[1], FAKE_INTEL_EBX, "cpuid still works");
}

/*
 * The bad-input table of NULL pointers: every public entry point that
 * takes a pointer answers DS_ERR_NULL for a NULL in that slot (the header
 * contracts' "Errors: DS_ERR_NULL"), with every other argument valid, and
 * touches no MSR. Rows for the functions whose NULL paths no other test
 * reaches (found by listing each DS_ERR_NULL guard of libds/src).
 */
static void test_null_args_table(void)
{
    static struct env e;
    fake_skylake_pmu(&e.f);
    env_identify(&e, 1);
    CHECK_EQ(ds_area_setup(&e.ctx, &e.cpu, &e.cfg), DS_OK, "setup");
    const struct ds_lbr_model *m = NULL;
    CHECK_EQ(ds_lbr_cpu_model(&e.cpu, &m), DS_OK, "Skylake LBR row");
    struct ds_pmi_status st;
    struct ds_bts_branch br[2];
    struct ds_pebs_sample ps[2];
    struct ds_probe_result pr;
    memset(&pr, 0, sizeof(pr));
    enum ds_pebs_fmt fmt;
    unsigned u;
    uint64_t v;
    size_t n;
    bool b;
    char buf[8];
    unsigned reads = e.f.reads, writes = e.f.writes;
    const struct { int got; const char *what; } rows[] = {
        { ds_pmc_gp_read(&e.cpu, 0, NULL), "ds_pmc_gp_read out" },
        { ds_msr_read(NULL, DS_MSR_IA32_DEBUGCTL, &v), "ds_msr_read cpu" },
        { ds_msr_read(&e.cpu, DS_MSR_IA32_DEBUGCTL, NULL), "ds_msr_read out" },
        { ds_msr_write(NULL, DS_MSR_IA32_DEBUGCTL, 0), "ds_msr_write cpu" },
        { ds_cpu_set_ia32e(NULL, true), "ds_cpu_set_ia32e cpu" },
        { ds_lbr_cpu_model(NULL, &m), "ds_lbr_cpu_model cpu" },
        { ds_lbr_cpu_model(&e.cpu, NULL), "ds_lbr_cpu_model out" },
        { ds_lbr_format(NULL, m, &u), "ds_lbr_format cpu" },
        { ds_lbr_format(&e.cpu, NULL, &u), "ds_lbr_format model" },
        { ds_lbr_format(&e.cpu, m, NULL), "ds_lbr_format out" },
        { ds_nb_event_find(NULL, &u), "ds_nb_event_find name" },
        { ds_nb_event_find("instr_retired", NULL), "ds_nb_event_find out" },
        { ds_nb_metric_info(0, NULL), "ds_nb_metric_info out" },
        { ds_pebs_pending(NULL, &v), "ds_pebs_pending ctx" },
        { ds_pebs_pending(&e.ctx, NULL), "ds_pebs_pending out" },
        { ds_bts_threshold_reached(NULL, &b), "ds_bts_threshold_reached ctx" },
        { ds_bts_threshold_reached(&e.ctx, NULL), "ds_bts_threshold_reached out" },
        { ds_bts_drain_array(NULL, br, 2, &n, NULL), "ds_bts_drain_array ctx" },
        { ds_bts_drain_array(&e.ctx, NULL, 2, &n, NULL), "ds_bts_drain_array arr" },
        { ds_bts_drain_array(&e.ctx, br, 2, NULL, NULL), "ds_bts_drain_array out_n" },
        { ds_pebs_drain_array(NULL, ps, 2, &n, NULL), "ds_pebs_drain_array ctx" },
        { ds_pebs_drain_array(&e.ctx, NULL, 2, &n, NULL), "ds_pebs_drain_array arr" },
        { ds_pebs_drain_array(&e.ctx, ps, 2, NULL, NULL), "ds_pebs_drain_array out_n" },
        { ds_pebs_format_select(NULL, DS_LAYOUT_64, &fmt), "ds_pebs_format_select cpu" },
        { ds_pebs_format_select(&e.cpu, DS_LAYOUT_64, NULL), "ds_pebs_format_select out" },
        { ds_pebs_decode_cpu(&e.cpu, DS_PEBS_FMT_3, NULL, 0xC0, ps), "ds_pebs_decode_cpu rec" },
        { ds_pebs_decode_cpu(&e.cpu, DS_PEBS_FMT_3, e.pebs, 0xC0, NULL), "ds_pebs_decode_cpu out" },
        { ds_pmi_decode(0, NULL, &st), "ds_pmi_decode caps" },
        { ds_pmi_decode(0, &e.cpu.caps, NULL), "ds_pmi_decode out" },
        { ds_pmi_read_status(NULL, &v), "ds_pmi_read_status pmi" },
        { ds_pmi_set_freeze(NULL), "ds_pmi_set_freeze pmi" },
        { ds_probe_format(NULL, buf, sizeof buf), "ds_probe_format result" },
        { ds_probe_format(&pr, NULL, sizeof buf), "ds_probe_format buf" },
        { ds_area_install(NULL), "ds_area_install ctx" },
        { ds_area_uninstall(NULL), "ds_area_uninstall ctx" },
        { ds_area_set_reset(NULL, DS_CTR_GP, 0, 0), "ds_area_set_reset ctx" },
        { ds_arch_pebs_uninstall(NULL), "ds_arch_pebs_uninstall ap" },
    };
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
        CHECK(rows[i].got == DS_ERR_NULL, "%s: NULL -> %s", rows[i].what, ds_errname(rows[i].got));
    CHECK(e.f.reads == reads && e.f.writes == writes, "no MSR touched (%u reads, %u writes)", e.f.reads - reads,
          e.f.writes - writes);
    CHECK_EQ(ds_bts_debugctl_bits(NULL, 0), 0, "ds_bts_debugctl_bits(NULL): no bits");
}

int main(void)
{
    test_debugctl_freeze_bits_need_pdcm_v2();
    test_gp_counter_msr_range();
    test_pebs_enable_gp_range();
    test_arch_lbr_ctl_features();
    test_cpuid_null_out();
    test_ack_mask_reserved();
    test_v5_fixed_mask();
    test_in_tx_needs_tsx();
    test_backend_partial_ops();
    test_null_args_table();
    return check_summary();
}
