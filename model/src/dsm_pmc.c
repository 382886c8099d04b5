/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * dsmodel: architectural performance monitoring (SDM Vol. 3B "Architectural
 * Performance Monitoring", versions 1-6): the counter, event select, fixed
 * counter and global control MSRs (tables of single MSRs and ranges), the
 * perfmon v6 aliases, counting one retired instruction, IA32_PERF_METRICS,
 * and the PEBS assist with the counters' reload. Includes no libds header.
 */
#include "dsmodel_int.h"

static uint64_t gstatus_valid(const struct dsm_cpu *c)
{
    uint64_t v = wmask(c->ngp) | (fxmask(c) << 32) | DSM_GS_OVFBUF | DSM_GS_CONDCHGD;
    if (c->version >= 3)
        v |= DSM_GS_UNCORE;
    if (c->version >= 4)
        v |= DSM_GS_LBR_FRZ | DSM_GS_CTR_FRZ;
    if (c->perf_caps & DSM_CAP_PERF_METRICS)
        v |= DSM_GS_PERF_METRICS;
    if (c->ap.on)
        v |= DSM_GS_ARCH_PEBS;
    return v;
}

static uint64_t gctrl_valid(const struct dsm_cpu *c)
{
    uint64_t v = wmask(c->ngp) | (fxmask(c) << 32);
    if (c->perf_caps & DSM_CAP_PERF_METRICS)
        v |= 1ull << 48;
    return v;
}

static uint64_t fixed_ctrl_valid(const struct dsm_cpu *c)
{
    uint64_t v = 0;
    for (unsigned m = 0; m < c->nfixed; m++) {
        if (!fx_exists(c, m))
            continue;
        v |= 0xBull << (4 * m);              /* OS, USR, PMI */
        if (c->version >= 3)
            v |= 0x4ull << (4 * m);          /* AnyThread */
        if (adaptive_ok(c))
            v |= 1ull << (32 + 4 * m);       /* adaptive PEBS */
    }
    return v;
}

/* Legacy MSRs reach counters 0-7 only (0xC9, 0x18E, 0x4C9 are no PMC MSRs). */
static unsigned legacy_gp(const struct dsm_cpu *c) { return c->ngp < 8 ? c->ngp : 8; }

/* Perfmon v6 aliases (SDM "Architectural Performance Monitoring Version 6"):
 * IA32_PMC_GPn_CTR (full-width: bits beyond the width #GP, as IA32_A_PMCn),
 * IA32_PMC_GPn_CFG_A (= IA32_PERFEVTSELn), IA32_PMC_FXm_CTR (= IA32_FIXED_CTRm).
 * CFG_B (reload) and CFG_C (architectural PEBS) are not modelled here: #GP.
 * Returns 1 if @msr is in the alias ranges (rc set), 0 otherwise. */
static int msr_v6(struct dsm_cpu *c, uint32_t msr, bool wr, uint64_t *v, int *rc)
{
    *rc = DSM_OK;
    if (msr >= DSM_MSR_V6_GP0_CTR && msr < DSM_MSR_V6_GP0_CTR + DSM_MSR_V6_STEP * c->ngp) {
        unsigned n = (msr - DSM_MSR_V6_GP0_CTR) / DSM_MSR_V6_STEP;
        switch ((msr - DSM_MSR_V6_GP0_CTR) % DSM_MSR_V6_STEP) {
        case 0:
            if (!wr) {
                *v = c->pmc[n];
            } else if (*v & ~wmask(c->gp_width)) {
                *rc = DSM_GP;
            } else {
                c->pmc[n] = *v;
                c->armed &= ~(1ull << n);
            }
            return 1;
        case 1:
            if (!wr)
                *v = c->evtsel[n];
            else if (*v & ~c->evtsel_valid)
                *rc = DSM_GP;
            else
                c->evtsel[n] = *v;
            return 1;
        default:
            *rc = DSM_GP;
            return 1;
        }
    }
    if (msr >= DSM_MSR_V6_FX0_CTR && msr < DSM_MSR_V6_FX0_CTR + DSM_MSR_V6_STEP * c->nfixed) {
        unsigned m = (msr - DSM_MSR_V6_FX0_CTR) / DSM_MSR_V6_STEP;
        if ((msr - DSM_MSR_V6_FX0_CTR) % DSM_MSR_V6_STEP || !fx_exists(c, m))
            *rc = DSM_GP;
        else if (!wr)
            *v = c->fixed[m];
        else if (*v & ~wmask(c->fixed_width))
            *rc = DSM_GP;
        else {
            c->fixed[m] = *v;
            c->armed &= ~(1ull << (32 + m));
        }
        return 1;
    }
    return 0;
}

/* ---- counter ranges --------------------------------------------------------- */
static unsigned n_legacy(const struct dsm_cpu *c) { return legacy_gp(c); }
static unsigned n_full(const struct dsm_cpu *c) { return (c->perf_caps & DSM_CAP_FW_WRITE) ? legacy_gp(c) : 0; }
static unsigned n_fixed(const struct dsm_cpu *c) { return c->version >= 2 ? c->nfixed : 0; }

/* IA32_PMCn (C1H+n): a write takes bits 31:0 sign-extended to the counter width. */
static int pmc_legacy(struct dsm_cpu *c, unsigned n, bool wr, uint64_t *v)
{
    if (wr) {
        c->pmc[n] = (uint64_t)(int64_t)(int32_t)(uint32_t)*v & wmask(c->gp_width);
        c->armed &= ~(1ull << n);   /* model: reprogramming a counter drops a pending assist */
    } else {
        *v = c->pmc[n];
    }
    return DSM_OK;
}

/* IA32_A_PMCn (4C1H+n, with PERF_CAPABILITIES.FW_WRITE): full width. */
static int pmc_full(struct dsm_cpu *c, unsigned n, bool wr, uint64_t *v)
{
    int rc = dsm_rw(&c->pmc[n], wr, v, wmask(c->gp_width));
    if (wr && rc == DSM_OK)
        c->armed &= ~(1ull << n);
    return rc;
}

/* IA32_PERFEVTSELn (186H+n). */
static int evtsel(struct dsm_cpu *c, unsigned n, bool wr, uint64_t *v)
{
    return dsm_rw(&c->evtsel[n], wr, v, c->evtsel_valid);
}

/* IA32_FIXED_CTRm (309H+m, v2+): only the counters that exist. */
static int fixed_ctr(struct dsm_cpu *c, unsigned m, bool wr, uint64_t *v)
{
    if (!fx_exists(c, m))
        return DSM_GP;
    int rc = dsm_rw(&c->fixed[m], wr, v, wmask(c->fixed_width));
    if (wr && rc == DSM_OK)
        c->armed &= ~(1ull << (32 + m));
    return rc;
}

static const struct dsm_msr_range arch_ranges[] = {
    { DSM_MSR_PMC0, n_legacy, pmc_legacy },
    { DSM_MSR_A_PMC0, n_full, pmc_full },
    { DSM_MSR_PERFEVTSEL0, n_legacy, evtsel },
    { DSM_MSR_FIXED_CTR0, n_fixed, fixed_ctr },
};

/* ---- single MSRs ------------------------------------------------------------- */
static int perf_cap(struct dsm_cpu *c, uint32_t msr, bool wr, uint64_t *v)
{
    (void)msr;
    if (!has_pdcm(c) || wr)
        return DSM_GP;
    *v = c->perf_caps;
    return DSM_OK;
}

/* As written; counting updates it only with EN_PERF_METRICS (metrics_update). */
static int perf_metrics(struct dsm_cpu *c, uint32_t msr, bool wr, uint64_t *v)
{
    (void)msr;
    if (!(c->perf_caps & DSM_CAP_PERF_METRICS))
        return DSM_GP;
    return dsm_rw(&c->perf_metrics, wr, v, ~0ull);
}

/* IA32_DEBUGCTL: debugctl_drop bits are accepted and dropped (KVM). */
static int debugctl(struct dsm_cpu *c, uint32_t msr, bool wr, uint64_t *v)
{
    (void)msr;
    if (wr) {
        if (*v & ~(c->debugctl_valid | c->debugctl_drop))
            return DSM_GP;
        if ((*v & (DSM_DBG_BTS_OFF_OS | DSM_DBG_BTS_OFF_USR)) && !(c->cpuid1[2] & DSM_C1_ECX_DSCPL))
            return DSM_GP;
        c->debugctl = *v & ~c->debugctl_drop;
    } else {
        *v = c->debugctl;
    }
    return DSM_OK;
}

static int fixed_ctr_ctrl(struct dsm_cpu *c, uint32_t msr, bool wr, uint64_t *v)
{
    (void)msr;
    if (c->version < 2)
        return DSM_GP;
    return dsm_rw(&c->fixed_ctrl, wr, v, fixed_ctrl_valid(c));
}

static int global_status(struct dsm_cpu *c, uint32_t msr, bool wr, uint64_t *v)
{
    (void)msr;
    if (c->version < 2 || wr)
        return DSM_GP;
    *v = c->gstatus;
    return DSM_OK;
}

static int global_ctrl(struct dsm_cpu *c, uint32_t msr, bool wr, uint64_t *v)
{
    (void)msr;
    if (c->version < 2)
        return DSM_GP;
    return dsm_rw(&c->gctrl, wr, v, gctrl_valid(c));
}

/* IA32_PERF_GLOBAL_OVF_CTRL (v4+: GLOBAL_STATUS_RESET): write-1-to-clear, reads 0. */
static int global_ovf_ctrl(struct dsm_cpu *c, uint32_t msr, bool wr, uint64_t *v)
{
    (void)msr;
    if (c->version < 2)
        return DSM_GP;
    if (wr) {
        if (*v & ~gstatus_valid(c))
            return DSM_GP;
        c->gstatus &= ~*v;   /* v4: clearing CTR_Frz / LBR_Frz unfreezes */
    } else {
        *v = 0;
    }
    return DSM_OK;
}

/* IA32_PERF_GLOBAL_STATUS_SET (v4+): write-1-to-set, reads 0. */
static int global_status_set(struct dsm_cpu *c, uint32_t msr, bool wr, uint64_t *v)
{
    (void)msr;
    if (c->version < 4)
        return DSM_GP;
    if (wr) {
        if (*v & ~(gstatus_valid(c) & ~DSM_GS_CONDCHGD))
            return DSM_GP;
        c->gstatus |= *v;
    } else {
        *v = 0;
    }
    return DSM_OK;
}

/* IA32_PERF_GLOBAL_INUSE (v4+, read-only): bit n: PERFEVTSELn[7:0] != 0; bit
 * 32+m: fixed m enabled; 63: PMI in use (reference: single source,
 * unconfirmed semantics). */
static int global_inuse(struct dsm_cpu *c, uint32_t msr, bool wr, uint64_t *v)
{
    (void)msr;
    if (c->version < 4 || wr)
        return DSM_GP;
    *v = 0;
    for (unsigned n = 0; n < c->ngp; n++) {
        if (c->evtsel[n] & 0xFF)
            *v |= 1ull << n;
        if (c->evtsel[n] & DSM_EVT_INT)
            *v |= 1ull << 63;
    }
    for (unsigned m = 0; m < c->nfixed; m++) {
        if ((c->fixed_ctrl >> (4 * m)) & 3)
            *v |= 1ull << (32 + m);
        if ((c->fixed_ctrl >> (4 * m)) & 8)
            *v |= 1ull << 63;
    }
    if (c->pebs_enable)
        *v |= 1ull << 63;
    return DSM_OK;
}

static const struct dsm_msr_op arch_ops[] = {
    { DSM_MSR_PERF_CAP, perf_cap },
    { DSM_MSR_PERF_METRICS, perf_metrics },
    { DSM_MSR_DEBUGCTL, debugctl },
    { DSM_MSR_FIXED_CTR_CTRL, fixed_ctr_ctrl },
    { DSM_MSR_GLOBAL_STATUS, global_status },
    { DSM_MSR_GLOBAL_CTRL, global_ctrl },
    { DSM_MSR_GLOBAL_OVF_CTRL, global_ovf_ctrl },
    { DSM_MSR_GLOBAL_STATUS_SET, global_status_set },
    { DSM_MSR_GLOBAL_INUSE, global_inuse },
    { DSM_MSR_PEBS_ENABLE, dsm__msr_pebs_enable },
    { DSM_MSR_PEBS_3F2, dsm__msr_pebs_data_cfg },   /* MSR_PEBS_DATA_CFG */
    { DSM_MSR_PEBS_LD_LAT, dsm__msr_pebs_ld_lat },
    { DSM_MSR_PEBS_FRONTEND, dsm__msr_pebs_frontend },
    { DSM_MSR_LBR_SELECT, dsm__msr_lbr_select },
    { DSM_MSR_LER_FROM, dsm__msr_ler },
    { DSM_MSR_LER_TO, dsm__msr_ler },
};

/* The MSRs of an architectural-perfmon profile: v6 aliases, counter ranges,
 * single MSRs, then the LBR MSRs; anything else #GP. */
int dsm__msr_arch(struct dsm_cpu *c, uint32_t msr, bool wr, uint64_t *v)
{
    int rc;
    if (c->version >= 6 && msr_v6(c, msr, wr, v, &rc))
        return rc;
    if (dsm__msr_ranges(arch_ranges, sizeof(arch_ranges) / sizeof(arch_ranges[0]), c, msr, wr, v, &rc) ||
        dsm__msr_ops(arch_ops, sizeof(arch_ops) / sizeof(arch_ops[0]), c, msr, wr, v, &rc) ||
        dsm__lbr_msr(c, msr, wr, v, &rc))
        return rc;
    return DSM_GP;
}

/* ---- counting ---------------------------------------------------------------- */
/* Count one occurrence on architectural counter `bit` (n or 32+m). */
static inline void arch_count(struct dsm_cpu *c, unsigned bit)
{
    uint64_t *ctr;
    uint64_t mask;
    bool pmi;
    if (bit < 32) {
        ctr = &c->pmc[bit];
        mask = wmask(c->gp_width);
        pmi = (c->evtsel[bit] & DSM_EVT_INT) != 0;
    } else {
        unsigned m = bit - 32;
        ctr = &c->fixed[m];
        mask = wmask(c->fixed_width);
        pmi = ((c->fixed_ctrl >> (4 * m)) & 8) != 0;
    }
    *ctr = (*ctr + 1) & mask;
    if (*ctr == 0) {   /* overflow: SDM "Performance Monitoring Overflow" */
        c->gstatus |= 1ull << bit;
        /* a GP counter arms only with an event that takes an assist (ev_row EP_*) */
        const struct ev_row *r = bit < 32 ? dsm__ev_row_of(c, bit) : NULL;
        if ((has_pebs(c) || c->ap.on) && dsm__pebs_on(c, bit) &&
            (bit >= 32 || (r && r->pebs != EP_NONE && (!r->pctrs || (r->pctrs & (1u << bit))))))
            c->armed |= 1ull << bit;
        if (pmi)
            c->pmi_pending |= DSM_PMI_COUNTER;
    }
}

/* IA32_PERF_METRICS (329H) is updated only while IA32_PERF_GLOBAL_CTRL bit 48
 * (EN_PERF_METRICS: reference msr.md, Linux GLOBAL_CTRL_EN_PERF_METRICS, set
 * by intel_set_masks for INTEL_PMC_IDX_METRIC_BASE) enables it and fixed
 * counter 3 counts TOPDOWN.SLOTS; otherwise it keeps its value (stale). Each
 * metric is an 8-bit fraction of the slots (Linux icl_get_metrics_event_value:
 * (metrics >> 8 * idx) & 0xff of 0xff); the model retires one uop per slot,
 * so Retiring (bits 7:0) is FFH and every other metric 0 (DSM_PM_RETIRING). */
#define DSM_GCTRL_EN_PERF_METRICS (1ull << 48)
#define DSM_PM_RETIRING 0xFFull
static void metrics_update(struct dsm_cpu *c)
{
    if ((c->perf_caps & DSM_CAP_PERF_METRICS) && (c->gctrl & DSM_GCTRL_EN_PERF_METRICS))
        c->perf_metrics = DSM_PM_RETIRING;
}

/* PEBS assist (SDM "Processor Event Based Sampling"): one record, then
 * every applicable counter of @hit reloads from its DS reset slot; those in
 * @occ (their event occurred on this instruction) count it into the reloaded
 * value. */
static void pebs_assist(struct dsm_cpu *c, const struct dsm_event *ev, uint64_t hit, uint64_t occ)
{
    if (c->ap.on)
        dsm__apebs_assist(c, ev, hit);
    else
        dsm__pebs_record(c, ev, hit);
    c->armed &= ~hit;
    uint64_t h = hit;
    while (h) {
        unsigned bit = ctz64(h);
        h &= h - 1;
        /* DS counter reset slots: fixed m at 8+m up to format 4, at 32+m from
         * format 5 (Linux intel_pmu_pebs_enable: MAX_PEBS_EVENTS_FMT4 vs
         * MAX_PEBS_EVENTS + fixed index; struct debug_store pebs_event_reset[
         * MAX_PEBS_EVENTS + MAX_FIXED_COUNTERS]) */
        unsigned slot = bit < 32 ? bit : (c->pebs_fmt >= 5 ? 32u : 8u) + (bit - 32);
        uint64_t rv = 0;
        if (c->ap.on) {   /* arch PEBS: CFG_C reload field, not the DS area */
            unsigned w = bit < 32 ? c->gp_width : c->fixed_width;
            if (!dsm__apebs_reload(c, bit, w, &rv))
                rv = bit < 32 ? c->pmc[bit] : c->fixed[bit - 32];
        } else {
            rv = dsm__ds_reset_value(c, slot);
        }
        if (bit < 32)
            c->pmc[bit] = rv & wmask(c->gp_width);
        else
            c->fixed[bit - 32] = rv & wmask(c->fixed_width);
        if (occ & (1ull << bit))
            arch_count(c, bit);
    }
}

void dsm__arch_retire(struct dsm_cpu *c, const struct dsm_event *ev)
{
    if (c->gstatus & DSM_GS_CTR_FRZ)   /* v4 streamlined freeze: counters stopped */
        return;
    uint64_t hit = 0, occ = ~0ull;   /* occ: hit counters whose event occurred */
    uint64_t en = c->version >= 2 ? c->gctrl : ~0ull;
    for (unsigned n = 0; n < c->ngp; n++) {
        uint64_t sel = c->evtsel[n];
        if (!(sel & DSM_EVT_EN) || !(en & (1ull << n)))
            continue;
        if (!(sel & (ev->cpl == 0 ? DSM_EVT_OS : DSM_EVT_USR)))
            continue;
        const struct ev_row *r = dsm__ev_row_of(c, n);
        bool o = r && dsm__ev_occurs(c, r, ev);
        bool armed = (c->armed & (1ull << n)) && dsm__pebs_on(c, n);
        /* precise: the assist waits for the next occurrence; imprecise: it is
         * taken at the next retired instruction (see ev_row) */
        if (armed && (o || (r && r->pebs == EP_IMPRECISE))) {
            hit |= 1ull << n;
            if (!o)
                occ &= ~(1ull << n);
        } else if (o) {
            arch_count(c, n);
        }
    }
    for (unsigned m = 0; m < c->nfixed; m++) {
        unsigned nib = (unsigned)(c->fixed_ctrl >> (4 * m)) & 0xF;
        if (!(en & (1ull << (32 + m))) || !(nib & (ev->cpl == 0 ? 1u : 2u)))
            continue;
        if ((c->armed & (1ull << (32 + m))) && dsm__pebs_on(c, 32 + m)) {
            hit |= 1ull << (32 + m);
        } else {
            arch_count(c, 32 + m);
            if (m == 3)
                metrics_update(c);
        }
    }
    if (hit)
        pebs_assist(c, ev, hit, occ);
}
