/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * DS save area: layout, PEBS threshold margins and counter-reset slots,
 * install/uninstall (SDM Vol. 3B "DS Save Area", "DS Save Area and IA-32e
 * Mode Operation"; reference ds-area.md). ds_area_setup, which checks a
 * configuration against the BTS and PEBS record formats, is in
 * area_setup.c, a level above PEBS (issue 26 item 5): this file knows the
 * area types only.
 */
#include <ds/area.h>
#include "util.h"

/* Pure address check, kept in every configuration (no facility state). */
DS_COLD bool ds_linear_canonical(uint64_t linear, bool la57)
{
    unsigned bits = la57 ? 57 : 48;
    uint64_t top = linear >> (bits - 1);
    return top == 0 || top == (~0ull >> (bits - 1));
}

#if DS_CONFIG_AREA

DS_COLD int ds_area_layout(const struct ds_cpu *cpu, enum ds_layout *out_layout)
{
    if (!cpu || !out_layout)
        return DS_ERR_NULL;
    if (!cpu->identified)
        return DS_ERR_NOT_IDENTIFIED;
    /* SDM: DTES64 = 1 -> 64-bit format in all modes; else IA-32e mode decides. */
    *out_layout = (cpu->caps.dtes64 || cpu->ia32e) ? DS_LAYOUT_64 : DS_LAYOUT_32;
    return DS_OK;
}

static uint32_t popcount32(uint32_t v)
{
    uint32_t n = 0;
    for (; v; v &= v - 1)
        n++;
    return n;
}

/*
 * PEBS-capable counters that exist, per format (SDM "PEBS" sections per
 * microarchitecture; Linux ds.c pebs_update_threshold reserves one record
 * per PEBS counter, plus the fixed counters with PMU_FL_PEBS_ALL):
 *   NetBurst: the one PEBS counter (IQ_COUNTER4/5);
 *   fmt 0 (Core 2, Atom): PMC0 only;
 *   fmt 1-3 (Nehalem..Skylake): PMC0-3 that exist; Goldmont Plus (06_7AH,
 *     extended PEBS, Linux PMU_FL_PEBS_ALL) every GP and fixed counter;
 *   fmt 4 (Ice Lake): GP 0-7 and the fixed counters (adaptive PEBS runs on
 *     all counters; without PEBS_BASELINE Linux does not set PEBS_ALL, the
 *     fixed counters are still reserved here: a larger margin loses nothing);
 *   fmt 5: GP 0-31 and the fixed counters.
 * "Exist" = CPUID's bitmaps (caps.gp_mask, caps.fixed_mask).
 */
DS_COLD int ds_pebs_thresh_margin(const struct ds_cpu *cpu, enum ds_pebs_fmt fmt, uint32_t *out_records)
{
    if (!cpu || !out_records)
        return DS_ERR_NULL;
    *out_records = 0;
    if (!cpu->identified)
        return DS_ERR_NOT_IDENTIFIED;
    const struct ds_caps *c = &cpu->caps;
    uint32_t gp, fixed = c->fixed_mask & 0xFFFFu;
    switch (fmt) {
    case DS_PEBS_FMT_NB32:
    case DS_PEBS_FMT_NB64:
        *out_records = 1;
        return DS_OK;
    case DS_PEBS_FMT_0:
        gp = c->gp_mask & 0x1u;
        fixed = 0;
        break;
    case DS_PEBS_FMT_1:
    case DS_PEBS_FMT_2:
    case DS_PEBS_FMT_3:
        if (c->display_family == 6 && c->display_model == 0x7A) { /* Goldmont Plus */
            gp = c->gp_mask & 0xFFu;
        } else {
            gp = c->gp_mask & 0xFu;
            fixed = 0;
        }
        break;
    case DS_PEBS_FMT_4:
        gp = c->gp_mask & 0xFFu;
        break;
    case DS_PEBS_FMT_5:
    case DS_PEBS_FMT_6:
        gp = c->gp_mask;
        break;
    default:
        return DS_ERR_PEBS_FORMAT;
    }
    uint32_t n = popcount32(gp) + popcount32(fixed);
    if (!gp && !fixed)
        return DS_ERR_PEBS_NO_COUNTERS;
    *out_records = n;
    return DS_OK;
}

#if DS_CONFIG_PEBS
/* A general-purpose counter's reset slot: PMC i at slot i, as many as the
 * format has slots before the fixed ones (SDM Vol. 3B "DS Save Area": PEBS
 * counter reset fields; Linux intel_pmu_pebs_enable). */
static int reset_slot_gp(const struct ds_ctx *ctx, uint32_t index, uint32_t *slot, uint32_t *width)
{
    const struct ds_caps *c = &ctx->cpu->caps;
    uint32_t limit;
    switch (ctx->pebs_fmt) {
    case DS_PEBS_FMT_0: limit = 1; break;           /* PMC0 only */
    case DS_PEBS_FMT_1:
    case DS_PEBS_FMT_2:
    case DS_PEBS_FMT_3: limit = 4; break;           /* PMC0..3 */
    case DS_PEBS_FMT_4: limit = 8; break;           /* fixed from slot 8 */
    case DS_PEBS_FMT_5:
    case DS_PEBS_FMT_6: limit = 32; break;          /* fixed from slot 32 */
    default: return DS_ERR_PEBS_FORMAT;
    }
    /* The counter must exist: CPUID's GP bitmap (23H.1 EAX, may be
     * non-contiguous; else leaf 0AH's count), not just the count. */
    if (index >= limit || !(c->gp_mask & (1u << index)))
        return DS_ERR_RESET_SLOT;
    *slot = index;
    *width = c->gp_width;
    return DS_OK;
}

/* A fixed counter's reset slot: fixed m at 8 + m (format 4, Goldmont Plus)
 * or 32 + m (formats 5, 6); none before format 4. */
static int reset_slot_fixed(const struct ds_ctx *ctx, uint32_t index, uint32_t *slot, uint32_t *width)
{
    const struct ds_caps *c = &ctx->cpu->caps;
    uint32_t first;
    /* Goldmont Plus (06_7AH): PEBS format 3 with extended PEBS on the fixed
     * counters (SDM "PEBS Facility" for Goldmont Plus; Linux sets
     * PMU_FL_PEBS_ALL and, below format 5, puts fixed m at slot 8 + m in
     * intel_pmu_pebs_enable). */
    bool glp = c->display_family == 6 && c->display_model == 0x7A &&
               (ctx->pebs_fmt == DS_PEBS_FMT_1 || ctx->pebs_fmt == DS_PEBS_FMT_2 || ctx->pebs_fmt == DS_PEBS_FMT_3);
    if (ctx->pebs_fmt == DS_PEBS_FMT_4 || glp)
        first = 8;
    else if (ctx->pebs_fmt == DS_PEBS_FMT_5 || ctx->pebs_fmt == DS_PEBS_FMT_6)
        first = 32;
    else
        return DS_ERR_RESET_SLOT; /* fixed counters have no reset slot before fmt 4 */
    /* The counter exists iff it is in caps.fixed_mask (ds/area.h): with
     * CPUID.23H.1 that bitmap may name counters beyond leaf 0AH's count
     * (Linux update_pmu_cap), so the count is not checked. */
    _Static_assert(32 + 15 < DS_AREA64_RESET_SLOTS, "fixed 0-15 from slot 32 fit the 64-bit area");
    if (index >= 16 || !(c->fixed_mask & (1u << index)))
        return DS_ERR_RESET_SLOT;
    *slot = first + index;
    *width = c->fixed_width;
    return DS_OK;
}

/* The slot and counter width for (@kind, @index) in the context's format. */
static int reset_slot(const struct ds_ctx *ctx, enum ds_ctr_kind kind, uint32_t index, uint32_t *slot,
                      uint32_t *width)
{
#if DS_CONFIG_NETBURST
    bool nb = ctx->pebs_fmt == DS_PEBS_FMT_NB32 || ctx->pebs_fmt == DS_PEBS_FMT_NB64;
#else
    const bool nb = false; /* ds_pebs_format_select never chooses a NetBurst format */
    DS_ASSERT(ctx->pebs_fmt != DS_PEBS_FMT_NB32 && ctx->pebs_fmt != DS_PEBS_FMT_NB64);
#endif

    if (nb) {
        /* One reset value for the PEBS counter (IQ_COUNTER4/5), 40 bits wide. */
        if (kind != DS_CTR_GP || index != 0)
            return DS_ERR_RESET_SLOT;
        *slot = 0;
        *width = 40;
        return DS_OK;
    }
    if (kind == DS_CTR_GP)
        return reset_slot_gp(ctx, index, slot, width);
    return reset_slot_fixed(ctx, index, slot, width);
}

DS_COLD int ds_area_set_reset(struct ds_ctx *ctx, enum ds_ctr_kind kind, uint32_t index, uint64_t value)
{
    if (!ctx)
        return DS_ERR_NULL;
    if (!ctx->setup)
        return DS_ERR_NOT_SETUP;
    if (!ctx->pebs.mem)
        return DS_ERR_NO_PEBS_BUFFER;
    if (kind != DS_CTR_GP && kind != DS_CTR_FIXED)
        return DS_ERR_INVAL;
    uint32_t slot, width;
    int e = reset_slot(ctx, kind, index, &slot, &width);
    if (e)
        return e;
    if (width == 0)
        return DS_ERR_RESET_SLOT; /* width unknown: the counter is not described by CPUID */
    if (width < 64 && (value >> width))
        return DS_ERR_RESET_WIDTH;

    if (ctx->layout == DS_LAYOUT_32) {
        volatile struct ds_area32 *a = &ctx->area->a32;
        a->pebs_reset_lo = (uint32_t)value;
        a->pebs_reset_hi = (uint32_t)(value >> 32);
    } else {
        volatile struct ds_area64 *a = &ctx->area->a64;
        a->pebs_reset[slot] = value;
    }
    return DS_OK;
}
#else /* !DS_CONFIG_PEBS: no PEBS buffer, no counter reset slots to program */
DS_COLD int ds_area_set_reset(struct ds_ctx *ctx, enum ds_ctr_kind kind, uint32_t index, uint64_t value)
{
    (void)ctx;
    (void)kind;
    (void)index;
    (void)value;
    return DS_ERR_UNSUPPORTED;
}
#endif /* DS_CONFIG_PEBS */

DS_COLD int ds_area_install(struct ds_ctx *ctx)
{
    uint64_t prior;
    if (!ctx)
        return DS_ERR_NULL;
    if (!ctx->setup)
        return DS_ERR_NOT_SETUP;
    if (ctx->installed)
        return DS_ERR_INSTALLED;
    int e = ds_msr_read(ctx->cpu, DS_MSR_IA32_DS_AREA, &prior);
    if (e)
        return e;
    e = ds_msr_write(ctx->cpu, DS_MSR_IA32_DS_AREA, ctx->area_linear);
    if (e)
        return e;
    ctx->saved_ds_area = prior;
    ctx->installed = true;
    return DS_OK;
}

DS_COLD int ds_area_uninstall(struct ds_ctx *ctx)
{
    if (!ctx)
        return DS_ERR_NULL;
    if (!ctx->setup)
        return DS_ERR_NOT_SETUP;
    if (!ctx->installed)
        return DS_ERR_NOT_INSTALLED;
    if (ctx->bts_enabled)
        return DS_ERR_DS_BUSY;
    int e = ds_msr_write(ctx->cpu, DS_MSR_IA32_DS_AREA, ctx->saved_ds_area);
    if (e)
        return e;
    ctx->installed = false;
    return DS_OK;
}

#else /* !DS_CONFIG_AREA: the DS save area is compiled out (ds/config.h) */

DS_COLD int ds_area_layout(const struct ds_cpu *cpu, enum ds_layout *out_layout)
{
    (void)cpu;
    if (out_layout)
        *out_layout = DS_LAYOUT_NONE;
    return DS_ERR_UNSUPPORTED;
}

int ds_area_set_reset(struct ds_ctx *ctx, enum ds_ctr_kind kind, uint32_t index, uint64_t value)
{
    (void)ctx;
    (void)kind;
    (void)index;
    (void)value;
    return DS_ERR_UNSUPPORTED;
}

DS_COLD int ds_pebs_thresh_margin(const struct ds_cpu *cpu, enum ds_pebs_fmt fmt, uint32_t *out_records)
{
    (void)cpu;
    (void)fmt;
    if (out_records)
        *out_records = 0;
    return DS_ERR_UNSUPPORTED;
}

DS_COLD int ds_area_install(struct ds_ctx *ctx)
{
    (void)ctx;
    return DS_ERR_UNSUPPORTED;
}

DS_COLD int ds_area_uninstall(struct ds_ctx *ctx)
{
    (void)ctx;
    return DS_ERR_UNSUPPORTED;
}

#endif /* DS_CONFIG_AREA */
