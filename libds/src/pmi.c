/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * PMI helpers and the shared DS ISR (SDM Vol. 3B "IA32_PERF_GLOBAL_STATUS",
 * "Freezing Performance Monitoring on PMI" (legacy vs streamlined table),
 * "Performance Monitoring Version 4"; reference pmi.md section 4).
 */
#include <ds/pmi.h>
#include "drain_int.h"
#include "cpu_int.h"
#include "arch_pebs_int.h"
#include "pebs_int.h"
#include "bts_int.h"

/* The freeze modes of @cpu (pure, kept in every configuration: sessions
 * validate at init what ds_pmi_init would refuse at start). */
DS_COLD int ds_pmi_freeze_check(const struct ds_cpu *cpu, enum ds_freeze_mode f)
{
    if (!cpu)
        return DS_ERR_NULL;
    if (!cpu->identified)
        return DS_ERR_NOT_IDENTIFIED;
    const struct ds_caps *c = &cpu->caps;
    bool global = !c->netburst && c->has_leaf_0a && c->perfmon_version >= 2;
    switch (f) {
    case DS_FREEZE_NONE:
        return DS_OK;
    case DS_FREEZE_LEGACY:
        return global ? DS_OK : DS_ERR_PMI_FREEZE_MODE;
    case DS_FREEZE_STREAMLINED:
        return global && c->perfmon_version >= 4 ? DS_OK : DS_ERR_PMI_FREEZE_MODE;
    default:
        return DS_ERR_PMI_FREEZE_MODE;
    }
}

#if DS_CONFIG_PMI

/* GLOBAL_CTRL / GLOBAL_STATUS bit n is GP counter n for every counter that
 * exists: caps.gp_mask, which is CPUID.(23H,1):EAX where leaf 23H
 * enumerates counters (perfmon v6 may have more GP counters than
 * CPUID.0AH:EAX[15:8] counts: Lunar Lake 8 there, GP0-9 in 23H.1, as Linux
 * update_pmu_cap takes cntr_mask64 from 23H.1 EAX), else leaf 0AH's
 * contiguous count (cpu.c). */
static uint64_t counter_bits(const struct ds_caps *c)
{
    uint64_t gp = c->gp_mask;
    /* Fixed-counter bits are 47:32 at most (bit 48 is PERF_METRICS): a wider
     * CPUID.0AH:ECX bitmap must not spill into the flag bits. */
    uint64_t fixed = (uint64_t)(c->fixed_mask & 0xFFFFu) << DS_GSTATUS_FIXED_SHIFT;
    if (!c->has_leaf_0a)
        return 0;
    return gp | fixed;
}

uint64_t ds_pmi_ack_mask(const struct ds_caps *c)
{
    /* NetBurst has no IA32_PERF_GLOBAL_* MSRs, whatever leaf 0AH says */
    if (!c || c->netburst || !c->has_leaf_0a || c->perfmon_version < 2)
        return 0;
    uint64_t m = counter_bits(c) | DS_GSTATUS_OVF_BUF | DS_GSTATUS_COND_CHGD;
    if (c->perfmon_version >= 3)
        m |= DS_GSTATUS_OVF_UNCORE;
    /* 58/59 are defined for every v4+ part. 48 needs PERF_CAPABILITIES.
     * PERF_METRICS[15]; 55 (ToPA) needs Intel PT and 60 (ASCI) SGX, both
     * from CPUID.07H, which caps does not hold: ds_pmi_init() adds them.
     * Writing 1 to a reserved bit of 0x390 raises #GP (reference msr.md 5). */
    if (c->perfmon_version >= 4)
        m |= DS_GSTATUS_LBR_FRZ | DS_GSTATUS_CTR_FRZ;
    if (c->perfmon_version >= 4 && c->perf_metrics)
        m |= DS_GSTATUS_PERF_METRICS;
    return m;
}

/* Ack bits that depend on CPUID.(EAX=07H,ECX=0):EBX, perfmon v4+
 * STATUS_RESET only (where the old mask had them): 55 with Intel PT
 * (EBX[25]), 60 with SGX (EBX[2]). Whether OVF_CTRL bit 55 also exists on
 * v3 parts with PT (Broadwell) is not confirmed here: not written there, the
 * bit is reported in `unacked`. */
