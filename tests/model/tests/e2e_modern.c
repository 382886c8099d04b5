/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * End to end (issue 11 "The model"): libds against the model's post-2020
 * profiles: Sapphire Rapids (PEBS format 4 + baseline, Arch LBR), Granite
 * Rapids (timed PEBS: retire latency in the basic group), Lunar Lake P-core
 * (perfmon v6 aliased MSRs, leaf 23H counter bitmaps, PEBS format 6 counters
 * group) and the Alder Lake hybrid pair (P-core / E-core: core type, counter
 * counts). Per profile: identification facts restated from the CPUID dumps
 * in shared/cpuid and the SDM (not read from libds or the model), then one
 * PEBS run programmed through libds's pmc.h with record-content checks
 * (every record's registers, TSC, applicable counters, LBR group, counters
 * group, retire latency against the instruction stream fed), then libds's
 * Arch LBR snapshot against the last branches fed.
 */
#include <stdio.h>
#include <stdlib.h>
#include "check.h"
#include "ds_model_ops.h"
#include "model_util.h"
#include <ds/cpu.h>
#include <ds/area.h>
#include <ds/pebs.h>
#include <ds/pmi.h>
#include <ds/pmc.h>
#include <ds/lbr.h>

/* --- identification: expected facts --------------------------------------
 * c0_pebs: Golden/Redwood Cove (SPR, GNR, ADL P-core): PMC1-7 (Linux ds.c
 * intel_glc_pebs_event_constraints INTEL_FLAGS_EVENT_CONSTRAINT(0xc0, 0xfe);
 * perfmon INST_RETIRED.ANY_P "PEBScounters" 1-7); Lion Cove and the E-cores
 * have no C0H row (every GP counter). */
struct expect {
    enum dsm_profile p;
    uint8_t model;
    uint8_t ver;
    uint32_t gp_mask, fixed_mask;   /* leaf 0AH counts, or leaf 23H.1 bitmaps (Lunar Lake) */
    unsigned pebs_fmt;
    bool timed, hybrid, leaf23;
    uint8_t core_type;              /* CPUID.1AH:EAX[31:24]: 40H Core, 20H Atom, 0 not hybrid */
    uint32_t native_id;             /* CPUID.1AH:EAX[23:0] */
    uint32_t c0_pebs;               /* GP counters INST_RETIRED C0H takes PEBS on (see below) */
};

static const struct expect T[] = {
    /* 00806F8 dump: 0AH EAX 08300805H (v5, 8 GP), EDX 8604H (4 fixed), 07H EDX[15] clear, 1AH 0 */
    { DSM_SAPPHIRERAPIDS, 0x8F, 5, 0xFF, 0xF, 4, false, false, false, 0, 0, 0xFE },
    /* Granite Rapids: as Sapphire Rapids + PERF_CAPABILITIES[17] */
    { DSM_GRANITERAPIDS, 0xAD, 5, 0xFF, 0xF, 4, true, false, false, 0, 0, 0xFE },
    /* 00B06D1 dump P-core: 0AH EAX 0D300806H (v6), 23H.1 EAX 3FFH / EBX FH, 1AH 40000003H */
    { DSM_LUNARLAKE, 0xBD, 6, 0x3FF, 0xF, 6, false, true, true, 0x40, 3, 0x3FF },
    /* Alder Lake hybrid: P 8 GP / 4 fixed, E 6 GP / 3 fixed (Linux intel_pmu_init) */
    { DSM_ALDERLAKE_P, 0x97, 5, 0xFF, 0xF, 4, false, true, false, 0x40, 1, 0xFE },
    { DSM_ALDERLAKE_E, 0x97, 5, 0x3F, 0x7, 4, false, true, false, 0x20, 1, 0x3F },
    /* 00B06D1 dump E-core (CPU #4): 23H.1 EAX FFH / EBX 77H (no fixed 3), 1AH 20000003H (Skymont) */
    { DSM_LUNARLAKE_E, 0xBD, 6, 0xFF, 0x77, 6, false, true, true, 0x20, 3, 0xFF },
};
#define NT (sizeof(T) / sizeof(T[0]))

