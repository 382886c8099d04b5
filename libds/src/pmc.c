/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Architectural / Core counters (SDM Vol. 3B "Architectural Performance
 * Monitoring"; reference msr.md 4-5): periods, GP and fixed counter
 * programming, GLOBAL_CTRL, the Nehalem/Westmere counter workaround. The
 * PEBS enables and their counter rules are in pmc_pebs.c (issue 26).
 */
#include <ds/pmc.h>
#include <ds/pebs.h>
#include <ds/event.h>
#include "util.h"
#include "pmc_int.h"

#if DS_CONFIG_PMC

static uint64_t width_mask(unsigned w)
{
    return w >= 64 ? ~0ull : ((1ull << w) - 1);
}

DS_COLD int ds_pmc_period_values(unsigned width, bool full_width, uint64_t period,
                         uint64_t *out_start, uint64_t *out_reset)
{
    return ds__period_values(width, full_width, period, out_start, out_reset);
}

/* Accessible GP counters as a GLOBAL_CTRL mask (bits 31:0). */
static uint64_t gp_valid_mask(const struct ds_caps *c)
{
    return perfmon_v6(c) ? c->gp_mask : c->gp_mask & ((1u << DS_PMC_ARCH_MSR_COUNTERS) - 1);
}

static uint32_t evtsel_msr(const struct ds_caps *c, unsigned idx)
{
    return perfmon_v6(c) ? DS_PMC_MSR_GP_CFG_A(idx) : DS_MSR_IA32_PERFEVTSEL0 + idx;
}

static uint32_t ctr_read_msr(const struct ds_caps *c, unsigned idx)
{
    return perfmon_v6(c) ? DS_PMC_MSR_GP_CTR(idx) : DS_MSR_IA32_PMC0 + idx;
}

static uint32_t fixed_ctr_msr(const struct ds_caps *c, unsigned idx)
{
    return perfmon_v6(c) ? DS_PMC_MSR_FIXED_CTR(idx) : DS_MSR_IA32_FIXED_CTR0 + idx;
}

DS_COLD int ds_pmc_gp_period(const struct ds_cpu *cpu, uint64_t period, uint64_t *out_start,
                     uint64_t *out_reset)
{
    int e = check_arch(cpu);
    if (e)
        return e;
    return ds_pmc_period_values(cpu->caps.gp_width, cpu->caps.fw_write, period, out_start,
                                out_reset);
}

DS_COLD int ds__pmc_check_evtsel(const struct ds_cpu *cpu, uint64_t evtsel)
{
    const struct ds_caps *c = &cpu->caps;
    /* UMASK2 [47:40] and EQ [36] only where CPUID.(23H,0):EBX enumerates
     * them (SDM CPUID leaf 23H; Linux ARCH_PERFMON_EXT_UMASK2/_EQ) */
    if ((evtsel & DS_EVTSEL_UMASK2_MASK) && !(c->has_leaf_23 && (c->leaf23_features & DS_LEAF23_EBX_UMASK2)))
        return DS_ERR_PMC_NO_UMASK2;
    if ((evtsel & DS_EVTSEL_EQ) && !(c->has_leaf_23 && (c->leaf23_features & DS_LEAF23_EBX_EQ)))
        return DS_ERR_PMC_NO_EQ;
    if ((evtsel & ~(DS_EVTSEL_UMASK2_MASK | DS_EVTSEL_EQ)) >> 35)
        return DS_ERR_PMC_RESERVED;
    if ((evtsel & DS_EVTSEL_ANY) && c->perfmon_version < 3)
        return DS_ERR_PMC_RESERVED;
    if ((evtsel & DS_EVTSEL_ANY) && c->anythread_deprecated)
        return DS_ERR_PMC_ANY_DEPRECATED; /* Linux drops the `any` format there */
    if (evtsel & (DS_EVTSEL_IN_TX | DS_EVTSEL_IN_TXCP)) {
        /* IN_TX/IN_TXCP exist only on TSX parts (Haswell+, reference msr.md;
         * Linux HSW_IN_TX). Perfmon v3 alone (Nehalem..Ivy Bridge) leaves
         * bits 33:32 reserved and WRMSR would #GP: require CPUID.(EAX=07H,
         * ECX=0):EBX.HLE[4] or .RTM[11]. (A part whose TSX was hidden by
         * microcode is refused too: conservative, never faults.) */
        uint32_t r[4];
        /* leaf 07H exists: check_arch needs leaf 0AH (caps.has_leaf_0a) */
        if (c->perfmon_version < 3)
            return DS_ERR_PMC_RESERVED;
        ds_cpuid(cpu, 7, 0, r);
        if (!(r[1] & ((1u << 4) | (1u << 11))))
            return DS_ERR_PMC_RESERVED;
    }
    if ((evtsel & DS_EVTSEL_ADAPTIVE) && !adaptive_pebs(c))
        return DS_ERR_PMC_RESERVED;
    return DS_OK;
}

/* Which MSR takes the value and is the value writable there? */
static int gp_counter_target(const struct ds_cpu *cpu, unsigned idx, uint64_t value, uint32_t *msr)
{
    const struct ds_caps *c = &cpu->caps;
    uint64_t m = width_mask(c->gp_width);
    if (value & ~m)
        return DS_ERR_PMC_VALUE_WIDE;
    if (c->fw_write) {
        *msr = perfmon_v6(c) ? DS_PMC_MSR_GP_CTR(idx) : DS_MSR_IA32_A_PMC0 + idx;
        return DS_OK;
    }
    /* Legacy write: bits 31:0, sign-extended from bit 31 to the width. The
     * value must therefore equal the sign extension of its low 32 bits. */
    uint64_t low = value & 0xFFFFFFFFull;
    uint64_t ext = (low & 0x80000000ull) ? (low | ~0xFFFFFFFFull) & m : low;
    if (ext != value)
        return DS_ERR_PMC_VALUE_WIDE;
    *msr = ctr_read_msr(c, idx);
    return DS_OK;
}

static uint64_t legacy_value(const struct ds_cpu *cpu, uint32_t msr, uint64_t v)
{
    /* Writing IA32_PMCx: only bits 31:0 matter; pass them as the CPU would see them.
     * (The v6 alias gets the sign-extended value: right with or without FW_WRITE.) */
    if (!cpu->caps.fw_write && msr >= DS_MSR_IA32_PMC0 && msr < DS_MSR_IA32_PMC0 + DS_PMC_ARCH_MSR_COUNTERS)
        return v & 0xFFFFFFFFull;
    return v;
}

DS_COLD int ds_pmc_gp_program(struct ds_cpu *cpu, unsigned idx, uint64_t evtsel, uint64_t start)
{
    int e = check_arch(cpu);
    if (e)
        return e;
    if (!gp_present(&cpu->caps, idx))
        return DS_ERR_PMC_BAD_COUNTER;
    e = ds__pmc_check_evtsel(cpu, evtsel);
    if (e)
        return e;
    uint32_t cmsr;
    e = gp_counter_target(cpu, idx, start, &cmsr);
    if (e)
        return e;
    uint32_t emsr = evtsel_msr(&cpu->caps, idx);
    e = ds_msr_write(cpu, emsr, 0);
    if (e == DS_OK)
        e = ds_msr_write(cpu, cmsr, legacy_value(cpu, cmsr, start));
    if (e == DS_OK)
        e = ds_msr_write(cpu, emsr, evtsel);
    if (e != DS_OK) {
        (void)ds_msr_write(cpu, emsr, 0);
        return DS_ERR_MSR_FAULT;
    }
    return DS_OK;
}

int ds_pmc_gp_write(struct ds_cpu *cpu, unsigned idx, uint64_t value)
{
    int e = check_arch(cpu);
    if (e)
        return e;
    if (!gp_present(&cpu->caps, idx))
        return DS_ERR_PMC_BAD_COUNTER;
    uint32_t cmsr;
    e = gp_counter_target(cpu, idx, value, &cmsr);
    if (e)
        return e;
    return ds_msr_write(cpu, cmsr, legacy_value(cpu, cmsr, value)) ? DS_ERR_MSR_FAULT : DS_OK;
}

int ds_pmc_gp_read(struct ds_cpu *cpu, unsigned idx, uint64_t *out)
{
    int e = check_arch(cpu);
    if (e)
        return e;
    if (!out)
        return DS_ERR_NULL;
    if (!gp_present(&cpu->caps, idx))
        return DS_ERR_PMC_BAD_COUNTER;
    uint64_t v;
    if (ds_msr_read(cpu, ctr_read_msr(&cpu->caps, idx), &v))
        return DS_ERR_MSR_FAULT;
    *out = v & width_mask(cpu->caps.gp_width);
    return DS_OK;
}

DS_COLD int ds_pmc_fixed_program(struct ds_cpu *cpu, unsigned idx, unsigned ctrl, bool adaptive,
                         uint64_t start)
{
    int e = check_arch(cpu);
    if (e)
        return e;
    const struct ds_caps *c = &cpu->caps;
    if (c->perfmon_version < 2 || !fixed_present(c, idx) || idx > 7)
        return DS_ERR_PMC_BAD_FIXED;
    if (ctrl > 0xF || ((ctrl & DS_FIXED_ANY) && c->perfmon_version < 3))
        return DS_ERR_PMC_RESERVED;
    if ((ctrl & DS_FIXED_ANY) && c->anythread_deprecated)
        return DS_ERR_PMC_ANY_DEPRECATED;
    if (adaptive && !adaptive_pebs(c))
        return DS_ERR_PMC_RESERVED;
    /* Fixed counters have no IA32_A_* alias; libds writes the value as is and
     * only checks it fits the advertised width (fixed_width 0 on parts that
     * do not report it: then only 0 is accepted). */
    if (c->fixed_width ? (start & ~width_mask(c->fixed_width)) != 0 : start != 0)
        return DS_ERR_PMC_VALUE_WIDE;
    uint64_t v;
    if (ds_msr_read(cpu, DS_MSR_IA32_FIXED_CTR_CTRL, &v))
        return DS_ERR_MSR_FAULT;
    uint64_t field = (0xFull << (4 * idx)) | (1ull << DS_FIXED_ADAPTIVE_BIT(idx));
    uint64_t off = v & ~field;
    uint64_t on = off | ((uint64_t)ctrl << (4 * idx)) | (adaptive ? 1ull << DS_FIXED_ADAPTIVE_BIT(idx) : 0);
    e = ds_msr_write(cpu, DS_MSR_IA32_FIXED_CTR_CTRL, off);
    if (e == DS_OK)
        e = ds_msr_write(cpu, fixed_ctr_msr(c, idx), start);
    if (e == DS_OK)
        e = ds_msr_write(cpu, DS_MSR_IA32_FIXED_CTR_CTRL, on);
    return e ? DS_ERR_MSR_FAULT : DS_OK;
}

DS_COLD int ds_pmc_global_ctrl(struct ds_cpu *cpu, uint64_t value)
{
    int e = check_arch(cpu);
    if (e)
        return e;
    const struct ds_caps *c = &cpu->caps;
    if (c->perfmon_version < 2)
        return DS_ERR_PMC_NO_GLOBAL;
    uint64_t valid = gp_valid_mask(c);
    for (unsigned m = 0; m < 16; m++)
        if (fixed_present(c, m))
            valid |= 1ull << (32 + m);
    if (c->perf_metrics)
        valid |= 1ull << 48;
    if (value & ~valid)
        return DS_ERR_PMC_RESERVED;
    return ds_msr_write(cpu, DS_MSR_IA32_PERF_GLOBAL_CTRL, value) ? DS_ERR_MSR_FAULT : DS_OK;
}

/*
 * Nehalem/Westmere counter errata AAK100 (06_1AH), AAP53 (06_1EH), BD53
 * (06_2CH): when counters are added the PMU must first be "reset" with
 * the magic events 4300B5H, 4300D2H, 4300B1H, 4300B1H on PMC0-3 enabled
 * once through GLOBAL_CTRL = 0FH then 0. Linux core.c
 * intel_pmu_nhm_workaround (run from intel_pmu_nhm_enable_all on every
 * Nehalem 1AH/1EH/1FH/2EH and Westmere 25H/2CH/2FH). libds saves and
 * restores what it clobbers, so the caller's programming survives.
 */
static const uint64_t nhm_magic[] = { 0x4300B5, 0x4300D2, 0x4300B1, 0x4300B1 };

DS_COLD int ds_pmc_nhm_workaround(struct ds_cpu *cpu)
{
    int e = check_arch(cpu);
    if (e)
        return e;
    const struct ds_caps *c = &cpu->caps;
    if (!nhm_wsm(c))
        return DS_OK;
    if (c->perfmon_version < 2 || c->gp_counters < 4)
        return DS_ERR_PMC_BAD_COUNTER;
    /* pebs is read (and written back) only where has_pebs, after
     * ds_msr_read filled it: its initial value is never used (it only keeps
     * -Wmaybe-uninitialized quiet), so `pebs = 1` there is an equivalent
     * mutant. Without PEBS, 3F1H is not accessed (test_pmc
     * test_nhm_workaround_no_pebs). */
    uint64_t gctl, pebs = 0, sel[4], ctr[4];
    uint32_t cmsr[4];
    bool has_pebs = c->pebs_advertised;
    if (ds_msr_read(cpu, DS_MSR_IA32_PERF_GLOBAL_CTRL, &gctl) ||
        (has_pebs && ds_msr_read(cpu, DS_MSR_IA32_PEBS_ENABLE, &pebs)))
        return DS_ERR_MSR_FAULT;
    for (unsigned i = 0; i < 4; i++) {
        if (ds_msr_read(cpu, DS_MSR_IA32_PERFEVTSEL0 + i, &sel[i]) ||
            ds_msr_read(cpu, DS_MSR_IA32_PMC0 + i, &ctr[i]))
            return DS_ERR_MSR_FAULT;
        ctr[i] &= width_mask(c->gp_width);
        e = gp_counter_target(cpu, i, ctr[i], &cmsr[i]);
        if (e)
            return e; /* a value IA32_PMCx cannot take back: nothing written */
    }
    /* errata step 1: GLOBAL_CTRL and PEBS_ENABLE clear */
    e = ds_msr_write(cpu, DS_MSR_IA32_PERF_GLOBAL_CTRL, 0);
    if (!e && has_pebs)
        e = ds_msr_write(cpu, DS_MSR_IA32_PEBS_ENABLE, 0);
    for (unsigned i = 0; i < 4 && !e; i++) {
        e = ds_msr_write(cpu, DS_MSR_IA32_PERFEVTSEL0 + i, nhm_magic[i]);
        if (!e)
            e = ds_msr_write(cpu, DS_MSR_IA32_PMC0 + i, 0);
    }
    if (!e)
        e = ds_msr_write(cpu, DS_MSR_IA32_PERF_GLOBAL_CTRL, 0xF);
    if (!e)
        e = ds_msr_write(cpu, DS_MSR_IA32_PERF_GLOBAL_CTRL, 0);
    for (unsigned i = 0; i < 4 && !e; i++) {
        e = ds_msr_write(cpu, DS_MSR_IA32_PERFEVTSEL0 + i, 0);
        if (!e)
            e = ds_msr_write(cpu, cmsr[i], legacy_value(cpu, cmsr[i], ctr[i]));
        if (!e)
            e = ds_msr_write(cpu, DS_MSR_IA32_PERFEVTSEL0 + i, sel[i]);
    }
    if (!e && has_pebs)
        e = ds_msr_write(cpu, DS_MSR_IA32_PEBS_ENABLE, pebs);
    if (!e)
        e = ds_msr_write(cpu, DS_MSR_IA32_PERF_GLOBAL_CTRL, gctl);
    return e ? DS_ERR_MSR_FAULT : DS_OK;
}
#endif /* DS_CONFIG_PMC */

#if !DS_CONFIG_PMC
/* Architectural / Core counters compiled out (ds/config.h). */
DS_COLD int ds_pmc_period_values(unsigned width, bool full_width, uint64_t period,
                         uint64_t *out_start, uint64_t *out_reset)
{
    (void)width;
    (void)full_width;
    (void)period;
    if (out_start)
        *out_start = 0;
    if (out_reset)
        *out_reset = 0;
    return DS_ERR_UNSUPPORTED;
}

DS_COLD int ds_pmc_gp_period(const struct ds_cpu *cpu, uint64_t period, uint64_t *out_start,
                     uint64_t *out_reset)
{
    (void)cpu;
    return ds_pmc_period_values(0, false, period, out_start, out_reset);
}

DS_COLD int ds_pmc_gp_program(struct ds_cpu *cpu, unsigned idx, uint64_t evtsel, uint64_t start)
{
    (void)cpu;
    (void)idx;
    (void)evtsel;
    (void)start;
    return DS_ERR_UNSUPPORTED;
}

int ds_pmc_gp_write(struct ds_cpu *cpu, unsigned idx, uint64_t value)
{
    (void)cpu;
    (void)idx;
    (void)value;
    return DS_ERR_UNSUPPORTED;
}

int ds_pmc_gp_read(struct ds_cpu *cpu, unsigned idx, uint64_t *out)
{
    (void)cpu;
    (void)idx;
    if (out)
        *out = 0;
    return DS_ERR_UNSUPPORTED;
}

DS_COLD int ds_pmc_fixed_program(struct ds_cpu *cpu, unsigned idx, unsigned ctrl, bool adaptive,
                         uint64_t start)
{
    (void)cpu;
    (void)idx;
    (void)ctrl;
    (void)adaptive;
    (void)start;
    return DS_ERR_UNSUPPORTED;
}

DS_COLD int ds_pmc_global_ctrl(struct ds_cpu *cpu, uint64_t value)
{
    (void)cpu;
    (void)value;
    return DS_ERR_UNSUPPORTED;
}

DS_COLD int ds_pmc_nhm_workaround(struct ds_cpu *cpu)
{
    (void)cpu;
    return DS_ERR_UNSUPPORTED;
}
#endif /* !DS_CONFIG_PMC */