static uint64_t leaf7_ack_bits(const struct ds_cpu *cpu)
{
    const struct ds_caps *c = &cpu->caps;
    uint32_t r[4] = { 0, 0, 0, 0 };
    uint64_t m = 0;
    if (!c->has_leaf_0a || c->perfmon_version < 4 || c->max_leaf < 7)
        return 0;
    ds_cpuid(cpu, 7, 0, r);
    if (r[1] & (1u << 25))
        m |= DS_GSTATUS_TOPA;
    if (r[1] & (1u << 2))
        m |= DS_GSTATUS_ASCI;
    return m;
}

int ds_pmi_decode(uint64_t raw, const struct ds_caps *c, struct ds_pmi_status *out)
{
    if (!c || !out)
        return DS_ERR_NULL;
    ds__zero(out, sizeof(*out));
    out->raw = raw;
    uint64_t cb = counter_bits(c);
    out->gp_ovf = (uint32_t)(raw & cb & 0xFFFFFFFFull);
    out->fixed_ovf = (uint32_t)((raw & cb) >> DS_GSTATUS_FIXED_SHIFT);
    out->ovf_buf = (raw & DS_GSTATUS_OVF_BUF) != 0;
    out->cond_chgd = (raw & DS_GSTATUS_COND_CHGD) != 0;
    out->ctr_frz = (raw & DS_GSTATUS_CTR_FRZ) != 0;
    out->lbr_frz = (raw & DS_GSTATUS_LBR_FRZ) != 0;
    out->uncore = (raw & DS_GSTATUS_OVF_UNCORE) != 0;
    out->asci = (raw & DS_GSTATUS_ASCI) != 0;
    out->topa = (raw & DS_GSTATUS_TOPA) != 0;
    out->perf_metrics = (raw & DS_GSTATUS_PERF_METRICS) != 0;
    uint64_t known = cb | DS_GSTATUS_OVF_BUF | DS_GSTATUS_COND_CHGD;
    if (c->perfmon_version >= 3)
        known |= DS_GSTATUS_OVF_UNCORE;
    if (c->perfmon_version >= 4)
        known |= DS_GSTATUS_LBR_FRZ | DS_GSTATUS_CTR_FRZ | DS_GSTATUS_ASCI | DS_GSTATUS_TOPA |
                 DS_GSTATUS_PERF_METRICS;
    out->unknown = raw & ~known;
    return DS_OK;
}

DS_COLD int ds_pmi_init(struct ds_pmi *pmi, struct ds_cpu *cpu, struct ds_ctx *ctx, const struct ds_pmi_config *cfg)
{
    if (!pmi || !cpu || !cfg)
        return DS_ERR_NULL;
    if (!cpu->identified)
        return DS_ERR_NOT_IDENTIFIED;
    if (ctx && !ctx->setup)
        return DS_ERR_NOT_SETUP;
    if (ctx && ctx->cpu != cpu)
        return DS_ERR_PMI_CTX_CPU; /* set up for another struct ds_cpu */
    const struct ds_caps *c = &cpu->caps;
    bool global = !c->netburst && c->has_leaf_0a && c->perfmon_version >= 2;
    int e = ds_pmi_freeze_check(cpu, cfg->freeze);
    if (e)
        return e;
    uint64_t cb = counter_bits(c);
    if (global) {
        /* GLOBAL_CTRL also has bit 48 (PERF_METRICS enable) on perfmon v4+ parts that have it. */
        uint64_t ctrl_ok = cb | (c->perf_metrics ? (1ull << 48) : 0);
        if ((cfg->global_ctrl & ~ctrl_ok) || (cfg->pebs_counters & ~cb))
            return DS_ERR_PMI_CTRL_MASK;
    } else if (cfg->global_ctrl || cfg->pebs_counters) {
        return DS_ERR_PMI_CTRL_MASK; /* no global MSRs to name counters in */
    }
    if (cfg->lbr.model && !DS_CONFIG_LBR)
        return DS_ERR_UNSUPPORTED; /* lbr.h compiled out: no snapshot step */
    if (cfg->lbr.model && (!cfg->lbr.buf || !cfg->lbr.cap))
        return DS_ERR_PMI_LBR_BUF;
    if (cfg->apebs && !DS_CONFIG_PEBS)
        return DS_ERR_UNSUPPORTED; /* arch PEBS compiled out with PEBS (ds/config.h) */
    if (cfg->apebs && (!global || !cfg->apebs->installed || cfg->apebs->cpu != cpu))
        return DS_ERR_APEBS_PMI;
    ds__zero(pmi, sizeof(*pmi));
    pmi->cpu = cpu;
    pmi->ctx = ctx;
    pmi->cfg = *cfg;
    pmi->has_global = global;
    pmi->msr_rd = cpu->ops ? cpu->ops->read : NULL;
    pmi->msr_wr = cpu->ops ? cpu->ops->write : NULL;
    pmi->msr_ctx = cpu->ops_ctx;
    pmi->ctr_bits = cb;
    pmi->ack_mask = ds_pmi_ack_mask(c) | (global ? leaf7_ack_bits(cpu) : 0);
    if (cfg->apebs)
        pmi->ack_mask |= DS_APEBS_GLOBAL_STATUS_THRESHOLD; /* bit 54: ours to drain and ack */
    pmi->pmu_enabled = true;
    pmi->init = true;
    return DS_OK;
}