static void test_identify(const struct expect *x)
{
    const char *n = dsm_profile_name(x->p);
    struct dsm_cpu m;
    struct ds_cpu c;
    CHECK_EQ(dsm_init(&m, x->p, NULL, NULL), DSM_OK, "model init %s", n);
    CHECK_EQ(ds_model_cpu_init(&c, &m), DS_OK, "libds init %s", n);
    CHECK_EQ(ds_cpu_identify(&c), DS_OK, "identify %s", n);
    const struct ds_caps *k = &c.caps;
    CHECK_EQ(k->display_family, 0x06, "family %s", n);
    CHECK_EQ(k->display_model, x->model, "model %s", n);
    CHECK_EQ(k->perfmon_version, x->ver, "perfmon version %s", n);
    CHECK_EQ(k->gp_mask, x->gp_mask, "GP counters %s", n);
    CHECK_EQ(k->fixed_mask, x->fixed_mask, "fixed counters %s", n);
    CHECK_EQ(k->gp_width, 48, "GP width %s", n);
    CHECK_EQ(k->fixed_width, 48, "fixed width %s", n);
    CHECK(k->ds && k->dtes64 && k->ds_cpl && k->pdcm, "DS, DTES64, DS-CPL, PDCM %s", n);
    CHECK_EQ(k->pebs_format, x->pebs_fmt, "PEBS format %s", n);
    CHECK(k->pebs_baseline, "PEBS baseline %s", n);
    CHECK(k->fw_write, "full-width writes %s", n);
    CHECK_EQ(k->pebs_timing_info, x->timed, "timed PEBS %s", n);
    CHECK_EQ(k->lbr_format, 0x3F, "LBR format 3FH (Arch LBR) %s", n);
    CHECK(k->arch_lbr, "Arch LBR by CPUID.(07H,0):EDX[19] %s", n);
    CHECK_EQ(k->arch_lbr_depth, 32, "Arch LBR depth from 1CH EAX 0BH (8, 16, 32) %s", n);
    CHECK_EQ(k->hybrid, x->hybrid, "hybrid %s", n);
    CHECK_EQ(k->has_leaf_23, x->leaf23, "leaf 23H %s", n);
    if (x->hybrid) {
        CHECK_EQ(k->core_type, x->core_type, "core type %s", n);
        CHECK_EQ(k->native_model_id, x->native_id, "native model ID %s", n);
    }
    CHECK(k->bts_advertised && k->pebs_advertised, "BTS/PEBS advertised %s", n);
    const struct dsm_stats *s = dsm_stats(&m);
    CHECK_EQ(s->wrmsr, 0, "identify writes nothing %s", n);
    CHECK_EQ(s->rdmsr_gp, 0, "identify never faults %s", n);
}

/* --- the instruction stream ---------------------------------------------- *
 * Instruction i at IP_OF(i); every 4th (i % 4 == 3) is a taken jump to the
 * next one. Registers, TSC (3 * ip) from ev_plain(); retire latency RL_OF(i). */
#define IP_OF(i) (0x400000ull + 16ull * (uint64_t)(i))
#define RL_OF(i) ((uint16_t)(((i) % 997) + 3))
#define IS_BR(i) (((i) % 4) == 3)
#define NINSN 20000u
#define LBR_N 8u

#define LIN 0xFFFF800000100000ull
static _Alignas(4096) uint8_t blk[1 << 20];
static struct fake_mem mem;

struct run {
    struct dsm_cpu m; struct ds_cpu c; struct ds_ctx ctx; struct ds_pmi pmi;
    const struct expect *x;
    bool cntrs;
    unsigned pc, oc;   /* the PEBS counter (lowest of c0_pebs) and the plain one */
    uint64_t samples, bad, bad_lbr, bad_cntr, bad_rl, herr, lost;
};
static struct run R;

