/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pmc.c and pmc_pebs.c's private header (issue 26): the counter presence
 * and format tests both use. DS_CONFIG_PMC builds only.
 */
#ifndef DS_PMC_INT_H
#define DS_PMC_INT_H

#include <ds/pmc.h>
#include "util.h"

static inline int check_arch(const struct ds_cpu *cpu)
{
    if (!cpu)
        return DS_ERR_NULL;
    if (!cpu->identified)
        return DS_ERR_NOT_IDENTIFIED;
    if (cpu->caps.netburst)
        return DS_ERR_PMC_NETBURST;
    if (cpu->caps.vendor != DS_VENDOR_INTEL || !cpu->caps.has_leaf_0a || !cpu->caps.perfmon_version)
        return DS_ERR_PMC_NO_ARCH;
    return DS_OK;
}

/* GP counter @idx exists (caps.gp_mask: CPUID.23H.1 EAX where enumerated,
 * non-contiguous and possibly above 8, else the leaf 0AH count) and has
 * MSRs: the legacy table defines IA32_PMC0..7 (0xC1..0xC8),
 * IA32_PERFEVTSEL0..7 (0x186..0x18D) and IA32_A_PMC0..7 (0x4C1..0x4C8)
 * only (0xC9 is not a PMC); perfmon v6 aliases every counter at
 * IA32_PMC_GPn_CTR 1900H + 4n / _CFG_A +1 (SDM "Architectural Performance
 * Monitoring Version 6"; Linux intel_pmu_init "Support V6+ MSR Aliasing"
 * switches all counters to them), so counters beyond 7 need v6. */
#define DS_PMC_ARCH_MSR_COUNTERS 8u
static inline bool perfmon_v6(const struct ds_caps *c)
{
    return c->perfmon_version >= 6;
}

static inline bool gp_present(const struct ds_caps *c, unsigned idx)
{
    if (idx >= 32 || !((c->gp_mask >> idx) & 1))
        return false;
    return idx < DS_PMC_ARCH_MSR_COUNTERS || perfmon_v6(c);
}

/* Highest IA32_PERF_CAPABILITIES.PEBS_FMT libds knows: 6 (Lunar Lake, Arrow
 * Lake; Linux intel_ds_init "case 6", the stable fix "perf/x86/intel/ds: Add
 * PEBS format 6"). Formats 4-6 with PEBS_BASELINE are adaptive. */
#define DS_PMC_PEBS_FMT_MAX 6u
static inline bool adaptive_pebs(const struct ds_caps *c)
{
    return c->pebs_format >= 4 && c->pebs_format <= DS_PMC_PEBS_FMT_MAX && c->pebs_baseline;
}

/* Perfmon v2-v4 parts may report no fixed counters in CPUID.0AH:EDX[4:0]
 * though they have three (early Core 2: the real Merom/Conroe dumps read
 * EDX = 0). Linux intel_pmu_init assumes max(EDX[4:0], 3) for versions 2..4
 * unless CPUID.01H:ECX[31] (hypervisor) is set, where the count is trusted. */
#define DS_CPUID1_ECX_HYPERVISOR (1u << 31)
static inline unsigned fixed_assumed(const struct ds_caps *c)
{
    if (c->perfmon_version >= 2 && c->perfmon_version <= 4 && !(c->cpuid1_ecx & DS_CPUID1_ECX_HYPERVISOR))
        return 3;
    return 0;
}

static inline bool fixed_present(const struct ds_caps *c, unsigned idx)
{
    if (idx >= 32)
        return false;
    if (idx < fixed_assumed(c))
        return true;
    /* v5+: ECX is a bitmap of supported fixed counters (SDM "Architectural
     * Performance Monitoring Version 5"); earlier: the first EDX[4:0]. */
    if (c->perfmon_version >= 5 && c->fixed_mask)
        return (c->fixed_mask >> idx) & 1;
    return idx < c->fixed_counters;
}

static inline bool nhm_wsm(const struct ds_caps *c)
{
    if (c->display_family != 6)
        return false;
    switch (c->display_model) {
    case 0x1A: case 0x1E: case 0x1F: case 0x2E: case 0x25: case 0x2C: case 0x2F:
        return true;
    default:
        return false;
    }
}

/* Reserved and CPUID-gated EVTSEL bits (pmc.c): DS_OK or the specific error. */
int ds__pmc_check_evtsel(const struct ds_cpu *cpu, uint64_t evtsel);

#endif /* DS_PMC_INT_H */