int ds_pmi_pmu_enable(struct ds_pmi *pmi, bool on)
{
    if (!pmi)
        return DS_ERR_NULL;
    if (!pmi->init)
        return DS_ERR_PMI_NOT_INIT;
    if (!pmi->has_global)
        return DS_ERR_UNSUPPORTED;
    /* Flag first (see pmi.h): the handler reads it to decide the legacy restore. */
    pmi->pmu_enabled = on;
    return ds_msr_write(pmi->cpu, DS_MSR_IA32_PERF_GLOBAL_CTRL, on ? pmi->cfg.global_ctrl : 0);
}

int ds_pmi_set_freeze(struct ds_pmi *pmi)
{
    uint64_t v;
    if (!pmi)
        return DS_ERR_NULL;
    if (!pmi->init)
        return DS_ERR_PMI_NOT_INIT;
    /* Bit 12 of IA32_DEBUGCTL means FREEZE_PERFMON_ON_PMI only on Intel P6-family
     * descendants with architectural perfmon v2+; NetBurst's MSR_DEBUGCTLA and
     * other vendors' DEBUGCTL differ: never touched there. */
    if (!pmi->has_global)
        return DS_ERR_UNSUPPORTED;
    /* The bit exists only "if CPUID.01H:ECX[15] = 1 && CPUID.0AH:EAX[7:0] > 1"
     * (SDM MSR table, IA32_DEBUGCTL; EDK2 ArchitecturalMsr.h): Core 2 Merom
     * is v2 without PDCM. Clearing it is always safe. */
    if (pmi->cfg.freeze != DS_FREEZE_NONE && !pmi->cpu->caps.pdcm)
        return DS_ERR_UNSUPPORTED;
    int e = ds_msr_read(pmi->cpu, DS_MSR_IA32_DEBUGCTL, &v);
    if (e)
        return e;
    if (pmi->cfg.freeze == DS_FREEZE_NONE)
        v &= ~DS_DEBUGCTL_FREEZE_PERFMON_ON_PMI;
    else
        v |= DS_DEBUGCTL_FREEZE_PERFMON_ON_PMI;
    return ds_msr_write(pmi->cpu, DS_MSR_IA32_DEBUGCTL, v);
}

int ds_pmi_read_status(struct ds_pmi *pmi, uint64_t *out_status)
{
    if (!pmi || !out_status)
        return DS_ERR_NULL;
    if (!pmi->init)
        return DS_ERR_PMI_NOT_INIT;
    if (!pmi->has_global)
        return DS_ERR_UNSUPPORTED;
    return ds_msr_read(pmi->cpu, DS_MSR_IA32_PERF_GLOBAL_STATUS, out_status);
}

/* ds__msr_rd / ds__msr_wr through the backend cached in @pmi (ds_pmi_init);
 * the same results. */
static inline __attribute__((always_inline)) int pmi_rd(const struct ds_pmi *pmi, uint32_t msr, uint64_t *out)
{
    if (pmi->msr_rd)
        return pmi->msr_rd(pmi->msr_ctx, msr, out) == DS_OK ? DS_OK : DS_ERR_MSR_FAULT;
    return ds__msr_rd(pmi->cpu, msr, out);
}

