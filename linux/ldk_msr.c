// SPDX-License-Identifier: BSD-2-Clause
/*
 * libds's MSR/CPUID backend in Linux, and the "is the PMU in use" check.
 *
 * Every MSR access libds makes goes through rdmsrl_safe / wrmsrl_safe: an
 * MSR the CPU (or hypervisor) does not have takes #GP, which Linux's
 * exception table turns into an error return; libds then reports
 * DS_ERR_MSR_FAULT instead of the module oopsing. Called on the CPU whose
 * MSRs are meant (the flows run pinned, ldk_main.c).
 */
#include <linux/kernel.h>
#include <asm/msr.h>
#include <asm/processor.h>
#include "ldk.h"

static int ldk_rd(void *ctx, uint32_t msr, uint64_t *out)
{
    u64 v = 0;
    (void)ctx;
    if (rdmsrl_safe(msr, &v))
        return DS_ERR_MSR_FAULT;
    *out = v;
    return DS_OK;
}

static int ldk_wr(void *ctx, uint32_t msr, uint64_t val)
{
    (void)ctx;
    return wrmsrl_safe(msr, val) ? DS_ERR_MSR_FAULT : DS_OK;
}

static void ldk_cpuid(void *ctx, uint32_t leaf, uint32_t subleaf, uint32_t out[4])
{
    (void)ctx;
    cpuid_count(leaf, subleaf, &out[0], &out[1], &out[2], &out[3]);
}

const struct ds_msr_ops ldk_msr_ops = {ldk_rd, ldk_wr, ldk_cpuid};

static void busy_add(struct ldk_busy *b, const char *what, u32 msr, u64 v)
{
    size_t n = strlen(b->why);
    b->busy = true;
    if (n + 2 < sizeof(b->why))
        snprintf(b->why + n, sizeof(b->why) - n, "%s%s(0x%x)=0x%llx", n ? ", " : "", what, msr,
                 (unsigned long long)v);
}

/* Read @msr through @dc's backend; a fault means "not there", which is not "in use". */
static bool rd(const struct ds_cpu *dc, u32 msr, u64 *v)
{
    *v = 0;
    return ds_msr_read(dc, msr, v) == DS_OK;
}

/* Linux keeps IA32_PERF_GLOBAL_CTRL at x86_pmu.intel_ctrl whenever perf has
 * the PMU enabled, with or without events (intel_pmu_enable_all,
 * arch/x86/events/intel/core.c), so a global enable bit alone is not a
 * counter in use: a counter counts only with its own enable too (SDM Vol.
 * 3B "IA32_PERF_GLOBAL_CTRL": both must be set). GLOBAL_CTRL is read for
 * the message and restored by the session like every MSR it writes. */
static void gp_busy(const struct ds_cpu *dc, const struct ds_caps *k, struct ldk_busy *b)
{
    u64 v;
    for (unsigned i = 0; i < k->gp_counters && i < 32; i++)
        if (rd(dc, DS_MSR_IA32_PERFEVTSEL0 + i, &v) && (v & (1ull << 22)))
            busy_add(b, "IA32_PERFEVTSEL.EN", DS_MSR_IA32_PERFEVTSEL0 + i, v);
    if (k->perfmon_version >= 2 && rd(dc, DS_MSR_IA32_FIXED_CTR_CTRL, &v) && v)
        busy_add(b, "IA32_FIXED_CTR_CTRL", DS_MSR_IA32_FIXED_CTR_CTRL, v);
}

/*
 * Is a counter, PEBS, arch PEBS, BTS or LBR enabled on the CPU @dc
 * (identified) reaches? Reads only, through @dc's backend (ldk_msr_ops on
 * the CPU itself; the model's for the self-check, ldk_check.c). Non-Intel
 * CPUs have none of these MSRs as libds means them: not busy (the flows
 * then skip with the reason).
 */
void ldk_pmu_busy(const struct ds_cpu *dc, struct ldk_busy *b)
{
    const struct ds_caps *k = &dc->caps;
    u64 v, gctl = 0;
    memset(b, 0, sizeof(*b));
    if (!dc->identified || k->vendor != DS_VENDOR_INTEL)
        return;
    if (k->perfmon_version)
        gp_busy(dc, k, b);
    /* NetBurst: 18 CCCRs at 0x360-0x371, Enable = bit 12 (SDM Vol. 3B
     * "CCCR MSRs"); Linux's p4_pmu_enable_event sets it. */
    for (u32 m = 0x360u; k->netburst && m <= 0x371u; m++)
        if (rd(dc, m, &v) && (v & (1ull << 12)))
            busy_add(b, "CCCR.Enable", m, v);
    if (k->ds && rd(dc, DS_MSR_IA32_PEBS_ENABLE, &v) && v)
        busy_add(b, "IA32_PEBS_ENABLE", DS_MSR_IA32_PEBS_ENABLE, v);
    if (k->has_leaf_23 && rd(dc, DS_MSR_IA32_PEBS_INDEX, &v) && (v & DS_APEBS_INDEX_EN))
        busy_add(b, "IA32_PEBS_INDEX.EN", DS_MSR_IA32_PEBS_INDEX, v);
    /* DEBUGCTL: LBR (bit 0), TR (6), BTS (7); NetBurst's MSR_DEBUGCTLA has
     * LBR at bit 0 and TR/BTS at 2/3 (SDM Vol. 3B "MSR_DEBUGCTLA"). */
    if (rd(dc, DS_MSR_IA32_DEBUGCTL, &v) && (v & (k->netburst ? 0xDull : 0xC1ull)))
        busy_add(b, "IA32_DEBUGCTL LBR/TR/BTS", DS_MSR_IA32_DEBUGCTL, v);
    if (k->arch_lbr && rd(dc, 0x14CEu, &v) && (v & 1))  /* IA32_LBR_CTL.LBREn */
        busy_add(b, "IA32_LBR_CTL.LBREn", 0x14CEu, v);
    if (b->busy && k->perfmon_version >= 2 && rd(dc, DS_MSR_IA32_PERF_GLOBAL_CTRL, &gctl)) {
        size_t n = strlen(b->why);
        snprintf(b->why + n, sizeof(b->why) - n, "; IA32_PERF_GLOBAL_CTRL=0x%llx", (unsigned long long)gctl);
    }
}
