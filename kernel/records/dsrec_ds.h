/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A libds PEBS sample as a DSLOG PEBS record: the fields every integrator
 * copies the same way (the test kernel's kernel/e2e and linux/'s libds.ko).
 * records.c and records.h know no libds type; this header is the one place
 * that joins the two. The caller then sets what is its own: the counter it
 * programmed; dsrec_pebs_groups and dsrec_pebs_arch add the optional groups
 * and the architectural-PEBS header the same way for both.
 */
#ifndef DSREC_DS_H
#define DSREC_DS_H

#include <stddef.h>
#include <stdint.h>
#include <ds/arch_pebs.h>
#include <ds/pebs.h>
#include "records.h"

static inline void dsrec_pebs_from_sample(const struct ds_pebs_sample *s, struct dsrec_pebs *r)
{
    uint8_t *p = (uint8_t *)r; /* no memset: freestanding callers */
    for (size_t i = 0; i < sizeof *r; i++)
        p[i] = 0;
    switch (s->fmt) {
    case DS_PEBS_FMT_NB32: r->fmt = DSREC_PEBS_NB32; break;
    case DS_PEBS_FMT_NB64: r->fmt = DSREC_PEBS_NB64; break;
    case DS_PEBS_FMT_ARCH: r->fmt = DSREC_PEBS_ARCH; break;
    default: r->fmt = (uint32_t)s->fmt - (uint32_t)DS_PEBS_FMT_0; break;
    }
    r->flags = s->flags;
    r->ip = s->ip;
    r->ax = s->gpr[DS_GPR_RAX];
    r->bx = s->gpr[DS_GPR_RBX];
    r->cx = s->gpr[DS_GPR_RCX];
    r->dx = s->gpr[DS_GPR_RDX];
    r->si = s->gpr[DS_GPR_RSI];
    r->di = s->gpr[DS_GPR_RDI];
    r->bp = s->gpr[DS_GPR_RBP];
    r->sp = s->gpr[DS_GPR_RSP];
    for (unsigned i = 0; i < 8; i++)
        r->r[i] = s->gpr[DS_GPR_R8 + i];
    r->status = r->counters = s->counters;
    r->data_la = s->data_addr;
    r->dse = s->data_source;
    r->latency = s->latency;
    r->eventing_ip = s->eventing_ip;
    r->tsx = s->tsx;
    r->tsc = s->tsc;
    r->hdr = s->header;
}

/* The optional groups of a record: XMM, LBR, the format 6 counters group
 * (DSLOG gpN / fixedN) and its metrics. */
static inline void dsrec_pebs_groups(const struct ds_pebs_sample *s, struct dsrec_pebs *r)
{
    if ((s->present & DS_SAMPLE_XMM) && s->xmm) {
        const uint64_t *x = (const uint64_t *)s->xmm;
        for (unsigned i = 0; i < 16; i++) {
            r->xmm[i][0] = x[2 * i];
            r->xmm[i][1] = x[2 * i + 1];
        }
    }
    if ((s->present & DS_SAMPLE_LBR) && s->lbr) {
        r->lbr_count = s->lbr_count > DSREC_PEBS_LBR_MAX ? DSREC_PEBS_LBR_MAX : s->lbr_count;
        for (uint32_t i = 0; i < r->lbr_count; i++) {
            r->lbr[i].from = s->lbr[i].from;
            r->lbr[i].to = s->lbr[i].to;
            r->lbr[i].info = s->lbr[i].info;
        }
    }
    if (s->present & DS_SAMPLE_CNTRS) {
        r->cntr_gp_mask = s->cntr_gp_mask;
        r->cntr_fixed_mask = s->cntr_fixed_mask;
        for (unsigned i = 0; i < 16; i++)
            r->cntr_gp[i] = s->cntr_gp[i];
        for (unsigned i = 0; i < 8; i++)
            r->cntr_fixed[i] = s->cntr_fixed[i];
    }
    if (s->present & DS_SAMPLE_METRICS) {
        r->has_metrics = true;
        r->slots = s->topdown_slots;
        r->metrics = s->perf_metrics;
    }
}

/* fmt=arch (docs/records.md): one header for the whole record, from the
 * groups libds decoded in all its fragments, and the fragment count (after
 * dsrec_pebs_groups: the LBR count). The counters group is not printed, so
 * its bits are left out of hdr. */
static inline void dsrec_pebs_arch(const struct ds_pebs_sample *s, struct dsrec_pebs *r)
{
    uint64_t h = DSREC_ARCH_BASIC;
    uint32_t size = 16u * s->fragments + DS_APEBS_BASIC_BYTES;
    if (s->present & DS_SAMPLE_MEM) {
        h |= DSREC_ARCH_AUX;
        size += DS_APEBS_AUX_BYTES;
    }
    if (s->present & DS_SAMPLE_GPRS) {
        h |= DSREC_ARCH_GPR;
        size += DS_APEBS_GPR_BYTES;
    }
    if ((s->present & DS_SAMPLE_XMM) && s->xmm) {
        h |= DSREC_ARCH_XMM;
        size += DS_APEBS_XER_BYTES + DS_APEBS_XMM_BYTES;
    }
    if (r->lbr_count) {
        h |= (uint64_t)DS_APEBS_LBR_NUM_VAR << DSREC_ARCH_LBR_SHIFT;
        size += DS_APEBS_LBR_HDR_BYTES + DS_APEBS_LBR_ENTRY_BYTES * r->lbr_count;
    }
    r->hdr = h | size;
    r->frags = s->fragments;
    r->ssp = s->ssp;
}

/* The whole record: the fields, the groups, the architectural header. */
static inline void dsrec_pebs_of(const struct ds_pebs_sample *s, int32_t counter, struct dsrec_pebs *r)
{
    dsrec_pebs_from_sample(s, r);
    r->counter = counter;
    dsrec_pebs_groups(s, r);
    if (s->fmt == DS_PEBS_FMT_ARCH)
        dsrec_pebs_arch(s, r);
}

#endif