static inline __attribute__((always_inline)) int pmi_wr(const struct ds_pmi *pmi, uint32_t msr, uint64_t val)
{
    if (pmi->msr_wr)
        return pmi->msr_wr(pmi->msr_ctx, msr, val) == DS_OK ? DS_OK : DS_ERR_MSR_FAULT;
    return ds__msr_wr(pmi->cpu, msr, val);
}

/* BTS runs with its threshold PMI (DS_BTS_INT): the one PMI of this PMU
 * that sets no GLOBAL_STATUS bit (ds_pmi_ack, idle_due). */
static bool bts_int_armed(const struct ds_pmi *pmi)
{
#if DS_CONFIG_BTS
    const struct ds_ctx *ctx = pmi->ctx;
    return ctx && ctx->bts.mem && ctx->bts_enabled && (ctx->bts_flags & DS_BTS_INT);
#else
    (void)pmi;
    return false;
#endif
}

int ds_pmi_ack(struct ds_pmi *pmi, uint64_t status, uint64_t *out_unacked)
{
    if (!pmi)
        return DS_ERR_NULL;
    if (!pmi->init)
        return DS_ERR_PMI_NOT_INIT;
    if (!pmi->has_global)
        return DS_ERR_UNSUPPORTED;
    uint64_t ack = status & pmi->ack_mask;
    if (out_unacked)
        *out_unacked = status & ~pmi->ack_mask;
    if (ack) {
        int e = ds_msr_write(pmi->cpu, DS_MSR_IA32_PERF_GLOBAL_OVF_CTRL, ack);
        if (e)
            return e;
    }
    /* Legacy freeze: restore only for a PMI of this PMU while it is enabled
     * (item 3); status 0 is one with BTS threshold PMIs armed (handle_global) */
    if (pmi->cfg.freeze == DS_FREEZE_LEGACY && (status || bts_int_armed(pmi)) && pmi->pmu_enabled)
        return ds_msr_write(pmi->cpu, DS_MSR_IA32_PERF_GLOBAL_CTRL, pmi->cfg.global_ctrl);
    return DS_OK;
}

#if DS_CONFIG_PEBS
static int nop_pebs(void *a, const struct ds_pebs_sample *s)
{
    (void)a;
    (void)s;
    return 1; /* nobody to take it: counted lost_rejected */
}
#endif

#if DS_CONFIG_BTS
static int nop_bts(void *a, const struct ds_bts_branch *b)
{
    (void)a;
    (void)b;
    return 1;
}
#endif


/* Step 2, PEBS: drain the DS-area buffer on OvfBuf (bit 62) or, without
 * global status, when its index reached the threshold; the architectural
 * PEBS buffer on bit 54 (Linux handle_pmi_common: drain_pebs). With
 * DS_CONFIG_PEBS=0 no context can hold a PEBS buffer (ds_area_setup
 * refuses it) and there is nothing to drain. */
static inline __attribute__((always_inline)) void service_pebs(struct ds_pmi *pmi, uint64_t status,
                                                                struct ds_pmi_result *r)
{
#if DS_CONFIG_PEBS
    struct ds_ctx *ctx = pmi->ctx;
    if (ctx && ctx->pebs.mem) {
        bool go = (status & DS_GSTATUS_OVF_BUF) != 0;
        if (!go && ctx->pebs.thresh_records)
            go = ds__area_get(ctx, true, DS__INDEX) >= ctx->pebs.thresh_at;
        if (go) {
            /* ds_pebs_drain without its checks (ds_pmi_init saw ctx set
             * up; pebs.mem tested above), counted straight into r->pebs. */
            ds__pebs_drain_pmi(ctx, pmi->cfg.pebs_sink ? pmi->cfg.pebs_sink : nop_pebs, pmi->cfg.pebs_arg, &r->pebs,
                               &pmi->pebs_scratch.s, &pmi->pebs_scratch.key);
            r->pebs_drained = true;
            r->handled = true;
        }
    }
    if (pmi->cfg.apebs && (status & DS_APEBS_GLOBAL_STATUS_THRESHOLD)) {
        /* Into r->pebs and the persistent scratch sample (no sample in this
         * frame); under a freeze mode the counters are stopped until the
         * ack: IA32_PEBS_INDEX read once and reset (issue 28 item 4). */
        ds__arch_pebs_drain_pmi(pmi->cfg.apebs, pmi->cfg.pebs_sink ? pmi->cfg.pebs_sink : nop_pebs,
                                pmi->cfg.pebs_arg, &r->pebs, &pmi->pebs_scratch, pmi->cfg.freeze != DS_FREEZE_NONE);
        r->pebs_drained = true;
        r->handled = true;
    }
#else
    (void)pmi;
    (void)status;
    (void)r;
#endif
}

