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

/* The region's byte at @a (linear or physical window), or NULL when
 * [@a, @a + @len) is not wholly inside one window. */
static unsigned char *mem_at(const struct ds_model_mem *m, uint64_t a, size_t len)
{
    if (!m || !m->virt || len > m->bytes)
        return NULL;
    if (a >= m->linear && a - m->linear <= m->bytes - len)
        return m->virt + (a - m->linear);
    if (a >= m->phys && a - m->phys <= m->bytes - len)
        return m->virt + (a - m->phys);
    return NULL;
}

static int mem_read(void *ctx, uint64_t a, void *buf, size_t len)
{
    const volatile unsigned char *s = mem_at(ctx, a, len);
    unsigned char *d = buf;
    if (!s)
        return -1;
    for (size_t i = 0; i < len; i++)
        d[i] = s[i];
    return 0;
}

static int mem_write(void *ctx, uint64_t a, const void *buf, size_t len)
{
    volatile unsigned char *d = mem_at(ctx, a, len);
    const unsigned char *s = buf;
    if (!d)
        return -1;
    for (size_t i = 0; i < len; i++)
        d[i] = s[i];
    return 0;
}

const struct dsm_mem_ops ds_model_mem_ops = { mem_read, mem_write };

int ds_model_mem_init(struct ds_model_mem *m, void *virt, uint64_t phys, uint64_t bytes)
{
    if (!m || !virt)
        return DS_ERR_NULL;
    uint64_t lin = (uint64_t)(uintptr_t)virt;
    if (bytes == 0 || lin + bytes - 1 < lin || phys + bytes - 1 < phys)
        return DS_ERR_INVAL;
    m->virt = virt;
    m->linear = lin;
    m->phys = phys;
    m->bytes = bytes;
    return DS_OK;
}
