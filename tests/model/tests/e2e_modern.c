/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * End to end (issue 11 "The model"): libds against the model's post-2020
 * profiles: Sapphire Rapids (PEBS format 4 + baseline, Arch LBR), Granite
 * Rapids (timed PEBS: retire latency in the basic group), Lunar Lake P-core
 * (perfmon v6 aliased MSRs, leaf 23H counter bitmaps, PEBS format 6 counters
 * group), the Arrow Lake-H P-core (PEBS format 5 with every adaptive group,
 * test_fmt5_groups) and the Alder Lake hybrid pair (P-core / E-core: core type, counter
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
    /* Arrow Lake-H P-core: the 285H boot log (model/src/dsm_dispatch.c): v5, 10 GP, 4 fixed,
     * PEBS fmt 5; 1AH 40000003H and 23H as the Arrow Lake-S dump's P-core (Lion Cove) */
    { DSM_ARROWLAKE_H, 0xC5, 5, 0x3FF, 0xF, 5, false, true, true, 0x40, 3, 0x3FF },
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

/*
 * PEBS format 5 with every adaptive group (Arrow Lake-H P-core): the raw
 * records against my transcription of the layout (shared/reference
 * pebs-records.md "Format 4 ... and format 5", Linux struct pebs_basic /
 * pebs_meminfo / pebs_gprs / pebs_xmm / pebs_lbr_entry, SDM "Adaptive PEBS
 * Record"): basic 32 bytes (header: groups in 31:0, record size in 63:48;
 * +8 IP, +10H applicable counters, +18H TSC), meminfo at 20H (address,
 * aux, latency, TSX), GPRs at 40H (RFLAGS, RIP, RAX, RCX, RDX, RBX, RSP,
 * RBP, RSI, RDI, R8-R15), XMM at D0H (32 quadwords), LBR at 1D0H (N x
 * from/to/info); and libds's decode of each record against the same bytes.
 */
#define F5_N 4u        /* LBR entries in the records */
#define F5_INSN 400u
#define F5_P 7u
static uint64_t f5_xmm[32];
static struct { size_t off, recs, raw_bad, dec_bad; uint64_t bad_i; } F5;

static uint64_t f5_rd(size_t off) { uint64_t v; memcpy(&v, blk + 0x1000 + off, 8); return v; }

/* Raw record at F5.off against instruction @i (ev_plain/ev_load of the feed). */
static bool f5_raw_ok(size_t o, uint64_t i, uint32_t size)
{
    uint64_t ip = IP_OF(i);
    static const unsigned gpr[18] = { DSM_R_FLAGS, DSM_R_IP, DSM_R_AX, DSM_R_CX, DSM_R_DX, DSM_R_BX, DSM_R_SP,
                                      DSM_R_BP, DSM_R_SI, DSM_R_DI, 10, 11, 12, 13, 14, 15, 16, 17 };
    bool ok = (f5_rd(o) & 0xFFFFFFFFull) == (0xFull | ((uint64_t)(F5_N - 1) << 24)) && f5_rd(o) >> 48 == size &&
              f5_rd(o + 0x08) == ip && f5_rd(o + 0x10) == 1 && f5_rd(o + 0x18) == 3 * ip;
    /* a load event (no load-latency event): address and data source, latency 0 */
    ok = ok && i % 4 == 1 && f5_rd(o + 0x20) == 0x7000 + i && f5_rd(o + 0x28) == 0x1 && f5_rd(o + 0x30) == 0 &&
         f5_rd(o + 0x38) == 0;
    for (unsigned k = 0; ok && k < 18; k++)   /* trap-like (PERF_CAPABILITIES[6]): RIP = next IP */
        ok = f5_rd(o + 0x40 + 8 * k) == (k == 1 ? ip + 4 : k == 0 ? 0x202 : 0x1000ull * (gpr[k] + 1) + ip);
    for (unsigned k = 0; ok && k < 32; k++)
        ok = f5_rd(o + 0xD0 + 8 * k) == f5_xmm[k];
    return ok;
}

static int f5_sink(void *a, const struct ds_pebs_sample *s)
{
    (void)a;
    size_t o = F5.off;
    uint32_t size = 0x1D0 + 24 * F5_N;
    uint64_t i = (f5_rd(o + 0x08) - IP_OF(0)) / 16;
    if (!f5_raw_ok(o, i, size) && !F5.raw_bad++)
        F5.bad_i = i;
    /* libds's decode = the raw fields */
    bool ok = s->fmt == DS_PEBS_FMT_5 && s->size == size && s->header == f5_rd(o) && s->ip == f5_rd(o + 0x08) &&
              s->counters == f5_rd(o + 0x10) && s->tsc == f5_rd(o + 0x18) && s->data_addr == f5_rd(o + 0x20) &&
              s->data_source == f5_rd(o + 0x28) && s->latency == f5_rd(o + 0x30) && s->tsx == f5_rd(o + 0x38) &&
              s->flags == f5_rd(o + 0x40) && s->xmm && s->lbr && s->lbr_count == F5_N;
    for (unsigned k = 0; ok && k < DS_GPR__COUNT; k++)   /* gpr[]: AX, CX, DX, BX, SP, BP, SI, DI, R8-R15 */
        ok = s->gpr[k] == f5_rd(o + 0x50 + 8 * k);
    for (unsigned k = 0; ok && k < 32; k++)
        ok = s->xmm->xmm[k] == f5_rd(o + 0xD0 + 8 * k);
    for (unsigned k = 0; ok && k < F5_N; k++)
        ok = s->lbr[k].from == f5_rd(o + 0x1D0 + 24 * k) && s->lbr[k].to == f5_rd(o + 0x1D8 + 24 * k) &&
             s->lbr[k].info == f5_rd(o + 0x1E0 + 24 * k);
    if (!ok)
        F5.dec_bad++;
    F5.off += size;
    F5.recs++;
    return 0;
}

static void test_fmt5_groups(void)
{
    const enum dsm_profile p = DSM_ARROWLAKE_H;
    const char *n = dsm_profile_name(p);
    static struct dsm_cpu m;
    static struct ds_cpu c;
    static struct ds_ctx ctx;
    memset(&F5, 0, sizeof(F5));
    for (unsigned k = 0; k < 32; k++)
        f5_xmm[k] = 0x0123456789ABCDEFull ^ (0x1111ull * k);
    memset(blk, 0, sizeof(blk));
    mem.base = LIN; mem.buf = blk; mem.size = sizeof(blk);
    CHECK_EQ(dsm_init(&m, p, &fm_ops, &mem), DSM_OK, "init %s", n);
    CHECK_EQ(ds_model_cpu_init(&c, &m), DS_OK, "libds %s", n);
    CHECK_EQ(ds_cpu_identify(&c), DS_OK, "identify %s", n);
    CHECK_EQ(c.caps.pebs_format, 5, "PERF_CAPABILITIES.PEBS_FMT 5 %s", n);
    CHECK(c.caps.pebs_baseline, "PEBS_BASELINE %s", n);
    const struct ds_lbr_model *lm = NULL;
    CHECK_EQ(ds_lbr_cpu_model(&c, &lm), DS_OK, "LBR source %s", n);
    if (lm)
        CHECK_EQ(ds_lbr_enable(&c, lm, NULL), DS_OK, "Arch LBR enable %s", n);
    uint64_t cfg = DS_PEBS_DATA_CFG_MEMINFO | DS_PEBS_DATA_CFG_GPRS | DS_PEBS_DATA_CFG_XMMS | DS_PEBS_DATA_CFG_LBRS |
                   ((uint64_t)(F5_N - 1) << DS_PEBS_DATA_CFG_LBR_SHIFT);
    uint32_t size = 32 + 32 + 144 + 256 + 24 * F5_N;   /* 560: the groups' sizes summed */
    struct ds_area_config ac;
    memset(&ac, 0, sizeof(ac));
    memset(&ctx, 0, sizeof(ctx));
    ac.area = (union ds_area *)blk; ac.area_linear = mem.base;
    ac.pebs.mem = blk + 0x1000; ac.pebs.linear = mem.base + 0x1000;
    ac.pebs.bytes = (size_t)size * (F5_INSN / 4 / F5_P + 12);   /* no threshold: drained at the end */
    ac.pebs_data_cfg = cfg;
    CHECK_EQ(ds_area_setup(&ctx, &c, &ac), DS_OK, "area setup %s", n);
    CHECK_EQ(ctx.pebs.rec_size, size, "libds record size %u %s", size, n);
    uint64_t start, reset;
    CHECK_EQ(ds_pmc_gp_period(&c, F5_P, &start, &reset), DS_OK, "period %s", n);
    CHECK_EQ(ds_area_set_reset(&ctx, DS_CTR_GP, 0, reset), DS_OK, "reset %s", n);
    CHECK_EQ(ds_area_install(&ctx), DS_OK, "install %s", n);
    /* MEM_INST_RETIRED.ALL_LOADS (D0H/81H, lunarlake_core.json PEBS): the meminfo group is the load's */
    uint64_t sel = DS_EVTSEL(0xD0, 0x81) | DS_EVTSEL_USR | DS_EVTSEL_EN | DS_EVTSEL_ADAPTIVE;
    CHECK_EQ(ds_pmc_pebs_data_cfg(&c, cfg), DS_OK, "DATA_CFG %s", n);
    CHECK_EQ(ds_pmc_gp_program(&c, 0, sel, start), DS_OK, "program PMC0 %s", n);
    CHECK_EQ(ds_pmc_pebs_enable(&c, 0, sel), DS_OK, "PEBS enable PMC0 %s", n);
    CHECK_EQ(ds_pmc_global_ctrl(&c, 1), DS_OK, "GLOBAL_CTRL %s", n);
    for (uint32_t i = 0; i < F5_INSN; i++) {
        struct dsm_event ev = IS_BR(i) ? ev_branch(IP_OF(i), IP_OF(i + 1), false)
                              : i % 4 == 1 ? ev_load(IP_OF(i), 0x7000 + i, 0x40, 0x1) : ev_plain(IP_OF(i));
        ev.xmm = f5_xmm;
        dsm_retire(&m, &ev);
    }
    struct ds_drain_stats ds;
    memset(&ds, 0, sizeof(ds));
    CHECK_EQ(ds_pebs_drain(&ctx, f5_sink, NULL, &ds), DS_OK, "drain %s", n);
    const uint64_t loads = F5_INSN / 4;   /* i % 4 == 1 */
    CHECK_EQ(dsm_stats(&m)->pebs_written, dsm_pebs_expected(loads, F5_P), "records %s", n);
    CHECK_EQ(F5.recs, dsm_pebs_expected(loads, F5_P), "every record delivered %s", n);
    CHECK_EQ(F5.raw_bad, 0, "raw records = the transcribed layout (first bad: instruction %llu) %s",
             (unsigned long long)F5.bad_i, n);
    CHECK_EQ(F5.dec_bad, 0, "libds decode = the raw fields %s", n);
    /* the fixed-counter reset slots: 40H + 8 * (32 + m) on format 5 (ds-area.md) */
    CHECK_EQ(ds_area_set_reset(&ctx, DS_CTR_FIXED, 1, 0xFFFF12345678ull), DS_OK, "fixed 1 reset %s", n);
    uint64_t slot;
    memcpy(&slot, blk + 0x40 + 8 * (32 + 1), 8);
    CHECK_EQ(slot, 0xFFFF12345678ull, "fixed 1 reset at 148H (format 5) %s", n);
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
    test_fixed_pebs(DSM_ARROWLAKE_H);
    test_fmt5_groups();
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