/* Step 3, BTS: drain when the threshold interrupt is armed and reached
 * (SDM "Setting Up the BTS Buffer": DS_BTS_INT; ds_bts_threshold_reached's
 * test: a threshold, not circular, the index at thresh_at), straight into
 * r->bts (ds__bts_drain_add: no stats in a frame); the first drain of a
 * call clears it (pmi.h: result.bts is written when bts_drained). Out of
 * line: the BTS walk's frames are not on the PEBS PMI's stack (issue 29
 * item 3). */
#if DS_CONFIG_BTS
static __attribute__((noinline)) void bts_service(struct ds_pmi *pmi, struct ds_pmi_result *r)
{
    struct ds_ctx *ctx = pmi->ctx;
    if (!ctx->bts.thresh_records || ctx->bts_circular || ds__area_get(ctx, false, DS__INDEX) < ctx->bts.thresh_at)
        return;
    if (!r->bts_drained)
        ds__stats_clear(&r->bts);
    ds__bts_drain_add(ctx, pmi->cfg.bts_sink ? pmi->cfg.bts_sink : nop_bts, pmi->cfg.bts_arg, &r->bts);
    r->bts_drained = true;
    r->handled = true;
}
#endif

static inline __attribute__((always_inline)) void service_bts(struct ds_pmi *pmi, struct ds_pmi_result *r)
{
#if DS_CONFIG_BTS
    if (bts_int_armed(pmi))
        bts_service(pmi, r);
#else
    (void)pmi;
    (void)r;
#endif
}

/* The overflow hook's call, out of line: its out-parameter is not in the
 * handler's frame (issue 29 item 3). */
static __attribute__((noinline)) int call_hook(struct ds_pmi *pmi, uint64_t ovf, struct ds_pmi_result *r)
{
    uint32_t handled = 0;
    int ret = DS_OK;
    r->hooked |= ovf;
    if (pmi->cfg.ovf_hook(pmi->cfg.ovf_arg, ovf, !pmi->has_global, &handled) != DS_OK)
        ret = DS_ERR_PMI_HOOK;
    r->hook_handled += handled;
    if (handled)
        r->handled = true;
    return ret;
}

/* Step 4, counters: overflowed non-PEBS counters go to the hook (NetBurst /
 * v1: the hook finds them itself); a PEBS counter's overflow is handled by
 * its drain and auto-reload. Returns the hook's error or DS_OK. */
static inline __attribute__((always_inline)) void service_counters(struct ds_pmi *pmi, uint64_t status,
                                                                    struct ds_pmi_result *r, bool global, int *ret)
{
    uint64_t ovf = 0;
    bool call = true;
    if (global) { /* pmi->has_global: a constant in each caller */
        if (!status)
            return; /* nothing overflowed: no hook (the spurious-NMI path) */
        ovf = status & pmi->ctr_bits & ~pmi->cfg.pebs_counters;
        call = ovf != 0;
        if (status & pmi->cfg.pebs_counters)
            r->handled = true; /* PEBS counter overflow: records drained / auto-reloaded */
    }
    if (call && pmi->cfg.ovf_hook) {
        int e = call_hook(pmi, ovf, r);
        if (e && !*ret)
            *ret = e; /* the first error wins */
    }
    if (ovf)
        r->handled = true;
}

/* Service one status snapshot (steps 2-4). Returns hook error or DS_OK.
 * Inlined into handle_global's loop (one frame less per PMI, issue 10
 * item 21); service() is the out-of-line copy for NetBurst / v1. @global
 * is pmi->has_global, a constant in each. */
