/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libds backend for the test kernel: MSR access through the fault-safe
 * probes (a #GP or #UD becomes DS_ERR_MSR_FAULT), native CPUID.
 * NMI-safe (the probes keep no global state).
 */
#include <ds/ds.h>
#include <k/safe.h>

/* Kernel option msr_gp=ADDR: this backend reports ADDR as faulting (#GP) to
 * libds, as a hypervisor that advertises an MSR and #GPs on it does (issue 10
 * item 15; boot test x86_64.msr_gp). 0: none. Set once at boot. */
static uint32_t k_ds_gp_msr;

void k_ds_set_gp_msr(uint32_t msr)
{
    k_ds_gp_msr = msr;
}

uint32_t k_ds_get_gp_msr(void)
{
    return k_ds_gp_msr;
}

static int k_ds_read(void *ctx, uint32_t msr, uint64_t *out)
{
    (void)ctx;
    if (k_ds_gp_msr && msr == k_ds_gp_msr)
        return DS_ERR_MSR_FAULT; /* simulated (msr_gp=) */
    return k_rdmsr_safe(msr, out) ? DS_ERR_MSR_FAULT : DS_OK;
}

static int k_ds_write(void *ctx, uint32_t msr, uint64_t val)
{
    (void)ctx;
    if (k_ds_gp_msr && msr == k_ds_gp_msr)
        return DS_ERR_MSR_FAULT;
    return k_wrmsr_safe(msr, val) ? DS_ERR_MSR_FAULT : DS_OK;
}

static void k_ds_cpuid(void *ctx, uint32_t leaf, uint32_t subleaf, uint32_t out[4])
{
    (void)ctx;
    k_cpuid(leaf, subleaf, out);
}

const struct ds_msr_ops k_ds_msr_ops = { k_ds_read, k_ds_write, k_ds_cpuid };
