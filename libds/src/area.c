/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * DS save area setup, validation, install/uninstall (SDM Vol. 3B "DS Save
 * Area", "DS Save Area and IA-32e Mode Operation", "Setting Up the DS Save
 * Area"; reference ds-area.md).
 */
#include <ds/area.h>
#include <ds/pebs.h>
#include <ds/bts.h>
#include "internal.h"

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

uint64_t ds__buf_thresh_field(const struct ds_ctx *ctx, bool pebs)
{
    const struct ds_buf_state *b = pebs ? &ctx->pebs : &ctx->bts;
    if (!pebs && ctx->bts_circular) /* SDM BTS set-up: beyond the maximum in circular mode */
        return b->linear + b->bytes + b->rec_size;
    return b->thresh_at;
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

/* Validate one buffer config into @st; @margin: records the threshold must leave. */
static int check_buf(const struct ds_buf_config *bc, enum ds_layout layout, uint32_t rec_size,
                     bool la57, uint32_t margin, struct ds_buf_state *st)
{
    uint64_t align = layout == DS_LAYOUT_32 ? 4 : 8;
    uint64_t linear = bc->linear ? bc->linear : (uint64_t)(uintptr_t)bc->mem;

    if (((uint64_t)(uintptr_t)bc->mem & (align - 1)) || (linear & (align - 1)))
        return DS_ERR_BUF_ALIGN;
    uint64_t rem;
    uint64_t nrec = ds__div64((uint64_t)bc->bytes, rec_size, &rem);
    if (bc->bytes == 0 || rem)
        return DS_ERR_BUF_SIZE;
    if (nrec > 0xFFFFFFFFull)
        return DS_ERR_BUF_SIZE;
    uint64_t bytes = (uint64_t)bc->bytes;
    uint64_t last = linear + bytes - 1;
    if (last < linear || last + 1 + rec_size < last) /* wraps the address space */
        return DS_ERR_BUF_ADDR;
    if (layout == DS_LAYOUT_32) {
        /* max (end) and the "no threshold" value (end + record) are stored in 32 bits */
        if (last + 1 + rec_size > 0xFFFFFFFFull)
            return DS_ERR_BUF_ADDR;
    } else {
        if (!ds_linear_canonical(linear, la57) || !ds_linear_canonical(last, la57) ||
            ((linear ^ last) >> 63))
            return DS_ERR_BUF_ADDR;
    }
    uint32_t t = bc->thresh_records;
    if (t) {
        if (nrec < 1ull + margin)
            return DS_ERR_BUF_SMALL;
        if (t > nrec)
            return DS_ERR_THRESH_RANGE;
        if (t > nrec - margin)
            return DS_ERR_THRESH_MARGIN;
    }
    st->mem = (unsigned char *)bc->mem;
    st->linear = linear;
    st->bytes = bytes;
    st->rec_size = rec_size;
    st->nrec = (uint32_t)nrec;
    st->thresh_records = t;
    st->thresh_at = ds__thresh_value(st);
    return DS_OK;
}

static bool overlap(uint64_t a, uint64_t alen, uint64_t b, uint64_t blen)
{
    return a < b + blen && b < a + alen;
}

/* What ds_area_setup has decided so far (stack only: nothing is written
 * before every check has passed). */
struct setup_plan {
    enum ds_layout layout;
    enum ds_pebs_fmt fmt;        /* DS_PEBS_FMT_NONE without a PEBS buffer */
    uint32_t pebs_rec, pebs_margin;
    uint64_t area_lin, asz;      /* management area: linear address, size */
    struct ds_buf_state bts, pebs;
};

/* The facility checks, in their precedence order: the CPU supports DS and
 * the requested buffers (SDM Vol. 3B "Setting Up the DS Save Area": CPUID
 * DS, IA32_MISC_ENABLE BTS/PEBS unavailable bits). */
static int setup_check_facility(const struct ds_ctx *ctx, const struct ds_cpu *cpu,
                                const struct ds_area_config *cfg)
{
    if (!ctx || !cpu || !cfg || !cfg->area)
        return DS_ERR_NULL;
    if (!cpu->identified)
        return DS_ERR_NOT_IDENTIFIED;
    if (ctx->setup && ctx->installed)
        return DS_ERR_INSTALLED;
    const struct ds_caps *c = &cpu->caps;
    if (c->vendor != DS_VENDOR_INTEL)
        return DS_ERR_NOT_INTEL;
    if (!c->ds)
        return DS_ERR_NO_DS;
    if (!cfg->bts.mem && !cfg->pebs.mem)
        return DS_ERR_NO_BUFFERS;
#if !DS_CONFIG_BTS
    if (cfg->bts.mem)
        return DS_ERR_UNSUPPORTED; /* BTS compiled out (ds/config.h) */
#endif
#if !DS_CONFIG_PEBS
    if (cfg->pebs.mem)
        return DS_ERR_UNSUPPORTED; /* PEBS compiled out (ds/config.h) */
#endif
    /* Not advertised because IA32_MISC_ENABLE could not be read is "unknown",
     * not "unavailable" (issue 11) */
    if (((cfg->bts.mem && !c->bts_advertised) || (cfg->pebs.mem && !c->pebs_advertised)) && !c->has_misc_enable)
        return DS_ERR_MISC_ENABLE_UNREAD;
    if (cfg->bts.mem && !c->bts_advertised)
        return DS_ERR_BTS_UNAVAILABLE;
    if (cfg->pebs.mem && !c->pebs_advertised)
        return DS_ERR_PEBS_UNAVAILABLE;
    return DS_OK;
}

#if DS_CONFIG_PEBS
/* MSR_PEBS_DATA_CFG for adaptive PEBS formats 4-6 (SDM Vol. 3B "Adaptive
 * PEBS": MSR_PEBS_DATA_CFG; Linux ds.c adaptive_pebs_record_size_update). */
static int check_data_cfg(const struct ds_caps *c, enum ds_pebs_fmt fmt, uint64_t dc)
{
    if (dc & ~(fmt == DS_PEBS_FMT_6 ? DS_PEBS_DATA_CFG_VALID6 : DS_PEBS_DATA_CFG_VALID))
        return DS_ERR_DATA_CFG;
    /* Optional groups need PEBS baseline (PERF_CAPABILITIES[14]); without
     * it only the basic group exists (Linux intel_ds_init, fmt 4-6). */
    if ((dc & 0x3F) && !c->pebs_baseline)
        return DS_ERR_DATA_CFG;
    /* Format 6 counters snapshot: masks only with the counters bit, and
     * only counters that exist (CPUID 0AH/23H bitmaps). */
    uint32_t gpm = (uint32_t)((dc & DS_PEBS_DATA_CFG_GP_MASK) >> DS_PEBS_DATA_CFG_GP_SHIFT);
    uint32_t fxm = (uint32_t)((dc & DS_PEBS_DATA_CFG_FIX_MASK) >> DS_PEBS_DATA_CFG_FIX_SHIFT);
    if ((gpm || fxm) && !(dc & DS_PEBS_DATA_CFG_CNTRS))
        return DS_ERR_DATA_CFG;
    if ((gpm & ~c->gp_mask) || (fxm & ~c->fixed_mask))
        return DS_ERR_DATA_CFG;
    /* PERF_METRICS in the snapshot needs the perf-metrics MSR
     * (PERF_CAPABILITIES[15]). */
    if ((dc & DS_PEBS_DATA_CFG_METRICS) && !c->perf_metrics)
        return DS_ERR_DATA_CFG;
    return DS_OK;
}

/* The PEBS record format, its size and the threshold margin (SDM Vol. 3B
 * "PEBS Record Format"; IA32_PERF_CAPABILITIES.PEBS_FMT). */
static int setup_pebs_format(const struct ds_cpu *cpu, const struct ds_area_config *cfg,
                             struct setup_plan *p)
{
    int e = ds_pebs_format_select(cpu, p->layout, &p->fmt);
    if (e)
        return e;
    /* Architectural PEBS never writes the DS area (IA32_PEBS_BASE/INDEX,
     * arch_pebs.h); a DS-area buffer there would stay empty. */
    if (p->fmt == DS_PEBS_FMT_ARCH)
        return DS_ERR_APEBS_DS_AREA;
    bool adaptive = ds_pebs_fmt_adaptive(p->fmt);
    uint64_t dc = cfg->pebs_data_cfg;
    if (!adaptive && dc)
        return DS_ERR_DATA_CFG;
    if (adaptive) {
        e = check_data_cfg(&cpu->caps, p->fmt, dc);
        if (e)
            return e;
    }
    p->pebs_rec = ds_pebs_record_size(p->fmt, cfg->pebs_data_cfg);
    if (!p->pebs_rec)
        return DS_ERR_PEBS_FORMAT;
    return ds_pebs_thresh_margin(cpu, p->fmt, &p->pebs_margin);
}
#endif /* DS_CONFIG_PEBS */

/* The management area: field-aligned, below 4 GiB in the 32-bit layout,
 * canonical in the 64-bit one (SDM Vol. 3B "DS Save Area", "DS Save Area and
 * IA-32e Mode Operation"). */
static int setup_check_mgmt_area(const struct ds_area_config *cfg, struct setup_plan *p)
{
    uint64_t area_lin = cfg->area_linear ? cfg->area_linear : (uint64_t)(uintptr_t)cfg->area;
    uint64_t fsz = p->layout == DS_LAYOUT_32 ? 4 : 8;
    uint64_t asz = p->layout == DS_LAYOUT_32 ? sizeof(struct ds_area32) : sizeof(struct ds_area64);
    if (((uint64_t)(uintptr_t)cfg->area & (_Alignof(union ds_area) - 1)) || (area_lin & (fsz - 1)))
        return DS_ERR_AREA_ALIGN;
    if (p->layout == DS_LAYOUT_32) {
        if (area_lin + asz > 0x100000000ull)
            return DS_ERR_AREA_ADDR;
    } else if (!ds_linear_canonical(area_lin, cfg->la57) ||
               !ds_linear_canonical(area_lin + asz - 1, cfg->la57) || area_lin + asz - 1 < area_lin ||
               ((area_lin ^ (area_lin + asz - 1)) >> 63)) {
        return DS_ERR_AREA_ADDR;
    }
    p->area_lin = area_lin;
    p->asz = asz;
    return DS_OK;
}

/* The BTS then the PEBS buffer (check_buf), then the format 0 size limit. */
static int setup_check_buffers(const struct ds_area_config *cfg, struct setup_plan *p)
{
    int e;
    DS_ASSERT(DS_CONFIG_BTS || !cfg->bts.mem);
    DS_ASSERT(DS_CONFIG_PEBS || !cfg->pebs.mem);
    if (cfg->bts.mem) {
        e = check_buf(&cfg->bts, p->layout, p->layout == DS_LAYOUT_32 ? DS_BTS_REC32_SIZE : DS_BTS_REC64_SIZE,
                      cfg->la57, DS_THRESH_MARGIN, &p->bts);
        if (e)
            return e;
    }
    if (cfg->pebs.mem) {
        e = check_buf(&cfg->pebs, p->layout, p->pebs_rec, cfg->la57, p->pebs_margin, &p->pebs);
        if (e)
            return e;
        /* Core 2 / Atom (format 0): a PEBS buffer larger than a page makes the
         * WRMSR to IA32_PERF_GLOBAL_CTRL hang (Linux ds.c intel_ds_init, fmt0
         * case: pebs_buffer_size = PAGE_SIZE). Whether a 4 KiB buffer that
         * crosses a page boundary is also affected is not documented; Linux's
         * buffer is one page, so callers should page-align it. */
        if (p->fmt == DS_PEBS_FMT_0 && p->pebs.bytes > 4096)
            return DS_ERR_PEBS_BUF_4K;
    }
    return DS_OK;
}

/* Overlaps, in the CPU's (linear) view and in libds's (pointer) view. */
static int setup_check_overlaps(const struct ds_area_config *cfg, const struct setup_plan *p)
{
    const struct ds_buf_state *bts = &p->bts, *pebs = &p->pebs;
    uint64_t ap = (uint64_t)(uintptr_t)cfg->area;
    uint64_t bp = (uint64_t)(uintptr_t)bts->mem, pp = (uint64_t)(uintptr_t)pebs->mem;
    if (bts->mem && (overlap(p->area_lin, p->asz, bts->linear, bts->bytes) ||
                     overlap(ap, sizeof(union ds_area), bp, bts->bytes)))
        return DS_ERR_OVERLAP;
    if (pebs->mem && (overlap(p->area_lin, p->asz, pebs->linear, pebs->bytes) ||
                      overlap(ap, sizeof(union ds_area), pp, pebs->bytes)))
        return DS_ERR_OVERLAP;
    if (bts->mem && pebs->mem &&
        (overlap(bts->linear, bts->bytes, pebs->linear, pebs->bytes) || overlap(bp, bts->bytes, pp, pebs->bytes)))
        return DS_ERR_OVERLAP;
    return DS_OK;
}

/* All checks passed: build the context and the area (memory only; SDM Vol. 3B
 * "DS Save Area": buffer base, index, absolute maximum, interrupt threshold). */
static void setup_build(struct ds_ctx *ctx, struct ds_cpu *cpu, const struct ds_area_config *cfg,
                        const struct setup_plan *p)
{
    const struct ds_caps *c = &cpu->caps;
    ds__zero(ctx, sizeof(*ctx));
    ctx->cpu = cpu;
    ctx->layout = p->layout;
    ctx->area = cfg->area;
    ctx->area_linear = p->area_lin;
    ctx->bts = p->bts;
    ctx->pebs = p->pebs;
    ctx->pebs_fmt = p->fmt;
    ctx->pebs_data_cfg = cfg->pebs_data_cfg;
    ctx->pebs_trap = c->pebs_trap;
    ctx->pebs_timed = c->pebs_timing_info;
    ctx->pebs_lat_split = ds_pebs_latency_split(cpu);
    ds__zero(cfg->area, sizeof(union ds_area));
    if (p->bts.mem) {
        ds__zero(p->bts.mem, (size_t)p->bts.bytes);
        ds__area_put(ctx, false, DS__BASE, p->bts.linear);
        ds__area_put(ctx, false, DS__INDEX, p->bts.linear);
        /* Absolute maximum = base + N * record size (Linux alloc_bts_buffer; the
         * SDM's "+1" variant works too, reference ds-area.md). */
        ds__area_put(ctx, false, DS__MAX, p->bts.linear + p->bts.bytes);
        ctx->bts_circular = p->bts.thresh_records == 0;
        ds__area_put(ctx, false, DS__THRESH, ds__buf_thresh_field(ctx, false));
    }
    if (p->pebs.mem) {
        ds__area_put(ctx, true, DS__BASE, p->pebs.linear);
        ds__area_put(ctx, true, DS__INDEX, p->pebs.linear);
        ds__area_put(ctx, true, DS__MAX, p->pebs.linear + p->pebs.bytes);
        ds__area_put(ctx, true, DS__THRESH, p->pebs.thresh_at);
    }
    ctx->setup = true;
}

/* Checks in precedence order (the first failing one wins), then the build. */
DS_COLD int ds_area_setup(struct ds_ctx *ctx, struct ds_cpu *cpu, const struct ds_area_config *cfg)
{
    struct setup_plan p;
    int e = setup_check_facility(ctx, cpu, cfg);
    if (e)
        return e;
    ds__zero(&p, sizeof(p));
    p.fmt = DS_PEBS_FMT_NONE;
    e = ds_area_layout(cpu, &p.layout);
    if (e)
        return e;
#if DS_CONFIG_PEBS
    if (cfg->pebs.mem) {
        e = setup_pebs_format(cpu, cfg, &p);
        if (e)
            return e;
    }
#endif
    if (!cfg->pebs.mem && cfg->pebs_data_cfg)
        return DS_ERR_DATA_CFG;
    e = setup_check_mgmt_area(cfg, &p);
    if (e)
        return e;
    e = setup_check_buffers(cfg, &p);
    if (e)
        return e;
    e = setup_check_overlaps(cfg, &p);
    if (e)
        return e;
    setup_build(ctx, cpu, cfg, &p);
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

DS_COLD int ds_area_setup(struct ds_ctx *ctx, struct ds_cpu *cpu, const struct ds_area_config *cfg)
{
    (void)cpu;
    (void)cfg;
    if (ctx)
        ds__zero(ctx, sizeof(*ctx)); /* never set up, never installed */
    return DS_ERR_UNSUPPORTED;
}

DS_COLD int ds_area_set_reset(struct ds_ctx *ctx, enum ds_ctr_kind kind, uint32_t index, uint64_t value)
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