static inline __attribute__((always_inline)) void service_inl(struct ds_pmi *pmi, uint64_t status,
                                                               struct ds_pmi_result *r, bool global, int *ret)
{
    service_pebs(pmi, status, r);
    service_bts(pmi, r);
    service_counters(pmi, status, r, global, ret);
}

static __attribute__((noinline)) int service(struct ds_pmi *pmi, struct ds_pmi_result *r)
{
    int ret = DS_OK;
    service_inl(pmi, 0, r, false, &ret);
    return ret;
}

/* One RDMSR IA32_PERF_GLOBAL_STATUS, counted. */
static inline __attribute__((always_inline)) int read_status(struct ds_pmi *pmi, uint64_t *status, struct ds_pmi_result *r)
{
    r->msr_reads++;
    return pmi_rd(pmi, DS_MSR_IA32_PERF_GLOBAL_STATUS, status);
}

/* WRMSR OVF_CTRL / STATUS_RESET (same MSR 0x390) with @ack != 0, counted.
 * With streamlined freeze this write unfreezes. */
static inline __attribute__((always_inline)) int ack_bits(struct ds_pmi *pmi, uint64_t ack, struct ds_pmi_result *r)
{
    r->msr_writes++;
    int e = pmi_wr(pmi, DS_MSR_IA32_PERF_GLOBAL_OVF_CTRL, ack);
    if (e == DS_OK) {
        r->acked |= ack;
        r->handled = true;
    }
    return e;
}

/* Status bits the loop services and acknowledges. Reserved bits cannot be
 * acked (they would #GP) and are reported in `unacked`, not looped on.
 * LBR_Frz only once the caller's snapshot is taken: acking it unfreezes the
 * LBRs (SDM "LBR_Frz"; Linux reads the LBRs before intel_pmu_ack_status). */
static uint64_t loop_bits(const struct ds_pmi *pmi, const struct ds_pmi_result *r)
{
    return r->lbr_taken ? pmi->ack_mask : pmi->ack_mask & ~DS_GSTATUS_LBR_FRZ;
}

/* Snapshot step (pmi.h struct ds_pmi_lbr): read the frozen LBR stack into
 * caller memory before anything is acknowledged. Out of line, as is
 * stop_storm: neither is on the PEBS path inlined into ds_pmi_handle. */
static __attribute__((noinline)) void lbr_snapshot(struct ds_pmi *pmi, struct ds_pmi_result *r)
{
    const struct ds_pmi_lbr *l = &pmi->cfg.lbr;
    size_t n = 0;
    r->lbr_err = ds_lbr_read(pmi->cpu, l->model, l->format, l->buf, l->cap, &n);
    r->lbr_taken = r->lbr_err == DS_OK;
    r->lbr_n = r->lbr_taken ? n : 0;
}

/* Linux intel_pmu_handle_irq "irq loop stuck": after DS_PMI_MAX_PASSES the
 * status still has bits: stop the PMU (intel_pmu_reset stops every counter;
 * libds owns only GLOBAL_CTRL) and report it. The caller reprograms and
 * calls ds_pmi_pmu_enable(pmi, true). */
static __attribute__((noinline, cold)) int stop_storm(struct ds_pmi *pmi, struct ds_pmi_result *r)
{
    r->storm = true;
    pmi->pmu_enabled = false;
    r->msr_writes++;
    int e = ds_msr_write(pmi->cpu, DS_MSR_IA32_PERF_GLOBAL_CTRL, 0);
    return e ? e : DS_ERR_PMI_STORM;
}

/* Status 0: only a buffer whose index reached its threshold, or a
 * threshold-armed BTS buffer (its PMI sets no status bit), can be ours;
 * then the status-0 pass of handle_global's loop services it. (The index
 * alone cannot tell for BTS: a drain since the PMI reset it.) */
static inline __attribute__((always_inline)) bool idle_due(const struct ds_pmi *pmi)
{
    const struct ds_ctx *ctx = pmi->ctx;
    if (!ctx)
        return false;
    if (bts_int_armed(pmi))
        return true;
#if DS_CONFIG_PEBS
    if (ctx->pebs.mem && ctx->pebs.thresh_records)
        return ds__area_get(ctx, true, DS__INDEX) >= ctx->pebs.thresh_at;
#endif
    return false;
}

