/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A richer MSR/CPUID fake for the counter and LBR tests: up to 1024 MSRs,
 * unknown MSRs fault (#GP) like hardware, and every access is logged in
 * order so a test can check exact write sequences and that a rejected
 * request touched nothing; writes to read-only MSRs #GP (fake_ro.h). Independent of libds internals: values are set
 * by the test from the SDM/reference tables.
 */
#ifndef TEST_FAKE_PMU_H
#define TEST_FAKE_PMU_H

#include <ds/ds.h>
#include <string.h>
#include "fake_ro.h"

#define FP_MAX_MSRS 1024
#define FP_MAX_LOG 4096

struct fp_access {
    char kind; /* 'r' or 'w' */
    uint32_t msr;
    uint64_t val;
};

struct fake_pmu {
    struct { uint32_t msr; uint64_t val; } msrs[FP_MAX_MSRS];
    int nmsrs;
    struct { uint32_t leaf, sub; uint32_t r[4]; } leaves[16];
    int nleaves;
    struct fp_access log[FP_MAX_LOG];
    int nlog;
    unsigned reads, writes, faults;
    uint32_t fault_msr; /* accesses to this MSR fault when non-zero */
    int no_pmext;       /* 1: no implied CPUID.(07H,1):EAX[8] (fp_cpuid) */
    int drop_writes;    /* 1: writes succeed and are dropped (QEMU TCG's PMU MSRs: read as before, 0) */
};

static inline void fp_reset(struct fake_pmu *f)
{
    memset(f, 0, sizeof(*f));
}

static inline int fp_find(const struct fake_pmu *f, uint32_t msr)
{
    for (int i = 0; i < f->nmsrs; i++)
        if (f->msrs[i].msr == msr)
            return i;
    return -1;
}

static inline void fp_set(struct fake_pmu *f, uint32_t msr, uint64_t val)
{
    int i = fp_find(f, msr);
    if (i < 0) {
        i = f->nmsrs++;
        f->msrs[i].msr = msr;
    }
    f->msrs[i].val = val;
}

static inline uint64_t fp_get(const struct fake_pmu *f, uint32_t msr)
{
    int i = fp_find(f, msr);
    return i < 0 ? 0xDEADDEADDEADDEADull : f->msrs[i].val;
}

static inline void fp_cpuid_set(struct fake_pmu *f, uint32_t leaf, uint32_t sub, uint32_t a,
                                uint32_t b, uint32_t c, uint32_t d)
{
    int i = f->nleaves++;
    f->leaves[i].leaf = leaf;
    f->leaves[i].sub = sub;
    f->leaves[i].r[0] = a;
    f->leaves[i].r[1] = b;
    f->leaves[i].r[2] = c;
    f->leaves[i].r[3] = d;
}

static inline void fp_clear_log(struct fake_pmu *f)
{
    f->nlog = 0;
    f->reads = f->writes = f->faults = 0;
}

static inline void fp_log(struct fake_pmu *f, char k, uint32_t msr, uint64_t v)
{
    if (f->nlog < FP_MAX_LOG) {
        f->log[f->nlog].kind = k;
        f->log[f->nlog].msr = msr;
        f->log[f->nlog].val = v;
        f->nlog++;
    }
}

static inline int fp_read(void *ctx, uint32_t msr, uint64_t *out)
{
    struct fake_pmu *f = ctx;
    f->reads++;
    int i = fp_find(f, msr);
    if (i < 0 || (f->fault_msr && f->fault_msr == msr)) {
        f->faults++;
        fp_log(f, 'r', msr, 0);
        return DS_ERR_MSR_FAULT;
    }
    *out = f->msrs[i].val;
    fp_log(f, 'r', msr, *out);
    return DS_OK;
}

/* Perfmon version of the fake's CPUID.0AH (0 when the leaf is absent). */
static inline unsigned fp_pmu_version(const struct fake_pmu *f)
{
    for (int i = 0; i < f->nleaves; i++)
        if (f->leaves[i].leaf == 0xA && f->leaves[i].sub == 0)
            return fake_pmu_version(f->leaves[i].r[0]);
    return 0;
}

static inline int fp_write(void *ctx, uint32_t msr, uint64_t val)
{
    struct fake_pmu *f = ctx;
    f->writes++;
    fp_log(f, 'w', msr, val);
    int i = fp_find(f, msr);
    /* read-only MSRs #GP on write, like hardware (fake_ro.h) */
    if (i < 0 || (f->fault_msr && f->fault_msr == msr) || fake_msr_write_gp(msr, fp_pmu_version(f))) {
        f->faults++;
        return DS_ERR_MSR_FAULT;
    }
    if (!f->drop_writes)
        f->msrs[i].val = val;
    return DS_OK;
}

/* Leaf 23H implies CPUID.(07H,1):EAX[8] and 07H.0 EAX >= 1 unless listed or
 * no_pmext (as fake_cpu.h fake_cpuid: every real dump with 23H has them). */
static inline void fp_cpuid(void *ctx, uint32_t leaf, uint32_t sub, uint32_t out[4])
{
    struct fake_pmu *f = ctx;
    int found = 0, l23 = 0;
    out[0] = out[1] = out[2] = out[3] = 0;
    for (int i = 0; i < f->nleaves; i++) {
        l23 |= f->leaves[i].leaf == 0x23;
        if (!found && f->leaves[i].leaf == leaf && f->leaves[i].sub == sub) {
            memcpy(out, f->leaves[i].r, sizeof(f->leaves[i].r));
            found = 1;
        }
    }
    if (l23 && !f->no_pmext && leaf == 7 && sub == 0 && out[0] == 0)
        out[0] = 1;
    if (l23 && !f->no_pmext && leaf == 7 && sub == 1 && !found)
        out[0] = 1u << 8;
}

static const struct ds_msr_ops fp_ops = { fp_read, fp_write, fp_cpuid };

/* Number of writes to @msr in the log, and the value of the n-th (0-based). */
static inline int fp_nwrites(const struct fake_pmu *f, uint32_t msr)
{
    int n = 0;
    for (int i = 0; i < f->nlog; i++)
        if (f->log[i].kind == 'w' && f->log[i].msr == msr)
            n++;
    return n;
}

/* Intel CPU with signature @sig, CPUID.1 ECX/EDX, leaf 0AH EAX/EDX (0 = none) */
static inline void fp_intel(struct fake_pmu *f, uint32_t max_leaf, uint32_t sig, uint32_t ecx1,
                            uint32_t edx1)
{
    fp_cpuid_set(f, 0, 0, max_leaf, 0x756e6547u, 0x6c65746eu, 0x49656e69u);
    fp_cpuid_set(f, 1, 0, sig, 0, ecx1, edx1 | (1u << 5));
}

static inline int fp_identify(struct fake_pmu *f, struct ds_cpu *cpu)
{
    int e = ds_cpu_init(cpu, &fp_ops, f);
    if (e)
        return e;
    e = ds_cpu_identify(cpu);
    fp_clear_log(f);
    return e;
}

#endif
