/* SPDX-License-Identifier: BSD-2-Clause */
/* libds MSR/CPUID backend over the reference model (see ds_model_ops.h). */
#include "ds_model_ops.h"
#include <ds/cpu.h>
#include <ds/err.h>

static int model_read(void *ctx, uint32_t msr, uint64_t *out)
{
    if (!ctx || !out)
        return DS_ERR_NULL;
    return dsm_rdmsr((struct dsm_cpu *)ctx, msr, out) == DSM_OK ? DS_OK : DS_ERR_MSR_FAULT;
}

static int model_write(void *ctx, uint32_t msr, uint64_t val)
{
    if (!ctx)
        return DS_ERR_NULL;
    return dsm_wrmsr((struct dsm_cpu *)ctx, msr, val) == DSM_OK ? DS_OK : DS_ERR_MSR_FAULT;
}

static void model_cpuid(void *ctx, uint32_t leaf, uint32_t subleaf, uint32_t out[4])
{
    dsm_cpuid((struct dsm_cpu *)ctx, leaf, subleaf, out);
}

const struct ds_msr_ops ds_model_msr_ops = {
    .read = model_read,
    .write = model_write,
    .cpuid = model_cpuid,
};

int ds_model_cpu_init(struct ds_cpu *dcpu, struct dsm_cpu *mcpu)
{
    if (!dcpu || !mcpu)
        return DS_ERR_NULL;
    int e = ds_cpu_init(dcpu, &ds_model_msr_ops, mcpu);
    if (e != DS_OK)
        return e;
    return ds_cpu_set_ia32e(dcpu, mcpu->ia32e);
}