/* Perfmon v2+: service and acknowledge until GLOBAL_STATUS has no ackable
 * bit left, at most DS_PMI_MAX_PASSES passes (an overflow landing during the
 * handler raised its PMI under the masked LVT: only this loop sees it);
 * then the legacy-freeze restore (step 6). Out of line and entered by a
 * tail call from ds_pmi_handle; it reads GLOBAL_STATUS itself (status 0:
 * idle_due, then one status-0 pass), so that ds_pmi_handle's frame holds
 * nothing and the status lives in this frame only (issue 29 item 3). */
static __attribute__((noinline)) int handle_global(struct ds_pmi *pmi, struct ds_pmi_result *r)
{
    uint64_t want, status;
    int ret, e;
    if (pmi_rd(pmi, DS_MSR_IA32_PERF_GLOBAL_STATUS, &status) != DS_OK) {
        r->status = r->unacked = 0;
        return DS_ERR_MSR_FAULT;
    }
    r->status = status; /* the first pass's: later passes or theirs in */
    r->unacked = status & ~pmi->ack_mask;
    if (!status && !idle_due(pmi))
        return DS_OK; /* foreign NMI: 1 RDMSR, no loop */
    bool enabled = pmi->pmu_enabled; /* Linux: cpuc->enabled as found on entry (nothing before changes it) */
    ret = DS_OK;
    want = pmi->ack_mask & ~DS_GSTATUS_LBR_FRZ; /* loop_bits without a snapshot */
    if (pmi->cfg.lbr.model && (status & pmi->ack_mask)) {
        lbr_snapshot(pmi, r); /* before any ack: the LBRs are still frozen */
        ret = r->lbr_err;
        want = loop_bits(pmi, r);
    }
    for (unsigned pass = 1;; pass++) {
        /* r->status, unacked and passes hold this pass already */
        /* (two tests, not status & ~want: one bit test on the hot path) */
        if ((status & DS_GSTATUS_LBR_FRZ) && !(want & DS_GSTATUS_LBR_FRZ))
            r->lbr_frozen = true;
        service_inl(pmi, status, r, true, &ret);
        uint64_t ack = status & want;
        if (!ack)
            break; /* nothing ours to acknowledge: no re-read */
        e = ack_bits(pmi, ack, r);
        if (!e)
            e = read_status(pmi, &status, r);
        if (e) {
            if (!ret)
                ret = e;
            break;
        }
        if (!(status & want)) {
            if (status & DS_GSTATUS_LBR_FRZ)
                r->lbr_frozen = true;
            break;
        }
        r->status |= status;
        r->unacked |= status & ~pmi->ack_mask;
        if (pass == DS_PMI_MAX_PASSES) {
            e = ack_bits(pmi, status & want, r);
            int st = stop_storm(pmi, r);
            return ret ? ret : (e ? e : st);
        }
        r->passes = pass + 1;
    }
    if (pmi->cfg.freeze == DS_FREEZE_LEGACY && enabled && ret != DS_ERR_MSR_FAULT &&
        (r->status || bts_int_armed(pmi))) {
        /* Legacy freeze cleared GLOBAL_CTRL on our PMI: restore the enables (SDM
         * table, legacy column), but never for a foreign NMI (status 0) nor
         * after ds_pmi_pmu_enable(false): that would restart stopped counters.
         * Status 0 with a threshold-armed BTS buffer: it may be a BTS
         * threshold PMI, which sets no GLOBAL_STATUS bit, and
         * FREEZE_PERFMON_ON_PMI cleared GLOBAL_CTRL on it ("a PMI request
         * clears each of the ENABLE field of MSR_PERF_GLOBAL_CTRL", SDM Vol.
         * 3B IA32_DEBUGCTL bit 12): restored as Linux intel_pmu_handle_irq
         * does on every exit (__intel_pmu_enable_all). */
        r->msr_writes++;
        e = pmi_wr(pmi, DS_MSR_IA32_PERF_GLOBAL_CTRL, pmi->cfg.global_ctrl);
        if (e && ret == DS_OK)
            ret = e;
    }
    return ret;
}