static const unsigned gpr_model_index[DS_GPR__COUNT] = {
    DSM_R_AX, DSM_R_CX, DSM_R_DX, DSM_R_BX, DSM_R_SP, DSM_R_BP, DSM_R_SI, DSM_R_DI,
    10, 11, 12, 13, 14, 15, 16, 17 };

static int psink(void *a, const struct ds_pebs_sample *s)
{
    (void)a;
    R.samples++;
    /* ev_plain: regs[k] = 0x1000 * (k + 1) + ip */
    uint64_t ip = s->gpr[0] - 0x1000ull * (DSM_R_AX + 1);
    uint64_t i = (ip - IP_OF(0)) / 16;
    bool ok = (s->present & DS_SAMPLE_GPRS) && ip >= IP_OF(0) && ip < IP_OF(NINSN) && (ip - IP_OF(0)) % 16 == 0;
    for (unsigned k = 0; ok && k < DS_GPR__COUNT; k++)
        ok = s->gpr[k] == 0x1000ull * (gpr_model_index[k] + 1) + ip;
    ok = ok && (s->present & DS_SAMPLE_TSC) && s->tsc == 3 * ip;
    ok = ok && (s->present & DS_SAMPLE_APPLICABLE) && s->counters == (1ull << R.pc);
    ok = ok && s->flags == 0x202;
    if (!ok) {
        R.bad++;
        return 0;
    }
    /* LBR group: newest first, the branches retired before instruction i
     * (the assist precedes the instruction's own LBR update) */
    bool lok = s->lbr && s->lbr_count == LBR_N;
    uint64_t j = i;
    for (unsigned k = 0; lok && k < LBR_N; k++) {
        do
            j--;
        while (j > 0 && !IS_BR(j));
        if (!IS_BR(j))
            break;   /* fewer branches than entries so far */
        lok = s->lbr[k].from == IP_OF(j) && s->lbr[k].to == IP_OF(j + 1);
    }
    if (!lok)
        R.bad_lbr++;
    /* retire latency: exactly on timed-PEBS parts, absent elsewhere */
    uint32_t hdr_rl = (uint32_t)((s->header >> 32) & 0xFFFF);   /* raw header bits 47:32 */
    if (R.x->timed ? !((s->present & DS_SAMPLE_RETIRE_LAT) && s->retire_latency == RL_OF(i) && hdr_rl == RL_OF(i))
                   : ((s->present & DS_SAMPLE_RETIRE_LAT) != 0 || hdr_rl != 0))
        R.bad_rl++;
    /* counters group (format 6): the plain GP counter (R.oc) and fixed 0
     * count every instruction from 0, so they read i + 1 here; R.pc is the
     * PEBS counter (0 between its overflow and the reload in the model) */
    if (R.cntrs) {
        bool cok = (s->present & DS_SAMPLE_CNTRS) && s->cntr_gp_mask == 0x3 && s->cntr_fixed_mask == 0x1 &&
                   s->cntr_gp[R.pc] == 0 && s->cntr_gp[R.oc] == i + 1 && s->cntr_fixed[0] == i + 1;
        if (!cok)
            R.bad_cntr++;
    } else if (s->present & DS_SAMPLE_CNTRS) {
        R.bad_cntr++;
    }
    return 0;
}

static void on_pmi(void *ctx, uint32_t why)
{
    (void)ctx; (void)why;
    struct ds_pmi_result res;
    int e = ds_pmi_handle(&R.pmi, &res);
    if (e)
        R.herr = (uint64_t)e;
    R.lost += res.pebs.lost_beyond + res.pebs.lost_corrupt + res.pebs.lost_race;
}

