/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libds private: the DS management fields of a set-up context (SDM Vol. 3B
 * "DS Save Area") and the threshold values setup programs into them. Read
 * by the area setup (area_setup.c), the drain engine (drain_int.h), the
 * drains (pebs*.c, bts.c), the PMI handler and the probe. Knows the DS
 * area types only (ds/area.h): no PEBS, BTS or drain type (issue 26 item 5).
 */
#ifndef DS_AREA_FIELDS_H
#define DS_AREA_FIELDS_H

#include "util.h"
#include <ds/area.h>

/*
 * DS management fields (SDM Vol. 3B "DS Save Area": BTS base, index,
 * maximum, threshold, then the same four for PEBS), read/written through
 * volatile (the CPU updates the index). Inline: the PMI path reads them on
 * every NMI (issue 10 item 21); @pebs and @f are constants at every call,
 * so each is one load or store after the layout test.
 */
enum ds__fld { DS__BASE = 0, DS__INDEX = 1, DS__MAX = 2, DS__THRESH = 3 };

static inline uint64_t ds__area_get(const struct ds_ctx *ctx, bool pebs, enum ds__fld f)
{
    unsigned i = (pebs ? 4u : 0u) + (unsigned)f;
    if (ctx->layout == DS_LAYOUT_32)
        return ((const volatile uint32_t *)&ctx->area->a32)[i];
    return ((const volatile uint64_t *)&ctx->area->a64)[i];
}

static inline void ds__area_put(struct ds_ctx *ctx, bool pebs, enum ds__fld f, uint64_t v)
{
    unsigned i = (pebs ? 4u : 0u) + (unsigned)f;
    if (ctx->layout == DS_LAYOUT_32)
        ((volatile uint32_t *)&ctx->area->a32)[i] = (uint32_t)v;
    else
        ((volatile uint64_t *)&ctx->area->a64)[i] = v;
}

/* The threshold field value setup programs for a buffer: the interrupt
 * threshold, or past the absolute maximum (never reached) without one.
 * Computed once at setup into b->thresh_at (area_setup.c check_buf). */
static inline uint64_t ds__thresh_value(const struct ds_buf_state *b)
{
    if (b->thresh_records == 0)
        return b->linear + b->bytes + b->rec_size;
    return b->linear + (uint64_t)b->thresh_records * b->rec_size;
}

/* The threshold field value for the context's BTS (@pebs false: beyond the
 * maximum while bts_circular) or PEBS buffer, as setup programs it and the
 * drain repairs it. */
static inline uint64_t ds__buf_thresh_field(const struct ds_ctx *ctx, bool pebs)
{
    const struct ds_buf_state *b = pebs ? &ctx->pebs : &ctx->bts;
    if (!pebs && ctx->bts_circular) /* SDM BTS set-up: beyond the maximum in circular mode */
        return b->linear + b->bytes + b->rec_size;
    return b->thresh_at;
}

#endif /* DS_AREA_FIELDS_H */
