/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A libds PEBS sample as a DSLOG PEBS record: the fields every integrator
 * copies the same way (the test kernel's kernel/e2e and linux/'s libds.ko).
 * records.c and records.h know no libds type; this header is the one place
 * that joins the two. The caller then sets what is its own: the counter it
 * programmed, the optional groups it prints, the architectural-PEBS header.
 */
#ifndef DSREC_DS_H
#define DSREC_DS_H

#include <stddef.h>
#include <stdint.h>
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

#endif