static void test_run(const struct expect *x)
{
    const char *n = dsm_profile_name(x->p);
    memset(&R, 0, sizeof(R));
    memset(blk, 0, sizeof(blk));
    R.x = x;
    R.cntrs = x->pebs_fmt >= 6;
    R.pc = x->c0_pebs & 1 ? 0 : 1;
    R.oc = R.pc ^ 1;
    mem.base = LIN; mem.buf = blk; mem.size = sizeof(blk);
    CHECK_EQ(dsm_init(&R.m, x->p, &fm_ops, &mem), DSM_OK, "init %s", n);
    CHECK_EQ(ds_model_cpu_init(&R.c, &R.m), DS_OK, "libds %s", n);
    CHECK_EQ(ds_cpu_identify(&R.c), DS_OK, "identify %s", n);

    /* Arch LBR on (the LBR group of the records and the snapshot below) */
    const struct ds_lbr_model *lm = NULL;
    CHECK_EQ(ds_lbr_cpu_model(&R.c, &lm), DS_OK, "LBR source %s", n);
    if (!lm)
        return;
    CHECK_EQ(ds_lbr_enable(&R.c, lm, NULL), DS_OK, "Arch LBR enable %s", n);

    const uint64_t P = 97;
    uint64_t cfg = DS_PEBS_DATA_CFG_GPRS | DS_PEBS_DATA_CFG_LBRS |
                   ((uint64_t)(LBR_N - 1) << DS_PEBS_DATA_CFG_LBR_SHIFT);
    if (R.cntrs)
        cfg |= DS_PEBS_DATA_CFG_CNTRS | (0x3ull << DS_PEBS_DATA_CFG_GP_SHIFT) | (0x1ull << DS_PEBS_DATA_CFG_FIX_SHIFT);
    struct ds_area_config ac;
    memset(&ac, 0, sizeof(ac));
    ac.area = (union ds_area *)blk; ac.area_linear = mem.base;
    ac.pebs.mem = blk + 0x1000; ac.pebs.linear = mem.base + 0x1000;
    ac.pebs_data_cfg = cfg;
    CHECK_EQ(dsm_wrmsr(&R.m, 0x3F2, cfg), DSM_OK, "model takes DATA_CFG %s", n); /* for the size only */
    uint32_t rsz = dsm_pebs_record_size(&R.m);
    ac.pebs.bytes = (size_t)rsz * 40; ac.pebs.thresh_records = 8;  /* margin: every GP + fixed counter */
    CHECK_EQ(ds_area_setup(&R.ctx, &R.c, &ac), DS_OK, "area setup %s", n);
    CHECK_EQ(R.ctx.pebs.rec_size, rsz, "libds record size = model's (%u) %s", rsz, n);
    uint64_t start, reset;
    CHECK_EQ(ds_pmc_gp_period(&R.c, P, &start, &reset), DS_OK, "period %s", n);
    CHECK_EQ(ds_area_set_reset(&R.ctx, DS_CTR_GP, R.pc, reset), DS_OK, "reset %s", n);
    CHECK_EQ(ds_area_install(&R.ctx), DS_OK, "install %s", n);

    struct ds_pmi_config pc;
    memset(&pc, 0, sizeof(pc));
    pc.pebs_sink = psink;
    pc.pebs_counters = 1ull << R.pc;
    pc.freeze = DS_FREEZE_STREAMLINED;
    CHECK_EQ(ds_pmi_init(&R.pmi, &R.c, &R.ctx, &pc), DS_OK, "pmi init %s", n);
    CHECK_EQ(ds_pmi_set_freeze(&R.pmi), DS_OK, "freeze %s", n);
    dsm_set_pmi(&R.m, on_pmi, NULL);

    uint64_t sel = 0xC0 | DS_EVTSEL_USR | DS_EVTSEL_EN | DS_EVTSEL_ADAPTIVE;  /* INST_RETIRED.ANY_P */
    CHECK_EQ(ds_pmc_pebs_data_cfg(&R.c, cfg), DS_OK, "DATA_CFG %s", n);
    /* C0H PEBS on PMC0: refused exactly where c0_pebs lacks bit 0 */
    CHECK_EQ(ds_pmc_pebs_check(&R.c, 0, sel), (x->c0_pebs & 1) ? DS_OK : DS_ERR_PMC_PEBS_EVENT_COUNTER,
             "C0H PEBS on PMC0 %s", n);
    CHECK_EQ(ds_pmc_gp_program(&R.c, R.pc, sel, start), DS_OK, "program PEBS PMC%u %s", R.pc, n);
    CHECK_EQ(ds_pmc_gp_program(&R.c, R.oc, 0xC0 | DS_EVTSEL_USR | DS_EVTSEL_EN, 0), DS_OK, "program PMC%u %s", R.oc, n);
    CHECK_EQ(ds_pmc_fixed_program(&R.c, 0, DS_FIXED_USR, false, 0), DS_OK, "program fixed 0 %s", n);
    CHECK_EQ(ds_pmc_pebs_enable(&R.c, R.pc, sel), DS_OK, "PEBS enable PMC%u %s", R.pc, n);
    CHECK_EQ(ds_pmc_global_ctrl(&R.c, 0x3 | (1ull << 32)), DS_OK, "GLOBAL_CTRL %s", n);

    for (uint32_t i = 0; i < NINSN; i++) {
        struct dsm_event ev = IS_BR(i) ? ev_branch(IP_OF(i), IP_OF(i + 1), false) : ev_plain(IP_OF(i));
        ev.retire_latency = RL_OF(i);
        dsm_retire(&R.m, &ev);
    }
    struct ds_drain_stats ds;
    memset(&ds, 0, sizeof(ds));
    ds_pebs_drain(&R.ctx, psink, NULL, &ds);
    R.lost += ds.lost_beyond + ds.lost_corrupt + ds.lost_race;
    const struct dsm_stats *st = dsm_stats(&R.m);
    printf("# %s: record %u bytes, written %llu skipped %llu samples %llu bad %llu/%llu/%llu/%llu pmis %llu\n", n, rsz,
           (unsigned long long)st->pebs_written, (unsigned long long)st->pebs_skipped, (unsigned long long)R.samples,
           (unsigned long long)R.bad, (unsigned long long)R.bad_lbr, (unsigned long long)R.bad_cntr,
           (unsigned long long)R.bad_rl, (unsigned long long)st->pmis);
    CHECK_EQ(st->pebs_written + st->pebs_skipped, dsm_pebs_expected(NINSN, P), "assists %s", n);
    CHECK_EQ(st->pebs_skipped, 0, "no record skipped %s", n);
    CHECK_EQ(R.samples, st->pebs_written, "delivered = written %s", n);
    CHECK_EQ(R.lost, 0, "nothing lost %s", n);
    CHECK_EQ(R.herr, 0, "handler errors %s", n);
    CHECK(st->pmi_pebs > 0, "PEBS threshold PMIs taken %s", n);
    CHECK_EQ(R.bad, 0, "registers, TSC, flags, applicable counters %s", n);
    CHECK_EQ(R.bad_lbr, 0, "LBR group = the last %u branches %s", LBR_N, n);
    CHECK_EQ(R.bad_cntr, 0, "counters group %s", n);
    CHECK_EQ(R.bad_rl, 0, "retire latency %s", n);

    /* which MSRs libds used: perfmon v6 counters through the aliases only */
    uint32_t r, w, f, w2;
    dsm_msr_count(&R.m, 0x186, &r, &w, &f);
    dsm_msr_count(&R.m, 0x1901, &r, &w2, &f);
    if (x->ver >= 6) {
        CHECK(w == 0 && w2 > 0, "v6: EVTSEL through IA32_PMC_GP0_CFG_A (1901H), never 186H %s", n);
        dsm_msr_count(&R.m, 0x4C1, &r, &w, &f);
        dsm_msr_count(&R.m, 0x1900, &r, &w2, &f);
        CHECK(w == 0 && w2 > 0, "v6: counter through IA32_PMC_GP0_CTR (1900H), never 4C1H %s", n);
        dsm_msr_count(&R.m, 0x309, &r, &w, &f);
        dsm_msr_count(&R.m, 0x1980, &r, &w2, &f);
        CHECK(w == 0 && w2 > 0, "v6: fixed 0 through IA32_PMC_FX0_CTR (1980H), never 309H %s", n);
    } else {
        CHECK(w > 0 && w2 == 0, "v5: EVTSEL through 186H %s", n);
    }

    /* Arch LBR snapshot: the last `depth` branches, newest first */
    struct ds_lbr_entry out[64];
    size_t got = 0;
    unsigned fmt = 0;
    CHECK_EQ(ds_lbr_format(&R.c, lm, &fmt), DS_OK, "LBR format %s", n);
    CHECK_EQ(ds_lbr_read(&R.c, lm, fmt, out, 64, &got), DS_OK, "LBR read %s", n);
    CHECK_EQ(got, 32, "snapshot = depth 32 %s", n);
    uint32_t j = NINSN;
    size_t badl = 0;
    for (size_t k = 0; k < got; k++) {
        do
            j--;
        while (!IS_BR(j));
        if (out[k].from != IP_OF(j) || out[k].to != IP_OF(j + 1))
            badl++;
    }
    CHECK_EQ(badl, 0, "Arch LBR snapshot = last 32 branches %s", n);
}

