/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ds_area_setup: validate a DS area configuration against the CPU and the
 * BTS and PEBS record formats, then build the management area (SDM Vol. 3B
 * "DS Save Area", "DS Save Area and IA-32e Mode Operation", "Setting Up
 * the DS Save Area"; reference ds-area.md). Above PEBS in the dependency
 * order (it asks pebs_select.c for the format and pebs.c for the record
 * size), so that the DS area itself (area.c, ds/area.h) stays below the
 * PEBS and BTS drains that use it (issue 26 item 5).
 */
#include <ds/area.h>
#include <ds/pebs.h>
#include "area_fields.h"

#if DS_CONFIG_AREA

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

#else /* !DS_CONFIG_AREA: the DS save area is compiled out (ds/config.h) */

DS_COLD int ds_area_setup(struct ds_ctx *ctx, struct ds_cpu *cpu, const struct ds_area_config *cfg)
{
    (void)cpu;
    (void)cfg;
    if (ctx)
        ds__zero(ctx, sizeof(*ctx)); /* never set up, never installed */
    return DS_ERR_UNSUPPORTED;
}

#endif /* DS_CONFIG_AREA */
