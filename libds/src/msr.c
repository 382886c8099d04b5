/* SPDX-License-Identifier: BSD-2-Clause */
/* MSR/CPUID dispatch: backend table when present, else the instructions. */
#include <ds/msr.h>
#include <ds/cpu.h>
#include "msr_int.h"

int ds_msr_read(const struct ds_cpu *cpu, uint32_t msr, uint64_t *out)
{
    if (!cpu || !out)
        return DS_ERR_NULL;
    return ds__msr_rd(cpu, msr, out); /* internal.h: the dispatch, shared with pmi.c */
}

int ds_msr_write(const struct ds_cpu *cpu, uint32_t msr, uint64_t val)
{
    if (!cpu)
        return DS_ERR_NULL;
    return ds__msr_wr(cpu, msr, val);
}

void ds_cpuid(const struct ds_cpu *cpu, uint32_t leaf, uint32_t subleaf, uint32_t out[4])
{
    if (!out)
        return; /* nowhere to put the result: nothing executed */
    out[0] = out[1] = out[2] = out[3] = 0;
    if (!cpu)
        return;
    if (cpu->ops && cpu->ops->cpuid) {
        cpu->ops->cpuid(cpu->ops_ctx, leaf, subleaf, out);
        return;
    }
#if !defined(DS_HOSTED)
    ds_cpuid_native(leaf, subleaf, out);
#else
    (void)leaf;
    (void)subleaf;
#endif
}