/* Field by field, not ds__zero + copy: this runs on every NMI, and a
 * spurious one must stay cheap (issue 10 item 21: the byte loop and the
 * struct copy were 700 of its 800 instructions). Padding is left as is;
 * so is bts, written by the BTS drain (pmi.h: defined when bts_drained;
 * issue 28 item 3: 7 stores less on every PMI). */
static inline __attribute__((always_inline)) void result_clear(struct ds_pmi_result *r)
{
    r->acked = r->hooked = 0; /* status, unacked: each path's first snapshot */
    r->pebs_drained = r->bts_drained = false;
    ds__stats_clear(&r->pebs);
    r->hook_handled = 0;
    r->msr_reads = 1; /* handle_global's status read (service: 0) */
    r->msr_writes = 0;
    r->lbr_taken = r->lbr_frozen = r->storm = r->handled = false;
    r->lbr_n = 0;
    r->lbr_err = DS_OK;
}

/* ds_pmi_handle past its argument checks (@pmi, @r not NULL): also
 * ds_session_pmi's entry (session.h), which has made both itself. */
__attribute__((noinline)) int ds__pmi_handle_r(struct ds_pmi *pmi, struct ds_pmi_result *r)
{
    if (!pmi->init)
        return DS_ERR_PMI_NOT_INIT;
    result_clear(r);
    r->passes = 1;
    if (!pmi->has_global) {
        r->status = r->unacked = 0;
        r->msr_reads = 0;
        return service(pmi, r); /* NetBurst / v1: memory and the hook only */
    }
    /* GLOBAL_STATUS is read in handle_global: this frame makes tail calls
     * only (stack.py counts it under the drains, issue 29 item 3). */
    return handle_global(pmi, r);
}

int ds_pmi_handle(struct ds_pmi *pmi, struct ds_pmi_result *out)
{
    if (!pmi)
        return DS_ERR_NULL;
    /* no result in this frame (issue 29 item 3) */
    return ds__pmi_handle_r(pmi, out ? out : &pmi->res);
}

#else /* !DS_CONFIG_PMI: PMI helpers and the shared ISR compiled out (ds/config.h) */

int ds_pmi_decode(uint64_t raw, const struct ds_caps *caps, struct ds_pmi_status *out)
{
    (void)raw;
    (void)caps;
    if (out)
        ds__zero(out, sizeof(*out));
    return DS_ERR_UNSUPPORTED;
}

uint64_t ds_pmi_ack_mask(const struct ds_caps *caps)
{
    (void)caps;
    return 0; /* as for a CPU without global status: nothing to acknowledge */
}

int ds_pmi_init(struct ds_pmi *pmi, struct ds_cpu *cpu, struct ds_ctx *ctx, const struct ds_pmi_config *cfg)
{
    (void)cpu;
    (void)ctx;
    (void)cfg;
    if (pmi)
        ds__zero(pmi, sizeof(*pmi)); /* init = false: every other call refuses it too */
    return DS_ERR_UNSUPPORTED;
}

int ds_pmi_set_freeze(struct ds_pmi *pmi)
{
    (void)pmi;
    return DS_ERR_UNSUPPORTED;
}

int ds_pmi_pmu_enable(struct ds_pmi *pmi, bool on)
{
    (void)pmi;
    (void)on;
    return DS_ERR_UNSUPPORTED;
}

int ds_pmi_read_status(struct ds_pmi *pmi, uint64_t *out_status)
{
    (void)pmi;
    if (out_status)
        *out_status = 0;
    return DS_ERR_UNSUPPORTED;
}

int ds_pmi_ack(struct ds_pmi *pmi, uint64_t status, uint64_t *out_unacked)
{
    (void)pmi;
    (void)status;
    if (out_unacked)
        *out_unacked = 0;
    return DS_ERR_UNSUPPORTED;
}

int ds_pmi_handle(struct ds_pmi *pmi, struct ds_pmi_result *out)
{
    (void)pmi;
    if (out)
        ds__zero(out, sizeof(*out)); /* handled = false: pass the NMI on */
    return DS_ERR_UNSUPPORTED;
}

int ds__pmi_handle_r(struct ds_pmi *pmi, struct ds_pmi_result *r)
{
    return ds_pmi_handle(pmi, r);
}

#endif /* DS_CONFIG_PMI */
