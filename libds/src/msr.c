/* SPDX-License-Identifier: BSD-2-Clause */
/* MSR/CPUID dispatch: backend table when present, else the instructions. */
#include <ds/msr.h>
#include <ds/cpu.h>

int ds_msr_read(const struct ds_cpu *cpu, uint32_t msr, uint64_t *out)
{
    if (!cpu || !out)
        return DS_ERR_NULL;
    if (cpu->ops) {
        if (!cpu->ops->read)
            return DS_ERR_MSR_FAULT;
        return cpu->ops->read(cpu->ops_ctx, msr, out) == DS_OK ? DS_OK : DS_ERR_MSR_FAULT;
    }
#if defined(DS_HOSTED)
    return DS_ERR_MSR_FAULT; /* no ring 0 on a host build */
#else
    *out = ds_rdmsr_native(msr);
    return DS_OK;
#endif
}

int ds_msr_write(const struct ds_cpu *cpu, uint32_t msr, uint64_t val)
{
    if (!cpu)
        return DS_ERR_NULL;
    if (cpu->ops) {
        if (!cpu->ops->write)
            return DS_ERR_MSR_FAULT;
        return cpu->ops->write(cpu->ops_ctx, msr, val) == DS_OK ? DS_OK : DS_ERR_MSR_FAULT;
    }
#if defined(DS_HOSTED)
    (void)msr;
    (void)val;
    return DS_ERR_MSR_FAULT;
#else
    ds_wrmsr_native(msr, val);
    return DS_OK;
#endif
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
