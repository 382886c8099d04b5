/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libds backend for the test kernel: MSR access through the fault-safe
 * probes (a #GP or #UD becomes DS_ERR_MSR_FAULT), native CPUID.
 * NMI-safe (the probes keep no global state).
 */
#include <ds/ds.h>
#include <k/safe.h>

static int k_ds_read(void *ctx, uint32_t msr, uint64_t *out)
{
    (void)ctx;
    return k_rdmsr_safe(msr, out) ? DS_ERR_MSR_FAULT : DS_OK;
}

static int k_ds_write(void *ctx, uint32_t msr, uint64_t val)
{
    (void)ctx;
    return k_wrmsr_safe(msr, val) ? DS_ERR_MSR_FAULT : DS_OK;
}

static void k_ds_cpuid(void *ctx, uint32_t leaf, uint32_t subleaf, uint32_t out[4])
{
    (void)ctx;
    k_cpuid(leaf, subleaf, out);
}

const struct ds_msr_ops k_ds_msr_ops = { k_ds_read, k_ds_write, k_ds_cpuid };
