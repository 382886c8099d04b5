/* SPDX-License-Identifier: BSD-2-Clause */
/* libds private inline MSR access through a struct ds_cpu (cpu.c, pmi.c;
 * split from internal.h, issue 26 item 5). Module cpu: the dispatch needs
 * struct ds_cpu, so it sits above msr.h (registers, backend table,
 * instructions) like the rest of cpu. */
#ifndef DS_CPU_INT_H
#define DS_CPU_INT_H

#include "util.h"
#include <ds/cpu.h>
#include <ds/msr.h>

/*
 * ds_msr_read / ds_msr_write (cpu.c) inlined, without their NULL checks:
 * for callers that validated @cpu once (ds_pmi_init) and run on every NMI
 * (issue 10 item 21: the call into ds_msr_read and its checks were 19 and 17
 * instructions per access). Same results as cpu.c, backend or native.
 */
static inline __attribute__((always_inline)) int ds__msr_rd(const struct ds_cpu *cpu, uint32_t msr, uint64_t *out)
{
    const struct ds_msr_ops *o = cpu->ops;
    if (o)
        return o->read && o->read(cpu->ops_ctx, msr, out) == DS_OK ? DS_OK : DS_ERR_MSR_FAULT;
#if defined(DS_HOSTED)
    (void)msr;
    (void)out;
    return DS_ERR_MSR_FAULT; /* no ring 0 on a host build */
#else
    *out = ds_rdmsr_native(msr);
    return DS_OK;
#endif
}

static inline __attribute__((always_inline)) int ds__msr_wr(const struct ds_cpu *cpu, uint32_t msr, uint64_t val)
{
    const struct ds_msr_ops *o = cpu->ops;
    if (o)
        return o->write && o->write(cpu->ops_ctx, msr, val) == DS_OK ? DS_OK : DS_ERR_MSR_FAULT;
#if defined(DS_HOSTED)
    (void)msr;
    (void)val;
    return DS_ERR_MSR_FAULT;
#else
    ds_wrmsr_native(msr, val);
    return DS_OK;
#endif
}

#endif /* DS_CPU_INT_H */
