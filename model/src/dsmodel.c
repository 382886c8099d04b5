/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * dsmodel: reference model of the Intel Debug Store hardware.
 * Written from ../../shared/reference/ (SDM Vol. 3B chapters 17-19 and the
 * MSR chapter as restated there). Includes no libds header: every constant
 * is the model's own statement of the SDM (dsmodel_int.h).
 *
 * This file, below every facility file (issue 26 item 5: no call circle):
 * the setters, dsm_ds64, the statistics getters and the MSR table walkers
 * the facilities share. Each facility is in its own file (dsmodel_int.h
 * lists them); the entry points that dispatch to them (profiles, dsm_init,
 * CPUID, dsm_rdmsr / dsm_wrmsr, dsm_retire) are in dsm_dispatch.c.
 */
#include "dsmodel_int.h"

int dsm_set_ia32e(struct dsm_cpu *c, bool ia32e)
{
    if (!c || (ia32e && !c->lm))
        return DSM_EINVAL;
    c->ia32e = ia32e;
    return DSM_OK;
}

void dsm_set_pmi(struct dsm_cpu *c, dsm_pmi_fn fn, void *ctx)
{
    if (!c)
        return;
    c->pmi = fn;
    c->pmi_ctx = ctx;
}

void dsm_set_lvt_model(struct dsm_cpu *c, bool on)
{
    if (!c)
        return;
    c->lvt_model = on;
    c->lvt_masked = false;
}

void dsm_lvt_unmask(struct dsm_cpu *c)
{
    if (c)
        c->lvt_masked = false;
}

void dsm_set_msr_hook(struct dsm_cpu *c, dsm_msr_hook_fn fn, void *ctx)
{
    if (!c)
        return;
    c->msr_hook = fn;
    c->msr_hook_ctx = ctx;
}

bool dsm_ds64(const struct dsm_cpu *c)
{
    return c && ((c->cpuid1[2] & DSM_C1_ECX_DTES64) || c->ia32e);
}

/* ---- statistics --------------------------------------------------------- */
const struct dsm_stats *dsm_stats(const struct dsm_cpu *c) { return c ? &c->st : NULL; }

void dsm_msr_count(const struct dsm_cpu *c, uint32_t msr, uint32_t *r, uint32_t *w, uint32_t *f)
{
    uint32_t a = 0, b = 0, d = 0;
    if (c)
        for (uint32_t i = 0; i < c->msr_st_used; i++)
            if (c->msr_st[i].msr == msr) {
                a = c->msr_st[i].reads;
                b = c->msr_st[i].writes;
                d = c->msr_st[i].faults;
            }
    if (r)
        *r = a;
    if (w)
        *w = b;
    if (f)
        *f = d;
}

void dsm_stats_reset(struct dsm_cpu *c)
{
    if (!c)
        return;
    dsm_zero(&c->st, sizeof(c->st));
    dsm_zero(c->msr_st, sizeof(c->msr_st));
    c->msr_st_used = 0;
    c->msr_st_dropped = 0;
}

/* ---- MSR tables (the facilities' dispatch helpers) ----------------------- */
int dsm__msr_ops(const struct dsm_msr_op *t, size_t n, struct dsm_cpu *c, uint32_t msr, bool wr, uint64_t *v,
                 int *rc)
{
    for (size_t i = 0; i < n; i++)
        if (t[i].msr == msr) {
            *rc = t[i].fn(c, msr, wr, v);
            return 1;
        }
    return 0;
}

int dsm__msr_ranges(const struct dsm_msr_range *t, size_t n, struct dsm_cpu *c, uint32_t msr, bool wr,
                    uint64_t *v, int *rc)
{
    for (size_t i = 0; i < n; i++)
        if (msr >= t[i].first && msr < t[i].first + t[i].count(c)) {
            *rc = t[i].fn(c, msr - t[i].first, wr, v);
            return 1;
        }
    return 0;
}

int dsm_set_msr_gp(struct dsm_cpu *c, uint32_t msr)
{
    if (!c)
        return DSM_EINVAL;
    if (!msr) {
        c->quirk_gp[0] = c->quirk_gp[1] = 0;
        return DSM_OK;
    }
    for (int i = 0; i < 2; i++)
        if (!c->quirk_gp[i] || c->quirk_gp[i] == msr) {
            c->quirk_gp[i] = msr;
            return DSM_OK;
        }
    return DSM_EINVAL;
}