/* The hybrid pair differs where the cores differ: PMC6/7 exist on the P-core
 * only (libds refuses them on the E-core before touching an MSR; the model
 * faults them there), and the E-core has no fixed counter 3. */
static void test_hybrid_counters(void)
{
    for (int e = 0; e < 2; e++) {
        enum dsm_profile p = e ? DSM_ALDERLAKE_E : DSM_ALDERLAKE_P;
        const char *n = dsm_profile_name(p);
        struct dsm_cpu m;
        struct ds_cpu c;
        uint64_t v;
        dsm_init(&m, p, NULL, NULL);
        ds_model_cpu_init(&c, &m);
        CHECK_EQ(ds_cpu_identify(&c), DS_OK, "identify %s", n);
        int want = e ? DS_ERR_PMC_BAD_COUNTER : DS_OK;
        CHECK_EQ(ds_pmc_gp_program(&c, 6, 0xC0 | DS_EVTSEL_USR, 0), want, "PMC6 %s", n);
        CHECK_EQ(ds_pmc_gp_program(&c, 7, 0xC0 | DS_EVTSEL_USR, 0), want, "PMC7 %s", n);
        CHECK_EQ(dsm_rdmsr(&m, 0xC7, &v), e ? DSM_GP : DSM_OK, "model PMC6 %s", n);
        CHECK_EQ(ds_pmc_fixed_program(&c, 3, DS_FIXED_USR, false, 0), e ? DS_ERR_PMC_BAD_FIXED : DS_OK,
                 "fixed 3 %s", n);
        CHECK_EQ(dsm_rdmsr(&m, 0x30C, &v), e ? DSM_GP : DSM_OK, "model fixed 3 %s", n);
        uint32_t r, w, f;
        dsm_msr_count(&m, 0xC7, &r, &w, &f);
        CHECK_EQ(f, (uint32_t)e, "libds never touched PMC6 on the E-core %s", n);
    }
}

