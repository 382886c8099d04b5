/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A simple in-test MSR map and CPUID table for facility unit tests. MSRs not
 * in the map fault (#GP), like hardware; every access is logged so a test can
 * assert that nothing was written on a failure path. The full SDM-derived
 * hardware model is tests/model/; this is only a table.
 */
#ifndef TEST_FAKE_CPU_H
#define TEST_FAKE_CPU_H

#include <ds/ds.h>
#include <string.h>

#define FAKE_MAX_MSRS 256
#define FAKE_MAX_LEAVES 16

struct fake_cpu {
    struct { uint32_t msr; uint64_t val; int ro; } msrs[FAKE_MAX_MSRS];
    int nmsrs;
    struct { uint32_t leaf, sub; uint32_t r[4]; } leaves[FAKE_MAX_LEAVES];
    int nleaves;
    unsigned reads, writes, faults;
    uint32_t fault_on_write; /* if non-zero, writes to this MSR fault */
};

static inline void fake_set_msr(struct fake_cpu *f, uint32_t msr, uint64_t val)
{
    for (int i = 0; i < f->nmsrs; i++)
        if (f->msrs[i].msr == msr) {
            f->msrs[i].val = val;
            return;
        }
    f->msrs[f->nmsrs].msr = msr;
    f->msrs[f->nmsrs].val = val;
    f->msrs[f->nmsrs].ro = 0;
    f->nmsrs++;
}

static inline uint64_t fake_get_msr(const struct fake_cpu *f, uint32_t msr)
{
    for (int i = 0; i < f->nmsrs; i++)
        if (f->msrs[i].msr == msr)
            return f->msrs[i].val;
    return 0xDEADDEADDEADDEADull;
}

static inline void fake_set_cpuid(struct fake_cpu *f, uint32_t leaf, uint32_t sub,
                                  uint32_t a, uint32_t b, uint32_t c, uint32_t d)
{
    f->leaves[f->nleaves].leaf = leaf;
    f->leaves[f->nleaves].sub = sub;
    f->leaves[f->nleaves].r[0] = a;
    f->leaves[f->nleaves].r[1] = b;
    f->leaves[f->nleaves].r[2] = c;
    f->leaves[f->nleaves].r[3] = d;
    f->nleaves++;
}

static inline int fake_read(void *ctx, uint32_t msr, uint64_t *out)
{
    struct fake_cpu *f = ctx;
    f->reads++;
    for (int i = 0; i < f->nmsrs; i++)
        if (f->msrs[i].msr == msr) {
            *out = f->msrs[i].val;
            return DS_OK;
        }
    f->faults++;
    return DS_ERR_MSR_FAULT;
}

static inline int fake_write(void *ctx, uint32_t msr, uint64_t val)
{
    struct fake_cpu *f = ctx;
    f->writes++;
    if (f->fault_on_write && f->fault_on_write == msr) {
        f->faults++;
        return DS_ERR_MSR_FAULT;
    }
    for (int i = 0; i < f->nmsrs; i++)
        if (f->msrs[i].msr == msr) {
            if (!f->msrs[i].ro)
                f->msrs[i].val = val;
            return DS_OK;
        }
    f->faults++;
    return DS_ERR_MSR_FAULT;
}

static inline void fake_cpuid(void *ctx, uint32_t leaf, uint32_t sub, uint32_t out[4])
{
    struct fake_cpu *f = ctx;
    out[0] = out[1] = out[2] = out[3] = 0;
    for (int i = 0; i < f->nleaves; i++)
        if (f->leaves[i].leaf == leaf && (f->leaves[i].sub == sub || leaf != 0x7)) {
            memcpy(out, f->leaves[i].r, sizeof(f->leaves[i].r));
            return;
        }
}

static const struct ds_msr_ops fake_ops = { fake_read, fake_write, fake_cpuid };

/* "GenuineIntel" in EBX, EDX, ECX order */
#define FAKE_INTEL_EBX 0x756e6547u
#define FAKE_INTEL_EDX 0x49656e69u
#define FAKE_INTEL_ECX 0x6c65746eu

/* A Skylake-like CPU: 06_5EH, DS, DTES64, PDCM, perfmon v4, PEBS fmt 3, LBR fmt 5. */
static inline void fake_skylake(struct fake_cpu *f)
{
    memset(f, 0, sizeof(*f));
    fake_set_cpuid(f, 0, 0, 0x16, FAKE_INTEL_EBX, FAKE_INTEL_ECX, FAKE_INTEL_EDX);
    fake_set_cpuid(f, 1, 0, 0x000506E3, 0, (1u << 2) | (1u << 4) | (1u << 15), (1u << 5) | (1u << 9) | (1u << 21));
    fake_set_cpuid(f, 0xA, 0, 0x07300404, 0, 0, 0x00000603);
    fake_set_msr(f, DS_MSR_IA32_MISC_ENABLE, 1u << 7);
    fake_set_msr(f, DS_MSR_IA32_PERF_CAPABILITIES, 0x33C5);
}

#endif
