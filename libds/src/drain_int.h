/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libds private: the drain engine shared by the DS-area drains (drain.c;
 * its users pebs.c, pebs_fixed.c, pebs_adaptive.c, bts.c and the PMI
 * handler). Knows the DS area (area_fields.h) and the drain results
 * (struct ds_drain_stats, ds/area.h); no PEBS or BTS type, so the PEBS
 * and BTS sources depend on it and never the other way round (issue 26
 * item 5).
 */
#ifndef DS_DRAIN_INT_H
#define DS_DRAIN_INT_H

#include "area_fields.h"

/* Zero drain statistics field by field (7 stores; no ds__zero byte loop). */
static inline void ds__stats_clear(struct ds_drain_stats *d)
{
    d->present = d->records = 0;
    d->lost_beyond = d->lost_corrupt = d->lost_rejected = d->lost_race = 0;
    d->anomalies = 0;
}

/* --- Drain engine shared by PEBS and BTS (drain.c) -------------------------
 * Bounds that hold whatever the DS management fields contain. Inline with
 * @pebs a constant at each call (pebs.c: the PMI path, issue 10 item 21,
 * one frame per drain); bts.c calls the out-of-line copies in drain.c
 * (ds__drain_span, ds__drain_finish).
 */

/* ds__area_get / ds__area_put with the layout test done once by the
 * caller (@l32: ctx->layout == DS_LAYOUT_32): a 32-bit store may alias
 * ctx->layout, so the compiler reloads and retests it after each. */
static inline uint64_t ds__fld_get(const struct ds_ctx *ctx, bool l32, bool pebs, enum ds__fld f)
{
    unsigned i = (pebs ? 4u : 0u) + (unsigned)f;
    if (l32)
        return ((const volatile uint32_t *)&ctx->area->a32)[i];
    return ((const volatile uint64_t *)&ctx->area->a64)[i];
}

static inline void ds__fld_put(struct ds_ctx *ctx, bool l32, bool pebs, enum ds__fld f, uint64_t v)
{
    unsigned i = (pebs ? 4u : 0u) + (unsigned)f;
    if (l32)
        ((volatile uint32_t *)&ctx->area->a32)[i] = (uint32_t)v;
    else
        ((volatile uint64_t *)&ctx->area->a64)[i] = v;
}

/* Verify and repair base/max/threshold fields (anomaly bits into st). */
static inline __attribute__((always_inline)) void ds__drain_check_fields(struct ds_ctx *ctx, bool pebs,
                                                                          struct ds_drain_stats *st)
{
    const struct ds_buf_state *b = pebs ? &ctx->pebs : &ctx->bts;
    const bool l32 = ctx->layout == DS_LAYOUT_32;
    if (ds__fld_get(ctx, l32, pebs, DS__BASE) != b->linear) {
        st->anomalies |= DS_DRAIN_BASE_CHANGED;
        ds__fld_put(ctx, l32, pebs, DS__BASE, b->linear);
    }
    if (ds__fld_get(ctx, l32, pebs, DS__MAX) != b->linear + b->bytes) {
        st->anomalies |= DS_DRAIN_MAX_CHANGED;
        ds__fld_put(ctx, l32, pebs, DS__MAX, b->linear + b->bytes);
    }
    uint64_t t = pebs ? b->thresh_at : ds__buf_thresh_field(ctx, false);
    if (l32)
        t &= 0xFFFFFFFFull;
    if (ds__fld_get(ctx, l32, pebs, DS__THRESH) != t) {
        st->anomalies |= DS_DRAIN_THRESH_CHANGED;
        ds__fld_put(ctx, l32, pebs, DS__THRESH, t);
    }
}

/* Finish a drain: race check against @seen_index, reset the index. */
static inline __attribute__((always_inline)) void ds__drain_finish_inl(struct ds_ctx *ctx, bool pebs,
                                                                        uint64_t seen_index,
                                                                        struct ds_drain_stats *st)
{
    const struct ds_buf_state *b = pebs ? &ctx->pebs : &ctx->bts;
    const bool l32 = ctx->layout == DS_LAYOUT_32;
    uint64_t now = ds__fld_get(ctx, l32, pebs, DS__INDEX);
    /* Records the CPU appended while we walked (only meaningful if the index
     * we walked to was sane and it moved forward within the buffer). */
    if (now != seen_index && seen_index >= b->linear && now > seen_index && now <= b->linear + b->bytes) {
        uint64_t n = ds__div_rec(now - seen_index, b->rec_size, NULL);
        if (n) {
            st->lost_race += n;
            st->present += n;
            st->anomalies |= DS_DRAIN_RACE;
        }
    }
    ds__fld_put(ctx, l32, pebs, DS__INDEX, b->linear);
}

/*
 * Fixed-size drain (PEBS fmt 0-3 and NetBurst, BTS): read the index once into *out_idx,
 * repair base/max/threshold, account present/lost_beyond and the anomaly
 * bits, and return how many whole records [0, n) lie inside the caller's
 * buffer (n <= b->nrec, so mem + n * rec_size <= mem + bytes). One
 * division per call, none per record. Follow with the walk (records
 * [0, n), advancing a pointer by rec_size), then
 * ds__drain_finish(ctx, pebs, *out_idx, st).
 */
static inline __attribute__((always_inline)) uint32_t ds__drain_span_inl(struct ds_ctx *ctx, bool pebs,
                                                                          struct ds_drain_stats *st,
                                                                          uint64_t *out_idx)
{
    const struct ds_buf_state *b = pebs ? &ctx->pebs : &ctx->bts;
    uint64_t idx = ds__area_get(ctx, pebs, DS__INDEX);

    DS_ASSERT(b->mem && b->rec_size && b->bytes == (uint64_t)b->nrec * b->rec_size);
    *out_idx = idx;
    ds__drain_check_fields(ctx, pebs, st);
    if (idx < b->linear) {
        st->anomalies |= DS_DRAIN_INDEX_BELOW_BASE;
        return 0;
    }
    uint64_t off = idx - b->linear;
    uint64_t rem;
    uint64_t claimed = ds__div_rec(off, b->rec_size, &rem);
    if (rem)
        st->anomalies |= DS_DRAIN_INDEX_MISALIGNED;
    uint64_t inbuf = claimed < b->nrec ? claimed : b->nrec;
    /* Compare bytes, not whole records: an index past the maximum by less
     * than one record is past the maximum too (pebs.h DS_DRAIN_INDEX_PAST_MAX);
     * FULL is the index exactly at the maximum. */
    if (off > b->bytes)
        st->anomalies |= DS_DRAIN_INDEX_PAST_MAX;
    else if (off == b->bytes)
        st->anomalies |= DS_DRAIN_FULL;
    st->present += claimed;
    st->lost_beyond += claimed - inbuf;
    return (uint32_t)inbuf;
}

/* Out-of-line copies (drain.c, BTS or PEBS compiled in). */
uint32_t ds__drain_span(struct ds_ctx *ctx, bool pebs, struct ds_drain_stats *st, uint64_t *out_idx);
void ds__drain_finish(struct ds_ctx *ctx, bool pebs, uint64_t seen_index, struct ds_drain_stats *st);

#endif /* DS_DRAIN_INT_H */