/* Perfmon v6 in the model: the aliases reach the counters the legacy MSRs
 * cannot (PMC8/9 on the Lunar Lake P-core), CFG_B/CFG_C fault here, and
 * libds programs PMC9 through 1924H/1925H. */
static void test_v6_high_counters(void)
{
    struct dsm_cpu m;
    struct ds_cpu c;
    uint64_t v;
    dsm_init(&m, DSM_LUNARLAKE, NULL, NULL);
    ds_model_cpu_init(&c, &m);
    CHECK_EQ(ds_cpu_identify(&c), DS_OK, "identify");
    CHECK_EQ(ds_pmc_gp_program(&c, 9, 0xC0 | DS_EVTSEL_USR | DS_EVTSEL_EN, 5), DS_OK, "PMC9 through the aliases");
    CHECK_EQ(dsm_rdmsr(&m, 0x1900 + 4 * 9, &v), DSM_OK, "GP9 CTR");
    CHECK_EQ(v, 5, "GP9 value");
    CHECK_EQ(dsm_rdmsr(&m, 0x1901 + 4 * 9, &v), DSM_OK, "GP9 CFG_A");
    CHECK_EQ(v, 0xC0 | DS_EVTSEL_USR | DS_EVTSEL_EN, "GP9 event select");
    CHECK_EQ(ds_pmc_gp_program(&c, 10, 0xC0 | DS_EVTSEL_USR, 0), DS_ERR_PMC_BAD_COUNTER, "PMC10 absent (23H.1 3FFH)");
    CHECK_EQ(dsm_rdmsr(&m, 0x1900 + 4 * 10, &v), DSM_GP, "model: GP10 CTR faults");
    CHECK_EQ(dsm_rdmsr(&m, 0xC1 + 8, &v), DSM_GP, "model: 0C9H is no PMC");
    CHECK_EQ(dsm_wrmsr(&m, 0x1900, 1ull << 48), DSM_GP, "model: CTR beyond the width faults");
    CHECK_EQ(ds_pmc_global_ctrl(&c, 0x3FFull), DS_OK, "GLOBAL_CTRL with GP 8, 9");
    CHECK_EQ(ds_pmc_global_ctrl(&c, 0x7FFull), DS_ERR_PMC_RESERVED, "GLOBAL_CTRL GP 10 refused");
}

