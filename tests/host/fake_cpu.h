/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A simple in-test MSR map and CPUID table for facility unit tests. MSRs not
 * in the map fault (#GP), like hardware; every access is logged so a test can
 * assert that nothing was written on a failure path. The full SDM-derived
 * hardware model is model/; this is only a table.
 */
#ifndef TEST_FAKE_CPU_H
#define TEST_FAKE_CPU_H

#include <ds/ds.h>
#include <string.h>
#include "fake_ro.h"

#define FAKE_MAX_MSRS 256
#define FAKE_MAX_LEAVES 16

struct fake_cpu {
    struct { uint32_t msr; uint64_t val; int ro; } msrs[FAKE_MAX_MSRS];
    int nmsrs;
    struct { uint32_t leaf, sub; uint32_t r[4]; } leaves[FAKE_MAX_LEAVES];
    int nleaves;
    unsigned reads, writes, faults;
    uint32_t fault_on_write; /* if non-zero, writes to this MSR fault */
    uint32_t fault_on_read;  /* if non-zero, reads of this MSR fault */
    /* log of the last FAKE_LOG writes (msr, value), oldest first */
    struct { uint32_t msr; uint64_t val; } log[64];
    unsigned nlog;
    int no_pmext; /* 1: no implied CPUID.(07H,1):EAX[8] (fake_cpuid) */
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
    if (f->fault_on_read && f->fault_on_read == msr) {
        f->faults++;
        return DS_ERR_MSR_FAULT;
    }
    for (int i = 0; i < f->nmsrs; i++)
        if (f->msrs[i].msr == msr) {
            *out = f->msrs[i].val;
            return DS_OK;
        }
    f->faults++;
    return DS_ERR_MSR_FAULT;
}

/* Perfmon version of the fake's CPUID.0AH (0 when the leaf is absent). */
static inline unsigned fake_cpu_pmu_version(const struct fake_cpu *f)
{
    for (int i = 0; i < f->nleaves; i++)
        if (f->leaves[i].leaf == 0xA)
            return fake_pmu_version(f->leaves[i].r[0]);
    return 0;
}

static inline int fake_write(void *ctx, uint32_t msr, uint64_t val)
{
    struct fake_cpu *f = ctx;
    f->writes++;
    if (f->nlog < 64) {
        f->log[f->nlog].msr = msr;
        f->log[f->nlog].val = val;
        f->nlog++;
    }
    if (f->fault_on_write && f->fault_on_write == msr) {
        f->faults++;
        return DS_ERR_MSR_FAULT;
    }
    /* architecturally read-only MSRs #GP on write (fake_ro.h) */
    if (fake_msr_write_gp(msr, fake_cpu_pmu_version(f))) {
        f->faults++;
        return DS_ERR_MSR_FAULT;
    }
    /* IA32_PERF_GLOBAL_OVF_CTRL / STATUS_RESET: writing 1 clears that bit of
     * IA32_PERF_GLOBAL_STATUS (SDM "IA32_PERF_GLOBAL_OVF_CTRL"), as the PMI
     * handler's service loop relies on. */
    if (msr == DS_MSR_IA32_PERF_GLOBAL_OVF_CTRL) {
        for (int i = 0; i < f->nmsrs; i++)
            if (f->msrs[i].msr == DS_MSR_IA32_PERF_GLOBAL_STATUS)
                f->msrs[i].val &= ~val;
    }
    /* IA32_A_PMCn is the full-width write alias of IA32_PMCn */
    if (msr >= DS_MSR_IA32_A_PMC0 && msr < DS_MSR_IA32_A_PMC0 + 8) {
        for (int i = 0; i < f->nmsrs; i++)
            if (f->msrs[i].msr == msr - DS_MSR_IA32_A_PMC0 + DS_MSR_IA32_PMC0 && !f->msrs[i].ro)
                f->msrs[i].val = val;
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

/* Leaves whose output depends on the sub-leaf in ECX (SDM Vol. 2A CPUID); the
 * others ignore ECX, as real CPUs do. */
static inline int fake_leaf_has_subleaves(uint32_t leaf)
{
    switch (leaf) {
    case 0x4: case 0x7: case 0xB: case 0xD: case 0xF: case 0x10: case 0x12: case 0x14:
    case 0x17: case 0x18: case 0x1D: case 0x1E: case 0x1F: case 0x20: case 0x23: case 0x24:
        return 1;
    default:
        return 0;
    }
}

/*
 * A fake that lists leaf 23H is an architectural-perfmon-extension part, as
 * every real dump with leaf 23H is (Meteor/Lunar/Arrow/Panther Lake: 07H.0
 * EAX 2, 07H.1 EAX bit 8 set; Linux reads 23H only then): unless the test
 * lists them itself or sets no_pmext, 07H.0 EAX reads at least 1 and 07H.1
 * EAX reads bit 8.
 */
static inline void fake_cpuid(void *ctx, uint32_t leaf, uint32_t sub, uint32_t out[4])
{
    struct fake_cpu *f = ctx;
    int found = 0, l23 = 0;
    out[0] = out[1] = out[2] = out[3] = 0;
    for (int i = 0; i < f->nleaves; i++) {
        l23 |= f->leaves[i].leaf == 0x23;
        if (!found && f->leaves[i].leaf == leaf && (f->leaves[i].sub == sub || !fake_leaf_has_subleaves(leaf))) {
            memcpy(out, f->leaves[i].r, sizeof(f->leaves[i].r));
            found = 1;
        }
    }
    if (l23 && !f->no_pmext && leaf == 7 && sub == 0 && out[0] == 0)
        out[0] = 1;
    if (l23 && !f->no_pmext && leaf == 7 && sub == 1 && !found)
        out[0] = 1u << 8;
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

/* Mark an MSR write-ignored: writes are accepted and dropped (QEMU TCG
 * style). Architecturally read-only MSRs need no marking: they #GP on write
 * (fake_ro.h). */
static inline void fake_set_ro(struct fake_cpu *f, uint32_t msr)
{
    for (int i = 0; i < f->nmsrs; i++)
        if (f->msrs[i].msr == msr)
            f->msrs[i].ro = 1;
}

/* The PMU/DS MSRs a DS-capable Intel CPU has (all zero). */
static inline void fake_add_pmu_msrs(struct fake_cpu *f, unsigned gp, unsigned fixed)
{
    fake_set_msr(f, DS_MSR_IA32_DS_AREA, 0);
    fake_set_msr(f, DS_MSR_IA32_DEBUGCTL, 0);
    fake_set_msr(f, DS_MSR_IA32_PEBS_ENABLE, 0);
    for (unsigned i = 0; i < gp; i++) {
        fake_set_msr(f, DS_MSR_IA32_PMC0 + i, 0);
        fake_set_msr(f, DS_MSR_IA32_PERFEVTSEL0 + i, 0);
        fake_set_msr(f, DS_MSR_IA32_A_PMC0 + i, 0);
    }
    for (unsigned i = 0; i < fixed; i++)
        fake_set_msr(f, DS_MSR_IA32_FIXED_CTR0 + i, 0);
    fake_set_msr(f, DS_MSR_IA32_FIXED_CTR_CTRL, 0);
    fake_set_msr(f, DS_MSR_IA32_PERF_GLOBAL_STATUS, 0);
    fake_set_msr(f, DS_MSR_IA32_PERF_GLOBAL_CTRL, 0);
    fake_set_msr(f, DS_MSR_IA32_PERF_GLOBAL_OVF_CTRL, 0);
}

/* Skylake with its PMU MSRs (perfmon v4, 4 GP, 3 fixed, PEBS fmt 3). */
static inline void fake_skylake_pmu(struct fake_cpu *f)
{
    fake_skylake(f);
    fake_add_pmu_msrs(f, 4, 3);
}

/* Haswell-like: 06_3CH, perfmon v3, PEBS fmt 2. */
static inline void fake_haswell(struct fake_cpu *f)
{
    memset(f, 0, sizeof(*f));
    fake_set_cpuid(f, 0, 0, 0xD, FAKE_INTEL_EBX, FAKE_INTEL_ECX, FAKE_INTEL_EDX);
    fake_set_cpuid(f, 1, 0, 0x000306C3, 0, (1u << 2) | (1u << 4) | (1u << 15), (1u << 5) | (1u << 9) | (1u << 21));
    fake_set_cpuid(f, 0xA, 0, 0x07300403, 0, 0, 0x00000603);
    fake_set_msr(f, DS_MSR_IA32_MISC_ENABLE, 1u << 7);
    fake_set_msr(f, DS_MSR_IA32_PERF_CAPABILITIES, 0x32C4); /* fmt 2, arch regs, trap */
    fake_add_pmu_msrs(f, 4, 3);
}

/* Core 2-like: 06_17H, perfmon v2, 2 GP (40 bit), PEBS fmt 0, DTES64. */
static inline void fake_core2(struct fake_cpu *f)
{
    memset(f, 0, sizeof(*f));
    fake_set_cpuid(f, 0, 0, 0xD, FAKE_INTEL_EBX, FAKE_INTEL_ECX, FAKE_INTEL_EDX);
    fake_set_cpuid(f, 1, 0, 0x00010676, 0, (1u << 2) | (1u << 4) | (1u << 15), (1u << 5) | (1u << 9) | (1u << 21));
    fake_set_cpuid(f, 0xA, 0, 0x07280202, 0, 0, 0x00000503);
    fake_set_msr(f, DS_MSR_IA32_MISC_ENABLE, 1u << 7);
    fake_set_msr(f, DS_MSR_IA32_PERF_CAPABILITIES, 0x0C2); /* fmt 0, arch regs, trap, LBR fmt 2 */
    fake_add_pmu_msrs(f, 2, 3);
}

/* Ice Lake-like: 06_7EH, perfmon v5, 8 GP, 4 fixed, PEBS fmt 4 + baseline. */
static inline void fake_icelake(struct fake_cpu *f)
{
    memset(f, 0, sizeof(*f));
    fake_set_cpuid(f, 0, 0, 0x1B, FAKE_INTEL_EBX, FAKE_INTEL_ECX, FAKE_INTEL_EDX);
    fake_set_cpuid(f, 1, 0, 0x000706E5, 0, (1u << 2) | (1u << 4) | (1u << 15), (1u << 5) | (1u << 9) | (1u << 21));
    fake_set_cpuid(f, 0xA, 0, 0x08300805, 0, 0xF, 0x00000604);
    fake_set_msr(f, DS_MSR_IA32_MISC_ENABLE, 1u << 7);
    fake_set_msr(f, DS_MSR_IA32_PERF_CAPABILITIES, 0x4000 | 0x2000 | 0x400 | 0x80 | 0x3F);
    fake_add_pmu_msrs(f, 8, 4);
    fake_set_msr(f, DS_MSR_PEBS_DATA_CFG, 0);
}

/* NetBurst (0F_02H): DS, no DTES64, no PDCM, no leaf 0AH; 32-bit mode -> 32-bit layout. */
static inline void fake_netburst(struct fake_cpu *f)
{
    memset(f, 0, sizeof(*f));
    fake_set_cpuid(f, 0, 0, 0x2, FAKE_INTEL_EBX, FAKE_INTEL_ECX, FAKE_INTEL_EDX);
    fake_set_cpuid(f, 1, 0, 0x00000F29, 0, 0, (1u << 5) | (1u << 9) | (1u << 21));
    fake_set_msr(f, DS_MSR_IA32_MISC_ENABLE, 1u << 7);
    fake_set_msr(f, DS_MSR_IA32_DS_AREA, 0);
    fake_set_msr(f, DS_MSR_IA32_DEBUGCTL, 0);
    fake_set_msr(f, DS_MSR_IA32_PEBS_ENABLE, 0);
    fake_set_msr(f, 0x300, 0); /* MSR_BPU_COUNTER0 */
    fake_set_msr(f, 0x360, 0); /* MSR_BPU_CCCR0 */
}

/* Log query: how many logged writes went to @msr; last value in *last. */
static inline unsigned fake_writes_to(const struct fake_cpu *f, uint32_t msr, uint64_t *last)
{
    unsigned n = 0;
    for (unsigned i = 0; i < f->nlog; i++)
        if (f->log[i].msr == msr) {
            n++;
            if (last)
                *last = f->log[i].val;
        }
    return n;
}

/*
 * A CPU that advertises an MSR and #GPs on it (issue 10 item 15; hypervisors
 * and emulators do this): the Skylake PMU profile whose @msr faults on read,
 * e.g. IA32_PERF_CAPABILITIES with CPUID.01H:ECX.PDCM set, or
 * IA32_MISC_ENABLE with leaf 0AH reporting perfmon.
 */
static inline void fake_skylake_msr_gp(struct fake_cpu *f, uint32_t msr)
{
    fake_skylake_pmu(f);
    f->fault_on_read = msr;
}

#endif