/* PEBS on fixed counter 0 through libds (ds_pmc_pebs_enable_fixed): the
 * reset value libds stores must be where the model reloads from (DS slot
 * 8 + m on format 4, 32 + m from format 5, Linux intel_pmu_pebs_enable);
 * a wrong slot reloads 0 and leaves one record instead of (n - 1) / P. */
static uint64_t fixed_samples, fixed_bad;
static int fsink(void *a, const struct ds_pebs_sample *s)
{
    (void)a;
    fixed_samples++;
    if (!(s->present & DS_SAMPLE_APPLICABLE) || s->counters != (1ull << 32))
        fixed_bad++;
    return 0;
}

/* A fresh model CPU of @p identified by libds, with a DS area at LIN and a
 * PEBS buffer of @pebs_bytes set up (not installed): the start of the
 * single-counter PEBS tests below. */
static void pebs_cpu(enum dsm_profile p, const char *n, struct dsm_cpu *m, struct ds_cpu *c, struct ds_ctx *ctx,
                     size_t pebs_bytes)
{
    memset(blk, 0, sizeof(blk));
    memset(ctx, 0, sizeof(*ctx));
    mem.base = LIN; mem.buf = blk; mem.size = sizeof(blk);
    CHECK_EQ(dsm_init(m, p, &fm_ops, &mem), DSM_OK, "init %s", n);
    ds_model_cpu_init(c, m);
    CHECK_EQ(ds_cpu_identify(c), DS_OK, "identify %s", n);
    struct ds_area_config ac;
    memset(&ac, 0, sizeof(ac));
    ac.area = (union ds_area *)blk; ac.area_linear = mem.base;
    ac.pebs.mem = blk + 0x1000; ac.pebs.linear = mem.base + 0x1000; ac.pebs.bytes = pebs_bytes;
    CHECK_EQ(ds_area_setup(ctx, c, &ac), DS_OK, "setup %s", n);
}

static void test_fixed_pebs(enum dsm_profile p)
{
    const char *n = dsm_profile_name(p);
    static struct dsm_cpu m;
    static struct ds_cpu c;
    static struct ds_ctx ctx;
    pebs_cpu(p, n, &m, &c, &ctx, 32 * 64);
    const uint64_t P = 50, N = 1000;
    uint64_t start, reset;
    CHECK_EQ(ds_pmc_period_values(c.caps.fixed_width, true, P, &start, &reset), DS_OK, "period %s", n);
    CHECK_EQ(ds_area_set_reset(&ctx, DS_CTR_FIXED, 0, reset), DS_OK, "fixed 0 reset slot %s", n);
    CHECK_EQ(ds_area_install(&ctx), DS_OK, "install %s", n);
    CHECK_EQ(ds_pmc_fixed_program(&c, 0, DS_FIXED_USR, false, start), DS_OK, "fixed 0 %s", n);
    CHECK_EQ(ds_pmc_pebs_enable_fixed(&c, 0), DS_OK, "fixed PEBS %s", n);
    CHECK_EQ(ds_pmc_global_ctrl(&c, 1ull << 32), DS_OK, "GLOBAL_CTRL %s", n);
    for (uint64_t i = 0; i < N; i++) {
        struct dsm_event ev = ev_plain(IP_OF(i));
        dsm_retire(&m, &ev);
    }
    fixed_samples = fixed_bad = 0;
    struct ds_drain_stats ds;
    memset(&ds, 0, sizeof(ds));
    CHECK_EQ(ds_pebs_drain(&ctx, fsink, NULL, &ds), DS_OK, "drain %s", n);
    CHECK_EQ(dsm_stats(&m)->pebs_written, dsm_pebs_expected(N, P), "records every %llu: reset slot agrees %s",
             (unsigned long long)P, n);
    CHECK_EQ(fixed_samples, dsm_pebs_expected(N, P), "delivered %s", n);
    CHECK_EQ(fixed_bad, 0, "applicable counters = fixed 0 %s", n);
}

/* The model, independently of libds's refusal: INST_RETIRED.ANY_P C0H/00H
 * with PEBS forced on PMC0 (IA32_PEBS_ENABLE written straight to the model)
 * takes an assist only where c0_pebs has bit 0 (perfmon "PEBScounters"); on
 * Golden/Redwood Cove PMC0 still counts and overflows but writes no record. */
static void test_c0_pmc0_model(const struct expect *x)
{
    const char *n = dsm_profile_name(x->p);
    static struct dsm_cpu m;
    static struct ds_cpu c;
    static struct ds_ctx ctx;
    pebs_cpu(x->p, n, &m, &c, &ctx, 64 * 256);
    const uint64_t P = 50, N = 1000;
    uint64_t start, reset;
    CHECK_EQ(ds_pmc_gp_period(&c, P, &start, &reset), DS_OK, "period %s", n);
    CHECK_EQ(ds_area_set_reset(&ctx, DS_CTR_GP, 0, reset), DS_OK, "reset %s", n);
    CHECK_EQ(ds_area_install(&ctx), DS_OK, "install %s", n);
    uint64_t sel = 0xC0 | DS_EVTSEL_USR | DS_EVTSEL_EN;
    CHECK_EQ(ds_pmc_gp_program(&c, 0, sel, start), DS_OK, "program PMC0 %s", n);
    CHECK_EQ(dsm_wrmsr(&m, 0x3F1, 1), DSM_OK, "model: PEBS_ENABLE bit 0 %s", n);
    CHECK_EQ(ds_pmc_global_ctrl(&c, 1), DS_OK, "GLOBAL_CTRL %s", n);
    for (uint64_t i = 0; i < N; i++) {
        struct dsm_event ev = ev_plain(IP_OF(i));
        dsm_retire(&m, &ev);
    }
    const struct dsm_stats *st = dsm_stats(&m);
    uint64_t want = (x->c0_pebs & 1) ? dsm_pebs_expected(N, P) : 0;
    CHECK_EQ(st->pebs_written + st->pebs_skipped, want, "C0H PEBS on PMC0: assists %s", n);
    uint64_t gs = 0;
    CHECK_EQ(dsm_rdmsr(&m, 0x38E, &gs), DSM_OK, "GLOBAL_STATUS %s", n);
    if (!(x->c0_pebs & 1))
        CHECK(gs & 1, "PMC0 still counts and overflows (GLOBAL_STATUS bit 0) %s", n);
}

int main(void)
{
    test_fixed_pebs(DSM_SAPPHIRERAPIDS);
    test_fixed_pebs(DSM_LUNARLAKE);
    for (size_t i = 0; i < NT; i++)
        test_identify(&T[i]);
    for (size_t i = 0; i < NT; i++)
        test_run(&T[i]);
    for (size_t i = 0; i < NT; i++)
        test_c0_pmc0_model(&T[i]);
    test_hybrid_counters();
    test_v6_high_counters();
    return check_summary();
}
